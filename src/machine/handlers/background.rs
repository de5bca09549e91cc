//! A background sprint's agent exited and left processes running: they are
//! recorded on the sprint before its verdict, and stay recorded after it
//! (they outlive the agent; `State::background_to_end` says when they end).

use super::super::apply::MachineError;
use super::super::background::BackgroundProcess;
use super::super::steps::active;
use super::super::steps::Steps;
use crate::plan::SprintId;
use crate::plan::TaskType;

/// Record what the agent of `unit`'s active background sprint left running.
pub(in crate::machine) fn background(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
    processes: &[BackgroundProcess],
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, s) = active(&b.state, i, unit)?;
    if &s.id != sprint || s.task_type != TaskType::Background {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: s.state,
            needed: "only the active background sprint's agent leaves processes running",
        });
    }
    let named: Vec<String> = processes
        .iter()
        .map(|p| format!("pid {} (`{}`)", p.pid, p.command))
        .collect();
    b.state.units[i].sprints[k].background = processes.to_vec();
    let why = if named.is_empty() {
        "Its agent exited and left no process running.".to_string()
    } else {
        format!(
            "Its agent exited and left {} running: {}.",
            if named.len() == 1 {
                "a process".to_string()
            } else {
                format!("{} processes", named.len())
            },
            named.join(", ")
        )
    };
    b.unit_note(i, Some(k), why);
    Ok(())
}
