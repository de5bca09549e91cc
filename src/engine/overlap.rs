//! Overlap, before it is a conflict. Two units that edit the same files
//! find out at the merge, unless someone says so while both still work:
//!
//! - *before dispatch*: a sprint whose named files (its Files list, tasks,
//!   criteria) a live sprint of another unit also names is dispatched with
//!   the overlap in its DISPATCHED reason (`[run] on_overlap = "warn"`, the
//!   default), or held until that sprint has left (`"serialize"`): a
//!   function of the state and plan ([`named_overlap`]), so `status` says
//!   why it waits;
//! - *while they work*: each tick compares the files the live units of a
//!   worktree run changed (their branch since their base, and what is
//!   uncommitted); an overlap, with the conflict `git merge-tree` predicts
//!   between the two unit branches, is recorded once as a notice and kept
//!   in `.git/supervisor/overlaps.json` for `status` and the next prompt of
//!   the unit that started later.

use std::path::Path;

use serde::Deserialize;
use serde::Serialize;

use super::Engine;
use crate::machine::EventKind;
use crate::machine::State;
use crate::store::Tip;

const FILE: &str = "overlaps.json";

/// Two live units changing the same files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    /// The unit that started first, and the later one.
    pub earlier: String,
    pub later: String,
    pub files: Vec<String>,
    /// `git merge-tree` predicts a conflict between their branches.
    pub conflict: bool,
}

impl Overlap {
    /// "api and web both edit src/routes.ts — conflict predicted"
    pub fn sentence(&self) -> String {
        format!(
            "{} and {} both edit {}{}",
            self.earlier,
            self.later,
            self.files.join(", "),
            if self.conflict {
                " — conflict predicted"
            } else {
                ""
            }
        )
    }
}

