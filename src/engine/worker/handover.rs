//! Verdicts any worker records: a worker whose agent is done posts the
//! verdict it judged in the sprint's lease (see `store::lease`), with the
//! unit's branch, in one push that moves no other ref; whichever worker
//! pushes the state next records every posted verdict it finds — the
//! verdict, the merge into the integration branch, the lease's removal —
//! and the RUNNING transitions of the claims only leases hold, in its one
//! push. Sixteen workers whose agents end within the same second no longer
//! each need a turn of their own on the state ref: one push carries what
//! all of them posted, and a worker that finds its verdict recorded pushes
//! nothing.
//!
//! A posted verdict is recorded under the checks of one published by its
//! own worker: only while the run holds the claim it was judged for (the
//! same sprint, dispatch and worker) and the remote still holds the lease
//! that carries it.

use super::finish::held;
use super::lease_claim::started;
use super::queue::Queued;
use super::Claimed;
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::store::lease;
use crate::store::lease::Lease;
use crate::store::remote::RefPush;
use crate::workspace::Merge;
use crate::workspace::Workspaces;

/// A verdict posted in its lease: the lease commit and the push.
pub(super) struct Post {
    lease: String,
    pub(super) refs: Vec<RefPush>,
}

/// What one chain of this worker records besides its own verdict, decided
/// again from scratch on each try.
#[derive(Default)]
pub(super) struct Fold {
    /// Verdicts other workers posted, as the last fetch saw them.
    posted: Vec<Queued>,
    /// Claims live leases hold, other than posted verdicts': unit, holder
    /// and dispatch.
    claims: Vec<(String, String, u32)>,
    /// Units whose posted verdict or lease-only claim this chain has
    /// handled.
    done: Vec<String>,
    /// The integration branch as the chain's merges so far leave it.
    pub(super) integration: Option<String>,
}

