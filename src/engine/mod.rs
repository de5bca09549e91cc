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

pub mod control;
mod gate;
pub mod naming;
mod plan_done;
mod remote;
pub mod resync;
pub mod verify;
pub mod worker;
pub mod wrapper;

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use crate::config::Config;
use crate::dispatch;
use crate::dispatch::prompt;
use crate::dispatch::Job;
use crate::dispatch::Report;
use crate::machine;
use crate::machine::Agent;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::MachineError;
use crate::machine::Model;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::machine::Step;
use crate::plan::ParseContext;
use crate::plan::Plan;
use crate::plan::SprintId;
use crate::plan::TaskType;
use crate::store::remote::RefPush;
use crate::store::Snapshot;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::Tip;
use crate::store::Update;
use crate::store::UpdateError;
use crate::workspace::Merge;
use crate::workspace::Workspaces;

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

/// The file under the runtime directory naming the working tree a run was
/// started in.
pub const RUN_WORKDIR_FILE: &str = "workdir";

/// A run belongs to the working tree it was started in: opened from another
/// worktree of the repository (a linked one on another branch), the engine
/// still works on the run's tree, its HEAD and its files, never on the
/// caller's.
fn follow_the_run(store: Store) -> Result<Store, EngineError> {
    let Ok(recorded) = std::fs::read_to_string(store.runtime_dir().join(RUN_WORKDIR_FILE)) else {
        return Ok(store);
    };
    let recorded = PathBuf::from(recorded.trim_end_matches('\n'));
    let here = store.workdir().and_then(|w| w.canonicalize().ok());
    let there = recorded.canonicalize().ok();
    if there.is_none() || here == there {
        return Ok(store);
    }
    let in_progress = store.tip()?.is_some_and(|t| !t.state.is_finished());
    if !in_progress {
        return Ok(store);
    }
    let other = Store::open(&recorded)?;
    let same_repo = other
        .runtime_dir()
        .parent()
        .and_then(|d| d.canonicalize().ok())
        == store
            .runtime_dir()
            .parent()
            .and_then(|d| d.canonicalize().ok());
    Ok(if same_repo { other } else { store })
}

impl Engine {
    pub fn open(cwd: &Path) -> Result<Engine, EngineError> {
        let mut store = follow_the_run(Store::open(cwd)?)?;
        if let Some(remote) = crate::store::remote::recorded(&store.runtime_dir()) {
            store = store.with_remote(&remote);
        }
        let workdir = store.workdir().map(Path::to_path_buf).ok_or_else(|| {
            StoreError::NotARepository("a bare repository has no working tree for agents".into())
        })?;
        let exe = std::env::current_exe().map_err(io("cannot locate the git-supervisor binary"))?;
        Ok(Engine {
            store,
            parsed: std::cell::RefCell::new(None),
            announced: std::cell::Cell::new(None),
            workdir,
            here: std::cell::OnceCell::new(),
            exe,
        })
    }

    pub(crate) fn runtime(&self, sub: &str) -> PathBuf {
        self.store.runtime_dir().join(sub)
    }

    /// Every runtime directory a dispatch writes exists and takes a file:
    /// checked before a run is recorded, so a read-only or full
    /// `.git/supervisor` never leaves a run that can dispatch nothing.
    fn check_runtime_writable(&self) -> Result<(), EngineError> {
        for sub in ["agents", "jobs", "prompts"] {
            let dir = self.runtime(sub);
            let what = format!(
                "the runtime directory {} is not writable (check its permissions and free space)",
                dir.display()
            );
            std::fs::create_dir_all(&dir).map_err(io(what.clone()))?;
            let probe = dir.join(format!(".probe-{}", std::process::id()));
            std::fs::write(&probe, b"probe").map_err(io(what))?;
            let _ = std::fs::remove_file(&probe);
        }
        Ok(())
    }

    pub fn project_root(&self, state: &State) -> PathBuf {
        if state.root == "." {
            self.workdir.clone()
        } else {
            self.workdir.join(&state.root)
        }
    }

    /// The run's workspaces, when its config gives each unit a worktree.
    pub fn workspaces(&self, state: &State, config: &Config) -> Option<Workspaces> {
        Workspaces::for_run(&self.workdir, state, config)
    }

    /// This clone, as an agent's `host` names it: where its agents run and
    /// are judged.
    pub fn here(&self) -> String {
        self.here
            .get_or_init(|| {
                let dir = self.store.runtime_dir();
                let git_dir = dir.parent().unwrap_or(&dir);
                let git_dir = git_dir
                    .canonicalize()
                    .unwrap_or_else(|_| git_dir.to_path_buf());
                format!(
                    "{}:{}",
                    crate::engine::worker::hostname(),
                    git_dir.display()
                )
            })
            .clone()
    }

    /// The agent of this sprint was started by another clone (a run
    /// shared by `sync`): only that clone judges or ends it.
    pub fn hosted_elsewhere(&self, sprint: &crate::machine::SprintState) -> bool {
        let Some(host) = sprint.agent.as_ref().and_then(|a| a.host.as_deref()) else {
            return false;
        };
        if host == self.here() {
            return false;
        }
        // This machine, a git directory that is no longer there: the
        // repository was moved, and its agents are still this clone's.
        let moved = host.split_once(':').is_some_and(|(name, dir)| {
            name == crate::engine::worker::hostname() && !Path::new(dir).exists()
        });
        !moved
    }

    /// The run's workspaces, read from the config the run was started with.
    pub fn run_workspaces(&self, state: &State) -> Option<Workspaces> {
        let tip = self.store.tip().ok()??;
        let (_, config) = self.snapshot(&tip).ok()?;
        self.workspaces(state, &config)
    }

    /// Where a unit's agent works and its sprints are judged: its worktree
    /// (at the plan's directory inside it), or the project root when agents
    /// share the main working tree.
    pub fn unit_root(&self, state: &State, config: &Config, unit: &str) -> PathBuf {
        match self.workspaces(state, config) {
            Some(w) if state.root == "." => w.unit_path(unit),
            Some(w) => w.unit_path(unit).join(&state.root),
            None => self.project_root(state),
        }
    }

    /// The plan's naming commit lands on the user's branch just after
    /// `start`: an integration branch still at the run's base moves to it,
    /// so that landing the run stays a fast-forward.
    pub fn integration_follows_head(
        &self,
        state: &State,
        config: &Config,
    ) -> Result<(), EngineError> {
        let (Some(ws), Some(base), Some(head)) = (
            self.workspaces(state, config),
            state.reconciled.as_deref(),
            self.store.head_id(),
        ) else {
            return Ok(());
        };
        if let Some(remote) = self.store.remote() {
            let name = format!("refs/heads/{}", ws.integration_branch());
            if remote.tracked(&name).as_deref() == Some(base) {
                remote.push(&[RefPush {
                    name,
                    new: Some(head.clone()),
                    expected: Some(base.to_string()),
                }])?;
            }
        }
        ws.advance(base, &head)?;
        Ok(())
    }

