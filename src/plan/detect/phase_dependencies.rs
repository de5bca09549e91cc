//! spec-kit's `### Phase Dependencies` list and lists written like it
//! (`- **Phase 3 (US1 Save)**: Depends on Phase 2`, `- **User Stories
//! (Phase 3-7)**: All depend on Foundational phase completion`, `Depends on
//! Phases 3 and 4`, `Depends on all previous phases`): each phase becomes a
//! unit waiting for the phases its item names. Words in an aside that offer
//! to run at once (`(can run in parallel with Phase 3)`) name no wait, and
//! two phases the list leaves unordered run at once only where the plan
//! offers it (an item grouping them, or a clause saying `parallel` that
//! names both); every other pair keeps the written order.

use super::sprint_graph::DEPENDS_ON;
use super::Doc;
use super::RawUnit;

/// "No dependencies", in the plans' languages.
const NO_DEPENDENCIES: &[&str] = &[
    "no dependencies",
    "нет зависимостей",
    "sin dependencias",
    "sem dependências",
    "nessuna dipendenza",
    "aucune dépendance",
    "keine abhängigkeiten",
];

/// spec-kit's `### Phase Dependencies` list: `- **Setup (Phase 1)**: No
/// dependencies`, `- **User Stories (Phase 3-7)**: All depend on
/// Foundational phase completion`. Every phase must be covered and every
/// "depends on" must name another item (by its label or `Phase N`), or the
/// list is not read.
pub(super) fn from_phase_dependencies(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    let numbers: Vec<u32> = unit.sprints.iter().map(|s| s.id.number).collect();
    let whole_ids = unit.sprints.iter().all(|s| s.id.suffix.is_empty());
    let last = *numbers.iter().max()?;
    let mut lines = doc.source.lines().enumerate();
    let (heading, _) = lines
        .find(|(_, l)| l.starts_with('#') && l.to_lowercase().contains("phase dependencies"))?;
    // (label, phases, what it depends on)
    let mut items: Vec<(String, Vec<u32>, String)> = Vec::new();
    // Items whose sub-items say their phases go one after another.
    let mut in_sequence: Vec<bool> = Vec::new();
    // Items whose own words or sub-items offer to run their phases at once
    // (`User stories can then proceed in parallel (if staffed)`).
    let mut offers: Vec<bool> = Vec::new();
    let mut subs: Vec<String> = Vec::new();
    for (_, line) in lines.take_while(|(_, l)| !l.starts_with('#')) {
        if line.starts_with([' ', '\t']) && !items.is_empty() {
            subs.push(line.trim().to_lowercase());
            continue;
        }
        let Some(item) = line.strip_prefix("- ") else {
            continue;
        };
        if !items.is_empty() {
            in_sequence.push(says_in_sequence(&subs));
            offers.push(offers_parallel(&subs));
            subs.clear();
        }
        let item = item.replace("**", "");
        let (label, says) = item.split_once(':')?;
        // `Setup (Phase 1)`, or `Phase 1 (型定義)`: the phases are in
        // the parentheses or before them.
        let (name, aside) = label.split_once('(').unwrap_or((label, ""));
        let aside = aside.trim_end_matches(')').trim();
        let (name, phases) = match phase_range(aside, last) {
            Some(phases) => (name.trim(), phases),
            None => (aside, phase_range(name.trim(), last)?),
        };
        items.push((name.trim().to_lowercase(), phases, says.to_lowercase()));
    }
    if !items.is_empty() {
        in_sequence.push(says_in_sequence(&subs));
        offers.push(offers_parallel(&subs));
    }
    // Phases after every phase the list names (a review phase appended
    // later) follow the one before them.
    let listed = items.iter().flat_map(|(_, p, _)| p.iter().copied()).max()?;
    let appended: Vec<u32> = numbers.iter().copied().filter(|n| *n > listed).collect();
    // `Phase 3+` runs to the last phase no other item names (`Final Phase`).
    let claimed: Vec<Vec<u32>> = items.iter().map(|(_, p, _)| p.clone()).collect();
    for (me, item) in items.iter_mut().enumerate() {
        if item.1.len() > 1 {
            item.1.retain(|n| {
                !claimed.iter().enumerate().any(|(o, theirs)| {
                    o != me && theirs.len() < claimed[me].len() && theirs.contains(n)
                })
            });
        }
    }
    let covered = |n: &u32| items.iter().any(|(_, p, _)| p.contains(n)) || appended.contains(n);
    if !whole_ids || items.len() < 2 || !numbers.iter().all(covered) {
        return None;
    }
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); numbers.len()];
    for (me, (_, phases, says)) in items.iter().enumerate() {
        // "Depends on Foundational — No dependencies on other stories":
        // only a first clause of "no dependencies" says none.
        let first_clause = [" - ", " — ", "; ", ". "]
            .iter()
            .fold(says.as_str(), |s, stop| s.split(stop).next().unwrap_or(s));
        if NO_DEPENDENCIES.iter().any(|w| first_clause.contains(w)) {
            continue;
        }
        // `Requires Foundational + US1` says the same.
        let on = DEPENDS_ON
            .iter()
            .chain(&["requires ", "require "])
            .find_map(|w| says.split_once(w).map(|(_, rest)| rest))?;
        // "Depends on Setup completion - BLOCKS all user stories": the
        // clause ends at the dash (or a full stop of CJK text).
        let on = [" - ", " — ", "; ", ". ", "。"]
            .iter()
            .fold(on, |on, stop| on.split(stop).next().unwrap_or(on));
        let on = without_parallel_asides(on);
        let numbered = phases_named(&on);
        let named: Vec<u32> = items
            .iter()
            .enumerate()
            .filter(|&(other, (label, theirs, _))| {
                other != me
                    && (on.contains(label.as_str()) || theirs.iter().any(|n| numbered.contains(n)))
            })
            .flat_map(|(_, (_, theirs, _))| theirs.clone())
            .collect();
        // "Depends on all desired user stories being complete": every
        // phase before it.
        let named = if named.is_empty() && on.trim_start().starts_with("all ") {
            let first = phases.iter().min().copied().unwrap_or(0);
            numbers.iter().copied().filter(|n| *n < first).collect()
        } else {
            named
        };
        if named.is_empty() {
            return None;
        }
        for (k, p) in phases.iter().enumerate() {
            let i = numbers.iter().position(|n| n == p)?;
            // "User stories should proceed sequentially (P1 → P2 → P3)":
            // each of the item's phases waits for the one before it.
            let before = k.checked_sub(1).map(|b| phases[b]);
            waits[i] = match before.filter(|_| in_sequence[me]) {
                Some(b) => numbers.iter().position(|m| *m == b).into_iter().collect(),
                None => named
                    .iter()
                    .filter_map(|n| numbers.iter().position(|m| m == n))
                    .collect(),
            };
        }
    }
    for n in &appended {
        let i = numbers.iter().position(|m| m == n)?;
        waits[i] = i.checked_sub(1).into_iter().collect();
    }
    // Only earlier phases: anything else is a list this reading misread.
    if waits
        .iter()
        .enumerate()
        .any(|(i, w)| w.iter().any(|&d| d >= i))
    {
        return None;
    }
    // The list leaves phases it does not order free to run at once; they
    // do so only where the plan offers it in words naming them (`Phase 3
    // (Save) and Phase 4 (Restore) can run in parallel`). Any other pair
    // keeps the plan's written order: a list that forgets an edge (`Depends
    // on Phases 3, 4, 5, 6` where the plan calls Phase 7 `required for
    // Species`) must not start Phase 8 beside Phase 7.
    // An item that groups phases (`User Stories (Phase 3-6)`: All depend
    // on Foundational phase completion) says each waits for that alone:
    // they may run beside each other, unless its sub-items put them in
    // sequence (above).
    // Items named by their labels in the offers (`can run in parallel with
    // US3`), each label standing for its one phase.
    let labels: Vec<(&str, u32)> = items
        .iter()
        .filter(|(label, phases, _)| phases.len() == 1 && label.len() >= 2)
        .map(|(label, phases, _)| (label.as_str(), phases[0]))
        .collect();
    let mut offered = offered_pairs(doc.source, last, &labels);
    for (k, (_, phases, says)) in items.iter().enumerate() {
        if phases.len() >= 2 || offers[k] || offers_parallel(std::slice::from_ref(says)) {
            for &a in phases {
                for &b in phases.iter().filter(|&&b| b > a) {
                    offered.insert((a, b));
                }
            }
        }
    }
    let mut reach = reach_of(&waits);
    for j in 0..numbers.len() {
        for i in 0..j {
            let free = !reach[j].contains(&i);
            if free && !offered.contains(&(numbers[i], numbers[j])) {
                waits[j].push(i);
                reach = reach_of(&waits);
            }
        }
    }
    for w in &mut waits {
        w.sort_unstable();
        w.dedup();
    }
    let names: Vec<String> = numbers.iter().map(|n| format!("Phase {n}")).collect();
    let why = format!(
        "a phase of its own: the `Phase Dependencies` list (line {}) orders the phases",
        heading + 1
    );
    Some(units_of(&names, &waits, &why))
}

