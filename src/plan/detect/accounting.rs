//! Every task line has a home: after the readers have found the sprints,
//! each checkbox, numbered or bold task line of the plan is counted in
//! exactly one sprint, as a criterion, or as "not work" with the reason.
//! What the count finds makes the reading safe whatever reader found the
//! sprints:
//!
//! - a sprint is never done while one of its own task lines is open (a
//!   partly ticked verification step, `[~]` in progress), unless its mark
//!   counts the work complete (`3/3`, a completion date);
//! - open task lines in no sprint (work dropped) and two sprints listing
//!   the same tasks (work twice) are warnings, which `start` confirms and
//!   `plan --strict` refuses.

use super::about_plan::describes_plan;
use super::elsewhere::*;
use super::line_marks::dated;
use super::line_marks::ends_deferred;
use super::line_marks::ends_marked;
use super::line_marks::ends_pending;
use super::line_marks::full_count;
use super::line_marks::{bold_label_says_done, bold_work_label, plan_boxes, PENDING};
use super::*;
use crate::plan::model::Tally;
use crate::plan::model::TallyLine;

/// One task line of the plan.
struct TaskLine<'d> {
    span: Span,
    /// The item's text without its checkbox.
    text: &'d str,
    /// `Some(false)` for an open checkbox (also `[~]`, `[-]`, `[/]`).
    ticked: Option<bool>,
    /// `- [ ]*`: an optional task (Kiro). Open, it holds its sprint open
    /// like any task line (a step is not done while a line of its own is
    /// open); outside every sprint it is no work.
    optional: bool,
    /// A top-level item or a table row, not a sub-task of another line.
    top: bool,
    /// Open by a pending mark, with no box: open work inside a sprint,
    /// a status note outside every sprint.
    marked_pending: bool,
}

impl TaskLine<'_> {
    fn open(&self) -> bool {
        self.ticked == Some(false)
    }
}

fn task_lines<'d>(doc: &'d Doc, units: &[RawUnit]) -> Vec<TaskLine<'d>> {
    // Lists (runs of items) holding a box: their items without one are
    // open lines too (`1. CRM module` above `3. [x] Verified the scripts`).
    let mut boxed_list = vec![false; doc.blocks.len()];
    let mut marked_list = vec![false; doc.blocks.len()];
    let mut start = 0;
    for i in 0..=doc.blocks.len() {
        if matches!(doc.blocks.get(i), Some(Block::Item { .. })) {
            continue;
        }
        let boxed = doc.blocks[start..i].iter().any(|b| {
            matches!(
                b,
                Block::Item {
                    checked: Some(_),
                    text,
                    ..
                } if !super::completion::done_item(text)
            )
        });
        boxed_list[start..i].fill(boxed);
        // Or each item marked done at its end (`- Crear CONTRIBUTING.md ✅`),
        // two or more of them: an item without the mark is open.
        let marked = doc.blocks[start..i]
            .iter()
            .filter(|b| matches!(b, Block::Item { depth: 0, checked: None, text, .. } if ends_marked(text)))
            .count();
        marked_list[start..i].fill(marked >= 2);
        start = i + 1;
    }
    let mut out = Vec::new();
    for (i, b) in doc.blocks.iter().enumerate() {
        let Block::Item {
            text,
            checked,
            span,
            depth,
            ..
        } = b
        else {
            continue;
        };
        let raw = doc.source[span.clone()].trim_start();
        let numbered = raw.starts_with(|c: char| c.is_ascii_digit())
            && raw
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with(['.', ')']);
        // Boxes Markdown does not read as boxes: in progress, Kiro's optional.
        let unread_box = ["[~]", "[-]", "[/]", "[ ]"]
            .iter()
            .any(|m| text.trim_start().starts_with(m));
        // `- ⏳ **Try it in the field** ← next`: a line marked pending or
        // under way is open work, boxed or not.
        let pending = text.trim_start().starts_with(PENDING) || ends_pending(text);
        // `- **UI-kit integration** → popup.gd`: a bold name opening a
        // top-level item is a work line; `- **Goal**: …` is a field.
        let bold = *depth == 0 && bold_work_label(raw);
        // `- **Blocker Resolved:** …` among lines marked done at their end:
        // a field saying something is done, not a line of work left open
        // (`- **TODO:** rate limiting` still is).
        let marked = *depth == 0
            && checked.is_none()
            && marked_list[i]
            && (ends_marked(text) || !bold_label_says_done(raw));
        // `- [x] **已完成** 2026-04-21`: the section's done mark.
        if *checked == Some(true) && super::completion::done_item(text) {
            continue;
        }
        if !(checked.is_some()
            || unread_box
            || pending
            || bold
            || marked
            || (numbered && *depth == 0))
        {
            continue;
        }
        let mut t = text.trim();
        // `- [ ] (Tasks move here when work begins)`: a placeholder.
        let bare = t.trim_start_matches(['[', ' ', ']']);
        if bare.starts_with('(') && bare.ends_with(')') {
            continue;
        }
        let ticked = if unread_box {
            t = t[3..].trim_start();
            Some(false)
        } else if pending && checked.is_none() {
            t = t.trim_start_matches(PENDING).trim_start();
            Some(false)
        } else if pending && *checked == Some(true) {
            // `[x] Deploy (pending config)`: the aside says it is not.
            Some(false)
        } else if checked.is_none() && *depth == 0 && boxed_list[i] {
            Some(false)
        } else if marked {
            Some(ends_marked(text))
        } else {
            *checked
        };
        // `⏳ Review stats (deferred — needs storage)`: put off, not open;
        // `~~Phase 3.4: DSL~~ - ABANDONED`: dropped, not open.
        let ticked =
            ticked.filter(|&t| t || !(ends_deferred(text) || super::dropped::struck_dropped(text)));
        out.push(TaskLine {
            span: span.clone(),
            optional: t.starts_with('*') && !t.starts_with("**"),
            text: t.trim_start_matches('*').trim(),
            ticked,
            top: *depth == 0,
            marked_pending: pending && checked.is_none(),
        });
    }
    out.extend(work_rows(doc, units));
    out.sort_by_key(|l| l.span.start);
    out
}

