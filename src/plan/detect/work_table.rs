//! A plan whose work is written as the rows of a table: read before a
//! refusal, over a plan read as one step, and over a guess of numbered
//! headings where the table orders its rows or is keyed by a step word in a
//! numbered section. A table is read so when one of its columns is named by
//! a step word in any of the plans' languages (`Phase`, `Woche`, `Giai
//! đoạn`, `Iteração`, `Fase Proyek`, `Epic`), or is a tracker's id column
//! beside a status column (`ROADMAP:S001`, `TASK-3`); a board (`| To Do |
//! Done |`) is read card by card:
//!
//! - rows that repeat that column's value, or leave it blank under the row
//!   above (a Gantt-style table), are one step's task rows;
//! - where every row is a step of its own, the same work written on rows
//!   one after another (`Sprint 1` over two weeks) is one step;
//! - a `Status` column says done only where every row of the step says so.
//!
//! The first table of the plan that reads as two or more steps is the
//! plan's steps, with every later table of the same columns, or the same
//! step and status columns (one table per phase), that restates none of
//! them; the reading is a guess `start` asks about. A sprint's own tracked
//! table names its tasks (`item_column`).

use super::dependencies::DEPENDENCY_COLUMNS;
use super::sprints::blank_sprint;
use super::*;

/// The steps read from a table of work, and what each waits for when the
/// table has a dependency column naming other steps.
#[derive(Default)]
pub(super) struct TableWork {
    pub(super) sprints: Vec<RawSprint>,
    /// Per step, the names of the steps it waits for.
    pub(super) deps: Option<Vec<Vec<String>>>,
    /// The names of the table's columns, lower-cased, and of its step and
    /// status columns: a later table with the same columns, or the same
    /// step and status columns, holds more of the same work.
    shape: (Vec<String>, Option<[String; 2]>),
    /// Whether the steps are keyed by a column a step word names (`|
    /// Phase | Result |`), not by ids beside a status.
    pub(super) stepped: bool,
    /// Per step, its key and the text of its dependency cells, when the
    /// table has a dependency column: resolved once every table of the
    /// work is read, as a row may wait for a row of another phase's table.
    waits: Option<Vec<(String, Vec<String>)>>,
    /// Per step, its key cell (`0` under `| Faz |`).
    row_keys: Vec<String>,
    /// The English step word naming the key column (`Phase` for `Faz`).
    step_word: Option<&'static str>,
}

/// The steps of the first table in `scope` that reads as two or more, and
/// of every later table with the same columns: a plan that writes each
/// phase's steps as a table of its own (`| STEP | STATUS |` once per phase)
/// has its work in all of them, and reading the first alone dropped the
/// rest without a word.
/// A table's closing row that sums the others: its first cell a word of
/// totals, in bold or with only figures beside it (`| **Total** | 312 |`,
/// `| Total | 9h | - |`); `| sum | Add up a column | Todo |` is work.
fn totals_row(row: &Row) -> bool {
    let Some(first) = row.cells.first() else {
        return false;
    };
    if !totals_word(&first.text) {
        return false;
    }
    first.text.contains("**")
        || row.cells[1..].iter().all(|c| {
            cell_text(&c.text)
                .chars()
                .all(|ch| !ch.is_alphabetic() || matches!(ch, 'h' | 'd' | 'w'))
        })
}

/// Whether a cell is a word of totals (`Total`, `**Summe**`, `合计`).
pub(super) fn totals_word(cell: &str) -> bool {
    TOTALS.contains(&cell_text(cell).to_lowercase().as_str())
}

/// Words of a table's closing row that sums the others, in the plans'
/// languages.
const TOTALS: &[&str] = &[
    "total",
    "totals",
    "sum",
    "gesamt",
    "summe",
    "totale",
    "totaal",
    "итого",
    "всего",
    "合计",
    "总计",
    "合計",
    "총계",
    "합계",
];

