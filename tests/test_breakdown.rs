//! `breakdown` drops nothing silently: every requirement line becomes a
//! task or a "Not planned" line with its reason; lists and requirements
//! over several directories split; and a generated plan, run to the end by
//! agents that do the work, passes its own final verification.

use git_supervisor::plan_tools::breakdown::breakdown;
use git_supervisor::plan_tools::breakdown::not_planned_section;
use git_supervisor::plan_tools::write;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::SUCCEED;
use crate::test_rewrite::parsed;
use crate::test_rewrite::shape;

fn tasks(doc: &str) -> Vec<String> {
    breakdown(doc, "p", None)
        .plan
        .units
        .iter()
        .flat_map(|u| u.sprints.iter().flat_map(|s| s.tasks.clone()))
        .collect()
}

#[test]
fn every_requirement_line_is_a_task_or_not_planned_with_a_reason() {
    let doc = "# Shelf\n\n- A loose line before any section\n\n## Overview\n\n- Runs on a laptop\n\n## Requirements\n\n- Record a book\n- Record a book\n\n## Notes\n\n- Fast\n\n## Collateral\n\n- Add the collateral ledger\n\n## API v2\n\n- Expose the shelf over HTTP\n\n## Non-goals\n\n- Sync with a phone\n\n## Future work\n\n- Add covers\n\n## Later\n\n- Share shelves\n";
    let b = breakdown(doc, "p", None);
    let planned = tasks(doc);
    for want in [
        "Record a book",
        "Add the collateral ledger",
        "Expose the shelf over HTTP",
    ] {
        assert!(
            planned.iter().any(|t| t == want),
            "{want} planned: {planned:?}"
        );
    }
    let reasons: Vec<(String, String)> = b
        .not_planned
        .iter()
        .map(|n| (n.text.clone(), n.reason.clone()))
        .collect();
    let reason = |text: &str| {
        reasons
            .iter()
            .find(|(t, _)| t == text)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("{text} not listed: {reasons:?}"))
    };
    assert!(reason("A loose line before any section").contains("not worded as work"));
    assert!(reason("Runs on a laptop").contains("context"));
    assert!(reason("Fast").contains("not worded as work"));
    assert!(reason("Sync with a phone").contains("out of scope (under \"Non-goals\")"));
    assert!(reason("Add covers").contains("out of scope (under \"Future work\")"));
    assert!(reason("Share shelves").contains("out of scope (under \"Later\")"));
    assert!(
        reasons
            .iter()
            .any(|(t, r)| t == "Record a book" && r.contains("repeats")),
        "{reasons:?}"
    );
    // Every item of the document is accounted for, one way or the other.
    let items = doc.lines().filter(|l| l.starts_with("- ")).count();
    let skipped = b
        .not_planned
        .iter()
        .filter(|n| !n.reason.contains("repeats"))
        .count();
    assert_eq!(b.requirements.len() + skipped, items, "{b:#?}");

    // The plan lists them, and still parses back as built.
    let mut text = write::render(&b.plan, &write::Extras::default(), &Default::default());
    text.push('\n');
    text.push_str(&not_planned_section(&b));
    assert!(text.contains("## Not planned\n"), "{text}");
    assert!(
        text.contains("\"Sync with a phone\" — out of scope"),
        "{text}"
    );
    assert_eq!(shape(&parsed("np", &text)), shape(&b.plan), "{text}");
}

#[test]
fn lists_of_alternatives_and_several_directories_split() {
    let doc = "# Shelf\n\n## Requirements\n\n- Export the shelf to CSV, JSON and XML\n- Add filtering by author, year, and language\n- Store books with title, author and ISBN\n- Create `api/books.rs` and `web/books.ts`\n";
    let t = tasks(doc);
    for want in [
        "Export the shelf to CSV",
        "Export the shelf to JSON",
        "Export the shelf to XML",
        "Add filtering by author",
        "Add filtering by year",
        "Add filtering by language",
        "Store books with title, author and ISBN",
        "Create `api/books.rs`",
        "Create `web/books.ts`",
    ] {
        assert!(t.iter().any(|x| x == want), "{want}: {t:#?}");
    }
    // Each directory's tasks get sprints of their own.
    let plan = breakdown(doc, "p", None).plan;
    for s in plan.units.iter().flat_map(|u| &u.sprints) {
        let dirs: std::collections::BTreeSet<&str> = s
            .files
            .iter()
            .filter_map(|f| f.split_once('/'))
            .map(|(d, _)| d)
            .collect();
        assert!(dirs.len() <= 1, "{}: {dirs:?}", s.name);
    }
}

