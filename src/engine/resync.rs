//! A diverged state history brought back to one line by `sync`.
//!
//! When this clone and the remote both recorded transitions since they
//! last agreed, this clone's events are decided again on the remote's
//! state, in their order (the machine is pure, so deciding again is safe),
//! and the result is pushed under a lease on the remote's tip: the other
//! side's transitions are never overwritten. An event that no longer
//! applies there is dropped and reported. Events that brought files along
//! (a plan snapshot, a checkpoint) cannot be decided again elsewhere: then
//! nothing changes and the divergence is reported as before.

use serde::Serialize;

use super::Engine;
use super::EngineError;
use crate::machine;
use crate::machine::Event;
use crate::store::remote::tracking;
use crate::store::remote::RefPush;
use crate::store::remote::Remote;
use crate::store::Tip;

const STATE_REF: &str = "refs/supervisor/state";

/// What deciding this clone's events again on the remote's state did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Replayed {
    /// Events decided again and pushed (`Supervisor-Event` names).
    pub reapplied: Vec<String>,
    /// Events that no longer apply on the remote's state, and why.
    pub dropped: Vec<String>,
    /// Why nothing was done, when nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<String>,
}

impl Engine {
    /// Decide this clone's transitions since it parted from `remote`'s
    /// (fetched) state again on the remote's state and publish them there,
    /// then here. See the module header.
    pub fn replay_onto_remote(&self, remote: &str) -> Result<Replayed, EngineError> {
        let store = &self.store;
        let (Some(ours), Some(theirs)) = (
            store.ref_id(STATE_REF)?,
            store.ref_id(&tracking(remote, STATE_REF))?,
        ) else {
            return Ok(left("one side has no run"));
        };
        let Some((_, only_ours)) = store.parting(ours, theirs)? else {
            return Ok(left("the two histories share no transition"));
        };
        // This clone's events, each with the commits it wrote.
        let mut events: Vec<Event> = Vec::new();
        for id in &only_ours {
            match store.event_at(*id)? {
                Some(recorded) => match recorded.kind {
                    Some(kind) => events.push(Event {
                        at: recorded.at,
                        kind,
                    }),
                    None => {
                        return Ok(left(&format!(
                            "`{}` brought files along and cannot be decided again elsewhere",
                            recorded.name
                        )))
                    }
                },
                // A later step of the event before it.
                None if !events.is_empty() => {}
                None => return Ok(left("its transitions do not record their events")),
            }
        }
        let mut tip = Tip {
            id: theirs,
            state: store.state_at(theirs)?,
        };
        let mut done = Replayed::default();
        for event in events {
            let name = event.kind.name().to_string();
            match machine::apply(&self.deciding(&tip), &event) {
                Ok(steps) if steps.is_empty() => {}
                Ok(steps) => {
                    let state = steps.last().expect("steps").state.clone();
                    let id =
                        store.write_onto(tip.id, &super::publish::update(steps, Some(event)))?;
                    tip = Tip { id, state };
                    done.reapplied.push(name);
                }
                Err(e) => done.dropped.push(format!("{name}: {e}")),
            }
        }
        let workdir = self.workdir.clone();
        let pusher = Remote::new(&workdir, &store.runtime_dir(), remote);
        if tip.id != theirs {
            let pushed = pusher.push(&[RefPush {
                name: STATE_REF.to_string(),
                new: Some(tip.id.to_string()),
                expected: Some(theirs.to_string()),
            }])?;
            if !pushed {
                return Ok(left("the remote moved on again meanwhile; sync again"));
            }
        }
        if store
            .move_state(ours, tip.id, "decided again on the remote's state")
            .is_err()
        {
            done.left = Some(
                "a transition was recorded here meanwhile; sync again to bring it along".into(),
            );
        }
        Ok(done)
    }
}

fn left(why: &str) -> Replayed {
    Replayed {
        left: Some(why.to_string()),
        ..Replayed::default()
    }
}