pub(super) fn table_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> TableWork {
    let tables: Vec<(&[Cell], &[Row])> = scope
        .filter_map(|i| match &doc.blocks[i] {
            Block::Table { header, rows, .. } => Some((header.as_slice(), rows.as_slice())),
            _ => None,
        })
        .collect();
    let Some((first, mut work)) = tables
        .iter()
        .enumerate()
        .map(|(k, (header, rows))| (k, read_table(doc, header, rows, 2)))
        .find(|(_, work)| work.sprints.len() >= 2)
    else {
        return TableWork::default();
    };
    for (header, rows) in &tables[first + 1..] {
        let more = read_table(doc, header, rows, 1);
        // A table restating steps already read (`| IMP-001 | Expected
        // impact |`) is about them, not more work.
        let known = |s: &RawSprint| work.sprints.iter().any(|w| w.sprint.name == s.sprint.name);
        let (columns, tracked) = &more.shape;
        let alike = *columns == work.shape.0 || tracked.is_some() && *tracked == work.shape.1;
        if more.sprints.is_empty() || !alike || more.sprints.iter().any(known) {
            continue;
        }
        work.waits = match (work.waits.take(), more.waits) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            _ => None,
        };
        work.sprints.extend(more.sprints);
        work.row_keys.extend(more.row_keys);
    }
    work.deps = work
        .waits
        .as_deref()
        .and_then(|waits| dependencies(waits, &work.sprints));
    // No dependency column: a graph of the steps, named as the rows are.
    if work.deps.is_none() && work.stepped {
        let word = work.step_word;
        work.deps = super::table_graph::waits_from_graph(doc, &work.row_keys, word).map(|waits| {
            let name = |j: &usize| work.sprints[*j].sprint.name.clone();
            waits.iter().map(|w| w.iter().map(name).collect()).collect()
        });
    }
    for (k, s) in work.sprints.iter_mut().enumerate() {
        s.id = SprintId::whole(k as u32 + 1);
        s.sprint.id = s.id.clone();
    }
    work
}

impl TableWork {
    /// What each step waits for and the key each is known by, when the
    /// table has a dependency column naming other steps.
    pub(super) fn deps_and_keys(&self) -> Option<(Vec<Vec<String>>, Vec<String>)> {
        Some((self.deps.clone()?, self.keys()))
    }

    /// Per step, the key its row is known by (`T1.2`), or its name.
    pub(super) fn keys(&self) -> Vec<String> {
        match &self.waits {
            Some(waits) if waits.len() == self.sprints.len() => {
                waits.iter().map(|(key, _)| key.clone()).collect()
            }
            _ => self.sprints.iter().map(|s| s.sprint.name.clone()).collect(),
        }
    }
}

/// How many tables in `scope` read as two or more steps.
pub(super) fn tables_of_work(doc: &Doc, scope: std::ops::Range<usize>) -> usize {
    scope
        .filter(|&i| match &doc.blocks[i] {
            Block::Table { header, rows, .. } => {
                read_table(doc, header, rows, 2).sprints.len() >= 2
            }
            _ => false,
        })
        .count()
}

/// The one unit of a table of work whose steps name what they wait for,
/// as one unit per step with those dependencies (`| Track | Depends On |`).
/// Each unit is known by its row's key too (`L4`: a graph's node `L4
/// Evidence Review` names it).
pub(super) fn units_by_dependencies(
    doc: &Doc,
    unit: RawUnit,
    deps: Vec<Vec<String>>,
    keys: &[String],
) -> Vec<RawUnit> {
    // `Implementar **nesta ordem**:` over the table: its rows run in the
    // order written, each after the row above as well as what it names.
    let in_order = unit
        .sprints
        .first()
        .is_some_and(|s| introduced_in_order(doc, s.span.start));
    let mut above: Option<String> = None;
    unit.sprints
        .into_iter()
        .zip(deps)
        .zip(keys)
        .map(|((sprint, mut waits), key)| {
            if let Some(prev) = above.take().filter(|p| in_order && !waits.contains(p)) {
                waits.push(prev);
            }
            above = Some(sprint.sprint.name.clone());
            let name = sprint.sprint.name.clone();
            let mut u = RawUnit::new(name, sprint.span.clone(), unit.scope.clone());
            if *key != u.name {
                u.aliases.push(key.clone());
            }
            u.rule = "a row of a table of work with a dependency column".into();
            u.origin = Origin::new(sprint.sprint.origin.line, u.rule.clone());
            u.deps = waits
                .into_iter()
                .map(|d| (d, sprint.span.clone()))
                .collect();
            u.sprints = vec![sprint];
            u
        })
        .collect()
}

