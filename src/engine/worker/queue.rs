//! Verdicts a worker judged but has not published yet: kept in memory with
//! their claim and on disk, one JSON file per unit under
//! `<git common dir>/supervisor/worker-queue/`, so that an outage costs
//! a publish later rather than the agent's work, and a worker started
//! again in the clone publishes what one that left there had queued.
//!
//! A queued verdict is published under the same checks as a fresh one:
//! only while the run still holds the claim it was judged for (the same
//! sprint, dispatch and worker, RUNNING); otherwise it is dropped with the
//! reason, so a verdict is never credited twice.

use std::path::Path;
use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

use crate::machine::BackgroundProcess;
use crate::machine::EventKind;

const DIR: &str = "worker-queue";

/// One judged verdict waiting for the remote.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Queued {
    /// `<host>/<pid>` of the worker that claimed the sprint.
    pub(super) worker: String,
    pub(super) unit: String,
    pub(super) sprint: String,
    pub(super) dispatch: u32,
    /// The lease commit the claim held when the verdict was judged.
    pub(super) lease: String,
    /// The unit branch's tip the agent left.
    pub(super) unit_tip: String,
    /// The verdict as verification judged it; a merge that conflicts
    /// when it is published still turns a completion into a failure.
    pub(super) verdict: EventKind,
    /// A background sprint's processes its agent left running on this
    /// machine, recorded before the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) background: Vec<BackgroundProcess>,
}

/// Where `unit`'s queued verdict is kept.
fn file(runtime: &Path, unit: &str) -> PathBuf {
    runtime.join(DIR).join(format!(
        "{}.json",
        crate::base::runtime_name::component(unit)
    ))
}

impl Queued {
    /// Keep it on disk (written whole, then renamed into place).
    pub(super) fn save(&self, runtime: &Path) -> std::io::Result<()> {
        let path = file(runtime, &self.unit);
        std::fs::create_dir_all(path.parent().expect("under the queue dir"))?;
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }

    /// Published or dropped: it is no longer kept.
    pub(super) fn forget(&self, runtime: &Path) {
        let _ = std::fs::remove_file(file(runtime, &self.unit));
    }
}

/// Every verdict queued in this clone (unreadable files are skipped).
pub(super) fn load_all(runtime: &Path) -> Vec<Queued> {
    let Ok(entries) = std::fs::read_dir(runtime.join(DIR)) else {
        return Vec::new();
    };
    let mut queued: Vec<Queued> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|text| serde_json::from_str(&text).ok())
        .collect();
    queued.sort_by(|a, b| a.unit.cmp(&b.unit));
    queued
}

/// Whether the worker `identity` (`<host>/<pid>`) is known to be gone:
/// it ran on this host and its process is no longer there. A worker on
/// another host, or alive here, keeps its own queue.
pub(super) fn left(identity: &str) -> bool {
    let Some((host, pid)) = identity.rsplit_once('/') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    host == super::hostname() && pid != std::process::id() && !crate::dispatch::alive(pid)
}
