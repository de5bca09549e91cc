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
        // Only units read from a table's rows can be a breakdown.
        let from_rows = units[u].sprints.len() >= 3
            && units[u].sprints[0].sprint.origin.rule == "sprint table row";
        match from_rows.then(|| breakdown_of(doc, units, u)).flatten() {
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
    // Each of the unit's steps as a row of the table.
    let at: HashMap<usize, &Row> = rows.iter().map(|r| (r.span.start, r)).collect();
    let row_of = |s: &RawSprint| at.get(&s.span.start).filter(|r| r.span == s.span).copied();
    if unit.sprints.len() < 3 || !unit.sprints.iter().all(|s| row_of(s).is_some()) {
        return None;
    }
    // Each step of the other units by its code (the first so coded).
    let mut codes: HashMap<String, (usize, usize)> = HashMap::new();
    for (v, other) in units.iter().enumerate().filter(|&(v, _)| v != u) {
        for (k, s) in other.sprints.iter().enumerate() {
            if let Some(c) = step_code(&s.sprint.name) {
                codes.entry(c).or_insert((v, k));
            }
        }
    }
    let named = |cell: &str| codes.get(&cell.trim().to_lowercase()).copied();
    (0..header.len()).find_map(|col| {
        let hits: Vec<(usize, usize, &RawSprint)> = unit
            .sprints
            .iter()
            .filter_map(|s| {
                let (v, k) = named(&row_of(s)?.cells.get(col)?.text)?;
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
