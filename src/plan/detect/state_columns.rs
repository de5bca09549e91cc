//! Tables that give each row's state by the column its mark sits in (`|
//! Task | Not started | Work in progress | Done |` over `| Setup | | | X
//! |`): a kanban board written as a table. A row is done when its mark is
//! under a done column, open when under another state's column; the
//! states are named as a board's sections are (`units::sections`).

use super::units::sections::{is_done_group, is_status_group};
use crate::plan::markdown::{Cell, Row};

/// The state columns of a table: (done columns, open columns), when it has
/// at least one of each. A column is named by a state as a board's
/// sections are (`## In Progress`, `## Done`), in the same words.
pub(super) fn state_columns(header: &[Cell]) -> Option<(Vec<usize>, Vec<usize>)> {
    let (mut done, mut open) = (Vec::new(), Vec::new());
    for (k, c) in header.iter().enumerate() {
        // Most tables are no board: a long cell names no state.
        let t = c.text.trim();
        if t.len() > 32 || !is_status_group(t) {
            continue;
        }
        if is_done_group(t) {
            done.push(k);
        } else {
            open.push(k);
        }
    }
    (!done.is_empty() && !open.is_empty()).then_some((done, open))
}

/// Whether a row is done by its mark's column: `None` when no state
/// column, or more than one, holds a mark.
pub(super) fn row_done(columns: &(Vec<usize>, Vec<usize>), row: &Row) -> Option<bool> {
    let marked = |k: &usize| row.cells.get(*k).is_some_and(|c| is_mark(&c.text));
    let done = columns.0.iter().filter(|k| marked(k)).count();
    let open = columns.1.iter().filter(|k| marked(k)).count();
    match (done, open) {
        (1, 0) => Some(true),
        (0, 1) => Some(false),
        _ => None,
    }
}

/// A cell that puts its row in its column: anything written there (`X`,
/// `✅ 2024-03-02`, `Yes`, `[x]`) but a blank, a dash or a no.
fn is_mark(cell: &str) -> bool {
    let t = cell.trim().trim_matches(['*', '`']).trim();
    !t.is_empty()
        && !matches!(
            t.to_lowercase().as_str(),
            "-" | "—" | "–" | "no" | "n/a" | "0" | "❌" | "✗" | "✘" | "[ ]"
        )
}

/// The rows of a board holding a mark, each with its name (its first cell
/// of words) and whether it is done.
pub(super) fn board_tasks<'r>(
    header: &[Cell],
    rows: impl Iterator<Item = &'r Row>,
    states: &(Vec<usize>, Vec<usize>),
) -> Vec<(&'r Row, &'r str, bool)> {
    let state = |k: usize| states.0.contains(&k) || states.1.contains(&k);
    rows.filter_map(|r| {
        let done = row_done(states, r)?;
        let text = r
            .cells
            .iter()
            .enumerate()
            .take(header.len())
            .find(|(k, c)| !state(*k) && c.text.chars().any(char::is_alphabetic))
            .map(|(_, c)| c.text.trim())?;
        Some((r, text, done))
    })
    .collect()
}
