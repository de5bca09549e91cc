//! Completions that come from outside an agent's verdict: a person
//! confirming a manual sprint, and work observed in history.

use super::super::apply::MachineError;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::steps::Steps;
use crate::plan::SprintId;
use crate::plan::TaskType;

/// A person confirms a manual sprint waiting in PARTIAL.
pub(in crate::machine) fn confirm(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let k = b.sprint_index(i, sprint)?;
    let s = &b.state.units[i].sprints[k];
    if s.task_type != TaskType::Manual {
        return Err(MachineError::NotManual {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            task_type: s.task_type,
        });
    }
    if s.state != SprintStatus::Partial {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: s.state,
            needed: "a manual sprint is confirmed while it waits in PARTIAL",
        });
    }
    b.state.units[i].sprints[k].last_verified = Some("confirmed by a person".into());
    b.sprint_to(
        i,
        k,
        SprintStatus::Completed,
        "Confirmed by a person (git supervisor confirm).".into(),
    );
    b.after_completion(i);
    Ok(())
}

/// History shows the unit's current sprint done although no agent of ours
/// finished it: observed state wins, without another dispatch.
pub(in crate::machine) fn observed(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
    evidence: &str,
    commits: &[String],
    head: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let k = b.sprint_index(i, sprint)?;
    let u = &b.state.units[i];
    if u.current_index() != Some(k) {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: u.sprints[k].state,
            needed: "only a unit's current sprint is completed from history",
        });
    }
    let st = u.sprints[k].state;
    if !matches!(
        st,
        SprintStatus::Pending | SprintStatus::Backoff | SprintStatus::Fatal | SprintStatus::Partial
    ) || u.state == UnitStatus::NotStarted
    {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: st,
            needed: "history completes a sprint that waits (PENDING, BACKOFF, FATAL, PARTIAL) in a started unit",
        });
    }
    b.state.reconciled = Some(head.to_string());
    if u.state == UnitStatus::Blocked {
        b.unit_to(
            i,
            UnitStatus::Running,
            format!("History shows sprint {sprint} done."),
        );
    }
    let s = &mut b.state.units[i].sprints[k];
    s.interrupted = false;
    s.retry_at = None;
    s.next_check_at = None;
    s.remaining.clear();
    s.last_verified = Some(evidence.to_string());
    for c in commits {
        if !s.commits.contains(c) {
            s.commits.push(c.clone());
        }
    }
    b.sprint_to(
        i,
        k,
        SprintStatus::Completed,
        format!("Observed in history: {evidence}"),
    );
    b.after_completion(i);
    Ok(())
}
