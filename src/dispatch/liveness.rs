//! Is the agent alive? Activity in wall-clock time, not empty polls.
//!
//! Real agent CLIs are silent for minutes while a model thinks or a tool
//! runs (`claude -p --output-format json` prints nothing until it ends), so
//! silence on stdout alone says nothing. Activity is any of: new output
//! bytes, CPU time used by any process of the agent's tree, a file changed
//! in its workdir. The rule ([`Liveness`]) is pure — it is given the time
//! and whether there was activity — so it is tested with a fake clock; the
//! [`Sampler`] reads the real signals.
//!
//! Thresholds (config `[agent]`): `silence_notice` (default 10m) records
//! one notice, `silence_kill` (default 30m, or "off") ends the agent, and
//! `timeout` (default 2h) ends it however busy it is. The spec's "5 empty
//! polls → notice, 10 → kill" become these wall-clock silences; the poll
//! interval only sets how often the wrapper looks.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;
use std::time::SystemTime;

use serde::Deserialize;
use serde::Serialize;

/// The wrapper's timing knobs, copied from the config into the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timing {
    pub silence_notice_ms: u64,
    /// `None`: never end an agent for silence alone.
    pub silence_kill_ms: Option<u64>,
    pub timeout_ms: u64,
    /// SIGTERM → SIGKILL grace when ending an agent's tree.
    pub kill_grace_ms: u64,
    /// How long a rate-limited agent may wait, in total, before its failure
    /// counts.
    pub rate_limit_wait_ms: u64,
    /// The first delay after a rate limit, doubling per wait.
    pub retry_delay_ms: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            silence_notice_ms: 10 * 60_000,
            silence_kill_ms: Some(30 * 60_000),
            timeout_ms: 2 * 3_600_000,
            kill_grace_ms: 10_000,
            rate_limit_wait_ms: 3_600_000,
            retry_delay_ms: 30_000,
        }
    }
}

impl Timing {
    pub fn from_config(c: &crate::config::Config) -> Timing {
        let ms = |d: Duration| d.as_millis().min(u64::MAX as u128) as u64;
        Timing {
            silence_notice_ms: ms(c.agent.silence_notice),
            silence_kill_ms: c.agent.silence_kill.map(ms),
            timeout_ms: ms(c.agent.timeout),
            kill_grace_ms: ms(c.agent.kill_grace),
            rate_limit_wait_ms: ms(c.run.rate_limit_wait),
            retry_delay_ms: ms(c.run.retry_delay),
        }
    }
}

/// What the rule says at one look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Alive,
    /// Record once: silent (no activity at all) for this long.
    Notice(Duration),
    /// End the agent: silent for this long.
    Silent(Duration),
    /// End the agent: it ran longer than `agent.timeout`.
    Timeout(Duration),
}

/// The liveness rule over a clock the caller supplies.
#[derive(Debug, Clone)]
pub struct Liveness {
    notice: Duration,
    kill: Option<Duration>,
    timeout: Duration,
    started: Instant,
    last_activity: Instant,
    noticed: bool,
}

impl Liveness {
    pub fn new(timing: &Timing, now: Instant) -> Liveness {
        Liveness {
            notice: Duration::from_millis(timing.silence_notice_ms),
            kill: timing.silence_kill_ms.map(Duration::from_millis),
            timeout: Duration::from_millis(timing.timeout_ms),
            started: now,
            last_activity: now,
            noticed: false,
        }
    }

    /// One look at `now`; `active` says whether anything happened since the
    /// previous look. A notice is given once per silence.
    pub fn observe(&mut self, now: Instant, active: bool) -> Verdict {
        if active {
            self.last_activity = now;
            self.noticed = false;
        }
        let ran = now.saturating_duration_since(self.started);
        if ran >= self.timeout {
            return Verdict::Timeout(ran);
        }
        let silent = now.saturating_duration_since(self.last_activity);
        if self.kill.is_some_and(|k| silent >= k) {
            return Verdict::Silent(silent);
        }
        if silent >= self.notice && !self.noticed {
            self.noticed = true;
            return Verdict::Notice(silent);
        }
        Verdict::Alive
    }
}

/// Reads the activity signals of one agent.
pub struct Sampler {
    log: PathBuf,
    workdir: PathBuf,
    log_size: u64,
    /// CPU ticks per process `(pid, start)` last seen.
    cpu: BTreeMap<(u32, u64), u64>,
    newest_file: Option<SystemTime>,
    last_walk: Option<Instant>,
    /// The workdir is walked at most this often (it may be large).
    walk_every: Duration,
}

/// Files looked at per walk of the workdir, at most.
const WALK_CAP: usize = 50_000;

impl Sampler {
    pub fn new(log: &Path, workdir: &Path, walk_every: Duration) -> Sampler {
        let mut s = Sampler {
            log: log.to_path_buf(),
            workdir: workdir.to_path_buf(),
            log_size: 0,
            cpu: BTreeMap::new(),
            newest_file: None,
            last_walk: None,
            walk_every,
        };
        s.log_size = s.size();
        s.newest_file = newest_mtime(&s.workdir, s.runtime());
        s.last_walk = Some(Instant::now());
        s
    }

    /// The runtime directory (`supervisor/` beside the agents' logs): our
    /// own files there change all the time.
    fn runtime(&self) -> Option<&Path> {
        self.log.parent()?.parent()
    }

    fn size(&self) -> u64 {
        std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0)
    }

    /// Whether anything happened since the last call: output, CPU time in
    /// `tree` (the agent's processes), a file changed in the workdir.
    pub fn active(&mut self, tree: &[super::reap::Proc]) -> bool {
        let mut active = false;
        let size = self.size();
        if size != self.log_size {
            self.log_size = size;
            active = true;
        }
        let cpu: BTreeMap<(u32, u64), u64> = tree
            .iter()
            .filter(|p| p.state != 'Z')
            .map(|p| ((p.pid, p.start), p.cpu))
            .collect();
        // A process that is new, or used CPU since the last look.
        if cpu
            .iter()
            .any(|(k, v)| self.cpu.get(k).is_none_or(|old| v > old))
        {
            active = true;
        }
        self.cpu = cpu;
        if !active
            && self
                .last_walk
                .is_none_or(|t| t.elapsed() >= self.walk_every)
        {
            self.last_walk = Some(Instant::now());
            let newest = newest_mtime(&self.workdir, self.runtime());
            if newest != self.newest_file {
                self.newest_file = newest;
                active = true;
            }
        }
        active
    }
}

/// The newest modification time of a file under `dir` (not in `.git` nor
/// `skip`), looking at no more than [`WALK_CAP`] entries.
fn newest_mtime(dir: &Path, skip: Option<&Path>) -> Option<SystemTime> {
    let mut newest = None;
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > WALK_CAP {
                return newest;
            }
            let Ok(meta) = e.metadata() else { continue };
            if let Ok(m) = meta.modified() {
                if newest.is_none_or(|n| m > n) {
                    newest = Some(m);
                }
            }
            // Git's own files change with every record the supervisor
            // writes; an agent's commit changed worktree files first.
            if meta.is_dir() && skip != Some(e.path().as_path()) && e.file_name() != ".git" {
                stack.push(e.path());
            }
        }
    }
    newest
}
