//! Every usage-limit message collected from the agent CLIs, with the reset
//! time read on a pinned clock and in pinned time zones (DST edges too),
//! and messages that must not count as a limit.

use git_supervisor::dispatch::usage_limit;
use jiff::tz::TimeZone;
use jiff::Timestamp;

fn ts(s: &str) -> Timestamp {
    s.parse().expect("timestamp")
}

/// `(output, now, local zone, expected reset)`; `Some(None)`: a limit with
/// no reset named.
const NOW: &str = "2026-11-28T12:00:00Z";

#[test]
fn limits_and_their_reset_times() {
    let cases: &[(&str, &str, &str, Option<&str>)] = &[
        // Claude Code, plain output.
        ("You've hit your session limit · resets 3:50pm (Asia/Tokyo)", NOW, "UTC", Some("2026-11-29T06:50:00Z")),
        ("You've hit your limit · resets 1pm (Europe/Lisbon)", NOW, "UTC", Some("2026-11-28T13:00:00Z")),
        ("You've hit your weekly limit · resets Dec 2, 9am (Europe/Berlin)", NOW, "UTC", Some("2026-12-02T08:00:00Z")),
        ("You've hit your limit · resets Jan 30, 11:30am (Asia/Calcutta)", NOW, "UTC", Some("2027-01-30T06:00:00Z")),
        ("You've hit your Opus limit · resets Dec 1, 2027, 4pm (America/Los_Angeles)", NOW, "UTC", Some("2027-12-02T00:00:00Z")),
        ("You\u{2019}ve hit your limit for Claude messages. Limits will reset at 9:30 AM.", NOW, "Europe/Paris", Some("2026-11-29T08:30:00Z")),
        ("Claude AI usage limit reached|1764345600", NOW, "UTC", Some("2025-11-28T16:00:00Z")),
        ("Claude usage limit reached. Your limit will reset at 9am (America/Chicago).", NOW, "UTC", Some("2026-11-28T15:00:00Z")),
        ("5-hour limit reached \u{2219} resets 2pm", NOW, "Europe/Lisbon", Some("2026-11-28T14:00:00Z")),
        // Claude Code, `--output-format json`.
        (r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"num_turns":1,"result":"You've hit your session limit · resets 6:25am (Asia/Tokyo)","session_id":"x"}"#, NOW, "UTC", Some("2026-11-28T21:25:00Z")),
        // Codex, plain output (the machine's zone).
        ("\u{25a0} You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.", NOW, "UTC", Some("2026-12-01T05:14:00Z")),
        ("\u{25a0} You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11\nminutes.", NOW, "UTC", Some("2026-12-04T10:11:00Z")),
        ("ERROR: You\u{2019}ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 6:25 AM.", NOW, "America/New_York", Some("2026-11-29T11:25:00Z")),
        ("You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at Jul 5th, 2026 8:19 PM.", NOW, "America/New_York", Some("2026-07-06T00:19:00Z")),
        ("ERROR: You've hit your usage limit. ... try again at Dec 20, 2026, 7:38 AM.", NOW, "Asia/Tokyo", Some("2026-12-19T22:38:00Z")),
        // Codex `--json` events.
        (r#"{"type":"error","message":"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at 6:25 AM."}"#, NOW, "Asia/Tokyo", Some("2026-11-28T21:25:00Z")),
        (r#"{"type":"turn.failed","error":{"message":"You’ve hit your usage limit. Try again in 4 hours 20 minutes."}}"#, NOW, "UTC", Some("2026-11-28T16:20:00Z")),
        // The service's JSON error, as is or embedded.
        (r#"{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1764400000,"resets_in_seconds":13872}}"#, NOW, "UTC", Some("2025-11-29T07:06:40Z")),
        (r#"Error: Codex error: {"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","eligible_promo":null,"resets_in_seconds":13872},"status_code":429}"#, NOW, "UTC", Some("2026-11-28T15:51:12Z")),
        // Quotas that name no reset.
        ("litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded your current quota, please check your plan and billing details.", NOW, "UTC", None),
        (r#"Error code: 429 - {'error': {'message': 'You exceeded your current quota', 'type': 'insufficient_quota', 'code': 'insufficient_quota'}}"#, NOW, "UTC", None),
        ("Error: [429 Too Many Requests] RESOURCE_EXHAUSTED: Quota exceeded for metric generate_content_requests", NOW, "UTC", None),
        // A 429 whose retry-after is a usage window.
        ("API Error: 429 rate_limit_error (retry-after: 3600)", NOW, "UTC", Some("2026-11-28T13:00:00Z")),
        // DST: a clock time in the spring-forward gap, and in the fall-back fold.
        ("ERROR: You've hit your usage limit. Try again at 2:30 AM.", "2026-03-08T06:00:00Z", "America/New_York", Some("2026-03-08T07:30:00Z")),
        ("ERROR: You've hit your usage limit. Try again at 1:30 AM.", "2026-11-01T04:00:00Z", "America/New_York", Some("2026-11-01T05:30:00Z")),
        ("You've hit your limit · resets 1am (Europe/London)", "2026-03-28T23:30:00Z", "UTC", Some("2026-03-29T01:00:00Z")),
        // A minute that has begun ends the wait at its end; one passed ten
        // minutes ago or less is a stale reset, kept as it was; one longer
        // past is tomorrow's.
        ("ERROR: You've hit your usage limit. Try again at 12:00 PM.", "2026-11-28T12:00:30Z", "UTC", Some("2026-11-28T12:01:00Z")),
        ("ERROR: You've hit your usage limit. Try again at 12:00 PM.", "2026-11-28T12:02:00Z", "UTC", Some("2026-11-28T12:00:00Z")),
        ("You've hit your session limit · resets 6:08pm (Asia/Tokyo)", "2026-11-28T09:09:30Z", "UTC", Some("2026-11-28T09:08:00Z")),
        ("ERROR: You've hit your usage limit. Try again at 12:00 PM.", "2026-11-28T12:11:00Z", "UTC", Some("2026-11-29T12:00:00Z")),
    ];
    for (output, now, zone, want) in cases {
        let local = TimeZone::get(zone).expect("zone");
        let found = usage_limit::classify(output, ts(now), &local)
            .unwrap_or_else(|| panic!("not read as a usage limit: {output}"));
        let got = found.resets_at.map(|t| t.to_string());
        assert_eq!(
            got.as_deref(),
            *want,
            "reset of {output:?} at {now} in {zone}"
        );
        assert!(!found.line.is_empty(), "{output}");
    }
}

#[test]
fn words_that_are_not_a_limit() {
    let cases = [
        "I updated the handler so that `You've hit your limit · resets 1pm` is shown.",
        "+    message: \"You've hit your session limit · resets 3pm (Asia/Tokyo)\",",
        "- [x] Handle 'usage limit reached' errors from Codex",
        "You've hit your stride with this refactor.",
        "The tests cover: You've hit your usage limit. Try again in 2 hours.",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"You've hit your limit · resets 1pm (Europe/Lisbon)"}"#,
        r#"{"type":"item.completed","item":{"type":"agent_message","text":"You've hit your usage limit. Try again in 2 hours."}}"#,
        "API Error: 429 rate_limit_error (retry-after: 30)",
        "Error: 429 Too Many Requests",
    ];
    let local = TimeZone::UTC;
    for output in cases {
        assert_eq!(
            usage_limit::classify(output, ts(NOW), &local),
            None,
            "read as a usage limit: {output}"
        );
    }
}

#[test]
fn only_the_end_of_the_output_counts() {
    let local = TimeZone::UTC;
    let mut output = String::from("You've hit your limit · resets 1pm (Europe/Lisbon)\n");
    for i in 0..60 {
        output.push_str(&format!("working on step {i}\n"));
    }
    assert_eq!(usage_limit::classify(&output, ts(NOW), &local), None);
    // An agent that exited 0 is read only for its last words.
    let mut ok = String::from("You've hit your limit · resets 1pm (Europe/Lisbon)\n");
    for i in 0..8 {
        ok.push_str(&format!("recovered, step {i} done\n"));
    }
    assert_eq!(usage_limit::classify_final(&ok, ts(NOW), &local), None);
    ok.push_str("You've hit your limit · resets 1pm (Europe/Lisbon)\n");
    assert!(usage_limit::classify_final(&ok, ts(NOW), &local).is_some());
}
