//! First-sight plans whose work is read from how their sections and lists
//! nest: a checklist tree, groups named by a state, sections about the
//! plan, sections that state what they wait for, task specs under the
//! plan's title, lettered items beside a lone checklist. Each has a `plan
//! --format json` snapshot and the fact a person reads in it asserted.

use serde_json::Value;

use crate::common::plan_json::*;

json_snapshots! {
    "first_sight_":
    checklist_tree => "first-sight-checklist-tree",
    section_tree => "first-sight-section-tree",
    state_buckets => "first-sight-state-buckets",
    work_left => "first-sight-work-left",
    section_waits => "first-sight-section-waits",
    title_tasks => "first-sight-title-tasks",
    lone_checklist => "first-sight-lone-checklist",
    inner_streams => "first-sight-inner-streams",
    board_table => "first-sight-board-table",
    tracker_table => "first-sight-tracker-table",
    coded_index => "first-sight-coded-index",
    bracket_deps => "first-sight-bracket-deps",
    bare_boxes => "first-sight-bare-boxes",
    done_tail_deps => "first-sight-done-tail-deps",
    state_grouped_deps => "first-sight-state-grouped-deps",
    step_tables => "first-sight-step-tables",
    struck_items => "first-sight-struck-items",
    prefixed_codes => "first-sight-prefixed-codes",
    word_series => "first-sight-word-series",
    section_board => "first-sight-section-board",
    phase_tables => "first-sight-phase-tables",
    design_doc_table => "first-sight-design-doc-table",
    section_board_lines => "first-sight-section-board-lines",
    drawn_boxes => "first-sight-drawn-boxes",
    plain_sections => "first-sight-plain-sections",
    cursor_todos_numbered => "first-sight-cursor-todos-numbered",
    parallel_said => "first-sight-parallel-said",
    decorated_headings => "first-sight-decorated-headings",
    check_glyphs => "first-sight-check-glyphs",
    verify_line => "first-sight-verify-line",
    progress_items => "first-sight-progress-items",
    series_siblings => "first-sight-series-siblings",
    done_list => "first-sight-done-list",
    detailed_steps => "first-sight-detailed-steps",
    series_tail => "first-sight-series-tail",
    coded_deps => "first-sight-coded-deps",
    dependency_table_es => "first-sight-dependency-table-es",
    same_id_inside => "first-sight-same-id-inside",
}

/// A plan that is one checklist tree: each top-level item a step, done
/// by its box, its done word or all its sub-items, never with one open;
/// said as a guess (the plan was refused).
#[test]
fn a_checklist_tree_is_read_item_by_item() {
    let (status, v, _) = json("first-sight-checklist-tree");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Project scaffolding (folders, config files)",
            "Requirements phase",
            "Design phase",
            "Build phase",
            "Release"
        ]
    );
    assert_eq!(sprints_done(&v, 0), [true, true, true, false, false]);
    assert!(
        codes(&v, "guesses").contains(&"reading::checklist_tree".to_string()),
        "{v}"
    );
}

/// The plan's one section holds a checklist tree: its top-level items are
/// the steps (it was one open sprint, finished work redone).
#[test]
fn a_lone_section_holding_a_checklist_tree_is_read_item_by_item() {
    let (status, v, _) = json("first-sight-section-tree");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, false, true, false]);
}

/// `### ✅ Completed` / `### In Progress` under `## Current Sprint` sort
/// that sprint's items: it is one open step, not a done one beside open
/// ones; `## Future Enhancements` holds no work (it was: open work in a
/// sprint read as done, a wishlist dispatched).
#[test]
fn groups_named_by_a_state_are_their_sections_items() {
    let (status, v, _) = json("first-sight-state-buckets");
    assert_eq!(status, 0, "{v}");
    let names = sprint_names(&v, 0);
    assert_eq!(names.len(), 3, "{v}");
    assert!(names[0].contains("Current Sprint (Week 1)"), "{v}");
    assert_eq!(sprints_done(&v, 0), [false, false, false]);
    assert!(!names.iter().any(|n| n == "Features" || n == "Performance"));
}

