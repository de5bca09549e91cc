//! `breakdown` (spec §T): a requirements document in any Markdown shape →
//! requirements (with where they were found and how sure we are) → atomic
//! tasks → work units → sprints of 3–7 tasks → a [`Plan`] that
//! `plan_tools::write` renders and the parser reads back. Pure and deterministic.

use serde::Serialize;

use super::analysis;
use crate::plan::markdown::blocks;
use crate::plan::markdown::Block;
use crate::plan::model::Criterion;
use crate::plan::model::DependencyStructure;
use crate::plan::model::Detection;
use crate::plan::model::DispatchMode;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;
use crate::plan::model::SprintId;
use crate::plan::model::SprintSource;
use crate::plan::model::TaskType;
use crate::plan::model::Unit;
use crate::plan::model::UnitSource;

/// The documents `breakdown` looks for in the current directory, in order
/// (spec §B-13).
pub const REQUIREMENT_FILES: &[&str] = &["REQUIREMENTS.md", "PRD.md", "SPEC.md", "README.md"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    pub text: String,
    /// The heading it was found under.
    pub heading: String,
    pub lines: (usize, usize),
    pub confidence: Confidence,
    /// The work unit it belongs to.
    pub unit: String,
}

/// A line of the document that became no task, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotPlanned {
    pub text: String,
    pub heading: String,
    pub lines: (usize, usize),
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    pub project: String,
    pub requirements: Vec<Requirement>,
    /// Every requirement-like line that became no task, with the reason.
    pub not_planned: Vec<NotPlanned>,
    pub tasks: usize,
    pub plan: Plan,
}

const RFC: &[&str] = &["MUST", "SHALL", "SHOULD", "MAY"];
const TASK_VERBS: &[&str] = &[
    "implement",
    "create",
    "build",
    "add",
    "support",
    "enable",
    "integrate",
    "write",
    "provide",
    "expose",
    "store",
    "allow",
    "send",
    "compute",
    "validate",
    "render",
    "parse",
    "handle",
    "record",
    "export",
    "import",
    "notify",
    "show",
    "display",
    "log",
    "load",
    "save",
    "update",
    "delete",
    "remove",
    "generate",
    "document",
    "configure",
    "deploy",
    "migrate",
];
const REQUIREMENT_HEADINGS: &[&str] = &["requirement", "acceptance criteria", "user stor"];
const TASK_HEADINGS: &[&str] = &["feature", "deliverable", "scope", "task"];
/// Headings that put what is under them out of scope. They must say so
/// themselves ("Out of scope", "Non-goals", "Later", "Future work"): a
/// heading merely containing "later" or "v2" ("Translator", "API v2") does
/// not.
const OUT_OF_SCOPE: &[&str] = &[
    "out of scope",
    "out-of-scope",
    "not in scope",
    "not included",
    "non-goals",
    "non-goal",
    "non goals",
    "nongoals",
    "later",
    "future",
];

/// Sections that give context, not work: their items are listed as not
/// planned rather than silently skipped.
const CONTEXT: &[&str] = &[
    "background",
    "overview",
    "introduction",
    "glossary",
    "reference",
    "context",
    "motivation",
    "summary",
    "goal",
    "objective",
    "success criteria",
];

fn is_out_of_scope(heading: &str) -> bool {
    let l = lower(heading);
    let l = l
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
        .trim_matches(|c: char| !c.is_alphanumeric());
    OUT_OF_SCOPE.iter().any(|k| {
        l == *k
            || l.strip_prefix(k)
                .is_some_and(|r| r.starts_with(|c: char| !c.is_alphanumeric() && c != '-'))
    })
}
/// Headings that group requirements without naming a part of the system.
const GENERIC: &[&str] = &[
    "checks",
    "rules",
    "appendix",
    "template",
    "requirement",
    "feature",
    "deliverable",
    "scope",
    "task",
    "acceptance",
    "user stor",
    "goal",
    "overview",
    "functional",
    "background",
    "summary",
    "introduction",
    "objective",
    "constraint",
    "architecture",
    "dependencies",
];

/// 1-based line numbers of byte offsets, from a table of line starts: one
/// pass over the document, not one per requirement.
struct Lines(Vec<usize>);

