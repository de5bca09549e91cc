//! The shapes real plans are written in, one fixture per shape (several per
//! class), each with a `plan --format json` snapshot and the facts a reader
//! sees in it asserted.

use serde_json::Value;

use crate::common::plan_json::*;
use crate::common::plans_dir;
use crate::common::run;

// Every fixture of this file parses (or is rejected) the same way as its
// snapshot says.
json_snapshots! {
    "shape_":
    words_sortie => "words-sortie",
    words_phase_steps => "words-phase-steps",
    words_weeks => "words-weeks",
    words_weeks_days => "words-weeks-days",
    words_bold_steps => "words-bold-steps",
    words_phase_tasks => "words-phase-tasks",
    tables_agent_columns => "tables-agent-columns",
    words_priority_groups => "words-priority-groups",
    nested_fences => "nested-fences",
    words_milestones => "words-milestones",
    words_patches => "words-patches",
    words_plural_section => "words-plural-section",
    grammar_headings => "grammar-headings",
    grammar_dotted_ids => "grammar-dotted-ids",
    grammar_phase_sprint => "grammar-phase-sprint",
    grammar_lettered_phases => "grammar-lettered-phases",
    about_under => "about-under",
    about_later => "about-later",
    tables_noise => "tables-noise",
    tables_service => "tables-service",
    tables_name_column => "tables-name-column",
    units_sections => "units-sections",
    units_nested_sections => "units-nested-sections",
    units_flat_counts => "units-flat-counts",
    units_flat_one_row => "units-flat-one-row",
    units_flat_named => "units-flat-named",
    units_prefixed_sprints => "units-prefixed-sprints",
    order_phases => "order-phases",
    order_parallel_phases => "order-parallel-phases",
    order_ascii => "order-ascii",
    order_mermaid_ids => "order-mermaid-ids",
    order_task_parallel_prose => "order-task-parallel-prose",
    order_partial_graph => "order-partial-graph",
    order_phase_graph => "order-phase-graph",
    order_phase_graph_flowchart => "order-phase-graph-flowchart",
    order_phase_graph_open_before => "order-phase-graph-open-before",
    order_phase_graph_partial => "order-phase-graph-partial",
    order_status_groups => "order-status-groups",
    order_numbered_chunks => "order-numbered-chunks",
    order_versions => "order-versions",
    order_waves => "order-waves",
    order_todo_dependencies => "order-todo-dependencies",
    order_todo_chain => "order-todo-chain",
    order_scoped_parallel => "order-scoped-parallel",
    order_phase_dependencies => "order-phase-dependencies",
    order_suggested_list => "order-suggested-list",
    order_waves_of_items => "order-waves-of-items",
    order_waves_of_tables => "order-waves-of-tables",
    done_status_groups => "done-status-groups",
    done_unit_heading => "done-unit-heading",
    dialect_kiro_in_progress => "dialect-kiro-in-progress",
    criteria_forms => "criteria-forms",
    criteria_plans_lists => "criteria-plans-lists",
    done_marks => "done-marks",
    tolerated_deps => "tolerated-deps",
    dialect_kiro => "dialect-kiro",
    dialect_cursor => "dialect-cursor",
    dialect_execplan_progress => "dialect-execplan-progress",
    dialect_superpowers => "dialect-superpowers",
    dialect_kiro_tasks_heading => "dialect-kiro-tasks-heading",
    done_frontmatter_state => "done-frontmatter-state",
    done_frontmatter_todos => "done-frontmatter-todos",
    done_progress_checklist => "done-progress-checklist",
    done_roadmap_index => "done-roadmap-index",
    dialect_gsd_inserted => "dialect-gsd-inserted",
    done_index_only => "done-index-only",
    done_progress_verbs => "done-progress-verbs",
    done_nothing_to_do => "done-nothing-to-do",
    done_task_statuses => "done-task-statuses",
    template_not_template => "template-not-template",
    template_sortie => "template-sortie",
    types_first_word => "types-first-word",
    order_written => "order-written",
    order_written_phases => "order-written-phases",
    restated_subids => "restated-subids",
    restated_levels => "restated-levels",
    names_asides => "names-asides",
    done_subsections => "done-subsections",
    words_titled_sprint => "words-titled-sprint",
    words_titled_sprint_open => "words-titled-sprint-open",
    words_chinese => "words-chinese",
    words_persian => "words-persian",
    words_spanish => "words-spanish",
    tables_sprint_ids => "tables-sprint-ids",
    tables_stage_rows => "tables-stage-rows",
    tables_task_board => "tables-task-board",
    tables_coded_slices => "tables-coded-slices",
    words_unnumbered => "words-unnumbered",
    rejected_taken_table => "bad-taken-table",
    rejected_unreadable => "bad-unreadable",
}

