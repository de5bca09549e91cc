//! Workspaces: a linked worktree and branch per unit, the integration
//! branch, the merge queue and its conflicts, `land` and `clean` — real
//! repositories, the real binary and fake agents as real processes.

use std::path::Path;
use std::path::PathBuf;

use crate::common::edit_config;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::scripts;
use crate::common::worktrees::*;

/// Two units edit the same line of one file at once: the first merges, the
/// second conflicts, goes BACKOFF with the conflict in its retry prompt,
/// resolves it, and both changes end on the integration branch — while the
/// user's branch and files stay as they were.
#[test]
fn a_conflict_is_a_failed_verification_and_its_retry_resolves_it() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    let saved = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[
        (
            "french-1-1.txt",
            "write greeting.txt bonjour\ncommit-all french: greet\nresult complete\n",
        ),
        (
            "german-1-1.txt",
            // German commits only once French's change is on the integration
            // branch, so the conflict is German's however slow the machine
            // (a loaded runner may take minutes to merge French).
            "write greeting.txt hallo\n\
             spawn ${SAVED}/watch.pid timeout 900 sh -c \"until git for-each-ref --format='%(refname)' refs/heads/supervisor/ | grep /integration | xargs git log --format=%s | grep -q 'french: greet'; do sleep 0.1; done\"; touch ${SAVED}/french-merged\n\
             await ${SAVED}/french-merged\n\
             commit-all german: greet\nresult complete\n",
        ),
        (
            "german-1-2.txt",
            "save-prompt ${SAVED}/retry.md\nwrite greeting.txt bonjour hallo\ncommit-all german: resolve\nresult complete\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path()), ("SAVED", saved.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let german = sprint_path(dir, "german");
    assert!(
        german.windows(2).any(|w| w == ["RUNNING", "BACKOFF"]),
        "german's first attempt conflicted: {german:?}"
    );
    assert_eq!(german.last().map(String::as_str), Some("COMPLETED"));
    assert_eq!(
        sprint_path(dir, "french").last().map(String::as_str),
        Some("COMPLETED")
    );
    let prompt = std::fs::read_to_string(saved.path().join("retry.md")).expect("retry prompt");
    assert!(prompt.contains("Conflicting files"), "{prompt}");
    assert!(prompt.contains("- greeting.txt"), "{prompt}");
    assert!(prompt.contains("french: greet"), "{prompt}");
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["show", &format!("{branch}:greeting.txt")]),
        "bonjour hallo\n"
    );
    // One merge commit per unit, with the trailers.
    let merges = git(
        dir,
        &[
            "log",
            "--merges",
            "--format=%(trailers:key=Supervisor-Unit,valueonly)",
            &branch,
        ],
    );
    let mut units: Vec<&str> = merges.lines().filter(|l| !l.is_empty()).collect();
    units.sort_unstable();
    assert_eq!(units, ["french", "german"], "{merges}");
    // The user's tree is untouched.
    assert_eq!(
        std::fs::read_to_string(dir.join("greeting.txt")).expect("file"),
        "hello\n"
    );
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
}

