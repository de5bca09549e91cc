//! The tick: lock → load → reconcile agents' reports → apply → write → act.
//!
//! `tick` is idempotent and is what every wake-up calls (an agent's wrapper
//! on exit, a hook, a waiting command's timer). It holds
//! `supervisor/engine.lock` for its duration; a caller that cannot get it
//! leaves a wake-up marker that the holder picks up before it lets go, so no
//! wake-up is lost and nothing blocks. Events are processed one at a time in
//! plan order, each published as its own CAS update, and **state is written
//! before any agent is started**: the DISPATCHED commit lands, then the
//! wrapper process is spawned.

mod background;
pub mod begin;
mod branch_history;
pub mod control;
mod criteria;
mod gate;
mod handoff;
pub mod import;
mod integrate;
mod launch;
pub mod naming;
pub mod notes;
mod notify;
mod observe;
mod observed_queue;
mod open;
pub mod overlap;
mod quick_check;
pub use open::clone_id;
mod plan_done;
mod publish;
mod remote;
pub mod resync;
mod shell;
mod start;
mod tick;
pub mod verify;
pub mod worker;
pub mod wrapper;

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::Config;
use crate::machine::MachineError;
use crate::machine::State;
use crate::plan::Plan;
use crate::plan::SprintId;
use crate::store::Snapshot;
use crate::store::Store;
use crate::store::StoreError;

/// How long the dispatching tick waits for a new wrapper to take its lock.
const WRAPPER_STARTUP: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum EngineError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    #[diagnostic(code(run::refused))]
    Refused(#[from] MachineError),
    #[error("there is no run in this repository")]
    #[diagnostic(code(run::none), help("start one with `git supervisor start`"))]
    NoRun,
    #[error("the run's `refs/supervisor/state` is gone from remote `{remote}` (this clone last saw it at {short}); starting a new run would redo all of its work")]
    #[diagnostic(
        code(run::gone_from_remote),
        help("if it was deleted by mistake, put it back from this clone, which still has the commit: `git push {remote} {last}:refs/supervisor/state`, then start the workers again; to start over on purpose: `git supervisor start --remote {remote}`")
    )]
    RunGoneFromRemote {
        remote: String,
        last: String,
        short: String,
    },
    #[error("a run is already in progress: {operation} ({run_id}, {overall})")]
    #[diagnostic(
        code(run::in_progress),
        help("continue it with `git supervisor resume`, or see `git supervisor status`")
    )]
    RunInProgress {
        operation: String,
        run_id: String,
        overall: String,
    },
    #[error("agent.command is not set in .workflow/config.toml")]
    #[diagnostic(
        code(config::no_agent),
        help("set the command that runs one agent, e.g. command = [\"claude\", \"-p\", \"--model\", \"{{model}}\"]; `git supervisor init` writes a template with presets")
    )]
    NoAgentCommand,
    #[error(transparent)]
    #[diagnostic(transparent)]
    AgentProgram(Box<crate::config::ConfigError>),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(Box<crate::config::LoadError>),
    #[error("there is no git remote named `{remote}`")]
    #[diagnostic(
        code(run::no_remote),
        help(
            "add it with `git remote add {remote} <url>`, or name another with --remote ({known})"
        )
    )]
    NoRemote { remote: String, known: String },
    #[error("the agent program `{program}` is not committed")]
    #[diagnostic(
        code(run::agent_not_committed),
        help("commit it (`git add {program} && git commit`) and push, then start again: workers on `{remote}` run it from their own clones")
    )]
    AgentNotCommitted { program: String, remote: String },
    #[error("not started: {count} sprint(s) have no runnable exit criterion, and `[run] require_criteria` is on: {list}")]
    #[diagnostic(
        code(run::criteria_required),
        help("give each sprint an exit criterion with a command (such as '- [ ] `cargo test` passes'; `git supervisor evaluate` proposes them), or set `require_criteria = false` under [run] in .workflow/config.toml")
    )]
    CriteriaRequired { count: usize, list: String },
    #[error("the run's plan snapshot no longer parses: {0}")]
    #[diagnostic(code(run::snapshot))]
    Snapshot(String),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error("{what}: {source}")]
    #[diagnostic(code(run::io))]
    Io {
        what: String,
        source: std::io::Error,
    },
}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> EngineError {
    let what = what.into();
    move |source| EngineError::Io { what, source }
}

