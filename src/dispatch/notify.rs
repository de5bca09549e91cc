//! Telling a person: each event that needs or interests one (a unit
//! BLOCKED, a sprint to confirm, a usage-limit pause and its end, a failed
//! phase build, the run finished) runs `[notify] command` with the event as
//! JSON on stdin and in `SUPERVISOR_*` variables.
//!
//! Never in the engine's way: the engine only writes the event into a
//! queue directory (one file, written beside and renamed) and starts the
//! detached `git-supervisor notify-run DIR`, then goes on. That process
//! holds the queue's lock and runs the queued commands one at a time, in
//! the order of the transitions that raised them (their file names), each
//! bounded by `[notify] timeout` (its whole process group is killed then).
//! A failure or a timeout is logged in `DIR/notify.log`, never retried,
//! never a failed transition. A second drainer finds the lock held and
//! leaves; the holder looks once more after it lets go, so no event waits
//! for the next one.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use serde::Deserialize;
use serde::Serialize;

/// One event for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// `blocked`, `confirm`, `usage_limit`, `limit_ended`, `build_failed`,
    /// `run_completed`, `run_stopped`, `run_killed`.
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprint: Option<String>,
    pub message: String,
    /// The run id and its operation name.
    pub run: String,
    pub operation: String,
    /// The repository's working tree.
    pub repository: String,
    /// When it happened (the transition's time).
    pub at: String,
    /// The transition's `Supervisor-Seq`.
    pub seq: u64,
}

/// A queued notification and how to deliver it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Queued {
    pub command: Vec<String>,
    pub timeout_ms: u64,
    pub notification: Notification,
}

const LOG: &str = "notify.log";
const LOCK: &str = "drain.lock";

/// Queue `q` in `dir` as the `n`-th notification of transition `seq`.
pub fn enqueue(dir: &Path, n: usize, q: &Queued) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let name = format!("{:012}-{n:03}.json", q.notification.seq);
    let path = dir.join(&name);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, serde_json::to_vec(q).map_err(std::io::Error::other)?)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Start `exe notify-run DIR`, detached: it outlives the engine.
pub fn spawn_drain(exe: &Path, dir: &Path) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(LOG))?;
    let mut cmd = Command::new(exe);
    for var in crate::base::runtime::REPOSITORY_LOCATION {
        cmd.env_remove(var);
    }
    let child = cmd
        .arg("notify-run")
        .arg(dir)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .spawn()?;
    // Reaped with the wrappers this process started.
    super::adopt(child);
    Ok(())
}

/// The queued files, oldest transition first.
fn queued(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

/// Deliver everything queued in `dir`, in order, while holding its lock;
/// leave at once when another drainer holds it.
pub fn drain(dir: &Path) -> std::io::Result<()> {
    loop {
        let ran = crate::base::lock::with_lock(&dir.join(LOCK), Duration::ZERO, || {
            while let Some(file) = queued(dir).into_iter().next() {
                deliver_file(dir, &file);
                let _ = std::fs::remove_file(&file);
            }
        })?;
        // Held by another drainer (it looks again after letting go), or
        // everything delivered and nothing came meanwhile.
        if ran.is_none() || queued(dir).is_empty() {
            return Ok(());
        }
    }
}

fn deliver_file(dir: &Path, file: &Path) {
    let q: Queued = match std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(q) => q,
        Err(e) => {
            log(
                dir,
                &format!("{}: unreadable, dropped: {e}", file.display()),
            );
            return;
        }
    };
    if let Err(e) = deliver(&q) {
        log(
            dir,
            &format!(
                "{} ({}) for `{}`: {e}",
                q.notification.event,
                q.notification.at,
                q.command.join(" ")
            ),
        );
    }
}

fn log(dir: &Path, line: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(LOG))
    {
        let _ = writeln!(f, "git-supervisor notify: {line}");
    }
}

/// The variables a notify command gets beside the JSON on its stdin.
pub fn env_of(n: &Notification) -> Vec<(&'static str, String)> {
    vec![
        ("SUPERVISOR_EVENT", n.event.clone()),
        ("SUPERVISOR_UNIT", n.unit.clone().unwrap_or_default()),
        ("SUPERVISOR_SPRINT", n.sprint.clone().unwrap_or_default()),
        ("SUPERVISOR_MESSAGE", n.message.clone()),
        ("SUPERVISOR_RUN", n.run.clone()),
        ("SUPERVISOR_OPERATION", n.operation.clone()),
        ("SUPERVISOR_REPOSITORY", n.repository.clone()),
        ("SUPERVISOR_AT", n.at.clone()),
    ]
}

/// Run the command once: the JSON on stdin, bounded in time.
pub fn deliver(q: &Queued) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let (program, args) = q.command.split_first().ok_or("the command is empty")?;
    let mut child = Command::new(program)
        .args(args)
        .envs(env_of(&q.notification))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let json = serde_json::to_string(&q.notification).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin is not an error.
        let _ = writeln!(stdin, "{json}");
    }
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut e) = stderr {
            use std::io::Read;
            let _ = e.read_to_string(&mut text);
        }
        text
    });
    let deadline = Instant::now() + Duration::from_millis(q.timeout_ms.max(100));
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() >= deadline => {
                let _ = super::signal_group(child.id(), libc::SIGKILL);
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    };
    match status {
        Some(s) if s.success() => Ok(()),
        Some(s) => {
            let err = reader.join().unwrap_or_default();
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Err(format!(
                "exit {}{}",
                s.code().map_or("by a signal".into(), |c| c.to_string()),
                if last.is_empty() {
                    String::new()
                } else {
                    format!(": {}", last.trim())
                }
            ))
        }
        None => Err(format!(
            "timed out after {}; its processes were killed",
            humantime::format_duration(Duration::from_millis(q.timeout_ms))
        )),
    }
}
