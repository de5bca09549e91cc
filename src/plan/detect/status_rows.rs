//! Status tables that index the sprints (`| Sprint | Goal | Status |`,
//! `| Version | Theme | Status |`): each row names a sprint by its number,
//! or by a code glued to its number that the sprint's name opens with, and
//! says whether it is done. Rows naming no sprint with a section of its
//! own may be sprints of their own (`row_only_sprint`).

use std::collections::BTreeSet;

use super::done_elsewhere::in_sprint;
use super::*;

/// A row of a status table naming a sprint.
pub(super) struct StatusRow {
    pub(super) done: bool,
    /// A code of letters glued to the number (`V5.1`, `A2`): the row names
    /// the sprint whose name opens with it, not the sprint of that number.
    pub(super) code: Option<String>,
    pub(super) id: SprintId,
    /// The row's words, cell by cell.
    pub(super) label: String,
    /// Its first cell after the id that is not the status.
    pub(super) name: String,
    /// The id cell holds a sprint's number and nothing else (`Sprint 7`,
    /// `3`): only such a row makes a sprint of its own.
    pub(super) plain: bool,
    pub(super) span: Span,
    /// The table's block, and whether its key column is a bare `#` or a
    /// step word in another language: such a table may number anything
    /// (issues, risks, an order of options), not the sprints.
    pub(super) table: usize,
    pub(super) bare_key: bool,
    /// The key column's word as written, lower-cased (`phase`, `#`).
    pub(super) key: String,
}

/// A sprint from a status table's row alone (`| Sprint 7 | Final
/// Integration | TBD | 📋 Planned |`, no section of its own).
pub(super) fn row_only_sprint(doc: &Doc, row: StatusRow) -> RawSprint {
    let mut sprint = super::sprints::blank_sprint(row.id.clone(), &row.name, row.label.clone());
    sprint.done = row.done.then(|| {
        format!(
            "marked complete in the plan (`{}` in its status table)",
            row.label
        )
    });
    sprint.origin = Origin::new(
        doc.line(row.span.start),
        "listed only in the plan's status table (no section of its own)",
    );
    RawSprint {
        id: row.id,
        span: row.span,
        sprint,
    }
}

