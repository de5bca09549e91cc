//! Work units: which table, sections or fallback define them.
//!
//! Shapes recognised: a unit table (`| Work Unit | Directory | Layer |
//! Dependencies | Sprints |`, the name column headed Name, Work Unit, WU,
//! Unit, Package, Component, Module, Service, Crate or Title); a separate
//! layer listing (`| Layer | Packages |` with comma-separated names);
//! `## <Name>` sections that hold sprints (`## Work Unit: Core`, `## Work Unit
//! 3 — Core`, `## Unit: Core`, `## 2. Parser`); `Directory:`, `Layer:`,
//! `Depends on:` lines under a unit heading; otherwise one unit named after
//! the title or the directory.

pub(super) mod sections;

use super::*;
use sections::read_unit_fields;
use sections::units_from_sections;

pub(super) const UNIT_COLUMNS: &[&str] = &[
    "work unit",
    "work units",
    "wu",
    "unit",
    "units",
    "package",
    "packages",
    "component",
    "components",
    "module",
    "modules",
    "service",
    "services",
    "crate",
    "crates",
];

/// Name columns that identify units only together with a unit-table column
/// (Directory, Layer, Dependencies, Sprints): plenty of tables have a Name.
const WEAK_UNIT_COLUMNS: &[&str] = &["name", "title", "phase", "phases"];

const DIR_COLUMNS: &[&str] = &["dir", "directory", "path", "location", "folder"];

const COUNT_COLUMNS: &[&str] = &[
    "sprints",
    "sorties",
    "sprint count",
    "sortie count",
    "# sprints",
    "# sorties",
    "sprints count",
    "number of sprints",
];

fn deps_column(header: &[Cell]) -> Option<usize> {
    column_where(header, |h| {
        h.starts_with("depend") || matches!(h, "deps" | "requires" | "after" | "blocked by")
    })
}

/// Rows that summarise a table rather than name a unit.
fn is_summary_row(name: &str) -> bool {
    matches!(
        name.to_lowercase()
            .trim_matches(|c: char| !c.is_alphanumeric()),
        "total" | "totals" | "sum" | "overall" | "all"
    )
}

pub(super) fn detect_units(
    doc: &Doc,
    title: Option<&str>,
    ctx: &ParseContext,
    problems: &mut Vec<Problem>,
) -> (Vec<RawUnit>, UnitSource) {
    let layer_of = layer_table(doc);
    let mut table_problems = Vec::new();
    let table = units_from_table(doc, &layer_of, &mut table_problems);
    let sections = units_from_sections(doc);
    if let Some(units) = table {
        // A table none of whose rows leads to sprints does not look like the
        // unit table when the sections or the whole plan hold sprints.
        let lost = units
            .0
            .iter()
            .all(|u| u.scope.is_empty() && u.heads.is_none());
        let elsewhere = sections.len() >= 2 || scope_has_sprints(doc, 0..doc.blocks.len());
        if !(lost && elsewhere) {
            problems.extend(table_problems);
            return units;
        }
    }
    if sections.len() >= 2 {
        let mut units = sections;
        for u in units.iter_mut().filter(|u| u.rule.is_empty()) {
            u.rule = format!("section heading holding {} headings", word_name(doc));
        }
        for unit in &mut units {
            if unit.layer.is_none() {
                unit.layer = layer_of.get(&unit.name.to_lowercase()).copied();
            }
        }
        return (units, UnitSource::Sections);
    }
    let name = title
        .map(str::to_string)
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| ctx.dir_name.clone());
    let name_span = doc
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Heading { level: 1, span, .. } => Some(span.clone()),
            _ => None,
        })
        .unwrap_or(0..0);
    let mut unit = RawUnit::new(name, name_span, 0..doc.blocks.len());
    unit.rule = "single unit: the plan's title (no unit table or unit sections)".into();
    (vec![unit], UnitSource::Single)
}

pub(super) fn word_name(doc: &Doc) -> String {
    doc.word.map(|w| w.as_str()).unwrap_or("sprint").to_string()
}

/// A separate layer table (`| Layer | Packages |` with comma-separated names)
/// maps lower-cased unit names to layers.
pub(super) fn layer_table(doc: &Doc) -> HashMap<String, u32> {
    let mut map = HashMap::new();
    for b in &doc.blocks {
        let Block::Table { header, rows, .. } = b else {
            continue;
        };
        let (Some(layer_col), Some(names_col)) = (
            column(header, &["layer", "tier"]),
            column(header, UNIT_COLUMNS),
        ) else {
            continue;
        };
        if !rows
            .iter()
            .any(|r| r.cells.get(names_col).is_some_and(|c| c.text.contains(',')))
        {
            continue;
        }
        for row in rows {
            let (Some(l), Some(n)) = (row.cells.get(layer_col), row.cells.get(names_col)) else {
                continue;
            };
            if let Some(layer) = parse_layer(&l.text) {
                for name in split_names(&n.text) {
                    map.insert(name.to_lowercase(), layer);
                }
            }
        }
    }
    map
}

