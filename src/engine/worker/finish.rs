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
use crate::workspace::Merge;
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
                    super::trace(&format!("judged {}", c.unit));
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
                        super::trace("fetched");
                        let r = self.claim_by_lease(&succ);
                        super::trace("claimed");
                        match r {
                            Ok(Claim::Won(s)) => c.successor = Some(s),
                            Ok(_) => {}
                            Err(e) => say(&format!("cannot claim the next sprint: {e}")),
                        }
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
        super::trace("publishing");
        let claimed = self.publish_queued(q, Some(&next), claim, summary, say)?;
        super::trace("published");
        Ok(Finish::Over(claimed.map(Box::new)))
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
        // A usage limit is published like a verdict that merges nothing.
        let (outcome, evidence) = match &q.verdict {
            EventKind::Verdict {
                outcome, evidence, ..
            } => (outcome, evidence.clone()),
            EventKind::UsageLimited { line, .. } => (&machine::Outcome::Partial, line.clone()),
            _ => {
                q.forget(&self.store.runtime_dir());
                return Ok(None);
            }
        };
        let evidence = &evidence;
        let Some(tip) = self.store.tip()? else {
            return Err(EngineError::NoRun);
        };
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let ws = Workspaces::new(
            &self.workdir,
            self.snapshot(&tip)?.1.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        let branch = format!("refs/heads/{}", ws.unit_branch(&q.unit));
        let integration = format!("refs/heads/{}", ws.integration_branch());
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
        let mut won = None;
        let steps = self.publish_chain(|tip, state, n| {
            if n == 0 {
                published = None;
                won = None;
            }
            if published.is_some() {
                // After the verdict: the RUNNING transitions of this
                // worker's claims only their leases hold, then its next
                // claim, if any.
                let Some(next) = next else {
                    return Ok(None);
                };
                if let Some(step) = self.record_step(state, &next.pending, &next.options.identity)
                {
                    return Ok(Some(step));
                }
                if !claim {
                    return Ok(None);
                }
                let pushed = [(q.unit.clone(), unit_tip.clone())];
                return self.claim_step(tip, state, next, &pushed, &mut won);
            }
            // A claim only its lease held: its RUNNING transition first.
            if n == 0 && self.leased_to(state, &q.unit, &q.sprint, q.dispatch, &q.lease) {
                return Ok(Some((started(&q.unit, &q.worker), Vec::new())));
            }
            if held(state, &q.unit, &q.sprint, q.dispatch, &q.worker).is_none() {
                return Ok(None);
            }
            let mut also: Vec<RefPush> = remote.move_to(&branch, &unit_tip).into_iter().collect();
            let (outcome, evidence) = match outcome {
                machine::Outcome::Completed => {
                    let tip = remote.tracked(&integration).ok_or_else(|| EngineError::Io {
                        what: format!("the remote has no `{}`", ws.integration_branch()),
                        source: std::io::Error::other("missing integration branch"),
                    })?;
                    let name = ws.integration_branch();
                    match ws.merge_commit(&tip, &unit_tip, &q.unit, &q.sprint)? {
                        Merge::Already { .. } => (*outcome, format!("{evidence} Already on `{name}`.")),
                        Merge::Merged { commit } => {
                            let text = format!(
                                "{evidence} Merged into `{name}` as {}.",
                                crate::engine::short(&commit)
                            );
                            also.push(RefPush {
                                name: integration.clone(),
                                new: Some(commit),
                                expected: Some(tip),
                            });
                            (*outcome, text)
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
                other => (*other, evidence.clone()),
            };
            let lease_ref = lease::lease_ref(&q.unit);
            if let Some(held) = remote.tracked(&lease_ref) {
                also.push(RefPush {
                    name: lease_ref,
                    new: None,
                    expected: Some(held),
                });
            }
            published = Some(outcome);
            let mut kind = q.verdict.clone();
            if let EventKind::Verdict {
                outcome: o,
                evidence: e,
                ..
            } = &mut kind
            {
                *o = outcome;
                *e = evidence;
            }
            Ok(Some((kind, also)))
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
        match (published, to) {
            (Some(_), Some(to)) => {
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