/// Whether a list item (its source) opens with a bold name that is not a
/// field label (`**Goal**:`, `**Files:**`).
/// Rows of a work table are task lines too: a table with a status or
/// blocked-by column whose rows open with a code (`| FLOW-003 | FLOW-002
/// |`, `| MFO-115 | … | ⬜ |`), two or more, or whose every status cell is
/// a done or open mark. A row is done when its status says so or its code
/// is struck through.
fn work_rows<'d>(doc: &'d Doc, units: &[RawUnit]) -> Vec<TaskLine<'d>> {
    // A table the reader read its units or sprints from is not counted
    // again: its rows name them.
    // Made when a work table is first met: most plans have none.
    let known = std::cell::OnceCell::new();
    let names_known = |r: &Row| {
        let known: &HashSet<String> = known.get_or_init(|| {
            let mut names: HashSet<String> = HashSet::new();
            for u in units {
                names.insert(u.name.to_lowercase());
                for s in &u.sprints {
                    names.insert(s.sprint.name.to_lowercase());
                    names.insert(s.id.to_string().to_lowercase());
                }
            }
            // And each name's first word (`wu1` of `wu1: telemetry`).
            let heads: Vec<String> = names
                .iter()
                .filter_map(|k| k.split([':', ' ']).next().map(str::to_string))
                .collect();
            names.extend(heads);
            names
        });
        r.cells.iter().take(2).any(|c| {
            let t = c.text.trim().trim_matches(['~', '*', '`']).to_lowercase();
            known.contains(&t)
        })
    };
    let sprint_rows: HashSet<usize> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| s.span.start)
        .collect();
    let mut out = Vec::new();
    for b in &doc.blocks {
        let Block::Table { header, rows, .. } = b else {
            continue;
        };
        // A board: each row a task, open or done by its mark's column.
        if let Some(states) = super::state_columns::state_columns(header) {
            // A board of the sprints themselves (`| Phase 2 | | X | |`)
            // is an index, not tasks.
            let names_step = |r: &Row| {
                r.cells.first().is_some_and(|c| {
                    matches!(super::headings::parse_heading(&c.text),
                        Some(super::headings::Heading::Sprint(h)) if Some(h.word) == doc.word)
                })
            };
            let own = rows
                .iter()
                .filter(|r| !sprint_rows.contains(&r.span.start) && !names_step(r));
            out.extend(
                super::state_columns::board_tasks(header, own, &states)
                    .into_iter()
                    .map(|(row, text, done)| TaskLine {
                        span: row.span.clone(),
                        optional: false,
                        text,
                        ticked: Some(done),
                        top: true,
                        marked_pending: false,
                    }),
            );
            continue;
        }
        let status = column(header, &["status", "state", "done"])
            .or_else(|| column_where(header, super::completion::is_status_key));
        let waits = column(
            header,
            &["blocked by", "depends on", "dependencies", "depends"],
        );
        if status.is_none() && waits.is_none() {
            continue;
        }
        // Or rows whose status cell is a mark, done or open (`| enum with
        // data | ✅ |`, `| stdin | ⬜ |`): a feature table tracking work.
        let marked = |r: &Row| {
            status.and_then(|k| r.cells.get(k)).is_some_and(|c| {
                super::completion::status_says_done(&c.text)
                    || super::completion::status_says_open(&c.text)
            })
        };
        let all_marked = status.is_some_and(|k| k > 0) && rows.iter().all(marked);
        let coded: Vec<&Row> = rows
            .iter()
            .filter(|r| all_marked || r.cells.first().is_some_and(|c| is_code(&c.text)))
            .collect();
        if coded.len() < 2 || coded.iter().filter(|r| names_known(r)).count() * 2 >= coded.len() {
            continue;
        }
        let named = column(
            header,
            &[
                "task",
                "story",
                "title",
                "name",
                "description",
                "scope",
                "feature",
            ],
        );
        for row in coded {
            // A row the reader read as a sprint is that sprint.
            if sprint_rows.contains(&row.span.start) {
                continue;
            }
            let code = &row.cells[0].text;
            let text = named
                .and_then(|k| row.cells.get(k))
                .map_or(code.as_str(), |c| c.text.as_str());
            let struck = code.trim().starts_with("~~");
            let done = status
                .and_then(|k| row.cells.get(k))
                .is_some_and(|c| super::completion::status_says_done(&c.text));
            out.push(TaskLine {
                span: row.span.clone(),
                optional: false,
                text: text.trim().trim_matches('~').trim(),
                ticked: Some(struck || done),
                top: true,
                marked_pending: false,
            });
        }
    }
    out
}