/// Whether the text just above the table holding `at` says its rows are
/// to be done in the order written (`Implement in this order:`, `nesta
/// ordem`, `in dieser Reihenfolge`, `按顺序`).
fn introduced_in_order(doc: &Doc, at: usize) -> bool {
    let Some(table) = doc
        .blocks
        .iter()
        .position(|b| matches!(b, Block::Table { .. }) && b.span().contains(&at))
    else {
        return false;
    };
    table.checked_sub(1).is_some_and(|p| match &doc.blocks[p] {
        Block::Paragraph { text, .. } => {
            let lower = text.to_lowercase();
            super::order_prose::IN_ORDER
                .iter()
                .any(|w| lower.contains(w))
        }
        _ => false,
    })
}

/// One step read from a table: its rows, and the key they share.
struct Group<'r> {
    key: String,
    rows: Vec<&'r Row>,
    /// The key cell itself marks the step done (`| M0（完了） |`, `| Phase
    /// 1 ✅ |`): the mark is on the thing, as a heading's is.
    marked: bool,
}

/// The steps of one table, when it reads as `least` or more.
fn read_table(doc: &Doc, header: &[Cell], rows: &[Row], least: usize) -> TableWork {
    if let Some(cards) = board_cards(doc, header, rows) {
        // A board's columns are its states: every card is in this one.
        return TableWork {
            sprints: cards,
            shape: (Vec::new(), None),
            ..TableWork::default()
        };
    }
    let text = |r: &Row, c: usize| r.cells.get(c).map_or(String::new(), |x| cell_text(&x.text));
    // Rows of dashes inside the table (`|----|----|`) divide it, nothing
    // more; a line of one cell under a wider table is a paragraph Markdown
    // took into the table, not a row of work.
    let rows: Vec<&Row> = rows
        .iter()
        .filter(|r| r.source_cells >= 2 || header.len() < 2)
        // A row with no letter or digit in any cell (`.||`) holds no work,
        // nor does a closing `| **Total** | 312 |` row.
        .filter(|r| {
            r.cells
                .iter()
                .any(|c| cell_text(&c.text).chars().any(char::is_alphanumeric))
                && !rows
                    .last()
                    .is_some_and(|last| std::ptr::eq(last, *r) && totals_row(r))
        })
        .collect();
    let status_col = column_where(header, super::completion::is_status_key);
    let waits_col = column(header, DEPENDENCY_COLUMNS);
    // A tracker's ids: beside a status, or beside what each row waits for
    // (`| T1.2 | … | T1.1 |`).
    let Some(key_col) = header
        .iter()
        .position(|h| super::locale::column_step_word(&h.text).is_some())
        .or_else(|| status_col.and_then(|sc| id_column(header, &rows, sc, least)))
        .or_else(|| waits_col.and_then(|wc| id_column(header, &rows, wc, least)))
    else {
        return TableWork::default();
    };
    let name_col = name_column(header, &rows, key_col, status_col);
    let numbered = |k: &str| {
        k.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    };
    let mut groups: Vec<Group> = Vec::new();
    for r in &rows {
        // A key of punctuation alone (`/`, `.`) names nothing: the row
        // goes with the step above, as a blank key does.
        // Where the table has a status column, that column says what is
        // done; a check mark (`✔`, `✓`) may mean something else (`✔ =
        // committed for 3.0`): only `✅` or a done word is a mark.
        let raw = text(r, key_col);
        let (key, marked) = match super::completion::strip_done_marks(&raw) {
            (key, true) if status_col.is_none() && !raw.contains(['✔', '✓', '☑']) => {
                (key, true)
            }
            // Either way the mark is no part of the step's name, which a
            // heading would read as a mark again.
            (key, _) => (key, false),
        };
        let key = Some(key)
            .filter(|k| k.chars().any(char::is_alphanumeric))
            .unwrap_or_default();
        match groups.last_mut() {
            Some(g) if key.is_empty() || key == g.key => {
                g.rows.push(r);
                g.marked |= marked;
            }
            _ if key.is_empty() => {}
            _ => groups.push(Group {
                key,
                rows: vec![r],
                marked,
            }),
        }
    }
    // Every row a step of its own, keyed by number: the same work on rows
    // one after another is one step written over several (`| 3 | Sprint 1
    // |`, `| 4 | Sprint 1 |`). Keys that are names name each row's work.
    let one_per_row = groups.iter().all(|g| g.rows.len() == 1);
    let by_number = groups.iter().all(|g| numbered(&g.key));
    if let Some(nc) = name_col.filter(|_| one_per_row && by_number) {
        let mut merged: Vec<Group> = Vec::new();
        for g in groups {
            match merged.last_mut() {
                Some(m)
                    if !text(g.rows[0], nc).is_empty()
                        && text(g.rows[0], nc) == text(m.rows[0], nc) =>
                {
                    m.key = format!("{}-{}", m.key.split('-').next().unwrap_or_default(), g.key);
                    m.rows.extend(g.rows);
                }
                _ => merged.push(g),
            }
        }
        groups = merged;
    }
    if groups.len() < least.max(1) {
        return TableWork::default();
    }
    // Rows grouped under a number are that step's tasks, the step named by
    // the column (`Giai đoạn 0`).
    let grouped = !one_per_row && groups.iter().any(|g| g.rows.len() > 1);
    let mut out = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        let id = SprintId::whole(k as u32 + 1);
        // A key that is a code (`M2.1.0`, `T01`) names nothing: the row's
        // name column does, after it.
        let code = is_id(&g.key) && !numbered(&g.key);
        let name = if !numbered(&g.key) && !code {
            g.key.clone()
        } else if let Some(nc) = name_col.filter(|_| code && g.rows.len() == 1) {
            format!("{}: {}", g.key, text(g.rows[0], nc))
        } else if let Some(nc) = name_col
            .filter(|_| !grouped)
            .filter(|&nc| g.rows.iter().all(|r| text(r, nc) == text(g.rows[0], nc)))
        {
            text(g.rows[0], nc)
        } else {
            format!("{} {}", cell_text(&header[key_col].text), g.key)
        };
        let span = g.rows[0].span.start..g.rows[g.rows.len() - 1].span.end;
        let mut sprint = blank_sprint(id.clone(), &name, doc.source[span.clone()].to_string());
        sprint.tasks = g
            .rows
            .iter()
            .map(|r| {
                let task = name_col.map(|nc| text(r, nc)).unwrap_or_default();
                if task.is_empty() {
                    name.clone()
                } else {
                    task
                }
            })
            .collect();
        let key_mark = g.marked.then(|| {
            format!(
                "marked complete in the plan (its {} cell)",
                cell_text(&header[key_col].text)
            )
        });
        // With no status column, the row's last cell saying done with its
        // date (`**DONE 2026-05-07**` under `Risk`), on every row of the
        // step.
        let dated_mark = status_col
            .is_none()
            .then(|| {
                g.rows
                    .iter()
                    .map(|r| row_dated_done(header, r))
                    .collect::<Option<Vec<_>>>()
            })
            .flatten()
            .and_then(|marks| marks.into_iter().next())
            .map(|m| format!("marked complete in the plan (`{m}` on its table row)"));
        sprint.done = key_mark.or(dated_mark).or_else(|| {
            status_col.and_then(|sc| {
                let all = g
                    .rows
                    .iter()
                    .all(|r| super::completion::status_says_done(&text(r, sc)));
                all.then(|| {
                    format!(
                        "marked complete in the plan (its table rows' {}: {})",
                        cell_text(&header[sc].text),
                        text(g.rows[0], sc)
                    )
                })
            })
        });
        sprint.origin = Origin::new(
            doc.line(span.start),
            "the rows of a table of work (a guess)",
        );
        out.push(RawSprint { id, span, sprint });
    }
    // Rows keyed by their work (`| 010 | ThreePaneLayout … | 001-003 |`,
    // the key column `Task`) wait for one another by the ids beside it.
    let id_col = waits_col
        .filter(|_| one_per_row)
        .and_then(|wc| id_column(header, &rows, wc, least))
        .filter(|&c| c != key_col);
    let waits = waits_col.map(|wc| {
        groups
            .iter()
            .map(|g| {
                let key = id_col.map_or_else(|| g.key.clone(), |c| text(g.rows[0], c));
                (key, g.rows.iter().map(|r| text(r, wc)).collect())
            })
            .collect()
    });
    let column = |c: usize| cell_text(&header[c].text).to_lowercase();
    let shape = (
        (0..header.len()).map(column).collect(),
        status_col.map(|sc| [column(key_col), column(sc)]),
    );
    let stepped = super::locale::column_step_word(&header[key_col].text).is_some();
    TableWork {
        sprints: out,
        deps: None,
        shape,
        stepped,
        waits,
        row_keys: groups.iter().map(|g| g.key.clone()).collect(),
        step_word: super::locale::column_step_word(&header[key_col].text),
    }
}

