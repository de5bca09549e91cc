//! A remote's `refs/supervisor/state` moved back: the tip a clone fetches
//! is not a descendant of the one it last saw there, and the remote did not
//! archive that run (a new run after an archived one is not a rewind).
//! Adopting it silently would run again every sprint the dropped
//! transitions completed, so workers and `sync` stop and name both tips;
//! `--accept-rewind` takes the remote's and keeps the dropped history
//! reachable under `refs/supervisor/archive/`.

use std::path::Path;
use std::process::Command;
use std::process::Stdio;

/// Where dropped state history is kept when a rewind is accepted.
pub const ARCHIVE_PREFIX: &str = "refs/supervisor/archive/";

/// The state tips of a rewind: the one this clone held and the remote's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewind {
    pub held: String,
    pub found: String,
}

fn git(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(Stdio::null())
        .output()
        .ok()
}

fn is_ancestor(dir: &Path, a: &str, b: &str) -> bool {
    a == b || git(dir, &["merge-base", "--is-ancestor", a, b]).is_some_and(|o| o.status.success())
}

/// Whether `found` (the remote's state tip now) drops transitions of
/// `held` (the tip this clone saw there or holds): not its descendant, and
/// `held` is in none of the remote's archived runs.
pub fn rewound(
    dir: &Path,
    remote: &str,
    held: Option<&str>,
    found: Option<&str>,
) -> Option<Rewind> {
    let (held, found) = (held?, found?);
    if held == found {
        return None;
    }
    // Unrelated histories are another run, not this one moved back; a
    // merge base that is what this clone held is the remote moving on (one
    // process answers both: most fetches find the state moved on).
    let base = git(dir, &["merge-base", held, found]).filter(|o| o.status.success())?;
    if String::from_utf8_lossy(&base.stdout).trim() == held {
        return None;
    }
    let runs = format!("refs/remotes/{remote}/supervisor/runs/");
    let archived = git(dir, &["for-each-ref", "--format=%(objectname)", &runs])
        .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
        .unwrap_or_default();
    if archived
        .lines()
        .any(|tip| is_ancestor(dir, held, tip.trim()))
    {
        return None;
    }
    Some(Rewind {
        held: held.to_string(),
        found: found.to_string(),
    })
}

/// Keep `held` reachable as `refs/supervisor/archive/rewound-<held>`; the
/// ref's name.
pub fn archive(dir: &Path, rewind: &Rewind) -> Result<String, String> {
    let name = format!("{ARCHIVE_PREFIX}rewound-{}", rewind.held);
    match git(dir, &["update-ref", &name, &rewind.held]) {
        Some(o) if o.status.success() => Ok(name),
        Some(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        None => Err("cannot run git".into()),
    }
}

/// The sentence and the fix for a rewind found on `remote` by `command`
/// (`worker`, `sync`).
pub fn explain(remote: &str, rewind: &Rewind, command: &str) -> (String, String) {
    let short = |s: &str| s.chars().take(12).collect::<String>();
    (
        format!(
            "`{remote}`'s refs/supervisor/state moved back: this clone saw {} there, the remote now has {}, which does not contain it (the transitions in between would be lost and their sprints run again)",
            short(&rewind.held),
            short(&rewind.found)
        ),
        format!(
            "if the rewind was meant, accept it: `git supervisor {command} --accept-rewind` (the dropped history stays reachable as {ARCHIVE_PREFIX}rewound-{}); if not, put the state back: `git push --force-with-lease=refs/supervisor/state:{} {remote} {}:refs/supervisor/state`",
            rewind.held, rewind.found, rewind.held
        ),
    )
}
