//! An agent's life: dispatch, its process starting, and the verdict on its
//! work.

use super::super::apply::MachineError;
use super::super::apply::Outcome;
use super::super::state::Agent;
use super::super::state::Model;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::state::DEFERRED_NOTICE_CHECKS;
use super::super::steps::active;
use super::super::steps::Steps;
use crate::plan::TaskType;

/// An agent was launched for a unit's current sprint.
pub(in crate::machine) fn dispatch(
    b: &mut Steps<'_>,
    unit: &str,
    model: Model,
    score: i32,
    rationale: &str,
    agent: &Agent,
) -> Result<(), MachineError> {
    b.require_started()?;
    if let Some(r) = &b.state.budget_reached {
        return Err(MachineError::BudgetReached {
            spent: r.spent,
            budget: r.budget,
        });
    }
    let i = b.unit_index(unit)?;
    let u = &b.state.units[i];
    if u.state != UnitStatus::Running {
        return Err(MachineError::UnitState {
            unit: unit.to_string(),
            state: u.state,
            needed: "only RUNNING units get agents",
        });
    }
    let k = u
        .current_index()
        .ok_or_else(|| MachineError::NothingLeft(unit.to_string()))?;
    let s = &u.sprints[k];
    let dispatchable = match s.state {
        SprintStatus::Pending | SprintStatus::Backoff => true,
        SprintStatus::Partial => s.task_type != TaskType::Manual,
        _ => false,
    };
    if !dispatchable {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: s.id.clone(),
            state: s.state,
            needed: "only PENDING, BACKOFF and (non-manual) PARTIAL sprints are dispatched",
        });
    }
    let from = s.state;
    let s = &mut b.state.units[i].sprints[k];
    let kind = match from {
        SprintStatus::Pending => {
            // A sprint re-queued after an interruption keeps its attempt.
            s.attempt = s.attempt.max(1);
            "First dispatch"
        }
        // An interrupted attempt (its worker's lease expired) is not a
        // failure: it runs again under the same number.
        SprintStatus::Backoff if s.interrupted => "Re-dispatch after an interruption",
        SprintStatus::Backoff => {
            s.attempt += 1;
            "Retry"
        }
        _ if s.task_type == TaskType::Deferred => {
            s.continuations += 1;
            "Check of the deferred condition"
        }
        _ => {
            s.continuations += 1;
            "Continuation"
        }
    };
    if from != SprintStatus::Partial && !(from == SprintStatus::Backoff && s.interrupted) {
        s.total_attempts += 1;
    }
    s.dispatches += 1;
    s.model = Some(model);
    s.score = Some(score);
    s.agent = Some(agent.clone());
    // What an earlier attempt left running was ended when it did not
    // complete (`State::background_to_end`); this dispatch records its own.
    s.background.clear();
    s.interrupted = false;
    s.limited = None;
    s.retry_at = None;
    s.next_check_at = None;
    let (attempt, max) = (s.attempt, b.state.max_retries);
    b.sprint_to(
        i,
        k,
        SprintStatus::Dispatched,
        format!("{kind}, attempt {attempt}/{max}, model {model} (complexity score {score}: {rationale})."),
    );
    Ok(())
}

/// The wrapper started the agent process (DISPATCHED → RUNNING).
pub(in crate::machine) fn agent_started(
    b: &mut Steps<'_>,
    unit: &str,
    pid: Option<u32>,
    worker: Option<&str>,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, s) = active(&b.state, i, unit)?;
    if s.state != SprintStatus::Dispatched {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: s.id.clone(),
            state: s.state,
            needed: "only a DISPATCHED sprint's agent can start",
        });
    }
    if let Some(agent) = b.state.units[i].sprints[k].agent.as_mut() {
        agent.pid = pid;
        agent.worker = worker.map(str::to_string);
    }
    let pid = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
    let why = match worker {
        Some(w) => format!("Worker {w} claimed the sprint; its agent process started{pid}."),
        None => format!("The agent process started{pid}."),
    };
    b.sprint_to(i, k, SprintStatus::Running, why);
    Ok(())
}

/// The lease of the worker running the unit's sprint expired: the sprint
/// waits in BACKOFF, interrupted, with its attempt kept (a stopping unit
/// then stops). Only the worker that holds the claim can lose it.
pub(in crate::machine) fn lease_expired(
    b: &mut Steps<'_>,
    unit: &str,
    worker: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, s) = active(&b.state, i, unit)?;
    let holder = s.agent.as_ref().and_then(|a| a.worker.as_deref());
    if s.state != SprintStatus::Running || holder != Some(worker) {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: s.id.clone(),
            state: s.state,
            needed: "only a RUNNING sprint claimed by that worker loses its lease",
        });
    }
    interrupt(
        b,
        i,
        k,
        |id, attempt| {
            format!(
                "Worker {worker} stopped renewing its lease on sprint {id}; attempt {attempt} kept for another worker."
            )
        },
        "Stop requested; its worker's lease lapsed on the active sprint, so the unit stops here.",
    );
    Ok(())
}

