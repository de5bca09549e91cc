//! Runs that meet a usage limit, with real processes and the wall clock:
//! no attempt charged, one pause however many agents meet it, nothing
//! dispatched during it, the run going on by itself at the reset; a reset
//! beyond `run.limit_wait_max` stopping the run; `resume` ending a pause
//! early; and `[notify] command` told of each event, in order, without
//! delaying the engine.

use std::path::Path;

use crate::common::git;
use crate::common::wait_until;

/// Units `a`..`h` (the first `n`), one sprint each, exit criterion
/// `<unit>/1.txt`; the agent is `sh AGENT`; `config` is appended.
pub(crate) fn repo(n: usize, agent: &str, config: &str) -> (tempfile::TempDir, tempfile::TempDir) {
    let units: Vec<String> = "abcdefgh".chars().take(n).map(String::from).collect();
    let mut plan =
        String::from("# Limits\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n");
    for u in &units {
        plan.push_str(&format!("| {u} | {u} | 0 | 1 |\n"));
    }
    for u in &units {
        plan.push_str(&format!(
            "\n## {u}\n\n### Sprint 1: Step\n\n**Exit Criteria**:\n- [ ] `{u}/1.txt` exists\n"
        ));
    }
    repo_with(&units, &plan, agent, config)
}

fn repo_with(
    units: &[String],
    plan: &str,
    agent: &str,
    config: &str,
) -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let scripts = tempfile::tempdir().expect("tempdir");
    let script = scripts.path().join("agent.sh");
    std::fs::write(&script, agent).expect("agent");
    let d = dir.path();
    crate::common::init_repo(d);
    for u in units {
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), format!("# {u}\n")).expect("progress");
    }
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        format!(
            "[agent]\ncommand = [\"sh\", \"{}\"]\nprompt = \"stdin\"\n\n[run]\npoll_interval = \"200ms\"\nworkspace = \"shared\"\nmax_retries = 1\n{config}\n",
            script.display()
        ),
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    (dir, scripts)
}

/// The work of a sprint, committed with its trailers.
const WORK: &str = r#"echo done > "$SUPERVISOR_UNIT/1.txt"
git add -A "$SUPERVISOR_UNIT"
git commit -qm "$SUPERVISOR_UNIT: sprint 1" -m "Supervisor-Sprint: $SUPERVISOR_UNIT/1
Supervisor-Status: complete"
"#;

/// The real binary on the wall clock (resets are wall-clock times).
pub(crate) fn sv(dir: &Path, args: &[&str]) -> crate::common::Output {
    let out = crate::common::command(crate::common::bin(), dir)
        .env_remove("GIT_SUPERVISOR_TIMESTAMP")
        .env("TZ", "Asia/Tokyo")
        .args(args)
        .output()
        .expect("runs");
    crate::common::Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

pub(crate) fn status(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&sv(dir, &["status", "--format", "json"]).stdout).expect("status JSON")
}

/// `(event, subject, body)` of every transition, oldest first.
fn transitions(dir: &Path) -> Vec<(String, String, String)> {
    git(
        dir,
        &[
            "log",
            "--reverse",
            "--format=%s%x1f%B%x1e",
            "refs/supervisor/state",
        ],
    )
    .split('\x1e')
    .filter(|r| !r.trim().is_empty())
    .map(|r| {
        let (subject, body) = r.trim_start().split_once('\x1f').expect("record");
        let event = body
            .lines()
            .find_map(|l| l.strip_prefix("Supervisor-Event: "))
            .unwrap_or_default()
            .to_string();
        (event, subject.to_string(), body.to_string())
    })
    .collect()
}

/// Three of eight agents meet the limit at once (Claude Code's old shape
/// with its reset, Codex's "try again in", the service's JSON error).
const THREE_LIMITED: &str = r#"u=$SUPERVISOR_UNIT
m="$SUPERVISOR_WORKDIR/.git/limited-$u"
case "$u" in a|b|c)
  if [ ! -f "$m" ]; then
    touch "$m"
    sleep 1
    now=$(date +%s)
    case "$u" in
      a) echo "Claude AI usage limit reached|$((now+3))";;
      b) echo "ERROR: You've hit your usage limit. Upgrade to Pro or try again in 3 seconds.";;
      c) echo '{"type":"error","error":{"type":"usage_limit_reached","resets_in_seconds":3}}';;
    esac
    exit 1
  fi;;
