//! `note`: an entry in the run's decisions log, a run-level commit that
//! changes no state. Decided by the machine, published like any event.

use std::path::Path;

use crate::machine::apply;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::MachineError;
use crate::plan::SprintId;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UpdateError;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum NoteError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] StoreError),
    #[error("there is no run to add a note to")]
    #[diagnostic(code(run::none), help("start a run with `git supervisor start`"))]
    NoRun,
    #[error("{0}")]
    #[diagnostic(code(run::refused))]
    Refused(MachineError),
}

/// Record `text` (about `unit` and `sprint`, when given) in the run of the
/// repository at `cwd`; the transition's number. A refused note (an
/// unknown unit) leaves the state ref as it was.
pub fn record_note(
    cwd: &Path,
    unit: Option<String>,
    sprint: Option<SprintId>,
    text: &str,
) -> Result<u64, NoteError> {
    let store = Store::open(cwd)?;
    let clock = store.clock();
    let published = store.update(|tip| {
        let Some(tip) = tip else {
            return Err(None);
        };
        let event = Event {
            at: clock.iso_at_seq(tip.state.seq + 1),
            kind: EventKind::Notice {
                unit: unit.clone(),
                sprint: sprint.clone(),
                text: text.to_string(),
            },
        };
        let steps = apply(&tip.state, &event).map_err(Some)?;
        Ok(Some(super::publish::update(steps, Some(event))))
    });
    match published {
        Ok(p) => Ok(p.steps.last().map(|s| s.state.seq).unwrap_or_default()),
        Err(UpdateError::Store(e)) => Err(e.into()),
        Err(UpdateError::Decide(None)) => Err(NoteError::NoRun),
        Err(UpdateError::Decide(Some(e))) => Err(NoteError::Refused(e)),
    }
}
