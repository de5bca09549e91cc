//! Work observed in history goes through the merge queue (with worktrees).
//!
//! A sprint a person finishes by hand — a commit with the sprint's trailers
//! on any branch checked out in any worktree of the repository — is
//! credited only once that work is on the integration branch, where the
//! phase builds and the dependents' worktrees take it from: each marked
//! commit (a committed progress file: its worktree's HEAD) is merged by the
//! same step an agent's verified sprint takes. A merge that conflicts credits nothing: the sprint stays
//! as it was and one notice names the conflicting files and the unit's
//! worktree and branch to commit in instead. A marked commit for a sprint
//! already credited is merged as a late fix, also when it sits on a unit's
//! branch whose worktree has gone since it was made.

use std::path::Path;
use std::path::PathBuf;

use crate::base::runtime;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::plan::SprintId;
use crate::store::Tip;
use crate::workspace::Merge;
use crate::workspace::Workspaces;

use super::io;
use super::short;
use super::Engine;
use super::EngineError;

/// A claim found in history: its unit and sprint, where it was found (a
/// commit id, or a progress file's name) and the tree it was found in.
#[derive(Debug, Clone)]
pub(super) struct Claim {
    pub unit: String,
    pub sprint: String,
    pub source: String,
    /// The project root in the worktree whose checked-out history holds it.
    pub root: PathBuf,
    /// That worktree's HEAD, which holds the claim.
    pub tip: String,
}

impl Claim {
    pub(super) fn is_progress_file(&self) -> bool {
        self.source.ends_with("(progress file)")
    }
}

/// What became of hand commits for sprints already credited.
pub(super) enum Late {
    Nothing,
    /// The build lock stayed busy: a later tick tries again.
    Busy,
    /// Merged or refused: the notice to record.
    Said(Box<EventKind>),
}

/// What the merge queue made of a sprint's observed work.
pub(super) enum Queued {
    /// On the integration branch: credit it, with this said about the merge.
    Integrated(String),
    /// Not credited: this notice says why and where to commit instead.
    Refused(String),
    /// Refused before for the same commits: nothing to say again.
    RefusedBefore,
    /// The build lock stayed busy: a later tick tries again.
    Busy,
}

impl Engine {
    /// Every worktree of the repository with its HEAD, as (project root,
    /// HEAD): the run's working tree first. Worktrees in the middle of a
    /// merge are left out until it is concluded. Read from the files git
    /// keeps for them, without a process: every tick looks.
    pub(super) fn observation_tips(&self, state: &State) -> Vec<(PathBuf, String)> {
        let in_root = |path: &Path| {
            if state.root == "." {
                path.to_path_buf()
            } else {
                path.join(&state.root)
            }
        };
        let mut tips = Vec::new();
        let runtime = self.store.runtime_dir();
        let Some(common) = runtime.parent() else {
            return tips;
        };
        let main = std::fs::canonicalize(&self.workdir).unwrap_or_else(|_| self.workdir.clone());
        if let Some(head) = self.store.head_id() {
            if !merging(&self.workdir) {
                tips.push((in_root(&self.workdir), head));
            }
        }
        let Ok(linked) = std::fs::read_dir(common.join("worktrees")) else {
            return tips;
        };
        let mut linked: Vec<PathBuf> = linked.flatten().map(|e| e.path()).collect();
        linked.sort();
        for admin in linked {
            if admin.join("MERGE_HEAD").exists() {
                continue;
            }
            let Some(path) = std::fs::read_to_string(admin.join("gitdir"))
                .ok()
                .and_then(|g| Path::new(g.trim()).parent().map(Path::to_path_buf))
            else {
                continue;
            };
            if !path.join(".git").exists()
                || std::fs::canonicalize(&path).ok() == Some(main.clone())
            {
                continue;
            }
            let Ok(head) = std::fs::read_to_string(admin.join("HEAD")) else {
                continue;
            };
            let head = match head.trim().strip_prefix("ref: ") {
                Some(name) => match self.store.ref_id(name) {
                    Ok(Some(id)) => id.to_string(),
                    _ => continue,
                },
                None => head.trim().to_string(),
            };
            tips.push((in_root(&path), head));
        }
        tips
    }

