//! Work a person commits by hand, marked with the sprint's trailers, goes
//! through the merge queue into the integration branch before its sprint
//! is credited — or is refused, with where to commit instead. Real
//! repositories, the real binary, fake agents and git hooks as real
//! processes.

use std::path::Path;
use std::path::PathBuf;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::scripts;
use crate::common::worktrees::*;

/// How many times `unit`'s sprints went to COMPLETED.
fn times_completed(repo: &Path, unit: &str) -> usize {
    sprint_path(repo, unit)
        .iter()
        .filter(|s| *s == "COMPLETED")
        .count()
}

/// Three units, two of them ready at once (so the default workspace gives
/// each a worktree); docs needs api's fix, and a phase build checks the
/// integrated result.
pub(crate) const PLAN: &str = "# Hand Fix

| Package | Directory | Depends on |
|---------|-----------|------------|
| api | api | — |
| web | web | — |
| docs | docs | api |

## api

### Sprint 1: Serve the API

**Exit Criteria**:
- [ ] `grep -q fixed api/api.txt` passes

## web

### Sprint 1: Serve the pages

**Exit Criteria**:
- [ ] `web/web.txt` exists

## docs

### Sprint 1: Document the API

**Exit Criteria**:
- [ ] `docs/docs.txt` exists
- [ ] `grep -q fixed api/api.txt` passes
";

/// A repository holding [`PLAN`] with the default workspace, no retries
/// and a phase build.
pub(crate) fn hand_fix_repo() -> tempfile::TempDir {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).expect("plan");
    for unit in ["api", "web", "docs"] {
        std::fs::create_dir_all(dir.join(unit)).expect("unit dir");
        std::fs::write(dir.join(unit).join("PROGRESS.md"), "# progress\n").expect("progress");
    }
    std::fs::write(
        dir.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"fake-agent\"]\nprompt = \"stdin\"\nsilence_notice = \"1s\"\nsilence_kill = \"2s\"\nkill_grace = \"2s\"\n\n[run]\nmax_retries = 0\npoll_interval = \"100ms\"\n\n[build]\ncommand = \"true\"\ntimeout = \"1m\"\n",
    )
    .expect("config");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "api, web, then docs"]);
    repo
}

/// The agents: api gives up, web and docs do their part.
pub(crate) fn agents() -> tempfile::TempDir {
    scripts(&[
        ("api-1-1.txt", "print giving up\nexit 1\n"),
        (
            "web-1-1.txt",
            "write web/web.txt pages\ncommit web: pages\nresult complete\n",
        ),
        (
            "docs-1-1.txt",
            "write docs/docs.txt documented\ncommit docs: document\nresult complete\n",
        ),
    ])
}

/// api blocks; the person fixes it on their own branch and resumes: the
/// fix is merged into the integration branch once, api/1 is credited, and
/// docs builds and passes on top of it.
fn a_hand_fix_reaches_the_integration_branch(hooks: bool, in_unit_worktree: bool) {
    let repo = hand_fix_repo();
    let dir = repo.path();
    let _cleanup = beside(dir);
    let s = agents();
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    if hooks {
        let out = sv(dir, &env, &["hooks", "install"]);
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    }
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "api blocks the run: {}", out.stdout);
    assert_eq!(
        sprint_path(dir, "api").last().map(String::as_str),
        Some("FATAL")
    );

    let place = if in_unit_worktree {
        let st = sv(dir, &env, &["status", "--format", "json"]);
        let st: serde_json::Value = serde_json::from_str(&st.stdout).expect("status JSON");
        PathBuf::from(
            st["workspaces"]["api"]["worktree"]
                .as_str()
                .expect("api's worktree"),
        )
    } else {
        dir.to_path_buf()
    };
    std::fs::write(place.join("api/api.txt"), "fixed\n").expect("fix");
    let fix = commit_by_hand(&place, &env, "api: fixed by hand", "api/1");

    let out = sv(dir, &env, &["resume", "--wait"]);
    let log = crate::common::run(dir, &["log"]).stdout;
    assert_eq!(out.status, 0, "{}\n{}\n{log}", out.stdout, out.stderr);
    assert_eq!(
        sprint_path(dir, "api").last().map(String::as_str),
        Some("COMPLETED"),
        "{log}"
    );
    assert_eq!(
        sprint_path(dir, "docs").last().map(String::as_str),
        Some("COMPLETED"),
        "{log}"
    );
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["show", &format!("{branch}:api/api.txt")]),
        "fixed\n"
    );
    assert_eq!(
        git(dir, &["merge-base", "--is-ancestor", &fix, &branch]),
        "",
        "the hand-made commit itself is on the integration branch"
    );
    // Merged once, by a merge-queue commit naming the sprint.
    let merges = git(
        dir,
        &[
            "log",
            "--merges",
            "--format=%(trailers:key=Supervisor-Sprint,valueonly)",
            &branch,
        ],
    );
    let api: Vec<&str> = merges.lines().filter(|l| *l == "api/1").collect();
    assert_eq!(api.len(), 1, "{merges}");
    assert_eq!(times_completed(dir, "api"), 1, "{log}");
    // Every worktree of the run was made where the run keeps them, none
    // beside the unit worktree the fix was committed in.
    let run_dir = dir
        .with_file_name(format!(
            "{}.supervisor",
            dir.file_name().expect("name").to_string_lossy()
        ))
        .join(branch.split('/').nth(1).expect("run id"));
    let made: Vec<String> = std::fs::read_dir(&run_dir)
        .expect("the run's worktree directory")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(made.iter().all(|m| !m.ends_with(".supervisor")), "{made:?}");
}

