//! `git supervisor sync [REMOTE]`: the run's state and branches shared
//! through any git remote, with no server of our own.
//!
//! A sync fetches `refs/supervisor/*` and the runs' `supervisor/*` branches
//! into `refs/remotes/<remote>/supervisor/*`, then compares the local state
//! ref with the remote's:
//! - the same: nothing to do;
//! - the local one is behind: it moves to the remote's (a compare-and-swap
//!   `update-ref`, so a tick that moved it meanwhile wins and the sync says
//!   so);
//! - the local one is ahead (or the remote has none): it is pushed with
//!   `git push --porcelain --atomic --force-with-lease=<ref>:<expected>`,
//!   never a `+` refspec, so transitions someone else pushed since the
//!   fetch are never overwritten — the remote refuses the push instead;
//! - both moved on: left here, and reported with how far each side went;
//!   `engine::resync` then decides this clone's events again on the
//!   remote's state and pushes them under the same kind of lease;
//! - two runs (runs share no transition): when one side archived the
//!   other's run whole (`refs/supervisor/runs/<id>` holds its tip) and
//!   started a new one, the new run is pushed over the archived one (under
//!   the lease) or taken; otherwise they are left, as diverged.
//!
//! The runs' branches (`supervisor/<run>/integration`, unit branches) and
//! archived runs (`refs/supervisor/runs/*`) go along the same way: pushed
//! when the remote's is an ancestor of ours (or missing), taken when ours
//! is an ancestor of the remote's, reported when they diverged. Every git
//! process runs with `GIT_SUPERVISOR_INTERNAL=1`, so our own push does not
//! enter our pre-push hook.

use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use serde::Serialize;

use super::remote::fetch_refspecs;
use super::remote::tracking;

/// The state ref every run's transitions are committed to.
const STATE_REF: &str = "refs/supervisor/state";

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SyncError {
    #[error("cannot run git: {0}")]
    #[diagnostic(code(sync::git))]
    Spawn(std::io::Error),
    #[error("`git {command}` failed: {stderr}")]
    #[diagnostic(
        code(sync::git),
        help("check the remote's name and that it can be reached: `git remote -v`, `git ls-remote <remote>`")
    )]
    Git { command: String, stderr: String },
    #[error("{message}")]
    #[diagnostic(code(sync::rewound), help("{hint}"))]
    Rewound { message: String, hint: String },
}

/// How the local state ref stands against the remote's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "relation", rename_all = "snake_case")]
pub enum Relation {
    /// Neither side has a run.
    Neither,
    /// Only this clone has the state ref.
    LocalOnly,
    /// Only the remote has it.
    RemoteOnly,
    Same,
    /// This clone has transitions the remote lacks.
    Ahead {
        ahead: usize,
    },
    /// The remote has transitions this clone lacks.
    Behind {
        behind: usize,
    },
    /// Both have transitions the other lacks.
    Diverged {
        ahead: usize,
        behind: usize,
    },
    /// This clone started a new run after archiving the remote's (with
    /// every transition the remote has): the new run replaces it there.
    NewerRunHere,
    /// The remote started a new run after archiving this clone's (with
    /// every transition this clone has): this clone takes it.
    NewerRunThere,
}

/// What one sync did.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    pub remote: String,
    /// The state ref before the sync wrote anything.
    #[serde(flatten)]
    pub relation: Relation,
    /// Refs moved here to the remote's (fast-forwards).
    pub taken: Vec<String>,
    /// Refs pushed to the remote.
    pub pushed: Vec<String>,
    /// Refs that diverged, or whose push the remote refused: left as they
    /// are on both sides.
    pub left: Vec<String>,
    /// This clone's events decided again on the remote's diverged state and
    /// pushed on top of it (see `engine::resync`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reapplied: Vec<String>,
    /// This clone's events that no longer apply on the remote's state.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

impl SyncReport {
    /// Nothing was left diverged or refused.
    pub fn clean(&self) -> bool {
        self.left.is_empty()
    }
}

struct Git<'a> {
    dir: &'a Path,
}

