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
    let waits = waits_from_graph(doc, &keys)?;
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
/// mermaid graph; None unless the graph names exactly the rows `keys`.
pub(super) fn waits_from_graph(doc: &Doc, keys: &[String]) -> Option<Vec<Vec<usize>>> {
    if keys.len() < 2 || !keys.iter().all(|k| k.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let mut graphs = doc.blocks.iter().filter_map(|b| match b {
        Block::Code { info, text, .. }
            if info.trim() == "mermaid"
                && ["graph", "flowchart"]
                    .iter()
                    .any(|w| text.trim_start().starts_with(w)) =>
        {
            Some(text)
        }
        _ => None,
    });
    let text = graphs.next()?;
    if graphs.next().is_some() {
        return None; // two graphs: which one orders the rows is unsaid
    }
    let edges = super::dependencies::arrow_edges(text);
    if edges.is_empty() {
        return None;
    }
    // The row a node names: `Faz 1: DB Modelleri` is step 1.
    let row_of = |label: &str| -> Option<usize> {
        let Heading::Sprint(h) = parse_heading(label)? else {
            return None;
        };
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
