//! Sprints from a numbered task list (Kiro's `tasks.md`): top-level
//! checklist items `- [ ] 1. Set up the project`, each one sprint, with its
//! nested bullets and its numbered sub-tasks (`- [ ] 1.1 Create the models`,
//! nested or not) as the sprint's tasks. `_Requirements: 1.2_` and
//! `**Validates: …**` lines are traceability, not work, and are left out; an
//! optional task (`- [ ]* 2.3 …`) is a task like any other. A top-level item
//! ticked `[x]` is a sprint the plan marks done. Phases over one such list
//! counted on across them (`## FASE 2` over `- [ ] 9. …`), each item with
//! sub-tasks of its own, are read as the items, each phase's own.

use super::*;

/// `1. Title` → (1, "Title"); `*` (Kiro's optional mark) may come first.
/// A bold number and a dash read the same (`**01 — Build the shell**
/// ([doc](x))`): the bold part is the name. With `codes`, a task code
/// reads as its number (`T1 Set up …`, ai-dev-tasks' parent tasks).
fn numbered(text: &str, codes: bool) -> Option<(u32, String)> {
    let t = text.trim_start();
    let bold = t.starts_with("**");
    let t = t.trim_start_matches('*').trim_start();
    // A task code: the letter goes, and a space alone separates it from
    // the name.
    let coded = codes && lettered(t);
    let t = if coded { &t[1..] } else { t };
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let seps: &[&str] = if coded {
        &[". ", " — ", " – ", " - ", ": ", ") ", " "]
    } else {
        &[". ", " — ", " – ", " - ", ": ", ") "]
    };
    let rest = seps
        .iter()
        .find_map(|sep| t[digits.len()..].strip_prefix(sep))?;
    let n = digits.parse().ok()?;
    let name = match rest.find("**").filter(|_| bold) {
        Some(end) => &rest[..end],
        None => rest,
    }
    .trim();
    (!name.is_empty()).then(|| (n, name.to_string()))
}

/// `T1`: one capital, then a digit.
fn lettered(t: &str) -> bool {
    let mut c = t.chars();
    c.next().is_some_and(|l| l.is_ascii_uppercase()) && c.next().is_some_and(|d| d.is_ascii_digit())
}

/// `1.1 Title` → "1.1 Title": a sub-task of sprint 1 (`T1.1` as well).
fn sub_task(text: &str) -> Option<(u32, &str)> {
    let t = text.trim_start().trim_start_matches('*').trim_start();
    let (id, _) = t.split_once(char::is_whitespace)?;
    let id = if lettered(id) { &id[1..] } else { id };
    let (major, minor) = id.trim_end_matches('.').split_once('.')?;
    if minor.is_empty() || !minor.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((major.parse().ok()?, t))
}

/// Kiro's optional task `- [ ]* 2.2 …` and a task in progress (`- [-] 2. …`,
/// `[~]`, `[/]`)
/// are no task-list items to Markdown: their box is read from the text. Returns (ticked, the text after the box).
fn optional_box(text: &str) -> Option<(bool, &str)> {
    let t = text.trim_start();
    for (mark, ticked) in [
        ("[ ]*", false),
        ("[x]*", true),
        ("[X]*", true),
        ("[-]*", false),
        ("[-]", false),
        ("[~]", false),
        ("[/]", false),
    ] {
        if let Some(rest) = t.strip_prefix(mark) {
            return Some((ticked, rest.trim_start()));
        }
    }
    None
}

/// An item's box and its first line after the box: Markdown's own, or one
/// it does not read as a box (`[ ]*`, `[-]`).
fn boxed_first_line(text: &str, checked: Option<bool>) -> (Option<bool>, &str) {
    let first = text.lines().next().unwrap_or_default();
    match (checked, optional_box(first)) {
        (None, Some((ticked, rest))) => (Some(ticked), rest),
        _ => (checked, first),
    }
}

fn traceability(line: &str) -> bool {
    let l = line
        .trim()
        .trim_matches(|c| c == '_' || c == '*')
        .trim_start();
    let lower = l.to_lowercase();
    lower.starts_with("requirements:")
        || lower.starts_with("validates:")
        || lower.starts_with("property ")
}

