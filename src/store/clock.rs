//! The one clock. `GIT_SUPERVISOR_TIMESTAMP` (RFC 3339 or Unix seconds) pins
//! it: transition number N is then stamped base + N seconds, so the same
//! events give byte-identical commits in every process and test.
//! `GIT_SUPERVISOR_TIMESTAMP_STEP` (seconds, default 1) spaces pinned
//! transitions further apart, so recorded runs have durations worth reading.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub const ENV: &str = "GIT_SUPERVISOR_TIMESTAMP";
pub const STEP_ENV: &str = "GIT_SUPERVISOR_TIMESTAMP_STEP";

#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pinned: Option<OffsetDateTime>,
    step: i64,
}

impl Clock {
    pub fn from_env() -> Self {
        let pinned = std::env::var(ENV).ok().and_then(|v| parse(&v));
        let step = std::env::var(STEP_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|s| *s > 0)
            .unwrap_or(1);
        Clock { pinned, step }
    }

    /// A clock pinned at `base` (RFC 3339 or Unix seconds), as the
    /// environment variable would.
    pub fn pinned(base: &str) -> Option<Self> {
        parse(base).map(|t| Clock {
            pinned: Some(t),
            step: 1,
        })
    }

    /// Space pinned transitions `step` seconds apart.
    pub fn with_step(mut self, step: i64) -> Self {
        self.step = step.max(1);
        self
    }

    pub fn is_pinned(&self) -> bool {
        self.pinned.is_some()
    }

    /// The time of transition number `seq` (pinned), or now.
    pub fn at_seq(&self, seq: u64) -> OffsetDateTime {
        match self.pinned {
            Some(base) => base + time::Duration::seconds(seq as i64 * self.step),
            None => OffsetDateTime::now_utc(),
        }
    }

    /// ISO 8601 (RFC 3339, UTC) of [`Clock::at_seq`].
    pub fn iso_at_seq(&self, seq: u64) -> String {
        iso(self.at_seq(seq))
    }
}

pub fn iso(t: OffsetDateTime) -> String {
    let t = t
        .to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .unwrap_or(t);
    t.format(&Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

pub use crate::machine::timestamp::parse;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_clock_advances_with_seq() {
        let c = Clock {
            pinned: parse("2026-01-01T00:00:00Z"),
            step: 1,
        };
        assert_eq!(c.iso_at_seq(0), "2026-01-01T00:00:00Z");
        assert_eq!(c.iso_at_seq(61), "2026-01-01T00:01:01Z");
        assert_eq!(
            parse("1700000000").map(|t| t.unix_timestamp()),
            Some(1_700_000_000)
        );
    }
}
