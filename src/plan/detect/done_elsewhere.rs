//! Done marks kept outside a sprint's own section.
//!
//! Shapes recognised: the frontmatter's `state: completed` (or `status:
//! done`) for the whole plan, unless the frontmatter records the writing
//! of the document itself (a BMAD `stepsCompleted:` list); Cursor-style frontmatter `todos:` (`- id: …`,
//! `content: …`, `status: completed`) matched to sprints by id or name; and
//! a checklist outside every sprint section whose items name sprints by
//! their heading (`- [x] (2026-02-06) Milestone 1: …` in a `## Progress`
//! list, `- [x] **Phase 25: …**` in a roadmap index).
//!
//! Such a mark is the author's word on the sprint, so it also overrides the
//! weakest evidence found inside the section: a sprint the index marks open
//! is not done because its inner checklist happens to be all ticked.

use std::collections::BTreeMap;

use super::*;

/// Apply the done marks on a heading the sprint sits under: its unit's
/// (`## ✅ Parser`) or a group's (`## Completed`).
pub(super) fn marks_above(doc: &Doc, units: &mut [RawUnit]) {
    for unit in units.iter_mut().filter(|u| u.done_mark) {
        for sprint in &mut unit.sprints {
            sprint.sprint.done.get_or_insert_with(|| {
                "marked complete in the plan (on its unit's heading)".to_string()
            });
        }
    }
    under_done_groups(doc, units);
}

