//! The only writer of git objects and refs: the run's state as commits on
//! `refs/supervisor/state` (design §3).
//!
//! Each transition is one commit whose tree holds `state.toml`,
//! `SUPERVISOR_STATE.md`, the plan and config snapshot under `plan/` and the
//! checkpoints. An event's transitions are written as a chain and published
//! with **one** compare-and-swap ref update, so either the whole event lands
//! or none of it does. A writer that loses the race reloads, re-applies its
//! event to the new tip and tries again (bounded, with jitter).

use crate::base::runtime;

pub mod clock;
pub mod lease;
pub mod message;
pub mod remote;
pub mod sync;
pub mod worktree;

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use gix::bstr::BString;
use gix::bstr::ByteSlice;
use gix::objs::tree::Entry;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::Change;
use gix::refs::transaction::LogChange;
use gix::refs::transaction::PreviousValue;
use gix::refs::transaction::RefEdit;
use gix::refs::transaction::RefLog;
use gix::refs::Target;
use gix::ObjectId;

pub use self::clock::Clock;
use self::message::Record;
use crate::machine::State;
use crate::machine::Step;

pub const STATE_REF: &str = "refs/supervisor/state";
pub const RUNS_PREFIX: &str = "refs/supervisor/runs/";
const FALLBACK_NAME: &str = "git-supervisor";
const FALLBACK_EMAIL: &str = "supervisor@localhost";
/// How often a writer that keeps losing the CAS race tries again.
const MAX_ATTEMPTS: u32 = 200;
/// A state-ref lock older than this was left by a process that died.
const STALE_LOCK_AGE: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum StoreError {
    #[error("not inside a git repository: {0}")]
    #[diagnostic(code(store::not_a_repository), help("run git supervisor inside the project's git repository (git init first if it has none)"))]
    NotARepository(String),
    #[error("this repository uses the reftable ref format, which git supervisor does not support")]
    #[diagnostic(
        code(store::reftable),
        help(
            "git supervisor needs the files ref backend; see `git refs migrate --ref-format=files`"
        )
    )]
    Reftable,
    #[error("this repository uses the {0} object format; git supervisor supports sha1 repositories only")]
    #[diagnostic(code(store::object_format))]
    ObjectFormat(String),
    #[error("{STATE_REF} changed while this command was writing, {MAX_ATTEMPTS} times in a row")]
    #[diagnostic(
        code(store::contention),
        help("another git supervisor process keeps writing; try again")
    )]
    Contention,
    #[error("{path} exists, so git cannot update {STATE_REF}")]
    #[diagnostic(
        code(store::stale_lock),
        help("a git process that died while writing left this lock; when no git or git supervisor command is running, remove it: rm '{path}'")
    )]
    StaleLock { path: String },
    #[error("the state at {commit} is unreadable: {reason}")]
    #[diagnostic(code(store::corrupt))]
    Corrupt { commit: String, reason: String },
    #[error("git: {0}")]
    #[diagnostic(code(store::git))]
    Git(String),
    #[error("cannot reach the run on remote `{remote}`: {detail}")]
    #[diagnostic(
        code(store::remote),
        help("check `git remote -v` and that `git fetch {remote}` works from this clone")
    )]
    Remote { remote: String, detail: String },
}

fn git_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Git(e.to_string())
}

/// The plan and config a run was started (or re-planned) with: commands are
/// only ever run from this snapshot, never from the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub plan: String,
    pub config: String,
}

/// The published state and where it is.
#[derive(Debug, Clone)]
pub struct Tip {
    pub id: ObjectId,
    pub state: State,
}

/// Where a state commit records the event its steps come from.
const EVENT_FILE: &str = "event.toml";

/// The event a chain of state commits comes from, as its first commit
/// records it (`event.toml`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordedEvent {
    /// The `Supervisor-Event` name.
    pub name: String,
    pub at: String,
    /// The whole event, when it can be decided again on another state
    /// (not for one that brought a plan snapshot or checkpoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::machine::EventKind>,
}