/// A tracker's id column (`| Plan | Title | Status |` keyed `001`, `002`,
/// or `T-1`, `TASK-3`), in a table with a status column: the first column
/// whose every value is an id of its own (of two rows or more, unless the
/// table only adds to the work of one read before).
fn id_column(header: &[Cell], rows: &[&Row], status: usize, least: usize) -> Option<usize> {
    let id = is_id;
    (0..header.len()).filter(|&c| c != status).find(|&c| {
        let values: Vec<String> = rows
            .iter()
            .map(|r| r.cells.get(c).map_or(String::new(), |x| cell_text(&x.text)))
            .collect();
        let distinct = values
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        values.len() >= least && distinct == values.len() && values.iter().all(|v| id(v))
    })
}

/// An id: letters (a few, or none) then a number (`001`, `T-1`, `M2.1.0`,
/// `TASK-3`), or one word of capitals, digits and joiners
/// (`ROADMAP:S001`, `ROADMAP:D-005…D-007`, `ROADMAP:MONITORING`).
fn is_id(v: &str) -> bool {
    let letters = v.chars().take_while(char::is_ascii_alphabetic).count();
    let rest = v[letters..].trim_start_matches(['-', '_']);
    // `2a.0`, `Task-05b`: a part's letter after its number counts.
    let part = |seg: &str| {
        let digits = seg.chars().take_while(char::is_ascii_digit).count();
        digits > 0
            && seg[digits..].chars().count() <= 1
            && seg[digits..].chars().all(|c| c.is_ascii_lowercase())
    };
    let numbered = letters <= 6
        && !rest.is_empty()
        && rest.starts_with(|c: char| c.is_ascii_digit())
        && rest.split('.').all(part);
    let capitals = v.chars().count() <= 40
        && v.chars().any(|c| c.is_ascii_uppercase())
        && v.chars().all(|c| {
            c.is_ascii_uppercase()
                || c.is_ascii_digit()
                || matches!(c, '-' | '_' | ':' | '.' | '…' | '/')
        });
    numbered || capitals
}