/// `Status: Implemented, needs hardening` names work left: not done.
#[test]
fn a_status_naming_work_left_is_not_done() {
    let (status, v, _) = json("first-sight-work-left");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, false, false]);
}

/// Sections that each say what they wait for (`**Dependencies**: Track
/// A`, `None`, `Tracks A-C`) are units ordered so (they were one
/// sequence of every task).
#[test]
fn sections_that_state_their_waits_are_units() {
    let (status, v, _) = json("first-sight-section-waits");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 4, "{v}");
    assert_eq!(units[0]["deps"], serde_json::json!([]));
    assert_eq!(units[1]["deps"], serde_json::json!([]));
    assert_eq!(
        units[2]["deps"],
        serde_json::json!(["Track A: Infrastructure"])
    );
    assert_eq!(
        units[3]["deps"],
        serde_json::json!([
            "Track A: Infrastructure",
            "Track B: Models",
            "Track C: Adapters"
        ])
    );
    assert_eq!(sprints_done(&v, 0), [true, false]);
}

/// Streams inside phases that each state what they wait for, on the line
/// or in the items below it, are units of one sprint each; an item that
/// only says what may run beside it names no wait (they were one sequence
/// of phases).
#[test]
fn streams_that_state_their_waits_are_units() {
    let (status, v, _) = json("first-sight-inner-streams");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    let deps: Vec<Value> = units.iter().map(|u| u["deps"].clone()).collect();
    assert_eq!(
        deps,
        [
            serde_json::json!([]),
            serde_json::json!([]),
            serde_json::json!([]),
            serde_json::json!(["Stream C: Phase definitions"]),
            serde_json::json!(["Stream A: Task dependencies"]),
        ]
    );
}

/// `## T001 — …` task specs under a `# M1 — …` title are the steps, even
/// beside the plan's `## Exit criteria` (they were one sprint).
#[test]
fn task_specs_under_the_title_are_the_steps() {
    let (status, v, _) = json("first-sight-title-tasks");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_names(&v, 0).len(), 3, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

/// Lettered items (`### T.1 — … ✅ DONE`) beside one checklist are the
/// steps, not that checklist alone (it was the only sprint).
#[test]
fn lettered_items_beside_a_lone_checklist_are_the_steps() {
    let (status, v, _) = json("first-sight-lone-checklist");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, true, false, false]);
}

/// A board exported as one `| To Do | In Progress | Done |` table: each
/// card a step, column by column, done in the `Done` column (the plan was
/// refused).
#[test]
fn a_board_table_is_read_card_by_card() {
    let (status, v, _) = json("first-sight-board-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprints_done(&v, 0),
        [false, false, false, true, true, true],
        "{v}"
    );
    assert_eq!(sprint_names(&v, 0)[2], "task-9.1 - Board milestone view");
}

/// A tracker table keyed by ids (`| Plan | Title | … | Depends on | Status
/// |`), taken for a unit table by its `Title` column, is a graph of steps:
/// a note naming an id (`coordinate with 001`) waits for it, a dash waits
/// for nothing (the plan was refused).
#[test]
fn a_tracker_table_keyed_by_ids_is_a_graph_of_steps() {
    let (status, v, _) = json("first-sight-tracker-table");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 5, "{v}");
    assert_eq!(units[1]["deps"], serde_json::json!(["Fix scope totals"]));
    assert_eq!(units[2]["deps"], serde_json::json!(["Fix scope totals"]));
    assert_eq!(units[3]["deps"], serde_json::json!(["Bounded timelines"]));
    assert_eq!(units[4]["deps"], serde_json::json!([]));
    let done: Vec<bool> = units
        .iter()
        .map(|u| !u["sprints"][0]["done"].is_null())
        .collect();
    assert_eq!(done, [true, true, true, false, false]);
}

/// Coded steps indexed by a table with a `Depends on` column: each runs
/// when what its cell names is done (`IP-16`, outside the plan, holds
/// nothing back), and each row's step keeps the text of its own section
/// (the steps ran in one sequence, their sections' work not in them).
#[test]
fn an_index_table_of_coded_steps_orders_them_and_keeps_their_sections() {
    let (status, v, _) = json("first-sight-coded-index");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 4, "{v}");
    assert_eq!(units[0]["deps"], serde_json::json!([]));
    assert_eq!(units[2]["deps"], serde_json::json!([]));
    assert_eq!(
        units[3]["deps"],
        serde_json::json!(["IP-18: Grants as operations", "IP-19: Rolling windows"])
    );
    assert_eq!(v["tally"]["in_sprints"], 5, "{v}");
}

