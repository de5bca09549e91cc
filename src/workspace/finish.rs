//! After a run: `land` (the integrated work onto the branch `start` ran
//! on, as a fast-forward, or a merge when asked) and `clean` (the units' worktrees removed,
//! never one with uncommitted work unless forced).

use crate::base::runtime;

use super::git;
use super::git_ok;
use super::WorkspaceError;
use super::Workspaces;

/// Why `land` will not move the starting branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LandRefused {
    /// The main working tree has uncommitted changes to tracked files.
    Dirty(Vec<String>),
    /// HEAD is not on the branch the run started from.
    NotOnBranch { branch: String, head: String },
    /// The starting branch has commits the integration branch lacks.
    NotFastForward,
    /// Merging the integration branch into the starting branch conflicts
    /// (the merge was aborted).
    Conflict,
}

impl LandRefused {
    /// One line for `status`.
    pub fn describe(&self) -> String {
        match self {
            LandRefused::Dirty(files) => {
                format!(
                    "the working tree has uncommitted changes: {}",
                    files.join(", ")
                )
            }
            LandRefused::NotOnBranch { branch, head } => {
                format!("the run started on {branch}, but HEAD is {head}")
            }
            LandRefused::NotFastForward => {
                "the starting branch has moved on: not a fast-forward".into()
            }
            LandRefused::Conflict => "merging the integration branch conflicts".into(),
        }
    }
}

/// What `land` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Landed {
    pub branch: String,
    pub integration: String,
    pub from: String,
    pub to: String,
}

impl Workspaces {
    fn start_branch_file(&self, runtime: &std::path::Path) -> std::path::PathBuf {
        runtime
            .join(runtime::WORKSPACES)
            .join(&self.run)
            .join("start-branch")
    }

    /// Note the branch `start` ran on (`runtime`: the supervisor's runtime
    /// directory), for `land`.
    pub fn record_start_branch(&self, runtime: &std::path::Path) -> Result<(), WorkspaceError> {
        let head = git(&self.repo, &["symbolic-ref", "-q", "HEAD"])?;
        if head.code != 0 {
            return Ok(());
        }
        let file = self.start_branch_file(runtime);
        let written = file
            .parent()
            .map(std::fs::create_dir_all)
            .unwrap_or(Ok(()))
            .and_then(|()| std::fs::write(&file, head.stdout.trim()));
        written.map_err(|e| WorkspaceError {
            what: format!("cannot record the starting branch in {}", file.display()),
            detail: e.to_string(),
        })
    }

    /// The branch `start` ran on (a full ref name), else HEAD's branch.
    pub fn start_branch(&self, runtime: &std::path::Path) -> Option<String> {
        std::fs::read_to_string(self.start_branch_file(runtime))
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .or_else(|| {
                git(&self.repo, &["symbolic-ref", "-q", "HEAD"])
                    .ok()
                    .filter(|r| r.code == 0)
                    .map(|r| r.stdout.trim().to_string())
            })
    }

    /// Where the engine notes what `[run] land` did (landed, or why not).
    pub fn land_note_file(&self, runtime: &std::path::Path) -> std::path::PathBuf {
        runtime
            .join(runtime::WORKSPACES)
            .join(&self.run)
            .join("landed")
    }

    /// What `[run] land` did, when it ran.
    pub fn land_note(&self, runtime: &std::path::Path) -> Option<String> {
        std::fs::read_to_string(self.land_note_file(runtime))
            .ok()
            .map(|t| t.trim_end().to_string())
    }

    /// The command that lands the run by hand.
    pub fn land_by_hand(&self) -> String {
        format!("git merge --ff-only {}", self.integration_branch())
    }

    /// Fast-forward `branch` (a full ref, checked out in the main working
    /// tree) to the integration branch; with `merge`, a merge commit when
    /// the branch has moved on (a conflict is aborted and refused).
    pub fn land(
        &self,
        branch: &str,
        merge: bool,
    ) -> Result<Result<Landed, LandRefused>, WorkspaceError> {
        let what = "cannot land the run";
        let head = git(&self.repo, &["symbolic-ref", "-q", "HEAD"])?;
        let head = head.stdout.trim().to_string();
        if head != branch {
            return Ok(Err(LandRefused::NotOnBranch {
                branch: branch.to_string(),
                head: if head.is_empty() {
                    "a detached HEAD".into()
                } else {
                    head
                },
            }));
        }
        let dirty: Vec<String> = git_ok(
            &self.repo,
            what,
            &["status", "--porcelain", "--untracked-files=no"],
        )?
        .lines()
        .map(str::to_string)
        .collect();
        if !dirty.is_empty() {
            return Ok(Err(LandRefused::Dirty(dirty)));
        }
        let from = git_ok(&self.repo, what, &["rev-parse", "HEAD"])?;
        let integration = self.integration_branch();
        let to = git_ok(
            &self.repo,
            what,
            &[
                "rev-parse",
                "--verify",
                &format!("refs/heads/{integration}"),
            ],
        )?;
        let ff = git(&self.repo, &["merge-base", "--is-ancestor", &from, &to])?;
        if ff.code == 0 {
            git_ok(&self.repo, what, &["merge", "-q", "--ff-only", &to])?;
        } else if !merge {
            return Ok(Err(LandRefused::NotFastForward));
        } else {
            let message = format!("Land {integration}");
            let merged = git(
                &self.repo,
                &["merge", "-q", "--no-ff", "--no-edit", "-m", &message, &to],
            )?;
            if merged.code != 0 {
                let _ = git(&self.repo, &["merge", "--abort"]);
                return Ok(Err(LandRefused::Conflict));
            }
        }
        let landed = git_ok(&self.repo, what, &["rev-parse", "HEAD"])?;
        Ok(Ok(Landed {
            branch: branch.trim_start_matches("refs/heads/").to_string(),
            integration,
            from,
            to: landed,
        }))
    }
}
