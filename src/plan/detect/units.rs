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

use super::*;

pub(super) const UNIT_COLUMNS: &[&str] = &[
    "work unit",
    "work units",
    "unit",
    "units",
    "package",
    "packages",
    "component",
    "components",
    "module",
    "modules",
    "phase",
    "phases",
];

pub(super) fn detect_units(
    doc: &Doc,
    title: Option<&str>,
    ctx: &ParseContext,
    problems: &mut Vec<Problem>,
) -> (Vec<RawUnit>, UnitSource) {
    let layer_of = layer_table(doc);
    if let Some(units) = units_from_table(doc, &layer_of, problems) {
        return units;
    }
    let sections = units_from_sections(doc);
    if sections.len() >= 2 {
        let mut units = sections;
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
    (
        vec![RawUnit::new(name, name_span, 0..doc.blocks.len())],
        UnitSource::Single,
    )
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
        let Some(name_col) = column(header, UNIT_COLUMNS) else {
            continue;
        };
        if rows.is_empty()
            || column(header, &["sprint", "sprint id", "#"]) == Some(0)
            || is_layer_listing(header, rows)
        {
            continue;
        }
        let dir_col = column(header, &["dir", "directory", "path", "location", "folder"]);
        let layer_col = column(header, &["layer", "tier"]);
        let deps_col = column_where(header, |h| {
            h.starts_with("depend") || matches!(h, "deps" | "requires" | "after" | "blocked by")
        });
        let count_col = column(
            header,
            &[
                "sprints",
                "sprint count",
                "# sprints",
                "sprints count",
                "number of sprints",
            ],
        );

        let sections = unit_section_index(doc);
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
            let name = clean_name(&name_cell.text);
            if name.is_empty() {
                continue;
            }
            let dir = dir_col
                .and_then(|c| row.cells.get(c))
                .map(|c| clean_name(&c.text))
                .filter(|d| !d.is_empty() && !matches!(d.as_str(), "-" | "—" | "."));
            let scope = find_unit_section(doc, &sections, &name, dir.as_deref()).unwrap_or(0..0);
            let mut unit = RawUnit::new(name, name_cell.span.clone(), scope);
            unit.dir = dir;
            if let Some(cell) = layer_col.and_then(|c| row.cells.get(c)) {
                match parse_layer(&cell.text) {
                    Some(l) => unit.layer = Some(l),
                    None if cell.text.trim().is_empty() => {}
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
                unit.deps = split_names(&cell.text)
                    .into_iter()
                    .map(|d| (d, cell.span.clone()))
                    .collect();
            }
            if let Some(cell) = count_col.and_then(|c| row.cells.get(c)) {
                if let Ok(n) = cell.text.trim().parse::<usize>() {
                    unit.declared_sprints = Some((n, cell.span.clone()));
                }
            }
            units.push(unit);
        }
        let column = header[name_col].text.clone();
        return Some((units, UnitSource::Table { column }));
    }
    None
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
            (level >= 2 && sprint_heading(text).is_none()).then(|| (i, tokens(text)))
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
    dir: Option<&str>,
) -> Option<std::ops::Range<usize>> {
    let mut wanted = vec![tokens(name)];
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
    candidates.sort_unstable_by_key(|&n| (!wanted.contains(&index.sections[n].1), n));
    candidates.dedup();
    candidates
        .into_iter()
        .map(|n| doc.section(index.sections[n].0))
        .find(|scope| scope_has_sprints(doc, scope.clone()))
}

pub(super) fn scope_has_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> bool {
    scope.clone().any(|j| {
        doc.heading(j)
            .is_some_and(|(_, t, _)| sprint_heading(t).is_some() || task_heading(t).is_some())
            || matches!(&doc.blocks[j], Block::Table { header, .. } if is_sprint_table(header))
    })
}

pub(super) fn strip_unit_prefix(text: &str) -> String {
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

pub(super) fn units_from_sections(doc: &Doc) -> Vec<RawUnit> {
    let mut units = Vec::new();
    for i in 0..doc.blocks.len() {
        let Some((2, text, span)) = doc.heading(i) else {
            continue;
        };
        if sprint_heading(text).is_some() {
            continue;
        }
        let scope = doc.section(i);
        if !scope_has_sprints(doc, scope.clone()) {
            continue;
        }
        let mut unit = RawUnit::new(strip_unit_prefix(text), span.clone(), scope);
        read_unit_fields(doc, i, &mut unit);
        units.push(unit);
    }
    units
}

/// `Directory: x`, `Layer: N`, `Depends on: a, b` lines before a section
/// unit's first sprint.
pub(super) fn read_unit_fields(doc: &Doc, heading: usize, unit: &mut RawUnit) {
    for j in doc.own_blocks(heading) {
        let (text, span) = match &doc.blocks[j] {
            Block::Paragraph { text, span } => (text.as_str(), span),
            Block::Item { text, span, .. } => (text.as_str(), span),
            _ => continue,
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = norm(key);
            let value = value.trim();
            match key.as_str() {
                "directory" | "dir" | "path" | "location" | "folder" => {
                    let d = clean_name(value);
                    if !d.is_empty() {
                        unit.dir = Some(d);
                    }
                }
                "layer" | "tier" => unit.layer = parse_layer(value),
                "depends on" | "dependencies" | "deps" | "requires" => {
                    let at = line_span(doc.source, span, line);
                    unit.deps
                        .extend(split_names(value).into_iter().map(|d| (d, at.clone())));
                }
                _ => {}
            }
        }
    }
}
