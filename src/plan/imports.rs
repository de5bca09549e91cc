//! The plan's Allowed Imports table (v1 §2.2, spec §M): which work unit may
//! import from which, and what a unit's cross-package need comes to under
//! it (an import for its next sprint, or a conflict to log).
//!
//! Shapes recognised, in a section whose heading or header names imports
//! (`## 2.2 Allowed Imports`, `| Package | May Import |`):
//! - a list table: the unit in one column, what it may import in a column
//!   whose header says so (`May Import`, `Allowed Imports`, `Can Import`),
//!   cells like `parser, profiles`, `none`, `—`, `all`;
//! - a matrix: units as column headers, `✓` / `yes` / `x` where the row's
//!   unit may import the column's.
//!
//! A unit the table has no row for is unconstrained: nothing is judged.

use serde::Serialize;

use super::markdown::Block;
use super::model::Unit;

/// One row: `unit` may import from `may_import` (unit names), or from every
/// unit when `any`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllowedImport {
    pub unit: String,
    pub may_import: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub any: bool,
}

/// What a cross-package need comes to under the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ruling {
    /// The needing unit may import it from `from`: its next sprint should.
    Import { from: String },
    /// It names `from`, which the unit may not import: the unit keeps a
    /// local definition.
    Forbidden { from: String },
    /// No unit named, or no row for the unit: stays in the registry.
    Open,
}

/// A need read against the table: who needs what, from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeedReading {
    pub unit: String,
    /// What is needed, as the agent named it (`Token`), for comparing needs.
    pub subject: String,
    pub ruling: Ruling,
}

/// The rows of the plan's Allowed Imports table(s), in the order written.
pub fn allowed_imports(blocks: &[Block], units: &[Unit]) -> Vec<AllowedImport> {
    let mut heading = String::new();
    let mut rows = Vec::new();
    for b in blocks {
        match b {
            Block::Heading { text, .. } => heading = text.to_lowercase(),
            Block::Table {
                header, rows: body, ..
            } => {
                let header: Vec<String> = header.iter().map(|c| c.text.clone()).collect();
                let cells: Vec<Vec<String>> = body
                    .iter()
                    .map(|r| r.cells.iter().map(|c| c.text.clone()).collect())
                    .collect();
                let about_imports = heading.contains("import")
                    || header.iter().any(|h| h.to_lowercase().contains("import"));
                if about_imports {
                    rows.extend(read_table(&header, &cells, units));
                }
            }
            _ => {}
        }
    }
    rows
}

fn read_table(header: &[String], body: &[Vec<String>], units: &[Unit]) -> Vec<AllowedImport> {
    let matrix: Vec<(usize, &Unit)> = header
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, h)| unit_named(h, units).map(|u| (i, u)))
        .collect();
    let mut out = Vec::new();
    if matrix.len() >= 2 {
        for row in body {
            let Some(unit) = row.first().and_then(|c| unit_named(c, units)) else {
                continue;
            };
            let may_import = matrix
                .iter()
                .filter(|(i, u)| u.name != unit.name && row.get(*i).is_some_and(|c| ticked(c)))
                .map(|(_, u)| u.name.clone())
                .collect();
            out.push(AllowedImport {
                unit: unit.name.clone(),
                may_import,
                any: false,
            });
        }
        return out;
    }
    let Some(column) = header.iter().position(|h| {
        let h = h.to_lowercase();
        let says = ["import", "may use", "can use", "allowed"]
            .iter()
            .any(|w| h.contains(w));
        let denies = ["not", "forbid", "cannot", "disallow", "never"]
            .iter()
            .any(|w| h.contains(w));
        says && !denies
    }) else {
        return out;
    };
    for row in body {
        let Some(unit) = row
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != column)
            .find_map(|(_, c)| unit_named(c, units))
        else {
            continue;
        };
        let cell = row.get(column).map(String::as_str).unwrap_or("");
        let lower = cell.to_lowercase();
        let named = units_mentioned(cell, units, &unit.name);
        let any = named.is_empty()
            && ["all", "any", "every"]
                .iter()
                .any(|w| lower.split(|c: char| !c.is_alphanumeric()).any(|t| t == *w));
        out.push(AllowedImport {
            unit: unit.name.clone(),
            may_import: named,
            any,
        });
    }
    out
}