pub(super) fn is_layer_listing(header: &[Cell], rows: &[Row]) -> bool {
    // A unit table may have commas in its names; a listing has no columns
    // of its own besides the layer and the names.
    if column(header, DIR_COLUMNS).is_some()
        || deps_column(header).is_some()
        || column(header, COUNT_COLUMNS).is_some()
    {
        return false;
    }
    let (Some(_), Some(n)) = (
        column(header, &["layer", "tier"]),
        column(header, UNIT_COLUMNS),
    ) else {
        return false;
    };
    rows.iter()
        .any(|r| r.cells.get(n).is_some_and(|c| c.text.contains(',')))
}

pub(super) fn units_from_table(
    doc: &Doc,
    layer_of: &HashMap<String, u32>,
    problems: &mut Vec<Problem>,
) -> Option<(Vec<RawUnit>, UnitSource)> {
    for b in &doc.blocks {
        let Block::Table { header, rows, .. } = b else {
            continue;
        };
        let dir_col = column(header, DIR_COLUMNS);
        let layer_col = column(header, &["layer", "tier"]);
        let deps_col = deps_column(header);
        // A Sprints column counts sprints (`3`, `3 (S1–S3)`); one listing
        // sprint ids (`1.1`, `2.1a, 2.1b`) is a timeline's, not a count.
        let count_col = column(header, COUNT_COLUMNS).filter(|&c| {
            rows.iter().all(|r| {
                r.cells.get(c).is_none_or(|cell| {
                    let t = cell.text.trim().trim_matches('*');
                    let lead = t.split_whitespace().next().unwrap_or("");
                    t.is_empty()
                        || lead.chars().all(|c| c.is_ascii_digit())
                        || is_summary_row(&r.cells[0].text)
                })
            })
        });
        let unit_like =
            dir_col.is_some() || layer_col.is_some() || deps_col.is_some() || count_col.is_some();
        let Some(name_col) = column(header, UNIT_COLUMNS)
            .or_else(|| column(header, WEAK_UNIT_COLUMNS).filter(|_| unit_like))
        else {
            continue;
        };
        // A sprint table, or a numbered list (`| # | … |`) without any unit
        // column, is not the unit table.
        let numbered = column(header, &["#"]) == Some(0);
        if rows.is_empty()
            || column(header, &["sprint", "sortie", "sprint id"]) == Some(0)
            || (numbered && !unit_like)
            || is_layer_listing(header, rows)
        {
            continue;
        }
        let sections = unit_section_index(doc);
        // A status, roadmap or timeline table (`| Phase | Status |`) is not
        // the unit table: it needs a unit-table column, or rows that match
        // the plan's unit sections.
        if !unit_like {
            let all_match = rows
                .iter()
                .filter_map(|r| r.cells.get(name_col))
                .filter(|c| !is_summary_row(&c.text))
                .all(|c| {
                    let (name, aliases) = unit_name_and_aliases(&c.text);
                    find_unit_section(doc, &sections, &name, &aliases, None).is_some()
                });
            if !all_match {
                continue;
            }
        }
        let mut units = Vec::new();
        for row in rows {
            if row.source_cells != header.len() {
                problems.push(
                    Problem::new(
                        ProblemCode::MalformedRow,
                        format!(
                            "table row has {} cells but the header has {}",
                            row.source_cells,
                            header.len()
                        ),
                    )
                    .label(row.span.clone(), "this row")
                    .help("give every row one cell per header column, separated by `|`"),
                );
            }
            let Some(name_cell) = row.cells.get(name_col) else {
                continue;
            };
            let (name, aliases) = unit_name_and_aliases(&name_cell.text);
            // A `Total` row sums the table, unless a unit of that name has a
            // section of its own (a unit named `sum`).
            let summary = is_summary_row(&name)
                && find_unit_section(doc, &sections, &name, &aliases, None).is_none();
            if name.is_empty() || summary {
                continue;
            }
            // `Sources/A/` + `Tests/A/`: the first path written in code.
            let dir = dir_col
                .and_then(|c| row.cells.get(c))
                .map(|c| match inline_code(&c.text).first() {
                    Some(code) => clean_name(code),
                    None => clean_name(&c.text),
                })
                .filter(|d| !d.is_empty() && !matches!(d.as_str(), "-" | "—" | "."));
            let scope = find_unit_section(doc, &sections, &name, &aliases, dir.as_deref());
            let mut unit =
                RawUnit::new(name, name_cell.span.clone(), scope.clone().unwrap_or(0..0));
            unit.aliases = aliases;
            unit.rule = match scope {
                Some(s) if s.start > 0 => format!(
                    "unit table, column \"{}\"; sprints under the heading at line {}",
                    header[name_col].text,
                    doc.line(doc.blocks[s.start - 1].span().start)
                ),
                _ => format!("unit table, column \"{}\"", header[name_col].text),
            };
            unit.dir = dir;
            if let Some(cell) = layer_col.and_then(|c| row.cells.get(c)) {
                match parse_layer(&cell.text) {
                    Some(l) => unit.layer = Some(l),
                    None if matches!(cell.text.trim(), "" | "-" | "—" | "–" | "n/a" | "N/A") => {
                    }
                    None => problems.push(
                        Problem::new(
                            ProblemCode::BadLayer,
                            format!("`{}` is not a layer number", cell.text),
                        )
                        .label(
                            cell.span.clone(),
                            "expected a number such as 0 or `Layer 1`",
                        ),
                    ),
                }
            }
            if unit.layer.is_none() {
                unit.layer = layer_of.get(&unit.name.to_lowercase()).copied();
            }
            if let Some(cell) = deps_col.and_then(|c| row.cells.get(c)) {
                unit.deps = split_dep_names(&cell.text)
                    .into_iter()
                    .map(|d| (d, cell.span.clone()))
                    .collect();
            }
            if unit.deps.is_empty() && unit.scope.start > 0 {
                // A `Dependencies:` line in the unit's own section is explicit
                // too, and wins over the layers (issue 15).
                let mut section = RawUnit::new(String::new(), unit.name_span.clone(), 0..0);
                read_unit_fields(doc, unit.scope.start - 1, &mut section);
                unit.deps = section.deps;
            }
            if let Some(cell) = count_col.and_then(|c| row.cells.get(c)) {
                // `3`, `3 (S1–S3)`.
                let lead: String = cell
                    .text
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                if let Ok(n) = lead.parse::<usize>() {
                    unit.declared_sprints = Some((n, cell.span.clone()));
                }
            }
            units.push(unit);
        }
        if units.is_empty() {
            continue;
        }
        // A unit named with a comma (`Phase 0: Foundation (sequential, the
        // lead does this)`) is one name in a dependency cell, not two.
        let names: std::collections::HashSet<String> =
            units.iter().map(|u| u.name.clone()).collect();
        for unit in &mut units {
            unit.deps = rejoined(std::mem::take(&mut unit.deps), &names);
        }
        assign_flat_sprints(doc, &mut units);
        let column = header[name_col].text.clone();
        return Some((units, UnitSource::Table { column }));
    }
    None
}

