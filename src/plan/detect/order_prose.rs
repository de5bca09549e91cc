//! Order stated in prose is obeyed, whatever reader found the units: a
//! sentence outside every sprint's own text that names one unit, then "depends on", "blocked by", "waits
//! for", "requires" or "after", then other units (`US2 (Phase 4) depends
//! on US1`, `Beta begins only after Alpha has completed`) makes the first
//! wait for the others. Units are known by their names, by a `word N`
//! label in their name or their step's (`Phase 4`, `User Story 2`), by
//! that label's initials (`US2`), and by a code in the name (`User Story
//! AUTH-US1 - Registration`); a label two units share names neither. A
//! chain of arrows (`R01→R02→R03 ship sequentially`) makes each unit wait
//! for the one before it. A chain over every step (`Execution Order: 1 >
//! 2 > 2.1 > 3`, `Phases execute in numeric order`) is the steps' order,
//! over what each step's own dependency line allows.
//! Only waits are added, and none that would close a cycle, so a sentence
//! read wrongly can make a run slower, never run work out of order.

use std::collections::BTreeSet;
use std::collections::HashMap;

use super::parallel::unwrap_lines;
use super::Block;
use super::DependencyStructure;
use super::Doc;
use super::RawUnit;

const ORDER_WORDS: &[&str] = &[
    " depends on ",
    " depend on ",
    " blocked by ",
    " waits for ",
    " wait for ",
    " requires ",
    " only after ",
    " start after ",
    " starts after ",
    " begin after ",
    " begins after ",
    " run after ",
    " runs after ",
];

/// Where the clause naming what is waited for ends.
const CLAUSE_ENDS: &[&str] = &[
    " — ",
    " – ",
    " - ",
    "(",
    // CJK text: a full-width aside or a full stop.
    "（",
    "。",
    " but ",
    " parallel",
    " independent",
    " no ",
    " not ",
    " can ",
];

/// Words of a text, lower-cased, joined by single spaces, padded.
fn words(text: &str) -> String {
    let w: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", w.join(" "))
}

/// The names a unit is known by, as padded word strings.
fn aliases(unit: &RawUnit) -> Vec<String> {
    let mut out = vec![words(&unit.name)];
    let texts = std::iter::once(unit.name.as_str())
        .chain(unit.aliases.iter().map(String::as_str))
        .chain(unit.sprints.iter().take(1).map(|s| s.sprint.name.as_str()));
    for text in texts {
        // A code in the name (`User Story AUTH-US1 - Registration`): a
        // token of capitals and digits, as `AUTH-US2 depends on AUTH-US1`
        // names it.
        for token in text.split_whitespace() {
            let token = token.trim_matches(|c: char| !c.is_alphanumeric());
            let code = (2..=16).contains(&token.len())
                && token.chars().any(|c| c.is_ascii_uppercase())
                && token.chars().any(|c| c.is_ascii_digit())
                && token.chars().all(|c| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
                });
            if code {
                out.push(words(token));
            }
        }
        let w: Vec<&str> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        // `Phase 4`, `User Story 2`: the words before the first number.
        if let Some(k) = w.iter().position(|t| t.chars().all(|c| c.is_ascii_digit())) {
            let label = &w[..k];
            if !label.is_empty() && label.len() <= 3 {
                let number = w[k];
                out.push(words(&format!("{} {number}", label.join(" "))));
                if label.len() >= 2 {
                    let initials: String = label.iter().filter_map(|t| t.chars().next()).collect();
                    out.push(words(&format!("{initials}{number}")));
                    out.push(words(&format!("{initials} {number}")));
                }
            }
        }
    }
    out.retain(|a| a.trim().len() >= 2);
    out.sort();
    out.dedup();
    out
}