/// Eight units in parallel, two sprints each, every sprint three commits:
/// each agent sees only its own worktree (its `git status` at start is
/// clean), all work reaches the integration branch, merged in the order the
/// agents finished (the reverse of plan order here), and the user's branch
/// and tree do not move. Integrated worktrees are removed; then `land`
/// fast-forwards the user's branch and `clean` removes what is left.
#[test]
fn parallel_units_work_apart_and_all_their_work_is_integrated() {
    let units = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    ];
    let repo = fixture_repo("workspace_many");
    let dir = repo.path();
    let worktrees = tempfile::tempdir().expect("tempdir");
    edit_config(dir, |config| {
        format!(
            "{config}\n[workspace]\ndir = {:?}\n",
            worktrees.path().display().to_string()
        )
    });
    git(
        dir,
        &["commit", "-qam", "worktrees in a directory of their own"],
    );
    let statuses = tempfile::tempdir().expect("tempdir");
    // Units later in the plan finish their first sprint sooner: 1.2 s
    // apart, far more than a dispatch takes.
    // The agents print while they wait: a silent one is ended after 2 s.
    let script = |delay: usize| {
        let wait =
            "sleep 500\nprint working\n".repeat(delay / 500) + &format!("sleep {}", delay % 500);
        format!(
            "save-status ${{STATUSES}}/${{SUPERVISOR_UNIT}}-${{SUPERVISOR_SPRINT}}.txt
write ${{SUPERVISOR_UNIT}}-${{SUPERVISOR_SPRINT}}.txt first
commit ${{SUPERVISOR_UNIT}}: start sprint ${{SUPERVISOR_SPRINT}}
append ${{SUPERVISOR_UNIT}}-${{SUPERVISOR_SPRINT}}.txt second
commit ${{SUPERVISOR_UNIT}}: go on with sprint ${{SUPERVISOR_SPRINT}}
{wait}
append ${{SUPERVISOR_UNIT}}-${{SUPERVISOR_SPRINT}}.txt third
commit ${{SUPERVISOR_UNIT}}: finish sprint ${{SUPERVISOR_SPRINT}}
append ${{STATUSES}}/finished.txt ${{SUPERVISOR_UNIT}}/${{SUPERVISOR_SPRINT}}
result complete
"
        )
    };
    let names: Vec<(String, String)> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (format!("{u}-1.txt"), script(300 + 1200 * (units.len() - i))))
        .chain([("default.txt".to_string(), script(100))])
        .collect();
    let files: Vec<(&str, &str)> = names
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let s = scripts(&files);
    let env = [
        ("FAKE_AGENT_SCRIPT", s.path()),
        ("STATUSES", statuses.path()),
    ];
    let head_before = git(dir, &["rev-parse", "HEAD"]);
    let out = sv(dir, &env, &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("worktree"), "{}", out.stdout);
    // `start` may name the plan in a commit of its own; nothing after that.
    let started = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    assert!(git(dir, &["log", "--format=%H", &started]).contains(head_before.trim()));
    let out = sv(dir, &env, &["wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(git(dir, &["rev-parse", "HEAD"]).trim(), started);
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
    for u in units {
        assert!(
            !dir.join(format!("{u}-1.txt")).exists(),
            "{u} wrote the user's tree"
        );
        for n in 1..=2 {
            let seen = std::fs::read_to_string(statuses.path().join(format!("{u}-{n}.txt")))
                .expect("each agent recorded its status");
            assert_eq!(seen, "", "{u} sprint {n} saw uncommitted files");
        }
    }
    let branch = integration(dir);
    let tree = git(dir, &["ls-tree", "--name-only", &branch]);
    for u in units {
        for n in 1..=2 {
            let f = format!("{u}-{n}.txt");
            assert!(tree.lines().any(|l| l == f), "{f} not integrated: {tree}");
            assert_eq!(
                git(dir, &["show", &format!("{branch}:{f}")]),
                "first\nsecond\nthird\n"
            );
        }
    }
    // Merges, oldest first: one per sprint; the first sprints in the order
    // their agents finished.
    let merged = git(
        dir,
        &[
            "log",
            "--first-parent",
            "--merges",
            "--reverse",
            "--format=%(trailers:key=Supervisor-Sprint,valueonly)",
            &format!("{started}..{branch}"),
        ],
    );
    let merged: Vec<&str> = merged.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(merged.len(), 16, "one merge per sprint: {merged:?}");
    let firsts: Vec<&str> = merged.iter().filter_map(|m| m.strip_suffix("/1")).collect();
    // The order the agents finished in, as they wrote it: on a loaded
    // machine a later dispatch can start late enough to overtake.
    let finished = std::fs::read_to_string(statuses.path().join("finished.txt")).expect("finished");
    let finishing: Vec<&str> = finished
        .lines()
        .filter_map(|l| l.strip_suffix("/1"))
        .collect();
    assert_eq!(finishing.len(), units.len(), "{finished}");
    assert_eq!(firsts, finishing, "merged in the order agents finished");
    // Each unit's branch is in `status`; integrated worktrees are gone.
    let out = crate::common::run(dir, &["status", "--format", "json"]);
    let status: serde_json::Value = serde_json::from_str(&out.stdout).expect("status JSON");
    let ws = &status["workspaces"];
    for u in units {
        let w = &ws[u];
        assert!(
            w["branch"]
                .as_str()
                .is_some_and(|b| b.ends_with(&format!("/units/{}", encoded(u)))),
            "{status}"
        );
        let path = Path::new(w["worktree"].as_str().expect("worktree"));
        assert!(path.starts_with(worktrees.path()));
        assert_eq!(w["present"], false, "{u}'s integrated worktree stays");
        assert!(!path.exists());
    }
    let text = crate::common::run(dir, &["status"]).stdout;
    assert!(text.contains(&branch), "{text}");

    // `land` refuses a dirty tree, then fast-forwards the user's branch.
    std::fs::write(dir.join("README.md"), "edited").expect("write");
    let out = sv(dir, &env, &["land"]);
    assert_ne!(out.status, 0);
    assert!(out.stderr.contains("git merge --ff-only"), "{}", out.stderr);
    git(dir, &["checkout", "--", "README.md"]);
    let out = sv(dir, &env, &["land"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["rev-parse", &branch])
    );
    assert!(dir.join("theta-2.txt").exists());
    // `clean` leaves nothing of the run's worktrees.
    let out = sv(dir, &env, &["clean"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let left = git(dir, &["worktree", "list", "--porcelain"]);
    assert_eq!(left.matches("worktree ").count(), 1, "{left}");
}

fn encoded(unit: &str) -> String {
    git_supervisor::base::runtime_name::component(unit)
}

/// A crash at every write boundary of a worktree run (the merge queue's
/// included), then `resume`: each sprint is merged into the integration
/// branch exactly once.
#[test]
fn a_crash_at_any_boundary_then_resume_merges_each_sprint_once() {
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}.txt ok\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
    )]);
    let mut boundary = 1;
    loop {
        assert!(
            boundary < 80,
            "the run has fewer write boundaries than this"
        );
        let repo = fixture_repo("workspace");
        let dir = repo.path();
        let _cleanup = beside(dir);
        let counter = dir.join(".git/fault-counter");
        let n = boundary.to_string();
        let crashed = crate::common::command(crate::common::bin(), dir)
            .args(["start", "--yes", "--wait"])
            .env("FAKE_AGENT_SCRIPT", s.path())
            .env("GIT_SUPERVISOR_FAULT_AT", &n)
            .env("GIT_SUPERVISOR_FAULT_COUNTER", &counter)
            .output()
            .expect("start");
        let since = std::time::Instant::now();
        while agents_mentioning(&dir.display().to_string()) > 0 {
            assert!(since.elapsed().as_secs() < 30, "surviving wrappers end");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let reached: u64 = std::fs::read_to_string(&counter)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        if reached < boundary && crashed.status.success() {
            assert!(boundary > 5, "a run has several write boundaries");
            break;
        }
        let out = crate::common::run(dir, &["status", "--format", "json"]);
        let st: serde_json::Value = serde_json::from_str(&out.stdout).expect("status");
        let verb = if st["overall"] == "not_started" {
            "start"
        } else {
            "resume"
        };
        let env = [("FAKE_AGENT_SCRIPT", s.path())];
        let args: &[&str] = if verb == "start" {
            &[verb, "--yes", "--wait"]
        } else {
            &[verb, "--wait"]
        };
        let out = sv(dir, &env, args);
        assert_eq!(
            out.status, 0,
            "boundary {boundary}: {}\n{}",
            out.stdout, out.stderr
        );
        let branch = integration(dir);
        let merged = git(
            dir,
            &[
                "log",
                "--merges",
                "--format=%(trailers:key=Supervisor-Unit,valueonly)",
                &branch,
            ],
        );
        let mut units: Vec<&str> = merged.lines().filter(|l| !l.is_empty()).collect();
        units.sort_unstable();
        assert_eq!(units, ["french", "german"], "boundary {boundary}: {merged}");
        for f in ["french.txt", "german.txt"] {
            assert_eq!(git(dir, &["show", &format!("{branch}:{f}")]), "ok\n");
        }
        boundary += 1;
    }
}

