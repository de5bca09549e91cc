//! `[notify]`: the command that tells a person what needs or interests
//! them, and which events it hears.

use std::time::Duration;

use serde::Deserialize;

use super::humantime_serde_compat;

/// `[notify]`: a command run for each event that needs or interests a
/// person (see `dispatch::notify`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NotifyConfig {
    /// argv run per event, the event as JSON on stdin and in `SUPERVISOR_*`
    /// variables; no shell unless the user writes `sh -c`.
    pub command: Option<Vec<String>>,
    /// The events it runs for (all when not given).
    pub on: Option<Vec<NotifyOn>>,
    /// How long one run of the command may take before it is killed.
    #[serde(with = "humantime_serde_compat")]
    pub timeout: Duration,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            command: None,
            on: None,
            timeout: Duration::from_secs(10),
        }
    }
}

/// An event `[notify] on` may name; `finished` stands for the three ends
/// of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifyOn {
    Blocked,
    Confirm,
    UsageLimit,
    LimitEnded,
    BuildFailed,
    RunCompleted,
    RunStopped,
    RunKilled,
    Finished,
}

impl NotifyConfig {
    /// Whether `event` (a `dispatch::notify::Notification::event`) is
    /// wanted.
    pub fn wants(&self, event: &str) -> bool {
        let Some(on) = &self.on else {
            return true;
        };
        on.iter().any(|o| {
            let name = match o {
                NotifyOn::Blocked => "blocked",
                NotifyOn::Confirm => "confirm",
                NotifyOn::UsageLimit => "usage_limit",
                NotifyOn::LimitEnded => "limit_ended",
                NotifyOn::BuildFailed => "build_failed",
                NotifyOn::RunCompleted => "run_completed",
                NotifyOn::RunStopped => "run_stopped",
                NotifyOn::RunKilled => "run_killed",
                NotifyOn::Finished => return event.starts_with("run_"),
            };
            name == event
        })
    }
}
