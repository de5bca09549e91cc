//! The tick of a run that lives on a remote (`start --remote`).
//!
//! Any clone may run it (the one that started the run, every worker): it
//! fetches, records the sprints whose worker's lease lapsed, and publishes
//! the dispatches that are due — DISPATCHED, for a worker to claim; nothing
//! starts here. Agents' verdicts come from the workers that ran them (see
//! `worker`), so this tick never judges an agent by local files. Each event
//! is a compare-and-swap push (see `store::remote`), so any number of clones
//! may tick at once: a lost race decides again on the remote's tip.

use super::Engine;
use super::EngineError;
use super::TickReport;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::store::lease;
use crate::store::remote::RefPush;
use crate::store::Tip;

/// The lease of the run's phase build, `refs/supervisor/leases/build`
/// (units' leases carry a hash suffix, so no unit's lease takes this name).
const BUILD_LEASE: &str = "build";

impl Engine {
    /// Lease expiries, then dispatches, until neither is left.
    pub(super) fn tick_on_remote(&self) -> Result<TickReport, EngineError> {
        let mut report = TickReport::default();
        let mut refused = 0;
        let mut background_ended = false;
        loop {
            let Some(tip) = self.store.tip()? else {
                return Ok(report);
            };
            // Processes this clone's agents left for background sprints
            // that must not run any more (their sprint failed, or the run
            // ended): only this clone can end them.
            // Once a tick: one that survives SIGKILL is said, not chased.
            if !background_ended && !tip.state.background().is_empty() {
                background_ended = true;
                if !self.end_background(&tip, false)?.is_empty() {
                    continue;
                }
            }
            if tip.state.is_finished() {
                return Ok(report);
            }
            if refused <= 3 && self.lapsed_claim(&tip).is_some() {
                match self.publish_decided(|tip| Ok(self.lapsed_claim(tip))) {
                    Ok(steps) => report.steps += steps.len(),
                    Err(EngineError::Refused(_)) => refused += 1,
                    Err(e) => return Err(e),
                }
                continue;
            }
            if refused <= 3 && self.unclaimed_stopping(&tip).is_some() {
                match self
                    .publish_decided(|tip| Ok(self.unclaimed_stopping(tip).map(|e| (e, vec![]))))
                {
                    Ok(steps) => report.steps += steps.len(),
                    Err(EngineError::Refused(_)) => refused += 1,
                    Err(e) => return Err(e),
                }
                continue;
            }
            if self.build_to_run(&tip.state).is_some() {
                if let Some(lease) = self.claim_build(&tip)? {
                    // The claim fetched the run again: the build another
                    // clone just finished is not run twice.
                    let fresh = self.store.tip()?.ok_or(EngineError::NoRun)?;
                    let ran = match self.build_to_run(&fresh.state) {
                        Some(units) => self.run_gate(&fresh, &units),
                        None => Ok(true),
                    };
                    self.release_build(&lease);
                    if ran? {
                        continue;
                    }
                }
            }
            // Work already on a unit's branch completes its waiting sprint
            // before the sprint goes to an agent again.
            if refused <= 3 && self.completed_on_unit_branch(&tip)?.is_some() {
                match self.publish_decided(|tip| self.completed_on_unit_branch(tip)) {
                    // Judged otherwise on the remote's newer tip: bounded
                    // like a lost race.
                    Ok(steps) if steps.is_empty() => refused += 1,
                    Ok(steps) => report.steps += steps.len(),
                    Err(EngineError::Refused(_)) => refused += 1,
                    Err(e) => return Err(e),
                }
                continue;
            }
            // A worker dispatches what it can claim: every clone that
            // ticks racing to dispatch every ready sprint, one push each,
            // had all but one of their pushes refused each time. What is
            // dispatched goes in one push: `start`'s burst of one push per
            // sprint raced every worker's claim.
            let (units, steps) = self.dispatch_on_remote(&tip, self.dispatch_room.get())?;
            report.steps += steps;
            report.dispatched.extend(units);
            return Ok(report);
        }
    }

