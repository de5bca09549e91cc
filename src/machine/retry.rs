//! When a failed sprint is retried: `run.retry_delay`, doubled per failure,
//! capped at ten minutes, moved by up to ±20% so that units failing
//! together do not retry together. Pure: the jitter comes from a hash of
//! the unit and the failure count, the time from the event.

use std::time::Duration;

use time::format_description::well_known::Rfc3339;

/// The longest delay between retries, however many failures.
pub const CAP: Duration = Duration::from_secs(10 * 60);

/// The delay before retry number `failures + 1`: `base` doubled per earlier
/// failure, capped at [`CAP`], then moved by `seed % 41 - 20` percent.
pub fn delay(base: Duration, failures: u32, seed: u64) -> Duration {
    let doubled = base.saturating_mul(1u32 << failures.min(20)).min(CAP);
    let percent = (seed % 41) as i64 - 20;
    let ms = doubled.as_millis() as i64;
    Duration::from_millis((ms + ms * percent / 100).max(0) as u64).min(CAP)
}

/// The wait after a deferred sprint's `checks`-th check found its
/// condition not met: `min` doubled per earlier check, capped at `max`. No
/// jitter: one agent per unit checks, so checks do not pile up together.
pub fn check_delay(min: Duration, max: Duration, checks: u32) -> Duration {
    min.saturating_mul(1u32 << checks.saturating_sub(1).min(20))
        .min(max.max(min))
}

/// A stable seed for `unit`'s `failures`-th retry (FNV-1a).
pub fn seed(unit: &str, failures: u32) -> u64 {
    crate::base::hash::fnv1a(unit.bytes().chain(failures.to_le_bytes()))
}

/// `at` (RFC 3339 or Unix seconds) plus `d`, as RFC 3339; `None` when `at` does not parse.
pub fn after(at: &str, d: Duration) -> Option<String> {
    let t = super::timestamp::parse(at)?;
    let t = t.checked_add(time::Duration::try_from(d).ok()?)?;
    // Whole seconds, rounded up: the times compared with it are whole
    // seconds too, and a retry must never start early.
    let whole = t.replace_nanosecond(0).ok()?;
    let t = if whole < t {
        whole.checked_add(time::Duration::SECOND)?
    } else {
        whole
    };
    t.format(&Rfc3339).ok()
}

/// Whether the retry time `retry_at` has come at `now` (RFC 3339 or Unix seconds). A
/// time that does not parse has come: never wait forever on it.
pub fn due(retry_at: &str, now: &str) -> bool {
    match (
        super::timestamp::parse(retry_at),
        super::timestamp::parse(now),
    ) {
        (Some(r), Some(n)) => n >= r,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_like_the_clock_writes_them() {
        // The clock takes Unix seconds as well as RFC 3339; so do retries.
        assert!(!due("1700000100", "1700000000"));
        assert!(due("1700000100", "2023-11-14T22:15:00Z"));
        assert_eq!(
            after("1700000000", Duration::from_millis(1500)).as_deref(),
            Some("2023-11-14T22:13:22Z")
        );
        // What cannot be read has come: a retry never waits forever.
        assert!(due("not a time", "2023-11-14T22:15:00Z"));
    }

    #[test]
    fn deferred_checks_double_up_to_the_maximum() {
        let (min, max) = (Duration::from_secs(60), Duration::from_secs(900));
        let waits: Vec<u64> = (1..=7)
            .map(|n| check_delay(min, max, n).as_secs())
            .collect();
        assert_eq!(waits, [60, 120, 240, 480, 900, 900, 900]);
        assert_eq!(check_delay(min, max, 10_000), max);
    }
}