/// What a writer wants to publish for one event.
pub struct Update {
    pub steps: Vec<Step>,
    /// `SUPERVISOR_STATE.md` after each step, rendered by the caller (the
    /// engine, through `report::state_md`): the store writes the blobs it is
    /// given and never renders. One per step.
    pub state_md: Vec<String>,
    /// A new plan/config snapshot (start, replan); `None` keeps the tip's.
    pub snapshot: Option<Snapshot>,
    /// Checkpoint files to add to the tree (`checkpoints/<name>`).
    pub checkpoints: Vec<(String, String)>,
    /// Other refs the same atomic push moves, in a run on a remote (a
    /// claim's lease, a verdict's merge). Ignored by a local run.
    pub also: Vec<remote::RefPush>,
    /// The event the steps come from, recorded as `event.toml` in the first
    /// step's commit (a replan's is not: it carries the plan).
    pub event: Option<crate::machine::Event>,
}

pub struct Store {
    repo: gix::Repository,
    clock: Clock,
    /// The last tip this store read or published, so that a writer whose ref
    /// has not moved does not read its own state back from the object
    /// database. Keyed by commit id: a stale entry is never used.
    last: std::cell::RefCell<Option<Cached>>,
    /// The subtrees of the chain being written, for the cache once it lands.
    last_subtrees: std::cell::Cell<(Option<ObjectId>, Option<ObjectId>)>,
    /// The remote the run lives on: events are published there first.
    remote: Option<remote::Remote>,
}

#[derive(Clone)]
struct Cached {
    id: ObjectId,
    state: State,
    subtrees: (Option<ObjectId>, Option<ObjectId>),
}