/// `**Depends On:** [T002]` lines under coded items order them as a graph
/// (they ran in one sequence); where the codes are not the steps' numbers
/// (`T011` is step 1) the lines are not read by number, and the plan stays
/// one sequence.
#[test]
fn bracketed_dependency_lines_order_coded_items() {
    let (status, v, _) = json("first-sight-bracket-deps");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 5, "{v}");
    assert_eq!(units[2]["deps"], units[3]["deps"], "{v}");
    assert_eq!(units[4]["deps"].as_array().map(Vec::len), Some(2), "{v}");
    let (status, v, _) = json("first-sight-bracket-deps-offset");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{v}");
}

/// Boxes written without a list marker (`[X] Export PDF` on a line of its
/// own) are checklist items: a phase is done when all its boxes are ticked,
/// and open while one is not (every phase read open, finished work redone).
#[test]
fn boxes_without_a_list_marker_are_items() {
    let (status, v, _) = json("first-sight-bare-boxes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, false], "{v}");
    assert_eq!(v["tally"]["in_sprints"], 6, "{v}");
}

/// `**Dependencies:** Phase 1 complete` and `Phases 3–4 complete` name
/// units and the state they must reach (the plan was refused: "unknown
/// unit `Phase 1 complete`").
#[test]
fn a_dependency_naming_a_state_or_a_range_names_its_units() {
    let (status, v, _) = json("first-sight-done-tail-deps");
    assert_eq!(status, 0, "{v}");
    assert_eq!(deps(&v, 1), ["Foundation"]);
    assert_eq!(deps(&v, 4), ["Protocol"]);
    assert_eq!(deps(&v, 5), ["Emulation", "Broadcast"]);
}

/// Numbered steps listed by state (open ones first) whose `_Dependencies:
/// 2, 3_` lines name steps by the plan's numbers: each step keeps its
/// number, runs after what its line names and beside the rest (the steps
/// were numbered by place, so the lines named the wrong steps and the plan
/// ran as one sequence, done steps last).
#[test]
fn steps_listed_by_state_keep_their_numbers_and_their_order() {
    let (status, v, _) = json("first-sight-state-grouped-deps");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    let names: Vec<&str> = units
        .iter()
        .map(|u| u["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "Project Setup",
            "Member Accounts",
            "Photo Upload",
            "Gallery Pages",
            "Comments",
            "Weekly Digest Email"
        ],
        "{v}"
    );
    assert_eq!(deps(&v, 2), ["Project Setup"]);
    assert_eq!(deps(&v, 3), ["Member Accounts", "Photo Upload"]);
    assert_eq!(deps(&v, 5), ["Photo Upload"]);
    let done: Vec<bool> = units
        .iter()
        .map(|u| !u["sprints"][0]["done"].is_null())
        .collect();
    assert_eq!(done, [true, true, true, false, false, false]);
}

/// Each phase's steps written as a table of its own, the phases named in
/// prose: every table with the same columns holds steps, in order (only
/// the first table was read, and the other phases' work was dropped
/// without a word); a later table restating steps already read is not work.
#[test]
fn every_table_of_the_same_steps_is_read() {
    let (status, v, _) = json("first-sight-step-tables");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Builds",
            "Async",
            "Promises",
            "Commit",
            "Execute",
            "Documentation"
        ],
        "{v}"
    );
    assert_eq!(
        sprints_done(&v, 0),
        [true, true, true, false, false, false],
        "{v}"
    );
}

/// A TODO that strikes out what is finished (`* ~~Ports trade goods~~`),
/// under setext headings: struck items are ticked, the others open, so a
/// release is done when all its items are struck (the plan was refused).
#[test]
fn struck_out_items_are_ticked_ones() {
    let (status, v, _) = json("first-sight-struck-items");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, false, false], "{v}");
    // The lists that strike items are checklists, and so is the top of the
    // list that strikes nothing yet (its work is open); the nested note
    // stays a plain item.
    assert_eq!(v["tally"]["in_sprints"], 7, "{v}");
}

