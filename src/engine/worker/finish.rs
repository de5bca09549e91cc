//! The end of a worker's claim: its agent's work verified in the unit's
//! worktree, the worker's next sprint claimed by its lease and started, and
//! the verdict published with the unit's branch, the merge into the
//! integration branch, the lease's removal and the new claim's RUNNING
//! transition, or, when the run no longer holds the claim, nothing
//! recorded. The verdict's push is the only one of the sprint's that moves
//! the state ref, and the new agent works while it waits for its turn.

use super::claim::Claim;
use super::claim::ClaimNext;
use super::claim::Won;
use super::handover::Fold;
use super::lease_claim::started;
use super::lease_claim::Pending;
use super::queue::Queued;
use super::Claimed;
use super::WorkerOptions;
use crate::dispatch;
use crate::dispatch::Report;
use crate::engine::verify;
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::SprintState;
use crate::machine::SprintStatus;
use crate::store::lease;
use crate::store::remote::RefPush;
use crate::store::Tip;
use crate::workspace::Workspaces;

use super::WorkerSummary;

impl Engine {
    /// When a claim's agent is done: verify its work in the worktree (once;
    /// the verdict is then queued) and publish the verdict with the unit's
    /// branch, the merge and the lease's removal, and, with `next`, this
    /// worker's next claim in the same push. An error leaves the verdict
    /// queued for the next round.
    pub(super) fn finish_if_done(
        &self,
        c: &mut Claimed,
        next: &ClaimNext,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) -> Result<Finish, EngineError> {
        let options = next.options;
        if c.queued.is_none() {
            match self.judge(c, options)? {
                Judged::Working => return Ok(Finish::Working),
                Judged::Lost => {
                    self.drop_claim(
                        &c.unit,
                        &c.sprint.to_string(),
                        c.dispatch,
                        &c.lease,
                        summary,
                        say,
                    );
                    return Ok(Finish::Over(None));
                }
                Judged::Gone => return Ok(Finish::Over(None)),
                Judged::Queued(q) => {
                    if let Err(e) = q.save(&self.store.runtime_dir()) {
                        say(&format!(
                            "{} sprint {}: cannot keep its verdict on disk ({e}); it is kept in memory only",
                            c.unit, c.sprint
                        ));
                    }
                    c.queued = Some(*q);
                    // Decided on the remote's latest state: a worker busy
                    // with its agents looks at the remote only now and then
                    // (see `work`), and a push decided on an older state is
                    // refused and costs a fetch and a second push anyway.
                    if let Some(remote) = self.store.remote() {
                        let _ = remote.fetch();
                    }
                    // The verdict in the lease, for whichever worker pushes
                    // the state first, in the push of the next claim.
                    let mut post = self.verdict_post(c).unwrap_or_else(|e| {
                        say(&format!(
                            "{} sprint {}: cannot post its verdict ({e}); publishing it alone",
                            c.unit, c.sprint
                        ));
                        None
                    });
                    // The next sprint first, as its lease alone: its agent
                    // starts now, and its RUNNING transition rides on the
                    // verdict's push.
                    if next.taken.len() < options.agents {
                        let mut taken = next.taken.clone();
                        taken.push(c.unit.clone());
                        let succ = ClaimNext {
                            taken,
                            options,
                            dispatch: false,
                            pending: Vec::new(),
                        };
                        let carry = post.as_ref().map(|p| p.refs.clone()).unwrap_or_default();
                        match self.claim_by_lease(&succ, &carry) {
                            Ok((claim, carried)) => {
                                if let Claim::Won(s) = claim {
                                    c.successor = Some(s);
                                }
                                if carried {
                                    self.posted(c, post.take());
                                }
                            }
                            Err(e) => say(&format!("cannot claim the next sprint: {e}")),
                        }
                    }
                    if let Some(p) = post {
                        match self.store.remote().map(|r| r.push(&p.refs)) {
                            Some(Ok(true)) => self.posted(c, Some(p)),
                            Some(Err(e)) => say(&format!(
                                "{} sprint {}: cannot post its verdict ({e}); publishing it alone",
                                c.unit, c.sprint
                            )),
                            _ => {}
                        }
                    }
                    // With its next agent at work, the worker is in no hurry:
                    // workers whose agents ended together spread their
                    // pushes of the state, and the first carries the others'
                    // posted verdicts.
                    // Without one, it pushes at once unless a verdict of
                    // another's that ranks first is posted: that worker's
                    // push will likely carry this one too.
                    let remote = self.store.remote();
                    let follow = if c.successor.is_some() {
                        super::leave::nap(spread());
                        remote.is_some_and(|r| r.fetch().is_ok()) && !self.leads(c)
                    } else {
                        !self.leads(c)
                    };
                    if let Some(remote) = remote.filter(|_| follow) {
                        let wait = if c.successor.is_some() {
                            FOLLOW + spread()
                        } else {
                            FOLLOW_ALONE
                        };
                        super::leave::nap(wait);
                        let _ = remote.fetch();
                    }
                }
            }
        }
        let q = c.queued.as_ref().expect("judged above");
        let mut next = ClaimNext {
            taken: next.taken.clone(),
            options,
            dispatch: next.dispatch,
            pending: next.pending.clone(),
        };
        // A worker whose next agent already works claims nothing more.
        let claim = match &c.successor {
            Some(s) => {
                next.pending.extend(Pending::of(s));
                next.taken.push(s.unit.clone());
                next.taken.len() < options.agents
            }
            None => true,
        };
        let claimed = self.publish_queued(q, Some(&next), claim, summary, say)?;
        Ok(Finish::Over(claimed.map(Box::new)))
    }

