//! A worker's claim on one sprint: its lease (see `lease_claim`), or the
//! RUNNING transition pushed with its lease when the claim rides on a push
//! of the state anyway (a verdict's); the unit's worktree and agent started
//! from the remote's unit branch, the lease renewed while the agent works,
//! and a claim whose agent cannot start given back as a failed attempt.

use std::time::Instant;

use super::Claimed;
use super::WorkerOptions;
use crate::dispatch;
use crate::dispatch::Report;
use crate::engine::AgentPaths;
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::engine::JobSpec;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::Model;
use crate::machine::SprintStatus;
use crate::store::lease;
use crate::store::lease::Lease;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::workspace::Workspaces;

/// What `start_claimed` set up for a claim.
struct Started {
    paths: AgentPaths,
    base: String,
    worktree: std::path::PathBuf,
    root: std::path::PathBuf,
}

/// What a worker may claim in a chain of events it publishes.
pub(super) struct ClaimNext<'a> {
    /// Units this worker runs already.
    pub(super) taken: Vec<String>,
    pub(super) options: &'a WorkerOptions,
    /// When no sprint waits, dispatch the next ready one and claim it, in
    /// the same push.
    pub(super) dispatch: bool,
    /// This worker's claims whose RUNNING transitions the push carries.
    pub(super) pending: Vec<super::lease_claim::Pending>,
}

/// What a claim came to.
pub(super) enum Claim {
    Won(Box<Claimed>),
    /// Another worker took the last waiting sprint (`unit`) first.
    Lost(String),
    /// Nothing waits for an agent.
    Nothing,
}

/// A claim the remote took: the unit, its lease and dispatch number, and
/// the run's state after the push that carried it (`None` while the chain
/// is being decided).
pub(super) struct Won {
    unit: String,
    lease: String,
    dispatch: u32,
    state: Option<Box<crate::machine::State>>,
    /// The state holds the claim's RUNNING transition.
    recorded: bool,
}

impl Won {
    /// The claim, once the chain that carried it (`steps`) was published.
    pub(super) fn published(mut self, steps: &[crate::machine::Step]) -> Option<Won> {
        self.state = Some(Box::new(steps.last()?.state.clone()));
        self.recorded = true;
        Some(self)
    }

    /// A claim the remote took as its lease alone, on `state`.
    pub(super) fn leased(
        unit: String,
        lease: String,
        dispatch: u32,
        state: crate::machine::State,
    ) -> Won {
        Won {
            unit,
            lease,
            dispatch,
            state: Some(Box::new(state)),
            recorded: false,
        }
    }
}

impl Engine {
    /// The next event of a chain that ends in this worker's claim: the
    /// claim of a waiting sprint, or (with `next.dispatch`, none waiting)
    /// the dispatch of a ready one to claim after it. `None` once claimed.
    /// `pushed`: the unit branches the chain moves, and to where.
    pub(super) fn claim_step(
        &self,
        tip: &Tip,
        state: &crate::machine::State,
        next: &ClaimNext,
        pushed: &[(String, String)],
        won: &mut Option<Won>,
    ) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError> {
        if won.is_some() {
            return Ok(None);
        }
        let me = &next.options.identity;
        let leased = |unit: &str, dispatch: u32| self.claimed_by_lease(unit, dispatch);
        let Some(unit) = claimable(state, &next.taken, me, leased) else {
            let Some((plan, config)) = next
                .dispatch
                .then(|| self.quiet_dispatch_config(tip))
                .flatten()
            else {
                return Ok(None);
            };
            let Some(choice) = self.next_dispatch(state, &plan, &config) else {
                return Ok(None);
            };
            // Work already on the unit's branch is the tick's to judge
            // (see `branch_history`) before any agent gets the sprint.
            if self.marked_on_unit_branch(state, &config, &choice.unit, pushed) {
                return Ok(None);
            }
            return Ok(Some((self.remote_dispatch(state, choice), Vec::new())));
        };
        let (_, config) = self.snapshot(tip)?;
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let sp = state
            .unit(&unit)
            .and_then(|u| u.active_sprint())
            .expect("a claimable unit has a sprint waiting");
        let id = self.store.write_lease(&Lease {
            worker: me.clone(),
            subject: unit.clone(),
            dispatch: sp.dispatches,
            expires: lease::now() + config.run.lease.as_secs() as i64,
        })?;
        let lease_ref = lease::lease_ref(&unit);
        let push = RefPush {
            name: lease_ref.clone(),
            new: Some(id.to_string()),
            expected: remote.tracked(&lease_ref),
        };
        *won = Some(Won {
            unit: unit.clone(),
            lease: id.to_string(),
            dispatch: sp.dispatches,
            state: None,
            recorded: false,
        });
        Ok(Some((
            EventKind::AgentStarted {
                unit,
                pid: None,
                worker: Some(me.clone()),
            },
            vec![push],
        )))
    }

