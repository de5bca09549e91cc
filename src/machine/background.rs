//! Processes a `background` sprint leaves running (spec §2g: "complete once
//! the process is confirmed running"): what is recorded of them, and the
//! rule for when they must end. They outlive the agent that started them
//! and never the run: once the run has ended (completed, stopped, killed)
//! every one of them is to be ended, unless `[run] keep_background`; the
//! processes of a sprint that did not complete are ended at once, kept or
//! not (a retry would start a second one beside them). Pure: the engine
//! looks the processes up and signals them.

use serde::Deserialize;
use serde::Serialize;

use super::state::SprintStatus;
use super::state::State;
use super::state::UnitStatus;
use super::Overall;
use crate::plan::SprintId;

/// One process a background sprint's agent left running, named so that a
/// reused pid is never taken for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackgroundProcess {
    pub pid: u32,
    /// Its start time in clock ticks since boot (`/proc/<pid>/stat`): with
    /// the pid, it names one process.
    pub start: u64,
    /// Its command line, for people.
    #[serde(default)]
    pub command: String,
    /// The clone that started it (`<hostname>:<git directory>`): only that
    /// clone can see or end it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub host: Option<String>,
}

/// A recorded process with the sprint that started it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackgroundEntry<'s> {
    pub unit: &'s str,
    pub sprint: &'s SprintId,
    pub process: &'s BackgroundProcess,
}

impl State {
    /// Every background process recorded in the run, in plan order.
    pub fn background(&self) -> Vec<BackgroundEntry<'_>> {
        self.units
            .iter()
            .flat_map(|u| {
                u.sprints.iter().flat_map(move |s| {
                    s.background.iter().map(move |p| BackgroundEntry {
                        unit: &u.name,
                        sprint: &s.id,
                        process: p,
                    })
                })
            })
            .collect()
    }

    /// The run has ended for its background processes: no agent is at work
    /// or draining, and it completed, or was stopped or killed. A BLOCKED
    /// run has not ended: a person fixes it and resumes, and what the
    /// completed sprints started still serves the rest.
    pub fn run_ended(&self) -> bool {
        let any = |s: UnitStatus| self.units.iter().any(|u| u.state == s);
        if any(UnitStatus::Running) || any(UnitStatus::Stopping) {
            return false;
        }
        self.overall() == Overall::Completed
            || self.kill.is_some()
            || any(UnitStatus::Stopped)
            || any(UnitStatus::Killed)
    }

    /// The background processes that must not be running now: those of a
    /// sprint that did not complete (and has no agent at work), and, once
    /// the run has ended, all of them unless `keep` (`[run]
    /// keep_background`).
    pub fn background_to_end(&self, keep: bool) -> Vec<BackgroundEntry<'_>> {
        let ended = self.run_ended() && !keep;
        self.background()
            .into_iter()
            .filter(|b| {
                let state = self
                    .unit(b.unit)
                    .and_then(|u| u.sprints.iter().find(|s| &s.id == b.sprint))
                    .map(|s| s.state);
                match state {
                    Some(SprintStatus::Completed) => ended,
                    Some(s) if s.is_active() => false,
                    _ => true,
                }
            })
            .collect()
    }
}
