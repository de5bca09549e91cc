//! Agent processes: the job description the engine writes, the detached
//! `agent-run` wrapper that runs one agent, and what the wrapper reports.
//!
//! The supervisor never runs an agent as its own child. The engine writes a
//! job file, publishes the DISPATCHED transition, then starts
//! `git-supervisor agent-run <job>` in its own process group. The wrapper
//! holds `supervisor/agents/<unit>.lock` while alive (if the lock can be
//! taken, the agent is gone), tees the agent's output to its log, watches its
//! activity ([`liveness`]), ends its whole process tree when it ends
//! ([`reap`]), runs it again after a rate limit ([`ratelimit`]), writes a
//! report file when the agent exits, wakes the engine, and stays until a
//! failed sprint's retry time to wake it again. SIGTERM asks it to end its
//! agent (what `stop` and `killall` send). Synchronous by design: each
//! wrapper is its own small process, so threads and blocking waits are all
//! it needs.

pub mod background;
pub mod liveness;
pub mod notify;
pub mod placeholders;
pub mod prompt;
pub mod ratelimit;
pub mod reading;
pub mod reap;
pub mod result;
mod stale;
pub mod template_vars;
pub mod usage_limit;
mod wrapper;

pub use wrapper::jitter_seed;
pub use wrapper::run_wrapper;
pub use wrapper::terminating;
pub use wrapper::WrapperEvent;
pub use wrapper::WrapperHost;

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::Mutex;

use serde::Deserialize;
use serde::Serialize;

use crate::config::PromptDelivery;
use crate::plan::TaskType;

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
    /// Liveness, kill grace and rate-limit waits (see [`liveness`]).
    #[serde(default)]
    pub timing: liveness::Timing,
    /// For deferred sprints: the checks the wrapper polls instead of running
    /// an agent.
    pub deferred_checks: Vec<String>,
    /// The conversation this dispatch continues (a PARTIAL sprint's previous
    /// dispatch reported it): `{session_id}`, `SUPERVISOR_SESSION_ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// `[workspace] setup` for a new worktree, run before the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Setup>,
    /// The worker that claimed the sprint on a run that lives on a remote:
    /// when that process is gone, its claim will lapse, so the agent ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_pid: Option<u32>,
    /// The unit's slot (`SUPERVISOR_SLOT`: its place in the plan, 1-based;
    /// no other live unit holds it) and port (`SUPERVISOR_PORT`).
    #[serde(default)]
    pub slot: u32,
    #[serde(default)]
    pub port: u32,
}

/// A worktree's setup command and the file that says it has passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub command: String,
    pub done_marker: PathBuf,
}

impl Job {
    pub fn stem(unit: &str, sprint: &str, attempt: u32) -> String {
        crate::base::runtime_name::stem(unit, sprint, attempt)
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
            (
                "SUPERVISOR_SESSION_ID".into(),
                self.session_id.clone().unwrap_or_default(),
            ),
            ("SUPERVISOR_SLOT".into(), self.slot.to_string()),
            ("SUPERVISOR_PORT".into(), self.port.to_string()),
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
    /// A background sprint's agent exited and left these running: they
    /// were kept out of the tree the wrapper ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub background: Vec<crate::machine::BackgroundProcess>,
    /// The agent ended on a usage limit of its subscription: the engine
    /// pauses the agent instead of charging the attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_limit: Option<ReportedLimit>,
}

/// A usage limit as the wrapper read it from the agent's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedLimit {
    /// The agent's program (`claude`).
    pub agent: String,
    /// When it resets (RFC 3339), when the agent said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<String>,
    /// The wall clock when it was read.
    pub met_at: String,
    /// The line that said so.
    pub line: String,
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

/// Fill `{model} {max_turns} {prompt_file} {unit} {sprint} {session_id}` in
/// an argv template (`{session_id}` is empty when the dispatch continues no
/// conversation); with `prompt = "arg"` the prompt is appended as the last
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
            ("{session_id}", job.session_id.as_deref().unwrap_or("")),
        ],
    );
    if job.prompt == PromptDelivery::Arg {
        argv.push(prompt_text.to_string());
    }
    argv
}

/// A program named by a relative path (`.workflow/agent.sh`) is the one in
/// the repository's working tree `repo`, wherever the agent works: a unit's
/// worktree holds only what is committed, and `import` runs the agent in a
/// scratch directory that holds nothing of the repository.
pub fn anchor_program(argv: &mut [String], repo: &Path) {
    if let Some(program) = argv.first_mut() {
        let path = Path::new(program.as_str());
        if path.is_relative() && path.components().count() > 1 {
            let here = repo.join(path);
            if here.is_file() {
                *program = here.display().to_string();
            }
        }
    }
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
    // The wrapper outlives whoever started it, and that may be a hook in a
    // worktree removed once its unit is integrated: it starts in the
    // runtime directory, which lives as long as the run.
    let job_file = std::path::absolute(job_file)?;
    let home = job_file.parent().unwrap_or(Path::new("/"));
    let mut cmd = Command::new(exe);
    // The agent works in its own worktree, and so do the wrapper's checks
    // and the ticks it wakes: nothing may point them at another one.
    for var in crate::base::runtime::REPOSITORY_LOCATION {
        cmd.env_remove(var);
    }
    let child = cmd
        .arg("agent-run")
        .arg(&job_file)
        .current_dir(home)
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

/// Keep a detached child this process started, to be reaped with the
/// wrappers.
pub(crate) fn adopt(child: Child) {
    if let Ok(mut v) = SPAWNED.lock() {
        v.push(child);
    }
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
