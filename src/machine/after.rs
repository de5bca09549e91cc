//! Dependencies on one sprint of another unit (`Depends on: core sprint
//! 2`): the unit records which sprint it waits for (`UnitState::after`),
//! and the dependency is met once that sprint is COMPLETED rather than the
//! whole unit.

use serde::Deserialize;
use serde::Serialize;

use super::state::SprintStatus;
use super::state::State;
use super::state::UnitState;
use crate::plan::SprintId;

/// One sprint of another unit that a unit waits for instead of the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SprintDep {
    pub unit: String,
    pub sprint: SprintId,
}

impl State {
    /// `unit`'s dependency `dep` is met: the sprint of it the unit waits
    /// for is COMPLETED when it waits for one sprint only, else
    /// [`State::dependency_met`].
    pub fn dependency_met_for(&self, unit: &UnitState, dep: &str) -> bool {
        match unit.after.iter().find(|a| a.unit == dep) {
            Some(a) => self.unit(dep).is_some_and(|d| {
                d.sprints
                    .iter()
                    .any(|s| s.id == a.sprint && s.state == SprintStatus::Completed)
            }),
            None => self.dependency_met(dep),
        }
    }
}
