//! Status tables inside a sprint's section, read for its done mark: a
//! table whose every row says done (`| P1-001 | … | ✅ DONE |`), a
//! subsection holding nothing but such tables, and the rows still to do
//! that keep a sprint marked done open.

use super::status_words::{status_column, status_says_done, status_says_open_after_marks};
use super::*;

/// A status table whose every row says done (`| P1-001 | … | ✅ DONE |`);
/// the column in the plan's language (`状態`, `Estado`).
pub(super) fn status_table_done(header: &[Cell], rows: &[Row]) -> bool {
    let Some(col) = status_column(header) else {
        return false;
    };
    // A closing `| **Total** | **31** | **31/31 DONE** |` sums the rows;
    // one counting fewer done than all (`2/3 DONE`) says work is left.
    let rows = match rows.split_last() {
        Some((last, rest))
            if last
                .cells
                .first()
                .is_some_and(|c| super::work_table::totals_word(&c.text)) =>
        {
            if last.cells.iter().any(|c| fraction_short(&c.text)) {
                return false;
            }
            rest
        }
        _ => rows,
    };
    !rows.is_empty()
        && rows.iter().all(|r| {
            r.cells.get(col).is_some_and(|c| {
                status_says_done(&c.text) || matches!(norm(&c.text).as_str(), "done" | "yes")
            })
        })
}

/// Whether a notes column (`Notes`, `Remarks`, `Comments`) says work is
/// left on a row (`resize on mobile still TODO`).
fn notes_say_left(header: &[Cell], rows: &[Row]) -> bool {
    let notes: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            let h = h.text.to_lowercase();
            ["note", "remark", "comment"].iter().any(|w| h.contains(w))
        })
        .map(|(k, _)| k)
        .collect();
    rows.iter().any(|r| {
        notes
            .iter()
            .any(|&k| r.cells.get(k).is_some_and(|c| work_left(&c.text)))
    })
}

/// A cell saying work is left, anywhere in it (`still TODO`, `follow-up
/// pending`).
fn work_left(cell: &str) -> bool {
    const LEFT: &[&str] = &[
        "todo",
        "to do",
        "pending",
        "remaining",
        "follow-up",
        "not yet",
        "wip",
        "tbd",
    ];
    let lower = cell.to_lowercase();
    status_says_open(cell) || LEFT.iter().any(|w| lower.contains(w))
}

/// `2/3`, `2 of 3`, `67%`: a count of done against all that falls short.
fn fraction_short(cell: &str) -> bool {
    let number = |w: &str| {
        w.trim_matches(|c: char| !c.is_ascii_digit())
            .parse::<u32>()
            .ok()
    };
    let short =
        |done: &str, all: &str| matches!((number(done), number(all)), (Some(d), Some(a)) if d < a);
    let words: Vec<&str> = cell.split_whitespace().collect();
    words.iter().enumerate().any(|(k, w)| {
        let of = words
            .get(k + 1)
            .is_some_and(|o| o.eq_ignore_ascii_case("of"))
            && words.get(k + 2).is_some_and(|all| short(w, all));
        let percent = w
            .trim_start_matches(['*', '('])
            .strip_suffix(['%'])
            .or_else(|| w.trim_end_matches(['*', ')']).strip_suffix('%'));
        w.split_once('/').is_some_and(|(d, a)| short(d, a))
            || of
            || percent.and_then(number).is_some_and(|p| p < 100)
    })
}

/// Whether the subsection of heading `j` holds status tables, each with
/// every row done, and nothing else: a line of prose may name work left
/// (`Still to do: switch the CDN origin`).
pub(super) fn leaf_tables_done(doc: &Doc, j: usize) -> bool {
    let own = doc.own_blocks(j);
    !own.is_empty()
        && own.into_iter().all(|k| match &doc.blocks[k] {
            // A note beside a done status (`| Done | follow-up pending |`)
            // says work is left.
            Block::Table { header, rows, .. } => {
                status_table_done(header, rows) && !notes_say_left(header, rows)
            }
            _ => false,
        })
}

/// Rows of status tables in the section of heading `i` whose status says
/// the work is still to do (`| 6.6 | examples/webshell | 📋 待实现 |` under
/// `### Phase 6 ✅`): open work of that sprint, as an open box is.
/// Rows put off to later work (`🔜 Planned for Milestone 4`, a table under
/// `### Deferred to Phase 4`) are that work's, not this sprint's.
pub(super) fn open_status_rows(doc: &Doc, i: usize) -> usize {
    // A row's status naming other work it is put off to (`Planned for
    // Milestone 4`); one waiting for other work (`等 Phase 5 完成`) is still
    // this sprint's.
    const ELSEWHERE: &[&str] = &[
        "for phase",
        "to phase",
        "in phase",
        "for milestone",
        "to milestone",
        "in milestone",
        "for sprint",
        "to sprint",
        "next phase",
        "next sprint",
        "next milestone",
    ];
    let later = |text: &str| super::status_words::put_off(&text.to_lowercase());
    let elsewhere = |text: &str| {
        let lower = text.to_lowercase();
        super::status_words::put_off(&lower) || ELSEWHERE.iter().any(|w| lower.contains(w))
    };
    let mut under = i;
    let mut put_off = false;
    doc.section(i)
        .filter_map(|j| match &doc.blocks[j] {
            Block::Heading { text, .. } => {
                under = j;
                put_off = later(text);
                None
            }
            Block::Table { header, rows, .. } if under == i || !put_off => {
                let col = status_column(header)?;
                Some(
                    rows.iter()
                        .filter(|r| {
                            r.cells.get(col).is_some_and(|c| {
                                status_says_open_after_marks(&c.text) && !elsewhere(&c.text)
                            })
                        })
                        .count(),
                )
            }
            _ => None,
        })
        .sum()
}
