//! Run-level events: start, the two phases of a graceful stop, killall,
//! resume, and notices (records that change no state name).

use super::super::apply::KillAssessment;
use super::super::apply::MachineError;
use super::super::state::BuildVerdict;
use super::super::state::Kill;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::steps::Steps;
use crate::plan::SprintId;

/// The run begins: units without dependencies become RUNNING.
pub(in crate::machine) fn start(b: &mut Steps<'_>) -> Result<(), MachineError> {
    if b.started {
        return Err(MachineError::AlreadyStarted);
    }
    let (units, sprints) = (b.state.units.len(), b.state.sprint_total());
    b.run_note(format!(
        "started {}. {units} work units, {sprints} sprints, max_retries {}.",
        b.state.operation, b.state.max_retries
    ));
    b.start_ready("Run started");
    Ok(())
}

/// Graceful stop, phase 1: RUNNING units drain (STOPPING), those without
/// an agent stop at once.
pub(in crate::machine) fn stop(b: &mut Steps<'_>) -> Result<(), MachineError> {
    b.require_started()?;
    b.drain_running_units("Stop requested");
    Ok(())
}

/// Graceful stop, phase 3: a STOPPING unit's agent was terminated; the
/// unit is KILLED and its sprint waits in BACKOFF with the attempt kept.
pub(in crate::machine) fn force_stop(
    b: &mut Steps<'_>,
    unit: &str,
    uncommitted: &[String],
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let u = &b.state.units[i];
    if u.state != UnitStatus::Stopping {
        return Err(MachineError::UnitState {
            unit: unit.to_string(),
            state: u.state,
            needed: "only STOPPING units are force-stopped",
        });
    }
    let mut never_started = false;
    if let Some(k) = u.sprints.iter().position(|s| s.state.is_active()) {
        let s = &mut b.state.units[i].sprints[k];
        // Published but never started: no worker claimed it (a run on a
        // remote), or its wrapper never came up.
        never_started = s.state == SprintStatus::Dispatched
            && s.agent
                .as_ref()
                .is_none_or(|a| a.pid.is_none() && a.worker.is_none());
        s.agent = None;
        s.interrupted = true;
        let id = s.id.clone();
        let attempt = s.attempt;
        let why = if never_started {
            format!("Sprint {id} stopped before any agent started on it; attempt {attempt} kept.")
        } else {
            format!(
                "Sprint {id} force-terminated during graceful shutdown; attempt {attempt} kept."
            )
        };
        b.sprint_to(i, k, SprintStatus::Backoff, why);
    }
    if never_started {
        b.unit_to(
            i,
            UnitStatus::Stopped,
            "No agent had started on its sprint; stopped.".into(),
        );
        return Ok(());
    }
    b.state.units[i].uncommitted = uncommitted.to_vec();
    let mut why =
        "Its agent did not finish within the stop timeout and was terminated.".to_string();
    if !uncommitted.is_empty() {
        why.push_str(&format!(
            " Uncommitted work left on disk, neither committed nor discarded: {}.",
            uncommitted.join(", ")
        ));
    }
    b.unit_to(i, UnitStatus::Killed, why);
    Ok(())
}

