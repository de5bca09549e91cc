//! The state machines: work units and sprints, with exactly the spec's
//! fourteen state names, and the policy around them (retries, gating, model
//! selection). Pure: no I/O, no clock, no randomness. The rest of the program
//! turns the world into [`Event`]s and writes the [`Step`]s `apply` returns.

mod after;
pub mod apply;
pub mod background;
pub mod cost;
mod handlers;
pub mod model_select;
pub mod retry;
pub mod state;
mod steps;
mod tables;
pub mod timestamp;

pub use after::SprintDep;
pub use apply::apply;
pub use apply::dispatchable;
pub use apply::dispatchable_at;
pub use apply::Change;
pub use apply::CriterionCheck;
pub use apply::Event;
pub use apply::EventKind;
pub use apply::KillAssessment;
pub use apply::MachineError;
pub use apply::Outcome;
pub use apply::Step;
pub use apply::Transition;
pub use background::BackgroundEntry;
pub use background::BackgroundProcess;
pub use cost::Usd;
pub use state::*;
pub use tables::legal_sprint;
pub use tables::legal_unit;
pub use tables::usage_recordable;
