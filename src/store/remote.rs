//! A run that lives on a git remote (`start --remote`, `worker`): the
//! remote's `refs/supervisor/state` is the single source of truth and the
//! local ref is a cache of it.
//!
//! Every event is decided against the state last fetched and published with
//! one `git push --porcelain --atomic --force-with-lease=<ref>:<expected>`
//! per ref it moves — never a `+` refspec, which would disable the lease.
//! The remote takes the whole push or none of it; a refused push means
//! another machine published first, so the writer fetches, adopts the
//! remote's tip and decides its event again (the machine is pure, so deciding
//! again is safe). Other refs ride in the same atomic push: a worker's claim
//! carries its lease, a verdict carries the merge into the integration
//! branch and the unit's branch.

use crate::base::runtime;

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

use super::StoreError;

/// The null object id: `expected` for a ref that must not exist yet.
const NULL: &str = "0000000000000000000000000000000000000000";

/// One ref a push moves: to `new` (deleted when `None`), only if the remote
/// still has it at `expected` (absent when `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPush {
    pub name: String,
    pub new: Option<String>,
    pub expected: Option<String>,
}

/// The remote a run lives on, as seen from one clone.
#[derive(Debug)]
pub struct Remote {
    pub name: String,
    dir: PathBuf,
    /// Held around each fetch and push: a worker and its agents' wrappers
    /// share the clone's tracking refs.
    lock: PathBuf,
    /// Pushes the remote refused because another machine moved a ref first.
    refused: Cell<u32>,
    /// Take a state the remote moved back (`--accept-rewind`), keeping
    /// the dropped history under `refs/supervisor/archive/`.
    accept_rewind: Cell<bool>,
    /// The tracking refs under `refs/remotes/<remote>/supervisor/` as this
    /// process last fetched or pushed them, read with one `for-each-ref`
    /// (a tick asks for every unit's branch and lease: one `rev-parse`
    /// each would cost a process per unit per round). Another process of
    /// the clone that fetches meanwhile only leaves this view older, as if
    /// it had not fetched: a push under an older lease is refused and
    /// fetches again.
    known: RefCell<Option<HashMap<String, String>>>,
    /// The `Supervisor-Run` trailer of each tracked commit that has one,
    /// read in the same `for-each-ref` (the state's says its run).
    runs: RefCell<HashMap<String, String>>,
    /// Fetches and pushes this process sent the remote (each try of one
    /// the host throttled counts): what a worker costs its git host.
    fetches: Cell<u32>,
    pushes: Cell<u32>,
    /// The host's first HTTP 429 or 5xx answer was said (once a process).
    throttle_said: Cell<bool>,
    /// The run the last fetch found on the remote: later fetches take only
    /// what a round of it reads (see `round_refspecs`).
    run: RefCell<Option<String>>,
}

impl Remote {
    /// `runtime`: the clone's runtime directory (for the lock).
    pub fn new(dir: &Path, runtime: &Path, name: &str) -> Remote {
        Remote {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            lock: runtime.join(runtime::REMOTE_LOCK),
            refused: Cell::new(0),
            accept_rewind: Cell::new(false),
            known: RefCell::new(None),
            runs: RefCell::new(HashMap::new()),
            fetches: Cell::new(0),
            pushes: Cell::new(0),
            throttle_said: Cell::new(false),
            run: RefCell::new(None),
        }
    }

    /// Take the remote's state even when it moved back (see
    /// `store::rewind`).
    pub fn accept_rewind(&self) {
        self.accept_rewind.set(true);
    }

    /// How many of this clone's pushes the remote refused (lost races).
    pub fn refused(&self) -> u32 {
        self.refused.get()
    }

    /// Fetches this process sent the remote.
    pub fn fetches(&self) -> u32 {
        self.fetches.get()
    }

    /// Pushes this process sent the remote (the refused ones included).
    pub fn pushes(&self) -> u32 {
        self.pushes.get()
    }

