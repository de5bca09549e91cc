//! Runs on remotes served the way people's are: HTTPS with basic
//! authentication (Debian's lighttpd in front of git's own
//! `git http-backend`, a pre-receive hook protecting `main`) and ssh (`sshd`
//! with a key), both on 127.0.0.1 and started by each test. The race and
//! fault scenarios of tests/test_remote.rs run over both, with more than one
//! agent per worker.

use std::process::Child;
use std::time::Duration;
use std::time::Instant;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::remote_scenarios;
use crate::common::remote_scenarios::patient;
use crate::common::remote_scenarios::works_for;
use crate::common::run_env;
use crate::common::scripts;

#[test]
fn over_https_a_killed_worker_s_sprint_is_taken_over_after_its_lease() {
    remote_scenarios::a_killed_worker_s_sprint_is_taken_over(Host::Https, &["--agents", "2"]);
}

#[test]
fn over_ssh_a_killed_worker_s_sprint_is_taken_over_after_its_lease() {
    remote_scenarios::a_killed_worker_s_sprint_is_taken_over(Host::Ssh, &["--agents", "2"]);
}

#[test]
fn over_https_racing_workers_claim_each_sprint_once() {
    remote_scenarios::racing_workers_claim_each_sprint_once(Host::Https, 4, &["--agents", "2"]);
}

#[test]
fn over_ssh_racing_workers_claim_each_sprint_once() {
    remote_scenarios::racing_workers_claim_each_sprint_once(Host::Ssh, 4, &["--agents", "2"]);
}

/// A phase build on a remote served over HTTPS: claimed once with the build
/// lease, run on the integrated tip, its checkpoint in the remote's state.
#[test]
fn over_https_a_phase_build_runs_once_on_the_integrated_tip() {
    remote_scenarios::a_phase_build_runs_once_on_the_integrated_tip(Host::Https);
}

/// The host's own rules and credentials: a wrong password (or an unknown
/// key) makes a worker fail at once, naming the remote, rather than retry;
/// the host's protected `main` refuses a push while the run's own refs,
/// which live beside it, are pushed and read as usual.
fn the_host_s_rules_hold(host: Host) {
    let remote = OnRemote::on(host, "remote", None);
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &env,
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(!git(&remote.bare(), &["rev-parse", "refs/supervisor/state"]).is_empty());

    let impostor = remote.clone("impostor");
    remote.configure(&impostor, &remote.impostor_config());
    let since = Instant::now();
    let out = worker(&impostor, s.path(), &["--poll", "100ms"])
        .wait_with_output()
        .expect("the worker leaves");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        since.elapsed() < Duration::from_secs(25),
        "a permanent error is not retried: {:?}\n{stderr}",
        since.elapsed()
    );
    assert!(
        stderr.contains("remote `origin` cannot hold the run")
            && stderr.contains("trying again will not help")
            && !stderr.contains("cannot reach"),
        "a refused login is no outage: {stderr}"
    );
    assert_eq!(
        remote
            .subjects()
            .iter()
            .filter(|l| l.ends_with("DISPATCHED -> RUNNING"))
            .count(),
        0,
        "the impostor claimed nothing"
    );

    let src = remote.src.path();
    git(
        src,
        &["commit", "-q", "--allow-empty", "-m", "Straight to main"],
    );
    let refused = crate::common::command("git", src)
        .args(["push", "origin", "HEAD:refs/heads/main"])
        .output()
        .expect("git push runs");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("refs/heads/main is protected") && said.contains("hook declined"),
        "{said}"
    );
    let done = summary(
        worker(
            &remote.clone("one"),
            s.path(),
            &["--agents", "2", "--poll", "100ms"],
        ),
        Duration::from_secs(120),
    );
    assert_eq!(done["finished"], true, "{done}");
    remote.assert_each_completed_once(&["alpha", "beta", "gamma", "delta"], 2);
    remote.assert_fsck_clean();
}

#[test]
fn over_https_a_wrong_password_fails_at_once_and_main_stays_protected() {
    the_host_s_rules_hold(Host::Https);
}

#[test]
fn over_ssh_an_unknown_key_fails_at_once_and_main_stays_protected() {
    the_host_s_rules_hold(Host::Ssh);
}

/// `stop`, `resume` and `killall` typed in a worker's own clone while
/// workers run there over ssh (see `remote_scenarios`).
#[test]
fn over_ssh_stop_killall_and_resume_from_a_worker_clone_while_workers_run() {
    remote_scenarios::stop_killall_and_resume_from_a_worker_clone_while_workers_run(Host::Ssh);
}