/// The rows of status tables whose first column numbers sprints (`Sprint`,
/// `Phase`, `Stage`, `Milestone`, `Step`, `Week`, `#`).
pub(super) fn status_rows(doc: &Doc) -> Vec<StatusRow> {
    let mut out = Vec::new();
    let mut heading = None;
    for (i, b) in doc.blocks.iter().enumerate() {
        if matches!(b, Block::Heading { .. }) {
            heading = Some(i);
        }
        let Block::Table { header, rows, .. } = b else {
            continue;
        };
        let words = ["sprint", "phase", "stage", "milestone", "step", "week", "#"];
        // A release roadmap's `| Version | Theme | Status |` (`| Версия |
        // Тема | Статус |`) indexes its versions alike.
        let versions = [
            "version",
            "release",
            "версия",
            "versión",
            "versão",
            "版本",
            "バージョン",
            "버전",
        ];
        // The step word and the status in the plan's language too (`|
        // Фаза | Название | Статус |`).
        let step_word = |h: &str| -> Option<String> {
            if words.contains(&h) {
                return Some(h.to_string());
            }
            super::locale::column_step_word(h)
                .filter(|w| {
                    matches!(
                        *w,
                        "Sprint" | "Phase" | "Stage" | "Milestone" | "Step" | "Week"
                    )
                })
                .map(str::to_lowercase)
        };
        // A table of risks (`| Fase | Riesgo | Estado |`) says what became
        // of each risk, not of the step it names.
        const RISK: &[&str] = &[
            "risk",
            "riesgo",
            "risco",
            "risque",
            "risiko",
            "rischio",
            "риск",
            "风险",
            "風險",
            "リスク",
            "위험",
        ];
        if header
            .iter()
            .any(|h| RISK.iter().any(|r| norm(&h.text).contains(r)))
        {
            continue;
        }
        let status_col = || super::column_where(header, super::completion::is_status_key);
        // A translated key holds the steps' numbers (`| 1 |`), or it is a
        // label (`| 一期 |`, `| MVP |`) beside a column that names them.
        let numbered_cells = |c: usize| {
            let with_digit = rows
                .iter()
                .filter(|r| {
                    r.cells
                        .get(c)
                        .is_some_and(|cell| cell.text.chars().any(|ch| ch.is_ascii_digit()))
                })
                .count();
            with_digit * 2 >= rows.len()
        };
        let by_step = super::column_where(header, |h| step_word(h).is_some())
            .filter(|&c| c == 0)
            .filter(|&c| words.contains(&norm(&header[c].text).as_str()) || numbered_cells(c));
        // `| 优先级 | 里程碑 | 状态 |` over `| P0 | Phase 1.1 — Runner
        // Recovery | 已完成 |`: a later column that names the steps by
        // their word and id, in the plan's language, beside a status.
        let named = by_step
            .is_none()
            .then(|| named_steps_column(header, rows))
            .flatten();
        let version_table = by_step.is_none() && named.is_none();
        let (Some(id_col), Some(status_col)) = (match (by_step, named) {
            (Some(c), _) => (Some(c), status_col()),
            (None, Some(c)) => (
                Some(c),
                super::column_where(header, super::completion::is_status_key),
            ),
            (None, None) => (
                column(header, &versions).filter(|&c| c == 0),
                super::column_where(header, super::completion::is_status_key),
            ),
        }) else {
            continue;
        };
        // `| Sprint | Name | Status |` inside `### M2: Web UI`: the parts of
        // that milestone, not the plan's sprints of those numbers.
        let written = norm(&header[id_col].text);
        // A key column named in another language (`| 阶段 | 内容 | 状态 |`)
        // is held to the names as a bare `#` is: it may number an order of
        // work (stage 1 is option C), not the sprints of those numbers.
        // (A later column naming steps by word and id agrees by itself.)
        let translated = by_step.is_some() && !words.contains(&written.as_str());
        let column_word = step_word(&written).unwrap_or_else(|| written.clone());
        let finer = doc
            .word
            .is_some_and(|w| column_word != w.as_str().to_lowercase());
        if finer && in_sprint(doc, heading) {
            continue;
        }
        for row in rows {
            let (Some(id), Some(status)) = (row.cells.get(id_col), row.cells.get(status_col))
            else {
                continue;
            };
            let cell = id.text.trim();
            let from_digit = cell.trim_start_matches(|c: char| !c.is_ascii_digit());
            // `**A2** ECS` in a plan of phases 0, A, B: a code of its own
            // (part 2 of phase A), not phase 2. Letters glued to the number
            // name the step only as the word's initial (`M2`, `S3`).
            let glued =
                cell[..cell.len() - from_digit.len()].trim_start_matches(['*', '`', '_', ' ']);
            let initial = doc
                .word
                .and_then(|w| w.as_str().chars().next())
                .is_some_and(|c| glued.eq_ignore_ascii_case(&c.to_string()));
            // Such a code names only the sprint whose name opens with it
            // (`| V5.1 | … | ✅ |` for `## V5.1 — …`).
            let code_only = glued.len() <= 2
                && glued
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_alphabetic())
                && glued.chars().all(|c| c.is_ascii_alphabetic())
                && !initial;
            let raw = from_digit
                .split(|c: char| c.is_whitespace() || c == ':')
                .next()
                .unwrap_or("");
            let id_text = id.text.trim().trim_matches(['*', '`']).trim();
            // A version table names releases by dotted numbers (`2.1`); a
            // document's own revisions (`| 3 | 2024-04-30 | Final |`) are
            // none of the plan's steps.
            if version_table && !raw.contains('.') {
                continue;
            }
            // `| **Day 1** | 6 hours | ✅ Complete |`: a word before the
            // number that is no step word counts days, not the steps.
            // `Wk 1` under `Week` shortens the column's word: a step.
            let localized = super::locale::localize(id_text).to_lowercase();
            let shortens = |w: &str| {
                let mut letters = column_word.chars();
                w.chars().all(|c| letters.any(|h| h == c))
            };
            let other_word = match localized.split_whitespace().collect::<Vec<_>>().as_slice() {
                [w, _] if w.chars().all(char::is_alphabetic) => {
                    Word::parse(w).is_none() && !shortens(w)
                }
                _ => false,
            };
            if other_word {
                continue;
            }
            if let Some(id) = super::sprints::model_id(raw).filter(|_| !raw.is_empty()) {
                let label = row
                    .cells
                    .iter()
                    .map(|c| c.text.trim())
                    .collect::<Vec<_>>()
                    .join(" | ");
                let name = row
                    .cells
                    .iter()
                    .enumerate()
                    .find(|(c, cell)| {
                        *c != id_col && *c != status_col && !cell.text.trim().is_empty()
                    })
                    .map_or(String::new(), |(_, c)| c.text.trim().to_string());
                let words: Vec<&str> = id_text.split_whitespace().collect();
                let number = |w: &str| {
                    w.starts_with(|c: char| c.is_ascii_digit())
                        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
                };
                let plain = match words.as_slice() {
                    [n] => number(n),
                    [w, n] => w.chars().all(char::is_alphabetic) && number(n),
                    _ => false,
                };
                out.push(StatusRow {
                    done: status_says_done(&status.text),
                    code: code_only.then(|| id_text.to_string()),
                    id,
                    label,
                    plain: plain && !name.is_empty(),
                    name,
                    span: row.span.clone(),
                    table: i,
                    bare_key: column_word == "#" || translated,
                    key: written.clone(),
                });
            }
        }
    }
    out
}

