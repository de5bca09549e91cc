//! The merge queue's one step: a verified sprint's unit branch into the
//! integration branch.
//!
//! The caller serialises steps (the engine lock, then the build lock, so a
//! phase build never sees the integration branch move under it). A step is
//! idempotent: a unit tip already contained in the integration branch is
//! not merged again, so a crash between the merge and its record merges
//! once. `git merge-tree --write-tree` decides without a working tree; a
//! clean result becomes a merge commit (`commit-tree`) with the unit and
//! sprint trailers, published by a compare-and-swap `update-ref`.

use super::git;
use super::git_ok;
use super::WorkspaceError;
use super::Workspaces;

/// What one merge-queue step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merge {
    /// The unit's work was already on the integration branch.
    Already { tip: String },
    /// A merge commit now heads the integration branch.
    Merged { commit: String },
    /// The merge would conflict: nothing was written to the integration
    /// branch; the unit's worktree now holds the integration branch merged
    /// in, with conflict markers for its next attempt to resolve.
    Conflict {
        files: Vec<String>,
        /// The integration branch's commits the unit branch lacks
        /// (`<short> <subject>`), newest first.
        theirs: Vec<String>,
    },
}

impl Merge {
    /// The text a retry prompt carries about a conflict (empty otherwise).
    pub fn retry_note(&self, integration: &str) -> String {
        let Merge::Conflict { files, theirs } = self else {
            return String::new();
        };
        let mut s = format!(
            "Your sprint's work conflicts with work already merged into `{integration}`.\n\
             That branch has been merged into your worktree: resolve the conflict markers, \
             then commit (the merge is in progress; `git commit` concludes it).\n\n\
             Conflicting files:\n"
        );
        for f in files {
            s.push_str(&format!("- {f}\n"));
        }
        s.push_str("\nCommits on the integration branch you did not have:\n");
        for c in theirs {
            s.push_str(&format!("- {c}\n"));
        }
        s
    }
}

