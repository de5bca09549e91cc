//! The order and done marks real plans state, one fixture per shape: units
//! ordered by tables, graphs, waves and sentences; sprint tables with a
//! column per agent; rows of a table that name the rows they wait for; an
//! epic's created tickets in the order they state; a drawn order of steps
//! the reading could not use, said as a guess;
//! work a plan marks done where it is, or elsewhere; a `Phase Dependencies`
//! list whose items name the phase first (`Phase 4 (name): Depends on …`);
//! dependency lines naming inserted phases (`Phase 1.1`).

use crate::common::plan_json::*;

#[test]
fn order_of_units() {
    let (_, v, _) = json("order-phases");
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(deps(&v, 2), ["Ship"]);
    let (_, v, _) = json("order-parallel-phases");
    assert_eq!(v["detection"]["dependencies"], "parallel");
    // Phases whose prose says their own tasks run at once still follow one
    // another.
    let (_, v, _) = json("order-task-parallel-prose");
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(deps(&v, 1), ["Foundations (Weeks 1-2)"]);
    assert_eq!(deps(&v, 2), ["Core (Weeks 3-4)"]);
    // Sections that group sprints by state are not units.
    let (_, v, _) = json("order-status-groups");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1));
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    // Sections numbered alike, by any word or by release, follow one another.
    for fixture in ["order-numbered-chunks", "order-versions"] {
        let (_, v, _) = json(fixture);
        assert_eq!(v["detection"]["dependencies"], "sequential", "{fixture}");
    }
    // A graph that orders two phases of three says nothing of the third.
    let (_, v, _) = json("order-partial-graph");
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(deps(&v, 1), ["Parser"]);
    assert_eq!(deps(&v, 2), ["Checker"]);
    let (status, v, _) = json("order-ascii");
    assert_eq!(status, 0);
    assert_eq!(deps(&v, 2), ["parser", "profiles"]);
    assert_eq!(deps(&v, 3), ["validation"]);
    let (status, v, _) = json("order-mermaid-ids");
    assert_eq!(status, 0);
    assert_eq!(deps(&v, 1), ["parser", "schema"]);
    assert_eq!(deps(&v, 0), ["schema"]);
}

/// A sprint table with a column per agent: each filled cell a sprint, row
/// by row in one sequence (the gates between rows are kept by running
/// them in order); a completion log marks the cells it lists done, said as
/// a guess.
#[test]
fn sprint_tables_with_a_column_per_agent() {
    let (status, v, _) = json("tables-agent-columns");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(sprint_ids(&v, 0), ["36a", "36b", "37a", "37b", "38a"]);
    assert_eq!(sprints_done(&v, 0), [true, true, true, false, false]);
    assert_eq!(
        sprint_names(&v, 0)[1],
        "Agent B (Frontend/Types): ContentBlock types, src/types/block.ts"
    );
    assert_eq!(v["guesses"][0]["code"], "reading::done_elsewhere");
}

