//! `git supervisor worker`: run a remote run's sprints on this machine.
//!
//! A worker is any clone with the agent CLI. Each round it ticks the run
//! (fetch, lapsed leases, dispatches; see `remote`), then claims DISPATCHED
//! sprints up to its number of agents: the claim is the sprint's lease,
//! created on the remote by a push that moves no other ref, so of two
//! workers racing for one sprint the remote takes one push and refuses the
//! other, and the loser moves on; the DISPATCHED → RUNNING transition
//! (trailer `Supervisor-Worker: <host>/<pid>`) follows with the worker's
//! next push of the state (see `lease_claim`). The agent runs in a local
//! worktree of the unit's branch; the worker renews the lease while it runs
//! (a renewal the remote refuses means the claim is gone: the agent is
//! stopped). When the agent is done the worker verifies its work there,
//! claims its next sprint and starts that agent, then publishes, in one
//! atomic push, the verdict (with the new claim's RUNNING transition), the
//! unit's branch, the merge into the integration branch (the remote's
//! branch is the merge queue's register) and the lease's
//! removal. An agent ends with its worker: the wrapper watches the worker's
//! pid, so a worker killed outright leaves no agent behind, and its lease
//! lapses for another worker to take the sprint. A worker asked to leave
//! (SIGTERM or SIGINT: a CI job cancelled) hands its sprints back at once
//! instead (see `leave`).
//!
//! A worker with nothing new to do looks at the remote less and less often
//! (the poll doubled each quiet round up to `poll_max`) and back at the poll
//! as soon as it claims or finishes a sprint: sixteen idle workers polling
//! each second were most of a git host's traffic.

mod claim;
mod finish;
mod handover;
mod lease_claim;
mod leave;
mod outage;
mod queue;
mod tidy;

pub use claim::rank;

use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use serde::Serialize;

use super::AgentPaths;
use super::Engine;
use super::EngineError;
use super::LockMode;
use crate::plan::SprintId;

const STATE_REF: &str = "refs/supervisor/state";

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Agents at once.
    pub agents: usize,
    /// Leave once nothing is left to claim (instead of waiting for the run
    /// to finish).
    pub once: bool,
    /// Time between rounds.
    pub poll: Duration,
    /// The longest time between looks at the remote of a worker that has
    /// had nothing new to do for a while.
    pub poll_max: Duration,
    /// `<host>/<pid>`.
    pub identity: String,
}

/// What a worker did, for its report.
#[derive(Debug, Default, Serialize)]
pub struct WorkerSummary {
    pub worker: String,
    pub run: Option<String>,
    /// `<unit>/<sprint>` of every claim it won.
    pub claimed: Vec<String>,
    /// `<unit>/<sprint>: <STATE>` of every verdict it published.
    pub verdicts: Vec<String>,
    /// Claims another worker won first, when no other sprint was left to
    /// claim instead.
    pub lost_claims: u32,
    /// Pushes the remote refused because another machine moved a ref first.
    pub refused_pushes: u32,
    /// Sprints whose claim it lost while its agent ran.
    pub dropped: Vec<String>,
    /// Verdicts it published: the sprints its agents ran to the end.
    pub sprints_run: u32,
    /// Fetches and pushes it sent the remote, and their sum.
    pub fetches: u32,
    pub pushes: u32,
    pub remote_requests: u32,
    /// Seconds it waited with no agent of its own at work.
    pub idle_seconds: f64,
    /// Sprints it handed back when asked to leave (SIGTERM, SIGINT): the
    /// lease released, the agent's commits on the unit branch.
    pub handed_back: Vec<String>,
    /// It left because it was asked to (SIGTERM, SIGINT).
    pub terminated: bool,
    /// The run was finished when the worker left.
    pub finished: bool,
    /// The run's overall state when the worker left (`completed`,
    /// `stopped`, `blocked`, `killed`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overall: Option<String>,
}

/// What a claim is, for a person: a dispatch after the first is the same
/// sprint handed to an agent again.
fn claimed_line(c: &Claimed) -> String {
    match c.dispatch {
        0 | 1 => format!("claimed {} sprint {}", c.unit, c.sprint),
        n => format!(
            "claimed {} sprint {} (dispatch {n}: the sprint goes to an agent for the {} time, after an earlier one failed, was interrupted, lost its lease or left work to finish)",
            c.unit,
            c.sprint,
            ordinal(n)
        ),
    }
}

/// `2nd`, `3rd`, `11th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The identity a worker's claims carry: `<host>/<pid>`.
pub fn identity() -> String {
    format!("{}/{}", hostname(), std::process::id())
}