    /// `git args` against the remote (a fetch or a push, counted in
    /// `count`): an HTTP 429 or 5xx answer of the host is tried again after
    /// 0.5 s, doubled each time (jittered, at most 8 s), up to five tries,
    /// and said on stderr the first time only. What is still refused after
    /// that is the caller's, as an outage.
    fn git_remote(
        &self,
        args: &[&str],
        count: &Cell<u32>,
    ) -> Result<std::process::Output, StoreError> {
        let mut delay = std::time::Duration::from_millis(500);
        let mut tries = 0;
        loop {
            count.set(count.get() + 1);
            tries += 1;
            let out = self.git(args)?;
            let code = (!out.status.success())
                .then(|| throttled(&String::from_utf8_lossy(&out.stderr)))
                .flatten();
            let Some(code) = code.filter(|_| tries < 5) else {
                return Ok(out);
            };
            if !self.throttle_said.replace(true) {
                eprintln!(
                    "The git host of `{}` answered HTTP {code}{}: trying again with a growing pause (said once).",
                    self.name,
                    if code == 429 { " (too many requests)" } else { "" }
                );
            }
            let jitter =
                crate::base::hash::fnv1a(format!("{}{tries}", std::process::id()).bytes()) % 250;
            std::thread::sleep(delay + std::time::Duration::from_millis(jitter));
            delay = (delay * 2).min(std::time::Duration::from_secs(8));
        }
    }

