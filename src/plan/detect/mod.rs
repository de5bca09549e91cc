//! The detection heuristics of spec §E: turn Markdown blocks into a plan.
//!
//! One spanned document ([`Doc`]) is read by small detectors, each in its own
//! file saying which shapes it recognises: [`units`], [`sprints`] (with
//! [`headings`]), [`criteria`], [`dependencies`], [`template`],
//! [`task_types`], [`completion`] and [`references`]; [`validate`] checks the
//! result.
//!
//! Each heuristic family (units, sprints, dependencies, criteria, template,
//! referenced files, task types) is tried in the spec's priority order and the
//! first that finds something wins; which one won is recorded in
//! [`Detection`]. Work happens on spanned "raw" structures so that validation
//! can point into the file; [`parse`] then returns the span-free [`Plan`].

pub(crate) use names::clean_name;

mod about_plan;
mod accounting;
mod agent_columns;
mod bare_boxes;
mod bold_items;
mod bold_steps;
mod breakdown_table;
mod checklist_tree;
mod coded_items;
mod completion;
mod criteria;
mod criteria_label;
mod criteria_units;
mod dependencies;
mod dependency_lines;
mod dialect;
mod doc;
mod done_above;
mod done_elsewhere;
mod done_named;
mod dropped;
mod elsewhere;
mod fences;
mod field_table;
mod gantt;
mod group_items;
mod guesses;
mod heading_context;
mod headings;
mod index_graph;
mod index_items;
mod interleaved;
mod last_resort;
mod lazy_labels;
mod legend;
mod levels;
mod line_marks;
mod locale;
mod names;
mod numbered;
mod numbered_rows;
mod order_prose;
mod outline;
mod parallel;
mod passes;
mod phase_dependencies;
mod phase_graph;
mod references;
mod repeats;
mod restated;
mod restating_units;
mod section_board;
mod section_steps;
mod section_units;
mod series_tail;
mod short_find;
mod shortcodes;
mod sprint_graph;
mod sprint_table;
mod sprint_text;
mod sprint_word;
mod sprints;
mod state_columns;
mod stated_deps;
mod status_heading;
mod status_rows;
mod status_tables;
mod status_words;
mod step_labels;
mod steps;
mod story;
mod stream_units;
mod table_graph;
mod task_list;
mod task_types;
mod template;
#[cfg(test)]
mod tests;
mod tickets;
mod units;
mod validate;
mod wave_groups;
mod wave_sections;
mod waves;
mod work_table;

pub(crate) use completion::strip_done_marks;
pub(crate) use criteria::classify_criterion;
pub(crate) use criteria::inline_code;
use doc::Doc;
pub(crate) use headings::tidy_name;
use passes::{container_step, finer_reading, keeps_done, one_step, tasks_of};
pub(crate) use task_types::classify_task_type;

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::collections::HashSet;

use super::diagnostics::Problem;
use super::diagnostics::ProblemCode;
use super::markdown::blocks;
use super::markdown::Block;
use super::markdown::Cell;
use super::markdown::Row;
use super::markdown::Span;
use super::model::Criterion;
use super::model::CriterionKind;
use super::model::DependencyStructure;
use super::model::Detection;
use super::model::Dialect;
use super::model::DispatchMode;
use super::model::Origin;
use super::model::Plan;
use super::model::Sprint;
use super::model::SprintId;
use super::model::SprintSource;
use super::model::TaskType;
use super::model::Unit;
use super::model::UnitSource;
use super::model::Warning;
use completion::*;
use criteria::*;
use dependencies::*;
use headings::*;
use references::*;
use sprints::*;
use task_types::*;
use template::*;
use units::*;
use validate::*;

/// A heading the parser may read as a unit of work, or as about one (`Sortie
/// 3: x`, `Phase 1 — y`, `Sprint 1 Success`): the canonical writer
/// regenerates such sections instead of keeping them verbatim.
pub(crate) fn is_work_heading(text: &str) -> bool {
    parse_heading(text.trim()).is_some()
}

