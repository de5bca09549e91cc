//! The level a plan writes its work at: steps numbered after their phase
//! whether written as headings or as list items, below frame headings of no
//! number, a phase with no steps of its own kept whole; numbered bold items
//! as the last reading before a refusal; and a finer word's headings under a
//! few of the coarser word's headings read as parts, never dropping the rest;
//! a Mermaid Gantt chart's task rows when nothing else reads as work; steps
//! whose number carries their phase's letter (`P1.2`); numbered sub-sections
//! each keeping a checkbox of their own; numbered bold items under a heading
//! that names their order (`## 3. Implementation order (phases)`), a guess;
//! a story's top-level tasks under `## Tasks / Subtasks`; coded list items
//! (`TASK-A1｜…`) as the last reading before a refusal, a guess; a table of
//! jobs lettered `A`, `B`, `C`; an index of milestone files whose other
//! sections are about the plan; ticket headings (`### BE-1 — …`) under a
//! stage; unnumbered checklist groups under numbered headings (`## Session
//! 1` holding `### Models:`) as parts of those, a numbered section elsewhere
//! kept; stories lettered `B.1`; `Sprint N` headings inside one phase of
//! many as that phase's parts; `#` sections holding checklists when there
//! are two or more (`# Engine 0.1.0`), a `# Future Versions` one not work.

use serde_json::Value;

use crate::common::plan_json::*;

json_snapshots! {
    "levels_":
    numbered_items => "levels-numbered-items",
    bold_todo => "levels-bold-todo",
    partial_steps => "levels-partial-steps",
    coded_items => "levels-coded-items",
    nested_groups => "levels-nested-groups",
    version_roadmap => "levels-version-roadmap",
    gantt => "levels-gantt",
    lettered_steps => "levels-lettered-steps",
    checked_files => "levels-checked-files",
    order_section => "levels-order-section",
    story_tasks => "levels-story-tasks",
    session_sections => "levels-session-sections",
    lettered_stories => "levels-lettered-stories",
    phase_groups_later => "levels-phase-groups-later",
    sprints_in_one_phase => "levels-sprints-in-one-phase",
    title_sections => "levels-title-sections",
}

fn all_ids(v: &Value) -> Vec<String> {
    v["units"]
        .as_array()
        .expect("units")
        .iter()
        .flat_map(|u| u["sprints"].as_array().expect("sprints").iter())
        .map(|s| s["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn task_items_numbered_after_their_phase_are_its_steps() {
    let (status, v, _) = json("levels-numbered-items");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2", "2.3", "3"]);
    // Each item's own box is its mark; the phase's ✅ does not tick an
    // open box, and a ticked box over an open sub-item is not done.
    assert_eq!(sprints_done(&v, 0), [true, true, true, false, false, false]);
    assert_eq!(sprint(&v, 0, 3)["tasks"][1], "Finalise invoices");
    // The phase with no steps is one sprint holding its own task lines.
    assert_eq!(sprint(&v, 0, 5)["name"], "Rollout");
    assert_eq!(sprint(&v, 0, 5)["tasks"].as_array().map(Vec::len), Some(2));
    // Read at two levels: a guess `start` asks about.
    assert!(codes(&v, "guesses").contains(&"reading::mixed_levels".to_string()));
}

#[test]
fn numbered_bold_items_are_read_before_a_plan_is_refused() {
    let (status, v, _) = json("levels-bold-todo");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["1", "2", "3"]);
    assert!(codes(&v, "guesses").contains(&"reading::bold_items".to_string()));
    // Struck-through history is not dispatched.
    // Priority sections dividing one count of items are one sequence.
    assert_eq!(units(&v).len(), 1, "{v}");
    let names: Vec<String> = sprint_names(&v, 0);
    assert!(
        names.iter().all(|n| !n.contains("Tree extraction")),
        "{names:?}"
    );
}

#[test]
fn steps_under_a_few_tasks_are_their_parts_and_no_task_is_dropped() {
    let (status, v, _) = json("levels-partial-steps");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["0.1", "0.2", "1.1", "1.2", "1.3", "2.1"]);
    assert!(sprint(&v, 0, 0)["done"].is_string());
    assert_eq!(sprint(&v, 0, 2)["tasks"].as_array().map(Vec::len), Some(2));
}