/// `FLOW-003`, `MFO-115`, `T12`, `~~FLOW-002~~`: letters and a number.
fn is_code(cell: &str) -> bool {
    let t = cell.trim().trim_matches(['~', '*', '`']);
    let letters = t.chars().take_while(char::is_ascii_alphabetic).count();
    let rest = t[letters..].trim_start_matches(['-', '_']);
    (1..=8).contains(&letters) && !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit())
}

/// Where a sprint's own text lies in the source: the part of its text
/// written as is at its heading or row (a sprint gathered from several
/// places is found by its tasks instead).
fn sprint_range(doc: &Doc, s: &RawSprint) -> Option<Span> {
    let rest = doc.source.get(s.span.start..)?;
    let same = rest
        .bytes()
        .zip(s.sprint.body.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    (same > 0).then(|| s.span.start..s.span.start + same)
}

/// The sprints holding each offset, from their ranges sorted by start
/// with the furthest end so far: no pass over every sprint per line.
struct Homes<'d> {
    units: &'d [RawUnit],
    ranges: Vec<(Span, (usize, usize))>,
    reach: Vec<usize>,
    /// Task text → the one sprint listing it (None when several do), made
    /// when a line is first found in no range.
    by_task: std::cell::OnceCell<HashMap<&'d str, Option<(usize, usize)>>>,
}

