//! Setting up the worktrees a run works in: files copied in and a setup
//! command run before the first agent, a relative agent program, the index
//! lock left to a committing agent, an agent started from the user's own
//! commit hook — real repositories, the real binary and fake agents.

use crate::common::agent_script;
use crate::common::edit_config;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::scripts;
use crate::common::worktrees::*;
use std::path::Path;

/// `[workspace] copy` brings the user's untracked `.env` into each new
/// worktree and `setup` runs there before the first agent; a failing setup
/// is a failed attempt with its output, and no agent starts.
#[test]
fn new_worktrees_get_copied_files_and_setup_and_a_failed_setup_fails_the_attempt() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    std::fs::write(dir.join(".gitignore"), ".env\n.setup-ran\n").expect("gitignore");
    std::fs::write(dir.join(".env"), "TOKEN=local\n").expect("env");
    edit_config(dir, |config| {
        format!(
            "{config}\n[workspace]\ncopy = [\".env\"]\nsetup = \"grep -q TOKEN .env && echo set up >> .setup-ran\"\n"
        )
    });
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "setup and copy"]);
    let s = scripts(&[(
        "default.txt",
        "?.env write ${SUPERVISOR_UNIT}-env.txt copied\n?.setup-ran write ${SUPERVISOR_UNIT}-setup.txt ran\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let branch = integration(dir);
    for unit in ["french", "german"] {
        for what in ["env", "setup"] {
            let f = format!("{branch}:{unit}-{what}.txt");
            assert!(!git(dir, &["show", &f]).is_empty(), "{f}");
        }
    }
    assert!(
        !git(dir, &["ls-tree", "--name-only", &branch]).contains(".env"),
        "the copied file stays untracked"
    );

    // A failing setup: the attempt fails with its output; no agent runs.
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    edit_config(dir, |config| {
        let config = config.replace("max_retries = 3", "max_retries = 1");
        format!("{config}\n[workspace]\nsetup = \"echo the registry is unreachable; exit 3\"\n")
    });
    git(dir, &["commit", "-qam", "a setup that fails"]);
    let ran = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[(
        "default.txt",
        "write ${RAN}/${SUPERVISOR_UNIT} ran\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path()), ("RAN", ran.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        std::fs::read_dir(ran.path()).expect("dir").count(),
        0,
        "an agent started"
    );
    assert_eq!(
        sprint_path(dir, "french").last().map(String::as_str),
        Some("FATAL")
    );
    let logs: String = std::fs::read_dir(dir.join(".git/supervisor/agents"))
        .expect("agents")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(logs.contains("the registry is unreachable"), "{logs}");
    assert!(logs.contains("setup"), "{logs}");
}

/// A `[workspace] copy` entry outside the repository is a config error that
/// points at it, and `start` records no run.
#[test]
fn a_copy_entry_outside_the_repository_is_refused_at_start() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    edit_config(dir, |config| {
        format!("{config}\n[workspace]\ncopy = [\"../secrets.env\"]\n")
    });
    git(dir, &["commit", "-qam", "copy from outside"]);
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = sv(dir, &[("FAKE_AGENT_SCRIPT", s.path())], &["start", "--yes"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("../secrets.env") && out.stderr.contains("config.toml"),
        "{}",
        out.stderr
    );
    let state = crate::common::command("git", dir)
        .args(["rev-parse", "-q", "--verify", "refs/supervisor/state"])
        .output()
        .expect("git");
    assert!(!state.status.success(), "a refused start records no run");
}

/// An agent program named by a relative path is the one in the user's
/// working tree, even when it is not committed (a worktree holds only what
/// is).
#[test]
fn a_relative_agent_program_runs_from_the_working_tree_in_worktrees() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    agent_script(dir, "#!/bin/sh\nexec fake-agent\n");
    exclude_agent_script(dir);
    git(
        dir,
        &["commit", "-qam", "a script of our own, not committed"],
    );
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}.txt ok\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
    )]);
    let out = sv(
        dir,
        &[("FAKE_AGENT_SCRIPT", s.path())],
        &["start", "--yes", "--wait"],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let branch = integration(dir);
    assert_eq!(git(dir, &["show", &format!("{branch}:german.txt")]), "ok\n");
}

/// The run's agent script stays out of the repository (excluded).
fn exclude_agent_script(dir: &Path) {
    std::fs::write(dir.join(".git/info/exclude"), ".workflow/agent.sh\n").expect("exclude");
}

