//! The agent's word end to end (issue 14 items 5–7): agents that print what
//! Claude Code prints, run as real processes by the real binary in a real
//! repository. The agents are small shell scripts, so the tests need no CLI
//! and no network.

use std::path::Path;

use crate::common::git;
use crate::common::run;

/// A repository with `plan` and a config whose agent commands are the
/// scripts written beside it (`{scripts}` in `config` is their directory).
fn repo(
    plan: &str,
    config: &str,
    scripts: &[(&str, &str)],
) -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.name", "Test User"]);
    git(d, &["config", "user.email", "user@example.com"]);
    git(d, &["config", "commit.gpgsign", "false"]);
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    std::fs::create_dir_all(d.join(".workflow")).expect("workflow dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        config.replace("{scripts}", &bin.path().display().to_string()),
    )
    .expect("config");
    std::fs::write(d.join(".gitignore"), ".workflow/\n").expect("ignore");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "Initial commit"]);
    for (name, text) in scripts {
        std::fs::write(bin.path().join(name), text).expect("script");
    }
    (dir, bin)
}

fn status_json(repo: &Path) -> serde_json::Value {
    let out = run(repo, &["status", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).expect("status JSON")
}

const NOTES_PLAN: &str = "\
# Notes

## Sprint 1: Write both notes

- Write `notes/a.txt` and `notes/b.txt`

**Exit Criteria:**
- [ ] `test -f notes/b.txt`
";

/// The first dispatch runs out of turns half way (stream-json with a
/// session), commits without any trailer; the continuation is started with
/// `resume_command` and the previous session.
const FIRST: &str = r#"mkdir -p notes && echo a > notes/a.txt
git add notes && git commit -q -m "notes: a"
echo '{"type":"system","subtype":"init","session_id":"sess-41","tools":["Bash"],"model":"m"}'
echo '{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":50,"session_id":"sess-41","total_cost_usd":0.5,"permission_denials":[]}'
"#;

const RESUMED: &str = r#"echo "$1 $SUPERVISOR_SESSION_ID" > notes/b.txt
git add notes && git commit -q -m "notes: b"
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"done","session_id":"sess-41","total_cost_usd":0.25,"permission_denials":[]}'
"#;

