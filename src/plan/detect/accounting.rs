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

impl TaskLine {
    fn open(&self) -> bool {
        self.ticked == Some(false) && !self.optional
    }
}

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
        // Boxes Markdown does not read as boxes: in progress, Kiro's optional.
        let unread_box = ["[~]", "[-]", "[/]", "[ ]"]
            .iter()
            .any(|m| text.trim_start().starts_with(m));
        let bold = *depth == 0 && text.trim_start().starts_with("**");
        if !(checked.is_some() || unread_box || bold || (numbered && *depth == 0)) {
            continue;
        }
        let mut t = text.trim();
        let ticked = if unread_box {
            t = t[3..].trim_start();
            Some(false)
        } else {
            *checked
        };
        out.push(TaskLine {
            span: span.clone(),
            optional: t.starts_with('*') && !t.starts_with("**"),
            text: t.trim_start_matches('*').trim().to_string(),
            ticked,
        });
    }
    out
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

/// Words of a text, lower-cased and joined by single spaces, with a space
/// at each end (so that whole words can be looked for).
fn word_key(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", words.join(" "))
}

/// The sprints holding each offset, from their ranges sorted by start
/// with the furthest end so far: no pass over every sprint per line.
struct Homes {
    ranges: Vec<(Span, (usize, usize))>,
    reach: Vec<usize>,
    /// Task text → the one sprint listing it (None when several do).
    by_task: HashMap<String, Option<(usize, usize)>>,
}

impl Homes {
    fn new(doc: &Doc, units: &[RawUnit]) -> Self {
        let mut ranges = Vec::new();
        let mut by_task: HashMap<String, Option<(usize, usize)>> = HashMap::new();
        for (u, unit) in units.iter().enumerate() {
            for (k, s) in unit.sprints.iter().enumerate() {
                if let Some(r) = sprint_range(doc, s) {
                    ranges.push((r, (u, k)));
                }
                for t in &s.sprint.tasks {
                    by_task
                        .entry(t.trim().to_string())
                        .and_modify(|h| {
                            if *h != Some((u, k)) {
                                *h = None
                            }
                        })
                        .or_insert(Some((u, k)));
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
            ranges,
            reach,
            by_task,
        }
    }

    fn of(&self, line: &TaskLine) -> Vec<(usize, usize)> {
        let offset = line.span.start;
        let mut out = Vec::new();
        let mut i = self.ranges.partition_point(|(r, _)| r.start <= offset);
        while i > 0 && self.reach[i - 1] > offset {
            i -= 1;
            let (r, home) = &self.ranges[i];
            if r.contains(&offset) {
                out.push(*home);
            }
        }
        if out.is_empty() {
            out.extend(self.by_task.get(&line.text).copied().flatten());
        }
        out
    }
}

/// Why a line in no sprint is not work, if it is not.
fn not_work_reason(
    headings: &[(usize, &str)],
    sprint_names: &[(String, &str)],
    line: &TaskLine,
) -> Option<String> {
    let words = word_key(&line.text);
    if let Some((_, name)) = sprint_names
        .iter()
        .find(|(k, _)| words.contains(k.as_str()))
    {
        return Some(format!(
            "names sprint `{name}` (an index or progress entry)"
        ));
    }
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
    match line.ticked {
        Some(true) => Some("ticked, outside every sprint".into()),
        None => Some("no checkbox, outside every sprint".into()),
        Some(false) if line.optional => Some("optional, outside every sprint".into()),
        Some(false) => None,
    }
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

/// The task text with its leading id (`T1:`, `#101`, `1.2`) removed,
/// lower-cased: two lists of the same work compare equal.
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
    plan_wide: &[&[Criterion]],
    problems: &mut Vec<Problem>,
    guesses: &mut Vec<Warning>,
) -> Tally {
    let lines = task_lines(doc);
    let mut tally = Tally {
        task_lines: lines.len(),
        ..Tally::default()
    };
    let open_in = count_lines(doc, units, plan_wide, &lines, &mut tally);
    guesses.extend(undo_done(doc, units, &open_in));
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

/// Give each line its home in the tally; returns each sprint's count of
/// open task lines of its own.
fn count_lines(
    doc: &Doc,
    units: &[RawUnit],
    plan_wide: &[&[Criterion]],
    lines: &[TaskLine],
    tally: &mut Tally,
) -> HashMap<(usize, usize), usize> {
    let homes = Homes::new(doc, units);
    // Criteria written away from their sprint (`### Phase 1 success
    // criteria`) and plan-wide checks; the sprints' names, which an index
    // or progress list repeats.
    let criteria: HashSet<String> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .flat_map(|s| s.sprint.entry.iter().chain(&s.sprint.exit))
        .chain(plan_wide.iter().flat_map(|c| c.iter()))
        .map(|c| c.text.trim().to_lowercase())
        .collect();
    let sprint_names: Vec<(String, &str)> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| (word_key(&s.sprint.name), s.sprint.name.as_str()))
        .filter(|(k, _)| k.trim().len() >= 4)
        .collect();
    let headings: Vec<(usize, &str)> = doc
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { text, span, .. } => Some((span.start, text.as_str())),
            _ => None,
        })
        .collect();
    let mut open_in: HashMap<(usize, usize), usize> = HashMap::new();
    for line in lines {
        let shown = TallyLine {
            line: doc.line(line.span.start),
            text: line.text.chars().take(120).collect(),
            reason: String::new(),
        };
        match homes.of(line).as_slice() {
            [] if criteria.contains(&line.text.to_lowercase()) => tally.criteria += 1,
            [] => match not_work_reason(&headings, &sprint_names, line) {
                Some(reason) => tally.not_work.push(TallyLine { reason, ..shown }),
                None => tally.outside.push(shown),
            },
            &[home] => {
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
                    }
                }
            }
            _ => tally.twice.push(shown),
        }
    }
    open_in
}

/// Sprints marked done that hold open lines of their own are not done;
/// the guess that says so.
fn undo_done(
    doc: &Doc,
    units: &mut [RawUnit],
    open_in: &HashMap<(usize, usize), usize>,
) -> Option<Warning> {
    let mut undone = Vec::new();
    for (&(u, k), &n) in open_in {
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
    let keys: Vec<BTreeSet<String>> = sprints
        .iter()
        .map(|s| {
            s.sprint
                .tasks
                .iter()
                .map(|t| work_key(t))
                .filter(|t| t.split_whitespace().count() >= 2)
                .collect()
        })
        .collect();
    let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, set) in keys.iter().enumerate() {
        for key in set {
            holders.entry(key.as_str()).or_default().push(i);
        }
    }
    let mut shared_by: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for list in holders.values().filter(|l| (2..=8).contains(&l.len())) {
        for (x, &a) in list.iter().enumerate() {
            for &b in &list[x + 1..] {
                *shared_by.entry((a, b)).or_default() += 1;
            }
        }
    }
    for ((a, b), shared) in shared_by {
        if shared < 2 || shared * 5 < keys[a].len().max(keys[b].len()) * 4 {
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
        assert_eq!(work_key("1.2 Add the model"), "add the model");
        assert_ne!(work_key("Add the model"), work_key("Add the view"));
    }
}
