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
    let out = run(d, &["start", "--wait"]);
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
    let out = run(d, &["start", "--wait"]);
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
