//! Cross-package needs read against the plan's Allowed Imports (spec §M):
//! which new registry entries are hand-offs to the unit's next sprint and
//! which are conflicts, for the decisions log.

use crate::machine::Need;
use crate::plan::imports;
use crate::store::Tip;

use super::Engine;

impl Engine {
    /// The decisions-log notes of the needs in `needs` that the state's
    /// registry does not hold yet; none when the plan has no Allowed
    /// Imports table.
    pub(super) fn need_rulings(&self, tip: &Tip, needs: &[Need]) -> Vec<String> {
        let Ok((plan, _)) = self.snapshot(tip) else {
            return Vec::new();
        };
        if plan.allowed_imports.is_empty() {
            return Vec::new();
        }
        let read =
            |n: &Need| imports::read_need(&n.text, &n.unit, &plan.units, &plan.allowed_imports);
        let all: Vec<imports::NeedReading> = needs.iter().map(read).collect();
        let new: Vec<imports::NeedReading> = needs
            .iter()
            .filter(|n| !tip.state.needs.contains(n))
            .map(read)
            .collect();
        imports::rulings(&all, &new)
    }
}
