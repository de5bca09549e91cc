//! Order stated as sentences about the steps by their word and number,
//! anywhere in the plan: "Sprint 1 depende de Sprint 0", "Sprints 2-7
//! depend on Sprint 1", "Sprint 8-11 dependen de Sprint 2-7". Two or more
//! such statements, each naming only the plan's own steps and only earlier
//! ones, make the steps a graph: a step named by a statement waits for
//! what it names, and a step no statement names waits for every step
//! before it. A statement about the steps whose other side this reading
//! cannot follow leaves the plan one sequence.

use super::headings::Word;
use super::*;

/// The unit's steps as a graph, when statements about them give one.
pub(super) fn from_statements(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    let steps = &unit.sprints;
    let numbers = super::sprint_graph::whole_numbers(steps)?;
    let (word, spelled) = step_word(doc, steps)?;
    let index = |n: u32| numbers.iter().position(|&m| m == n);
    let mut waits: Vec<Option<Vec<usize>>> = vec![None; steps.len()];
    let mut first_line = None;
    let mut statements = 0;
    for (k, line) in doc.source.lines().enumerate() {
        // Most lines name no dependency: skip them before any copy.
        // (The verbs' stems of `DEPENDS_ON`, in the cases a line writes.)
        let maybe = [
            "depend",
            "Depend",
            "DEPEND",
            "dépend",
            "Dépend",
            "DÉPEND",
            "dipend",
            "Dipend",
            "blocked",
            "Blocked",
            "BLOCKED",
            "завис",
            "Завис",
            "ЗАВИС",
        ]
        .iter()
        .any(|w| line.contains(w));
        if !maybe {
            continue;
        }
        let lower = format!(" {} ", super::locale::localize(line).to_lowercase());
        // The phrase as a whole word (` depends on `), not inside one.
        let phrase = |p: &&str| lower.split_once(&format!(" {p} "));
        let Some((left, right)) = super::sprint_graph::DEPENDS_ON.iter().find_map(phrase) else {
            continue;
        };
        let Some(those) = refs(left, word) else {
            continue;
        };
        // A statement about the steps that names what they wait for in
        // other words (`Polish (Phase 6) depends on US1 + US2`): order this
        // reading cannot follow, so it follows none.
        let on = refs(right, word)?;
        let those: Vec<usize> = those.into_iter().map(index).collect::<Option<_>>()?;
        let on: Vec<usize> = on.into_iter().map(index).collect::<Option<_>>()?;
        // Only earlier steps: anything else is a reading gone wrong.
        if those.iter().any(|&t| on.iter().any(|&o| o >= t)) {
            return None;
        }
        for t in those {
            waits[t]
                .get_or_insert_with(Vec::new)
                .extend(on.iter().copied());
        }
        statements += 1;
        first_line.get_or_insert(k + 1);
    }
    if statements < 2 {
        return None;
    }
    let waits: Vec<Vec<usize>> = waits
        .into_iter()
        .enumerate()
        .map(|(i, w)| {
            // A step no statement names waits for every step before it.
            let mut w = w.unwrap_or_else(|| (0..i).collect());
            w.sort_unstable();
            w.dedup();
            w
        })
        .collect();
    // As written already: nothing to split (each waits for the one before
    // it, or every one before it).
    let sequential = waits
        .iter()
        .enumerate()
        .all(|(i, w)| i == 0 && w.is_empty() || i > 0 && w.contains(&(i - 1)));
    if sequential {
        return None;
    }
    let names: Vec<String> = numbers.iter().map(|n| format!("{spelled} {n}")).collect();
    let why = format!(
        "a step of its own: the plan's statements (line {}) say what each step waits for",
        first_line.unwrap_or(0)
    );
    Some(units_of(&names, &waits, &why))
}

/// The one step word every step's heading opens with, and its spelling.
fn step_word(doc: &Doc, steps: &[RawSprint]) -> Option<(Word, String)> {
    let mut found: Option<(Word, String)> = None;
    for s in steps {
        let heading = doc.source.get(s.span.clone())?;
        let text = super::locale::localize(heading.trim_start_matches(['#', ' ']));
        let text = text.trim_start_matches(|c: char| !c.is_alphanumeric());
        let (word, len) = Word::parse(&text.to_lowercase())?;
        match &found {
            Some((w, _)) if *w != word => return None,
            Some(_) => {}
            None => found = Some((word, text[..len].to_string())),
        }
    }
    found
}

/// The step numbers a clause names by `word` (`sprint 2-7`, `sprints 2, 3
/// and 4`), when it names any and nothing else that looks like a step.
fn refs(clause: &str, word: Word) -> Option<Vec<u32>> {
    let key = word.as_str().to_lowercase();
    let mut out = Vec::new();
    let mut rest = clause;
    while let Some(at) = rest.find(&key) {
        let after = &rest[at + key.len()..];
        let after = after.strip_prefix('s').unwrap_or(after);
        let Some(mut tail) = after.strip_prefix(' ') else {
            rest = after;
            continue;
        };
        loop {
            let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
            let Ok(first) = digits.parse::<u32>() else {
                break;
            };
            tail = &tail[digits.len()..];
            let mut last = first;
            if let Some(r) = tail.strip_prefix(['-', '–']) {
                let d: String = r.chars().take_while(char::is_ascii_digit).collect();
                last = d.parse().ok()?;
                tail = &r[d.len()..];
            }
            if last < first || last - first > 50 {
                return None;
            }
            out.extend(first..=last);
            match [", ", " and ", " y ", " e ", " et ", " и ", "/"]
                .iter()
                .find_map(|sep| tail.strip_prefix(sep))
            {
                Some(next) if next.starts_with(|c: char| c.is_ascii_digit()) => tail = next,
                _ => break,
            }
        }
        rest = tail;
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::refs;
    use super::Word;

    #[test]
    fn steps_named_by_word_number_range_and_list() {
        assert_eq!(
            refs(" sprint 2-7 ", Word::Sprint),
            Some(vec![2, 3, 4, 5, 6, 7])
        );
        assert_eq!(
            refs(" sprints 2, 3 and 5 ", Word::Sprint),
            Some(vec![2, 3, 5])
        );
        assert_eq!(refs(" phase 1 ", Word::Sprint), None);
        assert_eq!(refs(" the parser ", Word::Phase), None);
    }
}
