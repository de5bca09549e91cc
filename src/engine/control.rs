//! `stop` (spec §P: drain, wait, terminate) and `killall` (spec §Q: all six
//! steps): ending agents with signals, assessing what they left, and
//! recording it.

use crate::base::runtime;

use std::time::Duration;
use std::time::Instant;

use super::verify;
use super::Engine;
use super::EngineError;
use super::LockMode;
use crate::dispatch;
use crate::dispatch::reap;
use crate::dispatch::Report;
use crate::machine::EventKind;
use crate::machine::KillAssessment;
use crate::machine::Outcome;
use crate::machine::State;
use crate::machine::UnitStatus;

/// What ending the agents did.
#[derive(Debug, Default)]
pub struct Ended {
    pub terminated: usize,
    /// Background processes ended, in words (see `engine::background`).
    pub background: Vec<String>,
    /// Kills that failed (already gone, no permission): logged, never fatal.
    pub failures: Vec<String>,
}

impl Engine {
    fn report_of(&self, state: &State, unit: &str) -> Option<(Report, std::path::PathBuf)> {
        let u = state.unit(unit)?;
        let sp = u.active_sprint()?;
        let paths = self.agent_paths(unit, &sp.id, sp.dispatches);
        Some((Report::read(&paths.report).unwrap_or_default(), paths.lock))
    }

    /// End the agents of `units` and every process of their trees. Each
    /// wrapper is asked (SIGTERM): it is its agent's subreaper, so it alone
    /// sees the whole tree, and it ends it (SIGTERM, `grace`, SIGKILL)
    /// before it exits. A wrapper that is gone or does not answer in time
    /// is replaced by doing the same from here over what `/proc` still
    /// shows under it. All are asked first and waited for together, so
    /// several agents that ignore the request take one grace period, not
    /// one each.
    fn terminate(&self, state: &State, units: &[String], grace: Duration, ended: &mut Ended) {
        let prune = |pid: u32| reap::is_wrapper(pid);
        let targets: Vec<(&String, dispatch::Report, std::path::PathBuf)> = units
            .iter()
            .filter_map(|u| self.report_of(state, u).map(|(r, l)| (u, r, l)))
            .collect();
        for (_, report, _) in &targets {
            // The wrapper only, not its group: its group may hold another
            // unit's wrapper its tick started.
            if let Some(w) = report.wrapper_pid.filter(|w| dispatch::alive(*w)) {
                reap::signal(w, libc::SIGTERM);
            }
        }
        let start = Instant::now();
        let patience = grace.saturating_add(Duration::from_secs(5));
        for (unit, report, lock) in &targets {
            if let Some(w) = report.wrapper_pid {
                while (crate::base::lock::is_held(lock) || dispatch::alive(w))
                    && start.elapsed() < patience
                {
                    dispatch::reap();
                    std::thread::sleep(Duration::from_millis(10));
                }
                if dispatch::alive(w) {
                    ended.failures.push(format!(
                        "{unit}: wrapper {w} did not end its agent in time; ended from here"
                    ));
                    reap::end_tree(w, true, grace, &prune, None);
                }
            }
            // No wrapper (it crashed): what is left of the agent's own tree.
            if let Some(pid) = report
                .pid
                .filter(|p| dispatch::alive(*p) && Some(*p) != report.wrapper_pid)
            {
                let _ = dispatch::signal_group(pid, libc::SIGTERM);
                let end = reap::end_tree(pid, true, grace, &prune, None);
                if !end.survivors.is_empty() {
                    ended.failures.push(format!(
                        "{unit}: processes {:?} survived SIGKILL",
                        end.survivors
                    ));
                }
            }
            ended.terminated += 1;
        }
    }

    /// STOPPING units whose agents this clone ends or waits for (not those
    /// another clone started, in a run shared by `sync`).
    fn stopping_here(&self, state: &State) -> usize {
        state
            .units
            .iter()
            .filter(|u| u.state == UnitStatus::Stopping)
            .filter(|u| {
                !u.active_sprint()
                    .is_some_and(|sp| self.hosted_elsewhere(sp))
            })
            .count()
    }

