//! Leases: a worker's claim on a unit's sprint (or on a phase build),
//! kept alive under `refs/supervisor/leases/<name>` on the remote.
//!
//! A lease is a small parentless commit whose message names the holder and
//! when the claim lapses; renewing it is a compare-and-swap push of a new
//! one, so renewals never add transitions to the state's history (which
//! stays readable) and a renewal that loses to another worker tells the
//! holder its claim is gone. Expiry is judged by the wall clock of whoever
//! reads the lease: the holder writes `expires` from its own clock, so the
//! lease length must be much longer than the clock skew between machines.

use gix::bstr::ByteSlice;
use gix::ObjectId;

use super::git_err;
use super::Store;
use super::StoreError;

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
        let tree = self.write_tree(Vec::new())?;
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
            "lease: {} for {}\n\nSupervisor-Worker: {}\nSupervisor-Unit: {}\nSupervisor-Dispatch: {}\nSupervisor-Expires: {}\n",
            crate::base::escape::visible(&lease.subject),
            crate::base::escape::visible(&lease.worker),
            crate::base::escape::visible(&lease.worker),
            crate::base::escape::visible(&lease.subject),
            lease.dispatch,
            lease.expires
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
