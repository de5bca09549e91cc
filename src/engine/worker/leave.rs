//! A worker asked to leave (SIGTERM or SIGINT, as a CI service cancels a
//! job) hands its sprints back at once rather than let their leases lapse:
//! each agent is ended, its commits so far pushed to the unit's branch, and
//! the sprint interrupted with its lease removed, in one push, so another
//! worker claims it on its next look and goes on from that branch. A
//! verdict already judged is published instead.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use super::finish::held;
use super::Claimed;
use super::WorkerOptions;
use super::WorkerSummary;
use crate::dispatch;
use crate::dispatch::Report;
use crate::engine::verify;
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::machine::EventKind;
use crate::store::lease;
use crate::store::remote::RefPush;
use crate::workspace::Workspaces;

/// How long an agent asked to end gets before its work is published as it
/// stands (its wrapper ends the agent's tree: SIGTERM, a grace, SIGKILL).
const AGENT_GRACE: Duration = Duration::from_secs(5);

/// Set by SIGTERM or SIGINT.
static ASKED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    ASKED.store(true, Ordering::SeqCst);
}

/// Make SIGTERM and SIGINT ask the worker to leave, rather than end it
/// where it stands.
pub(super) fn install_handler() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe.
        unsafe {
            libc::signal(
                sig,
                on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Whether the worker was asked to leave.
pub(super) fn asked() -> bool {
    ASKED.load(Ordering::SeqCst)
}

/// Sleep `d`, or less when the worker is asked to leave.
pub(super) fn nap(d: Duration) {
    let until = Instant::now() + d;
    while !asked() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

impl Engine {
    /// Leave: every claim's verdict published if it was judged, else the
    /// sprint handed back. Best effort: what the remote does not take
    /// lapses with its lease as before.
    pub(super) fn leave(
        &self,
        mine: &mut Vec<Claimed>,
        options: &WorkerOptions,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) {
        for c in mine.iter() {
            if let Some(w) = Report::read(&c.paths.report).and_then(|r| r.wrapper_pid) {
                if dispatch::alive(w) {
                    dispatch::reap::signal(w, libc::SIGTERM);
                }
            }
        }
        for c in mine.drain(..) {
            let outcome = match &c.queued {
                Some(q) => self
                    .publish_queued(q, None, false, summary, say)
                    .map(|_| ()),
                None => self.hand_back(&c, options, summary, say),
            };
            if let Err(e) = outcome {
                say(&format!(
                    "{} sprint {}: cannot hand it back ({e}); its lease lapses instead",
                    c.unit, c.sprint
                ));
            }
            self.drop_worktree(&c);
        }
    }

    /// Hand one claim back: its agent ended (waiting at most
    /// `AGENT_GRACE`), then in one push the unit's branch at the agent's
    /// last commit, the sprint interrupted (`LeaseExpired`: its attempt is
    /// kept for the next worker) and the lease removed.
    fn hand_back(
        &self,
        c: &Claimed,
        options: &WorkerOptions,
        summary: &mut WorkerSummary,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        let since = Instant::now();
        while since.elapsed() < AGENT_GRACE {
            let report = Report::read(&c.paths.report).unwrap_or_default();
            let running = report.wrapper_pid.is_some_and(dispatch::alive)
                || crate::base::lock::is_held(&c.paths.lock);
            if report.finished || !running {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let unit_tip = verify::head(&c.worktree).unwrap_or_else(|| c.base.clone());
        let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
        let remote = self.store.remote().expect("a worker's engine has a remote");
        let ws = Workspaces::new(
            &self.workdir,
            self.snapshot(&tip)?.1.workspace.dir.as_deref(),
            &tip.state.run_id,
        );
        let branch = format!("refs/heads/{}", ws.unit_branch(&c.unit));
        let lease_ref = lease::lease_ref(&c.unit);
        let me = &options.identity;
        let branch_name = ws.unit_branch(&c.unit);
        let sprint = c.sprint.to_string();
        // A claim only its lease holds: the sprint never left DISPATCHED,
        // so the agent's commits and the lease's removal are all there is
        // to push.
        if self.leased_to(&tip.state, &c.unit, &sprint, c.dispatch, &c.lease) {
            let mut refs: Vec<RefPush> = remote.move_to(&branch, &unit_tip).into_iter().collect();
            refs.push(RefPush {
                name: lease_ref.clone(),
                new: None,
                expected: Some(c.lease.clone()),
            });
            if remote.push(&refs)? {
                handed_back(summary, say, c, &branch_name);
                return Ok(());
            }
            // Refused: the claim moved on (recorded or lapsed) meanwhile.
            remote.fetch()?;
        }
        let steps = self.publish_decided(|tip| {
            if held(&tip.state, &c.unit, &sprint, c.dispatch, me).is_none() {
                return Ok(None);
            }
            let mut also: Vec<RefPush> = remote.move_to(&branch, &unit_tip).into_iter().collect();
            if let Some(id) = remote.tracked(&lease_ref) {
                also.push(RefPush {
                    name: lease_ref.clone(),
                    new: None,
                    expected: Some(id),
                });
            }
            Ok(Some((
                EventKind::LeaseExpired {
                    unit: c.unit.clone(),
                    worker: me.clone(),
                },
                also,
            )))
        })?;
        if steps.is_empty() {
            say(&format!(
                "{} sprint {}: no longer this worker's; nothing to hand back",
                c.unit, c.sprint
            ));
        } else {
            handed_back(summary, say, c, &branch_name);
        }
        Ok(())
    }
}

/// A claim given back: counted in the summary and said once.
fn handed_back(summary: &mut WorkerSummary, say: &mut dyn FnMut(&str), c: &Claimed, branch: &str) {
    summary.handed_back.push(format!("{}/{}", c.unit, c.sprint));
    say(&format!(
        "{} sprint {}: handed back (lease released, the agent's commits on `{branch}`)",
        c.unit, c.sprint
    ));
}
