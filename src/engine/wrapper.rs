//! The `agent-run` entry point: the engine's side of the wrapper (see
//! `dispatch`): notices become history, wake-ups become ticks, and "is
//! this dispatch still wanted?" is read from the state.

use std::path::Path;

use super::io;
use super::Engine;
use super::EngineError;
use super::LockMode;
use crate::dispatch;
use crate::dispatch::Job;
use crate::dispatch::WrapperEvent;
use crate::machine::EventKind;
use crate::plan::SprintId;

struct Host<'a> {
    engine: &'a Engine,
    job: &'a Job,
    sprint: Option<SprintId>,
}

fn human(d: std::time::Duration) -> String {
    humantime::format_duration(std::time::Duration::from_secs(d.as_secs())).to_string()
}

impl dispatch::WrapperHost for Host<'_> {
    fn event(&mut self, event: WrapperEvent) {
        let job = self.job;
        let text = match event {
            WrapperEvent::Unresponsive { silent } => format!(
                "{} Sprint {} agent may be unresponsive: no output, no CPU time and no file change for {}.",
                job.unit,
                job.sprint,
                human(silent)
            ),
            WrapperEvent::DeferredWaiting { polls, condition } => format!(
                "{} Sprint {} is waiting on `{condition}`. Still not met after {polls} checks. Continue waiting or intervene?",
                job.unit, job.sprint
            ),
            WrapperEvent::RateLimited { limited, wait } => format!(
                "{} Sprint {} agent hit a {}: it runs again in {}; no attempt is counted. ({})",
                job.unit,
                job.sprint,
                limited.kind,
                human(wait),
                limited.line
            ),
            WrapperEvent::StaleLockRemoved { path } => format!(
                "{} Sprint {}: removed {}, left by a process of the ended agent that no longer exists.",
                job.unit,
                job.sprint,
                path.display()
            ),
        };
        let _ = self.engine.publish(EventKind::Notice {
            unit: Some(job.unit.clone()),
            sprint: self.sprint.clone(),
            text,
        });
    }

    fn wake(&mut self) {
        // A worker's agent: the worker that claimed it is the one that
        // judges it and ticks the run.
        if self.job.worker_pid.is_some() {
            return;
        }
        let _ = self.engine.tick(LockMode::MarkerOnly);
    }

    fn retry_wait(&mut self) -> Option<std::time::Duration> {
        // The verdict may be recorded by a tick that held the engine lock
        // when we woke it: give it a moment.
        let start = std::time::Instant::now();
        loop {
            let sp = self.my_sprint()?;
            // A deferred check that found its condition not met: this
            // process wakes the engine for the next check, as for a retry.
            // A pinned clock moves only with transitions: nothing to sleep for.
            let next_check = (sp.state == crate::machine::SprintStatus::Partial
                && !self.engine.store.clock().is_pinned())
            .then_some(sp.next_check_at.clone())
            .flatten();
            if sp.state == crate::machine::SprintStatus::Backoff || next_check.is_some() {
                let at = next_check.or(sp.retry_at)?;
                let at = time::OffsetDateTime::parse(
                    &at,
                    &time::format_description::well_known::Rfc3339,
                )
                .ok()?;
                let left = at - time::OffsetDateTime::now_utc();
                let left = std::time::Duration::try_from(left).unwrap_or_default();
                // Past the second it names, whatever the clocks' rounding.
                return Some(left + std::time::Duration::from_millis(200));
            }
            if !sp.state.is_active() || start.elapsed() > std::time::Duration::from_secs(10) {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            self.wake();
        }
    }

    fn record_usage(&mut self) {
        let Ok(Some(tip)) = self.engine.store.tip() else {
            return;
        };
        let Some(u) = tip.state.unit(&self.job.unit) else {
            return;
        };
        let Some(sp) = u
            .sprints
            .iter()
            .find(|s| s.id.to_string() == self.job.sprint)
        else {
            return;
        };
        // Only this dispatch of a COMPLETED sprint (the machine refuses
        // anything else too; asking first keeps the history free of it).
        let mine = self
            .engine
            .agent_paths(&u.name, &sp.id, sp.dispatches)
            .report
            == self.job.report_file;
        if !mine || !crate::machine::usage_recordable(sp.state) {
            return;
        }
        let log = crate::dispatch::result::read_log(&self.job.log_file);
        let from_file = std::fs::read_to_string(&self.job.result_file)
            .ok()
            .and_then(|t| crate::dispatch::result::read_result_file(&t));
        let reported = match (from_file, crate::dispatch::result::read_agent_output(&log)) {
            (Some(f), Some(o)) => Some(f.or(o)),
            (f, o) => f.or(o),
        };
        let Some(r) = reported else {
            return;
        };
        let cost = r.cost_usd.and_then(crate::machine::Usd::from_dollars);
        if r.turns.is_none() && cost.is_none() {
            return;
        }
        let _ = self.engine.publish(EventKind::Usage {
            unit: u.name.clone(),
            sprint: sp.id.clone(),
            dispatch: sp.dispatches,
            turns: r.turns,
            cost,
            session: r.session_id,
        });
    }

    fn still_wanted(&mut self) -> bool {
        if self.job.worker_pid.is_some_and(|p| !dispatch::alive(p)) {
            // The worker that claimed the sprint died: its lease lapses and
            // another worker takes the sprint, so this agent must not go on.
            return false;
        }
        let Ok(Some(tip)) = self.engine.store.tip() else {
            // Cannot tell: keep the agent.
            return true;
        };
        let Some(u) = tip.state.unit(&self.job.unit) else {
            return false;
        };
        let Some(sp) = u.active_sprint() else {
            return false;
        };
        self.engine
            .agent_paths(&u.name, &sp.id, sp.dispatches)
            .report
            == self.job.report_file
    }
}

impl Host<'_> {
    /// This dispatch's sprint, when it is the unit's current one and the
    /// unit still runs (a stopped unit's retry waits for `resume`, not for
    /// this process: a usage limit beyond `run.limit_wait_max` may be days
    /// away).
    fn my_sprint(&self) -> Option<crate::machine::SprintState> {
        let tip = self.engine.store.tip().ok()??;
        let u = tip.state.unit(&self.job.unit)?;
        if u.state == crate::machine::UnitStatus::Stopped {
            return None;
        }
        let sp = u.current()?;
        (sp.id.to_string() == self.job.sprint
            && self
                .engine
                .agent_paths(&u.name, &sp.id, sp.dispatches)
                .report
                == self.job.report_file)
            .then(|| sp.clone())
    }
}

/// Run the wrapper for `job_file`, recording notices and waking the engine.
pub fn agent_run(job_file: &Path) -> Result<i32, EngineError> {
    let text = std::fs::read_to_string(job_file)
        .map_err(io(format!("cannot read {}", job_file.display())))?;
    let job: Job = toml::from_str(&text)
        .map_err(|e| io("the job file is invalid")(std::io::Error::other(e.to_string())))?;
    let engine = Engine::open(&job.workdir)?;
    let mut host = Host {
        engine: &engine,
        sprint: job.sprint.parse().ok(),
        job: &job,
    };
    dispatch::run_wrapper(&job, &mut host).map_err(io("the agent wrapper failed"))
}
