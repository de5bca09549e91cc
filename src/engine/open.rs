//! Opening the engine on a repository and where things are: the run's
//! working tree (followed from another worktree), the runtime directory,
//! each unit's root and workspaces, the clone an agent runs in, and the plan
//! and config snapshot a run decides on.

use std::path::Path;
use std::path::PathBuf;

use crate::base::runtime;
use crate::config::Config;
use crate::machine::State;
use crate::plan::ParseContext;
use crate::plan::Plan;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::Tip;
use crate::workspace::Workspaces;

use super::io;
use super::Engine;
use super::EngineError;

/// A run belongs to the working tree it was started in: opened from another
/// worktree of the repository (a linked one on another branch), the engine
/// still works on the run's tree, its HEAD and its files, never on the
/// caller's.
fn follow_the_run(store: Store) -> Result<Store, EngineError> {
    let Ok(recorded) = std::fs::read_to_string(store.runtime_dir().join(runtime::WORKDIR)) else {
        return Ok(store);
    };
    let recorded = PathBuf::from(recorded.trim_end_matches('\n'));
    let here = store.workdir().and_then(|w| w.canonicalize().ok());
    let there = recorded.canonicalize().ok();
    if there.is_none() || here == there {
        return Ok(store);
    }
    // A blocked, stopped or killed run is still the run: a commit that
    // fixes it in a unit's worktree wakes an engine that must work on the
    // run's tree. Only a completed run leaves the caller's tree alone.
    let resumable = store
        .tip()?
        .is_some_and(|t| t.state.overall() != crate::machine::Overall::Completed);
    if !resumable {
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
            dispatch_room: std::cell::Cell::new(None),
            exe,
        })
    }

    pub(crate) fn runtime(&self, sub: &str) -> PathBuf {
        self.store.runtime_dir().join(sub)
    }

    /// Every runtime directory a dispatch writes exists and takes a file:
    /// checked before a run is recorded, so a read-only or full
    /// `.git/supervisor` never leaves a run that can dispatch nothing.
    pub(super) fn check_runtime_writable(&self) -> Result<(), EngineError> {
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
            .get_or_init(|| clone_id(&self.store.runtime_dir()))
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

    /// The plan and config the run was started with.
    /// What a unit's commands (criteria, teardown) are told of where they
    /// run, beside what agents get: the run, the unit, its slot and port.
    pub fn unit_env(&self, state: &State, config: &Config, unit: &str) -> Vec<(String, String)> {
        let mut env = vec![
            ("SUPERVISOR_RUN_ID".to_string(), state.run_id.clone()),
            ("SUPERVISOR_UNIT".to_string(), unit.to_string()),
        ];
        env.extend(config.workspace.slot_env(state.slot_of(unit).unwrap_or(0)));
        env
    }

    /// [`Engine::unit_env`] with the config of the run at `tip` (none
    /// when its snapshot does not parse).
    pub fn unit_env_at(&self, tip: &Tip, unit: &str) -> Vec<(String, String)> {
        match self.snapshot(tip) {
            Ok((_, config)) => self.unit_env(&tip.state, &config, unit),
            Err(_) => Vec::new(),
        }
    }

    /// The plan text of the snapshot [`Engine::snapshot`] parsed last.
    pub(super) fn snapshot_source(&self) -> Option<String> {
        self.parsed
            .borrow()
            .as_ref()
            .map(|(s, _, _)| s.plan.clone())
    }

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
}

/// This clone as a local dispatch records it (`Agent::host`):
/// `<hostname>:<git common dir>`, from the runtime directory in it.
pub fn clone_id(runtime: &std::path::Path) -> String {
    let git_dir = runtime.parent().unwrap_or(runtime);
    let git_dir = git_dir
        .canonicalize()
        .unwrap_or_else(|_| git_dir.to_path_buf());
    format!(
        "{}:{}",
        crate::engine::worker::hostname(),
        git_dir.display()
    )
}