#[test]
fn other_words_for_a_sprint() {
    let (status, v, _) = json("words-sortie");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"]);

    let (_, v, _) = json("words-phase-steps");
    assert_eq!(units(&v), ["Groundwork", "First real loop"]);
    assert_eq!(sprint_ids(&v, 0), ["0.1", "0.2"]);
    assert_eq!(sprint_ids(&v, 1), ["1.1", "1.2"]);
    assert_eq!(deps(&v, 1), ["Groundwork"], "numbered phases run in order");
    // A phase's DoD is its final step's exit criteria.
    assert!(exit_texts(sprint(&v, 0, 1))
        .iter()
        .any(|(_, t)| t.contains("make check")));

    let (_, v, _) = json("words-weeks");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    let (_, v, _) = json("words-milestones");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2"]);
    // A task table's Task column lists the sprint's tasks.
    assert_eq!(sprint(&v, 0, 0)["tasks"][0], "Ship the binary");
    let (_, v, _) = json("words-patches");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    // Subsections of a `## Milestones` heading, when nothing is numbered.
    let (status, v, _) = json("words-plural-section");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(sprint(&v, 0, 0)["name"], "MVP — Compile, store, recall");
    assert!(sprint(&v, 0, 2)["done"].is_string());
}

#[test]
fn sprint_heading_grammar() {
    let (status, v, _) = json("grammar-headings");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "3.5", "4"]);
    assert_eq!(sprint(&v, 0, 3)["name"], "tickets");
    assert_eq!(sprint(&v, 0, 4)["name"], "Packaging");
    assert!(sprint(&v, 0, 4)["done"].is_string());

    let (_, v, _) = json("grammar-dotted-ids");
    assert_eq!(sprint_ids(&v, 0), ["1a.1", "1a.2", "1b", "2-3"]);
    assert_eq!(sprint_ids(&v, 1), ["3a", "3a2.1"]);
    // `### Phase N:` dividers at the sprints' level are units, in order.
    assert_eq!(units(&v), ["Provider", "Host integration"]);
    assert_eq!(deps(&v, 1), ["Provider"]);
    let (_, v, _) = json("grammar-phase-sprint");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    let (_, v, _) = json("grammar-lettered-phases");
    let names: Vec<&str> = v["units"][0]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "Phase A0: Refactor the planner",
            "Phase A1: Ground truth",
            "Phase B: Belief and memory",
            "Phase C: Planning"
        ]
    );
}

#[test]
fn headings_about_a_sprint_belong_to_it() {
    let (status, v, _) = json("about-under");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2"]);
    assert_eq!(sprint(&v, 0, 0)["name"], "Core UI");
    let exit = exit_texts(sprint(&v, 0, 0));
    assert!(exit
        .iter()
        .any(|(k, t)| k == "command" && t.contains("npm test")));
    assert!(exit.iter().any(|(_, t)| t.contains("Snapshot tests")));

    let (status, v, _) = json("about-later");
    assert_eq!(status, 0);
    assert!(exit_texts(sprint(&v, 0, 0))
        .iter()
        .any(|(_, t)| t.contains("-p parser")));
    let last = exit_texts(sprint(&v, 0, 1));
    assert!(last.iter().any(|(_, t)| t.contains("-p printer")));
    assert!(last.iter().any(|(_, t)| t.contains("No regressions")));
}

