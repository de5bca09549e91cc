//! Done marks as plans write them in their own words, and marks a plan
//! contradicts: a status line in the plan's language (`Status M1:
//! zrealizowane`) marks its milestone or issue; a phase's ✅ is not done while
//! a task inside says `Status: Not started`; unboxed items beside a ticked
//! one are open work, never done by that tick; rows of a work table (a
//! status or blocked-by column, coded rows) are task lines the tally counts;
//! a checklist naming milestones inside a sprint is that sprint's work, not
//! an index of sprints; two sprints in progress at once are a guess; sprints
//! only a status table lists are sprints in their place; open steps written
//! as items keep their sprint open; a sprint table's status column named in
//! the plan's language; `Task N.M` headings each with a mark of their own;
//! a sprint whose tasks are all ticked is done though its acceptance checks
//! are not (they are checks, not task lines); a mark done but for something
//! (`✅ DONE (except final deployment)`) is not done; a status table's done
//! row does not close a sprint whose open items were read as its steps.

use crate::common::plan_json::*;

json_snapshots! {
    "marks_":
    languages => "marks-languages",
    contradicted => "marks-contradicted",
    work_table => "marks-work-table",
    milestone_checklist => "marks-milestone-checklist",
    progress_inside => "marks-progress-inside",
    feature_tables => "marks-feature-tables",
    table_status_language => "marks-table-status-language",
    task_headings => "marks-task-headings",
    checks_unticked => "marks-checks-unticked",
    done_but_for => "marks-done-but-for",
    table_over_open_steps => "marks-table-over-open-steps",
}

#[test]
fn status_lines_in_the_plans_language_mark_work_done() {
    let (status, v, _) = json("marks-languages");
    assert_eq!(status, 0);
    assert_eq!(units(&v), ["M1: Interfejs", "M2: Testy"]);
    assert_eq!(sprint_ids(&v, 0), ["1", "2"]);
    assert_eq!(sprints_done(&v, 0), [true, true]);
    // `w toku` (in progress) on the milestone marks nothing; its issue's own
    // `zrealizowane` does.
    assert_eq!(sprint_ids(&v, 1), ["3", "4"]);
    assert_eq!(sprints_done(&v, 1), [true, false]);
}

#[test]
fn a_done_mark_the_plan_contradicts_inside_is_not_done() {
    let (status, v, _) = json("marks-contradicted");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["4", "5"]);
    // Phase 4's ✅ over `Task 11 … Status: Not started`.
    assert_eq!(sprints_done(&v, 0), [false, false]);
    assert!(codes(&v, "guesses").contains(&"reading::open_lines".to_string()));
    // `1. Repository setup` beside `3. [x] Verified …`: open, in no sprint,
    // a warning `start` confirms.
    assert!(codes(&v, "warnings").contains(&"plan::work_outside".to_string()));
    assert_eq!(v["tally"]["outside"].as_array().map(Vec::len), Some(2));
}

#[test]
fn rows_of_a_work_table_outside_every_sprint_are_open_work_a_warning_names() {
    let (status, v, _) = json("marks-work-table");
    assert_eq!(status, 0);
    let outside: Vec<&str> = v["tally"]["outside"]
        .as_array()
        .expect("outside")
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert_eq!(outside, ["FLOW-004", "FLOW-005"]);
    assert!(codes(&v, "warnings").contains(&"plan::work_outside".to_string()));
    // The struck-through row is done work, not open.
    assert_eq!(v["tally"]["not_work"][0]["text"], "FLOW-002");
}

#[test]
fn a_checklist_of_milestones_inside_a_sprint_is_its_work_not_an_index() {
    // `Milestone 4: Retry hooks` is a task line of `## Milestones`: it makes
    // no sprint of its own beside the group that holds it.
    let (status, v, _) = json("marks-milestone-checklist");
    assert_eq!(status, 0);
    let names = sprint_names(&v, 0);
    assert_eq!(names, ["Milestones", "Follow-ups"]);
    assert_eq!(sprints_done(&v, 0), [false, false]);
    assert_eq!(v["tally"]["twice"].as_array().map(Vec::len), Some(0));
}

#[test]
fn two_sprints_in_progress_at_once_say_the_work_may_be_the_lines() {
    let (status, v, _) = json("marks-progress-inside");
    assert_eq!(status, 0);
    assert_eq!(sprints_done(&v, 0), [false, false, false]);
    assert!(codes(&v, "guesses").contains(&"reading::progress_inside".to_string()));
}