/// A status table keyed by prefixed codes (`ROADMAP:S001`, a range
/// `ROADMAP:A-001…A-003`, `ROADMAP:MONITORING`): each row is a step, done
/// by its status (the plan was refused).
#[test]
fn a_status_table_keyed_by_prefixed_codes_is_the_work() {
    let (status, v, _) = json("first-sight-prefixed-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, false, false], "{v}");
}

/// `## Track 1 — …` headings, each a fenced prompt for a session: a series
/// of one word and a number is the plan's steps; `Option 1`/`Option 2`
/// are alternatives, not work (the plan was refused).
#[test]
fn a_series_of_numbered_headings_of_one_word_is_the_steps() {
    let (status, v, _) = json("first-sight-word-series");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        ["Invitation cut-outs", "Consent records", "Planner review"],
        "{v}"
    );
}

/// A board written as sections (`## Bugs`, `## In Progress`, `## Done`,
/// one card per item): every card is a step, column by column, those under
/// `Done` done (the three columns were read as three steps, 5 cards of
/// finished and open work in them).
#[test]
fn a_board_written_as_sections_is_read_card_by_card() {
    let (status, v, _) = json("first-sight-section-board");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Long words should wrap",
            "Help modal needs to scroll",
            "Import from Trello",
            "Search cards by title",
            "Due dates"
        ],
        "{v}"
    );
    assert_eq!(
        sprints_done(&v, 0),
        [false, false, false, true, true],
        "{v}"
    );
}

/// Phases whose work is a tracked table (`| Order | Item | Issue | Depends
/// on |`, `| Feature | Status | Percent |`): the column naming the items
/// gives each phase its tasks (the phases had none, and an agent would be
/// sent with nothing to do).
#[test]
fn a_phases_tracked_table_gives_its_tasks() {
    let (status, v, _) = json("first-sight-phase-tables");
    assert_eq!(status, 0, "{v}");
    let tasks = |k: usize| v["units"][0]["sprints"][k]["tasks"].clone();
    assert_eq!(
        tasks(1),
        serde_json::json!([
            "ExperimentRecord schema v1",
            "Mutation format v1",
            "EvaluationPlan v1"
        ])
    );
    assert_eq!(
        tasks(2),
        serde_json::json!(["ToolResult contract", "Retry policy"])
    );
    assert_eq!(sprints_done(&v, 0), [true, false, false], "{v}");
}

/// A design document of numbered sections, its work a table keyed by a
/// step word (`| Phase | Result | Acceptance |`, rows `P0: …`) inside one
/// of them: the rows are the steps (the five sections were dispatched as
/// work, the goal and the test strategy among them).
#[test]
fn a_work_table_inside_a_numbered_design_doc_is_its_steps() {
    let (status, v, _) = json("first-sight-design-doc-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        [
            "P0: Groundwork",
            "P1: Offline decoder",
            "P2: Read-only integration",
            "P3: Release"
        ],
        "{v}"
    );
}

/// Columns named by a state after what they sort (`# Pages to do`, `#
/// Pages done`), one of them written as a bare line: every card is a step,
/// the bare line too (the plan was refused, and once read, the page in
/// progress was lost).
#[test]
fn columns_named_after_their_cards_and_bare_lines_are_a_board() {
    let (status, v, _) = json("first-sight-section-board-lines");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprints_done(&v, 0),
        [false, false, false, false, true],
        "{v}"
    );
    assert_eq!(
        v["units"][0]["sprints"][3]["name"], "https://wiki.example.org/Terrain_file_description",
        "{v}"
    );
}

/// A build log under `# Checklist`, its boxes drawn as emoji shortcodes
/// (`:ballot_box_with_check:Design schematic\\`): each line is a step,
/// ticked or open as drawn, out of order too (the plan was refused).
#[test]
fn a_checklist_of_drawn_boxes_is_the_steps_before_a_refusal() {
    let (status, v, _) = json("first-sight-drawn-boxes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprints_done(&v, 0),
        [true, true, true, false, true, false],
        "{v}"
    );
    assert_eq!(
        v["units"][0]["sprints"][0]["name"], "Design schematic",
        "{v}"
    );
}

