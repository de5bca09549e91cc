//! Steps numbered on across the tables of their sections: `### 阶段一` holds
//! rows `1`–`7`, `### 阶段二` rows `8`–`12`, and so on. One count that runs
//! through every section's table numbers the plan's steps; the sections
//! group them (a stage, a phase) and are not steps a worker takes whole.
//! Tables numbered per section (`1.1`, `1.2` under Milestone 1) are a
//! section's tasks, and stay so, unless their rows say what each waits
//! for (`| T4.5 | … | T1.6 |`): then every row is a step, and the
//! dependency column, read across the tables, is their order.

use super::*;

/// The block of the heading a step was read from; None when the step is
/// no heading of its own.
fn heading_block(doc: &Doc, s: &RawSprint) -> Option<usize> {
    // Blocks are in the order written: the heading by its start.
    let h = doc
        .blocks
        .partition_point(|b| b.span().start < s.span.start);
    matches!(doc.blocks.get(h), Some(Block::Heading { span, .. }) if *span == s.span).then_some(h)
}

/// The rows of the sections of `sprints`, as steps, when every one of those
/// sections holds one table whose first column counts on from the last
/// section's: `1` to `n` through all of them, more rows than sections.
pub(super) fn rows_across_sections(doc: &Doc, sprints: &[RawSprint]) -> Option<Vec<RawSprint>> {
    // Sections the plan calls sprints (`## Sprint 1`) are its sprints,
    // whatever their tables number: the rows are their tasks.
    if sprints.len() < 2 || doc.word == Some(Word::Sprint) {
        return None;
    }
    let mut next = 1u32;
    let mut out: Vec<RawSprint> = Vec::new();
    for s in sprints {
        let h = heading_block(doc, s)?;
        let section = h + 1..doc.section_end[h];
        let tables: Vec<&[Row]> = section
            .clone()
            .filter_map(|i| match &doc.blocks[i] {
                Block::Table { rows, .. } => Some(rows.as_slice()),
                _ => None,
            })
            .collect();
        let [rows] = tables.as_slice() else {
            return None;
        };
        for row in *rows {
            let n: u32 = row.cells.first()?.text.trim().parse().ok()?;
            if n != next {
                return None;
            }
            next += 1;
        }
        let work = super::work_table::table_sprints(doc, section);
        if work.sprints.len() != rows.len() {
            return None;
        }
        for mut row in work.sprints {
            // Numbered as the plan counts them, not per table.
            row.id = SprintId::whole(out.len() as u32 + 1);
            row.sprint.id = row.id.clone();
            if row.sprint.done.is_none() {
                row.sprint.done.clone_from(&s.sprint.done);
            }
            out.push(row);
        }
    }
    (out.len() > sprints.len()).then_some(out)
}

/// The rows of the sections of `sprints`, as steps with what each waits
/// for, when every one of those sections holds rows of one table of work
/// with a dependency column (`| 任務ID | 任務描述 | 依賴 |` under each
/// `### 階段 N`), more rows than sections. A section marked done marks its
/// rows that say nothing of their own.
pub(super) fn rows_with_dependencies(
    doc: &Doc,
    sprints: &[RawSprint],
) -> Option<super::work_table::TableWork> {
    if sprints.len() < 2 {
        return None;
    }
    let mut sections = Vec::with_capacity(sprints.len());
    for s in sprints {
        let h = heading_block(doc, s)?;
        let end = doc.blocks[..doc.section_end[h]]
            .last()
            .map_or(s.span.end, |b| b.span().end);
        sections.push(s.span.start..end);
    }
    let scope = sections[0].start..sections[sections.len() - 1].end;
    let first = doc.blocks.partition_point(|b| b.span().start < scope.start);
    let last = doc.blocks.partition_point(|b| b.span().start < scope.end);
    let mut work = super::work_table::table_sprints(doc, first..last);
    work.deps.as_ref()?;
    if work.sprints.len() <= sprints.len() {
        return None;
    }
    let mut held = vec![false; sections.len()];
    for row in &mut work.sprints {
        let k = sections
            .iter()
            .position(|sec| sec.contains(&row.span.start))?;
        held[k] = true;
        if row.sprint.done.is_none() {
            row.sprint.done.clone_from(&sprints[k].sprint.done);
        }
    }
    held.iter().all(|h| *h).then_some(work)
}

/// Whether the plan orders the sections themselves (a phase table `| Fase
/// | Depende de |`, a graph of the phases): then the sections are the
/// steps a person reads, the rows their tasks.
pub(super) fn steps_ordered(doc: &Doc, unit: &RawUnit, sprints: &[RawSprint]) -> bool {
    let mut lone = unit.clone();
    lone.sprints = sprints.to_vec();
    let mut units = vec![lone];
    super::phase_graph::units_by_graph(doc, &units, &mut Vec::new()).is_some()
        || super::sprint_graph::split_by_stated_order(doc, &mut units)
}
