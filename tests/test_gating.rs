//! Coordinated builds gate each dependent on its own dependencies (issue 15,
//! items 1–3): a failure blocks only what depends on it, a failing build
//! never wedges the run, a warning holds back the dependents.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::Output;
use crate::common::SUCCEED;

/// Does a chain unit's sprint: writes `<unit>/<unit>.txt` and commits.
const CHAIN: &str = "write ${SUPERVISOR_UNIT}/${SUPERVISOR_UNIT}.txt ok
commit ${SUPERVISOR_UNIT}
result complete
";

fn sv(repo: &Path, scripts: &Path, args: &[&str]) -> Output {
    run_env(repo, args, &[("FAKE_AGENT_SCRIPT", scripts)])
}

fn status(repo: &Path) -> serde_json::Value {
    serde_json::from_str(&run(repo, &["status", "--format", "json"]).stdout).expect("status JSON")
}

fn unit_state(status: &serde_json::Value, unit: &str) -> String {
    status["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == unit)
        .map(|u| u["state"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// The state ref's subjects, oldest first.
fn subjects(repo: &Path) -> Vec<String> {
    git(
        repo,
        &["log", "--reverse", "--format=%s", "refs/supervisor/state"],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

fn position(subjects: &[String], what: &str) -> usize {
    subjects
        .iter()
        .position(|s| s.contains(what))
        .unwrap_or_else(|| panic!("no `{what}` in {subjects:#?}"))
}

/// Issue 15 item 1: `wcag` failing for good must not keep `validation`
/// (which depends on `profiles` only) from starting and completing.
#[test]
fn a_blocked_unit_holds_back_only_its_dependents() {
    let repo = fixture_repo("independent");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED), ("wcag.txt", "exit 1\n")]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    let st = status(dir);
    assert_eq!(unit_state(&st, "wcag"), "BLOCKED", "{st}");
    assert_eq!(unit_state(&st, "profiles"), "COMPLETED", "{st}");
    assert_eq!(unit_state(&st, "validation"), "COMPLETED", "{st}");
    assert_eq!(unit_state(&st, "biblioteca"), "NOT_STARTED", "{st}");
    // validation started after a build that ran once profiles completed.
    let h = subjects(dir);
    let profiles = position(&h, "profiles: RUNNING -> COMPLETED");
    let validation = position(&h, "validation: NOT_STARTED -> RUNNING");
    let build = h[profiles..validation]
        .iter()
        .any(|s| s.contains("gate passed"));
    assert!(build, "no passing build between them: {h:#?}");
    // The waiting command says what biblioteca waits for.
    assert!(
        out.stdout.contains("biblioteca") && out.stdout.contains("wcag"),
        "{}",
        out.stdout
    );
}

/// Issue 15 item 2: a build failing on `lib` while `app` depends on it
/// never wedges the run: lib goes back to BACKOFF with the output, is redone,
/// and app starts only after a passing build covered lib.
#[test]
fn a_failing_build_sends_the_blamed_sprint_back_and_never_wedges() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    let s = scripts(&[
        (
            "lib-1-1.txt",
            "write lib/lib.txt bug\ncommit lib: first try\nresult complete\n",
        ),
        (
            "lib-1-2.txt",
            "write lib/lib.txt fixed\ncommit lib: fix\nresult complete\n",
        ),
        (
            "app-1-1.txt",
            "write app/app.txt app\ncommit app\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let h = subjects(dir);
    let failed = position(&h, "lib: sprint 1 COMPLETED -> BACKOFF");
    let passed = h
        .iter()
        .enumerate()
        .position(|(i, s)| i > failed && s.contains("gate passed"))
        .expect("a passing build after the failure");
    let app = position(&h, "app: NOT_STARTED -> RUNNING");
    assert!(app > passed, "app started before lib was built: {h:#?}");
    // One build per new set of commits: fail, pass, final.
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    assert_eq!(builds.lines().count(), 3, "{builds}");
    // Nothing else to do: no command re-runs a build.
    for args in [&["tick"][..], &["wait"][..], &["status"][..]] {
        let o = sv(dir, s.path(), args);
        assert_eq!(o.status, 0, "{args:?}: {}\n{}", o.stdout, o.stderr);
    }
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    assert_eq!(builds.lines().count(), 3, "{builds}");
}

/// Issue 15 item 3: the build passes but lib's exit criterion fails after
/// it (verdict `warn`): app stays NOT_STARTED until it is resolved.
#[test]
fn a_warning_build_keeps_dependents_waiting_until_resolved() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    // The first build deletes lib's file: the criterion fails afterwards.
    std::fs::write(
        dir.join("build.sh"),
        "#!/bin/sh\necho build >> build.log\nif [ ! -e .built-once ]; then touch .built-once; rm -f lib/lib.txt; fi\necho ok\n",
    )
    .expect("build.sh");
    std::fs::write(dir.join(".gitignore"), "build.log\n.built-once\n").expect("ignore");
    git(dir, &["commit", "-qam", "A build that deletes once"]);
    let s = scripts(&[("default.txt", CHAIN)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    let st = status(dir);
    assert_eq!(unit_state(&st, "lib"), "COMPLETED", "{st}");
    assert_eq!(unit_state(&st, "app"), "NOT_STARTED", "{st}");
    let checkpoint = git(
        dir,
        &[
            "show",
            "refs/supervisor/state:checkpoints/CHECKPOINT-001.md",
        ],
    );
    assert!(checkpoint.contains("- Verdict: warn"), "{checkpoint}");
    // Waiting again runs no build for the same commits.
    let o = sv(dir, s.path(), &["wait"]);
    assert_eq!(o.status, 3, "{}\n{}", o.stdout, o.stderr);
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    assert_eq!(builds.lines().count(), 1, "{builds}");
    // A person restores the file and resumes: the build runs again, passes,
    // and app runs.
    git(dir, &["checkout", "--", "lib/lib.txt"]);
    let out = sv(dir, s.path(), &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(unit_state(&status(dir), "app"), "COMPLETED");
}
