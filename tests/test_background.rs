//! Background sprints: the process a `background` sprint's agent starts and
//! leaves running outlives the agent, completes the sprint only while it
//! runs, is shown by `status`, and ends with the run (`stop`, `killall`,
//! completion) unless `[run] keep_background = true`. Real git, real
//! processes, real signals.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::wait_until;
use crate::common::Output;
use crate::common::SUCCEED;

fn sv(repo: &Path, scripts: &Path, args: &[&str]) -> Output {
    run_env(repo, args, &[("FAKE_AGENT_SCRIPT", scripts)])
}

/// The server's agent starts a long process the plain way and another in
/// a session of its own (as `setsid`/daemons do), then exits.
const SERVER: &str = "spawn ${SUPERVISOR_PROJECT_ROOT}/server.pid exec sleep 300
spawn ${SUPERVISOR_PROJECT_ROOT}/daemon.pid exec setsid sleep 301
print the server is up
result complete the server is running
";

/// The client's agent works only once the test lets it.
fn client() -> String {
    format!("await ${{SUPERVISOR_PROJECT_ROOT}}/client-go\n{SUCCEED}")
}

/// A process the test started through an agent: killed when the test ends,
/// whatever happened, so no test leaves one behind.
struct Process {
    pid: u32,
    start: u64,
}

impl Process {
    fn from_file(path: &Path) -> Process {
        wait_until(&format!("{}", path.display()), 30, || {
            std::fs::read_to_string(path).is_ok_and(|t| !t.trim().is_empty())
        });
        let pid: u32 = std::fs::read_to_string(path)
            .expect("pid file")
            .trim()
            .parse()
            .expect("a pid");
        let start = stat(pid).map(|(_, start)| start).unwrap_or(0);
        Process { pid, start }
    }

    /// Running, and still the process that was started (not a reused pid).
    fn running(&self) -> bool {
        stat(self.pid).is_some_and(|(state, start)| state != 'Z' && start == self.start)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.running() {
            // SAFETY: kill(2) on a process this test started.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}

/// The state and start time of `pid` from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = text.rsplit_once(')')?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.first()?.chars().next()?, f.get(19)?.parse().ok()?))
}

fn status_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("status JSON")
}

/// The server's sprint state in `status --format json`.
fn server_completed(dir: &Path) -> bool {
    status_json(dir)["units"][0]["sprint_completed"] == 1
}

/// Start the run and tick it until the server's sprint is COMPLETED; the
/// processes its agent started.
fn start_server(dir: &Path, s: &Path) -> (Process, Process) {
    assert_eq!(sv(dir, s, &["start", "--yes"]).status, 0);
    wait_until("the server's sprint to complete", 60, || {
        let out = sv(dir, s, &["wait", "--timeout", "1s"]);
        assert_ne!(out.status, 0, "the run ended early: {}", out.stdout);
        server_completed(dir)
    });
    (
        Process::from_file(&dir.join("server.pid")),
        Process::from_file(&dir.join("daemon.pid")),
    )
}

#[test]
fn a_background_process_outlives_its_agent_is_shown_and_ends_with_the_run() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    let s = scripts(&[("server.txt", SERVER), ("client.txt", &client())]);
    let (server, daemon) = start_server(dir, s.path());
    // The agent exited (its sprint is recorded); what it started runs on.
    assert!(server.running(), "the server was ended with its agent");
    assert!(
        daemon.running(),
        "the setsid daemon was ended with its agent"
    );
    let log = run(dir, &["log"]).stdout;
    assert!(
        log.contains(&format!("pid {} (`", server.pid)) && log.contains("Confirmed running"),
        "{log}"
    );
    // status shows both, in text and JSON. (The command line is what the
    // process ran when its agent exited: `sh -c …` or `setsid …` if it had
    // not exec'd yet.)
    let text = run(dir, &["status"]).stdout;
    let line = |p: &Process, state: &str| {
        text.lines().any(|l| {
            l.starts_with(&format!(
                "server: sprint 1's background process {} (`",
                p.pid
            )) && l.ends_with(&format!(
                "sleep {}`) {state}.",
                if p.pid == server.pid { 300 } else { 301 }
            ))
        })
    };
    assert!(
        line(&server, "is running") && line(&daemon, "is running"),
        "{text}"
    );
    let json = status_json(dir);
    let listed = json["background"].as_array().expect("background list");
    assert_eq!(listed.len(), 2, "{json}");
    assert_eq!(listed[0]["unit"], "server", "{json}");
    assert_eq!(listed[0]["pid"], server.pid, "{json}");
    assert_eq!(listed[0]["running"], true, "{json}");
    // The run ends: so do they.
    std::fs::write(dir.join("client-go"), "").expect("go");
    let out = sv(dir, s.path(), &["wait", "--timeout", "60s"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    wait_until("the server to end with the run", 10, || {
        !server.running() && !daemon.running()
    });
    let text = run(dir, &["status"]).stdout;
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "server: sprint 1's background process {} (`",
            server.pid
        )) && l.ends_with("sleep 300`) is no longer running.")),
        "{text}"
    );
    let log = run(dir, &["log"]).stdout;
    assert!(
        log.contains("Ended the background processes of sprint 1") && log.contains("the run ended"),
        "{log}"
    );
}

#[test]
fn stop_ends_a_background_process() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    let s = scripts(&[("server.txt", SERVER), ("client.txt", &client())]);
    let (server, daemon) = start_server(dir, s.path());
    assert!(server.running() && daemon.running());
    let out = sv(dir, s.path(), &["stop", "--timeout", "1s"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        !server.running() && !daemon.running(),
        "stop left the server running"
    );
    assert!(
        out.stdout.contains("Background process ended: server:"),
        "{}",
        out.stdout
    );
}

