//! Git lock files an ended agent left behind.
//!
//! An agent's `git commit` killed mid-way (a slow pre-commit hook, then the
//! watchdog) leaves `.git/index.lock`, and every later git command in the
//! repository fails until someone deletes it. After the agent's tree is
//! gone, a lock file that appeared while it ran and that no living process
//! holds open was left by a process of that tree: git keeps its lock files
//! open from creation until it commits or rolls them back, so a lock with
//! no holder belongs to nobody.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::time::SystemTime;

/// The lock files git takes for a commit.
const LOCKS: &[&str] = &["index.lock", "HEAD.lock"];

/// Remove the stale git locks of the repository at `workdir` created at or
/// after `since`. Returns what was removed (`None`: not a repository).
pub fn remove_git_locks(workdir: &Path, since: SystemTime) -> Option<Vec<PathBuf>> {
    let out = Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .current_dir(workdir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let git_dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // /proc shows open files by their canonical path.
    let git_dir = git_dir.canonicalize().unwrap_or(git_dir);
    let mut removed = Vec::new();
    for name in LOCKS {
        let path = git_dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        // Older than the agent: not its doing (and not ours to judge).
        if meta.modified().is_ok_and(|m| m < since) {
            continue;
        }
        if held_open(&path) {
            continue;
        }
        if std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    Some(removed)
}

/// Whether any process we can see has `path` open.
fn held_open(path: &Path) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        // Without /proc nothing can be proven: leave the lock alone.
        return true;
    };
    for p in procs.flatten() {
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|t| t == path) {
                return true;
            }
        }
    }
    false
}
