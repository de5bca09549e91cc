//! Sprints from a numbered task list (Kiro's `tasks.md`): top-level
//! checklist items `- [ ] 1. Set up the project`, each one sprint, with its
//! nested bullets and its numbered sub-tasks (`- [ ] 1.1 Create the models`,
//! nested or not) as the sprint's tasks. `_Requirements: 1.2_` and
//! `**Validates: …**` lines are traceability, not work, and are left out; an
//! optional task (`- [ ]* 2.3 …`) is a task like any other. A top-level item
//! ticked `[x]` is a sprint the plan marks done.

use super::*;

/// `1. Title` → (1, "Title"); `*` (Kiro's optional mark) may come first.
/// A bold number and a dash read the same (`**01 — Build the shell**
/// ([doc](x))`): the bold part is the name.
fn numbered(text: &str) -> Option<(u32, String)> {
    let t = text.trim_start();
    let bold = t.starts_with("**");
    let t = t.trim_start_matches('*').trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let rest = [". ", " — ", " – ", " - ", ": ", ") "]
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

/// `1.1 Title` → "1.1 Title": a sub-task of sprint 1.
fn sub_task(text: &str) -> Option<(u32, &str)> {
    let t = text.trim_start().trim_start_matches('*').trim_start();
    let (id, _) = t.split_once(char::is_whitespace)?;
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

/// The sprints of a numbered task list in `scope`, if it has two or more
/// top-level numbered checklist items.
pub(super) fn task_list_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
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
        let first = text.lines().next().unwrap_or_default();
        let (checked, first) = match (checked, optional_box(first)) {
            (None, Some((ticked, rest))) => (Some(ticked), rest),
            _ => (*checked, first),
        };
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
            if let Some((n, name)) = numbered(first).or_else(listed) {
                if let Some(last) = sprints.last_mut() {
                    last.sprint.body = doc.source[body_start..span.start].to_string();
                }
                body_start = span.start;
                let id = SprintId {
                    number: n,
                    suffix: String::new(),
                };
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
