//! Workspaces (`[run] workspace = "worktree"`): one linked worktree and
//! branch per unit, an integration branch per run, and the merge queue that
//! brings each verified sprint into it.
//!
//! Names: the integration branch is `supervisor/<run>/integration`, a unit's
//! branch `supervisor/<run>/units/<unit>` and its worktree
//! `<dir>/<run>/<unit>`, where `<unit>` is `base::runtime_name`'s safe
//! encoding of the unit's name and `<dir>` is `[workspace] dir` (default
//! `<repo>/../<repo-dir-name>.supervisor/`). Everything goes through the
//! `git` CLI (worktrees and `merge-tree` are beyond gix): merges are decided
//! by `git merge-tree --write-tree` without touching any working tree, and
//! land on the integration branch by a compare-and-swap `update-ref`, so the
//! user's branch and working tree are never moved by a run.

use crate::base::runtime;

pub mod finish;
pub mod merge;

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

use crate::base::runtime_name;
use crate::config::Config;

pub use finish::LandRefused;
pub use finish::Landed;
pub use merge::Merge;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{what}: {detail}")]
#[diagnostic(code(workspace::git))]
pub struct WorkspaceError {
    pub what: String,
    pub detail: String,
}

/// The result of one `git` run: exit code and both streams.
pub(crate) struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run `git` in `cwd`, marked internal so the supervisor's own hooks stay
/// out of what it does itself.
pub(crate) fn git(cwd: &Path, args: &[&str]) -> Result<Ran, WorkspaceError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        // A status of ours must never take the index lock an agent's
        // `git add` in the same worktree needs at that moment.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| WorkspaceError {
            what: "cannot run git".into(),
            detail: e.to_string(),
        })?;
    Ok(Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// `git` that must succeed; its trimmed stdout.
pub(crate) fn git_ok(cwd: &Path, what: &str, args: &[&str]) -> Result<String, WorkspaceError> {
    let r = git(cwd, args)?;
    if r.code != 0 {
        return Err(WorkspaceError {
            what: what.into(),
            detail: format!("git {}: {}", args.join(" "), r.stderr.trim()),
        });
    }
    Ok(r.stdout.trim().to_string())
}

/// The workspaces of one run.
#[derive(Debug, Clone)]
pub struct Workspaces {
    /// The repository's main working tree (where `start` ran).
    pub repo: PathBuf,
    /// Where the run's worktrees live: `<dir>/<run>`.
    pub dir: PathBuf,
    pub run: String,
    /// `[workspace] teardown`, run in a unit's worktree before it goes.
    pub teardown: Option<Teardown>,
}

/// `[workspace] teardown` with what each unit's run of it is told.
#[derive(Debug, Clone)]
pub struct Teardown {
    pub command: String,
    pub timeout: std::time::Duration,
    /// The run's units in plan order (a unit's slot is its place, 1-based).
    pub units: Vec<String>,
    pub port_base: u16,
    pub port_stride: u16,
}

/// Where a unit works, for `status`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UnitWorkspace {
    pub worktree: String,
    pub branch: String,
    /// The worktree exists on disk.
    pub present: bool,
    /// Its uncommitted changes (`git status --porcelain` lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
}

impl Workspaces {
    /// The workspaces of the run at `tip`, read from its config snapshot and
    /// the working tree it was started in (readers: `status`, `land`,
    /// `clean`).
    pub fn of_run(store: &crate::store::Store, tip: &crate::store::Tip) -> Option<Workspaces> {
        let snap = store.snapshot_at(tip.id).ok()?;
        let config = Config::parse(&snap.config, "the run's .workflow/config.toml").ok()?;
        let recorded = std::fs::read_to_string(store.runtime_dir().join(runtime::WORKDIR))
            .ok()
            .map(|t| PathBuf::from(t.trim_end_matches('\n')));
        let repo = recorded.or_else(|| store.workdir().map(Path::to_path_buf))?;
        Workspaces::for_run(&repo, &tip.state, &config)
    }

    /// Each unit's worktree and branch, by unit name.
    pub fn describe_all(
        &self,
        state: &crate::machine::State,
    ) -> std::collections::BTreeMap<String, UnitWorkspace> {
        state
            .units
            .iter()
            .map(|u| (u.name.clone(), self.describe(&u.name)))
            .collect()
    }

    /// The workspaces of the run in `state` of the repository at `repo`,
    /// when the run gives each unit a worktree.
    pub fn for_run(
        repo: &Path,
        state: &crate::machine::State,
        config: &Config,
    ) -> Option<Workspaces> {
        state.worktrees.then(|| {
            Workspaces::new(repo, config.workspace.dir.as_deref(), &state.run_id)
                .with_teardown(state, config)
        })
    }

