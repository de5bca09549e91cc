//! The run's worktrees after a verdict: the merge queue's step into the
//! integration branch (a conflict kept for the retry's prompt), worktrees
//! removed once integrated, and `[run] land` when the run completes.

use std::path::PathBuf;

use crate::base::runtime;
use crate::config::Config;
use crate::machine;
use crate::machine::State;
use crate::plan::SprintId;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::workspace::Merge;

use super::io;
use super::short;
use super::Engine;
use super::EngineError;

impl Engine {
    /// The plan's naming commit lands on the user's branch just after
    /// `start`: an integration branch still at the run's base moves to it,
    /// so that landing the run stays a fast-forward.
    pub fn integration_follows_head(
        &self,
        state: &State,
        config: &Config,
    ) -> Result<(), EngineError> {
        let (Some(ws), Some(base), Some(head)) = (
            self.workspaces(state, config),
            state.reconciled.as_deref(),
            self.store.head_id(),
        ) else {
            return Ok(());
        };
        if let Some(remote) = self.store.remote() {
            let name = format!("refs/heads/{}", ws.integration_branch());
            if remote.tracked(&name).as_deref() == Some(base) {
                remote.push(&[RefPush {
                    name,
                    new: Some(head.clone()),
                    expected: Some(base.to_string()),
                }])?;
            }
        }
        ws.advance(base, &head)?;
        Ok(())
    }

    /// A COMPLETED unit's work is all on the integration branch: its
    /// worktree goes (its branch stays, as history). One with uncommitted
    /// files is kept for the user to look at (`clean --force` removes it).
    /// A fix committed in it since the tick looked at history stays on the
    /// branch, where the next look finds it (`unheld_branch_tips`).
    pub(super) fn remove_integrated_worktrees(&self, tip: &Tip) -> Result<(), EngineError> {
        if !tip.state.worktrees {
            return Ok(());
        }
        let (_, config) = self.snapshot(tip)?;
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(());
        };
        for u in tip
            .state
            .units
            .iter()
            .filter(|u| u.state == crate::machine::UnitStatus::Completed)
        {
            if ws.unit_path(&u.name).join(".git").exists() && ws.uncommitted(&u.name).is_empty() {
                // A worktree git refuses to remove is left for `clean`.
                let _ = ws.remove(&u.name, false);
            }
        }
        Ok(())
    }

    /// `[run] land = "ff" | "merge"`: once a worktree run is COMPLETED, its
    /// integration branch lands on the branch `start` ran on — once; a
    /// refusal (dirty tree, branch moved, conflict) is noted for `status`
    /// and left to `git supervisor land`.
    pub(super) fn land_when_configured(&self, tip: &Tip) -> Result<(), EngineError> {
        if !tip.state.worktrees || tip.state.overall() != crate::machine::Overall::Completed {
            return Ok(());
        }
        let (_, config) = self.snapshot(tip)?;
        let merge = match config.run.land {
            crate::config::Land::Off => return Ok(()),
            crate::config::Land::Ff => false,
            crate::config::Land::Merge => true,
        };
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(());
        };
        let runtime = self.store.runtime_dir();
        let note = ws.land_note_file(&runtime);
        if note.exists() {
            return Ok(());
        }
        let text = match ws.start_branch(&runtime) {
            None => format!(
                "Not landed: the run started on a detached HEAD; `{}` on the branch to land on.",
                ws.land_by_hand()
            ),
            Some(branch) => match ws.land(&branch, merge)? {
                Ok(l) => format!(
                    "Landed {} on {}: {}..{}.",
                    l.integration,
                    l.branch,
                    short(&l.from),
                    short(&l.to)
                ),
                Err(why) => format!(
                    "Not landed ({}): run `git supervisor land` once that is fixed.",
                    why.describe()
                ),
            },
        };
        if let Some(dir) = note.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(&note, format!("{text}\n")).map_err(io("cannot note the landing"))?;
        Ok(())
    }

    /// The file that says the unit's worktree passed `[workspace] setup`.
    pub(super) fn setup_marker(&self, state: &State, unit: &str) -> PathBuf {
        self.runtime(runtime::WORKSPACES)
            .join(&state.run_id)
            .join(format!(
                "{}.setup-done",
                crate::base::runtime_name::component(unit)
            ))
    }

    /// The file a merge conflict's description waits in for the unit's
    /// retry prompt.
    pub(super) fn conflict_note(&self, state: &State, unit: &str) -> PathBuf {
        self.runtime(runtime::WORKSPACES)
            .join(&state.run_id)
            .join(format!(
                "{}.conflict.md",
                crate::base::runtime_name::component(unit)
            ))
    }

    /// Keep `text` (a merge conflict's description, empty for none) for
    /// the unit's retry prompt, or forget the last one.
    pub(super) fn record_conflict(
        &self,
        state: &State,
        unit: &str,
        text: Option<&str>,
    ) -> Result<(), EngineError> {
        let note = self.conflict_note(state, unit);
        match text.filter(|t| !t.is_empty()) {
            Some(text) => {
                if let Some(dir) = note.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                std::fs::write(&note, text).map_err(io("cannot record the merge conflict"))
            }
            None => {
                let _ = std::fs::remove_file(&note);
                Ok(())
            }
        }
    }

    /// A sprint that passed verification enters the integration branch
    /// through the merge queue: one merge at a time (this tick holds the
    /// engine lock; the build lock keeps a phase build from seeing the
    /// branch move). A conflict turns the verdict into a failure. `None`:
    /// the build lock stayed busy, so the verdict waits for a later tick.
    pub(super) fn through_queue(
        &self,
        tip: &Tip,
        unit: &str,
        sprint: &SprintId,
        outcome: machine::Outcome,
        evidence: String,
    ) -> Result<Option<(machine::Outcome, String)>, EngineError> {
        let (_, config) = self.snapshot(tip)?;
        let Some(ws) = self.workspaces(&tip.state, &config) else {
            return Ok(Some((outcome, evidence)));
        };
        if outcome != machine::Outcome::Completed {
            return Ok(Some((outcome, evidence)));
        }
        let integration = ws.integration_branch();
        let merged = crate::base::lock::with_lock(
            &self.runtime(runtime::BUILD_LOCK),
            config.build.timeout,
            || ws.integrate(unit, &sprint.to_string()),
        )
        .map_err(io("cannot take the build lock"))?;
        let Some(merged) = merged else {
            return Ok(None);
        };
        let merged = merged?;
        self.record_conflict(&tip.state, unit, Some(&merged.retry_note(&integration)))?;
        Ok(Some(match merged {
            Merge::Already { tip } => {
                (
                    outcome,
                    format!("{evidence} Already on `{integration}` ({}).", short(&tip)),
                )
            }
            Merge::Merged { commit } => {
                (
                    outcome,
                    format!(
                        "{evidence} Merged into `{integration}` as {}.",
                        short(&commit)
                    ),
                )
            }
            Merge::Conflict { files, .. } => {
                (
                    machine::Outcome::Failure,
                    format!(
                        "The sprint's work passed verification but conflicts with `{integration}` in {}; the unit's branch now has the integration branch merged in, conflicts to resolve.",
                        files.join(", ")
                    ),
                )
            }
        }))
    }
}