/// Dependency names split at commas put back together where the pieces,
/// joined, are a unit's name.
fn rejoined(
    deps: Vec<(String, Span)>,
    names: &std::collections::HashSet<String>,
) -> Vec<(String, Span)> {
    let mut out = Vec::with_capacity(deps.len());
    let mut i = 0;
    while i < deps.len() {
        let joined = (i + 1..deps.len()).rev().find_map(|j| {
            let name = deps[i..=j]
                .iter()
                .map(|(d, _)| d.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            names.contains(&name).then_some((j, name))
        });
        match joined {
            Some((j, name)) => {
                out.push((name, deps[i].1.clone()));
                i = j + 1;
            }
            None => {
                out.push(deps[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// Headings that are not sprint headings, by title token, for matching table
/// units to their sprint sections without scanning every heading per unit.
pub(super) struct SectionIndex {
    sections: Vec<(usize, Vec<String>)>,
    by_token: HashMap<String, Vec<usize>>,
}

pub(super) fn unit_section_index(doc: &Doc) -> SectionIndex {
    let sections: Vec<(usize, Vec<String>)> = (0..doc.blocks.len())
        .filter_map(|i| {
            let (level, text, _) = doc.heading(i)?;
            (level >= 2 && !doc.is_sprint(i)).then(|| (i, tokens(text)))
        })
        .collect();
    let mut by_token: HashMap<String, Vec<usize>> = HashMap::new();
    for (n, (_, toks)) in sections.iter().enumerate() {
        for t in toks {
            let list = by_token.entry(t.clone()).or_default();
            if list.last() != Some(&n) {
                list.push(n);
            }
        }
    }
    SectionIndex { sections, by_token }
}

pub(super) fn contains_seq(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The section holding a table unit's sprints: the first heading naming the
/// unit (or its directory) whose section contains sprint definitions.
pub(super) fn find_unit_section(
    doc: &Doc,
    index: &SectionIndex,
    name: &str,
    aliases: &[String],
    dir: Option<&str>,
) -> Option<std::ops::Range<usize>> {
    let mut wanted = vec![tokens(name)];
    wanted.extend(aliases.iter().map(|a| tokens(a)));
    if let Some(last) = dir.and_then(|d| d.rsplit('/').next()) {
        wanted.push(tokens(last));
    }
    let mut candidates: Vec<usize> = wanted
        .iter()
        .filter_map(|w| index.by_token.get(w.first()?))
        .flatten()
        .copied()
        .filter(|&n| wanted.iter().any(|w| contains_seq(&index.sections[n].1, w)))
        .collect();
    // A heading that is exactly the unit's name wins over one that merely
    // contains it; otherwise the first in the document.
    // A heading written exactly as the name (`u..` beside `u.`, which
    // tokenise alike) wins over both.
    let exact = |n: usize| {
        doc.heading(index.sections[n].0)
            .is_some_and(|(_, t, _)| clean_name(t) == name)
    };
    candidates.sort_unstable_by_key(|&n| (!exact(n), !wanted.contains(&index.sections[n].1), n));
    candidates.dedup();
    candidates
        .into_iter()
        .map(|n| doc.section(index.sections[n].0))
        .find(|scope| scope_has_sprints(doc, scope.clone()))
}

pub(super) fn scope_has_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> bool {
    scope.clone().any(|j| {
        doc.is_sprint(j)
            || doc
                .heading(j)
                .is_some_and(|(level, t, _)| level >= 2 && super::numbered::names_step(t))
            || doc
                .heading(j)
                .is_some_and(|(_, t, _)| task_heading(t).is_some())
            || matches!(&doc.blocks[j], Block::Table { header, rows, .. } if is_sprint_table(header, rows))
    })
}

/// A unit table's name cell: the name as written (markup removed) and the
/// ids it can be called by (`WU1` and `Parser` for "WU1 — Parser").
pub(super) fn unit_name_and_aliases(cell: &str) -> (String, Vec<String>) {
    // Code marks are dropped from the name when they pair up (`WU1 —
    // \`parser\``); an odd one is part of the name as written.
    let plain = clean_name(&cell.replace('`', ""));
    let name = if cell.matches('`').count().is_multiple_of(2) {
        plain.clone()
    } else {
        clean_name(cell)
    };
    let mut aliases = Vec::new();
    if plain != name {
        aliases.push(plain.clone());
    }
    if let Some((head, rest)) = split_id_prefix(&plain) {
        aliases.push(head.to_string());
        if !rest.is_empty() {
            aliases.push(rest.to_string());
        }
    }
    (name, aliases)
}

/// `WU-1: Name`, `WU1 — Name`, `Work Unit 3: Name`, `Unit 2 - Name`,
/// `Phase 1: Name` → (id, name).
pub(super) fn split_id_prefix(text: &str) -> Option<(&str, &str)> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let word_len = [
        "work unit",
        "workunit",
        "wu",
        "unit",
        "package",
        "component",
        "module",
        "phase",
        "stage",
        "milestone",
        "week",
        "section",
        "part",
    ]
    .iter()
    .find(|w| lower.starts_with(**w))
    .map(|w| w.len())?;
    let after = &t[word_len..];
    let after_trim = after.trim_start_matches([' ', '-', '_', '#']);
    let digits = after_trim
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric()))
        .map(|(i, _)| i)
        .unwrap_or(after_trim.len());
    if digits == 0
        || !after_trim.starts_with(|c: char| c.is_ascii_digit() || c.is_ascii_uppercase())
    {
        return None;
    }
    let id_end = t.len() - after_trim.len() + digits;
    let rest = t[id_end..]
        .trim_start()
        .trim_start_matches([':', '—', '–', '-', '.', '|'])
        .trim();
    Some((&t[..id_end], rest))
}

/// Flat sprints (all under one heading, numbered across the plan) belong to
/// table units that found no section of their own: by a `Work Unit: X` line
/// in the sprint, else by the table's Sprints counts in order, else to the
/// table's only unit.
fn assign_flat_sprints(doc: &Doc, units: &mut [RawUnit]) {
    if units.iter().any(|u| !u.scope.is_empty()) {
        return;
    }
    let flat: Vec<usize> = (0..doc.blocks.len())
        .filter(|&i| doc.is_sprint(i))
        .collect();
    if flat.is_empty() {
        return;
    }
    // 1. Each sprint names its unit.
    let mut named: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    let mut all_named = true;
    let index = UnitIndex::new(units);
    for &i in &flat {
        match sprint_unit_line(doc, i).and_then(|n| index.get(&n)) {
            Some(u) => named[u].push(i),
            None => all_named = false,
        }
    }
    if all_named {
        for (u, heads) in units.iter_mut().zip(named) {
            u.rule.push_str("; sprints name it in a `Work Unit:` line");
            u.heads = Some(heads);
        }
        return;
    }
    // 2. Counts, in table order.
    let counts: Option<Vec<usize>> = units
        .iter()
        .map(|u| u.declared_sprints.as_ref().map(|(n, _)| *n))
        .collect();
    if let Some(counts) = counts.filter(|c| c.iter().sum::<usize>() == flat.len()) {
        let mut at = 0;
        for (u, n) in units.iter_mut().zip(counts) {
            u.heads = Some(flat[at..at + n].to_vec());
            at += n;
            u.rule
                .push_str("; flat sprints shared out by its Sprints count");
        }
        return;
    }
    // 3. One unit owns them all.
    if units.len() == 1 {
        units[0].heads = Some(flat);
        units[0]
            .rule
            .push_str("; the table's only unit owns every sprint");
    }
}

/// `Work Unit: piece-1` / `**Unit**: parser` in a sprint's own text.
fn sprint_unit_line(doc: &Doc, i: usize) -> Option<String> {
    for j in doc.own_blocks(i) {
        let (Block::Paragraph { text, .. } | Block::Item { text, .. }) = &doc.blocks[j] else {
            continue;
        };
        for line in text.lines() {
            if let Some((k, v)) = line.split_once(':') {
                if matches!(
                    norm(k).as_str(),
                    "work unit" | "unit" | "wu" | "package" | "component"
                ) {
                    return Some(clean_name(&v.replace('`', "")));
                }
            }
        }
    }
    None
}

/// Units by every name they can be called (name first, then aliases), so
/// that resolving a reference does not scan every unit.
pub(super) struct UnitIndex(HashMap<String, usize>, HashMap<String, Vec<usize>>);

impl UnitIndex {
    pub(super) fn new(units: &[RawUnit]) -> Self {
        // The first word of every name and alias, lower-cased: which units a
        // prose reference ("Parser complete") may mean.
        let mut first_words: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, u) in units.iter().enumerate() {
            for n in std::iter::once(&u.name).chain(u.aliases.iter()) {
                let lower = n.to_lowercase();
                let first = lower
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("");
                let owners = first_words.entry(first.to_string()).or_default();
                if owners.last() != Some(&i) {
                    owners.push(i);
                }
            }
        }
        let keys = Self::keys(units);
        UnitIndex(keys, first_words)
    }

    /// The units whose name or an alias starts with the word `first`
    /// (lower-case), each once, in plan order.
    pub(super) fn by_first_word(&self, first: &str) -> &[usize] {
        self.1.get(first).map(Vec::as_slice).unwrap_or(&[])
    }

    fn keys(units: &[RawUnit]) -> HashMap<String, usize> {
        let mut keys = HashMap::new();
        for (i, u) in units.iter().enumerate() {
            keys.entry(alias_key(&u.name)).or_insert(i);
        }
        for (i, u) in units.iter().enumerate() {
            for a in &u.aliases {
                keys.entry(alias_key(a)).or_insert(i);
            }
        }
        keys.remove("");
        keys
    }

    /// A unit written as its name, one of its aliases, any case.
    pub(super) fn get(&self, text: &str) -> Option<usize> {
        self.0.get(&alias_key(text)).copied()
    }
}

/// Case, spaces and punctuation do not matter in a unit reference: `WU-1`,
/// `wu1` and `WU 1` are one unit.
pub(super) fn alias_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) fn strip_unit_prefix(text: &str) -> String {
    let cleaned = clean_name(&text.replace('`', ""));
    if let Some((_, rest)) = split_id_prefix(&cleaned) {
        if !rest.is_empty() {
            return clean_name(rest);
        }
    }
    let mut t = text.trim();
    // "1. Parser", "Section 3: Parser"
    if let Some((head, rest)) = t.split_once(['.', ':']) {
        let head_l = head.trim().to_lowercase();
        if head_l.chars().all(|c| c.is_ascii_digit())
            || [
                "work unit",
                "unit",
                "package",
                "component",
                "module",
                "phase",
                "section",
            ]
            .iter()
            .any(|p| head_l == *p || head_l.starts_with(&format!("{p} ")))
        {
            t = rest.trim();
        }
    }
    clean_name(t)
}