/// Where in `text` (padded words) units are named: (offset, unit), by
/// aliases indexed by their first word, so a sentence is read once.
fn named_at(text: &str, by_first: &HashMap<&str, Vec<(&str, usize)>>) -> Vec<(usize, usize)> {
    let mut at = Vec::new();
    let mut offset = 0;
    for word in text.split(' ') {
        if let Some(candidates) = by_first.get(word) {
            for &(alias, unit) in candidates {
                // `offset` is the word's start; aliases are padded.
                if offset > 0 && text[offset - 1..].starts_with(alias) {
                    at.push((offset - 1, unit));
                }
            }
        }
        offset += word.len() + 1;
    }
    at
}

/// Words saying that what follows is to be done in the order written, in
/// the plans' languages (`Implement in this order:`, `nesta ordem`,
/// `按顺序`).
pub(super) const IN_ORDER: &[&str] = &[
    "in this order",
    "in the order",
    "nesta ordem",
    "nessa ordem",
    "en este orden",
    "en orden",
    "dans cet ordre",
    "dans l'ordre",
    "in dieser reihenfolge",
    "in questo ordine",
    "в этом порядке",
    "по порядку",
    "按顺序",
    "按此顺序",
    "依次",
    "この順",
    "順番に",
    "순서대로",
];

