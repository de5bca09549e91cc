//! Agent processes: the job description the engine writes, the detached
//! `agent-run` wrapper that runs one agent, and what the wrapper reports.
//!
//! The supervisor never runs an agent as its own child. The engine writes a
//! job file, publishes the DISPATCHED transition, then starts
//! `git-supervisor agent-run <job>` in its own process group. The wrapper
//! holds `supervisor/agents/<unit>.lock` while alive (if the lock can be
//! taken, the agent is gone), tees the agent's output to its log, watches for
//! silence, writes a report file when the agent exits, and wakes the engine.
//! Synchronous by design: each wrapper is its own small process, so threads
//! and blocking waits are all it needs.

pub mod placeholders;
pub mod prompt;
pub mod result;
pub mod runtime_name;

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use serde::Deserialize;
use serde::Serialize;

use crate::config::PromptDelivery;
use crate::plan::TaskType;

/// Empty polls (no new output) before an agent is reported unresponsive, and
/// before it is killed (spec §O-82).
pub const UNRESPONSIVE_NOTICE: u32 = 5;
pub const UNRESPONSIVE_KILL: u32 = 10;
/// Failed polls of a deferred sprint before the status says so (§O-83).
pub const DEFERRED_NOTICE: u32 = 20;

/// Everything the wrapper needs, written by the engine before dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    pub run_id: String,
    pub unit: String,
    pub unit_dir: String,
    pub sprint: String,
    pub sprint_name: String,
    pub attempt: u32,
    pub max_retries: u32,
    pub model: String,
    pub max_turns: u32,
    pub task_type: TaskType,
    /// The agent's argv, placeholders already filled in.
    pub argv: Vec<String>,
    pub prompt: PromptDelivery,
    pub prompt_file: PathBuf,
    pub result_file: PathBuf,
    pub log_file: PathBuf,
    pub report_file: PathBuf,
    pub lock_file: PathBuf,
    /// The project root (absolute): the agent's working directory.
    pub workdir: PathBuf,
    pub poll_interval_ms: u64,
    /// For deferred sprints: the checks the wrapper polls instead of running
    /// an agent.
    pub deferred_checks: Vec<String>,
}

impl Job {
    pub fn stem(unit: &str, sprint: &str, attempt: u32) -> String {
        runtime_name::stem(unit, sprint, attempt)
    }

    /// The environment contract of design §5.
    pub fn env(&self) -> Vec<(String, String)> {
        let p = |p: &Path| p.display().to_string();
        vec![
            ("SUPERVISOR_RUN_ID".into(), self.run_id.clone()),
            ("SUPERVISOR_UNIT".into(), self.unit.clone()),
            ("SUPERVISOR_UNIT_DIR".into(), self.unit_dir.clone()),
            ("SUPERVISOR_SPRINT".into(), self.sprint.clone()),
            ("SUPERVISOR_SPRINT_NAME".into(), self.sprint_name.clone()),
            ("SUPERVISOR_ATTEMPT".into(), self.attempt.to_string()),
            (
                "SUPERVISOR_MAX_RETRIES".into(),
                self.max_retries.to_string(),
            ),
            ("SUPERVISOR_MODEL".into(), self.model.clone()),
            ("SUPERVISOR_MAX_TURNS".into(), self.max_turns.to_string()),
            ("SUPERVISOR_PROMPT_FILE".into(), p(&self.prompt_file)),
            ("SUPERVISOR_RESULT_FILE".into(), p(&self.result_file)),
            ("SUPERVISOR_PROJECT_ROOT".into(), p(&self.workdir)),
            ("SUPERVISOR_WORKDIR".into(), p(&self.workdir)),
        ]
    }
}

/// What the wrapper says about its agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The wrapper's own pid (its process group too).
    #[serde(default)]
    pub wrapper_pid: Option<u32>,
    #[serde(default)]
    pub started: bool,
    #[serde(default)]
    pub pid: Option<u32>,
    #[serde(default)]
    pub finished: bool,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Why the wrapper ended the agent itself (unresponsive), if it did.
    #[serde(default)]
    pub killed: Option<String>,
    /// Unresponsive notices already recorded (so each is recorded once).
    #[serde(default)]
    pub notices: Vec<String>,
}

