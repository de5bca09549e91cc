//! What a worker meets when it runs for long: the processes it starts are
//! reaped, a remote it can never use fails at once, its messages say what
//! they mean, its clone keeps no worktree of a finished unit, and work
//! already on a unit's branch counts; its rounds fetch only its run's refs,
//! and `status` names it while only its lease holds a sprint. Real `git
//! daemon` on 127.0.0.1, real worker processes and the fake-agent binary.

use std::path::Path;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::scripts;
use crate::common::wait_until;

/// One worker through six sprints of one unit: while the last agent works,
/// none of the five finished agents' processes is left a zombie child of
/// the worker.
#[test]
fn a_worker_leaves_no_zombie_behind_its_sprints() {
    let remote = OnRemote::with_plan(&plan(&["solo"], 6));
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        (
            "Long Haul-6.txt",
            "write ${FAKE_AGENT_SCRIPT}/last.started yes\nsleep 120000\n",
        ),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let mut w = text_worker(&clone, s.path(), &["--poll", "100ms"]);
    let pid = w.id();
    let since = Instant::now();
    while !s.path().join("last.started").exists() {
        if since.elapsed() > Duration::from_secs(90) || w.try_wait().expect("wait").is_some() {
            let _ = w.kill();
            let out = w.wait_with_output().expect("output");
            panic!(
                "no last sprint: {}\n{}\n{:#?}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                remote.subjects()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // A few rounds for the worker to notice the last wrappers gone.
    std::thread::sleep(Duration::from_millis(1500));
    let children = children_of(pid);
    let zombies: Vec<_> = children.iter().filter(|(_, st)| *st == 'Z').collect();
    let _ = w.kill();
    let _ = w.wait();
    assert!(
        zombies.is_empty(),
        "zombie children of the worker: {zombies:?} (all children: {children:?})"
    );
    // Five sprints went through this worker.
    let done = remote
        .subjects()
        .iter()
        .filter(|l| l.ends_with("RUNNING -> COMPLETED") && l.contains("sprint"))
        .count();
    assert_eq!(done, 5, "{:#?}", remote.subjects());
}
/// A remote that can never serve the run (no such repository on the git
/// server, a path that is no repository) fails a worker at once, with and
/// without `--once`, naming the remote and the fix; `start --remote` says
/// the same. Nothing is retried.
#[test]
fn a_remote_that_cannot_hold_the_run_fails_at_once() {
    let remote = OnRemote::with_plan(&plan(&["left", "right"], 1));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    let clone = remote.clone("one");
    let nowhere = remote.server.path().join("nowhere.git");
    git(
        &clone,
        &[
            "remote",
            "add",
            "missing",
            &remote.daemon().url("missing.git"),
        ],
    );
    git(
        &clone,
        &["remote", "add", "nowhere", &nowhere.display().to_string()],
    );
    for name in ["missing", "nowhere"] {
        for extra in [&["--once"][..], &[]] {
            let since = Instant::now();
            let mut args = vec!["--remote", name, "--poll", "100ms"];
            args.extend_from_slice(extra);
            let (code, stdout, stderr) = leave(
                text_worker(&clone, s.path(), &args),
                Duration::from_secs(20),
            );
            assert_eq!(code, 1, "{name} {extra:?}: {stdout}\n{stderr}");
            assert!(
                since.elapsed() < Duration::from_secs(5),
                "{name} {extra:?} failed at once, not after {:?}: {stdout}",
                since.elapsed()
            );
            assert!(
                !stdout.contains("trying again") && stdout.lines().count() <= 2,
                "{name} {extra:?}: {stdout}"
            );
            assert!(
                stderr.contains(&format!("remote `{name}` cannot hold the run"))
                    && stderr.contains(&format!("git remote set-url {name}")),
                "{name} {extra:?}: {stderr}"
            );
        }
        let out = crate::common::run(remote.src.path(), &["start", "--yes", "--remote", name]);
        // The starting clone has no such remote yet.
        assert_eq!(out.status, 1, "{}", out.stdout);
    }
    git(
        remote.src.path(),
        &[
            "remote",
            "add",
            "missing",
            &remote.daemon().url("missing.git"),
        ],
    );
    let out = crate::common::run(
        remote.src.path(),
        &["start", "--yes", "--remote", "missing"],
    );
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("remote `missing` cannot hold the run")
            && out.stderr.contains("git remote set-url missing"),
        "{}",
        out.stderr
    );
    assert_eq!(
        git(remote.src.path(), &["for-each-ref", "refs/supervisor/"]),
        "",
        "no run recorded"
    );
}
/// The git server is out of reach for a few seconds as a worker starts: it
/// says so once, with how long it will try, and once that the remote is
/// back, with the count; then it does the work.
#[test]
fn an_outage_is_one_line_with_its_limit_and_one_when_it_ends() {
    let remote = OnRemote::with_plan_and_config(
        &plan(&["left", "right"], 1),
        &[("lease = \"3s\"", "lease = \"3s\"\noffline_grace = \"30s\"")],
    );
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    remote.start(s.path());
    let clone = remote.clone("one");
    // Down, as the worker sees it: its remote points at a port nothing
    // listens on, until it is pointed back.
    git(
        &clone,
        &["remote", "set-url", "origin", "git://127.0.0.1:1/plan.git"],
    );
    let mut w = text_worker(&clone, s.path(), &["--once", "--poll", "100ms"]);
    let (seen, reader) = lines_of(&mut w);
    wait_until("the worker to meet the outage", 30, || {
        seen.lock().expect("lock").contains("cannot reach")
    });
    std::thread::sleep(Duration::from_secs(3));
    git(&clone, &["remote", "set-url", "origin", &remote.url]);
    let (code, _, stderr) = leave(w, Duration::from_secs(60));
    reader.join().expect("reader");
    let stdout = seen.lock().expect("lock").clone();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let down: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("cannot reach"))
        .collect();
    assert_eq!(down.len(), 1, "one line for the outage: {stdout}");
    assert!(
        down[0].contains(
            "trying again every 1s, backing off to every 3s, for up to 30s (`[run] offline_grace`) before this worker leaves"
        ),
        "{stdout}"
    );
    let back: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("remote `origin` answers again, after"))
        .collect();
    assert_eq!(back.len(), 1, "{stdout}");
    assert!(back[0].contains("failed tries"), "{stdout}");
    assert!(stdout.contains("2 claims won"), "{stdout}");
}

