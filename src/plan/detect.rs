//! The detection heuristics of spec §E: turn Markdown blocks into a plan.
//!
//! Each heuristic family (units, sprints, dependencies, criteria, template,
//! referenced files, task types) is tried in the spec's priority order and the
//! first that finds something wins; which one won is recorded in
//! [`Detection`]. Work happens on spanned "raw" structures so that validation
//! can point into the file; [`parse`] then returns the span-free [`Plan`].

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::collections::HashMap;

use super::diagnostics::Problem;
use super::diagnostics::ProblemCode;
use super::markdown::blocks;
use super::markdown::Block;
use super::markdown::Cell;
use super::markdown::Span;
use super::model::Criterion;
use super::model::CriterionKind;
use super::model::DependencyStructure;
use super::model::Detection;
use super::model::DispatchMode;
use super::model::Plan;
use super::model::Sprint;
use super::model::SprintId;
use super::model::SprintSource;
use super::model::TaskType;
use super::model::Unit;
use super::model::UnitSource;

/// Inputs the parser needs besides the text.
#[derive(Debug, Clone, Default)]
pub struct ParseContext {
    /// The project directory's name: the single unit's name when the plan has
    /// no `# Title`.
    pub dir_name: String,
}

/// Parse a plan, or return every problem found in it.
pub fn parse(source: &str, ctx: &ParseContext) -> Result<Plan, Vec<Problem>> {
    let (masked, frontmatter) = mask_frontmatter(source);
    let doc = Doc::new(source, blocks(&masked));
    let mut problems = Vec::new();

    let title = doc.blocks.iter().find_map(|b| match b {
        Block::Heading { level: 1, text, .. } => Some(clean_name(text)),
        _ => None,
    });

    let (mut raw_units, unit_source) = detect_units(&doc, title.as_deref(), ctx, &mut problems);
    let mut sprint_sources = Vec::new();
    for unit in &mut raw_units {
        let (sprints, source) = detect_sprints(&doc, unit.scope.clone(), &mut problems);
        unit.sprints = sprints;
        if let Some(s) = source {
            if !sprint_sources.contains(&s) {
                sprint_sources.push(s);
            }
        }
    }
    detect_graph_edges(&doc, &mut raw_units, &mut problems);
    let dependencies = dependency_structure(&raw_units);
    validate(&raw_units, &mut problems);
    let (template, template_source) = detect_template(&doc);
    let (entry_checks, exit_checks, rules) = plan_checks(&doc);

    if !problems.is_empty() {
        return Err(problems);
    }

    let units = resolve_units(raw_units);
    Ok(Plan {
        title,
        feature_name: frontmatter.get("feature_name").cloned(),
        units,
        entry_checks,
        exit_checks,
        rules,
        detection: Detection {
            units: unit_source,
            sprints: sprint_sources,
            dependencies,
            dispatch_mode: if template.is_some() {
                DispatchMode::Template
            } else {
                DispatchMode::Dynamic
            },
            template_source,
        },
        template,
        referenced_files: referenced_files(source),
    })
}

// ---------------------------------------------------------------------------
// Frontmatter

/// Blank out a leading `---` YAML frontmatter block (keeping byte offsets) and
/// read its flat `key: value` pairs.
fn mask_frontmatter(source: &str) -> (String, BTreeMap<String, String>) {
    let mut values = BTreeMap::new();
    let (Some(body), Some(cut)) = (
        super::frontmatter::body_range(source),
        super::frontmatter::block_end(source),
    ) else {
        return (source.to_string(), values);
    };
    for line in source[body].lines() {
        if let Some((k, v)) = line.split_once(':') {
            let v = v.trim().trim_matches('"').trim_matches('\'');
            if !k.starts_with(' ') && !v.is_empty() {
                values.insert(k.trim().to_string(), v.to_string());
            }
        }
    }
    let masked: String = source[..cut]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .chain(source[cut..].chars())
        .collect();
    (masked, values)
}

// ---------------------------------------------------------------------------
// Document outline

struct Doc<'a> {
    source: &'a str,
    blocks: Vec<Block>,
    /// For each block index that is a heading: one past the last block of its
    /// section (the next heading of the same or a higher level).
    section_end: Vec<usize>,
}

impl<'a> Doc<'a> {
    fn new(source: &'a str, blocks: Vec<Block>) -> Self {
        let mut section_end = vec![blocks.len(); blocks.len()];
        // A stack of open headings gives every section's end in one pass.
        let mut open: Vec<(usize, u8)> = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            if let Block::Heading { level, .. } = b {
                while let Some(&(j, l)) = open.last() {
                    if l >= *level {
                        section_end[j] = i;
                        open.pop();
                    } else {
                        break;
                    }
                }
                open.push((i, *level));
            }
        }
        Doc {
            source,
            blocks,
            section_end,
        }
    }

    fn heading(&self, i: usize) -> Option<(u8, &str, &Span)> {
        match &self.blocks[i] {
            Block::Heading { level, text, span } => Some((*level, text.as_str(), span)),
            _ => None,
        }
    }

    /// Blocks of heading `i`'s section, after the heading itself.
    fn section(&self, i: usize) -> std::ops::Range<usize> {
        i + 1..self.section_end[i]
    }

    /// Source text from the heading to the end of its section.
    fn section_text(&self, i: usize) -> &'a str {
        let start = self.blocks[i].span().start;
        let end = self
            .blocks
            .get(self.section_end[i])
            .map(|b| b.span().start)
            .unwrap_or(self.source.len());
        &self.source[start..end.max(start)]
    }

    /// Blocks of heading `i` up to its first sub-heading.
    fn own_blocks(&self, i: usize) -> std::ops::Range<usize> {
        let end = self
            .section(i)
            .find(|&j| matches!(self.blocks[j], Block::Heading { .. }))
            .unwrap_or(self.section_end[i]);
        i + 1..end
    }
}