/// `status` looks into every unit's worktree while agents commit there:
/// it must never hold the index lock an agent's `git add` needs, so none of
/// the agents' many quick commits fails.
#[test]
fn status_never_takes_the_index_lock_from_a_committing_agent() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    agent_script(
        dir,
        r#"#!/bin/sh
u=$SUPERVISOR_UNIT
for i in $(seq 1 30); do
  echo "$i" > "$u-$i.txt"
  git add "$u-$i.txt" || { echo "git add failed at $i" >&2; exit 3; }
  git commit -qm "$u: step $i" || { echo "git commit failed at $i" >&2; exit 3; }
done
echo done > "$u.txt"
git add "$u.txt" || exit 3
git commit -qm "$u: done" -m "Supervisor-Sprint: $u/1
Supervisor-Status: complete" || exit 3
"#,
    );
    exclude_agent_script(dir);
    git(dir, &["commit", "-qam", "a committing agent"]);
    let out = sv(dir, &[], &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let st = sv(dir, &[], &["status", "--format", "json"]);
        let st: serde_json::Value = serde_json::from_str(&st.stdout).expect("status JSON");
        if st["overall"] != "running" || std::time::Instant::now() > until {
            break;
        }
    }
    for unit in ["french", "german"] {
        assert_eq!(
            sprint_path(dir, unit),
            ["DISPATCHED", "RUNNING", "COMPLETED"],
            "{unit}: {}",
            crate::common::run(dir, &["log"]).stdout
        );
    }
}

/// A commit the user makes in their own checkout wakes the engine from
/// git's post-commit hook, whose environment names that checkout's index
/// (`GIT_INDEX_FILE=.git/index`, relative) and the commit's dates. The
/// agent the woken tick starts must still work in, and commit to, its own
/// worktree: here the user finishes a blocked first unit by hand and the
/// hook's tick starts the unit that depends on it.
#[test]
fn an_agent_started_from_the_users_commit_hook_works_in_its_own_worktree() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    std::fs::write(
        dir.join("EXECUTION_PLAN.md"),
        "# Hand Over

| Package | Directory | Depends on |
|---------|-----------|------------|
| french | french | — |
| german | german | french |

## french

### Sprint 1: Translate to French

**Exit Criteria**:
- [ ] `french/french.txt` exists

## german

### Sprint 1: Translate to German

**Exit Criteria**:
- [ ] `german/german.txt` exists
",
    )
    .expect("plan");
    for unit in ["french", "german"] {
        std::fs::create_dir_all(dir.join(unit)).expect("unit dir");
        std::fs::write(dir.join(unit).join("PROGRESS.md"), "# progress\n").expect("progress");
    }
    edit_config(dir, |c| c.replace("max_retries = 3", "max_retries = 0"));
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "french, then german"]);
    let s = scripts(&[
        ("french-1-1.txt", "print giving up\nexit 1\n"),
        (
            "german-1-1.txt",
            "write german/german.txt hallo\ncommit german: translate\nresult complete\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = sv(dir, &env, &["hooks", "install"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "french blocks the run: {}", out.stdout);
    assert_eq!(
        sprint_path(dir, "french").last().map(String::as_str),
        Some("FATAL")
    );
    assert!(sprint_path(dir, "german").is_empty());
    // Only the hook may wake the engine now: french's wrapper is gone.
    let since = std::time::Instant::now();
    while agents_mentioning(&dir.display().to_string()) > 0 {
        assert!(since.elapsed().as_secs() < 30, "french's wrapper stays");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    // The user does french's work and commits it: git runs the hook.
    std::fs::write(dir.join("french/french.txt"), "bonjour\n").expect("write");
    commit_by_hand(dir, &env, "french: translated by hand", "french/1");
    let users = git(dir, &["rev-parse", "HEAD"]);
    // Nothing else ticks: the hook's tick starts german, whose wrapper
    // judges it.
    let since = std::time::Instant::now();
    while !sprint_path(dir, "german")
        .last()
        .is_some_and(|s| ["COMPLETED", "FATAL"].contains(&s.as_str()))
    {
        assert!(
            since.elapsed().as_secs() < 60,
            "german never ended: {}",
            crate::common::run(dir, &["log"]).stdout
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let log = crate::common::run(dir, &["log"]).stdout;
    assert_eq!(
        sprint_path(dir, "german"),
        ["DISPATCHED", "RUNNING", "COMPLETED"],
        "{log}"
    );
    // German's commit is on its unit's branch and integrated; the user's
    // branch and index hold only what the user did.
    assert_eq!(git(dir, &["rev-parse", "HEAD"]), users);
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["show", &format!("{branch}:german/german.txt")]),
        "hallo\n"
    );
    // `killall` on the completed run has nothing to kill and changes nothing.
    let state = git(dir, &["rev-parse", "refs/supervisor/state"]);
    let out = sv(dir, &env, &["killall"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Nothing to kill"), "{}", out.stdout);
    assert_eq!(git(dir, &["rev-parse", "refs/supervisor/state"]), state);
}