/// The active sprint is interrupted: it waits in BACKOFF with its attempt
/// kept and no retry time (dispatched again at once). A stopping unit
/// dispatches nothing more and no worker claims it: the interrupted sprint
/// ends it, as a failed one would, or it would stay STOPPING (and the run
/// unfinished) for good.
fn interrupt(
    b: &mut Steps<'_>,
    i: usize,
    k: usize,
    why: impl Fn(&str, u32) -> String,
    why_stopped: &str,
) {
    let s = &mut b.state.units[i].sprints[k];
    s.agent = None;
    s.interrupted = true;
    s.retry_at = None;
    let reason = why(&s.id.to_string(), s.attempt);
    b.sprint_to(i, k, SprintStatus::Backoff, reason);
    if b.state.units[i].state == UnitStatus::Stopping {
        b.unit_to(i, UnitStatus::Stopped, why_stopped.into());
    }
}

/// The DISPATCHED sprint's agent never started (its wrapper is gone
/// without a report): the sprint waits in BACKOFF, interrupted, its attempt
/// kept, and is dispatched again at once; a stopping unit then stops.
pub(in crate::machine) fn never_started(b: &mut Steps<'_>, unit: &str) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, s) = active(&b.state, i, unit)?;
    if s.state != SprintStatus::Dispatched || s.agent.as_ref().is_some_and(|a| a.pid.is_some()) {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: s.id.clone(),
            state: s.state,
            needed: "only a DISPATCHED sprint whose agent never started",
        });
    }
    interrupt(
        b,
        i,
        k,
        |id, attempt| {
            format!(
                "The agent for sprint {id} never started (its wrapper is gone without a report); attempt {attempt} kept, not charged."
            )
        },
        "Stop requested; no agent had started on its sprint, so the unit stops here.",
    );
    Ok(())
}

/// Verification's verdict on an agent's work.
pub(in crate::machine) fn verdict(
    b: &mut Steps<'_>,
    unit: &str,
    outcome: Outcome,
    evidence: &str,
    remaining: &[String],
    commits: &[String],
    turns: Option<u64>,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, _) = active(&b.state, i, unit)?;
    b.exited_before_start(i, k);
    // The verdict's transition carries the turns (a trailer); the
    // report sums them from history.
    b.turns = turns;
    // The sprint keeps the sum of its dispatches' dollars (status, budget).
    if let Some(c) = b.cost {
        let s = &mut b.state.units[i].sprints[k];
        s.cost = s.cost + c;
    }
    let s = &b.state.units[i].sprints[k];
    // A deferred sprint's wait is not failure: its checks are never capped.
    let deferred = s.task_type == TaskType::Deferred;
    let capped =
        outcome == Outcome::Partial && !deferred && s.continuations >= b.state.max_continuations;
    match outcome {
        Outcome::Completed => {
            let s = &mut b.state.units[i].sprints[k];
            s.agent = None;
            s.remaining.clear();
            for c in commits {
                if !s.commits.contains(c) {
                    s.commits.push(c.clone());
                }
            }
            s.last_verified = Some(evidence.to_string());
            // The agent works again: a later limit without a named reset
            // waits the first backoff again.
            b.state.usage_limits.retain(|p| !p.ended);
            b.sprint_to(
                i,
                k,
                SprintStatus::Completed,
                format!("Verified: {evidence}"),
            );
            b.after_completion(i);
        }
        Outcome::Partial if !capped => {
            let s = &mut b.state.units[i].sprints[k];
            s.agent = None;
            s.remaining = remaining.to_vec();
            let manual = s.task_type == TaskType::Manual;
            if deferred {
                s.checks += 1;
            }
            let (checks, id) = (s.checks, s.id.clone());
            let condition = s.remaining.join("; ");
            // Each check is an agent run: the next one waits, longer each
            // time (zero bounds, as in a bare machine, check at once).
            let (min, max) = b.state.deferred_check_ms;
            let wait = super::super::retry::check_delay(
                std::time::Duration::from_millis(min),
                std::time::Duration::from_millis(max),
                checks,
            );
            let next = (deferred && !wait.is_zero())
                .then(|| super::super::retry::after(b.at, wait))
                .flatten();
            let s = &mut b.state.units[i].sprints[k];
            s.next_check_at = next.clone();
            let next = next
                .map(|at| {
                    let every = humantime::format_duration(std::time::Duration::from_secs(
                        wait.as_secs().max(1),
                    ));
                    format!(" Next check at {at} (in {every}).")
                })
                .unwrap_or_default();
            let why = if manual {
                format!(
                    "Manual sprint: {evidence} Waiting for `git supervisor confirm {unit} {id}`."
                )
            } else if deferred {
                format!(
                    "Waiting on {condition} (check {checks} of {DEFERRED_NOTICE_CHECKS}): {evidence}{next}"
                )
            } else {
                format!("Partial progress: {evidence} A continuation will be dispatched.")
            };
            b.sprint_to(i, k, SprintStatus::Partial, why);
            if deferred && checks == DEFERRED_NOTICE_CHECKS {
                b.unit_note(
                    i,
                    Some(k),
                    format!("{unit} Sprint {id} is waiting on {condition}. Still not met after {checks} checks. Continue waiting or intervene?"),
                );
            }
            if b.state.units[i].state == UnitStatus::Stopping {
                b.unit_to(
                    i,
                    UnitStatus::Stopped,
                    "Stop requested; the active sprint ended PARTIAL, so the unit stops here."
                        .into(),
                );
            }
        }
        Outcome::Partial => {
            let cap = b.state.max_continuations;
            b.fail(
                i,
                k,
                format!("Partial again after {cap} continuations (max_continuations); counted as a failure: {evidence}"),
            );
        }
        Outcome::Failure => b.fail(i, k, format!("Failed: {evidence}")),
    }
    Ok(())
}
