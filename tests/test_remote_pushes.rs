//! How many pushes a run on a remote makes: the remote's reflog of
//! `refs/supervisor/state` (kept by the bare repository with
//! `core.logAllRefUpdates = always`) groups its transitions by the push
//! that brought them, through a real `git daemon` on 127.0.0.1 and real
//! worker processes.

use std::time::Duration;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::scripts;

/// The remote's transitions grouped by push, oldest push first.
fn pushes(remote: &OnRemote) -> Vec<Vec<String>> {
    let tips: Vec<String> = git(
        &remote.bare(),
        &["reflog", "show", "--format=%H", "refs/supervisor/state"],
    )
    .lines()
    .rev()
    .map(str::to_string)
    .collect();
    let mut groups = Vec::new();
    let mut before: Option<&str> = None;
    for tip in &tips {
        let range = match before {
            Some(b) => format!("{b}..{tip}"),
            None => tip.clone(),
        };
        groups.push(
            git(&remote.bare(), &["log", "--reverse", "--format=%s", &range])
                .lines()
                .map(str::to_string)
                .collect(),
        );
        before = Some(tip);
    }
    groups
}

/// `plan(units, sprints)` with a unit table saying no unit waits for
/// another (sections alone read as one sequence).
fn independent(units: &[&str], sprints: u32) -> String {
    let text = plan(units, sprints);
    let (head, body) = text.split_once("# Long Haul\n").expect("title");
    let mut table = String::from("\n| Unit | Dependencies |\n|---|---|\n");
    for u in units {
        table.push_str(&format!("| {u} | none |\n"));
    }
    format!("{head}# Long Haul\n{table}{body}")
}

/// A remote whose bare repository keeps a reflog of every ref.
fn remote_with_reflog(plan_text: &str) -> OnRemote {
    remote_with_reflog_and(plan_text, &[])
}

/// The same, with edits to the run's config.
fn remote_with_reflog_and(plan_text: &str, edits: &[(&str, &str)]) -> OnRemote {
    let remote = OnRemote::with_plan_and_config(plan_text, edits);
    git(
        &remote.bare(),
        &["config", "core.logAllRefUpdates", "always"],
    );
    remote
}

/// `start --remote` publishes the run, then every first dispatch in one
/// push: one commit per dispatch, each with its own `event.toml`.
#[test]
fn start_on_a_remote_publishes_its_dispatches_in_one_push() {
    let remote = remote_with_reflog(&independent(&["alpha", "beta", "gamma"], 1));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    remote.start(s.path());
    let groups = pushes(&remote);
    assert_eq!(groups.len(), 2, "the run, then its dispatches: {groups:#?}");
    let dispatched: Vec<&String> = groups[1].iter().collect();
    for u in ["alpha", "beta", "gamma"] {
        let subject = format!("{u}: sprint 1 PENDING -> DISPATCHED");
        assert!(
            dispatched.contains(&&subject),
            "{subject} in the second push: {groups:#?}"
        );
        let commit = git(
            &remote.bare(),
            &[
                "log",
                "-1",
                "--format=%H",
                &format!("--grep=^{subject}$"),
                "refs/supervisor/state",
            ],
        );
        let event = git(
            &remote.bare(),
            &["show", &format!("{}:event.toml", commit.trim())],
        );
        assert!(
            event.contains("dispatch") && event.contains(u),
            "{u}'s dispatch keeps its event: {event}"
        );
    }
}

/// One worker on two units of two sprints: a claim is its lease, and each
/// verdict's push carries the RUNNING transition of the worker's next
/// claim (and the dispatches it claims from), so the run takes one push of
/// the state per sprint and none for the first claim, and each sprint is
/// COMPLETED once. (A lease long enough that no claim is recorded on its
/// own before its verdict.)
#[test]
fn a_worker_s_verdict_carries_its_next_claim_in_the_same_push() {
    let remote = remote_with_reflog_and(
        &independent(&["alpha", "beta"], 2),
        &[("lease = \"3s\"", "lease = \"60s\"")],
    );
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    let clone = remote.clone("w1");
    remote.start(s.path());
    let w = worker(&clone, s.path(), &["--poll", "50ms"]);
    let summary = summary(w, Duration::from_secs(90));
    eprintln!(
        "DEBUG {}",
        remote.transition("alpha: sprint 2 RUNNING -> BACKOFF")
    );
    assert_eq!(summary["finished"], true, "{summary:#?}");
    remote.assert_each_completed_once(&["alpha", "beta"], 2);
    let groups = pushes(&remote);
    let verdicts: Vec<&Vec<String>> = groups
        .iter()
        .filter(|g| g.iter().any(|s| s.ends_with("RUNNING -> COMPLETED")))
        .collect();
    assert_eq!(verdicts.len(), 4, "one push per verdict: {groups:#?}");
    // Every verdict but the last brings the next claim along.
    for g in &verdicts[..3] {
        assert!(
            g.iter().any(|s| s.ends_with("DISPATCHED -> RUNNING")),
            "a claim in the verdict's push: {g:#?}"
        );
    }
    // A unit's second sprint is dispatched and claimed in the push of its
    // first sprint's verdict, or of another unit's; the first claim moved
    // no state of its own.
    let claims = groups
        .iter()
        .filter(|g| g.iter().any(|s| s.ends_with("DISPATCHED -> RUNNING")))
        .count();
    assert_eq!(claims, 3, "{groups:#?}");
    assert_eq!(
        groups.len(),
        2 + 4,
        "the run, its dispatches, then one push per verdict: {groups:#?}"
    );
    remote.assert_fsck_clean();
}
