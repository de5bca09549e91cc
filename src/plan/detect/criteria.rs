//! Entry and exit criteria, plan-wide checks and rules.
//!
//! Shapes recognised: `Entry Criteria` / `Exit Criteria` headings, bold
//! labels and `Label:` lines (also *Exit Checklist*, *Definition of Done*,
//! `DoD:`, *Acceptance Criteria*, *Success Criteria*, *Done when*,
//! *Validation*), nested `* **Exit Criteria:**` items, fenced command blocks
//! under such a label, `Expected:` output blocks; plan-level `Entry Checks`,
//! `Exit Checks`, `Rules` and `Constraints` sections. Inline code is a
//! command only when it reads as one (an executable or a path first).

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
    Entry,
    Exit,
    Rules,
    Expected,
    Tasks,
}

pub(super) fn criteria_label(text: &str) -> Option<Label> {
    let t = norm(text.trim_end_matches(':'));
    let t = t.trim_end_matches(':').trim();
    Some(match t {
        "entry criteria" | "entry checks" | "preconditions" | "prerequisites" | "entry" => {
            Label::Entry
        }
        "exit criteria"
        | "exit checks"
        | "validation"
        | "validate"
        | "verify"
        | "verification"
        | "acceptance criteria"
        | "done when"
        | "definition of done"
        | "execute"
        | "exit" => Label::Exit,
        "rules" | "constraints" => Label::Rules,
        "expected" | "expected output" | "expected result" => Label::Expected,
        "tasks" | "deliverables" | "steps" | "scope" | "files" => Label::Tasks,
        _ => return None,
    })
}

/// A paragraph line `Label: rest` whose label is a known one.
pub(super) fn label_line(line: &str) -> Option<(Label, &str)> {
    let (head, rest) = line.split_once(':')?;
    criteria_label(head).map(|l| (l, rest.trim()))
}

pub(super) fn push_criterion(
    sprint: &mut Sprint,
    label: Label,
    text: &str,
    code: &[String],
    checked: bool,
) {
    let c = classify_criterion(text, code, checked);
    match label {
        Label::Entry | Label::Rules => sprint.entry.push(c),
        Label::Exit | Label::Expected => sprint.exit.push(c),
        Label::Tasks => sprint.tasks.push(text.to_string()),
    }
}

pub(super) fn command_criterion(command: String) -> Criterion {
    Criterion {
        kind: CriterionKind::Command,
        text: command.clone(),
        command: Some(command),
        expected: None,
        checked: false,
    }
}

/// Drop `$ ` prompts and blank lines from a fenced command block.
pub(super) fn strip_prompts(text: &str) -> String {
    text.lines()
        .map(|l| l.strip_prefix("$ ").unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Inline code spans written as `` `x` `` in already-rendered text.
pub(crate) fn inline_code(text: &str) -> Vec<String> {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd part is code only when a closing backtick follows it.
    parts
        .iter()
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && i + 1 < parts.len() && !s.is_empty())
        .map(|(_, s)| s.to_string())
        .collect()
}

pub(super) const SINGLE_WORD_COMMANDS: &[&str] = &[
    "make", "pytest", "tox", "just", "ninja", "true", "false", "nox",
];

pub(crate) fn looks_like_command(code: &str) -> bool {
    let code = code.trim();
    code.contains(' ') || SINGLE_WORD_COMMANDS.contains(&code)
}

/// Type a criterion (spec §E-25): a statement about a file or the state is an
/// assertion, an inline command is a command, anything else a checklist item.
pub(crate) fn classify_criterion(text: &str, code: &[String], checked: bool) -> Criterion {
    let lower = text.to_lowercase();
    let stated = [
        "exists",
        "is present",
        "contains",
        "shows",
        "equals",
        "is set",
        "is marked",
    ];
    let base = Criterion {
        kind: CriterionKind::Checklist,
        text: text.to_string(),
        command: None,
        expected: None,
        checked,
    };
    if let Some(first) = code.first() {
        if stated.iter().any(|w| lower.contains(w)) && !looks_like_command(first) {
            let command = lower
                .contains("exists")
                .then(|| format!("test -e '{}'", first.replace('\'', "'\\''")));
            return Criterion {
                kind: CriterionKind::Assertion,
                command,
                ..base
            };
        }
        if looks_like_command(first) {
            return Criterion {
                kind: CriterionKind::Command,
                command: Some(first.clone()),
                ..base
            };
        }
    }
    if stated.iter().any(|w| lower.contains(w)) {
        return Criterion {
            kind: CriterionKind::Assertion,
            ..base
        };
    }
    base
}

/// Entry Checks / Exit Checks / Rules / Constraints sections that are not
/// inside a sprint apply to every sprint.
pub(super) fn plan_checks(doc: &Doc) -> (Vec<Criterion>, Vec<Criterion>, Vec<String>) {
    let (mut entry, mut exit, mut rules) = (Vec::new(), Vec::new(), Vec::new());
    let mut inside_sprint_until = 0usize;
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if sprint_heading(text).is_some() || task_heading(text).is_some() {
            inside_sprint_until = inside_sprint_until.max(doc.section_end[i]);
            continue;
        }
        if i < inside_sprint_until {
            continue;
        }
        let l = norm(text);
        let which = if l.ends_with("entry checks") {
            1
        } else if l.ends_with("exit checks") {
            2
        } else if l.ends_with("rules") || l.ends_with("constraints") {
            3
        } else {
            continue;
        };
        for j in doc.own_blocks(i) {
            match &doc.blocks[j] {
                Block::Item {
                    text,
                    code,
                    checked,
                    ..
                } => {
                    let c = classify_criterion(text, code, checked.unwrap_or(false));
                    match which {
                        1 => entry.push(c),
                        2 => exit.push(c),
                        _ => rules.push(text.clone()),
                    }
                }
                Block::Code { text, info, .. } if which != 3 && info.trim() != "mermaid" => {
                    let c = command_criterion(strip_prompts(text));
                    if which == 1 {
                        entry.push(c)
                    } else {
                        exit.push(c)
                    }
                }
                _ => {}
            }
        }
    }
    (entry, exit, rules)
}
