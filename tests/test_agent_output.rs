//! What the agent CLIs print, read by `dispatch::result` (issue 14 item 5):
//! samples in the shapes Claude Code, Codex and aider emit today.

use git_supervisor::dispatch::result::read_agent_output;
use git_supervisor::dispatch::result::read_result_file;
use git_supervisor::dispatch::result::AgentResult;
use git_supervisor::dispatch::result::Claim;

/// `claude -p --output-format json` as root without a permission flag: the
/// subtype says success, the denials say otherwise.
const CLAUDE_JSON_DENIED: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":20735,"duration_api_ms":21310,"num_turns":7,"result":"I could not run git commit: permission to use Bash was denied.","stop_reason":"end_turn","session_id":"6a3a0d36-2e4f-4a5e-9a0e-3f1c1b8f9b21","total_cost_usd":0.0834215,"usage":{"input_tokens":18,"cache_creation_input_tokens":9034,"cache_read_input_tokens":52013,"output_tokens":1021,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":18,"outputTokens":1021,"costUSD":0.0834215}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_01PJm8","tool_input":{"command":"git add -A && git commit -m 'parser: tokens'","description":"Commit the work"}},{"tool_name":"Write","tool_use_id":"toolu_01Xk2","tool_input":{"file_path":"/repo/parser/src/lib.rs","content":"pub fn x() {}"}}],"uuid":"c0a3c5f4-6d1e-4a55-8d0f-0e6f5b6c7d8e"}"#;

#[test]
fn claude_json_denials_are_a_failure_with_their_reason() {
    let log = format!("{CLAUDE_JSON_DENIED}\n");
    let r = read_agent_output(&log).expect("claude result");
    assert_eq!(r.source, "claude json");
    assert_eq!(r.claim, Some(Claim::Failed), "denials override `success`");
    assert_eq!(r.turns, Some(7));
    assert_eq!(r.cost_usd, Some(0.0834215));
    assert_eq!(
        r.session_id.as_deref(),
        Some("6a3a0d36-2e4f-4a5e-9a0e-3f1c1b8f9b21")
    );
    assert_eq!(
        r.denials,
        vec![
            "Bash (git add -A && git commit -m 'parser: tokens')".to_string(),
            "Write (/repo/parser/src/lib.rs)".to_string()
        ]
    );
    let why = r.failure_reason().expect("a reason");
    assert!(why.starts_with("tools denied: Bash (git add -A"), "{why}");
}

#[test]
fn claude_json_success_error_and_max_turns() {
    let ok = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":12,"result":"Sprint 1 done; committed.","session_id":"s-ok","total_cost_usd":0.51,"permission_denials":[]}"#;
    let r = read_agent_output(ok).expect("result");
    assert_eq!(
        (r.claim, r.turns, r.cost_usd, r.error.clone()),
        (Some(Claim::Complete), Some(12), Some(0.51), None)
    );
    assert_eq!(r.summary.as_deref(), Some("Sprint 1 done; committed."));
    assert_eq!(r.failure_reason(), None);

    // A failed API call comes as `success` with `is_error` and the message
    // in `result`.
    let api = r#"{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","session_id":"s-api","total_cost_usd":0,"api_error_status":529,"permission_denials":[]}"#;
    let r = read_agent_output(api).expect("result");
    assert_eq!(r.claim, Some(Claim::Failed));
    let e = r.error.expect("error");
    assert!(
        e.starts_with("API Error: 529") && e.ends_with("(HTTP 529)"),
        "{e}"
    );
    assert_eq!(r.summary, None, "an error message is not a summary");

    let turns = r#"{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":51,"session_id":"s-turns","total_cost_usd":1.2,"permission_denials":[],"errors":[]}"#;
    let r = read_agent_output(turns).expect("result");
    assert_eq!((r.claim, r.turns), (Some(Claim::Partial), Some(51)));

    let during = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":3,"session_id":"s-x","total_cost_usd":0.02,"permission_denials":[],"errors":["No conversation found with session ID: abc"]}"#;
    let r = read_agent_output(during).expect("result");
    assert_eq!(r.claim, Some(Claim::Failed));
    assert_eq!(
        r.failure_reason().as_deref(),
        Some("agent error: No conversation found with session ID: abc")
    );
}