#[test]
fn a_partial_continuation_resumes_the_session() {
    let config = r#"
[agent]
command = ["sh", "{scripts}/first.sh"]
resume_command = ["sh", "{scripts}/resumed.sh", "{session_id}"]
prompt = "file"

[run]
poll_interval = "100ms"
"#;
    let (dir, _bin) = repo(
        NOTES_PLAN,
        config,
        &[("first.sh", FIRST), ("resumed.sh", RESUMED)],
    );
    let d = dir.path();
    let out = run(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    // The argument and the environment both carried the session.
    assert_eq!(
        std::fs::read_to_string(d.join("notes/b.txt")).expect("b written"),
        "sess-41 sess-41\n"
    );
    // Neither commit carries a trailer, and both counted.
    let trailers = git(d, &["log", "--format=%(trailers)", "-2"]);
    assert!(trailers.trim().is_empty(), "{trailers}");
    let log = git(d, &["log", "--format=%s", "refs/supervisor/state"]);
    assert!(log.contains("sprint 1 RUNNING -> PARTIAL"), "{log}");
    assert!(log.contains("sprint 1 RUNNING -> COMPLETED"), "{log}");
}

const DENIED: &str = r#"echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"I need permission to run git commit.","session_id":"s-d","total_cost_usd":0.01,"permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"git commit -m notes"}}]}'
"#;

#[test]
fn denied_tools_fail_the_sprint_and_say_why() {
    let config = r#"
[agent]
command = ["sh", "{scripts}/denied.sh"]
prompt = "file"

[run]
max_retries = 2
poll_interval = "100ms"
"#;
    let (dir, _bin) = repo(NOTES_PLAN, config, &[("denied.sh", DENIED)]);
    let d = dir.path();
    let out = run(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    let log = git(d, &["log", "--format=%B", "refs/supervisor/state"]);
    assert!(
        log.contains("tools denied: Bash (git commit -m notes)"),
        "the reason is recorded:\n{log}"
    );
    // The retry prompt carried it.
    let prompts = d.join(".git/supervisor/prompts");
    let second = std::fs::read_to_string(prompts.join("default-1-2.md"))
        .or_else(|_| {
            let name = std::fs::read_dir(&prompts)
                .expect("prompts")
                .flatten()
                .map(|e| e.path())
                .find(|p| p.to_string_lossy().ends_with("-1-2.md"))
                .expect("a second prompt");
            std::fs::read_to_string(name)
        })
        .expect("second prompt");
    assert!(second.contains("RETRY:"), "{second}");
    assert!(
        second.contains("tools denied: Bash (git commit -m notes)"),
        "{second}"
    );
    // And status says it.
    let status = run(d, &["status"]);
    assert!(
        status
            .stdout
            .contains("tools denied: Bash (git commit -m notes)"),
        "{}",
        status.stdout
    );
    let json = status_json(d);
    assert_eq!(json["overall"], "blocked");
}

const TWO_SPRINTS: &str = "\
# Ledger

## Sprint 1: First entry

- Write `ledger/1.txt`

## Sprint 2: Second entry

- Write `ledger/2.txt`
";

/// Each dispatch writes its sprint's file, commits, and reports $0.60 the
/// way Claude Code's `--output-format json` does.
const PAID: &str = r#"mkdir -p ledger && echo "$SUPERVISOR_SPRINT" > "ledger/$SUPERVISOR_SPRINT.txt"
git add ledger && git commit -q -m "ledger: $SUPERVISOR_SPRINT"
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":4,"result":"ok","session_id":"s","total_cost_usd":0.6,"permission_denials":[]}'
"#;

#[test]
fn costs_show_everywhere_and_the_budget_stops_dispatches() {
    let config = |budget: &str| {
        format!(
            "[agent]\ncommand = [\"sh\", \"{{scripts}}/paid.sh\"]\nprompt = \"file\"\n\n[run]\npoll_interval = \"100ms\"\nbudget_usd = {budget}\n"
        )
    };
    let (dir, bin) = repo(TWO_SPRINTS, &config("0.5"), &[("paid.sh", PAID)]);
    let d = dir.path();
    let out = run(d, &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status, 3,
        "stopped by the budget:\n{}\n{}",
        out.stdout, out.stderr
    );
    assert!(d.join("ledger/1.txt").is_file());
    assert!(
        !d.join("ledger/2.txt").exists(),
        "sprint 2 was not dispatched"
    );

    let status = run(d, &["status"]);
    assert!(
        status
            .stdout
            .contains("Cost: $0.60 reported by the agents\n  Ledger: $0.60 (sprint 1 $0.60)\n"),
        "{}",
        status.stdout
    );
    assert!(
        status
            .stdout
            .contains("Budget reached: $0.60 spent of run.budget_usd $0.50"),
        "{}",
        status.stdout
    );
    assert!(
        status
            .stdout
            .contains("Next event: none — the budget is reached; raise run.budget_usd"),
        "{}",
        status.stdout
    );
    let json = status_json(d);
    assert_eq!(json["overall"], "stopped");
    assert_eq!(json["cost_usd"], 0.6);
    assert_eq!(json["units"][0]["cost_usd"], 0.6);
    assert_eq!(json["units"][0]["sprint_costs"]["1"], 0.6);
    assert_eq!(json["budget_reached"]["budget"], 0.5);
    let trailers = git(
        d,
        &[
            "log",
            "--format=%(trailers:key=Supervisor-Cost,valueonly)",
            "refs/supervisor/state",
        ],
    );
    assert!(trailers.contains("0.600000"), "{trailers}");

    // Resume without raising it: stopped again, nothing dispatched.
    let out = run(d, &["resume"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(!d.join("ledger/2.txt").exists());
    assert_eq!(status_json(d)["overall"], "stopped");

    // Raise it, replan (the run executes its snapshot), resume.
    std::fs::write(
        d.join(".workflow/config.toml"),
        config("5").replace("{scripts}", &bin.path().display().to_string()),
    )
    .expect("config");
    let out = run(d, &["replan"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let out = run(d, &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(d.join("ledger/2.txt").is_file());

    let report = run(d, &["report", "--format", "json"]);
    assert_eq!(report.status, 0, "{}", report.stderr);
    let r: serde_json::Value = serde_json::from_str(&report.stdout).expect("report JSON");
    assert_eq!(r["summary"]["spent_usd"], 1.2);
    assert_eq!(r["summary"]["unit_spent"][0]["cost_usd"], 1.2);
    assert_eq!(r["sprints"][0]["cost_usd"], 0.6);
    assert_eq!(r["sprints"][1]["turns"], 4);
    let text = run(d, &["report"]);
    assert!(
        text.stdout
            .contains("Spent: $1.20 reported by the agents (Ledger $1.20)"),
        "{}",
        text.stdout
    );
}