/// One line of a trailer value: no line breaks or control characters.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl Workspaces {
    /// Merge the unit's branch into the integration branch (see the module
    /// header). The unit's worktree must exist.
    pub fn integrate(&self, unit: &str, sprint: &str) -> Result<Merge, WorkspaceError> {
        let integration = format!("refs/heads/{}", self.integration_branch());
        let branch = format!("refs/heads/{}", self.unit_branch(unit));
        let what = "cannot merge into the integration branch";
        let tip = git_ok(&self.repo, what, &["rev-parse", "--verify", &integration])?;
        let ours = git_ok(&self.repo, what, &["rev-parse", "--verify", &branch])?;
        let merge = self.merge_commit(&tip, &ours, unit, sprint)?;
        match &merge {
            Merge::Merged { commit } => {
                crate::store::fault::boundary("merge commit written, integration branch not moved");
                git_ok(
                    &self.repo,
                    what,
                    &["update-ref", &integration, commit, &tip],
                )?;
                crate::store::fault::boundary("integration branch moved, verdict not recorded");
            }
            // Bring the unit branch up to the integration tip: the conflict
            // waits in its worktree for the next attempt.
            Merge::Conflict { .. } => self.merge_into_worktree(unit, &tip),
            Merge::Already { .. } => {}
        }
        Ok(merge)
    }

    /// Merge commits observed in history (made by hand, on any branch or
    /// worktree, marked with the sprint's trailers) into the integration
    /// branch, one after another, all or nothing: a conflict writes nothing
    /// and touches no worktree. Commits already contained are skipped, so a
    /// repeat merges nothing.
    pub fn integrate_commits(
        &self,
        commits: &[String],
        unit: &str,
        sprint: &str,
    ) -> Result<Merge, WorkspaceError> {
        let integration = format!("refs/heads/{}", self.integration_branch());
        let what = "cannot merge into the integration branch";
        let start = git_ok(&self.repo, what, &["rev-parse", "--verify", &integration])?;
        let mut tip = start.clone();
        for commit in commits {
            match self.merge_commit(&tip, commit, unit, sprint)? {
                Merge::Already { .. } => {}
                Merge::Merged { commit } => tip = commit,
                conflict @ Merge::Conflict { .. } => return Ok(conflict),
            }
        }
        if tip == start {
            return Ok(Merge::Already { tip });
        }
        crate::store::fault::boundary("merge commit written, integration branch not moved");
        git_ok(
            &self.repo,
            what,
            &["update-ref", &integration, &tip, &start],
        )?;
        crate::store::fault::boundary("integration branch moved, verdict not recorded");
        Ok(Merge::Merged { commit: tip })
    }

    /// `commit` is already on the integration branch.
    pub fn integrated(&self, commit: &str) -> bool {
        let integration = format!("refs/heads/{}", self.integration_branch());
        git(
            &self.repo,
            &["merge-base", "--is-ancestor", commit, &integration],
        )
        .is_ok_and(|r| r.code == 0)
    }

    /// Bring the unit's worktree up to `commit` (observed work merged into
    /// the integration branch), so the unit's next sprint starts from it.
    /// Only a clean worktree is touched; a merge that does not go through
    /// is undone. Whether it went through.
    pub fn catch_up_unit(&self, unit: &str, commit: &str) -> bool {
        let wt = self.unit_path(unit);
        if !wt.join(".git").exists() || !self.uncommitted(unit).is_empty() {
            return false;
        }
        if git(&wt, &["merge-base", "--is-ancestor", commit, "HEAD"]).is_ok_and(|r| r.code == 0) {
            return true;
        }
        let merged = git(&wt, &["merge", "-q", "--no-edit", commit]).is_ok_and(|r| r.code == 0);
        if !merged {
            let _ = git(&wt, &["merge", "--abort"]);
        }
        merged
    }

    /// A retry in a fresh worktree (a worker's, on any machine): when the
    /// unit's tip `ours` conflicts with the integration tip, that tip is
    /// merged into the worktree with the conflict markers left for the
    /// agent, as `integrate` leaves them in a worktree that stays.
    pub fn carry_conflict(
        &self,
        unit: &str,
        sprint: &str,
        tip: &str,
        ours: &str,
    ) -> Result<Merge, WorkspaceError> {
        let merge = self.merge_commit(tip, ours, unit, sprint)?;
        if matches!(merge, Merge::Conflict { .. }) {
            self.merge_into_worktree(unit, tip);
        }
        Ok(merge)
    }

    /// Start merging `tip` into the unit's worktree; a conflict leaves the
    /// merge in progress (`git commit` concludes it).
    fn merge_into_worktree(&self, unit: &str, tip: &str) {
        let wt = self.unit_path(unit);
        if wt.join(".git").exists() {
            let _ = git(&wt, &["merge", "--no-ff", "--no-edit", tip]);
        }
    }

    /// The merge of `ours` (a unit's tip) into `tip` (the integration
    /// branch's), decided without a working tree: already contained, a
    /// merge commit written (no ref moves), or the conflicting files.
    pub fn merge_commit(
        &self,
        tip: &str,
        ours: &str,
        unit: &str,
        sprint: &str,
    ) -> Result<Merge, WorkspaceError> {
        let what = "cannot merge into the integration branch";
        let contained = git(&self.repo, &["merge-base", "--is-ancestor", ours, tip])?;
        if contained.code == 0 {
            return Ok(Merge::Already {
                tip: tip.to_string(),
            });
        }
        let preflight = git(
            &self.repo,
            &[
                "merge-tree",
                "--write-tree",
                "--name-only",
                "--no-messages",
                tip,
                ours,
            ],
        )?;
        match preflight.code {
            0 => {
                let tree = preflight.stdout.lines().next().unwrap_or_default().trim();
                let message = format!(
                    "Merge {} sprint {} into the integration branch\n\nSupervisor-Unit: {}\nSupervisor-Sprint: {}/{}\n",
                    one_line(unit),
                    one_line(sprint),
                    one_line(unit),
                    one_line(unit),
                    one_line(sprint)
                );
                let args = ["commit-tree", tree, "-p", tip, "-p", ours, "-m", &message];
                let first = git(&self.repo, &args)?;
                if first.code == 0 {
                    return Ok(Merge::Merged {
                        commit: first.stdout.trim().to_string(),
                    });
                }
                // A worker on a CI runner may have no git identity: the
                // merge is then signed as git supervisor's own (tried only
                // then: asking first cost a process every merge).
                let mut anonymous = vec![
                    "-c",
                    "user.name=git-supervisor",
                    "-c",
                    "user.email=supervisor@localhost",
                ];
                anonymous.extend(args);
                let commit = git_ok(&self.repo, what, &anonymous)?;
                Ok(Merge::Merged { commit })
            }
            1 => {
                let files: Vec<String> = preflight
                    .stdout
                    .lines()
                    .skip(1)
                    .take_while(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect();
                let theirs = git_ok(
                    &self.repo,
                    what,
                    &["log", "--format=%h %s", &format!("{ours}..{tip}")],
                )?
                .lines()
                .map(str::to_string)
                .collect();
                Ok(Merge::Conflict { files, theirs })
            }
            _ => Err(WorkspaceError {
                what: what.into(),
                detail: format!("git merge-tree: {}", preflight.stderr.trim()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn sh(cwd: &Path, args: &[&str]) -> String {
        git_ok(cwd, "test git", args).expect("git succeeds")
    }

    fn commit(cwd: &Path, file: &str, text: &str, message: &str) {
        std::fs::write(cwd.join(file), text).expect("write");
        sh(cwd, &["add", "-A"]);
        sh(cwd, &["commit", "-qm", message]);
    }

    /// A repository with one commit and the run's integration branch.
    fn repo() -> (tempfile::TempDir, Workspaces) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).expect("mkdir");
        sh(&repo, &["init", "-q", "-b", "main"]);
        sh(&repo, &["config", "user.name", "Test"]);
        sh(&repo, &["config", "user.email", "test@example.com"]);
        sh(&repo, &["config", "commit.gpgsign", "false"]);
        commit(&repo, "greeting.txt", "hello\n", "base");
        let ws = Workspaces::new(&repo, Some("../wt"), "run-1");
        let head = sh(&repo, &["rev-parse", "HEAD"]);
        ws.start(&head).expect("integration branch");
        (tmp, ws)
    }

    #[test]
    fn a_clean_merge_lands_once_with_trailers_and_the_user_branch_stays() {
        let (_tmp, ws) = repo();
        let head = sh(&ws.repo, &["rev-parse", "HEAD"]);
        let wt = ws.ensure_unit("a unit", &head).expect("worktree");
        assert_eq!(
            sh(&wt, &["branch", "--show-current"]),
            ws.unit_branch("a unit")
        );
        commit(&wt, "a.txt", "a\n", "a: work");
        let Merge::Merged { commit } = ws.integrate("a unit", "1").expect("merge") else {
            panic!("expected a merge commit");
        };
        assert_eq!(ws.integration_tip().as_deref(), Some(commit.as_str()));
        let message = sh(&ws.repo, &["log", "-1", "--format=%B", &commit]);
        assert!(message.contains("Supervisor-Unit: a unit"), "{message}");
        assert!(message.contains("Supervisor-Sprint: a unit/1"), "{message}");
        let parents = sh(&ws.repo, &["rev-list", "--parents", "-n1", &commit]);
        assert_eq!(parents.split(' ').count(), 3, "a merge commit: {parents}");
        // Again (a resumed run): nothing new.
        assert_eq!(
            ws.integrate("a unit", "1").expect("merge"),
            Merge::Already { tip: commit }
        );
        assert_eq!(sh(&ws.repo, &["rev-parse", "HEAD"]), head);
        assert!(!ws.repo.join("a.txt").exists());
    }

    #[test]
    fn a_conflict_writes_nothing_and_waits_in_the_unit_worktree() {
        let (_tmp, ws) = repo();
        let head = sh(&ws.repo, &["rev-parse", "HEAD"]);
        let one = ws.ensure_unit("one", &head).expect("worktree");
        let two = ws.ensure_unit("two", &head).expect("worktree");
        commit(&one, "greeting.txt", "bonjour\n", "one: greet");
        commit(&two, "greeting.txt", "hallo\n", "two: greet");
        assert!(matches!(ws.integrate("one", "1"), Ok(Merge::Merged { .. })));
        let tip = ws.integration_tip();
        let conflict = ws.integrate("two", "1").expect("preflight");
        let Merge::Conflict { files, theirs } = &conflict else {
            panic!("expected a conflict: {conflict:?}");
        };
        assert_eq!(files, &["greeting.txt"]);
        assert!(
            theirs.iter().any(|c| c.ends_with("one: greet")),
            "{theirs:?}"
        );
        assert_eq!(ws.integration_tip(), tip, "nothing merged");
        // The integration branch is merged into two's worktree, conflicted.
        let merging = git(&two, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]).expect("git");
        assert_eq!(merging.code, 0, "a merge in progress");
        assert!(std::fs::read_to_string(two.join("greeting.txt"))
            .expect("file")
            .contains("<<<<<<<"));
        let note = conflict.retry_note(&ws.integration_branch());
        assert!(
            note.contains("- greeting.txt") && note.contains("one: greet"),
            "{note}"
        );
        // Resolved and committed, it merges cleanly.
        commit(&two, "greeting.txt", "bonjour hallo\n", "two: resolve");
        let Merge::Merged { commit } = ws.integrate("two", "1").expect("merge") else {
            panic!("expected a merge");
        };
        assert_eq!(
            sh(&ws.repo, &["show", &format!("{commit}:greeting.txt")]),
            "bonjour hallo"
        );
    }
}
