//! Writing the state ref: one commit per step on the tip, published by one
//! compare-and-swap of the ref (or one leased push when the run lives on a
//! remote), a lost race decided again with jitter, a stale ref lock named;
//! the `active` marker the hook shims test for.

use std::path::PathBuf;
use std::time::Duration;

use gix::bstr::BString;
use gix::objs::tree::Entry;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::Change;
use gix::refs::transaction::LogChange;
use gix::refs::transaction::PreviousValue;
use gix::refs::transaction::RefEdit;
use gix::refs::transaction::RefLog;
use gix::refs::Target;
use gix::ObjectId;

use crate::base::runtime;

use super::git_err;
use super::message;
use super::remote;
use super::Cached;
use super::Published;
use super::RecordedEvent;
use super::Snapshot;
use super::Store;
use super::StoreError;
use super::Tip;
use super::Update;
use super::UpdateError;
use super::EVENT_FILE;
use super::FALLBACK_EMAIL;
use super::FALLBACK_NAME;
use super::MAX_ATTEMPTS;
use super::STALE_LOCK_AGE;
use super::STATE_REF;

/// The compare-and-swap edit moving the state ref from `previous` (absent
/// when `None`) to `new`, with its reflog entry.
pub(super) fn state_edit(previous: Option<ObjectId>, new: ObjectId, message: String) -> RefEdit {
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

pub(super) enum CasError {
    Moved,
    Other(StoreError),
}

/// Back off 1–16 ms (growing with the attempt) before trying again
/// locally.
pub(super) fn jitter(attempt: u32) {
    spread_sleep(attempt, 1 + u64::from(attempt.min(4)) * 4, 1);
}

/// After a push the remote refused: a random wait of up to 50 ms, doubled
/// with each refusal in a row up to 800 ms, before the writer fetches and
/// decides again. Writers that lost to one push would otherwise all fetch
/// its state at once, push again together and all but one lose again.
pub(super) fn backoff(attempt: u32) {
    spread_sleep(attempt, (50u64 << attempt.min(4)) + 1, 0);
}

/// Sleep `least` plus a random part below `span` ms, spread by process,
/// thread and time so racing writers do not retry in lockstep.
fn spread_sleep(attempt: u32, span: u64, least: u64) {
    use std::hash::Hash;
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::process::id().hash(&mut h);
    std::thread::current().id().hash(&mut h);
    std::time::SystemTime::now().hash(&mut h);
    attempt.hash(&mut h);
    std::thread::sleep(Duration::from_millis(least + h.finish() % span));
}

impl Store {
    /// Apply `decide` to the current state and publish what it returns as one
    /// event. `decide` gets the tip (or `None` when no run exists) and returns
    /// `Ok(None)` when there is nothing to write. When another writer moved
    /// the tip in between, `decide` runs again on the new tip: it must be a
    /// pure function of the state it is given.
    pub fn update<E>(
        &self,
        mut decide: impl FnMut(Option<&Tip>) -> Result<Option<Update>, E>,
    ) -> Result<Published, UpdateError<E>> {
        self.update_chain(|tip| Ok(decide(tip)?.into_iter().collect()))
    }

    /// `update` for several events decided together, each on the state the
    /// one before it left: one commit chain, published by one
    /// compare-and-swap (one push on a remote, with every event's other
    /// refs). Each event keeps its own commits and `event.toml`; the chain
    /// lands whole or not at all.
    pub fn update_chain<E>(
        &self,
        mut decide: impl FnMut(Option<&Tip>) -> Result<Vec<Update>, E>,
    ) -> Result<Published, UpdateError<E>> {
        for attempt in 0..MAX_ATTEMPTS {
            let tip = self.tip().map_err(UpdateError::Store)?;
            let updates: Vec<Update> = decide(tip.as_ref())
                .map_err(UpdateError::Decide)?
                .into_iter()
                .filter(|u| !u.steps.is_empty())
                .collect();
            if updates.is_empty() {
                return Ok(Published {
                    tip: tip.map(|t| t.id),
                    steps: Vec::new(),
                });
            }
            let previous = tip.as_ref().map(|t| t.id);
            let mut new_tip = previous;
            for u in &updates {
                new_tip = Some(self.write_chain(new_tip, u).map_err(UpdateError::Store)?);
            }
            let new_tip = new_tip.expect("at least one update with steps");
            crate::store::fault::boundary("objects written, ref not yet updated");
            match self.compare_and_swap(previous, new_tip, &updates) {
                Ok(()) => {
                    crate::store::fault::boundary("event published");
                    self.mark_active(true);
                    let steps: Vec<_> = updates.into_iter().flat_map(|u| u.steps).collect();
                    if let Some(last) = steps.last() {
                        let subtrees = self.last_subtrees.take();
                        *self.last.borrow_mut() = Some(Cached {
                            id: new_tip,
                            state: last.state.clone(),
                            subtrees,
                        });
                    }
                    return Ok(Published {
                        tip: Some(new_tip),
                        steps,
                    });
                }
                Err(CasError::Moved) if self.remote.is_some() => {
                    // The wait comes before the fetch: a state fetched
                    // before it is stale by the time this writer pushes
                    // again (those that won meanwhile moved it), and its
                    // push would be refused again.
                    backoff(attempt);
                    if let Some(remote) = &self.remote {
                        remote.fetch().map_err(UpdateError::Store)?;
                    }
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
    pub(super) fn state_lock_path(&self) -> PathBuf {
        self.repo.common_dir().join(format!("{STATE_REF}.lock"))
    }

    /// How long ago the state ref's lock file was written, when it exists.
    pub(super) fn state_lock_age(&self) -> Option<Duration> {
        let meta = std::fs::metadata(self.state_lock_path()).ok()?;
        Some(
            meta.modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .unwrap_or_default(),
        )
    }

    /// Move a stale lock of the state ref aside and remove it; `false` when
    /// it could not be (the caller names it, with the way out).
    fn remove_stale_lock(&self, age: Duration) -> bool {
        let lock = self.state_lock_path();
        // Out of `refs/`, where git would take the moved file for a ref.
        let runtime = self.repo.common_dir().join(crate::base::runtime::DIR);
        let _ = std::fs::create_dir_all(&runtime);
        let aside = runtime.join(format!("stale-state-lock-{}", std::process::id()));
        if std::fs::rename(&lock, &aside).is_err() {
            // Another process moved it first: the write is simply retried.
            return !lock.exists();
        }
        let _ = std::fs::remove_file(&aside);
        eprintln!(
            "git-supervisor: removed {}, left {}s ago by a process that died while writing the run's state",
            lock.display(),
            age.as_secs()
        );
        true
    }

    pub(super) fn stale_lock(&self) -> StoreError {
        StoreError::StaleLock {
            path: self.state_lock_path().display().to_string(),
        }
    }

    /// Write one commit per step, chained onto `previous`; returns the last.
    /// Nothing is visible until the ref is updated.
    pub(super) fn write_chain(
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
    pub(super) fn subtrees_of(
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

    pub(super) fn checkpoint_tree(
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

    pub(super) fn blob(&self, text: &str) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo
            .write_blob(text.as_bytes())
            .map_err(git_err)?
            .detach())
    }

    pub(super) fn write_tree(
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
    pub(super) fn signature(&self, seq: u64) -> gix::actor::Signature {
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
    pub(super) fn identity(&self) -> (String, String) {
        match self.repo.committer() {
            Some(Ok(sig)) => (sig.name.to_string(), sig.email.to_string()),
            _ => (FALLBACK_NAME.into(), FALLBACK_EMAIL.into()),
        }
    }

    pub(super) fn compare_and_swap(
        &self,
        previous: Option<ObjectId>,
        new: ObjectId,
        updates: &[Update],
    ) -> Result<(), CasError> {
        if let Some(remote) = &self.remote {
            return self.push_to_remote(remote, previous, new, updates);
        }
        let last = updates.iter().flat_map(|u| &u.steps).last();
        let subject = last.map(|s| s.transition.subject()).unwrap_or_default();
        let edit = state_edit(previous, new, format!("git-supervisor: {subject}"));
        let sig = self.signature(last.map(|s| s.state.seq).unwrap_or(0));
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
                    // stays is left by a process that died mid-write: it is
                    // moved aside (one process wins the rename) and the write
                    // tried again, so no run waits for a person over it.
                    return Err(if age <= STALE_LOCK_AGE || self.remove_stale_lock(age) {
                        CasError::Moved
                    } else {
                        CasError::Other(self.stale_lock())
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

    /// The remote's compare-and-swap: the state ref and the updates' other
    /// refs in one atomic push, each under its lease. Refused, the remote's
    /// tip is fetched and adopted so the caller decides again on it.
    pub(super) fn push_to_remote(
        &self,
        remote: &remote::Remote,
        previous: Option<ObjectId>,
        new: ObjectId,
        updates: &[Update],
    ) -> Result<(), CasError> {
        let mut refs = vec![remote::RefPush {
            name: STATE_REF.to_string(),
            new: Some(new.to_string()),
            expected: previous.map(|p| p.to_string()),
        }];
        // A ref two events of the chain move (a verdict that removes a
        // unit's lease, a claim of its next sprint that writes one) is
        // pushed once: from what the first expects to what the last sets.
        for also in updates.iter().flat_map(|u| &u.also) {
            match refs.iter_mut().find(|r| r.name == also.name) {
                Some(r) => r.new = also.new.clone(),
                None => refs.push(also.clone()),
            }
        }
        // Created and removed within the chain: nothing to push.
        refs.retain(|r| r.new.is_some() || r.expected.is_some());
        match remote.push(&refs) {
            Ok(true) => {
                // The local ref is a cache of the remote's: it follows,
                // unless another process of this clone moved it on already.
                let _ = self.set_local(previous, new);
                Ok(())
            }
            // Fetched after the writer's wait (see `update_chain`).
            Ok(false) => Err(CasError::Moved),
            Err(e) => Err(CasError::Other(e)),
        }
    }

    /// Move the local state ref from `previous` to `new` (compare-and-swap).
    pub(super) fn set_local(
        &self,
        previous: Option<ObjectId>,
        new: ObjectId,
    ) -> Result<(), StoreError> {
        self.edit_state(previous, new, "published to the remote")
    }

    /// `<common>/supervisor/active` exists while a run exists, so that hook
    /// shims can tell with a shell builtin whether to call us at all (the
    /// state ref may be packed). Disposable: any write recreates it.
    pub(super) fn mark_active(&self, active: bool) {
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
}