#[test]
fn over_https_stop_killall_and_resume_from_a_worker_clone_while_workers_run() {
    remote_scenarios::stop_killall_and_resume_from_a_worker_clone_while_workers_run(Host::Https);
}

/// A program name libfaketime is told to fake the clock of: the workers
/// only, run through a link of that name. The agents' wrappers (the binary
/// under its own name) and git keep the machine's clock, as the files they
/// compare it with do.
const SKEWED: &str = "skewed-worker";

/// libfaketime, which runs a program called [`SKEWED`] on a clock `offset`
/// seconds away from the machine's (`+180`: three minutes fast).
fn skewed(offset: &str) -> Vec<(&'static str, String)> {
    let lib = ["x86_64-linux-gnu", "aarch64-linux-gnu"]
        .iter()
        .map(|a| format!("/usr/lib/{a}/faketime/libfaketime.so.1"))
        .find(|p| std::path::Path::new(p).exists())
        .expect("libfaketime (apt-get install faketime)");
    vec![
        ("LD_PRELOAD", lib),
        ("FAKETIME", offset.to_string()),
        ("FAKETIME_ONLY_CMDS", SKEWED.to_string()),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1".to_string()),
    ]
}

/// Workers whose clocks run three minutes slow and three minutes fast, and
/// one on time, share a run over ssh whose lease is ten seconds. Each
/// sprint's agent works longer than a lease: no claim lapses early (which
/// a lease judged by the writer's clock would: the slow worker's leases
/// look long expired to the others, and the fast one sees every other
/// lease as expired), so each sprint is claimed once and COMPLETED once.
#[test]
fn over_ssh_leases_hold_between_workers_whose_clocks_disagree() {
    let remote = OnRemote::on(
        Host::Ssh,
        "remote",
        Some("---\nfeature_name: Three Clocks\n---\n# Three Clocks\n\nThe units below are independent and run in parallel.\n\n## left\n\n### Sprint 1: Write the left part\n\n- Write `left-1.txt`\n\n## middle\n\n### Sprint 1: Write the middle part\n\n- Write `middle-1.txt`\n\n## right\n\n### Sprint 1: Write the right part\n\n- Write `right-1.txt`\n"),
    );
    patient(&remote);
    // Ten seconds, not the fixture's three: renewals late on a loaded
    // machine are not what this is about, and three minutes of skew still
    // dwarf it.
    let config = remote.src.path().join(".workflow/config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, text.replace("lease = \"3s\"", "lease = \"10s\"")).expect("config");
    git(remote.src.path(), &["commit", "-qam", "Ten-second leases"]);
    let s = scripts(&[("default.txt", &works_for(12))]);
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let link = s.path().join(SKEWED);
    std::os::unix::fs::symlink(crate::common::bin(), &link).expect("link");
    let workers: Vec<Child> = [("slow", "-180"), ("fast", "+180"), ("on-time", "+0")]
        .iter()
        .map(|(name, offset)| {
            let clone = remote.clone(name);
            let mut cmd = crate::common::command(&link.display().to_string(), &clone);
            cmd.args([
                "worker",
                "--format",
                "json",
                "--poll",
                "100ms",
                "--poll-max",
                "1s",
            ])
            .env("FAKE_AGENT_SCRIPT", s.path())
            .envs(skewed(offset))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
            cmd.spawn().expect("the worker starts")
        })
        .collect();
    let summaries: Vec<serde_json::Value> = workers
        .into_iter()
        .map(|w| summary(w, Duration::from_secs(120)))
        .collect();
    let subjects = remote.subjects();
    assert!(
        !subjects.iter().any(|l| l.ends_with("RUNNING -> BACKOFF")),
        "no lease lapsed: {subjects:#?}\n{summaries:#?}\n{}",
        remote.transition("RUNNING -> BACKOFF")
    );
    for u in ["left", "middle", "right"] {
        let claims = format!("{u}: sprint 1 DISPATCHED -> RUNNING");
        assert_eq!(
            subjects.iter().filter(|l| **l == claims).count(),
            1,
            "{subjects:#?}"
        );
    }
    for w in &summaries {
        assert_eq!(w["dropped"], serde_json::json!([]), "{w}");
    }
    remote.assert_each_completed_once(&["left", "middle", "right"], 1);
    remote.assert_fsck_clean();
}
