//! Background sprints in the engine: the processes their agents left
//! running are recorded before the verdict, a verdict of COMPLETED stands
//! only while one of them is running, and what the state says must not run
//! any more (`State::background_to_end`: a sprint that did not complete;
//! every one once the run has ended, unless `[run] keep_background`) is
//! ended, by the tick, `stop` and `killall`, each time recorded as a notice.

use std::collections::BTreeMap;

use crate::dispatch::background;
use crate::dispatch::Report;
use crate::machine::BackgroundProcess;
use crate::machine::EventKind;
use crate::machine::Outcome;
use crate::machine::SprintState;
use crate::machine::State;
use crate::plan::TaskType;
use crate::store::Tip;

use super::Engine;
use super::EngineError;

/// How a process is named in messages.
fn named(p: &BackgroundProcess) -> String {
    format!("pid {} (`{}`)", p.pid, p.command)
}

impl Engine {
    /// The processes a finished background sprint's agent left running,
    /// as an event to record before its verdict (once).
    pub(super) fn background_to_record(
        &self,
        unit: &str,
        sp: &SprintState,
        report: &Report,
    ) -> Option<EventKind> {
        if sp.task_type != TaskType::Background
            || !sp.background.is_empty()
            || report.background.is_empty()
        {
            return None;
        }
        let here = self.here();
        Some(EventKind::Background {
            unit: unit.to_string(),
            sprint: sp.id.clone(),
            processes: report
                .background
                .iter()
                .map(|p| BackgroundProcess {
                    host: Some(here.clone()),
                    ..p.clone()
                })
                .collect(),
        })
    }

    /// A background sprint completes once its process is confirmed
    /// running (spec §2g, §H 5e), and not otherwise, whatever else says
    /// it is done.
    /// `processes` are those recorded for the sprint `sp` (a worker judges
    /// before it records them).
    pub(super) fn background_verdict(
        &self,
        sp: &SprintState,
        processes: &[BackgroundProcess],
        outcome: Outcome,
        evidence: String,
    ) -> (Outcome, String) {
        if sp.task_type != TaskType::Background || outcome != Outcome::Completed {
            return (outcome, evidence);
        }
        let running: Vec<String> = processes
            .iter()
            .filter(|p| background::running(p))
            .map(named)
            .collect();
        if running.is_empty() {
            (
                Outcome::Failure,
                format!(
                    "{evidence} But no process its agent started is running: a background sprint completes only once its process is confirmed running."
                ),
            )
        } else {
            (
                outcome,
                format!("{evidence} Confirmed running: {}.", running.join(", ")),
            )
        }
    }

    /// Wait, ticking, until no background process of this clone that the
    /// finished run's state says must end still runs (at most twice the
    /// kill grace and a few seconds, for whichever process is ending them);
    /// the state then.
    pub(super) fn background_ended(&self, mut tip: Tip) -> Result<State, EngineError> {
        let (_, config) = self.snapshot(&tip)?;
        let deadline = std::time::Instant::now()
            + config.agent.kill_grace * 2
            + std::time::Duration::from_secs(5);
        let here = self.here();
        loop {
            let left = tip
                .state
                .background_to_end(config.run.keep_background)
                .iter()
                .any(|b| {
                    b.process.host.as_deref().is_none_or(|h| h == here)
                        && background::running(b.process)
                });
            if !left || std::time::Instant::now() >= deadline {
                return Ok(tip.state);
            }
            self.tick(super::LockMode::Wait(std::time::Duration::from_millis(500)))?;
            std::thread::sleep(std::time::Duration::from_millis(50));
            tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        }
    }

    /// End the background processes the state says must not run (see the
    /// module header), or with `all` (`stop`, `killall`: even a run left
    /// BLOCKED) every one unless `keep_background`, that this clone started
    /// and that still run; each sprint's ending is recorded as a notice.
    /// Returns what was ended, in words.
    pub fn end_background(&self, tip: &Tip, all: bool) -> Result<Vec<String>, EngineError> {
        let (_, config) = self.snapshot(tip)?;
        let keep = config.run.keep_background;
        let here = self.here();
        let mut by_sprint: BTreeMap<(String, String), Vec<BackgroundProcess>> = BTreeMap::new();
        let entries = if all && !keep {
            tip.state.background()
        } else {
            tip.state.background_to_end(keep)
        };
        for b in entries {
            if b.process.host.as_deref().is_some_and(|h| h != here) {
                continue;
            }
            by_sprint
                .entry((b.unit.to_string(), b.sprint.to_string()))
                .or_default()
                .push(b.process.clone());
        }
        let mut said = Vec::new();
        for ((unit, sprint), processes) in by_sprint {
            let running: Vec<String> = processes
                .iter()
                .filter(|p| background::running(p))
                .map(named)
                .collect();
            if running.is_empty() {
                continue;
            }
            let Some(sp) = tip
                .state
                .unit(&unit)
                .and_then(|u| u.sprints.iter().find(|s| s.id.to_string() == sprint))
            else {
                continue;
            };
            // The dispatch that recorded them is the sprint's latest.
            let result_file = self.agent_paths(&unit, &sp.id, sp.dispatches).result;
            let ended = background::end(
                &[background::Sprint {
                    result_file: &result_file,
                    processes: &processes,
                }],
                config.agent.kill_grace,
            );
            let completed = sp.state == crate::machine::SprintStatus::Completed;
            let why = match (completed, tip.state.run_ended()) {
                (false, _) => "its sprint did not complete",
                (true, true) => "the run ended",
                (true, false) => "the run was stopped",
            };
            let mut text = format!(
                "Ended the background process{} of sprint {sprint} ({}): {why}.",
                if running.len() == 1 { "" } else { "es" },
                running.join(", ")
            );
            if ended.killed > 0 {
                text.push_str(&format!(" {} needed SIGKILL.", ended.killed));
            }
            if !ended.survivors.is_empty() {
                text.push_str(&format!(
                    " Processes {:?} did not die after SIGKILL.",
                    ended.survivors
                ));
            }
            let id = sprint.parse().ok();
            match self.publish(EventKind::Notice {
                unit: Some(unit.clone()),
                sprint: id,
                text: text.clone(),
            }) {
                Ok(_) | Err(EngineError::Refused(_)) => {}
                Err(e) => return Err(e),
            }
            said.push(format!("{unit}: {text}"));
        }
        Ok(said)
    }
}