/// `text` with `word` replaced where it stands as a word of its own.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(char::is_alphanumeric) || after.is_some_and(char::is_alphanumeric) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// Words saying that work goes one after another, in the plans' languages.
const IN_SEQUENCE: &[&str] = &[
    "sequential",
    "one after another",
    "one at a time",
    "順次",
    "順番",
    "依次",
    "顺序",
    "按顺序",
    "последовательн",
    "secuencial",
    "séquentiel",
    "sequenzial",
    "nacheinander",
    "sequencial",
    "순차",
];

/// Whether an item's sub-items say its phases go one after another and do
/// not offer to run them at once: spec-kit's template offers both ("can
/// then proceed in parallel (if staffed)", "Or sequentially in priority
/// order"), which says nothing either way.
fn says_in_sequence(subs: &[String]) -> bool {
    !offers_parallel(subs)
        && subs
            .iter()
            .any(|l| IN_SEQUENCE.iter().any(|w| l.contains(w)))
}

/// Whether lines offer to run work at once, and do not deny it (the one
/// word list every reader of at-once words asks).
fn offers_parallel(subs: &[String]) -> bool {
    subs.iter().any(|l| super::waves::text_says_at_once(l))
}

/// `Phase 3-7` → 3..=7, `Phase 3+` → 3..=last, `Final Phase` → last.
fn phase_range(text: &str, last: u32) -> Option<Vec<u32>> {
    let t = text.to_lowercase();
    if t == "final phase" {
        return Some(vec![last]);
    }
    let t = t.strip_prefix("phase ")?.trim();
    if let Some(from) = t.strip_suffix('+') {
        let from: u32 = from.trim().parse().ok()?;
        return Some((from..=last).collect());
    }
    match t.split_once(['-', '–']) {
        Some((a, b)) => {
            let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            (a <= b).then(|| (a..=b).collect())
        }
        None => Some(vec![t.parse().ok()?]),
    }
}