#[test]
fn coded_items_with_bodies_are_steps_in_the_order_their_lines_give() {
    let (status, v, _) = json("levels-coded-items");
    assert_eq!(status, 0);
    // TASK-202 is written above TASK-201 (a board's backlog above its done
    // column) and says it waits for it: it runs after it.
    assert_eq!(all_ids(&v), ["101", "102", "201", "202"]);
    assert_eq!(sprints_done(&v, 0), [true, true, true, false]);
    assert_eq!(sprint(&v, 0, 0)["name"], "Ethics engine");
    // A placeholder line is no open work.
    assert!(v["tally"]["outside"].as_array().is_none_or(Vec::is_empty));
}

#[test]
fn a_checklist_group_inside_another_holds_its_own_items_once() {
    let (status, v, _) = json("levels-nested-groups");
    assert_eq!(status, 0);
    // `###UI redesign` (no space after the hashes) is a heading too.
    assert_eq!(sprint_names(&v, 0), ["Goal 1", "UI redesign", "Goal 2"]);
    assert_eq!(sprint(&v, 0, 0)["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["tally"]["twice"].as_array().map_or(0, Vec::len), 0);
}

#[test]
fn a_roadmap_of_versions_reads_each_release_with_its_status() {
    let (status, v, _) = json("levels-version-roadmap");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["1", "2", "3"]);
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
    assert_eq!(sprint(&v, 0, 0)["name"], "Local lease registry");
    assert!(codes(&v, "guesses").contains(&"reading::numbered_headings".to_string()));
}

#[test]
fn a_plan_written_as_a_gantt_chart_runs_its_task_rows() {
    let (status, v, _) = json("levels-gantt");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    // The zero-length `Release` milestone is a date, not work.
    assert_eq!(
        names,
        ["Requirements", "Schema", "Storage layer", "HTTP API"]
    );
    assert_eq!(sprints_done(&v, 0), [true, true, false, false]);
}

#[test]
fn steps_numbered_with_their_phases_letter_are_steps() {
    let (status, v, _) = json("levels-lettered-steps");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["1.1", "1.2", "2.1", "2.2", "3"]);
    assert_eq!(sprints_done(&v, 0), [true, true, true, false, false]);
}

#[test]
fn numbered_sub_sections_each_with_a_checkbox_are_steps() {
    let (status, v, _) = json("levels-checked-files");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["1.1", "1.2", "2.1", "2.2"]);
    assert_eq!(sprints_done(&v, 0), [true, true, false, false]);
}

#[test]
fn numbered_bold_items_under_a_heading_naming_their_order_are_the_steps() {
    let (status, v, _) = json("levels-order-section");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names[0].starts_with("Foundation"), "{names:?}");
    assert!(names[3].starts_with("Polish"), "{names:?}");
    // Read on one heading's word: `start` asks.
    assert!(codes(&v, "guesses").contains(&"reading::bold_items".to_string()));
}

#[test]
fn a_storys_tasks_with_their_subtasks_are_the_sprints() {
    let (status, v, _) = json("levels-story-tasks");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    // `Step 5 Specific Requirements` in the notes names a screen, not work.
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].starts_with("Build the provider list"), "{names:?}");
    assert_eq!(sprints_done(&v, 0), [true, false]);
}

#[test]
fn coded_list_items_are_the_last_reading_before_a_refusal() {
    let (status, v, _) = json("levels-coded-list");
    assert_eq!(status, 0);
    let names: Vec<&str> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .flat_map(|u| u["sprints"].as_array().expect("sprints"))
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names[0].contains("Merge the risk service"), "{names:?}");
    assert!(codes(&v, "guesses").contains(&"reading::bold_items".to_string()));
}