#[test]
fn claude_stream_json_reads_the_session_and_the_final_result() {
    let log = [
        r#"{"type":"system","subtype":"init","cwd":"/repo","session_id":"b2f1c7de-0001","tools":["Bash","Edit","Read","Write"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"acceptEdits","apiKeySource":"ANTHROPIC_API_KEY","uuid":"u1"}"#,
        r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cargo test"}}],"stop_reason":null,"usage":{"input_tokens":4,"output_tokens":60}},"parent_tool_use_id":null,"session_id":"b2f1c7de-0001","uuid":"u2"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"test result: ok. 3 passed","is_error":false}]},"parent_tool_use_id":null,"session_id":"b2f1c7de-0001","uuid":"u3"}"#,
        "warning: some stderr noise from a tool",
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":9000,"num_turns":4,"result":"Done.","session_id":"b2f1c7de-0001","total_cost_usd":0.0421,"usage":{"input_tokens":10,"output_tokens":300},"permission_denials":[],"uuid":"u4"}"#,
    ]
    .join("\n");
    let r = read_agent_output(&log).expect("result");
    assert_eq!(
        (r.claim, r.turns, r.cost_usd, r.session_id.as_deref()),
        (
            Some(Claim::Complete),
            Some(4),
            Some(0.0421),
            Some("b2f1c7de-0001")
        )
    );
    assert_eq!((r.input_tokens, r.output_tokens), (Some(10), Some(300)));

    // Killed before the result line: the session is still known.
    let cut: Vec<&str> = log.lines().take(3).collect();
    let r = read_agent_output(&cut.join("\n")).expect("a session");
    assert_eq!(
        (r.claim, r.session_id.as_deref()),
        (None, Some("b2f1c7de-0001")),
        "no result line is no claim"
    );
}

/// `codex exec --json` of the current CLI: thread, turn, items, usage.
const CODEX_OK: &str = r##"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Reading the plan**"}}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cat EXECUTION_PLAN.md'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cat EXECUTION_PLAN.md'","aggregated_output":"# Plan\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"/repo/parser/src/lib.rs","kind":"add"}],"status":"completed"}}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Working on it."}}
{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"Sprint 1 is committed: parser/src/lib.rs with tests."}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}
"##;

#[test]
fn codex_events_give_thread_final_message_and_usage() {
    let r = read_agent_output(CODEX_OK).expect("codex");
    assert_eq!(r.source, "codex json");
    assert_eq!(r.claim, Some(Claim::Complete));
    assert_eq!(
        r.session_id.as_deref(),
        Some("0199a213-81c0-7800-8aa1-bbab2a035a53")
    );
    assert_eq!(
        r.summary.as_deref(),
        Some("Sprint 1 is committed: parser/src/lib.rs with tests.")
    );
    assert_eq!((r.input_tokens, r.output_tokens), (Some(24763), Some(122)));
    assert_eq!(r.turns, Some(1));
    assert_eq!(r.cost_usd, None, "codex reports tokens, not dollars");
}

#[test]
fn codex_failures_and_declined_commands() {
    let failed = r#"{"type":"thread.started","thread_id":"t-1"}
{"type":"turn.started"}
{"type":"error","message":"stream error: exceeded retry limit, last status: 429 Too Many Requests"}
{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}
"#;
    let r = read_agent_output(failed).expect("codex");
    assert_eq!(r.claim, Some(Claim::Failed));
    assert_eq!(
        r.failure_reason().as_deref(),
        Some("agent error: exceeded retry limit, last status: 429 Too Many Requests")
    );
    assert_eq!(r.session_id.as_deref(), Some("t-1"));

    let declined = r#"{"type":"thread.started","thread_id":"t-2"}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'git commit -am x'","aggregated_output":"","exit_code":null,"status":"declined"}}
{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"I could not commit."}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}
"#;
    let r = read_agent_output(declined).expect("codex");
    assert_eq!(r.claim, Some(Claim::Failed));
    assert_eq!(
        r.denials,
        vec!["shell (bash -lc 'git commit -am x')".to_string()]
    );
}

#[test]
fn aider_cost_lines() {
    let log = "\
Aider v0.86.1
Model: openai/gpt-4o with diff edit format
Git repo: .git with 12 files
Repo-map: using 4096 tokens, auto refresh
parser/src/lib.rs
Tokens: 2.1k sent, 301 received. Cost: $0.0072 message, $0.0072 session.
Applied edit to parser/src/lib.rs
Commit 4f1e2a9 feat: Add tokenizer
Tokens: 12k sent, 3.2k cache write, 9.1k cache hit, 512 received.
Cost: $0.02 message, $0.03 session.
";
    let r = read_agent_output(log).expect("aider");
    assert_eq!(r.source, "aider output");
    assert_eq!((r.turns, r.cost_usd), (Some(2), Some(0.03)));
    assert_eq!(
        r.claim, None,
        "aider makes no claim; commits and criteria decide"
    );

    // Without prices aider prints tokens only.
    let r = read_agent_output("Tokens: 1.5k sent, 90 received.\n").expect("aider");
    assert_eq!((r.turns, r.cost_usd), (Some(1), None));
}

#[test]
fn the_result_file_wins_and_the_output_fills_in() {
    let file = read_result_file("status = \"partial\"\nsummary = \"half\"\n").expect("toml");
    let out = read_agent_output(CLAUDE_JSON_DENIED).expect("claude");
    let r: AgentResult = file.or(out);
    assert_eq!(r.claim, Some(Claim::Partial));
    assert_eq!(r.summary.as_deref(), Some("half"));
    assert_eq!(r.cost_usd, Some(0.0834215));
    assert_eq!(r.denials.len(), 2);
    assert_eq!(r.source, "result file");
}

