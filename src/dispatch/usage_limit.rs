//! Was an agent's failure a *usage limit* of its subscription (a window of
//! hours or days that must pass), and when does it reset?
//!
//! A usage limit is not a rate limit: waiting seconds and running the agent
//! again (what [`super::ratelimit`] does) only fails again, and failing the
//! attempt charges the sprint for the account's state. The wrapper ends the
//! dispatch and the engine pauses the agent until the reset instead.
//!
//! Read only from the end of the agent's output, and only from a line that
//! *opens* with the message (after an `ERROR:`-style prefix), or a JSON
//! event whose error text does: an agent that quotes the words in a diff, a
//! review or a test is not limited. Shapes (collected from the CLIs' own
//! output and their issue trackers):
//!
//! - Claude Code: `You've hit your limit · resets 1pm (Europe/Lisbon)`, the
//!   same with `session limit`, `weekly limit`, `Opus limit`, …, a date for
//!   a reset more than a day ahead (`resets Jan 30, 11:30am (Asia/Calcutta)`),
//!   the older `Claude AI usage limit reached|<unix time>` and `Claude usage
//!   limit reached. Your limit will reset at 9am (America/Chicago).`, in
//!   plain output and as the `result` of `--output-format json`;
//! - Codex: `You've hit your usage limit. … try again in 2 days 17 hours 14
//!   minutes.`, `… try again at 6:25 AM.` (the machine's time zone), `… try
//!   again at Jul 5th, 2026 8:19 PM.`, in plain output and `--json` events,
//!   and the service's own JSON error `usage_limit_reached` with `resets_at`
//!   / `resets_in_seconds`;
//! - quota errors (aider/litellm `insufficient_quota`, "You exceeded your
//!   current quota", Gemini's `RESOURCE_EXHAUSTED`), which name no reset;
//! - an HTTP 429 whose `retry-after` is [`LONG_RETRY_AFTER`] or more.
//!
//! A clock time without a date means its next occurrence in the named zone,
//! unless it passed ten minutes ago or less: then the reset came while the
//! message waited to be read, and the time is kept (the run asks again
//! soon rather than in a day). The CLIs print the minute with its seconds
//! cut off, so a minute that has just begun means its end.

use std::time::Duration;

use jiff::civil;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use jiff::ToSpan;

/// A usage limit the agent met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageLimit {
    /// When the limit resets, when the output says.
    pub resets_at: Option<Timestamp>,
    /// The line that said so (trimmed, at most 300 characters).
    pub line: String,
}

/// A `retry-after` this long is a usage window, not a rate limit.
pub const LONG_RETRY_AFTER: Duration = Duration::from_secs(10 * 60);

/// Lines of the end of the output looked at.
const TAIL_LINES: usize = 40;
/// Lines at the very end of an exit 0's output that may hold its final
/// error.
const FINAL_LINES: usize = 6;

/// Classify the end of a failed agent's output. `now` and `local` (the time
/// zone the agent ran in) read clock times without a zone.
pub fn classify(output: &str, now: Timestamp, local: &TimeZone) -> Option<UsageLimit> {
    let lines: Vec<&str> = output.lines().collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    for i in (from..lines.len()).rev() {
        let next = lines.get(i + 1).copied().unwrap_or("");
        if let Some(found) = classify_line(lines[i], next, now, local) {
            return Some(found);
        }
    }
    let rate = super::ratelimit::classify(output)?;
    let wait = rate.retry_after.filter(|d| *d >= LONG_RETRY_AFTER)?;
    Some(UsageLimit {
        resets_at: now.checked_add(wait).ok(),
        line: rate.line,
    })
}

/// Classify an agent that exited 0: only among its last few non-blank
/// lines (the error it gave up on).
pub fn classify_final(output: &str, now: Timestamp, local: &TimeZone) -> Option<UsageLimit> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(FINAL_LINES)..].join("\n");
    classify(&tail, now, local)
}