    /// Run `f` holding the clone's remote lock (waiting for it): two
    /// processes of one clone never update its tracking refs at once.
    fn serialized<T>(&self, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        let _ = std::fs::create_dir_all(self.lock.parent().unwrap_or(Path::new(".")));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock)
            .map_err(|e| StoreError::Git(format!("cannot open {}: {e}", self.lock.display())))?;
        let mut lock = fd_lock::RwLock::new(file);
        let _held = lock
            .write()
            .map_err(|e| StoreError::Git(format!("cannot lock {}: {e}", self.lock.display())))?;
        f()
    }

    /// `git` with `input` on its standard input.
    fn git_input(&self, args: &[&str], input: &str) -> Result<std::process::Output, StoreError> {
        use std::io::Write;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| StoreError::Git(format!("cannot run git: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        child
            .wait_with_output()
            .map_err(|e| StoreError::Git(format!("cannot run git: {e}")))
    }

    fn git(&self, args: &[&str]) -> Result<std::process::Output, StoreError> {
        self.command(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| StoreError::Git(format!("cannot run git: {e}")))
    }

    /// `git args` in the clone, never prompting.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.args(args)
            .current_dir(&self.dir)
            // Our own push must not enter our pre-push hook.
            .env("GIT_SUPERVISOR_INTERNAL", "1")
            .env("GIT_TERMINAL_PROMPT", "0");
        cmd
    }

    /// The remote-tracking name of one of our refs
    /// (`refs/supervisor/x` and `refs/heads/supervisor/x` alike).
    pub fn tracking(&self, local: &str) -> String {
        tracking(&self.name, local)
    }

    /// The push that moves `name` to `new` under a lease on what the last
    /// fetch saw; none when the remote holds `new` already.
    pub fn move_to(&self, name: &str, new: &str) -> Option<RefPush> {
        let theirs = self.tracked(name);
        (theirs.as_deref() != Some(new)).then(|| RefPush {
            name: name.to_string(),
            new: Some(new.to_string()),
            expected: theirs,
        })
    }

    /// The commit the last fetch saw for one of our refs.
    pub fn tracked(&self, local: &str) -> Option<String> {
        let name = self.tracking(local);
        if name.starts_with(&self.tracking_prefix()) {
            return self.with_known(|known| known.get(&name).cloned());
        }
        let out = self
            .git(&[
                "rev-parse",
                "-q",
                "--verify",
                &format!("{}^{{commit}}", self.tracking(local)),
            ])
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Tracked refs under one of our prefixes (`refs/supervisor/leases/`),
    /// by their local name.
    pub fn tracked_under(&self, local_prefix: &str) -> Vec<(String, String)> {
        let prefix = self.tracking(local_prefix);
        let mut found: Vec<(String, String)> = self.with_known(|known| {
            known
                .iter()
                .filter_map(|(r, o)| {
                    let rest = r.strip_prefix(&prefix)?;
                    Some((format!("{local_prefix}{rest}"), o.clone()))
                })
                .collect()
        });
        found.sort();
        found
    }

    /// `refs/remotes/<remote>/supervisor/`: where our refs are tracked.
    fn tracking_prefix(&self) -> String {
        format!("refs/remotes/{}/supervisor/", self.name)
    }

    /// `f` on the tracking refs under our prefix, read once after each
    /// fetch (see `known`).
    fn with_known<T>(&self, f: impl FnOnce(&HashMap<String, String>) -> T) -> T {
        if self.known.borrow().is_none() {
            let prefix = self.tracking_prefix();
            let refs = self
                .git(&[
                    "for-each-ref",
                    "--format=%(refname) %(objectname) %(objecttype) %(trailers:key=Supervisor-Run,valueonly,separator=%x2C)",
                    &prefix,
                ])
                .ok()
                .filter(|o| o.status.success())
                .map(|o| {
                    let mut runs = self.runs.borrow_mut();
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .filter_map(|l| {
                            let mut parts = l.split(' ');
                            let (r, o, t) = (parts.next()?, parts.next()?, parts.next()?);
                            if let Some(run) = parts.next().filter(|r| !r.is_empty()) {
                                runs.insert(o.to_string(), run.to_string());
                            }
                            // What `rev-parse <ref>^{commit}` finds: only
                            // commits (our refs name nothing else).
                            (t == "commit").then(|| (r.to_string(), o.to_string()))
                        })
                        .collect()
                });
            match refs {
                Some(refs) => *self.known.borrow_mut() = Some(refs),
                // Unreadable: nothing is kept, the next look reads again.
                None => return f(&HashMap::new()),
            }
        }
        f(self.known.borrow().as_ref().expect("read above"))
    }

    /// Forget the tracking refs read (they are read again when next asked
    /// for).
    fn forget_known(&self) {
        *self.known.borrow_mut() = None;
        self.runs.borrow_mut().clear();
    }

    /// Fetch what the run reads into `refs/remotes/<remote>/supervisor/*`,
    /// then make the local state ref the remote's. The first fetch of a
    /// process takes the whole state namespace (state, leases, archived
    /// runs) and every run's branches; once it knows the run, a fetch takes
    /// only the state, the leases and that run's branches (a remote that
    /// kept a hundred finished runs advertises a hundred runs' branches to
    /// every round of every worker otherwise). A fetch that finds another
    /// run, or none, takes everything again at once.
    pub fn fetch(&self) -> Result<(), StoreError> {
        self.serialized(|| self.fetch_locked())
    }

    fn fetch_locked(&self) -> Result<(), StoreError> {
        let remote = &self.name;
        // What this clone holds of the run: its cache, else what it saw.
        let local = self.local(super::STATE_REF);
        let held = local.clone().or_else(|| self.tracked(super::STATE_REF));
        let narrowed = self.run.borrow().clone();
        self.fetch_refs(&match &narrowed {
            Some(run) => round_refspecs(remote, run).to_vec(),
            None => fetch_refspecs(remote).to_vec(),
        })?;
        let mut found = self.tracked(super::STATE_REF);
        let run = found.as_deref().and_then(|id| self.run_of(id));
        if narrowed.is_some() && (run.is_none() || run != narrowed) {
            self.fetch_refs(&fetch_refspecs(remote))?;
            found = self.tracked(super::STATE_REF);
            *self.run.borrow_mut() = found.as_deref().and_then(|id| self.run_of(id));
        } else {
            *self.run.borrow_mut() = run;
        }
        if let Some(rewind) =
            super::rewind::rewound(&self.dir, remote, held.as_deref(), found.as_deref())
        {
            if !self.accept_rewind.get() {
                let (message, hint) = super::rewind::explain(remote, &rewind, "worker");
                return Err(StoreError::Rewound { message, hint });
            }
            super::rewind::archive(&self.dir, &rewind).map_err(StoreError::Git)?;
        }
        if found.is_some() && found == local {
            // The cache already is the remote's state.
            return Ok(());
        }
        self.adopt_locked(super::STATE_REF)
    }

    /// One fetch of `refspecs`, pruning the tracking refs they cover.
    fn fetch_refs(&self, refspecs: &[String]) -> Result<(), StoreError> {
        self.forget_known();
        let mut args = vec![
            "fetch",
            "--quiet",
            "--no-tags",
            "--prune",
            "--no-write-fetch-head",
            &self.name,
        ];
        args.extend(refspecs.iter().map(String::as_str));
        let out = self.git_remote(&args, &self.fetches)?;
        if !out.status.success() {
            return Err(self.failure(String::from_utf8_lossy(&out.stderr).trim().to_string()));
        }
        Ok(())
    }

    /// The run a state commit belongs to (its `Supervisor-Run` trailer).
    fn run_of(&self, commit: &str) -> Option<String> {
        // Read in the `for-each-ref` that `tracked` runs (see `runs`).
        self.runs.borrow().get(commit).cloned()
    }

    /// A local ref's commit.
    fn local(&self, name: &str) -> Option<String> {
        let out = self
            .git(&["rev-parse", "-q", "--verify", &format!("{name}^{{commit}}")])
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Point a local ref at what the remote has (deleted when it has none):
    /// in a run on a remote the local copy is only a cache.
    pub fn adopt(&self, local: &str) -> Result<(), StoreError> {
        self.serialized(|| self.adopt_locked(local))
    }

    fn adopt_locked(&self, local: &str) -> Result<(), StoreError> {
        let out = match self.tracked(local) {
            Some(id) => self.git(&["update-ref", local, &id])?,
            None => self.git(&["update-ref", "-d", local])?,
        };
        if !out.status.success() {
            return Err(StoreError::Git(format!(
                "cannot update {local}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Publish `refs` in one atomic push, each under its own lease. `false`:
    /// the remote refused (someone moved a ref first); nothing was written.
    pub fn push(&self, refs: &[RefPush]) -> Result<bool, StoreError> {
        self.serialized(|| self.push_locked(refs))
    }

    fn push_locked(&self, refs: &[RefPush]) -> Result<bool, StoreError> {
        let mut args: Vec<String> = vec![
            "push".into(),
            "--porcelain".into(),
            "--atomic".into(),
            "--no-verify".into(),
        ];
        for r in refs {
            args.push(format!(
                "--force-with-lease={}:{}",
                r.name,
                r.expected.as_deref().unwrap_or("")
            ));
        }
        args.push(self.name.clone());
        for r in refs {
            args.push(match &r.new {
                Some(id) => format!("{id}:{}", r.name),
                None => format!(":{}", r.name),
            });
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.git_remote(&argv, &self.pushes)?;
        if out.status.success() {
            // The tracking refs now say what the remote holds (one
            // `update-ref --stdin` for all of them).
            let mut script = String::new();
            for r in refs {
                let tracking = self.tracking(&r.name);
                match &r.new {
                    Some(id) => script.push_str(&format!("update {tracking} {id}\n")),
                    None => script.push_str(&format!("delete {tracking}\n")),
                }
            }
            self.forget_known();
            let _ = self.git_input(&["update-ref", "--stdin"], &script);
            return Ok(true);
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `--porcelain` marks each refused ref `!`: a lease that did not
        // hold (stale info, fetch first, a ref lock another push held, the
        // rest of an atomic push) is a lost race; a push that never reached
        // the refs (no such remote, no access) is an error.
        // A hook or a rule of the server's that declines the push is no
        // race: deciding again would be declined again.
        let declined = stdout
            .lines()
            .any(|l| l.starts_with('!') && l.contains("[remote rejected]") && declined_reason(l));
        if declined {
            return Err(self.failure(format!(
                "the remote declined the push: {}\n{}",
                stdout.trim(),
                stderr.trim()
            )));
        }
        let lost = stdout
            .lines()
            .any(|l| l.starts_with('!') && l.contains("rejected"))
            || stderr.contains("cannot lock ref")
            || stderr.contains("failed to lock");
        if lost {
            self.refused.set(self.refused.get() + 1);
            return Ok(false);
        }
        Err(self.failure(
            format!("{}\n{}", stdout.trim(), stderr.trim())
                .trim()
                .to_string(),
        ))
    }

    /// A fetch or push that did not reach the refs: an error that trying
    /// again cannot mend (see `permanent`) with the fix, or an outage.
    fn failure(&self, detail: String) -> StoreError {
        if !permanent(&detail) {
            return StoreError::Remote {
                remote: self.name.clone(),
                detail,
            };
        }
        let url = self
            .git(&["remote", "get-url", &self.name])
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        StoreError::RemoteUnusable {
            hint: format!(
                "trying again will not help: `{name}` points at `{url}`; check that the repository exists there and is shared (a `git daemon` serves only repositories exported with --export-all or `git-daemon-export-ok`), that this machine may read and push it, or point the remote elsewhere: `git remote set-url {name} <url>` (`git fetch {name}` shows the same error)",
                name = self.name,
            ),
            remote: self.name.clone(),
            detail,
        }
    }

    /// `expected` as a push lease wants it.
    pub fn lease_value(id: Option<&str>) -> Option<String> {
        id.filter(|i| *i != NULL).map(str::to_string)
    }
}

/// Whether git's message says the remote can never serve this clone as it
/// is configured (no such repository, not exported, no access, bad
/// credentials), as opposed to an outage (refused or dropped connections,
/// timeouts, a busy server), which is worth trying again.
pub fn permanent(detail: &str) -> bool {
    const PERMANENT: &[&str] = &[
        "does not appear to be a git repository",
        "repository not found",
        "not found",
        "not exported",
        "access denied",
        "permission denied",
        "authentication failed",
        "could not read username",
        "could not read password",
        "invalid username or password",
        "host key verification failed",
        "returned error: 401",
        "returned error: 403",
        "returned error: 404",
        "unable to find remote helper",
        "not a valid repository name",
        "the remote declined the push",
    ];
    let detail = detail.to_lowercase();
    PERMANENT.iter().any(|p| detail.contains(p))
}

/// The HTTP status of a git host that asks to be tried again later (429
/// too many requests, or a 5xx), when git's message names one.
pub fn throttled(detail: &str) -> Option<u16> {
    let detail = detail.to_lowercase();
    for marker in ["returned error: ", "http "] {
        for (at, _) in detail.match_indices(marker) {
            let code: String = detail[at + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(code @ (429 | 500..=599)) = code.parse::<u16>() {
                return Some(code);
            }
        }
    }
    None
}

/// Whether a `--porcelain` line's `[remote rejected] (reason)` is the
/// server's policy (a hook, a protected ref) rather than a lost race.
fn declined_reason(line: &str) -> bool {
    let reason = line.rsplit_once('(').map_or("", |(_, r)| r).to_lowercase();
    [
        "hook declined",
        "protected",
        "denied",
        "deny",
        "not allowed",
    ]
    .iter()
    .any(|p| reason.contains(p))
}

/// The remote-tracking name of one of our refs (`refs/supervisor/x` and
/// `refs/heads/supervisor/x` alike): `refs/remotes/<remote>/supervisor/x`.
pub fn tracking(remote: &str, local: &str) -> String {
    let rest = local
        .strip_prefix("refs/heads/supervisor/")
        .or_else(|| local.strip_prefix("refs/supervisor/"))
        .unwrap_or(local);
    format!("refs/remotes/{remote}/supervisor/{rest}")
}

/// What a fetch takes: the state namespace and the runs' branches, into
/// tracking refs (forced: they only mirror the remote).
pub fn fetch_refspecs(remote: &str) -> [String; 2] {
    [
        format!("+refs/supervisor/*:refs/remotes/{remote}/supervisor/*"),
        format!("+refs/heads/supervisor/*:refs/remotes/{remote}/supervisor/*"),
    ]
}

/// What a round of run `run` fetches: the state, the leases and the run's
/// own branches (see `Remote::fetch`).
pub fn round_refspecs(remote: &str, run: &str) -> [String; 3] {
    [
        // A glob, so that a remote without the ref is no error (`*`
        // matches the empty rest; nothing else of ours starts so).
        format!("+refs/supervisor/state*:refs/remotes/{remote}/supervisor/state*"),
        format!("+refs/supervisor/leases/*:refs/remotes/{remote}/supervisor/leases/*"),
        format!("+refs/heads/supervisor/{run}/*:refs/remotes/{remote}/supervisor/{run}/*"),
    ]
}

/// The git remotes of the repository at `dir`.
pub fn names(dir: &Path) -> Vec<String> {
    Command::new("git")
        .arg("remote")
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(Stdio::null())
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `name` is a git remote of the repository at `dir`.
pub fn known(dir: &Path, name: &str) -> bool {
    Command::new("git")
        .args(["remote", "get-url", name])
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The remote this clone's run lives on, as recorded by `start --remote`
/// or `worker`.
pub fn recorded(runtime: &Path) -> Option<String> {
    std::fs::read_to_string(runtime.join(runtime::REMOTE))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// Record (or, with `None`, forget) the remote this clone's run lives on.
pub fn record(runtime: &Path, remote: Option<&str>) -> std::io::Result<()> {
    let path = runtime.join(runtime::REMOTE);
    match remote {
        Some(r) => {
            std::fs::create_dir_all(runtime)?;
            std::fs::write(path, format!("{r}\n"))
        }
        None => match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_git_says_of_a_remote_that_cannot_serve_is_permanent() {
        for detail in [
            "fatal: '/srv/x.git' does not appear to be a git repository\nfatal: Could not read from remote repository.",
            "fatal: remote error: access denied or repository not exported: /x.git",
            "remote: Repository not found.\nfatal: repository 'https://example.com/x.git/' not found",
            "fatal: Authentication failed for 'https://example.com/x.git/'",
            "fatal: could not read Username for 'https://example.com': terminal prompts disabled",
            "git@example.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
            "fatal: unable to access 'https://example.com/x.git/': The requested URL returned error: 403",
            "Host key verification failed.\nfatal: Could not read from remote repository.",
            "the remote declined the push: ! refs/supervisor/state [remote rejected] (pre-receive hook declined)",
        ] {
            assert!(permanent(detail), "{detail}");
        }
    }

    #[test]
    fn an_outage_is_not_permanent() {
        for detail in [
            "fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused",
            "ssh: connect to host example.com port 22: Connection refused\nfatal: Could not read from remote repository.",
            "fatal: unable to access 'https://example.com/x.git/': Failed to connect to example.com port 443 after 0 ms: Couldn't connect to server",
            "fatal: unable to access 'https://example.com/x.git/': Operation timed out after 30000 milliseconds",
            "fatal: unable to access 'https://example.com/x.git/': The requested URL returned error: 503",
            "ssh: connect to host example.com port 22: Connection timed out",
        ] {
            assert!(!permanent(detail), "{detail}");
        }
    }

    #[test]
    fn a_throttling_host_is_told_from_a_refusal() {
        assert_eq!(
            throttled("error: RPC failed; HTTP 429 curl 22 The requested URL returned error: 429"),
            Some(429)
        );
        assert_eq!(
            throttled(
                "fatal: unable to access 'https://h/x.git/': The requested URL returned error: 503"
            ),
            Some(503)
        );
        assert_eq!(
            throttled(
                "fatal: unable to access 'https://h/x.git/': The requested URL returned error: 403"
            ),
            None
        );
        assert_eq!(
            throttled("fatal: Could not read from remote repository."),
            None
        );
    }

    #[test]
    fn a_declined_push_is_told_from_a_lost_race() {
        assert!(declined_reason(
            "!\tHEAD:refs/heads/a\t[remote rejected] (pre-receive hook declined)"
        ));
        assert!(declined_reason(
            "!\tx:refs/heads/main\t[remote rejected] (protected branch hook declined)"
        ));
        assert!(!declined_reason(
            "!\tx:refs/supervisor/state\t[remote rejected] (failed to update ref)"
        ));
        assert!(!declined_reason(
            "!\tx:refs/supervisor/state\t[remote rejected] (atomic push failed)"
        ));
        assert!(!declined_reason(
            "!\tx:refs/supervisor/state\t[rejected] (stale info)"
        ));
    }
}
