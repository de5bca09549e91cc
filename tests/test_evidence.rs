//! What counts as an agent's work (issue 15, items 8–10): another unit's
//! commits never do, files dirty before the dispatch never do, and an agent's
//! word without any change is a failure.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::Output;
use crate::common::SUCCEED;

fn sv(repo: &Path, scripts: &Path, args: &[&str]) -> Output {
    run_env(repo, args, &[("FAKE_AGENT_SCRIPT", scripts)])
}

#[derive(Debug, serde::Deserialize)]
struct Record {
    unit: Option<String>,
    sprint: Option<String>,
    from: Option<String>,
    to: Option<String>,
    why: String,
}

fn history(repo: &Path) -> Vec<Record> {
    let out = run(repo, &["log", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut records: Vec<Record> = serde_json::from_str(&out.stdout).expect("log JSON");
    records.reverse();
    records
}

/// The sprint states `unit` went through, in order.
fn sprint_path(repo: &Path, unit: &str) -> Vec<String> {
    history(repo)
        .into_iter()
        .filter(|r| r.unit.as_deref() == Some(unit) && r.sprint.is_some())
        .filter_map(|r| r.to)
        .collect()
}

fn state_toml(repo: &Path) -> toml::Value {
    toml::from_str(&git(repo, &["show", "refs/supervisor/state:state.toml"])).expect("state")
}

fn unit_field(repo: &Path, unit: &str, field: &str) -> toml::Value {
    state_toml(repo)["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"].as_str() == Some(unit))
        .and_then(|u| u.get(field).cloned())
        .unwrap_or(toml::Value::Array(Vec::new()))
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 15 item 8: two units at the project root; german's agent does
/// nothing and claims success after french committed. French's commit names
/// french in its trailer, so it is never german's evidence.
#[test]
fn units_sharing_a_directory_never_take_credit_for_each_others_commits() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let s = scripts(&[
        (
            "french.txt",
            "write french.txt bonjour\ncommit french: translate\nresult complete\n",
        ),
        ("german-1-1.txt", "sleep 800\nresult complete\n"),
        (
            "german-1-2.txt",
            "write german.txt hallo\ncommit german: translate\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let german = sprint_path(dir, "german");
    assert_eq!(
        german[..3],
        ["DISPATCHED", "RUNNING", "BACKOFF"],
        "german's first attempt did nothing: {german:?}"
    );
    assert_eq!(german.last().map(String::as_str), Some("COMPLETED"));
}

/// Issue 15 item 8, the rule itself: at the root, a unit's commits are those
/// marked with its own trailer and those touching files its sprint names;
/// a commit marked for another unit never counts.
#[test]
fn commits_in_scope_at_the_root_follow_trailers_and_named_files() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let base = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    let commit = |file: &str, message: &str| {
        std::fs::write(dir.join(file), message).expect("write");
        git(dir, &["add", file]);
        git(dir, &["commit", "-qm", message]);
        git(dir, &["rev-parse", "HEAD"]).trim().to_string()
    };
    let french = commit("french.txt", "french\n\nSupervisor-Sprint: french/1");
    let marked_elsewhere = commit("german.txt", "oops\n\nSupervisor-Sprint: french/1");
    let named = commit("german.txt", "by hand, no trailer");
    let marked = commit("other.txt", "german\n\nSupervisor-Sprint: german/1");
    let unrelated = commit("other.txt", "unrelated");
    let files = vec!["german.txt".to_string()];
    let found =
        git_supervisor::engine::verify::commits_in_scope(dir, &base, ".", "german", "1", &files);
    assert!(
        found.contains(&named) && found.contains(&marked),
        "{found:?}"
    );
    for c in [&french, &marked_elsewhere, &unrelated] {
        assert!(!found.contains(c), "{c} counted: {found:?}");
    }
}

/// Issue 15 item 9: `start` names an unnamed plan in its own commit and
/// leaves no uncommitted edit behind.
#[test]
fn start_leaves_no_uncommitted_edit_of_its_own() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let dirty = git(dir, &["status", "--porcelain", "--", "EXECUTION_PLAN.md"]);
    assert_eq!(dirty, "", "the plan is left modified");
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    assert!(plan.contains("feature_name:"), "{plan}");
    let committed = git(dir, &["show", "HEAD:EXECUTION_PLAN.md"]);
    let named_in_history = git(
        dir,
        &[
            "log",
            "--format=%s",
            "-S",
            "feature_name",
            "--",
            "EXECUTION_PLAN.md",
        ],
    );
    assert!(
        committed.contains("feature_name:") || !named_in_history.is_empty(),
        "the name was never committed"
    );
}

/// Issue 15 item 9: a plan the user is editing is not committed by `start`;
/// the name lives in the run's state only.
#[test]
fn start_keeps_the_name_in_the_state_when_the_plan_is_being_edited() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let mut text = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    text.push_str("\n<!-- an edit in progress -->\n");
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &text).expect("edit");
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let now = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    assert_eq!(now, text, "the user's edit is untouched");
    let operation = state_toml(dir)["operation"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!operation.is_empty());
}