fn classify_line(line: &str, next: &str, now: Timestamp, local: &TimeZone) -> Option<UsageLimit> {
    let trimmed = line.trim();
    if trimmed.starts_with('{') {
        return classify_json(trimmed, now, local);
    }
    let text = message_of(trimmed)?;
    // Codex wraps a long message: its reset may go on on the next line.
    let next_is_own = message_of(next.trim()).is_none_or(opens_with_limit);
    let whole = if next_is_own {
        text.to_string()
    } else {
        format!("{text} {}", next.trim())
    };
    if let Some(found) = service_error(&whole, now) {
        return Some(UsageLimit {
            line: clip(trimmed),
            ..found
        });
    }
    if !opens_with_limit(text) {
        return None;
    }
    Some(UsageLimit {
        resets_at: reset_time(&whole, now, local),
        line: clip(trimmed),
    })
}

/// The message of a line, without the prefixes the CLIs and wrappers put
/// before an error: `ERROR:`, `Error:`, `API Error:`, `■`, `⎿`, `✗`.
fn message_of(line: &str) -> Option<&str> {
    let mut t = line.trim_start_matches(['■', '⎿', '✗', '×', '●', ' ', '\t', '>']);
    loop {
        let lower = t.to_ascii_lowercase();
        let prefix = [
            "error:",
            "api error:",
            "codex error:",
            "litellm.",
            "warning:",
        ]
        .iter()
        .find(|p| lower.starts_with(*p));
        match prefix {
            Some(p) => t = t[p.len()..].trim_start(),
            None => break,
        }
    }
    (!t.is_empty()).then_some(t)
}

/// Whether a message opens with one of the limit sentences.
fn opens_with_limit(text: &str) -> bool {
    let t = normalise(text);
    let hit = [
        "you've hit your ",
        "you have hit your ",
        "you've reached your ",
    ]
    .iter()
    .find_map(|p| t.strip_prefix(p));
    if let Some(rest) = hit {
        // "You've hit your limit", "…your session limit", "…your usage
        // limit", "…your limit for Claude messages": a few words, then
        // "limit" (never "You've hit your stride").
        return rest
            .split_whitespace()
            .take(4)
            .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) == "limit");
    }
    [
        "claude ai usage limit reached",
        "claude usage limit reached",
        "usage limit reached",
        "5-hour limit reached",
        "weekly limit reached",
        "your limit will reset at",
        "limits will reset at",
        "you exceeded your current quota",
        "ratelimiterror: you exceeded your current quota",
        "the usage limit has been reached",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || (t.contains("insufficient_quota") && (t.contains("429") || t.contains("error")))
        || (t.contains("exceeded your current quota")
            && ["ratelimiterror", "openaiexception", "error"]
                .iter()
                .any(|p| t.starts_with(p)))
        || (t.contains("resource_exhausted") && t.contains("quota"))
}

fn normalise(text: &str) -> String {
    text.trim()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .to_ascii_lowercase()
}

/// The service's own error body: `usage_limit_reached` with `resets_at`
/// (unix seconds) or `resets_in_seconds`, wherever it is embedded.
fn service_error(text: &str, now: Timestamp) -> Option<UsageLimit> {
    if !text.contains("usage_limit_reached") {
        return None;
    }
    let at = number_after(text, "\"resets_at\"")
        .and_then(|s| Timestamp::from_second(s as i64).ok())
        .or_else(|| {
            number_after(text, "\"resets_in_seconds\"")
                .and_then(|s| now.checked_add(Duration::from_secs(s)).ok())
        });
    Some(UsageLimit {
        resets_at: at,
        line: String::new(),
    })
}