    /// The same, told the run's `[workspace] teardown`.
    pub fn with_teardown(mut self, state: &crate::machine::State, config: &Config) -> Workspaces {
        self.teardown = config.workspace.teardown.as_ref().map(|command| Teardown {
            command: command.clone(),
            timeout: config.workspace.teardown_timeout,
            units: state.units.iter().map(|u| u.name.clone()).collect(),
            port_base: config.workspace.port_base,
            port_stride: config.workspace.port_stride,
        });
        self
    }

    pub fn new(repo: &Path, dir: Option<&str>, run: &str) -> Workspaces {
        let base = match dir {
            Some(d) if Path::new(d).is_absolute() => PathBuf::from(d),
            Some(d) => repo.join(d),
            None => {
                let name = repo
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "repo".into());
                let beside = format!("{name}.supervisor");
                match repo.parent() {
                    Some(parent) => parent.join(beside),
                    None => repo.join("..").join(beside),
                }
            }
        };
        Workspaces {
            repo: repo.to_path_buf(),
            dir: base.join(run),
            run: run.to_string(),
            teardown: None,
        }
    }

    pub fn integration_branch(&self) -> String {
        format!("supervisor/{}/integration", self.run)
    }

    pub fn unit_branch(&self, unit: &str) -> String {
        format!(
            "supervisor/{}/units/{}",
            self.run,
            runtime_name::component(unit)
        )
    }

    pub fn unit_path(&self, unit: &str) -> PathBuf {
        self.dir.join(runtime_name::component(unit))
    }

    pub fn describe(&self, unit: &str) -> UnitWorkspace {
        let path = self.unit_path(unit);
        UnitWorkspace {
            worktree: path.display().to_string(),
            branch: self.unit_branch(unit),
            present: path.join(".git").exists(),
            uncommitted: self.uncommitted(unit),
        }
    }

    fn rev(&self, name: &str) -> Option<String> {
        git(
            &self.repo,
            &["rev-parse", "--verify", "-q", &format!("{name}^{{commit}}")],
        )
        .ok()
        .filter(|r| r.code == 0)
        .map(|r| r.stdout.trim().to_string())
    }

    /// The integration branch's tip.
    pub fn integration_tip(&self) -> Option<String> {
        self.rev(&format!("refs/heads/{}", self.integration_branch()))
    }

    /// A file's text at the integration branch's tip (`rel`: relative to the
    /// repository's root).
    pub fn integrated_file(&self, rel: &Path) -> Option<String> {
        let spec = format!("refs/heads/{}:{}", self.integration_branch(), rel.display());
        let spec = spec.replace("/./", "/").replace(":./", ":");
        git(&self.repo, &["show", &spec])
            .ok()
            .filter(|r| r.code == 0)
            .map(|r| r.stdout)
    }

    /// Create the integration branch at `base` unless it exists; the user's
    /// branch, index and files are not touched.
    pub fn start(&self, base: &str) -> Result<(), WorkspaceError> {
        if self.integration_tip().is_some() {
            return Ok(());
        }
        git_ok(
            &self.repo,
            "cannot create the integration branch",
            &[
                "update-ref",
                &format!("refs/heads/{}", self.integration_branch()),
                base,
                "0000000000000000000000000000000000000000",
            ],
        )?;
        Ok(())
    }

    /// Move the integration branch from `from` to `to` (only if it is still
    /// at `from`: compare-and-swap).
    pub fn advance(&self, from: &str, to: &str) -> Result<(), WorkspaceError> {
        if self.integration_tip().as_deref() != Some(from) {
            return Ok(());
        }
        git_ok(
            &self.repo,
            "cannot move the integration branch",
            &[
                "update-ref",
                &format!("refs/heads/{}", self.integration_branch()),
                to,
                from,
            ],
        )?;
        Ok(())
    }

    /// The unit's worktree, created on first use: its branch starts at the
    /// integration branch's tip (so it holds every dependency's merged
    /// work), or is checked out again when it survived a removed worktree.
    pub fn ensure_unit(&self, unit: &str, base: &str) -> Result<PathBuf, WorkspaceError> {
        let path = self.unit_path(unit);
        if path.join(".git").exists() {
            return Ok(path);
        }
        self.start(base)?;
        std::fs::create_dir_all(&self.dir).map_err(|e| WorkspaceError {
            what: format!("cannot create {}", self.dir.display()),
            detail: e.to_string(),
        })?;
        // A worktree deleted by hand leaves its registration behind.
        let _ = git(&self.repo, &["worktree", "prune"]);
        let branch = self.unit_branch(unit);
        let p = path.display().to_string();
        let exists = self.rev(&format!("refs/heads/{branch}")).is_some();
        let args: Vec<&str> = if exists {
            vec!["worktree", "add", "-q", &p, &branch]
        } else {
            let integration = self.integration_branch();
            let r = git_ok(
                &self.repo,
                "cannot create the unit's worktree",
                &["worktree", "add", "-q", "-b", &branch, &p, &integration],
            );
            return r.map(|_| path);
        };
        git_ok(&self.repo, "cannot create the unit's worktree", &args)?;
        Ok(path)
    }

    /// A worker's worktree of `unit`, made afresh at `base` (what the remote
    /// holds for the unit): a worker's worktrees are its own, and whatever
    /// an earlier claim left there is not this claim's work.
    pub fn fresh_unit(&self, unit: &str, base: &str) -> Result<PathBuf, WorkspaceError> {
        let path = self.unit_path(unit);
        let p = path.display().to_string();
        if path.exists() {
            let _ = git(&self.repo, &["worktree", "remove", "--force", &p]);
            if path.exists() {
                std::fs::remove_dir_all(&path).map_err(|e| WorkspaceError {
                    what: format!("cannot remove {p}"),
                    detail: e.to_string(),
                })?;
            }
        }
        let _ = git(&self.repo, &["worktree", "prune"]);
        std::fs::create_dir_all(&self.dir).map_err(|e| WorkspaceError {
            what: format!("cannot create {}", self.dir.display()),
            detail: e.to_string(),
        })?;
        let what = "cannot create the unit's worktree";
        let branch = self.unit_branch(unit);
        git_ok(&self.repo, what, &["branch", "-f", &branch, base])?;
        git_ok(&self.repo, what, &["worktree", "add", "-q", &p, &branch])?;
        Ok(path)
    }

    /// Copy `[workspace] copy` entries (files or directories the user keeps
    /// untracked, like `.env`) from the main working tree into a new
    /// worktree of `unit`. Entries that do not exist are skipped.
    pub fn copy_into(&self, unit: &str, entries: &[String]) -> Result<(), WorkspaceError> {
        let dest_root = self.unit_path(unit);
        for entry in entries {
            // Entries are checked when the config is read: inside the
            // repository, no `..`.
            let rel = Path::new(entry);
            let from = self.repo.join(rel);
            if !from.exists() {
                continue;
            }
            copy_tree(&from, &dest_root.join(rel)).map_err(|e| WorkspaceError {
                what: format!("cannot copy {entry} into the unit's worktree"),
                detail: e.to_string(),
            })?;
        }
        Ok(())
    }

    /// Where phase builds run: a detached worktree of the integration
    /// branch (no unit's name encodes to a leading dot).
    pub fn integration_path(&self) -> PathBuf {
        self.dir.join(".integration")
    }

    /// The integration worktree, created or moved to the integration
    /// branch's tip (tracked files reset, untracked ones removed, ignored
    /// build output kept for the next build); the tip it holds. The caller
    /// holds the build lock, so the branch does not move meanwhile.
    pub fn checkout_integration(&self) -> Result<(PathBuf, String), WorkspaceError> {
        let what = "cannot prepare the integration worktree";
        let tip = self.integration_tip().ok_or_else(|| WorkspaceError {
            what: what.into(),
            detail: format!("the branch {} does not exist", self.integration_branch()),
        })?;
        let path = self.integration_path();
        if path.join(".git").exists() {
            git_ok(
                &path,
                what,
                &["checkout", "-q", "--detach", "--force", &tip],
            )?;
            git_ok(&path, what, &["clean", "-q", "-f", "-d"])?;
        } else {
            std::fs::create_dir_all(&self.dir).map_err(|e| WorkspaceError {
                what: format!("cannot create {}", self.dir.display()),
                detail: e.to_string(),
            })?;
            let _ = git(&self.repo, &["worktree", "prune"]);
            let p = path.display().to_string();
            git_ok(
                &self.repo,
                what,
                &["worktree", "add", "-q", "--detach", &p, &tip],
            )?;
        }
        Ok((path, tip))
    }

    /// Remove the integration worktree (builds leave nothing to keep).
    pub fn remove_integration(&self) -> Result<bool, WorkspaceError> {
        let path = self.integration_path();
        if !path.join(".git").exists() {
            return Ok(false);
        }
        let p = path.display().to_string();
        git_ok(
            &self.repo,
            "cannot remove the integration worktree",
            &["worktree", "remove", "--force", &p],
        )?;
        let _ = std::fs::remove_dir(&self.dir);
        Ok(true)
    }

    /// Tracked and untracked changes in the unit's worktree (none when it
    /// does not exist).
    pub fn uncommitted(&self, unit: &str) -> Vec<String> {
        let path = self.unit_path(unit);
        if !path.join(".git").exists() {
            return Vec::new();
        }
        git(&path, &["status", "--porcelain", "--untracked-files=all"])
            .map(|r| {
                r.stdout
                    .lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Remove the unit's worktree (its branch stays: it is history). Refused
    /// with uncommitted work unless `force`.
    pub fn remove(&self, unit: &str, force: bool) -> Result<bool, WorkspaceError> {
        let path = self.unit_path(unit);
        if !path.join(".git").exists() {
            return Ok(false);
        }
        self.run_teardown(unit, &path);
        let p = path.display().to_string();
        let mut args = vec!["worktree", "remove"];
        if force {
            args.push("--force");
        }
        args.push(&p);
        git_ok(&self.repo, "cannot remove the worktree", &args)?;
        let _ = std::fs::remove_dir(&self.dir);
        Ok(true)
    }
}

impl Workspaces {
    /// Run `[workspace] teardown` in the unit's worktree, bounded in time;
    /// a failure is logged (`.git/supervisor/teardown.log`) and nothing
    /// more: the worktree goes either way.
    fn run_teardown(&self, unit: &str, path: &Path) {
        use std::os::unix::process::CommandExt;
        let Some(t) = &self.teardown else { return };
        let slot = t
            .units
            .iter()
            .position(|u| u == unit)
            .map_or(0, |i| i as u32 + 1);
        let port =
            u32::from(t.port_base).saturating_add(slot.saturating_mul(u32::from(t.port_stride)));
        let log = |line: String| {
            let file = self
                .repo
                .join(".git")
                .join(runtime::DIR)
                .join("teardown.log");
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&file)
                .and_then(|mut f| {
                    use std::io::Write;
                    writeln!(f, "{line}")
                });
            if written.is_err() {
                eprintln!("git-supervisor: {line}");
            }
        };
        let child = Command::new("sh")
            .arg("-c")
            .arg(&t.command)
            .current_dir(path)
            .env("SUPERVISOR_RUN_ID", &self.run)
            .env("SUPERVISOR_UNIT", unit)
            .env("SUPERVISOR_WORKDIR", path)
            .env("SUPERVISOR_SLOT", slot.to_string())
            .env("SUPERVISOR_PORT", port.to_string())
            .env("GIT_SUPERVISOR_INTERNAL", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                log(format!(
                    "{unit}: teardown `{}` cannot start: {e}",
                    t.command
                ));
                return;
            }
        };
        let deadline = std::time::Instant::now() + t.timeout;
        loop {
            match child.try_wait() {
                Ok(Some(s)) if s.success() => return,
                Ok(Some(s)) => {
                    log(format!(
                        "{unit}: teardown `{}` failed ({s}); the worktree is removed anyway",
                        t.command
                    ));
                    return;
                }
                Ok(None) if std::time::Instant::now() >= deadline => {
                    // SAFETY: killpg on the group this child leads.
                    unsafe {
                        libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
                    }
                    let _ = child.wait();
                    log(format!(
                        "{unit}: teardown `{}` timed out after {}; killed",
                        t.command,
                        humantime::format_duration(t.timeout)
                    ));
                    return;
                }
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
                Err(_) => return,
            }
        }
    }
}

/// Copy a file, or a directory and everything in it (links are copied as
/// the files they point at; a `copy` entry is the user's own choice).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    if from.is_dir() {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(from, to).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_inside_the_run_directory_and_the_branch_namespace() {
        let w = Workspaces::new(Path::new("/r/proj"), None, "20260101-000000-abc123");
        assert_eq!(
            w.dir,
            Path::new("/r/proj.supervisor/20260101-000000-abc123")
        );
        assert_eq!(
            w.integration_branch(),
            "supervisor/20260101-000000-abc123/integration"
        );
        let hostile = "../../x y/..";
        let b = w.unit_branch(hostile);
        assert!(b.starts_with("supervisor/20260101-000000-abc123/units/"));
        assert!(!b["supervisor/".len()..].contains(".."));
        assert_eq!(w.unit_path(hostile).parent(), Some(w.dir.as_path()));
        let rel = Workspaces::new(Path::new("/r/proj"), Some("wt"), "run");
        assert_eq!(rel.dir, Path::new("/r/proj/wt/run"));
    }
}