/// Apply the done marks kept away from the sprints: frontmatter, todos,
/// a roadmap index, a progress checklist, a completion log.
pub(super) fn marks_elsewhere(
    doc: &Doc,
    source: &str,
    frontmatter: &BTreeMap<String, String>,
    units: &mut [RawUnit],
) {
    super::agent_columns::completion_log(doc, units);
    // A frontmatter that records how the document was written (`stepsCompleted:
    // [step-01-validate-prerequisites, …]`, `inputDocuments:`) says with its
    // `status: complete` that the writing is done, not the work.
    let authored = [
        "stepscompleted",
        "inputdocuments",
        "workflowtype",
        "laststep",
    ]
    .iter()
    .any(|k| frontmatter.keys().any(|key| key.to_lowercase() == *k));
    for key in ["state", "status"].into_iter().filter(|_| !authored) {
        if let Some(v) = frontmatter.get(key).filter(|v| status_says_done(v)) {
            let why = format!("marked complete in the plan (frontmatter `{key}: {v}`)");
            for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
                sprint.sprint.done = Some(why.clone());
            }
            return;
        }
    }
    for todo in todos(source) {
        let Some(sprint) = find_by_todo(units, &todo) else {
            continue;
        };
        set(
            sprint,
            status_says_done(&todo.status),
            format!(
                "marked complete in the plan (frontmatter todo `{}`: {})",
                todo.id, todo.status
            ),
        );
    }
    let mut listed_only = Vec::new();
    let mut matched = 0;
    // An item that is a sprint's own task line is that sprint's work, not
    // an index of sprints (`- [ ] Milestone 4: Hooks` under `## Milestones`).
    let index = super::index_items::index_items(doc);
    // Made only when the plan has index items: most have none.
    let task_lines: std::collections::BTreeSet<String> = if index.is_empty() {
        Default::default()
    } else {
        units
            .iter()
            .flat_map(|u| &u.sprints)
            .flat_map(|s| &s.sprint.tasks)
            .map(|t| norm(t))
            .collect()
    };
    let index: Vec<_> = index
        .into_iter()
        .filter(|(_, _, label, _)| !task_lines.contains(&norm(label)))
        .collect();
    // Several entries of one list naming one step (`- [x] Paso 3:
    // migration run`, `- [ ] Paso 3: test in the browser`) are its
    // leftovers: it is done only when every one is ticked. An open entry
    // elsewhere (known issues, open questions) or put off or struck is not.
    let headings: Vec<(usize, usize)> = if index.is_empty() {
        Vec::new()
    } else {
        (0..doc.blocks.len())
            .filter_map(|i| doc.heading(i).map(|(_, _, span)| (span.start, i)))
            .collect()
    };
    let section_of = |at: usize| {
        let k = headings.partition_point(|&(start, _)| start <= at);
        k.checked_sub(1).map(|k| headings[k].1)
    };
    // The first tick of each step in each section: an open entry above it
    // (`- [ ] Step 2: started backfill` before `- [x] Step 2: finished`) is
    // a log's earlier line.
    let mut ticked_at: BTreeMap<(SprintId, Option<usize>), usize> = BTreeMap::new();
    for (_, id, _, span) in index.iter().filter(|(checked, ..)| *checked) {
        ticked_at
            .entry((id.clone(), section_of(span.start)))
            .or_insert(span.start);
    }
    let open_entry: std::collections::BTreeSet<SprintId> = index
        .iter()
        .filter(|(checked, _, label, _)| !checked && leaves_work(label))
        .filter(|(_, id, _, span)| {
            ticked_at
                .get(&(id.clone(), section_of(span.start)))
                .is_some_and(|&at| at < span.start)
        })
        .map(|(_, id, ..)| id.clone())
        .collect();
    let mut open_whole = Vec::new();
    for (checked, id, label, span) in index {
        let checked = checked && !open_entry.contains(&id);
        let Some(sprint) = find_by_id(units, &id) else {
            // `~~**Phase 3.4: DSL**~~ - ABANDONED`: listed, not to run.
            if !super::dropped::struck_dropped(&label) {
                listed_only.push((checked, id, label, span));
            }
            continue;
        };
        matched += 1;
        // `- [ ] **M1 — remaining: none, just a final review (optional)**`
        // leaves nothing of the step open.
        let lower = label.to_lowercase();
        if !checked && leaves_work(&label) && !["none", "nothing"].iter().any(|w| lower.contains(w))
        {
            open_whole.push(id.clone());
        }
        set(
            sprint,
            checked,
            format!("marked complete in the plan (`{label}` ticked in its index)"),
        );
    }
    // `Task 5a`, `Task 5b` ticked in the index of a plan whose step is
    // `Task 5`: parts of that step, done when every part is.
    let listed_only = super::done_named::parts_of_steps(units, listed_only, &open_whole);
    restated_checklists(doc, units);
    done_lists(doc, units);
    // A Gantt chart's rows tagged `done` naming steps: marks of an index,
    // for steps no evidence of their own marks.
    for (id, row) in super::gantt::done_rows(doc) {
        if let Some(sprint) = find_by_id(units, &id).filter(|s| s.sprint.done.is_none()) {
            let why = format!("marked complete in the plan (`{row}` in its Gantt chart)");
            set(sprint, true, why);
        }
    }
    super::done_named::done_headings(doc, units);
    super::done_named::done_groups(doc, units);
    super::done_named::done_spans(doc, units);
    // A status table naming the sprints by number (`| Sprint | Goal |
    // Status |`, `| 3 | Selector UX | COMPLETE |`) is an index too.
    let mut rows_only = Vec::new();
    let rows =
        super::status_rows::not_the_sprints_own(doc, super::status_rows::status_rows(doc), units);
    let rows = super::status_rows::numbering_other_things(rows, units);
    let rows = super::status_rows::naming_another_step(rows, units);
    for row in rows {
        let found = match &row.code {
            Some(code) => super::status_rows::find_by_code(units, code),
            None => find_by_id(units, &row.id),
        };
        let Some(sprint) = found else {
            rows_only.push(row);
            continue;
        };
        matched += 1;
        // A step whose own heading says it is under way (`### Stage 5 — …
        // 🚧`) is not done by a table that says so: the marks disagree,
        // and the open one is kept.
        if row.done && heading_marked_open(doc, sprint) {
            continue;
        }
        set(
            sprint,
            row.done,
            format!(
                "marked complete in the plan (`{}` in its status table)",
                row.label
            ),
        );
    }
    // Phases the index lists without a section of their own (a shipped
    // milestone folded away): sprints too, in their place by number.
    if let [unit] = units {
        if matched > 0 {
            let listed = listed_only.into_iter().map(|(checked, id, label, span)| {
                index_only_sprint(doc, checked, id, &label, span)
            });
            // `| 1 | Repository Restructure | ✅ |` where the plan's steps
            // are `1.1`, `1.2`: the row names their phase, not a step of
            // its own, and its work is theirs.
            let groups: Vec<u32> = unit
                .sprints
                .iter()
                .filter(|s| s.id.suffix.starts_with(['.', '-']))
                .map(|s| s.id.number)
                .collect();
            let rows = rows_only
                .into_iter()
                .filter(|row| row.plain)
                .filter(|row| !(row.id.suffix.is_empty() && groups.contains(&row.id.number)))
                .map(|row| super::status_rows::row_only_sprint(doc, row));
            for sprint in listed.chain(rows) {
                // A sprint both lists name is added once.
                if unit.sprints.iter().any(|s| s.id == sprint.id) {
                    continue;
                }
                let at = unit.sprints.iter().position(|s| s.id > sprint.id);
                unit.sprints
                    .insert(at.unwrap_or(unit.sprints.len()), sprint);
            }
        }
    }
    // The plan's own status speaks for steps no index names: where an
    // index or a status table names any, its word on each is the plan's.
    if matched == 0 {
        super::done_named::plan_status(doc, units);
    }
}

