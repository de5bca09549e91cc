//! Reading a recorded time: RFC 3339, or Unix seconds (what
//! `GIT_SUPERVISOR_TIMESTAMP` may pin the clock to). One reader for the
//! clock, retries and reports, so a time one of them writes the others read.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Read an RFC 3339 or Unix-seconds timestamp.
pub fn parse(v: &str) -> Option<OffsetDateTime> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<i64>() {
        return OffsetDateTime::from_unix_timestamp(secs).ok();
    }
    OffsetDateTime::parse(v, &Rfc3339).ok()
}