    /// The unit's agent was started by another clone: it is not ended from
    /// here, and the report says where to end it.
    fn elsewhere(&self, u: &crate::machine::UnitState, ended: &mut Ended) -> bool {
        let Some(sp) = u.active_sprint().filter(|sp| self.hosted_elsewhere(sp)) else {
            return false;
        };
        let host = sp
            .agent
            .as_ref()
            .and_then(|a| a.host.as_deref())
            .unwrap_or_default();
        let note = format!(
            "{}: its agent runs in another clone ({host}); end it there, then `git supervisor sync`",
            u.name
        );
        // killall looks again for agents a running tick dispatched meanwhile.
        if !ended.failures.contains(&note) {
            ended.failures.push(note);
        }
        true
    }

    /// Wait until no agent of this repository is left (every liveness lock
    /// is free), at most the kill grace and ten seconds: a finished run's
    /// agent that is still being ended (its sprint was completed by its
    /// commit) could otherwise outlive the command that reported the run.
    pub fn settle(&self) {
        let limit = self.kill_grace().saturating_add(Duration::from_secs(10));
        let start = Instant::now();
        let agents = self.runtime(runtime::AGENTS);
        while start.elapsed() < limit {
            dispatch::reap();
            let busy = std::fs::read_dir(&agents)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    e.path().extension().is_some_and(|x| x == "lock")
                        && crate::base::lock::is_held(&e.path())
                });
            if !busy {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The kill grace of the run's config.
    fn kill_grace(&self) -> Duration {
        self.store
            .tip()
            .ok()
            .flatten()
            .and_then(|t| self.snapshot(&t).ok())
            .map(|(_, c)| c.agent.kill_grace)
            .unwrap_or(Duration::from_secs(10))
    }

    fn poll_interval(&self) -> Duration {
        self.store
            .tip()
            .ok()
            .flatten()
            .and_then(|t| self.snapshot(&t).ok())
            .map(|(_, c)| c.run.poll_interval)
            .unwrap_or(Duration::from_secs(5))
    }

    /// Graceful stop: drain, wait up to 10 poll intervals without a
    /// completion (and never past `timeout`) while results are processed
    /// normally, then terminate what is left (BACKOFF, KILLED).
    pub fn stop(
        &self,
        timeout: Option<Duration>,
        mut say: impl FnMut(&str),
    ) -> Result<(State, Ended), EngineError> {
        let deadline = timeout.map(|t| std::time::Instant::now() + t);
        self.publish(EventKind::Stop)?;
        // Units with nothing at work stop at the first tick (on a remote,
        // sprints no worker claimed): count only what is left to wait for.
        self.tick(LockMode::Wait(Duration::from_millis(500)))?;
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        let waiting = self.stopping_here(&tip.state);
        say(&if waiting == 0 {
            "Supervisor stopped: no agent was at work.".to_string()
        } else {
            format!(
                "Supervisor entering graceful shutdown. Waiting for {waiting} active agent{} to finish.",
                if waiting == 1 { "" } else { "s" }
            )
        });
        let poll = self.poll_interval();
        let mut polls_without_completion = 0;
        let mut last = waiting;
        while polls_without_completion < 10 {
            self.tick(LockMode::Wait(Duration::from_millis(500)))?;
            let state = self.store.tip()?.ok_or(EngineError::NoRun)?.state;
            let now = self.stopping_here(&state);
            if now == 0 {
                break;
            }
            if now < last {
                say(&format!("{} agents still finishing.", now));
                polls_without_completion = 0;
            } else {
                polls_without_completion += 1;
            }
            last = now;
            match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        say(&format!(
                            "Stop timeout reached; terminating {now} agents still running."
                        ));
                        break;
                    }
                    std::thread::sleep(poll.min(left));
                }
                None => std::thread::sleep(poll),
            }
        }
        // Phase 3 holds the engine lock: an agent's wrapper ending under
        // our signal wakes the engine, and that tick must not record its
        // own verdict (a failure, attempt counted) before ours
        // (force-terminated, attempt kept).
        let lock = self.runtime(runtime::ENGINE_LOCK);
        let grace = self.kill_grace();
        let result = match crate::base::lock::with_lock(&lock, Duration::from_secs(10), || {
            self.force_stop(grace)
        }) {
            Ok(Some(result)) => result,
            _ => self.force_stop(grace),
        };
        let mut ended = result?;
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        ended.background = self.end_background(&tip, true)?;
        // Wake-ups left while we held the lock.
        self.tick(LockMode::Wait(Duration::from_millis(500)))?;
        let state = self.store.tip()?.ok_or(EngineError::NoRun)?.state;
        Ok((state, ended))
    }

    /// Stop phase 3, under the engine lock: record what finished meanwhile,
    /// then terminate what is still running (sprint BACKOFF with the attempt
    /// kept, unit KILLED).
    fn force_stop(&self, grace: Duration) -> Result<Ended, EngineError> {
        // Agents that finished just now are judged normally first.
        self.tick_locked()?;
        let mut ended = Ended::default();
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        let config = self.snapshot(&tip)?.1;
        let state = tip.state;
        let stopping: Vec<&crate::machine::UnitState> = state
            .units
            .iter()
            .filter(|u| u.state == UnitStatus::Stopping && u.active_sprint().is_some())
            .filter(|u| !self.elsewhere(u, &mut ended))
            .collect();
        let names: Vec<String> = stopping.iter().map(|u| u.name.clone()).collect();
        self.terminate(&state, &names, grace, &mut ended);
        for u in stopping {
            let uncommitted =
                verify::uncommitted(&self.unit_root(&state, &config, &u.name), &state, u);
            match self.publish(EventKind::ForceStop {
                unit: u.name.clone(),
                uncommitted,
            }) {
                Ok(_) | Err(EngineError::Refused(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(ended)
    }

    /// Emergency stop: terminate every agent at once, assess each unit by
    /// verification, record uncommitted work without touching it.
    pub fn killall(&self) -> Result<(State, Ended), EngineError> {
        // Holding the engine lock keeps every tick (the only place agents
        // are dispatched) out while agents are terminated and assessed. A
        // phase build holds the lock for as long as it runs; killall does not
        // wait for it, and catches agents dispatched meanwhile below.
        let lock = self.runtime(runtime::ENGINE_LOCK);
        match crate::base::lock::with_lock(&lock, Duration::from_secs(3), || self.killall_now()) {
            Ok(Some(result)) => result,
            _ => self.killall_now(),
        }
    }

    fn killall_now(&self) -> Result<(State, Ended), EngineError> {
        let mut ended = Ended::default();
        let mut assessed: Vec<String> = Vec::new();
        let mut assessments = Vec::new();
        // Until no agent is left that was not terminated and assessed (a
        // tick that was already running may dispatch one meanwhile).
        let mut tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        for _ in 0..5 {
            let fresh = self.terminate_and_assess(&tip, &assessed, &mut ended)?;
            if fresh.is_empty() {
                break;
            }
            assessed.extend(fresh.iter().map(|a| a.unit.clone()));
            assessments.extend(fresh);
            tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        }
        // A finished run (completed, stopped, blocked, killed) with no agent
        // to end is left as it is: a completed run does not become killed.
        if assessments.is_empty() && tip.state.is_finished() {
            ended.background = self.end_background(&tip, true)?;
            return Ok((tip.state, ended));
        }
        self.publish(EventKind::Killall {
            reason: "user invoked killall".into(),
            assessments,
        })?;
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        ended.background = self.end_background(&tip, true)?;
        let state = self.store.tip()?.ok_or(EngineError::NoRun)?.state;
        Ok((state, ended))
    }

    /// Terminate the agents of `tip` not in `done` and assess their units.
    fn terminate_and_assess(
        &self,
        tip: &crate::store::Tip,
        done: &[String],
        ended: &mut Ended,
    ) -> Result<Vec<KillAssessment>, EngineError> {
        let state = tip.state.clone();
        let (plan, config) = self.snapshot(tip)?;
        let grace = config.agent.kill_grace;
        let active: Vec<String> = state
            .units
            .iter()
            .filter(|u| u.active_sprint().is_some() && !done.contains(&u.name))
            .filter(|u| !self.elsewhere(u, ended))
            .map(|u| u.name.clone())
            .collect();
        self.terminate(&state, &active, grace, ended);
        let mut assessments = Vec::new();
        for unit in &active {
            let u = state.unit(unit).expect("listed from the state");
            let sp = u.active_sprint().expect("listed as active");
            let root = self.unit_root(&state, &config, unit);
            // What the agent left, before the exit criteria run: files their
            // commands write (caches, build output) are not the agent's work.
            let uncommitted = verify::uncommitted(&root, &state, u);
            let sprint = plan
                .unit(unit)
                .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id));
            let verdict = sprint.map(|sprint| {
                verify::verify(&verify::VerifyInput {
                    env: &self.unit_env(&state, &config, unit),
                    others: verify::others(&state, unit),
                    root: &root,
                    unit,
                    unit_dir: &u.dir,
                    sprint,
                    base_commit: sp.agent.as_ref().and_then(|a| a.base_commit.as_deref()),
                    exit_code: None,
                    killed: Some("terminated by killall"),
                    result_file: None,
                    log_file: None,
                    agent: sp.agent.as_ref(),
                })
            });
            assessments.push(KillAssessment {
                unit: unit.clone(),
                completed: verdict
                    .as_ref()
                    .is_some_and(|v| v.outcome == Outcome::Completed),
                // Uncommitted work left in scope is work too.
                progress: !uncommitted.is_empty()
                    || verdict
                        .as_ref()
                        .is_some_and(|v| v.outcome != Outcome::Failure || !v.commits.is_empty()),
                uncommitted,
            });
        }
        Ok(assessments)
    }
}

/// The report of spec §Q step 6 (also the final report of `stop`).
pub fn render_report(
    title: &str,
    state: &State,
    ended: &Ended,
    worktrees: Option<&crate::workspace::Workspaces>,
) -> String {
    let mut o = format!("## {title}\n\nAgents terminated: {}\n", ended.terminated);
    let with_work: Vec<&str> = state
        .units
        .iter()
        .filter(|u| !u.uncommitted.is_empty())
        .map(|u| u.name.as_str())
        .collect();
    o.push_str(&format!(
        "Work units with uncommitted work: {}\n",
        if with_work.is_empty() {
            "none".to_string()
        } else {
            with_work.join(", ")
        }
    ));
    for f in &ended.failures {
        o.push_str(&format!("Kill failed (logged, not fatal): {f}\n"));
    }
    for b in &ended.background {
        o.push_str(&format!("Background process ended: {b}\n"));
    }
    o.push_str(if ended.terminated > 0 {
        "\nWork unit states after the agents were ended:\n"
    } else {
        "\nWork unit states:\n"
    });
    o.push_str(
        "| Work Unit | State | Last Completed Sprint | Uncommitted Work | Action Needed |\n",
    );
    o.push_str("|-----------|-------|----------------------|------------------|---------------|\n");
    for u in &state.units {
        let last = u
            .sprints
            .iter()
            .rev()
            .find(|s| s.state == crate::machine::SprintStatus::Completed)
            .map(|s| format!("Sprint {}", s.id))
            .unwrap_or_else(|| "—".into());
        let action = match (u.state, u.current()) {
            (UnitStatus::Completed, _) | (_, None) => "none".to_string(),
            (UnitStatus::NotStarted, Some(s)) if s.attempt == 0 => "waits to start".to_string(),
            (_, Some(s)) if s.state == crate::machine::SprintStatus::Backoff || s.attempt > 0 => {
                format!("restart {}", s.id)
            }
            (_, Some(s)) => format!("resume from {}", s.id),
        };
        o.push_str(&format!(
            "| {} | {} | {last} | {} | {action} |\n",
            u.name,
            u.state,
            if u.uncommitted.is_empty() {
                "no"
            } else {
                "yes"
            }
        ));
    }
    o.push_str("\nTo resume: git supervisor resume\n");
    if let (Some(ws), false) = (worktrees, with_work.is_empty()) {
        // Each unit's worktree is its own: the work stays where it is.
        for u in state.units.iter().filter(|u| !u.uncommitted.is_empty()) {
            o.push_str(&format!(
                "{}'s uncommitted work stays in its worktree {}; `resume` continues there.\n",
                u.name,
                ws.unit_path(&u.name).display()
            ));
        }
    } else if !with_work.is_empty() {
        // Name exactly the files the agents left (relative to the project
        // root), and set them aside recoverably: never a blanket clean.
        o.push_str("To set aside the agents' uncommitted work and resume cleanly:\n");
        for u in state.units.iter().filter(|u| !u.uncommitted.is_empty()) {
            let files: Vec<String> = u.uncommitted.iter().map(|f| shell_word(f)).collect();
            o.push_str(&format!(
                "  git stash push --include-untracked -m 'git supervisor: {}' -- {}\n",
                u.name,
                files.join(" ")
            ));
        }
        o.push_str("  Then: git supervisor resume\n");
    }
    o
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+@%:,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