impl Lines {
    fn new(source: &str) -> Lines {
        Lines(
            std::iter::once(0)
                .chain(source.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

fn has_any(text: &str, words: &[&str]) -> bool {
    let l = lower(text);
    words.iter().any(|w| l.contains(w))
}

/// A heading that groups requirements without naming a part of the system,
/// or that the plan parser would read as a sprint or task heading.
fn is_generic(heading: &str) -> bool {
    let l = lower(heading.trim());
    let numbered = |prefix: &str| {
        l.strip_prefix(prefix)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    has_any(heading, GENERIC) || numbered("sprint ") || numbered("task ")
}

fn starts_with_verb(text: &str) -> bool {
    let first = lower(text.trim())
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string();
    TASK_VERBS
        .iter()
        .any(|v| first == *v || first == format!("{v}s"))
}

fn is_rfc(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| RFC.contains(&w))
}

fn is_story(text: &str) -> bool {
    let l = lower(text);
    l.starts_with("as a") && l.contains("i want")
}

/// Find the requirements, each under the unit it belongs to.
pub fn requirements(source: &str, project: &str) -> Vec<Requirement> {
    scan(source, project).0
}

/// The requirements, and every list item (or requirement-section
/// paragraph) that is none, with the reason.
pub fn scan(source: &str, project: &str) -> (Vec<Requirement>, Vec<NotPlanned>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let lines_at = Lines::new(source);
    // The heading path: (level, text).
    let mut path: Vec<(u8, String)> = Vec::new();
    for b in blocks(source) {
        let (text, span, checked) = match &b {
            Block::Heading { level, text, .. } => {
                path.retain(|(l, _)| l < level);
                path.push((*level, text.clone()));
                continue;
            }
            Block::Item {
                text,
                span,
                checked,
                ..
            } => (text.clone(), span.clone(), *checked),
            Block::Paragraph { text, span } => (text.replace('\n', " "), span.clone(), None),
            _ => continue,
        };
        if !text.chars().any(char::is_alphanumeric) {
            continue;
        }
        let heading = path.last().map(|(_, h)| h.clone()).unwrap_or_default();
        let in_requirements = path.iter().any(|(_, h)| has_any(h, REQUIREMENT_HEADINGS));
        let in_tasks = path.iter().any(|(_, h)| has_any(h, TASK_HEADINGS));
        let is_item = matches!(b, Block::Item { .. });
        let lines = (
            lines_at.of(span.start),
            lines_at.of(span.end.saturating_sub(1)),
        );
        let mut skip = |reason: String| {
            skipped.push(NotPlanned {
                text: text.trim().to_string(),
                heading: heading.clone(),
                lines,
                reason,
            })
        };
        if let Some((_, h)) = path.iter().find(|(_, h)| is_out_of_scope(h)) {
            if is_item || in_requirements {
                skip(format!("out of scope (under \"{}\")", h.trim()));
            }
            continue;
        }
        if path.is_empty() {
            if is_item {
                skip("before any heading: no section says it is a requirement".into());
            }
            continue;
        }
        let confidence = if (in_requirements && is_item) || is_rfc(&text) || is_story(&text) {
            Confidence::High
        } else if (is_item && (starts_with_verb(&text) || in_tasks)) || checked.is_some() {
            Confidence::Medium
        } else {
            if is_item || in_requirements {
                let context = path.iter().find(|(_, h)| has_any(h, CONTEXT));
                skip(match context {
                    Some((_, h)) => format!("context, not work (under \"{}\")", h.trim()),
                    None => "not worded as work: no verb first, no MUST/SHALL/SHOULD/MAY, no user story, and not under a Requirements, Features or Tasks heading".into(),
                });
            }
            continue;
        };
        let unit = path
            .iter()
            .rev()
            .find(|(l, h)| *l >= 2 && !is_generic(h) && !clean(h).is_empty())
            .map(|(_, h)| clean(h))
            .unwrap_or_else(|| project.to_string());
        out.push(Requirement {
            text: text.trim().to_string(),
            heading,
            lines,
            confidence,
            unit,
        });
    }
    (out, skipped)
}

fn clean(h: &str) -> String {
    let h = h.trim();
    // "2.1 Storage" → "Storage".
    let h = h
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim();
    // A unit name goes into a table cell and a heading: plain words only.
    let h: String = h
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') {
                c
            } else {
                ' '
            }
        })
        .collect();
    let h = h.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::plan::detect::clean_name(h.trim_matches(|c| c == '`' || c == '*'))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Turn a requirement into imperative task text: "The system MUST store
/// X" → "Store X", "Members SHALL borrow…" → "Ensure members borrow…", a
/// user story → "Implement: <goal>".
fn imperative(text: &str) -> String {
    let t = text.trim().trim_end_matches('.');
    if starts_with_verb(t) {
        return capitalize(t);
    }
    if is_story(t) {
        let l = lower(t);
        if let Some(i) = l.find("i want") {
            let goal = &t[i + "i want".len()..];
            let goal = goal.split(", so that").next().unwrap_or(goal).trim();
            let goal = goal.strip_prefix("to ").unwrap_or(goal).trim();
            return format!("Implement: {goal}");
        }
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if let Some(k) = words
        .iter()
        .position(|w| RFC.contains(&w.trim_matches(|c: char| !c.is_ascii_alphabetic())))
    {
        let subject = lower(&words[..k].join(" "));
        let mut rest: Vec<&str> = words[k + 1..].to_vec();
        if rest.first() == Some(&"NOT") {
            rest.remove(0);
            return format!("Ensure {subject} never {}", rest.join(" "));
        }
        let rest = rest.join(" ");
        if matches!(
            subject.as_str(),
            "the system" | "the service" | "the app" | "the application" | "it" | "the server"
        ) {
            return capitalize(&rest);
        }
        return format!("Ensure {subject} {rest}");
    }
    format!("Implement: {t}")
}

/// Split one requirement into atomic tasks (spec §T-107).
fn atomic_tasks(r: &Requirement) -> Vec<String> {
    let base = imperative(&r.text);
    let mut tasks = Vec::new();
    // "Create X and integrate with Y" → "Create X" + "Integrate X with Y".
    let lower_base = lower(&base);
    let mut split_at = None;
    for (i, _) in lower_base.match_indices(" and ") {
        let after = &lower_base[i + 5..];
        if starts_with_verb(after) {
            split_at = Some(i);
            break;
        }
    }
    match split_at {
        Some(i) => {
            let first = base[..i].trim().to_string();
            let second = base[i + 5..].trim().to_string();
            let object: String = first
                .split_whitespace()
                .skip(1)
                .collect::<Vec<_>>()
                .join(" ");
            let second = if lower(&second).starts_with("integrate with") && !object.is_empty() {
                format!("Integrate {object} {}", &second["integrate ".len()..])
            } else {
                capitalize(&second)
            };
            tasks.push(first);
            tasks.push(second);
        }
        None => tasks.extend(list_items(&base)),
    }

    // Implicit test work: a separate task for what is built or promised,
    // unless the requirement is itself about tests or documentation.
    if !has_any(&r.text, &["test", "document", "readme"]) {
        // A list split into several tasks is tested as one requirement.
        let first = if tasks.len() > 1 && split_at.is_none() {
            base.clone()
        } else {
            tasks[0].clone()
        };
        let test = if let Some(goal) = first.strip_prefix("Implement: ") {
            format!("Write tests for: {goal}")
        } else if let Some(rule) = first.strip_prefix("Ensure ") {
            format!("Write a test that checks {rule}")
        } else {
            let object = first.split_once(' ').map(|(_, o)| o).unwrap_or(&first);
            format!("Write tests for {object}")
        };
        tasks.push(test);
    }
    // A task naming files in several top-level directories is one task per
    // directory: each lands in a sprint of one concern.
    tasks.iter().flat_map(|t| by_directory(t)).collect()
}

/// Words after which a trailing list names alternatives, one task each
/// ("export to CSV, JSON and XML", "filter by author, year and language");
/// after "with" or "of" it names the parts of one thing ("books with
/// title, author and ISBN") and stays whole.
const LIST_LEADS: &[&str] = &["to", "as", "in", "into", "for", "by", "from", "via", "on"];

/// "Export to CSV, JSON and XML" → "Export to CSV", "Export to JSON",
/// "Export to XML". Only a list that ends the sentence, of short items
/// without code, after a verb or one of [`LIST_LEADS`]; anything else is
/// one task.
fn list_items(task: &str) -> Vec<String> {
    let whole = vec![task.to_string()];
    if task.contains('`') || !task.contains(',') {
        return whole;
    }
    let body = task.trim_end_matches(['.', ';']);
    let Some(comma) = body.find(", ") else {
        return whole;
    };
    let (head, rest) = (&body[..comma], &body[comma + 2..]);
    let mut items: Vec<String> = Vec::new();
    for part in rest.split(", ") {
        let part = part
            .strip_prefix("and ")
            .or_else(|| part.strip_prefix("or "))
            .unwrap_or(part);
        match part.split_once(" and ").or_else(|| part.split_once(" or ")) {
            Some((a, b)) => {
                items.push(a.trim().to_string());
                items.push(b.trim().to_string());
            }
            None => items.push(part.trim().to_string()),
        }
    }
    let width = items
        .iter()
        .map(|i| i.split_whitespace().count())
        .max()
        .unwrap_or(0);
    if items.iter().any(|i| i.is_empty() || i.contains(',')) || width == 0 || width > 3 {
        return whole;
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    // The first item is as long as the others, after its lead word.
    let Some(start) = (1..=width.min(words.len().saturating_sub(1)))
        .rev()
        .map(|w| words.len() - w)
        .find(|&k| k >= 1 && (k == 1 || LIST_LEADS.contains(&lower(words[k - 1]).as_str())))
    else {
        return whole;
    };
    if start > 1 && !LIST_LEADS.contains(&lower(words[start - 1]).as_str()) {
        return whole;
    }
    if start == 1 && !starts_with_verb(head) {
        return whole;
    }
    let prefix = words[..start].join(" ");
    let first = words[start..].join(" ");
    std::iter::once(first)
        .chain(items)
        .map(|i| format!("{prefix} {i}"))
        .collect()
}

/// One task per top-level directory of the files it names, the path list
/// replaced by that directory's paths.
fn by_directory(task: &str) -> Vec<String> {
    let ps = paths(task);
    let mut dirs: Vec<&str> = Vec::new();
    for p in &ps {
        let d = analysis::top_dir(p);
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    if dirs.len() < 2 {
        return vec![task.to_string()];
    }
    let (Some(first), Some(last)) = (
        task.find(&format!("`{}`", ps[0])),
        task.rfind(&format!("`{}`", ps[ps.len() - 1])),
    ) else {
        return vec![task.to_string()];
    };
    let end = last + ps[ps.len() - 1].len() + 2;
    dirs.iter()
        .map(|d| {
            let mine: Vec<String> = ps
                .iter()
                .filter(|p| analysis::top_dir(p) == *d)
                .map(|p| format!("`{p}`"))
                .collect();
            format!("{}{}{}", &task[..first], mine.join(", "), &task[end..])
        })
        .collect()
}

/// Task text without "depends on" / "requires": in a plan those words make
/// dependencies between units, and the generated plan states its
/// dependencies in the Work Units table instead.
fn neutral(task: &str) -> String {
    let mut out = String::new();
    let mut rest = task;
    loop {
        let l = rest.to_ascii_lowercase();
        let hit = ["depends on ", "requires "]
            .iter()
            .filter_map(|k| l.find(k).map(|i| (i, k.len())))
            .min();
        let Some((i, len)) = hit else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..i]);
        out.push_str("needs ");
        rest = &rest[i + len..];
    }
}

fn is_foundation(task: &str) -> bool {
    let l = lower(task);
    [
        "type",
        "interface",
        "schema",
        "model",
        "shared",
        "common",
        "config",
    ]
    .iter()
    .any(|w| l.contains(w))
        && !l.starts_with("write tests")
}

/// Paths written in backticks.
fn paths(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.contains(' ') && (s.contains('/') || s.contains('.')))
        .map(|(_, s)| s.to_string())
        .collect()
}

/// A criterion typed exactly as the parser will type it when it reads the
/// plan back.
fn checklist(text: String) -> Criterion {
    crate::plan::detect::classify_criterion(&text, &crate::plan::detect::inline_code(&text), false)
}

/// Group a unit's tasks into sprints of 3–7 (fewer only when the unit has
/// fewer than 3), foundation tasks first.
/// When the unit's tasks name files in several top-level directories,
/// each directory's tasks get sprints of their own (tasks naming no file
/// join the first), so that every sprint is one concern.
fn sprints_for(tasks: Vec<String>) -> Vec<Vec<String>> {
    let dir_of = |t: &String| paths(t).first().map(|p| analysis::top_dir(p).to_string());
    let mut dirs: Vec<String> = tasks.iter().filter_map(dir_of).collect();
    dirs.sort();
    dirs.dedup();
    if dirs.len() < 2 {
        return chunks(tasks);
    }
    let mut groups: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for t in tasks {
        let d = dir_of(&t);
        match groups.iter_mut().find(|(g, _)| *g == d) {
            Some((_, ts)) => ts.push(t),
            None => groups.push((d, vec![t])),
        }
    }
    // Loose tasks join the first directory's group.
    let loose: Vec<String> = groups
        .iter()
        .position(|(d, _)| d.is_none())
        .map(|k| groups.remove(k).1)
        .unwrap_or_default();
    groups[0].1.splice(0..0, loose);
    groups.into_iter().flat_map(|(_, ts)| chunks(ts)).collect()
}

fn chunks(tasks: Vec<String>) -> Vec<Vec<String>> {
    let (mut found, rest): (Vec<String>, Vec<String>) =
        tasks.into_iter().partition(|t| is_foundation(t));
    found.extend(rest);
    let n = found.len();
    let count = n.div_ceil(7).max(1);
    let base = n / count;
    let extra = n % count;
    let mut out = Vec::new();
    let mut it = found.into_iter();
    for k in 0..count {
        let size = base + usize::from(k < extra);
        out.push(it.by_ref().take(size).collect());
    }
    out
}

fn sprint_name(tasks: &[String]) -> String {
    let first = tasks
        .first()
        .map(|t| t.trim_start_matches("Implement: "))
        .unwrap_or("Work");
    let words: Vec<&str> = first.split_whitespace().take(6).collect();
    let mut name = capitalize(&words.join(" "));
    name = name.trim_end_matches([',', ';', ':', '.']).to_string();
    if first.split_whitespace().count() > 6 {
        name.push('…');
    }
    let name: Vec<&str> = name
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|w| !w.is_empty())
        .collect();
    // A heading keeps no outer blanks: cleaning can leave one behind.
    let name = crate::plan::detect::clean_name(&name.join(" "))
        .trim()
        .to_string();
    if name.is_empty() {
        "Work".to_string()
    } else {
        name
    }
}

/// Build the plan. With a build command (`[build] command`), every sprint
/// also exits on it passing, so each has a machine-verifiable criterion.
pub fn breakdown(source: &str, project: &str, build: Option<&str>) -> Breakdown {
    let title = blocks(source)
        .iter()
        .find_map(|b| match b {
            Block::Heading { level: 1, text, .. } => Some(clean(text)),
            _ => None,
        })
        // An empty `#` heading names nothing: the project does.
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| project.to_string());
    let (reqs, mut not_planned) = scan(source, &title);
    // Units in order of first mention, each with its requirements.
    let mut unit_names: Vec<String> = Vec::new();
    let mut by_unit: std::collections::HashMap<&str, Vec<&Requirement>> = Default::default();
    for r in &reqs {
        let mine = by_unit.entry(r.unit.as_str()).or_default();
        if mine.is_empty() {
            unit_names.push(r.unit.clone());
        }
        mine.push(r);
    }
    if unit_names.is_empty() {
        unit_names.push(title.clone());
    }
    let mut task_count = 0;
    let mut units: Vec<Unit> = Vec::new();
    for name in &unit_names {
        let mine: &[&Requirement] = by_unit.get(name.as_str()).map_or(&[], Vec::as_slice);
        let mut tasks: Vec<String> = Vec::new();
        let mut seen: std::collections::HashSet<String> = Default::default();
        for r in mine {
            let before = tasks.len();
            for t in atomic_tasks(r) {
                let t = neutral(&t.split_whitespace().collect::<Vec<_>>().join(" "));
                if seen.insert(t.clone()) {
                    tasks.push(t);
                }
            }
            if tasks.len() == before {
                not_planned.push(NotPlanned {
                    text: r.text.clone(),
                    heading: r.heading.clone(),
                    lines: r.lines,
                    reason: "repeats a requirement already planned".into(),
                });
            }
        }
        if tasks.is_empty() {
            tasks.push(format!("Implement {name}"));
        }
        task_count += tasks.len();
        let all_paths: Vec<String> = tasks.iter().flat_map(|t| paths(t)).collect();
        let dir = {
            let tops: Vec<&str> = all_paths
                .iter()
                .filter_map(|p| p.split_once('/').map(|(d, _)| d))
                .collect();
            // The directory as the parser will read it back from the table.
            tops.first()
                .filter(|d| tops.iter().all(|x| x == *d))
                .map(|d| crate::plan::detect::clean_name(d))
                .filter(|d| !matches!(d.as_str(), "" | "-" | "—" | "."))
        };
        let groups = sprints_for(tasks);
        let mut sprints = Vec::new();
        for (k, g) in groups.into_iter().enumerate() {
            let id = SprintId {
                number: k as u32 + 1,
                suffix: String::new(),
            };
            let entry = vec![checklist(if k == 0 {
                "First sprint — no prerequisites".into()
            } else {
                format!("Sprint {k} exit criteria met")
            })];
            let mut exit: Vec<Criterion> = g
                .iter()
                .filter(|t| !t.starts_with("Write tests") && !t.starts_with("Write a test"))
                .flat_map(|t| paths(t))
                .map(|p| super::rewrite::exists_criterion(&p))
                .collect();
            exit.dedup();
            // Only checks a machine runs: a `Done: <task>` checklist can
            // never be verified, so a run that did everything would still
            // fail its final verification. With neither a file nor a
            // command, the sprint is judged by its commits and result.
            if let Some(b) = build {
                exit.push(super::rewrite::command_criterion("build passes", b));
            }
            let files = g.iter().flat_map(|t| paths(t)).collect();
            sprints.push(Sprint {
                id,
                name: sprint_name(&g),
                task_type: TaskType::Code,
                tasks: g,
                entry,
                exit,
                files,
                body: String::new(),
                done: None,
                origin: Default::default(),
            });
        }
        units.push(Unit {
            name: name.clone(),
            dir,
            layer: Some(0),
            deps: Vec::new(),
            sprints,
            origin: Default::default(),
        });
    }
    // A unit whose requirements name an earlier unit depends on it.
    let lowered: Vec<String> = units.iter().map(|u| lower(&u.name)).collect();
    for i in 0..units.len() {
        let text: String = by_unit
            .get(units[i].name.as_str())
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|r| lower(&r.text))
            .collect::<Vec<_>>()
            .join("\n");
        let index = analysis::Phrases::new(&text);
        let named: Vec<usize> = (0..i).filter(|k| index.has(&lowered[*k])).collect();
        let layer = named
            .iter()
            .filter_map(|k| units[*k].layer)
            .max()
            .map(|l| l + 1)
            .unwrap_or(0);
        units[i].layer = Some(layer);
        units[i].deps = named.iter().map(|k| units[*k].name.clone()).collect();
    }
    // Dependencies are explicit; layers follow from them.
    let dependencies = if units.len() == 1 {
        DependencyStructure::Sequential
    } else if units.iter().any(|u| u.layer != Some(0)) {
        DependencyStructure::Layers
    } else {
        DependencyStructure::Parallel
    };
    not_planned.sort_by_key(|n| n.lines);
    Breakdown {
        project: title.clone(),
        tasks: task_count,
        requirements: reqs,
        not_planned,
        plan: Plan {
            // The title names the run and its report (`COMPLETE_<TITLE>.md`).
            title: Some(title.clone()),
            feature_name: None,
            units,
            entry_checks: Vec::new(),
            exit_checks: Vec::new(),
            rules: Vec::new(),
            template: None,
            referenced_files: Vec::new(),
            detection: Detection {
                units: UnitSource::Table {
                    column: "Work Unit".into(),
                },
                sprints: vec![SprintSource::Headers],
                dependencies,
                dispatch_mode: DispatchMode::Dynamic,
                template_source: None,
            },
        },
    }
}

/// The `## Not planned` section: every line of the document that became
/// no task, with its line and the reason. Empty when nothing was left out.
pub fn not_planned_section(b: &Breakdown) -> String {
    if b.not_planned.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("## Not planned\n\nLines of the requirements that became no task:\n\n");
    for n in &b.not_planned {
        // Quoted as plain words: no code, and none of the words that would
        // make the parser read a dependency.
        let text =
            neutral(&n.text.split_whitespace().collect::<Vec<_>>().join(" ")).replace('`', "'");
        out.push_str(&format!(
            "- line {}: \"{text}\" — {}\n",
            n.lines.0, n.reason
        ));
    }
    out
}

/// The `## Summary` table the generated plan ends with.
pub fn summary_section(plan: &Plan) -> String {
    let structure = match plan.detection.dependencies {
        DependencyStructure::Layers | DependencyStructure::Graph => "layers",
        DependencyStructure::Sequential => "sequential",
        DependencyStructure::Parallel => "parallel",
    };
    format!(
        "## Summary\n\n| Metric | Value |\n|--------|-------|\n| Work units | {} |\n| Total sprints | {} |\n| Dependency structure | {structure} |\n",
        plan.units.len(),
        plan.sprint_total()
    )
}