#[test]
fn sprints_run_in_the_order_written() {
    let (status, v, _) = json("order-written");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["8", "9", "1", "2"]);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Safe refresh",
            "Guide writer",
            "Foundation",
            "Profile system"
        ]
    );
    assert!(sprint(&v, 0, 0)["done"].is_string());
    assert!(sprint(&v, 0, 1)["done"].is_null());
    assert!(sprint(&v, 0, 2)["done"].is_string());

    let (status, v, _) = json("order-written-phases");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["3", "1", "2"]);
}

#[test]
fn restated_and_subdivided_sprints_are_not_new_sprints() {
    // `#### M0.1` inside `## M0:` is a task; `## M1.5:` beside them is a
    // milestone; `## M2 remaining priorities` is about M2.
    let (status, v, _) = json("restated-subids");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "1.5", "2"]);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Skeleton (Week 1)",
            "Backend API (Week 2)",
            "Admin login (Week 2)",
            "Web UI (Week 3)"
        ]
    );
    assert!(sprint(&v, 0, 2)["done"].is_string());
    assert!(sprint(&v, 0, 3)["done"].is_null());

    // A status heading naming a phase, a per-phase success subsection and an
    // appendix `# Phase 2.1` at other levels belong to the phases.
    let (status, v, _) = json("restated-levels");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(sprint(&v, 0, 0)["name"], "Foundation (Week 1-2)");
    assert!(exit_texts(sprint(&v, 0, 0))
        .iter()
        .any(|(k, t)| k == "command" && t.contains("-p triggers")));
    assert!(exit_texts(sprint(&v, 0, 1))
        .iter()
        .any(|(_, t)| t.contains("within 5 seconds")));
}

#[test]
fn sprints_whose_subsections_are_all_done_are_done() {
    let (status, v, _) = json("done-subsections");
    assert_eq!(status, 0);
    // The numbered sub-sections are the steps, also below a frame heading
    // of no number (`### Backend - database layer`).
    assert_eq!(
        sprint_ids(&v, 0),
        ["1.1", "1.2", "1.3", "2.1", "2.2", "3.1", "3.2", "3.3"]
    );
    for done in [0, 1, 2, 4, 5] {
        assert!(sprint(&v, 0, done)["done"].is_string(), "{done}");
    }
    // Its heading says so, but one of its own task lines is open ("Slack
    // documentation (pending)"): not done, and the reading says why.
    assert!(sprint(&v, 0, 3)["done"].is_null());
    assert!(v["guesses"]
        .as_array()
        .is_some_and(|g| g.iter().any(|g| g["code"] == "reading::open_lines")));
    assert!(sprint(&v, 0, 6)["done"].is_null());
    assert!(sprint(&v, 0, 7)["done"].is_null());
}

#[test]
fn a_document_titled_as_a_sprint_is_that_sprint() {
    let (status, v, _) = json("words-titled-sprint");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1"]);
    assert_eq!(sprint(&v, 0, 0)["name"], "cache v2.1");
    assert!(sprint(&v, 0, 0)["done"].is_string());

    let (status, v, _) = json("words-titled-sprint-open");
    assert_eq!(status, 0);
    assert_eq!(sprint_names(&v, 0), ["Search relevance"]);
    assert!(sprint(&v, 0, 0)["done"].is_null());
    assert!(exit_texts(sprint(&v, 0, 0))
        .iter()
        .any(|(k, t)| k == "command" && t.contains("-p search")));
}

#[test]
fn asides_are_not_part_of_a_sprint_name() {
    let (status, v, _) = json("names-asides");
    assert_eq!(status, 0);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Planning",
            "Operability & core DX",
            "API and foundation",
            "Security hardening (§3)",
            "Multi-tenancy"
        ]
    );
}

