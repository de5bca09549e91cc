//! One sentence ordering every step in groups: `Phases 0–2 first (…), then
//! 3 with 4 and 5 in parallel, then 6 and 7.` Each group waits for the one
//! before it; the steps of a group whose own words say they run at once
//! (`in parallel`, `concurrently`) run at once, those of any other group in
//! the order written. The groups must name every step once, in the order
//! the plan writes them, and one group must run two or more at once;
//! otherwise the sentence says no more than the written sequence.

use super::super::{Doc, RawUnit};

/// Words passing from one group to the next.
const THEN: &[&str] = &[
    ", and then ",
    ", then ",
    "; then ",
    " then ",
    ", followed by ",
];

/// Words naming the steps, one of which the sentence must use.
const STEP_WORDS: &[&str] = &[
    "phase",
    "step",
    "stage",
    "sprint",
    "milestone",
    "task",
    "wave",
];

/// The unit's steps as a graph, when one sentence orders them in groups.
pub(super) fn from_group_chain(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    let steps = &unit.sprints;
    let numbers = super::whole_numbers(steps)?;
    let text = super::super::parallel::unwrap_lines(doc.source);
    let (groups, line) = text.lines().enumerate().find_map(|(n, line)| {
        // Most lines pass on to nothing: skip them before any copy.
        if !line.contains(" then ") && !line.contains("followed by") {
            return None;
        }
        // A paragraph that also keeps the work in order (`With one
        // engineer, strictly in order.`) gives no groups.
        let lower = line.to_lowercase();
        if ["strictly", "one at a time", "in order"]
            .iter()
            .any(|w| lower.contains(w))
        {
            return None;
        }
        line.split(". ")
            .find_map(|sentence| groups_of(sentence).filter(|g| covers(g, &numbers)))
            .map(|g| (g, n + 1))
    })?;
    let mut waits: Vec<Vec<usize>> = Vec::with_capacity(steps.len());
    let mut before: Vec<usize> = Vec::new();
    for (members, at_once) in &groups {
        let first = waits.len();
        for k in 0..members.len() {
            let me = first + k;
            waits.push(if *at_once || k == 0 {
                before.clone()
            } else {
                vec![me - 1]
            });
        }
        let last = first + members.len() - 1;
        before = if *at_once {
            (first..=last).collect()
        } else {
            vec![last]
        };
    }
    let names = super::step_names(steps);
    let why = format!("a step of its own: line {line} orders the steps in groups");
    Some(units_of(&names, &waits, &why))
}

/// Whether the groups name every step once, as written, and run some at
/// once.
fn covers(groups: &[(Vec<u32>, bool)], numbers: &[u32]) -> bool {
    groups.iter().any(|(g, at_once)| *at_once && g.len() >= 2)
        && groups.iter().flat_map(|(g, _)| g).eq(numbers.iter())
}

/// The groups a sentence names in turn, each with whether its own words
/// run its steps at once; None unless the sentence names steps by a step
/// word and passes from group to group.
fn groups_of(sentence: &str) -> Option<Vec<(Vec<u32>, bool)>> {
    let lower = super::super::dependencies::strip_parentheticals(&sentence.to_lowercase());
    let first_digit = lower.find(|c: char| c.is_ascii_digit())?;
    if !STEP_WORDS.iter().any(|w| lower[..first_digit].contains(w)) {
        return None;
    }
    // A sentence that only might (`could run in parallel, but …`), did
    // (`Last release we did …`), or would under a condition (`If we get a
    // second engineer: …`) orders nothing now.
    if super::super::parallel::hedged(&lower) {
        return None;
    }
    let mut marked = lower.clone();
    for w in THEN {
        marked = marked.replace(w, "\u{1}");
    }
    let parts: Vec<&str> = marked.split('\u{1}').collect();
    if parts.len() < 2 {
        return None;
    }
    parts
        .iter()
        .enumerate()
        .map(|(k, part)| {
            // A group passing on to another in words this reading does not
            // split at (`0-2 first, after that 3, 4 and 5`): not one group.
            let first = part.find(" first");
            if first.is_some_and(|at| k > 0 || part[at..].contains(|c: char| c.is_ascii_digit()))
                || INNER_ORDER.iter().any(|w| part.contains(w))
            {
                return None;
            }
            let numbers = numbers_in(part)?;
            Some((numbers, super::super::waves::text_says_at_once(part)))
        })
        .collect()
}

/// Words of order inside one group.
const INNER_ORDER: &[&str] = &[
    "after", "once ", "before", "next", "later", "until", "when ", ";", ":",
];

/// The step numbers a group names (`0–2`, `3 with 4 and 5`, `6 and 7`),
/// or None when it names none or something else with digits.
fn numbers_in(part: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for token in part.split(|c: char| c.is_whitespace() || matches!(c, ',' | '&' | '+' | '/')) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '–');
        if !token.contains(|c: char| c.is_ascii_digit()) {
            continue;
        }
        match token.split_once(['-', '–']) {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if b <= a || b - a > 50 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(token.parse().ok()?),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_read_in_turn_with_their_own_words() {
        let groups = groups_of(
            "Phases 0–2 first (they change the shape of the repository), \
             then 3 with 4 and 5 in parallel, then 6 and 7",
        )
        .unwrap();
        assert_eq!(
            groups,
            [
                (vec![0, 1, 2], false),
                (vec![3, 4, 5], true),
                (vec![6, 7], false)
            ]
        );
        assert!(covers(&groups, &[0, 1, 2, 3, 4, 5, 6, 7]));
        assert!(!covers(&groups, &[0, 1, 2, 3, 4, 5, 6, 7, 8]));
        // No step word, or a group naming no step: no groups.
        assert!(groups_of("Read 2 papers first, then 3 more in parallel").is_none());
        assert!(groups_of("Phase 1 first, then the release").is_none());
        // Groups passing on in other words, hedged or conditional ones.
        for hedged in [
            "Phases 0-2 first, after that 3, 4 and 5 in parallel, then 6",
            "Phases 0-2 first; once those land, 3, 4 and 5 in parallel, then 6",
            "Last release we did Phases 0-2 first, then 3 with 4 and 5 in parallel, then 6",
            "If we get a second engineer: Phases 0-2 first, then 3 with 4 in parallel, then 6",
        ] {
            assert!(groups_of(&hedged.to_lowercase()).is_none(), "{hedged}");
        }
    }
}
