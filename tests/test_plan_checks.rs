//! The checks of `evaluate` and `analyze` on plans that used to draw false
//! findings: code with its own tests, prose tasks, a file named TODO.md,
//! requirements worded differently from their sprints, plan-wide Exit
//! Checks, final sprints nothing can check, and layers.

use git_supervisor::plan::Plan;
use git_supervisor::plan_tools::analysis;
use git_supervisor::plan_tools::review;
use git_supervisor::plan_tools::review::Severity;
use git_supervisor::plan_tools::rewrite;

use crate::common::run;
use crate::test_rewrite::parsed;

fn review_of(plan: &Plan, text: &str) -> review::Review {
    review::review(plan, text, analysis::DEFAULT_BUDGET, &|_| true)
}

fn one_sprint(tasks: &[&str], exit: &[&str]) -> String {
    let mut t = String::from("# P\n\n## Sprint 1: Work\n\n");
    for task in tasks {
        t.push_str(&format!("- {task}\n"));
    }
    t.push_str("\n**Exit Criteria**:\n");
    for e in exit {
        t.push_str(&format!("- [ ] {e}\n"));
    }
    t
}

#[test]
fn code_and_its_own_tests_are_one_concern() {
    for (code, test) in [
        ("src/lexer.rs", "tests/lexer.rs"),
        ("Sources/Port/Port.swift", "Tests/PortTests/PortTests.swift"),
        ("lib/parse.py", "test/test_parse.py"),
    ] {
        let text = one_sprint(
            &[
                &format!("Create `{code}`"),
                &format!("Create `{test}` covering it"),
            ],
            &["`cargo test` passes"],
        );
        let plan = parsed(code, &text);
        let s = &plan.units[0].sprints[0];
        let q = analysis::quality(s, 50, &plan.exit_checks);
        assert!(
            q.single_concern,
            "{code} + {test}: {:?}",
            analysis::subsystems(s)
        );
        let (fixed, ev) = rewrite::evaluate(&plan, 50, &rewrite::Commands::from_plan(&plan, None));
        assert_eq!(ev.splits, 0, "{code} + {test}: {:?}", ev.changes);
        assert_eq!(fixed.units[0].sprints.len(), 1);
        assert_eq!(
            fixed.units[0].sprints[0].exit, s.exit,
            "the test criterion stays"
        );
    }
}

#[test]
fn a_split_by_concern_keeps_tests_with_their_code() {
    let text = one_sprint(
        &[
            "Create `src/lexer.rs`",
            "Create `docs/lexer.md`",
            "Create `tests/lexer.rs`",
        ],
        &["`tests/lexer.rs` passes: `cargo test --test lexer`"],
    );
    let plan = parsed("split", &text);
    let (fixed, ev) = rewrite::evaluate(&plan, 50, &rewrite::Commands::from_plan(&plan, None));
    assert_eq!(ev.splits, 1, "{:?}", ev.changes);
    let src = fixed.units[0]
        .sprints
        .iter()
        .find(|s| s.tasks.iter().any(|t| t.contains("src/lexer.rs")))
        .expect("the src part");
    assert!(
        src.tasks.iter().any(|t| t.contains("tests/lexer.rs")),
        "{:?}",
        src.tasks
    );
    assert!(
        src.exit.iter().any(|c| c.text.contains("cargo test")),
        "the test criterion goes with the code it tests: {:?}",
        src.exit
    );
}

#[test]
fn turn_estimates_count_prose_tasks() {
    let prose: Vec<String> = (1..=12)
        .map(|k| format!("Wire step {k} of the retry policy into the client"))
        .collect();
    let refs: Vec<&str> = prose.iter().map(String::as_str).collect();
    let twelve = parsed("twelve", &one_sprint(&refs, &["`cargo test` passes"]));
    let one = parsed("one", &one_sprint(&refs[..1], &["`cargo test` passes"]));
    let t12 = analysis::estimated_turns(&twelve.units[0].sprints[0]);
    let t1 = analysis::estimated_turns(&one.units[0].sprints[0]);
    assert!(t12 >= t1 + 22, "12 prose tasks: {t12} turns, 1: {t1}");
    assert!(t12 > 30, "12 prose tasks are not {t12} turns");
}

#[test]
fn reading_a_todo_file_is_not_an_open_question() {
    let text = one_sprint(
        &[
            "Read TODO.md",
            "Read `TODO.md` and `docs/todo-list.md`",
            "Update todo_items in `src/x.rs`",
            "Decide the wire format (TBD)",
        ],
        &["`cargo test` passes"],
    );
    let plan = parsed("todo", &text);
    let r = review_of(&plan, &text);
    let asked: Vec<&str> = r.questions.iter().map(|q| q.text.as_str()).collect();
    assert_eq!(asked, ["Decide the wire format (TBD)"]);
}

const REQUIREMENTS: &str = "# P\n\n## Requirements\n\n- Tokenizes comments\n- Exports the report as signed PDF archives\n- Supports telepathic haptics\n\n## Sprint 1: Lexer\n\n- Create `src/lexer.rs` with the scanner, skipping comments\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n\n## Sprint 2: Report\n\n- Create `src/report.rs` rendering the report\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n";

