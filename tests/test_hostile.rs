//! Hostile and clumsy input: unit names that look like paths, shell code or
//! huge strings stay free text and never reach the file system or a shell.

use std::path::Path;
use std::process::Command;

use crate::common::command;
use crate::common::git;
use crate::common::run_env;
use crate::common::scripts;

/// A fresh repository at `outer/repo` holding `plan`, so anything a run
/// writes beside the repository shows up in `outer`.
fn repo_with_plan(outer: &Path, plan: &str) -> std::path::PathBuf {
    repo_with(outer, plan, None)
}

/// Like [`repo_with_plan`], with `agent_command` (a TOML array) in place of
/// the plain fake agent.
pub(crate) fn repo_with(
    outer: &Path,
    plan: &str,
    agent_command: Option<&str>,
) -> std::path::PathBuf {
    let dir = outer.join("repo");
    let sh = |script: &str| {
        let st = Command::new("bash")
            .arg("-c")
            .arg(format!(
                ". '{}/testrepos/lib.sh'; {script}",
                crate::common::manifest_dir().display()
            ))
            .env("HOME", outer)
            .status()
            .expect("bash");
        assert!(st.success());
    };
    sh(&format!("init_repo '{}'", dir.display()));
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan");
    sh(&format!(
        "cd '{}' && units d1 d2 d3 d4 && fake_agent_config 200ms",
        dir.display()
    ));
    if let Some(cmd) = agent_command {
        let path = dir.join(".workflow/config.toml");
        let config = std::fs::read_to_string(&path).expect("config");
        let config = config.replace(r#"command = ["fake-agent"]"#, &format!("command = {cmd}"));
        std::fs::write(&path, config).expect("config");
    }
    sh(&format!("cd '{}' && commit_all Initial", dir.display()));
    dir
}

pub(crate) fn table_plan(names: &[&str]) -> String {
    let mut plan =
        String::from("# Hostile names\n\n| Package | Directory | Layer |\n|---|---|---|\n");
    for (i, n) in names.iter().enumerate() {
        plan.push_str(&format!("| {n} | d{} | 0 |\n", i + 1));
    }
    for (i, n) in names.iter().enumerate() {
        plan.push_str(&format!(
            "\n## {n}\n\n### Sprint 1: Work\n\n**Exit Criteria**:\n- [ ] `d{}/1.txt` exists\n",
            i + 1
        ));
    }
    plan
}

pub(crate) fn every_file(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            every_file(&p, out);
        }
        out.push(p);
    }
}