    /// The units' branches that no worktree has checked out, as (project
    /// root, branch tip). A complete unit's worktree goes, and a fix the
    /// person commits in it after a tick looked at history but before the
    /// worktree went is on that branch alone: no worktree's HEAD shows it
    /// any more. With no tree to verify in, what is found there only joins
    /// as a late fix (the root is where `git` runs to read the history).
    pub(super) fn unheld_branch_tips(
        &self,
        state: &State,
        ws: &Workspaces,
    ) -> Vec<(PathBuf, String)> {
        let root = self.project_root(state);
        state
            .units
            .iter()
            // Only a complete unit's worktree is removed while its branch
            // stays: the others have none to look at, or a worktree.
            .filter(|u| u.state == crate::machine::UnitStatus::Completed)
            .filter(|u| !ws.unit_path(&u.name).join(".git").exists())
            .filter_map(|u| {
                let name = format!("refs/heads/{}", ws.unit_branch(&u.name));
                let id = self.store.ref_id(&name).ok().flatten()?;
                Some((root.clone(), id.to_string()))
            })
            .collect()
    }

    /// The sprint's observed work into the integration branch (see the
    /// module header): `claims` are the sprint's, the first one verified.
    pub(super) fn observed_through_queue(
        &self,
        tip: &Tip,
        ws: &Workspaces,
        unit: &str,
        sprint: &SprintId,
        claims: &[&Claim],
        late: bool,
    ) -> Result<Queued, EngineError> {
        let state = &tip.state;
        let (_, config) = self.snapshot(tip)?;
        let marker = format!("{unit}/{sprint}");
        let mut tips: Vec<String> = Vec::new();
        for c in claims {
            // A progress file counts once it is committed; its worktree's
            // HEAD then holds it.
            if c.is_progress_file() && !committed(&c.root, &c.source) {
                let key = format!("{marker} uncommitted {}", c.tip);
                if self.refused_before(state, &key) {
                    return Ok(Queued::RefusedBefore);
                }
                self.remember_refusal(state, &key)?;
                return Ok(Queued::Refused(format!(
                    "Not credited: {} says {marker} is complete, but it is not committed, so it cannot reach `{}`. {}",
                    c.source,
                    ws.integration_branch(),
                    where_to_commit(ws, unit, &marker)
                )));
            }
            // The marked commit with the history before it: what came
            // after it on that branch is not this sprint's to bring along.
            let commit = if c.is_progress_file() {
                &c.tip
            } else {
                &c.source
            };
            if !tips.contains(commit) {
                tips.push(commit.clone());
            }
        }
        tips.sort();
        let key = format!("{marker} {}", tips.join(" "));
        if self.refused_before(state, &key) {
            return Ok(Queued::RefusedBefore);
        }
        let integration = ws.integration_branch();
        let merged = crate::base::lock::with_lock(
            &self.runtime(runtime::BUILD_LOCK),
            config.build.timeout,
            || ws.integrate_commits(&tips, unit, &sprint.to_string()),
        )
        .map_err(io("cannot take the build lock"))?;
        let Some(merged) = merged else {
            return Ok(Queued::Busy);
        };
        let merged = merged?;
        let commits: Vec<&str> = tips.iter().map(|t| short(t)).collect();
        let said = match merged {
            Merge::Already { tip } => {
                format!("Its work is already on `{integration}` ({}).", short(&tip))
            }
            Merge::Merged { commit } => format!(
                "Merged {} into `{integration}` as {}.",
                commits.join(", "),
                short(&commit)
            ),
            Merge::Conflict { files, .. } => {
                self.remember_refusal(state, &key)?;
                let (not, when) = if late {
                    ("Not merged", " after it was credited")
                } else {
                    ("Not credited", "")
                };
                return Ok(Queued::Refused(format!(
                    "{not}: {} marks {marker} complete{when}, but it conflicts with `{integration}` in {}. {}",
                    commits.join(", "),
                    files.join(", "),
                    where_to_commit(ws, unit, &marker)
                )));
            }
        };
        // The unit's next sprint starts from the work it was credited for
        // (a late fix waits for the unit's next merge: an agent may be at
        // work in its worktree).
        let has_more = !late
            && state
                .unit(unit)
                .is_some_and(|u| u.sprints.last().is_some_and(|s| &s.id != sprint));
        if has_more {
            for t in &tips {
                ws.catch_up_unit(unit, t);
            }
        }
        Ok(Queued::Integrated(said))
    }