    /// Claim the run's phase build: its lease pushed where none is held (or
    /// the holder's lapsed), then the remote's integration branch taken as
    /// the build's tip. `None`: another clone builds.
    fn claim_build(&self, tip: &Tip) -> Result<Option<String>, EngineError> {
        let remote = self.store.remote().expect("a remote run");
        let (_, config) = self.snapshot(tip)?;
        let name = format!("{}{BUILD_LEASE}", lease::LEASES_PREFIX);
        let held = remote.tracked(&name);
        let now = lease::now();
        if held.as_deref().is_some_and(|id| {
            self.store
                .read_lease(id)
                .is_some_and(|l| !self.store.lease_lapsed(id, &l))
        }) {
            return Ok(None);
        }
        // No renewal while it builds: the lease outlasts the build's timeout.
        let id = self.store.write_lease(&lease::Lease {
            worker: super::worker::identity(),
            subject: BUILD_LEASE.into(),
            dispatch: 0,
            expires: now + (config.build.timeout + config.run.lease).as_secs() as i64,
        })?;
        let pushed = remote.push(&[RefPush {
            name,
            new: Some(id.to_string()),
            expected: held,
        }])?;
        remote.fetch()?;
        if !pushed {
            return Ok(None);
        }
        if let Some(ws) = self.workspaces(&tip.state, &config) {
            remote.adopt(&format!("refs/heads/{}", ws.integration_branch()))?;
        }
        Ok(Some(id.to_string()))
    }

    /// Let go of the build's lease (a refusal means it lapsed and was
    /// taken: nothing of ours to remove).
    fn release_build(&self, id: &str) {
        if let Some(remote) = self.store.remote() {
            let _ = remote.push(&[RefPush {
                name: format!("{}{BUILD_LEASE}", lease::LEASES_PREFIX),
                new: None,
                expected: Some(id.to_string()),
            }]);
        }
    }

    /// The first RUNNING sprint whose worker's lease lapsed (or is gone),
    /// as the event that interrupts it and the push that removes the lease
    /// — under its own lease, so a renewal that lands first wins.
    pub(crate) fn lapsed_claim(&self, tip: &Tip) -> Option<(EventKind, Vec<RefPush>)> {
        let remote = self.store.remote()?;
        for u in &tip.state.units {
            let Some(sp) = u.active_sprint() else {
                continue;
            };
            let Some(worker) = sp.agent.as_ref().and_then(|a| a.worker.clone()) else {
                continue;
            };
            if sp.state != SprintStatus::Running {
                continue;
            }
            let name = lease::lease_ref(&u.name);
            let held = remote.tracked(&name);
            let live = held.as_deref().is_some_and(|id| {
                self.store
                    .read_lease(id)
                    .is_some_and(|l| l.worker == worker && !self.store.lease_lapsed(id, &l))
            });
            if live {
                continue;
            }
            let also = held
                .map(|id| {
                    vec![RefPush {
                        name,
                        new: None,
                        expected: Some(id),
                    }]
                })
                .unwrap_or_default();
            return Some((
                EventKind::LeaseExpired {
                    unit: u.name.clone(),
                    worker,
                },
                also,
            ));
        }
        None
    }

    /// Whether a live lease on the remote claims `unit`'s sprint for
    /// dispatch `dispatch`: a worker's claim is its lease, which the
    /// state's RUNNING transition may not have caught up with yet (see
    /// `worker`). A lease of an earlier dispatch, or one lapsed by this
    /// clone's clock, claims nothing.
    pub(crate) fn claimed_by_lease(&self, unit: &str, dispatch: u32) -> bool {
        let Some(remote) = self.store.remote() else {
            return false;
        };
        remote.tracked(&lease::lease_ref(unit)).is_some_and(|id| {
            self.store
                .read_lease(&id)
                .is_some_and(|l| l.dispatch == dispatch && !self.store.lease_lapsed(&id, &l))
        })
    }

    /// A stopping unit whose sprint no worker has claimed (no RUNNING
    /// transition, no live lease): nothing runs for it and no worker will
    /// take it (they claim only RUNNING units), so it stops now rather
    /// than at `stop`'s timeout.
    fn unclaimed_stopping(&self, tip: &Tip) -> Option<EventKind> {
        tip.state.units.iter().find_map(|u| {
            let sp = u.active_sprint()?;
            let unclaimed = u.state == crate::machine::UnitStatus::Stopping
                && sp.state == SprintStatus::Dispatched
                && sp.agent.as_ref().is_none_or(|a| a.worker.is_none())
                && !self.claimed_by_lease(&u.name, sp.dispatches);
            unclaimed.then(|| EventKind::ForceStop {
                unit: u.name.clone(),
                uncommitted: Vec::new(),
            })
        })
    }
}
