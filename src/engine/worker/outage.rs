//! A worker's view of a remote that stopped answering: said once, with how
//! long the worker will keep trying, counted quietly while it lasts, and
//! summed up in one line when the remote answers again. An outage costs
//! rounds, not the work: the worker's agents go on, their verdicts wait in
//! its queue, and the worker tries again less and less often, until the
//! outage has lasted `[run] offline_grace` (default: the lease, as long as
//! a claim holds without renewal). Then it leaves, as a worker killed
//! outright would: its agents end and its leases lapse for other workers.

use std::time::Duration;
use std::time::Instant;

use crate::engine::EngineError;
use crate::store::StoreError;

/// The longest wait between two tries, whatever the grace.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The outage a worker is in, if any.
pub(super) struct Outage {
    /// The remote's name, for messages.
    remote: String,
    /// The first wait between tries.
    pause: Duration,
    /// How long an outage is ridden out.
    grace: Duration,
    /// Ticks that failed since the remote last answered.
    tries: u32,
    /// Anything failed (a tick, a renewal, a verdict) since it last
    /// answered; when the first failure was.
    since: Option<Instant>,
}

/// Whether `e` is worth trying again: a busy or unreachable remote.
fn passing(e: &EngineError) -> Option<&StoreError> {
    match e {
        EngineError::Store(e @ (StoreError::Contention | StoreError::Remote { .. })) => Some(e),
        _ => None,
    }
}

/// git's message on one line.
fn one_line(e: &StoreError) -> String {
    e.to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A duration in whole seconds, as people read it.
fn seconds(d: Duration) -> String {
    humantime::format_duration(Duration::from_secs(d.as_secs().max(1))).to_string()
}

impl Outage {
    pub(super) fn new(remote: &str, pause: Duration, grace: Duration) -> Outage {
        Outage {
            remote: remote.to_string(),
            pause,
            grace,
            tries: 0,
            since: None,
        }
    }

    /// The run's `[run] offline_grace`, as its latest snapshot says.
    pub(super) fn set_grace(&mut self, grace: Duration) {
        self.grace = grace;
    }

    /// The longest wait between tries: a tenth of the grace, so that a
    /// remote that comes back is noticed well within it.
    fn ceiling(&self) -> Duration {
        (self.grace / 10).clamp(self.pause, MAX_BACKOFF.max(self.pause))
    }

    /// How long to wait before the next try: doubling from the round's
    /// pause per failed tick up to the ceiling, and never past the grace.
    pub(super) fn wait(&self) -> Duration {
        let doubled = self
            .pause
            .saturating_mul(1u32 << self.tries.saturating_sub(1).min(16));
        let left = self
            .since
            .map(|s| self.grace.saturating_sub(s.elapsed()))
            .unwrap_or(self.grace);
        doubled
            .min(self.ceiling())
            .min(left.max(Duration::from_millis(100)))
    }

    /// A failed tick: `Ok` while the worker keeps trying, the error once the
    /// outage has lasted the grace. `queued` verdicts wait for the remote.
    pub(super) fn tick_failed(
        &mut self,
        e: EngineError,
        queued: usize,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        if passing(&e).is_none() {
            return Err(e);
        }
        self.note(&e, say);
        if self.since.is_some_and(|s| s.elapsed() >= self.grace) {
            let kept = match queued {
                0 => String::new(),
                1 => "; its 1 queued verdict stays in this clone for a worker started here again"
                    .into(),
                n => format!(
                    "; its {n} queued verdicts stay in this clone for a worker started here again"
                ),
            };
            say(&format!(
                "remote `{}` has not answered for {} (`[run] offline_grace`): this worker leaves, its agents end and its leases lapse for other workers{kept}",
                self.remote,
                seconds(self.grace),
            ));
            return Err(e);
        }
        self.tries += 1;
        Ok(())
    }

    /// A renewal, verdict or claim that failed: an outage is noted (and
    /// the work tried again next round); anything else is the worker's
    /// error.
    pub(super) fn other_failed(
        &mut self,
        e: EngineError,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        if passing(&e).is_none() {
            return Err(e);
        }
        self.note(&e, say);
        Ok(())
    }

    fn note(&mut self, e: &EngineError, say: &mut dyn FnMut(&str)) {
        if self.since.is_some() {
            return;
        }
        self.since = Some(Instant::now());
        let Some(store) = passing(e) else { return };
        say(&format!(
            "{}; trying again every {}, backing off to every {}, for up to {} (`[run] offline_grace`) before this worker leaves; meanwhile its agents work on and their verdicts are queued",
            one_line(store),
            seconds(self.pause),
            seconds(self.ceiling()),
            seconds(self.grace),
        ));
    }

    /// The remote answered a tick: the outage, if there was one, is over.
    pub(super) fn answered(&mut self, say: &mut dyn FnMut(&str)) {
        if let Some(since) = self.since.take() {
            let tries = match self.tries {
                0 => String::new(),
                1 => " and 1 failed try".into(),
                n => format!(" and {n} failed tries"),
            };
            say(&format!(
                "remote `{}` answers again, after {}{tries}",
                self.remote,
                humantime::format_duration(Duration::from_secs(since.elapsed().as_secs())),
            ));
        }
        self.tries = 0;
    }
}