impl Report {
    pub fn read(path: &Path) -> Option<Report> {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| toml::from_str(&t).ok())
    }

    /// Write beside and rename: a reader never sees half a report.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        let text = toml::to_string(self).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path)
    }
}

/// Fill `{model} {max_turns} {prompt_file} {unit} {sprint}` in an argv
/// template; with `prompt = "arg"` the prompt is appended as the last
/// argument.
pub fn resolve_argv(template: &[String], job: &Job, prompt_text: &str) -> Vec<String> {
    let (turns, prompt_file) = (
        job.max_turns.to_string(),
        job.prompt_file.display().to_string(),
    );
    let mut argv = placeholders::fill(
        template,
        &[
            ("{model}", &job.model),
            ("{max_turns}", &turns),
            ("{prompt_file}", &prompt_file),
            ("{unit}", &job.unit),
            ("{sprint}", &job.sprint),
        ],
    );
    if job.prompt == PromptDelivery::Arg {
        argv.push(prompt_text.to_string());
    }
    argv
}

static SPAWNED: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// Start the wrapper for `job_file` detached, in its own process group.
/// Returns its pid. The child is reaped by [`reap`] in long-lived commands;
/// short-lived ones exit and leave it to init.
pub fn spawn_wrapper(exe: &Path, job_file: &Path, log: &Path) -> std::io::Result<u32> {
    use std::os::unix::process::CommandExt;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    let child = Command::new(exe)
        .arg("agent-run")
        .arg(job_file)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .spawn()?;
    let pid = child.id();
    if let Ok(mut v) = SPAWNED.lock() {
        v.push(child);
    }
    Ok(pid)
}

/// Reap wrappers this process started that have exited.
pub fn reap() {
    if let Ok(mut v) = SPAWNED.lock() {
        v.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
    }
}

