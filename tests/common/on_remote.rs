//! A run that lives on a git remote, for tests: a fixture repository as the
//! run's starting clone, a bare copy of it served on 127.0.0.1 by a real
//! host (`git daemon`, lighttpd with `git http-backend` over HTTPS with
//! basic authentication, or `sshd`), worker clones of it, and worker
//! processes with their JSON summaries.

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use super::command;
use super::daemon::Daemon;
use super::fixture_repo;
use super::git;
use super::http_host::HttpHost;
use super::ssh_host::SshHost;
use super::wait_until;

/// Which kind of server holds the remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// `git daemon` with pushes enabled, no authentication.
    Daemon,
    /// lighttpd + `git http-backend` over HTTPS, basic authentication.
    Https,
    /// `sshd` with a key.
    Ssh,
}

enum Server {
    Daemon(Daemon),
    Https(HttpHost),
    Ssh(SshHost),
}

/// A hosting service's branch protection: a push to `main` is declined.
const PROTECT_MAIN: &str = "#!/bin/sh
while read old new ref; do
  if [ \"$ref\" = refs/heads/main ]; then
    echo \"refs/heads/main is protected: push a branch and open a pull request\" >&2
    exit 1
  fi
done
";

/// The fixture repository as the run's starting clone, and a git server
/// holding a bare copy of it as its `origin`.
pub struct OnRemote {
    pub src: tempfile::TempDir,
    pub server: tempfile::TempDir,
    pub url: String,
    host: Server,
}

impl OnRemote {
    /// The `remote` fixture on `git daemon`; `plan` replaces the fixture's
    /// plan (committed) when given.
    pub fn new(plan: Option<&str>) -> OnRemote {
        OnRemote::on(Host::Daemon, "remote", plan)
    }

    pub fn of(fixture: &str, plan: Option<&str>) -> OnRemote {
        OnRemote::on(Host::Daemon, fixture, plan)
    }

    /// The `remote` fixture on `git daemon` with `plan` committed in place
    /// of its own.
    pub fn with_plan(plan: &str) -> OnRemote {
        OnRemote::with_plan_and_config(plan, &[])
    }

    /// The same, with `(from, to)` replaced in its `.workflow/config.toml`.
    pub fn with_plan_and_config(plan: &str, edits: &[(&str, &str)]) -> OnRemote {
        OnRemote::edited(Host::Daemon, "remote", Some(plan), edits)
    }

    /// `fixture` (with `plan` in place of its own) served by `host`. Real
    /// hosts protect `main` with a pre-receive hook.
    pub fn on(host: Host, fixture: &str, plan: Option<&str>) -> OnRemote {
        OnRemote::edited(host, fixture, plan, &[])
    }

    /// [`OnRemote::on`], with `(from, to)` replaced in the fixture's
    /// `.workflow/config.toml` before the remote is made.
    pub fn edited(
        host: Host,
        fixture: &str,
        plan: Option<&str>,
        edits: &[(&str, &str)],
    ) -> OnRemote {
        let src = fixture_repo(fixture);
        if let Some(text) = plan {
            std::fs::write(src.path().join("EXECUTION_PLAN.md"), text).expect("plan");
        }
        if !edits.is_empty() {
            let config = src.path().join(".workflow/config.toml");
            let mut text = std::fs::read_to_string(&config).expect("config");
            for (from, to) in edits {
                assert!(text.contains(from), "{from} in {text}");
                text = text.replace(from, to);
            }
            std::fs::write(&config, text).expect("config");
        }
        if plan.is_some() || !edits.is_empty() {
            git(src.path(), &["commit", "-qam", "Another plan"]);
        }
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
        let bare = server.path().join("plan.git");
        let (host, url) = match host {
            Host::Daemon => {
                let daemon = Daemon::start(server.path());
                let url = daemon.url("plan.git");
                (Server::Daemon(daemon), url)
            }
            Host::Https => {
                let http = HttpHost::start(server.path());
                let url = http.url("plan.git");
                (Server::Https(http), url)
            }
            Host::Ssh => {
                let ssh = SshHost::start();
                let url = ssh.url(&bare);
                (Server::Ssh(ssh), url)
            }
        };
        if !matches!(host, Server::Daemon(_)) {
            let hook = bare.join("hooks/pre-receive");
            std::fs::write(&hook, PROTECT_MAIN).expect("hook");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let remote = OnRemote {
            src,
            server,
            url,
            host,
        };
        remote.configure(remote.src.path(), &remote.client_config());
        git(remote.src.path(), &["remote", "add", "origin", &remote.url]);
        remote
    }

    /// What a clone sets to reach the host as the authorized user.
    pub fn client_config(&self) -> Vec<(String, String)> {
        match &self.host {
            Server::Daemon(_) => Vec::new(),
            Server::Https(h) => h.client_config(super::http_host::PASSWORD),
            Server::Ssh(h) => h.client_config(),
        }
    }

    /// What a clone sets to reach the host with a wrong password (or a key
    /// the host does not know).
    pub fn impostor_config(&self) -> Vec<(String, String)> {
        match &self.host {
            Server::Daemon(_) => Vec::new(),
            Server::Https(h) => h.client_config("a-wrong-password"),
            Server::Ssh(h) => h.stranger_config(),
        }
    }

    pub fn configure(&self, repo: &Path, config: &[(String, String)]) {
        for (k, v) in config {
            git(repo, &["config", k, v]);
        }
    }

    /// A clone of the remote, as a worker machine has one.
    pub fn clone(&self, name: &str) -> PathBuf {
        let dir = self.server.path().join("machines").join(name);
        std::fs::create_dir_all(dir.parent().expect("parent")).expect("mkdir");
        let mut args: Vec<String> = Vec::new();
        for (k, v) in self.client_config() {
            args.push("-c".into());
            args.push(format!("{k}={v}"));
        }
        args.extend(["clone", "-q", &self.url, &dir.display().to_string()].map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        git(self.server.path(), &args);
        self.configure(&dir, &self.client_config());
        git(&dir, &["config", "user.name", "Worker"]);
        git(&dir, &["config", "user.email", "worker@example.com"]);
        dir
    }

    pub fn bare(&self) -> PathBuf {
        self.server.path().join("plan.git")
    }

    /// The `git daemon` serving the remote (a remote on another host has
    /// none).
    pub fn daemon(&self) -> &Daemon {
        match &self.host {
            Server::Daemon(d) => d,
            _ => panic!("the remote is not served by git daemon"),
        }
    }

    /// The HTTPS host serving the remote (to throttle it).
    pub fn https(&self) -> &HttpHost {
        match &self.host {
            Server::Https(h) => h,
            _ => panic!("the remote is not served over HTTPS"),
        }
    }

    /// The `git daemon` serving the remote, to stop and start it again.
    pub fn daemon_mut(&mut self) -> &mut Daemon {
        match &mut self.host {
            Server::Daemon(d) => d,
            _ => panic!("the remote is not served by git daemon"),
        }
    }

    /// `git supervisor start --remote origin` in the starting clone, its
    /// agents run by the fake agent with `script`.
    pub fn start(&self, script: &Path) {
        let out = super::run_env(
            self.src.path(),
            &["start", "--yes", "--remote", "origin"],
            &[("FAKE_AGENT_SCRIPT", script)],
        );
        assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    }

    /// The remote's transition subjects, oldest first.
    pub fn subjects(&self) -> Vec<String> {
        git(
            &self.bare(),
            &["log", "--reverse", "--format=%s", "refs/supervisor/state"],
        )
        .lines()
        .map(str::to_string)
        .collect()
    }

    /// The full message of the newest transition whose subject matches.
    pub fn transition(&self, subject: &str) -> String {
        git(
            &self.bare(),
            &[
                "log",
                "-1",
                "--format=%B",
                &format!("--grep={subject}"),
                "refs/supervisor/state",
            ],
        )
    }

    /// Every sprint of `units` (with `sprints` each) COMPLETED exactly
    /// once, in one line of transitions.
    pub fn assert_each_completed_once(&self, units: &[&str], sprints: u32) {
        let subjects = self.subjects();
        for u in units {
            for n in 1..=sprints {
                let done = format!("{u}: sprint {n} RUNNING -> COMPLETED");
                assert_eq!(
                    subjects.iter().filter(|l| **l == done).count(),
                    1,
                    "{done} exactly once: {subjects:#?}"
                );
            }
        }
        assert_eq!(
            git(
                &self.bare(),
                &["rev-list", "--min-parents=2", "refs/supervisor/state"]
            ),
            "",
            "one line of transitions, never a merge of two"
        );
    }

    /// `git fsck` of the remote finds nothing wrong.
    pub fn assert_fsck_clean(&self) {
        let out = command("git", &self.bare())
            .args(["fsck", "--full", "--strict"])
            .output()
            .expect("git fsck runs");
        assert!(
            out.status.success(),
            "git fsck: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// alpha's first sprint: the first agent on it stays at work (until it is
/// ended); the one that takes over finishes it. The first agent prints
/// while its worker runs, so `silence_kill` cannot end it before the test
/// stops that worker, however slow the machine; once the test says so
/// ([`holder_stopped`]) it falls silent and its wrapper ends it.
pub const ALPHA_STAYS_THEN_FINISHES: &str =
    "?${FAKE_AGENT_SCRIPT}/alpha.slept write alpha-1.txt done
?${FAKE_AGENT_SCRIPT}/alpha.slept commit-all alpha: sprint 1
?${FAKE_AGENT_SCRIPT}/alpha.slept exit 0
write ${FAKE_AGENT_SCRIPT}/alpha.slept yes
spawn ${FAKE_AGENT_SCRIPT}/alpha.ticker while [ ! -e ${FAKE_AGENT_SCRIPT}/holder.stopped ]; do echo at work; sleep 0.3; done
sleep 120000
";

/// Tell alpha's first agent (see [`ALPHA_STAYS_THEN_FINISHES`]) that its
/// worker was stopped: it falls silent.
pub fn holder_stopped(script: &Path) {
    std::fs::write(script.join("holder.stopped"), "yes").expect("holder.stopped");
}

/// A plan of independent units, each with `sprints` sprints whose exit
/// criteria are read, not run.
pub fn plan(units: &[&str], sprints: u32) -> String {
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
pub const WRITES_AND_COMMITS: &str = "write ${SUPERVISOR_UNIT}-${SUPERVISOR_SPRINT}.txt done\ncommit-all ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n";

/// The worker whose claim on alpha's first sprint the remote recorded: the
/// claim names it, `Supervisor-Worker: <host>/<pid>`. A claim is its lease
/// first; its RUNNING transition follows within about half the lease.
pub fn holder_of_alpha(remote: &OnRemote) -> u32 {
    let subject = "alpha: sprint 1 DISPATCHED -> RUNNING";
    wait_until("alpha's claim recorded", 30, || {
        !remote.transition(subject).trim().is_empty()
    });
    let claim = remote.transition(subject);
    claim
        .lines()
        .find_map(|l| l.strip_prefix("Supervisor-Worker: "))
        .and_then(|w| w.rsplit('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the claim names its worker: {claim}"))
}

/// A worker that reports in JSON when it leaves.
pub fn worker(clone: &Path, script: &Path, extra: &[&str]) -> Child {
    worker_with(clone, &[("FAKE_AGENT_SCRIPT", script)], extra)
}

/// A worker whose agents get `env`, reporting in JSON when it leaves.
pub fn worker_with(clone: &Path, env: &[(&str, &Path)], extra: &[&str]) -> Child {
    worker_in("json", clone, env, extra)
}

/// A worker that says what it does, a line at a time, on stdout.
pub fn text_worker(clone: &Path, script: &Path, extra: &[&str]) -> Child {
    worker_in("text", clone, &[("FAKE_AGENT_SCRIPT", script)], extra)
}

fn worker_in(format: &str, clone: &Path, env: &[(&str, &Path)], extra: &[&str]) -> Child {
    let mut cmd = command(super::bin(), clone);
    cmd.args(["worker", "--format", format]).args(extra);
    // Idle workers in tests look again within a second, as they did
    // before the back-off: tests wait for runs, not for quiet workers.
    if !extra.contains(&"--poll-max") {
        cmd.args(["--poll-max", "1s"]);
    }
    cmd.envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("the worker starts")
}

/// Wait for a worker to leave (killing it after `limit`): its exit code,
/// stdout and stderr.
pub fn leave(mut child: Child, limit: Duration) -> (i32, String, String) {
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

/// Wait for a worker to leave (killing it after `limit`); its JSON summary.
pub fn summary(child: Child, limit: Duration) -> serde_json::Value {
    let (code, stdout, stderr) = leave(child, limit);
    let summary: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("a JSON summary ({e}): {stdout}\n{stderr}"));
    assert_eq!(code, expected_exit(&summary), "worker: {stdout}\n{stderr}");
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "one summary line: {stdout}"
    );
    summary
}

/// The exit status a worker's summary calls for: 3 when the run ended
/// without completing, or the worker was asked to leave before it did;
/// else 0.
pub fn expected_exit(summary: &serde_json::Value) -> i32 {
    let completed = summary["overall"] == "completed";
    let ended = summary["finished"] == true || summary["terminated"] == true;
    if ended && !completed {
        3
    } else {
        0
    }
}

/// `(pid, state)` of every child of `parent`, from `/proc`.
pub fn children_of(parent: u32) -> Vec<(u32, char)> {
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

/// Processes whose environment carries `needle` (the agents and wrappers
/// started with one test's scripts).
pub fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// A worker's stdout as it comes, read by a thread.
pub fn lines_of(w: &mut Child) -> (Arc<Mutex<String>>, std::thread::JoinHandle<()>) {
    let seen = Arc::new(Mutex::new(String::new()));
    let out = w.stdout.take().expect("stdout");
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                let mut text = seen.lock().expect("lock");
                text.push_str(&line);
                text.push('\n');
            }
        })
    };
    (seen, reader)
}
