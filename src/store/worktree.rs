//! The one commit git supervisor makes on the user's branch: naming the plan
//! at `start` (spec §X-134). It shells out to `git commit` so the user's
//! identity and signing settings apply; our own hooks stay out
//! (`GIT_SUPERVISOR_INTERNAL`), and so do the user's commit hooks — the
//! commit holds one line of frontmatter and must not trigger their checks.

use std::path::Path;
use std::process::Command;
use std::process::Stdio;

fn git(dir: &Path, args: &[&str]) -> std::io::Result<std::process::Output> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        // A status of ours must never take the index lock an agent's
        // `git add` in the same worktree needs at that moment.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .output()
}

/// The file is tracked and has no uncommitted change (staged or not).
pub fn is_clean(file: &Path) -> bool {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return false;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let tracked =
        git(dir, &["ls-files", "--error-unmatch", "--", &name]).is_ok_and(|o| o.status.success());
    let status = git(dir, &["status", "--porcelain", "--", &name]);
    tracked && status.is_ok_and(|o| o.status.success() && o.stdout.is_empty())
}

/// Commit `file` alone (whatever else is staged stays staged) with
/// `message`. The error says what git said.
pub fn commit_file(file: &Path, message: &str) -> Result<(), String> {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err(format!("{} is not a file path", file.display()));
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let out = git(
        dir,
        &[
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            message,
            "--",
            &name,
        ],
    )
    .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// Write `text` to `file` through a temporary file beside it and a rename,
/// so a crash leaves the old text or the new, never half of it.
pub fn write_file(file: &Path, text: &str) -> std::io::Result<()> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = file.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, file))
}
