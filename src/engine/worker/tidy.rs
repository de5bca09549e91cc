//! A worker clone keeps a unit's worktree only while one of its claims
//! works there: the worktree goes when the claim ends (the next claim
//! makes it afresh from the remote's unit branch anyway), a finished unit's
//! worktree goes whoever made it (a worker killed earlier in this clone),
//! and at the run's end none is left.

use super::Claimed;
use crate::engine::Engine;
use crate::machine::UnitStatus;
use crate::store::Tip;
use crate::workspace::Workspaces;

impl Engine {
    /// The run's worktrees in this clone, as a worker lays them out.
    fn worker_workspaces(&self, tip: &Tip) -> Option<Workspaces> {
        let (_, config) = self.snapshot(tip).ok()?;
        Some(
            Workspaces::new(
                &self.workdir,
                config.workspace.dir.as_deref(),
                &tip.state.run_id,
            )
            .with_teardown(&tip.state, &config),
        )
    }

    /// Remove the worktree of a claim that ended. Everything it made is
    /// published or, for a lost claim, not this worker's to keep.
    pub(super) fn drop_worktree(&self, c: &Claimed) {
        if let Some(ws) = self
            .store
            .tip()
            .ok()
            .flatten()
            .and_then(|t| self.worker_workspaces(&t))
        {
            let _ = ws.remove(&c.unit, true);
        }
    }

    /// Remove the worktrees of units no claim of this worker works on that
    /// are done (all of them once the run is finished).
    pub(super) fn tidy_worktrees(&self, tip: &Tip, mine: &[Claimed]) {
        let Some(ws) = self.worker_workspaces(tip) else {
            return;
        };
        let finished = tip.state.is_finished();
        for u in &tip.state.units {
            let done = !matches!(
                u.state,
                UnitStatus::NotStarted | UnitStatus::Running | UnitStatus::Stopping
            );
            if (done || finished) && !mine.iter().any(|c| c.unit == u.name) {
                let _ = ws.remove(&u.name, true);
            }
        }
    }
}
