//! `git supervisor worker`: run a remote run's sprints on this machine.
//!
//! A worker is any clone with the agent CLI. Each round it ticks the run
//! (fetch, lapsed leases, dispatches; see `remote`), then claims DISPATCHED
//! sprints up to its number of agents: the claim is the DISPATCHED →
//! RUNNING transition (trailer `Supervisor-Worker: <host>/<pid>`) pushed
//! atomically with the sprint's lease, so of two workers racing for one
//! sprint the remote takes one push and refuses the other, and the loser
//! moves on. The agent runs in a local worktree of the unit's branch; the
//! worker renews the lease while it runs (a renewal the remote refuses
//! means the claim is gone: the agent is stopped). When the agent is done
//! the worker verifies its work there and publishes, in one atomic push,
//! the verdict, the unit's branch, the merge into the integration branch
//! (the remote's branch is the merge queue's register) and the lease's
//! removal. An agent ends with its worker: the wrapper watches the worker's
//! pid, so a worker killed outright leaves no agent behind, and its lease
//! lapses for another worker to take the sprint.

use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use serde::Serialize;

use super::verify;
use super::AgentPaths;
use super::Engine;
use super::EngineError;
use super::JobSpec;
use super::LockMode;
use crate::dispatch;
use crate::dispatch::Report;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::Model;
use crate::machine::SprintStatus;
use crate::plan::SprintId;
use crate::store::lease;
use crate::store::lease::Lease;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::workspace::Merge;
use crate::workspace::Workspaces;

/// Rounds in a row a worker rides out a busy or unreachable remote before
/// it gives up.
const MAX_TRANSIENT_ROUNDS: u32 = 30;

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
    /// Claims another worker won first.
    pub lost_claims: u32,
    /// Pushes the remote refused because another machine moved a ref first.
    pub refused_pushes: u32,
    /// Sprints whose claim it lost while its agent ran.
    pub dropped: Vec<String>,
    /// The run was finished when the worker left.
    pub finished: bool,
    /// The run's overall state when the worker left (`completed`,
    /// `stopped`, `blocked`, `killed`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overall: Option<String>,
}