#[test]
fn one_sprint_in_progress_is_how_any_plan_is_worked() {
    // The first fixture's `## Milestones` is the only sprint with a tick.
    let (_, v, _) = json("marks-milestone-checklist");
    assert!(!codes(&v, "guesses").contains(&"reading::progress_inside".to_string()));
}

#[test]
fn rows_of_a_feature_table_marked_done_or_open_are_task_lines() {
    // `| enum with data | ✅ |` under `## Phase 2`: no code, but a status
    // column of marks makes each row a task line of its phase.
    let (status, v, _) = json("marks-feature-tables");
    assert_eq!(status, 0);
    assert_eq!(sprints_done(&v, 0), [false, false, false]);
    assert_eq!(v["tally"]["task_lines"], 6);
    assert_eq!(v["tally"]["in_sprints"], 6);
    assert!(codes(&v, "guesses").contains(&"reading::progress_inside".to_string()));
}

#[test]
fn sprints_only_a_status_table_lists_are_sprints_in_their_place() {
    // Sprint 1 (done) and Sprint 4 (planned) have no section: the overview
    // table is their only mention, and Sprint 4's open work is not dropped.
    let (status, v, _) = json("done-status-table-only");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"]);
    assert_eq!(sprints_done(&v, 0), [true, true, false, false]);
    assert_eq!(sprint_names(&v, 0)[3], "Final integration");
    assert!(codes(&v, "guesses").contains(&"reading::done_elsewhere".to_string()));
}

#[test]
fn open_steps_written_as_items_keep_their_sprint_open() {
    // `- [ ] **TASK 30.4**` blocks read as steps of Sprint 30 are open work
    // of it even where the plan is read at the sprint level: Sprint 30 is
    // not done because its two other lines are ticked.
    let (status, v, _) = json("marks-open-steps-in-done-sprint");
    assert_eq!(status, 0);
    let done = sprints_done(&v, 0);
    assert!(!done.iter().any(|d| *d), "{done:?}");
}

#[test]
fn a_sprint_table_s_status_column_is_read_in_the_plan_s_language() {
    let (status, v, _) = json("marks-table-status-language");
    assert_eq!(status, 0);
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

#[test]
fn task_headings_marked_one_by_one_are_sprints_one_by_one() {
    // `### Task 1.1: … ✅`: each task heading carries its own mark, so each
    // is a sprint with it (grouped per phase, the marks were lost);
    // `Task 1.2.1` is a sprint of its own, not work outside every sprint.
    let (status, v, _) = json("marks-task-headings");
    assert_eq!(status, 0, "{v}");
    let names: Vec<String> = every_sprint(&v)
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "Projekt anlegen",
            "Datenbank",
            "Schema nachbessern",
            "Layout"
        ]
    );
    let done: Vec<bool> = every_sprint(&v)
        .iter()
        .map(|s| !s["done"].is_null())
        .collect();
    assert_eq!(done, [true, true, false, false]);
}

#[test]
fn ticked_work_is_done_though_its_checks_are_left_unticked() {
    let (status, v, _) = json("marks-checks-unticked");
    assert_eq!(status, 0);
    // Phase 1 keeps an open task line: open, whatever its checks say.
    assert_eq!(sprints_done(&v, 0), [true, false]);
}

#[test]
fn a_mark_done_but_for_something_is_not_done() {
    let (status, v, _) = json("marks-done-but-for");
    assert_eq!(status, 0);
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

#[test]
fn a_status_table_does_not_close_a_sprint_with_open_steps() {
    // Phase 1's `- [ ] **1.2.1**` items are read as its steps' headings:
    // open lines of the sprint all the same, whatever the table says.
    let (status, v, _) = json("marks-table-over-open-steps");
    assert_eq!(status, 0, "{v}");
    let done: Vec<bool> = every_sprint(&v)
        .iter()
        .map(|s| !s["done"].is_null())
        .collect();
    assert_eq!(done.first(), Some(&true), "{v}");
    assert!(done[1..].iter().all(|d| !d), "{done:?}");
}

/// Every sprint of every unit, in order.
fn every_sprint(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["units"]
        .as_array()
        .expect("units")
        .iter()
        .flat_map(|u| u["sprints"].as_array().expect("sprints").clone())
        .collect()
}