/// A worker frozen past its lease loses its claim and says why; the worker
/// that takes the sprint over says what its second dispatch is; counts of
/// one are singular.
#[test]
fn a_lost_claim_says_why_and_a_second_dispatch_says_what_it_is() {
    let remote = OnRemote::with_plan(&plan(&["alpha", "beta"], 1));
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("alpha-1.txt", ALPHA_STAYS_THEN_FINISHES),
    ]);
    remote.start(s.path());
    let mut workers: Vec<Child> = ["one", "two"]
        .iter()
        .map(|name| text_worker(&remote.clone(name), s.path(), &["--poll", "100ms"]))
        .collect();
    wait_until("alpha's first agent", 60, || {
        s.path().join("alpha.slept").exists()
    });
    let holder = holder_of_alpha(&remote);
    // SAFETY: signalling a child process of this test by its pid.
    unsafe { libc::kill(holder as i32, libc::SIGSTOP) };
    holder_stopped(s.path());
    wait_until("the sprint taken over", 60, || {
        remote
            .subjects()
            .iter()
            .any(|l| l == "alpha: sprint 1 RUNNING -> COMPLETED")
    });
    // SAFETY: as above.
    unsafe { libc::kill(holder as i32, libc::SIGCONT) };
    let k = workers
        .iter()
        .position(|w| w.id() == holder)
        .expect("one of our workers held alpha");
    let (code, cut_off, err) = leave(workers.remove(k), Duration::from_secs(60));
    assert_eq!(code, 0, "{cut_off}\n{err}");
    let (code, other, err) = leave(workers.remove(0), Duration::from_secs(60));
    assert_eq!(code, 0, "{other}\n{err}");
    assert!(
        cut_off.contains(
            "alpha sprint 1: the claim was lost (its lease lapsed before this worker renewed it"
        ),
        "{cut_off}"
    );
    assert!(
        other.contains(
            "claimed alpha sprint 1 (dispatch 2: the sprint goes to an agent for the 2nd time"
        ),
        "{other}"
    );
    for out in [&cut_off, &other] {
        assert!(
            !out.contains(" 1 claims")
                && !out.contains(" 1 pushes")
                && !out.starts_with("1 claims"),
            "{out}"
        );
        assert!(!out.contains("(dispatch 1"), "{out}");
    }
}