esac
"#;

#[test]
fn three_agents_meet_the_limit_at_once_one_pause_no_attempt_lost() {
    let (r, _s) = repo(8, &format!("{THREE_LIMITED}{WORK}"), "");
    let dir = r.path();
    let out = sv(dir, &["start", "--yes", "--wait"]);
    let story = || {
        transitions(dir)
            .iter()
            .map(|(_, s, b)| format!("{s}  {}", b.lines().nth(2).unwrap_or("")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(out.status, 0, "{}{}\n{}", out.stdout, out.stderr, story());
    let st = status(dir);
    assert_eq!(st["overall"], "completed", "{}", story());
    // No attempt was charged: every sprint completed on attempt 1 and
    // nothing failed.
    let ts = transitions(dir);
    assert!(
        !ts.iter()
            .any(|(_, s, _)| s.contains("FATAL") || s.contains("BLOCKED")),
        "{}",
        story()
    );
    let limited: Vec<&(String, String, String)> =
        ts.iter().filter(|(e, _, _)| e == "usage-limit").collect();
    assert_eq!(limited.len(), 3, "{}", story());
    for (_, subject, body) in &limited {
        assert!(subject.ends_with("RUNNING -> BACKOFF"), "{subject}");
        assert!(body.contains("No attempt is counted"), "{body}");
        assert!(body.contains("Usage limit of `sh`"), "{body}");
    }
    let retries = ts
        .iter()
        .filter(|(_, s, _)| s.contains("BACKOFF -> DISPATCHED"))
        .count();
    assert_eq!(retries, 3, "{}", story());
    assert!(
        ts.iter().all(|(_, _, b)| !b.contains("attempt 2/")),
        "no second attempt: {}",
        story()
    );
    // One pause: it ends once, and nothing is dispatched between the first
    // limit and its end.
    let ended: Vec<usize> = ts
        .iter()
        .enumerate()
        .filter(|(_, (e, _, _))| e == "limit-ended")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ended.len(), 1, "one pause: {}", story());
    let first = ts
        .iter()
        .position(|(e, _, _)| e == "usage-limit")
        .expect("a limit");
    assert!(
        !ts[first..ended[0]]
            .iter()
            .any(|(_, s, _)| s.contains("-> DISPATCHED")),
        "no dispatch during the pause: {}",
        story()
    );
    // Running agents went on: the five others completed during it or
    // before.
    let a_report = sv(dir, &["log"]).stdout;
    assert!(a_report.contains("has reset"), "{a_report}");
}

#[test]
fn status_says_what_the_pause_waits_for_and_resume_ends_it_early() {
    // A reset an hour ahead, named as Claude Code names it.
    let agent = format!(
        r#"if mkdir "$SUPERVISOR_WORKDIR/.git/limited" 2>/dev/null; then
  echo "You've hit your session limit · resets $(TZ=Asia/Tokyo date -d @$(( $(date +%s) + 3600 )) +%-I:%M%P) (Asia/Tokyo)"
  exit 1
fi
{WORK}"#
    );
    let (r, _s) = repo(1, &agent, "");
    let dir = r.path();
    assert_eq!(sv(dir, &["start", "--yes"]).status, 0);
    wait_until("the pause to be recorded", 30, || {
        status(dir)["usage_limits"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    });
    let st = status(dir);
    let limit = &st["usage_limits"][0];
    assert_eq!(limit["agent"], "sh");
    assert_eq!(limit["named"], true);
    assert!(limit["line"]
        .as_str()
        .unwrap_or("")
        .starts_with("You've hit your session limit"));
    assert_eq!(limit["sprints"], serde_json::json!(["a/1"]));
    assert_eq!(st["needs_you"][0]["kind"], "usage_limit");
    assert_eq!(st["overall"], "running", "a limited run is never completed");
    let text = sv(dir, &["status"]).stdout;
    assert!(text.contains("Needs you:"), "{text}");
    assert!(
        text.contains("waiting for the usage limit of `sh` — resets ")
            && text.contains(" JST (in "),
        "{text}"
    );
    assert!(
        text.contains("a: sprint 1 waits for the usage limit of `sh` to reset at"),
        "{text}"
    );
    // `resume` ends it now; the sprint completes on its first attempt.
    let resumed = sv(dir, &["resume"]);
    assert_eq!(resumed.status, 0, "{}{}", resumed.stdout, resumed.stderr);
    wait_until("the run to complete", 30, || {
        status(dir)["overall"] == "completed"
    });
    let log = sv(dir, &["log"]).stdout;
    assert!(
        log.contains("the usage-limit pause of `sh` ends early"),
        "{log}"
    );
    assert!(!log.contains("attempt 2/"), "{log}");
}

#[test]
fn a_reset_beyond_limit_wait_max_stops_the_run_resumably() {
    let agent = format!(
        r#"if mkdir "$SUPERVISOR_WORKDIR/.git/limited" 2>/dev/null; then
  echo "ERROR: You've hit your usage limit. Upgrade to Pro or try again in 2 days 17 hours 14 minutes."
  exit 1
fi
{WORK}"#
    );
    let (r, _s) = repo(2, &agent, "limit_wait_max = \"2h\"");
    let dir = r.path();
    let before_bad = git(dir, &["rev-parse", "HEAD"]);
    assert!(!before_bad.is_empty());
    let out = sv(dir, &["start", "--yes", "--wait"]);
    let st = status(dir);
    assert_eq!(st["overall"], "stopped", "{}{}", out.stdout, out.stderr);
    let log = sv(dir, &["log"]).stdout;
    assert!(log.contains("beyond run.limit_wait_max (2h)"), "{log}");
    assert!(
        log.contains("`git supervisor resume` after the reset"),
        "{log}"
    );
    // Resumable: `resume` ends the pause and the run completes.
    assert_eq!(sv(dir, &["resume"]).status, 0);
    wait_until("the resumed run to complete", 30, || {
        status(dir)["overall"] == "completed"
    });
}

/// A unit BLOCKED, a sprint to confirm, a usage-limit pause and its end,
/// and the run's end: one JSON line per event on the notify command's
/// stdin, in the order of the transitions, with the same in its variables.
#[test]
fn the_notify_command_hears_each_event_once_in_order() {
    let units: Vec<String> = ["a", "m", "c"].iter().map(|s| s.to_string()).collect();
    let plan = "# Notify\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n| a | a | 0 | 1 |\n| m | m | 0 | 1 |\n| c | c | 0 | 1 |\n\n## a\n\n### Sprint 1: Fails once\n\n**Exit Criteria**:\n- [ ] `a/1.txt` exists\n\n## m\n\n### Sprint 1: Look at it\n\nType: manual\n\n- Look at the widgets by hand\n\n## c\n\n### Sprint 1: Limited once\n\n**Exit Criteria**:\n- [ ] `c/1.txt` exists\n";
    let agent = format!(
        r#"case "$SUPERVISOR_UNIT" in
  a) if mkdir "$SUPERVISOR_WORKDIR/.git/failed-a" 2>/dev/null; then echo "no luck"; exit 1; fi;;
  m) echo "looked at the widgets"; exit 0;;
  c) if mkdir "$SUPERVISOR_WORKDIR/.git/limited-c" 2>/dev/null; then echo "ERROR: You've hit your usage limit. Try again in 2 seconds."; exit 1; fi;;
esac
{WORK}"#
    );
    let heard = tempfile::tempdir().expect("tempdir");
    let out = heard.path().join("events.jsonl");
    let config = format!(
        "retry_delay = \"1s\"\n\n[notify]\ncommand = [\"sh\", \"-c\", \"cat >> {0}; echo \\\"$SUPERVISOR_EVENT $SUPERVISOR_UNIT $SUPERVISOR_SPRINT\\\" >> {0}.env\"]\n",
        out.display()
    );
    let (r, _s) = repo_with(&units, plan, &agent, &config);
    let dir = r.path();
    assert_eq!(sv(dir, &["start", "--yes"]).status, 0);
    wait_until("a BLOCKED, m to confirm, c's limit over", 60, || {
        let st = status(dir);
        let state = |u: &str| {
            st["units"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["name"] == u).cloned())
                .map(|x| x["state"].as_str().unwrap_or("").to_string())
                .unwrap_or_default()
        };
        state("a") == "BLOCKED"
            && state("c") == "COMPLETED"
            && st["needs_you"]
                .as_array()
                .is_some_and(|n| n.iter().any(|x| x["kind"] == "confirm"))
    });
    assert_eq!(sv(dir, &["confirm", "m", "1"]).status, 0);
    assert_eq!(sv(dir, &["resume"]).status, 0);
    wait_until("the run to complete", 60, || {
        status(dir)["overall"] == "completed"
    });
    wait_until("five notifications", 30, || {
        std::fs::read_to_string(&out).is_ok_and(|t| t.lines().count() >= 5)
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    let text = std::fs::read_to_string(&out).expect("events");
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap_or(""))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "blocked",
            "confirm",
            "limit_ended",
            "run_completed",
            "usage_limit"
        ],
        "{text}"
    );
    assert_eq!(names.last(), Some(&"run_completed"), "{text}");
    let seqs: Vec<u64> = events
        .iter()
        .map(|e| e["seq"].as_u64().expect("seq"))
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
    let blocked = events
        .iter()
        .find(|e| e["event"] == "blocked")
        .expect("blocked");
    assert_eq!(blocked["unit"], "a");
    assert_eq!(blocked["sprint"], "1");
    assert!(
        blocked["message"]
            .as_str()
            .unwrap_or("")
            .contains("BLOCKED"),
        "{blocked}"
    );
    let confirm = events
        .iter()
        .find(|e| e["event"] == "confirm")
        .expect("confirm");
    assert!(confirm["message"]
        .as_str()
        .unwrap_or("")
        .contains("git supervisor confirm m 1"));
    for e in &events {
        assert!(!e["run"].as_str().unwrap_or("").is_empty(), "{e}");
        assert!(!e["repository"].as_str().unwrap_or("").is_empty(), "{e}");
    }
    let env = std::fs::read_to_string(format!("{}.env", out.display())).expect("env");
    assert!(env.lines().any(|l| l == "blocked a 1"), "{env}");
    assert!(env.lines().any(|l| l == "confirm m 1"), "{env}");
}