/// With worktrees the phase build runs on the integrated result, in the
/// integration worktree: the library's file exists there (and not in the
/// user's tree), so the build passes and the next layer starts.
#[test]
fn the_phase_build_runs_on_the_integration_branch() {
    let repo = fixture_repo("gated");
    let dir = repo.path();
    let _cleanup = beside(dir);
    edit_config(dir, |config| {
        config
            .replace(
                "poll_interval = \"200ms\"",
                "poll_interval = \"200ms\"\nworkspace = \"worktree\"",
            )
            .replace(
                "command = \"sh build.sh\"",
                "command = \"sh build.sh && test -f lib/lib.txt && pwd > \\\"$BUILT_IN\\\"\"",
            )
    });
    git(dir, &["commit", "-qam", "worktrees"]);
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT_DIR}/${SUPERVISOR_UNIT}.txt fine\ncommit ${SUPERVISOR_UNIT}: work\nresult complete\n",
    )]);
    let built = tempfile::tempdir().expect("tempdir");
    let built_in = built.path().join("where");
    let build_log = built.path().join("build.log");
    let env = [
        ("FAKE_AGENT_SCRIPT", s.path()),
        ("BUILT_IN", built_in.as_path()),
        ("BUILD_LOG", build_log.as_path()),
    ];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let place = std::fs::read_to_string(&built_in).expect("the build ran");
    assert!(place.trim_end().ends_with(".integration"), "{place}");
    assert!(!dir.join("lib/lib.txt").exists(), "the user's tree moved");
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["show", &format!("{branch}:app/app.txt")]),
        "fine\n"
    );
    // The finished run's integration worktree goes with `clean`.
    let out = sv(dir, &env, &["clean"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(".integration"), "{}", out.stdout);
}