/// Inputs the parser needs besides the text.
#[derive(Debug, Clone, Default)]
pub struct ParseContext {
    /// The project directory's name: the single unit's name when the plan has
    /// no `# Title`.
    pub dir_name: String,
}

/// Parse a plan, or return every problem found in it. Problems the plan can
/// run with are the plan's warnings.
pub fn parse(source: &str, ctx: &ParseContext) -> Result<Plan, Vec<Problem>> {
    parse_with(source, ctx, false)
}

/// [`parse`], refusing the plan for its warnings too when `strict`.
pub fn parse_with(source: &str, ctx: &ParseContext, strict: bool) -> Result<Plan, Vec<Problem>> {
    if let Some(conflict) = validate::merge_conflict(source) {
        return Err(vec![conflict]);
    }
    let first = parse_once(source, ctx, strict, Pass::First);
    let problems = match first {
        Err(problems) if problems.iter().any(|p| p.code == ProblemCode::NoSprints) => problems,
        // One step for the whole plan says little about its steps: a
        // checklist tree or a table of work in it is finer (see
        // `checklist_tree`, `work_table`).
        Ok(plan) if one_step(&plan) => {
            let finer = |tree: &Plan| tree.sprint_total() > 1 && keeps_done(&plan, tree);
            return Ok(match parse_once(source, ctx, strict, Pass::LastResort) {
                Ok(mut tree) if finer(&tree) && finer_reading(&tree) => {
                    let guess = last_resort::guess(&tree);
                    tree.guesses.push(guess);
                    tree
                }
                // `## Progress` holding the plan's only checklist (a Codex
                // ExecPlan, a `## To-dos` list): the heading names a list,
                // not a step, so each of its items is one.
                _ if container_step(&plan) => {
                    match parse_once(source, ctx, strict, Pass::FlatChecklist) {
                        Ok(mut items)
                            if finer(&items) && items.sprint_total() == tasks_of(&plan) =>
                        {
                            let guess = last_resort::guess(&items);
                            items.guesses.push(guess);
                            items
                        }
                        _ => plan,
                    }
                }
                _ => plan,
            });
        }
        // A table of work read over a guess of numbered headings says so.
        Ok(mut plan) if plan.detection.sprints.contains(&SprintSource::TableRows) => {
            let guess = last_resort::guess(&plan);
            plan.guesses.push(guess);
            return Ok(plan);
        }
        read => return read,
    };
    // The last reading tried before a refusal (see `last_resort`); after
    // it the plan's first flat checklist as its steps, and last its plain
    // sections (the numbered-heading reader says it guessed).
    if let Ok(mut plan) = parse_once(source, ctx, strict, Pass::LastResort)
        .or_else(|_| parse_once(source, ctx, strict, Pass::FlatChecklist))
    {
        let guess = last_resort::guess(&plan);
        plan.guesses.push(guess);
        return Ok(plan);
    }
    parse_once(source, ctx, strict, Pass::Sections)
        .or_else(|_| {
            // Only a text that calls itself work to do (`# Agent task`, `##
            // Instructions`): numbered lists elsewhere are a changelog's
            // entries, a bug's steps to reproduce, a meeting's decisions.
            if !bold_items::headings_name_work(source) {
                return Err(Vec::new());
            }
            parse_once(source, ctx, strict, Pass::NumberedItems).map(|mut plan| {
                plan.guesses.push(last_resort::numbered_guess(&plan));
                plan
            })
        })
        .map_err(|_| problems)
}

/// Which reading a pass tries: the plan's own forms first; then, before a
/// refusal, work written in forms that are elsewhere notes (see
/// `last_resort`); then the plan's first flat checklist as its steps; last,
/// its plain sections (see `section_steps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    First,
    LastResort,
    FlatChecklist,
    Sections,
    /// Plain numbered items anywhere but under a heading about the plan
    /// (`1. Verify the app folder exists.`): a plan written as nothing but
    /// numbered instructions.
    NumberedItems,
}