/// A checklist outside every sprint, cut by headings that name the
/// sprints (`## Checklist` holding `### Fase 0 - Crítico` and its boxes):
/// each heading's boxes mark the sprint it names done when every one is
/// ticked, open otherwise; a phase whose steps are the sprints (`1.1`,
/// `1.2` under `Phase 1`) marks each of them.
fn restated_checklists(doc: &Doc, units: &mut [RawUnit]) {
    for j in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(j) else {
            continue;
        };
        if doc.is_sprint(j) || in_sprint(doc, doc.parent[j]) {
            continue;
        }
        // Cheap first: most headings name no sprint.
        if !text.contains(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some(Heading::Sprint(h)) = parse_heading(text) else {
            continue;
        };
        if doc.word.is_some_and(|w| w != h.word) {
            continue;
        }
        let Some(id) = model_id(&h.id) else {
            continue;
        };
        let boxes: Vec<bool> = doc
            .own_blocks(j)
            .filter_map(|b| match &doc.blocks[b] {
                Block::Item {
                    checked: Some(c), ..
                } => Some(*c),
                _ => None,
            })
            .collect();
        if boxes.len() < 2 {
            continue;
        }
        let done = boxes.iter().all(|c| *c);
        let why = format!(
            "marked complete in the plan (every box under `{}` ticked)",
            text.trim()
        );
        let whole = id.suffix.is_empty();
        for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
            let named = sprint.id == id
                || (whole && sprint.id.number == id.number && sprint.id.suffix.starts_with('.'));
            if named {
                set(sprint, done, why.clone());
            }
        }
    }
}

