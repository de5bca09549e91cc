//! Which well-known plan format a plan was read as, and the fingerprint
//! that said so: Kiro's `tasks.md` (a numbered task list), a Cursor plan
//! (frontmatter `todos:`), a Codex ExecPlan (`## Progress` with `##
//! Surprises & Discoveries` or `## Decision Log`), spec-kit's `tasks.md`
//! (`T001` ids), a GSD-style `ROADMAP.md` (a phase index with `**Depends
//! on**`), a superpowers plan (`### Task N` with `Step N:` lines), the
//! sprint-supervisor `EXECUTION_PLAN.md` (a unit table with Sprint or Sortie
//! sections), a ccpm epic (`## Tasks Created`), a BMAD story (`## Tasks /
//! Subtasks`), a Mermaid Gantt chart;
//! anything else is read by the generic rules.

use super::*;

pub(super) fn dialect(doc: &Doc, units: &UnitSource, sprints: &[SprintSource]) -> Dialect {
    let found = |name: &str, why: &str| Dialect {
        name: name.to_string(),
        why: why.to_string(),
    };
    let headings: Vec<String> = (0..doc.blocks.len())
        .filter_map(|i| doc.heading(i).map(|(_, t, _)| norm(t)))
        .collect();
    let has_heading = |h: &str| headings.iter().any(|t| t.contains(h));
    if sprints.contains(&SprintSource::Tickets) {
        return found("ccpm", "an epic's `## Tasks Created` ticket list");
    }
    if has_heading("tasks / subtasks") && headings.first().is_some_and(|h| h.starts_with("story")) {
        return found("bmad-story", "a `Story` title over `## Tasks / Subtasks`");
    }
    if sprints.contains(&SprintSource::Gantt) {
        return found("mermaid-gantt", "a Mermaid `gantt` chart's task rows");
    }
    if sprints.contains(&SprintSource::TaskList) {
        return found("kiro", "top-level numbered task list (`- [ ] 1. …`)");
    }
    if sprints.contains(&SprintSource::Todos)
        || !super::done_elsewhere::todos(doc.source).is_empty()
    {
        return found("cursor", "frontmatter `todos:`");
    }
    if has_heading("progress") && (has_heading("surprises") || has_heading("decision log")) {
        return found(
            "execplan",
            "`## Progress` beside `## Surprises & Discoveries` or `## Decision Log`",
        );
    }
    let task_ids = doc
        .source
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() == 4 && w.starts_with('T') && w[1..].chars().all(|c| c.is_ascii_digit())
        })
        .count();
    if task_ids >= 3 {
        return found("spec-kit", "task ids `T001`…");
    }
    if doc.source.contains("**Depends on**") && has_heading("phase") {
        return found("gsd-roadmap", "phases with `**Depends on**` lines");
    }
    if doc.word == Some(Word::Task) && doc.source.contains("Step 1") {
        return found("superpowers", "`### Task N` sections with `Step N:` lines");
    }
    if matches!(units, UnitSource::Table { .. })
        && matches!(doc.word, Some(Word::Sprint | Word::Sortie))
    {
        return found(
            "sprint-supervisor",
            "a work unit table with Sprint or Sortie sections",
        );
    }
    found("generic", "no well-known format's fingerprint")
}