/// A matrix cell that allows the import.
fn ticked(cell: &str) -> bool {
    let t = cell.trim().trim_matches('*').to_lowercase();
    ["✓", "✔", "✅", "yes", "y", "x", "allowed", "ok"].contains(&t.as_str())
}

/// The unit a cell names: its name or directory, whole, backticks aside.
fn unit_named<'a>(cell: &str, units: &'a [Unit]) -> Option<&'a Unit> {
    let t = cell.trim().trim_matches('`').trim_matches('*').trim();
    let t = t.trim_end_matches('/');
    units
        .iter()
        .find(|u| u.name.eq_ignore_ascii_case(t) || u.dir.as_deref() == Some(t))
}

/// Every unit other than `except` that `text` names as a whole word
/// (`validation` is not named by `validation-profiles`), longest first.
pub fn units_mentioned(text: &str, units: &[Unit], except: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out: Vec<(usize, String)> = Vec::new();
    for u in units.iter().filter(|u| u.name != except) {
        let names = [
            Some(u.name.as_str()),
            u.dir.as_deref().filter(|d| *d != "."),
        ];
        let at = names
            .iter()
            .flatten()
            .filter_map(|n| word_at(&lower, &n.to_lowercase()))
            .min();
        if let Some(at) = at {
            out.push((at, u.name.clone()));
        }
    }
    out.sort();
    out.into_iter().map(|(_, n)| n).collect()
}

/// Where `word` first occurs in `text` with no name character either side.
fn word_at(text: &str, word: &str) -> Option<usize> {
    let is_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before = text[..at].chars().next_back().is_none_or(|c| !is_name(c));
        let after = text[end..].chars().next().is_none_or(|c| !is_name(c));
        if before && after {
            return Some(at);
        }
        from = at + word.len().max(1);
    }
    None
}

/// Whether `unit` may import from `from`: `None` when the table says
/// nothing about `unit`.
pub fn may_import(table: &[AllowedImport], unit: &str, from: &str) -> Option<bool> {
    let rows: Vec<&AllowedImport> = table.iter().filter(|r| r.unit == unit).collect();
    if rows.is_empty() {
        return None;
    }
    Some(
        rows.iter()
            .any(|r| r.any || r.may_import.iter().any(|m| m == from)),
    )
}

/// Read one need (`Token from parser`, ``parser: `Token` ``) of `unit`
/// against the table.
pub fn read_need(text: &str, unit: &str, units: &[Unit], table: &[AllowedImport]) -> NeedReading {
    let from = units_mentioned(text, units, unit).into_iter().next();
    let ruling = match &from {
        Some(from) => match may_import(table, unit, from) {
            Some(true) => Ruling::Import { from: from.clone() },
            Some(false) => Ruling::Forbidden { from: from.clone() },
            None => Ruling::Open,
        },
        None => Ruling::Open,
    };
    NeedReading {
        unit: unit.to_string(),
        subject: subject(text, from.as_deref(), units),
        ruling,
    }
}

/// What a need asks for: its first `code span`, else its text without the
/// unit it names and the joining words.
fn subject(text: &str, from: Option<&str>, units: &[Unit]) -> String {
    if let Some((_, rest)) = text.split_once('`') {
        if let Some((code, _)) = rest.split_once('`') {
            if !code.trim().is_empty() {
                return format!("`{}`", code.trim());
            }
        }
    }
    let dir = from.and_then(|f| units.iter().find(|u| u.name == f)?.dir.clone());
    let named = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
        from.is_some_and(|f| w.eq_ignore_ascii_case(f)) || dir.as_deref() == Some(w)
    };
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !named(w))
        .filter(|w| {
            !["from", "in", "of", "the", "a", "an", "needs", "need"]
                .contains(&w.to_lowercase().trim_end_matches(':'))
        })
        .collect();
    words
        .join(" ")
        .trim_matches(|c: char| c == ':' || c == '-' || c == '(' || c == ')')
        .trim()
        .to_string()
}

