//! The transition tables: the one place the legal edges between state names
//! are listed. Every step a handler takes is checked against them, and the
//! property tests check every step of random event sequences.

use super::state::SprintStatus;
use super::state::UnitStatus;

/// Unit edges: spec §D-19, the procedures' extra edges (STOPPING → KILLED,
/// RUNNING → KILLED, KILLED → NOT_STARTED), STOPPING → BLOCKED (a stopping
/// unit's last attempt fails) and COMPLETED → RUNNING (a phase gate reopens a
/// unit whose sprint it blames).
pub fn legal_unit(from: UnitStatus, to: UnitStatus) -> bool {
    use UnitStatus::*;
    matches!(
        (from, to),
        (NotStarted, Running)
            | (Running, Completed)
            | (Running, Stopping)
            | (Running, Blocked)
            | (Stopping, Stopped)
            | (Stopped, Running)
            | (Blocked, Running)
            | (Killed, Running)
            | (Stopping, Killed)
            | (Running, Killed)
            | (Killed, NotStarted)
            | (Stopping, Blocked)
            | (Completed, Running)
    )
}

/// Sprint edges: spec §D-20, plus DISPATCHED → BACKOFF (the agent died or
/// was killed before it started), COMPLETED → BACKOFF (a failed phase gate),
/// BACKOFF → PENDING (resume of an interrupted sprint, attempt kept),
/// PARTIAL → COMPLETED (a person confirms a manual sprint) and PENDING,
/// BACKOFF, FATAL → COMPLETED (observed in history: the work is done and its
/// exit criteria pass, whatever the run thought).
pub fn legal_sprint(from: SprintStatus, to: SprintStatus) -> bool {
    use SprintStatus::*;
    matches!(
        (from, to),
        (Pending, Dispatched)
            | (Dispatched, Running)
            | (Running, Completed)
            | (Running, Partial)
            | (Running, Backoff)
            | (Partial, Dispatched)
            | (Backoff, Dispatched)
            | (Backoff, Fatal)
            | (Fatal, Pending)
            | (Dispatched, Backoff)
            | (Completed, Backoff)
            | (Backoff, Pending)
            | (Partial, Completed)
            | (Pending, Completed)
            | (Backoff, Completed)
            | (Fatal, Completed)
    )
}

/// The one transition that changes no state name but a sprint's usage
/// (`usage`: turns, dollars and session its agent reported at exit, after
/// its trailer commit had completed the sprint): legal only on a COMPLETED
/// sprint, for its latest dispatch (checked by the handler).
pub fn usage_recordable(sprint: SprintStatus) -> bool {
    sprint == SprintStatus::Completed
}