    /// Whether `c`'s worker pushes the state for its verdict first (see
    /// `leads_fold`).
    fn leads(&self, c: &Claimed) -> bool {
        let Ok(Some(tip)) = self.store.tip() else {
            return true;
        };
        let Ok((_, config)) = self.snapshot(&tip) else {
            return true;
        };
        let ws = Workspaces::new(
            &self.workdir,
            config.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        self.leads_fold(&c.unit, &ws)
    }

    /// Verify a finished agent's work into a verdict to publish.
    fn judge(&self, c: &Claimed, options: &WorkerOptions) -> Result<Judged, EngineError> {
        let report = Report::read(&c.paths.report).unwrap_or_default();
        let gone = !report.finished
            && !crate::base::lock::is_held(&c.paths.lock)
            && !report.wrapper_pid.is_some_and(dispatch::alive);
        if !report.finished && !gone {
            return Ok(Judged::Working);
        }
        // A run gone from the remote is the round's to report (see `work`),
        // not a claim to drop.
        let Some(tip) = self.store.tip()? else {
            return Ok(Judged::Working);
        };
        let (plan, config) = self.snapshot(&tip)?;
        let sprint_id = c.sprint.to_string();
        let leased = self.leased_to(&tip.state, &c.unit, &sprint_id, c.dispatch, &c.lease);
        let held = held(
            &tip.state,
            &c.unit,
            &sprint_id,
            c.dispatch,
            &options.identity,
        );
        // A claim only its lease holds is judged as the sprint was
        // dispatched.
        let Some(sp) = held.or_else(|| {
            leased
                .then(|| tip.state.unit(&c.unit).and_then(|u| u.active_sprint()))
                .flatten()
                .cloned()
        }) else {
            return Ok(Judged::Lost);
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
            return Ok(Judged::Gone);
        };
        let killed = if gone {
            Some("the agent's wrapper is gone without a report")
        } else {
            report.killed.as_deref()
        };
        let verdict = verify::verify(&verify::VerifyInput {
            env: &self.unit_env_at(&tip, &c.unit),
            others: verify::others(&tip.state, &c.unit),
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
        // A usage limit: the sprint waits for the reset, uncharged, its
        // agent's work so far on the unit branch.
        if let Some(limit) = report
            .usage_limit
            .as_ref()
            .filter(|_| outcome != machine::Outcome::Completed)
        {
            return Ok(Judged::Queued(Box::new(Queued {
                worker: options.identity.clone(),
                unit: c.unit.clone(),
                sprint: c.sprint.to_string(),
                dispatch: c.dispatch,
                lease: c.lease.clone(),
                unit_tip: verify::head(&c.worktree).unwrap_or_else(|| c.base.clone()),
                verdict: EventKind::UsageLimited {
                    unit: c.unit.clone(),
                    agent: limit.agent.clone(),
                    resets_at: limit.resets_at.clone(),
                    met_at: limit.met_at.clone(),
                    line: limit.line.clone(),
                },
                background: Vec::new(),
            })));
        }
        // A background sprint completes only while what its agent left
        // runs here; the processes are recorded with the verdict.
        let background = match self.background_to_record(&c.unit, &sp, &report) {
            Some(EventKind::Background { processes, .. }) => processes,
            _ => Vec::new(),
        };
        let (outcome, evidence) = self.background_verdict(&sp, &background, outcome, evidence);
        // Checked as it goes, before the merge.
        let (outcome, evidence) = if outcome == machine::Outcome::Failure {
            (outcome, evidence)
        } else {
            self.quick_checked(
                &c.root,
                Some(&c.base),
                &config,
                &tip,
                &c.unit,
                outcome,
                evidence,
            )
        };
        Ok(Judged::Queued(Box::new(Queued {
            worker: options.identity.clone(),
            unit: c.unit.clone(),
            sprint: c.sprint.to_string(),
            dispatch: c.dispatch,
            lease: c.lease.clone(),
            unit_tip: verify::head(&c.worktree).unwrap_or_else(|| c.base.clone()),
            verdict: EventKind::Verdict {
                unit: c.unit.clone(),
                outcome,
                evidence,
                remaining: verdict.remaining.clone(),
                commits: verdict.commits.clone(),
                turns: verdict.turns,
                cost: verdict.cost_usd,
                checks: verdict.checks.clone(),
            },
            background,
        })))
    }

    /// Publish a queued verdict with the unit's branch, the merge and the
    /// lease's removal, while the run still holds its claim; otherwise drop
    /// it with the reason. Either way it leaves the queue; an error (the
    /// remote did not answer) keeps it there. With `next`, the same push
    /// carries this worker's next claim (and the dispatch it claims, when
    /// none waits): a verdict and a claim pushed apart raced every other
    /// worker's pushes twice. The claim's agent is the caller's to start,
    /// once the claim that ends here has left its unit's worktree.
    pub(super) fn publish_queued(
        &self,
        q: &Queued,
        next: Option<&ClaimNext>,
        claim: bool,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) -> Result<Option<Won>, EngineError> {
        if !matches!(
            q.verdict,
            EventKind::Verdict { .. } | EventKind::UsageLimited { .. }
        ) {
            q.forget(&self.store.runtime_dir());
            return Ok(None);
        }
        let Some(tip) = self.store.tip()? else {
            return Err(EngineError::NoRun);
        };
        let ws = Workspaces::new(
            &self.workdir,
            self.snapshot(&tip)?.1.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        let unit_tip = q.unit_tip.clone();
        if !q.background.is_empty() {
            self.publish_chain(|_, state, _| {
                if self.leased_to(state, &q.unit, &q.sprint, q.dispatch, &q.lease) {
                    return Ok(Some((started(&q.unit, &q.worker), Vec::new())));
                }
                let Some(sp) = held(state, &q.unit, &q.sprint, q.dispatch, &q.worker) else {
                    return Ok(None);
                };
                Ok(sp.background.is_empty().then(|| {
                    (
                        EventKind::Background {
                            unit: q.unit.clone(),
                            sprint: sp.id.clone(),
                            processes: q.background.clone(),
                        },
                        Vec::new(),
                    )
                }))
            })?;
        }
        let mut published = None;
        let mut own_over = false;
        let mut won = None;
        let mut fold = Fold::default();
        let steps = self.publish_chain(|tip, state, n| {
            if n == 0 {
                published = None;
                own_over = false;
                won = None;
                fold = self.fold(&q.unit, &ws);
            }
            if !own_over {
                // A claim only its lease held: its RUNNING transition first.
                if n == 0 && self.leased_to(state, &q.unit, &q.sprint, q.dispatch, &q.lease) {
                    return Ok(Some((started(&q.unit, &q.worker), Vec::new())));
                }
                own_over = true;
                if held(state, &q.unit, &q.sprint, q.dispatch, &q.worker).is_some() {
                    let (kind, also, outcome) = self.verdict_step(&ws, q, &mut fold.integration)?;
                    published = Some(outcome);
                    return Ok(Some((kind, also)));
                }
                // Recorded by another worker (or no longer this worker's):
                // nothing to push. Pushing others' verdicts too, every
                // worker whose own was recorded raced the rest again.
                return Ok(None);
            }
            // Then what other workers posted and the claims only leases
            // hold (this worker's among them), then its next claim.
            if let Some(step) = self.fold_step(state, &ws, &mut fold)? {
                return Ok(Some(step));
            }
            let Some(next) = next.filter(|_| published.is_some()) else {
                return Ok(None);
            };
            if let Some(step) = self.record_step(state, &next.pending, &next.options.identity) {
                return Ok(Some(step));
            }
            let pushed = [(q.unit.clone(), unit_tip.clone())];
            if !claim {
                // Its next agent works already: the next ready sprint is
                // dispatched for another worker, not claimed.
                let leased = |u: &str, d: u32| self.claimed_by_lease(u, d);
                let me = &next.options.identity;
                if super::claim::claimable(state, &next.taken, me, leased).is_some() {
                    return Ok(None);
                }
            }
            self.claim_step(tip, state, next, &pushed, &mut won)
        })?;
        // The verdict's own transition (a RUNNING sprint's end), not the
        // RUNNING one a claim only its lease held got first.
        let to = steps.iter().find_map(|s| match s.transition.change {
            machine::Change::Sprint {
                from: SprintStatus::Running,
                to,
            } if s.transition.unit.as_deref() == Some(&q.unit) => Some(to),
            _ => None,
        });
        match (published, to.or_else(|| self.recorded_elsewhere(q))) {
            (_, Some(to)) => {
                summary
                    .verdicts
                    .push(format!("{}/{}: {to}", q.unit, q.sprint));
                say(&format!("{} sprint {}: {to}", q.unit, q.sprint));
            }
            _ => self.drop_claim(&q.unit, &q.sprint, q.dispatch, &q.lease, summary, say),
        }
        q.forget(&self.store.runtime_dir());
        Ok(won.and_then(|w| w.published(&steps)))
    }

    /// A claim the run no longer holds (its lease lapsed and was taken, or
    /// the run was stopped or killed): nothing is recorded for it, and its
    /// lease goes if it is still the one this worker wrote.
    fn drop_claim(
        &self,
        unit: &str,
        sprint: &str,
        dispatch: u32,
        lease_id: &str,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) {
        if let Some(remote) = self.store.remote() {
            let _ = remote.push(&[RefPush {
                name: lease::lease_ref(unit),
                new: None,
                expected: Some(lease_id.to_string()),
            }]);
        }
        summary.dropped.push(format!("{unit}/{sprint}"));
        let why = lost_because(
            self.store.tip().ok().flatten().as_ref(),
            unit,
            sprint,
            dispatch,
        );
        say(&format!(
            "{unit} sprint {sprint}: the claim was lost ({why}); nothing recorded for this worker's agent"
        ));
    }
}

/// How much longer a worker whose posted verdict another's push will
/// likely carry waits for it (a push carrying sixteen verdicts takes a few
/// seconds to decide on a busy machine).
const FOLLOW: std::time::Duration = std::time::Duration::from_millis(3000);

/// The same for a worker with no agent at work: the run may be waiting for
/// this verdict (the unit's next sprint, the run's end).
const FOLLOW_ALONE: std::time::Duration = std::time::Duration::from_millis(1200);

/// How long a worker whose next agent already works waits before it
/// pushes the state with its verdict: `LEAST` and a random time below
/// `SPREAD`, so that the first of the workers whose agents ended together
/// finds most of their verdicts posted.
const LEAST: std::time::Duration = std::time::Duration::from_millis(1000);
const SPREAD: std::time::Duration = std::time::Duration::from_millis(2000);

fn spread() -> std::time::Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let h = crate::base::hash::fnv1a(format!("{}/{nanos}", std::process::id()).bytes());
    LEAST + SPREAD.mul_f64((h % 1000) as f64 / 1000.0)
}

/// Where a claim stands after `finish_if_done`.
pub(super) enum Finish {
    /// Its agent is still at work.
    Working,
    /// The claim is over; the worker's next claim, when the verdict's push
    /// carried one.
    Over(Option<Box<Won>>),
}

/// What a finished (or still working) claim's agent came to.
enum Judged {
    /// Still at work.
    Working,
    /// The run no longer holds the claim.
    Lost,
    /// The sprint is no longer in the plan: nothing to record.
    Gone,
    Queued(Box<Queued>),
}

/// The sprint of `unit` the run holds RUNNING for `worker`'s claim
/// (`sprint`, dispatch `dispatch`), if it still does.
pub(super) fn held(
    state: &crate::machine::State,
    unit: &str,
    sprint: &str,
    dispatch: u32,
    worker: &str,
) -> Option<SprintState> {
    state
        .unit(unit)
        .and_then(|u| u.active_sprint())
        .filter(|sp| {
            sp.id.to_string() == sprint
                && sp.dispatches == dispatch
                && sp.state == SprintStatus::Running
                && sp.agent.as_ref().and_then(|a| a.worker.as_deref()) == Some(worker)
        })
        .cloned()
}

/// Why the run no longer holds the claim on `unit`'s `sprint`, dispatch
/// `dispatch`, as its tip says.
fn lost_because(tip: Option<&Tip>, unit: &str, sprint: &str, dispatch: u32) -> String {
    use crate::machine::UnitStatus;
    let Some(unit) = tip.and_then(|t| t.state.unit(unit)) else {
        return "the unit is no longer in the run".into();
    };
    match unit.state {
        UnitStatus::Stopping | UnitStatus::Stopped => {
            return "the unit was stopped (`git supervisor stop`)".into()
        }
        UnitStatus::Killed => return "the unit was killed (`git supervisor killall`)".into(),
        _ => {}
    }
    let Some(sp) = unit.sprints.iter().find(|s| s.id.to_string() == sprint) else {
        return format!("sprint {sprint} is no longer in the plan");
    };
    let lapsed = "its lease lapsed before this worker renewed it (the remote heard nothing from it for longer than `[run] lease`)";
    if sp.dispatches == dispatch {
        return format!("{lapsed}; the sprint is {}", sp.state.as_str());
    }
    let by = match sp.agent.as_ref().and_then(|a| a.worker.as_deref()) {
        Some(w) => format!("worker {w}"),
        None => "another worker".into(),
    };
    format!(
        "{lapsed}; the sprint went to {by} as dispatch {} and is {}",
        sp.dispatches,
        sp.state.as_str()
    )
}