fn parse_once(
    source: &str,
    ctx: &ParseContext,
    strict: bool,
    pass: Pass,
) -> Result<Plan, Vec<Problem>> {
    let any_bold_item = pass != Pass::First;
    let normalized = outline::lone_cr_to_lf(source);
    let source = normalized.as_deref().unwrap_or(source);
    let (mut masked, frontmatter) = mask_frontmatter(source);
    fences::unwrap_whole_document(&mut masked);
    fences::mask_nested_fences(&mut masked);
    fences::drop_unclosed_fences(&mut masked);
    fences::drop_unclosed_html(&mut masked);
    outline::rewrite_xml_tasks(&mut masked);
    // A byte-order mark would hide the first heading; blank it (same length).
    if masked.starts_with('\u{feff}') {
        masked.replace_range(..3, "   ");
    }
    shortcodes::draw_state_shortcodes(&mut masked);
    legend::mark_done_symbols(&mut masked);
    legend::mark_legend_boxes(&mut masked);
    legend::mark_symbol_boxes(&mut masked);
    let mut by_order = None;
    if any_bold_item {
        outline::unquote_boxes(&mut masked);
    }
    let sentence_legend = legend::sentence_legend(&masked);
    let mut blocks = bare_boxes::items_from_struck_lists(
        lazy_labels::split_lazy_labels(&masked, blocks(&masked)),
        sentence_legend.as_ref(),
    );
    bare_boxes::tick_letter_boxes(&masked, &mut blocks);
    // A checklist tree read as the steps (boxed items over boxed tasks)
    // says more than numbered bold notes elsewhere (`1. **After each
    // sub-task:** tick it`): those stay notes.
    let mut tree_read = false;
    if any_bold_item {
        blocks = coded_items::promote_coded_items(&masked, blocks);
        let headings = |b: &[Block]| {
            b.iter()
                .filter(|b| matches!(b, Block::Heading { .. }))
                .count()
        };
        let before = headings(&blocks);
        blocks = checklist_tree::promote_checklist_tree(&masked, blocks);
        tree_read = headings(&blocks) > before;
    }
    // Work items written in other outline forms, read as headings.
    let blocks = outline::promote_unspaced_headings(&masked, blocks);
    let blocks = group_items::promote_group_items(&masked, blocks);
    let blocks = story::promote_story_tasks(&masked, blocks);
    let blocks = bold_steps::promote_bold_steps(&masked, blocks);
    let plain_items = matches!(pass, Pass::LastResort | Pass::NumberedItems);
    let blocks = bold_items::promote_bold_items(
        &masked,
        blocks,
        any_bold_item && !tree_read,
        plain_items && !tree_read,
        pass == Pass::NumberedItems,
        &mut by_order,
    );
    let mut labels_read = None;
    let blocks = outline::promote_plain_lines(&masked, blocks, any_bold_item, &mut labels_read);
    let blocks = outline::promote_numbered_items(&masked, blocks);
    let blocks = bare_boxes::items_from_bare_boxes(&masked, blocks);
    let blocks = match pass {
        Pass::FlatChecklist => checklist_tree::promote_flat_checklist(&masked, blocks),
        Pass::Sections => section_steps::number_sections(blocks),
        _ => blocks,
    };
    let doc = Doc::new(source, without_inline_code(&masked, blocks));
    let mut problems = Vec::new();

    let title = doc.blocks.iter().find_map(|b| match b {
        Block::Heading { level: 1, text, .. } => Some(clean_name(text)),
        _ => None,
    });

    let (mut raw_units, mut unit_source) = detect_units(&doc, title.as_deref(), ctx, &mut problems);
    // The last reading: a table of work taken for a unit table (its
    // `Title` column) whose rows lead to no sprints is the plan's steps.
    if any_bold_item && matches!(unit_source, UnitSource::Table { .. }) {
        let lost = raw_units
            .iter()
            .all(|u| u.scope.is_empty() && u.heads.is_none());
        if lost
            && !work_table::table_sprints(&doc, 0..doc.blocks.len())
                .sprints
                .is_empty()
        {
            let name = title
                .clone()
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| ctx.dir_name.clone());
            let mut unit = RawUnit::new(name, 0..0, 0..doc.blocks.len());
            unit.rule = "single unit: the plan's title (its table is a table of work)".into();
            raw_units = vec![unit];
            unit_source = UnitSource::Single;
            problems.clear();
        }
    }
    let mut sprint_sources = Vec::new();
    let mut table_deps = None;
    let units_read = raw_units.len();
    for unit in &mut raw_units {
        let (mut sprints, mut source) = detect_sprints(
            &doc,
            unit.scope.clone(),
            unit.heads.as_deref(),
            &mut problems,
        );
        if let (true, Some(id)) = (sprints.is_empty(), unit.whole.clone()) {
            let heading = unit.scope.start - 1;
            let mut sprint = read_sprint(&doc, heading, id.clone(), unit.name.clone());
            sprint.done = completion::done_evidence(&doc, heading, unit.done_mark);
            sprint.origin = Origin::new(
                doc.line(unit.name_span.start),
                "a section of the units' series with no steps of its own: one step",
            );
            let span = unit.name_span.clone();
            sprints.push(RawSprint { id, span, sprint });
            source = source.or(Some(SprintSource::Headers));
        }
        // A lone unit read as one step (its title, `# Phase 2.1 Taskboard`)
        // may hold its steps in a table of work.
        let lone = sprints.len() == 1 && units_read == 1;
        // Numbered headings are a guess: the plan's one table of work,
        // ordering its rows (`| TASK-003 | … | TASK-001 | DONE |`) and
        // holding more steps, says more (`## 1. Task index` over it).
        if source == Some(SprintSource::Numbered) {
            let work = work_table::table_sprints(&doc, unit.scope.clone());
            // One such table: of two, reading one would drop the other's.
            // And never at the cost of a done mark the headings carry.
            let marks = |s: &[RawSprint]| s.iter().filter(|s| s.sprint.done.is_some()).count();
            // A table keyed by a step word (`| Phase | Result |`, rows
            // `P0: …`) in a numbered section names the work; the other
            // sections describe it (a design document's `## 1.
            // Goal`, `## 9. Tests`).
            let inside = |w: &work_table::TableWork| {
                let at = w.sprints.first().map_or(0, |s| s.span.start);
                let section = doc.blocks.iter().rev().find_map(|b| match b {
                    Block::Heading { span, text, .. } if span.start < at => Some(text),
                    _ => None,
                });
                w.sprints.len() >= 3
                    && section.is_some_and(|t| numbered::numbered_heading(t).is_some())
            };
            let says_more = work.deps.is_some() && work.sprints.len() > sprints.len()
                || work.stepped && inside(&work);
            if says_more
                && marks(&work.sprints) >= marks(&sprints)
                && work_table::tables_of_work(&doc, unit.scope.clone()) == 1
            {
                table_deps = work.deps_and_keys();
                (sprints, source) = (work.sprints, Some(SprintSource::TableRows));
            }
        }
        if source == Some(SprintSource::Headers) {
            if let Some(rows) = numbered_rows::rows_across_sections(&doc, &sprints) {
                (sprints, source) = (rows, Some(SprintSource::Table));
            } else if let Some(work) = (units_read == 1)
                .then(|| numbered_rows::rows_with_dependencies(&doc, &sprints))
                .flatten()
                .filter(|_| !numbered_rows::steps_ordered(&doc, unit, &sprints))
            {
                table_deps = work.deps_and_keys();
                (sprints, source) = (work.sprints, Some(SprintSource::TableRows));
            }
        }
        if any_bold_item && (sprints.is_empty() || lone) {
            let work = work_table::table_sprints(&doc, unit.scope.clone());
            if !work.sprints.is_empty() {
                table_deps = work.deps_and_keys();
                (sprints, source) = (work.sprints, Some(SprintSource::TableRows));
            }
        }
        unit.sprints = sprints;
        unit.origin = Origin::new(doc.line(unit.name_span.start), unit.rule.clone());
        if let Some(s) = source {
            if !sprint_sources.contains(&s) {
                sprint_sources.push(s);
            }
        }
    }
    if let Some((deps, keys)) = table_deps.filter(|_| raw_units.len() == 1) {
        raw_units = work_table::units_by_dependencies(&doc, raw_units.remove(0), deps, &keys);
    }
    let folded = raw_units.len() > 1
        && (criteria_units::fold_criteria_units(&mut raw_units)
            | breakdown_table::fold_breakdowns(&doc, &mut raw_units));
    let restated = raw_units.len() > 1 && restating_units::fold_restating_units(&mut raw_units);
    if folded || restated {
        // A lone unit left is the plan's one sequence, not a section of it.
        if raw_units.len() == 1 && matches!(unit_source, UnitSource::Sections) {
            unit_source = UnitSource::Single;
            if let Some(title) = title.clone().filter(|t| !t.is_empty()) {
                raw_units[0].name = title;
            }
            raw_units[0].rule = if restated {
                "single unit: the plan's title (its other sections restate these steps)"
            } else {
                "single unit: the plan's title (its other table breaks these steps down)"
            }
            .into();
            raw_units[0].origin = Origin::new(1, raw_units[0].rule.clone());
        }
    }
    let repeated = repeats::distinct_repeats(&doc, &mut raw_units);
    let interleaved = interleaved::keep_interleaved(&doc, &mut raw_units);
    // "Phases execute in numeric order" (a GSD roadmap): inserted phases
    // written out of place (`02.8` before `02.1`) run by their numbers.
    if order_prose::says_numeric_order(doc.source) {
        for unit in &mut raw_units {
            unit.sprints.sort_by(|a, b| a.id.cmp(&b.id));
        }
    }
    // A step whose `Dependencies:` line names a later step runs after it.
    for unit in &mut raw_units {
        dependency_lines::reorder(&mut unit.sprints);
    }
    attach_loose_criteria(&doc, &mut raw_units);
    done_elsewhere::marks_above(&doc, &mut raw_units);
    let mut done_in_place = guesses::done_in_place(&raw_units);
    done_elsewhere::marks_elsewhere(&doc, source, &frontmatter, &mut raw_units);
    let waves = waves::wave_units(&doc)
        .or_else(|| wave_sections::wave_section_units(&doc, &raw_units, false));
    let mut ordered_by_graph = false;
    let unit_source = if let Some(units) = waves {
        raw_units = units;
        UnitSource::Waves
    } else if let Some(units) = phase_graph::units_by_graph(&doc, &raw_units, &mut problems) {
        raw_units = units;
        ordered_by_graph = true;
        UnitSource::Steps
    } else if let Some(units) = table_graph::units_by_table_graph(&doc, &raw_units) {
        raw_units = units;
        ordered_by_graph = true;
        UnitSource::Steps
    } else if sprint_graph::split_by_stated_order(&doc, &mut raw_units) {
        UnitSource::Steps
    } else if section_units::split_by_section_fields(&doc, &mut raw_units) {
        UnitSource::Sections
    } else if stream_units::split_by_streams(&doc, &mut raw_units, &mut done_in_place) {
        UnitSource::Steps
    } else if let Some(units) = wave_sections::wave_section_units(&doc, &raw_units, true) {
        raw_units = units;
        UnitSource::PhaseSections
    } else {
        unit_source
    };
    resolve_table_deps(&mut raw_units, &mut problems);
    // The phase graph is already the units' order.
    if !ordered_by_graph {
        detect_graph_edges(&doc, &mut raw_units, &mut problems);
    }
    let independence_stated = matches!(
        unit_source,
        UnitSource::Table { .. }
            | UnitSource::Steps
            | UnitSource::Waves
            | UnitSource::PhaseSections
    );
    let dependencies = dependency_structure(&mut raw_units, independence_stated);
    let dependencies = order_prose::obey(&doc, &mut raw_units, dependencies);
    let mut guesses =
        guesses::guesses(&doc, &raw_units, &done_in_place, &unit_source, dependencies);
    guesses.extend(repeated);
    guesses.extend(interleaved);
    outside_prerequisites(&mut raw_units, &mut problems);
    validate(&doc, &raw_units, &mut problems);
    let (template, template_source) = detect_template(&doc);
    if sprint_sources.contains(&SprintSource::Numbered) {
        guesses.extend(numbered::guess(&doc, &raw_units));
    }
    if sprint_sources.contains(&SprintSource::Checklists) {
        guesses.extend(guesses::numbered_left_out(&doc, &raw_units));
    }
    guesses.extend(guesses::outline_levels(
        &doc,
        by_order.filter(|_| !any_bold_item),
        labels_read,
    ));
    let (entry_checks, exit_checks, rules) = plan_checks(&doc);
    let tally = accounting::account(
        &doc,
        &mut raw_units,
        &[&entry_checks, &exit_checks],
        &mut problems,
        &mut guesses,
    );

    if !problems.is_empty() && (strict || problems.iter().any(|p| !p.tolerated)) {
        return Err(problems);
    }
    problems.sort_by_key(|p| p.labels.first().map_or(0, |(span, _)| span.start));
    let warnings = problems
        .iter()
        .map(|p| Warning {
            code: p.code.as_str().to_string(),
            message: p.message.clone(),
            help: p.help.clone(),
            line: p.labels.first().map_or(0, |(span, _)| doc.line(span.start)),
        })
        .collect();

    let dialect = dialect::dialect(&doc, &unit_source, &sprint_sources);
    let units = resolve_units(raw_units);
    let allowed_imports = super::imports::allowed_imports(&doc.blocks, &units);
    let unit_sections = super::sections::unit_sections(&doc.blocks, source, &units);
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
            dialect,
        },
        template,
        referenced_files: referenced_files(source),
        allowed_imports,
        unit_sections,
        warnings,
        guesses,
        tally,
    })
}