#[test]
fn path_like_and_huge_unit_names_stay_inside_the_runtime_directory() {
    let outer = tempfile::tempdir().expect("tempdir");
    let long = "L".repeat(300);
    let names = [
        "../../../../tmp/x/ESCAPED",
        "../../index",
        "CI/CD & Docs",
        long.as_str(),
    ];
    let dir = repo_with_plan(outer.path(), &table_plan(&names));
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = run_env(
        &dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("overall: completed"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );

    // Nothing beside the repository, no git lock or junk left in .git.
    let beside: Vec<_> = std::fs::read_dir(outer.path())
        .expect("outer")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(beside, vec![std::ffi::OsString::from("repo")]);
    assert!(!dir.join(".git/index.lock").exists());
    let mut files = Vec::new();
    every_file(&dir.join(".git"), &mut files);
    for f in &files {
        let name = f.file_name().expect("name").to_string_lossy().into_owned();
        assert!(
            !name.ends_with(".lock") || f.starts_with(dir.join(".git/supervisor")),
            "{f:?}"
        );
        assert!(name.len() <= 80, "{f:?}");
    }
    let fsck = command("git", &dir).args(["fsck"]).output().expect("fsck");
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    assert_eq!(
        git(&dir, &["for-each-ref", "--format=%(refname)", "refs/heads"]).trim(),
        "refs/heads/main"
    );

    // The names stay free text in the state.
    let status = crate::common::run(&dir, &["status", "--format", "json"]).stdout;
    for n in names {
        assert!(
            status.contains(&serde_json::to_string(n).expect("json")),
            "{n}: {status}"
        );
    }
    for i in 1..=4 {
        assert!(dir.join(format!("d{i}/1.txt")).is_file(), "d{i}");
    }
}

#[test]
fn a_unit_name_is_never_shell_code_in_an_agent_command() {
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = repo_with(
        outer.path(),
        &table_plan(&["$(touch PWNED)"]),
        Some(r#"["sh", "-c", ": {unit} {sprint}; exec fake-agent"]"#),
    );
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = run_env(
        &dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("overall: completed"), "{}", out.stdout);
    let mut files = Vec::new();
    every_file(outer.path(), &mut files);
    assert!(
        files.iter().all(|f| !f.ends_with("PWNED")),
        "the unit name ran as shell code"
    );
}

fn state_ref(dir: &Path) -> String {
    git(
        dir,
        &[
            "for-each-ref",
            "--format=%(objectname)",
            "refs/supervisor/state",
        ],
    )
}

#[test]
fn a_huge_duration_is_a_config_error_not_a_panic() {
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = repo_with_plan(outer.path(), &table_plan(&["a"]));
    let path = dir.join(".workflow/config.toml");
    let config = std::fs::read_to_string(&path).expect("config");
    std::fs::write(
        &path,
        format!("{config}\n[build]\ncommand = \"true\"\ntimeout = \"500000000000y\"\n"),
    )
    .expect("config");
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = run_env(
        &dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(
        out.stderr.contains("too long") && out.stderr.contains("timeout"),
        "{}",
        out.stderr
    );
    assert_eq!(state_ref(&dir), "");
}

/// Runs `args` with a deadline: a read of a FIFO would block forever.
fn run_bounded(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut child = command(crate::common::bin(), dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?} hung on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn a_fifo_or_directory_is_refused_as_config_or_plan() {
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = repo_with_plan(outer.path(), &table_plan(&["a"]));
    let mkfifo = |p: &Path| {
        assert!(Command::new("mkfifo")
            .arg(p)
            .status()
            .expect("mkfifo")
            .success());
    };
    mkfifo(&dir.join("fifo.md"));
    std::fs::create_dir(dir.join("dir.md")).expect("dir");
    for plan in ["fifo.md", "dir.md"] {
        let out = run_bounded(&dir, &["plan", plan]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("regular file") || err.contains("no execution plan"),
            "{plan}: {err}"
        );
    }
    let config = dir.join(".workflow/config.toml");
    std::fs::remove_file(&config).expect("rm");
    mkfifo(&config);
    let out = run_bounded(&dir, &["start", "--yes"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("regular file"));
    assert_eq!(state_ref(&dir), "");
}

#[test]
fn an_agent_program_that_cannot_run_is_refused_at_start() {
    for cmd in [
        r#"["no-such-agent-program", "-p"]"#,
        r#"[""]"#,
        r#"["./missing.sh"]"#,
    ] {
        let outer = tempfile::tempdir().expect("tempdir");
        let dir = repo_with(outer.path(), &table_plan(&["a"]), Some(cmd));
        let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
        let out = run_env(
            &dir,
            &["start", "--yes", "--wait"],
            &[("FAKE_AGENT_SCRIPT", s.path())],
        );
        assert_ne!(out.status, 0, "{cmd}: {}", out.stdout);
        assert!(
            out.stderr.contains("agent.command"),
            "{cmd}: {}",
            out.stderr
        );
        assert!(out.stderr.contains("config.toml"), "{cmd}: {}", out.stderr);
        assert_eq!(state_ref(&dir), "", "{cmd}: no run is recorded");
    }
}

/// Read-only for a normal user; as root (which ignores permissions) a file
/// standing where a runtime directory belongs breaks it the same way.
#[test]
fn start_with_an_unwritable_runtime_directory_records_no_run() {
    use std::os::unix::fs::PermissionsExt;
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = repo_with_plan(outer.path(), &table_plan(&["a"]));
    let runtime = dir.join(".git/supervisor");
    std::fs::create_dir_all(&runtime).expect("runtime");
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    if std::fs::write(runtime.join("probe"), b"").is_ok() {
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let _ = std::fs::remove_file(runtime.join("probe"));
        std::fs::write(runtime.join("prompts"), b"not a directory").expect("file");
    }
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = run_env(
        &dir,
        &["start", "--yes"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_ne!(out.status, 0, "{}", out.stdout);
    assert!(out.stderr.contains("not writable"), "{}", out.stderr);
    assert_eq!(state_ref(&dir), "", "no run is recorded");
}

#[test]
fn control_characters_in_a_unit_name_are_shown_escaped() {
    let outer = tempfile::tempdir().expect("tempdir");
    let name = "red\u{1b}[31mX\u{7}";
    let dir = repo_with_plan(outer.path(), &table_plan(&[name]));
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let out = run_env(
        &dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let shown = [
        crate::common::run(&dir, &["status"]).stdout,
        crate::common::run(&dir, &["log"]).stdout,
        git(&dir, &["log", "--format=%s", "refs/supervisor/state"]),
    ];
    for text in shown {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains(r"red\u{1b}[31mX\u{7}"), "{text}");
    }
    // The name itself is unchanged in the state.
    let json = crate::common::run(&dir, &["status", "--format", "json"]).stdout;
    assert!(
        json.contains(&serde_json::to_string(name).expect("json")),
        "{json}"
    );
}

#[test]
fn an_agent_program_gone_before_a_dispatch_spends_no_attempt() {
    use std::os::unix::fs::PermissionsExt;
    let outer = tempfile::tempdir().expect("tempdir");
    // The agent program removes itself: the second unit's dispatch finds
    // nothing to run.
    let agent = outer.path().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\nrm -f \"$0\"\nexec fake-agent\n").expect("agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let plan = "# P\n\n| Package | Directory | Layer |\n|---|---|---|\n| a | d1 | 0 |\n| b | d2 | 1 |\n\n## a\n\n### Sprint 1: W\n\n**Exit Criteria**:\n- [ ] `d1/1.txt` exists\n\n## b\n\n### Sprint 1: W\n\n**Exit Criteria**:\n- [ ] `d2/1.txt` exists\n";
    let dir = repo_with(
        outer.path(),
        plan,
        Some(&format!("[\"{}\"]", agent.display())),
    );
    let s = scripts(&[("default.txt", crate::common::SUCCEED)]);
    let mut cmd = command(crate::common::bin(), &dir);
    cmd.args(["start", "--yes", "--wait"])
        .env("FAKE_AGENT_SCRIPT", s.path());
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed().as_secs() > 30 {
            let _ = child.kill();
            panic!("start --wait did not report the missing agent program");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("agent.command"), "{err}");
    let status: serde_json::Value =
        serde_json::from_str(&crate::common::run(&dir, &["status", "--format", "json"]).stdout)
            .expect("status");
    let b = &status["units"][1];
    assert_eq!(b["name"], "b");
    assert_eq!(b["current"]["state"], "PENDING", "{status}");
    assert_eq!(b["current"]["total_attempts"], 0, "{status}");
}

#[test]
fn unknown_dependencies_name_a_few_close_units_not_the_whole_plan() {
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = outer.path();
    let units = 400;
    let mut plan = String::from("# Many units\n");
    for i in 0..units {
        plan.push_str(&format!(
            "\n## unit-{i:04}\n\nDepends on: ghost-{i:04}\n\n### Sprint 1: Work\n"
        ));
    }
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &plan).expect("plan");
    let out = command(crate::common::bin(), dir)
        .args(["plan"])
        .output()
        .expect("plan");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("dependency on unknown unit `ghost-0007`"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(
        stderr.contains("the plan has 400 units; the closest names:"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    // Each of the 400 problems names a handful of units, never all 400:
    // the message grows with the plan, not with its square.
    let per_problem = stderr.len() / units;
    assert!(
        per_problem < 1_500,
        "{per_problem} bytes of diagnostics per bad reference"
    );
}

#[test]
fn a_dangling_config_link_is_named_as_such() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    let config = dir.join(".workflow/config.toml");
    std::fs::remove_file(&config).expect("rm");
    std::os::unix::fs::symlink(dir.join("gone.toml"), &config).expect("link");
    let out = crate::common::run(dir, &["start", "--yes"]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("is a symbolic link to") && out.stderr.contains("gone.toml"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("agent.command is not set"),
        "{}",
        out.stderr
    );
    assert_eq!(state_ref(dir), "");
}

#[test]
fn a_stale_state_lock_is_moved_aside_and_the_run_goes_on() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", "sleep 10000\n")]);
    let out = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let lock = dir.join(".git/refs/supervisor/state.lock");
    std::fs::write(&lock, "").expect("lock");
    let before = state_ref(dir);
    // Left by a process that died a minute ago (a live writer holds its lock
    // for milliseconds): moved aside, said, and the command goes on.
    let st = Command::new("touch")
        .args(["-d", "1 minute ago"])
        .arg(&lock)
        .status()
        .expect("touch");
    assert!(st.success());
    let out = run_env(dir, &["stop"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    // Said by whichever writer moved it: `stop`, or an agent's wrapper
    // that wrote first (its log).
    let said = |t: &str| t.contains("state.lock, left") && t.contains("died while writing");
    let logs: String = std::fs::read_dir(dir.join(".git/supervisor/agents"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".wrapper.log"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(said(&out.stderr) || said(&logs), "{}\n{logs}", out.stderr);
    assert!(!lock.exists());
    assert_ne!(state_ref(dir), before, "stop recorded");
    assert_eq!(crate::common::run(dir, &["killall"]).status, 0);
}

#[test]
fn hooks_turned_off_by_hookspath_say_so() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    git(dir, &["config", "core.hooksPath", "/dev/null"]);
    let out = crate::common::run(dir, &["hooks", "install"]);
    assert_ne!(out.status, 0);
    assert!(
        out.stderr.contains("hooks are turned off here")
            && out.stderr.contains("--unset core.hooksPath"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("cannot create"), "{}", out.stderr);
}

#[test]
fn wait_names_the_process_that_holds_the_engine() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    // Agents that keep working: the run is still going when `wait` looks,
    // however slowly the machine starts the process below.
    let s = scripts(&[("default.txt", "sleep 30000\n")]);
    let out = run_env(dir, &["start", "--yes"], &[("FAKE_AGENT_SCRIPT", s.path())]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    // A hung process holding the engine lock.
    let mut hung = Command::new("flock")
        .arg(dir.join(".git/supervisor/engine.lock"))
        .args(["sleep", "60"])
        .spawn()
        .expect("flock");
    // Until the hung process holds the lock (a loaded machine starts it
    // late): `flock -n` on the file fails three times running (the engine
    // itself holds it only for a moment at a time).
    let lock = dir.join(".git/supervisor/engine.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut held = 0;
    while held < 3 && std::time::Instant::now() < deadline {
        let free = Command::new("flock")
            .arg("-n")
            .arg(&lock)
            .arg("true")
            .status()
            .is_ok_and(|s| s.success());
        held = if free { 0 } else { held + 1 };
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = run_env(
        dir,
        &["wait", "--timeout", "13s"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    let _ = hung.kill();
    let _ = hung.wait();
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(
        text.contains("The engine has been busy for")
            && text.contains(&format!("process {}", hung.id()))
            && text.contains(&format!("kill {}", hung.id())),
        "{text}"
    );
    let _ = crate::common::run(dir, &["killall"]);
}

#[test]
fn an_agent_failure_with_control_characters_is_shown_escaped() {
    let outer = tempfile::tempdir().expect("tempdir");
    let dir = repo_with_plan(outer.path(), &table_plan(&["a"]));
    let config = dir.join(".workflow/config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, text.replace("max_retries = 3", "max_retries = 1")).expect("config");
    git(&dir, &["commit", "-qam", "one attempt"]);
    // The agent's own words end up in the failure: a screen clear and a
    // line that would pose as one of status's own.
    let s = scripts(&[(
        "default.txt",
        r#"print {"type":"result","subtype":"success","is_error":true,"result":"\u001b[2Jwiped\u000aBlocked work units: 0"}
exit 1
"#,
    )]);
    let out = run_env(
        &dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert!(
        out.stdout.contains("BLOCKED"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(!out.stdout.contains('\u{1b}'), "{:?}", out.stdout);
    let log = crate::common::run(&dir, &["log"]).stdout;
    assert!(!log.contains('\u{1b}'), "{log:?}");
    let status = crate::common::run(&dir, &["status"]).stdout;
    assert!(status.contains(r"\u{1b}[2Jwiped"), "{status}");
    assert!(!status.contains('\u{1b}'), "{status:?}");
    assert_eq!(
        status
            .lines()
            .filter(|l| l.starts_with("Blocked work units:"))
            .count(),
        1,
        "{status}"
    );
}