/// Whether the sprint headings `at` are phases over one task list counted
/// on across them (`## FASE 1` over `- [x] 1. …` to `- [x] 8. …`, `## FASE
/// 2` over `- [ ] 9. …`): the numbers run on with no gap, at least two
/// phases hold two or more, every phase holds some, and most items have
/// sub-tasks of their own. A count that runs
/// on across the phases is the author's own list of steps; tasks numbered
/// again from 1 in each phase are each phase's parts.
pub(super) fn runs_across(doc: &Doc, at: &[usize]) -> bool {
    let mut next: Option<u32> = None;
    let (mut framing, mut items, mut bodied) = (0, 0, 0);
    for &i in at {
        // A status table beside the items, or a sub-section other than
        // the phase's criteria, keeps work of its own.
        if doc.section(i).any(|j| match &doc.blocks[j] {
            Block::Table { .. } => true,
            Block::Heading { text, .. } => criteria_label(text).is_none(),
            _ => false,
        }) {
            return false;
        }
        let mut held = 0;
        for j in doc.own_blocks(i) {
            let Block::Item {
                text,
                checked,
                depth: 0,
                ..
            } = &doc.blocks[j]
            else {
                continue;
            };
            let (checked, first) = boxed_first_line(text, *checked);
            let Some((n, _)) = checked.and_then(|_| numbered(first, false)) else {
                continue;
            };
            // One list from its first item: counted from 1, with no gap.
            if next.unwrap_or(1) != n {
                return false;
            }
            next = Some(n + 1);
            held += 1;
            items += 1;
            bodied += usize::from(matches!(
                doc.blocks.get(j + 1),
                Some(Block::Item { depth, .. }) if *depth > 0
            ));
        }
        if held == 0 {
            return false;
        }
        framing += usize::from(held >= 2);
    }
    // One-line items (`- [x] 12. lib/ai/openai.ts — …`) are each phase's
    // checklist; items with sub-tasks of their own are steps.
    framing >= 2 && bodied * 3 >= items * 2
}

/// The numbered task items of the phases `at` (read as `sprints`), each
/// phase's own, when no phase is marked done while an item of it is open.
pub(super) fn items_of_phases(
    doc: &Doc,
    sprints: &[RawSprint],
    at: &[usize],
) -> Option<Vec<RawSprint>> {
    let mut out = Vec::new();
    for (phase, &i) in sprints.iter().zip(at) {
        // The items end where a label of criteria opens (`**Exit
        // criteria**` over its boxes): those are the phase's checks.
        let own = doc.own_blocks(i);
        let end = own
            .clone()
            .find(|&j| {
                matches!(&doc.blocks[j], Block::Paragraph { text, .. }
                    if criteria_label(text.trim().trim_matches(['*', '_', ':'])).is_some())
            })
            .unwrap_or(own.end);
        // A label whose checks the phase did not read as its criteria:
        // they would have no home.
        if end < own.end && phase.sprint.exit.is_empty() {
            return None;
        }
        let mut items = task_list_sprints(doc, own.start..end);
        if items.is_empty() {
            return None;
        }
        if phase.sprint.done.is_some() && items.iter().any(|s| s.sprint.done.is_none()) {
            return None;
        }
        super::steps::criteria_to_last_step(&phase.sprint.exit, &mut items);
        out.extend(items);
    }
    (out.len() >= at.len() * 2).then_some(out)
}

