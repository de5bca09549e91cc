//! Workers at scale, against real git hosts on 127.0.0.1: each worker
//! claims the waiting sprints in its own rendezvous order, an idle worker
//! backs off and comes back when it sees work, a host's HTTP 429 answers
//! are tried again with backoff and said once, and the worker counts what
//! it asked of the remote.

use std::time::Duration;
use std::time::Instant;

use crate::common::on_remote::leave;
use crate::common::on_remote::summary;
use crate::common::on_remote::worker;
use crate::common::on_remote::Host;
use crate::common::on_remote::OnRemote;
use crate::common::on_remote::WRITES_AND_COMMITS;
use crate::common::scripts;

/// A plan of independent one-sprint units, all ready at once.
fn plan(units: &[&str], sprints: u32) -> String {
    crate::common::on_remote::plan(units, sprints).replacen(
        "# Long Haul\n",
        "# Long Haul\n\nThe units below are independent and run in parallel.\n",
        1,
    )
}

/// The requests a summary counts add up, and each verdict is a sprint run.
fn assert_counts(s: &serde_json::Value) {
    let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));
    assert_eq!(n("remote_requests"), n("fetches") + n("pushes"), "{s}");
    assert_eq!(
        n("sprints_run"),
        s["verdicts"].as_array().expect("verdicts").len() as u64,
        "{s}"
    );
    assert!(s["idle_seconds"].as_f64().is_some(), "{s}");
}

#[test]
fn a_worker_claims_the_waiting_sprints_in_its_own_rendezvous_order() {
    let units = ["alpha", "beta", "gamma", "delta"];
    let remote = OnRemote::with_plan(&plan(&units, 1));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    remote.start(s.path());
    let waiting = remote
        .subjects()
        .iter()
        .filter(|l| l.ends_with("-> DISPATCHED"))
        .count();
    assert_eq!(
        waiting,
        units.len(),
        "every sprint waits: {:#?}",
        remote.subjects()
    );
    let w = worker(
        &remote.clone("one"),
        s.path(),
        &["--once", "--poll", "100ms"],
    );
    let summary = summary(w, Duration::from_secs(120));
    assert_counts(&summary);
    let me = summary["worker"].as_str().expect("worker").to_string();
    let mut expected: Vec<&str> = units.to_vec();
    expected.sort_by_key(|u| std::cmp::Reverse(git_supervisor::engine::worker::rank(&me, u, "1")));
    let claimed: Vec<String> = summary["claimed"]
        .as_array()
        .expect("claimed")
        .iter()
        .map(|c| {
            c.as_str()
                .expect("claim")
                .trim_end_matches("/1")
                .to_string()
        })
        .collect();
    assert_eq!(claimed, expected, "{summary}");
    remote.assert_each_completed_once(&units, 1);
    // One sprint costs a lone worker few requests: a fetch before its
    // verdict, the verdict's push with the next claim, and its looks.
    let per_sprint = summary["remote_requests"].as_f64().expect("requests") / units.len() as f64;
    assert!(
        per_sprint <= 8.0,
        "{per_sprint} requests per sprint: {summary}"
    );
}

#[test]
fn many_workers_share_the_sprints_each_run_once() {
    let units = ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"];
    // Leases that outlast a loaded machine's pauses: every claim is held
    // to its verdict.
    let remote = OnRemote::edited(
        Host::Daemon,
        "remote",
        Some(&plan(&units, 1)),
        &[("lease = \"3s\"", "lease = \"30s\"")],
    );
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    remote.start(s.path());
    let workers: Vec<_> = (0..4)
        .map(|i| {
            worker(
                &remote.clone(&format!("w{i}")),
                s.path(),
                &["--once", "--poll", "100ms"],
            )
        })
        .collect();
    let mut claims = 0;
    for w in workers {
        let s = summary(w, Duration::from_secs(180));
        assert_counts(&s);
        claims += s["claimed"].as_array().expect("claimed").len();
    }
    assert_eq!(claims, units.len());
    remote.assert_each_completed_once(&units, 1);
}

#[test]
fn an_idle_worker_backs_off_and_comes_back_when_it_sees_work() {
    let remote = OnRemote::with_plan(&plan(&["alpha", "beta"], 1));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    // No run yet: the worker waits for one, looking less and less often.
    let w = worker(
        &remote.clone("idle"),
        s.path(),
        &["--poll", "100ms", "--poll-max", "800ms"],
    );
    std::thread::sleep(Duration::from_secs(6));
    let published = Instant::now();
    remote.start(s.path());
    let summary = summary(w, Duration::from_secs(120));
    assert_counts(&summary);
    assert_eq!(summary["overall"], "completed", "{summary}");
    assert_eq!(summary["sprints_run"], 2, "{summary}");
    // Polling every 100 ms, six idle seconds alone were 60 fetches; backed
    // off to 800 ms they are about ten.
    let requests = summary["remote_requests"].as_u64().expect("requests");
    assert!(requests <= 30, "{requests} requests: {summary}");
    assert!(
        summary["idle_seconds"].as_f64().expect("idle") >= 5.0,
        "{summary}"
    );
    // It came back within its longest poll and ran the work.
    assert!(published.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_host_that_answers_429_is_tried_again_and_said_once() {
    let remote = OnRemote::on(Host::Https, "remote", Some(&plan(&["alpha", "beta"], 1)));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    remote.start(s.path());
    let clone = remote.clone("throttled");
    remote.https().throttle(3, "429 Too Many Requests");
    let w = worker(&clone, s.path(), &["--once", "--poll", "100ms"]);
    let (code, stdout, stderr) = leave(w, Duration::from_secs(180));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("summary");
    assert_eq!(summary["sprints_run"], 2, "{summary}\n{stderr}");
    assert_eq!(
        remote.https().throttled().len(),
        3,
        "the host refused three requests"
    );
    let said = stderr
        .matches("answered HTTP 429 (too many requests)")
        .count();
    assert_eq!(said, 1, "said once: {stderr}");
    remote.assert_each_completed_once(&["alpha", "beta"], 1);
    // The refused tries are counted with the requests.
    assert!(
        summary["fetches"].as_u64().expect("fetches") >= 3,
        "{summary}"
    );
}
