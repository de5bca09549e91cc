//! A table of steps keyed by their numbers under a step word (`| Faz |
//! Başlık |`, rows `0` to `6`) beside a mermaid graph that names the same
//! steps by that word and number (`F0[Faz 0: Altyapı] --> F1[Faz 1: DB
//! Modelleri]`): the graph says what each row waits for, as a dependency
//! column would. Every row must be a node of the graph and every node
//! naming a step must name a row; otherwise the rows stay one sequence.
//! A sprint table (`| Phase | Name |`) is read the same way.

use super::headings::parse_heading;
use super::headings::Heading;
use super::Block;
use super::Doc;
use super::RawUnit;

/// A lone unit read from a sprint table (`| Phase | Name |`, rows `0` to
/// `6`) whose steps the plan's one mermaid graph names: one unit per step,
/// waiting for what the graph says it waits for.
pub(super) fn units_by_table_graph(doc: &Doc, units: &[RawUnit]) -> Option<Vec<RawUnit>> {
    let [unit] = units else {
        return None;
    };
    // Steps written as headings are ordered by their own graph reader.
    let rows = unit
        .sprints
        .iter()
        .all(|s| doc.source[s.span.clone()].trim_start().starts_with('|'));
    if !rows {
        return None;
    }
    let keys: Vec<String> = unit.sprints.iter().map(|s| s.id.to_string()).collect();
    // The step word of the table's columns (`| Phase | Name |`): the graph
    // must name the rows by it.
    let first = unit.sprints.first()?.span.start;
    let word = doc.blocks.iter().find_map(|b| match b {
        Block::Table { header, span, .. } if span.contains(&first) => header
            .iter()
            .find_map(|h| super::locale::column_step_word(&h.text)),
        _ => None,
    })?;
    let waits = waits_from_graph(doc, &keys, Some(word))?;
    let names: Vec<String> = unit.sprints.iter().map(|s| s.sprint.name.clone()).collect();
    let deps = waits
        .iter()
        .map(|w| w.iter().map(|&j| names[j].clone()).collect())
        .collect();
    Some(super::work_table::units_by_dependencies(
        doc,
        unit.clone(),
        deps,
        &names,
    ))
}

/// Per row, the rows it waits for (by position), read from the plan's one
/// mermaid graph; None unless the graph names exactly the rows `keys`, by
/// the step word `word` (`Phase`) where the table names one.
pub(super) fn waits_from_graph(
    doc: &Doc,
    keys: &[String],
    word: Option<&str>,
) -> Option<Vec<Vec<usize>>> {
    if keys.len() < 2 || !keys.iter().all(|k| k.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let mut graphs = doc.blocks.iter().enumerate().filter_map(|(k, b)| match b {
        Block::Code { info, text, .. } if super::dependencies::is_mermaid_graph(info, text) => {
            Some((k, text))
        }
        _ => None,
    });
    let (k, text) = graphs.next()?;
    if graphs.next().is_some() {
        return None; // two graphs: which one orders the rows is unsaid
    }
    let over = super::phase_graph::words_over(doc, k);
    // A dotted arrow (`-.->`) is a loose link, not a wait; and a plan that
    // keeps its work in order anyway is read so.
    if text.contains("-.-")
        || super::phase_graph::not_the_order(&over)
        || super::phase_graph::keeps_order(doc)
    {
        return None;
    }
    let edges = super::dependencies::arrow_edges(text);
    if edges.is_empty() {
        return None;
    }
    // The row a node names: `Faz 1: DB Modelleri` is step 1, by the
    // table's own step word.
    let row_of = |label: &str| -> Option<usize> {
        let Heading::Sprint(h) = parse_heading(label)? else {
            return None;
        };
        if word.is_some_and(|w| h.word.as_str() != w) {
            return None;
        }
        let id = h.id.trim_start_matches('0');
        keys.iter().position(|k| k.trim_start_matches('0') == id)
    };
    let mut waits = vec![Vec::new(); keys.len()];
    let mut named = vec![false; keys.len()];
    for (a, b) in &edges {
        let (from, to) = (row_of(a)?, row_of(b)?);
        // Arrows run the way the table is written; one pointing back (or a
        // cycle) leaves the rows in order.
        if from >= to {
            return None;
        }
        named[from] = true;
        named[to] = true;
        if !waits[to].contains(&from) {
            waits[to].push(from);
        }
    }
    named.iter().all(|n| *n).then_some(waits)
}
