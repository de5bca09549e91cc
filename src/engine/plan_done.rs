//! Work the plan marks as already done (`[x]` tasks, `✅ COMPLETE`,
//! `(Completed)`, `Status: Done`): a started unit's current sprint that waits
//! fresh in PENDING is recorded COMPLETED by an `observed` transition with the
//! evidence "marked complete in the plan", and never dispatched. When the
//! sprint has runnable exit criteria they are checked first; if one fails the
//! mark is not trusted and the sprint is dispatched as usual. That failure is
//! remembered under the runtime directory (`untrusted-marks/`), so a sprint
//! that cannot be dispatched at once does not run its criteria on every tick.

use crate::base::runtime;

use super::Engine;
use super::EngineError;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::machine::UnitStatus;
use crate::store::Tip;

impl Engine {
    /// The first started unit whose current sprint the plan marks done.
    pub(super) fn next_plan_done(&self, tip: &Tip) -> Result<Option<EventKind>, EngineError> {
        let state = &tip.state;
        let fresh = |u: &crate::machine::UnitState| {
            u.state == UnitStatus::Running
                && u.current()
                    .is_some_and(|s| s.state == SprintStatus::Pending && s.total_attempts == 0)
        };
        if !state.units.iter().any(fresh) {
            return Ok(None);
        }
        let (plan, _) = self.snapshot(tip)?;
        let root = self.project_root(state);
        for u in state.units.iter().filter(|u| fresh(u)) {
            let Some(sp) = u.current() else { continue };
            let Some(sprint) = plan
                .unit(&u.name)
                .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
            else {
                continue;
            };
            let Some(mark) = &sprint.done else { continue };
            let commands: Vec<&str> = sprint
                .exit
                .iter()
                .filter_map(|c| c.command.as_deref())
                .collect();
            let untrusted = self.untrusted_mark(&state.run_id, &u.name, &sp.id, &commands);
            if untrusted.exists() {
                continue;
            }
            let mut checked = Vec::new();
            let mut failed = false;
            for c in sprint.exit.iter().filter(|c| c.command.is_some()) {
                let cmd = c.command.as_deref().unwrap_or_default();
                match super::criteria::run_criterion(
                    &root,
                    cmd,
                    c.expected.as_deref(),
                    &self.unit_env_at(tip, &u.name),
                ) {
                    Ok(()) => checked.push(format!("`{cmd}` passes")),
                    Err(_) => failed = true,
                }
            }
            if failed {
                // Remembered: until its dispatch the sprint is looked at by
                // every pass of every tick, and criteria may be slow. When
                // the marker cannot be written the check simply runs again.
                if let Some(dir) = untrusted.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                let _ = std::fs::write(&untrusted, format!("{}/{}\n", u.name, sp.id));
                continue;
            }
            let evidence = if checked.is_empty() {
                format!("{mark}.")
            } else {
                format!("{mark}; {}.", checked.join(", "))
            };
            return Ok(Some(EventKind::Observed {
                unit: u.name.clone(),
                sprint: sp.id.clone(),
                evidence,
                commits: Vec::new(),
                head: state
                    .reconciled
                    .clone()
                    .or_else(|| self.store.head_id())
                    .unwrap_or_default(),
            }));
        }
        Ok(None)
    }

    /// The file that says a sprint's done mark failed its check in this run
    /// (for these criteria: a replan that changes them checks again).
    fn untrusted_mark(
        &self,
        run_id: &str,
        unit: &str,
        sprint: &crate::plan::SprintId,
        commands: &[&str],
    ) -> std::path::PathBuf {
        let key = format!("{run_id}\0{unit}\0{sprint}\0{}", commands.join("\0"));
        self.runtime(runtime::UNTRUSTED_MARKS)
            .join(crate::base::runtime_name::component(&key))
    }
}