/// The one sprint whose name opens with `code` and a separator (`V5.1:
/// Measured memory` for `V5.1`).
pub(super) fn find_by_code<'u>(units: &'u mut [RawUnit], code: &str) -> Option<&'u mut RawSprint> {
    super::done_elsewhere::the_one(units, |s| {
        s.sprint
            .name
            .strip_prefix(code)
            .is_some_and(|rest| rest.starts_with([':', ' ', '—', '–', '-']))
    })
}

/// The status rows of tables the sprints were read from (a table of work
/// read row by row, `| Stage | Task | Status |` over two rows of stage 0):
/// such a table is the steps, not an index of them, and its rows add or
/// mark nothing more.
pub(super) fn not_the_sprints_own(
    doc: &Doc,
    rows: Vec<StatusRow>,
    units: &[RawUnit],
) -> Vec<StatusRow> {
    if rows.is_empty() {
        return rows;
    }
    let mut starts: Vec<usize> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| s.span.start)
        .collect();
    starts.sort_unstable();
    // Each table is asked once, by a search among the sorted starts.
    let mut own: HashMap<usize, bool> = HashMap::new();
    rows.into_iter()
        .filter(|r| {
            !*own.entry(r.table).or_insert_with(|| {
                let table = doc.blocks[r.table].span();
                let first = starts.partition_point(|&at| at < table.start);
                starts.get(first).is_some_and(|&at| at < table.end)
            })
        })
        .collect()
}

/// The status rows of tables keyed by a bare `#` that number something
/// other than the sprints (`| 1 | God class in main.py | High | Open |`
/// beside `### Sprint 1 — Architecture`): fewer than half of the rows
/// that meet a sprint of their number share a word (three letters or
/// more: `API`) of its name. Their marks and rows say nothing of the
/// sprints.
pub(super) fn numbering_other_things(rows: Vec<StatusRow>, units: &[RawUnit]) -> Vec<StatusRow> {
    if !rows.iter().any(|r| r.bare_key) {
        return rows;
    }
    // Each sprint's name by its id, gathered once (the first of an id).
    let mut names: HashMap<&SprintId, &str> = HashMap::new();
    for s in units.iter().flat_map(|u| &u.sprints) {
        names.entry(&s.id).or_insert(s.sprint.name.as_str());
    }
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .collect()
    };
    let mut tables: Vec<(usize, usize, usize)> = Vec::new();
    for row in rows.iter().filter(|r| r.bare_key && r.code.is_none()) {
        let Some(name) = names.get(&row.id) else {
            continue;
        };
        let theirs = words(name);
        let agrees =
            words(&row.name).iter().any(|w| theirs.contains(w)) || shares_a_pair(&row.name, name);
        match tables.iter_mut().find(|(t, ..)| *t == row.table) {
            Some((_, met, agreed)) => {
                *met += 1;
                *agreed += usize::from(agrees);
            }
            None => tables.push((row.table, 1, usize::from(agrees))),
        }
    }
    let other: Vec<usize> = tables
        .iter()
        .filter(|(_, met, agreed)| agreed * 2 < *met)
        .map(|(t, ..)| *t)
        .collect();
    rows.into_iter()
        .filter(|r| !(r.bare_key && other.contains(&r.table)))
        .collect()
}