/// Blank out a leading `---` YAML frontmatter block (keeping byte offsets) and
/// read its flat `key: value` pairs.
/// Headings made from list items or lines keep their backticks; a sprint
/// named from a heading has none (its canonical form writes it so), so
/// neither do these: the same step reads the same either way.
fn without_inline_code(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    for b in &mut blocks {
        if let Block::Heading { text, span, .. } = b {
            let written = source[span.clone()].trim_start().starts_with('#');
            if !written && text.contains('`') {
                *text = text.replace('`', "");
            }
        }
    }
    blocks
}

pub(super) fn mask_frontmatter(source: &str) -> (String, BTreeMap<String, String>) {
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
    // Blanked byte for byte, so every span into `masked` is a span into
    // `source` (a byte-order mark or a non-ASCII value is several bytes).
    let mut masked = String::with_capacity(source.len());
    for c in source[..cut].chars() {
        if c == '\n' {
            masked.push('\n');
        } else {
            masked.extend(std::iter::repeat_n(' ', c.len_utf8()));
        }
    }
    masked.push_str(&source[cut..]);
    (masked, values)
}

#[derive(Debug, Clone)]
pub(super) struct RawUnit {
    name: String,
    /// Other names the plan uses for the unit (`WU1` for "WU1 — Parser").
    aliases: Vec<String>,
    name_span: Span,
    /// Which rule found the unit, for `plan`'s provenance.
    rule: String,
    origin: Origin,
    dir: Option<String>,
    layer: Option<u32>,
    /// Explicit dependencies, with where each was written.
    deps: Vec<(String, Span)>,
    declared_sprints: Option<(usize, Span)>,
    /// Block range the unit's sprints are searched in.
    scope: std::ops::Range<usize>,
    /// Sprint headings assigned to the unit from a flat list (when the
    /// plan's sprints are not inside the unit's own section).
    heads: Option<Vec<usize>>,
    /// A numbered phase, week or milestone: runs after the previous one.
    sequential: bool,
    /// Its own prose says it runs at once with the section before it
    /// ("Runs in parallel with the frontend"): it joins that one's wave.
    alongside: bool,
    /// Its heading marks it done (`## Phase 1: Setup (COMPLETE)`): so are
    /// its sprints.
    done_mark: bool,
    /// A section of the other units' series that holds no steps of its own
    /// (`## Fase 1` beside `## Fase 3` / `### Sprint 0`): one step, itself,
    /// numbered as the section is.
    whole: Option<SprintId>,
    sprints: Vec<RawSprint>,
}

