//! The spending limit: the agents' reported dollars reached
//! `run.budget_usd`. Running units stop as on `stop` (an active agent
//! finishes its sprint); no dispatch lands while the mark is set; `resume`
//! clears it, and the engine checks the budget again before the next
//! dispatch.

use super::super::apply::MachineError;
use super::super::cost::Usd;
use super::super::state::BudgetReached;
use super::super::steps::Steps;

/// The budget is spent: record it once, and stop the running units.
pub(in crate::machine) fn budget_reached(
    b: &mut Steps<'_>,
    spent: Usd,
    budget: Usd,
) -> Result<(), MachineError> {
    b.require_started()?;
    if b.state.budget_reached.is_none() {
        b.state.budget_reached = Some(BudgetReached {
            spent,
            budget,
            at: b.at.to_string(),
        });
        b.run_note(format!(
            "Budget reached: {spent} spent of run.budget_usd {budget}. No new dispatches; raise the budget, replan, then resume."
        ));
    }
    // Units that became RUNNING since (a gate opened them) stop too; with
    // none, the event changes nothing.
    b.drain_running_units("Budget reached");
    Ok(())
}
