//! Which published transitions a person hears about, and handing them to
//! `[notify] command` without waiting for it (see `dispatch::notify`): a
//! unit BLOCKED, a manual sprint waiting for `confirm`, a usage-limit pause
//! and its end, a failed phase build, the run's end (completed, stopped,
//! killed). Failing to notify never fails the transition: it is logged.

use crate::dispatch::notify::Notification;
use crate::machine::Change;
use crate::machine::Overall;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::machine::Step;
use crate::machine::UnitStatus;

use super::Engine;

/// The notifications `steps` raise, published on a state that was `before`.
pub fn events_of(before: &State, steps: &[Step], repository: &str) -> Vec<Notification> {
    let mut out = Vec::new();
    let mut overall = before.overall();
    let mut previous = "";
    for step in steps {
        let t = &step.transition;
        let s = &step.state;
        let note = |event: &str, message: String| Notification {
            event: event.to_string(),
            unit: t.unit.clone(),
            sprint: t.sprint.as_ref().map(|s| s.to_string()),
            message,
            run: s.run_id.clone(),
            operation: s.operation.clone(),
            repository: repository.to_string(),
            at: t.at.clone(),
            seq: s.seq,
        };
        match t.change {
            Change::Unit {
                to: UnitStatus::Blocked,
                ..
            } => {
                let unit = t.unit.as_deref().unwrap_or_default();
                let message = crate::report::status::fatal_message(s, unit)
                    .map(|m| m.lines().take(2).collect::<Vec<_>>().join(" "))
                    .unwrap_or_else(|| format!("{unit} is BLOCKED: {}", t.why));
                let mut n = note("blocked", message);
                n.sprint = s.unit(unit).and_then(|u| {
                    u.sprints
                        .iter()
                        .find(|x| x.state == SprintStatus::Fatal)
                        .map(|x| x.id.to_string())
                });
                out.push(n);
            }
            Change::Sprint {
                to: SprintStatus::Partial,
                ..
            } => {
                let manual = t
                    .unit
                    .as_deref()
                    .and_then(|u| s.unit(u))
                    .and_then(|u| {
                        let id = t.sprint.as_ref()?;
                        u.sprints.iter().find(|x| &x.id == id)
                    })
                    .is_some_and(|sp| sp.task_type == crate::plan::TaskType::Manual);
                if manual {
                    let (u, sp) = (
                        t.unit.clone().unwrap_or_default(),
                        t.sprint.as_ref().map(|s| s.to_string()).unwrap_or_default(),
                    );
                    out.push(note(
                        "confirm",
                        format!(
                            "{u} sprint {sp} waits for you: `git supervisor confirm {u} {sp}`. {}",
                            t.why
                        ),
                    ));
                }
            }
            Change::Sprint {
                to: SprintStatus::Backoff,
                ..
            } if t.event == "usage-limit" => out.push(note("usage_limit", t.why.clone())),
            Change::Run if t.event == "limit-ended" => out.push(note("limit_ended", t.why.clone())),
            _ => {}
        }
        // Once per failed build: its first step.
        if t.event == "build-failed" && previous != "build-failed" {
            out.push(note("build_failed", t.why.clone()));
        }
        previous = t.event;
        let now = s.overall();
        if now != overall {
            let ended = match now {
                Overall::Completed => Some((
                    "run_completed",
                    "The run completed: every work unit is COMPLETED.",
                )),
                Overall::Stopped => Some((
                    "run_stopped",
                    "The run stopped; `git supervisor resume` continues it.",
                )),
                Overall::Killed => Some((
                    "run_killed",
                    "The run was killed; `git supervisor resume` continues it.",
                )),
                _ => None,
            };
            if let Some((event, message)) = ended {
                let mut n = note(event, format!("{message} ({})", t.why));
                n.unit = None;
                n.sprint = None;
                out.push(n);
            }
            overall = now;
        }
    }
    out
}

impl Engine {
    /// Queue the notifications of published `steps` and start their
    /// delivery, detached. Never fails: what goes wrong is logged.
    pub(super) fn notify(&self, before: &State, steps: &[Step]) {
        if steps.is_empty() {
            return;
        }
        let Ok(Some(tip)) = self.store.tip() else {
            return;
        };
        let Ok((_, config)) = self.snapshot(&tip) else {
            return;
        };
        let Some(command) = config.notify.command.clone().filter(|c| !c.is_empty()) else {
            return;
        };
        let events: Vec<Notification> =
            events_of(before, steps, &self.workdir.display().to_string())
                .into_iter()
                .filter(|n| config.notify.wants(&n.event))
                .collect();
        if events.is_empty() {
            return;
        }
        let dir = self.store.runtime_dir().join("notify");
        let timeout_ms = config.notify.timeout.as_millis().min(u64::MAX as u128) as u64;
        for (i, notification) in events.into_iter().enumerate() {
            let q = crate::dispatch::notify::Queued {
                command: command.clone(),
                timeout_ms,
                notification,
            };
            if let Err(e) = crate::dispatch::notify::enqueue(&dir, i, &q) {
                eprintln!("git-supervisor: cannot queue a notification: {e}");
                return;
            }
        }
        if let Err(e) = crate::dispatch::notify::spawn_drain(&self.exe, &dir) {
            eprintln!("git-supervisor: cannot start the notify command: {e}");
        }
    }
}