#[test]
fn unit_tables_by_shape() {
    let (status, v, _) = json("tables-noise");
    assert_eq!(status, 0);
    assert_eq!(
        units(&v),
        ["WU1 — Parser", "WU2 — Printer", "WU3 — Verification"]
    );
    assert_eq!(v["units"][0]["dir"], "crates/parser");
    assert_eq!(v["units"][0]["layer"], Value::Null);
    assert_eq!(v["units"][1]["layer"], 2);
    assert_eq!(deps(&v, 1), ["WU1 — Parser"]);
    assert_eq!(deps(&v, 2), ["WU2 — Printer"]);

    let (_, v, _) = json("tables-service");
    assert_eq!(units(&v), ["auth", "billing", "reports"]);
    assert_eq!(deps(&v, 2), ["auth", "billing"]);
    let (_, v, _) = json("tables-name-column");
    assert_eq!(units(&v), ["core", "cli"]);
}

#[test]
fn units_from_sections_and_flat_sprints() {
    let (status, v, _) = json("units-sections");
    assert_eq!(status, 0);
    assert_eq!(units(&v), ["Core", "CLI", "Docs"]);
    assert_eq!(deps(&v, 2), ["CLI"]);
    let (_, v, _) = json("units-nested-sections");
    assert_eq!(units(&v), ["Investigation", "Refactor"]);
    assert_eq!(deps(&v, 1), ["Investigation"]);
    let (_, v, _) = json("units-flat-counts");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"]);
    assert_eq!(sprint_ids(&v, 1), ["5", "6", "7"]);
    assert_eq!(deps(&v, 1), ["Verification & Docs"]);
    let (_, v, _) = json("units-flat-one-row");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    let (_, v, _) = json("units-prefixed-sprints");
    assert_eq!(units(&v), ["Bruja", "Espeak"]);
    assert_eq!(sprint_ids(&v, 0), ["1"]);
    assert_eq!(sprint_ids(&v, 1), ["1"]);
    let (_, v, _) = json("units-flat-named");
    assert_eq!(sprint_ids(&v, 0), ["1"]);
    assert_eq!(sprint_ids(&v, 1), ["2", "3"]);
}

/// A task board (a table of coded tasks per area) and a backlog of coded
/// items per slice: each table's section is a unit, each row a sprint with
/// its code kept; sections with nothing between them are one sequence.
#[test]
fn tables_of_coded_tasks() {
    let (status, v, _) = json("tables-task-board");
    assert_eq!(status, 0);
    assert_eq!(units(&v), ["Security", "Hosting", "Later"]);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "SEC-01: Deny by default on every route",
            "SEC-02: Reject oversized uploads"
        ]
    );
    assert_eq!(sprints_done(&v, 0), [true, false]);
    assert_eq!(sprints_done(&v, 2), [false, false]);
    assert_eq!(v["detection"]["dependencies"], "sequential");
    assert_eq!(deps(&v, 1), ["Security"]);

    let (status, v, _) = json("tables-coded-slices");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2"]);
    assert_eq!(sprint_ids(&v, 1), ["2.1", "2.2"]);
    assert_eq!(deps(&v, 1), [units(&v)[0].clone()]);
}

/// Steps numbered after their phase, as `### 2.1` headings or as bold
/// `**1.1 …**` lines with their own bullets, are the sprints.
#[test]
fn steps_numbered_after_their_phase() {
    let (_, v, _) = json("words-bold-steps");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2"]);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Create the project",
            "Database schema",
            "Checkout session",
            "Webhook"
        ]
    );
    // `Priority N` groups framing `N.M` steps (one or more), while a later
    // `Week N` schedule only names them: the steps are the sprints.
    let (_, v, _) = json("words-priority-groups");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "3.1"]);
    assert_eq!(sprint_names(&v, 0)[2], "Limit the API routes");
    // `### Task 2A.1 — …` under `## Phase 2A`: a step word before the
    // number, a lettered phase, an emoji before both.
    let (_, v, _) = json("words-phase-tasks");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2a.1", "2a.2"]);
    assert_eq!(
        sprint_names(&v, 0),
        [
            "Project skeleton",
            "Database schema",
            "Checkout session",
            "Webhook"
        ]
    );
}