/// Output captured from the CLIs themselves (see tests/agent-output/).
fn captured(name: &str) -> String {
    std::fs::read_to_string(
        crate::common::manifest_dir()
            .join("tests/agent-output")
            .join(name),
    )
    .expect("captured output")
}

#[test]
fn captured_claude_json_with_a_denied_commit() {
    let r = read_agent_output(&captured("claude-2.1.197-json-denied.json")).expect("result");
    assert_eq!(
        r.claim,
        Some(Claim::Failed),
        "subtype says success; the denial decides"
    );
    assert_eq!(r.turns, Some(2));
    assert_eq!(r.cost_usd, Some(0.01125));
    assert_eq!(
        r.session_id.as_deref(),
        Some("177a72a4-8091-494e-80e1-aaf67829fff5")
    );
    assert_eq!(r.denials, vec!["Bash (git commit -m notes)".to_string()]);
}

#[test]
fn captured_claude_stream_json_with_a_denied_commit() {
    let r =
        read_agent_output(&captured("claude-2.1.197-stream-json-denied.jsonl")).expect("result");
    assert_eq!(r.claim, Some(Claim::Failed));
    assert_eq!(r.turns, Some(2));
    assert_eq!(
        r.session_id.as_deref(),
        Some("da5901c8-522f-4b32-83cb-2179754aa3b4")
    );
    assert_eq!(r.denials, vec!["Bash (git commit -m notes)".to_string()]);
    assert!(r.cost_usd.is_some_and(|c| c > 0.0));
}

#[test]
fn captured_claude_api_error() {
    let r = read_agent_output(&captured("claude-2.1.197-json-api-error.json")).expect("result");
    assert_eq!(r.claim, Some(Claim::Failed));
    assert_eq!(
        r.error.as_deref(),
        Some("API Error: Unable to connect to API (ConnectionRefused)"),
        "`api_error_status: null` adds nothing"
    );
    assert_eq!(r.cost_usd, Some(0.0));
}

#[test]
fn captured_codex_that_never_reached_its_model() {
    let r =
        read_agent_output(&captured("codex-0.169.0-exec-json-unreachable.jsonl")).expect("codex");
    assert_eq!(r.source, "codex json");
    assert_eq!(
        r.claim,
        Some(Claim::Failed),
        "no turn completed, errors seen"
    );
    assert_eq!(
        r.session_id.as_deref(),
        Some("01a20d1a-7218-7cc1-b0d3-2d4e35c987a5")
    );
    let why = r.failure_reason().expect("a reason");
    assert!(why.starts_with("agent error: Reconnecting..."), "{why}");
}

#[test]
fn captured_aider_cost_line() {
    let r = read_agent_output(&captured("aider-0.86.2-message.txt")).expect("aider");
    assert_eq!(r.source, "aider output");
    assert_eq!((r.turns, r.cost_usd), (Some(1), Some(0.0083)));
}

#[test]
fn captured_claude_out_of_turns_and_its_resumed_continuation() {
    let first = read_agent_output(&captured("claude-2.1.197-json-max-turns.json")).expect("result");
    // `is_error` is true when the turns run out; it is still partial work.
    assert_eq!(first.claim, Some(Claim::Partial));
    assert_eq!(first.cost_usd, Some(0.0125));
    let resumed =
        read_agent_output(&captured("claude-2.1.197-json-resumed-max-turns.json")).expect("result");
    assert_eq!(
        resumed.session_id, first.session_id,
        "--resume keeps the session"
    );
    // Each invocation reports its own dollars, so summing dispatches does
    // not count the first twice.
    assert_eq!(resumed.cost_usd, Some(0.00625));
}

#[test]
fn captured_codex_run_and_its_resumed_thread() {
    let r = read_agent_output(&captured("codex-0.169.0-exec-json.jsonl")).expect("codex");
    assert_eq!(
        r.claim,
        Some(Claim::Complete),
        "a non-fatal error item is no failure"
    );
    assert_eq!(
        r.summary.as_deref(),
        Some("Sprint 1 is done: notes/a.txt written and committed.")
    );
    assert_eq!((r.input_tokens, r.output_tokens), (Some(1200), Some(80)));
    let resumed =
        read_agent_output(&captured("codex-0.169.0-exec-resume-json.jsonl")).expect("codex");
    assert_eq!(
        resumed.session_id, r.session_id,
        "`exec resume` keeps the thread"
    );
    // The thread's total, read as such (not added to anything).
    assert_eq!(
        (resumed.input_tokens, resumed.output_tokens),
        (Some(2400), Some(160))
    );
}
