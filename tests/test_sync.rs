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
        let repo = fixture_repo("workspace");
        let a = repo.path();
        let server = tempfile::tempdir().expect("tempdir");
        git(
            server.path(),
            &[
                "clone",
                "-q",
                "--bare",
                &a.display().to_string(),
                "plan.git",
            ],
        );
        let daemon = Daemon::start(server.path());
        let url = daemon.url("plan.git");
        git(a, &["remote", "add", "origin", &url]);
        let s = scripts(&[(
            "default.txt",
            "write ${SUPERVISOR_UNIT}.txt ok\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
        )]);
        let out = run_env(a, &["start", "--wait"], &[("FAKE_AGENT_SCRIPT", s.path())]);
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
        Served {
            repo,
            server,
            url,
            _daemon: daemon,
        }
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
    let elsewhere = tempfile::tempdir().expect("tempdir");
    git(elsewhere.path(), &["clone", "-q", &url, "b"]);
    let b = elsewhere.path().join("b");
    crate::common::git(&b, &["config", "user.name", "B"]);
    crate::common::git(&b, &["config", "user.email", "b@example.com"]);
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
    let b_state = git(&b, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string();
    let out = run(&b, &["sync", "origin"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("refs/supervisor/state"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("diverged"), "{}", out.stdout);
    // Nothing overwritten on either side.
    assert_eq!(remote_ref(&url, "refs/supervisor/state", a), a_state);
    assert_eq!(
        git(&b, &["rev-parse", "refs/supervisor/state"]).trim(),
        b_state
    );
    let status = run(&b, &["status"]).stdout;
    assert!(status.contains("origin: diverged"), "{status}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&b, &["status", "--format", "json"]).stdout).expect("json");
    assert_eq!(json["remotes"]["origin"]["relation"], "diverged", "{json}");
}

/// The remote's state moved on by another machine's push while this clone
/// made a transition of its own: the sync leaves both as they are, so the
/// other machine's transition survives (and the push, had it been tried,
/// carries a lease on what was fetched, never a `+` refspec).
#[test]
fn a_remote_that_moved_on_is_never_overwritten() {
    let served = Served::new();
    let a = served.repo.path();
    assert_eq!(run(a, &["sync"]).status, 0, "REMOTE defaults to origin");
    // The server's copy moves on by itself (another machine's push).
    let bare = served.server.path().join("plan.git");
    let pushed = git(&bare, &["rev-parse", "refs/supervisor/state"]);
    let tree = git(&bare, &["rev-parse", "refs/supervisor/state^{tree}"]);
    let other = git(
        &bare,
        &[
            "-c",
            "user.name=Other",
            "-c",
            "user.email=other@example.com",
            "commit-tree",
            tree.trim(),
            "-p",
            pushed.trim(),
            "-m",
            "run: a transition made elsewhere",
        ],
    );
    git(
        &bare,
        &[
            "update-ref",
            "refs/supervisor/state",
            other.trim(),
            pushed.trim(),
        ],
    );
    assert_eq!(run(a, &["note", "made here"]).status, 0);
    let ours = git(a, &["rev-parse", "refs/supervisor/state"]);
    let out = run(a, &["sync", "origin"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert_eq!(
        git(&bare, &["rev-parse", "refs/supervisor/state"]).trim(),
        other.trim(),
        "the other machine's transition survives"
    );
    assert_eq!(git(a, &["rev-parse", "refs/supervisor/state"]), ours);
}