/// A notify command that hangs, or fails, delays no transition: it is
/// killed at its timeout and logged.
#[test]
fn a_hanging_or_failing_notify_command_delays_nothing() {
    for command in [
        r#"["sh", "-c", "sleep 30"]"#,
        r#"["sh", "-c", "echo broken >&2; exit 3"]"#,
    ] {
        let agent = format!(
            r#"if mkdir "$SUPERVISOR_WORKDIR/.git/limited" 2>/dev/null; then echo "ERROR: You've hit your usage limit. Try again in 1 second."; exit 1; fi
{WORK}"#
        );
        let (r, _s) = repo(
            2,
            &agent,
            &format!("\n[notify]\ncommand = {command}\ntimeout = \"1s\"\n"),
        );
        let dir = r.path();
        let out = sv(dir, &["start", "--yes", "--wait"]);
        assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
        assert_eq!(status(dir)["overall"], "completed");
        let log_path = dir.join(".git/supervisor/notify/notify.log");
        let logged = (0..300).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            std::fs::read_to_string(&log_path).is_ok_and(|t| t.contains("run_completed"))
        });
        assert!(
            logged,
            "{command}: {:?}\n{}",
            std::fs::read_to_string(&log_path),
            sv(dir, &["log"]).stdout
        );
        let log = std::fs::read_to_string(&log_path).expect("log");
        if command.contains("sleep") {
            assert!(log.contains("timed out after 1s"), "{log}");
        } else {
            assert!(log.contains("exit 3: broken"), "{log}");
        }
    }
}