/// Add the waits the plan's prose states; a reading of units all at once
/// that now has waits is a graph.
pub(super) fn obey(
    doc: &Doc,
    units: &mut [RawUnit],
    structure: DependencyStructure,
) -> DependencyStructure {
    if units.len() < 2 {
        return structure;
    }
    // A sprint's own text is its work ("Implement: stories that depend on
    // the foundation"), not the plan's order: only prose outside sprints
    // is read.
    let heading_at = doc.headings_by_start();
    let mut in_sprint = vec![false; doc.blocks.len()];
    for s in units.iter().flat_map(|u| &u.sprints) {
        if let Some(&i) = heading_at.get(&s.span.start) {
            for j in doc.section(i) {
                in_sprint[j] = true;
            }
        }
    }
    // Sentences outside the sprints that hold an order word, with the
    // block they are in; most plans have none, and then nothing more is
    // read.
    let mut sentences: Vec<(usize, String)> = Vec::new();
    // Sentences chaining units by arrows (`R01→R02→R03 ship sequentially`).
    let mut chains: Vec<String> = Vec::new();
    // `User stories proceed in priority order (P1 → P2 → P3)`.
    let mut tiers = false;
    for (j, block) in doc.blocks.iter().enumerate() {
        let (Block::Paragraph { text, .. } | Block::Item { text, .. }) = block else {
            continue;
        };
        if in_sprint[j] {
            continue;
        }
        let lower = text.to_lowercase();
        tiers |= says_priority_tiers(&lower);
        let arrows = lower.contains('→');
        if !arrows && !ORDER_WORDS.iter().any(|k| lower.contains(k.trim())) {
            continue;
        }
        // `(P1 → P3) to enable independent implementation`, `or
        // sequentially (P1 → P2)`: an order offered, not a rule; and an
        // order, not a data flow (`Collector → Parser → Store`). Said of the
        // whole block, so asked once, and only where an arrow is.
        let chained = arrows
            && [
                "sequential",
                "in order",
                "one after",
                "critical path",
                "ship",
                "merge",
            ]
            .iter()
            .any(|w| lower.contains(w))
            && !offers_an_order(&lower);
        for sentence in unwrap_lines(&lower).split(['\n', '.', ';']) {
            if chained && sentence.contains('→') {
                chains.push(sentence.to_string());
            }
            if ORDER_WORDS.iter().any(|k| sentence.contains(k.trim())) {
                sentences.push((j, sentence.to_string()));
            }
        }
    }
    if sentences.is_empty() && chains.is_empty() && !tiers {
        return structure;
    }
    let mut count: HashMap<String, usize> = HashMap::new();
    let per_unit: Vec<Vec<String>> = units.iter().map(aliases).collect();
    for a in per_unit.iter().flatten() {
        *count.entry(a.clone()).or_default() += 1;
    }
    let known: Vec<(String, usize)> = per_unit
        .iter()
        .enumerate()
        .flat_map(|(u, list)| list.iter().map(move |a| (a.clone(), u)))
        .filter(|(a, _)| count[a] == 1)
        .collect();
    let mut by_first: HashMap<&str, Vec<(&str, usize)>> = HashMap::new();
    for (alias, unit) in &known {
        let first = alias.split_whitespace().next().unwrap_or_default();
        by_first
            .entry(first)
            .or_default()
            .push((alias.as_str(), *unit));
    }
    // The unit whose own section holds each block: the subject of a rule
    // written there without one (`Rules: begin only after core has
    // completed`).
    let mut owner: Vec<Option<usize>> = vec![None; doc.blocks.len()];
    // (Units shared out of one flat list have that list as their scope:
    // it is no section of theirs.)
    for (u, unit) in units.iter().enumerate().filter(|(_, u)| u.heads.is_none()) {
        for j in unit.scope.clone() {
            if let Some(o) = owner.get_mut(j) {
                *o = Some(u);
            }
        }
    }
    let mut added: Vec<(usize, usize)> = Vec::new();
    for (j, lower) in &sentences {
        let j = *j;
        let Some((key_at, key)) = ORDER_WORDS
            .iter()
            .filter_map(|k| lower.find(k.trim()).map(|p| (p, k.trim())))
            .min()
        else {
            continue;
        };
        // What is waited for ends with its clause: "can start after
        // Phase 2, parallel with US1", "Depends on Foundational — No
        // dependencies on other stories".
        let rest = &lower[key_at + key.len()..];
        let clause_end = CLAUSE_ENDS
            .iter()
            .filter_map(|e| rest.find(e))
            .min()
            .unwrap_or(rest.len());
        let before = words(&lower[..key_at]);
        let waited_text = words(&rest[..clause_end]);
        // The subject: the last unit named before the order word, or
        // the unit whose section this is.
        let Some(waiter) = named_at(&before, &by_first)
            .iter()
            .max()
            .map(|&(_, u)| u)
            .or(owner[j])
        else {
            continue;
        };
        let waited: BTreeSet<usize> = named_at(&waited_text, &by_first)
            .into_iter()
            .map(|(_, u)| u)
            .filter(|u| *u != waiter)
            .collect();
        added.extend(waited.into_iter().map(|on| (waiter, on)));
    }
    // `R01→R02→R03`: a unit named right after an arrow waits for the one
    // named right before it; an arrow between other words (`Add User
    // Story 2 (Sign-In) → Test independently`) orders nothing.
    for chain in &chains {
        let parts: Vec<String> = chain.split('→').map(words).collect();
        for pair in parts.windows(2) {
            let before = named_at(&pair[0], &by_first)
                .into_iter()
                .find(|&(at, u)| {
                    per_unit[u].iter().any(|a| {
                        pair[0][at..].starts_with(a.as_str()) && at + a.len() == pair[0].len()
                    })
                })
                .map(|(_, u)| u);
            let after = named_at(&pair[1], &by_first)
                .into_iter()
                .find(|&(at, _)| at == 0)
                .map(|(_, u)| u);
            if let (Some(on), Some(waiter)) = (before, after) {
                if on != waiter {
                    added.push((waiter, on));
                }
            }
        }
    }
    // Each unit of a priority (`(Priority: P2)`) waits for every unit of
    // a higher one.
    let tier: Vec<Option<u32>> = match tiers {
        true => units.iter().map(priority_of).collect(),
        false => Vec::new(),
    };
    if tier.iter().flatten().count() >= 2 {
        for (waiter, t) in tier.iter().enumerate() {
            for (on, o) in tier.iter().enumerate() {
                if t.zip(*o).is_some_and(|(t, o)| o < t) {
                    added.push((waiter, on));
                }
            }
        }
    }
    for (waiter, on) in added {
        let dep = units[on].name.clone();
        if units[waiter].deps.iter().any(|(d, _)| *d == dep) || reaches(units, on, waiter) {
            continue;
        }
        // A unit placed by its layer waits for every lower layer; an
        // explicit wait would replace those, so they are written out first.
        if let Some(layer) = units[waiter]
            .layer
            .filter(|_| units[waiter].deps.is_empty())
        {
            let lower: Vec<String> = units
                .iter()
                .filter(|u| u.layer.is_some_and(|l| l < layer))
                .map(|u| u.name.clone())
                .collect();
            let span = units[waiter].name_span.clone();
            units[waiter]
                .deps
                .extend(lower.into_iter().map(|d| (d, span.clone())));
        }
        let span = units[waiter].name_span.clone();
        units[waiter].deps.push((dep, span));
    }
    match structure {
        DependencyStructure::Parallel if units.iter().any(|u| !u.deps.is_empty()) => {
            DependencyStructure::Graph
        }
        other => other,
    }
}