    /// A COMPLETED unit's work is all on the integration branch: its
    /// worktree goes (its branch stays, as history). One with uncommitted
    /// files is kept for the user to look at (`clean --force` removes it).
    fn remove_integrated_worktrees(&self, tip: &Tip) -> Result<(), EngineError> {
        if !tip.state.worktrees {
            return Ok(());
        }
        let (_, config) = self.snapshot(tip)?;
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(());
        };
        for u in tip
            .state
            .units
            .iter()
            .filter(|u| u.state == crate::machine::UnitStatus::Completed)
        {
            if ws.unit_path(&u.name).join(".git").exists() && ws.uncommitted(&u.name).is_empty() {
                // A worktree git refuses to remove is left for `clean`.
                let _ = ws.remove(&u.name, false);
            }
        }
        Ok(())
    }

    /// `[run] land = "ff" | "merge"`: once a worktree run is COMPLETED, its
    /// integration branch lands on the branch `start` ran on — once; a
    /// refusal (dirty tree, branch moved, conflict) is noted for `status`
    /// and left to `git supervisor land`.
    fn land_when_configured(&self, tip: &Tip) -> Result<(), EngineError> {
        if !tip.state.worktrees || tip.state.overall() != crate::machine::Overall::Completed {
            return Ok(());
        }
        let (_, config) = self.snapshot(tip)?;
        let merge = match config.run.land {
            crate::config::Land::Off => return Ok(()),
            crate::config::Land::Ff => false,
            crate::config::Land::Merge => true,
        };
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(());
        };
        let runtime = self.store.runtime_dir();
        let note = ws.land_note_file(&runtime);
        if note.exists() {
            return Ok(());
        }
        let text = match ws.start_branch(&runtime) {
            None => format!(
                "Not landed: the run started on a detached HEAD; `{}` on the branch to land on.",
                ws.land_by_hand()
            ),
            Some(branch) => match ws.land(&branch, merge)? {
                Ok(l) => format!(
                    "Landed {} on {}: {}..{}.",
                    l.integration,
                    l.branch,
                    short(&l.from),
                    short(&l.to)
                ),
                Err(why) => format!(
                    "Not landed ({}): run `git supervisor land` once that is fixed.",
                    why.describe()
                ),
            },
        };
        if let Some(dir) = note.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(&note, format!("{text}\n")).map_err(io("cannot note the landing"))?;
        Ok(())
    }

    /// The file that says the unit's worktree passed `[workspace] setup`.
    fn setup_marker(&self, state: &State, unit: &str) -> PathBuf {
        self.runtime("workspaces").join(&state.run_id).join(format!(
            "{}.setup-done",
            dispatch::runtime_name::component(unit)
        ))
    }

    /// The file a merge conflict's description waits in for the unit's
    /// retry prompt.
    fn conflict_note(&self, state: &State, unit: &str) -> PathBuf {
        self.runtime("workspaces").join(&state.run_id).join(format!(
            "{}.conflict.md",
            dispatch::runtime_name::component(unit)
        ))
    }

    /// Keep `text` (a merge conflict's description, empty for none) for
    /// the unit's retry prompt, or forget the last one.
    fn record_conflict(
        &self,
        state: &State,
        unit: &str,
        text: Option<&str>,
    ) -> Result<(), EngineError> {
        let note = self.conflict_note(state, unit);
        match text.filter(|t| !t.is_empty()) {
            Some(text) => {
                if let Some(dir) = note.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                std::fs::write(&note, text).map_err(io("cannot record the merge conflict"))
            }
            None => {
                let _ = std::fs::remove_file(&note);
                Ok(())
            }
        }
    }

    /// A sprint that passed verification enters the integration branch
    /// through the merge queue: one merge at a time (this tick holds the
    /// engine lock; the build lock keeps a phase build from seeing the
    /// branch move). A conflict turns the verdict into a failure. `None`:
    /// the build lock stayed busy, so the verdict waits for a later tick.
    fn through_queue(
        &self,
        tip: &Tip,
        unit: &str,
        sprint: &SprintId,
        outcome: machine::Outcome,
        evidence: String,
    ) -> Result<Option<(machine::Outcome, String)>, EngineError> {
        let (_, config) = self.snapshot(tip)?;
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(Some((outcome, evidence)));
        };
        if outcome != machine::Outcome::Completed {
            return Ok(Some((outcome, evidence)));
        }
        let integration = ws.integration_branch();
        let merged =
            crate::gate::lock::with_lock(&self.runtime("build.lock"), config.build.timeout, || {
                ws.integrate(unit, &sprint.to_string())
            })
            .map_err(io("cannot take the build lock"))?;
        let Some(merged) = merged else {
            return Ok(None);
        };
        let merged = merged?;
        self.record_conflict(&tip.state, unit, Some(&merged.retry_note(&integration)))?;
        Ok(Some(match merged {
            Merge::Already { tip } => {
                (
                    outcome,
                    format!("{evidence} Already on `{integration}` ({}).", short(&tip)),
                )
            }
            Merge::Merged { commit } => {
                (
                    outcome,
                    format!(
                        "{evidence} Merged into `{integration}` as {}.",
                        short(&commit)
                    ),
                )
            }
            Merge::Conflict { files, .. } => {
                (
                    machine::Outcome::Failure,
                    format!(
                        "The sprint's work passed verification but conflicts with `{integration}` in {}; the unit's branch now has the integration branch merged in, conflicts to resolve.",
                        files.join(", ")
                    ),
                )
            }
        }))
    }

    /// The plan and config the run was started with.
    pub fn snapshot(&self, tip: &Tip) -> Result<(Plan, Config), EngineError> {
        let snap = self.store.snapshot_at(tip.id)?;
        if let Some((s, plan, config)) = self.parsed.borrow().as_ref() {
            if *s == snap {
                return Ok((plan.clone(), config.clone()));
            }
        }
        let plan = crate::plan::parse(&snap.plan, &ParseContext::default()).map_err(|p| {
            EngineError::Snapshot(
                p.iter()
                    .map(|x| x.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        let config = Config::parse(&snap.config, "plan/config.toml")
            .map_err(|e| EngineError::Snapshot(e.to_string()))?;
        *self.parsed.borrow_mut() = Some((snap, plan.clone(), config.clone()));
        Ok((plan, config))
    }

    /// Publish one event against whatever the tip is by then.
    pub fn publish(&self, kind: EventKind) -> Result<Vec<Step>, EngineError> {
        self.publish_decided(|_| Ok(Some((kind.clone(), Vec::new()))))
    }

    /// The tip's state as events are decided on it: the retry policy comes
    /// from the run's config snapshot.
    pub(crate) fn deciding(&self, tip: &Tip) -> State {
        let mut state = tip.state.clone();
        state.retry_delay_ms = self
            .snapshot(tip)
            .map(|(_, c)| c.run.retry_delay.as_millis().min(u64::MAX as u128) as u64)
            .unwrap_or(0);
        state
    }

    /// Publish the event `decide` picks on the tip it sees (asked again on
    /// the new tip after a lost race), with the other refs its atomic push
    /// moves on a remote. `None`: nothing to publish any more.
    pub(crate) fn publish_decided(
        &self,
        mut decide: impl FnMut(&Tip) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError>,
    ) -> Result<Vec<Step>, EngineError> {
        let clock = self.store.clock();
        let published = self.store.update(|tip| {
            let tip = tip.ok_or(EngineError::NoRun)?;
            let Some((kind, also)) = decide(tip)? else {
                return Ok(None);
            };
            let event = Event {
                at: clock.iso_at_seq(tip.state.seq + 1),
                kind,
            };
            let steps = machine::apply(&self.deciding(tip), &event)?;
            Ok(Some(Update {
                steps,
                snapshot: None,
                checkpoints: Vec::new(),
                also,
                event: Some(event),
            }))
        });
        match published {
            Ok(p) => Ok(p.steps),
            Err(UpdateError::Store(e)) => Err(e.into()),
            Err(UpdateError::Decide(e)) => Err(e),
        }
    }

    /// Whether a run with this id was archived here or on the run's remote.
    fn run_id_taken(&self, run_id: &str) -> Result<bool, EngineError> {
        let archive = format!("{}{run_id}", crate::store::RUNS_PREFIX);
        if self.store.ref_id(&archive)?.is_some() {
            return Ok(true);
        }
        Ok(match self.store.remote() {
            Some(remote) => remote.tracked(&archive).is_some(),
            None => false,
        })
    }

    /// Start a new run of `plan` (its text and the config text are
    /// snapshotted into the run). A finished run is archived first.
    pub fn start(
        &self,
        plan: &Plan,
        plan_text: &str,
        config_text: &str,
        config: &Config,
        plan_dir: &Path,
    ) -> Result<State, EngineError> {
        if config.agent_command().is_none() {
            return Err(EngineError::NoAgentCommand);
        }
        config
            .check_agent_program(config_text, ".workflow/config.toml", plan_dir)
            .map_err(EngineError::AgentProgram)?;
        self.check_runtime_writable()?;
        if let Some(remote) = self.store.remote() {
            // The remote's run, not this clone's cache, says whether one is
            // in progress.
            remote.fetch()?;
        }
        if let Some(tip) = self.store.tip()? {
            if !tip.state.is_finished() {
                return Err(EngineError::RunInProgress {
                    operation: tip.state.operation.clone(),
                    run_id: tip.state.run_id.clone(),
                    overall: tip.state.overall().as_str().into(),
                });
            }
            self.store.archive_run(&tip)?;
        }
        let clock = self.store.clock();
        let operation = plan
            .feature_name
            .clone()
            .unwrap_or_else(|| naming::operation_name(plan));
        // Two runs of one plan started in the same second (a pinned clock,
        // a script) would share an id, and with it the archive's name and
        // the run's branches: the later one takes the next free suffix.
        let base_id = naming::run_id(&clock.at_seq(0), plan_text);
        let mut run_id = base_id.clone();
        let mut n = 1;
        while self.run_id_taken(&run_id)? {
            n += 1;
            run_id = format!("{base_id}-{n}");
        }
        let mut state = State::new(
            plan,
            &run_id,
            &operation,
            config.run.max_retries,
            config.run.max_continuations,
        );
        if config.build.command.is_some() {
            state = state.with_gates();
        }
        state.worktrees = match config.run.workspace {
            // Workers on other machines each work in worktrees of their own.
            _ if self.store.remote().is_some() => true,
            crate::config::Workspace::Worktree => true,
            crate::config::Workspace::Shared => false,
            crate::config::Workspace::Auto => plan.units_can_run_at_once(),
        };
        // History before the run is not the run's business.
        state.reconciled = self.store.head_id();
        let root = plan_dir.canonicalize().ok().and_then(|d| {
            self.workdir
                .canonicalize()
                .ok()
                .and_then(|w| d.strip_prefix(&w).ok().map(Path::to_path_buf))
        });
        state.root = match root {
            Some(r) if !r.as_os_str().is_empty() => r.display().to_string(),
            _ => ".".into(),
        };
        let snapshot = Snapshot {
            plan: plan_text.to_string(),
            config: config_text.to_string(),
        };
        std::fs::write(
            self.runtime(RUN_WORKDIR_FILE),
            format!("{}\n", self.workdir.display()),
        )
        .map_err(io("cannot record the run's working tree"))?;
        // On a remote the integration branch is created with the run, in
        // the same push: workers branch from it.
        let integration: Vec<RefPush> = match (self.store.remote(), &state.reconciled) {
            (Some(remote), Some(base)) => {
                let ws = Workspaces::for_run(&self.workdir, &state, config)
                    .expect("a run on a remote has worktrees");
                let name = format!("refs/heads/{}", ws.integration_branch());
                vec![RefPush {
                    expected: remote.tracked(&name),
                    name,
                    new: Some(base.clone()),
                }]
            }
            _ => Vec::new(),
        };
        let published = self.store.update(|tip| {
            if let Some(t) = tip {
                return Err(EngineError::RunInProgress {
                    operation: t.state.operation.clone(),
                    run_id: t.state.run_id.clone(),
                    overall: t.state.overall().as_str().into(),
                });
            }
            let event = Event {
                at: clock.iso_at_seq(1),
                kind: EventKind::Start,
            };
            Ok(Some(Update {
                steps: machine::apply(&state, &event)?,
                snapshot: Some(snapshot.clone()),
                checkpoints: Vec::new(),
                also: integration.clone(),
                event: Some(event),
            }))
        });
        let state = match published {
            Ok(p) => p.steps.last().map(|s| s.state.clone()).unwrap_or(state),
            Err(UpdateError::Store(e)) => return Err(e.into()),
            Err(UpdateError::Decide(e)) => return Err(e),
        };
        // The integration branch starts where `start` ran; the user's branch
        // and tree stay where they are.
        if let (Some(ws), Some(base)) = (self.workspaces(&state, config), &state.reconciled) {
            ws.start(base)?;
            ws.record_start_branch(&self.store.runtime_dir())?;
        }
        Ok(state)
    }

    /// Apply an edited plan to the run (design: the only way plan edits take
    /// effect), replacing the snapshot in the same commit chain.
    pub fn replan(
        &self,
        plan: &Plan,
        plan_text: &str,
        config_text: &str,
    ) -> Result<Vec<Step>, EngineError> {
        let clock = self.store.clock();
        let snapshot = Snapshot {
            plan: plan_text.to_string(),
            config: config_text.to_string(),
        };
        let published = self.store.update(|tip| {
            let tip = tip.ok_or(EngineError::NoRun)?;
            let event = Event {
                at: clock.iso_at_seq(tip.state.seq + 1),
                kind: EventKind::Replan {
                    plan: Box::new(plan.clone()),
                },
            };
            Ok(Some(Update {
                steps: machine::apply(&tip.state, &event)?,
                snapshot: Some(snapshot.clone()),
                checkpoints: Vec::new(),
                also: Vec::new(),
                event: Some(event),
            }))
        });
        match published {
            Ok(p) => Ok(p.steps),
            Err(UpdateError::Store(e)) => Err(e.into()),
            Err(UpdateError::Decide(e)) => Err(e),
        }
    }

    /// When a tick holds the engine lock, leave it a wake-up marker and say
    /// so: that tick runs again before it lets go, so the caller need not
    /// start one. False when no tick runs (or the marker cannot be left).
    pub fn wake_running_tick(&self) -> bool {
        let lock = self.runtime("engine.lock");
        if !crate::gate::lock::is_held(&lock) {
            return false;
        }
        if std::fs::write(self.runtime("wake"), b"").is_err() {
            return false;
        }
        // The holder may have let go between the two looks, before it could
        // see the marker: then the caller must tick after all.
        crate::gate::lock::is_held(&lock)
    }

    /// Run the engine once (and again while wake-ups arrive meanwhile).
    pub fn tick(&self, mode: LockMode) -> Result<TickReport, EngineError> {
        let lock = self.runtime("engine.lock");
        let marker = self.runtime("wake");
        let wait = match mode {
            LockMode::Wait(d) => d,
            LockMode::MarkerOnly => Duration::ZERO,
        };
        let mut total = TickReport::default();
        loop {
            let _ = std::fs::remove_file(&marker);
            let ran = crate::gate::lock::with_lock(&lock, wait, || self.tick_locked())
                .map_err(io("cannot take the engine lock"))?;
            match ran {
                None => {
                    // The holder sees the marker before (or just after) it
                    // lets go, and runs again.
                    std::fs::create_dir_all(self.store.runtime_dir())
                        .map_err(io("cannot create the runtime directory"))?;
                    std::fs::write(&marker, b"").map_err(io("cannot leave a wake-up marker"))?;
                    if crate::gate::lock::is_held(&lock) {
                        total.deferred = true;
                        return Ok(total);
                    }
                }
                Some(result) => {
                    let r = result?;
                    total.steps += r.steps;
                    total.dispatched.extend(r.dispatched);
                    if !marker.exists() {
                        return Ok(total);
                    }
                }
            }
        }
    }

    fn tick_locked(&self) -> Result<TickReport, EngineError> {
        if let Some(remote) = self.store.remote() {
            remote.fetch()?;
            return self.tick_on_remote();
        }
        let mut report = TickReport::default();
        let mut refused = 0;
        loop {
            let Some(tip) = self.store.tip()? else {
                return Ok(report);
            };
            // One event at a time, in a fixed order: the needs registry, work
            // the plan marks done, history observed since the last
            // reconciliation, agent reports.
            // After repeated refusals the events wait for the next tick, but
            // builds and dispatches still go on.
            let next = if refused > 3 {
                None
            } else {
                match self.needs_changed(&tip) {
                    Some(kind) => Some(kind),
                    None => match self.next_plan_done(&tip)? {
                        Some(kind) => Some(kind),
                        None => match self.next_observation(&tip)? {
                            Some(kind) => Some(kind),
                            None => self.next_agent_event(&tip)?,
                        },
                    },
                }
            };
            if let Some(kind) = next {
                match self.publish(kind) {
                    Ok(steps) => report.steps += steps.len(),
                    // The state moved under us (another writer already
                    // recorded it): look again — but never loop on an event
                    // the machine keeps refusing.
                    Err(EngineError::Refused(_)) => refused += 1,
                    Err(e) => return Err(e),
                }
                continue;
            }
            self.remove_integrated_worktrees(&tip)?;
            self.land_when_configured(&tip)?;
            if let Some(units) = self.build_to_run(&tip.state) {
                if self.run_gate(&tip, &units)? {
                    continue;
                }
            }
            match self.dispatch_next(&tip)? {
                Some((unit, steps)) => {
                    report.steps += steps;
                    report.dispatched.push(unit);
                }
                None => return Ok(report),
            }
        }
    }

    pub(crate) fn agent_paths(
        &self,
        unit: &str,
        sprint: &SprintId,
        dispatch_no: u32,
    ) -> AgentPaths {
        let stem = Job::stem(unit, &sprint.to_string(), dispatch_no);
        let agents = self.runtime("agents");
        AgentPaths {
            log: agents.join(format!("{stem}.log")),
            report: agents.join(format!("{stem}.report.toml")),
            result: agents.join(format!("{stem}.result")),
            wrapper_log: agents.join(format!("{stem}.wrapper.log")),
            lock: agents.join(dispatch::runtime_name::lock(unit)),
            job: self.runtime("jobs").join(format!("{stem}.toml")),
            prompt: self.runtime("prompts").join(format!("{stem}.md")),
        }
    }

    /// The cross-unit needs in the units' progress files, when they differ
    /// from the registry in the state.
    fn needs_changed(&self, tip: &Tip) -> Option<EventKind> {
        let state = &tip.state;
        // With worktrees a unit's progress file is in its own worktree.
        let worktree_config = self
            .snapshot(tip)
            .ok()
            .map(|(_, c)| c)
            .filter(|c| self.workspaces(state, c).is_some());
        let mut needs = Vec::new();
        for u in &state.units {
            let progress = verify::progress_file(&u.dir);
            let text = match &worktree_config {
                Some(c) => {
                    let ws = self.workspaces(state, c).expect("filtered on worktrees");
                    // A unit whose worktree is gone (integrated and removed)
                    // left its progress file on the integration branch.
                    if ws.unit_path(&u.name).join(".git").exists() {
                        std::fs::read_to_string(self.unit_root(state, c, &u.name).join(&progress))
                            .ok()
                    } else {
                        ws.integrated_file(&Path::new(&state.root).join(&progress))
                    }
                }
                None => std::fs::read_to_string(self.project_root(state).join(&progress)).ok(),
            };
            if let Some(text) = text {
                needs.extend(verify::cross_unit_needs(&text).into_iter().map(|text| {
                    crate::machine::Need {
                        unit: u.name.clone(),
                        text,
                    }
                }));
            }
        }
        (needs != state.needs).then_some(EventKind::Needs { needs })
    }

    /// History that reached the branch since the last reconciliation (commits
    /// made with hooks disabled, by another tool, fetched, or while the engine
    /// was down): a trailer-marked completion of a unit's current waiting
    /// sprint whose exit criteria pass completes it without a dispatch.
    fn next_observation(&self, tip: &Tip) -> Result<Option<EventKind>, EngineError> {
        let state = &tip.state;
        let Some(head) = self.store.head_id() else {
            return Ok(None);
        };
        let Some(reconciled) = state.reconciled.clone() else {
            return Ok(None);
        };
        // A disposable cache of ranges already scanned without a finding.
        let cache = self.runtime("reconciled");
        let scanned = std::fs::read_to_string(&cache).ok().and_then(|t| {
            let (base, upto) = t.trim().split_once(' ')?;
            (base == reconciled).then(|| upto.to_string())
        });
        let from = scanned.unwrap_or_else(|| reconciled.clone());
        if from == head {
            return Ok(None);
        }
        let root = self.project_root(state);
        let mut claims = self
            .store
            .completion_claims(&from, &head)
            .unwrap_or_else(|| verify::completion_claims(&root, &from, &head));
        // Progress markers count as a claim too, for sprints waiting after a
        // failure or an interruption (a fresh PENDING sprint is about to be
        // dispatched and is judged then).
        for u in &state.units {
            let Some(sp) = u.current() else { continue };
            let waiting = matches!(
                sp.state,
                SprintStatus::Backoff | SprintStatus::Fatal | SprintStatus::Partial
            ) || (sp.state == SprintStatus::Pending && sp.total_attempts > 0);
            if waiting && u.state != crate::machine::UnitStatus::NotStarted {
                let id = sp.id.to_string();
                let added = verify::progress_added(&root, &reconciled, &u.dir);
                if verify::progress_says_complete(&added, &id) {
                    claims.push((
                        u.name.clone(),
                        id,
                        format!("{} (progress file)", verify::progress_file(&u.dir)),
                    ));
                }
            }
        }
        if !claims.is_empty() {
            let (plan, _) = self.snapshot(tip)?;
            for u in &state.units {
                if u.state == crate::machine::UnitStatus::NotStarted {
                    continue;
                }
                let Some(sp) = u.current() else { continue };
                if sp.state.is_active() {
                    continue;
                }
                let id = sp.id.to_string();
                let marked: Vec<String> = claims
                    .iter()
                    .filter(|(cu, cs, _)| *cu == u.name && *cs == id)
                    .map(|(_, _, c)| c.clone())
                    .collect();
                if marked.is_empty() {
                    continue;
                }
                let Some(sprint) = plan
                    .unit(&u.name)
                    .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                else {
                    continue;
                };
                let verdict = verify::verify(&verify::VerifyInput {
                    root: &root,
                    unit: &u.name,
                    unit_dir: &u.dir,
                    sprint,
                    base_commit: Some(&reconciled),
                    exit_code: None,
                    killed: None,
                    result_file: None,
                    log_file: None,
                    agent: None,
                });
                let runnable = sprint.exit.iter().any(|c| c.command.is_some());
                let source = if marked[0].ends_with("(progress file)") {
                    marked[0].clone()
                } else {
                    format!("commit {}", short(&marked[0]))
                };
                let evidence = if verdict.outcome == machine::Outcome::Completed {
                    format!("{source} marks it complete; {}", verdict.evidence)
                } else if !runnable && sprint.task_type != TaskType::Manual {
                    format!("{source} marks it complete (no runnable exit criteria).")
                } else {
                    continue;
                };
                let mut commits = verdict.commits;
                for c in marked
                    .into_iter()
                    .filter(|c| !c.ends_with("(progress file)"))
                {
                    if !commits.contains(&c) {
                        commits.push(c);
                    }
                }
                return Ok(Some(EventKind::Observed {
                    unit: u.name.clone(),
                    sprint: sp.id.clone(),
                    evidence,
                    commits,
                    head,
                }));
            }
        }
        let _ = std::fs::write(&cache, format!("{reconciled} {head}"));
        Ok(None)
    }

    /// The first agent report that changes state, in plan order.
    fn next_agent_event(&self, tip: &Tip) -> Result<Option<EventKind>, EngineError> {
        let state = &tip.state;
        // The worktree layout, when the run has one (a snapshot that does
        // not parse is reported where the plan is needed, not here).
        let worktree_config = self
            .snapshot(tip)
            .ok()
            .map(|(_, c)| c)
            .filter(|c| self.workspaces(state, c).is_some());
        let worktrees = worktree_config.is_some();
        // With worktrees, verdicts feed the merge queue: the agent that
        // finished first is judged (and merged) first.
        let mut order: Vec<(Option<std::time::SystemTime>, &crate::machine::UnitState)> = state
            .units
            .iter()
            .map(|u| {
                let finished_at = u.active_sprint().filter(|_| worktrees).and_then(|sp| {
                    let report = self.agent_paths(&u.name, &sp.id, sp.dispatches).report;
                    Report::read(&report)
                        .filter(|r| r.finished)
                        .and_then(|_| std::fs::metadata(&report).ok()?.modified().ok())
                });
                (finished_at, u)
            })
            .collect();
        // Finished first (earliest first), then the rest in plan order.
        order.sort_by_key(|(at, _)| (at.is_none(), *at));
        for u in order.into_iter().map(|(_, u)| u) {
            let Some(sp) = u.active_sprint() else {
                continue;
            };
            if self.hosted_elsewhere(sp) {
                continue;
            }
            let paths = self.agent_paths(&u.name, &sp.id, sp.dispatches);
            let report = Report::read(&paths.report).unwrap_or_default();
            if sp.state == SprintStatus::Dispatched && report.started && !report.finished {
                return Ok(Some(EventKind::AgentStarted {
                    unit: u.name.clone(),
                    pid: report.pid,
                    worker: None,
                }));
            }
            // The dispatching tick waits for the wrapper to take the liveness
            // lock before it lets go of the engine lock, so a free lock and no
            // wrapper process (one may be waiting for the previous agent's
            // lock) mean the agent is gone: crashed, killed, never started.
            let gone = !report.finished
                && !crate::gate::lock::is_held(&paths.lock)
                && !report.wrapper_pid.is_some_and(dispatch::alive);
            // An agent still at work may already have committed the sprint as
            // complete (trailers `Supervisor-Sprint: <unit>/<id>` and
            // `Supervisor-Status: complete`): a post-commit hook's tick
            // verifies it then, without waiting for the process to exit.
            let base = sp.agent.as_ref().and_then(|a| a.base_commit.as_deref());
            // With worktrees a sprint is judged once its agent is done: its
            // merge may leave conflicts in the tree the agent works in.
            if !report.finished && !gone && sp.state == SprintStatus::Running && !worktrees {
                let head = self.store.head_id();
                if let (Some(base), Some(head)) = (base, head) {
                    if head != base {
                        let root = self.project_root(state);
                        if verify::claims_complete(&root, base, &u.name, &sp.id.to_string()) {
                            let (plan, _) = self.snapshot(tip)?;
                            if let Some(sprint) = plan
                                .unit(&u.name)
                                .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                            {
                                let verdict = verify::verify(&verify::VerifyInput {
                                    root: &root,
                                    unit: &u.name,
                                    unit_dir: &u.dir,
                                    sprint,
                                    base_commit: Some(base),
                                    exit_code: None,
                                    killed: None,
                                    result_file: None,
                                    log_file: None,
                                    agent: sp.agent.as_ref(),
                                });
                                if verdict.outcome == machine::Outcome::Completed {
                                    return Ok(Some(EventKind::Verdict {
                                        unit: u.name.clone(),
                                        outcome: verdict.outcome,
                                        evidence: format!(
                                            "{} (the agent's commit marked it complete)",
                                            verdict.evidence
                                        ),
                                        remaining: verdict.remaining,
                                        commits: verdict.commits,
                                        turns: verdict.turns,
                                        cost: verdict.cost_usd,
                                    }));
                                }
                            }
                        }
                    }
                }
            }
            if report.finished || gone {
                let (plan, _) = self.snapshot(tip)?;
                let Some(sprint) = plan
                    .unit(&u.name)
                    .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                else {
                    continue;
                };
                let root = match &worktree_config {
                    Some(c) => self.unit_root(state, c, &u.name),
                    None => self.project_root(state),
                };
                let killed = if gone {
                    Some("the agent's wrapper is gone without a report")
                } else {
                    report.killed.as_deref()
                };
                let verdict = verify::verify(&verify::VerifyInput {
                    root: &root,
                    unit: &u.name,
                    unit_dir: &u.dir,
                    sprint,
                    base_commit: sp.agent.as_ref().and_then(|a| a.base_commit.as_deref()),
                    exit_code: report.exit_code,
                    killed,
                    result_file: Some(paths.result.clone()),
                    log_file: Some(paths.log.clone()),
                    agent: sp.agent.as_ref(),
                });
                let (outcome, evidence) = verdict.after_watchdog(!gone && report.killed.is_some());
                let Some((outcome, evidence)) =
                    self.through_queue(tip, &u.name, &sp.id, outcome, evidence)?
                else {
                    continue;
                };
                return Ok(Some(EventKind::Verdict {
                    unit: u.name.clone(),
                    outcome,
                    evidence,
                    remaining: verdict.remaining,
                    commits: verdict.commits,
                    turns: verdict.turns,
                    cost: verdict.cost_usd,
                }));
            }
        }
        Ok(None)
    }

    /// Dispatch the first eligible unit's sprint: write its job, publish
    /// DISPATCHED, then start the wrapper.
    fn dispatch_next(&self, tip: &Tip) -> Result<Option<(String, usize)>, EngineError> {
        // A failed sprint waits for its retry time by the wall clock (the
        // commit clock may be pinned).
        let now = crate::store::clock::iso(time::OffsetDateTime::now_utc());
        let ready = machine::dispatchable_at(&tip.state, &now);
        if ready.is_empty() {
            return Ok(None);
        }
        let (plan, config) = self.snapshot(tip)?;
        // A deferred condition is checked again one poll interval after the
        // last check ended, not at once (the next tick after that runs it).
        let paced = |name: &String| {
            let Some(sp) = tip.state.unit(name).and_then(|u| u.current()) else {
                return false;
            };
            if sp.task_type != TaskType::Deferred || sp.state != SprintStatus::Partial {
                return false;
            }
            let last = self.agent_paths(name, &sp.id, sp.dispatches).report;
            std::fs::metadata(last)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age < config.run.poll_interval)
        };
        let Some(unit_name) = ready.iter().find(|u| !paced(u)) else {
            return Ok(None);
        };
        // The budget is checked before every dispatch (attempts, retries,
        // continuations): once spent, the run stops until resumed.
        if let Some(budget) = config.run.budget_usd.and_then(machine::Usd::from_dollars) {
            let spent = tip.state.cost();
            if spent >= budget {
                self.publish(EventKind::BudgetReached { spent, budget })?;
                return Ok(None);
            }
        }
        let template = config
            .agent_command()
            .ok_or(EngineError::NoAgentCommand)?
            .to_vec();
        // A replan may have changed the command: refuse it before an attempt
        // is spent on a program that cannot run.
        let config_text = self.parsed.borrow().as_ref().map(|p| p.0.config.clone());
        config
            .check_agent_program(
                &config_text.unwrap_or_default(),
                "the run's .workflow/config.toml",
                &self.workdir,
            )
            .map_err(EngineError::AgentProgram)?;
        let state = &tip.state;
        let us = state.unit(unit_name).expect("dispatchable names a unit");
        let sp = us
            .current()
            .expect("a dispatchable unit has a current sprint");
        let (_, sprint) = planned(&plan, unit_name, &sp.id)?;
        let selection = machine::model_select::select(&plan, unit_name, sprint, sp);
        let model_name = match selection.model {
            Model::Haiku => &config.models.haiku,
            Model::Sonnet => &config.models.sonnet,
            Model::Opus => &config.models.opus,
        }
        .clone();
        let dispatch_no = sp.dispatches + 1;
        let parallel = state
            .units
            .iter()
            .filter(|u| u.name != *unit_name)
            .any(|u| u.active_sprint().is_some())
            || ready.len() > 1;
        let rationale = match (sprint.task_type, parallel) {
            (TaskType::Code, false) => format!(
                "{}; single agent: builds allowed during the sprint",
                selection.rationale()
            ),
            (TaskType::Code, true) if config.build.command.is_some() => format!(
                "{}; parallel: syntax checks only, one coordinated build at the phase boundary",
                selection.rationale()
            ),
            _ => selection.rationale(),
        };
        let clock = self.store.clock();
        if self.store.remote().is_some() {
            // A run on a remote: the dispatch is published for a worker to
            // claim; nothing starts here. Other clones tick too: one that
            // dispatched this sprint first leaves nothing to do.
            let (id, from) = (sp.id.clone(), sp.state);
            let kind = EventKind::Dispatch {
                unit: unit_name.clone(),
                model: selection.model,
                score: selection.score,
                rationale,
                agent: Agent {
                    pid: None,
                    log: String::new(),
                    dispatched_at: clock.iso_at_seq(state.seq + 1),
                    base_commit: None,
                    dirty: Vec::new(),
                    files: sprint.files.clone(),
                    continuation: sp.state == SprintStatus::Partial,
                    retry_of: (sp.state == SprintStatus::Backoff).then_some(sp.attempt),
                    worker: None,
                    host: None,
                },
            };
            let steps = self.publish_decided(|tip| {
                let still = tip
                    .state
                    .unit(unit_name)
                    .and_then(|u| u.current())
                    .is_some_and(|s| s.id == id && s.state == from)
                    && machine::dispatchable(&tip.state).contains(unit_name);
                Ok(still.then(|| (kind.clone(), Vec::new())))
            })?;
            return Ok(Some((unit_name.clone(), steps.len())));
        }
        let workspaces = self.workspaces(state, &config);
        let root = match &workspaces {
            Some(ws) => {
                let base = state
                    .reconciled
                    .clone()
                    .or_else(|| self.store.head_id())
                    .unwrap_or_else(|| "HEAD".into());
                let fresh = !ws.unit_path(unit_name).join(".git").exists();
                ws.ensure_unit(unit_name, &base)?;
                if fresh {
                    // A new worktree: the user's untracked files, and its
                    // setup again (a recreated worktree has none of it).
                    let _ = std::fs::remove_file(self.setup_marker(state, unit_name));
                    ws.copy_into(unit_name, &config.workspace.copy)?;
                    crate::store::fault::boundary("unit worktree created, sprint not dispatched");
                }
                self.unit_root(state, &config, unit_name)
            }
            None => self.project_root(state),
        };
        let next_attempt = match sp.state {
            SprintStatus::Backoff if sp.interrupted => sp.attempt,
            SprintStatus::Backoff => sp.attempt + 1,
            SprintStatus::Partial => sp.attempt,
            _ => sp.attempt.max(1),
        };
        let paths = self.prepare_job(&JobSpec {
            state,
            plan: &plan,
            config: &config,
            template,
            unit: unit_name,
            root: &root,
            dispatch_no,
            attempt: next_attempt,
            model: model_name,
            continuation: sp.state == SprintStatus::Partial,
            retry: sp.state == SprintStatus::Backoff,
            parallel,
            setup: workspaces.is_some(),
            worker_pid: None,
        })?;
        let base_commit = if workspaces.is_some() {
            verify::head(&root)
        } else {
            self.store.head_id().or_else(|| verify::head(&root))
        };
        let log_rel = paths
            .log
            .strip_prefix(self.store.runtime_dir().parent().unwrap_or(Path::new("/")))
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| paths.log.display().to_string());
        let steps = self.publish(EventKind::Dispatch {
            unit: unit_name.clone(),
            model: selection.model,
            score: selection.score,
            rationale,
            agent: Agent {
                pid: None,
                log: log_rel,
                dispatched_at: clock.iso_at_seq(state.seq + 1),
                base_commit,
                dirty: verify::dirty_files(&root, &us.dir),
                files: sprint.files.clone(),
                continuation: sp.state == SprintStatus::Partial,
                retry_of: (sp.state == SprintStatus::Backoff).then_some(sp.attempt),
                worker: None,
                host: Some(self.here()),
            },
        })?;
        // The DISPATCHED commit has landed: now the process may start.
        crate::store::fault::boundary("DISPATCHED written, agent not started");
        self.start_wrapper(&paths)?;
        Ok(Some((unit_name.clone(), steps.len())))
    }

    /// Start the wrapper of a prepared job and wait until it holds the
    /// agent's liveness lock (or has already finished).
    pub(crate) fn start_wrapper(&self, paths: &AgentPaths) -> Result<(), EngineError> {
        dispatch::spawn_wrapper(&self.exe, &paths.job, &paths.wrapper_log)
            .map_err(io("cannot start the agent wrapper"))?;
        let started = Instant::now();
        while !crate::gate::lock::is_held(&paths.lock) && started.elapsed() < WRAPPER_STARTUP {
            if Report::read(&paths.report).is_some_and(|r| r.finished) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Write one dispatch's prompt, job and empty report: everything its
    /// wrapper needs. The sprint is the unit's current one in `spec.state`.
    pub(crate) fn prepare_job(&self, spec: &JobSpec<'_>) -> Result<AgentPaths, EngineError> {
        let JobSpec {
            state,
            plan,
            config,
            unit: unit_name,
            root,
            dispatch_no,
            ..
        } = *spec;
        let us = state
            .unit(unit_name)
            .ok_or_else(|| EngineError::Snapshot(format!("unit {unit_name} is not in the run")))?;
        let sp = us
            .current()
            .ok_or_else(|| EngineError::Snapshot(format!("unit {unit_name} has no sprint left")))?;
        let (plan_unit, sprint) = planned(plan, unit_name, &sp.id)?;
        let paths = self.agent_paths(unit_name, &sp.id, dispatch_no);
        let previous = self.agent_paths(unit_name, &sp.id, dispatch_no.saturating_sub(1));
        let existing: Vec<String> = plan
            .referenced_files
            .iter()
            .filter(|f| root.join(f).is_file())
            .chain(
                [
                    format!("{}/PROGRESS.md", us.dir),
                    format!("{}/TODO.md", us.dir),
                ]
                .iter()
                .filter(|f| root.join(f).is_file()),
            )
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        // A continuation resumes the conversation its previous dispatch
        // reported, with `agent.resume_command` when one is configured.
        let session_id = if spec.continuation {
            dispatch::result::reported_session(&previous.result, &previous.log)
        } else {
            None
        };
        let template = match (&session_id, config.resume_command()) {
            (Some(_), Some(resume)) => resume.to_vec(),
            _ => spec.template.clone(),
        };
        let previous_output = if spec.retry {
            let conflict =
                std::fs::read_to_string(self.conflict_note(state, unit_name)).unwrap_or_default();
            format!("{conflict}{}", dispatch::tail(&previous.log, 20))
        } else {
            String::new()
        };
        // The prompt speaks of the sprint as it was dispatched from: a
        // worker writes it after its claim, when the sprint is RUNNING.
        let mut asked = sp.clone();
        if let Some(a) = sp
            .agent
            .as_ref()
            .filter(|_| matches!(sp.state, SprintStatus::Dispatched | SprintStatus::Running))
        {
            if a.continuation {
                asked.state = SprintStatus::Partial;
            } else if let Some(n) = a.retry_of {
                asked.state = SprintStatus::Backoff;
                asked.attempt = n;
            }
        }
        let prompt_text = prompt::build(&prompt::PromptInput {
            plan,
            unit: plan_unit,
            sprint,
            state: &asked,
            root: &root.display().to_string(),
            parallel: spec.parallel,
            previous_output: &previous_output,
            existing_files: &existing,
            build_command: config.build.command.as_deref(),
            result_file: &paths.result.display().to_string(),
            project: crate::config::project_commands(root).as_ref(),
        });
        for dir in ["agents", "jobs", "prompts"] {
            std::fs::create_dir_all(self.runtime(dir))
                .map_err(io("cannot create the runtime directory"))?;
        }
        let deferred_checks = if sprint.task_type == TaskType::Deferred {
            sprint
                .exit
                .iter()
                .filter_map(|c| c.command.clone())
                .collect()
        } else {
            Vec::new()
        };
        let mut job = Job {
            run_id: state.run_id.clone(),
            unit: unit_name.to_string(),
            unit_dir: us.dir.clone(),
            sprint: sp.id.to_string(),
            sprint_name: sp.name.clone(),
            attempt: spec.attempt,
            max_retries: state.max_retries,
            model: spec.model.clone(),
            max_turns: config.agent.max_turns,
            task_type: sprint.task_type,
            argv: Vec::new(),
            prompt: config.agent.prompt,
            prompt_file: paths.prompt.clone(),
            result_file: paths.result.clone(),
            log_file: paths.log.clone(),
            report_file: paths.report.clone(),
            lock_file: paths.lock.clone(),
            workdir: root.to_path_buf(),
            poll_interval_ms: config.run.poll_interval.as_millis() as u64,
            timing: dispatch::liveness::Timing::from_config(config),
            deferred_checks,
            session_id,
            setup: config
                .workspace
                .setup
                .as_ref()
                .filter(|_| spec.setup)
                .map(|command| dispatch::Setup {
                    command: command.clone(),
                    done_marker: self.setup_marker(state, unit_name),
                }),
            worker_pid: spec.worker_pid,
        };
        job.argv = dispatch::resolve_argv(&template, &job, &prompt_text);
        // A program named by a relative path (`.workflow/agent.sh`) is the
        // one in the repository's working tree, wherever the agent works:
        // a unit's worktree holds only what is committed.
        if let Some(program) = job.argv.first_mut() {
            let path = Path::new(program.as_str());
            if path.is_relative() && path.components().count() > 1 {
                let here = self.workdir.join(path);
                if here.is_file() {
                    *program = here.display().to_string();
                }
            }
        }
        std::fs::write(&paths.prompt, &prompt_text).map_err(io("cannot write the prompt file"))?;
        let _ = std::fs::remove_file(&paths.result);
        let job_text = toml::to_string(&job)
            .map_err(|e| io("cannot write the job file")(std::io::Error::other(e)))?;
        std::fs::write(&paths.job, job_text).map_err(io("cannot write the job file"))?;
        Report::default()
            .write(&paths.report)
            .map_err(io("cannot write the agent report"))?;
        Ok(paths)
    }

    /// Block until every unit is terminal (or `timeout`), ticking each poll
    /// interval so that crashed agents are noticed. `on_poll` sees the state
    /// and the lines to print since the last poll: the phase-boundary lines
    /// of the coordinated builds and the FATAL message of a unit that
    /// blocked.
    pub fn wait(
        &self,
        timeout: Option<Duration>,
        mut on_poll: impl FnMut(&State, &[String]),
    ) -> Result<State, EngineError> {
        let start = Instant::now();
        let mut seen = match self.announced.get() {
            Some(seq) => seq,
            None => self.store.tip()?.map(|t| t.state.seq).unwrap_or(0),
        };
        let mut busy_since: Option<Instant> = None;
        let mut busy_told = false;
        loop {
            dispatch::reap();
            let ticked = self.tick(LockMode::Wait(Duration::from_millis(200)))?;
            let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
            let mut lines = self.announcements(seen, &tip.state)?;
            seen = tip.state.seq;
            if ticked.deferred {
                let since = *busy_since.get_or_insert_with(Instant::now);
                if !busy_told && since.elapsed() >= BUSY_NOTICE_AFTER {
                    busy_told = true;
                    lines.push(self.busy_notice(since.elapsed()));
                }
            } else {
                busy_since = None;
                busy_told = false;
            }
            on_poll(&tip.state, &lines);
            if tip.state.is_finished() || timeout.is_some_and(|t| start.elapsed() >= t) {
                return Ok(tip.state);
            }
            let poll = self
                .snapshot(&tip)
                .map(|(_, c)| c.run.poll_interval)
                .unwrap_or(Duration::from_secs(5));
            std::thread::sleep(poll.min(Duration::from_millis(500)));
        }
    }

    /// Why a waiting command sees no progress: the process that has held
    /// the engine lock all this time, so agents' results stay unrecorded.
    fn busy_notice(&self, busy: Duration) -> String {
        let lock = self.runtime("engine.lock");
        let holder = crate::gate::lock::holder(&lock);
        let who = match holder {
            Some(pid) => {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|b| {
                        b.split(|c| *c == 0)
                            .filter(|a| !a.is_empty())
                            .map(|a| String::from_utf8_lossy(a).into_owned())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                format!("process {pid} ({cmd})")
            }
            None => "another process".to_string(),
        };
        let fix = match holder {
            Some(pid) => format!(
                " If it hung, `kill {pid}`: nothing is lost, the next tick records what it missed."
            ),
            None => String::new(),
        };
        format!(
            "The engine has been busy for {}s: {who} holds {}. Agents that ended meanwhile are recorded once it lets go (a phase build holds it while it runs).{fix}",
            busy.as_secs(),
            lock.display()
        )
    }

    /// What a waiting command prints about the transitions after `since`
    /// (oldest first): the spec's phase-boundary lines and the four-line
    /// FATAL message of each unit that blocked.
    pub fn announcements(&self, since: u64, state: &State) -> Result<Vec<String>, EngineError> {
        self.announced.set(Some(state.seq.max(since)));
        if state.seq <= since {
            return Ok(Vec::new());
        }
        let limit = usize::try_from(state.seq - since).unwrap_or(usize::MAX);
        let mut records = self.store.history(Some(limit))?;
        records.reverse();
        let mut lines = Vec::new();
        for r in records {
            match r.event.as_deref() {
                Some("build-started" | "build-failed")
                    if r.unit.is_none() && (r.why.starts_with('🏗') || r.why.starts_with('❌')) =>
                {
                    lines.push(r.why.lines().next().unwrap_or_default().to_string());
                }
                Some("gate-passed") => {
                    if let Some(i) = r.why.find('✅').or_else(|| r.why.find('⚠')) {
                        lines.push(r.why[i..].lines().next().unwrap_or_default().to_string());
                    }
                }
                _ => {}
            }
            if r.to.as_deref() == Some("BLOCKED") && r.sprint.is_none() {
                if let Some(m) = r
                    .unit
                    .as_deref()
                    .and_then(|u| crate::report::status::fatal_message(state, u))
                {
                    lines.push(m);
                }
            }
        }
        Ok(lines)
    }
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