/// Issue 15 item 9: files dirty before the dispatch are not the agent's:
/// a killed root unit lists only what its agent left.
#[test]
fn files_dirty_before_the_dispatch_are_not_the_agents_work() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    std::fs::write(dir.join("scratch.txt"), "mine").expect("scratch");
    std::fs::write(dir.join("PROGRESS.md"), "# progress\nmy notes\n").expect("progress");
    let s = scripts(&[
        ("french.txt", "write french.txt bonjour\nhang\n"),
        ("german.txt", "hang\n"),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    wait_until("french writes its file", || dir.join("french.txt").exists());
    let out = sv(dir, s.path(), &["killall"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let french = unit_field(dir, "french", "uncommitted");
    assert_eq!(
        french,
        toml::Value::Array(vec![toml::Value::String("french.txt".into())]),
        "{}",
        out.stdout
    );
    let german = unit_field(dir, "german", "uncommitted");
    assert_eq!(german, toml::Value::Array(Vec::new()), "{}", out.stdout);
    assert!(
        !out.stdout.contains("git clean -fd"),
        "advice that would delete the user's files: {}",
        out.stdout
    );
}

/// Issue 15 item 9: a do-nothing agent is not credited with files that were
/// dirty before it started.
#[test]
fn a_do_nothing_agent_is_not_credited_with_files_dirty_before_it() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    std::fs::write(dir.join("scratch.txt"), "mine").expect("scratch");
    let s = scripts(&[
        ("french-1-1.txt", "exit 0\n"),
        (
            "french.txt",
            "write french.txt bonjour\ncommit french\nresult complete\n",
        ),
        (
            "german.txt",
            "write german.txt hallo\ncommit german\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let french = sprint_path(dir, "french");
    assert_eq!(
        french[..3],
        ["DISPATCHED", "RUNNING", "BACKOFF"],
        "{french:?}"
    );
}

/// Issue 15 item 10: "context exhausted" with nothing changed is a failed
/// attempt, not PARTIAL on the agent's word.
#[test]
fn context_exhaustion_with_nothing_changed_is_a_failure() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let s = scripts(&[
        (
            "french-1-1.txt",
            "print context exhausted\nresult partial context exhausted\n",
        ),
        (
            "default.txt",
            "write ${SUPERVISOR_UNIT}.txt x\ncommit ${SUPERVISOR_UNIT}\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let french = sprint_path(dir, "french");
    assert_eq!(
        french[..3],
        ["DISPATCHED", "RUNNING", "BACKOFF"],
        "{french:?}"
    );
    let backoff = history(dir)
        .into_iter()
        .find(|r| r.unit.as_deref() == Some("french") && r.to.as_deref() == Some("BACKOFF"))
        .expect("backoff");
    assert!(
        backoff.why.contains("Attempt 1/3 failed"),
        "{}",
        backoff.why
    );
    let _ = backoff.from;
}

/// Issue 15 item 10: an agent the watchdog kills goes to BACKOFF with the
/// attempt counted, even when it left files behind.
#[test]
fn a_watchdog_kill_that_left_files_is_a_counted_failure() {
    let repo = fixture_repo("shared");
    let dir = repo.path();
    let s = scripts(&[
        ("french-1-1.txt", "write french.txt half\nhang\n"),
        (
            "default.txt",
            "write ${SUPERVISOR_UNIT}.txt x\ncommit ${SUPERVISOR_UNIT}\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let french = sprint_path(dir, "french");
    assert_eq!(
        french[..3],
        ["DISPATCHED", "RUNNING", "BACKOFF"],
        "{french:?}"
    );
}