impl Store {
    /// Open the repository containing `dir`.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let repo = gix::discover(dir).map_err(|e| StoreError::NotARepository(e.to_string()))?;
        let reftable = repo
            .config_snapshot()
            .string("extensions.refStorage")
            .is_some_and(|v| v.to_str_lossy().eq_ignore_ascii_case("reftable"));
        if reftable {
            return Err(StoreError::Reftable);
        }
        if repo.object_hash() != gix::hash::Kind::Sha1 {
            return Err(StoreError::ObjectFormat(format!(
                "{:?}",
                repo.object_hash()
            )));
        }
        Ok(Store {
            repo,
            clock: Clock::from_env(),
            last: std::cell::RefCell::new(None),
            last_subtrees: std::cell::Cell::new((None, None)),
            remote: None,
        })
    }

    /// Publish every event to `remote` first (a run that lives there).
    pub fn with_remote(mut self, remote: &str) -> Self {
        let dir = self
            .repo
            .workdir()
            .unwrap_or_else(|| self.repo.git_dir())
            .to_path_buf();
        self.remote = Some(remote::Remote::new(&dir, &self.runtime_dir(), remote));
        self
    }

    /// The remote the run lives on, when it lives on one.
    pub fn remote(&self) -> Option<&remote::Remote> {
        self.remote.as_ref()
    }

    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Use `clock` instead of the environment's.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The repository's working tree, if it has one.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// The commit HEAD points at, if any (read without spawning git).
    pub fn head_id(&self) -> Option<String> {
        self.repo.head_id().ok().map(|id| id.to_string())
    }

    /// Commits in `from..head` that mark sprints complete with their trailers
    /// (`Supervisor-Sprint: <unit>/<id>` + `Supervisor-Status: complete`), as
    /// (unit, sprint, commit), oldest first. Walked in-process: only the new
    /// commits are visited (everything reachable from `from` is hidden).
    /// `None` when the walk cannot be done here (the caller falls back to git).
    pub fn completion_claims(
        &self,
        from: &str,
        head: &str,
    ) -> Option<Vec<(String, String, String)>> {
        let from = ObjectId::from_hex(from.as_bytes()).ok()?;
        let head = ObjectId::from_hex(head.as_bytes()).ok()?;
        let walk = self.repo.rev_walk([head]).with_hidden([from]).all().ok()?;
        let mut claims = Vec::new();
        for info in walk {
            let info = info.ok()?;
            let commit = self.repo.find_commit(info.id).ok()?;
            let message = commit.message_raw().ok()?.to_str_lossy().into_owned();
            let mut sprints = Vec::new();
            let mut complete = false;
            for line in message.lines() {
                if let Some(v) = line.strip_prefix("Supervisor-Sprint:") {
                    sprints.push(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("Supervisor-Status:") {
                    complete |= v.trim() == "complete";
                }
            }
            if complete {
                for marker in sprints {
                    if let Some((unit, sprint)) = marker.rsplit_once('/') {
                        claims.push((unit.to_string(), sprint.to_string(), info.id.to_string()));
                    }
                }
            }
        }
        claims.reverse();
        Some(claims)
    }

    /// The git common dir; runtime files live under `<common>/supervisor/`.
    pub fn runtime_dir(&self) -> PathBuf {
        self.repo.common_dir().join(runtime::DIR)
    }

    fn tip_id(&self) -> Result<Option<ObjectId>, StoreError> {
        let reference = self.repo.try_find_reference(STATE_REF).map_err(git_err)?;
        match reference {
            None => Ok(None),
            // State refs point straight at commits: no peeling (which would
            // read the object to check for a tag).
            Some(mut r) => match r.target().try_id() {
                Some(id) => Ok(Some(id.to_owned())),
                None => Ok(Some(r.peel_to_id().map_err(git_err)?.detach())),
            },
        }
    }

    /// The published state, or `None` when no run exists.
    pub fn tip(&self) -> Result<Option<Tip>, StoreError> {
        let Some(id) = self.tip_id()? else {
            return Ok(None);
        };
        if let Some(c) = self.last.borrow().as_ref().filter(|c| c.id == id) {
            return Ok(Some(Tip {
                id,
                state: c.state.clone(),
            }));
        }
        let state = self.state_at(id)?;
        Ok(Some(Tip { id, state }))
    }

    fn file_at(&self, commit: ObjectId, path: &str) -> Result<Option<String>, StoreError> {
        let corrupt = |reason: String| StoreError::Corrupt {
            commit: commit.to_string(),
            reason,
        };
        let tree = self
            .repo
            .find_commit(commit)
            .map_err(|e| corrupt(e.to_string()))?
            .tree()
            .map_err(|e| corrupt(e.to_string()))?;
        let Some(entry) = tree
            .lookup_entry_by_path(path)
            .map_err(|e| corrupt(e.to_string()))?
        else {
            return Ok(None);
        };
        let blob = self
            .repo
            .find_blob(entry.object_id())
            .map_err(|e| corrupt(e.to_string()))?;
        String::from_utf8(blob.data.clone())
            .map(Some)
            .map_err(|e| corrupt(format!("{path} is not UTF-8: {e}")))
    }

    pub fn state_at(&self, commit: ObjectId) -> Result<State, StoreError> {
        let text = self
            .file_at(commit, "state.toml")?
            .ok_or_else(|| StoreError::Corrupt {
                commit: commit.to_string(),
                reason: "no state.toml in its tree".into(),
            })?;
        toml::from_str(&text).map_err(|e| StoreError::Corrupt {
            commit: commit.to_string(),
            reason: format!("state.toml: {}", e.message()),
        })
    }

    /// The event recorded in `commit`: the first commit of each event's
    /// steps has one; `None` for the others (and older runs').
    pub fn event_at(&self, commit: ObjectId) -> Result<Option<RecordedEvent>, StoreError> {
        let Some(text) = self.file_at(commit, EVENT_FILE)? else {
            return Ok(None);
        };
        toml::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                commit: commit.to_string(),
                reason: format!("{EVENT_FILE}: {}", e.message()),
            })
    }

    /// The commit a ref names, when it exists (a remote-tracking one, say).
    pub fn ref_id(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        match self.repo.try_find_reference(name).map_err(git_err)? {
            None => Ok(None),
            Some(mut r) => Ok(Some(r.peel_to_id().map_err(git_err)?.detach())),
        }
    }

    /// Where two state histories part: the last commit on `ours` that
    /// `theirs` also has, and the commits of `ours` after it, oldest first
    /// (`None`: no common history). State histories are first-parent
    /// chains.
    pub fn parting(
        &self,
        ours: ObjectId,
        theirs: ObjectId,
    ) -> Result<Option<(ObjectId, Vec<ObjectId>)>, StoreError> {
        let first_parent = |id: ObjectId| -> Result<Option<ObjectId>, StoreError> {
            let commit = self.repo.find_commit(id).map_err(git_err)?;
            let parent = commit.parent_ids().next().map(|p| p.detach());
            Ok(parent)
        };
        let mut shared = std::collections::HashSet::new();
        let mut at = Some(theirs);
        while let Some(id) = at {
            shared.insert(id);
            at = first_parent(id)?;
        }
        let mut only_ours = Vec::new();
        let mut at = Some(ours);
        while let Some(id) = at {
            if shared.contains(&id) {
                only_ours.reverse();
                return Ok(Some((id, only_ours)));
            }
            only_ours.push(id);
            at = first_parent(id)?;
        }
        Ok(None)
    }

    /// Move the local state ref from `previous` to `new` (compare-and-swap;
    /// fails when another writer moved it first).
    pub fn move_state(
        &self,
        previous: ObjectId,
        new: ObjectId,
        why: &str,
    ) -> Result<(), StoreError> {
        self.edit_state(Some(previous), new, why)?;
        *self.last.borrow_mut() = None;
        Ok(())
    }

    /// The compare-and-swap of the local state ref, its reflog entry signed
    /// with the store's identity (a clone without a git identity too).
    fn edit_state(
        &self,
        previous: Option<ObjectId>,
        new: ObjectId,
        why: &str,
    ) -> Result<(), StoreError> {
        let edit = state_edit(previous, new, format!("git-supervisor: {why}"));
        let sig = self.signature(0);
        let mut buf = gix::date::parse::TimeBuf::default();
        self.repo
            .edit_references_as(Some(edit), Some(sig.to_ref(&mut buf)))
            .map_err(git_err)?;
        Ok(())
    }

    /// Write `update`'s steps as commits chained onto `previous` without
    /// moving any ref: `sync` publishes them itself.
    pub fn write_onto(&self, previous: ObjectId, update: &Update) -> Result<ObjectId, StoreError> {
        self.write_chain(Some(previous), update)
    }

    /// The plan and config snapshot at `commit`.
    pub fn snapshot_at(&self, commit: ObjectId) -> Result<Snapshot, StoreError> {
        Ok(Snapshot {
            plan: self
                .file_at(commit, "plan/EXECUTION_PLAN.md")?
                .unwrap_or_default(),
            config: self
                .file_at(commit, "plan/config.toml")?
                .unwrap_or_default(),
        })
    }

    /// A file under `checkpoints/` at `commit`.
    pub fn checkpoint_at(
        &self,
        commit: ObjectId,
        name: &str,
    ) -> Result<Option<String>, StoreError> {
        self.file_at(commit, &format!("checkpoints/{name}"))
    }

    /// Names of the checkpoint files at `commit`, sorted.
    pub fn checkpoints_at(&self, commit: ObjectId) -> Result<Vec<String>, StoreError> {
        let tree = self
            .repo
            .find_commit(commit)
            .map_err(git_err)?
            .tree()
            .map_err(git_err)?;
        let Some(entry) = tree.lookup_entry_by_path("checkpoints").map_err(git_err)? else {
            return Ok(Vec::new());
        };
        let sub = self.repo.find_tree(entry.object_id()).map_err(git_err)?;
        let decoded = sub.decode().map_err(git_err)?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| e.filename.to_string())
            .collect())
    }

    /// Apply `decide` to the current state and publish what it returns as one
    /// event. `decide` gets the tip (or `None` when no run exists) and returns
    /// `Ok(None)` when there is nothing to write. When another writer moved
    /// the tip in between, `decide` runs again on the new tip: it must be a
    /// pure function of the state it is given.
    pub fn update<E>(
        &self,
        mut decide: impl FnMut(Option<&Tip>) -> Result<Option<Update>, E>,
    ) -> Result<Published, UpdateError<E>> {
        for attempt in 0..MAX_ATTEMPTS {
            let tip = self.tip().map_err(UpdateError::Store)?;
            let Some(update) = decide(tip.as_ref()).map_err(UpdateError::Decide)? else {
                return Ok(Published {
                    tip: tip.map(|t| t.id),
                    steps: Vec::new(),
                });
            };
            if update.steps.is_empty() {
                return Ok(Published {
                    tip: tip.map(|t| t.id),
                    steps: Vec::new(),
                });
            }
            let previous = tip.as_ref().map(|t| t.id);
            let new_tip = self
                .write_chain(previous, &update)
                .map_err(UpdateError::Store)?;
            crate::store::fault::boundary("objects written, ref not yet updated");
            match self.compare_and_swap(previous, new_tip, &update) {
                Ok(()) => {
                    crate::store::fault::boundary("event published");
                    self.mark_active(true);
                    if let Some(last) = update.steps.last() {
                        let subtrees = self.last_subtrees.take();
                        *self.last.borrow_mut() = Some(Cached {
                            id: new_tip,
                            state: last.state.clone(),
                            subtrees,
                        });
                    }
                    return Ok(Published {
                        tip: Some(new_tip),
                        steps: update.steps,
                    });
                }
                Err(CasError::Moved) => jitter(attempt),
                Err(CasError::Other(e)) => return Err(UpdateError::Store(e)),
            }
        }
        if self.state_lock_age().is_some() {
            return Err(UpdateError::Store(self.stale_lock()));
        }
        Err(UpdateError::Store(StoreError::Contention))
    }

    /// The lock file git takes to update the state ref.
    fn state_lock_path(&self) -> PathBuf {
        self.repo.common_dir().join(format!("{STATE_REF}.lock"))
    }

    /// How long ago the state ref's lock file was written, when it exists.
    fn state_lock_age(&self) -> Option<Duration> {
        let meta = std::fs::metadata(self.state_lock_path()).ok()?;
        Some(
            meta.modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .unwrap_or_default(),
        )
    }

    fn stale_lock(&self) -> StoreError {
        StoreError::StaleLock {
            path: self.state_lock_path().display().to_string(),
        }
    }

    /// Write one commit per step, chained onto `previous`; returns the last.
    /// Nothing is visible until the ref is updated.
    fn write_chain(
        &self,
        previous: Option<ObjectId>,
        update: &Update,
    ) -> Result<ObjectId, StoreError> {
        // The plan snapshot and the checkpoints change rarely: reuse the
        // previous commit's subtrees unless this event replaces them.
        let cached = self
            .last
            .borrow()
            .as_ref()
            .filter(|c| Some(c.id) == previous)
            .map(|c| c.subtrees);
        let (carried_plan, carried_checkpoints) = match (cached, previous) {
            (Some(subtrees), _) => subtrees,
            (None, Some(p)) => self.subtrees_of(p)?,
            (None, None) => (None, None),
        };
        let plan_tree = match (&update.snapshot, carried_plan) {
            (None, Some(tree)) => tree,
            (snapshot, _) => {
                let empty = Snapshot {
                    plan: String::new(),
                    config: String::new(),
                };
                let s = snapshot.as_ref().unwrap_or(&empty);
                self.write_tree(vec![
                    (
                        "EXECUTION_PLAN.md".into(),
                        self.blob(&s.plan)?,
                        EntryKind::Blob,
                    ),
                    ("config.toml".into(), self.blob(&s.config)?, EntryKind::Blob),
                ])?
            }
        };
        let checkpoints = if update.checkpoints.is_empty() {
            carried_checkpoints
        } else {
            self.checkpoint_tree(previous, &update.checkpoints)?
        };
        self.last_subtrees.set((Some(plan_tree), checkpoints));
        let recorded = match &update.event {
            Some(e) => {
                // An event that brings files along (a plan snapshot,
                // checkpoints) is named but not kept: it cannot be decided
                // again elsewhere without them.
                let replayable = update.snapshot.is_none()
                    && update.checkpoints.is_empty()
                    && !matches!(e.kind, crate::machine::EventKind::Replan { .. });
                let record = RecordedEvent {
                    name: e.kind.name().to_string(),
                    at: e.at.clone(),
                    kind: replayable.then(|| e.kind.clone()),
                };
                Some(
                    toml::to_string(&record)
                        .map_err(|e| StoreError::Git(format!("cannot serialize the event: {e}")))?,
                )
            }
            None => None,
        };
        let mut parent = previous;
        for (n, step) in update.steps.iter().enumerate() {
            let state_toml = toml::to_string(&step.state)
                .map_err(|e| StoreError::Git(format!("cannot serialize the state: {e}")))?;
            let rendered = update.state_md.get(n).ok_or_else(|| {
                StoreError::Git(format!(
                    "{} steps but {} renderings of SUPERVISOR_STATE.md",
                    update.steps.len(),
                    update.state_md.len()
                ))
            })?;
            let mut entries = vec![
                (
                    "SUPERVISOR_STATE.md".to_string(),
                    self.blob(rendered)?,
                    EntryKind::Blob,
                ),
                ("plan".to_string(), plan_tree, EntryKind::Tree),
                (
                    "state.toml".to_string(),
                    self.blob(&state_toml)?,
                    EntryKind::Blob,
                ),
            ];
            if let Some(c) = checkpoints {
                entries.push(("checkpoints".to_string(), c, EntryKind::Tree));
            }
            if let Some(text) = recorded.as_ref().filter(|_| n == 0) {
                entries.push((EVENT_FILE.to_string(), self.blob(text)?, EntryKind::Blob));
            }
            let tree = self.write_tree(entries)?;
            let signature = self.signature(step.state.seq);
            let msg = message::format(&step.transition, step.state.seq, &step.state.run_id);
            let commit = gix::objs::Commit {
                tree,
                parents: parent.into_iter().collect(),
                author: signature.clone(),
                committer: signature,
                encoding: None,
                message: msg.into(),
                extra_headers: Vec::new(),
            };
            let id = self.repo.write_object(&commit).map_err(git_err)?.detach();
            parent = Some(id);
        }
        parent.ok_or_else(|| StoreError::Git("no steps to write".into()))
    }

    /// The `plan` and `checkpoints` subtrees of a state commit.
    fn subtrees_of(
        &self,
        commit: ObjectId,
    ) -> Result<(Option<ObjectId>, Option<ObjectId>), StoreError> {
        let tree = self
            .repo
            .find_commit(commit)
            .map_err(git_err)?
            .tree()
            .map_err(git_err)?;
        let decoded = tree.decode().map_err(git_err)?;
        let find = |name: &str| {
            decoded
                .entries
                .iter()
                .find(|e| e.filename == name && e.mode.is_tree())
                .map(|e| e.oid.to_owned())
        };
        Ok((find("plan"), find("checkpoints")))
    }

    fn checkpoint_tree(
        &self,
        previous: Option<ObjectId>,
        added: &[(String, String)],
    ) -> Result<Option<ObjectId>, StoreError> {
        let mut entries: Vec<(String, ObjectId, EntryKind)> = Vec::new();
        if let Some(p) = previous {
            for name in self.checkpoints_at(p)? {
                if added.iter().any(|(n, _)| *n == name) {
                    continue;
                }
                let text = self.checkpoint_at(p, &name)?.unwrap_or_default();
                entries.push((name, self.blob(&text)?, EntryKind::Blob));
            }
        }
        for (name, text) in added {
            entries.push((name.clone(), self.blob(text)?, EntryKind::Blob));
        }
        if entries.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.write_tree(entries)?))
    }

    fn blob(&self, text: &str) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo
            .write_blob(text.as_bytes())
            .map_err(git_err)?
            .detach())
    }

    fn write_tree(
        &self,
        mut entries: Vec<(String, ObjectId, EntryKind)>,
    ) -> Result<ObjectId, StoreError> {
        // Git orders tree entries by name, with directories compared as if
        // they ended in '/'.
        entries.sort_by(|a, b| {
            let key = |(n, _, k): &(String, ObjectId, EntryKind)| {
                let mut v = n.as_bytes().to_vec();
                if *k == EntryKind::Tree {
                    v.push(b'/');
                }
                v
            };
            key(a).cmp(&key(b))
        });
        let tree = gix::objs::Tree {
            entries: entries
                .into_iter()
                .map(|(name, oid, kind)| Entry {
                    mode: kind.into(),
                    filename: BString::from(name),
                    oid,
                })
                .collect(),
        };
        Ok(self.repo.write_object(&tree).map_err(git_err)?.detach())
    }

    /// Author, committer and reflog identity for transition number `seq`.
    fn signature(&self, seq: u64) -> gix::actor::Signature {
        let (name, email) = self.identity();
        gix::actor::Signature {
            name: name.into(),
            email: email.into(),
            time: gix::date::Time {
                seconds: self.clock.at_seq(seq).unix_timestamp(),
                offset: 0,
            },
        }
    }

    /// The user's git identity if configured, else git supervisor's own.
    fn identity(&self) -> (String, String) {
        match self.repo.committer() {
            Some(Ok(sig)) => (sig.name.to_string(), sig.email.to_string()),
            _ => (FALLBACK_NAME.into(), FALLBACK_EMAIL.into()),
        }
    }

    fn compare_and_swap(
        &self,
        previous: Option<ObjectId>,
        new: ObjectId,
        update: &Update,
    ) -> Result<(), CasError> {
        if let Some(remote) = &self.remote {
            return self.push_to_remote(remote, previous, new, update);
        }
        let subject = update
            .steps
            .last()
            .map(|s| s.transition.subject())
            .unwrap_or_default();
        let edit = state_edit(previous, new, format!("git-supervisor: {subject}"));
        let sig = self.signature(update.steps.last().map(|s| s.state.seq).unwrap_or(0));
        let mut buf = gix::date::parse::TimeBuf::default();
        match self
            .repo
            .edit_references_as(Some(edit), Some(sig.to_ref(&mut buf)))
        {
            Ok(_) => Ok(()),
            Err(e) => {
                // Whatever the error (a lock held by another writer, a value
                // that no longer matches), it is a lost race if the ref moved.
                if let Some(age) = self.state_lock_age() {
                    // A live writer holds its lock for milliseconds; one that
                    // stays is left by a process that died mid-write.
                    return Err(if age > STALE_LOCK_AGE {
                        CasError::Other(self.stale_lock())
                    } else {
                        CasError::Moved
                    });
                }
                match self.tip_id() {
                    Ok(now) if now != previous => Err(CasError::Moved),
                    Ok(_) if e.to_string().contains("lock") => Err(CasError::Moved),
                    _ => Err(CasError::Other(git_err(e))),
                }
            }
        }
    }

    /// The remote's compare-and-swap: the state ref and the update's other
    /// refs in one atomic push, each under its lease. Refused, the remote's
    /// tip is fetched and adopted so the caller decides again on it.
    fn push_to_remote(
        &self,
        remote: &remote::Remote,
        previous: Option<ObjectId>,
        new: ObjectId,
        update: &Update,
    ) -> Result<(), CasError> {
        let mut refs = vec![remote::RefPush {
            name: STATE_REF.to_string(),
            new: Some(new.to_string()),
            expected: previous.map(|p| p.to_string()),
        }];
        refs.extend(update.also.iter().cloned());
        match remote.push(&refs) {
            Ok(true) => {
                // The local ref is a cache of the remote's: it follows,
                // unless another process of this clone moved it on already.
                let _ = self.set_local(previous, new);
                Ok(())
            }
            Ok(false) => match remote.fetch() {
                Ok(()) => Err(CasError::Moved),
                Err(e) => Err(CasError::Other(e)),
            },
            Err(e) => Err(CasError::Other(e)),
        }
    }

    /// Move the local state ref from `previous` to `new` (compare-and-swap).
    fn set_local(&self, previous: Option<ObjectId>, new: ObjectId) -> Result<(), StoreError> {
        self.edit_state(previous, new, "published to the remote")
    }

    /// `<common>/supervisor/active` exists while a run exists, so that hook
    /// shims can tell with a shell builtin whether to call us at all (the
    /// state ref may be packed). Disposable: any write recreates it.
    fn mark_active(&self, active: bool) {
        let path = self.runtime_dir().join(runtime::ACTIVE);
        if active {
            if !path.exists() {
                let _ = std::fs::create_dir_all(self.runtime_dir());
                let _ = std::fs::write(&path, b"");
            }
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }

    /// Move a finished run to `refs/supervisor/runs/<run-id>` and remove
    /// `refs/supervisor/state`, in one transaction.
    pub fn archive_run(&self, tip: &Tip) -> Result<String, StoreError> {
        let name = format!("{RUNS_PREFIX}{}", tip.state.run_id);
        if let Some(remote) = &self.remote {
            let moved = [
                remote::RefPush {
                    name: name.clone(),
                    new: Some(tip.id.to_string()),
                    expected: None,
                },
                remote::RefPush {
                    name: STATE_REF.into(),
                    new: None,
                    expected: Some(tip.id.to_string()),
                },
            ];
            if !remote.push(&moved)? {
                remote.fetch()?;
                return Err(StoreError::Contention);
            }
        }
        let edits = vec![
            RefEdit {
                change: Change::Update {
                    log: LogChange {
                        mode: RefLog::AndReference,
                        force_create_reflog: true,
                        message: "git-supervisor: archive finished run".into(),
                    },
                    expected: PreviousValue::MustNotExist,
                    new: Target::Object(tip.id),
                },
                name: name.as_str().try_into().map_err(git_err)?,
                deref: false,
            },
            RefEdit {
                change: Change::Delete {
                    expected: PreviousValue::MustExistAndMatch(Target::Object(tip.id)),
                    log: RefLog::AndReference,
                },
                name: STATE_REF.try_into().expect("a valid ref name"),
                deref: false,
            },
        ];
        let sig = self.signature(tip.state.seq);
        let mut buf = gix::date::parse::TimeBuf::default();
        self.repo
            .edit_references_as(edits, Some(sig.to_ref(&mut buf)))
            .map_err(git_err)?;
        self.mark_active(false);
        Ok(name)
    }

    /// The transition history, newest first (first-parent walk from the tip).
    pub fn history(&self, limit: Option<usize>) -> Result<Vec<Record>, StoreError> {
        let mut out = Vec::new();
        let mut next = self.tip_id()?;
        while let Some(id) = next {
            if limit.is_some_and(|l| out.len() >= l) {
                break;
            }
            let commit = self.repo.find_commit(id).map_err(git_err)?;
            let time = commit.time().map_err(git_err)?;
            let when = time::OffsetDateTime::from_unix_timestamp(time.seconds)
                .map(clock::iso)
                .unwrap_or_default();
            let msg = commit
                .message_raw()
                .map_err(git_err)?
                .to_str_lossy()
                .into_owned();
            out.push(message::parse(&id.to_string(), &when, &msg));
            next = commit.parent_ids().next().map(|p| p.detach());
        }
        Ok(out)
    }
}

