//! `sync` through a real git server: `git daemon` on 127.0.0.1 with pushes
//! enabled, two clones, real runs with fake agents.

use std::path::Path;

use crate::common::daemon::Daemon;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;

/// A repository that ran the two-unit worktree plan to the end, and a git
/// server holding a bare copy of it as its `origin`.
struct Served {
    repo: tempfile::TempDir,
    server: tempfile::TempDir,
    url: String,
    _daemon: Daemon,
}

impl Served {
    fn new() -> Served {
        let served = Served::serving();
        let s = scripts(&[(
            "default.txt",
            "write ${SUPERVISOR_UNIT}.txt ok\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
        )]);
        let a = served.repo.path();
        let out = run_env(
            a,
            &["start", "--yes", "--wait"],
            &[("FAKE_AGENT_SCRIPT", s.path())],
        );
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
        served
    }

    /// The two-unit worktree plan, served before any run.
    fn serving() -> Served {
        let repo = fixture_repo("workspace");
        let a = repo.path();
        let server = tempfile::tempdir().expect("tempdir");
        crate::common::bare_copy(a, server.path());
        let daemon = Daemon::start(server.path());
        let url = daemon.url("plan.git");
        git(a, &["remote", "add", "origin", &url]);
        Served {
            repo,
            server,
            url,
            _daemon: daemon,
        }
    }

    /// Another clone of the remote, with its own identity: (its parent
    /// directory, the clone).
    fn clone_b(&self) -> (tempfile::TempDir, std::path::PathBuf) {
        crate::common::clone_elsewhere(&self.url)
    }
}

