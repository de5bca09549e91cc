//! A worker rides out an outage of its remote as long as `[run]
//! offline_grace` (default: the lease): its agents work on, a finished
//! agent's verdict is queued in the clone and published once the remote
//! answers, also by a worker started again in the clone; an outage longer
//! than the grace ends the worker and its agents, and another worker takes
//! the sprint once its lease lapsed. Real `git daemon` on 127.0.0.1, real
//! worker processes and the fake-agent binary; an outage is the worker's
//! clone pointed at a port nothing listens on.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::scripts;
use crate::common::wait_until;

const DEAD: &str = "git://127.0.0.1:1/plan.git";

/// alpha's agent: counts its starts, waits two seconds (for the test to cut
/// the remote), does the work and says it is done.
const ALPHA_FINISHES_OFFLINE: &str = "append ${FAKE_AGENT_SCRIPT}/alpha.starts x
sleep 2000
write alpha-1.txt done
commit-all alpha: sprint 1
result complete
write ${FAKE_AGENT_SCRIPT}/alpha.finished yes
";

fn count(subjects: &[String], line: &str) -> usize {
    subjects.iter().filter(|l| *l == line).count()
}

/// The fake agents whose environment names `scripts` still running.
fn agents_of(scripts: &Path) -> Vec<u32> {
    let needle = format!("FAKE_AGENT_SCRIPT={}", scripts.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let is_agent = String::from_utf8_lossy(&cmdline).contains("fake-agent");
        let ours = environ.split(|b| *b == 0).any(|v| v == needle.as_bytes());
        let status = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = status
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'));
        if is_agent && ours && !zombie {
            found.push(pid);
        }
    }
    found
}

/// An outage longer than the old 30 tries but shorter than the lease,
/// during which the agent finishes: the worker stays, and once the remote
/// answers it publishes the verdict, once; the sprint is COMPLETED once,
/// never handed to a second agent.
#[test]
fn an_outage_shorter_than_the_lease_loses_no_work() {
    let remote = OnRemote::with_plan_and_config(
        &plan(&["alpha", "beta"], 1),
        &[
            ("lease = \"3s\"", "lease = \"90s\""),
            ("silence_kill = \"2s\"", "silence_kill = \"off\""),
        ],
    );
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("alpha-1.txt", ALPHA_FINISHES_OFFLINE),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let mut w = text_worker(&clone, s.path(), &["--once", "--poll", "100ms"]);
    let (seen, reader) = lines_of(&mut w);
    wait_until("alpha's agent", 60, || {
        s.path().join("alpha.starts").exists()
    });
    git(&clone, &["remote", "set-url", "origin", DEAD]);
    let down = Instant::now();
    wait_until("the agent to finish", 30, || {
        s.path().join("alpha.finished").exists()
    });
    let queue = clone.join(".git/supervisor/worker-queue");
    wait_until("the verdict queued", 30, || {
        std::fs::read_dir(&queue).is_ok_and(|d| d.count() > 0)
    });
    // Longer than a worker used to ride out (30 tries a second apart).
    while down.elapsed() < Duration::from_secs(36) {
        assert!(w.try_wait().expect("wait").is_none(), "the worker stays");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        count(&remote.subjects(), "alpha: sprint 1 RUNNING -> COMPLETED"),
        0,
        "nothing reaches the remote during the outage"
    );
    git(&clone, &["remote", "set-url", "origin", &remote.url]);
    let (code, _, stderr) = leave(w, Duration::from_secs(60));
    reader.join().expect("reader");
    let stdout = seen.lock().expect("lock").clone();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("for up to 1m 30s (`[run] offline_grace`)"),
        "{stdout}"
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.contains("alpha sprint 1: COMPLETED"))
            .count(),
        1,
        "{stdout}"
    );
    assert!(!stdout.contains("claim was lost"), "{stdout}");
    let subjects = remote.subjects();
    assert_eq!(
        count(&subjects, "alpha: sprint 1 RUNNING -> COMPLETED"),
        1,
        "{subjects:#?}"
    );
    assert_eq!(
        count(&subjects, "alpha: sprint 1 DISPATCHED -> RUNNING"),
        1,
        "{subjects:#?}"
    );
    let starts = std::fs::read_to_string(s.path().join("alpha.starts")).expect("starts");
    assert_eq!(starts.lines().count(), 1, "one agent");
    let integration = git(
        &remote.bare(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/",
        ],
    );
    let integration = integration
        .lines()
        .find(|l| l.ends_with("/integration"))
        .unwrap_or_else(|| panic!("an integration branch: {integration}"));
    git(
        &remote.bare(),
        &["cat-file", "-e", &format!("{integration}:alpha-1.txt")],
    );
    assert_eq!(
        std::fs::read_dir(&queue).map_or(0, |d| d.count()),
        0,
        "the queue is empty once published"
    );
    assert_eq!(
        git(&remote.bare(), &["for-each-ref", "refs/supervisor/leases/"]),
        "",
        "the lease went with the verdict"
    );
}