#[test]
fn a_table_of_jobs_lettered_a_b_c_is_read_not_refused() {
    let (status, v, _) = json("levels-lettered-jobs");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(
        names,
        ["A: Ending screen", "B: Era transition", "C: Card polish"]
    );
    // The held-back items are in the tally, not silently gone.
    let not_work: Vec<&str> = v["tally"]["not_work"]
        .as_array()
        .expect("not_work")
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert!(
        not_work.iter().any(|t| t.starts_with("UI-kit integration")),
        "{not_work:?}"
    );
}

#[test]
fn an_index_of_milestone_files_reads_its_rows_not_its_sections() {
    // `## 概览` (overview) and `## 后续版本` (later versions) under `#
    // Milestones` are about the plan; the table's rows are the milestones.
    let (status, v, _) = json("levels-milestone-files");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[0].starts_with("M0.md"), "{names:?}");
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

#[test]
fn ticket_headings_under_a_stage_are_its_steps() {
    // `# STAGE 1` frames `### BE-1 — …` tickets through `## Backend
    // tickets`: each ticket is a sprint.
    let (status, v, _) = json("levels-coded-tickets");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["1.1", "1.2", "1.3"]);
    let names = sprint_names(&v, 0);
    assert!(names[0].starts_with("BE-1"), "{names:?}");
    assert!(names[2].starts_with("FE-1"), "{names:?}");
    assert_eq!(sprints_done(&v, 0), [true, false, false]);
}

#[test]
fn checklist_groups_under_numbered_headings_are_their_parts() {
    // `### Models:` groups carry no number of their own; the `## Session N`
    // headings above them, each with its status line, are the sprints.
    let (status, v, _) = json("levels-session-sections");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[2].contains("Admin"), "{names:?}");
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

#[test]
fn stories_lettered_with_a_number_are_the_sprints() {
    // `Story B.1`, `Story B.2`: one sprint each (not one id twice), named
    // with the plan's own word; an epic's `成功标准` (success criteria)
    // checklist is criteria, not work outside every sprint.
    let (status, v, _) = json("levels-lettered-stories");
    assert_eq!(status, 0, "{v}");
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].starts_with("Story B.1"), "{names:?}");
    assert_eq!(sprints_done(&v, 0), [false, false]);
    let warnings = v["warnings"].to_string();
    assert!(!warnings.contains("work_outside"), "{warnings}");
}

#[test]
fn numbered_phases_over_their_groups_keep_a_later_phase_of_their_own() {
    // `## 🏗️ Faz 1` holds `### Backend` and `### Frontend`; `### Faz 3`
    // under `## Later phases` holds its checklist itself.
    let (status, v, _) = json("levels-phase-groups-later");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 4, "{names:?}");
    // `Faz` is Turkish for a phase: its number is the step's id.
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2", "3"], "{names:?}");
    assert_eq!(names[1], "Accounts", "{names:?}");
    assert_eq!(names[3], "Advanced features", "{names:?}");
    // Faz 1 keeps an open line in one of its groups: not done.
    assert_eq!(sprints_done(&v, 0), [true, false, false, false]);
}

#[test]
fn sprints_inside_one_phase_of_many_are_its_parts() {
    // `#### Sprint 1`, `#### Sprint 2` under `### Phase 0.2` only: read as
    // the sprints, every other phase was dropped.
    let (status, v, _) = json("levels-sprints-in-one-phase");
    assert_eq!(status, 0);
    assert_eq!(all_ids(&v), ["0.1", "0.2", "1", "2"]);
    assert_eq!(sprints_done(&v, 0), [true, false, false, false]);
}

#[test]
fn top_level_sections_holding_checklists_are_the_sprints() {
    let (status, v, _) = json("levels-title-sections");
    assert_eq!(status, 0, "{v}");
    let names = sprint_names(&v, 0);
    assert_eq!(names, ["Engine 0.1.0", "Engine 0.2.0"], "{v}");
    assert_eq!(sprints_done(&v, 0), [false, false]);
}