/// The remote's state ref deleted under a working worker: it stops and
/// says the run is gone, that starting again would redo the work, and how
/// to put it back; it does not wait for a new run.
#[test]
fn a_run_deleted_from_the_remote_is_named_as_such() {
    let Working {
        remote,
        worker: w,
        scripts: _s,
        ..
    } = working(
        &plan(&["alpha"], 2),
        &[],
        "write ${FAKE_AGENT_SCRIPT}/alpha.slept yes\nsleep 120000\n",
        "alpha.slept",
    );
    let last = git(&remote.bare(), &["rev-parse", "refs/supervisor/state"]);
    git(
        &remote.bare(),
        &["update-ref", "-d", "refs/supervisor/state"],
    );
    let (code, stdout, stderr) = leave(w, Duration::from_secs(30));
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("is gone from remote `origin`")
            && stderr.contains("would redo all of its work"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "`git push origin {}:refs/supervisor/state`",
            last.trim()
        )),
        "{stderr}"
    );
    assert!(!stdout.contains("waiting for one"), "{stdout}");
}

/// The worktrees `git worktree list` shows in `clone`, besides the clone.
fn worktrees(clone: &Path) -> Vec<String> {
    let me = clone.canonicalize().expect("clone");
    git(clone, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .filter(|p| Path::new(p).canonicalize().ok().as_deref() != Some(me.as_path()))
        .map(str::to_string)
        .collect()
}

/// A worker clone holds a worktree only for the unit its agent works on:
/// a finished unit's and a finished claim's worktrees go, and none is left
/// when the run is completed.
#[test]
fn a_worker_clone_keeps_only_the_worktree_its_agent_works_in() {
    let mut text = plan(&["quick"], 1);
    let slow = plan(&["slow"], 2);
    text.push_str(slow.split_once("# Long Haul\n").expect("title").1);
    let remote = OnRemote::with_plan(&text);
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        (
            "slow-2.txt",
            "write ${FAKE_AGENT_SCRIPT}/slow.started yes\nprint working\nsleep 700\nprint working\nsleep 700\nprint working\nsleep 700\nprint working\nwrite slow-2.txt done\ncommit-all slow: sprint 2\nresult complete\n",
        ),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let w = text_worker(&clone, s.path(), &["--poll", "100ms"]);
    wait_until("slow's second sprint", 60, || {
        s.path().join("slow.started").exists()
    });
    let during = worktrees(&clone);
    let (code, stdout, stderr) = leave(w, Duration::from_secs(60));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("the run is completed"), "{stdout}");
    assert_eq!(during.len(), 1, "only slow's worktree: {during:?}");
    assert!(during[0].contains("/slow-"), "{during:?}");
    let after = worktrees(&clone);
    assert!(after.is_empty(), "no worktree left: {after:?}");
}

