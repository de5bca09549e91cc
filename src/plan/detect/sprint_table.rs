//! The columns of a sprint table (`| Sprint | Name | Exit criteria |`,
//! `| Task | Title |` over codes, `| Step | Description |` over numbers):
//! which column holds each row's id, its name and its status.

use super::*;

pub(super) fn is_sprint_table(header: &[Cell], rows: &[Row]) -> bool {
    let id = id_column(header, rows);
    id.is_some() && step_name_column(header, id).is_some() && column(header, UNIT_COLUMNS).is_none()
}

/// Columns that hold a step's code rather than its name (`| Task | Title |`
/// with `[SEC-01](…)` rows): an id column only when every cell is a code.
const CODE_COLUMNS: &[&str] = &[
    "task",
    "task id",
    "item",
    "ticket",
    "issue",
    "key",
    "milestone",
    "file",
];

/// Columns named by a step word: an id column when every cell is a number
/// (`| Step | Description | Dependencies |` over `| 3 | … |`).
const NUMBER_COLUMNS: &[&str] = &["step", "phase", "stage", "milestone"];

/// A sprint table's id column: `Sprint`, `ID`, `#`, a column of codes, or
/// a step word's column of numbers.
pub(super) fn id_column(header: &[Cell], rows: &[Row]) -> Option<usize> {
    let all = |c: usize, ok: fn(&str) -> bool| {
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r.cells.get(c).is_some_and(|cell| ok(&cell.text)))
    };
    column(header, &["sprint", "sprint id", "id", "#"])
        .or_else(|| column(header, CODE_COLUMNS).filter(|&c| all(c, |t| step_code(t).is_some())))
        .or_else(|| {
            // In the plan's language too (`| Фаза | Название |`).
            column_where(header, |h| {
                NUMBER_COLUMNS.contains(&h)
                    || matches!(
                        super::locale::column_step_word(h),
                        Some("Phase" | "Stage" | "Step" | "Milestone")
                    )
            })
            .filter(|&c| {
                all(c, |t| {
                    let t = t.trim();
                    !t.is_empty() && t.chars().all(|ch| ch.is_ascii_digit() || ch == '.')
                })
            })
        })
}

/// A step's code as written in a table cell: `SEC-01`, `AZM-03A`, `1.2`,
/// `#37`, a link's text (`[SEC-01](security/SEC-01.md)`).
pub(super) fn step_code(cell: &str) -> Option<&str> {
    let t = cell.trim().trim_matches('`');
    let t = match t.strip_prefix('[').and_then(|r| r.split_once("](")) {
        Some((text, _)) => text,
        None => t,
    };
    let t = t.trim().trim_matches('`').trim_matches('*');
    // A code has a number (`SEC-01`, `1.2`), is an acronym (`SHV`) or one
    // capital letter (`| **A** | Ending screen |`).
    let has_digit = t.chars().any(|c| c.is_ascii_digit())
        || (!t.is_empty() && t.chars().all(|c| c.is_ascii_uppercase() || c == '-'));
    let shaped = !t.is_empty()
        && t.len() <= 24
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '#'));
    (has_digit && shaped).then_some(t)
}

/// The column naming each row's step: a name column, a description, or the
/// step's own word (`| # | Status | Stage |`) beside an id column.
pub(super) fn step_name_column(header: &[Cell], id: Option<usize>) -> Option<usize> {
    column(header, SPRINT_NAME_COLUMNS)
        .or_else(|| column(header, &["description"]))
        .or_else(|| {
            column(header, &["stage", "step", "phase", "milestone", "task"])
                .filter(|&c| Some(c) != id)
        })
}

/// Column headings that name a sprint in a sprint table.
pub(super) const SPRINT_NAME_COLUMNS: &[&str] = &[
    "name",
    "title",
    "sprint name",
    "goal",
    "sprint goal",
    "deliverable",
    "theme",
    "focus",
    "objective",
    "summary",
    "feature",
    "topic",
    "backlog item",
    "work item",
    "job",
    // The same in the plans' other languages.
    "이름",
    "명칭",
    "제목",
    "名称",
    "名稱",
    "名前",
    "标题",
    "タイトル",
    "nombre",
    "título",
    "titulo",
    "nome",
    "nom",
    "titre",
    "titel",
    "bezeichnung",
    "название",
    "наименование",
];

/// A sprint table's id cell as an id: `3`, `Sprint 3`, `S3`, `` `3` ``.
pub(super) fn table_sprint_id(cell: &str) -> &str {
    let t = cell
        .trim()
        .trim_start_matches("Sprint")
        .trim()
        .trim_matches('`');
    match t.strip_prefix('S') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        _ => t,
    }
}

