//! A worker's view of a remote that stopped answering: said once, with how
//! long the worker will keep trying, counted quietly while it lasts, and
//! summed up in one line when the remote answers again. An outage costs
//! rounds, not the worker, until `MAX_TRIES` ticks in a row failed.

use std::time::Duration;
use std::time::Instant;

use crate::engine::EngineError;
use crate::store::StoreError;

/// Ticks in a row a worker rides out a busy or unreachable remote before
/// it gives up.
pub(super) const MAX_TRIES: u32 = 30;

/// The outage a worker is in, if any.
#[derive(Default)]
pub(super) struct Outage {
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

impl Outage {
    /// A failed tick: `Ok` while the worker keeps trying (`pause` apart),
    /// the error once it has tried `MAX_TRIES` times in a row.
    pub(super) fn tick_failed(
        &mut self,
        e: EngineError,
        pause: Duration,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        if passing(&e).is_none() || self.tries >= MAX_TRIES {
            return Err(e);
        }
        self.tries += 1;
        self.note(&e, pause, say);
        Ok(())
    }

    /// A renewal, verdict or claim that failed: an outage is noted (and
    /// the work tried again next round); anything else is the worker's
    /// error.
    pub(super) fn other_failed(
        &mut self,
        e: EngineError,
        pause: Duration,
        say: &mut dyn FnMut(&str),
    ) -> Result<(), EngineError> {
        if passing(&e).is_none() {
            return Err(e);
        }
        self.note(&e, pause, say);
        Ok(())
    }

    fn note(&mut self, e: &EngineError, pause: Duration, say: &mut dyn FnMut(&str)) {
        if self.since.is_some() {
            return;
        }
        self.since = Some(Instant::now());
        let Some(store) = passing(e) else { return };
        let limit = pause.saturating_mul(MAX_TRIES);
        say(&format!(
            "{}; trying again every {} for up to {} ({MAX_TRIES} tries) before giving up",
            one_line(store),
            humantime::format_duration(pause),
            humantime::format_duration(Duration::from_secs(limit.as_secs())),
        ));
    }

    /// The remote answered a tick: the outage, if there was one, is over.
    pub(super) fn answered(&mut self, remote: &str, say: &mut dyn FnMut(&str)) {
        if let Some(since) = self.since.take() {
            let tries = match self.tries {
                0 => String::new(),
                1 => " and 1 failed try".into(),
                n => format!(" and {n} failed tries"),
            };
            say(&format!(
                "remote `{remote}` answers again, after {}{tries}",
                humantime::format_duration(Duration::from_secs(since.elapsed().as_secs())),
            ));
        }
        self.tries = 0;
    }
}