/// `[run] land = "ff"`: the completed run's integration branch lands on the
/// starting branch by itself, and `status` says so.
#[test]
fn a_completed_run_lands_itself_when_configured() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    edit_config(dir, |c| {
        c.replace(
            "workspace = \"worktree\"",
            "workspace = \"worktree\"\nland = \"ff\"",
        )
    });
    git(dir, &["commit", "-qam", "land when done"]);
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}.txt ok\ncommit-all ${SUPERVISOR_UNIT}: work\nresult complete\n",
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = sv(dir, &env, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let branch = integration(dir);
    assert_eq!(
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["rev-parse", &branch])
    );
    assert!(dir.join("french.txt").exists() && dir.join("german.txt").exists());
    let status = crate::common::run(dir, &["status"]).stdout;
    assert!(
        status.contains(&format!("Landed {branch} on main")),
        "{status}"
    );
}

/// `killall` keeps a worktree with uncommitted work and says so; `resume`
/// continues in it, and the unit's next agent finds that work.
#[test]
fn killall_keeps_uncommitted_work_and_resume_continues_in_it() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = beside(dir);
    let seen = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[
        (
            "french-1-1.txt",
            "write draft.txt half done\nprint working\nsleep 1000\nprint working\nsleep 1000\nprint working\nsleep 1000\nprint working\nsleep 1000\nprint working\nhang\n",
        ),
        (
            "german-1-1.txt",
            "write german.txt ok\ncommit-all german: work\nresult complete\n",
        ),
        (
            "french-1-2.txt",
            "save-status ${SEEN}/french.txt\nwrite french.txt ok\ncommit-all french: work\nresult complete\n",
        ),
        (
            "default.txt",
            "save-status ${SEEN}/french.txt\nwrite french.txt ok\ncommit-all french: work\nresult complete\n",
        ),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path()), ("SEEN", seen.path())];
    let out = sv(dir, &env, &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let since = std::time::Instant::now();
    let french = loop {
        let out = crate::common::run(dir, &["status", "--format", "json"]);
        let st: serde_json::Value = serde_json::from_str(&out.stdout).expect("status");
        let path = PathBuf::from(
            st["workspaces"]["french"]["worktree"]
                .as_str()
                .expect("path"),
        );
        let german_done = st["units"][1]["state"] == "COMPLETED";
        if path.join("draft.txt").exists() && german_done {
            break path;
        }
        assert!(
            since.elapsed().as_secs() < 30,
            "french never wrote its draft"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let out = sv(dir, &env, &["killall"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        french.join("draft.txt").exists(),
        "killall kept the worktree"
    );
    let status = crate::common::run(dir, &["status"]).stdout;
    assert!(
        status.contains("draft.txt"),
        "the uncommitted file is listed: {status}"
    );
    // `clean` will not throw it away.
    let out = sv(dir, &env, &["clean"]);
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(out.stderr.contains("draft.txt"), "{}", out.stderr);
    assert!(french.join("draft.txt").exists());
    let out = sv(dir, &env, &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let saw = std::fs::read_to_string(seen.path().join("french.txt")).expect("status saved");
    assert!(
        saw.contains("draft.txt"),
        "the retry found the draft: {saw:?}"
    );
    let branch = integration(dir);
    assert_eq!(git(dir, &["show", &format!("{branch}:french.txt")]), "ok\n");
    assert_eq!(
        git(dir, &["show", &format!("{branch}:draft.txt")]),
        "half done\n"
    );
}
