//! Starting agents: the next dispatchable sprint published DISPATCHED,
//! its job file and prompt written, and its wrapper started and seen to take
//! its liveness lock.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::base::runtime;
use crate::dispatch;
use crate::dispatch::prompt;
use crate::dispatch::Job;
use crate::dispatch::Report;
use crate::machine;
use crate::machine::Agent;
use crate::machine::EventKind;
use crate::machine::Model;
use crate::machine::SprintStatus;
use crate::plan::SprintId;
use crate::plan::TaskType;
use crate::store::Tip;

use super::io;
use super::planned;
use super::AgentPaths;
use super::Engine;
use super::EngineError;
use super::JobSpec;
use super::WRAPPER_STARTUP;

/// The sprint to dispatch next and how (see `next_dispatch`).
pub(super) struct Choice {
    pub(super) unit: String,
    model: Model,
    score: i32,
    rationale: String,
    /// Other agents work meanwhile (builds wait for the phase boundary).
    parallel: bool,
    files: Vec<String>,
}

/// The agent CLI's name for `model`, as the run's config spells it.
pub(super) fn model_name(config: &crate::config::Config, model: Model) -> String {
    match model {
        Model::Haiku => &config.models.haiku,
        Model::Sonnet => &config.models.sonnet,
        Model::Opus => &config.models.opus,
    }
    .clone()
}

/// The wall clock as the machine's timestamps: a failed sprint waits for
/// its retry time by it (the commit clock may be pinned).
fn wall_now() -> String {
    crate::store::clock::iso(time::OffsetDateTime::now_utc())
}

impl Engine {
    pub(crate) fn agent_paths(
        &self,
        unit: &str,
        sprint: &SprintId,
        dispatch_no: u32,
    ) -> AgentPaths {
        let stem = Job::stem(unit, &sprint.to_string(), dispatch_no);
        let agents = self.runtime(runtime::AGENTS);
        AgentPaths {
            log: agents.join(format!("{stem}.log")),
            report: agents.join(format!("{stem}.report.toml")),
            result: agents.join(format!("{stem}.result")),
            wrapper_log: agents.join(format!("{stem}.wrapper.log")),
            lock: agents.join(crate::base::runtime_name::lock(unit)),
            job: self.runtime(runtime::JOBS).join(format!("{stem}.toml")),
            prompt: self.runtime(runtime::PROMPTS).join(format!("{stem}.md")),
        }
    }