/// How long `wait` sees the engine lock held before it names the holder.
const BUSY_NOTICE_AFTER: Duration = Duration::from_secs(10);

/// How a tick treats a busy engine lock.
#[derive(Debug, Clone, Copy)]
pub enum LockMode {
    /// Wait up to this long, then leave a wake-up marker.
    Wait(Duration),
    /// Don't wait: leave a wake-up marker at once (hooks).
    MarkerOnly,
    /// Wait up to this long, then leave a wake-up marker; having ticked,
    /// leave wake-ups that arrived meanwhile for the next tick rather than
    /// run again: a worker, whose lease renewals wait for its tick, must
    /// not be kept ticking by another process of its clone that keeps
    /// waking it (`stop` waiting for the agents).
    Once(Duration),
}

pub struct Engine {
    pub store: Store,
    /// The last parsed snapshot, by its text: every tick step needs it.
    parsed: std::cell::RefCell<Option<(Snapshot, Plan, Config)>>,
    /// The transition `announcements` last reported up to, so a command that
    /// ticks and then waits prints every line once and misses none.
    announced: std::cell::Cell<Option<u64>>,
    /// The repository's working tree.
    workdir: PathBuf,
    /// `here()`, computed once: every tick asks it for each active agent.
    here: std::cell::OnceCell<String>,
    exe: PathBuf,
    /// A worker's agents free to take a sprint: its tick of a remote run
    /// dispatches only while fewer sprints wait for a worker than that
    /// (see `remote`). `None`: no limit (`start`, `tick`).
    pub(crate) dispatch_room: std::cell::Cell<Option<usize>>,
}

/// What one dispatch's job is made of (see [`Engine::prepare_job`]).
pub(crate) struct JobSpec<'a> {
    pub state: &'a State,
    pub plan: &'a Plan,
    pub config: &'a Config,
    /// The agent command's argv template.
    pub template: Vec<String>,
    pub unit: &'a str,
    /// Where the agent works.
    pub root: &'a Path,
    /// The sprint's dispatch number this job is.
    pub dispatch_no: u32,
    pub attempt: u32,
    /// The model's name as the agent command takes it.
    pub model: String,
    /// It continues a PARTIAL sprint (resume the agent's session).
    pub continuation: bool,
    /// It retries a failed attempt (the previous output goes in the prompt).
    pub retry: bool,
    pub parallel: bool,
    /// Run `[workspace] setup` first (a unit worktree).
    pub setup: bool,
    /// The worker process that claimed it: the agent ends with it.
    pub worker_pid: Option<u32>,
}

/// What a tick did.
#[derive(Debug, Default)]
pub struct TickReport {
    /// The engine lock was busy: a wake-up marker was left for its holder.
    pub deferred: bool,
    pub steps: usize,
    pub dispatched: Vec<String>,
}

pub(crate) struct AgentPaths {
    pub(crate) log: PathBuf,
    pub(crate) report: PathBuf,
    pub(crate) result: PathBuf,
    pub(crate) wrapper_log: PathBuf,
    pub(crate) lock: PathBuf,
    pub(crate) job: PathBuf,
    pub(crate) prompt: PathBuf,
}

/// A sprint of the run's plan snapshot, with its unit.
fn planned<'p>(
    plan: &'p Plan,
    unit: &str,
    id: &SprintId,
) -> Result<(&'p crate::plan::Unit, &'p crate::plan::Sprint), EngineError> {
    let plan_unit = plan
        .unit(unit)
        .ok_or_else(|| EngineError::Snapshot(format!("unit {unit} is not in the plan snapshot")))?;
    let sprint = plan_unit
        .sprints
        .iter()
        .find(|s| &s.id == id)
        .ok_or_else(|| {
            EngineError::Snapshot(format!("sprint {id} of {unit} is not in the plan snapshot"))
        })?;
    Ok((plan_unit, sprint))
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