/// Whether the blocks hold a numbered task list: two or more top-level
/// boxed items numbered as its items are (`- [x] 1. Set up …`), each over
/// boxed sub-tasks. Numbered bold items elsewhere (`1. **Infrastructure
/// Deployment (Task 1.9)**` under `## Critical Blockers (Priority Order)`)
/// point into it and are not steps; a flat numbered checklist (`- [ ] 1.
/// Row counts match`) is criteria, not such a list.
pub(super) fn holds_task_list(blocks: &[Block]) -> bool {
    let numbered_item = |b: &Block| match b {
        Block::Item {
            depth: 0,
            checked: Some(_),
            text,
            ..
        } => numbered(text.lines().next().unwrap_or_default(), false).is_some(),
        _ => false,
    };
    let sub_task = |b: &Block| {
        matches!(
            b,
            Block::Item {
                depth: 1..,
                checked: Some(_),
                ..
            }
        )
    };
    (0..blocks.len())
        .filter(|&i| {
            numbered_item(&blocks[i])
                && blocks[i + 1..]
                    .iter()
                    .take_while(|b| matches!(b, Block::Item { depth: 1.., .. }))
                    .any(sub_task)
        })
        .take(2)
        .count()
        == 2
}

/// The sprints of a numbered task list in `scope`, if it has two or more
/// top-level numbered checklist items.
pub(super) fn task_list_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    // Coded items (`- [x] T1 …`) are a task list only with coded sub-tasks
    // (`- [x] T1.1 …`) under them: a flat list of codes is a checklist (a
    // preview of tickets, say) and keeps its own reading.
    let codes = scope.clone().any(|j| match &doc.blocks[j] {
        Block::Item { text, depth, .. } if *depth > 0 => {
            let first = text.lines().next().unwrap_or_default().trim_start();
            let first = optional_box(first).map_or(first, |(_, rest)| rest);
            first
                .split_once(char::is_whitespace)
                .is_some_and(|(id, _)| lettered(id) && id[1..].contains('.'))
        }
        _ => false,
    });
    let mut sprints: Vec<RawSprint> = Vec::new();
    let mut body_start = 0;
    for j in scope.clone() {
        let Block::Item {
            text,
            checked,
            depth,
            span,
            ..
        } = &doc.blocks[j]
        else {
            continue;
        };
        let (checked, first) = boxed_first_line(text, *checked);
        // `1. [x] **Title**`: the number written before the box, the name
        // in bold (a plain `1. [ ] Tests pass` is a checklist, not steps).
        let listed = || {
            let raw = doc.source[span.clone()].trim_start();
            let digits = raw.chars().take_while(char::is_ascii_digit).count();
            let number = raw[..digits].parse().ok()?;
            let after_box = raw[digits..]
                .strip_prefix(['.', ')'])?
                .trim_start()
                .get(3..)?;
            after_box
                .trim_start()
                .starts_with("**")
                .then(|| (number, first.trim().to_string()))
        };
        if *depth == 0 && checked.is_some() {
            if let Some((n, name)) = numbered(first, codes).or_else(listed) {
                if let Some(last) = sprints.last_mut() {
                    last.sprint.body = doc.source[body_start..span.start].to_string();
                }
                body_start = span.start;
                let id = SprintId::whole(n);
                let sprint = Sprint {
                    done: (checked == Some(true))
                        .then(|| "marked complete in the plan (its task is ticked)".to_string()),
                    origin: Origin::new(
                        doc.line(span.start),
                        "numbered task list item `- [ ] N. …`",
                    ),
                    ..blank_sprint(id.clone(), &name, String::new())
                };
                sprints.push(RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                });
                continue;
            }
        }
        let Some(current) = sprints.last_mut() else {
            continue;
        };
        // A numbered sub-task of another sprint ends this one's list.
        if let Some((major, _)) = sub_task(first) {
            if current.id.number != major && *depth == 0 {
                continue;
            }
        }
        for line in text.lines() {
            let line = line.trim();
            let line = optional_box(line).map_or(line, |(_, rest)| rest);
            if !line.is_empty() && !traceability(line) {
                current.sprint.tasks.push(line.to_string());
            }
        }
    }
    if sprints.len() < 2 {
        return Vec::new();
    }
    if let Some(last) = sprints.last_mut() {
        let end = scope
            .end
            .checked_sub(1)
            .and_then(|e| doc.blocks.get(e))
            .map_or(doc.source.len(), |b| b.span().end);
        last.sprint.body = doc.source[body_start..end.max(body_start)].to_string();
    }
    for s in &mut sprints {
        s.sprint.files = code_paths(&s.sprint.body);
    }
    sprints
}
