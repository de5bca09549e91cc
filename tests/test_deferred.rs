//! Deferred sprints wait without failing (issue 15, item 11): one whose
//! condition no command checks is dispatched to an agent that reports; "not
//! met yet" never completes it and never escalates to FATAL; `status` counts
//! the checks and the 20-check notice is recorded.

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

/// The agent looks for `mirror-live` and says what it found.
const CHECKER: &str = "?mirror-live print the mirror is live
?mirror-live result complete the mirror is live
!mirror-live print not met yet: the mirror is not live
!mirror-live result partial not met yet
";

#[test]
fn a_deferred_sprint_waits_on_its_agent_without_failing() {
    let repo = fixture_repo("waiting");
    let dir = repo.path();
    // Checks one second apart: the pinned clock passes that per transition.
    configure(
        dir,
        "deferred_check_min = \"1s\"\ndeferred_check_max = \"1s\"\n",
    );
    let s = scripts(&[("default.txt", CHECKER), ("docs.txt", SUCCEED)]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    // Keep the engine ticking until twenty checks found nothing.
    let start = Instant::now();
    loop {
        let out = sv(dir, s.path(), &["wait", "--timeout", "1s"]);
        assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
        let log = run(dir, &["log"]).stdout;
        if log.contains("Still not met after 20 checks") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no 20-check notice: {log}"
        );
    }
    let log = run(dir, &["log"]).stdout;
    assert!(
        log.contains("mirror Sprint 1 is waiting on The operations team confirms the mirror is live. Still not met after 20 checks. Continue waiting or intervene?"),
        "{log}"
    );
    assert!(!log.contains("BACKOFF") && !log.contains("FATAL"), "{log}");
    let status = run(dir, &["status"]).stdout;
    assert!(
        status
            .contains("mirror: waiting on The operations team confirms the mirror is live (check "),
        "{status}"
    );
    assert!(status.contains("20"), "{status}");
    // The condition is met: the next check completes it.
    std::fs::write(dir.join("mirror-live"), "").expect("live");
    let out = sv(dir, s.path(), &["wait", "--timeout", "20s"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
}

/// An agent that exits 0 saying the condition is not met, without a result
/// file, does not complete the sprint.
#[test]
fn not_met_yet_never_completes_a_deferred_sprint() {
    let repo = fixture_repo("waiting");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", "print not met yet\n"),
        ("docs.txt", SUCCEED),
    ]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    let out = sv(dir, s.path(), &["wait", "--timeout", "1s"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("JSON");
    let mirror = &json["units"][0];
    assert_eq!(mirror["name"], "mirror", "{json}");
    assert_eq!(mirror["state"], "RUNNING", "{json}");
    assert_ne!(mirror["current"]["state"], "COMPLETED", "{json}");
    assert_ne!(mirror["current"]["state"], "FATAL", "{json}");
}

/// A deferred condition its wrapper polls with the plan's own check: status
/// counts the checks too.
#[test]
fn status_counts_the_checks_a_wrapper_polls() {
    let repo = fixture_repo("kinds");
    let dir = repo.path();
    let s = scripts(&[("default.txt", "hang\n")]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    let start = Instant::now();
    loop {
        let status = run(dir, &["status"]).stdout;
        if status.contains("deferred: waiting on `test -f mirror-ready` (check ")
            && status.contains(" of 20).")
        {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no count: {status}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(sv(dir, s.path(), &["killall"]).status, 0);
}

/// Append `[run]` keys to the fixture's config (its last section) and commit.
fn configure(dir: &Path, run_keys: &str) {
    let config = dir.join(".workflow/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(run_keys);
    std::fs::write(&config, text).expect("config");
    git(dir, &["commit", "-q", "-am", "Deferred checks"]);
}

/// The mirror's sprint in the run's recorded state: its checks, its state
/// and when its condition is checked next.
fn mirror_sprint(dir: &Path) -> (i64, String, Option<String>) {
    let text = git(dir, &["show", "refs/supervisor/state:state.toml"]);
    let state: toml::Value = toml::from_str(&text).expect("state.toml");
    let units = state["units"].as_array().expect("units");
    let mirror = units
        .iter()
        .find(|u| u["name"].as_str() == Some("mirror"))
        .expect("mirror");
    let sp = &mirror["sprints"][0];
    (
        sp.get("checks").and_then(|c| c.as_integer()).unwrap_or(0),
        sp["state"].as_str().unwrap_or_default().to_string(),
        sp.get("next_check_at")
            .and_then(|c| c.as_str())
            .map(str::to_string),
    )
}

/// Checks of a condition only an agent can check back off (issue 17, item
/// 6): the first at once, then waits doubling from `deferred_check_min` up
/// to `deferred_check_max`. No check runs before its time, which comes from
/// the engine's clock: pinned here, and moved on rather than slept through.
#[test]
fn an_agent_checked_condition_is_checked_less_often_each_time() {
    let repo = fixture_repo("waiting");
    let dir = repo.path();
    configure(dir, "deferred_check_max = \"3m\"\n");
    let s = scripts(&[("default.txt", CHECKER), ("docs.txt", SUCCEED)]);
    let at = |pin: &str, args: &[&str]| {
        run_env(
            dir,
            args,
            &[
                ("FAKE_AGENT_SCRIPT", s.path()),
                ("GIT_SUPERVISOR_TIMESTAMP", Path::new(pin)),
            ],
        )
    };
    let pins = [
        "2026-01-01T00:00:00Z",
        "2026-01-01T01:00:00Z",
        "2026-01-01T02:00:00Z",
        "2026-01-01T03:00:00Z",
    ];
    assert_eq!(at(pins[0], &["start", "--yes"]).status, 0);
    for (n, (pin, wait)) in pins.iter().zip(["1m", "2m", "3m", "3m"]).enumerate() {
        let n = n as i64 + 1;
        // Check n runs at once (the first) or as soon as the clock passed
        // the time the last one named.
        let start = Instant::now();
        let next = loop {
            let out = at(pin, &["wait", "--timeout", "1s"]);
            assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
            let (checks, state, next) = mirror_sprint(dir);
            if checks == n && state == "PARTIAL" {
                break next;
            }
            assert!(checks < n, "check {checks} ran before its time");
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no check {n}: {}",
                run(dir, &["log"]).stdout
            );
        };
        let next = next.expect("the next check's time is recorded");
        let log = run(dir, &["log"]).stdout;
        assert!(
            log.contains(&format!("(check {n} of 20)"))
                && log.contains(&format!("Next check at {next} (in {wait}).")),
            "{log}"
        );
        // `status` says when, in words and in JSON.
        let status = run(dir, &["status"]).stdout;
        assert!(
            status.contains(&format!("Next check at {next}.")),
            "{status}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("JSON");
        let mirror = json["units"]
            .as_array()
            .and_then(|u| u.iter().find(|u| u["name"] == "mirror"))
            .expect("mirror");
        assert_eq!(mirror["current"]["next_check_at"], next.as_str());
        // Until the clock reaches it, waiting dispatches no check.
        let out = at(pin, &["wait", "--timeout", "2s"]);
        assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(mirror_sprint(dir).0, n, "{}", run(dir, &["log"]).stdout);
    }
    let log = run(dir, &["log"]).stdout;
    assert!(!log.contains("BACKOFF") && !log.contains("FATAL"), "{log}");
}

/// A check that reports failure (`status = "failed"` in its result file)
/// ends the wait: the attempt counts as a failure, retried and then FATAL
/// like any other, where "not met yet" would wait on.
#[test]
fn a_check_that_reports_failure_ends_the_wait_as_a_failed_attempt() {
    let repo = fixture_repo("waiting");
    let dir = repo.path();
    let s = scripts(&[
        (
            "default.txt",
            "print the deployment errored\nresult failed the deployment errored\n",
        ),
        ("docs.txt", SUCCEED),
    ]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    let start = Instant::now();
    loop {
        let out = sv(dir, s.path(), &["wait", "--timeout", "1s"]);
        let json: serde_json::Value =
            serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("JSON");
        let mirror = &json["units"][0];
        if mirror["state"] == "BLOCKED" {
            assert_eq!(mirror["current"]["state"], "FATAL", "{json}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(40),
            "the wait never ended: {}\n{}",
            out.stdout,
            run(dir, &["log"]).stdout
        );
    }
    let log = run(dir, &["log"]).stdout;
    assert!(log.contains("the check reports a failure"), "{log}");
    assert!(log.contains("Attempt 1/3 failed"), "{log}");
    assert!(
        log.contains("Attempt 3/3 failed; no retries remain."),
        "{log}"
    );
    assert!(!log.contains("Waiting on"), "{log}");
}

/// No command has to keep running for the next check: the wrapper of the
/// check that found the condition not met wakes the engine when it is due
/// (the wall clock, unpinned here).
#[test]
fn the_last_checks_wrapper_starts_the_next_check() {
    let repo = fixture_repo("waiting");
    let dir = repo.path();
    configure(
        dir,
        "deferred_check_min = \"1s\"\ndeferred_check_max = \"1s\"\n",
    );
    let s = scripts(&[("default.txt", CHECKER), ("docs.txt", SUCCEED)]);
    let unpinned = |args: &[&str]| {
        crate::common::command(crate::common::bin(), dir)
            .env_remove("GIT_SUPERVISOR_TIMESTAMP")
            .env("FAKE_AGENT_SCRIPT", s.path())
            .args(args)
            .output()
            .expect("runs")
            .status
            .code()
    };
    assert_eq!(unpinned(&["start", "--yes"]), Some(0));
    // Only reads from here on.
    let start = Instant::now();
    while mirror_sprint(dir).0 < 3 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no third check: {}",
            run(dir, &["log"]).stdout
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(unpinned(&["killall"]), Some(0));
}
