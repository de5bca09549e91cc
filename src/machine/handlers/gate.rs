//! Phase gates: a coordinated build passed, or failed and blames a sprint.

use super::super::apply::MachineError;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::steps::Steps;
use crate::plan::SprintId;

/// A phase gate's build passed (the checkpoint is in the same commit).
pub(in crate::machine) fn gate_passed(
    b: &mut Steps<'_>,
    phase: u32,
    summary: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let Some(g) = b
        .state
        .gates
        .iter_mut()
        .find(|g| g.phase == phase && !g.passed)
    else {
        return Err(MachineError::NoGate(phase));
    };
    g.passed = true;
    g.runs += 1;
    b.run_note(format!("phase {phase} gate passed. {summary}"));
    b.open_gates(&format!("Phase {phase} gate passed"));
    Ok(())
}

/// A phase gate's build failed and blames this COMPLETED sprint.
pub(in crate::machine) fn gate_failed(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
    detail: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let k = b.sprint_index(i, sprint)?;
    let s = &b.state.units[i].sprints[k];
    if s.state != SprintStatus::Completed {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: s.state,
            needed: "a phase gate only reopens COMPLETED sprints",
        });
    }
    if let Some(d) = b
        .state
        .units
        .iter()
        .find(|d| d.deps.iter().any(|x| x == unit) && d.state != UnitStatus::NotStarted)
    {
        return Err(MachineError::DependentStarted {
            unit: unit.to_string(),
            dependent: d.name.clone(),
        });
    }
    match b.state.units[i].state {
        UnitStatus::Completed => b.unit_to(
            i,
            UnitStatus::Running,
            format!("The phase gate's build failed in files sprint {sprint} changed."),
        ),
        other => {
            return Err(MachineError::UnitState {
                unit: unit.to_string(),
                state: other,
                needed: "a phase gate runs when every unit of a layer is COMPLETED",
            })
        }
    }
    let phase = b.state.units[i].phase();
    if let Some(g) = b.state.gates.iter_mut().find(|g| g.phase == phase) {
        g.runs += 1;
    }
    // The sprint goes back through RUNNING's failure path: the build
    // failure counts as a failed attempt.
    let max = b.state.max_retries;
    let s = &mut b.state.units[i].sprints[k];
    s.failures += 1;
    s.last_failure = Some(detail.to_string());
    let attempt = s.attempt;
    b.sprint_to(
        i,
        k,
        SprintStatus::Backoff,
        format!("Phase gate build failed: {detail} Attempt {attempt}/{max}."),
    );
    if attempt >= max {
        let id = sprint.clone();
        b.sprint_to(
            i,
            k,
            SprintStatus::Fatal,
            format!("max_retries ({max}) exhausted; no automatic retry."),
        );
        b.unit_to(
            i,
            UnitStatus::Blocked,
            format!("BLOCKED: {unit} Sprint {id} — FATAL after {max} attempts. Run git supervisor resume to retry."),
        );
    }
    Ok(())
}