/// The compare-and-swap edit moving the state ref from `previous` (absent
/// when `None`) to `new`, with its reflog entry.
fn state_edit(previous: Option<ObjectId>, new: ObjectId, message: String) -> RefEdit {
    let expected = match previous {
        Some(p) => PreviousValue::MustExistAndMatch(Target::Object(p)),
        None => PreviousValue::MustNotExist,
    };
    RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: true,
                message: message.into(),
            },
            expected,
            new: Target::Object(new),
        },
        name: STATE_REF.try_into().expect("a valid ref name"),
        deref: false,
    }
}

/// What an update published.
#[derive(Debug)]
pub struct Published {
    /// The tip after the update (unchanged when nothing was written).
    pub tip: Option<ObjectId>,
    pub steps: Vec<Step>,
}

#[derive(Debug, thiserror::Error)]
pub enum UpdateError<E> {
    #[error(transparent)]
    Store(StoreError),
    #[error(transparent)]
    Decide(E),
}

enum CasError {
    Moved,
    Other(StoreError),
}

/// Back off 1–16 ms (growing with the attempt), spread by process and time so
/// racing writers do not retry in lockstep.
fn jitter(attempt: u32) {
    use std::hash::Hash;
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::process::id().hash(&mut h);
    std::thread::current().id().hash(&mut h);
    std::time::SystemTime::now().hash(&mut h);
    attempt.hash(&mut h);
    let cap = 1 + u64::from(attempt.min(4)) * 4;
    std::thread::sleep(Duration::from_millis(1 + h.finish() % cap));
}

