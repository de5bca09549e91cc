//! Work the plan marks as done is recorded COMPLETED at `start` as an
//! `observed` transition ("marked complete in the plan"), its runnable exit
//! criteria checked, and never dispatched; a mark whose criteria fail is not
//! trusted.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::SUCCEED;

#[derive(Debug, serde::Deserialize)]
struct Record {
    unit: Option<String>,
    sprint: Option<String>,
    to: Option<String>,
    event: Option<String>,
    why: String,
}

fn history(repo: &Path) -> Vec<Record> {
    let out = run(repo, &["log", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut records: Vec<Record> = serde_json::from_str(&out.stdout).expect("log JSON");
    records.reverse();
    records
}

const PLAN: &str = "# Marked plan

## Sprint 1: Scaffold ✅
- Create the entry point

**Exit criteria**:
- [ ] `test -f src/main.rs`

## Sprint 2: Arguments (Completed)
- Parse the arguments

## Sprint 3: Wrong mark — DONE
- Write the missing file

**Exit criteria**:
- [ ] `test -f src/never.rs`

## Sprint 4: Output
- Print the result
";

#[test]
fn marked_sprints_complete_from_the_plan_without_a_dispatch() {
    let repo = fixture_repo("single");
    let dir = repo.path();
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).expect("plan");
    std::fs::create_dir_all(dir.join(".workflow")).expect("workflow dir");
    std::fs::write(
        dir.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"fake-agent\"]\nprompt = \"stdin\"\n\n[run]\nmax_retries = 3\npoll_interval = \"100ms\"\n",
    )
    .expect("config");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "Marked plan"]);
    let s = scripts(&[(
        "default.txt",
        // Sprint 3's criterion needs src/never.rs: the agent writes it.
        &format!("write src/never.rs // now\n{SUCCEED}"),
    )]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);

    let h = history(dir);
    let dispatched = |id: &str| {
        h.iter()
            .filter(|r| r.sprint.as_deref() == Some(id) && r.to.as_deref() == Some("DISPATCHED"))
            .count()
    };
    let observed = |id: &str| {
        h.iter().find(|r| {
            r.sprint.as_deref() == Some(id)
                && r.event.as_deref() == Some("observed")
                && r.to.as_deref() == Some("COMPLETED")
        })
    };
    for id in ["1", "2"] {
        assert_eq!(dispatched(id), 0, "sprint {id} was dispatched");
        let o = observed(id).unwrap_or_else(|| panic!("sprint {id} observed: {h:#?}"));
        assert!(o.why.contains("marked complete in the plan"), "{}", o.why);
        assert!(o.unit.is_some());
    }
    assert!(
        observed("1").is_some_and(|o| o.why.contains("`test -f src/main.rs` passes")),
        "runnable criteria are checked"
    );
    // The wrong mark: its criterion fails, so it is dispatched as usual.
    assert!(observed("3").is_none());
    assert_eq!(dispatched("3"), 1);
    assert_eq!(dispatched("4"), 1);
}

#[test]
fn plan_shows_marked_sprints_as_done() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), PLAN).expect("plan");
    let out = run(dir.path(), &["plan"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("done: marked complete in the plan (on its heading)"),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stdout.matches("      done: ").count(),
        3,
        "{}",
        out.stdout
    );
}

/// A mark whose check failed is not trusted again in the run: a sprint that
/// cannot be dispatched yet does not run its criteria on every tick.
#[test]
fn a_failed_mark_is_checked_once_not_every_tick() {
    let checks = failed_mark_scenario()
        .expect("b's dispatch failed at every tick and its sprint stayed fresh in PENDING");
    assert_eq!(
        checks.lines().count(),
        1,
        "the mark's criterion ran {checks:?}"
    );
}

/// The mark-check log of one run of the scenario above, or `None` when
/// `b` was dispatched after all. The agent program removes itself on its
/// first run (`a`'s, in layer 0); `b` in layer 1 comes due after `a` is
/// done, its mark's check fails, and its dispatch then fails at every tick
/// for want of the program.
fn failed_mark_scenario() -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let outer = tempfile::tempdir().expect("tempdir");
    let agent = outer.path().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\nrm -f \"$0\"\nexec fake-agent\n").expect("agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let plan = "# P\n\n| Package | Directory | Layer |\n|---|---|---|\n| a | d1 | 0 |\n| b | d2 | 1 |\n\n## a\n\n### Sprint 1: W\n\n- Write `d1/1.txt`\n\n## b\n\n### Sprint 1: Already there ✅\n\n**Exit Criteria**:\n- [ ] `echo check >> .git/mark-checks && false`\n";
    let dir = crate::test_hostile::repo_with(
        outer.path(),
        plan,
        Some(&format!("[\"{}\"]", agent.display())),
    );
    let s = scripts(&[(
        "default.txt",
        "write d1/1.txt done\ncommit a: sprint 1\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let _ = run_env(&dir, &["start", "--yes"], &env);
    let a_done = || {
        let status: serde_json::Value =
            serde_json::from_str(&run(&dir, &["status", "--format", "json"]).stdout)
                .expect("status");
        status["units"][0]["state"] == "COMPLETED"
    };
    for _ in 0..200 {
        if a_done() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        let _ = run_env(&dir, &["tick"], &env);
    }
    assert!(a_done(), "a never completed");
    for _ in 0..4 {
        let _ = run_env(&dir, &["tick"], &env);
    }
    let checks = std::fs::read_to_string(dir.join(".git/mark-checks")).unwrap_or_default();
    let status: serde_json::Value =
        serde_json::from_str(&run(&dir, &["status", "--format", "json"]).stdout).expect("status");
    let _ = run(&dir, &["killall"]);
    let b = &status["units"][1]["current"];
    (b["total_attempts"] == 0 && b["state"] == "PENDING").then_some(checks)
}