impl RawUnit {
    fn new(name: String, name_span: Span, scope: std::ops::Range<usize>) -> Self {
        RawUnit {
            name,
            aliases: Vec::new(),
            name_span,
            rule: String::new(),
            origin: Origin::default(),
            dir: None,
            layer: None,
            deps: Vec::new(),
            declared_sprints: None,
            scope,
            heads: None,
            sequential: false,
            alongside: false,
            done_mark: false,
            whole: None,
            sprints: Vec::new(),
        }
    }
}

/// `text` past the first of `words` it opens with, in any case
/// (`Requires Stream E` → `Stream E` for `requires `).
pub(super) fn after_word<'t>(text: &'t str, words: &[&str]) -> Option<&'t str> {
    words.iter().find_map(|w| {
        text.get(..w.len())
            .filter(|h| h.eq_ignore_ascii_case(w))
            .map(|_| &text[w.len()..])
    })
}

pub(super) fn norm(s: &str) -> String {
    s.trim()
        .trim_matches(|c| c == '*' || c == '`' || c == '_')
        .trim()
        .to_lowercase()
}

pub(super) fn column(header: &[Cell], names: &[&str]) -> Option<usize> {
    header
        .iter()
        .position(|c| names.contains(&norm(&c.text).as_str()))
}

pub(super) fn column_where(header: &[Cell], pred: impl Fn(&str) -> bool) -> Option<usize> {
    header.iter().position(|c| pred(&norm(&c.text)))
}

