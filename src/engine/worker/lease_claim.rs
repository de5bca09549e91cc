//! A claim is its lease: a worker takes a waiting sprint by creating the
//! sprint's lease on the remote (`refs/supervisor/leases/<unit>`, a push
//! under a lease on the ref's absence, or on the lapsed lease it
//! replaces), which moves no other ref. Sixteen workers claiming at once
//! push sixteen different refs, so none of them is refused for another's
//! claim, and an agent starts without waiting for its turn on the state.
//!
//! The state catches up: the sprint's DISPATCHED → RUNNING transition
//! (`Supervisor-Worker`) rides on the worker's next push of the state ref —
//! in the steady state the verdict of the sprint it ran before, published
//! while the new agent already works — or, when none comes, on a push of
//! its own at the worker's next look at the remote. Until then every
//! reader takes a DISPATCHED sprint with a live lease of its dispatch for
//! taken: workers do not claim it, a worker's tick dispatches past it, a
//! stopping unit waits for its verdict. A lease that lapses before the
//! transition is recorded frees the sprint with no transition at all: it
//! never left DISPATCHED.

use super::claim::claimable;
use super::claim::Claim;
use super::claim::ClaimNext;
use super::claim::Won;
use super::Claimed;
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::store::lease;
use crate::store::lease::Lease;
use crate::store::remote::RefPush;

impl Engine {
    /// Claim the waiting sprint this worker ranks first by pushing its
    /// lease, and start its agent. A refused push means another worker's
    /// lease came first: the next sprint in this worker's order is tried
    /// at once, without a fetch. The first push also carries `carry` (a
    /// verdict posted in its lease); whether it landed comes back with the
    /// claim (after a refusal the claim is pushed alone).
    pub(super) fn claim_by_lease(
        &self,
        next: &ClaimNext,
        carry: &[RefPush],
    ) -> Result<(Claim, bool), EngineError> {
        let Some(tip) = self.store.tip()? else {
            return Ok((Claim::Nothing, false));
        };
        let mut carry = carry.to_vec();
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let me = &next.options.identity;
        let mut skip = next.taken.clone();
        let mut tried = None;
        loop {
            let leased = |unit: &str, dispatch: u32| self.claimed_by_lease(unit, dispatch);
            let Some(unit) = claimable(&tip.state, &skip, me, leased) else {
                let claim = match tried {
                    Some(unit) => Claim::Lost(unit),
                    None => Claim::Nothing,
                };
                return Ok((claim, false));
            };
            let dispatch = tip
                .state
                .unit(&unit)
                .and_then(|u| u.active_sprint())
                .expect("a claimable unit has a sprint waiting")
                .dispatches;
            let (_, config) = self.snapshot(&tip)?;
            let id = self.store.write_lease(&Lease {
                worker: me.clone(),
                subject: unit.clone(),
                dispatch,
                expires: lease::now() + config.run.lease.as_secs() as i64,
            })?;
            let lease_ref = lease::lease_ref(&unit);
            let mut refs = vec![RefPush {
                name: lease_ref.clone(),
                new: Some(id.to_string()),
                expected: remote.tracked(&lease_ref),
            }];
            let carried = !carry.is_empty();
            refs.append(&mut carry);
            if remote.push(&refs)? {
                let won = Won::leased(unit, id.to_string(), dispatch, tip.state.clone());
                return match self.start_won(won, me) {
                    Ok(c) => Ok((Claim::Won(Box::new(c)), carried)),
                    // Recorded as a failed attempt (see `start_won`); the
                    // post it carried stands.
                    Err(_) if carried => Ok((Claim::Nothing, true)),
                    Err(e) => Err(e),
                };
            }
            tried = Some(unit.clone());
            skip.push(unit);
        }
    }

    /// Whether `state` holds `unit`'s `sprint` DISPATCHED for dispatch
    /// `dispatch` while the remote holds the lease `lease` on it: a claim
    /// whose RUNNING transition is still to be recorded.
    pub(super) fn leased_to(
        &self,
        state: &State,
        unit: &str,
        sprint: &str,
        dispatch: u32,
        lease: &str,
    ) -> bool {
        let waiting = state
            .unit(unit)
            .and_then(|u| u.active_sprint())
            .is_some_and(|sp| {
                sp.id.to_string() == sprint
                    && sp.dispatches == dispatch
                    && sp.state == SprintStatus::Dispatched
            });
        waiting
            && self
                .store
                .remote()
                .is_some_and(|r| r.tracked(&lease::lease_ref(unit)).as_deref() == Some(lease))
    }

    /// The next RUNNING transition of `claims` (this worker's) that only
    /// their leases hold on `state`.
    pub(super) fn record_step(
        &self,
        state: &State,
        claims: &[Pending],
        me: &str,
    ) -> Option<(EventKind, Vec<RefPush>)> {
        claims
            .iter()
            .find(|c| self.leased_to(state, &c.unit, &c.sprint, c.dispatch, &c.lease))
            .map(|c| (started(&c.unit, me), Vec::new()))
    }

    /// Record the RUNNING transitions of this worker's claims that only
    /// their leases hold and whose agents have worked a quarter of the
    /// lease, in one push: a sprint that short waits for its verdict to
    /// carry it (a push of its own would race every other worker's at
    /// the same moment). A claim the state holds afterwards is marked
    /// recorded.
    pub(super) fn record_claims(&self, mine: &mut [Claimed], me: &str) -> Result<(), EngineError> {
        let due = self.lease() / 4;
        let pending: Vec<Pending> = mine
            .iter()
            .filter(|c| c.queued.is_none() && c.since.elapsed() >= due)
            .filter_map(Pending::of)
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        self.publish_chain(|_, state, _| Ok(self.record_step(state, &pending, me)))?;
        self.mark_recorded(mine);
        Ok(())
    }

    /// Mark the claims whose RUNNING transition the state now holds.
    pub(super) fn mark_recorded(&self, mine: &mut [Claimed]) {
        let Ok(Some(tip)) = self.store.tip() else {
            return;
        };
        for c in mine.iter_mut().filter(|c| !c.recorded) {
            let sprint = c.sprint.to_string();
            c.recorded = !self.leased_to(&tip.state, &c.unit, &sprint, c.dispatch, &c.lease);
        }
    }
}

/// A claim of this worker whose RUNNING transition may still be due.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub(super) unit: String,
    pub(super) sprint: String,
    pub(super) dispatch: u32,
    pub(super) lease: String,
}

impl Pending {
    pub(super) fn of(c: &Claimed) -> Option<Pending> {
        (!c.recorded).then(|| Pending {
            unit: c.unit.clone(),
            sprint: c.sprint.to_string(),
            dispatch: c.dispatch,
            lease: c.lease.clone(),
        })
    }
}

/// The event that records a claim: DISPATCHED → RUNNING for `worker`.
pub(super) fn started(unit: &str, worker: &str) -> EventKind {
    EventKind::AgentStarted {
        unit: unit.to_string(),
        pid: None,
        worker: Some(worker.to_string()),
    }
}
