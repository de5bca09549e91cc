//! What a worker meets when it runs for long: the processes it starts are
//! reaped, a remote it can never use fails at once, its messages say what
//! they mean, its clone keeps no worktree of a finished unit, and work
//! already on a unit's branch counts. Real `git daemon` on 127.0.0.1, real
//! worker processes and the fake-agent binary.

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use crate::common::command;
use crate::common::daemon::Daemon;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run_env;
use crate::common::scripts;

/// The fixture repository as the run's starting clone, and a git server
/// holding a bare copy of it as its `origin`.
struct OnRemote {
    src: tempfile::TempDir,
    server: tempfile::TempDir,
    url: String,
    daemon: Daemon,
}

impl OnRemote {
    /// The `remote` fixture with `plan` committed in place of its own.
    fn with_plan(plan: &str) -> OnRemote {
        let src = fixture_repo("remote");
        std::fs::write(src.path().join("EXECUTION_PLAN.md"), plan).expect("plan");
        git(src.path(), &["commit", "-qam", "Another plan"]);
        let server = tempfile::tempdir().expect("tempdir");
        git(
            server.path(),
            &[
                "clone",
                "-q",
                "--bare",
                &src.path().display().to_string(),
                "plan.git",
            ],
        );
        let daemon = Daemon::start(server.path());
        let url = daemon.url("plan.git");
        git(src.path(), &["remote", "add", "origin", &url]);
        OnRemote {
            src,
            server,
            url,
            daemon,
        }
    }

    /// A clone of the remote, as a worker machine has one.
    fn clone(&self, name: &str) -> PathBuf {
        let dir = self.server.path().join("machines").join(name);
        std::fs::create_dir_all(dir.parent().expect("parent")).expect("mkdir");
        git(
            self.server.path(),
            &["clone", "-q", &self.url, &dir.display().to_string()],
        );
        git(&dir, &["config", "user.name", "Worker"]);
        git(&dir, &["config", "user.email", "worker@example.com"]);
        dir
    }

    fn bare(&self) -> PathBuf {
        self.server.path().join("plan.git")
    }

    /// The remote's transition subjects, oldest first.
    fn subjects(&self) -> Vec<String> {
        git(
            &self.bare(),
            &["log", "--reverse", "--format=%s", "refs/supervisor/state"],
        )
        .lines()
        .map(str::to_string)
        .collect()
    }

    fn start(&self, script: &Path) {
        let out = run_env(
            self.src.path(),
            &["start", "--remote", "origin"],
            &[("FAKE_AGENT_SCRIPT", script)],
        );
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    }
}

/// A plan of independent units, each with `sprints` sprints whose exit
/// criteria are read, not run.
fn plan(units: &[&str], sprints: u32) -> String {
    let mut text = String::from("---\nfeature_name: Long Haul\n---\n# Long Haul\n");
    for u in units {
        text.push_str(&format!("\n## {u}\n"));
        for n in 1..=sprints {
            text.push_str(&format!(
                "\n### Sprint {n}: Write {u} part {n}\n\n- Write `{u}-{n}.txt`\n\n**Exit Criteria**:\n- [ ] The {u} part {n} reads well\n"
            ));
        }
    }
    text
}

/// Each sprint writes and commits its file, then reports complete.
const WRITES_AND_COMMITS: &str = "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n";

fn worker(clone: &Path, script: &Path, extra: &[&str]) -> Child {
    let mut cmd = command(crate::common::bin(), clone);
    cmd.arg("worker")
        .args(extra)
        .env("FAKE_AGENT_SCRIPT", script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("the worker starts")
}

/// `(pid, state)` of every child of `parent`, from `/proc`.
fn children_of(parent: u32) -> Vec<(u32, char)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut f = rest.split_whitespace();
        let state = f.next().and_then(|s| s.chars().next()).unwrap_or('?');
        if f.next().and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            found.push((pid, state));
        }
    }
    found
}

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
    let mut w = worker(&clone, s.path(), &["--poll", "100ms"]);
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
    let _ = &remote.daemon;
}
/// Wait for a worker to leave (killing it after `limit`): its exit code,
/// stdout and stderr.
fn leave(mut child: Child, limit: Duration) -> (i32, String, String) {
    let since = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if since.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "the worker did not leave within {limit:?}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
            &remote.daemon.url("missing.git"),
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
            let (code, stdout, stderr) =
                leave(worker(&clone, s.path(), &args), Duration::from_secs(20));
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
        let out = crate::common::run(remote.src.path(), &["start", "--remote", name]);
        // The starting clone has no such remote yet.
        assert_eq!(out.status, 1, "{}", out.stdout);
    }
    git(
        remote.src.path(),
        &[
            "remote",
            "add",
            "missing",
            &remote.daemon.url("missing.git"),
        ],
    );
    let out = crate::common::run(remote.src.path(), &["start", "--remote", "missing"]);
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