/// A plain list outside every sprint, under a label that says done
/// (`**Completed in this repo:**`, `### Done`), whose items name sprints
/// by their headings (`- Phase 1: Renderer contract …`): each sprint it
/// names is done. A list of other things names none and marks nothing.
fn done_lists(doc: &Doc, units: &mut [RawUnit]) {
    let mut label_done = false;
    for j in 0..doc.blocks.len() {
        let label = match &doc.blocks[j] {
            Block::Paragraph { text, .. }
                if text.trim_end().ends_with([':', '：']) || text.trim_end().ends_with(":**") =>
            {
                Some(text.as_str())
            }
            Block::Heading { text, .. } if !doc.is_sprint(j) => Some(text.as_str()),
            _ => None,
        };
        if let Some(label) = label {
            // Most labels sit in a sprint's own text (`**Exit Criteria**:`):
            // settled by a walk up, before any word is looked up.
            if in_sprint(doc, doc.parent.get(j).copied().flatten()) {
                label_done = false;
                continue;
            }
            // The label is a done bucket's name (`Completed in this
            // repo`, `Done`), not a line about one piece of work marked
            // done (`✅ **Operations ready**:`).
            let label = label.trim().trim_matches(['*', '_', ':', '：', ' ']);
            let words: Vec<&str> = label.split_whitespace().collect();
            let first = words
                .first()
                .map_or("", |w| w.trim_matches(|c: char| !c.is_alphanumeric()));
            label_done = !label.contains('\n')
                && words.len() <= 4
                && !first.is_empty()
                && status_says_done(first);
            continue;
        }
        let Block::Item {
            text,
            checked: None,
            depth: 0,
            ..
        } = &doc.blocks[j]
        else {
            if !matches!(doc.blocks[j], Block::Item { .. }) {
                label_done = false;
            }
            continue;
        };
        if !label_done {
            continue;
        }
        let head = text.lines().next().unwrap_or_default().replace("**", "");
        let Some(Heading::Sprint(h)) = parse_heading(head.trim()) else {
            continue;
        };
        if doc.word.is_some_and(|w| w != h.word) {
            continue;
        }
        // `Phase 1: …`, `Phase 1 — …`: the item opens with the sprint's
        // name, not with words about it (`Phase 3でのV2 …`).
        let after = head
            .find(h.id.as_str())
            .map(|at| head[at + h.id.len()..].trim_start());
        if !after.is_some_and(|a| a.is_empty() || a.starts_with([':', '-', '–', '—', '(', '.']))
        {
            continue;
        }
        let Some(id) = model_id(&h.id) else {
            continue;
        };
        if let Some(sprint) = find_by_id(units, &id) {
            let why = format!(
                "marked complete in the plan (`{}` listed as done)",
                head.trim()
            );
            set(sprint, true, why);
        }
    }
}

/// A sprint from an index line: `Phase 1: Foundation (3/3 plans) —
/// completed 2026-02-24` is sprint 1, "Foundation", done when ticked.
fn index_only_sprint(doc: &Doc, checked: bool, id: SprintId, label: &str, span: Span) -> RawSprint {
    let name = label.split_once(':').map_or(label, |(_, n)| n);
    let name = [" — ", " – ", " - "]
        .iter()
        .fold(name, |n, sep| n.split(sep).next().unwrap_or(n));
    // `Foundation (3/3 plans)`: the count is not part of the name.
    let name = match name.rfind(" (") {
        Some(p) if name[p..].contains('/') => &name[..p],
        _ => name,
    };
    let mut sprint = super::sprints::blank_sprint(id.clone(), name.trim(), label.to_string());
    sprint.done =
        checked.then(|| format!("marked complete in the plan (`{label}` ticked in its index)"));
    sprint.origin = Origin::new(
        doc.line(span.start),
        "listed only in the plan's index (no section of its own)",
    );
    RawSprint { id, span, sprint }
}

/// Whether a step's own heading line carries a mark of work under way or
/// to do (`🚧`, `⏳`, `🔄`, `⬜`).
fn heading_marked_open(doc: &Doc, sprint: &RawSprint) -> bool {
    let line = doc.source[sprint.span.start..]
        .lines()
        .next()
        .unwrap_or_default();
    line.trim_start().starts_with('#') && line.contains(['⏳', '🚧', '🔄', '⬜', '🔲'])
}

/// Record the author's word: done with `why`, or open, which clears only
/// evidence read from the section's inner checklist.
pub(super) fn set(sprint: &mut RawSprint, done: bool, why: String) {
    let weak = sprint
        .sprint
        .done
        .as_deref()
        .is_none_or(|d| d.contains("items ticked"));
    if weak {
        sprint.sprint.done = done.then_some(why);
    }
}

pub(super) struct Todo {
    pub(super) id: String,
    pub(super) content: String,
    pub(super) status: String,
    /// The ids it waits for (`dependencies:` as a list or `[a, b]`).
    pub(super) dependencies: Vec<String>,
    /// Where its `- id:` line starts in the source.
    pub(super) at: usize,
}

/// The keys a todo names what it waits for with.
const DEPENDENCY_KEYS: [&str; 4] = ["dependencies", "depends_on", "dependsOn", "blockedBy"];

