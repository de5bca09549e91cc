//! Every task line has a home: after the readers have found the sprints,
//! each checkbox, numbered or bold task line of the plan is counted in
//! exactly one sprint, as a criterion, or as "not work" with the reason.
//! What the count finds makes the reading safe whatever reader found the
//! sprints:
//!
//! - a sprint is never done while one of its own task lines is open (a
//!   partly ticked verification step, `[~]` in progress);
//! - open task lines in no sprint (work dropped) and the same task list in
//!   two sprints (work twice) are warnings, which `start` confirms and
//!   `plan --strict` refuses.

use super::*;
use crate::plan::model::Tally;
use crate::plan::model::TallyLine;

/// One task line of the plan.
struct TaskLine {
    span: Span,
    /// The item's text without its checkbox.
    text: String,
    /// `Some(false)` for an open checkbox (also `[~]`, `[-]`, `[/]`).
    ticked: Option<bool>,
    /// `- [ ]*`: an optional task (Kiro), never holding a sprint open.
    optional: bool,
}

/// Section names whose lists are about the plan, not work to dispatch.
const NOT_WORK_SECTIONS: &[&str] = &[
    "acceptance",
    "success criteria",
    "definition of done",
    "qa",
    "quality",
    "verification checklist",
    "checklist",
    "exit criteria",
    "entry criteria",
    "criteria",
    "completed",
    "done",
    "changelog",
    "history",
    "notes",
    "references",
    "risks",
    "open questions",
    "questions",
    "future",
    "out of scope",
    "non-goals",
    "metrics",
    "success metrics",
    "summary",
    "overview",
    "dev notes",
    "testing",
    "table of contents",
    "contents",
    "requirements",
    "prerequisites",
    "resources",
    "next steps",
];

fn task_lines(doc: &Doc) -> Vec<TaskLine> {
    let mut out = Vec::new();
    for b in &doc.blocks {
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
        let partial = ["[~]", "[-]", "[/]", "[ ]"]
            .iter()
            .any(|m| text.trim_start().starts_with(m));
        let bold = *depth == 0 && text.trim_start().starts_with("**");
        let task_like = checked.is_some() || partial || bold || (numbered && *depth == 0);
        if !task_like {
            continue;
        }
        let mut t = text.trim();
        let ticked = if partial {
            t = t[3..].trim_start();
            Some(false)
        } else {
            *checked
        };
        let optional = t.starts_with('*') && !t.starts_with("**");
        out.push(TaskLine {
            span: span.clone(),
            text: t.trim_start_matches('*').trim().to_string(),
            ticked,
            optional,
        });
    }
    out
}

/// Where a sprint's own text lies in the source.
fn sprint_range(doc: &Doc, s: &RawSprint) -> Option<Span> {
    let body = s.sprint.body.as_str();
    if body.trim().is_empty() {
        return None;
    }
    if doc
        .source
        .get(s.span.start..)
        .is_some_and(|rest| rest.starts_with(body))
    {
        return Some(s.span.start..s.span.start + body.len());
    }
    let at = doc.source.find(body)?;
    Some(at..at + body.len())
}

/// The text of the nearest heading above `offset` (headings by start).
fn heading_above<'d>(headings: &[(usize, &'d str)], offset: usize) -> Option<&'d str> {
    let i = headings.partition_point(|(start, _)| *start <= offset);
    i.checked_sub(1).map(|i| headings[i].1)
}

fn not_work_reason(headings: &[(usize, &str)], line: &TaskLine) -> Option<String> {
    let heading = heading_above(headings, line.span.start)?;
    let lower = clean_name(heading).to_lowercase();
    let lower = lower.trim_matches(|c: char| !c.is_alphanumeric());
    if criteria_label(heading).is_some() {
        return Some(format!("criteria section `{}`", clean_name(heading)));
    }
    NOT_WORK_SECTIONS
        .iter()
        .find(|w| {
            lower == **w
                || lower.starts_with(&format!("{w} "))
                || lower.ends_with(&format!(" {w}"))
                || lower.contains(&format!(" {w} "))
        })
        .map(|_| format!("section `{}` is about the plan", clean_name(heading)))
}

