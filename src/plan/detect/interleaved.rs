//! Steps of another series written between the plan's own: `### Phase 0:
//! Setup`, then `### Wave 1 (parallel): Canvas + Config` … `### Wave 4:
//! Integration`, then `### Phase 7: Documentation`. Each wave is a numbered
//! sibling of the phases, at their level, holding work between two of
//! them; read by the phases' word alone they vanished with their work. They
//! are steps in their place, each under the id of the step before it with a
//! letter (`0b`, `0c`), and the reading says so.

use std::collections::HashSet;

use super::completion::done_evidence;
use super::completion::strip_done_marks;
use super::criteria_label::criteria_label;
use super::sprint_text::read_sprint;
use super::*;

/// Take into each unit the numbered headings written among its step
/// headings, at their level and under their parent, that hold work; the
/// guess that says so.
pub(super) fn keep_interleaved(doc: &Doc, units: &mut [RawUnit]) -> Option<Warning> {
    let mut kept: Vec<(usize, String, String)> = Vec::new();
    for unit in units.iter_mut() {
        let Some(heads) = step_headings(doc, &unit.sprints) else {
            continue;
        };
        let first = heads[0];
        let level = doc.heading(first).map(|(l, _, _)| l);
        // Between two steps, the sections at their level come one after
        // another by their ends: most steps end where the next begins.
        let mut between: Vec<usize> = Vec::new();
        for pair in heads.windows(2) {
            let mut j = doc.section_end[pair[0]];
            while j < pair[1] && doc.heading(j).map(|(l, _, _)| l) == level {
                if doc.parent[j] == doc.parent[first] {
                    between.push(j);
                }
                j = doc.section_end[j];
            }
        }
        if between.is_empty() {
            continue;
        }
        // Steps kept as checklists make a heading of bare bullets a note
        // (`Done last week … Kept here for reference:`), not work.
        let boxes = heads.iter().any(|&h| items(doc, h).any(|c| c.is_some()));
        let holds = |j: usize| holds_work(doc, j) && (!boxes || items(doc, j).any(|c| c.is_some()));
        if !between.iter().all(|&j| holds(j)) || !one_series(doc, &between) {
            continue;
        }
        let mut used: HashSet<SprintId> = unit.sprints.iter().map(|s| s.id.clone()).collect();
        let own: Vec<(usize, SprintId)> = unit
            .sprints
            .iter()
            .map(|s| (s.span.start, s.id.clone()))
            .collect();
        for &j in &between {
            let Some((_, text, span)) = doc.heading(j) else {
                continue;
            };
            // The plan's own step before it names the new one's id.
            let Some(base) = own.iter().rev().find(|(at, _)| *at < span.start) else {
                continue;
            };
            let base = &base.1;
            let before = unit
                .sprints
                .iter()
                .rposition(|s| s.span.start < span.start)
                .unwrap_or(0);
            let Some(id) = super::repeats::lettered_free(base, &used) else {
                continue;
            };
            used.insert(id.clone());
            let (name, marked) = strip_done_marks(text);
            let name = clean_name(&name);
            let mut sprint = read_sprint(doc, j, id.clone(), name.clone());
            sprint.done = done_evidence(doc, j, marked);
            sprint.origin = Origin::new(
                doc.line(span.start),
                "a numbered heading among the steps, at their level",
            );
            kept.push((doc.line(span.start), id.to_string(), name));
            unit.sprints.insert(
                before + 1,
                RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                },
            );
        }
    }
    let (line, id, name) = kept.first()?.clone();
    let n = kept.len();
    Some(Warning {
        code: "reading::interleaved".into(),
        message: format!(
            "{n} numbered heading{} between the plan's steps, at their level, not named as they are (first: `{name}`): each is read as a step in its place (the first as {id})",
            if n == 1 { " stands" } else { "s stand" }
        ),
        help: "name every step with one word, or have your agent rewrite the plan with `git supervisor import`".into(),
        line,
    })
}

/// The heading of each of a unit's steps, when every step is a heading and
/// all stand at one level under one parent.
fn step_headings(doc: &Doc, sprints: &[RawSprint]) -> Option<Vec<usize>> {
    if sprints.len() < 2 {
        return None;
    }
    // The steps come in the plan's order: one walk finds each's heading.
    let mut at = doc
        .blocks
        .partition_point(|b| b.span().start < sprints[0].span.start);
    let mut heads = Vec::with_capacity(sprints.len());
    for s in sprints {
        while doc.blocks.get(at)?.span().start < s.span.start {
            at += 1;
        }
        match &doc.blocks[at] {
            Block::Heading { span, .. } if span.start == s.span.start => heads.push(at),
            _ => return None,
        }
    }
    let level = doc.heading(heads[0])?.0;
    let one_place = heads.windows(2).all(|w| w[0] < w[1])
        && heads.iter().all(|&h| {
            doc.heading(h).is_some_and(|(l, _, _)| l == level)
                && doc.parent[h] == doc.parent[heads[0]]
        });
    one_place.then_some(heads)
}

/// Whether heading `j` (numbered, as `one_series` asks: `Wave 2
/// (parallel): Tools + Hooks`) holds list items of its own; a heading
/// about the steps (criteria, notes, a legend) or one dropped is none.
fn holds_work(doc: &Doc, j: usize) -> bool {
    let Some((_, text, _)) = doc.heading(j) else {
        return false;
    };
    criteria_label(text).is_none()
        && doc.about_at[j].is_none()
        && !super::dropped::dropped(text)
        && !super::about_plan::describes_plan(text)
        && !super::about_plan::names_later_ideas(text)
        && items(doc, j).next().is_some()
}

/// The checkbox state of each list item heading `j` holds before its first
/// sub-heading (None for a bare bullet).
fn items<'d>(doc: &'d Doc, j: usize) -> impl Iterator<Item = Option<bool>> + 'd {
    doc.own_blocks(j).filter_map(|b| match &doc.blocks[b] {
        Block::Item { checked, .. } => Some(*checked),
        _ => None,
    })
}

/// Words that number notes, not work: `Risk 2`, `ADR 3`, `Example 1`,
/// `Option 2`.
const NOT_WORK: &[&str] = &[
    "risk",
    "adr",
    "decision",
    "example",
    "option",
    "alternative",
    "scenario",
    "question",
    "note",
    "budget",
    "appendix",
    "meeting",
    "review",
    "retro",
    "retrospective",
    "team",
    "lesson",
    "issue",
    "bug",
    "incident",
    "figure",
    "table",
];

/// Whether headings `between` are one series of their own: two or more,
/// each its word and a number one more than the one before (`Wave 1`,
/// `Wave 2`), the word not one that numbers notes.
fn one_series(doc: &Doc, between: &[usize]) -> bool {
    let labels: Option<Vec<(String, u32)>> = between
        .iter()
        .map(|&j| {
            let (_, text, _) = doc.heading(j)?;
            let mut words = text
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()));
            let word = words.next()?.to_lowercase();
            let number = words.next()?.parse::<u32>().ok()?;
            let noted = NOT_WORK.contains(&word.as_str());
            (!noted && word.chars().all(char::is_alphabetic)).then_some((word, number))
        })
        .collect();
    let Some(labels) = labels else {
        return false;
    };
    labels.len() >= 2
        && labels
            .windows(2)
            .all(|w| w[0].0 == w[1].0 && w[1].1 == w[0].1 + 1)
}
