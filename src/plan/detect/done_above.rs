//! Done marks said by a step heading of all it holds: `## ✅ Phase 4
//! (Complete)` marks `### Phase 4.1` done, unless the sub-step says
//! anything of an open state itself.

use super::*;

/// The done mark on a step heading that holds sprint heading `i` (`## ✅
/// Phase 4 (Complete)` over `### Phase 4.1`): what it marks done, it marks
/// done with all it holds.
pub(super) fn done_above(
    doc: &Doc,
    i: usize,
    marks: &mut Vec<(usize, Option<String>)>,
) -> Option<String> {
    let mut p = doc.parent[i];
    while let Some(j) = p {
        // A unit's sprints share a few holding headings: a short list.
        let mark = match marks.iter().find(|(k, _)| *k == j) {
            Some((_, m)) => m.clone(),
            None => {
                let m = mark_on(doc, j);
                marks.push((j, m.clone()));
                m
            }
        };
        // A sub-step that says anything of an open state (`### Phase 4.2
        // 🚧`, `Not started`, `(reopened)`) keeps it, whatever holds it.
        if let Some(why) = mark {
            return (!says_open(doc.section_text(i))).then_some(why);
        }
        p = doc.parent[j];
    }
    None
}

/// The done mark on step heading `j`'s own heading, said of all it holds.
fn mark_on(doc: &Doc, j: usize) -> Option<String> {
    let (_, text, _) = doc.heading(j)?;
    // Most holding headings name a unit (`## unit-0`) and mark nothing:
    // in ASCII, a mark is a bracket or a done word.
    let marked = || {
        text.contains(['(', '['])
            || text.split(|c: char| !c.is_ascii_alphabetic()).any(|w| {
                super::status_words::DONE_WORDS
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(w))
            })
    };
    if text.is_ascii() && !marked() {
        return None;
    }
    // A step of the plan's own word (`Phase 4` over `Phase 4.1`, not `FASE
    // 2` over `STEP 2.1`), by its own heading's mark only: what it says of
    // its parts (a status line, its subsections' marks) is not said of
    // each. `## Phase 4 ✅ (core shipped; 4.3 still open)`: not all of it.
    let Some(Heading::Sprint(h)) = parse_heading(text) else {
        return None;
    };
    if !h.done || Some(h.word) != doc.word || says_open(text) {
        return None;
    }
    let why = done_evidence(doc, j, true)?;
    Some(format!("{why}, on `{}` which holds it", h.id))
}

/// Whether text says anything of work open or under way: a pending mark,
/// an open box, an open word (`in progress`, `TODO`, `待开发`), `reopened`.
fn says_open(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains(super::line_marks::PENDING)
        || lower.contains("[ ]")
        || ["reopen", "still open", "not done", "todo"]
            .iter()
            .any(|w| lower.contains(w))
        || super::completion::OPEN_WORDS
            .iter()
            .any(|w| lower.contains(w))
}