/// Whether process `pid` exists.
pub fn alive(pid: u32) -> bool {
    // Signal 0 checks existence and permission without sending anything.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Send `signal` to the process group `pgid`.
pub fn signal_group(pgid: u32, signal: i32) -> std::io::Result<()> {
    let rc = unsafe { libc::killpg(pgid as libc::pid_t, signal) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The last `n` lines of a log file.
pub fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// What happened while the wrapper ran, for the engine's notices.
pub enum WrapperEvent {
    Unresponsive { polls: u32 },
    DeferredWaiting { polls: u32, condition: String },
}

/// The wrapper's main loop. `on_event` records notices (it gets the event and
/// returns nothing; failures to record are not fatal); `wake` runs the
/// engine. Returns the agent's exit code.
pub fn run_wrapper(
    job: &Job,
    mut on_event: impl FnMut(WrapperEvent),
    mut wake: impl FnMut(),
) -> std::io::Result<i32> {
    let mut report = Report::read(&job.report_file).unwrap_or_default();
    report.wrapper_pid = Some(std::process::id());
    report.write(&job.report_file)?;
    let poll = Duration::from_millis(job.poll_interval_ms.max(10));
    let outcome = crate::gate::lock::with_lock(
        &job.lock_file,
        Duration::from_secs(5),
        || -> std::io::Result<i32> {
            if job.task_type == TaskType::Deferred && !job.deferred_checks.is_empty() {
                report.started = true;
                report.pid = Some(std::process::id());
                report.write(&job.report_file)?;
                wake();
                let code = poll_deferred(job, poll, &mut on_event);
                report.finished = true;
                report.exit_code = Some(code);
                report.write(&job.report_file)?;
                return Ok(code);
            }
            let mut log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&job.log_file)?;
            let prompt_text = std::fs::read_to_string(&job.prompt_file).unwrap_or_default();
            let Some((program, args)) = job.argv.split_first() else {
                writeln!(log, "git-supervisor: the agent command is empty")?;
                report.finished = true;
                report.exit_code = Some(127);
                report.write(&job.report_file)?;
                return Ok(127);
            };
            use std::os::unix::process::CommandExt;
            let mut cmd = Command::new(program);
            cmd.args(args)
                .current_dir(&job.workdir)
                .envs(job.env())
                .env_remove("GIT_SUPERVISOR_INTERNAL")
                .stdout(log.try_clone()?)
                .stderr(log.try_clone()?)
                .process_group(0)
                .stdin(if job.prompt == PromptDelivery::Stdin {
                    Stdio::piped()
                } else {
                    Stdio::null()
                });
            let mut child = match cmd.spawn() {
                Ok(c) => c,
                Err(e) => {
                    writeln!(log, "git-supervisor: cannot start {program}: {e}")?;
                    report.finished = true;
                    report.exit_code = Some(127);
                    report.write(&job.report_file)?;
                    return Ok(127);
                }
            };
            let agent_pid = child.id();
            if let Some(mut stdin) = child.stdin.take() {
                // A closed pipe just means the agent did not read its prompt.
                let _ = stdin.write_all(prompt_text.as_bytes());
            }
            report.started = true;
            report.pid = Some(agent_pid);
            report.write(&job.report_file)?;
            wake();

            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let status = child.wait();
                let _ = tx.send(status);
            });
            let mut last_size = std::fs::metadata(&job.log_file)
                .map(|m| m.len())
                .unwrap_or(0);
            let mut empty_polls = 0u32;
            let code = loop {
                match rx.recv_timeout(poll) {
                    Ok(status) => {
                        let status = status?;
                        use std::os::unix::process::ExitStatusExt;
                        break status
                            .code()
                            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        let size = std::fs::metadata(&job.log_file)
                            .map(|m| m.len())
                            .unwrap_or(0);
                        if size == last_size {
                            empty_polls += 1;
                        } else {
                            empty_polls = 0;
                            last_size = size;
                        }
                        if empty_polls == UNRESPONSIVE_NOTICE {
                            on_event(WrapperEvent::Unresponsive { polls: empty_polls });
                        }
                        if empty_polls >= UNRESPONSIVE_KILL {
                            report.killed = Some(format!(
                            "no new output for {UNRESPONSIVE_KILL} poll intervals; the agent was killed"
                        ));
                            let _ = signal_group(agent_pid, libc::SIGKILL);
                            // Reap it; its status is ours to report, not its own.
                            let _ = rx.recv();
                            break 137;
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break 1,
                }
            };
            report.finished = true;
            report.exit_code = Some(code);
            report.write(&job.report_file)?;
            Ok(code)
        },
    )?;
    let code = match outcome {
        Some(result) => result?,
        None => {
            return Err(std::io::Error::other(format!(
                "another agent holds {}; not starting a second one",
                job.lock_file.display()
            )))
        }
    };
    // The liveness lock is released: wake the engine to verify and go on.
    wake();
    Ok(code)
}

/// Poll a deferred sprint's checks every poll interval until they pass.
/// Waiting is not failure: polls never count attempts.
fn poll_deferred(job: &Job, poll: Duration, on_event: &mut impl FnMut(WrapperEvent)) -> i32 {
    let mut polls = 0u32;
    let start = Instant::now();
    loop {
        let passed = job.deferred_checks.iter().all(|c| {
            Command::new("sh")
                .arg("-c")
                .arg(c)
                .current_dir(&job.workdir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        if passed {
            return 0;
        }
        polls += 1;
        if let Ok(mut log) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&job.log_file)
        {
            let _ = writeln!(
                log,
                "git-supervisor: deferred check not met yet (poll {polls}, {:.0}s)",
                start.elapsed().as_secs_f64()
            );
        }
        if polls == DEFERRED_NOTICE {
            on_event(WrapperEvent::DeferredWaiting {
                polls,
                condition: job.deferred_checks.join(" && "),
            });
        }
        std::thread::sleep(poll);
    }
}
