//! The plan tools judge what a sprint is: one concern or many, whether its
//! criteria check what it makes, which open decisions and external
//! dependencies it holds (and so which model it needs), what its agent must
//! read, and which sprints could run at once. Fixtures from cases that were
//! judged wrong; the run cases use real git, the fake agent and the binary.

use git_supervisor::machine::model_select;
use git_supervisor::machine::Model;
use git_supervisor::machine::State;
use git_supervisor::plan_tools::analysis;
use git_supervisor::plan_tools::review;
use git_supervisor::plan_tools::review::Severity;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::scripts;
use crate::test_rewrite::parsed;
use crate::test_run::sv;

fn sprint_of(tasks: &[&str], exit: &[&str]) -> String {
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

/// Twelve unrelated features in one sprint are not one concern; a sprint
/// about one feature is, whatever its length.
#[test]
fn twelve_unrelated_features_are_not_one_concern() {
    let features = [
        "Add user login",
        "Export invoices as PDF",
        "Send weekly newsletter emails",
        "Resize uploaded avatars",
        "Translate the settings page",
        "Schedule nightly backups",
        "Show shipping rates",
        "Track page analytics",
        "Import contacts from CSV",
        "Render the sales dashboard",
        "Encrypt stored tokens",
        "Rotate server logs",
    ];
    let text = sprint_of(&features, &["`make test` passes"]);
    let plan = parsed("twelve", &text);
    let q = analysis::quality(&plan.units[0].sprints[0], 50, &plan.exit_checks);
    assert!(!q.single_concern, "{}", q.atomicity_verdict());
    let one = sprint_of(
        &[
            "Add the invoice model",
            "Render invoices as PDF",
            "Write tests for the invoice PDF",
            "Document invoice export",
        ],
        &["`make test` passes"],
    );
    let plan = parsed("one", &one);
    let q = analysis::quality(&plan.units[0].sprints[0], 50, &plan.exit_checks);
    assert!(q.single_concern, "{}", q.atomicity_verdict());
}

/// A sprint that creates three files and checks one does not have full
/// coverage; checking all three does.
#[test]
fn creating_three_files_and_checking_one_is_not_full_coverage() {
    let tasks = ["Create `src/a.rs`, `src/b.rs` and `src/c.rs`"];
    let plan = parsed("one-of-three", &sprint_of(&tasks, &["`src/a.rs` exists"]));
    let q = analysis::quality(&plan.units[0].sprints[0], 50, &plan.exit_checks);
    assert!(!q.full_coverage, "{}", q.testability_verdict());
    let plan = parsed(
        "three-of-three",
        &sprint_of(
            &tasks,
            &[
                "`src/a.rs` exists",
                "`src/b.rs` exists",
                "`src/c.rs` exists",
            ],
        ),
    );
    let q = analysis::quality(&plan.units[0].sprints[0], 50, &plan.exit_checks);
    assert!(q.full_coverage, "{}", q.testability_verdict());
}

const WEBHOOKS: &str = "# Hooks\n\n## Sprint 1: Receive events\n\n- Decide whether to use webhooks or polling\n- Write `events.txt`\n\n**Exit Criteria**:\n- [ ] `events.txt` exists\n";

/// An open decision `analyze` reports sends the sprint to opus, with the
/// reason in the dispatch record.
#[test]
fn an_open_decision_sends_the_sprint_to_the_strongest_model() {
    let plan = parsed("hooks", WEBHOOKS);
    let state = State::new(&plan, "r", "o", 3, 5);
    let u = &plan.units[0];
    let sel = model_select::select(&plan, &u.name, &u.sprints[0], &state.units[0].sprints[0]);
    assert_eq!(sel.model, Model::Opus, "{}", sel.rationale());
    assert!(
        sel.rationale()
            .contains("an open decision (\"Decide whether to use webhooks or polling\")"),
        "{}",
        sel.rationale()
    );
    let r = review::review(&plan, WEBHOOKS, 50, &|_| true);
    assert!(
        r.questions
            .iter()
            .any(|q| q.text.contains("webhooks or polling") && q.blocked),
        "{:?}",
        r.questions
    );

    // The run records it with the dispatch.
    let repo = fixture_repo("five");
    let dir = repo.path();
    std::fs::write(dir.join("EXECUTION_PLAN.md"), WEBHOOKS).expect("plan");
    git(dir, &["commit", "-qam", "An open decision"]);
    let s = scripts(&[(
        "default.txt",
        "write events.txt e\ncommit events\nresult complete\n",
    )]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let log = run(dir, &["log"]).stdout;
    assert!(
        log.contains("model opus")
            && log.contains("an open decision (\"Decide whether to use webhooks or polling\")"),
        "{log}"
    );
}

/// The files the plan tells agents to read reach the prompt; one that does
/// not exist yet is announced with the sprint that creates it.
#[test]
fn the_prompt_carries_the_files_the_plan_says_to_read() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let plan = "# Shop\n\nRead `docs/ARCH.md` first, and see `docs/API.md` for the endpoints.\n\n## Sprint 1: Core\n\n- Write `core.txt`\n\n**Exit Criteria**:\n- [ ] `core.txt` exists\n\n## Sprint 2: API notes\n\n- Create `docs/API.md`\n\n**Exit Criteria**:\n- [ ] `docs/API.md` exists\n";
    std::fs::create_dir_all(dir.join("docs")).expect("docs");
    std::fs::write(dir.join("docs/ARCH.md"), "# Architecture\n").expect("arch");
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "A plan that says what to read"]);
    let seen = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[(
        "default.txt",
        &format!(
            "save-prompt {}/prompt-${{SUPERVISOR_SPRINT}}.md\nwrite core.txt c\nwrite docs/API.md a\ncommit work\nresult complete\n",
            seen.path().display()
        ),
    )]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let prompt = std::fs::read_to_string(seen.path().join("prompt-1.md")).expect("prompt");
    let root = dir.display().to_string();
    for said in [
        "FILES TO READ (the plan asks you to read them):".to_string(),
        format!("- {root}/docs/ARCH.md\n"),
        format!("- {root}/docs/API.md — not there yet: it will be created by Shop sprint 2"),
    ] {
        assert!(prompt.contains(&said), "{said}:\n{prompt}");
    }
}