#[test]
fn a_hand_fix_without_hooks_is_integrated_before_it_is_credited() {
    a_hand_fix_reaches_the_integration_branch(false, false);
}

#[test]
fn a_hand_fix_through_the_commit_hook_is_integrated_before_it_is_credited() {
    a_hand_fix_reaches_the_integration_branch(true, false);
}

/// The place a refused fix is sent to: the blocked unit's worktree. Its
/// commit hook wakes an engine that must still work on the run's tree and
/// put the dependent's worktree beside the others.
#[test]
fn a_hand_fix_in_the_units_worktree_through_its_hook_is_integrated() {
    a_hand_fix_reaches_the_integration_branch(true, true);
}

#[test]
fn a_hand_fix_in_the_units_worktree_without_hooks_is_integrated() {
    a_hand_fix_reaches_the_integration_branch(false, true);
}

/// A hand-made fix that conflicts with the integration branch is not
/// credited: the sprint stays as it was and the person is told where to
/// commit instead (the unit's worktree and branch).
#[test]
fn a_conflicting_hand_fix_is_refused_with_where_to_commit() {
    let repo = hand_fix_repo();
    let dir = repo.path();
    let _cleanup = beside(dir);
    let s = scripts(&[
        ("api-1-1.txt", "print giving up\nexit 1\n"),
        (
            "web-1-1.txt",
            "write web/web.txt pages\ncommit web: pages\nresult complete\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "api blocks the run: {}", out.stdout);
    let branch = integration(dir);
    let before = git(dir, &["rev-parse", &branch]);
    // The person's fix also rewrites web's file differently.
    std::fs::create_dir_all(dir.join("web")).expect("web");
    std::fs::write(dir.join("web/web.txt"), "other pages\n").expect("clash");
    std::fs::write(dir.join("api/api.txt"), "fixed\n").expect("fix");
    commit_by_hand(dir, &env, "api: fixed by hand", "api/1");
    let state = git(dir, &["rev-parse", "refs/supervisor/state"]);

    let out = sv(dir, &env, &["resume", "--wait"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    let log = crate::common::run(dir, &["log"]).stdout;
    assert_ne!(
        sprint_path(dir, "api").last().map(String::as_str),
        Some("COMPLETED"),
        "{log}"
    );
    assert_eq!(git(dir, &["rev-parse", &branch]), before, "nothing merged");
    let worktree = dir
        .parent()
        .expect("parent")
        .join(format!(
            "{}.supervisor",
            dir.file_name().expect("name").to_string_lossy()
        ))
        .display()
        .to_string();
    let told = format!("{}\n{}", out.stdout, log);
    assert!(told.contains("web/web.txt"), "{told}");
    assert!(told.contains(&worktree), "{told}");
    assert!(told.contains("/units/api"), "{told}");
    assert_ne!(
        git(dir, &["rev-parse", "refs/supervisor/state"]),
        state,
        "the refusal is recorded"
    );
    // Refused once: another tick says nothing new.
    let seq = git(dir, &["rev-parse", "refs/supervisor/state"]);
    let out = sv(dir, &env, &["tick"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(git(dir, &["rev-parse", "refs/supervisor/state"]), seq);
}

/// A second hand-made commit for a sprint already credited (a tick came
/// between the person's two commits) is merged too, with a notice, and
/// the sprint is not credited again.
#[test]
fn a_hand_fix_made_after_the_credit_is_merged_too() {
    let repo = hand_fix_repo();
    let dir = repo.path();
    let _cleanup = beside(dir);
    let s = agents();
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "api blocks the run: {}", out.stdout);
    std::fs::write(dir.join("api/api.txt"), "fixed\n").expect("fix");
    commit_by_hand(dir, &env, "api: fixed by hand", "api/1");
    // The engine wakes between the person's commits and credits the first.
    let out = sv(dir, &env, &["tick"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let log = crate::common::run(dir, &["log"]).stdout;
    assert_eq!(
        sprint_path(dir, "api").last().map(String::as_str),
        Some("COMPLETED"),
        "{log}"
    );
    std::fs::write(dir.join("api/more.txt"), "more\n").expect("more");
    commit_by_hand(dir, &env, "api: one more thing", "api/1");
    let late = git(dir, &["rev-parse", "HEAD"]).trim().to_string();

    resume_merges_the_late_fix(dir, &env, &late);
}

/// A fix committed in the unit's worktree after the engine credited the
/// sprint from the person's first commit and looked at history, just
/// before it removes that worktree (the unit is complete): the fix is left
/// on the unit's branch, which no worktree holds any more, and is merged
/// as a late fix all the same. Here `[workspace] teardown`, which runs at
/// that very moment, makes the commit, so the interleaving is not left to
/// timing.
#[test]
fn a_late_fix_in_a_unit_worktree_the_engine_then_removes_is_merged_too() {
    let repo = hand_fix_repo();
    let dir = repo.path();
    let _cleanup = beside(dir);
    let s = agents();
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let scratch = tempfile::tempdir().expect("scratch");
    let made = scratch.path().join("late-commit");
    let teardown = scratch.path().join("late.sh");
    std::fs::write(
        &teardown,
        format!(
            "[ \"$SUPERVISOR_UNIT\" = api ] || exit 0\n\
             echo more > api/more.txt\n\
             git add -A\n\
             git commit -qm 'api: one more thing' --trailer 'Supervisor-Sprint: api/1' --trailer 'Supervisor-Status: complete'\n\
             git rev-parse HEAD > {}\n",
            made.display()
        ),
    )
    .expect("teardown script");
    let config = dir.join(".workflow/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!(
        "\n[workspace]\nteardown = \"sh {}\"\n",
        teardown.display()
    ));
    std::fs::write(&config, text).expect("config");
    git(dir, &["commit", "-qam", "a teardown that commits"]);
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_ne!(out.status, 0, "api blocks the run: {}", out.stdout);
    std::fs::write(dir.join("api/api.txt"), "fixed\n").expect("fix");
    commit_by_hand(dir, &env, "api: fixed by hand", "api/1");

    // The tick credits api/1 from the checkout's commit, then removes
    // api's worktree, in which the late fix has just been committed.
    let out = sv(dir, &env, &["tick"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let late = std::fs::read_to_string(&made)
        .expect("the late fix was committed in api's worktree")
        .trim()
        .to_string();
    let st = sv(dir, &env, &["status", "--format", "json"]);
    let st: serde_json::Value = serde_json::from_str(&st.stdout).expect("status JSON");
    let worktree = PathBuf::from(st["workspaces"]["api"]["worktree"].as_str().expect("path"));
    assert!(!worktree.join(".git").exists(), "api's worktree went");

    resume_merges_the_late_fix(dir, &env, &late);
}

/// `resume --wait` merges `late`, a second fix of api/1 made after the
/// sprint was credited, as a late fix: on the integration branch with its
/// file, said once, and api credited once.
fn resume_merges_the_late_fix(dir: &Path, env: &[(&str, &Path)], late: &str) {
    let out = sv(dir, env, &["resume", "--wait"]);
    let log = crate::common::run(dir, &["log"]).stdout;
    assert_eq!(out.status, 0, "{}\n{}\n{log}", out.stdout, out.stderr);
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["merge-base", "--is-ancestor", late, &branch]),
        "",
        "the late commit is on the integration branch: {log}"
    );
    assert_eq!(
        git(dir, &["show", &format!("{branch}:api/more.txt")]),
        "more\n"
    );
    assert!(
        log.contains(&format!(
            "Commit {} marks api/1 complete after it was credited",
            &late[..12]
        )),
        "{log}"
    );
    assert_eq!(times_completed(dir, "api"), 1, "{log}");
}
