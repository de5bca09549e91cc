//! A run that lives on a git remote: `start --remote` and `worker` in
//! separate clones, through a real git server on 127.0.0.1 (`git daemon`
//! with pushes enabled), with real worker processes, real agents (the
//! fake-agent binary) and a real SIGKILL.

use std::path::Path;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::remote_scenarios;
use crate::common::run_env;
use crate::common::scripts;

fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let since = Instant::now();
    while !done() {
        assert!(since.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Four units on a remote, three workers in three clones: one is killed
/// (SIGKILL) while its agent works; its lease lapses, another worker takes
/// the sprint with its attempt kept, and the run completes with every
/// sprint COMPLETED exactly once in the remote's linear history, every
/// unit's work on the remote integration branch, and no agent left.
#[test]
fn a_killed_worker_s_sprint_is_taken_over_after_its_lease() {
    remote_scenarios::a_killed_worker_s_sprint_is_taken_over(Host::Daemon, &[]);
}

/// Eight workers at once on two sprints: each sprint is claimed exactly
/// once; the others' claims are refused by the remote and counted.
#[test]
fn racing_workers_claim_each_sprint_once() {
    remote_scenarios::racing_workers_claim_each_sprint_once(Host::Daemon, 8, &[]);
}

/// `stop`, `killall` and `resume` typed in a worker's clone while workers
/// run: each time the workers leave, and the run completes at last.
#[test]
fn stop_killall_and_resume_from_a_worker_clone_while_workers_run() {
    remote_scenarios::stop_killall_and_resume_from_a_worker_clone_while_workers_run(Host::Daemon);
}

/// A layered plan with a phase build on a remote: one worker claims each
/// build with the build lease and runs it on the integrated tip; the
/// checkpoint is in the remote's state.
#[test]
fn a_phase_build_on_a_remote_runs_once_on_the_integrated_tip() {
    remote_scenarios::a_phase_build_runs_once_on_the_integrated_tip(Host::Daemon);
}

/// A remote that does not exist is refused before anything is recorded,
/// with a hint; a worker is refused the same way.
#[test]
fn an_unknown_remote_is_refused_and_records_nothing() {
    let remote = OnRemote::new(None);
    let out = crate::common::run(
        remote.src.path(),
        &["start", "--yes", "--remote", "nowhere"],
    );
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("no git remote named `nowhere`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("git remote add nowhere") && out.stderr.contains("remotes: origin"),
        "{}",
        out.stderr
    );
    assert_eq!(
        git(remote.src.path(), &["for-each-ref", "refs/supervisor/"]),
        "",
        "no run recorded"
    );
    // A remote that is configured but unreachable: the same, no run.
    git(
        remote.src.path(),
        &["remote", "add", "gone", "git://127.0.0.1:1/none.git"],
    );
    let out = crate::common::run(remote.src.path(), &["start", "--yes", "--remote", "gone"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("cannot reach the run on remote `gone`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        git(remote.src.path(), &["for-each-ref", "refs/supervisor/"]),
        ""
    );
    assert!(!remote.src.path().join(".git/supervisor/remote").exists());
    let clone = remote.clone("w");
    let out = crate::common::run(&clone, &["worker", "--remote", "nowhere"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("no git remote named `nowhere`"),
        "{}",
        out.stderr
    );
    // A worker for one round on a remote with no run leaves at once.
    let out = crate::common::run(&clone, &["worker", "--once"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("0 claims won") && out.stdout.contains("there is no run on the remote"),
        "{}",
        out.stdout
    );
}

/// A worker cut off from the remote (frozen with SIGSTOP past its lease)
/// loses its claim: another worker takes the sprint; when the first comes
/// back, its renewal is refused, it stops its agent and records nothing;
/// the sprint is COMPLETED once, by the other.
#[test]
fn a_worker_whose_lease_was_taken_stops_its_agent_and_records_nothing() {
    let remote = OnRemote::new(None);
    let s = scripts(&[
        (
            "default.txt",
            "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
        ),
        ("alpha-1.txt", ALPHA_STAYS_THEN_FINISHES),
    ]);
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let mut workers: Vec<Child> = ["one", "two"]
        .iter()
        .map(|name| worker(&remote.clone(name), s.path(), &["--poll", "100ms"]))
        .collect();
    wait_until(Duration::from_secs(60), "alpha's first agent", || {
        s.path().join("alpha.slept").exists()
    });
    let holder = holder_of_alpha(&remote) as i32;
    // SAFETY: signalling a child process of this test by its pid.
    unsafe { libc::kill(holder, libc::SIGSTOP) };
    holder_stopped(s.path());
    wait_until(Duration::from_secs(60), "the sprint taken over", || {
        remote
            .subjects()
            .iter()
            .any(|l| l == "alpha: sprint 1 RUNNING -> COMPLETED")
    });
    // SAFETY: as above.
    unsafe { libc::kill(holder, libc::SIGCONT) };
    let k = workers
        .iter()
        .position(|w| w.id() == holder as u32)
        .expect("one of our workers held alpha");
    let cut_off = summary(workers.remove(k), Duration::from_secs(120));
    let other = summary(workers.remove(0), Duration::from_secs(120));
    // On a loaded machine the frozen worker may have claimed a second
    // sprint before the stop; it loses that one too. It records no
    // verdict for a dropped sprint, and each is completed once (below).
    assert!(
        cut_off["dropped"]
            .as_array()
            .is_some_and(|d| d.iter().any(|x| x == "alpha/1")),
        "{cut_off}"
    );
    for d in cut_off["dropped"].as_array().into_iter().flatten() {
        let d = d.as_str().unwrap_or_default();
        assert!(
            !cut_off["verdicts"].as_array().is_some_and(|v| v
                .iter()
                .any(|x| x.as_str().is_some_and(|x| x.starts_with(d)))),
            "{cut_off}"
        );
    }
    assert!(
        other["verdicts"]
            .as_array()
            .is_some_and(|v| v.iter().any(|x| x == "alpha/1: COMPLETED")),
        "{other}"
    );
    let subjects = remote.subjects();
    for u in ["alpha", "beta", "gamma", "delta"] {
        for n in 1..=2 {
            let done = format!("{u}: sprint {n} RUNNING -> COMPLETED");
            assert_eq!(
                subjects.iter().filter(|l| **l == done).count(),
                1,
                "{done} exactly once: {subjects:#?}"
            );
        }
    }
    let needle = format!("FAKE_AGENT_SCRIPT={}", s.path().display());
    wait_until(Duration::from_secs(15), "no agent left", || {
        processes_with(&needle).is_empty()
    });
}

/// A worker that claims a sprint and then cannot start its agent (here its
/// worktrees' directory cannot be made) gives the claim back at once as a
/// failed attempt, lease removed, without waiting for the lease to lapse;
/// a healthy worker then does the sprint.
#[test]
fn a_claim_whose_agent_cannot_start_is_given_back_as_a_failed_attempt() {
    let remote = OnRemote::new(Some(
        "---\nfeature_name: Two Sprints\n---\n# Two Sprints\n\n## left\n\n### Sprint 1: Write the left part\n\n- Write `left-1.txt`\n\n## right\n\n### Sprint 1: Write the right part\n\n- Write `right-1.txt`\n",
    ));
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
    )]);
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let broken = remote.clone("broken");
    // Where its worktrees would go is a file.
    let beside = broken.with_file_name("broken.supervisor");
    std::fs::write(&beside, "not a directory\n").expect("blocker");
    let out = worker(&broken, s.path(), &["--once", "--poll", "100ms"])
        .wait_with_output()
        .expect("the broken worker leaves");
    assert!(
        !out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let subjects = remote.subjects();
    let given_back = subjects
        .iter()
        .find(|l| l.ends_with(": sprint 1 RUNNING -> BACKOFF"))
        .unwrap_or_else(|| panic!("{subjects:#?}"))
        .clone();
    let failed = git(
        &remote.bare(),
        &[
            "log",
            "-1",
            "--format=%B",
            &format!("--grep={given_back}"),
            "refs/supervisor/state",
        ],
    );
    assert!(
        failed.contains("could not start the sprint's agent") && failed.contains("Attempt 1/"),
        "{failed}"
    );
    let leases = git(
        &remote.bare(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/supervisor/leases/",
        ],
    );
    assert!(leases.trim().is_empty(), "{leases}");
    let healthy = summary(
        worker(&remote.clone("healthy"), s.path(), &["--poll", "100ms"]),
        Duration::from_secs(90),
    );
    assert_eq!(healthy["finished"], true, "{healthy}");
    let subjects = remote.subjects();
    for u in ["left", "right"] {
        let done = format!("{u}: sprint 1 RUNNING -> COMPLETED");
        assert!(subjects.contains(&done), "{subjects:#?}");
    }
}

/// `stop` on a run whose dispatched sprints no worker has claimed stops
/// their units at once (STOPPED, attempts kept), without waiting for the
/// stop timeout; after `resume` a worker does the whole run.
#[test]
fn stop_ends_unclaimed_sprints_at_once_and_resume_continues() {
    let remote = OnRemote::new(None);
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &env,
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let since = Instant::now();
    let out = run_env(remote.src.path(), &["stop", "--timeout", "120s"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        since.elapsed() < Duration::from_secs(60),
        "stop waited for its timeout: {:?}",
        since.elapsed()
    );
    let subjects = remote.subjects();
    for u in ["alpha", "beta", "gamma", "delta"] {
        assert!(
            subjects.contains(&format!("{u}: STOPPING -> STOPPED")),
            "{subjects:#?}"
        );
    }
    assert!(
        !subjects.iter().any(|l| l.ends_with("-> KILLED")),
        "{subjects:#?}"
    );
    assert!(
        out.stderr.contains("no agent was at work"),
        "{}",
        out.stderr
    );
    // A worker finds the run stopped, and says so.
    let early = summary(
        worker(
            &remote.clone("early"),
            s.path(),
            &["--once", "--poll", "100ms"],
        ),
        Duration::from_secs(60),
    );
    assert_eq!(early["overall"], "stopped", "{early}");
    assert_eq!(early["claimed"], serde_json::json!([]), "{early}");
    let out = run_env(remote.src.path(), &["resume"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let done = summary(
        worker(
            &remote.clone("one"),
            s.path(),
            &["--agents", "4", "--poll", "100ms"],
        ),
        Duration::from_secs(120),
    );
    assert_eq!(done["finished"], true, "{done}");
    let subjects = remote.subjects();
    for u in ["alpha", "beta", "gamma", "delta"] {
        let first = format!("{u}: sprint 1 RUNNING -> COMPLETED");
        assert_eq!(
            subjects.iter().filter(|l| **l == first).count(),
            1,
            "{subjects:#?}"
        );
    }
}

/// Two units edit the same line on a remote: the second's verified work
/// conflicts with the integration branch, so its attempt fails; its retry,
/// in a fresh worktree, starts with the remote's integration branch merged
/// in and the conflict in its prompt, resolves it, and both changes reach
/// the remote's integration branch.
#[test]
fn a_conflict_on_a_remote_is_carried_into_the_retry() {
    let remote = OnRemote::of("workspace", None);
    let saved = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[
        (
            "french-1-1.txt",
            "write greeting.txt bonjour\ncommit-all french: greet\nresult complete\n",
        ),
        (
            "german-1-1.txt",
            "write greeting.txt hallo\nsleep 1500\ncommit-all german: greet\nresult complete\n",
        ),
        (
            "german-1-2.txt",
            "save-prompt ${SAVED}/retry.md\nwrite greeting.txt bonjour hallo\ncommit-all german: resolve\nresult complete\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path()), ("SAVED", saved.path())];
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &env,
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let done = summary(
        worker_with(
            &remote.clone("one"),
            &env,
            &["--agents", "2", "--poll", "100ms"],
        ),
        Duration::from_secs(120),
    );
    assert_eq!(done["finished"], true, "{done}");
    let subjects = remote.subjects();
    assert!(
        subjects.contains(&"german: sprint 1 RUNNING -> BACKOFF".to_string())
            && subjects.contains(&"german: sprint 1 RUNNING -> COMPLETED".to_string())
            && subjects.contains(&"french: sprint 1 RUNNING -> COMPLETED".to_string()),
        "{subjects:#?}"
    );
    let prompt = std::fs::read_to_string(saved.path().join("retry.md")).expect("retry prompt");
    // Written after the claim, the prompt still speaks of the failed attempt.
    assert!(
        prompt.contains("RETRY:\nSprint 1 failed on attempt 1."),
        "{prompt}"
    );
    assert!(prompt.contains("Conflicting files"), "{prompt}");
    assert!(prompt.contains("- greeting.txt"), "{prompt}");
    assert!(prompt.contains("french: greet"), "{prompt}");
    let branch = git(
        &remote.bare(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/",
        ],
    )
    .lines()
    .find(|l| l.ends_with("/integration"))
    .expect("an integration branch on the remote")
    .to_string();
    assert_eq!(
        git(&remote.bare(), &["show", &format!("{branch}:greeting.txt")]),
        "bonjour hallo\n"
    );
}

/// A PARTIAL sprint's continuation on a remote gets the continuation
/// prompt, though the worker writes it after its claim.
#[test]
fn a_continuation_on_a_remote_is_asked_to_finish_what_remains() {
    let remote = OnRemote::new(Some(
        "---\nfeature_name: Two Sprints\n---\n# Two Sprints\n\n## left\n\n### Sprint 1: Write the left part\n\n- Write `left-1.txt`\n\n## right\n\n### Sprint 1: Write the right part\n\n- Write `right-1.txt`\n",
    ));
    let saved = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[
        (
            "default.txt",
            "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
        ),
        (
            // The first dispatch does half and says so; the continuation
            // does the rest.
            "left-1-1.txt",
            "?${SAVED}/half save-prompt ${SAVED}/continuation.md\n?${SAVED}/half write left-1.txt done\n?${SAVED}/half commit-all left: the rest\n?${SAVED}/half result complete\n?${SAVED}/half exit 0\nwrite ${SAVED}/half yes\nwrite left-draft.txt half\ncommit-all left: half of it\nresult partial\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path()), ("SAVED", saved.path())];
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &env,
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let done = summary(
        worker_with(&remote.clone("one"), &env, &["--poll", "100ms"]),
        Duration::from_secs(120),
    );
    assert_eq!(done["finished"], true, "{done}");
    let subjects = remote.subjects();
    assert!(
        subjects.contains(&"left: sprint 1 RUNNING -> PARTIAL".to_string())
            && subjects.contains(&"left: sprint 1 RUNNING -> COMPLETED".to_string()),
        "{subjects:#?}"
    );
    let prompt =
        std::fs::read_to_string(saved.path().join("continuation.md")).expect("continuation prompt");
    assert!(
        prompt.contains("CONTINUATION:") && !prompt.contains("RETRY:"),
        "{prompt}"
    );
}

/// A commit in a clone whose run lives on a remote is not the run's: its
/// hook does not tick (which would fetch over the network on every commit).
/// The remote moved on meanwhile, and only `status` fetches it.
#[test]
fn a_commit_in_a_clone_whose_run_lives_on_a_remote_does_not_tick() {
    let remote = OnRemote::new(None);
    let s = scripts(&[("default.txt", "sleep 60000\n")]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let a = remote.src.path();
    let out = run_env(a, &["hooks", "install"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let out = run_env(a, &["start", "--yes", "--remote", "origin"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    // Another machine's transition reaches the remote.
    let bare = remote.bare();
    let tip = git(&bare, &["rev-parse", "refs/supervisor/state"]);
    let tree = git(&bare, &["rev-parse", "refs/supervisor/state^{tree}"]);
    let other =
        crate::common::transition_elsewhere(&bare, &tree, &tip, "run: a transition made elsewhere");
    let tracking = "refs/remotes/origin/supervisor/state";
    assert_eq!(git(a, &["rev-parse", tracking]), tip);
    std::fs::write(a.join("notes.txt"), "mine\n").expect("file");
    git(a, &["add", "notes.txt"]);
    git(a, &["commit", "-qm", "a commit of the user's own"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        git(a, &["rev-parse", tracking]),
        tip,
        "the commit's hook fetched"
    );
    let _ = run_env(a, &["status"], &env);
    assert_eq!(git(a, &["rev-parse", tracking]).trim(), other.trim());
}

/// Workers run the agent program from their own clones: an agent script
/// that lives only in this working tree is refused at `start --remote`,
/// before anything is recorded, with the commit to make.
#[test]
fn an_uncommitted_agent_script_is_refused_for_a_run_on_a_remote() {
    let remote = OnRemote::new(None);
    let dir = remote.src.path();
    crate::common::agent_script(dir, "#!/bin/sh\nexit 0\n");
    let out = crate::common::run(dir, &["start", "--yes", "--remote", "origin"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("`.workflow/agent.sh` is not committed")
            && out.stderr.contains("git add .workflow/agent.sh"),
        "{}",
        out.stderr
    );
    assert!(git(dir, &["for-each-ref", "refs/supervisor/"]).is_empty());
}

/// Someone moves the remote's refs/supervisor/state back to an older
/// commit: a worker and `sync` that saw the newer tip stop and name both
/// tips, changing nothing (a second `sync` finds it again instead of
/// pushing over it); `--accept-rewind` takes the remote's state and keeps
/// the dropped history under refs/supervisor/archive/.
#[test]
fn a_rewound_state_stops_workers_and_sync_until_accepted() {
    let remote = OnRemote::new(None);
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(
        remote.src.path(),
        &["start", "--yes", "--remote", "origin"],
        &env,
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let machine = remote.clone("one");
    let done = summary(
        worker(&machine, s.path(), &["--agents", "4", "--poll", "100ms"]),
        Duration::from_secs(120),
    );
    assert_eq!(done["finished"], true, "{done}");
    let watcher = remote.clone("watcher");
    let out = run_env(&watcher, &["sync", "origin"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let state = |dir: &Path| {
        git(dir, &["rev-parse", "refs/supervisor/state"])
            .trim()
            .to_string()
    };
    let tip = state(&remote.bare());
    assert_eq!(state(&watcher), tip);
    let older = git(&remote.bare(), &["rev-parse", "refs/supervisor/state~6"])
        .trim()
        .to_string();
    git(
        &remote.bare(),
        &["update-ref", "refs/supervisor/state", &older],
    );

    let out = run_env(&machine, &["worker", "--once", "--poll", "100ms"], &env);
    assert_ne!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    for said in ["moved back", &tip[..12], &older[..12], "--accept-rewind"] {
        assert!(out.stderr.contains(said), "{said}: {}", out.stderr);
    }
    assert_eq!(state(&machine), tip, "the worker's clone keeps what it saw");
    for _ in 0..2 {
        let out = run_env(&watcher, &["sync", "origin"], &env);
        assert_ne!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("sync --accept-rewind"),
            "{}",
            out.stderr
        );
        assert_eq!(state(&watcher), tip);
        assert_eq!(state(&remote.bare()), older, "nothing was pushed over it");
    }

    let out = run_env(&watcher, &["sync", "origin", "--accept-rewind"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(state(&watcher), older);
    assert_eq!(state(&remote.bare()), older);
    let kept = format!("refs/supervisor/archive/rewound-{tip}");
    assert_eq!(git(&watcher, &["rev-parse", &kept]).trim(), tip);
    assert_eq!(git(&remote.bare(), &["rev-parse", &kept]).trim(), tip);

    let again = summary(
        worker(
            &machine,
            s.path(),
            &["--accept-rewind", "--agents", "4", "--poll", "100ms"],
        ),
        Duration::from_secs(120),
    );
    assert_eq!(again["finished"], true, "{again}");
    assert_eq!(git(&machine, &["rev-parse", &kept]).trim(), tip);
}