    /// Start the agent of a claim the remote took. A claim whose agent
    /// cannot start is given back at once as a failed attempt (the cause
    /// may be this machine's, or lasting) rather than held until its lease
    /// lapses.
    pub(super) fn start_won(&self, won: Won, me: &str) -> Result<Claimed, EngineError> {
        crate::store::fault::boundary("sprint claimed, agent not started");
        let state = won.state.as_deref().expect("a published claim");
        let sprint = state
            .unit(&won.unit)
            .and_then(|u| u.active_sprint())
            .map(|sp| sp.id.clone())
            .expect("the claimed sprint");
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        let (plan, config) = self.snapshot(&tip)?;
        match self.start_claimed(state, &plan, &config, &won.unit, won.dispatch) {
            Ok(started) => Ok(Claimed {
                unit: won.unit,
                sprint,
                dispatch: won.dispatch,
                paths: started.paths,
                lease: won.lease,
                renewed: Instant::now(),
                since: Instant::now(),
                base: started.base,
                worktree: started.worktree,
                root: started.root,
                stopping: false,
                queued: None,
                recorded: won.recorded,
                successor: None,
            }),
            Err(e) => {
                self.fail_claim(&won.unit, won.dispatch, &won.lease, me, &e);
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
        let model = crate::engine::launch::model_name(config, sp.model.unwrap_or(Model::Sonnet));
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
    fn fail_claim(&self, unit: &str, dispatch_no: u32, lease_id: &str, me: &str, e: &EngineError) {
        let Some(remote) = self.store.remote() else {
            return;
        };
        let lease_ref = lease::lease_ref(unit);
        let why = format!("The worker {me} could not start the sprint's agent: {e}.");
        let _ = self.publish_chain(|_, state, n| {
            if n > 1 {
                return Ok(None);
            }
            // A claim only its lease held is recorded first: a verdict
            // ends a RUNNING sprint.
            let sprint = state
                .unit(unit)
                .and_then(|u| u.active_sprint())
                .map(|sp| sp.id.to_string())
                .unwrap_or_default();
            if n == 0 && self.leased_to(state, unit, &sprint, dispatch_no, lease_id) {
                return Ok(Some((super::lease_claim::started(unit, me), Vec::new())));
            }
            let held = state
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
                    checks: Vec::new(),
                },
                also,
            )))
        });
    }

    /// Renew a claim's lease when a third of it has passed. A renewal the
    /// remote refuses means the claim was taken: the agent is stopped.
    pub(super) fn renew(
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
}

/// A RUNNING unit whose sprint waits DISPATCHED for a worker, other than
/// `taken`: the one this worker ranks first (see `rank`), so that many
/// workers do not all race for one sprint. A claim the remote refuses is
/// decided again on its tip, where the sprint another worker took no
/// longer waits: the next in this worker's order is tried at once.
/// A sprint another worker's live lease claims (`leased(unit, dispatch)`)
/// waits for no one.
pub(super) fn claimable(
    state: &crate::machine::State,
    taken: &[String],
    me: &str,
    leased: impl Fn(&str, u32) -> bool,
) -> Option<String> {
    state
        .waiting_for_an_agent()
        .filter(|u| !taken.contains(&u.name))
        .filter_map(|u| {
            let sp = u.active_sprint()?;
            (!leased(&u.name, sp.dispatches)).then(|| (rank(me, &u.name, &sp.id.to_string()), u))
        })
        .max_by(|(a, x), (b, y)| a.cmp(b).then_with(|| y.name.cmp(&x.name)))
        .map(|(_, u)| u.name.clone())
}

/// Rendezvous (highest random weight) ranking: each worker orders the
/// waiting sprints by a hash of its identity and the sprint, so workers
/// prefer different sprints, and a sprint taken or added moves no other
/// sprint in anyone's order (an offset into the list of waiting sprints
/// moved every worker's choice whenever the list changed, and sent them to
/// the same sprint).
pub fn rank(me: &str, unit: &str, sprint: &str) -> u64 {
    // FNV-1a spreads poorly in its high bits over short keys: a final mix
    // (splitmix64's) makes the comparison fair.
    let mut h = crate::base::hash::fnv1a(
        me.bytes()
            .chain([0])
            .chain(unit.bytes())
            .chain([0])
            .chain(sprint.bytes()),
    );
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::rank;

    /// The first choice of each of `workers` among `sprints`.
    fn firsts(workers: usize, sprints: &[String]) -> Vec<String> {
        (0..workers)
            .map(|w| {
                let me = format!("runner-{w}/4242");
                sprints
                    .iter()
                    .max_by_key(|s| rank(&me, s, "1"))
                    .expect("sprints")
                    .clone()
            })
            .collect()
    }

    #[test]
    fn workers_prefer_different_sprints() {
        let sprints: Vec<String> = (1..=64).map(|u| format!("unit{u:02}")).collect();
        let firsts = firsts(16, &sprints);
        let mut distinct = firsts.clone();
        distinct.sort();
        distinct.dedup();
        // Sixteen uniform picks among 64 give about 14 distinct sprints;
        // one shared pick among all (the old first-waiting rule) gives 1.
        assert!(distinct.len() >= 11, "{firsts:?}");
    }

    #[test]
    fn a_sprint_taken_moves_no_other_in_a_workers_order() {
        let sprints: Vec<String> = (1..=20).map(|u| format!("unit{u:02}")).collect();
        for w in 0..8 {
            let me = format!("runner-{w}/1");
            let mut order = sprints.clone();
            order.sort_by_key(|s| std::cmp::Reverse(rank(&me, s, "1")));
            let taken = order[0].clone();
            let rest: Vec<String> = sprints.iter().filter(|s| **s != taken).cloned().collect();
            let mut after = rest.clone();
            after.sort_by_key(|s| std::cmp::Reverse(rank(&me, s, "1")));
            assert_eq!(
                after,
                order[1..].to_vec(),
                "the next candidate is the second choice"
            );
        }
    }
}
