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
        let mut state = tip.state.clone();
        let ms = |d: std::time::Duration| d.as_millis().min(u64::MAX as u128) as u64;
        if let Ok((_, c)) = self.snapshot(tip) {
            state.retry_delay_ms = ms(c.run.retry_delay);
            state.deferred_check_ms = (ms(c.run.deferred_check_min), ms(c.run.deferred_check_max));
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
        let clock = self.store.clock();
        let published = self.store.update(|tip| {
            let tip = tip.ok_or(EngineError::NoRun)?;
            let Some((kind, also)) = decide(tip)? else {
                return Ok(None);
            };
            let event = Event {
                at: clock.iso_at_seq(tip.state.seq + 1),
                kind,
            };
            let steps = machine::apply(&self.deciding(tip), &event)?;
            Ok(Some(Update {
                also,
                ..update(steps, Some(event))
            }))
        });
        match published {
            Ok(p) => Ok(p.steps),
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