#[test]
fn killall_ends_a_background_process() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    let s = scripts(&[("server.txt", SERVER), ("client.txt", &client())]);
    let (server, daemon) = start_server(dir, s.path());
    assert!(server.running() && daemon.running());
    let out = sv(dir, s.path(), &["killall"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        !server.running() && !daemon.running(),
        "killall left the server running"
    );
    assert!(
        out.stdout.contains("Background process ended: server:"),
        "{}",
        out.stdout
    );
}

#[test]
fn keep_background_leaves_it_running_after_the_run() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    let config = dir.join(".workflow/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text = text.replace("[run]\n", "[run]\nkeep_background = true\n");
    std::fs::write(&config, text).expect("config");
    git(dir, &["commit", "-q", "-am", "Keep the server"]);
    let s = scripts(&[("server.txt", SERVER), ("client.txt", &client())]);
    let (server, daemon) = start_server(dir, s.path());
    std::fs::write(dir.join("client-go"), "").expect("go");
    let out = sv(dir, s.path(), &["wait", "--timeout", "60s"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    // Give an ending every chance to happen before looking.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        server.running() && daemon.running(),
        "keep_background: the server was ended"
    );
    let text = run(dir, &["status"]).stdout;
    assert!(text.contains("sleep 300`) is running."), "{text}");
}

/// An agent that says the server is up when nothing it started still runs
/// does not complete the sprint: it fails the attempt.
#[test]
fn a_background_sprint_completes_only_while_its_process_runs() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    let s = scripts(&[
        (
            "server.txt",
            "spawn ${SUPERVISOR_PROJECT_ROOT}/server.pid exit 0\nsleep 200\nresult complete the server is running\n",
        ),
        ("client.txt", &client()),
    ]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    // The pinned clock moves a second per transition, so the retries may
    // all have run by the time the test looks: each failed alike.
    wait_until("the server's verdict", 60, || {
        let _ = sv(dir, s.path(), &["wait", "--timeout", "1s"]);
        let state = status_json(dir)["units"][0]["current"]["state"].clone();
        state == "BACKOFF" || state == "FATAL"
    });
    let json = status_json(dir);
    let server = &json["units"][0];
    assert_eq!(server["sprint_completed"], 0, "{json}");
    assert!(
        server["current"]["last_failure"]
            .as_str()
            .is_some_and(|f| f.contains("no process its agent started is running")),
        "{json}"
    );
    assert_eq!(json["units"][1]["state"], "NOT_STARTED", "{json}");
    let _ = sv(dir, s.path(), &["killall"]);
}

/// On a remote: the worker that ran a background sprint records the
/// process its agent left (its verdict needs it running), keeps it while
/// the run goes on, and ends it when the run has ended.
#[test]
fn a_worker_keeps_a_background_process_until_the_run_ends() {
    use crate::common::on_remote::summary;
    use crate::common::on_remote::worker_with;
    use crate::common::on_remote::OnRemote;
    let remote = OnRemote::of("background", None);
    let pids = tempfile::tempdir().expect("tempdir");
    let s = scripts(&[
        (
            "server.txt",
            "spawn ${PIDS}/server.pid exec sleep 300\nprint the server is up\nresult complete the server is running\n",
        ),
        ("client.txt", &format!("await ${{PIDS}}/client-go\n{SUCCEED}")),
    ]);
    remote.start(s.path());
    let clone = remote.clone("w1");
    let w = worker_with(
        &clone,
        &[("FAKE_AGENT_SCRIPT", s.path()), ("PIDS", pids.path())],
        &["--poll", "100ms"],
    );
    let server = Process::from_file(&pids.path().join("server.pid"));
    let bodies = || {
        git(
            &remote.bare(),
            &["log", "--format=%B", "refs/supervisor/state"],
        )
    };
    wait_until("the server's sprint to complete on the remote", 60, || {
        bodies().contains("Confirmed running")
    });
    assert!(server.running(), "the server was ended with its agent");
    assert!(
        bodies().contains(&format!("pid {} (`", server.pid)),
        "{}",
        bodies()
    );
    std::fs::write(pids.path().join("client-go"), "").expect("go");
    let done = summary(w, std::time::Duration::from_secs(120));
    assert_eq!(done["overall"], "completed", "{done}");
    wait_until("the server to be ended with the run", 30, || {
        !server.running()
    });
    assert!(
        bodies().contains("Ended the background process"),
        "{}",
        bodies()
    );
}

/// `start --wait` returns once the run has ended and so have the
/// processes the run's end ends: a script's next step never finds the old
/// server still up.
#[test]
fn start_wait_returns_after_the_runs_background_processes_ended() {
    let repo = fixture_repo("background");
    let dir = repo.path();
    // A server slow to end: it ignores SIGTERM, so ending it takes the
    // kill grace (2s), all of it after the run's end is recorded.
    let server = "spawn ${SUPERVISOR_PROJECT_ROOT}/server.pid trap '' TERM; exec sleep 300\nresult complete the server is running\n";
    let client = format!("sleep 500\n{SUCCEED}");
    let s = scripts(&[("server.txt", server), ("client.txt", &client)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let server = Process::from_file(&dir.join("server.pid"));
    assert!(
        !server.running(),
        "still running when `start --wait` returned: {}",
        out.stdout
    );
}
