//! The only writer of git objects and refs: the run's state as commits on
//! `refs/supervisor/state` (design §3).
//!
//! Each transition is one commit whose tree holds `state.toml`,
//! `SUPERVISOR_STATE.md`, the plan and config snapshot under `plan/` and the
//! checkpoints. An event's transitions are written as a chain and published
//! with **one** compare-and-swap ref update, so either the whole event lands
//! or none of it does. A writer that loses the race reloads, re-applies its
//! event to the new tip and tries again (bounded, with jitter).

pub mod clock;
pub mod lease;
pub mod message;
pub mod remote;
mod repo;
pub mod rewind;
pub mod sync;
pub mod worktree;
mod write;

pub use self::clock::Clock;

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use gix::bstr::ByteSlice;
use gix::refs::transaction::Change;
use gix::refs::transaction::LogChange;
use gix::refs::transaction::PreviousValue;
use gix::refs::transaction::RefEdit;
use gix::refs::transaction::RefLog;
use gix::refs::Target;
use gix::ObjectId;

use crate::base::runtime;
use crate::machine::State;
use crate::machine::Step;

use self::message::Record;
use write::state_edit;

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
    #[error("{message}")]
    #[diagnostic(code(store::rewound), help("{hint}"))]
    Rewound { message: String, hint: String },
    #[error("remote `{remote}` cannot hold the run: {detail}")]
    #[diagnostic(code(store::remote_unusable), help("{hint}"))]
    RemoteUnusable {
        remote: String,
        detail: String,
        hint: String,
    },
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
        let repo = repo::discover(dir).map_err(|e| StoreError::NotARepository(e.to_string()))?;
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
        self.completion_claims_hiding(&[from], head)
    }

    /// [`Store::completion_claims`] for the commits of `head` that none of
    /// `hidden` holds (several branches scanned before).
    pub fn completion_claims_hiding(
        &self,
        hidden: &[&str],
        head: &str,
    ) -> Option<Vec<(String, String, String)>> {
        let hidden = hidden
            .iter()
            .map(|h| ObjectId::from_hex(h.as_bytes()).ok())
            .collect::<Option<Vec<_>>>()?;
        // A branch scanned before may have been rewritten and its commits
        // pruned since: what is gone hides nothing.
        let hidden: Vec<ObjectId> = hidden
            .into_iter()
            .filter(|id| self.repo.has_object(id))
            .collect();
        let head = ObjectId::from_hex(head.as_bytes()).ok()?;
        let walk = self.repo.rev_walk([head]).with_hidden(hidden).all().ok()?;
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
        lexically_normal(&self.repo.common_dir().join(runtime::DIR))
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

    /// How the state ref reached its tip, from its reflog's last entry:
    /// `Some(true)` when a writer of this clone published it (its entries
    /// read `git-supervisor: …`), `Some(false)` when it arrived from
    /// elsewhere (a `sync` fast-forward, a remote's tip adopted after a
    /// fetch), with the entry's time (Unix seconds); `None` without a
    /// reflog.
    pub fn tip_arrival(&self) -> Option<(bool, i64)> {
        use std::io::Read;
        use std::io::Seek;
        // A long run's reflog is long: only its end is read.
        let path = self.repo.common_dir().join("logs").join(STATE_REF);
        let mut file = std::fs::File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        file.seek(std::io::SeekFrom::Start(len.saturating_sub(8192)))
            .ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        let log = String::from_utf8_lossy(&bytes);
        let last = log.lines().rfind(|l| !l.trim().is_empty())?;
        let (who, message) = last.split_once('\t').unwrap_or((last, ""));
        // `<old> <new> <name> <<email>> <seconds> <zone>`
        let seconds = who.rsplit(' ').nth(1).and_then(|t| t.parse().ok())?;
        Some((message.starts_with("git-supervisor: "), seconds))
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

/// `path` without `.` and with each `name/..` taken out, by the names
/// alone. Seen from a linked worktree the repository's common directory is
/// `<git dir>/worktrees/<name>/../..`: the runtime files built on it (an
/// agent's report, its job) must be the same paths as those the main
/// worktree builds, or a wrapper in a unit's worktree does not find its own
/// dispatch in the run. Git lays out `worktrees/<name>` as directories, so
/// no link is skipped.
pub(crate) fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