#[test]
fn coverage_matches_stems_and_synonyms_and_a_partial_gap_is_only_recommended() {
    let plan = parsed("req", REQUIREMENTS);
    let r = review_of(&plan, REQUIREMENTS);
    let by = |req: &str| {
        r.coverage
            .iter()
            .find(|c| c.requirement == req)
            .unwrap_or_else(|| panic!("{req} in {:?}", r.coverage))
            .addressed_by
            .clone()
    };
    assert_eq!(by("Tokenizes comments"), ["P/1"]);
    let severity = |needle: &str| {
        r.findings
            .iter()
            .find(|f| f.kind == "Coverage" && f.problem.contains(needle))
            .map(|f| f.severity)
    };
    assert_eq!(severity("Tokenizes"), None);
    assert_eq!(
        severity("signed PDF"),
        Some(Severity::Recommended),
        "a sprint shares a concept: words alone cannot prove the gap"
    );
    assert_eq!(
        severity("telepathic"),
        Some(Severity::Critical),
        "no sprint shares any concept"
    );
}

#[test]
fn a_plan_wide_exit_check_makes_every_sprint_machine_verifiable() {
    let text = "# P\n\n## Exit Checks\n\n- [ ] `cargo test` passes\n\n## Sprint 1: Lexer\n\n- Create `src/lexer.rs`\n\n**Exit Criteria**:\n- [ ] The lexer handles comments\n\n## Sprint 2: Parser\n\n- Create `src/parser.rs`\n\n**Exit Criteria**:\n- [ ] The parser handles nesting\n";
    let plan = parsed("checks", text);
    assert!(!plan.exit_checks.is_empty(), "{:?}", plan.exit_checks);
    let r = review_of(&plan, text);
    let testability: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.kind == "Testability")
        .collect();
    assert!(testability.is_empty(), "{testability:?}");
    assert!(r.point_b.clear, "{:?}", r.point_b);
    let (fixed, ev) = rewrite::evaluate(&plan, 50, &rewrite::Commands::from_plan(&plan, None));
    assert_eq!(fixed, plan, "nothing to add: {:?}", ev.changes);
    assert!(ev.unfixed.is_empty(), "{:?}", ev.unfixed);
}

#[test]
fn point_b_is_clear_only_when_the_final_sprints_are_verifiable() {
    let goals_only = "# P\n\n## Goals\n\n- A working lexer\n\n## Sprint 1: Lexer\n\n- Create `src/lexer.rs`\n\n**Exit Criteria**:\n- [ ] Reviewed by a human\n";
    let plan = parsed("goals", goals_only);
    let r = review_of(&plan, goals_only);
    assert!(!r.point_b.clear, "a Goals section alone: {:?}", r.point_b);
    assert!(r
        .findings
        .iter()
        .any(|f| f.kind == "Point B" && f.severity == Severity::Critical));
    let verifiable = goals_only.replace("Reviewed by a human", "`cargo test` passes");
    let plan = parsed("verifiable", &verifiable);
    assert!(review_of(&plan, &verifiable).point_b.clear);
}

const LAYERED: &str = "# P\n\n| Unit | Directory | Layer | Dependencies |\n|------|-----------|-------|--------------|\n| core | core | 0 | — |\n| api | api | 1 | core |\n| web | web | 2 | core |\n\n## core\n\n### Sprint 1: Types\n- Create `core/types.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n\n## api\n\n### Sprint 1: Routes\n- Create `api/routes.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n\n## web\n\n### Sprint 1: Pages\n- Create `web/pages.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n";

#[test]
fn analyze_does_not_pass_parallelism_while_ignoring_layers() {
    let plan = parsed("layered", LAYERED);
    let r = review_of(&plan, LAYERED);
    assert_eq!(r.layers.len(), 3, "{:?}", r.layers);
    let web: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.pass == 3 && f.location == "web" && f.severity == Severity::Recommended)
        .collect();
    assert_eq!(web.len(), 1, "{:?}", r.findings);
    assert!(web[0].problem.contains("layer 2"), "{}", web[0].problem);

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), LAYERED).expect("write");
    let out = run(dir.path(), &["analyze"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("| Priority & Parallelism"))
        .expect("summary row");
    assert!(line.contains("NEEDS_WORK"), "{line}");
    let report = std::fs::read_to_string(dir.path().join("ANALYSIS_REPORT.md")).expect("report");
    assert!(
        report.contains("- Declared layers: 0 [core] then 1 [api] then 2 [web]"),
        "{report}"
    );

    // Layers that agree with the dependencies draw no finding.
    let agreeing = LAYERED.replace("| web | web | 2 | core |", "| web | web | 2 | api |");
    let plan = parsed("agreeing", &agreeing);
    let r = review_of(&plan, &agreeing);
    assert!(
        !r.findings
            .iter()
            .any(|f| f.pass == 3 && f.severity != Severity::Optional),
        "{:?}",
        r.findings
    );
}

#[test]
fn layers_described_but_carried_by_no_unit_are_reported() {
    let text = "# P\n\n## Layers\n\nThe api sits above core.\n\n## core\n\n### Sprint 1: Types\n- Create `core/types.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n\n## api\n\n### Sprint 1: Routes\n- Create `api/routes.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n";
    let plan = parsed("described", text);
    assert_eq!(plan.units.len(), 2);
    assert!(plan.units.iter().all(|u| u.layer.is_none()));
    let r = review_of(&plan, text);
    assert!(
        r.findings
            .iter()
            .any(|f| f.pass == 3 && f.problem.contains("no unit carries one")),
        "{:?}",
        r.findings
    );
}