#[test]
fn generated_criteria_are_checks_a_machine_runs() {
    for build in [None, Some("make test")] {
        let b = breakdown(
            "# Shelf\n\n## Requirements\n\n- Record a book\n- List the books\n",
            "p",
            build,
        );
        for s in b.plan.units.iter().flat_map(|u| &u.sprints) {
            for c in &s.exit {
                assert!(
                    c.command.is_some(),
                    "{build:?}: {:?} is not runnable",
                    c.text
                );
            }
            assert_eq!(
                s.exit
                    .iter()
                    .any(|c| c.command.as_deref() == Some("make test")),
                build.is_some()
            );
        }
    }
}

#[test]
fn a_generated_plan_run_to_the_end_passes_its_own_final_verification() {
    let repo = fixture_repo("generated");
    let dir = repo.path();
    let out = run(dir, &["breakdown"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("\"Sync the shelf with a phone\"")
            || out
                .stdout
                .contains("Sync the shelf with a phone — out of scope"),
        "{}",
        out.stdout
    );
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    assert!(plan.starts_with("# Bookshelf\n"), "{plan}");
    assert!(
        plan.contains("`make test`"),
        "the project's own test: {plan}"
    );
    assert!(!plan.contains("Done:"), "{plan}");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "Plan"]);
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("overall: completed"), "{}", out.stdout);
    let report = run(dir, &["report"]);
    assert_eq!(report.status, 0, "{}", report.stderr);
    let log = std::fs::read_to_string(dir.join("COMPLETE_BOOKSHELF.md")).unwrap_or_else(|e| {
        panic!(
            "the report is named after the title: {e}\n{}",
            report.stdout
        )
    });
    assert!(log.contains("✓ VERIFICATION PASSED"), "{log}");
}

/// Lines marked as future work are never planned (let alone as Sprint 1),
/// requirements in `cart/` and `api/` become units of their own, and the
/// foundation (shared types and schemas) comes first, the rest after it.
#[test]
fn future_work_is_left_out_directories_are_units_and_the_foundation_comes_first() {
    let doc = "# EXECUTION_PLAN.md — Shop\n\n## Requirements\n\n- Future work: sync the cart with a phone\n- Add the checkout page in `cart/checkout.ts`\n- Serve the orders endpoint in `api/orders.rs`\n- Sync orders with the warehouse (v2)\n\n## Shared types\n\n- Create the order schema in `shared/order.rs`\n- Add the shared money type in `shared/money.rs`\n";
    let b = breakdown(doc, "p", None);
    let planned = tasks(doc);
    assert!(
        !planned
            .iter()
            .any(|t| t.contains("phone") || t.contains("warehouse")),
        "{planned:#?}"
    );
    for text in [
        "Future work: sync the cart with a phone",
        "Sync orders with the warehouse (v2)",
    ] {
        assert!(
            b.not_planned
                .iter()
                .any(|n| n.text == text && n.reason.contains("out of scope")),
            "{text}: {:#?}",
            b.not_planned
        );
    }
    let units: Vec<(&str, Vec<&str>)> = b
        .plan
        .units
        .iter()
        .map(|u| (u.name.as_str(), u.deps.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        units,
        [
            ("Shared types", vec![]),
            ("cart", vec!["Shared types"]),
            ("api", vec!["Shared types"]),
        ],
        "{:#?}",
        b.plan.units
    );
    let text = write::render(&b.plan, &write::Extras::default(), &Default::default());
    assert_eq!(shape(&parsed("shop", &text)), shape(&b.plan), "{text}");
}
