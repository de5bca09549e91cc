//! A plan of coded steps (`## IP-17 — Boolean entitlements`) with an index
//! table that lists every step by its code and says what each waits for
//! (`| IP-18 | … | IP-17 | BLOCKED |`): each step runs as a unit of its own,
//! waiting for the steps its cell names. A code the plan does not hold
//! (`IP-16`, a finished earlier phase) orders nothing in it; every named
//! step must come earlier, or the plan stays one sequence. And a summary
//! table naming the steps by their numbers (`| 2 | Phase 2: Session store
//! | Phase 1 |`) orders them the same way, where it stands outside every
//! step's own section (a task table under `### Phase 1` is that phase's).

use super::dependencies::DEPENDENCY_COLUMNS;
use super::*;

/// `IP-17` of `IP-17: Boolean entitlements`: a code of capitals, a dash and
/// a number opening a name; or of capitals and a number, with a letter for
/// a part (`T1`, `T1b`).
fn code_of(text: &str) -> Option<String> {
    let t = text.trim().trim_matches(['`', '*']).trim_start_matches('`');
    let letters = t.chars().take_while(char::is_ascii_uppercase).count();
    let (dash, rest) = match t[letters..].strip_prefix(['-', '_']) {
        Some(rest) => (1, rest),
        None => (0, &t[letters..]),
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let part = usize::from(
        dash == 0
            && rest[digits..].starts_with(|c: char| c.is_ascii_lowercase())
            && !rest[digits + 1..].starts_with(|c: char| c.is_alphanumeric()),
    );
    let end = letters + dash + digits + part;
    let after = &t[end..];
    ((1..=6).contains(&letters)
        && digits > 0
        && (after.is_empty() || after.starts_with([' ', ':', '.', '`', ','])))
    .then(|| t[..end].to_string())
}

/// The codes a dependency cell names, each part's first word (`IP-18`,
/// `IP-19` of `` `IP-18`, `IP-19` ``).
fn named_codes(cell: &str) -> Vec<String> {
    cell.split([',', ';', '&', '/'])
        .flat_map(|p| p.split(" and "))
        .filter_map(|p| code_of(p.split_whitespace().next().unwrap_or_default()))
        .collect()
}

/// One unit per coded step, ordered by the index table's dependency
/// column.
pub(super) fn from_coded_index(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    if unit.sprints.len() < 3 {
        return None;
    }
    let codes: Vec<String> = unit
        .sprints
        .iter()
        .map(|s| code_of(&s.sprint.name))
        .collect::<Option<_>>()?;
    let at_code: std::collections::HashMap<&str, usize> = codes
        .iter()
        .enumerate()
        .map(|(k, c)| (c.as_str(), k))
        .collect();
    doc.blocks.iter().find_map(|b| {
        let Block::Table { header, rows, .. } = b else {
            return None;
        };
        let col = column(header, DEPENDENCY_COLUMNS)?;
        let mut listed: Vec<(usize, Vec<String>)> = Vec::with_capacity(rows.len());
        let mut seen = vec![false; codes.len()];
        for row in rows {
            let code = code_of(&row.cells.first()?.text)?;
            let at = *at_code.get(code.as_str())?;
            // Each step listed once: a code written twice leaves another
            // step unlisted.
            if std::mem::replace(&mut seen[at], true) {
                return None;
            }
            let cell = row.cells.get(col).map_or("", |c| c.text.as_str());
            listed.push((at, named_codes(cell)));
        }
        if listed.len() != codes.len() {
            return None;
        }
        let mut waits = vec![Vec::new(); codes.len()];
        for (at, named) in listed {
            for code in named {
                // A code the plan does not hold is work outside it.
                let Some(&on) = at_code.get(code.as_str()) else {
                    continue;
                };
                if on >= at {
                    return None;
                }
                waits[at].push(on);
            }
        }
        if !super::dependency_lines::at_once(&waits) {
            return None;
        }
        let names: Vec<String> = unit.sprints.iter().map(|s| s.sprint.name.clone()).collect();
        let why = format!(
            "a step of its own: the index table's dependency column (line {}) orders the steps",
            doc.line(b.span().start)
        );
        Some(units_of(&names, &waits, &why))
    })
}

/// A summary table naming every step once by its number, with a
/// Dependencies column (`| 3 | Resource Builders | 2 days | Phase 1, 2 |`),
/// over steps detailed in sections of their own: the column orders the
/// steps as it does when the rows are the steps. A row naming no step (`|
/// 6 | Verification | All phases |`) orders nothing; a cell naming no step
/// (`All phases`) keeps its step after every step before it.
pub(super) fn from_index_table(
    doc: &Doc,
    unit: &RawUnit,
    units_of: impl Fn(&[String], &[Vec<usize>], &str) -> Vec<RawUnit>,
) -> Option<Vec<RawUnit>> {
    use super::dependency_lines::{at_once, earlier, referenced_numbers};
    let numbers = super::sprint_graph::whole_numbers(&unit.sprints)?;
    let position = |n: u32| numbers.iter().position(|&m| m == n);
    // The steps' own sections: a table in one of them (`| 001 | Scaffold
    // … | none |` under `### Phase 1`) is that step's, not a summary of
    // the steps.
    let sections: Vec<std::ops::Range<usize>> = unit
        .sprints
        .iter()
        .filter_map(|s| {
            let h = doc
                .blocks
                .partition_point(|b| b.span().start < s.span.start);
            matches!(doc.blocks.get(h), Some(Block::Heading { .. })).then(|| h..doc.section_end[h])
        })
        .collect();
    doc.blocks.iter().enumerate().find_map(|(k, b)| {
        let Block::Table { header, rows, .. } = b else {
            return None;
        };
        if sections.iter().any(|s| s.contains(&k)) {
            return None;
        }
        let col = super::column(header, DEPENDENCY_COLUMNS)?;
        // (the row's step, what its cell names; None when it names no step)
        let mut named: Vec<(u32, Option<Vec<u32>>)> = Vec::with_capacity(rows.len());
        let mut skipped = false;
        // Rows that name their step in words (`| 2 | Phase 2: Session store
        // | Phase 1 |`): a table of steps, not of tasks numbered alike.
        let word = doc.word.map(|w| w.as_str().to_lowercase());
        let names_step = |row: &super::Row, n: u32| {
            word.as_ref().is_some_and(|w| {
                let label = format!("{w} {n}");
                row.cells.iter().any(|c| {
                    let t = c.text.to_lowercase();
                    t.match_indices(&label).any(|(at, _)| {
                        !t[at + label.len()..].starts_with(|c: char| c.is_ascii_digit())
                    })
                })
            })
        };
        let mut kept: Vec<&super::Row> = Vec::new();
        for row in rows {
            let id = row.cells.first()?.text.to_lowercase();
            let [n] = referenced_numbers(&id)?[..] else {
                return None;
            };
            if position(n).is_none() {
                skipped = true;
                continue;
            }
            kept.push(row);
            let cell = row
                .cells
                .get(col)
                .map_or("", |c| c.text.trim())
                .to_lowercase();
            named.push((n, referenced_numbers(&cell)));
        }
        // A row naming no step (`| 6 | Verification | All phases |`) is
        // left out only where the others name theirs.
        if skipped
            && !kept
                .iter()
                .zip(&named)
                .all(|(row, (n, _))| names_step(row, *n))
        {
            return None;
        }
        let mut listed: Vec<u32> = named.iter().map(|(n, _)| *n).collect();
        listed.sort_unstable();
        let mut wanted = numbers.clone();
        wanted.sort_unstable();
        if listed != wanted {
            return None;
        }
        let mut waits = Vec::with_capacity(numbers.len());
        for (me, n) in numbers.iter().enumerate() {
            let (_, on) = named.iter().find(|(m, _)| m == n)?;
            waits.push(match on {
                Some(on) => earlier(on, me, position)?,
                None => (0..me).collect(),
            });
        }
        if !at_once(&waits) {
            return None;
        }
        let names: Vec<String> = unit
            .sprints
            .iter()
            .map(|s| format!("{} {}", doc.word.map_or("Step", |w| w.as_str()), s.id))
            .collect();
        let why = format!(
            "a step of its own: the summary table's Dependencies column (line {}) orders the steps",
            doc.line(b.span().start)
        );
        Some(units_of(&names, &waits, &why))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_open_names_and_cells() {
        assert_eq!(
            code_of("IP-17: Boolean entitlements").as_deref(),
            Some("IP-17")
        );
        assert_eq!(code_of("`IP-16`").as_deref(), Some("IP-16"));
        assert_eq!(code_of("Phase 1"), None);
        assert_eq!(code_of("T1b: Migration 121").as_deref(), Some("T1b"));
        assert_eq!(code_of("T1 ✅").as_deref(), Some("T1"));
        assert_eq!(code_of("API design"), None);
        assert_eq!(named_codes("`IP-18`, `IP-19`"), ["IP-18", "IP-19"]);
        assert!(named_codes("—").is_empty());
    }
}