/// A done mark that counts the work complete: `3/3`, or a completion date.
fn counts_complete(done: &str) -> bool {
    let full_count = done.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit() && c != '/');
        w.split_once('/')
            .is_some_and(|(a, b)| !a.is_empty() && a == b && a.chars().all(|c| c.is_ascii_digit()))
    });
    let lower = done.to_lowercase();
    let dated = ["completed 2", "complete 2", "done 2", "shipped 2"]
        .iter()
        .any(|m| lower.contains(m));
    full_count || dated
}

/// The task text with its leading id (`T1:`, `#101`, `1.2`) and checkbox
/// removed, lower-cased: two lists of the same work compare equal.
fn work_key(text: &str) -> String {
    let t = text.trim().trim_start_matches(['*', '_']);
    let first = t.split_whitespace().next().unwrap_or("");
    let id_like = first.chars().any(|c| c.is_ascii_digit())
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '#' | '.' | ':' | '-' | ')'));
    let rest = if id_like { &t[first.len()..] } else { t };
    rest.trim_start_matches([':', ' ', '—', '–', '-'])
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Count every task line, clear done marks that open lines contradict, and
/// report dropped or doubled work.
pub(super) fn account(
    doc: &Doc,
    units: &mut [RawUnit],
    plan_wide: &[Criterion],
    problems: &mut Vec<Problem>,
    guesses: &mut Vec<Warning>,
) -> Tally {
    // Criteria written away from their sprint (`### Phase 1 success
    // criteria`) and plan-wide checks; the names of the sprints, which an
    // index or progress list repeats.
    let criteria_texts: HashSet<String> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .flat_map(|s| s.sprint.entry.iter().chain(&s.sprint.exit))
        .map(|c| c.text.trim().to_lowercase())
        .chain(plan_wide.iter().map(|c| c.text.trim().to_lowercase()))
        .collect();
    let sprint_names: Vec<String> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| s.sprint.name.to_lowercase())
        .filter(|n| n.len() >= 4)
        .collect();
    let lines = task_lines(doc);
    // Sprint ranges by start, with the furthest end so far: the ranges
    // holding an offset are found without a pass over every sprint.
    let mut ranges: Vec<(Span, usize, usize)> = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        for (k, s) in unit.sprints.iter().enumerate() {
            if let Some(r) = sprint_range(doc, s) {
                ranges.push((r, u, k));
            }
        }
    }
    ranges.sort_by_key(|(r, _, _)| r.start);
    let mut reach = Vec::with_capacity(ranges.len());
    let mut furthest = 0;
    for (r, _, _) in &ranges {
        furthest = furthest.max(r.end);
        reach.push(furthest);
    }
    let homes_of = |offset: usize| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = ranges.partition_point(|(r, _, _)| r.start <= offset);
        while i > 0 && reach[i - 1] > offset {
            i -= 1;
            let (r, u, k) = &ranges[i];
            if r.start <= offset && offset < r.end {
                out.push((*u, *k));
            }
        }
        out
    };
    let headings: Vec<(usize, &str)> = doc
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { text, span, .. } => Some((span.start, text.as_str())),
            _ => None,
        })
        .collect();
    let mut tally = Tally {
        task_lines: lines.len(),
        ..Tally::default()
    };
    // Per sprint: its open task lines.
    let mut open_in: HashMap<(usize, usize), usize> = HashMap::new();
    for line in &lines {
        let homes = homes_of(line.span.start);
        let shown = TallyLine {
            line: doc.line(line.span.start),
            text: line.text.chars().take(120).collect(),
            reason: String::new(),
        };
        match homes.as_slice() {
            [] if criteria_texts.contains(&line.text.trim().to_lowercase()) => {
                tally.criteria += 1;
            }
            [] => {
                let lower = line.text.to_lowercase();
                let words = format!(
                    " {} ",
                    lower
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                let index_of = sprint_names.iter().find(|n| {
                    let n: Vec<&str> = n
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .collect();
                    !n.is_empty() && words.contains(&format!(" {} ", n.join(" ")))
                });
                let reason = index_of
                    .map(|n| format!("names sprint `{n}` (an index or progress entry)"))
                    .or_else(|| not_work_reason(&headings, line))
                    .or_else(|| {
                        (line.ticked == Some(true))
                            .then(|| "ticked, outside every sprint".to_string())
                    });
                match reason {
                    Some(reason) => tally.not_work.push(TallyLine { reason, ..shown }),
                    None if line.ticked == Some(false) && !line.optional => {
                        tally.outside.push(shown)
                    }
                    None => tally.not_work.push(TallyLine {
                        reason: "no checkbox, outside every sprint".into(),
                        ..shown
                    }),
                }
            }
            [home] => {
                let s = &units[home.0].sprints[home.1].sprint;
                let criterion = s
                    .entry
                    .iter()
                    .chain(&s.exit)
                    .any(|c| c.text.trim() == line.text || line.text.ends_with(c.text.trim()));
                if criterion {
                    tally.criteria += 1;
                } else {
                    tally.in_sprints += 1;
                    if line.ticked == Some(false) && !line.optional {
                        *open_in.entry(*home).or_default() += 1;
                    }
                }
            }
            _ => tally.twice.push(shown),
        }
    }
    // Done needs no open line of its own, unless the mark counts the work
    // complete (`Plans: 3/3 plans complete`, `completed 2026-03-01`): boxes
    // left unticked under a counted completion are stale, not open.
    let mut undone = Vec::new();
    for (&(u, k), &n) in &open_in {
        let s = &mut units[u].sprints[k];
        if s.sprint
            .done
            .as_deref()
            .is_some_and(|d| !counts_complete(d))
        {
            s.sprint.done = None;
            undone.push((doc.line(s.span.start), s.sprint.name.clone(), n));
        }
    }
    undone.sort();
    if let Some((line, name, n)) = undone.first() {
        guesses.push(Warning {
            code: "reading::open_lines".into(),
            message: format!(
                "{} sprint{} marked done still hold{} open task lines (first: `{name}`, {n} open): read as not done",
                undone.len(),
                if undone.len() == 1 { "" } else { "s" },
                if undone.len() == 1 { "s" } else { "" },
            ),
            help: "tick the task lines that are done, or leave the sprint to run".into(),
            line: *line,
        });
    }
    // The same work in two sprints: two task lists that name the same
    // tasks (other ids, same words).
    let keys: Vec<((usize, usize), BTreeSet<String>)> = units
        .iter()
        .enumerate()
        .flat_map(|(u, unit)| {
            unit.sprints.iter().enumerate().map(move |(k, s)| {
                let set: BTreeSet<String> = s
                    .sprint
                    .tasks
                    .iter()
                    .map(|t| work_key(t))
                    .filter(|t| t.split_whitespace().count() >= 2)
                    .collect();
                ((u, k), set)
            })
        })
        .collect();
    // Only sprints that share a task are compared; a task most sprints
    // share (`Write tests`) says nothing.
    let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (_, set)) in keys.iter().enumerate() {
        for key in set {
            holders.entry(key.as_str()).or_default().push(i);
        }
    }
    let mut shared_by: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for list in holders.values().filter(|l| l.len() >= 2 && l.len() <= 8) {
        for (x, &a) in list.iter().enumerate() {
            for &b in &list[x + 1..] {
                *shared_by.entry((a, b)).or_default() += 1;
            }
        }
    }
    for (&(a, b), &shared) in &shared_by {
        let ((ka, sa), (kb, sb)) = (&keys[a], &keys[b]);
        {
            if shared >= 2 && shared * 5 >= sa.len().max(sb.len()) * 4 {
                let first = &units[ka.0].sprints[ka.1];
                let second = &units[kb.0].sprints[kb.1];
                tally.twice.push(TallyLine {
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
    }
    if let Some(first) = tally.outside.first() {
        let n = tally.outside.len();
        let at = lines
            .iter()
            .find(|l| doc.line(l.span.start) == first.line)
            .map_or(0..0, |l| l.span.clone());
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
            .label(at, "in no sprint")
            .help("put the work under a sprint heading, tick it if it is done, or rewrite the plan with `git supervisor import`")
            .tolerated(),
        );
    }
    tally
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
        assert_eq!(work_key("1.2 Add the model"), "add the model");
        assert_ne!(work_key("Add the model"), work_key("Add the view"));
    }
}