// ---------------------------------------------------------------------------
// Units

#[derive(Debug)]
struct RawUnit {
    name: String,
    name_span: Span,
    dir: Option<String>,
    layer: Option<u32>,
    /// Explicit dependencies, with where each was written.
    deps: Vec<(String, Span)>,
    declared_sprints: Option<(usize, Span)>,
    /// Block range the unit's sprints are searched in.
    scope: std::ops::Range<usize>,
    sprints: Vec<RawSprint>,
}

impl RawUnit {
    fn new(name: String, name_span: Span, scope: std::ops::Range<usize>) -> Self {
        RawUnit {
            name,
            name_span,
            dir: None,
            layer: None,
            deps: Vec::new(),
            declared_sprints: None,
            scope,
            sprints: Vec::new(),
        }
    }
}

const UNIT_COLUMNS: &[&str] = &[
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

fn norm(s: &str) -> String {
    s.trim()
        .trim_matches(|c| c == '*' || c == '`' || c == '_')
        .trim()
        .to_lowercase()
}

fn column(header: &[Cell], names: &[&str]) -> Option<usize> {
    header
        .iter()
        .position(|c| names.contains(&norm(&c.text).as_str()))
}

fn column_where(header: &[Cell], pred: impl Fn(&str) -> bool) -> Option<usize> {
    header.iter().position(|c| pred(&norm(&c.text)))
}

/// A unit or dependency name as written: backticks, emphasis and trailing
/// slashes removed.
pub(crate) fn clean_name(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| c == '`' || c == '*' || c == '"')
        .trim()
        .trim_end_matches('/')
        .to_string()
}

/// Split a dependency cell or line into names; dashes and "none" mean empty.
fn split_names(s: &str) -> Vec<String> {
    s.replace(" and ", ",")
        .split([',', ';'])
        .map(clean_name)
        .filter(|n| {
            let l = n.to_lowercase();
            !n.is_empty() && !matches!(l.as_str(), "-" | "—" | "–" | "none" | "n/a" | "(none)")
        })
        .collect()
}

/// Split a criteria cell on `;` (criteria themselves may contain commas).
fn split_criteria(s: &str) -> Vec<String> {
    s.split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !matches!(*c, "-" | "—" | "–"))
        .map(str::to_string)
        .collect()
}