/// The frontmatter's `todos:` list (`- id: x` then `content:`, `status:`
/// and `dependencies:` of the same item). A `- ` line indented deeper than
/// the items is a value of the key above it, not a new todo.
pub(super) fn todos(source: &str) -> Vec<Todo> {
    let Some(body) = crate::plan::frontmatter::body_range(source) else {
        return Vec::new();
    };
    let mut out: Vec<Todo> = Vec::new();
    let mut inside = false;
    let mut item_indent: Option<usize> = None;
    let mut last_key = String::new();
    let mut at = body.start;
    for line in source[body].split_inclusive('\n') {
        let line_start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if !line.starts_with([' ', '-', '\t']) {
            inside = line.trim_end() == "todos:";
            item_indent = None;
            continue;
        }
        if !inside {
            continue;
        }
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let (t, dash) = match t.strip_prefix("- ") {
            Some(rest) => (rest, true),
            None => (t, false),
        };
        if dash && item_indent.is_some_and(|i| indent > i) {
            if let Some(todo) = out.last_mut() {
                if DEPENDENCY_KEYS.contains(&last_key.as_str()) {
                    todo.dependencies.push(unquote(t));
                }
            }
            continue;
        }
        if dash {
            item_indent = Some(indent);
            out.push(Todo {
                id: String::new(),
                content: String::new(),
                status: String::new(),
                dependencies: Vec::new(),
                at: line_start,
            });
        }
        let Some(todo) = out.last_mut() else {
            continue;
        };
        let Some((k, v)) = t.split_once(':') else {
            continue;
        };
        last_key = k.trim().to_string();
        let v = unquote(v);
        match last_key.as_str() {
            "id" => todo.id = v,
            "content" | "title" | "name" => todo.content = v,
            "status" | "state" => todo.status = v,
            k if DEPENDENCY_KEYS.contains(&k) => {
                if let Some(list) = v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                    todo.dependencies
                        .extend(list.split(',').map(unquote).filter(|d| !d.is_empty()));
                }
            }
            _ => {}
        }
    }
    out.retain(|t| !t.status.is_empty());
    out
}

fn unquote(v: &str) -> String {
    v.trim().trim_matches('"').trim_matches('\'').to_string()
}

/// Words of `s`, lower-cased, for comparing names written a little apart.
fn words(s: &str) -> String {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The one sprint a todo names: by its id (`1`, `sprint-1`, `phase-2`) or by
/// its text (the sprint's name, or the todo's text starting with it).
fn find_by_todo<'u>(units: &'u mut [RawUnit], todo: &Todo) -> Option<&'u mut RawSprint> {
    let content = words(&todo.content);
    let id_words = words(&todo.id);
    let matches = |s: &RawSprint| {
        let name = words(&s.sprint.name);
        let id = s.id.to_string().to_lowercase();
        (!name.is_empty() && (content == name || (name.len() >= 8 && content.starts_with(&name))))
            || id_words == id
            || id_words.split(' ').next_back() == Some(id.as_str()) && id_words.contains(' ')
    };
    the_one(units, matches)
}

/// The one sprint with this id.
pub(super) fn find_by_id<'u>(units: &'u mut [RawUnit], id: &SprintId) -> Option<&'u mut RawSprint> {
    the_one(units, |s| &s.id == id)
}

