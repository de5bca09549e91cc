//! A table that breaks other steps down (`| F-001 | Card Flip | v0.1.0 |
//! ✅ |` under `## Feature Summary`, beside a table of milestones
//! `v0.1.0 … v2.0.0`): each row names, in a column of its own, the step of
//! another unit it belongs to. Its rows are that step's tasks, not a unit
//! of steps of their own, which would dispatch the same work twice.

use super::*;

/// Fold units whose table rows each name a step of one other unit into
/// that unit's steps, as their tasks. Says whether any was folded.
pub(super) fn fold_breakdowns(doc: &Doc, units: &mut Vec<RawUnit>) -> bool {
    let mut folded = false;
    let mut u = 0;
    while u < units.len() {
        match breakdown_of(doc, units, u) {
            Some((target, rows)) => {
                for (name, step) in rows {
                    units[target].sprints[step].sprint.tasks.push(name);
                }
                units.remove(u);
                folded = true;
            }
            None => u += 1,
        }
    }
    folded
}

/// The code a step is known by: its name's text before `:` (`v0.1.0` of
/// `v0.1.0: Animation Foundation`).
fn step_code(name: &str) -> Option<String> {
    let (code, _) = name.split_once(':')?;
    let code = code.trim();
    (!code.is_empty() && !code.contains(' ')).then(|| code.to_lowercase())
}

/// When every step of `units[u]` is a row of one table, and one column of
/// that table names, in every row, a step of a single other unit: that
/// unit, and each row's name with the step it names.
fn breakdown_of(doc: &Doc, units: &[RawUnit], u: usize) -> Option<(usize, Vec<(String, usize)>)> {
    let unit = &units[u];
    let first = unit.sprints.first()?;
    let (header, rows) = doc.blocks.iter().find_map(|b| match b {
        Block::Table {
            header, rows, span, ..
        } if span.contains(&first.span.start) => Some((header, rows)),
        _ => None,
    })?;
    let in_table = |s: &RawSprint| rows.iter().any(|r| r.span == s.span);
    if unit.sprints.len() < 3 || !unit.sprints.iter().all(in_table) {
        return None;
    }
    let codes: Vec<(usize, usize, String)> = units
        .iter()
        .enumerate()
        .filter(|&(v, _)| v != u)
        .flat_map(|(v, other)| {
            other
                .sprints
                .iter()
                .enumerate()
                .filter_map(move |(k, s)| step_code(&s.sprint.name).map(|c| (v, k, c)))
        })
        .collect();
    let named = |cell: &str| {
        let cell = cell.trim().to_lowercase();
        codes
            .iter()
            .find(|(_, _, c)| *c == cell)
            .map(|&(v, k, _)| (v, k))
    };
    (0..header.len()).find_map(|col| {
        let hits: Vec<(usize, usize, &RawSprint)> = unit
            .sprints
            .iter()
            .filter_map(|s| {
                let row = rows.iter().find(|r| r.span == s.span)?;
                let (v, k) = named(&row.cells.get(col)?.text)?;
                Some((v, k, s))
            })
            .collect();
        let target = hits.first()?.0;
        let one_unit = hits.iter().all(|&(v, _, _)| v == target);
        (one_unit && hits.len() == unit.sprints.len()).then(|| {
            let rows = hits
                .iter()
                .map(|&(_, k, s)| {
                    // The row's name without its code, as the tally
                    // reads the row (`Card Flip Animation`).
                    let name = &s.sprint.name;
                    let name = name.split_once(": ").map_or(name.as_str(), |(_, n)| n);
                    (name.to_string(), k)
                })
                .collect();
            (target, rows)
        })
    })
}