/// What each phase waits for, directly or not (`waits` name only earlier
/// phases).
fn reach_of(waits: &[Vec<usize>]) -> Vec<std::collections::BTreeSet<usize>> {
    let mut reach: Vec<std::collections::BTreeSet<usize>> = Vec::with_capacity(waits.len());
    for w in waits {
        let mut mine = std::collections::BTreeSet::new();
        for &d in w {
            mine.insert(d);
            mine.extend(reach[d].iter().copied());
        }
        reach.push(mine);
    }
    reach
}

/// Pairs of phases (lower number first) a clause of the plan offers to
/// run at once: it says so (`parallel`, `並列`) and names them, or names
/// one beside its item's own phase (`Phase 6 can run in parallel with
/// Phases 3-5`, `**Phase 4**: Depends on Phase 2 (can run in parallel with
/// Phase 3)`, `**Phase 9**: Depends on Phases 3-8 - can start parallel
/// with Phase 8`). What a clause says after `after` or `depends on` is a
/// wait, not a partner.
fn offered_pairs(
    source: &str,
    last: u32,
    labels: &[(&str, u32)],
) -> std::collections::BTreeSet<(u32, u32)> {
    let mut out = std::collections::BTreeSet::new();
    for line in source.lines() {
        let mut lower = line.to_lowercase().replace("**", "");
        if !super::waves::text_says_at_once(&lower) {
            continue;
        }
        // `US4 (Phase 6): … can run in parallel with US3/US4`: a label
        // names its phase.
        for (label, phase) in labels {
            if lower.contains(label) {
                lower = replace_word(&lower, label, &format!("phase {phase}"));
            }
        }
        let item = lower
            .trim_start()
            .strip_prefix(['-', '*'])
            .map(str::trim_start);
        let (subject, rest) = match item.and_then(|i| i.split_once(':')) {
            Some((label, rest)) => (phases_named(label), rest.to_string()),
            None => (Vec::new(), lower.clone()),
        };
        // Asides that offer are clauses of their own; the others (`(Save)`)
        // are names.
        let mut clauses: Vec<String> = Vec::new();
        let mut plain = String::with_capacity(rest.len());
        let mut text = rest.as_str();
        while let Some(open) = text.find('(') {
            let Some(close) = text[open..].find(')') else {
                break;
            };
            let aside = &text[open + 1..open + close];
            if super::waves::text_says_at_once(aside) {
                clauses.push(aside.to_string());
            }
            plain.push_str(&text[..open]);
            text = &text[open + close + 1..];
        }
        plain.push_str(text);
        clauses.extend(
            plain
                .split([';', '—', '。'])
                .flat_map(|c| c.split(" - "))
                .flat_map(|c| c.split(". "))
                .map(str::to_string),
        );
        for clause in clauses {
            // A question (`Can Phase 3 and Phase 4 run in parallel? No`)
            // or a warning (`it is unsafe to run … in parallel`) offers
            // nothing.
            // Nor a hedge (`could in principle run in parallel with UI, but
            // … keep them sequential`, `only if we get a second database`).
            let denied = clause.contains('?') || super::parallel::hedged(&clause);
            if denied || !super::waves::text_says_at_once(&clause) {
                continue;
            }
            let cut = [
                "after ",
                "depends on",
                "depend on",
                "once ",
                "when ",
                "until ",
            ]
            .iter()
            .filter_map(|w| clause.find(w))
            .min();
            let partners = cut.map_or(clause.as_str(), |at| &clause[..at]);
            // What it waits for is no partner (`in parallel with Phase 3
            // once Phase 3's migrations are merged`).
            let waited = cut
                .map(|at| phases_named(&clause[at..]))
                .unwrap_or_default();
            // `Phase 6 can run in parallel with Phases 3-5`: each side
            // beside the other, not 3 beside 5.
            let sides: Vec<Vec<u32>> = match partners.split_once(" with ") {
                Some((left, right)) => vec![phases_named(left), phases_named(right)],
                None => vec![phases_named(partners)],
            };
            let mut sides: Vec<Vec<u32>> = sides
                .into_iter()
                .map(|mut side| {
                    side.retain(|&n| n <= last && !waited.contains(&n));
                    side
                })
                .collect();
            sides[0].extend(subject.iter().copied());
            let pairs = |a: &[u32], b: &[u32], out: &mut std::collections::BTreeSet<(u32, u32)>| {
                for &x in a {
                    for &y in b {
                        if x != y {
                            out.insert((x.min(y), x.max(y)));
                        }
                    }
                }
            };
            match sides.as_slice() {
                [one] => pairs(one, one, &mut out),
                [left, right] => pairs(left, right, &mut out),
                _ => {}
            }
        }
    }
    out
}