impl<'d> Homes<'d> {
    fn new(doc: &Doc, units: &'d [RawUnit]) -> Self {
        let mut ranges = Vec::new();
        for (u, unit) in units.iter().enumerate() {
            for (k, s) in unit.sprints.iter().enumerate() {
                if let Some(r) = sprint_range(doc, s) {
                    ranges.push((r, (u, k)));
                }
            }
        }
        ranges.sort_by_key(|(r, _)| r.start);
        let reach = ranges
            .iter()
            .scan(0, |furthest, (r, _)| {
                *furthest = r.end.max(*furthest);
                Some(*furthest)
            })
            .collect();
        Homes {
            units,
            ranges,
            reach,
            by_task: std::cell::OnceCell::new(),
        }
    }

    fn by_task(&self) -> &HashMap<&'d str, Option<(usize, usize)>> {
        self.by_task.get_or_init(|| {
            let mut map: HashMap<&str, Option<(usize, usize)>> = HashMap::new();
            for (u, unit) in self.units.iter().enumerate() {
                for (k, s) in unit.sprints.iter().enumerate() {
                    for t in &s.sprint.tasks {
                        map.entry(t.trim())
                            .and_modify(|h| {
                                if *h != Some((u, k)) {
                                    *h = None
                                }
                            })
                            .or_insert(Some((u, k)));
                    }
                }
            }
            map
        })
    }

    fn of(&self, line: &TaskLine) -> Home {
        let offset = line.span.start;
        let mut found = Home::None;
        let mut i = self.ranges.partition_point(|(r, _)| r.start <= offset);
        while i > 0 && self.reach[i - 1] > offset {
            i -= 1;
            let (r, home) = &self.ranges[i];
            if r.contains(&offset) {
                found = match found {
                    Home::None => Home::One(*home),
                    _ => Home::Several,
                };
            }
        }
        found
    }

    /// The one sprint listing a line's text as a task, for a sprint
    /// gathered from several places.
    fn by_text(&self, line: &TaskLine) -> Option<(usize, usize)> {
        self.by_task().get(line.text).copied().flatten()
    }
}

/// The sprints a line is in.
enum Home {
    None,
    One((usize, usize)),
    Several,
}

/// Why a line in no sprint is not work, if it is not.
fn not_work_reason(doc: &Doc, e: &Elsewhere, line: &TaskLine) -> Option<String> {
    if let Some(name) = e.names_sprint(line.text) {
        return Some(format!(
            "names sprint `{name}` (an index or progress entry)"
        ));
    }
    let headings = &e.headings;
    let i = headings.partition_point(|(start, _)| *start <= line.span.start);
    if let Some(heading) = i.checked_sub(1).map(|i| headings[i].1) {
        if criteria_label(heading).is_some() {
            return Some(format!("criteria section `{}`", clean_name(heading)));
        }
        if describes_plan(heading) {
            return Some(format!(
                "section `{}` is about the plan",
                clean_name(heading)
            ));
        }
    }
    // The sections above the line, the nearest first: a template to copy
    // (`## Task template` with its placeholders), or criteria holding the
    // nearest (`### Aprovação da Fase 1` under `## Critérios de aprovação`).
    let mut up = i.checked_sub(1).map(|k| e.heading_blocks[k]);
    let mut nearest = true;
    while let Some(h) = up {
        if super::template::is_entry_template(doc, h) {
            return Some("in a section that is a template to copy".into());
        }
        match doc.heading(h) {
            Some((_, text, _))
                if !nearest && matches!(criteria_label(text), Some(Label::Exit | Label::Entry)) =>
            {
                return Some(format!("criteria section `{}`", clean_name(text)));
            }
            // `### Ongoing Tasks` under `## Post-Launch: Maintenance`, and
            // `### Code Quality` under `## Ongoing Tasks`.
            Some((level, text, _))
                if level > 1
                    && (super::about_plan::names_after_the_plan(text)
                        || super::about_plan::names_habits(text)) =>
            {
                return Some(format!("section `{}` is about the plan", clean_name(text)));
            }
            _ => {}
        }
        nearest = false;
        up = doc.parent[h];
    }
    // `- [ ] Not started`, `- [x] Done`: a legend of the marks.
    let legend = norm(line.text.trim_end_matches(['.', ':']));
    if matches!(
        legend.as_str(),
        "not started"
            | "todo"
            | "to do"
            | "open"
            | "pending"
            | "in progress"
            | "done"
            | "complete"
            | "completed"
            | "blocked"
    ) {
        return Some("a legend of the marks, outside every sprint".into());
    }
    match line.ticked {
        Some(true) => Some("ticked, outside every sprint".into()),
        None => Some("no checkbox, outside every sprint".into()),
        Some(false) if line.marked_pending => Some("no checkbox, outside every sprint".into()),
        Some(false) if line.optional => Some("optional, outside every sprint".into()),
        Some(false) => None,
    }
}

