//! `name-feature` and the ritual of `start` (spec §X): a reproach before
//! any run, the name written into the plan's frontmatter by `start`, a quiet
//! regeneration afterwards.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::SUCCEED;

fn operation(dir: &Path) -> serde_json::Value {
    let status = run(dir, &["status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&status.stdout).expect("JSON");
    v["operation"].clone()
}

fn plan(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan")
}

#[test]
fn naming_before_any_run_is_reproached_and_writes_nothing() {
    let repo = fixture_repo("five");
    let before = plan(repo.path());
    let out = run(repo.path(), &["name-feature"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("Naming is a ritual of starting the plan"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("git supervisor start"),
        "{}",
        out.stdout
    );
    assert_eq!(plan(repo.path()), before);
}

#[test]
fn start_christens_the_plan_and_name_feature_regenerates_quietly() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("By order of git supervisor"),
        "{}",
        out.stdout
    );
    let text = plan(dir);
    let line = text.lines().nth(1).expect("frontmatter line").to_string();
    assert!(
        text.starts_with("---\nfeature_name: \"Operation "),
        "{text}"
    );
    let name = line
        .trim_start_matches("feature_name: \"")
        .trim_end_matches('"')
        .to_string();
    assert!(out.stdout.contains(&name.to_uppercase()), "{}", out.stdout);
    // The run's snapshot holds the named plan, and the run carries the name.
    let snapshot = git(
        dir,
        &["show", "refs/supervisor/state:plan/EXECUTION_PLAN.md"],
    );
    assert!(snapshot.contains(&line), "{snapshot}");
    assert_eq!(operation(dir), name.as_str());
    let status = run(dir, &["status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&status.stdout).expect("JSON");
    assert_eq!(v["plan_drift"], false, "the ritual is not plan drift");
    // Regeneration is quiet and deterministic.
    let again = run(dir, &["name-feature"]);
    assert_eq!(again.stdout, format!("{name} (unchanged)\n"));
    assert_eq!(plan(dir), text);
    // A different title gives a different name, written quietly.
    std::fs::write(
        dir.join("EXECUTION_PLAN.md"),
        text.replace("# Five Packages", "# Six Packages"),
    )
    .expect("edit");
    let renamed = run(dir, &["name-feature"]);
    assert!(
        renamed.stdout.ends_with("(feature_name updated)\n"),
        "{}",
        renamed.stdout
    );
    assert!(!plan(dir).contains(&line), "the name line was replaced");
    assert_eq!(plan(dir).matches("feature_name:").count(), 1);
}

#[test]
fn start_keeps_an_existing_name_and_a_failed_start_writes_nothing() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    // No agent configured: start fails and the plan is untouched.
    std::fs::remove_file(dir.join(".workflow/config.toml")).expect("rm config");
    let before = plan(dir);
    let out = run(dir, &["start", "--yes"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert_eq!(plan(dir), before, "a failed start performs no ritual");
    assert!(git(dir, &["for-each-ref", "refs/supervisor"]).is_empty());
    // A plan that already has its name keeps it, byte for byte.
    git(dir, &["checkout", "--", ".workflow/config.toml"]);
    let named = format!("---\nfeature_name: Operation Chosen Name\n---\n{before}");
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &named).expect("write");
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("By order of"), "{}", out.stdout);
    assert_eq!(plan(dir), named);
    assert_eq!(operation(dir), "Operation Chosen Name");
}

#[test]
fn name_feature_before_any_run_keeps_the_users_own_name() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let named = format!(
        "---\nfeature_name: \"Operation Mine\"\nowner: me\n---\n{}",
        plan(dir)
    );
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &named).expect("write");
    let out = run(dir, &["name-feature"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Operation Mine"), "{}", out.stdout);
    assert!(out.stdout.contains("kept"), "{}", out.stdout);
    assert_eq!(plan(dir), named, "nothing written");
}

#[test]
fn a_crlf_plan_keeps_its_one_frontmatter_block_through_start() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let crlf = format!(
        "---\r\nowner: me\r\n---\r\n{}",
        plan(dir).replace('\n', "\r\n")
    );
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &crlf).expect("write");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "CRLF plan"]);
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let text = plan(dir);
    assert_eq!(text.matches("---\r\n").count(), 2, "one block: {text:?}");
    assert!(
        text.starts_with("---\r\nfeature_name: \"Operation ")
            && text.contains("\r\nowner: me\r\n---\r\n"),
        "{text:?}"
    );
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "line endings kept"
    );
    assert_eq!(
        operation(dir).as_str().map(|n| n.starts_with("Operation ")),
        Some(true)
    );
}

/// With worktrees, `start` names the one commit it made on the user's
/// branch instead of saying the branch stays as it is.
#[test]
fn start_with_worktrees_says_what_it_commits_where() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let s = scripts(&[(
        "default.txt",
        "write $SUPERVISOR_UNIT.txt done\ncommit $SUPERVISOR_UNIT\nresult complete\n",
    )]);
    let before = git(dir, &["rev-parse", "HEAD"]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let name = operation(dir);
    let name = name.as_str().expect("a name");
    // What it says is what it did: one commit on `main`, the plan only.
    let said = format!(
        "The name is committed on your branch `main` as \"Name the plan: {name}\" (EXECUTION_PLAN.md only)."
    );
    assert!(out.stdout.contains(&said), "{}", out.stdout);
    assert_eq!(
        git(dir, &["log", "-1", "--format=%s", "main"]).trim(),
        format!("Name the plan: {name}")
    );
    assert_eq!(
        git(dir, &["rev-parse", "main~1"]),
        before,
        "one commit on the user's branch"
    );
    assert_eq!(
        git(dir, &["diff", "--name-only", "main~1", "main"]).trim(),
        "EXECUTION_PLAN.md"
    );
    assert!(
        out.stdout
            .contains("apart from the naming commit, which the integration branch starts from, your branch and working tree stay as they are"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout
            .contains("`; your branch and working tree stay as they are"),
        "{}",
        out.stdout
    );
}