/// An agent commits alpha's first sprint marked complete, then goes silent
/// and is ended: its failed attempt puts the commit on the remote's unit
/// branch. The next tick counts that work (the exit criteria are read, not
/// run) instead of sending the sprint to an agent again, merges it, and
/// the run goes on.
#[test]
fn work_already_on_a_unit_branch_completes_its_sprint_without_an_agent() {
    let remote = OnRemote::with_plan(&plan(&["alpha", "beta"], 2));
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        (
            "alpha-1-1.txt",
            "write alpha-1.txt done\ntrailer Supervisor-Status: complete\ncommit-all alpha: sprint 1\nhang\n",
        ),
        // Another agent on it finds nothing to do.
        ("alpha-1-2.txt", "exit 3\n"),
        ("alpha-1-3.txt", "exit 3\n"),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let (code, stdout, stderr) = leave(
        text_worker(&clone, s.path(), &["--poll", "100ms"]),
        Duration::from_secs(90),
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("the run is completed"), "{stdout}");
    let subjects = remote.subjects();
    let claims = subjects
        .iter()
        .filter(|l| *l == "alpha: sprint 1 DISPATCHED -> RUNNING")
        .count();
    assert_eq!(
        claims, 1,
        "one agent for alpha's first sprint: {subjects:#?}"
    );
    assert!(
        subjects
            .iter()
            .any(|l| l == "alpha: sprint 1 BACKOFF -> COMPLETED"),
        "{subjects:#?}"
    );
    let why = git(
        &remote.bare(),
        &[
            "log",
            "-1",
            "--format=%B",
            "--grep=alpha: sprint 1 BACKOFF -> COMPLETED",
            "refs/supervisor/state",
        ],
    );
    assert!(why.contains("on the remote's `"), "{why}");
    let refs = git(&remote.bare(), &["for-each-ref", "--format=%(refname)"]);
    let integration = refs
        .lines()
        .find(|r| r.ends_with("/integration"))
        .expect("an integration branch");
    let files = git(&remote.bare(), &["ls-tree", "--name-only", integration]);
    for f in ["alpha-1.txt", "alpha-2.txt", "beta-1.txt", "beta-2.txt"] {
        assert!(files.lines().any(|l| l == f), "{f} merged: {files}");
    }
}

/// A server that declines the run's pushes (a pre-receive hook, as hosting
/// services protect refs) fails `start --remote` at once with the hook's
/// word, not as a race lost again and again; nothing is recorded.
#[test]
fn a_push_the_server_declines_is_not_taken_for_a_lost_race() {
    let remote = OnRemote::with_plan(&plan(&["left", "right"], 1));
    let hook = remote.bare().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'refs/supervisor/* are protected here' >&2\nexit 1\n",
    )
    .expect("hook");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let since = Instant::now();
    let out = crate::common::run(remote.src.path(), &["start", "--yes", "--remote", "origin"]);
    assert_eq!(out.status, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(since.elapsed() < Duration::from_secs(10), "at once");
    assert!(
        out.stderr.contains("remote `origin` cannot hold the run")
            && out.stderr.contains("pre-receive hook declined")
            && out.stderr.contains("are protected here"),
        "{}",
        out.stderr
    );
    assert_eq!(
        git(&remote.bare(), &["for-each-ref", "refs/supervisor/"]),
        "",
        "nothing recorded on the remote"
    );
    assert_eq!(
        git(remote.src.path(), &["for-each-ref", "refs/supervisor/"]),
        "",
        "nor here"
    );
}