/// This machine's host name (`localhost` when it cannot be read).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer outlives the call and its length is passed.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    if ok {
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "localhost".into()
    }
}

/// One sprint this worker claimed and runs.
pub(super) struct Claimed {
    pub(super) unit: String,
    pub(super) sprint: SprintId,
    pub(super) dispatch: u32,
    pub(super) paths: AgentPaths,
    /// The lease commit the remote holds for it.
    pub(super) lease: String,
    pub(super) renewed: Instant,
    /// When the claim was won.
    pub(super) since: Instant,
    /// The unit's tip the agent started from.
    pub(super) base: String,
    /// The unit's worktree, and where in it the plan's root is.
    pub(super) worktree: PathBuf,
    pub(super) root: PathBuf,
    /// A renewal was refused: the agent was asked to stop.
    pub(super) stopping: bool,
    /// The agent is done: its verdict, judged, waits to be published.
    queued: Option<queue::Queued>,
    /// The state holds the claim's RUNNING transition (a claim won as its
    /// lease alone waits for the worker's next push of the state).
    pub(super) recorded: bool,
    /// The claim this worker made and started once this one's agent was
    /// done, before its verdict was published.
    successor: Option<Box<Claimed>>,
}

impl WorkerSummary {
    /// Bring the remote's counts up to date.
    fn count(&mut self, remote: &crate::store::remote::Remote) {
        self.refused_pushes = remote.refused();
        self.fetches = remote.fetches();
        self.pushes = remote.pushes();
        self.remote_requests = self.fetches + self.pushes;
        self.sprints_run = self.verdicts.len() as u32;
    }
}

/// How long a worker waits between looks at the remote: `base` doubled for
/// each quiet round in a row, at most `max` (never below `base`).
fn backed_off(base: Duration, quiet: u32, max: Duration) -> Duration {
    base.saturating_mul(1u32 << quiet.min(16))
        .min(max.max(base))
}

impl Engine {
    /// Work on the remote's run until it is finished (or, with `once`,
    /// until nothing is left to claim). `say` gets a line per thing done.
    pub fn work(
        &self,
        options: &WorkerOptions,
        say: &mut dyn FnMut(&str),
    ) -> Result<WorkerSummary, EngineError> {
        let remote = self.store.remote().ok_or_else(|| EngineError::Io {
            what: "a worker needs the remote the run lives on".into(),
            source: std::io::Error::other("no remote"),
        })?;
        // The wrappers this worker started are its children: each one that
        // ended is waited for as it ends, also while a round waits on a
        // remote that does not answer (a reap once a round left an ended
        // wrapper a zombie for as long as an outage held the round up).
        std::thread::spawn(|| loop {
            crate::dispatch::reap();
            std::thread::sleep(Duration::from_millis(200));
        });
        leave::install_handler();
        // The run this clone last saw: a remote that no longer has it lost
        // it (a deleted ref), which a worker must not take for "no run yet".
        let mut seen = remote.tracked(STATE_REF);
        self.rounds(options, &mut seen, say)
            .map_err(|e| match (e, seen) {
                (EngineError::NoRun, Some(last)) => EngineError::RunGoneFromRemote {
                    remote: remote.name.clone(),
                    short: super::short(&last).to_string(),
                    last,
                },
                (e, _) => e,
            })
    }