/// The unsigned integer after `key` and a colon.
fn number_after(text: &str, key: &str) -> Option<u64> {
    let at = text.find(key)? + key.len();
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn classify_json(line: &str, now: Timestamp, local: &TimeZone) -> Option<UsageLimit> {
    if let Some(found) = service_error(line, now) {
        return Some(UsageLimit {
            line: clip(line),
            ..found
        });
    }
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let ty = v.get("type").and_then(|t| t.as_str()).unwrap_or_default();
    let text = match ty {
        // Claude Code's final result.
        "result" if v.get("is_error").and_then(|e| e.as_bool()) == Some(true) => {
            v.get("result").and_then(|r| r.as_str())?.to_string()
        }
        // Codex's error events.
        "error" | "turn.failed" | "stream_error" => v
            .get("message")
            .and_then(|m| m.as_str())
            .or_else(|| {
                v.get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(|m| m.as_str())
            })?
            .to_string(),
        _ => return None,
    };
    let message = message_of(&text)?;
    opens_with_limit(message).then(|| UsageLimit {
        resets_at: reset_time(message, now, local),
        line: clip(message),
    })
}

fn clip(line: &str) -> String {
    line.trim().chars().take(300).collect()
}

/// When a limit message says it resets.
pub fn reset_time(text: &str, now: Timestamp, local: &TimeZone) -> Option<Timestamp> {
    let t = normalise(text);
    // `Claude AI usage limit reached|1718294400`.
    if let Some((_, after)) = t.split_once("reached|") {
        let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(s) = digits.parse::<i64>() {
            return Timestamp::from_second(s).ok();
        }
    }
    for key in ["resets in ", "reset in ", "try again in ", "again in "] {
        if let Some(at) = t.find(key) {
            if let Some(d) = duration_words(&t[at + key.len()..]) {
                return now.checked_add(d).ok();
            }
        }
    }
    for key in [
        "resets at ",
        "reset at ",
        "resets on ",
        "try again at ",
        "again at ",
        "resets ",
    ] {
        if let Some(at) = t.find(key) {
            // The zone keeps its case: `(Asia/Tokyo)`.
            let original = &text.trim().replace(['\u{2019}', '\u{2018}'], "'");
            let start = at + key.len();
            if start <= original.len() && original.is_char_boundary(start) {
                if let Some(found) = clock_time(&original[start..], now, local) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// `2 days 17 hours 14 minutes`, `2h 13m`, `45 minutes`, `30s`.
fn duration_words(text: &str) -> Option<Duration> {
    let mut total = 0u64;
    let mut any = false;
    let mut words = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty() && *w != "and")
        .peekable();
    while let Some(w) = words.next() {
        let w = w.trim_end_matches('.');
        let digits: String = w.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            break;
        }
        let n: u64 = digits.parse().ok()?;
        let mut unit = w[digits.len()..].to_string();
        if unit.is_empty() {
            unit = words.next()?.trim_end_matches('.').to_string();
        }
        let secs = match unit.as_str() {
            "d" | "day" | "days" => 86_400,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600,
            "m" | "min" | "mins" | "minute" | "minutes" => 60,
            "s" | "sec" | "secs" | "second" | "seconds" => 1,
            _ => break,
        };
        total += n * secs;
        any = true;
    }
    any.then(|| Duration::from_secs(total))
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// How far behind the clock a time of day without a date may be and still
/// mean today's (a reset already past), not tomorrow's: the CLIs print it
/// as they exit, and the wrapper reads it then, so only a machine stalled
/// for minutes reads one late.
const STALE_FOR: Duration = Duration::from_secs(600);

/// `3:50pm (Asia/Tokyo)`, `8pm`, `Jan 30, 11:30am (Asia/Calcutta)`, `Jul
/// 5th, 2026 8:19 PM`, `Aug 20, 2026, 7:38 AM`, `15:50`.
fn clock_time(text: &str, now: Timestamp, local: &TimeZone) -> Option<Timestamp> {
    // The zone, when one is named in parentheses.
    let zone = text
        .find('(')
        .and_then(|open| {
            let close = text[open..].find(')')? + open;
            let name = text[open + 1..close].trim();
            TimeZone::get(name).ok()
        })
        .unwrap_or_else(|| local.clone());
    // Up to the zone or the end of the sentence.
    let end = text
        .find(['(', '\n'])
        .or_else(|| text.find(". "))
        .unwrap_or(text.len());
    let phrase = text[..end]
        .trim()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let tokens: Vec<String> = phrase
        .replace(',', " ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut month = None;
    let mut day = None;
    let mut year = None;
    let mut time = None;
    let mut i = 0;
    while i < tokens.len() {
        let tok = tokens[i].as_str();
        if let Some(m) = MONTHS.iter().position(|m| tok.starts_with(m)) {
            month = Some(m as i8 + 1);
        } else if let Some((clock, _)) = parse_clock(tok, tokens.get(i + 1).map(String::as_str)) {
            time = Some(clock);
            break;
        } else if tok == "at" || tok == "on" {
        } else {
            let digits: String = tok.chars().take_while(|c| c.is_ascii_digit()).collect();
            let suffix = &tok[digits.len()..];
            if digits.is_empty() || !["", "st", "nd", "rd", "th"].contains(&suffix) {
                return None;
            }
            let n: i32 = digits.parse().ok()?;
            if digits.len() == 4 {
                year = Some(n as i16);
            } else if month.is_some() && day.is_none() && n <= 31 {
                day = Some(n as i8);
            } else {
                return None;
            }
        }
        i += 1;
    }
    let (hour, minute) = time?;
    let today = now.to_zoned(zone.clone()).date();
    let at = |date: civil::Date| -> Option<Timestamp> {
        let dt = date.at(hour, minute, 0, 0);
        Some(dt.to_zoned(zone.clone()).ok()?.timestamp())
    };
    let grace = Duration::from_secs(60);
    let candidate = match (month, day) {
        (Some(m), Some(d)) => {
            let y = year.unwrap_or(today.year());
            let mut c = at(civil::Date::new(y, m, d).ok()?)?;
            if year.is_none() && c.checked_add(grace).ok()? <= now {
                c = at(civil::Date::new(y + 1, m, d).ok()?)?;
            }
            c
        }
        _ => {
            let mut c = at(today)?;
            // A time of day ten minutes or less behind the clock is a reset
            // that came while the message waited to be read: it is kept,
            // past, so the run reads it as stale and asks again soon, where
            // tomorrow's would pause the agent for a day.
            if c.checked_add(STALE_FOR).ok()? <= now {
                c = at(today.checked_add(1.day()).ok()?)?;
            }
            c
        }
    };
    // The minute has begun: the reset is before it ends.
    let begun = candidate < now && candidate.checked_add(grace).ok()? > now;
    Some(if begun {
        candidate.checked_add(grace).ok()?
    } else {
        candidate
    })
}

/// `3:50pm`, `8pm`, `8:19` + `pm`, `15:50`: (hour, minute) and the tokens
/// it took.
fn parse_clock(tok: &str, next: Option<&str>) -> Option<((i8, i8), usize)> {
    let (body, meridiem, took) = if let Some(b) = tok.strip_suffix("am") {
        (b, Some(false), 1)
    } else if let Some(b) = tok.strip_suffix("pm") {
        (b, Some(true), 1)
    } else if matches!(next, Some("am") | Some("a.m.")) {
        (tok, Some(false), 2)
    } else if matches!(next, Some("pm") | Some("p.m.")) {
        (tok, Some(true), 2)
    } else {
        (tok, None, 1)
    };
    let (h, m) = match body.split_once(':') {
        Some((h, m)) => (h, m),
        None if meridiem.is_some() => (body, "0"),
        None => return None,
    };
    let mut hour: i8 = h.parse().ok()?;
    let minute: i8 = m.parse().ok()?;
    if !(0..60).contains(&minute) {
        return None;
    }
    match meridiem {
        Some(pm) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour %= 12;
            if pm {
                hour += 12;
            }
        }
        None if !(0..24).contains(&hour) => return None,
        None => {}
    }
    Some(((hour, minute), took))
}
