//! Waves that name the plan's steps by number: an index of tasks (a table
//! of rows `01` … `06`, or numbered step sections) and, apart from it, the
//! waves that run them, written as headings (`### Wave 2: Services (Tasks
//! 02, 03, 04 — parallel)`) or as a tree under each wave line (`Wave 2
//! (parallel, after Wave 1)` over `├── 02 Invoice service`). Each step of
//! a wave waits for the whole wave before it; the steps of a wave run at
//! once only where its own line says so, and one after another otherwise.
//!
//! Every step must sit in exactly one wave and every number a wave names
//! must be a step: a wave list that leaves steps out, or names one twice in
//! two waves, is not the plan's order, and the plan stays one sequence.

use std::collections::BTreeMap;

use super::Doc;
use super::RawUnit;

/// Words after which a wave line lists the steps it runs.
const STEP_WORDS: &[&str] = &[
    "task", "tasks", "step", "steps", "phase", "phases", "sprint", "sprints", "ticket", "tickets",
];

#[derive(Default)]
struct Wave {
    steps: Vec<u32>,
    at_once: bool,
    /// The tree lines' words after each step number (`Invoice service` of
    /// `├── 02 Invoice service`): they must name that step.
    named: Vec<(u32, String)>,
    /// How many wave lines declare it: a heading and a tree may both.
    lines: usize,
}

/// One unit per step, ordered by the waves that name the steps, when the
/// plan's waves cover every step once.
pub(super) fn from_wave_groups(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    super::sprint_graph::whole_numbers(&unit.sprints)?;
    let waves = waves_naming_steps(doc.source)?;
    if waves.len() < 2 || waves.values().any(|w| w.lines > 2) {
        return None;
    }
    // Waves inside a step's own section order that step's parts
    // (`## Phase 1` holding `Wave 1 (parallel): Tasks 1, 2`), not the steps.
    if wave_lines_inside_steps(doc, unit) {
        return None;
    }
    let position = |n: u32| unit.sprints.iter().position(|s| s.id.number == n);
    // A tree line names its step (`02 Invoice service`), or it lists other
    // things numbered alike (`- 2 iOS devs` under a hiring wave).
    for (n, words) in waves.values().flat_map(|w| &w.named) {
        let step = &unit.sprints[position(*n)?];
        let name = step.sprint.name.to_lowercase();
        let first = words
            .split_whitespace()
            .next()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .unwrap_or_default();
        if first.is_empty() || !name.contains(&first) {
            return None;
        }
    }
    // The wave each step sits in, by the step's place.
    let mut wave_of: Vec<Option<usize>> = vec![None; unit.sprints.len()];
    let mut members: Vec<Vec<usize>> = Vec::with_capacity(waves.len());
    for (k, wave) in waves.values().enumerate() {
        let mut here = Vec::with_capacity(wave.steps.len());
        for &n in &wave.steps {
            let at = position(n)?;
            match wave_of[at] {
                Some(w) if w != k => return None,
                Some(_) => continue,
                None => wave_of[at] = Some(k),
            }
            here.push(at);
        }
        here.sort_unstable();
        members.push(here);
    }
    if wave_of.iter().any(Option::is_none) {
        return None;
    }
    let mut waits = vec![Vec::new(); unit.sprints.len()];
    for (k, (here, wave)) in members.iter().zip(waves.values()).enumerate() {
        let before: &[usize] = match k {
            0 => &[],
            _ => &members[k - 1],
        };
        for (j, &at) in here.iter().enumerate() {
            let mut on: Vec<usize> = before.to_vec();
            if !wave.at_once && j > 0 {
                on.push(here[j - 1]);
            }
            on.sort_unstable();
            waits[at] = on;
        }
    }
    // A wave may list a step before one it waits for (`Wave 1: Task 4`,
    // `Wave 2: Task 2`): the units still read in the plan's order, so a
    // step must wait only for earlier ones.
    if waits
        .iter()
        .enumerate()
        .any(|(me, on)| on.iter().any(|&p| p >= me))
    {
        return None;
    }
    if !super::dependency_lines::at_once(&waits) {
        return None;
    }
    let names = super::sprint_graph::numbered_names(unit);
    let why = "a step of its own: the plan's waves name the steps each runs";
    Some(units_of(&names, &waits, why))
}