    /// `work`'s rounds; `seen` follows the run's tip.
    fn rounds(
        &self,
        options: &WorkerOptions,
        seen: &mut Option<String>,
        say: &mut dyn FnMut(&str),
    ) -> Result<WorkerSummary, EngineError> {
        let remote = self.store.remote().expect("checked by work");
        let mut summary = WorkerSummary {
            worker: options.identity.clone(),
            ..WorkerSummary::default()
        };
        let mut mine: Vec<Claimed> = Vec::new();
        // Verdicts a worker that left this clone queued, once the run is
        // known (see `queue`).
        let mut orphans: Option<Vec<queue::Queued>> = None;
        let pause = options.poll.max(Duration::from_secs(1));
        let mut outage = outage::Outage::new(&remote.name, pause, self.offline_grace());
        let mut told_no_run = false;
        let mut last_tick: Option<Instant> = None;
        // How often a worker with no agent free looks at the remote: a
        // sixth of the run's lease (the leases it would find lapsed last
        // that long), at least `pause`; set at each tick.
        let mut busy_look = pause;
        // Rounds in a row that brought this worker nothing new to do.
        let mut quiet: u32 = 0;
        let mut idle = Duration::ZERO;
        loop {
            summary.idle_seconds = idle.as_secs_f64();
            summary.count(remote);
            if leave::asked() {
                self.leave(&mut mine, options, &mut summary, say);
                summary.count(remote);
                summary.terminated = true;
                summary.overall = self
                    .store
                    .tip()
                    .ok()
                    .flatten()
                    .map(|t| t.state.overall().as_str().to_string());
                return Ok(summary);
            }
            // Verdicts first, each with the worker's next claim in its push
            // (see `publish_queued`); a tick then dispatches what is left.
            let mut i = 0;
            let mut freed = false;
            let mut successors = Vec::new();
            while i < mine.len() {
                // The claim that ends here frees its unit for its next sprint.
                let others = || (mine.iter().enumerate()).filter(|(j, _)| *j != i);
                let next = claim::ClaimNext {
                    taken: others().map(|(_, c)| c.unit.clone()).collect(),
                    options,
                    dispatch: true,
                    pending: others()
                        .filter_map(|(_, c)| lease_claim::Pending::of(c))
                        .collect(),
                };
                let finished = self
                    .finish_if_done(&mut mine[i], &next, &mut summary, say)
                    .or_else(|e| {
                        outage
                            .other_failed(e, say)
                            .map(|()| finish::Finish::Working)
                    });
                // A claim made before the verdict was published is this
                // worker's whatever became of the verdict.
                let succeeded = match mine[i].successor.take() {
                    Some(s) => {
                        summary.claimed.push(format!("{}/{}", s.unit, s.sprint));
                        say(&claimed_line(&s));
                        successors.push(*s);
                        true
                    }
                    None => false,
                };
                match finished? {
                    finish::Finish::Over(won) => {
                        quiet = 0;
                        // Its worktree goes first: the next claim may be
                        // its unit's next sprint, in a fresh one.
                        self.drop_worktree(&mine.remove(i));
                        match won.map(|w| self.start_won(*w, &options.identity)) {
                            Some(Ok(c)) => {
                                summary.claimed.push(format!("{}/{}", c.unit, c.sprint));
                                say(&claimed_line(&c));
                                mine.push(c);
                            }
                            // The verdict is out; the claim was given back
                            // as a failed attempt.
                            Some(Err(e)) => {
                                say(&format!("cannot start the claimed sprint's agent: {e}"));
                                freed = true;
                            }
                            // An agent of this worker's took its place
                            // already, or it is free.
                            None => freed |= !succeeded,
                        }
                    }
                    finish::Finish::Working => {
                        self.renew(&mut mine[i], options, say)
                            .or_else(|e| outage.other_failed(e, say))?;
                        i += 1;
                    }
                }
            }
            if !successors.is_empty() {
                quiet = 0;
                mine.extend(successors);
                self.mark_recorded(&mut mine);
                // The verdict's fetches were this worker's look at the
                // remote.
                last_tick = Some(Instant::now());
            }
            // A worker with no agent free has nothing to claim: it looks at
            // the remote every `busy_look` (for a stop, a lapsed lease, the
            // run's end), not every poll — with many workers, their fetches
            // were most of the remote's and the machine's work.
            // That look backs off too while nothing changes for it.
            let busy = mine.len() >= options.agents && !freed;
            let look = backed_off(busy_look, quiet, options.poll_max);
            if busy && last_tick.is_some_and(|t| t.elapsed() < look) {
                leave::nap(options.poll);
                continue;
            }
            self.dispatch_room
                .set(Some(options.agents.saturating_sub(mine.len())));
            // A remote that is busy (a long run of lost races) or briefly
            // unreachable costs a round, not the worker; its agents go on.
            // Another process ticking this clone (`stop` typed here) costs
            // at most a short wait: the leases are renewed next round.
            match self.tick(LockMode::Once(self.tick_wait())) {
                Ok(_) => {
                    outage.answered(say);
                    last_tick = Some(Instant::now());
                    // Claims only their leases hold, recorded on this look
                    // at the remote when no verdict carried them.
                    self.record_claims(&mut mine, &options.identity)
                        .or_else(|e| outage.other_failed(e, say))?;
                }
                Err(e) => {
                    let queued = mine.iter().filter(|c| c.queued.is_some()).count()
                        + orphans.as_ref().map_or(0, Vec::len);
                    outage.tick_failed(e, queued, say)?;
                    let wait = outage.wait();
                    leave::nap(wait);
                    if mine.is_empty() {
                        idle += wait;
                    }
                    continue;
                }
            }
            outage.set_grace(self.offline_grace());
            busy_look = (self.lease() / 6).max(pause);
            if self.store.tip()?.is_some() {
                let pending = orphans.get_or_insert_with(|| {
                    queue::load_all(&self.store.runtime_dir())
                        .into_iter()
                        .filter(|q| queue::left(&q.worker))
                        .collect()
                });
                let mut kept = Vec::new();
                for q in pending.drain(..) {
                    if let Err(e) = self.publish_queued(&q, None, false, &mut summary, say) {
                        outage.other_failed(e, say)?;
                        kept.push(q);
                    }
                }
                *pending = kept;
            }
            let tip = self.store.tip()?;
            if tip.is_none() && seen.is_some() {
                return Err(EngineError::NoRun);
            }
            match &tip {
                Some(t) => {
                    summary.run = Some(t.state.run_id.clone());
                    *seen = Some(t.id.to_string());
                }
                None if !options.once && !told_no_run => {
                    say(&format!(
                        "No run on `{}` yet: waiting for one (`git supervisor start --remote {}`).",
                        remote.name, remote.name
                    ));
                    told_no_run = true;
                }
                None => {}
            }
            let mut claimed_now = false;
            while mine.len() < options.agents && self.store.tip()?.is_some() {
                let next = claim::ClaimNext {
                    taken: mine.iter().map(|c| c.unit.clone()).collect(),
                    options,
                    dispatch: false,
                    pending: Vec::new(),
                };
                match self.claim_by_lease(&next, &[]).map(|(c, _)| c) {
                    Ok(claim::Claim::Won(c)) => {
                        summary.claimed.push(format!("{}/{}", c.unit, c.sprint));
                        say(&claimed_line(&c));
                        mine.push(*c);
                        claimed_now = true;
                    }
                    Ok(claim::Claim::Lost(unit)) => {
                        summary.lost_claims += 1;
                        say(&format!("{unit}: another worker claimed it first"));
                        break;
                    }
                    Ok(claim::Claim::Nothing) => break,
                    Err(e) => {
                        outage.other_failed(e, say)?;
                        break;
                    }
                }
            }
            let now = self.store.tip()?;
            if let Some(t) = &now {
                *seen = Some(t.id.to_string());
                self.tidy_worktrees(t, &mine);
            }
            let finished = now.as_ref().is_some_and(|t| t.state.is_finished());
            let unpublished = orphans.as_ref().is_some_and(|o| !o.is_empty());
            if mine.is_empty() && !unpublished && (finished || (options.once && !claimed_now)) {
                summary.finished = finished;
                summary.overall = now.map(|t| t.state.overall().as_str().to_string());
                summary.count(remote);
                return Ok(summary);
            }
            // Work seen (a claim won, an agent free again) brings the
            // worker back to its poll; a quiet round backs it off.
            quiet = if claimed_now || freed {
                0
            } else {
                quiet.saturating_add(1)
            };
            if mine.is_empty() {
                let wait = backed_off(options.poll, quiet, options.poll_max);
                leave::nap(wait);
                idle += wait;
            } else {
                leave::nap(options.poll);
            }
        }
    }

