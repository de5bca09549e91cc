//! Leases: a worker's claim on a unit's sprint (or on a phase build),
//! kept alive under `refs/supervisor/leases/<name>` on the remote.
//!
//! A lease is a small parentless commit whose message names the holder and
//! when the claim lapses; renewing it is a compare-and-swap push of a new
//! one, so renewals never add transitions to the state's history (which
//! stays readable) and a renewal that loses to another worker tells the
//! holder its claim is gone.
//!
//! Expiry is judged by the reader's own clock only: a lease says how long it
//! lasts (`Supervisor-Lasts`, seconds), and a clone holds it lapsed once that
//! long has passed since the clone first saw that lease commit (recorded in
//! `.git/supervisor/leases-seen`). Machines' clocks never meet, so a worker
//! whose clock runs minutes fast or slow neither loses its claims early nor
//! takes others' early; a reader that first sees a lease late waits longer,
//! never shorter. `Supervisor-Expires` (the writer's clock) stays for
//! people reading the lease, and judges a lease written without `Lasts`.
//!
//! A lease whose agent is done carries the verdict its worker judged
//! (`verdict.json` in the lease commit's tree, otherwise empty), so that
//! whichever worker pushes the state next records it with its own.

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use gix::ObjectId;

use crate::base::runtime;

use super::git_err;
use super::Store;
use super::StoreError;

/// The file of a lease commit's tree that holds its claim's judged verdict.
pub const VERDICT_FILE: &str = "verdict.json";

/// Where the remote keeps leases.
pub const LEASES_PREFIX: &str = "refs/supervisor/leases/";

/// The ref of the lease on a unit's sprint (or `build`).
pub fn lease_ref(name: &str) -> String {
    format!(
        "{LEASES_PREFIX}{}",
        crate::base::runtime_name::component(name)
    )
}

/// One lease, as written in its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// `<host>/<pid>` of the worker holding it.
    pub worker: String,
    /// The unit (or `build`) it is on.
    pub subject: String,
    /// The sprint's dispatch number it covers (0 for a build).
    pub dispatch: u32,
    /// Unix seconds after which the claim has lapsed.
    pub expires: i64,
}

impl Lease {
    pub fn expired_at(&self, now: i64) -> bool {
        now > self.expires
    }
}

/// The wall clock in unix seconds (leases are real time, never the pinned
/// commit clock).
pub fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl Store {
    /// Write a lease commit (not referenced by anything yet).
    pub fn write_lease(&self, lease: &Lease) -> Result<ObjectId, StoreError> {
        self.write_lease_carrying(lease, None)
    }

    /// Write a lease commit that carries its claim's judged verdict
    /// (`verdict`, as the worker serialized it) when there is one.
    pub fn write_lease_carrying(
        &self,
        lease: &Lease,
        verdict: Option<&str>,
    ) -> Result<ObjectId, StoreError> {
        let mut entries = Vec::new();
        if let Some(text) = verdict {
            entries.push((VERDICT_FILE.to_string(), self.blob(text)?, EntryKind::Blob));
        }
        let tree = self.write_tree(entries)?;
        let (name, email) = self.identity();
        let signature = gix::actor::Signature {
            name: name.into(),
            email: email.into(),
            time: gix::date::Time {
                seconds: now(),
                offset: 0,
            },
        };
        let message = format!(
            "lease: {} for {}\n\nSupervisor-Worker: {}\nSupervisor-Unit: {}\nSupervisor-Dispatch: {}\nSupervisor-Expires: {}\nSupervisor-Lasts: {}\n",
            crate::base::escape::visible(&lease.subject),
            crate::base::escape::visible(&lease.worker),
            crate::base::escape::visible(&lease.worker),
            crate::base::escape::visible(&lease.subject),
            lease.dispatch,
            lease.expires,
            (lease.expires - now()).max(0)
        );
        let commit = gix::objs::Commit {
            tree,
            parents: Default::default(),
            author: signature.clone(),
            committer: signature,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        Ok(self.repo.write_object(&commit).map_err(git_err)?.detach())
    }

    /// Whether the lease commit `id` has lapsed, by this clone's clock:
    /// its `Lasts` seconds have passed since this clone first saw it.
    pub fn lease_lapsed(&self, id: &str, lease: &Lease) -> bool {
        let now = now();
        match self.lease_lasts(id) {
            Some(lasts) => now - self.first_seen(id, now) > lasts,
            None => lease.expired_at(now),
        }
    }

    fn lease_lasts(&self, id: &str) -> Option<i64> {
        let id = ObjectId::from_hex(id.as_bytes()).ok()?;
        let commit = self.repo.find_commit(id).ok()?;
        let message = commit.message_raw().ok()?.to_str_lossy().into_owned();
        message
            .lines()
            .find_map(|l| l.strip_prefix("Supervisor-Lasts: "))
            .and_then(|v| v.trim().parse().ok())
    }

    /// When this clone first saw lease `id` (now, if never), recorded so
    /// that every process of the clone agrees. Two processes recording at
    /// once may lose one's line: it is recorded again later, which only
    /// makes the lease last longer here.
    fn first_seen(&self, id: &str, now: i64) -> i64 {
        let path = self.runtime_dir().join(runtime::LEASES_SEEN);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let seen = text.lines().find_map(|l| {
            let (lease, at) = l.split_once(' ')?;
            (lease == id).then(|| at.parse().ok()).flatten()
        });
        if let Some(at) = seen {
            return at;
        }
        // Leases are renewed every few minutes at most: a week-old sighting
        // is of a lease long gone.
        const KEPT: i64 = 7 * 24 * 3600;
        let mut kept: String = text
            .lines()
            .filter(|l| {
                l.split_once(' ')
                    .and_then(|(_, at)| at.parse::<i64>().ok())
                    .is_some_and(|at| now - at < KEPT)
            })
            .map(|l| format!("{l}\n"))
            .collect();
        kept.push_str(&format!("{id} {now}\n"));
        let beside = path.with_extension(format!("{}.tmp", std::process::id()));
        let written = std::fs::create_dir_all(self.runtime_dir())
            .and_then(|()| std::fs::write(&beside, kept))
            .and_then(|()| std::fs::rename(&beside, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&beside);
        }
        now
    }

    /// The verdict a lease commit carries, if it carries one.
    pub fn lease_verdict(&self, id: &str) -> Option<String> {
        let id = ObjectId::from_hex(id.as_bytes()).ok()?;
        self.file_at(id, VERDICT_FILE).ok().flatten()
    }

    /// Read a lease commit back (`None`: not a lease).
    pub fn read_lease(&self, id: &str) -> Option<Lease> {
        let id = ObjectId::from_hex(id.as_bytes()).ok()?;
        let commit = self.repo.find_commit(id).ok()?;
        let message = commit.message_raw().ok()?.to_str_lossy().into_owned();
        let field = |k: &str| {
            message
                .lines()
                .find_map(|l| l.strip_prefix(&format!("Supervisor-{k}: ")))
                .map(str::to_string)
        };
        Some(Lease {
            worker: field("Worker")?,
            subject: field("Unit")?,
            dispatch: field("Dispatch")?.parse().ok()?,
            expires: field("Expires")?.parse().ok()?,
        })
    }
}