/// A mermaid graph over the plan's phases orders them when it names every
/// phase the plan details: each phase a unit, its `Task N.M` steps its
/// sprints; phases the graph ticks and never details are done units, the
/// ones after the detailed phases are left out with a warning.
#[test]
fn phases_ordered_by_a_mermaid_graph() {
    let (status, v, _) = json("order-phase-graph");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(
        units(&v),
        [
            "Phase 0: Setup",
            "Phase 1: Schema",
            "Phase 2: Backend Authorization",
            "Phase 2B: Frontend Permission Shell (Parallel Track)",
            "Phase 3: Sync Filtering",
            "Phase 4: Integration & Testing",
        ]
    );
    assert_eq!(sprints_done(&v, 0), [true]);
    assert_eq!(sprints_done(&v, 1), [true]);
    assert_eq!(sprint_ids(&v, 2), ["2.1", "2.2"]);
    assert_eq!(sprint_ids(&v, 3), ["2b.1", "2b.2"]);
    assert_eq!(sprints_done(&v, 2), [false, false]);
    assert_eq!(deps(&v, 2), ["Phase 1: Schema"]);
    assert_eq!(deps(&v, 3), ["Phase 1: Schema"]);
    assert_eq!(deps(&v, 4), ["Phase 2: Backend Authorization"]);
    let mut last = deps(&v, 5);
    last.sort();
    assert_eq!(
        last,
        [
            "Phase 2B: Frontend Permission Shell (Parallel Track)",
            "Phase 3: Sync Filtering"
        ]
    );
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("plan::left_out"), "{warnings}");
    assert!(warnings.contains("Phase 5: Admin UI"), "{warnings}");
    assert!(!warnings.contains("Start"), "{warnings}");

    // `P2 & P3 --> P4` waits for both; edge labels are not nodes.
    let (_, v, _) = json("order-phase-graph-flowchart");
    let mut report = deps(&v, 3);
    report.sort();
    assert_eq!(report, ["Phase 2: Clean", "Phase 3: Index"]);
    assert_eq!(deps(&v, 2), ["Phase 1: Ingest"]);

    // An open phase the plan never details before the detailed ones, or a
    // graph over two phases of three: not read, one sequence.
    for fixture in ["order-phase-graph-open-before", "order-phase-graph-partial"] {
        let (_, v, _) = json(fixture);
        assert_eq!(v["detection"]["dependencies"], "sequential", "{fixture}");
        assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{fixture}");
    }
}

/// Steps of a one-unit plan run at once only where the plan names them:
/// todos that list their dependencies, "Tasks 1-3 … can run in parallel",
/// spec-kit's `Phase Dependencies` list. A chain written out in the body
/// beats the todos' looser graph.
#[test]
fn order_stated_for_named_steps() {
    let (_, v, _) = json("order-todo-dependencies");
    assert_eq!(v["detection"]["units"]["kind"], "steps");
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(units(&v), ["cache", "loader", "charts", "report"]);
    assert_eq!(deps(&v, 0), Vec::<String>::new());
    assert_eq!(deps(&v, 1), ["cache"]);
    assert_eq!(deps(&v, 2), Vec::<String>::new());
    assert_eq!(deps(&v, 3), ["loader", "charts"]);
    assert_eq!(sprints_done(&v, 0), [true]);
    assert_eq!(sprints_done(&v, 3), [false]);

    let (_, v, _) = json("order-todo-chain");
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);

    let (_, v, _) = json("order-scoped-parallel");
    assert_eq!(
        units(&v),
        ["Task 1", "Task 2", "Task 3", "Task 4", "Task 5"]
    );
    assert_eq!(deps(&v, 2), Vec::<String>::new());
    assert_eq!(deps(&v, 3), ["Task 1", "Task 2", "Task 3"]);
    assert_eq!(deps(&v, 4), ["Task 4"]);
    // `### Step N` inside one task of five are that task's parts.
    assert_eq!(
        sprint(&v, 3, 0)["name"].as_str(),
        Some("Move modules into folders")
    );

    // The same list in Russian (`Зависит от завершения Setup`) reads alike.
    for fixture in ["order-phase-dependencies", "order-phase-dependencies-ru"] {
        let (_, v, _) = json(fixture);
        assert_eq!(v["detection"]["dependencies"], "graph", "{fixture}");
        assert_eq!(deps(&v, 1), ["Phase 1"]);
        assert_eq!(deps(&v, 2), ["Phase 2"]);
        assert_eq!(deps(&v, 3), ["Phase 2"]);
        assert_eq!(deps(&v, 4), ["Phase 3", "Phase 4"]);
        assert_eq!(sprints_done(&v, 0), [true]);
    }

    // Items handed out in waves: a wave waits for the one before; items
    // of a wave that says "parallel" run at once, others one by one, and
    // prerequisites naming earlier items are kept.
    let (_, v, _) = json("order-waves-of-items");
    assert_eq!(v["detection"]["units"]["kind"], "waves");
    assert_eq!(units(&v), ["#37", "#40", "#42", "#43", "#32", "#33"]);
    assert_eq!(deps(&v, 1), Vec::<String>::new());
    assert_eq!(deps(&v, 2), ["#37", "#40"]);
    assert_eq!(deps(&v, 4), ["#42", "#43"]);
    assert_eq!(deps(&v, 5), ["#42", "#43", "#32"]);
    assert_eq!(sprint(&v, 0, 0)["files"][0], ".github/workflows/nav.yml");

    // Waves of task tables with a Dependencies cell: the cell orders a
    // row within its wave ("ALL above": every earlier row of the wave),
    // each wave after the one before; a checklist elsewhere is no sprint.
    let (_, v, _) = json("order-waves-of-tables");
    assert_eq!(
        units(&v),
        [
            "CORE-001",
            "INFRA-001",
            "DOCS-001",
            "CORE-002",
            "DB-001",
            "CHECK-001"
        ]
    );
    assert_eq!(deps(&v, 1), ["CORE-001"]);
    assert_eq!(deps(&v, 2), Vec::<String>::new());
    assert_eq!(deps(&v, 3), ["CORE-001", "INFRA-001", "DOCS-001"]);
    assert_eq!(
        deps(&v, 5),
        ["CORE-001", "INFRA-001", "DOCS-001", "CORE-002", "DB-001"]
    );

    let (_, v, _) = json("order-suggested-list");
    assert_eq!(deps(&v, 1), ["Phase A"]);
    assert_eq!(deps(&v, 2), ["Phase A"]);
    assert_eq!(deps(&v, 3), ["Phase B", "Phase C"]);
    assert_eq!(deps(&v, 4), ["Phase D"]);
}

