//! Runs in worktrees, as tests look at them: the worktree directory a
//! repository's run keeps beside it (removed when the test ends), the
//! integration branch, a unit's sprint states, and a commit made by hand
//! with a sprint's trailers.

use std::path::Path;
use std::path::PathBuf;

use crate::common::git;
use crate::common::run_env;
use crate::common::Output;

pub(crate) fn sv(repo: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    run_env(repo, args, env)
}

/// Removes the default worktree directory beside a test repository.
pub(crate) struct Beside(PathBuf);

impl Drop for Beside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn beside(repo: &Path) -> Beside {
    let name = repo.file_name().expect("name").to_string_lossy();
    Beside(repo.join("..").join(format!("{name}.supervisor")))
}

/// The run's integration branch.
pub(crate) fn integration(repo: &Path) -> String {
    let refs = git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/supervisor/",
        ],
    );
    refs.lines()
        .find(|l| l.ends_with("/integration"))
        .unwrap_or_else(|| panic!("no integration branch among {refs:?}"))
        .to_string()
}

pub(crate) fn sprint_path(repo: &Path, unit: &str) -> Vec<String> {
    let out = crate::common::run(repo, &["log", "--format", "json"]);
    let records: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("log JSON");
    records
        .iter()
        .rev()
        .filter(|r| r["unit"] == unit && r["sprint"].is_string())
        .filter_map(|r| r["to"].as_str().map(str::to_string))
        .collect()
}

/// `git commit` in `cwd` with the sprint's trailers, through the hooks
/// when installed.
pub(crate) fn commit_by_hand(
    cwd: &Path,
    env: &[(&str, &Path)],
    message: &str,
    marker: &str,
) -> String {
    git(cwd, &["add", "-A"]);
    let mut cmd = crate::common::command("git", cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // The commit's id is read from git's own summary line: the hook it runs
    // may wake a run that completes the unit and removes this worktree, so
    // no later command can be run from `cwd`.
    let out = cmd
        .args([
            "-c",
            "core.abbrev=no",
            "commit",
            "-m",
            message,
            "--trailer",
            &format!("Supervisor-Sprint: {marker}"),
            "--trailer",
            "Supervisor-Status: complete",
        ])
        .output()
        .expect("git commit");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    said.lines()
        .find_map(|l| {
            let head = l.strip_prefix('[')?.split(']').next()?;
            let id = head.rsplit(' ').next()?;
            (id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
        })
        .unwrap_or_else(|| panic!("no commit id in git's summary: {said}"))
}

/// Agent wrappers (`agent-run`) alive whose command line mentions `needle`.
pub(crate) fn agents_mentioning(needle: &str) -> usize {
    crate::common::processes_mentioning(needle)
        .iter()
        .filter(|c| c.contains("agent-run"))
        .count()
}