/// The task text with its leading id (`T1:`, `#101`, `1.2`) removed,
/// lower-cased: two lists of the same work compare equal. Kept as a hash
/// of its words (no copy of the text); None for a one-word task.
fn work_key(text: &str) -> Option<u64> {
    let t = text.trim().trim_start_matches(['*', '_']);
    let first = t.split_whitespace().next().unwrap_or("");
    let id_like = first.chars().any(|c| c.is_ascii_digit())
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '#' | '.' | ':' | '-' | ')'));
    let rest = if id_like { &t[first.len()..] } else { t };
    let rest = rest.trim_start_matches([':', ' ', '—', '–', '-']);
    let (hash, words) = rest.split_whitespace().fold((FNV_START, 0), |(h, n), w| {
        let h = if n > 0 {
            fnv(h, std::iter::once(b' '))
        } else {
            h
        };
        (fnv(h, w.bytes()), n + 1)
    });
    (words >= 2).then_some(hash)
}

/// Count every task line, clear done marks that open lines contradict, and
/// report dropped or doubled work.
pub(super) fn account(
    doc: &Doc,
    units: &mut [RawUnit],
    plan_wide: &[&[Criterion]],
    problems: &mut Vec<Problem>,
    guesses: &mut Vec<Warning>,
) -> Tally {
    let lines = task_lines(doc, units);
    let mut tally = Tally {
        task_lines: lines.len(),
        ..Tally::default()
    };
    let (mut open_in, ticked_in) = count_lines(doc, units, plan_wide, &lines, &mut tally);
    guesses.extend(progress_inside(doc, units, &open_in, &ticked_in));
    for (at, n, rows) in super::completion::open_in_done(doc, units) {
        let open = open_in.entry(at).or_default();
        *open += n + if *open == 0 { rows } else { 0 };
    }
    guesses.extend(undo_done(doc, units, &open_in, &ticked_in));
    same_work_twice(doc, units, &mut tally, problems);
    if let Some(first) = lines.iter().find(|l| {
        tally
            .outside
            .first()
            .is_some_and(|o| o.line == doc.line(l.span.start))
    }) {
        let n = tally.outside.len();
        problems.push(
            Problem::new(
                ProblemCode::WorkOutside,
                format!(
                    "{n} open task line{} belong{} to no sprint and would never be dispatched (first: `{}`)",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "s" } else { "" },
                    first.text
                ),
            )
            .label(first.span.clone(), "in no sprint")
            .help("put the work under a sprint heading, tick it if it is done, or rewrite the plan with `git supervisor import`")
            .tolerated(),
        );
    }
    tally
}

/// Task lines per sprint, by (unit, sprint) index.
type LineCounts = HashMap<(usize, usize), usize>;