/// Emergency stop: every agent terminated, each unit assessed.
pub(in crate::machine) fn killall(
    b: &mut Steps<'_>,
    reason: &str,
    assessments: &[KillAssessment],
) -> Result<(), MachineError> {
    b.require_started()?;
    b.state.kill = Some(Kill {
        reason: reason.to_string(),
        at: b.at.to_string(),
    });
    let killed = b
        .state
        .units
        .iter()
        .filter(|u| u.active_sprint().is_some())
        .count();
    b.run_note(format!("killall: {reason}; {killed} agents terminated."));
    for i in 0..b.state.units.len() {
        let u = &b.state.units[i];
        let Some(k) = u.sprints.iter().position(|s| s.state.is_active()) else {
            continue;
        };
        if !matches!(u.state, UnitStatus::Running | UnitStatus::Stopping) {
            continue;
        }
        let name = u.name.clone();
        let a = assessments.iter().find(|a| a.unit == name);
        let completed = a.is_some_and(|a| a.completed);
        let progress = a.is_some_and(|a| a.progress);
        b.state.units[i].uncommitted = a.map(|a| a.uncommitted.clone()).unwrap_or_default();
        let id = b.state.units[i].sprints[k].id.clone();
        b.state.units[i].sprints[k].agent = None;
        if completed && b.state.units[i].sprints[k].state == SprintStatus::Running {
            b.sprint_to(
                i,
                k,
                SprintStatus::Completed,
                "killall: verification shows the sprint done; clean state.".into(),
            );
        } else {
            b.state.units[i].sprints[k].interrupted = true;
            let attempt = b.state.units[i].sprints[k].attempt;
            b.sprint_to(
                i,
                k,
                SprintStatus::Backoff,
                format!(
                    "killall: sprint {id} interrupted before it was done; attempt {attempt} kept."
                ),
            );
        }
        let mut why = format!("killall: {reason}.");
        if !b.state.units[i].uncommitted.is_empty() {
            why.push_str(&format!(
                " {name}: has uncommitted work from killed Sprint {id} ({}); neither committed nor discarded.",
                b.state.units[i].uncommitted.join(", ")
            ));
        }
        b.unit_to(i, UnitStatus::Killed, why);
        if b.state.units[i].completed_sprints() == 0 && !progress && !completed {
            b.unit_to(
                i,
                UnitStatus::NotStarted,
                "No sprint completed and nothing in scope moved: back to NOT_STARTED.".into(),
            );
        }
    }
    // Units with no agent (a manual sprint waiting for confirm, a sprint
    // waiting for its retry or its dispatch) end with the run too.
    for i in 0..b.state.units.len() {
        if matches!(
            b.state.units[i].state,
            UnitStatus::Running | UnitStatus::Stopping
        ) {
            b.unit_to(
                i,
                UnitStatus::Killed,
                format!("killall: {reason}; it had no agent running."),
            );
        }
    }
    Ok(())
}

/// Pick up stopped, killed and blocked units.
pub(in crate::machine) fn resume(b: &mut Steps<'_>) -> Result<(), MachineError> {
    b.require_started()?;
    b.state.kill = None;
    // The engine checks the budget again before the next dispatch.
    b.state.budget_reached = None;
    super::limit::end_pauses_early(b);
    // A build that failed or warned runs again: a person says the cause is
    // dealt with.
    if let Some(mark) = b.state.build.as_mut().and_then(|g| g.unpassed.take()) {
        b.run_note(format!(
            "Resumed: the coordinated build of {} ({}) will run again.",
            mark.units.join(", "),
            match mark.verdict {
                BuildVerdict::Warn => "it warned",
                BuildVerdict::Block => "it failed",
            }
        ));
    }
    for i in 0..b.state.units.len() {
        match b.state.units[i].state {
            UnitStatus::Blocked => {
                if let Some(k) = b.state.units[i]
                    .sprints
                    .iter()
                    .position(|s| s.state == SprintStatus::Fatal)
                {
                    let s = &mut b.state.units[i].sprints[k];
                    let total = s.total_attempts;
                    s.attempt = 0;
                    s.failures = 0;
                    s.continuations = 0;
                    b.sprint_to(
                        i,
                        k,
                        SprintStatus::Pending,
                        format!("Resumed after FATAL: a fresh round of attempts ({total} so far in this run)."),
                    );
                }
                b.unit_to(
                    i,
                    UnitStatus::Running,
                    "Resumed by the user after BLOCKED.".into(),
                );
            }
            UnitStatus::Stopped => {
                b.unit_to(i, UnitStatus::Running, "Resumed after stop.".into());
            }
            UnitStatus::Killed => {
                b.unit_to(i, UnitStatus::Running, "Resumed after kill.".into());
                b.state.units[i].uncommitted.clear();
                b.requeue_interrupted(i);
            }
            _ => {}
        }
    }
    // Units whose every sprint completed while stopping finish now.
    for i in 0..b.state.units.len() {
        if b.state.units[i].state == UnitStatus::Running && b.state.units[i].all_completed() {
            b.after_completion(i);
        }
    }
    b.start_ready("Resumed");
    Ok(())
}

/// A record that changes no state.
pub(in crate::machine) fn notice(
    b: &mut Steps<'_>,
    unit: Option<&str>,
    sprint: Option<&SprintId>,
    text: &str,
) -> Result<(), MachineError> {
    match unit {
        Some(u) => {
            let i = b.unit_index(u)?;
            let k = sprint.map(|s| b.sprint_index(i, s)).transpose()?;
            b.unit_note(i, k, text.to_string());
        }
        None => b.run_note(text.to_string()),
    }
    Ok(())
}
