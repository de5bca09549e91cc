//! Deferred sprints wait without failing (issue 15, item 11): one whose
//! condition no command checks is dispatched to an agent that reports; "not
//! met yet" never completes it and never escalates to FATAL; `status` counts
//! the checks and the 20-check notice is recorded.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::fixture_repo;
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
    let s = scripts(&[("default.txt", CHECKER), ("docs.txt", SUCCEED)]);
    assert_eq!(sv(dir, s.path(), &["start"]).status, 0);
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
    assert_eq!(sv(dir, s.path(), &["start"]).status, 0);
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
    assert_eq!(sv(dir, s.path(), &["start"]).status, 0);
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