/// A runbook of plain sections under its title (`Pre-install`, `Prepare
/// data`, `Import`), no step word, number or box anywhere: the sections are
/// read as its steps, in order, and the reading says it guessed (the plan
/// was refused); a section about the plan (`Notes`) is no step.
#[test]
fn plain_sections_are_the_steps_before_a_refusal_with_a_guess() {
    let (status, v, _) = json("first-sight-plain-sections");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        ["Pre-install", "Prepare data", "Import"],
        "{v}"
    );
    assert_eq!(v["guesses"][0]["code"], "reading::numbered_headings", "{v}");
}

/// A Cursor plan whose frontmatter todos (two completed) sit over numbered
/// body sections that do not match them one to one: the todos are the
/// steps, done as their status says (the numbered sections were a guess,
/// and every one read open: finished work redone).
#[test]
fn a_cursor_plans_todos_outweigh_a_guess_of_numbered_sections() {
    let (status, v, _) = json("first-sight-cursor-todos-numbered");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, false], "{v}");
}

/// A plan that says its tracks run concurrently but names no order the
/// reader can tie to them runs them one after another, and says so: a
/// guess `start` asks about (it was read so in silence). A feature named
/// `parallel fetching` says nothing of the plan's order.
#[test]
fn parallel_work_said_in_prose_and_not_read_is_asked_about() {
    let (status, v, _) = json("first-sight-tracks-waiting");
    assert_eq!(status, 0, "{v}");
    let codes: Vec<&str> = v["guesses"]
        .as_array()
        .map(|g| g.iter().filter_map(|x| x["code"].as_str()).collect())
        .unwrap_or_default();
    assert!(codes.contains(&"reading::parallel_unread"), "{v}");
    assert_eq!(
        v["guesses"][codes
            .iter()
            .position(|c| *c == "reading::parallel_unread")
            .unwrap_or(0)]["line"],
        3,
        "{v}"
    );
    let (_, v, _) = json("first-sight-parallel-feature");
    assert!(v["guesses"].as_array().is_none_or(|g| g.is_empty()), "{v}");
}

/// Sections that each open with a pictograph (`## 📍 FASE 0`, `## 🔧 FASE
/// 1`, `## ✅ FASE 3: Final verification`): the ✅ among them decorates,
/// it marks nothing done (the final verification read done, and would
/// never have run).
#[test]
fn a_check_mark_among_decorated_headings_marks_nothing_done() {
    let (status, v, _) = json("first-sight-decorated-headings");
    assert_eq!(status, 0, "{v}");
    let done = sprints_done(&v, 0);
    assert_eq!(done.len(), 4, "{v}");
    assert!(done.iter().all(|d| !d), "{v}");
}

/// Releases headed by a version alone (`## 0.1.0` over `### items`) whose
/// finished items are led by a check glyph (`- √ mob generation`): each
/// release is a step named by its subtitle, done when all its items are
/// checked (the plan was refused).
#[test]
fn versions_with_check_glyph_items_are_releases_done_item_by_item() {
    let (status, v, _) = json("first-sight-check-glyphs");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        ["basic playable proof of concept", "debug tools", "items"],
        "{v}"
    );
    assert_eq!(sprints_done(&v, 0), [true, false, false], "{v}");
}

/// A gate whose every box is ticked, closed by a `- Verify: …` line, is
/// done: the line is the gate's check, not work left open. A `[~]` box is
/// open.
#[test]
fn a_verify_line_after_ticked_work_leaves_the_step_done() {
    let (status, v, _) = json("first-sight-verify-line");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, false], "{v}");
}

/// An ExecPlan whose only checklist is `## Progress`: the heading names a
/// list, so each item is a step, done by its own box (it was one open
/// step named `Progress`, its two finished items run again).
#[test]
fn a_lone_progress_checklist_is_read_item_by_item() {
    let (status, v, _) = json("first-sight-progress-items");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprints_done(&v, 0),
        [true, true, false, false, false],
        "{v}"
    );
    assert!(
        sprint_names(&v, 0)[0].starts_with("Agreed the design"),
        "{v}"
    );
}

