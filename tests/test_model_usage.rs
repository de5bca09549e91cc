//! Model usage (spec §R, v2 status): `status` counts every dispatch per
//! model tier with its share and the relative cost (haiku 1x, sonnet 10x,
//! opus 30x per dispatch) in text and JSON, and the completion message of
//! `wait` carries the whole Model Usage Summary table. Runs are recorded
//! through the real store and read back by the real binary.

use git_supervisor::machine::Model;
use git_supervisor::machine::Outcome;
use git_supervisor::store::Store;

use crate::common::fixture_repo;
use crate::common::run;
use crate::common::seed;

fn attempt(store: &Store, unit: &str, model: Model, outcome: Outcome) {
    seed::dispatch(store, unit, model);
    seed::verdict(store, unit, outcome);
}

/// parser fails on haiku and completes sprint 1 on opus, profiles
/// completes on sonnet, algs ends a haiku dispatch PARTIAL: four
/// dispatches (haiku 2, sonnet 1, opus 1), two sprints completed.
fn running_run() -> tempfile::TempDir {
    let repo = fixture_repo("five");
    let store = seed::start(repo.path());
    attempt(&store, "parser", Model::Haiku, Outcome::Failure);
    attempt(&store, "profiles", Model::Sonnet, Outcome::Completed);
    attempt(&store, "algs", Model::Haiku, Outcome::Partial);
    attempt(&store, "parser", Model::Opus, Outcome::Completed);
    repo
}

/// The lines of `text` from the one starting with `from` to the first
/// blank line after the table.
fn block<'a>(text: &'a str, from: &str) -> Vec<&'a str> {
    let start = text
        .lines()
        .position(|l| l.starts_with(from))
        .unwrap_or_else(|| panic!("no line starting with {from:?} in:\n{text}"));
    text.lines()
        .skip(start)
        .take_while(|l| !l.starts_with("Total relative cost"))
        .chain(
            text.lines()
                .skip(start)
                .find(|l| l.starts_with("Total relative cost")),
        )
        .collect()
}

#[test]
fn status_counts_dispatches_share_and_relative_cost_per_model() {
    let repo = running_run();
    let out = run(repo.path(), &["status"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(!out.stdout.contains('\x1b'), "NO_COLOR: {}", out.stdout);
    insta::assert_snapshot!(
        "status_model_usage",
        block(&out.stdout, "Model usage").join("\n")
    );

    let json = run(repo.path(), &["status", "--format", "json"]);
    assert_eq!(json.status, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let u = &v["model_usage"];
    assert_eq!(u["dispatches"], 4, "{u}");
    assert_eq!(u["sprints"], 2, "{u}");
    assert_eq!(u["relative_cost"], 2 + 10 + 30, "{u}");
    let rows: Vec<(String, u64, u64, u64, u64, u64)> = u["models"]
        .as_array()
        .expect("one row per model")
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
            (
                r["model"].as_str().expect("model").to_string(),
                n("weight"),
                n("dispatches"),
                n("share_percent"),
                n("sprints"),
                n("relative_cost"),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("haiku".to_string(), 1, 2, 50, 0, 2),
            ("sonnet".to_string(), 10, 1, 25, 1, 10),
            ("opus".to_string(), 30, 1, 25, 1, 30),
        ]
    );
    // The text shows the same numbers, and the output does not change
    // between two reads.
    assert_eq!(
        json.stdout,
        run(repo.path(), &["status", "--format", "json"]).stdout
    );
}

#[test]
fn status_before_any_dispatch_has_no_usage_block_and_zero_json() {
    let repo = fixture_repo("five");
    seed::start(repo.path());
    let out = run(repo.path(), &["status"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("Model usage"), "{}", out.stdout);
    let json = run(repo.path(), &["status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(v["model_usage"]["dispatches"], 0);
    assert_eq!(v["model_usage"]["relative_cost"], 0);
    assert_eq!(v["model_usage"]["models"][0]["share_percent"], 0);
}

#[test]
fn the_completion_message_carries_the_model_usage_table() {
    let repo = fixture_repo("single");
    let store = seed::start(repo.path());
    let unit = store.tip().expect("readable").expect("a run").state.units[0]
        .name
        .clone();
    // Sprint 1 fails on haiku and passes on sonnet, sprint 2 passes on
    // sonnet, sprint 3 needs a continuation on opus: five dispatches.
    attempt(&store, &unit, Model::Haiku, Outcome::Failure);
    attempt(&store, &unit, Model::Sonnet, Outcome::Completed);
    attempt(&store, &unit, Model::Sonnet, Outcome::Completed);
    attempt(&store, &unit, Model::Opus, Outcome::Partial);
    attempt(&store, &unit, Model::Opus, Outcome::Completed);
    let out = run(repo.path(), &["wait", "--timeout", "10s"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(
        "completion_model_usage",
        block(&out.stdout, "### Model Usage Summary").join("\n")
    );
    assert_eq!(
        out.stdout.matches("| Model | Sprints |").count(),
        1,
        "the table is printed once: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("- Total cost: 81× (relative)"),
        "the summary's total is the table's: {}",
        out.stdout
    );
}
