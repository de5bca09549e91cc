//! The working copy an event's handler builds its steps on, and the rules
//! several events share: opening units whose dependencies are met, a sprint
//! completing, an attempt failing. Every state change goes through
//! [`Steps::unit_to`] or [`Steps::sprint_to`], which check the edge against
//! the transition tables.

use super::apply::Change;
use super::apply::MachineError;
use super::apply::Step;
use super::apply::Transition;
use super::cost::Usd;
use super::state::SprintState;
use super::state::SprintStatus;
use super::state::State;
use super::state::UnitStatus;
use super::tables::legal_sprint;
use super::tables::legal_unit;
use crate::plan::SprintId;

/// Builds an event's steps on a working copy of the state.
pub(super) struct Steps<'a> {
    pub(super) state: State,
    pub(super) steps: Vec<Step>,
    pub(super) event: &'static str,
    pub(super) at: &'a str,
    /// The run had started before this event (its first transition is
    /// written).
    pub(super) started: bool,
    /// Turns reported for the dispatch being judged (verdict steps carry it).
    pub(super) turns: Option<u64>,
    /// Dollars reported for the dispatch being judged (likewise).
    pub(super) cost: Option<Usd>,
    /// The worker claiming a sprint (its claim's step carries it).
    pub(super) worker: Option<String>,
}

impl<'a> Steps<'a> {
    /// RUNNING units drain: those with an active agent go STOPPING and wait
    /// for it, those without stop at once. `why` opens each reason.
    pub(in crate::machine) fn drain_running_units(&mut self, why: &str) {
        for i in 0..self.state.units.len() {
            if self.state.units[i].state != UnitStatus::Running {
                continue;
            }
            if self.state.units[i].active_sprint().is_some() {
                self.unit_to(
                    i,
                    UnitStatus::Stopping,
                    format!("{why}: no new dispatches; waiting for the active agent."),
                );
            } else {
                self.unit_to(
                    i,
                    UnitStatus::Stopping,
                    format!("{why}: no new dispatches."),
                );
                self.unit_to(
                    i,
                    UnitStatus::Stopped,
                    "No active agent; stopped at once.".into(),
                );
            }
        }
    }

    /// An agent whose exit is judged while its sprint is still DISPATCHED
    /// ran and ended before its start was recorded: RUNNING first, so the
    /// edges stay those of the tables.
    pub(super) fn exited_before_start(&mut self, unit: usize, sprint: usize) {
        if self.state.units[unit].sprints[sprint].state == SprintStatus::Dispatched {
            self.sprint_to(
                unit,
                sprint,
                SprintStatus::Running,
                "The agent ran and exited before its start was recorded.".into(),
            );
        }
    }

    pub(super) fn push(&mut self, transition: Transition) {
        self.state.seq += 1;
        self.steps.push(Step {
            transition,
            state: self.state.clone(),
        });
    }

    pub(super) fn require_started(&self) -> Result<(), MachineError> {
        if self.started {
            Ok(())
        } else {
            Err(MachineError::NotStarted)
        }
    }

