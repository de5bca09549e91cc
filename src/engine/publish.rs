//! Deciding one event on the run's tip and publishing it: the machine's
//! steps, each with the `SUPERVISOR_STATE.md` the engine renders for it (the
//! store writes the blobs it is given and never renders), in one
//! compare-and-swap or leased push that decides again on a lost race.

use crate::machine;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::State;
use crate::machine::Step;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::store::Update;
use crate::store::UpdateError;

use super::Engine;
use super::EngineError;

impl Engine {
    /// Publish one event against whatever the tip is by then.
    pub fn publish(&self, kind: EventKind) -> Result<Vec<Step>, EngineError> {
        self.publish_decided(|_| Ok(Some((kind.clone(), Vec::new()))))
    }

    /// The tip's state as events are decided on it: the retry policy and the
    /// deferred checks' backoff come from the run's config snapshot.
    pub(crate) fn deciding(&self, tip: &Tip) -> State {
        self.deciding_on(tip, &tip.state)
    }

    /// `state` (the tip's, or what events decided on it left) with the
    /// run's retry policy and deferred checks' backoff.
    fn deciding_on(&self, tip: &Tip, state: &State) -> State {
        let mut state = state.clone();
        let ms = |d: std::time::Duration| d.as_millis().min(u64::MAX as u128) as u64;
        if let Ok((_, c)) = self.snapshot(tip) {
            state.retry_delay_ms = ms(c.run.retry_delay);
            state.deferred_check_ms = (ms(c.run.deferred_check_min), ms(c.run.deferred_check_max));
            state.limit_wait_max_ms = ms(c.run.limit_wait_max);
        }
        state
    }

    /// Publish the event `decide` picks on the tip it sees (asked again on
    /// the new tip after a lost race), with the other refs its atomic push
    /// moves on a remote. `None`: nothing to publish any more.
    pub(crate) fn publish_decided(
        &self,
        mut decide: impl FnMut(&Tip) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError>,
    ) -> Result<Vec<Step>, EngineError> {
        self.publish_chain(|tip, _, n| if n == 0 { decide(tip) } else { Ok(None) })
    }

    /// Publish the events `next` picks one after another, each decided on
    /// the state the ones before it left (`next(tip, state, n)`, `n` events
    /// decided so far; `None` ends the chain), in one compare-and-swap or
    /// one push. A lost race decides the whole chain again on the new tip.
    pub(crate) fn publish_chain(
        &self,
        mut next: impl FnMut(
            &Tip,
            &State,
            usize,
        ) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError>,
    ) -> Result<Vec<Step>, EngineError> {
        let clock = self.store.clock();
        // The state the published chain was decided on (the last try's).
        let mut before = None;
        let published = self.store.update_chain(|tip| {
            let tip = tip.ok_or(EngineError::NoRun)?;
            before = Some(tip.state.clone());
            let mut state = tip.state.clone();
            let mut updates = Vec::new();
            while let Some((kind, also)) = next(tip, &state, updates.len())? {
                let event = Event {
                    at: clock.iso_at_seq(state.seq + 1),
                    kind,
                };
                let steps = machine::apply(&self.deciding_on(tip, &state), &event)?;
                // An event that changes nothing ends the chain: asking
                // again on the same state would pick it again.
                let Some(last) = steps.last() else {
                    break;
                };
                state = last.state.clone();
                updates.push(Update {
                    also,
                    ..update(steps, Some(event))
                });
            }
            Ok(updates)
        });
        match published {
            Ok(p) => {
                if let Some(before) = &before {
                    self.notify(before, &p.steps);
                }
                Ok(p.steps)
            }
            Err(UpdateError::Store(e)) => Err(e.into()),
            Err(UpdateError::Decide(e)) => Err(e),
        }
    }
}

/// An update publishing `steps` (from `event`, when it has one), with
/// `SUPERVISOR_STATE.md` rendered after each step. Fill in the snapshot,
/// checkpoints or other refs with struct update syntax.
pub fn update(steps: Vec<Step>, event: Option<Event>) -> Update {
    let state_md = steps
        .iter()
        .map(|s| crate::report::state_md::render(&s.state))
        .collect();
    Update {
        steps,
        state_md,
        snapshot: None,
        checkpoints: Vec::new(),
        also: Vec::new(),
        event,
    }
}