/// A worker's agent that works longer than `kill_grace` (2 s here) is left
/// to finish: its wrapper, in the unit's worktree, finds its own dispatch
/// in the run (the worktree's view of the clone's runtime directory names
/// the same files), so the sprint is COMPLETED on its first attempt.
#[test]
fn a_worker_s_agent_may_work_longer_than_the_kill_grace() {
    let remote = OnRemote::with_plan(&plan(&["steady"], 1));
    let busy = "print working\nsleep 700\n".repeat(8);
    let s = scripts(&[(
        "default.txt",
        &format!("{busy}write steady-1.txt done\ncommit-all steady: sprint 1\nresult complete\n"),
    )]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let w = worker(&clone, s.path(), &["--once", "--poll", "100ms"]);
    let (code, stdout, stderr) = leave(w, Duration::from_secs(90));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let subjects = remote.subjects();
    assert!(
        subjects
            .iter()
            .any(|l| l.ends_with(": sprint 1 RUNNING -> COMPLETED"))
            && !subjects.iter().any(|l| l.contains("BACKOFF")),
        "completed on its first attempt: {subjects:#?}"
    );
}

/// Once a worker knows the run, its rounds fetch only the state, the
/// leases and that run's branches: a finished run's branch that appears on
/// the remote meanwhile is never fetched, and the run completes.
#[test]
fn a_worker_s_rounds_fetch_only_its_run_s_refs() {
    let Working {
        remote,
        clone,
        worker: w,
        scripts: _s,
        ..
    } = working(
        &plan(&["alpha"], 3),
        &[],
        "write ${FAKE_AGENT_SCRIPT}/alpha.started yes\nsleep 800\nwrite alpha-1.txt done\ncommit-all alpha: sprint 1\nresult complete\n",
        "alpha.started",
    );
    let tip = git(&remote.bare(), &["rev-parse", "refs/supervisor/state"]);
    let tip = tip.trim();
    for old in [
        "refs/heads/supervisor/an-old-run/units/alpha",
        "refs/supervisor/runs/an-old-run",
    ] {
        git(&remote.bare(), &["update-ref", old, tip]);
    }
    let (code, stdout, stderr) = leave(w, Duration::from_secs(60));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("the run is completed"), "{stdout}");
    let tracked = git(
        &clone,
        &["for-each-ref", "--format=%(refname)", "refs/remotes/"],
    );
    assert!(!tracked.contains("an-old-run"), "{tracked}");
    assert!(tracked.contains("/supervisor/state\n"), "{tracked}");
}

/// A sprint a worker holds by its lease while the state still says
/// DISPATCHED: `status` names the worker that claimed it, in text and in
/// JSON, instead of leaving it looking unclaimed.
#[test]
fn status_names_the_worker_whose_lease_holds_a_dispatched_sprint() {
    // A two-minute lease: RUNNING is recorded on its own only after a
    // quarter of it, so the claim is the lease alone for 30 s.
    let Working {
        remote,
        worker: w,
        scripts: _s,
        ..
    } = working(
        &plan(&["alpha"], 1),
        &[("lease = \"3s\"", "lease = \"2m\"")],
        "write ${FAKE_AGENT_SCRIPT}/alpha.slept yes\nsleep 120000\n",
        "alpha.slept",
    );
    let out = crate::common::run(remote.src.path(), &["status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("status json");
    let text = crate::common::run(remote.src.path(), &["status"]).stdout;
    let (_, stdout, stderr) = leave(w, Duration::from_secs(30));
    let waiting = v["waiting"].to_string();
    assert!(
        waiting.contains("Long Haul sprint 1: claimed by worker "),
        "{waiting}\n{stdout}\n{stderr}"
    );
    assert!(text.contains("claimed by worker "), "{text}");
}

/// A remote run of `plan` (its config edited by `edits`), one clone and a
/// text worker in it whose first agent runs `first` (as `Long Haul-1`),
/// once that agent has written `${FAKE_AGENT_SCRIPT}/<flag>`.
struct Working {
    remote: OnRemote,
    /// The agent's scripts: bind it (`scripts: _s`) to keep them for the
    /// test's length.
    scripts: tempfile::TempDir,
    clone: std::path::PathBuf,
    worker: Child,
}

fn working(plan_text: &str, edits: &[(&str, &str)], first: &str, flag: &str) -> Working {
    let remote = OnRemote::with_plan_and_config(plan_text, edits);
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("Long Haul-1.txt", first),
    ]);
    remote.start(s.path());
    let clone = remote.clone("one");
    let worker = text_worker(&clone, s.path(), &["--poll", "100ms"]);
    wait_until("the first agent at work", 60, || {
        s.path().join(flag).exists()
    });
    Working {
        remote,
        scripts: s,
        clone,
        worker,
    }
}