/// Where a step read from a board comes from (the guess names it so).
pub(super) const BOARD_CARD: &str = "a card of a board of work (a guess)";

/// A board (`| To Do | In Progress | Done |`): every column named by a
/// state, every card in it a step, column by column; a card in a column of
/// finished work is done.
fn board_cards(doc: &Doc, header: &[Cell], rows: &[Row]) -> Option<Vec<RawSprint>> {
    let states = header.len() >= 2
        && header
            .iter()
            .all(|h| super::units::sections::is_status_group(&cell_text(&h.text)));
    if !states {
        return None;
    }
    let mut out = Vec::new();
    for (c, h) in header.iter().enumerate() {
        let column = cell_text(&h.text);
        let done = super::units::sections::is_done_group(&column);
        for r in rows {
            let Some(cell) = r.cells.get(c) else {
                continue;
            };
            // `└─ task-24.1`: a card's sub-card is a card too.
            let name = cell_text(cell_text(&cell.text).trim_start_matches(['└', '─', ' ']));
            if name.trim_matches(['-', ':', ' ']).is_empty() {
                continue;
            }
            let id = SprintId::whole(out.len() as u32 + 1);
            let mut sprint = blank_sprint(id.clone(), &clean_name(&name), name.clone());
            sprint.tasks = vec![name.clone()];
            sprint.done = done
                .then(|| format!("marked complete in the plan (on the board under `{column}`)"));
            sprint.origin = Origin::new(doc.line(r.span.start), BOARD_CARD);
            out.push(RawSprint {
                id,
                span: r.span.clone(),
                sprint,
            });
        }
    }
    (out.len() >= 2).then_some(out)
}

