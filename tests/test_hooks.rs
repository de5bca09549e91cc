//! Hooks with real git: install, chain, restore, stay out of the way, and
//! drive the loop.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::common::command;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;

/// Every file of a directory with its bytes and mode.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("hooks dir").flatten() {
        let meta = e.metadata().expect("meta");
        out.insert(
            e.file_name().to_string_lossy().into_owned(),
            (
                std::fs::read(e.path()).expect("read"),
                meta.permissions().mode(),
            ),
        );
    }
    out
}

fn write_hook(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).expect("hook");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn commit(dir: &Path, file: &str) -> std::process::Output {
    std::fs::write(dir.join(file), file).expect("file");
    git(dir, &["add", file]);
    command("git", dir)
        .args(["commit", "-q", "-m", file])
        .output()
        .expect("git commit")
}

#[test]
fn install_chains_an_existing_hook_and_uninstall_restores_it_exactly() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let hooks = dir.join(".git/hooks");
    write_hook(
        &hooks.join("post-commit"),
        "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/old-hook-ran\"\nexit 0\n",
    );
    let before = snapshot(&hooks);

    let out = run(dir, &["hooks", "install"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("post-commit: installed; the existing hook is kept"),
        "{}",
        out.stdout
    );
    let installed = snapshot(&hooks);
    let again = run(dir, &["hooks", "install"]);
    assert!(again.stdout.contains("already installed"));
    assert_eq!(
        snapshot(&hooks),
        installed,
        "a second install changes nothing"
    );

    let st = run(dir, &["hooks", "status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&st.stdout).expect("json");
    let states: Vec<&str> = v["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| h["state"].as_str().expect("state"))
        .collect();
    assert_eq!(states, ["chained", "installed", "installed"]);
    assert_eq!(v["on_path_is_this"], true);

    assert!(commit(dir, "a.txt").status.success());
    assert!(
        dir.join(".git/old-hook-ran").exists(),
        "the old hook still runs"
    );

    let out = run(dir, &["hooks", "uninstall"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        snapshot(&hooks),
        before,
        "uninstall restores the directory byte for byte"
    );
}

#[test]
fn hooks_go_where_git_looks_for_them() {
    // core.hooksPath
    let repo = fixture_repo("five");
    let dir = repo.path();
    git(dir, &["config", "core.hooksPath", "my-hooks"]);
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    assert!(dir.join("my-hooks/post-commit").is_file());
    assert!(!dir.join(".git/hooks/post-commit").exists());
    assert_eq!(run(dir, &["hooks", "uninstall"]).status, 0);
    assert!(!dir.join("my-hooks/post-commit").exists());

    // A linked worktree shares the repository's hooks.
    git(dir, &["config", "--unset", "core.hooksPath"]);
    let wt = tempfile::tempdir().expect("tempdir");
    let wt_path = wt.path().join("wt");
    git(
        dir,
        &[
            "worktree",
            "add",
            "-q",
            wt_path.to_str().expect("utf-8"),
            "-b",
            "side",
        ],
    );
    let out = run(&wt_path, &["hooks", "install"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(dir.join(".git/hooks/post-commit").is_file());

    // Another manager's directory is left alone, with directions.
    let husky = fixture_repo("five");
    git(husky.path(), &["config", "core.hooksPath", ".husky/_"]);
    let out = run(husky.path(), &["hooks", "install"]);
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("husky"), "{}", out.stderr);
    assert!(
        out.stderr.contains("git supervisor hook post-commit"),
        "{}",
        out.stderr
    );
    assert!(!husky.path().join(".husky/_/post-commit").exists());
}

#[test]
fn a_missing_or_failing_binary_never_fails_a_commit() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    // Missing: PATH without git-supervisor.
    let out = command("git", dir)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .args(["commit", "-q", "--allow-empty", "-m", "no binary"])
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Failing: a git-supervisor that exits 1 (and a push that still goes through).
    let fake = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        fake.path().join("git-supervisor"),
        "#!/bin/sh\necho broken >&2\nexit 1\n",
    )
    .expect("fake");
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(fake.path().join("git-supervisor"))
        .status()
        .expect("chmod");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", fake.path().display());
    let out = command("git", dir)
        .env("PATH", &path)
        .args(["commit", "-q", "--allow-empty", "-m", "broken binary"])
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With a run, the real binary prints nothing and the commit succeeds.
    let s = tempfile::tempdir().expect("scripts");
    std::fs::write(s.path().join("default.txt"), "sleep 100\n").expect("script");
    let started = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(started.status, 0, "{}", started.stderr);
    let out = command("git", dir)
        .args(["commit", "-q", "--allow-empty", "-m", "with run"])
        .output()
        .expect("git");
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn an_agents_commit_triggers_the_next_dispatch_through_the_hook_alone() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    let s = tempfile::tempdir().expect("scripts");
    let exited = s.path().join("exited");
    // parser sprint 1 commits its work marked complete, then keeps running
    // well past the point where the next sprint must be dispatched.
    std::fs::write(
        s.path().join("parser-1.txt"),
        format!(
            "write parser/1.txt done\ntrailer Supervisor-Status: complete\ncommit parser: lexer\nsleep 4000\nwrite {} yes\n",
            exited.display()
        ),
    )
    .expect("script");
    std::fs::write(s.path().join("default.txt"), "sleep 10000\n").expect("script");
    let out = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let start = std::time::Instant::now();
    loop {
        let st = run(dir, &["status", "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&st.stdout).expect("json");
        let parser = v["units"]
            .as_array()
            .expect("units")
            .iter()
            .find(|u| u["name"] == "parser")
            .cloned()
            .expect("parser");
        if parser["current"]["id"] == "2" && parser["current"]["state"] != "PENDING" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "sprint 2 was never dispatched: {}",
            st.stdout
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !exited.exists(),
        "sprint 2 was dispatched while the first agent still ran: only the hook could do it"
    );
    let log = run(dir, &["log", "--unit", "parser"]).stdout;
    assert!(
        log.contains("the agent's commit marked it complete"),
        "{log}"
    );
}

/// Processes whose working directory is `dir` and whose command line runs a
/// `tick`: what a hook leaves behind.
fn tick_processes_in(dir: &Path) -> Vec<String> {
    let want = std::fs::canonicalize(dir).expect("canonical");
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").expect("proc").flatten() {
        let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) else {
            continue;
        };
        if cwd != want {
            continue;
        }
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.iter().any(|a| a == "tick") {
            found.push(args.join(" "));
        }
    }
    found
}

#[test]
fn a_hook_that_finds_a_tick_running_leaves_a_marker_and_starts_nothing() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = crate::common::scripts(&[("default.txt", "sleep 10000\n")]);
    let out = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let runtime = dir.join(".git/supervisor");
    let marker = runtime.join("wake");
    let _ = std::fs::remove_file(&marker);
    // Hold the engine lock the way a running tick does.
    let held = git_supervisor::base::lock::with_lock(
        &runtime.join("engine.lock"),
        Duration::from_secs(1),
        || {
            let started = std::time::Instant::now();
            for _ in 0..10 {
                let out = run(dir, &["hook", "post-commit"]);
                assert_eq!(out.status, 0, "{}", out.stderr);
            }
            let spent = started.elapsed();
            let ticks = tick_processes_in(dir);
            (spent, ticks, marker.exists())
        },
    )
    .expect("lock");
    let (spent, ticks, marked) = held.expect("the engine lock was free");
    assert!(marked, "no wake-up marker was left for the running tick");
    assert!(
        ticks.is_empty(),
        "hooks started ticks that wait for the busy engine: {ticks:?} (10 hooks took {spent:?})"
    );
    let _ = run(dir, &["killall"]);
}

#[test]
fn a_commit_in_a_linked_worktree_on_another_branch_never_moves_the_run() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    let s = crate::common::scripts(&[("default.txt", "print working\nsleep 10000\n")]);
    let out = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let side = tempfile::tempdir().expect("side");
    let side = side.path().join("side");
    git(
        dir,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            &side.display().to_string(),
        ],
    );
    // On `side`, a commit that claims parser's sprint 1 with its file.
    std::fs::create_dir_all(side.join("parser")).expect("dir");
    std::fs::write(side.join("parser/1.txt"), "done").expect("file");
    git(&side, &["add", "parser/1.txt"]);
    let commit = command("git", &side)
        .args([
            "commit",
            "-q",
            "-m",
            "parser: lexer\n\nSupervisor-Sprint: parser/1\nSupervisor-Status: complete",
        ])
        .output()
        .expect("commit");
    assert!(commit.status.success());
    // The hook there acts for nothing; a tick from there works on the run's
    // own tree, where the file does not exist.
    assert_eq!(run(&side, &["hook", "post-commit"]).status, 0);
    let out = run_env(&side, &["tick"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(500));
    let st = run(dir, &["status", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&st.stdout).expect("json");
    let parser = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == "parser")
        .cloned()
        .expect("parser");
    assert_eq!(parser["sprint_completed"], 0, "{parser}");
    assert_eq!(parser["current"]["id"], "1", "{parser}");
    // No agent ever works in the linked worktree.
    for e in std::fs::read_dir("/proc").expect("proc").flatten() {
        if let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) {
            assert!(
                !cwd.starts_with(&side) || e.file_name() == std::process::id().to_string().as_str(),
                "a process works in the linked worktree: {}",
                e.path().display()
            );
        }
    }
    let _ = run(dir, &["killall"]);
}
