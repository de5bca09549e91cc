//! Was an agent's failure a rate limit or an overload of its model API?
//!
//! Such a failure says nothing about the sprint: the wrapper waits and runs
//! the agent again in the same dispatch, so it consumes no attempt. Only
//! the end of the attempt's output is read (an error the agent recovered
//! from earlier is not its failure), and only shapes that are errors, never
//! a bare number that happens to be 429. An agent that exited 0 (aider
//! gives up on a rate limit and exits 0) is read by [`classify_final`]:
//! only its last few non-blank lines.
//!
//! Shapes recognised:
//! - Claude Code JSON (`--output-format json|stream-json`): a `result` with
//!   `is_error: true` and `api_error_status` 429/529, or whose text holds
//!   `rate_limit_error` / `overloaded_error`; an `error` object of those
//!   types.
//! - Codex `--json` events: `error` / `turn.failed` whose message mentions
//!   429, 529, "rate limit", "Too Many Requests" or "overloaded".
//! - aider / litellm: `RateLimitError`, and `Overloaded` errors.
//! - Plain text: `HTTP 429`, `429 Too Many Requests`, `status code 429`
//!   (and the same with 529), `rate_limit_error`, `overloaded_error`.

use std::time::Duration;

/// Why the agent could not work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// `rate limit (HTTP 429)` or `overloaded (HTTP 529)`.
    pub kind: &'static str,
    /// The line that said so (trimmed, at most 200 characters).
    pub line: String,
    /// What the server asked for (`retry-after`), when the output says.
    pub retry_after: Option<Duration>,
}

const RATE: &str = "rate limit (HTTP 429)";
const OVERLOAD: &str = "overloaded (HTTP 529)";

/// Lines of the end of the output looked at.
const TAIL_LINES: usize = 40;

/// Classify the end of an agent's output. `None`: an ordinary failure.
pub fn classify(output: &str) -> Option<Limited> {
    let lines: Vec<&str> = output.lines().collect();
    let tail = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    tail.iter().rev().find_map(|line| {
        let kind = classify_json(line).or_else(|| classify_text(line))?;
        Some(Limited {
            kind,
            line: line.trim().chars().take(200).collect(),
            retry_after: retry_after(line),
        })
    })
}

/// Lines at the very end of an exit 0's output that may hold its final
/// error.
const FINAL_LINES: usize = 6;

/// Classify an agent that exited 0: only a rate limit or overload among
/// the last few non-blank lines counts (the error it gave up on), never one
/// it recovered from and went on working after.
pub fn classify_final(output: &str) -> Option<Limited> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(FINAL_LINES)..].join("\n");
    classify(&tail)
}

fn classify_json(line: &str) -> Option<&'static str> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    let ty = v.get("type").and_then(|t| t.as_str()).unwrap_or_default();
    match ty {
        // Claude Code's final result.
        "result" => {
            if v.get("is_error").and_then(|e| e.as_bool()) != Some(true) {
                return None;
            }
            match v.get("api_error_status").and_then(|s| s.as_u64()) {
                Some(429) => return Some(RATE),
                Some(529) => return Some(OVERLOAD),
                _ => {}
            }
            let text = v.get("result").map(|r| r.to_string()).unwrap_or_default();
            error_words(&text)
        }
        // Anthropic's error body, Codex's error events.
        "error" | "turn.failed" | "stream_error" => {
            if let Some(kind) = v
                .get("error")
                .and_then(|e| e.get("type"))
                .and_then(|t| t.as_str())
                .and_then(|t| match t {
                    "rate_limit_error" => Some(RATE),
                    "overloaded_error" => Some(OVERLOAD),
                    _ => None,
                })
            {
                return Some(kind);
            }
            error_words(&v.to_string())
        }
        _ => None,
    }
}

/// Words that name a rate limit or an overload inside an error's text.
fn error_words(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    if t.contains("rate_limit_error")
        || t.contains("rate limit")
        || t.contains("ratelimiterror")
        || t.contains("too many requests")
        || has_status(&t, "429")
    {
        Some(RATE)
    } else if t.contains("overloaded") || has_status(&t, "529") {
        Some(OVERLOAD)
    } else {
        None
    }
}

/// `429` as a status: a word of its own (not part of a longer number).
fn has_status(t: &str, code: &str) -> bool {
    t.match_indices(code).any(|(i, _)| {
        let before = t[..i].chars().next_back();
        let after = t[i + code.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

fn classify_text(line: &str) -> Option<&'static str> {
    let t = line.to_ascii_lowercase();
    let rate = t.contains("ratelimiterror")
        || t.contains("rate_limit_error")
        || t.contains("429 too many requests")
        || t.contains("http 429")
        || t.contains("status code 429")
        || t.contains("status: 429")
        || t.contains("api error: 429");
    if rate {
        return Some(RATE);
    }
    let overload = t.contains("overloaded_error")
        || t.contains("overloadederror")
        || t.contains("http 529")
        || t.contains("status code 529")
        || t.contains("status: 529")
        || t.contains("api error: 529")
        || (t.contains("error") && t.contains("overloaded"));
    overload.then_some(OVERLOAD)
}

/// `retry-after: N` / `retry after N seconds` / `"retry_after": N`.
fn retry_after(line: &str) -> Option<Duration> {
    let t = line.to_ascii_lowercase();
    let at = ["retry-after", "retry_after", "retry after"]
        .iter()
        .find_map(|k| t.find(k).map(|i| i + k.len()))?;
    let digits: String = t[at..]
        .chars()
        .take(24)
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let secs: u64 = digits.parse().ok()?;
    Some(Duration::from_secs(secs.min(24 * 3600)))
}