/// A busy or unreachable remote while a claim is judged or renewed: said,
/// and tried again next round (a lease outlasts many rounds). Anything else
/// is the worker's error.
fn transient(e: EngineError, say: &mut dyn FnMut(&str)) -> Result<(), EngineError> {
    match e {
        EngineError::Store(
            e @ (crate::store::StoreError::Contention | crate::store::StoreError::Remote { .. }),
        ) => {
            say(&format!("{e}; trying again"));
            Ok(())
        }
        e => Err(e),
    }
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

/// What `start_claimed` set up for a claim.
struct Started {
    paths: AgentPaths,
    base: String,
    worktree: PathBuf,
    root: PathBuf,
}

/// One sprint this worker claimed and runs.
struct Claimed {
    unit: String,
    sprint: SprintId,
    dispatch: u32,
    paths: AgentPaths,
    /// The lease commit the remote holds for it.
    lease: String,
    renewed: Instant,
    /// The unit's tip the agent started from.
    base: String,
    /// The unit's worktree, and where in it the plan's root is.
    worktree: PathBuf,
    root: PathBuf,
    /// A renewal was refused: the agent was asked to stop.
    stopping: bool,
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
        let mut summary = WorkerSummary {
            worker: options.identity.clone(),
            ..WorkerSummary::default()
        };
        let mut mine: Vec<Claimed> = Vec::new();
        let mut unreachable_rounds = 0;
        let mut told_no_run = false;
        loop {
            // Verdicts first: the tick then dispatches what they opened,
            // and this round may claim it.
            let mut i = 0;
            while i < mine.len() {
                let done = self
                    .finish_if_done(&mine[i], options, &mut summary, say)
                    .or_else(|e| transient(e, say).map(|()| false))?;
                if done {
                    mine.remove(i);
                } else {
                    self.renew(&mut mine[i], options, say)
                        .or_else(|e| transient(e, say))?;
                    i += 1;
                }
            }
            // A remote that is busy (a long run of lost races) or briefly
            // unreachable costs a round, not the worker; its agents go on.
            match self.tick(LockMode::Wait(Duration::from_secs(60))) {
                Ok(_) => unreachable_rounds = 0,
                Err(EngineError::Store(
                    e @ (crate::store::StoreError::Contention
                    | crate::store::StoreError::Remote { .. }),
                )) if unreachable_rounds < MAX_TRANSIENT_ROUNDS => {
                    unreachable_rounds += 1;
                    say(&format!("{e}; trying again"));
                    std::thread::sleep(options.poll.max(Duration::from_secs(1)));
                    continue;
                }
                Err(e) => return Err(e),
            }
            let tip = self.store.tip()?;
            match &tip {
                Some(t) => summary.run = Some(t.state.run_id.clone()),
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
            while mine.len() < options.agents {
                let Some(tip) = self.store.tip()? else {
                    break;
                };
                let Some(unit) = self.claimable(&tip, &mine, &options.identity) else {
                    break;
                };
                let claimed = match self.claim(&tip, &unit, options) {
                    Ok(c) => c,
                    Err(e) => {
                        transient(e, say)?;
                        break;
                    }
                };
                match claimed {
                    Some(c) => {
                        summary.claimed.push(format!("{}/{}", c.unit, c.sprint));
                        say(&format!(
                            "claimed {} sprint {} (dispatch {})",
                            c.unit, c.sprint, c.dispatch
                        ));
                        mine.push(c);
                        claimed_now = true;
                    }
                    None => {
                        summary.lost_claims += 1;
                        say(&format!("{unit}: another worker claimed it first"));
                    }
                }
            }
            summary.refused_pushes = remote.refused();
            let now = self.store.tip()?;
            let finished = now.as_ref().is_some_and(|t| t.state.is_finished());
            if mine.is_empty() && (finished || (options.once && !claimed_now)) {
                summary.finished = finished;
                summary.overall = now.map(|t| t.state.overall().as_str().to_string());
                return Ok(summary);
            }
            std::thread::sleep(options.poll);
        }
    }

    /// A RUNNING unit whose sprint waits DISPATCHED for a worker. Workers start
    /// looking at different units (by their identity), so that many of
    /// them do not all race for the first one.
    fn claimable(&self, tip: &Tip, mine: &[Claimed], me: &str) -> Option<String> {
        let open: Vec<&str> = tip
            .state
            .units
            .iter()
            .filter(|u| u.state == crate::machine::UnitStatus::Running)
            .filter(|u| {
                u.active_sprint()
                    .is_some_and(|sp| sp.state == SprintStatus::Dispatched)
            })
            .filter(|u| !mine.iter().any(|c| c.unit == u.name))
            .map(|u| u.name.as_str())
            .collect();
        if open.is_empty() {
            return None;
        }
        let spread = me
            .bytes()
            .fold(0usize, |h, b| h.wrapping_mul(31) + b as usize);
        Some(open[spread % open.len()].to_string())
    }

    /// Claim `unit`'s DISPATCHED sprint: its RUNNING transition and lease
    /// in one push, then its worktree, job and agent. `None`: another
    /// worker claimed it first.
    fn claim(
        &self,
        tip: &Tip,
        unit: &str,
        options: &WorkerOptions,
    ) -> Result<Option<Claimed>, EngineError> {
        let (plan, config) = self.snapshot(tip)?;
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let lease_ref = lease::lease_ref(unit);
        let me = options.identity.clone();
        let mut written: Option<(String, u32)> = None;
        let steps = self.publish_decided(|tip| {
            // A stopping unit starts no new agent.
            let Some(sp) = tip
                .state
                .unit(unit)
                .filter(|u| u.state == crate::machine::UnitStatus::Running)
                .and_then(|u| u.active_sprint())
                .filter(|sp| sp.state == SprintStatus::Dispatched)
            else {
                return Ok(None);
            };
            let id = self.store.write_lease(&Lease {
                worker: me.clone(),
                subject: unit.to_string(),
                dispatch: sp.dispatches,
                expires: lease::now() + config.run.lease.as_secs() as i64,
            })?;
            written = Some((id.to_string(), sp.dispatches));
            Ok(Some((
                EventKind::AgentStarted {
                    unit: unit.to_string(),
                    pid: None,
                    worker: Some(me.clone()),
                },
                vec![RefPush {
                    name: lease_ref.clone(),
                    new: Some(id.to_string()),
                    expected: remote.tracked(&lease_ref),
                }],
            )))
        })?;
        let Some((lease_id, dispatch_no)) = written.filter(|_| !steps.is_empty()) else {
            return Ok(None);
        };
        crate::store::fault::boundary("sprint claimed, agent not started");
        let state = &steps.last().expect("a claim has a step").state;
        let sprint = state
            .unit(unit)
            .and_then(|u| u.active_sprint())
            .map(|sp| sp.id.clone())
            .expect("the claimed sprint");
        match self.start_claimed(state, &plan, &config, unit, dispatch_no) {
            Ok(started) => Ok(Some(Claimed {
                unit: unit.to_string(),
                sprint,
                dispatch: dispatch_no,
                paths: started.paths,
                lease: lease_id,
                renewed: Instant::now(),
                base: started.base,
                worktree: started.worktree,
                root: started.root,
                stopping: false,
            })),
            Err(e) => {
                // Nothing runs for the claim: it is given back at once as a
                // failed attempt (the cause may be this machine's, or lasting)
                // rather than held until its lease lapses.
                self.fail_claim(unit, dispatch_no, &options.identity, &e);
                Err(e)
            }
        }
    }

    /// The claimed sprint's worktree (from the remote's unit branch), job
    /// and agent wrapper.
    fn start_claimed(
        &self,
        state: &crate::machine::State,
        plan: &crate::plan::Plan,
        config: &crate::config::Config,
        unit: &str,
        dispatch_no: u32,
    ) -> Result<Started, EngineError> {
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let us = state.unit(unit).expect("the claimed unit");
        let sp = us.active_sprint().expect("the claimed sprint");
        let ws = Workspaces::new(
            &self.workdir,
            config.workspace.dir.as_deref(),
            &state.run_id,
        );
        let branch = format!("refs/heads/{}", ws.unit_branch(unit));
        let integration = format!("refs/heads/{}", ws.integration_branch());
        let base = remote
            .tracked(&branch)
            .or_else(|| remote.tracked(&integration))
            .ok_or_else(|| EngineError::Io {
                what: format!("the remote has no `{}`", ws.integration_branch()),
                source: std::io::Error::other("missing integration branch"),
            })?;
        let worktree = ws.fresh_unit(unit, &base)?;
        ws.copy_into(unit, &config.workspace.copy)?;
        let _ = std::fs::remove_file(self.setup_marker(state, unit));
        let continuation = sp.agent.as_ref().is_some_and(|a| a.continuation);
        let retry = sp.agent.as_ref().is_some_and(|a| a.retry_of.is_some());
        let mut conflict = None;
        if let Some(tip) = remote.tracked(&integration).filter(|_| retry) {
            let merge = ws.carry_conflict(unit, &sp.id.to_string(), &tip, &base)?;
            conflict = Some(merge.retry_note(&ws.integration_branch()));
        }
        self.record_conflict(state, unit, conflict.as_deref())?;
        let root = if state.root == "." {
            worktree.clone()
        } else {
            worktree.join(&state.root)
        };
        let model = match sp.model.unwrap_or(Model::Sonnet) {
            Model::Haiku => &config.models.haiku,
            Model::Sonnet => &config.models.sonnet,
            Model::Opus => &config.models.opus,
        }
        .clone();
        let paths = self.prepare_job(&JobSpec {
            state,
            plan,
            config,
            template: config
                .agent_command()
                .ok_or(EngineError::NoAgentCommand)?
                .to_vec(),
            unit,
            root: &root,
            dispatch_no,
            attempt: sp.attempt,
            model,
            continuation,
            retry,
            parallel: true,
            setup: true,
            worker_pid: Some(std::process::id()),
        })?;
        self.start_wrapper(&paths)?;
        Ok(Started {
            paths,
            base,
            worktree,
            root,
        })
    }

    /// Record a claim whose agent could not be started as a failed attempt,
    /// and give its lease back, in one push. Best effort: when even that
    /// fails, the lease lapses as usual.
    fn fail_claim(&self, unit: &str, dispatch_no: u32, me: &str, e: &EngineError) {
        let Some(remote) = self.store.remote() else {
            return;
        };
        let lease_ref = lease::lease_ref(unit);
        let why = format!("The worker {me} could not start the sprint's agent: {e}.");
        let _ = self.publish_decided(|tip| {
            let held = tip
                .state
                .unit(unit)
                .and_then(|u| u.active_sprint())
                .is_some_and(|sp| {
                    sp.dispatches == dispatch_no
                        && sp.state == SprintStatus::Running
                        && sp.agent.as_ref().and_then(|a| a.worker.as_deref()) == Some(me)
                });
            if !held {
                return Ok(None);
            }
            let also = remote
                .tracked(&lease_ref)
                .map(|held| RefPush {
                    name: lease_ref.clone(),
                    new: None,
                    expected: Some(held),
                })
                .into_iter()
                .collect();
            Ok(Some((
                EventKind::Verdict {
                    unit: unit.to_string(),
                    outcome: machine::Outcome::Failure,
                    evidence: why.clone(),
                    remaining: Vec::new(),
                    commits: Vec::new(),
                    turns: None,
                    cost: None,
                },
                also,
            )))
        });
    }

    /// Renew a claim's lease when a third of it has passed. A renewal the
    /// remote refuses means the claim was taken: the agent is stopped.
    fn renew(
        &self,
        c: &mut Claimed,
        options: &WorkerOptions,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        let Some(tip) = self.store.tip()? else {
            return Ok(());
        };
        let (_, config) = self.snapshot(&tip)?;
        if c.stopping || c.renewed.elapsed() < config.run.lease / 3 {
            return Ok(());
        }
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let id = self.store.write_lease(&Lease {
            worker: options.identity.clone(),
            subject: c.unit.clone(),
            dispatch: c.dispatch,
            expires: lease::now() + config.run.lease.as_secs() as i64,
        })?;
        let renewed = remote.push(&[RefPush {
            name: lease::lease_ref(&c.unit),
            new: Some(id.to_string()),
            expected: Some(c.lease.clone()),
        }])?;
        if renewed {
            c.lease = id.to_string();
            c.renewed = Instant::now();
            return Ok(());
        }
        remote.fetch()?;
        if remote.tracked(&lease::lease_ref(&c.unit)).as_deref() == Some(c.lease.as_str()) {
            // Refused for another reason (a push racing ours): again later.
            return Ok(());
        }
        say(&format!(
            "{} sprint {}: the lease was taken; stopping the agent",
            c.unit, c.sprint
        ));
        if let Some(w) = Report::read(&c.paths.report).and_then(|r| r.wrapper_pid) {
            if dispatch::alive(w) {
                crate::dispatch::reap::signal(w, libc::SIGTERM);
            }
        }
        c.stopping = true;
        Ok(())
    }

    /// When a claim's agent is done: verify its work in the worktree and
    /// publish the verdict with the unit's branch, the merge and the
    /// lease's removal. `true`: the claim is over.
    fn finish_if_done(
        &self,
        c: &Claimed,
        options: &WorkerOptions,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) -> Result<bool, EngineError> {
        let report = Report::read(&c.paths.report).unwrap_or_default();
        let gone = !report.finished
            && !crate::base::lock::is_held(&c.paths.lock)
            && !report.wrapper_pid.is_some_and(dispatch::alive);
        if !report.finished && !gone {
            return Ok(false);
        }
        let Some(tip) = self.store.tip()? else {
            return Ok(true);
        };
        let (plan, _) = self.snapshot(&tip)?;
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let ours = |tip: &Tip| {
            tip.state
                .unit(&c.unit)
                .and_then(|u| u.active_sprint())
                .filter(|sp| {
                    sp.id == c.sprint
                        && sp.dispatches == c.dispatch
                        && sp.state == SprintStatus::Running
                        && sp.agent.as_ref().and_then(|a| a.worker.as_deref())
                            == Some(options.identity.as_str())
                })
                .cloned()
        };
        let Some(sp) = ours(&tip) else {
            self.drop_claim(c, summary, say);
            return Ok(true);
        };
        let unit_dir = tip
            .state
            .unit(&c.unit)
            .map(|u| u.dir.clone())
            .unwrap_or_default();
        let Some(sprint) = plan
            .unit(&c.unit)
            .and_then(|u| u.sprints.iter().find(|s| s.id == c.sprint))
        else {
            return Ok(true);
        };
        let killed = if gone {
            Some("the agent's wrapper is gone without a report")
        } else {
            report.killed.as_deref()
        };
        let verdict = verify::verify(&verify::VerifyInput {
            root: &c.root,
            unit: &c.unit,
            unit_dir: &unit_dir,
            sprint,
            base_commit: Some(&c.base),
            exit_code: report.exit_code,
            killed,
            result_file: Some(c.paths.result.clone()),
            log_file: Some(c.paths.log.clone()),
            agent: sp.agent.as_ref(),
        });
        let (outcome, evidence) = verdict.after_watchdog(!gone && report.killed.is_some());
        let ws = Workspaces::new(
            &self.workdir,
            self.snapshot(&tip)?.1.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        let branch = format!("refs/heads/{}", ws.unit_branch(&c.unit));
        let integration = format!("refs/heads/{}", ws.integration_branch());
        let unit_tip = verify::head(&c.worktree).unwrap_or_else(|| c.base.clone());
        let mut published = None;
        let steps = self.publish_decided(|tip| {
            if ours(tip).is_none() {
                return Ok(None);
            }
            let mut also = Vec::new();
            let theirs = remote.tracked(&branch);
            if theirs.as_deref() != Some(unit_tip.as_str()) {
                also.push(RefPush {
                    name: branch.clone(),
                    new: Some(unit_tip.clone()),
                    expected: theirs,
                });
            }
            let (outcome, evidence) = match outcome {
                machine::Outcome::Completed => {
                    let tip = remote.tracked(&integration).ok_or_else(|| EngineError::Io {
                        what: format!("the remote has no `{}`", ws.integration_branch()),
                        source: std::io::Error::other("missing integration branch"),
                    })?;
                    let name = ws.integration_branch();
                    match ws.merge_commit(&tip, &unit_tip, &c.unit, &c.sprint.to_string())? {
                        Merge::Already { .. } => (outcome, format!("{evidence} Already on `{name}`.")),
                        Merge::Merged { commit } => {
                            let text = format!(
                                "{evidence} Merged into `{name}` as {}.",
                                super::short(&commit)
                            );
                            also.push(RefPush {
                                name: integration.clone(),
                                new: Some(commit),
                                expected: Some(tip),
                            });
                            (outcome, text)
                        }
                        Merge::Conflict { files, .. } => (
                            machine::Outcome::Failure,
                            format!(
                                "The sprint's work passed verification but conflicts with `{name}` in {}; its retry starts with that branch merged in, conflicts to resolve.",
                                files.join(", ")
                            ),
                        ),
                    }
                }
                other => (other, evidence.clone()),
            };
            let lease_ref = lease::lease_ref(&c.unit);
            if let Some(held) = remote.tracked(&lease_ref) {
                also.push(RefPush {
                    name: lease_ref,
                    new: None,
                    expected: Some(held),
                });
            }
            published = Some(outcome);
            Ok(Some((
                EventKind::Verdict {
                    unit: c.unit.clone(),
                    outcome,
                    evidence,
                    remaining: verdict.remaining.clone(),
                    commits: verdict.commits.clone(),
                    turns: verdict.turns,
                    cost: verdict.cost_usd,
                },
                also,
            )))
        })?;
        let to = steps.iter().find_map(|s| match s.transition.change {
            machine::Change::Sprint { to, .. } if s.transition.unit.as_deref() == Some(&c.unit) => {
                Some(to)
            }
            _ => None,
        });
        match (published, to) {
            (Some(_), Some(to)) => {
                summary
                    .verdicts
                    .push(format!("{}/{}: {to}", c.unit, c.sprint));
                say(&format!("{} sprint {}: {to}", c.unit, c.sprint));
            }
            _ => self.drop_claim(c, summary, say),
        }
        Ok(true)
    }

    /// A claim the run no longer holds (its lease lapsed and was taken, or
    /// the run was stopped or killed): nothing is recorded for it, and its
    /// lease goes if it is still the one this worker wrote.
    fn drop_claim(&self, c: &Claimed, summary: &mut WorkerSummary, say: &mut dyn FnMut(&str)) {
        if let Some(remote) = self.store.remote() {
            let _ = remote.push(&[RefPush {
                name: lease::lease_ref(&c.unit),
                new: None,
                expected: Some(c.lease.clone()),
            }]);
        }
        summary.dropped.push(format!("{}/{}", c.unit, c.sprint));
        say(&format!(
            "{} sprint {}: the claim was lost; nothing recorded",
            c.unit, c.sprint
        ));
    }
}