/// Split a dependency cell or line into names; dashes and "none" mean empty.
pub(super) fn split_names(s: &str) -> Vec<String> {
    split_dep_names(&s.replace(" and ", ","))
}

/// The names in a dependency cell or line, split on `,` and `;` only: "and"
/// may be part of a name, and is split where resolving the names needs it.
pub(super) fn split_dep_names(s: &str) -> Vec<String> {
    s.split([',', ';'])
        .map(clean_name)
        .filter(|n| {
            let l = n.to_lowercase();
            !n.is_empty() && !matches!(l.as_str(), "-" | "—" | "–" | "none" | "n/a" | "(none)")
        })
        .collect()
}

/// Split a criteria cell on `;` (criteria themselves may contain commas).
pub(super) fn split_criteria(s: &str) -> Vec<String> {
    s.split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !matches!(*c, "-" | "—" | "–"))
        .map(str::to_string)
        .collect()
}

/// The first number in a layer cell like `0`, `Layer 1` or `L2`.
pub(super) fn parse_layer(s: &str) -> Option<u32> {
    let digits: String = s
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

pub(super) fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .map(|t| t.trim_matches('.').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// The span of one line of a block, found in the source (falls back to the
/// whole block).
pub(super) fn line_span(source: &str, block: &Span, line: &str) -> Span {
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

#[derive(Debug, Clone)]
pub(super) struct RawSprint {
    id: SprintId,
    span: Span,
    sprint: Sprint,
}