/// The first number in a layer cell like `0`, `Layer 1` or `L2`.
fn parse_layer(s: &str) -> Option<u32> {
    let digits: String = s
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

fn detect_units(
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
fn layer_table(doc: &Doc) -> HashMap<String, u32> {
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

fn is_layer_listing(header: &[Cell], rows: &[super::markdown::Row]) -> bool {
    let (Some(_), Some(n)) = (
        column(header, &["layer", "tier"]),
        column(header, UNIT_COLUMNS),
    ) else {
        return false;
    };
    rows.iter()
        .any(|r| r.cells.get(n).is_some_and(|c| c.text.contains(',')))
}

fn units_from_table(
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
            if unit.deps.is_empty() && unit.scope.start > 0 {
                // A `Dependencies:` line in the unit's own section is explicit
                // too, and wins over the layers (issue 15).
                let mut section = RawUnit::new(String::new(), unit.name_span.clone(), 0..0);
                read_unit_fields(doc, unit.scope.start - 1, &mut section);
                unit.deps = section.deps;
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
struct SectionIndex {
    sections: Vec<(usize, Vec<String>)>,
    by_token: HashMap<String, Vec<usize>>,
}

fn unit_section_index(doc: &Doc) -> SectionIndex {
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

fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .map(|t| t.trim_matches('.').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn contains_seq(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The section holding a table unit's sprints: the first heading naming the
/// unit (or its directory) whose section contains sprint definitions.
fn find_unit_section(
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

fn scope_has_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> bool {
    scope.clone().any(|j| {
        doc.heading(j)
            .is_some_and(|(_, t, _)| sprint_heading(t).is_some() || task_heading(t).is_some())
            || matches!(&doc.blocks[j], Block::Table { header, .. } if is_sprint_table(header))
    })
}

fn strip_unit_prefix(text: &str) -> String {
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

fn units_from_sections(doc: &Doc) -> Vec<RawUnit> {
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
fn read_unit_fields(doc: &Doc, heading: usize, unit: &mut RawUnit) {
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

/// The span of one line of a block, found in the source (falls back to the
/// whole block).
fn line_span(source: &str, block: &Span, line: &str) -> Span {
    let key = line.split(':').next().unwrap_or(line).trim();
    source
        .get(block.clone())
        .and_then(|s| s.find(key.trim_matches('*')))
        .map(|off| {
            let start = block.start + off;
            let end = source[start..block.end]
                .find('\n')
                .map(|e| start + e)
                .unwrap_or(block.end);
            start..end
        })
        .unwrap_or_else(|| block.clone())
}

// ---------------------------------------------------------------------------
// Sprints

#[derive(Debug)]
struct RawSprint {
    id: SprintId,
    span: Span,
    sprint: Sprint,
}

/// `Sprint 2a: Name` (also `—`, `-`, `.` as the separator, or none).
fn sprint_heading(text: &str) -> Option<(String, String)> {
    let rest = text
        .trim()
        .strip_prefix("Sprint ")
        .or_else(|| text.trim().strip_prefix("sprint "))?;
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let name = rest[id.len()..]
        .trim_start()
        .trim_start_matches([':', '—', '–', '-', '.'])
        .trim();
    Some((id, name.to_string()))
}

/// `Task 3.2: Name` → (3, "Name").
fn task_heading(text: &str) -> Option<(u32, String)> {
    let rest = text.trim().strip_prefix("Task ")?;
    let (num, name) = rest.split_once(':')?;
    let (major, minor) = num.trim().split_once('.')?;
    if minor.is_empty() || !minor.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((major.parse().ok()?, name.trim().to_string()))
}

fn is_sprint_table(header: &[Cell]) -> bool {
    column(header, &["sprint", "sprint id", "id", "#"]).is_some()
        && column(
            header,
            &[
                "name",
                "description",
                "goal",
                "title",
                "sprint name",
                "deliverable",
            ],
        )
        .is_some()
        && column(header, UNIT_COLUMNS).is_none()
}

fn detect_sprints(
    doc: &Doc,
    scope: std::ops::Range<usize>,
    problems: &mut Vec<Problem>,
) -> (Vec<RawSprint>, Option<SprintSource>) {
    let id_problem = |span: Span, id: &str, problems: &mut Vec<Problem>| {
        problems.push(
            Problem::new(
                ProblemCode::BadSprintId,
                format!("`{id}` is not a sprint id"),
            )
            .label(span, "here")
            .help("sprint ids are a number with an optional lower-case letter: 3, 2a, 2b"),
        );
    };

    // 1. Sprint headers.
    let mut sprints = Vec::new();
    for i in scope.clone() {
        let Some((_, text, span)) = doc.heading(i) else {
            continue;
        };
        let Some((id, name)) = sprint_heading(text) else {
            continue;
        };
        match id.parse::<SprintId>() {
            Ok(id) => {
                let sprint = read_sprint(doc, i, id.clone(), name);
                sprints.push(RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                });
            }
            Err(_) => id_problem(span.clone(), &id, problems),
        }
    }
    if !sprints.is_empty() {
        return (sprints, Some(SprintSource::Headers));
    }

    // 2. A sprint table.
    for i in scope.clone() {
        let Block::Table { header, rows, .. } = &doc.blocks[i] else {
            continue;
        };
        if !is_sprint_table(header) {
            continue;
        }
        let id_col = column(header, &["sprint", "sprint id", "id", "#"])
            .expect("checked by is_sprint_table");
        let name_col = column(
            header,
            &["name", "title", "sprint name", "goal", "deliverable"],
        );
        let desc_col = column(header, &["description", "tasks", "scope", "deliverables"]);
        let exit_col = column_where(header, |h| {
            h.contains("exit")
                || h.contains("validation")
                || h.contains("done when")
                || h.contains("acceptance")
        });
        let type_col = column(header, &["type", "task type"]);
        for row in rows {
            let Some(id_cell) = row.cells.get(id_col) else {
                continue;
            };
            let raw_id = id_cell
                .text
                .trim()
                .trim_start_matches("Sprint")
                .trim()
                .trim_matches('`');
            let Ok(id) = raw_id.parse::<SprintId>() else {
                id_problem(id_cell.span.clone(), raw_id, problems);
                continue;
            };
            let cell = |c: Option<usize>| {
                c.and_then(|c| row.cells.get(c))
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            };
            let description = cell(desc_col);
            let name = Some(cell(name_col))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| description.clone());
            let tasks: Vec<String> = Some(description)
                .filter(|d| !d.is_empty() && *d != name)
                .into_iter()
                .collect();
            let exit: Vec<Criterion> = split_criteria(&cell(exit_col))
                .iter()
                .map(|t| classify_criterion(t, &inline_code(t), false))
                .collect();
            let task_type = parse_task_type(&cell(type_col))
                .unwrap_or_else(|| classify_task_type(&name, &tasks));
            let body = doc.source[row.span.clone()].to_string();
            sprints.push(RawSprint {
                id: id.clone(),
                span: row.span.clone(),
                sprint: Sprint {
                    id,
                    name,
                    task_type,
                    tasks,
                    entry: Vec::new(),
                    exit,
                    files: code_paths(&body),
                    body,
                },
            });
        }
        if !sprints.is_empty() {
            return (sprints, Some(SprintSource::Table));
        }
    }

    // 3. `### Task N.M:` groups.
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for i in scope.clone() {
        if let Some((_, text, _)) = doc.heading(i) {
            if let Some((major, _)) = task_heading(text) {
                groups.entry(major).or_default().push(i);
            }
        }
    }
    if !groups.is_empty() {
        for (major, headings) in groups {
            let id = SprintId {
                number: major,
                suffix: String::new(),
            };
            let first = headings[0];
            let name = task_heading(doc.heading(first).map(|h| h.1).unwrap_or_default())
                .map(|(_, n)| n)
                .unwrap_or_default();
            let mut sprint = read_sprint(doc, first, id.clone(), name);
            for &h in &headings[1..] {
                let more = read_sprint(doc, h, id.clone(), String::new());
                if let Some((_, t, _)) = doc.heading(h) {
                    sprint.tasks.push(t.to_string());
                }
                sprint.tasks.extend(more.tasks);
                sprint.entry.extend(more.entry);
                sprint.exit.extend(more.exit);
                sprint.files.extend(more.files);
                sprint.body.push_str(&more.body);
            }
            sprint.files.sort();
            sprint.files.dedup();
            let span = doc.blocks[first].span();
            sprints.push(RawSprint { id, span, sprint });
        }
        return (sprints, Some(SprintSource::TaskGroups));
    }

    // 4. Checklist groups: every heading whose own text holds `- [ ]` items.
    let mut n = 0;
    for i in scope {
        let Some((level, text, span)) = doc.heading(i) else {
            continue;
        };
        if level < 2 || criteria_label(text).is_some() || is_template_heading(text) {
            continue;
        }
        let has_checks = doc.own_blocks(i).any(|j| {
            matches!(
                doc.blocks[j],
                Block::Item {
                    checked: Some(_),
                    ..
                }
            )
        });
        if !has_checks {
            continue;
        }
        n += 1;
        let id = SprintId {
            number: n,
            suffix: String::new(),
        };
        let sprint = read_sprint(doc, i, id.clone(), clean_name(text));
        sprints.push(RawSprint {
            id,
            span: span.clone(),
            sprint,
        });
    }
    if sprints.is_empty() {
        (sprints, None)
    } else {
        (sprints, Some(SprintSource::Checklists))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Entry,
    Exit,
    Rules,
    Expected,
    Tasks,
}

fn criteria_label(text: &str) -> Option<Label> {
    let t = norm(text.trim_end_matches(':'));
    let t = t.trim_end_matches(':').trim();
    Some(match t {
        "entry criteria" | "entry checks" | "preconditions" | "prerequisites" | "entry" => {
            Label::Entry
        }
        "exit criteria"
        | "exit checks"
        | "validation"
        | "validate"
        | "verify"
        | "verification"
        | "acceptance criteria"
        | "done when"
        | "definition of done"
        | "execute"
        | "exit" => Label::Exit,
        "rules" | "constraints" => Label::Rules,
        "expected" | "expected output" | "expected result" => Label::Expected,
        "tasks" | "deliverables" | "steps" | "scope" | "files" => Label::Tasks,
        _ => return None,
    })
}

/// A paragraph line `Label: rest` whose label is a known one.
fn label_line(line: &str) -> Option<(Label, &str)> {
    let (head, rest) = line.split_once(':')?;
    criteria_label(head).map(|l| (l, rest.trim()))
}

fn read_sprint(doc: &Doc, heading: usize, id: SprintId, name: String) -> Sprint {
    let mut sprint = Sprint {
        id,
        name: clean_name(&name),
        task_type: TaskType::Code,
        tasks: Vec::new(),
        entry: Vec::new(),
        exit: Vec::new(),
        files: Vec::new(),
        body: doc.section_text(heading).to_string(),
    };
    let mut explicit_type = None;
    let mut label = Label::Tasks;
    let mut unlabelled_code = Vec::new();
    for j in doc.section(heading) {
        match &doc.blocks[j] {
            Block::Heading { text, .. } => label = criteria_label(text).unwrap_or(Label::Tasks),
            Block::Paragraph { text, .. } => {
                for line in text.lines() {
                    if let Some((key, value)) = line.split_once(':') {
                        if matches!(norm(key).as_str(), "type" | "task type") {
                            explicit_type = parse_task_type(value).or(explicit_type);
                            continue;
                        }
                    }
                    if let Some((l, rest)) = label_line(line) {
                        label = l;
                        if !rest.is_empty() {
                            push_criterion(&mut sprint, l, rest, &inline_code(rest), false);
                        }
                    }
                }
            }
            Block::Item {
                text,
                checked,
                code,
                ..
            } => match label {
                Label::Tasks => sprint.tasks.push(text.clone()),
                l => push_criterion(&mut sprint, l, text, code, checked.unwrap_or(false)),
            },
            Block::Code { info, text, .. } => {
                if info.trim() == "mermaid" {
                    continue;
                }
                let command = strip_prompts(text);
                if command.is_empty() {
                    continue;
                }
                match label {
                    Label::Expected => {
                        if let Some(last) = sprint
                            .exit
                            .iter_mut()
                            .rev()
                            .find(|c| c.kind == CriterionKind::Command)
                        {
                            last.expected = Some(text.trim_end().to_string());
                        }
                    }
                    Label::Entry => sprint.entry.push(command_criterion(command)),
                    Label::Exit => sprint.exit.push(command_criterion(command)),
                    Label::Tasks => unlabelled_code.push(command),
                    Label::Rules => {}
                }
            }
            Block::Table { .. } => {}
        }
    }
    sprint.task_type =
        explicit_type.unwrap_or_else(|| classify_task_type(&sprint.name, &sprint.tasks));
    // A command sprint's bare code block is the command it runs, and running
    // it successfully is what "done" means.
    if sprint.task_type == TaskType::Command
        && !sprint.exit.iter().any(|c| c.kind == CriterionKind::Command)
    {
        sprint
            .exit
            .extend(unlabelled_code.into_iter().map(command_criterion));
    }
    sprint.files = code_paths(&sprint.body);
    sprint
}

fn push_criterion(sprint: &mut Sprint, label: Label, text: &str, code: &[String], checked: bool) {
    let c = classify_criterion(text, code, checked);
    match label {
        Label::Entry | Label::Rules => sprint.entry.push(c),
        Label::Exit | Label::Expected => sprint.exit.push(c),
        Label::Tasks => sprint.tasks.push(text.to_string()),
    }
}

fn command_criterion(command: String) -> Criterion {
    Criterion {
        kind: CriterionKind::Command,
        text: command.clone(),
        command: Some(command),
        expected: None,
        checked: false,
    }
}

/// Drop `$ ` prompts and blank lines from a fenced command block.
fn strip_prompts(text: &str) -> String {
    text.lines()
        .map(|l| l.strip_prefix("$ ").unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Inline code spans written as `` `x` `` in already-rendered text.
pub(crate) fn inline_code(text: &str) -> Vec<String> {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd part is code only when a closing backtick follows it.
    parts
        .iter()
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && i + 1 < parts.len() && !s.is_empty())
        .map(|(_, s)| s.to_string())
        .collect()
}

const SINGLE_WORD_COMMANDS: &[&str] = &[
    "make", "pytest", "tox", "just", "ninja", "true", "false", "nox",
];

pub(crate) fn looks_like_command(code: &str) -> bool {
    let code = code.trim();
    code.contains(' ') || SINGLE_WORD_COMMANDS.contains(&code)
}

/// Type a criterion (spec §E-25): a statement about a file or the state is an
/// assertion, an inline command is a command, anything else a checklist item.
pub(crate) fn classify_criterion(text: &str, code: &[String], checked: bool) -> Criterion {
    let lower = text.to_lowercase();
    let stated = [
        "exists",
        "is present",
        "contains",
        "shows",
        "equals",
        "is set",
        "is marked",
    ];
    let base = Criterion {
        kind: CriterionKind::Checklist,
        text: text.to_string(),
        command: None,
        expected: None,
        checked,
    };
    if let Some(first) = code.first() {
        if stated.iter().any(|w| lower.contains(w)) && !looks_like_command(first) {
            let command = lower
                .contains("exists")
                .then(|| format!("test -e '{}'", first.replace('\'', "'\\''")));
            return Criterion {
                kind: CriterionKind::Assertion,
                command,
                ..base
            };
        }
        if looks_like_command(first) {
            return Criterion {
                kind: CriterionKind::Command,
                command: Some(first.clone()),
                ..base
            };
        }
    }
    if stated.iter().any(|w| lower.contains(w)) {
        return Criterion {
            kind: CriterionKind::Assertion,
            ..base
        };
    }
    base
}

fn parse_task_type(s: &str) -> Option<TaskType> {
    Some(match norm(s).as_str() {
        "code" => TaskType::Code,
        "command" => TaskType::Command,
        "background" => TaskType::Background,
        "deferred" => TaskType::Deferred,
        "manual" => TaskType::Manual,
        _ => return None,
    })
}

/// Task-type keywords of spec §E-28, read from the sprint's name (and its
/// first task when the name says nothing). Verbs count only as the first word
/// so that "Implement the run loop" stays `code`.
pub(crate) fn classify_task_type(name: &str, tasks: &[String]) -> TaskType {
    let classify = |text: &str| -> Option<TaskType> {
        let l = text.to_lowercase();
        let first = l.split_whitespace().next().unwrap_or("");
        let has = |words: &[&str]| words.iter().any(|w| l.contains(w));
        if has(&[
            "listen",
            "visit",
            "check browser",
            "spot-check",
            "spot check",
            "manual",
            "human review",
        ]) {
            Some(TaskType::Manual)
        } else if has(&["wait for", "monitor", "check deployment"]) {
            Some(TaskType::Deferred)
        } else if has(&["kick off", "nohup", "background"]) || first == "start" {
            Some(TaskType::Background)
        } else if matches!(first, "run" | "execute" | "deploy") {
            Some(TaskType::Command)
        } else if matches!(
            first,
            "write" | "create" | "implement" | "build" | "fix" | "add"
        ) {
            Some(TaskType::Code)
        } else {
            None
        }
    };
    classify(name)
        .or_else(|| tasks.first().and_then(|t| classify(t)))
        .unwrap_or(TaskType::Code)
}

/// Paths written in backticks (`src/lib.rs`, `PROGRESS.md`).
fn code_paths(text: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for code in inline_code(text) {
        let c = code.trim();
        let is_path = !c.contains(char::is_whitespace)
            && (c.contains('/')
                || c.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && (1..=5).contains(&ext.len())
                        && ext.chars().all(|x| x.is_ascii_alphanumeric())
                        && ext.chars().any(|x| x.is_ascii_alphabetic())
                }))
            && !c.contains("://");
        if is_path {
            out.insert(c.to_string());
        }
    }
    out.into_iter().collect()
}

// ---------------------------------------------------------------------------
// Dependencies

/// Mermaid `A --> B` edges and arrow lines (`A -> B`, `A → B`, `A ──► B`) in
/// code blocks under a dependency heading; and free `depends on` / `requires`
/// text inside unit sections. An edge `A --> B` means B depends on A.
fn detect_graph_edges(doc: &Doc, units: &mut [RawUnit], problems: &mut Vec<Problem>) {
    if units.len() < 2 {
        return;
    }
    let index: HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.to_lowercase(), i))
        .collect();
    let mut under_graph_heading = false;
    for b in &doc.blocks {
        match b {
            Block::Heading { text, .. } => {
                let l = text.to_lowercase();
                under_graph_heading = l.contains("dependenc") || l.contains("graph");
            }
            Block::Code { info, text, span } if info.trim() == "mermaid" || under_graph_heading => {
                let edges = arrow_edges(text);
                let known = edges
                    .iter()
                    .filter(|(a, b)| {
                        index.contains_key(&a.to_lowercase())
                            || index.contains_key(&b.to_lowercase())
                    })
                    .count();
                if known == 0 {
                    continue;
                }
                for (from, to) in edges {
                    match (
                        index.get(&from.to_lowercase()),
                        index.get(&to.to_lowercase()),
                    ) {
                        (Some(_), Some(&t)) => {
                            if !units[t]
                                .deps
                                .iter()
                                .any(|(d, _)| d.eq_ignore_ascii_case(&from))
                            {
                                units[t].deps.push((
                                    units[index[&from.to_lowercase()]].name.clone(),
                                    span.clone(),
                                ));
                            }
                        }
                        _ => {
                            let unknown = if index.contains_key(&from.to_lowercase()) {
                                &to
                            } else {
                                &from
                            };
                            problems.push(unknown_unit(unknown, span.clone(), units));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Free text inside each unit's own section.
    for t in 0..units.len() {
        let scope = units[t].scope.clone();
        for j in scope {
            let (Block::Paragraph { text, span } | Block::Item { text, span, .. }) = &doc.blocks[j]
            else {
                continue;
            };
            // ASCII lower-casing keeps byte offsets valid in `text`.
            let lower = text.to_ascii_lowercase();
            for key in ["depends on ", "requires "] {
                let mut from = 0;
                while let Some(pos) = lower[from..].find(key) {
                    let start = from + pos + key.len();
                    let end = lower[start..]
                        .find(['.', '\n', ')'])
                        .map(|e| start + e)
                        .unwrap_or(lower.len());
                    for name in split_names(&text[start..end]) {
                        if let Some(&d) = index.get(&name.to_lowercase()) {
                            if d != t
                                && !units[t]
                                    .deps
                                    .iter()
                                    .any(|(x, _)| x.eq_ignore_ascii_case(&name))
                            {
                                let dep = units[d].name.clone();
                                units[t].deps.push((dep, span.clone()));
                            }
                        }
                    }
                    from = end;
                }
            }
        }
    }
}

fn arrow_edges(text: &str) -> Vec<(String, String)> {
    let mut edges = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("graph") || line.starts_with("flowchart") || line.starts_with("%%") {
            continue;
        }
        let mut normalized = line.to_string();
        for arrow in ["──►", "─►", "-->", "->", "→", "==>"] {
            normalized = normalized.replace(arrow, "\u{1}");
        }
        // Drop mermaid edge labels: A -->|label| B.
        let parts: Vec<String> = normalized
            .split('\u{1}')
            .map(|p| {
                let p = p.trim();
                let p = if let Some(labelled) = p.strip_prefix('|') {
                    labelled
                        .split_once('|')
                        .map(|(_, r)| r.trim())
                        .unwrap_or("")
                } else {
                    p
                };
                node_name(p)
            })
            .collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            continue;
        }
        for w in parts.windows(2) {
            edges.push((w[0].clone(), w[1].clone()));
        }
    }
    edges
}

/// A mermaid node `id[Label]` or `id(Label)` is known by its label.
fn node_name(p: &str) -> String {
    if let Some(open) = p.find(['[', '(', '{']) {
        let inner = p[open + 1..]
            .trim_end_matches([']', ')', '}'])
            .trim_matches(|c| c == '"' || c == '(' || c == '[');
        if !inner.is_empty() {
            return clean_name(inner);
        }
        return clean_name(&p[..open]);
    }
    clean_name(p)
}

fn unknown_unit(name: &str, span: Span, units: &[RawUnit]) -> Problem {
    let known: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
    Problem::new(
        ProblemCode::UnknownUnit,
        format!("dependency on unknown unit `{name}`"),
    )
    .label(span, format!("`{name}` is not a work unit of this plan"))
    .help(format!("the plan's units are: {}", known.join(", ")))
}

fn dependency_structure(units: &[RawUnit]) -> DependencyStructure {
    if units.iter().any(|u| u.layer.is_some()) {
        DependencyStructure::Layers
    } else if units.iter().any(|u| !u.deps.is_empty()) {
        DependencyStructure::Graph
    } else if units.len() == 1 {
        DependencyStructure::Sequential
    } else {
        DependencyStructure::Parallel
    }
}

// ---------------------------------------------------------------------------
// Validation

fn validate(units: &[RawUnit], problems: &mut Vec<Problem>) {
    let mut seen: HashMap<String, &RawUnit> = HashMap::new();
    for unit in units {
        if let Some(first) = seen.get(&unit.name) {
            problems.push(
                Problem::new(
                    ProblemCode::DuplicateUnit,
                    format!("work unit `{}` is defined twice", unit.name),
                )
                .label(first.name_span.clone(), "first defined here")
                .label(unit.name_span.clone(), "defined again here")
                .help("give every work unit a distinct name"),
            );
            // Both names resolve to the same sprints; checking them again
            // would only repeat the first unit's problems.
            continue;
        }
        seen.insert(unit.name.clone(), unit);
        if unit.sprints.is_empty() {
            problems.push(
                Problem::new(
                    ProblemCode::NoSprints,
                    format!("work unit `{}` has no sprints", unit.name),
                )
                .label(
                    unit.name_span.clone(),
                    "no sprint definitions found for this unit",
                )
                .help(format!(
                    "add `### Sprint 1: <name>` headings under a heading that names `{}`",
                    unit.name
                )),
            );
        }
        if let Some((declared, span)) = &unit.declared_sprints {
            if !unit.sprints.is_empty() && *declared != unit.sprints.len() {
                problems.push(
                    Problem::new(
                        ProblemCode::SprintCount,
                        format!(
                            "the table says `{}` has {} sprints but {} are defined",
                            unit.name,
                            declared,
                            unit.sprints.len()
                        ),
                    )
                    .label(
                        span.clone(),
                        format!("found {} sprint definitions", unit.sprints.len()),
                    )
                    .help("update the Sprints column or the sprint sections so they agree"),
                );
            }
        }
        let mut ids: HashMap<&SprintId, &RawSprint> = HashMap::new();
        let mut previous: Option<&RawSprint> = None;
        for s in &unit.sprints {
            if let Some(first) = ids.get(&s.id) {
                problems.push(
                    Problem::new(
                        ProblemCode::DuplicateSprint,
                        format!("sprint {} of `{}` is defined twice", s.id, unit.name),
                    )
                    .label(first.span.clone(), "first defined here")
                    .label(s.span.clone(), "defined again here")
                    .help("sprint ids must be unique within a work unit"),
                );
            } else {
                if let Some(p) = previous {
                    if s.id < p.id {
                        problems.push(
                            Problem::new(
                                ProblemCode::SprintOrder,
                                format!("sprint {} of `{}` comes after sprint {}", s.id, unit.name, p.id),
                            )
                            .label(p.span.clone(), format!("sprint {} is here", p.id))
                            .label(s.span.clone(), "out of order")
                            .help("write sprints in order (1 < 2a < 2b < 3); they run in the order of their ids"),
                        );
                    }
                }
                ids.insert(&s.id, s);
                previous = Some(s);
            }
        }
        for (dep, span) in &unit.deps {
            if !units.iter().any(|u| &u.name == dep) {
                problems.push(unknown_unit(dep, span.clone(), units));
            }
        }
    }
    if let Some(cycle) = find_cycle(units) {
        let first = &units[cycle[0]];
        let names: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&cycle[0]))
            .map(|&i| units[i].name.as_str())
            .collect();
        let mut p = Problem::new(
            ProblemCode::DependencyCycle,
            format!("dependency cycle: {}", names.join(" → ")),
        )
        .help("remove one of these dependencies so the units can run in some order");
        p = p.label(
            first.name_span.clone(),
            format!("`{}` is part of the cycle", first.name),
        );
        if let Some((_, span)) = first
            .deps
            .iter()
            .find(|(d, _)| *d == units[cycle[1 % cycle.len()]].name)
        {
            p = p.label(span.clone(), "this dependency closes the cycle");
        }
        problems.push(p);
    }
}

/// A cycle in the explicit dependency graph, as unit indices, if any.
fn find_cycle(units: &[RawUnit]) -> Option<Vec<usize>> {
    let index: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = units
        .iter()
        .map(|u| {
            u.deps
                .iter()
                .filter_map(|(d, _)| index.get(d.as_str()).copied())
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS: plans can be large.
    let mut mark = vec![0u8; units.len()];
    for root in 0..units.len() {
        if mark[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        mark[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = edges[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    0 => {
                        mark[dep] = 1;
                        stack.push((dep, 0));
                    }
                    1 => {
                        let at = stack
                            .iter()
                            .position(|(n, _)| *n == dep)
                            .expect("on-stack node is in the stack");
                        return Some(stack[at..].iter().map(|(n, _)| *n).collect());
                    }
                    _ => {}
                }
            } else {
                mark[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

fn resolve_units(raw: Vec<RawUnit>) -> Vec<Unit> {
    let layers: Vec<(String, Option<u32>)> =
        raw.iter().map(|u| (u.name.clone(), u.layer)).collect();
    raw.into_iter()
        .map(|u| {
            let deps = if !u.deps.is_empty() {
                let mut d: Vec<String> = Vec::new();
                for (name, _) in u.deps {
                    if !d.contains(&name) {
                        d.push(name);
                    }
                }
                d
            } else if let Some(layer) = u.layer {
                layers
                    .iter()
                    .filter(|(_, l)| l.is_some_and(|l| l < layer))
                    .map(|(n, _)| n.clone())
                    .collect()
            } else {
                Vec::new()
            };
            Unit {
                name: u.name,
                dir: u.dir,
                layer: u.layer,
                deps,
                sprints: u.sprints.into_iter().map(|s| s.sprint).collect(),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Template, plan-wide checks, referenced files

fn is_template_heading(text: &str) -> bool {
    let l = text.to_lowercase();
    l.contains("appendix d")
        || l.contains("dispatch template")
        || l.contains("sprint prompt template")
        || l.contains("agent prompt")
        || l.contains("prompt template")
}

fn detect_template(doc: &Doc) -> (Option<String>, Option<String>) {
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if !is_template_heading(text) {
            continue;
        }
        let code = doc.section(i).find_map(|j| match &doc.blocks[j] {
            Block::Code { text, .. } => Some(text.clone()),
            _ => None,
        });
        let body = code.unwrap_or_else(|| {
            let t = doc.section_text(i);
            t.split_once('\n')
                .map(|(_, rest)| rest.trim().to_string())
                .unwrap_or_default()
        });
        if !body.trim().is_empty() {
            return (Some(body), Some(format!("section \"{text}\"")));
        }
    }
    for b in &doc.blocks {
        let Block::Code { text, .. } = b else {
            continue;
        };
        if let Some(t) = yaml_template(text) {
            return (Some(t), Some("fenced block with `template:`".to_string()));
        }
    }
    (None, None)
}

/// `template: |` followed by an indented block, or `template: "one line"`.
fn yaml_template(text: &str) -> Option<String> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("template:") else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let rest = rest.trim();
        if !rest.starts_with('|') && !rest.starts_with('>') {
            return Some(rest.trim_matches('"').to_string()).filter(|s| !s.is_empty());
        }
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .collect();
        let strip = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let joined: Vec<&str> = body.iter().map(|l| l.get(strip..).unwrap_or("")).collect();
        return Some(joined.join("\n").trim_end().to_string()).filter(|s| !s.is_empty());
    }
    None
}

/// Entry Checks / Exit Checks / Rules / Constraints sections that are not
/// inside a sprint apply to every sprint.
fn plan_checks(doc: &Doc) -> (Vec<Criterion>, Vec<Criterion>, Vec<String>) {
    let (mut entry, mut exit, mut rules) = (Vec::new(), Vec::new(), Vec::new());
    let mut inside_sprint_until = 0usize;
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if sprint_heading(text).is_some() || task_heading(text).is_some() {
            inside_sprint_until = inside_sprint_until.max(doc.section_end[i]);
            continue;
        }
        if i < inside_sprint_until {
            continue;
        }
        let l = norm(text);
        let which = if l.ends_with("entry checks") {
            1
        } else if l.ends_with("exit checks") {
            2
        } else if l.ends_with("rules") || l.ends_with("constraints") {
            3
        } else {
            continue;
        };
        for j in doc.own_blocks(i) {
            match &doc.blocks[j] {
                Block::Item {
                    text,
                    code,
                    checked,
                    ..
                } => {
                    let c = classify_criterion(text, code, checked.unwrap_or(false));
                    match which {
                        1 => entry.push(c),
                        2 => exit.push(c),
                        _ => rules.push(text.clone()),
                    }
                }
                Block::Code { text, info, .. } if which != 3 && info.trim() != "mermaid" => {
                    let c = command_criterion(strip_prompts(text));
                    if which == 1 {
                        entry.push(c)
                    } else {
                        exit.push(c)
                    }
                }
                _ => {}
            }
        }
    }
    (entry, exit, rules)
}

const REFERENCED_STEMS: &[&str] = &[
    "PROGRESS",
    "TODO",
    "STATUS",
    "NOTES",
    "DECISIONS",
    "CHANGELOG",
    "CONTEXT",
];

/// Progress, TODO and status files the plan mentions (spec §E-27).
fn referenced_files(source: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for word in source.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '(' | ')' | '[' | ']' | ',' | '"' | '\'' | '*' | '|'
            )
    }) {
        let word = word
            .trim_end_matches([':', ';', '.'])
            .trim_end_matches(".)");
        let Some(stem) = word
            .strip_suffix(".md")
            .or_else(|| word.strip_suffix(".toml"))
        else {
            continue;
        };
        let file_stem = stem.rsplit('/').next().unwrap_or(stem);
        if REFERENCED_STEMS.contains(&file_stem) && !word.contains('<') && !word.contains('$') {
            out.insert(word.trim_start_matches("./").to_string());
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> ParseContext {
        ParseContext {
            dir_name: "proj".into(),
        }
    }

    #[test]
    fn sprint_headings_accept_compound_ids_and_separators() {
        assert_eq!(
            sprint_heading("Sprint 2a: Lexer"),
            Some(("2a".into(), "Lexer".into()))
        );
        assert_eq!(
            sprint_heading("Sprint 3 — Parser"),
            Some(("3".into(), "Parser".into()))
        );
        assert_eq!(sprint_heading("Sprints overview"), None);
        assert_eq!(sprint_heading("Sprint planning"), None);
    }

    #[test]
    fn frontmatter_is_read_and_masked() {
        let src = "---\nfeature_name: Operation Tidy Lemur\n---\n# T\n\n## Sprint 1: A\n- do it\n";
        let plan = parse(src, &ctx()).expect("valid plan");
        assert_eq!(plan.feature_name.as_deref(), Some("Operation Tidy Lemur"));
        assert_eq!(plan.title.as_deref(), Some("T"));
        assert_eq!(plan.units[0].sprints.len(), 1);
    }

    #[test]
    fn layers_alone_mean_every_lower_layer() {
        let src = "# P\n\n| Package | Layer |\n|---|---|\n| a | 0 |\n| b | 0 |\n| c | 1 |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
        let plan = parse(src, &ctx()).expect("valid plan");
        assert_eq!(
            plan.unit("c").map(|u| u.deps.clone()),
            Some(vec!["a".into(), "b".into()])
        );
        assert!(plan.unit("a").is_some_and(|u| u.deps.is_empty()));
    }

    #[test]
    fn explicit_dependencies_win_over_layers() {
        let src = "# P\n\n| Package | Layer | Depends on |\n|---|---|---|\n| a | 0 | — |\n| b | 0 | — |\n| c | 1 | b |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
        let plan = parse(src, &ctx()).expect("valid plan");
        assert_eq!(
            plan.unit("c").map(|u| u.deps.clone()),
            Some(vec!["b".into()])
        );
    }

    #[test]
    fn a_dependencies_line_in_a_tables_unit_section_wins_over_layers() {
        let src = "# P\n\n| Package | Layer |\n|---|---|\n| a | 0 |\n| b | 0 |\n| c | 1 |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n\nDependencies: b\n\n### Sprint 1: x\n";
        let plan = parse(src, &ctx()).expect("valid plan");
        assert_eq!(
            plan.unit("c").map(|u| u.deps.clone()),
            Some(vec!["b".into()])
        );
        assert!(plan.unit("a").is_some_and(|u| u.deps.is_empty()));
    }

    #[test]
    fn criteria_are_typed() {
        let c = classify_criterion(
            "`cargo test -p parser` passes",
            &["cargo test -p parser".into()],
            false,
        );
        assert_eq!(c.kind, CriterionKind::Command);
        let a = classify_criterion("`src/lib.rs` exists", &["src/lib.rs".into()], false);
        assert_eq!(a.kind, CriterionKind::Assertion);
        assert_eq!(a.command.as_deref(), Some("test -e 'src/lib.rs'"));
        let h = classify_criterion("Code reviewed by a human", &[], false);
        assert_eq!(h.kind, CriterionKind::Checklist);
    }

    #[test]
    fn cycles_are_found() {
        let src = "# P\n\n| Unit | Depends on |\n|---|---|\n| a | c |\n| b | a |\n| c | b |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
        let problems = parse(src, &ctx()).expect_err("cycle");
        assert!(
            problems
                .iter()
                .any(|p| p.code == ProblemCode::DependencyCycle
                    && p.message.contains("a → c → b → a")),
            "{problems:?}"
        );
    }
}