/// The text of a dependency clause less its asides that offer to run at
/// once (`Phase 2 (can run in parallel with Phase 3)` → `Phase 2`): the
/// phase named there is a neighbour, not a wait.
fn without_parallel_asides(on: &str) -> String {
    let mut out = String::with_capacity(on.len());
    let mut rest = on;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let aside = &rest[open..open + close + 1];
        out.push_str(&rest[..open]);
        if !super::waves::text_says_at_once(aside) {
            out.push_str(aside);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Every phase number a lower-cased clause names: `phase 2`, `phases 3
/// and 4`, `phases 3-5`, `phases 3, 4 & 6`, `phase 3 + 4`.
fn phases_named(on: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for (at, _) in on.match_indices("phase") {
        let mut rest = on[at + "phase".len()..]
            .strip_prefix('s')
            .unwrap_or(&on[at + "phase".len()..]);
        rest = rest.trim_start();
        let mut last: Option<u32> = None;
        let mut range = false;
        loop {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            if digits == 0 {
                break;
            }
            let Ok(n) = rest[..digits].parse::<u32>() else {
                break;
            };
            // `phase 2a`, `phase 2.1` name a part of phase 2, no phase of
            // the list; `Depends on Phase 2.` names phase 2.
            let after = &rest[digits..];
            let dotted = after
                .strip_prefix('.')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
            if after.starts_with(char::is_alphanumeric) || dotted {
                break;
            }
            match last.filter(|_| range) {
                Some(from) if from < n && n - from <= 50 => out.extend(from + 1..=n),
                _ => out.push(n),
            }
            last = Some(n);
            rest = rest[digits..].trim_start();
            range = false;
            let mut joined = false;
            for sep in ["-", "–", "to ", "through "] {
                if let Some(r) = rest.strip_prefix(sep) {
                    rest = r.trim_start();
                    range = true;
                    joined = true;
                    break;
                }
            }
            if !joined {
                for sep in [",", "&", "+", "/", "and ", "or "] {
                    if let Some(r) = rest.strip_prefix(sep) {
                        rest = r.trim_start();
                        rest = rest.strip_prefix("and ").unwrap_or(rest).trim_start();
                        rest = rest
                            .strip_prefix("phase")
                            .map_or(rest, |r| r.strip_prefix('s').unwrap_or(r).trim_start());
                        joined = true;
                        break;
                    }
                }
            }
            if !joined {
                break;
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::phases_named;
    use super::without_parallel_asides;

    #[test]
    fn plural_phases_and_ranges_are_named() {
        assert_eq!(phases_named(" phase 2"), vec![2]);
        assert_eq!(phases_named(" phases 3 and 4"), vec![3, 4]);
        assert_eq!(phases_named(" phases 3-5"), vec![3, 4, 5]);
        assert_eq!(phases_named(" phases 3, 4, and phase 6"), vec![3, 4, 6]);
        assert_eq!(phases_named(" phase 2a"), Vec::<u32>::new());
        assert_eq!(phases_named(" phase 2.1"), Vec::<u32>::new());
        assert_eq!(phases_named(" phase 2."), vec![2]);
        assert_eq!(phases_named(" the setup phase"), Vec::<u32>::new());
    }

    #[test]
    fn only_the_clause_that_offers_names_partners() {
        let pairs = super::offered_pairs(
            "- **Phase 9 (Polish)**: Depends on Phases 3-8 - can start parallel with Phase 8\n\
             - **Phase 4 (Restore)**: Depends on Phase 2 (can run in parallel with Phase 3)\n\
             - Phase 3 (Save) and Phase 4 (Restore) can run in parallel after Phase 2\n\
             - Phase 6 (Persistence) can run in parallel with Phases 3-5\n",
            9,
            &[],
        );
        let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
        assert_eq!(pairs, vec![(3, 4), (3, 6), (4, 6), (5, 6), (8, 9)]);
    }

    #[test]
    fn a_partner_waited_for_or_a_denial_offers_nothing() {
        let pairs = super::offered_pairs(
            "- **Phase 4 (Sync)**: Depends on Phase 2 (can run in parallel with Phase 3 once Phase 3's migrations are merged)\n\
             Can Phase 5 and Phase 6 run in parallel? No.\n\
             It is unsafe to run Phase 7 and Phase 8 in parallel.\n",
            9,
            &[],
        );
        assert!(pairs.is_empty(), "{pairs:?}");
    }

    #[test]
    fn an_aside_offering_to_run_at_once_names_no_wait() {
        assert_eq!(
            phases_named(&without_parallel_asides(
                " phase 2 (can run in parallel with phase 3)"
            )),
            vec![2]
        );
        assert_eq!(
            phases_named(&without_parallel_asides(
                " phase 4 (delete is within the dropdown)"
            )),
            vec![4]
        );
    }
}