pub mod fault {
    //! A debugging aid for crash testing: with `GIT_SUPERVISOR_FAULT_AT=N`
    //! the process that reaches the Nth write boundary of the whole run
    //! aborts there, as a crash would. Boundaries: objects written but not
    //! published, event published, DISPATCHED written but agent not started,
    //! a phase build about to run. The count is shared by every process of
    //! the run through `GIT_SUPERVISOR_FAULT_COUNTER` (a file), so wrappers
    //! and hooks crash too.

    use std::io::Read;
    use std::io::Seek;
    use std::io::Write;

    pub const ENV: &str = "GIT_SUPERVISOR_FAULT_AT";
    pub const COUNTER: &str = "GIT_SUPERVISOR_FAULT_COUNTER";

    pub fn boundary(what: &str) {
        let Some(target) = std::env::var(ENV).ok().and_then(|v| v.parse::<u64>().ok()) else {
            return;
        };
        let Some(path) = std::env::var_os(COUNTER) else {
            // No shared counter: count this process's boundaries only.
            static LOCAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = LOCAL.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            if n == target {
                eprintln!(
                    "git-supervisor: {ENV}={target}: aborting at write boundary {n} ({what})"
                );
                std::process::abort();
            }
            return;
        };
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
        else {
            return;
        };
        let mut lock = fd_lock::RwLock::new(file);
        let Ok(mut guard) = lock.write() else {
            return;
        };
        let mut text = String::new();
        let _ = guard.read_to_string(&mut text);
        let n = text.trim().parse::<u64>().unwrap_or(0) + 1;
        let _ = guard.set_len(0);
        let _ = guard.rewind();
        let _ = write!(guard, "{n}");
        let _ = guard.flush();
        drop(guard);
        if n == target {
            eprintln!("git-supervisor: {ENV}={target}: aborting at write boundary {n} ({what})");
            std::process::abort();
        }
    }
}
