//! `git supervisor plan`: one snapshot per heuristic form and per diagnostic.

use crate::common::plans_dir;
use crate::common::run;

fn plan_output(fixture: &str, args: &[&str]) -> String {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    run(&plans_dir().join(fixture), &all).snapshot()
}

macro_rules! plan_snapshots {
    ($($name:ident => $dir:literal),* $(,)?) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), plan_output($dir, &[]));
        }
    )*};
}

plan_snapshots! {
    form_layered_table => "layered",
    form_sections => "sections",
    form_single => "single",
    form_sprint_table => "sprint-table",
    form_task_groups => "task-groups",
    form_checklists => "checklists",
    form_mermaid => "mermaid",
    form_yaml_template => "yaml-template",
    form_deps_column => "deps-column",
    form_parallel => "parallel",
    form_task_types => "task-types",
    diag_unknown_unit => "bad-unknown-unit",
    diag_cycle => "bad-cycle",
    diag_duplicates => "bad-duplicates",
    form_order_as_written => "bad-order",
    diag_no_sprints => "bad-no-sprints",
    diag_sprint_count => "bad-count",
    warn_tolerated_deps => "tolerated-deps",
    diag_malformed_row => "bad-row",
    diag_many_at_once => "bad-many",
    diag_sprint_id => "bad-sprint-id",
    diag_config_syntax => "bad-config-syntax",
    diag_config_type => "bad-config-type",
}

#[test]
fn json_gives_units_with_sprints() {
    let out = run(&plans_dir().join("layered"), &["plan", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("valid JSON");
    let units = v["units"].as_array().expect("units array");
    let names: Vec<&str> = units
        .iter()
        .map(|u| u["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "parser",
            "validation-profiles",
            "wcag-algs",
            "validation",
            "biblioteca"
        ]
    );
    let parser_ids: Vec<&str> = units[0]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["id"].as_str().expect("id"))
        .collect();
    assert_eq!(parser_ids, ["1", "2a", "2b"]);
    assert_eq!(v["detection"]["dependencies"], "layers");
    assert_eq!(units[4]["deps"].as_array().map(Vec::len), Some(4));
    insta::assert_snapshot!("json_layered", out.stdout);
}

#[test]
fn a_missing_plan_gives_the_spec_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["plan"]);
    assert_eq!(out.status, 1);
    // Exactly the message, nothing else.
    assert_eq!(
        out.stderr,
        "ERROR: Cannot find EXECUTION_PLAN.md.\ngit supervisor requires an execution plan to operate.\nPlease provide the path: git supervisor plan /path/to/EXECUTION_PLAN.md\n"
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn the_plan_is_found_from_a_subdirectory() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        plans_dir().join("single/EXECUTION_PLAN.md"),
        dir.path().join("EXECUTION_PLAN.md"),
    )
    .expect("copy");
    let sub = dir.path().join("src/deep");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let out = run(&sub, &["plan", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"title\": \"Tidy the CLI\""));
}

#[test]
fn bad_usage_exits_2() {
    let out = run(&plans_dir().join("single"), &["plan", "--format", "yaml"]);
    assert_eq!(out.status, 2, "{}", out.stderr);
}

#[test]
fn every_command_has_help() {
    let commands = [
        "init",
        "plan",
        "start",
        "resume",
        "run",
        "wait",
        "stop",
        "killall",
        "tick",
        "confirm",
        "replan",
        "demo",
        "status",
        "log",
        "note",
        "hooks",
        "setup",
        "completions",
        "man",
    ];
    let mut all: Vec<Vec<&str>> = vec![vec!["-h"], vec!["hooks", "install", "-h"]];
    all.extend(commands.iter().map(|c| vec![*c, "-h"]));
    for cmd in &all {
        let out = run(&plans_dir(), cmd);
        assert_eq!(out.status, 0, "{cmd:?}: {}", out.stderr);
        assert!(
            out.stdout.contains("Usage: git supervisor"),
            "{cmd:?}: {}",
            out.stdout
        );
    }
}

/// What a plan runs with is a warning; `--strict` refuses it, pointing
/// into the file.
#[test]
fn strict_refuses_what_the_plan_runs_with() {
    let dir = plans_dir().join("bad-count");
    let relaxed = run(&dir, &["plan"]);
    assert_eq!(relaxed.status, 0, "{}", relaxed.stderr);
    assert!(relaxed.stdout.contains("Warnings: 1"), "{}", relaxed.stdout);
    let strict = run(&dir, &["plan", "--strict"]);
    assert_eq!(strict.status, 1, "{}", strict.stdout);
    assert!(
        strict.stderr.contains("plan::sprint_count"),
        "{}",
        strict.stderr
    );
    assert!(
        strict.stderr.contains("EXECUTION_PLAN.md:5:12"),
        "{}",
        strict.stderr
    );
    let json = run(&dir, &["plan", "--format", "json", "--strict"]);
    assert_eq!(json.status, 1);
    assert!(json.stdout.contains("\"ok\": false"), "{}", json.stdout);
}
