//! Tables that give each row's state by the column its mark sits in (`|
//! Task | Not started | Work in progress | Done |` over `| Setup | | | X
//! |`): a kanban board written as a table. A row is done when its mark is
//! under a done column, open when under another state's column.

use crate::plan::markdown::{Cell, Row};

/// Column names that say a row in them is done.
const DONE: &[&str] = &[
    "done",
    "completed",
    "complete",
    "finished",
    "fatto",
    "completato",
    "hecho",
    "terminado",
    "concluído",
    "concluido",
    "erledigt",
    "fertig",
    "terminé",
    "fait",
    "完成",
    "已完成",
    "完了",
    "완료",
    "готово",
    "выполнено",
];

/// Column names that say a row in them is not done yet.
const OPEN: &[&str] = &[
    "not started",
    "to do",
    "todo",
    "backlog",
    "in progress",
    "work in progress",
    "wip",
    "doing",
    "blocked",
    "pending",
    "da fare",
    "in corso",
    "pendiente",
    "por hacer",
    "en progreso",
    "em andamento",
    "a fazer",
    "offen",
    "in arbeit",
    "à faire",
    "en cours",
    "未开始",
    "进行中",
    "待办",
    "未着手",
    "進行中",
    "대기",
    "진행중",
    "진행 중",
    "не начато",
    "в работе",
];

/// The state columns of a table: (done columns, open columns), when it has
/// at least one of each.
pub(super) fn state_columns(header: &[Cell]) -> Option<(Vec<usize>, Vec<usize>)> {
    // Most tables are no board: a cell is lower-cased only where it could
    // be a state's name by its length.
    let named = |names: &[&str]| -> Vec<usize> {
        header
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                let t = c.text.trim().trim_matches(['*', '`', '_']).trim();
                (2..=24).contains(&t.len())
                    && names.iter().any(|n| n.len() == t.len())
                    && names.contains(&t.to_lowercase().as_str())
            })
            .map(|(k, _)| k)
            .collect()
    };
    let (done, open) = (named(DONE), named(OPEN));
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
