//! Readings that rest on a guess at what the author meant, said so that
//! `start` asks before the first run: done marks kept away from the sprint
//! itself (a progress list, a roadmap index, frontmatter, a graph's node),
//! which skip work, and units run at once because a graph, a wave list or
//! a sentence says so, which a misreading would run out of order. Rules
//! that read the sprint's own heading or a unit table guess nothing.

use std::collections::HashSet;

use super::*;

/// The sprints (by where they start) that their own text marks done.
pub(super) fn done_in_place(units: &[RawUnit]) -> HashSet<usize> {
    units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| s.sprint.done.is_some())
        .map(|s| s.span.start)
        .collect()
}

/// What the reading guessed, each with the line it rests on.
pub(super) fn guesses(
    doc: &Doc,
    units: &[RawUnit],
    in_place: &HashSet<usize>,
    unit_source: &UnitSource,
    dependencies: DependencyStructure,
) -> Vec<Warning> {
    let mut out = Vec::new();
    let elsewhere: Vec<&RawSprint> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| s.sprint.done.is_some() && !in_place.contains(&s.span.start))
        .collect();
    if let Some(first) = elsewhere.first() {
        let n = elsewhere.len();
        out.push(Warning {
            code: "reading::done_elsewhere".into(),
            message: format!(
                "{n} sprint{} count{} as done from marks outside {} own section{} (first: {}): {} not run",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "its" } else { "their" },
                if n == 1 { "" } else { "s" },
                first.sprint.done.as_deref().unwrap_or_default(),
                if n == 1 { "it is" } else { "they are" },
            ),
            help: "check the done marks with `git supervisor plan`".into(),
            line: doc.line(first.span.start),
        });
    }
    // Phases that frame steps beside phases read whole: two levels.
    for unit in units {
        let steps = unit
            .sprints
            .iter()
            .filter(|s| s.sprint.origin.rule.starts_with("step "))
            .count();
        let Some(whole) = unit
            .sprints
            .iter()
            .find(|s| !s.sprint.origin.rule.starts_with("step "))
            .filter(|_| steps > 0)
        else {
            continue;
        };
        out.push(Warning {
            code: "reading::mixed_levels".into(),
            message: format!(
                "{steps} sprints are steps of their phase and {} whole phase{} without steps (first: `{}`): the plan is read at two levels",
                unit.sprints.len() - steps,
                if unit.sprints.len() - steps == 1 { "" } else { "s" },
                whole.sprint.name
            ),
            help: "check the reading with `git supervisor plan`, or have your agent rewrite the plan with `git supervisor import`".into(),
            line: doc.line(whole.span.start),
        });
        break;
    }
    let stated_order = matches!(unit_source, UnitSource::Steps | UnitSource::Waves);
    if stated_order && dependencies != DependencyStructure::Sequential {
        if let Some(first) = units.first() {
            out.push(Warning {
                code: "reading::order_stated".into(),
                message: format!(
                    "{} units, some at once, in the order the plan's own words give: each is {}",
                    units.len(),
                    first.rule
                ),
                help: "check the order with `git supervisor plan`".into(),
                line: first.origin.line,
            });
        }
    }
    // A drawn graph the reading did not use: the sprints run one after
    // another, which is safe, but the plan may allow more at once.
    if dependencies == DependencyStructure::Sequential
        && units.iter().map(|u| u.sprints.len()).sum::<usize>() > 1
    {
        if let Some(line) = drawn_graph(doc) {
            out.push(Warning {
                code: "reading::graph_unread".into(),
                message: format!(
                    "the plan draws an order at line {line} that could not be tied to its sprints: they run one after another"
                ),
                help: "if some sprints may run at once, name each sprint's dependencies (`Depends on: …`), or have your agent rewrite the plan with `git supervisor import`".into(),
                line,
            });
        }
    }
    out
}

/// The line of a graph of steps drawn in the plan: a Mermaid `graph` or
/// `flowchart`, or a code block drawn with arrows (`──►`, `-->`, `▼`),
/// that names steps (`Phase 2`, `M1`, `T3`, `US2`) twice or more; a
/// drawing of the system's parts is no order of work.
fn drawn_graph(doc: &Doc) -> Option<usize> {
    doc.blocks.iter().find_map(|b| {
        let Block::Code { info, text, span } = b else {
            return None;
        };
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let mermaid = info.trim().eq_ignore_ascii_case("mermaid")
            && (first.starts_with("graph") || first.starts_with("flowchart"));
        let arrows = text
            .lines()
            .filter(|l| {
                l.contains("──►")
                    || l.contains("─►")
                    || (l.contains("-->") && !l.contains("<!--"))
                    || l.trim() == "▼"
                    || l.trim() == "↓"
            })
            .count();
        ((mermaid || arrows >= 2) && names_steps(text) >= 2).then(|| doc.line(span.start))
    })
}

/// How many step names (`Phase 2`, `M1`, `T3`, `US2`, `TASK-A1`) a
/// drawing holds.
fn names_steps(text: &str) -> usize {
    const WORDS: &[&str] = &[
        "phase",
        "sprint",
        "step",
        "task",
        "milestone",
        "wave",
        "stage",
        "week",
    ];
    const CODES: &[&str] = &["m", "p", "t", "s", "w", "us", "task", "phase", "step"];
    let tokens: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .filter(|t| !t.is_empty())
        .collect();
    let mut n = 0;
    for (k, t) in tokens.iter().enumerate() {
        let lower = t.to_ascii_lowercase();
        let letters = lower.chars().take_while(char::is_ascii_alphabetic).count();
        let coded = letters > 0
            && letters < lower.len()
            && CODES.contains(&&lower[..letters])
            && lower[letters..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.');
        let worded = WORDS.contains(&lower.as_str())
            && tokens
                .get(k + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
        if coded || worded {
            n += 1;
        }
    }
    n
}