    /// How long this worker rides out an outage: the run's `[run]
    /// offline_grace` as this clone last saw it, else the checkout's.
    fn offline_grace(&self) -> Duration {
        let config = match self.store.tip() {
            Ok(Some(tip)) => self.snapshot(&tip).ok().map(|(_, c)| c),
            _ => None,
        };
        config
            .or_else(|| crate::config::Config::load(&self.workdir).ok())
            .unwrap_or_default()
            .run
            .offline_grace()
    }

    /// How long a round waits for the engine lock another process of this
    /// clone holds: a quarter of the run's lease, so that its renewals (due
    /// every third of the lease) are not late for it.
    fn tick_wait(&self) -> Duration {
        (self.lease() / 4).clamp(Duration::from_millis(100), Duration::from_secs(15))
    }

    /// The run's `[run] lease` as this clone last saw it (a minute before
    /// there is a run).
    fn lease(&self) -> Duration {
        let lease = match self.store.tip() {
            Ok(Some(tip)) => self.snapshot(&tip).ok().map(|(_, c)| c.run.lease),
            _ => None,
        };
        lease.unwrap_or(Duration::from_secs(60))
    }
}

#[cfg(test)]
mod tests {
    use super::backed_off;
    use std::time::Duration;

    #[test]
    fn the_poll_doubles_per_quiet_round_up_to_its_longest() {
        let ms = Duration::from_millis;
        let max = Duration::from_secs(30);
        assert_eq!(backed_off(ms(100), 0, max), ms(100));
        assert_eq!(backed_off(ms(100), 3, max), ms(800));
        assert_eq!(backed_off(ms(100), 40, max), max);
        // A longest poll below the poll is the poll.
        assert_eq!(backed_off(ms(100), 5, ms(50)), ms(100));
    }
}