/// The status rows of tables keyed by one step word whose rows meet
/// sprints named by another (`| Phase 1 | Project Foundation | ✅ |` of a
/// finished MVP, beside `### Wave 1: Plugin System Core`): no row meeting
/// a sprint agrees on the word, so the table numbers other steps, and its
/// marks and rows say nothing of the sprints.
pub(super) fn naming_another_step(rows: Vec<StatusRow>, units: &[RawUnit]) -> Vec<StatusRow> {
    // The word a sprint's name opens with before its number (`wave`).
    let lead = |name: &str| super::names::word_and_number(name).map(|(word, _)| word);
    let same = |a: &str, b: &str| {
        a.starts_with(b)
            || b.starts_with(a)
            || super::locale::column_step_word(a)
                .is_some_and(|w| super::locale::column_step_word(b) == Some(w))
    };
    let mut tables: Vec<(usize, bool, bool)> = Vec::new(); // (table, agrees, differs)
    for row in rows.iter().filter(|r| r.code.is_none() && r.key != "#") {
        let Some((word, name)) = units
            .iter()
            .flat_map(|u| &u.sprints)
            .find(|s| s.id == row.id)
            .and_then(|s| Some((lead(&s.sprint.name)?, s.sprint.name.to_lowercase())))
        else {
            continue;
        };
        // `| Phase 1 | Metrics |` beside `### Wave 1: Metrics`: the same
        // step by its name, whatever the word.
        let named = row
            .name
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3 && !["and", "the", "for", "with"].contains(w))
            .any(|w| name.split(|c: char| !c.is_alphanumeric()).any(|n| n == w));
        let agrees = same(&word, &row.key) || named;
        match tables.iter_mut().find(|(t, ..)| *t == row.table) {
            Some((_, a, d)) => {
                *a |= agrees;
                *d |= !agrees;
            }
            None => tables.push((row.table, agrees, !agrees)),
        }
    }
    let other: Vec<usize> = tables
        .iter()
        .filter(|(_, agrees, differs)| *differs && !agrees)
        .map(|(t, ..)| *t)
        .collect();
    rows.into_iter()
        .filter(|r| !other.contains(&r.table))
        .collect()
}

/// Whether two names written in scripts without spaces between words
/// share two letters in a row (`环境搭建与配置` and `环境搭建`, `빌드 시스템`
/// and `빌드`): words are not set apart there, so a pair stands for one.
fn shares_a_pair(a: &str, b: &str) -> bool {
    let pairs = |t: &str| -> Vec<(char, char)> {
        let letters: Vec<char> = t.chars().collect();
        letters
            .windows(2)
            .filter(|w| w.iter().all(|c| !c.is_ascii() && c.is_alphabetic()))
            .map(|w| (w[0], w[1]))
            .collect()
    };
    let theirs = pairs(b);
    !theirs.is_empty() && pairs(a).iter().any(|p| theirs.contains(p))
}

/// A column, after the first, whose heading is a step word in any of the
/// plans' languages (`里程碑`, `Fase`) and whose cells, on at least half
/// the rows, open with a step's word and id (`Phase 1.1 — Runner
/// Recovery`).
fn named_steps_column(header: &[Cell], rows: &[Row]) -> Option<usize> {
    let c = header
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, h)| super::locale::column_step_word(&h.text).is_some())
        .map(|(c, _)| c)?;
    // Each row names one step, by id and name (`Phase 1.1 — Runner
    // Recovery`): a task or bug table whose `Phase` column says where each
    // row belongs (`Phase 2`, on several rows) indexes no step.
    let mut ids = BTreeSet::new();
    let mut steps = 0;
    for r in rows {
        let Some(cell) = r.cells.get(c) else {
            continue;
        };
        let Some(super::headings::Heading::Sprint(h)) =
            super::headings::parse_heading(cell.text.trim())
        else {
            continue;
        };
        if h.name.is_empty() || !ids.insert(h.id.clone()) {
            return None;
        }
        steps += 1;
    }
    (steps > 0 && steps * 2 >= rows.len()).then_some(c)
}