/// Give each line its home in the tally; returns each sprint's count of
/// open task lines of its own, and of ticked top-level ones.
fn count_lines(
    doc: &Doc,
    units: &[RawUnit],
    plan_wide: &[&[Criterion]],
    lines: &[TaskLine],
    tally: &mut Tally,
) -> (LineCounts, LineCounts) {
    let homes = Homes::new(doc, units);
    let criteria = std::cell::OnceCell::new();
    let elsewhere = std::cell::OnceCell::new();
    let shown = |line: &TaskLine, reason: String| TallyLine {
        line: doc.line(line.span.start),
        text: line.text.chars().take(120).collect(),
        reason,
    };
    let mut open_in: HashMap<(usize, usize), usize> = HashMap::new();
    let mut ticked_in: HashMap<(usize, usize), usize> = HashMap::new();
    for line in lines {
        let home = match homes.of(line) {
            Home::None => {
                let criteria = criteria.get_or_init(|| criteria_hashes(units, plan_wide));
                if criteria.contains(&fnv(FNV_START, line.text.trim().bytes())) {
                    tally.criteria += 1;
                    continue;
                }
                // A line that only repeats a sprint's name (a preview of
                // an epic's tickets) is an index entry, not that sprint's
                // own line.
                homes
                    .by_text(line)
                    .filter(|&(u, k)| {
                        !units[u].sprints[k]
                            .sprint
                            .name
                            .trim()
                            .eq_ignore_ascii_case(line.text.trim())
                    })
                    .map_or(Home::None, Home::One)
            }
            home => home,
        };
        match home {
            Home::None => {
                let e = elsewhere.get_or_init(|| Elsewhere::new(doc, units));
                match not_work_reason(doc, e, line) {
                    Some(reason) => tally.not_work.push(shown(line, reason)),
                    None => tally.outside.push(shown(line, String::new())),
                }
            }
            Home::One(home) => {
                let s = &units[home.0].sprints[home.1].sprint;
                // `Exit: x` read as the criterion `x`.
                let after_label = line.text.split_once(':').map_or("", |(_, r)| r.trim());
                let criterion = s
                    .entry
                    .iter()
                    .chain(&s.exit)
                    .any(|c| c.text.trim() == line.text || c.text.trim() == after_label);
                if criterion {
                    tally.criteria += 1;
                } else {
                    tally.in_sprints += 1;
                    if line.open() {
                        *open_in.entry(home).or_default() += 1;
                    } else if line.ticked == Some(true) && line.top {
                        *ticked_in.entry(home).or_default() += 1;
                    }
                }
            }
            Home::Several => tally.twice.push(shown(line, String::new())),
        }
    }
    (open_in, ticked_in)
}

/// Open sprints whose own top-level task lines are partly ticked keep their
/// progress a level below the sprint: each is read as one sprint whose
/// agent does the open lines, where the author may have meant each line as
/// a sprint. One sprint in progress is how any plan is worked; two or more
/// at once are the sign.
fn progress_inside(
    doc: &Doc,
    units: &[RawUnit],
    open_in: &HashMap<(usize, usize), usize>,
    ticked_in: &HashMap<(usize, usize), usize>,
) -> Option<Warning> {
    let mut mixed: Vec<(usize, &str, usize, usize)> = ticked_in
        .iter()
        .filter_map(|(&home, &ticked)| {
            let open = *open_in.get(&home)?;
            let s = &units[home.0].sprints[home.1];
            Some((doc.line(s.span.start), s.sprint.name.as_str(), ticked, open))
        })
        .collect();
    // A plan worked sprint by sprint has one sprint in progress at most;
    // two or more say the author's unit of work is the line.
    if mixed.len() < 2 {
        return None;
    }
    mixed.sort();
    let (line, name, ticked, open) = *mixed.first()?;
    let n = mixed.len();
    Some(Warning {
        code: "reading::progress_inside".into(),
        message: format!(
            "{n} sprint{} keep{} progress on {} task lines (first: `{name}`, {ticked} ticked, {open} open): each is one sprint whose agent does the open lines",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            if n == 1 { "its" } else { "their" },
        ),
        help: "if each task line is a sprint of its own, give it a heading, or have your agent rewrite the plan with `git supervisor import`".into(),
        line,
    })
}