/// Whether lower-cased text offers an order beside another way rather than
/// rules it (`(P1 → P3) to enable independent implementation`, `in
/// parallel … or sequentially (P1 → P2)`), or orders work inside the units
/// (`Within each workstream, P1 before P2`).
fn offers_an_order(lower: &str) -> bool {
    [
        "independen",
        "parallel",
        " or ",
        "или",
        " oder ",
        " ou ",
        "within",
        "same time",
        "at once",
        "concurren",
    ]
    .iter()
    .any(|w| lower.contains(w))
        || lower.trim_start().starts_with("or ")
}

/// Whether a sentence (lower-cased) orders the work by its priorities:
/// `proceed in priority order (P1 → P2 → P3)`, `P1 stories should complete
/// before P2/P3`; not an order offered beside another (`in parallel … or
/// sequentially in priority order (P1 → P2 → P3)`).
fn says_priority_tiers(lower: &str) -> bool {
    if !lower.contains("p1") || !lower.contains("p2") {
        return false;
    }
    let offered = offers_an_order(lower);
    let chain = ["p1 → p2", "p1 -> p2", "p1 > p2"]
        .iter()
        .any(|c| lower.contains(c));
    let before = lower.contains("stor")
        && lower
            .find("p1")
            .is_some_and(|at| lower[at..].contains(" before p2"));
    !offered && (chain && lower.contains("priority order") || before)
}

/// A unit's priority, from its name or its steps' (`User Story 4 (Priority:
/// P2)`, `Story 2 (P1)`).
fn priority_of(unit: &RawUnit) -> Option<u32> {
    let names = std::iter::once(unit.name.as_str())
        .chain(unit.sprints.iter().map(|s| s.sprint.name.as_str()));
    // `(P2)` closed right after its digit: `(p95 and p99)` is no priority.
    names.into_iter().find_map(|n| {
        let lower = n.to_ascii_lowercase();
        let (at, closed) = match lower.find("priority: p") {
            Some(a) => (a + "priority: p".len(), false),
            None => (lower.find("(p")? + 2, true),
        };
        // One digit: `(p99)` is a latency, not a priority.
        let digit = lower[at..].chars().next().filter(char::is_ascii_digit)?;
        let rest = &lower[at + 1..];
        let single = !rest.starts_with(|c: char| c.is_ascii_digit());
        (single && (!closed || rest.starts_with(')'))).then(|| digit.to_digit(10))?
    })
}

/// Whether `from` waits for `to`, directly or not.
fn reaches(units: &[RawUnit], from: usize, to: usize) -> bool {
    let index: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.as_str(), i))
        .collect();
    let mut stack = vec![from];
    let mut seen = BTreeSet::new();
    while let Some(u) = stack.pop() {
        if u == to {
            return true;
        }
        if seen.insert(u) {
            stack.extend(
                units[u]
                    .deps
                    .iter()
                    .filter_map(|(d, _)| index.get(d.as_str()).copied()),
            );
        }
    }
    false
}