/// The sprint `matches` picks when it picks exactly one.
pub(super) fn the_one(
    units: &mut [RawUnit],
    matches: impl Fn(&RawSprint) -> bool,
) -> Option<&mut RawSprint> {
    let mut found = units
        .iter_mut()
        .flat_map(|u| u.sprints.iter_mut())
        .filter(|s| matches(s));
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// Whether an open index entry leaves work of its step to do: not struck,
/// optional, pointing on (`→ Phase 3`), put off or dropped.
fn leaves_work(label: &str) -> bool {
    let lower = label.to_lowercase();
    !label.contains("~~")
        && !["→", "->", "optional", "nice to have"]
            .iter()
            .any(|w| lower.contains(w))
        && !super::status_words::put_off(&lower)
        && !super::dropped::dropped(label)
}

/// Whether the block under `heading` sits in a sprint's section.
pub(super) fn in_sprint(doc: &Doc, heading: Option<usize>) -> bool {
    let mut up = heading;
    while let Some(h) = up {
        if doc.is_sprint(h) {
            return true;
        }
        up = doc.parent[h];
    }
    false
}

/// `(2026-02-06) Milestone 1` → `Milestone 1`.
pub(super) fn strip_date(text: &str) -> &str {
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('(') {
        if let Some(end) = rest.find(')') {
            let inside = &rest[..end];
            // `(2025-12-29 21:05 CET)`, `(2026-05-06 10:00Z)`: a date, a
            // time and its zone.
            if inside.starts_with(|c: char| c.is_ascii_digit())
                && inside
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || " -/:.+".contains(c))
            {
                return rest[end + 1..].trim_start();
            }
        }
    }
    t
}

/// Sprints under a heading that groups finished work (`## ✅ Completed`,
/// `## Done`) are done.
fn under_done_groups(doc: &Doc, units: &mut [RawUnit]) {
    let starts = doc.headings_by_start();
    // Each heading is judged once, however many sprints sit under it.
    let mut judged: HashMap<usize, bool> = HashMap::new();
    let done_group = |h: usize| {
        doc.heading(h).is_some_and(|(_, text, _)| {
            let (clean, marked) = strip_done_marks(text);
            let group = super::units::sections::is_status_group(&clean)
                || (marked && super::units::sections::is_status_group(text));
            group && (status_says_done(&clean) || marked)
        })
    };
    for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
        if sprint.sprint.done.is_some() {
            continue;
        }
        let mut up = starts.get(&sprint.span.start).and_then(|&i| doc.parent[i]);
        while let Some(h) = up {
            if *judged.entry(h).or_insert_with(|| done_group(h)) {
                let text = doc.heading(h).map_or("", |(_, t, _)| t);
                sprint.sprint.done = Some(format!(
                    "marked complete in the plan (under `{}`)",
                    text.trim()
                ));
                break;
            }
            up = doc.parent[h];
        }
    }
}

/// An ExecPlan whose milestones are named only in its progress checklist
/// (`- [x] (2026-02-15 17:20Z) Milestone 1 completed: …`): one sprint per
/// milestone, in order, done when every item naming it is ticked.
pub(super) fn progress_milestones(doc: &Doc) -> Vec<RawSprint> {
    let mut found: Vec<(u32, String, bool, Span, usize)> = Vec::new();
    for (checked, first, span) in super::index_items::outside_checklist(doc) {
        let lower = first.to_lowercase();
        let Some(rest) = lower.strip_prefix("milestone ") else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(n) = digits.parse::<u32>() else {
            continue;
        };
        let after = first["milestone ".len() + digits.len()..]
            .trim_start_matches([' ', ':', '—', '-'])
            .trim();
        let name = ["completed:", "complete:", "done:", "finished:"]
            .iter()
            .find_map(|p| {
                after
                    .get(..p.len())
                    .filter(|h| h.eq_ignore_ascii_case(p))
                    .map(|_| after[p.len()..].trim())
            })
            .unwrap_or(after);
        match found.iter_mut().find(|(m, ..)| *m == n) {
            Some(entry) => entry.2 &= checked,
            None => found.push((
                n,
                name.to_string(),
                checked,
                span.clone(),
                doc.line(span.start),
            )),
        }
    }
    if found.len() < 2 {
        return Vec::new();
    }
    found
        .into_iter()
        .map(|(n, name, done, span, line)| {
            let id = SprintId::whole(n);
            let short: String = name
                .split(". ")
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect();
            let sprint = Sprint {
                tasks: vec![name.clone()],
                done: done.then(|| {
                    "marked complete in the plan (ticked in its progress checklist)".to_string()
                }),
                origin: Origin::new(line, "a milestone named in the progress checklist"),
                ..super::sprints::blank_sprint(id.clone(), short.trim_end_matches('.'), name)
            };
            RawSprint { id, span, sprint }
        })
        .collect()
}