/// The overlaps recorded for the run (oldest first).
pub fn read(runtime: &Path) -> Vec<Overlap> {
    std::fs::read(runtime.join(FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write(runtime: &Path, all: &[Overlap]) {
    let tmp = runtime.join(format!("{FILE}.tmp"));
    if let Ok(text) = serde_json::to_vec_pretty(all) {
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, runtime.join(FILE));
        }
    }
}

/// The overlaps whose two units both still have a live sprint.
pub fn live(runtime: &Path, state: &State) -> Vec<Overlap> {
    let active = |u: &str| state.unit(u).is_some_and(|u| u.active_sprint().is_some());
    read(runtime)
        .into_iter()
        .filter(|o| active(&o.earlier) && active(&o.later))
        .collect()
}

/// The files `files` shares with the named files of another unit's live
/// sprint: `(unit, sprint, shared files)` per such sprint.
pub fn named_overlap(
    state: &State,
    unit: &str,
    files: &[String],
) -> Vec<(String, String, Vec<String>)> {
    if files.is_empty() {
        return Vec::new();
    }
    state
        .units
        .iter()
        .filter(|u| u.name != unit)
        .filter_map(|u| {
            let sp = u.active_sprint()?;
            let theirs = &sp.agent.as_ref()?.files;
            let shared: Vec<String> = files
                .iter()
                .filter(|f| theirs.contains(f))
                .cloned()
                .collect();
            (!shared.is_empty()).then(|| (u.name.clone(), sp.id.to_string(), shared))
        })
        .collect()
}

/// Holds already said (`unit/sprint`), kept beside the overlaps.
const HELD: &str = "overlap-holds.json";

impl Engine {
    /// A notice for an overlap between two live units of a worktree run not
    /// recorded yet (recorded now, so it is said once), or for a sprint
    /// `on_overlap = "serialize"` holds.
    pub(super) fn next_overlap_notice(&self, tip: &Tip) -> Option<EventKind> {
        let state = &tip.state;
        let (plan, config) = self.snapshot(tip).ok()?;
        if config.run.on_overlap == crate::config::OnOverlap::Serialize {
            if let Some(held) = self.next_hold_notice(state, &plan) {
                return Some(held);
            }
        }
        // Hooks tick on every commit: the per-unit git reads are only worth
        // it when two units work at once.
        let working = state
            .units
            .iter()
            .filter(|u| u.active_sprint().is_some())
            .count();
        if !state.worktrees || working < 2 {
            return None;
        }
        let mut live: Vec<(String, String, String, Vec<String>)> = Vec::new();
        for u in &state.units {
            let Some(sp) = u.active_sprint() else {
                continue;
            };
            let Some(agent) = sp.agent.as_ref() else {
                continue;
            };
            let Some(base) = agent.base_commit.as_deref() else {
                continue;
            };
            let root = self.unit_root(state, &config, &u.name);
            if !root.exists() {
                continue;
            }
            let changed = super::quick_check::changed_files(&root, base);
            live.push((
                agent.dispatched_at.clone(),
                u.name.clone(),
                sp.id.to_string(),
                changed,
            ));
        }
        live.sort();
        let runtime = self.store.runtime_dir();
        let mut recorded = read(&runtime);
        for i in 0..live.len() {
            for j in i + 1..live.len() {
                let (earlier, later) = (&live[i], &live[j]);
                let files: Vec<String> = earlier
                    .3
                    .iter()
                    .filter(|f| later.3.contains(f))
                    .cloned()
                    .collect();
                if files.is_empty() {
                    continue;
                }
                let known = recorded.iter().any(|o| {
                    o.earlier == earlier.1
                        && o.later == later.1
                        && files.iter().all(|f| o.files.contains(f))
                });
                if known {
                    continue;
                }
                let conflict = self.conflict_predicted(state, &config, &earlier.1, &later.1);
                let overlap = Overlap {
                    earlier: earlier.1.clone(),
                    later: later.1.clone(),
                    files,
                    conflict,
                };
                let text = format!(
                    "{}: found while both agents work (the later one's next prompt names them).",
                    overlap.sentence()
                );
                recorded.retain(|o| !(o.earlier == overlap.earlier && o.later == overlap.later));
                recorded.push(overlap);
                write(&runtime, &recorded);
                return Some(EventKind::Notice {
                    unit: Some(later.1.clone()),
                    sprint: later.2.parse().ok(),
                    text,
                });
            }
        }
        None
    }

    /// A ready sprint held because a live sprint of another unit names the
    /// same files, said once per sprint.
    fn next_hold_notice(&self, state: &State, plan: &crate::plan::Plan) -> Option<EventKind> {
        let runtime = self.store.runtime_dir();
        let mut said: Vec<String> = std::fs::read(runtime.join(HELD))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        for name in crate::machine::dispatchable(state) {
            let Some(sp) = state.unit(&name).and_then(|u| u.current()) else {
                continue;
            };
            let Some(sprint) = plan
                .unit(&name)
                .and_then(|u| u.sprints.iter().find(|s| s.id == sp.id))
            else {
                continue;
            };
            let shared = named_overlap(state, &name, &sprint.files);
            let key = format!("{name}/{}", sp.id);
            if shared.is_empty() || said.contains(&key) {
                continue;
            }
            said.push(key);
            if let Ok(text) = serde_json::to_vec(&said) {
                let _ = std::fs::write(runtime.join(HELD), text);
            }
            let named: Vec<String> = shared
                .iter()
                .map(|(u, s, f)| format!("`{u}` sprint {s} ({})", f.join(", ")))
                .collect();
            return Some(EventKind::Notice {
                unit: Some(name.clone()),
                sprint: Some(sp.id.clone()),
                text: format!(
                    "{name} sprint {} waits for {} to leave: both name the same files (on_overlap = serialize).",
                    sp.id,
                    named.join(" and ")
                ),
            });
        }
        None
    }

    /// Whether merging the two units' branches would conflict.
    fn conflict_predicted(
        &self,
        state: &State,
        config: &crate::config::Config,
        a: &str,
        b: &str,
    ) -> bool {
        let Some(ws) = self.workspaces(state, config) else {
            return false;
        };
        let (a, b) = (ws.unit_branch(a), ws.unit_branch(b));
        std::process::Command::new("git")
            .args(["merge-tree", "--write-tree", "--quiet", &a, &b])
            .current_dir(&self.workdir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.code() == Some(1))
    }
}