fn remote_ref(url: &str, name: &str, cwd: &Path) -> String {
    git(cwd, &["ls-remote", url, name])
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// One clone runs a plan and pushes it; another takes it; both then note
/// something in the same run: the first to sync wins, the other's sync
/// refuses to overwrite it (the remote keeps the first one's transitions)
/// and says both sides moved on.
#[test]
fn sync_shares_a_run_and_never_overwrites_the_other_side() {
    let served = Served::new();
    let (a, url) = (served.repo.path(), served.url.clone());
    // A pushes its run: the state and the run's branches.
    let out = run(a, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Pushed refs/supervisor/state"),
        "{}",
        out.stdout
    );
    let a_state = git(a, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string();
    assert_eq!(remote_ref(&url, "refs/supervisor/state", a), a_state);
    let integration = git(
        a,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/*/integration",
        ],
    );
    let integration = integration.trim();
    assert!(!integration.is_empty());
    assert_eq!(
        remote_ref(&url, integration, a),
        git(a, &["rev-parse", integration]).trim()
    );
    // Again: nothing to do.
    let out = run(a, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("up to date"), "{}", out.stdout);

    // B, a clone elsewhere, takes the run and sees it.
    let (_elsewhere, b) = served.clone_b();
    let out = run(&b, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Took refs/supervisor/state"),
        "{}",
        out.stdout
    );
    let sa: serde_json::Value =
        serde_json::from_str(&run(a, &["status", "--format", "json"]).stdout).expect("json");
    let sb: serde_json::Value =
        serde_json::from_str(&run(&b, &["status", "--format", "json"]).stdout).expect("json");
    assert_eq!(sb["overall"], "completed", "{sb}");
    assert_eq!(sb["run_id"], sa["run_id"]);

    // Both note something in the run; A syncs first.
    assert_eq!(run(a, &["note", "from A"]).status, 0);
    assert_eq!(run(&b, &["note", "from B"]).status, 0);
    let out = run(a, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let a_state = git(a, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string();
    // B's note is decided again on the remote's state, on top of A's.
    let out = run(&b, &["sync", "origin", "--format", "json"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(report["relation"], "diverged", "{report}");
    assert_eq!(
        report["reapplied"],
        serde_json::json!(["notice"]),
        "{report}"
    );
    let remote_state = remote_ref(&url, "refs/supervisor/state", a);
    assert_eq!(
        git(&b, &["rev-parse", "refs/supervisor/state"]).trim(),
        remote_state
    );
    assert_eq!(
        git(&b, &["rev-parse", &format!("{remote_state}^")]).trim(),
        a_state,
        "A's transition is kept, B's goes on top of it"
    );
    let notes = git(&b, &["log", "--format=%B", "refs/supervisor/state"]);
    assert!(
        notes.contains("from A") && notes.contains("from B"),
        "{notes}"
    );
    let status = run(&b, &["status"]).stdout;
    assert!(status.contains("origin: up to date"), "{status}");
    // A takes it.
    let out = run(a, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        git(a, &["rev-parse", "refs/supervisor/state"]).trim(),
        remote_state
    );
}

/// The remote's state moved on by another machine's push while this clone
/// made a transition of its own: the sync decides ours again on top of the
/// other machine's, which survives. A transition that does not record its
/// event cannot be decided again: then both sides are left as they are.
#[test]
fn a_remote_that_moved_on_is_never_overwritten() {
    let served = Served::new();
    let a = served.repo.path();
    assert_eq!(run(a, &["sync"]).status, 0, "REMOTE defaults to origin");
    // The server's copy moves on by itself (another machine's push).
    let bare = served.server.path().join("plan.git");
    let pushed = git(&bare, &["rev-parse", "refs/supervisor/state"]);
    let tree = git(&bare, &["rev-parse", "refs/supervisor/state^{tree}"]);
    let other = crate::common::transition_elsewhere(
        &bare,
        &tree,
        &pushed,
        "run: a transition made elsewhere",
    );
    assert_eq!(run(a, &["note", "made here"]).status, 0);
    let out = run(a, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let now = git(&bare, &["rev-parse", "refs/supervisor/state"]);
    assert_eq!(
        git(&bare, &["rev-parse", &format!("{}^", now.trim())]).trim(),
        other.trim(),
        "the other machine's transition survives, ours on top of it"
    );
    assert_eq!(git(a, &["rev-parse", "refs/supervisor/state"]), now);

    // A transition that does not record its event (written by hand here)
    // cannot be decided again: nothing is overwritten on either side.
    let pushed = now.trim().to_string();
    let listing: String = git(a, &["ls-tree", tree.trim()])
        .lines()
        .filter(|l| !l.ends_with("\tevent.toml"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut mktree = std::process::Command::new("git")
        .arg("mktree")
        .current_dir(a)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git mktree");
    std::io::Write::write_all(&mut mktree.stdin.take().expect("stdin"), listing.as_bytes())
        .expect("listing");
    let tree = String::from_utf8(mktree.wait_with_output().expect("mktree").stdout).expect("utf-8");
    let elsewhere = crate::common::transition_elsewhere(
        &bare,
        &tree,
        &pushed,
        "run: another transition made elsewhere",
    );
    let here =
        crate::common::transition_elsewhere(a, &tree, &pushed, "run: a transition made by hand");
    let out = run(a, &["sync", "origin"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("do not record their events"),
        "{}",
        out.stderr
    );
    assert_eq!(
        git(&bare, &["rev-parse", "refs/supervisor/state"]).trim(),
        elsewhere.trim()
    );
    assert_eq!(
        git(a, &["rev-parse", "refs/supervisor/state"]).trim(),
        here.trim()
    );
}

/// Two clones both dispatched the same sprint and one also noted
/// something: the second to sync (a clone with no git identity) has its
/// note decided again on top of the first one's transitions, and its
/// dispatch, which no longer applies there (the sprint is taken), dropped
/// and named.
#[test]
fn an_event_that_no_longer_applies_on_the_remote_is_dropped_and_named() {
    use crate::common::seed;
    use git_supervisor::machine::EventKind;
    use git_supervisor::machine::Model;
    let repo = fixture_repo("workspace");
    let a = repo.path();
    seed::start(a);
    let server = tempfile::tempdir().expect("tempdir");
    let bare = server.path().join("plan.git");
    git(server.path(), &["init", "-q", "--bare", "plan.git"]);
    git(a, &["remote", "add", "origin", &bare.display().to_string()]);
    assert_eq!(run(a, &["sync"]).status, 0);
    git(
        server.path(),
        &["clone", "-q", &bare.display().to_string(), "b"],
    );
    let b = server.path().join("b");
    let out = run(&b, &["sync"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);

    seed::dispatch(&seed::store(a), "french", Model::Sonnet);
    let store_b = seed::store(&b);
    seed::dispatch(&store_b, "french", Model::Opus);
    seed::event(
        &store_b,
        EventKind::Notice {
            unit: None,
            sprint: None,
            text: "noted on B".into(),
        },
    );
    assert_eq!(run(a, &["sync"]).status, 0);
    let a_state = git(a, &["rev-parse", "refs/supervisor/state"]);
    let out = run(&b, &["sync", "--format", "json"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(
        report["reapplied"],
        serde_json::json!(["notice"]),
        "{report}"
    );
    // B's dispatch and its agent's start.
    let dropped: Vec<&str> = report["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    assert_eq!(dropped.len(), 2, "{report}");
    assert!(dropped[0].starts_with("dispatch: "), "{report}");
    assert!(dropped[1].starts_with("agent-started: "), "{report}");
    let tip = git(&bare, &["rev-parse", "refs/supervisor/state"]);
    assert_eq!(git(&b, &["rev-parse", "refs/supervisor/state"]), tip);
    assert_eq!(
        git(&bare, &["rev-parse", &format!("{}^", tip.trim())]),
        a_state,
        "the note went on top of A's dispatch"
    );
    let status: serde_json::Value =
        serde_json::from_str(&run(&b, &["status", "--format", "json"]).stdout).expect("json");
    let french = status["units"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["name"] == "french"))
        .expect("french");
    assert_eq!(
        french["current"]["model"], "sonnet",
        "A's dispatch: {french}"
    );
}

/// A clone that archives the shared (finished) run and starts a new one
/// pushes it over the archived one; the other clone, whose run the remote
/// now holds archived, takes the new run. Runs share no transition, so
/// neither sync may call that a divergence. Two new runs started apart are
/// still left alone, in one JSON document.
#[test]
fn a_new_run_replaces_the_one_archived_on_the_other_side() {
    let served = Served::new();
    let (a, url) = (served.repo.path(), served.url.clone());
    assert_eq!(run(a, &["sync", "origin"]).status, 0);
    let first = git(a, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string();
    let (_elsewhere, b) = served.clone_b();
    assert_eq!(run(&b, &["sync", "origin"]).status, 0);

    // A starts the plan again: its finished run is archived here.
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}-again.txt ok\ncommit-all ${SUPERVISOR_UNIT}: again\nresult complete\n",
    )]);
    let out = run_env(
        a,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let second = git(a, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string();
    let out = run(a, &["sync", "origin", "--format", "json"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON document");
    assert_eq!(report["relation"], "newer_run_here", "{report}");
    assert_eq!(report["ok"], true, "{report}");
    let pushed = report["pushed"].to_string();
    assert!(
        pushed.contains("\"refs/supervisor/state\"") && pushed.contains("refs/supervisor/runs/"),
        "{report}"
    );
    assert_eq!(remote_ref(&url, "refs/supervisor/state", a), second);
    let archived = git(
        a,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/supervisor/runs/",
        ],
    );
    let archived = archived.trim();
    assert_eq!(remote_ref(&url, archived, a), first);

    // B still has the first run: the remote holds it archived, whole.
    let status = run(&b, &["status"]).stdout;
    assert!(!status.contains("diverged"), "{status}");
    let out = run(&b, &["sync", "origin"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("a newer run on the remote"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Took refs/supervisor/state"),
        "{}",
        out.stdout
    );
    assert_eq!(
        git(&b, &["rev-parse", "refs/supervisor/state"]).trim(),
        second
    );
    assert_eq!(git(&b, &["rev-parse", archived]).trim(), first);
    let out = run(&b, &["sync", "origin"]);
    assert!(out.stdout.contains("up to date"), "{}", out.stdout);

    // Both start yet another run, each archiving the second: two new runs,
    // neither archived on the other side. Left alone, and said in one
    // JSON document.
    for (dir, name) in [(a, "a"), (b.as_path(), "b")] {
        let s = scripts(&[(
            "default.txt",
            &format!("write ${{SUPERVISOR_UNIT}}-{name}.txt ok\ncommit-all ${{SUPERVISOR_UNIT}}: {name}\nresult complete\n"),
        )]);
        let out = run_env(
            dir,
            &["start", "--yes", "--wait"],
            &[("FAKE_AGENT_SCRIPT", s.path())],
        );
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    }
    assert_eq!(run(a, &["sync", "origin"]).status, 0);
    let remote_before = remote_ref(&url, "refs/supervisor/state", a);
    let b_before = git(&b, &["rev-parse", "refs/supervisor/state"]);
    let out = run(&b, &["sync", "origin", "--format", "json"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON document");
    assert_eq!(report["ok"], false, "{report}");
    assert_eq!(report["error"]["code"], "sync::diverged", "{report}");
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert_eq!(remote_ref(&url, "refs/supervisor/state", a), remote_before);
    assert_eq!(git(&b, &["rev-parse", "refs/supervisor/state"]), b_before);
}

/// An unknown remote, or none at all: a clear error naming the clone's
/// remotes, and nothing written.
#[test]
fn sync_with_a_remote_that_does_not_exist_says_which_there_are() {
    let served = Served::new();
    let a = served.repo.path();
    let state = git(a, &["rev-parse", "refs/supervisor/state"]);
    let out = run(a, &["sync", "nosuch"]);
    assert_ne!(out.status, 0);
    assert!(
        out.stderr.contains("no git remote named `nosuch`") && out.stderr.contains("origin"),
        "{}",
        out.stderr
    );
    git(a, &["remote", "remove", "origin"]);
    let out = run(a, &["sync"]);
    assert_ne!(out.status, 0);
    assert!(
        out.stderr.contains("git remote add origin"),
        "{}",
        out.stderr
    );
    assert_eq!(git(a, &["rev-parse", "refs/supervisor/state"]), state);
    let _ = &served.server;
}

/// A run shared by `sync` is judged where its agents run: a clone that
/// only holds a copy of the state never calls another clone's agents gone,
/// and its `stop` says where they run instead of recording them ended.
#[test]
fn a_clone_never_judges_or_ends_agents_another_clone_started() {
    let served = Served::serving();
    let a = served.repo.path();
    // Agents that keep working (and talking) for a minute.
    let s = scripts(&[("default.txt", &"print working\nsleep 200\n".repeat(300))]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(a, &["start", "--yes"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let since = std::time::Instant::now();
    loop {
        let st: serde_json::Value =
            serde_json::from_str(&run(a, &["status", "--format", "json"]).stdout).expect("json");
        if st["active_agents"] == 2
            && st["units"]
                .as_array()
                .is_some_and(|us| us.iter().all(|u| u["current"]["state"] == "RUNNING"))
        {
            break;
        }
        assert!(since.elapsed().as_secs() < 30, "the agents never ran: {st}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(run(a, &["sync", "origin"]).status, 0);

    let (_elsewhere, b) = served.clone_b();
    assert_eq!(run(&b, &["sync", "origin"]).status, 0);
    let copied = git(&b, &["rev-parse", "refs/supervisor/state"]);
    // B's engine wakes (a commit hook would do the same): nothing to judge.
    let out = run_env(&b, &["tick"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        git(&b, &["rev-parse", "refs/supervisor/state"]),
        copied,
        "{}",
        run(&b, &["log"]).stdout
    );
    // B's stop ends nothing of A's: it says where the agents run.
    let out = run_env(&b, &["stop", "--timeout", "1s"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("its agent runs in another clone"),
        "{}",
        out.stdout
    );
    let log = run(&b, &["log", "--format", "json"]).stdout;
    let records: Vec<serde_json::Value> = serde_json::from_str(&log).expect("log JSON");
    assert!(
        !records
            .iter()
            .any(|r| r["to"] == "BACKOFF" || r["to"] == "KILLED" || r["to"] == "FATAL"),
        "{log}"
    );
    assert_eq!(run(a, &["killall"]).status, 0);
}