/// `analyze` flags an external API call without an interface as a
/// BLOCKED external dependency, matches "pay" with "payment", and names
/// independent sprints of one unit as missed parallelism.
#[test]
fn analyze_flags_external_calls_matches_stems_and_finds_independent_sprints() {
    let text = "# Pay\n\n## Requirements\n\n- Customers can pay by card\n\n## Sprint 1: Payment form\n\n- Create `web/form.html` for the payment form\n\n**Exit Criteria**:\n- [ ] `web/form.html` exists\n\n## Sprint 2: Charge cards\n\n- Call the Stripe API to charge the card in `api/charge.rs`\n\n**Exit Criteria**:\n- [ ] `api/charge.rs` exists\n\n## Sprint 3: Receipts\n\n- Create `mail/receipt.txt`\n\n**Exit Criteria**:\n- [ ] `mail/receipt.txt` exists\n";
    let plan = parsed("pay", text);
    let r = review::review(&plan, text, 50, &|_| true);
    let external: Vec<&review::Question> = r
        .questions
        .iter()
        .filter(|q| q.kind == "external dependency")
        .collect();
    assert_eq!(external.len(), 1, "{:?}", r.questions);
    assert!(external[0].text.contains("Stripe API") && external[0].blocked);
    assert!(
        !r.findings
            .iter()
            .any(|f| f.kind == "Coverage" && f.severity == Severity::Critical),
        "pay is payment: {:#?}",
        r.findings
    );
    assert_eq!(
        r.independent_sprints,
        [(
            "Pay".to_string(),
            vec!["1".to_string(), "2".into(), "3".into()]
        )]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::init_repo(dir.path());
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), text).expect("plan");
    let out = run(dir.path(), &["analyze"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let report =
        std::fs::read_to_string(dir.path().join("ANALYSIS_REPORT.md")).expect("the report");
    for said in [
        "Status: BLOCKED",
        "BLOCKED: blocks this sprint",
        "- Missed: Pay sprints 1, 2, 3 (independent, run in sequence)",
    ] {
        assert!(report.contains(said), "{said}:\n{report}");
    }
}