/// Per step, the steps its dependency cells name by key or by name; none
/// when no cell names a step. A cell that names something else (`Needs
/// Merge Engine`, `all`) keeps the step after every step before it: a
/// reference not understood never lets work run at once.
fn dependencies(
    waits: &[(String, Vec<String>)],
    sprints: &[RawSprint],
) -> Option<Vec<Vec<String>>> {
    let names: Vec<&str> = sprints.iter().map(|s| s.sprint.name.as_str()).collect();
    let distinct = names
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        == names.len();
    // Keys counted per table (`1`, `2` under each phase) name no row
    // across tables.
    let keys = waits
        .iter()
        .map(|(key, _)| key.to_lowercase())
        .collect::<std::collections::BTreeSet<_>>();
    if !distinct || waits.len() != names.len() || keys.len() != waits.len() {
        return None;
    }
    let find = |word: &str| {
        let w = word.trim().trim_matches(['`', '*']).trim();
        waits
            .iter()
            .position(|(key, _)| key.eq_ignore_ascii_case(w))
            .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(w)))
    };
    let mut any = false;
    let deps: Vec<Vec<String>> = waits
        .iter()
        .enumerate()
        .map(|(k, (_, cells))| {
            let mut waits: Vec<usize> = Vec::new();
            for cell in cells {
                for word in cell.split([',', ';', '&', '/', '、', '，']) {
                    if super::dependency_lines::names_nothing(word) {
                        continue;
                    }
                    // `TASK-001 ~ TASK-011`: every row from one to the other.
                    let range = ["~", "〜", "–", "—", " to ", ".."]
                        .iter()
                        .find_map(|sep| {
                            let (a, b) = word.split_once(sep)?;
                            Some((find(a)?, find(b)?))
                        })
                        // `001-003`: a hyphen between two keys, where the
                        // whole is no key (`TASK-001`) of its own.
                        .or_else(|| {
                            let (a, b) = word.split_once('-')?;
                            find(word).is_none().then_some(())?;
                            Some((find(a)?, find(b)?))
                        });
                    // `010 shared output dispatcher`: a key opening a note;
                    // `Needs 1.1`: one after a word.
                    let words = || word.split_whitespace();
                    let named: Vec<usize> = match range {
                        Some((a, b)) if a <= b => (a..=b).collect(),
                        _ => find(word)
                            .into_iter()
                            .chain(words().next().and_then(find))
                            .chain(words().skip(1).find_map(find))
                            .take(1)
                            .collect(),
                    };
                    if named.is_empty() {
                        waits.extend(0..k);
                    }
                    any |= named.iter().any(|&j| j != k);
                    waits.extend(named.into_iter().filter(|&j| j != k));
                }
            }
            waits.sort_unstable();
            waits.dedup();
            waits.into_iter().map(|j| names[j].to_string()).collect()
        })
        .collect();
    any.then_some(deps)
}

/// The column naming each row's work: of the columns besides the key, the
/// status and the dependencies, the one with the most different values that are not dates
/// or durations (the leftmost of equals).
fn name_column(header: &[Cell], rows: &[&Row], key: usize, status: Option<usize>) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    let waits = column(header, DEPENDENCY_COLUMNS);
    for c in 0..header.len() {
        if c == key || Some(c) == status || Some(c) == waits {
            continue;
        }
        let values: Vec<String> = rows
            .iter()
            .filter_map(|r| r.cells.get(c).map(|x| cell_text(&x.text)))
            .filter(|v| !v.is_empty())
            .collect();
        // Dates, weeks and durations: most of their characters are digits.
        if values.is_empty() || values.iter().all(|v| is_measure(v)) {
            continue;
        }
        let distinct = values
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        if best.is_none_or(|(_, d)| distinct > d) {
            best = Some((c, distinct));
        }
    }
    best.map(|(c, _)| c)
}

