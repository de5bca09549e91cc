//! What an agent says about its own work: the result file it may write at
//! `SUPERVISOR_RESULT_FILE` (TOML or JSON), and Claude's or Codex's JSON
//! output when it is the last thing in the log.

use serde::Deserialize;

/// The agent's own verdict, the weakest evidence after output keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    Complete,
    Partial,
    Failed,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentResult {
    pub claim: Option<Claim>,
    pub turns: Option<u64>,
    pub summary: Option<String>,
    pub session_id: Option<String>,
    pub cost_usd: Option<f64>,
    /// Where it was read from (`result file`, `claude json`, `codex json`).
    pub source: &'static str,
}

#[derive(Deserialize, Default)]
struct ResultFile {
    status: Option<String>,
    turns: Option<u64>,
    summary: Option<String>,
    session_id: Option<String>,
    cost_usd: Option<f64>,
}

fn claim(s: &str) -> Option<Claim> {
    match s.trim().to_ascii_lowercase().as_str() {
        "complete" | "completed" | "done" | "success" => Some(Claim::Complete),
        "partial" | "incomplete" => Some(Claim::Partial),
        "failed" | "failure" | "error" => Some(Claim::Failed),
        _ => None,
    }
}

/// Read the result file (TOML, else JSON).
pub fn read_result_file(text: &str) -> Option<AgentResult> {
    let parsed: ResultFile = toml::from_str(text)
        .ok()
        .or_else(|| serde_json::from_str(text).ok())?;
    Some(AgentResult {
        claim: parsed.status.as_deref().and_then(claim),
        turns: parsed.turns,
        summary: parsed.summary,
        session_id: parsed.session_id,
        cost_usd: parsed.cost_usd,
        source: "result file",
    })
}

/// Claude's `--output-format json` (`{"type":"result","subtype":...}`) or
/// Codex's `--json` event stream, read from the log's last JSON line.
pub fn read_json_output(log: &str) -> Option<AgentResult> {
    let line = log
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('{'))?;
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v.get("type").and_then(|t| t.as_str()) == Some("result") {
        let subtype = v.get("subtype").and_then(|s| s.as_str()).unwrap_or("");
        let is_error = v.get("is_error").and_then(|e| e.as_bool()).unwrap_or(false);
        let claim = match subtype {
            "success" if !is_error => Some(Claim::Complete),
            "error_max_turns" => Some(Claim::Partial),
            _ if is_error || subtype.starts_with("error") => Some(Claim::Failed),
            _ => None,
        };
        return Some(AgentResult {
            claim,
            turns: v.get("num_turns").and_then(|n| n.as_u64()),
            summary: v.get("result").and_then(|r| r.as_str()).map(str::to_string),
            session_id: v
                .get("session_id")
                .and_then(|s| s.as_str())
                .map(str::to_string),
            cost_usd: v.get("total_cost_usd").and_then(|c| c.as_f64()),
            source: "claude json",
        });
    }
    // Codex: the last event of `codex exec --json` is a turn/task completion.
    let ty = v
        .get("type")
        .and_then(|t| t.as_str())
        .or_else(|| v.pointer("/msg/type").and_then(|t| t.as_str()))?;
    let claim = match ty {
        "turn.completed" | "task_complete" => Some(Claim::Complete),
        "turn.failed" | "error" => Some(Claim::Failed),
        _ => return None,
    };
    Some(AgentResult {
        claim,
        summary: v
            .pointer("/msg/last_agent_message")
            .and_then(|m| m.as_str())
            .map(str::to_string),
        source: "codex json",
        ..AgentResult::default()
    })
}

/// Output keywords (spec §H-5a), the weakest evidence of all.
pub fn keywords(log_tail: &str) -> Option<Claim> {
    let l = log_tail.to_ascii_lowercase();
    let has = |w: &[&str]| w.iter().any(|x| l.contains(x));
    if has(&["partial", "incomplete", "remaining", "continued in next"]) {
        Some(Claim::Partial)
    } else if has(&["failed", "could not", "blocked"]) {
        Some(Claim::Failed)
    } else if has(&["completed", "all checks pass", "committed", "done"]) {
        Some(Claim::Complete)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_files_in_toml_and_json() {
        let t = read_result_file("status = \"partial\"\nturns = 12\n").expect("toml");
        assert_eq!((t.claim, t.turns), (Some(Claim::Partial), Some(12)));
        let j = read_result_file("{\"status\": \"complete\", \"cost_usd\": 0.5}").expect("json");
        assert_eq!((j.claim, j.cost_usd), (Some(Claim::Complete), Some(0.5)));
    }

    #[test]
    fn claude_json_output() {
        let log = "thinking\n{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":false,\"num_turns\":50,\"session_id\":\"s1\"}\n";
        let r = read_json_output(log).expect("claude result");
        assert_eq!(
            (r.claim, r.turns, r.source),
            (Some(Claim::Partial), Some(50), "claude json")
        );
    }
}