    /// A hand commit marking a sprint that is already COMPLETED (a tick
    /// credited the first of two commits before the second was made, or the
    /// person fixed more after the credit) and not on the integration
    /// branch: it goes through the merge queue too, so no marked work is
    /// left out, and one notice in the log says what was merged.
    pub(super) fn late_observation(
        &self,
        tip: &Tip,
        ws: &Workspaces,
        claims: &[Claim],
    ) -> Result<Late, EngineError> {
        let state = &tip.state;
        for u in &state.units {
            for sp in u
                .sprints
                .iter()
                .filter(|s| s.state == SprintStatus::Completed)
            {
                let id = sp.id.to_string();
                let late: Vec<&Claim> = claims
                    .iter()
                    .filter(|c| c.unit == u.name && c.sprint == id && !c.is_progress_file())
                    .filter(|c| !ws.integrated(&c.source))
                    .collect();
                if late.is_empty() {
                    continue;
                }
                let text = match self
                    .observed_through_queue(tip, ws, &u.name, &sp.id, &late, true)?
                {
                    Queued::Integrated(said) => {
                        let commits: Vec<&str> = late.iter().map(|c| short(&c.source)).collect();
                        let (what, marks) = if commits.len() == 1 {
                            ("Commit", "marks")
                        } else {
                            ("Commits", "mark")
                        };
                        format!(
                            "{what} {} {marks} {}/{id} complete after it was credited; its work joins the run. {said}",
                            commits.join(", "),
                            u.name
                        )
                    }
                    Queued::Refused(text) => text,
                    Queued::RefusedBefore => continue,
                    Queued::Busy => return Ok(Late::Busy),
                };
                return Ok(Late::Said(Box::new(EventKind::Notice {
                    unit: Some(u.name.clone()),
                    sprint: Some(sp.id.clone()),
                    text,
                })));
            }
        }
        Ok(Late::Nothing)
    }

    fn refusals_file(&self, state: &State) -> PathBuf {
        self.runtime(runtime::WORKSPACES)
            .join(&state.run_id)
            .join("refused-observations")
    }

    fn refused_before(&self, state: &State, key: &str) -> bool {
        std::fs::read_to_string(self.refusals_file(state))
            .is_ok_and(|t| t.lines().any(|l| l == key))
    }

    fn remember_refusal(&self, state: &State, key: &str) -> Result<(), EngineError> {
        use std::io::Write;
        let file = self.refusals_file(state);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io("cannot record a refused observation"))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .map_err(io("cannot record a refused observation"))?;
        writeln!(f, "{key}").map_err(io("cannot record a refused observation"))
    }
}

/// Where a person commits a unit's work so that it merges: its worktree
/// and branch, which hold the integration branch as the unit saw it.
fn where_to_commit(ws: &Workspaces, unit: &str, marker: &str) -> String {
    let path = ws.unit_path(unit);
    let place = if path.join(".git").exists() {
        format!(
            "in {unit}'s worktree, {} (branch `{}`)",
            path.display(),
            ws.unit_branch(unit)
        )
    } else {
        format!("on {unit}'s branch `{}`", ws.unit_branch(unit))
    };
    format!(
        "Commit the fix {place}, with the trailers `Supervisor-Sprint: {marker}` and `Supervisor-Status: complete`, then resume."
    )
}

/// A merge is in progress in the main working tree at `workdir`.
fn merging(workdir: &Path) -> bool {
    workdir.join(".git").join("MERGE_HEAD").exists()
}

/// The progress file a claim names (`<file> (progress file)`) has no
/// uncommitted changes in `root`.
fn committed(root: &Path, source: &str) -> bool {
    let file = source.trim_end_matches(" (progress file)");
    super::verify::git(root, &["status", "--porcelain", "--", file]).is_some_and(|s| s.is_empty())
}

/// Trailer-marked completions of `head` that none of `hidden` holds, by
/// `git log` (when the in-process walk cannot be done), oldest first.
pub(super) fn claims_by_git(
    root: &Path,
    hidden: &[&str],
    head: &str,
) -> Vec<(String, String, String)> {
    let Some((first, others)) = hidden.split_first() else {
        return Vec::new();
    };
    let mut claims = super::verify::completion_claims(root, first, head);
    if !others.is_empty() {
        let mut args = vec!["rev-list".to_string(), head.to_string()];
        args.extend(others.iter().map(|h| format!("^{h}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let new = super::verify::git(root, &args).unwrap_or_default();
        claims.retain(|(_, _, commit)| new.lines().any(|l| l == commit));
    }
    claims
}