/// A roadmap that runs its phases in numeric order runs an inserted phase
/// written out of place by its number; `Plans: 1/1 plans complete` over
/// its one plan left open marks nothing (the count contradicts the box it
/// counts), and `1/2 plans executed` does not either. A dated tick in the
/// index (`(completed 2026-03-02)`) stands over plan boxes never ticked,
/// not over plan boxes ticked one by one with one still open.
#[test]
fn roadmaps_in_numeric_order_with_count_lines() {
    let (_, v, _) = json("dialect-gsd-inserted");
    assert_eq!(sprint_ids(&v, 0), ["1", "1.1", "2", "2.2"]);
    assert_eq!(sprints_done(&v, 0), [true, false, false, false]);

    // Phases the index lists with no section (a shipped milestone folded
    // into <details>) are sprints in their place, done as ticked.
    // An ExecPlan's progress line `Complete Milestone 1 by …`, ticked.
    let (_, v, _) = json("done-progress-verbs");
    assert_eq!(sprints_done(&v, 0), [true, false]);

    // A phase that says it needs nothing and lists nothing is not work;
    // one that says so in passing but lists a task is.
    let (_, v, _) = json("done-nothing-to-do");
    assert_eq!(sprints_done(&v, 0), [true, false, false]);

    let (_, v, _) = json("done-index-only");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"]);
    assert_eq!(sprint_names(&v, 0)[0], "Foundation");
    assert_eq!(sprints_done(&v, 0), [true, true, true, false]);
}

/// A code block inside a prompt bundle's code block does not swallow the
/// phases after it.
#[test]
fn code_blocks_inside_code_blocks() {
    let (_, v, _) = json("nested-fences");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
}