impl Git<'_> {
    fn run(&self, args: &[&str]) -> Result<std::process::Output, SyncError> {
        Command::new("git")
            .args(args)
            .current_dir(self.dir)
            .env("GIT_SUPERVISOR_INTERNAL", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .output()
            .map_err(SyncError::Spawn)
    }

    fn ok(&self, args: &[&str]) -> Result<String, SyncError> {
        let out = self.run(args)?;
        if !out.status.success() {
            return Err(SyncError::Git {
                command: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn rev(&self, name: &str) -> Option<String> {
        let out = self
            .run(&["rev-parse", "-q", "--verify", &format!("{name}^{{commit}}")])
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// `(only in a, only in b)` commit counts.
    fn counts(&self, a: &str, b: &str) -> Result<(usize, usize), SyncError> {
        let text = self.ok(&["rev-list", "--left-right", "--count", &format!("{a}...{b}")])?;
        let mut it = text.split_whitespace().map(|n| n.parse().unwrap_or(0));
        Ok((it.next().unwrap_or(0), it.next().unwrap_or(0)))
    }

    /// Refs under `prefix`, with their commits.
    fn refs(&self, prefix: &str) -> Result<Vec<(String, String)>, SyncError> {
        Ok(self
            .ok(&["for-each-ref", "--format=%(refname) %(objectname)", prefix])?
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(r, o)| (r.to_string(), o.to_string()))
            .collect())
    }
}

fn relation_of(
    git: &Git<'_>,
    local: Option<&str>,
    remote: Option<&str>,
) -> Result<Relation, SyncError> {
    Ok(match (local, remote) {
        (None, None) => Relation::Neither,
        (Some(_), None) => Relation::LocalOnly,
        (None, Some(_)) => Relation::RemoteOnly,
        (Some(l), Some(r)) if l == r => Relation::Same,
        (Some(l), Some(r)) => match git.counts(l, r)? {
            (ahead, 0) => Relation::Ahead { ahead },
            (0, behind) => Relation::Behind { behind },
            (ahead, behind) => Relation::Diverged { ahead, behind },
        },
    })
}

/// The state refs' relation, where a diverged pair may be two runs: one
/// side's run archived on the other (`refs/supervisor/runs/*` holding the
/// whole of it) before that side started a new one. Runs share no
/// transition, so their histories always look diverged.
fn state_relation(
    git: &Git<'_>,
    remote: &str,
    ours: Option<&str>,
    theirs: Option<&str>,
) -> Result<Relation, SyncError> {
    let relation = relation_of(git, ours, theirs)?;
    let (Relation::Diverged { .. }, Some(ours), Some(theirs)) = (relation, ours, theirs) else {
        return Ok(relation);
    };
    let holds = |archives: Vec<(String, String)>, tip: &str| {
        archives.iter().any(|(_, archived)| {
            archived == tip
                || git
                    .run(&["merge-base", "--is-ancestor", tip, archived])
                    .is_ok_and(|o| o.status.success())
        })
    };
    if holds(git.refs("refs/supervisor/runs/")?, theirs) {
        return Ok(Relation::NewerRunHere);
    }
    if holds(
        git.refs(&format!("refs/remotes/{remote}/supervisor/runs/"))?,
        ours,
    ) {
        return Ok(Relation::NewerRunThere);
    }
    Ok(relation)
}

/// How this clone's state stood against `remote` at the last sync (no
/// network: the remote-tracking ref the last fetch left). `None` when no
/// sync with `remote` ever happened.
pub fn last_known(dir: &Path, remote: &str) -> Option<Relation> {
    let git = Git { dir };
    let theirs = git.rev(&tracking(remote, STATE_REF))?;
    let ours = git.rev(STATE_REF);
    state_relation(&git, remote, ours.as_deref(), Some(&theirs)).ok()
}

/// The remotes this clone ever synced with (they have a tracked state ref).
pub fn synced_remotes(dir: &Path) -> Vec<String> {
    let git = Git { dir };
    git.refs("refs/remotes/")
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(r, _)| {
            r.strip_prefix("refs/remotes/")?
                .strip_suffix("/supervisor/state")
                .map(str::to_string)
        })
        .collect()
}

/// Fetch the remote's state namespace and runs' branches into
/// `refs/remotes/<remote>/supervisor/*` (tracking refs: forced is right).
fn fetch(git: &Git<'_>, remote: &str) -> Result<String, SyncError> {
    // Pruned: a state ref the remote archived is gone from its tracking
    // ref too.
    git.ok(&[
        "fetch",
        "--quiet",
        "--no-tags",
        "--prune",
        "--no-write-fetch-head",
        remote,
        &fetch_refspecs(remote)[0],
        &fetch_refspecs(remote)[1],
    ])
}

/// Sync with `remote` (see the module header).
/// A remote whose state moved back (see `store::rewind`) stops the sync
/// unless `accept_rewind`.
pub fn sync(dir: &Path, remote: &str, accept_rewind: bool) -> Result<SyncReport, SyncError> {
    let git = Git { dir };
    let seen = git.rev(&tracking(remote, STATE_REF));
    fetch(&git, remote)?;
    let mut ours = git.rev(STATE_REF);
    let theirs = git.rev(&tracking(remote, STATE_REF));
    if let Some(mut rewind) =
        super::rewind::rewound(dir, remote, seen.as_deref(), theirs.as_deref())
    {
        if !accept_rewind {
            // The tracking ref goes back to what was seen, so that the
            // next sync finds the rewind again instead of pushing over it.
            git.ok(&["update-ref", &tracking(remote, STATE_REF), &rewind.held])?;
            let (message, hint) = super::rewind::explain(remote, &rewind, "sync");
            return Err(SyncError::Rewound { message, hint });
        }
        // Keep the newest this clone had: its own transitions not yet
        // pushed are in its state ref.
        if let Some(o) = ours.as_deref().filter(|o| {
            git.run(&["merge-base", "--is-ancestor", &rewind.held, o])
                .is_ok_and(|out| out.status.success())
        }) {
            rewind.held = o.to_string();
        }
        super::rewind::archive(dir, &rewind).map_err(|stderr| SyncError::Git {
            command: "update-ref".into(),
            stderr,
        })?;
        git.ok(&["update-ref", STATE_REF, &rewind.found])?;
        ours = Some(rewind.found.clone());
    }
    let relation = state_relation(&git, remote, ours.as_deref(), theirs.as_deref())?;
    let mut report = SyncReport {
        remote: remote.to_string(),
        relation,
        taken: Vec::new(),
        pushed: Vec::new(),
        left: Vec::new(),
        reapplied: Vec::new(),
        dropped: Vec::new(),
    };
    // Every ref of ours, and every one the remote has that we lack.
    let mut names: Vec<String> = git
        .refs("refs/supervisor/")?
        .into_iter()
        .chain(git.refs("refs/heads/supervisor/")?)
        .map(|(r, _)| r)
        .collect();
    for (r, _) in git.refs(&format!("refs/remotes/{remote}/supervisor/"))? {
        let rest = &r[format!("refs/remotes/{remote}/supervisor/").len()..];
        // The state namespace holds `state`, `runs/…` and `leases/…`; run
        // ids never take those names, so everything else is a run's branch.
        if rest.starts_with("leases/") {
            // Leases live on the remote only (see `store::lease`).
            continue;
        }
        let local = if rest == "state" || rest.starts_with("runs/") || rest.starts_with("archive/")
        {
            format!("refs/supervisor/{rest}")
        } else {
            format!("refs/heads/supervisor/{rest}")
        };
        if !names.contains(&local) {
            names.push(local);
        }
    }
    names.sort();
    let mut push_args: Vec<String> = Vec::new();
    let mut to_push: Vec<String> = Vec::new();
    for name in &names {
        let ours = git.rev(name);
        let theirs = git.rev(&tracking(remote, name));
        let relation = if name == STATE_REF {
            relation
        } else {
            relation_of(&git, ours.as_deref(), theirs.as_deref())?
        };
        match relation {
            Relation::Neither | Relation::Same => {}
            Relation::RemoteOnly | Relation::Behind { .. } | Relation::NewerRunThere => {
                let new = theirs.as_deref().unwrap_or_default();
                let old = ours
                    .as_deref()
                    .unwrap_or("0000000000000000000000000000000000000000");
                // A checked-out branch is not moved under its worktree.
                let checked_out = name.starts_with("refs/heads/")
                    && git
                        .ok(&["worktree", "list", "--porcelain"])
                        .map(|t| t.lines().any(|l| l == format!("branch {name}")))
                        .unwrap_or(false);
                if checked_out && ours.is_some() {
                    report.left.push(name.clone());
                    continue;
                }
                match git.run(&["update-ref", name, new, old]) {
                    Ok(out) if out.status.success() => report.taken.push(name.clone()),
                    _ => report.left.push(name.clone()),
                }
            }
            Relation::LocalOnly | Relation::Ahead { .. } | Relation::NewerRunHere => {
                let expected = theirs.clone().unwrap_or_default();
                push_args.push(format!("--force-with-lease={name}:{expected}"));
                to_push.push(name.clone());
            }
            Relation::Diverged { .. } => report.left.push(name.clone()),
        }
    }
    if !to_push.is_empty() {
        let mut args: Vec<String> = vec!["push".into(), "--porcelain".into(), "--atomic".into()];
        args.extend(push_args);
        args.push(remote.to_string());
        args.extend(to_push.iter().map(|r| format!("{r}:{r}")));
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = git.run(&argv)?;
        if out.status.success() {
            report.pushed.extend(to_push);
            // The tracking refs now match what the remote holds.
            let _ = fetch(&git, remote);
        } else {
            // Refused (someone pushed since our fetch: the lease held):
            // atomic, so nothing of ours reached the remote.
            report.left.extend(to_push);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_refs_track_under_the_remote_supervisor_namespace() {
        assert_eq!(
            tracking("origin", "refs/supervisor/state"),
            "refs/remotes/origin/supervisor/state"
        );
        assert_eq!(
            tracking("origin", "refs/supervisor/runs/r1"),
            "refs/remotes/origin/supervisor/runs/r1"
        );
        assert_eq!(
            tracking("origin", "refs/heads/supervisor/r1/integration"),
            "refs/remotes/origin/supervisor/r1/integration"
        );
    }
}