#[test]
fn work_already_done() {
    let (status, v, _) = json("done-marks");
    assert_eq!(status, 0);
    assert_eq!(
        sprints_done(&v, 0),
        [true, true, true, true, true, false, false, true]
    );
    assert_eq!(sprint(&v, 0, 6)["name"], "Complete the migration");
}

/// Done marks the plan keeps outside a sprint's own section: the whole
/// plan's frontmatter state, frontmatter todos, a progress checklist or a
/// roadmap index. An open mark there wins over a ticked inner checklist.
#[test]
fn done_marks_kept_elsewhere() {
    let done = sprints_done;
    let (_, v, _) = json("done-frontmatter-state");
    assert_eq!(done(&v, 0), [true, true]);
    let (_, v, _) = json("done-frontmatter-todos");
    assert_eq!(done(&v, 0), [true, true, false]);
    let (_, v, _) = json("done-progress-checklist");
    assert_eq!(done(&v, 0), [true, true, false]);
    let (_, v, _) = json("done-roadmap-index");
    assert_eq!(done(&v, 0), [true, true, false]);
    assert!(v["units"][0]["sprints"][0]["done"]
        .as_str()
        .expect("done")
        .contains("ticked in its index"));
    let (_, v, _) = json("done-task-statuses");
    assert_eq!(done(&v, 0), [true, false]);
}

/// Done marks on what holds the sprints: a `## ✅ Completed Tasks` group,
/// a phase heading marked `(COMPLETE)`; Kiro's in-progress `- [-]` task is
/// a sprint, not done.
#[test]
fn done_marks_on_what_holds_the_sprints() {
    let (_, v, _) = json("done-status-groups");
    assert_eq!(sprints_done(&v, 0), [true, false]);
    let (_, v, _) = json("done-unit-heading");
    assert_eq!(sprints_done(&v, 0), [true]);
    assert_eq!(sprints_done(&v, 1), [false]);
    let (_, v, _) = json("dialect-kiro-in-progress");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(sprints_done(&v, 0), [false, false, false]);
}

#[test]
fn rows_of_a_table_with_a_dependencies_column_wait_for_the_rows_they_name() {
    let (status, v, _) = json("order-table-dependencies");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(5));
    assert_eq!(deps(&v, 1), ["1 Workspace setup"]);
    assert_eq!(deps(&v, 2), ["1 Workspace setup"]);
    assert_eq!(deps(&v, 3), ["2 Backend API", "3 UI shell"]);
    // An empty cell says nothing: the row waits for the one before it.
    assert_eq!(deps(&v, 4), ["4 Repository screen"]);
    // Sub-rows stay their row's task lines, not rows of the graph.
    assert_eq!(sprint_ids(&v, 0), ["1"]);
    assert!(codes(&v, "guesses").contains(&"reading::order_stated".to_string()));
}

