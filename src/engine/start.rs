//! Starting a run (`start`: the run id, the worktrees decision, the first
//! transitions) and changing its plan (`replan`).

use std::path::Path;

use crate::base::runtime;
use crate::config::Config;
use crate::machine;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::State;
use crate::machine::Step;
use crate::plan::Plan;
use crate::store::remote::RefPush;
use crate::store::Snapshot;
use crate::store::Update;
use crate::store::UpdateError;
use crate::workspace::Workspaces;

use super::io;
use super::Engine;
use super::EngineError;

impl Engine {
    /// Whether a run with this id was archived here or on the run's remote.
    pub(super) fn run_id_taken(&self, run_id: &str) -> Result<bool, EngineError> {
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
            .unwrap_or_else(|| super::naming::operation_name(plan));
        // Two runs of one plan started in the same second (a pinned clock,
        // a script) would share an id, and with it the archive's name and
        // the run's branches: the later one takes the next free suffix.
        let base_id = super::naming::run_id(&clock.at_seq(0), plan_text);
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
            self.runtime(runtime::WORKDIR),
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
                snapshot: Some(snapshot.clone()),
                also: integration.clone(),
                ..super::publish::update(machine::apply(&state, &event)?, Some(event))
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
                snapshot: Some(snapshot.clone()),
                ..super::publish::update(machine::apply(&tip.state, &event)?, Some(event))
            }))
        });
        match published {
            Ok(p) => Ok(p.steps),
            Err(UpdateError::Store(e)) => Err(e.into()),
            Err(UpdateError::Decide(e)) => Err(e),
        }
    }
}