/// The waves of `source` that name steps, by wave number: from wave lines
/// listing steps after a step word, and from the tree lines under a wave
/// line that open with a step number.
fn waves_naming_steps(source: &str) -> Option<BTreeMap<u32, Wave>> {
    let mut waves: BTreeMap<u32, Wave> = BTreeMap::new();
    let mut current: Option<u32> = None;
    for line in source.lines() {
        let bare = line.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '#' | '*' | '_' | '`' | '>' | '-' | '+')
        });
        if let Some(n) = super::waves::wave_number(bare) {
            let rest = after_wave_number(bare);
            let lower = rest.to_lowercase();
            // `Tasks 02, 03 in parallel, then Task 04`: an order inside
            // the wave that the wave list cannot hold.
            if orders_within(&lower) {
                return None;
            }
            let wave = waves.entry(n).or_default();
            wave.lines += 1;
            // The words every wave reader asks (`parallel`, `並列`, …), so
            // `(not parallel — run one at a time)` says the opposite.
            wave.at_once |= super::waves::text_says_at_once(&lower) || lower.contains("at once");
            wave.steps.extend(listed_steps(&lower));
            current = Some(n);
            continue;
        }
        let Some(n) = current else {
            continue;
        };
        match tree_step(line) {
            Some((step, words)) => {
                let wave = waves.entry(n).or_default();
                wave.steps.push(step);
                wave.named.push((step, words));
            }
            None => current = None,
        }
    }
    waves.retain(|_, w| !w.steps.is_empty());
    (!waves.is_empty()).then_some(waves)
}

/// Whether a wave line orders work inside its wave (`then Task 04`, `once
/// both are merged`, `before Task 5`); `after Wave 1` orders waves, which
/// the reading keeps.
fn orders_within(lower: &str) -> bool {
    let mut t = lower.to_string();
    while let Some(at) = t.find("after wave") {
        t.replace_range(at..at + "after wave".len(), "");
    }
    [
        " then ",
        "then task",
        " once ",
        "before ",
        "after task",
        "after step",
        "→",
        "->",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Whether a wave line lies inside the section of one of the unit's steps
/// read from a heading.
fn wave_lines_inside_steps(doc: &Doc, unit: &RawUnit) -> bool {
    let heading_at: std::collections::HashMap<usize, usize> = (0..doc.blocks.len())
        .filter(|&i| doc.heading(i).is_some())
        .map(|i| (doc.blocks[i].span().start, i))
        .collect();
    let sections: Vec<std::ops::Range<usize>> = unit
        .sprints
        .iter()
        .filter_map(|s| {
            let h = *heading_at.get(&s.span.start)?;
            // The heading's own line is the step's name, not its text.
            let body = doc.blocks[h].span().end;
            Some(body..doc.section_end_offset(h))
        })
        .collect();
    let mut at = 0;
    for line in doc.source.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let bare = line.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '#' | '*' | '_' | '`' | '>' | '-' | '+')
        });
        if super::waves::wave_number(bare).is_some() && sections.iter().any(|r| r.contains(&start))
        {
            return true;
        }
    }
    false
}

/// `Wave 2: Services (Tasks 02, 03)` → `: Services (Tasks 02, 03)`.
fn after_wave_number(text: &str) -> &str {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let rest = &t[5..];
    rest.trim_start_matches(|c: char| c.is_ascii_digit())
}