/// Phases where only the later ones hold `### Sprint N` headings (one
/// decorated, `## 🎯 Fase 1`): the
/// earlier phases are steps too, in their place (they were dropped, with
/// their work, without a word).
#[test]
fn phases_of_the_series_without_sprints_are_steps_not_dropped() {
    let (status, v, _) = json("first-sight-series-siblings");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 4, "{v}");
    assert!(
        units[0]["name"]
            .as_str()
            .unwrap_or_default()
            .contains("Fase 1"),
        "{v}"
    );
    // `## 🎯 Fase 1`: the pictograph decorates; the phase is step 1.
    assert_eq!(units[0]["sprints"][0]["id"], "1", "{v}");
    assert_eq!(units[1]["deps"][0], units[0]["name"], "{v}");
    assert_eq!(
        sprint_names(&v, 2),
        ["Base do sistema", "Relatórios"],
        "{v}"
    );
}

/// `**Completed in this repo:**` over a list naming phases marks those
/// phases done; a list under `Partial / remaining` or a line about one
/// piece of work (`✅ **Shaders ready**:`) marks none.
#[test]
fn a_completed_list_naming_phases_marks_them_done() {
    let (status, v, _) = json("first-sight-done-list");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprints_done(&v, 0), [true, true, false], "{v}");
}

/// Two phases summed up under `## Implementation Plan`, then six `####
/// Step A.1` headings detailing the work under `## Step by Step Tasks`:
/// the steps are the sprints (the two summaries were, and every step was
/// dropped as not work).
#[test]
fn detailed_steps_outweigh_a_short_summary_of_phases() {
    let (status, v, _) = json("first-sight-detailed-steps");
    assert_eq!(status, 0, "{v}");
    let total = sprint_total(&v);
    assert_eq!(total, 6, "{v}");
}

/// `## Rally (5/3):` after `## Milestone 2`, written as the milestones are
/// (`##### To Do:`): the series' last step (it was dropped); the notes
/// after it are not.
#[test]
fn a_section_written_as_the_steps_after_the_last_is_the_next_step() {
    let (status, v, _) = json("first-sight-series-tail");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_names(&v, 0),
        ["Milestone 1", "Milestone 2", "Rally (5/3)"],
        "{v}"
    );
}

/// Steps named by codes (`I-001`, `C-003`) whose fields share one line
/// (`**Priority:** HIGH | **Dependencies:** I-001, I-002`): the lines are
/// the plan's order, so the first two run at once and the third waits for
/// both (all four ran in sequence).
#[test]
fn dependency_fields_on_one_line_name_steps_by_their_codes() {
    let (status, v, _) = json("first-sight-coded-deps");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 4, "{v}");
    assert!(
        units[1]["deps"].as_array().is_some_and(|d| d.is_empty()),
        "{v}"
    );
    assert_eq!(units[2]["deps"].as_array().map(Vec::len), Some(2), "{v}");
}

/// A Spanish table of phases and what each waits for (`| **3** | 1 y 2 |`,
/// `Nada`): phases 1 and 2 run at once after 0, and 3 waits for both (the
/// four ran in sequence).
#[test]
fn a_dependency_table_in_the_plans_language_orders_its_phases() {
    let (status, v, _) = json("first-sight-dependency-table-es");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 4, "{v}");
    assert_eq!(units[2]["deps"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(units[3]["deps"].as_array().map(Vec::len), Some(2), "{v}");
}

/// `### Phase 2-1 종료 조건` (exit conditions) inside `## Phase 2-1 …`: a heading
/// about the phase, not a step inside it. The phases are the steps, each
/// done by its status table (the conditions were read as the steps, and
/// every task row was dropped).
#[test]
fn a_step_heading_inside_one_with_its_own_id_is_about_it() {
    let (status, v, _) = json("first-sight-same-id-inside");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_names(&v, 0), ["Standards", "Agent quality"], "{v}");
    assert_eq!(sprints_done(&v, 0), [true, false], "{v}");
}