#[test]
fn an_epics_created_tickets_are_its_units_in_the_order_they_state() {
    let (status, v, _) = json("order-epic-tickets");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "graph");
    // The preview lists the same tickets: they are not sprints of their own.
    assert_eq!(v["units"].as_array().map(Vec::len), Some(4));
    assert_eq!(deps(&v, 1), ["#12 Execution engine"]);
    assert_eq!(deps(&v, 2), ["#12 Execution engine"]);
    assert_eq!(
        deps(&v, 3),
        ["#12 Execution engine", "#13 Result API", "#14 Routing"]
    );
    assert_eq!(sprints_done(&v, 0), [true]);
    assert_eq!(sprints_done(&v, 1), [false]);
}

#[test]
fn an_epics_dependency_order_line_orders_its_tickets() {
    let (status, v, _) = json("order-epic-dependency-line");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(deps(&v, 1), ["001 Monorepo scaffold"]);
    assert_eq!(deps(&v, 2), ["001 Monorepo scaffold"]);
    // A `→` that ends its line carries on to the next.
    assert_eq!(deps(&v, 3), ["003 Database schema"]);
    // `parallel: true` and named by no arrow: it starts at once.
    assert!(deps(&v, 4).is_empty());
}

#[test]
fn a_step_tables_numbered_rows_are_sprints_in_the_order_their_cells_state() {
    let (status, v, _) = json("order-step-table");
    assert_eq!(status, 0);
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(5));
    assert!(deps(&v, 1).is_empty());
    assert_eq!(deps(&v, 4).len(), 2);
    assert_eq!(sprints_done(&v, 0), [true]);
    assert_eq!(sprints_done(&v, 2), [false]);
}

#[test]
fn a_drawn_order_of_steps_the_reading_could_not_use_is_said() {
    // A graph naming phases the reader cannot tie to all its sprints: the
    // sprints run in sequence, and `start` asks.
    let (_, v, _) = json("order-phase-graph-partial");
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert!(codes(&v, "guesses").contains(&"reading::graph_unread".to_string()));
    // A drawing of the system's parts is no order of work.
    let (status, v, _) = json("order-architecture-diagram");
    assert_eq!(status, 0);
    assert!(!codes(&v, "guesses").contains(&"reading::graph_unread".to_string()));
}

#[test]
fn a_phase_dependencies_list_naming_phases_first_orders_them() {
    // `- Phase 4 (name): Depends on Phase 1（…）。Phase 2/3 と…`: the phase
    // before its name; the clause ends at the full-width aside, so Phase 4
    // waits for Phase 1 only; Phase 5, appended after the notes and named
    // by no item, follows the phase before it, and every phase nothing
    // offers to run beside it.
    let (status, v, _) = json("order-phase-dependencies-named");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(deps(&v, 1), ["Phase 1"]);
    assert_eq!(deps(&v, 3), ["Phase 1"]);
    assert_eq!(deps(&v, 4), ["Phase 2", "Phase 3", "Phase 4"]);
}

#[test]
fn dependency_lines_name_inserted_phases_unless_the_plan_states_a_sequence() {
    // `Phase 1.1` and `Phase 2` each wait only for Phase 1: they may run at
    // once.
    let (status, v, _) = json("order-inserted-phase-lines");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert_eq!(deps(&v, 1), ["Catalog schema"]);
    assert_eq!(deps(&v, 2), ["Catalog schema"]);
    assert_eq!(deps(&v, 3), ["Catalog browser"]);
    // The same plan stating its order (`Phases execute in numeric order:
    // 1 → 1.1 → 2 → 3`) is that one sequence.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/plans/order-inserted-phase-lines/EXECUTION_PLAN.md"),
    )
    .expect("fixture");
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = dir.path().join("EXECUTION_PLAN.md");
    std::fs::write(
        &plan,
        format!("{text}\n## Progress\n\nPhases execute in numeric order: 1 → 1.1 → 2 → 3\n"),
    )
    .expect("write");
    let out = crate::common::run(
        dir.path(),
        &["plan", "--format", "json", "EXECUTION_PLAN.md"],
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_ne!(v["detection"]["dependencies"], "graph", "{v}");
}
