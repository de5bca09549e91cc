//! An agent's usage arriving after its sprint was recorded: the trailer
//! commit completed the sprint (by a hook tick) while the agent still ran,
//! and the CLI printed its turns and dollars only when it exited. The
//! transition changes no state name, only the sprint's usage.

use super::super::apply::Change;
use super::super::apply::MachineError;
use super::super::apply::Transition;
use super::super::cost::Usd;
use super::super::steps::Steps;
use super::super::tables::usage_recordable;
use crate::plan::SprintId;

/// Record the turns, dollars and session an agent reported at exit for
/// `dispatch` of `sprint`. Legal only while that sprint is COMPLETED and
/// `dispatch` is its latest: an earlier dispatch's figures, or a sprint
/// whose verdict is still to come (which carries them itself), are refused.
pub(in crate::machine) fn usage(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
    dispatch: u32,
    turns: Option<u64>,
    cost: Option<Usd>,
    session: Option<&str>,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let k = b.sprint_index(i, sprint)?;
    let s = &b.state.units[i].sprints[k];
    if !usage_recordable(s.state) {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: s.state,
            needed: "an agent's usage is recorded on its own only once its sprint is COMPLETED",
        });
    }
    if s.dispatches != dispatch {
        return Err(MachineError::StaleUsage {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            dispatch,
            latest: s.dispatches,
        });
    }
    let name = b.state.units[i].name.clone();
    let s = &mut b.state.units[i].sprints[k];
    if let Some(c) = cost {
        s.cost = s.cost + c;
    }
    let mut why = format!(
        "Dispatch {dispatch}'s agent exited after its commit completed the sprint; it reported"
    );
    let mut said = Vec::new();
    if let Some(t) = turns {
        said.push(format!("{t} turns"));
    }
    if let Some(c) = cost {
        said.push(format!("${c}"));
    }
    if let Some(id) = session {
        said.push(format!("session {id}"));
    }
    if said.is_empty() {
        said.push("nothing".into());
    }
    why.push_str(&format!(" {}.", said.join(", ")));
    let (id, model) = (s.id.clone(), s.model);
    let t = Transition {
        event: b.event,
        unit: Some(name),
        sprint: Some(id),
        change: Change::Run,
        why,
        attempt: None,
        model,
        turns,
        cost,
        worker: None,
        at: b.at.to_string(),
    };
    b.push(t);
    Ok(())
}
