//! Checklist items outside every sprint section that index the sprints
//! (`- [x] **Phase 25: …**` in a roadmap index, `- [x] (2026-02-06)
//! Milestone 1: …` in a progress list, `1. ✅ **Phase 1: Research** -
//! COMPLETE` in a numbered summary): whether each is ticked, the sprint it
//! names, and its text. `done_elsewhere` applies them.

use super::done_elsewhere::{in_sprint, strip_date};
use super::headings::parse_heading;
use super::headings::Heading;
use super::*;

/// Checklist items outside every sprint section: whether ticked, the first
/// line without a leading date in parentheses or bold marks, and where.
pub(super) fn outside_checklist(doc: &Doc) -> Vec<(bool, String, Span)> {
    let mut out = Vec::new();
    let mut heading: Option<usize> = None;
    for (j, b) in doc.blocks.iter().enumerate() {
        if doc.heading(j).is_some() {
            heading = Some(j);
            continue;
        }
        let Block::Item {
            text,
            checked,
            span,
            ..
        } = b
        else {
            continue;
        };
        if in_sprint(doc, heading) {
            continue;
        }
        let first = text.lines().next().unwrap_or_default();
        let (checked, first) = match checked {
            Some(checked) => (*checked, first),
            // Only a numbered summary of the steps (`1. ✅ **Phase 1:
            // Research**`): a bulleted list of checks (`- ✅ Phase 3.5:
            // stability validation (next)`) may list prerequisites.
            None if !doc.source[span.clone()].starts_with(|c: char| c.is_ascii_digit())
                || !summary_heading(doc, heading) =>
            {
                continue
            }
            None => match emoji_led(first) {
                Some(led) => led,
                None => continue,
            },
        };
        let label = strip_date(first.trim()).replace("**", "");
        out.push((checked, label.trim().to_string(), span.clone()));
    }
    out
}

/// Whether the heading over a numbered list of steps led by state emoji
/// lets it be their index: not their criteria or goals (`Success
/// criteria`: `✅ **Phase 2: tests pass**` is a target), nor a list of
/// another time (`History (v1 plan, superseded)`).
fn summary_heading(doc: &Doc, heading: Option<usize>) -> bool {
    let Some((_, text, _)) = heading.and_then(|h| doc.heading(h)) else {
        return true;
    };
    let lower = text.to_lowercase();
    criteria_label(text).is_none()
        && !["criteria", "goal", "target", "objective"]
            .iter()
            .any(|w| lower.contains(w))
        && !super::phase_graph::of_another_time(&lower)
}

/// An item led by a state emoji (`✅ **Phase 1: Research** - COMPLETE`,
/// `⏸️ **Phase 4: Implementation**`) as a box would lead it: whether it
/// is done, and its text after the mark. Only items naming a step by its
/// word and number count as an index (`index_items`).
fn emoji_led(first: &str) -> Option<(bool, &str)> {
    let t = first.trim_start();
    let (done, rest) = match t.strip_prefix('✅') {
        Some(rest) => (true, rest),
        None => {
            let rest = t
                .strip_prefix(super::line_marks::PENDING)
                .or_else(|| t.strip_prefix('⏸'))?;
            (false, rest)
        }
    };
    let rest = rest.trim_start_matches('\u{fe0f}').trim_start();
    // Written as a heading would be (`Phase 1: Research`, `Phase 2 —
    // Planning`), not a sentence about the step (`Phase 1 tests pass`).
    let mut words = rest.split_whitespace();
    let word = words.next()?;
    let id = rest[word.len()..].trim_start();
    let digits = id.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))?;
    let after = &id[digits..];
    let headed = word.chars().all(char::is_alphabetic)
        && id.starts_with(|c: char| c.is_ascii_digit())
        && (after.starts_with(':')
            || ["-", "—", "–"]
                .iter()
                .any(|d| after.trim_start().starts_with(d) && after.starts_with(' ')));
    headed.then_some((done, rest))
}

/// Checklist items outside every sprint section that read as a sprint
/// heading (`Milestone 1: …`, `**Phase 25: …**`, after a date in
/// parentheses): whether ticked, the sprint id, and the item's text.
pub(super) fn index_items(doc: &Doc) -> Vec<(bool, SprintId, String, Span)> {
    outside_checklist(doc)
        .into_iter()
        .filter_map(|(checked, label, span)| {
            // `Complete Milestone 1 by adding …` (an ExecPlan's progress
            // line) is about Milestone 1.
            let named = after_word(
                &label,
                &[
                    "complete ",
                    "completed ",
                    "finish ",
                    "finished ",
                    "done with ",
                ],
            )
            // The verb's object is the sprint: its word and id, not
            // the prose after them (`by adding …`).
            .map(|rest| {
                rest.split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
                    .trim_end_matches([',', '.', ':', ';'])
                    .to_string()
            })
            .unwrap_or_else(|| label.clone());
            // `- [ ] **M1 remaining — token verify, login flow**`: what is
            // left of Milestone 1, an open entry for it.
            let named = match named.split_once(' ') {
                Some((code, rest))
                    if !checked
                        && rest
                            .trim_start_matches('*')
                            .to_lowercase()
                            .starts_with("remaining ") =>
                {
                    format!("{code} — {}", rest.trim_start_matches('*'))
                }
                _ => named,
            };
            let Some(Heading::Sprint(h)) = parse_heading(&named) else {
                return None;
            };
            // The plan's own sprint word only: `Phase 2` in a plan of
            // sprints is about something else.
            if doc.word.is_some_and(|w| w != h.word) {
                return None;
            }
            Some((checked, model_id(&h.id)?, label, span))
        })
        .collect()
}