/// Sprints marked done that hold open lines of their own are not done;
/// the guess that says so. A completion date stands over stale boxes, but
/// not over a roadmap's plan boxes ticked one by one with some still open
/// (`- [x] **Phase 22** (completed 2026-03-11)` over `- [x] 22-01-PLAN.md`
/// and three open plans: the tool that ticks them kept them). A count of
/// the work complete (`3/3`) stands over stale boxes only where one of the
/// sprint's own boxes is ticked (`**Plans:** 4/4 plans complete` over four
/// open plans marks nothing).
fn undo_done(
    doc: &Doc,
    units: &mut [RawUnit],
    open_in: &HashMap<(usize, usize), usize>,
    ticked_in: &HashMap<(usize, usize), usize>,
) -> Option<Warning> {
    let mut undone = Vec::new();
    for (&(u, k), &n) in open_in {
        let s = &mut units[u].sprints[k];
        if s.sprint.done.as_deref().is_some_and(|d| {
            // More plan boxes than open lines: some plan box is ticked.
            let plans = plan_boxes(&s.sprint.tasks);
            let ticked = ticked_in.contains_key(&(u, k));
            !(dated(d) && plans <= n || full_count(d) && ticked)
        }) {
            s.sprint.done = None;
            undone.push((doc.line(s.span.start), s.sprint.name.clone(), n));
        }
    }
    undone.sort();
    let (line, name, n) = undone.first()?;
    Some(Warning {
        code: "reading::open_lines".into(),
        message: format!(
            "{} sprint{} marked done still hold{} open task lines (first: `{name}`, {n} open): read as not done",
            undone.len(),
            if undone.len() == 1 { "" } else { "s" },
            if undone.len() == 1 { "s" } else { "" },
        ),
        help: "tick the task lines that are done, or leave the sprint to run".into(),
        line: *line,
    })
}

/// Two sprints whose task lists name the same tasks (other ids, same
/// words). Only sprints that share a task are compared, and a task most
/// sprints share (`Write tests`) says nothing.
fn same_work_twice(doc: &Doc, units: &[RawUnit], tally: &mut Tally, problems: &mut Vec<Problem>) {
    let sprints: Vec<&RawSprint> = units.iter().flat_map(|u| &u.sprints).collect();
    // (task, sprint) pairs, each task once per sprint, grouped by task.
    let mut pairs: Vec<(u64, usize)> = Vec::new();
    let mut counts = vec![0usize; sprints.len()];
    for (i, s) in sprints.iter().enumerate() {
        let start = pairs.len();
        pairs.extend(
            s.sprint
                .tasks
                .iter()
                .filter_map(|t| work_key(t))
                .map(|k| (k, i)),
        );
        pairs[start..].sort_unstable();
        let mut kept = start;
        for j in start..pairs.len() {
            if j == start || pairs[j].0 != pairs[kept - 1].0 {
                pairs[kept] = pairs[j];
                kept += 1;
            }
        }
        pairs.truncate(kept);
        counts[i] = kept - start;
    }
    pairs.sort_unstable();
    let mut shared_by: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        if !(2..=8).contains(&group.len()) {
            continue;
        }
        for (x, &(_, a)) in group.iter().enumerate() {
            for &(_, b) in &group[x + 1..] {
                *shared_by.entry((a, b)).or_default() += 1;
            }
        }
    }
    for ((a, b), shared) in shared_by {
        if shared < 2 || shared * 5 < counts[a].max(counts[b]) * 4 {
            continue;
        }
        let (first, second) = (sprints[a], sprints[b]);
        tally.same_work.push(TallyLine {
            line: doc.line(second.span.start),
            text: second.sprint.name.clone(),
            reason: format!("the same {shared} tasks as `{}`", first.sprint.name),
        });
        problems.push(
            Problem::new(
                ProblemCode::SameWorkTwice,
                format!(
                    "sprints `{}` and `{}` list the same {shared} tasks: the same work would run twice",
                    first.sprint.name, second.sprint.name
                ),
            )
            .label(second.span.clone(), "the same tasks again")
            .label(first.span.clone(), "first listed here")
            .help("keep one list of the work (a preview and the list made from it are one list), or rewrite the plan with `git supervisor import`")
            .tolerated(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::work_key;

    #[test]
    fn ids_do_not_make_work_different() {
        assert_eq!(
            work_key("T1: Add the model"),
            work_key("#101 Add the model")
        );
        assert_eq!(work_key("1.2 Add the model"), work_key("add  the Model"));
        assert_ne!(work_key("Add the model"), work_key("Add the view"));
        assert_eq!(work_key("Refactor"), None);
    }
}