/// The notes a changed registry adds to the decisions log (spec §M): a
/// hand-off for each new need the unit may import, a conflict for each it
/// may not, and a conflict where two units each keep their own version of
/// one thing. `new` are the needs not in the registry before.
pub fn rulings(all: &[NeedReading], new: &[NeedReading]) -> Vec<String> {
    let mut out = Vec::new();
    for n in new {
        match &n.ruling {
            Ruling::Import { from } => out.push(format!(
                "Hand-off: {}'s next sprint should import {} from {} (the plan's Allowed Imports allow it).",
                n.unit, n.subject, from
            )),
            Ruling::Forbidden { from } => out.push(format!(
                "Conflict: {} needs {} from {}, which the plan's Allowed Imports do not let {} import; it keeps a local definition (Cross-Package Needs Registry).",
                n.unit, n.subject, from, n.unit
            )),
            Ruling::Open => {}
        }
    }
    let local = |n: &&NeedReading| !matches!(n.ruling, Ruling::Import { .. });
    let mut seen: Vec<String> = Vec::new();
    for n in all.iter().filter(local) {
        let key = n.subject.to_lowercase();
        if key.is_empty() || seen.contains(&key) {
            continue;
        }
        let mut claim: Vec<&str> = all
            .iter()
            .filter(local)
            .filter(|m| m.subject.to_lowercase() == key)
            .map(|m| m.unit.as_str())
            .collect();
        claim.dedup();
        let touched = new
            .iter()
            .any(|m| m.subject.to_lowercase() == key && local(&m));
        if claim.len() > 1 && touched {
            seen.push(key);
            out.push(format!(
                "Conflict: {} each define their own {}; neither is stopped, reconcile them after the run.",
                claim.join(" and "),
                n.subject
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(names: &[&str]) -> Vec<Unit> {
        names
            .iter()
            .map(|n| Unit {
                name: n.to_string(),
                dir: Some(n.to_string()),
                layer: None,
                deps: Vec::new(),
                sprints: Vec::new(),
                origin: Default::default(),
            })
            .collect()
    }

    #[test]
    fn list_and_matrix_tables_say_who_may_import_whom() {
        let us = units(&["parser", "validation-profiles", "validation", "biblioteca"]);
        let list = "## 2.2 Allowed Imports\n\n| Package | May Import |\n|---|---|\n| parser | none |\n| validation | `validation-profiles` |\n| biblioteca | all |\n";
        let t = allowed_imports(&super::super::markdown::blocks(list), &us);
        assert_eq!(
            may_import(&t, "validation", "validation-profiles"),
            Some(true)
        );
        assert_eq!(may_import(&t, "validation", "parser"), Some(false));
        assert_eq!(may_import(&t, "parser", "validation"), Some(false));
        assert_eq!(may_import(&t, "biblioteca", "parser"), Some(true));
        assert_eq!(may_import(&t, "validation-profiles", "parser"), None);
        let matrix = "## Imports\n\n| | parser | validation |\n|---|---|---|\n| validation | ✓ | |\n| parser | | ✗ |\n";
        let t = allowed_imports(&super::super::markdown::blocks(matrix), &us);
        assert_eq!(may_import(&t, "validation", "parser"), Some(true));
        assert_eq!(may_import(&t, "parser", "validation"), Some(false));
    }

    #[test]
    fn needs_become_hand_offs_or_conflicts() {
        let us = units(&["lib", "app", "cli"]);
        let table = vec![
            AllowedImport {
                unit: "app".into(),
                may_import: vec!["lib".into()],
                any: false,
            },
            AllowedImport {
                unit: "cli".into(),
                may_import: vec![],
                any: false,
            },
        ];
        let app = read_need("`Token` from lib", "app", &us, &table);
        assert_eq!(app.ruling, Ruling::Import { from: "lib".into() });
        assert_eq!(app.subject, "`Token`");
        let cli = read_need("lib: Token", "cli", &us, &table);
        assert_eq!(cli.ruling, Ruling::Forbidden { from: "lib".into() });
        assert_eq!(cli.subject, "Token");
        let lib = read_need("a `Token` type", "lib", &us, &table);
        assert_eq!(lib.ruling, Ruling::Open);
        let notes = rulings(&[app.clone(), cli.clone()], &[app.clone(), cli.clone()]);
        assert_eq!(notes.len(), 2, "{notes:#?}");
        assert!(notes[0].starts_with("Hand-off: app's next sprint should import `Token` from lib"));
        assert!(notes[1].starts_with("Conflict: cli needs Token from lib"));
        // Two units that each keep their own `Token`.
        let cli = read_need("`Token` from lib", "cli", &us, &table);
        let all = [cli.clone(), lib.clone()];
        let notes = rulings(&all, &[lib]);
        assert_eq!(
            notes,
            ["Conflict: cli and lib each define their own `Token`; neither is stopped, reconcile them after the run."]
        );
    }
}