/// The step numbers a wave line lists after a step word: `tasks 02, 03
/// and 04`, `steps 1-3`, `task 7`.
fn listed_steps(lower: &str) -> Vec<u32> {
    let tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | ':' | ';' | '/'))
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !STEP_WORDS.contains(&tokens[i]) {
            i += 1;
            continue;
        }
        i += 1;
        while i < tokens.len() {
            let t = tokens[i].trim_start_matches('#');
            if matches!(t, "and" | "&" | "+" | "y" | "e" | "und" | "et") {
                i += 1;
                continue;
            }
            match number_or_range(t) {
                Some(ns) => out.extend(ns),
                None => break,
            }
            i += 1;
        }
    }
    out
}

/// `03` → [3]; `1-3` and `1–3` → [1, 2, 3].
fn number_or_range(token: &str) -> Option<Vec<u32>> {
    let token = token.trim_end_matches('.');
    if let Ok(n) = token.parse::<u32>() {
        return Some(vec![n]);
    }
    let (a, b) = token.split_once(['-', '–'])?;
    let (a, b) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?);
    (a <= b && b - a < 64).then(|| (a..=b).collect())
}

/// The step a tree line under a wave line opens with, and the words after
/// its number: `├── 02 Invoice service`, `└─ Task 03: Webhooks`, `- T04
/// Refunds`.
fn tree_step(line: &str) -> Option<(u32, String)> {
    let drawn = line
        .trim_start()
        .starts_with(['├', '└', '│', '-', '*', '+', '·']);
    if !drawn {
        return None;
    }
    let t = line.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '├' | '└' | '│' | '─' | '-' | '*' | '+' | '·' | '`')
    });
    let t = t
        .strip_prefix("Task ")
        .or_else(|| t.strip_prefix("task "))
        .or_else(|| t.strip_prefix('T'))
        .or_else(|| t.strip_prefix('#'))
        .unwrap_or(t);
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let after = t[digits.len()..].chars().next();
    // `02 Invoice service`, `02: …`, `02.` — not `2024-01` or `3x`.
    if digits.is_empty() || after.is_some_and(|c| c.is_alphanumeric() || c == '-') {
        return None;
    }
    let words = t[digits.len()..].trim_start_matches([':', '.', ' ', '-', '—', '–']);
    Some((digits.parse().ok()?, words.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wave_line_lists_its_steps_after_a_step_word() {
        assert_eq!(
            listed_steps(": services (tasks 02, 03, 04 — parallel)"),
            vec![2, 3, 4]
        );
        assert_eq!(listed_steps(" (after wave 1): steps 5-7"), vec![5, 6, 7]);
        assert_eq!(listed_steps(" (parallel, after wave 1)"), Vec::<u32>::new());
    }

    #[test]
    fn tree_lines_open_with_a_step_number() {
        assert_eq!(
            tree_step("  ├── 02 Invoice service"),
            Some((2, "Invoice service".into()))
        );
        assert_eq!(
            tree_step("  └─ Task 03: Webhooks"),
            Some((3, "Webhooks".into()))
        );
        assert_eq!(tree_step("  - 2024-01 release"), None);
        assert_eq!(tree_step("The schema must land first"), None);
    }

    #[test]
    fn waves_cover_what_their_lines_and_trees_name() {
        let src = "```\nWave 1\n  └── 01 Schema\nWave 2 (parallel, after Wave 1)\n  ├── 02 A\n  └── 03 B\n```\n";
        let waves = waves_naming_steps(src).unwrap();
        assert_eq!(waves[&1].steps, vec![1]);
        assert_eq!(waves[&2].steps, vec![2, 3]);
        assert!(waves[&2].at_once && !waves[&1].at_once);
        let not = "### Wave 1: Task 1\n\n### Wave 2: Tasks 2, 3 (not parallel, one at a time)\n";
        assert!(!waves_naming_steps(not).unwrap()[&2].at_once);
        assert!(waves_naming_steps("Wave 2: Tasks 2, 3 in parallel, then Task 4\n").is_none());
    }
}
