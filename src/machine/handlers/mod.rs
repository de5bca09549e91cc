//! One handler per event, grouped by what the events are about. A handler
//! checks that its event may land now (or returns a [`MachineError`] and
//! changes nothing) and takes its steps through [`Steps`], whose every
//! state change is an edge of the transition tables.
//!
//! [`MachineError`]: super::MachineError
//! [`Steps`]: super::steps::Steps

pub(super) mod agent;
pub(super) mod background;
pub(super) mod budget;
pub(super) mod completion;
pub(super) mod gate;
pub(super) mod limit;
pub(super) mod plan;
pub(super) mod run;
pub(super) mod usage;
