//! Reading a requirements document: the requirements it states (headings,
//! RFC keywords, stories, lists), how sure each reading is, what is out of
//! scope, and the atomic, imperative tasks each requirement becomes.

use serde::Serialize;

use crate::plan::markdown::blocks;
use crate::plan::markdown::Block;

use super::by_directory;
use super::NotPlanned;

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

pub(super) const RFC: &[&str] = &["MUST", "SHALL", "SHOULD", "MAY"];

pub(super) const TASK_VERBS: &[&str] = &[
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

pub(super) const REQUIREMENT_HEADINGS: &[&str] =
    &["requirement", "acceptance criteria", "user stor"];

pub(super) const TASK_HEADINGS: &[&str] = &["feature", "deliverable", "scope", "task"];

/// Headings that put what is under them out of scope. They must say so
/// themselves ("Out of scope", "Non-goals", "Later", "Future work"): a
/// heading merely containing "later" or "v2" ("Translator", "API v2") does
/// not.
pub(super) const OUT_OF_SCOPE: &[&str] = &[
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
pub(super) const CONTEXT: &[&str] = &[
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

pub(super) fn is_out_of_scope(heading: &str) -> bool {
    let l = lower(heading);
    // Said anywhere in the heading: "Phase 3 — future work".
    if ["future work", "out of scope", "out-of-scope", "non-goals"]
        .iter()
        .any(|k| l.contains(k))
    {
        return true;
    }
    let l = l
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
        .trim_matches(|c: char| !c.is_alphanumeric());
    OUT_OF_SCOPE.iter().any(|k| {
        l == *k
            || l.strip_prefix(k)
                .is_some_and(|r| r.starts_with(|c: char| !c.is_alphanumeric() && c != '-'))
    })
}

/// A line that puts itself out of scope (`Future work: sync`, `Sync with a
/// phone (v2)`, `Later: covers`): the marker it carries.
pub(super) fn out_of_scope_marker(text: &str) -> Option<&'static str> {
    let l = lower(text);
    let l = l.trim_start_matches(|c: char| !c.is_alphanumeric());
    const ANYWHERE: &[&str] = &[
        "future work",
        "out of scope",
        "out-of-scope",
        "not in scope",
        "(future)",
        "(later)",
        "(v2)",
        "(post-v1)",
        "(nice to have)",
    ];
    const FIRST: &[&str] = &["future:", "later:", "v2:", "someday:", "nice to have:"];
    ANYWHERE
        .iter()
        .find(|m| l.contains(*m))
        .or_else(|| FIRST.iter().find(|m| l.starts_with(*m)))
        .copied()
}

/// Headings that group requirements without naming a part of the system.
pub(super) const GENERIC: &[&str] = &[
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
pub(super) struct Lines(Vec<usize>);

impl Lines {
    pub(super) fn new(source: &str) -> Lines {
        Lines(
            std::iter::once(0)
                .chain(source.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    pub(super) fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }
}

pub(super) fn lower(s: &str) -> String {
    s.to_lowercase()
}

pub(super) fn has_any(text: &str, words: &[&str]) -> bool {
    let l = lower(text);
    words.iter().any(|w| l.contains(w))
}

/// A heading that groups requirements without naming a part of the system,
/// or that the plan parser would read as a sprint or task heading.
pub(super) fn is_generic(heading: &str) -> bool {
    let l = lower(heading.trim());
    let numbered = |prefix: &str| {
        l.strip_prefix(prefix)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    has_any(heading, GENERIC) || numbered("sprint ") || numbered("task ")
}

pub(super) fn starts_with_verb(text: &str) -> bool {
    let first = lower(text.trim())
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string();
    TASK_VERBS
        .iter()
        .any(|v| first == *v || first == format!("{v}s"))
}

pub(super) fn is_rfc(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| RFC.contains(&w))
}

pub(super) fn is_story(text: &str) -> bool {
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
        // `Status: ✅ Done`, `State: open`: where the work stands, not work.
        let key = text
            .split_once(':')
            .map(|(k, _)| lower(k.trim().trim_matches('*').trim()));
        if matches!(key.as_deref(), Some("status" | "state")) {
            skip("a status line, not a requirement".into());
            continue;
        }
        if let Some((_, h)) = path.iter().find(|(_, h)| is_out_of_scope(h)) {
            if is_item || in_requirements {
                skip(format!("out of scope (under \"{}\")", h.trim()));
            }
            continue;
        }
        if let Some(marker) = out_of_scope_marker(&text) {
            skip(format!("out of scope (marked \"{marker}\")"));
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

pub(super) fn clean(h: &str) -> String {
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

pub(super) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Turn a requirement into imperative task text: "The system MUST store
/// X" → "Store X", "Members SHALL borrow…" → "Ensure members borrow…", a
/// user story → "Implement: <goal>".
pub(super) fn imperative(text: &str) -> String {
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
pub(super) fn atomic_tasks(r: &Requirement) -> Vec<String> {
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
pub(super) const LIST_LEADS: &[&str] =
    &["to", "as", "in", "into", "for", "by", "from", "via", "on"];

/// "Export to CSV, JSON and XML" → "Export to CSV", "Export to JSON",
/// "Export to XML". Only a list that ends the sentence, of short items
/// without code, after a verb or one of [`LIST_LEADS`]; anything else is
/// one task.
pub(super) fn list_items(task: &str) -> Vec<String> {
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