/// The column of a tracked table that names its items (`| Order | Item |
/// Issue | Depends on |`, `| ویژگی | وضعیت | درصد |`): in a table with a
/// status or a dependency column (and none of a unit table's), the first
/// other column whose values are not all ids, dates or lengths of time.
pub(super) fn item_column(header: &[Cell], rows: &[Row]) -> Option<usize> {
    let status = column_where(header, super::completion::is_status_key);
    let waits = column(header, DEPENDENCY_COLUMNS);
    // A table of units (`| Package | Layer | Depends on | Sprints |`) names
    // no sprint's tasks.
    let units = column(header, &["sprints", "directory", "dir", "layer"]).is_some();
    if status.is_none() && waits.is_none() || units {
        return None;
    }
    (0..header.len()).find(|&c| {
        let values: Vec<String> = rows
            .iter()
            .filter_map(|r| r.cells.get(c).map(|x| cell_text(&x.text)))
            .filter(|v| !v.is_empty())
            .collect();
        Some(c) != status
            && Some(c) != waits
            && !values.is_empty()
            && !values.iter().all(|v| is_measure(v) || is_id(v))
    })
}

/// `16.09.2019`, `2 minggu`, `Minggu 4-6`, `12h`: a date or a length of
/// time; any short label with a number, which names no work by itself.
fn is_measure(v: &str) -> bool {
    let digits = v.chars().filter(char::is_ascii_digit).count();
    let letters = v.chars().filter(|c| c.is_alphabetic()).count();
    digits > 0 && letters <= 8
}

/// A row of a table with no status column that says it is done in its
/// last cell (`| E1 | Identity refactor | 3-5 | **DONE 2026-05-08** |`):
/// that cell's text. Not under a column of dates to come (`Due`,
/// `Target`), not where another cell says the work is open (`| ✅
/// 2026-05-04 | in progress |`), not `Done …, but reverted`.
pub(super) fn row_dated_done(header: &[Cell], row: &Row) -> Option<String> {
    let last = row.cells.iter().rposition(|c| !c.text.trim().is_empty())?;
    let under = header
        .get(last)
        .map(|h| h.text.to_lowercase())
        .unwrap_or_default();
    let to_come = [
        "due", "target", "deadline", "eta", "date", "plan", "fecha", "prazo", "期限",
    ];
    if to_come.iter().any(|w| under.contains(w)) {
        return None;
    }
    let open_elsewhere = row.cells[..last]
        .iter()
        .any(|c| super::status_words::status_says_open_after_marks(&c.text));
    let mark = dated_done(&row.cells[last].text)?;
    let lower = mark.to_lowercase();
    let undone = ["revert", " but ", "redo", "rolled back"]
        .iter()
        .any(|w| lower.contains(w));
    (!open_elsewhere && !undone).then_some(mark)
}

/// `**DONE 2026-05-07**`, `shipped 2026-05-09 / gate pending`,
/// `completado 2026-03-01`: a cell opening with a done word of the plans'
/// languages (or ✅) and a date; the cell's text, unbolded.
fn dated_done(cell: &str) -> Option<String> {
    let t = cell.trim().trim_start_matches(['*', '_']).trim_start();
    let lower = t.to_lowercase();
    let rest = match lower.strip_prefix('✅') {
        Some(rest) => rest,
        None if super::status_words::opens_with_done_word(&lower) => {
            lower.trim_start_matches(char::is_alphanumeric)
        }
        None => return None,
    };
    let b = rest
        .trim_start_matches(['*', '_', ' ', ':', '('])
        .as_bytes();
    let date = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    date.then(|| t.replace(['*', '_'], "").trim().to_string())
}

/// A cell's text without emphasis or code marks around it.
fn cell_text(t: &str) -> String {
    let t = t.trim().trim_matches(['*', '_']).trim();
    // A code mark goes only in pairs: `` `context.py` (new) `` keeps its own.
    let t = match t.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        Some(inner) if !inner.contains('`') => inner,
        _ => t,
    };
    t.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_are_not_names() {
        assert!(is_measure("16.09.2019"));
        assert!(is_measure("Minggu 4-6"));
        assert!(is_measure("2 minggu"));
        assert!(!is_measure("Analisis kebutuhan"));
        assert!(!is_measure("Buat desain arsitektur"));
    }
}