    /// Dispatch the first eligible unit's sprint: write its job, publish
    /// DISPATCHED, then start the wrapper.
    pub(super) fn dispatch_next(&self, tip: &Tip) -> Result<Option<(String, usize)>, EngineError> {
        let Some((plan, config)) = self.ready_to_dispatch(tip)? else {
            return Ok(None);
        };
        let clock = self.store.clock();
        let state = &tip.state;
        let Some(choice) = self.next_dispatch(state, &plan, &config) else {
            return Ok(None);
        };
        let template = config
            .agent_command()
            .ok_or(EngineError::NoAgentCommand)?
            .to_vec();
        let unit_name = &choice.unit;
        let us = state.unit(unit_name).expect("dispatchable names a unit");
        let sp = us
            .current()
            .expect("a dispatchable unit has a current sprint");
        let dispatch_no = sp.dispatches + 1;
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
            model: model_name(&config, choice.model),
            continuation: sp.state == SprintStatus::Partial,
            retry: sp.state == SprintStatus::Backoff,
            parallel: choice.parallel,
            setup: workspaces.is_some(),
            worker_pid: None,
        })?;
        let base_commit = if workspaces.is_some() {
            super::verify::head(&root)
        } else {
            self.store.head_id().or_else(|| super::verify::head(&root))
        };
        let log_rel = paths
            .log
            .strip_prefix(self.store.runtime_dir().parent().unwrap_or(Path::new("/")))
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| paths.log.display().to_string());
        let steps = self.publish(EventKind::Dispatch {
            unit: unit_name.clone(),
            model: choice.model,
            score: choice.score,
            rationale: choice.rationale.clone(),
            agent: Agent {
                pid: None,
                log: log_rel,
                dispatched_at: clock.iso_at_seq(state.seq + 1),
                base_commit,
                dirty: super::verify::dirty_files(&root, &us.dir),
                files: choice.files.clone(),
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

    /// The end of a usage-limit pause whose reset has come by the wall
    /// clock, to record before anything is dispatched to that agent again.
    pub(super) fn next_limit_end(&self, tip: &Tip) -> Option<EventKind> {
        let agent = tip.state.limits_reset(&wall_now()).into_iter().next()?;
        Some(EventKind::LimitEnded { agent })
    }

    /// The plan and config to dispatch with, once the checks every
    /// dispatch needs have passed: something is ready, the budget is not
    /// spent (else the run stops until resumed), the agent's program runs.
    /// `None`: nothing to dispatch now.
    pub(super) fn ready_to_dispatch(
        &self,
        tip: &Tip,
    ) -> Result<Option<(crate::plan::Plan, crate::config::Config)>, EngineError> {
        if machine::dispatchable_at(&tip.state, &wall_now()).is_empty() {
            return Ok(None);
        }
        // The budget is checked before every dispatch (attempts, retries,
        // continuations): once spent, the run stops until resumed.
        if let Some((spent, budget)) = self.budget_spent(tip)? {
            self.publish(EventKind::BudgetReached { spent, budget })?;
            return Ok(None);
        }
        self.dispatch_config(tip).map(Some)
    }

    /// What the run spent and its budget, once the budget is spent.
    fn budget_spent(&self, tip: &Tip) -> Result<Option<(machine::Usd, machine::Usd)>, EngineError> {
        let (_, config) = self.snapshot(tip)?;
        let spent = tip.state.cost();
        Ok(config
            .run
            .budget_usd
            .and_then(machine::Usd::from_dollars)
            .filter(|budget| spent >= *budget)
            .map(|budget| (spent, budget)))
    }

    /// The plan and config to dispatch with, once the run's agent command
    /// is known to run: a replan may have changed it, and it is refused
    /// before an attempt is spent on a program that cannot run.
    fn dispatch_config(
        &self,
        tip: &Tip,
    ) -> Result<(crate::plan::Plan, crate::config::Config), EngineError> {
        let (plan, config) = self.snapshot(tip)?;
        config.agent_command().ok_or(EngineError::NoAgentCommand)?;
        let config_text = self.parsed.borrow().as_ref().map(|p| p.0.config.clone());
        config
            .check_agent_program(
                &config_text.unwrap_or_default(),
                "the run's .workflow/config.toml",
                &self.workdir,
            )
            .map_err(EngineError::AgentProgram)?;
        Ok((plan, config))
    }

    /// The plan and config a worker dispatches with inside a chain of its
    /// own (a verdict, the next sprint's dispatch, its claim): `None` when
    /// the budget is spent or the agent cannot run — the tick says so.
    pub(super) fn quiet_dispatch_config(
        &self,
        tip: &Tip,
    ) -> Option<(crate::plan::Plan, crate::config::Config)> {
        match self.budget_spent(tip) {
            Ok(None) => self.dispatch_config(tip).ok(),
            _ => None,
        }
    }

    /// The sprint `state` would dispatch next, with its model and why:
    /// the first ready unit whose deferred check is not paced. Pure in
    /// `state`, so a chain of dispatches asks it again on the state the
    /// last one left.
    pub(super) fn next_dispatch(
        &self,
        state: &machine::State,
        plan: &crate::plan::Plan,
        config: &crate::config::Config,
    ) -> Option<Choice> {
        // A failed sprint waits for its retry time by the wall clock (the
        // commit clock may be pinned).
        let now = wall_now();
        // Nothing goes to an agent paused on its usage limit.
        if let Some(agent) = config.agent_program_name() {
            if state.limit_pause(&agent, &now).is_some() {
                return None;
            }
        }
        let ready = machine::dispatchable_at(state, &now);
        // An agent's check of a deferred condition waits for its next check
        // time, by the engine's clock: a pinned clock (tests) moves only with
        // transitions, so time passes there only when the pin does.
        let check_now = self.store.clock().iso_at_seq(state.seq + 1);
        let paced = |name: &String| {
            state
                .unit(name)
                .and_then(|u| u.current())
                .filter(|sp| {
                    sp.task_type == TaskType::Deferred && sp.state == SprintStatus::Partial
                })
                .and_then(|sp| sp.next_check_at.as_deref())
                .is_some_and(|at| !machine::retry::due(at, &check_now))
        };
        // A sprint naming files a live sprint of another unit names: held
        // until that one leaves (`serialize`), or dispatched with the
        // overlap in its reason (`warn`).
        let serialize = config.run.on_overlap == crate::config::OnOverlap::Serialize;
        let overlap_of = |name: &String| {
            let sp = state.unit(name)?.current()?;
            let (_, sprint) = planned(plan, name, &sp.id).ok()?;
            let shared = super::overlap::named_overlap(state, name, &sprint.files);
            (!shared.is_empty()).then_some(shared)
        };
        let unit_name = ready
            .iter()
            .filter(|u| !paced(u))
            .find(|u| !serialize || overlap_of(u).is_none())?;
        let overlap = overlap_of(unit_name)
            .map(|shared| {
                let named: Vec<String> = shared
                    .iter()
                    .map(|(u, s, f)| format!("`{u}` sprint {s} on {}", f.join(", ")))
                    .collect();
                format!("; overlaps {} (on_overlap = warn)", named.join(", "))
            })
            .unwrap_or_default();
        let sp = state.unit(unit_name)?.current()?;
        let (_, sprint) = planned(plan, unit_name, &sp.id).ok()?;
        let selection = machine::model_select::select(plan, unit_name, sprint, sp);
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
        let rationale = format!("{rationale}{overlap}");
        Some(Choice {
            unit: unit_name.clone(),
            model: selection.model,
            score: selection.score,
            rationale,
            parallel,
            files: sprint.files.clone(),
        })
    }

    /// Publish the sprints a run on a remote may dispatch now, up to
    /// `room` (all when `None`), as one chain of DISPATCHED events in one
    /// push: a worker claims them; nothing starts here. Other clones tick
    /// too: a lost race decides the chain again on their tip. The units
    /// dispatched and the steps published.
    pub(super) fn dispatch_on_remote(
        &self,
        tip: &Tip,
        room: Option<usize>,
    ) -> Result<(Vec<String>, usize), EngineError> {
        let Some((plan, config)) = self.ready_to_dispatch(tip)? else {
            return Ok((Vec::new(), 0));
        };
        let mut units = Vec::new();
        let steps = self.publish_chain(|_, state, n| {
            if n == 0 {
                units.clear();
            }
            // A sprint a worker's lease already claims waits for no one.
            let waiting = state
                .waiting_for_an_agent()
                .filter(|u| {
                    u.active_sprint()
                        .is_some_and(|sp| !self.claimed_by_lease(&u.name, sp.dispatches))
                })
                .count();
            if room.is_some_and(|room| waiting >= room) {
                return Ok(None);
            }
            let Some(choice) = self.next_dispatch(state, &plan, &config) else {
                return Ok(None);
            };
            units.push(choice.unit.clone());
            Ok(Some((self.remote_dispatch(state, choice), Vec::new())))
        })?;
        if steps.is_empty() {
            units.clear();
        }
        Ok((units, steps.len()))
    }

    /// The DISPATCHED event of `choice` in a run on a remote: no agent, no
    /// host; the worker that claims it is recorded by its claim.
    pub(super) fn remote_dispatch(&self, state: &machine::State, choice: Choice) -> EventKind {
        let sp = state
            .unit(&choice.unit)
            .and_then(|u| u.current())
            .expect("a dispatchable unit has a current sprint");
        EventKind::Dispatch {
            model: choice.model,
            score: choice.score,
            rationale: choice.rationale,
            agent: Agent {
                pid: None,
                log: String::new(),
                dispatched_at: self.store.clock().iso_at_seq(state.seq + 1),
                base_commit: None,
                dirty: Vec::new(),
                files: choice.files,
                continuation: sp.state == SprintStatus::Partial,
                retry_of: (sp.state == SprintStatus::Backoff).then_some(sp.attempt),
                worker: None,
                host: None,
            },
            unit: choice.unit,
        }
    }

    /// Start the wrapper of a prepared job and wait until it holds the
    /// agent's liveness lock (or has already finished).
    pub(crate) fn start_wrapper(&self, paths: &AgentPaths) -> Result<(), EngineError> {
        dispatch::spawn_wrapper(&self.exe, &paths.job, &paths.wrapper_log)
            .map_err(io("cannot start the agent wrapper"))?;
        let started = Instant::now();
        while !crate::base::lock::is_held(&paths.lock) && started.elapsed() < WRAPPER_STARTUP {
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
        // What the plan tells its agents to read, from its text.
        let source = self.snapshot_source().unwrap_or_default();
        let to_read: Vec<dispatch::reading::ToRead> =
            dispatch::reading::named(&source, plan, sprint)
                .into_iter()
                .map(|path| dispatch::reading::ToRead {
                    exists: root.join(&path).exists(),
                    created_by: dispatch::reading::created_by(plan, &path, sprint),
                    path,
                })
                .collect();
        let mut prompt_text = prompt::build(&prompt::PromptInput {
            plan,
            unit: plan_unit,
            sprint,
            state: &asked,
            root: &root.display().to_string(),
            project_root: &self.project_root(state).display().to_string(),
            needs: &state.needs,
            parallel: spec.parallel,
            previous_output: &previous_output,
            existing_files: &existing,
            build_command: config.build.command.as_deref(),
            result_file: &paths.result.display().to_string(),
            project: crate::config::project_commands(root).as_ref(),
            to_read: &to_read,
        });
        // Files another live unit is changing too (found while both work).
        for o in super::overlap::live(&self.store.runtime_dir(), state)
            .iter()
            .filter(|o| o.later == unit_name)
        {
            prompt_text.push_str(&format!(
                "\n**Overlap**: unit `{}` is changing {} too{}. Keep your changes to them small and separate, so both merge.\n",
                o.earlier,
                o.files.join(", "),
                if o.conflict { "; a conflict with its branch is predicted" } else { "" }
            ));
        }
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
            slot: state.slot_of(unit_name).unwrap_or(0),
            port: config.workspace.port(state.slot_of(unit_name).unwrap_or(0)),
        };
        job.argv = dispatch::resolve_argv(&template, &job, &prompt_text);
        dispatch::anchor_program(&mut job.argv, &self.workdir);
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
}