#[test]
fn criteria_in_every_form() {
    let (status, v, _) = json("criteria-forms");
    assert_eq!(status, 0);
    let kinds = |k: usize| exit_texts(sprint(&v, 0, k));
    let s1 = kinds(0);
    assert_eq!(s1[0].0, "command");
    assert_eq!(s1[1].0, "checklist", "a code fragment is a statement");
    assert_eq!(s1[2].0, "checklist", "a placeholder is not runnable");
    assert_eq!(kinds(1)[0].0, "command");
    assert!(kinds(2)[0].1.contains("verify.sh"));
    assert_eq!(kinds(2)[0].0, "command");
    let s4 = kinds(3);
    assert_eq!(s4.len(), 2, "{s4:?}");
    assert!(sprint(&v, 0, 3)["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .any(|t| t == "Tidy up afterwards"));
    assert!(kinds(4).iter().any(|(_, t)| t.contains("dashboard loads")));
    let s6 = kinds(5);
    assert!(s6
        .iter()
        .any(|(k, t)| k == "command" && t.contains("cargo build --release")));
    assert!(
        s6.iter().any(|(_, t)| t.contains("cargo test --workspace")),
        "plan-level exit criteria go to the final sprint"
    );
}

#[test]
fn templates_only_from_template_sections() {
    let (_, v, _) = json("template-not-template");
    assert_eq!(v["detection"]["dispatch_mode"], "dynamic");
    let (_, v, _) = json("template-sortie");
    assert_eq!(v["detection"]["dispatch_mode"], "template");
}

#[test]
fn task_types_from_first_words() {
    let (_, v, _) = json("types-first-word");
    let types: Vec<&str> = v["units"][0]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["task_type"].as_str().expect("type"))
        .collect();
    assert_eq!(types, ["code", "code", "code", "deferred", "manual"]);
}

#[test]
fn rejected_plans_give_json_problems_with_causes() {
    let (status, v, _) = json("bad-taken-table");
    assert_eq!(status, 1);
    assert_eq!(v["ok"], false);
    let p = &v["problems"][0];
    assert_eq!(p["code"], "plan::no_sprints");
    assert!(p["line"].as_u64().is_some_and(|l| l > 0));
    assert!(p["help"].as_str().is_some_and(|h| h.contains("breakdown")));

    let (status, v, _) = json("bad-unreadable");
    assert_eq!(status, 1);
    assert!(v["problems"][0]["help"]
        .as_str()
        .is_some_and(|h| h.contains("git supervisor breakdown")));

    // A configuration error is JSON too, pointing into the config file.
    let (status, v, _) = json("bad-config-type");
    assert_eq!(status, 1);
    assert_eq!(v["problems"][0]["code"], "config::invalid");
    assert_eq!(v["problems"][0]["line"], 6);

    // An old diagnostic fixture, as JSON: every problem at once.
    let (status, v, _) = json("bad-many");
    assert_eq!(status, 1);
    assert!(v["problems"].as_array().is_some_and(|p| p.len() > 1));
}

#[test]
fn text_output_says_where_each_unit_and_sprint_came_from() {
    let out = run(&plans_dir().join("units-flat-counts"), &["plan"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("from line 5: unit table, column \"Work Unit\"; flat sprints shared out by its Sprints count"), "{}", out.stdout);
    assert!(
        out.stdout.contains("from line 8: `Sprint 1` heading"),
        "{}",
        out.stdout
    );
}

/// Sprint words, numbers and criteria labels of other languages: Chinese
/// `第一阶段`, Persian `فاز ۱` (Persian digits), Spanish `Fase 1`.
#[test]
fn sprint_words_of_other_languages() {
    for (fixture, names, criterion) in [
        (
            "words-chinese",
            ["数据模型", "借阅接口", "文档"],
            "cargo test -p model",
        ),
        (
            "words-persian",
            ["خواندن داده‌ها", "ساخت گزارش", "انتشار"],
            "pytest tests/test_reader.py",
        ),
        (
            "words-spanish",
            ["Catálogo", "Carrito", "Pagos"],
            "npm test -- catalog",
        ),
    ] {
        let (status, v, out) = json(fixture);
        assert_eq!(status, 0, "{fixture}: {out}");
        let total = sprint_total(&v);
        assert_eq!(total, 3, "{fixture}: {out}");
        let all: Vec<String> = (0..v["units"].as_array().expect("units").len())
            .flat_map(|u| sprint_names(&v, u))
            .collect();
        assert_eq!(all, names, "{fixture}");
        let first = v["units"][0]["sprints"][0]["exit"].to_string();
        assert!(first.contains(criterion), "{fixture}: {first}");
    }
    // A phase marked done in the heading is done.
    let (_, v, _) = json("words-chinese");
    assert!(sprint(&v, 0, 2)["done"].is_string(), "{}", sprint(&v, 0, 2));
}

/// A sprint table whose ids are `S0`, `S1` and whose name column is a
/// Theme or Focus; a Status cell of `Done` marks the sprint done.
#[test]
fn sprint_tables_with_s_ids_theme_and_status() {
    let (status, v, out) = json("tables-sprint-ids");
    assert_eq!(status, 0, "{out}");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2"]);
    assert_eq!(sprint_names(&v, 0), ["Baseline", "Protocol", "Quotas"]);
    assert!(sprint(&v, 0, 0)["done"].is_string(), "{out}");
    assert!(sprint(&v, 0, 1)["done"].is_null(), "{out}");
    assert_eq!(
        sprint(&v, 0, 2)["tasks"][0],
        "Quota manager with throttling"
    );
}

/// `## Phase: MVP` headings without numbers, when nothing is numbered: the
/// sprints, in order.
#[test]
fn unnumbered_sprint_word_headings_are_sprints_in_order() {
    let (status, v, out) = json("words-unnumbered");
    assert_eq!(status, 0, "{out}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(
        sprint_names(&v, 0),
        ["Compatibility Fix", "MVP", "Hardening"]
    );
    assert!(sprint(&v, 0, 2)["done"].is_string(), "{out}");
}

/// Kiro's `tasks.md`: each top-level `- [ ] N. …` item is a sprint (under
/// only an H1 or under `## Tasks`), its sub-tasks and bullets its tasks,
/// `_Requirements: …_` lines left out, a ticked item done.
#[test]
fn kiro_task_lists() {
    let (status, v, _) = json("dialect-kiro");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert!(v["units"][0]["sprints"][0]["done"].is_string());
    assert!(v["units"][0]["sprints"][1]["done"].is_null());
    let tasks = v["units"][0]["sprints"][1]["tasks"].to_string();
    assert!(
        tasks.contains("2.2 Write unit tests for the model"),
        "{tasks}"
    );
    assert!(!tasks.contains("Requirements"), "{tasks}");
    let (status, v, _) = json("dialect-kiro-tasks-heading");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2"]);
    assert!(v["units"][0]["sprints"][0]["done"].is_string());
    assert!(v["units"][0]["sprints"][1]["done"].is_null());
}

/// A Cursor plan whose steps live only in its frontmatter `todos:`.
#[test]
fn cursor_plans_run_their_todos() {
    let (status, v, _) = json("dialect-cursor");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(sprints_done(&v, 0), [true, false, false]);
    assert_eq!(v["detection"]["sprints"][0], "todos");
}

/// A stage table (`| # | Status | Stage | Gate summary |`) is the plan's
/// steps; `### Stage 1 completion notes` headings under it are notes.
#[test]
fn stage_tables_are_the_steps() {
    let (status, v, _) = json("tables-stage-rows");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2"]);
    assert_eq!(sprint(&v, 0, 2)["name"], "Checker");
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

/// Weeks that only frame their days: the days, each with its own tasks, are
/// the sprints (the finest heading that carries its own work).
#[test]
fn weeks_of_days_run_day_by_day() {
    let (status, v, _) = json("words-weeks-days");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2"]);
    assert_eq!(sprint(&v, 0, 1)["name"], "Day 3: Documentation");
}

/// A numbered section that says it runs alongside the one before joins its
/// wave; the next section waits for the whole wave.
#[test]
fn sections_alongside_form_waves() {
    let (_, v, _) = json("order-waves");
    assert_eq!(v["detection"]["dependencies"], "graph");
    assert!(deps(&v, 1).is_empty());
    assert_eq!(deps(&v, 2), ["Backend", "Frontend"]);
}

/// A roadmap phase's `Plans:` list after its success criteria is its work,
/// not more criteria.
#[test]
fn plans_lists_are_tasks_not_criteria() {
    let (status, v, _) = json("criteria-plans-lists");
    assert_eq!(status, 0);
    let first = sprint(&v, 0, 0);
    assert_eq!(first["exit"].as_array().map(Vec::len), Some(1));
    assert_eq!(first["tasks"][0], "01-01: Renderer");
}

/// A TDD step's `Expected: FAIL …` is a note on the step, never an exit
/// criterion (the sprint would have to fail to pass).
#[test]
fn tdd_expectations_are_not_criteria() {
    let (status, v, _) = json("dialect-superpowers");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2"]);
    for k in 0..2 {
        let exit = sprint(&v, 0, k)["exit"].to_string();
        assert!(!exit.contains("FAIL"), "{exit}");
    }
}

/// An ExecPlan whose milestones are named only in its `## Progress` list:
/// one sprint per milestone, done when ticked there.
#[test]
fn execplan_milestones_from_the_progress_list() {
    let (status, v, _) = json("dialect-execplan-progress");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(sprints_done(&v, 0), [true, true, false]);
}

/// `plan` names the well-known format it read a plan as, and why.
#[test]
fn the_dialect_is_named() {
    for (fixture, dialect) in [
        ("dialect-kiro", "kiro"),
        ("dialect-cursor", "cursor"),
        ("dialect-execplan-progress", "execplan"),
        ("dialect-superpowers", "superpowers"),
        ("done-roadmap-index", "gsd-roadmap"),
        ("five", "sprint-supervisor"),
        ("order-phases", "generic"),
    ] {
        let (status, v, _) = json(fixture);
        assert_eq!(status, 0, "{fixture}");
        assert_eq!(v["detection"]["dialect"]["name"], dialect, "{fixture}");
        assert!(v["detection"]["dialect"]["why"].is_string(), "{fixture}");
    }
}