impl Engine {
    /// The push that posts the judged verdict of `c` in its lease, with the
    /// unit's branch at the agent's work (`None`: a verdict only its own
    /// worker may publish). Sent alone or with the worker's next claim.
    pub(super) fn verdict_post(&self, c: &Claimed) -> Result<Option<Post>, EngineError> {
        let Some(q) = c.queued.as_ref() else {
            return Ok(None);
        };
        // Processes a background sprint left run here: only this worker
        // can record them, before its verdict.
        if !q.background.is_empty() {
            return Ok(None);
        }
        let Some(tip) = self.store.tip()? else {
            return Ok(None);
        };
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let (_, config) = self.snapshot(&tip)?;
        let ws = Workspaces::new(
            &self.workdir,
            config.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        let text = serde_json::to_string(q).map_err(|e| EngineError::Io {
            what: "cannot write the verdict into the lease".into(),
            source: std::io::Error::other(e),
        })?;
        let id = self.store.write_lease_carrying(
            &Lease {
                worker: q.worker.clone(),
                subject: q.unit.clone(),
                dispatch: q.dispatch,
                expires: lease::now() + config.run.lease.as_secs() as i64,
            },
            Some(&text),
        )?;
        let branch = format!("refs/heads/{}", ws.unit_branch(&q.unit));
        let mut refs: Vec<RefPush> = remote.move_to(&branch, &q.unit_tip).into_iter().collect();
        refs.push(RefPush {
            name: lease::lease_ref(&q.unit),
            new: Some(id.to_string()),
            expected: Some(c.lease.clone()),
        });
        Ok(Some(Post {
            lease: id.to_string(),
            refs,
        }))
    }

    /// The remote took `post`: the claim's lease is the one that carries
    /// its verdict.
    pub(super) fn posted(&self, c: &mut Claimed, post: Option<Post>) {
        let (Some(post), Some(q)) = (post, c.queued.as_mut()) else {
            return;
        };
        c.lease = post.lease.clone();
        q.lease = post.lease;
        let _ = q.save(&self.store.runtime_dir());
    }

    /// A fold for a chain of this worker's (`own`: the unit whose verdict
    /// it publishes itself): the verdicts other workers posted, whose
    /// unit branches the last fetch brought at the agents' work (a fetch
    /// that ran while a post landed may have seen its lease and not yet
    /// its branch).
    pub(super) fn fold(&self, own: &str, ws: &Workspaces) -> Fold {
        let Some(remote) = self.store.remote() else {
            return Fold::default();
        };
        let leases = remote.tracked_under(lease::LEASES_PREFIX);
        let claims = leases
            .iter()
            .filter(|(_, id)| self.store.lease_verdict(id).is_none())
            .filter_map(|(_, id)| {
                let l = self.store.read_lease(id)?;
                (!self.store.lease_lapsed(id, &l)).then_some((l.subject, l.worker, l.dispatch))
            })
            .collect();
        let posted = leases
            .into_iter()
            .filter_map(|(_, id)| {
                let text = self.store.lease_verdict(&id)?;
                let mut q: Queued = serde_json::from_str(&text).ok()?;
                q.lease = id;
                let branch = format!("refs/heads/{}", ws.unit_branch(&q.unit));
                let fetched = remote.tracked(&branch).as_deref() == Some(q.unit_tip.as_str());
                (q.unit != own && fetched).then_some(q)
            })
            .collect();
        Fold {
            posted,
            claims,
            ..Fold::default()
        }
    }

    /// The next event of `fold` on `state`: a posted verdict's claim
    /// recorded RUNNING if only its lease held it, the verdict itself, or
    /// the RUNNING transition of a claim only a live lease holds.
    pub(super) fn fold_step(
        &self,
        state: &State,
        ws: &Workspaces,
        fold: &mut Fold,
    ) -> Result<Option<(EventKind, Vec<RefPush>)>, EngineError> {
        let posted = std::mem::take(&mut fold.posted);
        let mut found = None;
        for q in &posted {
            if found.is_some() || fold.done.contains(&q.unit) {
                continue;
            }
            if self.leased_to(state, &q.unit, &q.sprint, q.dispatch, &q.lease) {
                found = Some((started(&q.unit, &q.worker), Vec::new()));
                continue;
            }
            fold.done.push(q.unit.clone());
            let still = self.store.remote().is_some_and(|r| {
                r.tracked(&lease::lease_ref(&q.unit)).as_deref() == Some(q.lease.as_str())
            });
            if still && held(state, &q.unit, &q.sprint, q.dispatch, &q.worker).is_some() {
                let (kind, also, _) = self.verdict_step(ws, q, &mut fold.integration)?;
                found = Some((kind, also));
            }
        }
        fold.posted = posted;
        if found.is_some() {
            return Ok(found);
        }
        Ok(leased_claim(state, fold))
    }

    /// Whether this worker should push the state for its posted verdict
    /// (`own`) now: of the verdicts posted and fetched, its ranks first
    /// (see `rank`). The others wait for that push, which carries theirs,
    /// rather than each deciding the same long chain and all but one
    /// being refused.
    pub(super) fn leads_fold(&self, own: &str, ws: &Workspaces) -> bool {
        let fold = self.fold(own, ws);
        let mine = super::claim::rank("fold", own, "");
        fold.posted
            .iter()
            .all(|q| super::claim::rank("fold", &q.unit, "") < mine)
    }

    /// The verdict event of `q` and the refs it moves: the unit's branch,
    /// the merge into the integration branch (from `integration`, the tip
    /// the chain's merges so far left, else the remote's) and the lease's
    /// removal. A merge that conflicts turns a completion into a failure.
    pub(super) fn verdict_step(
        &self,
        ws: &Workspaces,
        q: &Queued,
        integration: &mut Option<String>,
    ) -> Result<(EventKind, Vec<RefPush>, machine::Outcome), EngineError> {
        let remote = self.store.remote().expect("a worker's engine has a remote");
        // A usage limit is published like a verdict that merges nothing.
        let (outcome, evidence) = match &q.verdict {
            EventKind::Verdict {
                outcome, evidence, ..
            } => (*outcome, evidence.clone()),
            EventKind::UsageLimited { line, .. } => (machine::Outcome::Partial, line.clone()),
            other => return Ok((other.clone(), Vec::new(), machine::Outcome::Failure)),
        };
        let branch = format!("refs/heads/{}", ws.unit_branch(&q.unit));
        let integration_ref = format!("refs/heads/{}", ws.integration_branch());
        let mut also: Vec<RefPush> = remote.move_to(&branch, &q.unit_tip).into_iter().collect();
        let (outcome, evidence) = match outcome {
            machine::Outcome::Completed => {
                let tip = integration
                    .clone()
                    .or_else(|| remote.tracked(&integration_ref))
                    .ok_or_else(|| EngineError::Io {
                        what: format!("the remote has no `{}`", ws.integration_branch()),
                        source: std::io::Error::other("missing integration branch"),
                    })?;
                let name = ws.integration_branch();
                match ws.merge_commit(&tip, &q.unit_tip, &q.unit, &q.sprint)? {
                    Merge::Already { .. } => (outcome, format!("{evidence} Already on `{name}`.")),
                    Merge::Merged { commit } => {
                        let text = format!(
                            "{evidence} Merged into `{name}` as {}.",
                            crate::engine::short(&commit)
                        );
                        *integration = Some(commit.clone());
                        also.push(RefPush {
                            name: integration_ref.clone(),
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
            other => (other, evidence),
        };
        let lease_ref = lease::lease_ref(&q.unit);
        if let Some(held) = remote.tracked(&lease_ref) {
            also.push(RefPush {
                name: lease_ref,
                new: None,
                expected: Some(held),
            });
        }
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
        Ok((kind, also, outcome))
    }

    /// Whether another worker recorded `q`'s verdict, which this worker
    /// posted in its lease: the lease that carried it is gone and the
    /// sprint's dispatch has ended. The sprint's state, when it did.
    pub(super) fn recorded_elsewhere(&self, q: &Queued) -> Option<SprintStatus> {
        let remote = self.store.remote()?;
        if self.store.lease_verdict(&q.lease).is_none()
            || remote.tracked(&lease::lease_ref(&q.unit)).is_some()
        {
            return None;
        }
        let tip = self.store.tip().ok()??;
        let sp = tip.state.unit(&q.unit)?.sprints.iter().find(|s| {
            s.id.to_string() == q.sprint
                && !matches!(s.state, SprintStatus::Running | SprintStatus::Dispatched)
        })?;
        Some(sp.state)
    }
}

/// The RUNNING transition of a DISPATCHED sprint a live lease of its
/// dispatch claims (another worker's, or this one's), for its holder.
fn leased_claim(state: &State, fold: &mut Fold) -> Option<(EventKind, Vec<RefPush>)> {
    for (unit, worker, dispatch) in &fold.claims {
        if fold.done.contains(unit) {
            continue;
        }
        fold.done.push(unit.clone());
        let waiting = state.unit(unit).is_some_and(|u| {
            u.state == machine::UnitStatus::Running
                && u.active_sprint().is_some_and(|sp| {
                    sp.state == SprintStatus::Dispatched && sp.dispatches == *dispatch
                })
        });
        if waiting {
            return Some((started(unit, worker), Vec::new()));
        }
    }
    None
}