/// A worker killed during an outage with a verdict queued: a worker
/// started again in the same clone publishes it once the remote answers;
/// no second agent runs.
#[test]
fn a_queued_verdict_outlives_its_worker() {
    let remote = OnRemote::with_plan_and_config(
        &plan(&["alpha", "beta"], 1),
        &[
            ("lease = \"3s\"", "lease = \"90s\""),
            ("silence_kill = \"2s\"", "silence_kill = \"off\""),
        ],
    );
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("alpha-1.txt", ALPHA_FINISHES_OFFLINE),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let mut w = text_worker(&clone, s.path(), &["--poll", "100ms"]);
    wait_until("alpha's agent", 60, || {
        s.path().join("alpha.starts").exists()
    });
    git(&clone, &["remote", "set-url", "origin", DEAD]);
    let queue = clone.join(".git/supervisor/worker-queue");
    wait_until("the verdict queued", 30, || {
        std::fs::read_dir(&queue).is_ok_and(|d| d.count() > 0)
    });
    w.kill().expect("kill");
    let _ = w.wait();
    git(&clone, &["remote", "set-url", "origin", &remote.url]);
    let again = text_worker(&clone, s.path(), &["--once", "--poll", "100ms"]);
    let (code, stdout, stderr) = leave(again, Duration::from_secs(60));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("alpha sprint 1: COMPLETED"), "{stdout}");
    let subjects = remote.subjects();
    assert_eq!(
        count(&subjects, "alpha: sprint 1 RUNNING -> COMPLETED"),
        1,
        "{subjects:#?}"
    );
    assert_eq!(
        count(&subjects, "alpha: sprint 1 DISPATCHED -> RUNNING"),
        1,
        "{subjects:#?}"
    );
    let starts = std::fs::read_to_string(s.path().join("alpha.starts")).expect("starts");
    assert_eq!(starts.lines().count(), 1, "one agent");
}

/// alpha's first agent stays at work; the one that takes over finishes.
const ALPHA_STAYS_THEN_FINISHES: &str = "?${FAKE_AGENT_SCRIPT}/alpha.slept write alpha-1.txt done
?${FAKE_AGENT_SCRIPT}/alpha.slept commit-all alpha: sprint 1
?${FAKE_AGENT_SCRIPT}/alpha.slept result complete
?${FAKE_AGENT_SCRIPT}/alpha.slept exit 0
write ${FAKE_AGENT_SCRIPT}/alpha.slept yes
sleep 120000
";

/// An outage longer than `[run] offline_grace`: the worker says how long
/// it waited and leaves, its agent ends, and once the lease lapsed another
/// worker takes the sprint and completes it, once.
#[test]
fn an_outage_longer_than_the_grace_ends_the_worker_and_its_agents() {
    let remote = OnRemote::with_plan_and_config(
        &plan(&["alpha", "beta"], 1),
        &[
            ("lease = \"3s\"", "lease = \"6s\"\noffline_grace = \"2s\""),
            ("silence_kill = \"2s\"", "silence_kill = \"off\""),
        ],
    );
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("alpha-1.txt", ALPHA_STAYS_THEN_FINISHES),
    ]);
    remote.start(s.path());
    let first = remote.clone("one");
    let w = text_worker(&first, s.path(), &["--poll", "100ms"]);
    wait_until("alpha's first agent", 60, || {
        s.path().join("alpha.slept").exists()
    });
    assert!(!agents_of(s.path()).is_empty(), "the agent runs");
    git(&first, &["remote", "set-url", "origin", DEAD]);
    let (code, stdout, stderr) = leave(w, Duration::from_secs(30));
    assert_ne!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("for up to 2s (`[run] offline_grace`)")
            && stdout.contains(
                "remote `origin` has not answered for 2s (`[run] offline_grace`): this worker leaves"
            ),
        "{stdout}\n{stderr}"
    );
    wait_until("the agent to end", 20, || agents_of(s.path()).is_empty());
    let second = remote.clone("two");
    let (code, stdout, stderr) = leave(
        text_worker(&second, s.path(), &["--poll", "100ms"]),
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The first claim was its lease; if the state recorded it RUNNING
    // before the worker left, the sprint was interrupted and goes out
    // again as dispatch 2, else it never left DISPATCHED.
    let subjects = remote.subjects();
    let interrupted = count(&subjects, "alpha: sprint 1 RUNNING -> BACKOFF") == 1;
    let claim = if interrupted {
        "claimed alpha sprint 1 (dispatch 2"
    } else {
        "claimed alpha sprint 1\n"
    };
    assert!(stdout.contains(claim), "{stdout}\n{subjects:#?}");
    assert_eq!(
        count(&subjects, "alpha: sprint 1 RUNNING -> COMPLETED"),
        1,
        "{subjects:#?}"
    );
}