/// A sprint table row's Status cell says the sprint is done.
pub(super) fn table_row_done(status: &str) -> Option<String> {
    super::completion::status_says_done(status).then(|| {
        format!(
            "marked complete in the plan (sprint table Status: {})",
            status.trim()
        )
    })
}

/// The headings of `scope` that open with a code (`## IP-17 — Boolean
/// entitlements`), by that code: the section a coded row's step has of its
/// own. A code two headings open with names neither. Built once per table,
/// so a long coded table looks each row up instead of walking the plan.
pub(super) fn sections_by_code(
    doc: &Doc,
    scope: std::ops::Range<usize>,
) -> std::collections::HashMap<String, Option<usize>> {
    let mut out: std::collections::HashMap<String, Option<usize>> = Default::default();
    for i in scope {
        let Some((_, t, _)) = doc.heading(i) else {
            continue;
        };
        let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        let end = t.find([' ', ':', '—', '–', ')', '`']).unwrap_or(t.len());
        let code = t[..end].trim_end_matches('.');
        if code.is_empty() {
            continue;
        }
        out.entry(code.to_string())
            .and_modify(|h| *h = None)
            .or_insert(Some(i));
    }
    out
}

/// The word a heading is numbered by (`Category 1: Schema` → `category`,
/// `2. Migration` → `#`): headings of one series share it.
fn series_word(heading: &str) -> Option<String> {
    let t = heading.trim_start_matches(|c: char| !c.is_alphanumeric());
    let mut words = t.split_whitespace();
    let first = words.next()?;
    if first.starts_with(|c: char| c.is_ascii_digit()) {
        return Some("#".into());
    }
    let number = words.next()?;
    number
        .starts_with(|c: char| c.is_ascii_digit())
        .then(|| first.to_lowercase())
}

/// A table id as compared across tables: its letters and its number
/// without leading zeros (`C-01` and `c1` alike, `01` and `1` alike).
fn id_key(cell: &str) -> String {
    let t = step_code(cell).unwrap_or(cell.trim());
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    let letters: String = t
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    format!("{letters}{}", digits.trim_start_matches('0'))
}

/// The sprint tables read as one list: the first, and each later one with
/// its columns right under a heading of its level numbered in its series
/// (`## Category 2` after `## Category 1`), whose ids read as the first's
/// do and repeat none already read.
#[derive(Default)]
pub(super) struct TableSeries {
    first: Option<(Vec<String>, Option<u8>, Option<String>)>,
    coded: Option<bool>,
    seen: BTreeSet<String>,
}

impl TableSeries {
    pub(super) fn started(&self) -> bool {
        self.first.is_some()
    }

    /// Whether the table at block `i` may be read (always the first).
    pub(super) fn admits(&mut self, doc: &Doc, i: usize, header: &[Cell], rows: &[Row]) -> bool {
        let columns: Vec<String> = header.iter().map(|c| norm(&c.text)).collect();
        let above = (0..i).rev().find(|&j| doc.heading(j).is_some());
        let heading = above.and_then(|j| doc.heading(j));
        let series = heading.and_then(|(_, t, _)| series_word(t));
        let level = heading.map(|(l, _, _)| l);
        let Some((first_columns, first_level, first_series)) = &self.first else {
            self.first = Some((columns, level, series));
            return true;
        };
        let sibling = above.is_some_and(|j| j + 1 == i)
            && level == *first_level
            && series.is_some()
            && series == *first_series;
        let id_col = id_column(header, rows);
        let repeats = rows.iter().any(|r| {
            id_col
                .and_then(|c| r.cells.get(c))
                .is_some_and(|c| self.seen.contains(&id_key(&c.text)))
        });
        *first_columns == columns && sibling && !repeats
    }

    /// Whether a table whose rows are `coded` (or whose ids all parse,
    /// `ids_read`) is read: a later one only when its ids read as the
    /// first's do, so a plan is never refused for a table not read before.
    /// Its ids are kept for the next table.
    pub(super) fn keep(
        &mut self,
        joining: bool,
        ids_read: bool,
        coded: bool,
        id_col: usize,
        rows: &[Row],
    ) -> bool {
        if joining && (self.coded != Some(coded) || !ids_read) {
            return false;
        }
        self.coded = Some(coded);
        self.seen.extend(
            rows.iter()
                .filter_map(|r| r.cells.get(id_col))
                .map(|c| id_key(&c.text)),
        );
        true
    }
}