    pub(super) fn run_note(&mut self, why: String) {
        let t = Transition {
            event: self.event,
            unit: None,
            sprint: None,
            change: Change::Run,
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            worker: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    pub(super) fn unit_note(&mut self, unit: usize, sprint: Option<usize>, why: String) {
        let u = &self.state.units[unit];
        let t = Transition {
            event: self.event,
            unit: Some(u.name.clone()),
            sprint: sprint.map(|s| u.sprints[s].id.clone()),
            change: Change::Run,
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            worker: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    pub(super) fn unit_to(&mut self, unit: usize, to: UnitStatus, why: String) {
        let from = self.state.units[unit].state;
        debug_assert!(legal_unit(from, to), "illegal unit edge {from} -> {to}");
        self.state.units[unit].state = to;
        if to == UnitStatus::Completed {
            // New work: no build has covered it yet, and a build that failed
            // or warned on this unit's earlier work no longer stands for it.
            self.state.units[unit].built = false;
            let name = &self.state.units[unit].name;
            if let Some(b) = self.state.build.as_mut() {
                if b.unpassed.as_ref().is_some_and(|m| m.units.contains(name)) {
                    b.unpassed = None;
                }
            }
        }
        let t = Transition {
            event: self.event,
            unit: Some(self.state.units[unit].name.clone()),
            sprint: None,
            change: Change::Unit { from, to },
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            worker: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    pub(super) fn sprint_to(&mut self, unit: usize, sprint: usize, to: SprintStatus, why: String) {
        let max = self.state.max_retries;
        let u = &mut self.state.units[unit];
        let name = u.name.clone();
        let s = &mut u.sprints[sprint];
        let from = s.state;
        debug_assert!(legal_sprint(from, to), "illegal sprint edge {from} -> {to}");
        s.state = to;
        let t = Transition {
            event: self.event,
            unit: Some(name),
            sprint: Some(s.id.clone()),
            change: Change::Sprint { from, to },
            why,
            attempt: Some((s.attempt, max)),
            model: s.model,
            turns: self.turns,
            cost: self.cost,
            worker: self.worker.clone(),
            at: self.at.to_string(),
        };
        self.push(t);
    }

    pub(super) fn sprint_index(&self, unit: usize, id: &SprintId) -> Result<usize, MachineError> {
        let u = &self.state.units[unit];
        u.sprints
            .iter()
            .position(|s| &s.id == id)
            .ok_or_else(|| MachineError::UnknownSprint(u.name.clone(), id.clone()))
    }

    pub(super) fn unit_index(&self, name: &str) -> Result<usize, MachineError> {
        self.state
            .unit_index(name)
            .ok_or_else(|| MachineError::UnknownUnit(name.to_string()))
    }

    /// NOT_STARTED units whose every dependency is met (COMPLETED, and
    /// covered by a passing build when builds are configured) become
    /// RUNNING, in plan order. A unit waits for its own dependencies only.
    /// An interrupted first sprint goes back to PENDING.
    pub(super) fn start_ready(&mut self, why_prefix: &str) {
        loop {
            let ready = (0..self.state.units.len()).find(|&i| {
                let u = &self.state.units[i];
                u.state == UnitStatus::NotStarted
                    && u.deps.iter().all(|d| self.state.dependency_met_for(u, d))
            });
            let Some(i) = ready else { break };
            let u = &self.state.units[i];
            let deps: Vec<String> = u
                .deps
                .iter()
                .map(|d| match u.after.iter().find(|a| a.unit == *d) {
                    Some(a) => format!("{d} sprint {}", a.sprint),
                    None => d.clone(),
                })
                .collect();
            let why = if deps.is_empty() {
                format!("{why_prefix}; it has no dependencies.")
            } else if self.state.build.is_some() && u.after.is_empty() {
                format!(
                    "{why_prefix}; its dependencies ({}) are COMPLETED and a passing build covered them.",
                    deps.join(", ")
                )
            } else {
                format!(
                    "{why_prefix}; its dependencies ({}) are COMPLETED.",
                    deps.join(", ")
                )
            };
            self.unit_to(i, UnitStatus::Running, why);
            self.requeue_interrupted(i);
        }
    }

    pub(super) fn requeue_interrupted(&mut self, unit: usize) {
        if let Some(k) = self.state.units[unit].current_index() {
            let s = &mut self.state.units[unit].sprints[k];
            if s.state == SprintStatus::Backoff && s.interrupted {
                s.interrupted = false;
                let attempt = s.attempt;
                self.sprint_to(
                    unit,
                    k,
                    SprintStatus::Pending,
                    format!("Resumed after an interruption; attempt {attempt} is re-dispatched, not counted again."),
                );
            }
        }
    }

    /// After a sprint of `unit` completes: the unit completes when it was the
    /// last one (then dependents may start); a stopping unit stops.
    pub(super) fn after_completion(&mut self, unit: usize) {
        let u = &self.state.units[unit];
        if u.state == UnitStatus::Stopping {
            self.unit_to(
                unit,
                UnitStatus::Stopped,
                "Stop requested; the active sprint finished, so the unit stops here.".into(),
            );
            return;
        }
        if u.all_completed() && u.state == UnitStatus::Running {
            let n = u.sprints.len();
            self.unit_to(
                unit,
                UnitStatus::Completed,
                if n == 1 {
                    "Its one sprint is COMPLETED.".to_string()
                } else {
                    format!("All {n} sprints are COMPLETED.")
                },
            );
            let name = self.state.units[unit].name.clone();
            self.start_ready(&format!("`{name}` completed"));
            return;
        }
        // A unit may wait for this sprint alone (`Depends on: core sprint 2`).
        let name = self.state.units[unit].name.clone();
        let Some(done) = self.state.units[unit]
            .sprints
            .iter()
            .rev()
            .find(|s| s.state == SprintStatus::Completed)
            .map(|s| s.id.clone())
        else {
            return;
        };
        let waited = self
            .state
            .units
            .iter()
            .any(|u| u.after.iter().any(|a| a.unit == name && a.sprint == done));
        if waited {
            self.start_ready(&format!("`{name}` sprint {done} completed"));
        }
    }

    /// A failed attempt: BACKOFF, then FATAL and BLOCKED when it was the last.
    pub(super) fn fail(&mut self, unit: usize, sprint: usize, why: String) {
        let max = self.state.max_retries;
        let s = &mut self.state.units[unit].sprints[sprint];
        s.agent = None;
        s.next_check_at = None;
        s.failures += 1;
        s.last_failure = Some(why.clone());
        let attempt = s.attempt;
        let last = attempt >= max;
        let failures = s.failures;
        let delay = super::retry::delay(
            std::time::Duration::from_millis(self.state.retry_delay_ms),
            failures.saturating_sub(1),
            super::retry::seed(&self.state.units[unit].name, failures),
        );
        let retry_at = (!last && !delay.is_zero())
            .then(|| super::retry::after(self.at, delay))
            .flatten();
        let s = &mut self.state.units[unit].sprints[sprint];
        s.retry_at = retry_at.clone();
        let note = if last {
            format!("{why} Attempt {attempt}/{max} failed; no retries remain.")
        } else if let Some(at) = &retry_at {
            format!(
                "{why} Attempt {attempt}/{max} failed; it will be retried at {at} (after {}s).",
                delay.as_secs()
            )
        } else {
            format!("{why} Attempt {attempt}/{max} failed; it will be retried.")
        };
        self.sprint_to(unit, sprint, SprintStatus::Backoff, note);
        if last {
            let id = self.state.units[unit].sprints[sprint].id.clone();
            self.sprint_to(
                unit,
                sprint,
                SprintStatus::Fatal,
                format!("max_retries ({max}) exhausted; no automatic retry."),
            );
            let name = self.state.units[unit].name.clone();
            self.unit_to(
                unit,
                UnitStatus::Blocked,
                format!(
                    "BLOCKED: {name} Sprint {id} — FATAL after {max} attempts. Run git supervisor resume to retry."
                ),
            );
        } else if self.state.units[unit].state == UnitStatus::Stopping {
            self.unit_to(
                unit,
                UnitStatus::Stopped,
                "Stop requested; the active sprint ended, so the unit stops here.".into(),
            );
        }
    }
}

/// The unit's sprint with an agent (DISPATCHED or RUNNING).
pub(super) fn active<'s>(
    state: &'s State,
    i: usize,
    unit: &str,
) -> Result<(usize, &'s SprintState), MachineError> {
    let u = &state.units[i];
    match u.sprints.iter().position(|s| s.state.is_active()) {
        Some(k) => Ok((k, &u.sprints[k])),
        None => {
            let current = u
                .current()
                .ok_or_else(|| MachineError::NothingLeft(unit.to_string()))?;
            Err(MachineError::SprintState {
                unit: unit.to_string(),
                sprint: current.id.clone(),
                state: current.state,
                needed: "there is no active agent to report on",
            })
        }
    }
}