/// The body writes the order out as one chain ("Implementation order:
/// TASK-006 → TASK-007 → TASK-008"): that beats the todos' looser graph.
pub(super) fn states_a_sequence(doc: &Doc) -> bool {
    let body = crate::plan::frontmatter::body_range(doc.source).map_or(0, |r| r.end);
    // `1 > 2 > 2.1 > 3` draws the chain with plain signs; the looser
    // reading (each step's own line) would let `5` start beside `4`.
    says_numeric_order(&doc.source[body..])
        || doc.source[body..].lines().any(|l| {
            let arrows = l.matches('→').count() + l.matches("->").count();
            (arrows >= 2 || numbers_chained(l) && rising(l)) && l.to_lowercase().contains("order")
        })
}

/// `1 > 2 > 2.1 > 3`: step numbers chained by `>` (`CLI > env > config`
/// and `Admin > Orders > Refunds` chain no steps).
fn numbers_chained(line: &str) -> bool {
    if !line.contains(" > ") {
        return false;
    }
    let parts: Vec<&str> = line.split(" > ").collect();
    let number = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == '.');
    parts.len() >= 3
        && parts[1..parts.len() - 1].iter().all(|p| number(p.trim()))
        && parts[0].split_whitespace().last().is_some_and(number)
        && parts[parts.len() - 1]
            .split_whitespace()
            .next()
            .is_some_and(number)
}

/// The plan says its phases run by their numbers, not as written.
pub(super) fn says_numeric_order(source: &str) -> bool {
    // Every form names a numeric order, and most plans never do: one
    // search of the whole text in ASCII lower case says so before any
    // line is read (lower-casing never makes these ASCII words).
    if !source.to_ascii_lowercase().contains("numeric order") {
        return false;
    }
    source.lines().any(|l| {
        let l = l.to_lowercase();
        (l.contains("execute in numeric order") || l.contains("run in numeric order"))
            && !l.contains("not ")
            && !l.contains("n't ")
    })
}

/// Whether the numbers chained in a line rise (`1 > 2 > 2.1 > 3`).
fn rising(line: &str) -> bool {
    let parts: Vec<&str> = line.split(" > ").collect();
    let last = parts.len() - 1;
    let numbers: Option<Vec<Vec<u32>>> = parts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let n = match k {
                0 => p.split_whitespace().last()?,
                k if k == last => p.split_whitespace().next()?,
                _ => p.trim(),
            };
            n.split('.').map(|d| d.parse().ok()).collect()
        })
        .collect();
    numbers.is_some_and(|n| n.windows(2).all(|w| w[0] < w[1]))
}

#[cfg(test)]
mod tests {
    use super::says_priority_tiers;

    #[test]
    fn priorities_order_the_work_only_where_the_plan_says_so() {
        assert!(says_priority_tiers(
            "user stories can then proceed in priority order (p1 → p2 → p3)"
        ));
        assert!(says_priority_tiers(
            "p1 stories (us1, us2, us3) should complete before p2/p3"
        ));
        // spec-kit's own words offer the order beside running at once.
        assert!(!says_priority_tiers(
            "user stories can then proceed in parallel (if staffed) - or sequentially in priority order (p1 → p2 → p3)"
        ));
        assert!(!says_priority_tiers(
            "priorities: p1 is must-have, p2 nice to have"
        ));
        assert!(!says_priority_tiers(
            "within each workstream, p1 tasks should complete before p2 tasks"
        ));
    }

    #[test]
    fn only_step_numbers_chained_by_signs_are_an_order() {
        use super::numbers_chained;
        assert!(numbers_chained("**Execution Order:** 1 > 2 > 2.1 > 3"));
        assert!(!numbers_chained(
            "precedence order is CLI > env > config file"
        ));
        assert!(!numbers_chained(
            "Admin > Orders > Refunds, sorted by order date"
        ));
    }
}
