//! Work already on a unit's branch on the remote counts, in a run that
//! lives on one: before the tick dispatches a waiting sprint, a commit on
//! the remote's unit branch (not yet on the integration branch) that marks
//! the sprint complete (`Supervisor-Sprint: <unit>/<sprint>` with
//! `Supervisor-Status: complete`), and whose exit criteria pass in a
//! worktree of that branch, completes it without another agent — the
//! `Observed` event a local tick records from the branch's history, pushed
//! with the merge into the integration branch. A branch judged without a
//! finding is not judged again until it moves.

use super::verify;
use super::Engine;
use super::EngineError;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::machine::UnitStatus;
use crate::plan::TaskType;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::workspace::Merge;
use crate::workspace::Workspaces;

/// `<unit> <sprint> <branch tip>` of branches judged without a finding.
const JUDGED: &str = "branch-history";

impl Engine {
    /// The first waiting sprint whose completion is on the remote's unit
    /// branch, as the event that records it and the merge to push with it.
    pub(super) fn completed_on_unit_branch(
        &self,
        tip: &Tip,
    ) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError> {
        let Some(remote) = self.store.remote() else {
            return Ok(None);
        };
        let state = &tip.state;
        let (plan, config) = self.snapshot(tip)?;
        let ws = Workspaces::new(
            &self.workdir,
            config.workspace.dir.as_deref(),
            &state.run_id,
        )
        .with_teardown(state, &config);
        let integration_ref = format!("refs/heads/{}", ws.integration_branch());
        let Some(integration) = remote.tracked(&integration_ref) else {
            return Ok(None);
        };
        let judged_file = self.runtime(JUDGED);
        let judged = std::fs::read_to_string(&judged_file).unwrap_or_default();
        let remember = |key: &str| {
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&judged_file)
            {
                let _ = writeln!(f, "{key}");
            }
        };
        for u in &state.units {
            if !matches!(u.state, UnitStatus::Running | UnitStatus::Blocked) {
                continue;
            }
            let Some(sp) = u.current() else { continue };
            let waiting = matches!(
                sp.state,
                SprintStatus::Pending
                    | SprintStatus::Backoff
                    | SprintStatus::Fatal
                    | SprintStatus::Partial
            );
            if !waiting {
                continue;
            }
            let branch = ws.unit_branch(&u.name);
            let Some(unit_tip) = remote.tracked(&format!("refs/heads/{branch}")) else {
                continue;
            };
            let key = format!("{} {} {unit_tip}", u.name, sp.id);
            if judged.lines().any(|l| l == key) {
                continue;
            }
            let id = sp.id.to_string();
            let marked: Vec<String> = self
                .store
                .completion_claims(&integration, &unit_tip)
                .unwrap_or_default()
                .into_iter()
                .filter(|(cu, cs, _)| *cu == u.name && *cs == id)
                .map(|(_, _, c)| c)
                .collect();
            let Some(sprint) = plan
                .unit(&u.name)
                .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
            else {
                continue;
            };
            if marked.is_empty() {
                remember(&key);
                continue;
            }
            let worktree = ws.fresh_unit(&u.name, &unit_tip)?;
            let root = if state.root == "." {
                worktree.clone()
            } else {
                worktree.join(&state.root)
            };
            let verdict = verify::verify(&verify::VerifyInput {
                env: &self.unit_env(state, &config, &u.name),
                others: verify::others(state, &u.name),
                root: &root,
                unit: &u.name,
                unit_dir: &u.dir,
                sprint,
                base_commit: Some(&integration),
                exit_code: None,
                killed: None,
                result_file: None,
                log_file: None,
                agent: None,
            });
            let _ = ws.remove(&u.name, true);
            let runnable = sprint.exit.iter().any(|c| c.command.is_some());
            let source = format!(
                "commit {} on the remote's `{branch}`",
                super::short(&marked[0])
            );
            let evidence = if verdict.outcome == machine::Outcome::Completed {
                format!("{source} marks it complete; {}", verdict.evidence)
            } else if !runnable && sprint.task_type != TaskType::Manual {
                format!("{source} marks it complete (no runnable exit criteria).")
            } else {
                remember(&key);
                continue;
            };
            let name = ws.integration_branch();
            let (evidence, also) = match ws.merge_commit(&integration, &unit_tip, &u.name, &id)? {
                Merge::Already { .. } => (format!("{evidence} Already on `{name}`."), vec![]),
                Merge::Merged { commit } => (
                    format!(
                        "{evidence} Merged into `{name}` as {}.",
                        super::short(&commit)
                    ),
                    vec![RefPush {
                        name: integration_ref.clone(),
                        new: Some(commit),
                        expected: Some(integration.clone()),
                    }],
                ),
                // Left to an agent, whose retry starts with the conflict.
                Merge::Conflict { .. } => {
                    remember(&key);
                    continue;
                }
            };
            let mut commits = verdict.commits;
            for c in marked {
                if !commits.contains(&c) {
                    commits.push(c);
                }
            }
            return Ok(Some((
                EventKind::Observed {
                    unit: u.name.clone(),
                    sprint: sp.id.clone(),
                    evidence,
                    commits,
                    // A run on a remote reconciles no local branch: the mark
                    // stays where it was.
                    head: state.reconciled.clone().unwrap_or(unit_tip),
                },
                also,
            )));
        }
        Ok(None)
    }

    /// Whether `unit`'s current sprint in `state` is marked complete on its
    /// unit branch (`pushed` gives the tips a chain being decided moves the
    /// branches to), beyond the remote's integration branch: such a sprint
    /// is left to the tick, which judges the mark, rather than dispatched
    /// inside a worker's chain. In doubt, `true`.
    pub(super) fn marked_on_unit_branch(
        &self,
        state: &crate::machine::State,
        config: &crate::config::Config,
        unit: &str,
        pushed: &[(String, String)],
    ) -> bool {
        let Some(remote) = self.store.remote() else {
            return false;
        };
        let Some(id) = state
            .unit(unit)
            .and_then(|u| u.current())
            .map(|sp| sp.id.to_string())
        else {
            return false;
        };
        let ws = Workspaces::new(
            &self.workdir,
            config.workspace.dir.as_deref(),
            &state.run_id,
        );
        let unit_tip = pushed
            .iter()
            .find(|(u, _)| u == unit)
            .map(|(_, tip)| tip.clone())
            .or_else(|| remote.tracked(&format!("refs/heads/{}", ws.unit_branch(unit))));
        let Some(unit_tip) = unit_tip else {
            return false;
        };
        let Some(integration) = remote.tracked(&format!("refs/heads/{}", ws.integration_branch()))
        else {
            return true;
        };
        self.store
            .completion_claims(&integration, &unit_tip)
            .is_none_or(|claims| claims.iter().any(|(cu, cs, _)| cu == unit && *cs == id))
    }
}
