//! What an agent says about its own work: the result file it may write at
//! `SUPERVISOR_RESULT_FILE` (TOML or JSON), and what the agent CLIs print.
//!
//! Shapes recognised in the output log (stdout and stderr interleaved):
//! - Claude Code `--output-format json`: one object
//!   `{"type":"result","subtype":…,"is_error":…,"num_turns":…,"result":…,
//!   "session_id":…,"total_cost_usd":…,"permission_denials":[{"tool_name":…,
//!   "tool_use_id":…,"tool_input":{…}}],"errors":[…],"api_error_status":…}`.
//!   `subtype` is `success` or `error_max_turns`, `error_during_execution`,
//!   `error_max_budget_usd`, …; a failed API call is `success` with
//!   `is_error: true` and the message in `result`.
//! - Claude Code `--output-format stream-json`: one object per line
//!   (`system`/`init` with `session_id`, `assistant`, `user`, …), the last
//!   one the same `result` object.
//! - Codex `exec --json` (0.4x and later): `thread.started` (`thread_id`, the
//!   id `codex exec resume` takes), `item.completed` whose `item.type` is
//!   `agent_message` (`text`: the final message is the last one),
//!   `command_execution` (`status: declined` is a denied tool) or `error`,
//!   `turn.completed` with `usage` (`input_tokens`, `cached_input_tokens`,
//!   `output_tokens`; the thread's running total, not the turn's),
//!   `turn.failed` (`error.message`) and `error` (`message`, also for
//!   transient reconnects). Older `{"msg":{"type":"task_complete",…}}` lines
//!   too.
//! - aider: `Tokens: 2.1k sent, 301 received. Cost: $0.0072 message,
//!   $0.0145 session.` after each model reply; the last session figure is the
//!   run's cost, the number of such lines its turns.

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
    /// The conversation to resume (Claude `session_id`, Codex `thread_id`).
    pub session_id: Option<String>,
    pub cost_usd: Option<f64>,
    /// Tokens used, where the agent counts them but not dollars (Codex).
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// What the agent says is left (result file `remaining`).
    pub remaining: Vec<String>,
    /// Tool calls the agent was not permitted to make, as `Tool (detail)`.
    pub denials: Vec<String>,
    /// The error the agent reported, when it failed.
    pub error: Option<String>,
    /// Where it was read from (`result file`, `claude json`, `codex json`,
    /// `aider output`).
    pub source: &'static str,
}

impl AgentResult {
    /// Why the agent failed in its own words (denied tools, its error), for
    /// the evidence line and from there the retry prompt and `status`.
    pub fn failure_reason(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.denials.is_empty() {
            parts.push(format!(
                "tools denied: {} (the agent command lacks a permission for them)",
                self.denials.join("; ")
            ));
        }
        if let Some(e) = &self.error {
            parts.push(format!("agent error: {e}"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Fill what `self` lacks from `other` (the result file first, then the
    /// CLI's own output).
    pub fn or(mut self, other: AgentResult) -> AgentResult {
        self.claim = self.claim.or(other.claim);
        self.turns = self.turns.or(other.turns);
        self.summary = self.summary.or(other.summary);
        self.session_id = self.session_id.or(other.session_id);
        self.cost_usd = self.cost_usd.or(other.cost_usd);
        self.input_tokens = self.input_tokens.or(other.input_tokens);
        self.output_tokens = self.output_tokens.or(other.output_tokens);
        if self.denials.is_empty() {
            self.denials = other.denials;
        }
        if self.remaining.is_empty() {
            self.remaining = other.remaining;
        }
        self.error = self.error.or(other.error);
        self
    }
}

#[derive(Deserialize, Default)]
struct ResultFile {
    status: Option<String>,
    turns: Option<u64>,
    summary: Option<String>,
    session_id: Option<String>,
    cost_usd: Option<f64>,
    #[serde(default)]
    remaining: Vec<String>,
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
        cost_usd: parsed.cost_usd.filter(|c| c.is_finite() && *c >= 0.0),
        remaining: parsed.remaining,
        source: "result file",
        ..AgentResult::default()
    })
}

/// Everything the agent CLI printed that says how it went: Claude's result
/// object (json or stream-json), Codex's event stream, aider's cost lines.
/// `None` when the output has none of these shapes.
pub fn read_agent_output(log: &str) -> Option<AgentResult> {
    let mut claude: Option<AgentResult> = None;
    let mut claude_session: Option<String> = None;
    let mut codex = CodexFold::default();
    let mut aider = AiderFold::default();
    for line in log.lines() {
        let line = line.trim();
        if line.starts_with('{') {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let ty = str_at(&v, "/type").unwrap_or_default();
            match ty {
                "result" => claude = Some(claude_result(&v)),
                "system" | "assistant" | "user" if claude_session.is_none() => {
                    claude_session = str_at(&v, "/session_id").map(str::to_string);
                }
                _ => codex.event(ty, &v),
            }
        } else {
            aider.line(line);
        }
    }
    if let Some(mut c) = claude {
        c.session_id = c.session_id.or(claude_session);
        return Some(c);
    }
    if let Some(session) = claude_session {
        // Ended before its result line (killed): no claim, but the
        // conversation can still be resumed.
        return Some(AgentResult {
            session_id: Some(session),
            source: "claude json",
            ..AgentResult::default()
        });
    }
    codex.finish().or_else(|| aider.finish())
}

fn str_at<'a>(v: &'a serde_json::Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(|s| s.as_str())
}

/// Claude's `result` object.
fn claude_result(v: &serde_json::Value) -> AgentResult {
    let subtype = str_at(v, "/subtype").unwrap_or("");
    let is_error = v.get("is_error").and_then(|e| e.as_bool()).unwrap_or(false);
    let denials: Vec<String> = v
        .get("permission_denials")
        .and_then(|d| d.as_array())
        .map(|a| a.iter().map(claude_denial).collect())
        .unwrap_or_default();
    let result_text = str_at(v, "/result").map(str::to_string);
    let errors: Vec<String> = v
        .get("errors")
        .and_then(|e| e.as_array())
        .map(|a| {
            a.iter()
                .map(|e| match e.as_str() {
                    Some(s) => s.to_string(),
                    None => e.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    let error = if !errors.is_empty() {
        Some(errors.join("; "))
    } else if is_error {
        Some(result_text.clone().unwrap_or_else(|| subtype.to_string()))
    } else if subtype.starts_with("error") {
        Some(subtype.to_string())
    } else {
        None
    };
    let error = match (error, v.get("api_error_status").and_then(|s| s.as_u64())) {
        (Some(e), Some(status)) => Some(format!("{e} (HTTP {status})")),
        (e, _) => e,
    };
    // Tools denied mean the work could not be done as asked, whatever the
    // subtype says (Claude reports `success` with the denials listed).
    let claim = match subtype {
        _ if !denials.is_empty() => Some(Claim::Failed),
        "success" if !is_error => Some(Claim::Complete),
        // Out of turns: the work went on as far as it could.
        "error_max_turns" => Some(Claim::Partial),
        _ if is_error || subtype.starts_with("error") => Some(Claim::Failed),
        _ => None,
    };
    AgentResult {
        claim,
        turns: v.get("num_turns").and_then(|n| n.as_u64()),
        summary: result_text.filter(|_| !is_error),
        session_id: str_at(v, "/session_id").map(str::to_string),
        cost_usd: v
            .get("total_cost_usd")
            .and_then(|c| c.as_f64())
            .filter(|c| c.is_finite() && *c >= 0.0),
        input_tokens: v.pointer("/usage/input_tokens").and_then(|n| n.as_u64()),
        output_tokens: v.pointer("/usage/output_tokens").and_then(|n| n.as_u64()),
        remaining: Vec::new(),
        denials,
        error,
        source: "claude json",
    }
}

/// One permission denial as `Tool: what it tried`.
fn claude_denial(d: &serde_json::Value) -> String {
    let tool = str_at(d, "/tool_name").unwrap_or("a tool");
    let input = d.get("tool_input");
    let what = input
        .and_then(|i| {
            ["command", "file_path", "path", "url", "pattern"]
                .iter()
                .find_map(|k| i.get(*k).and_then(|x| x.as_str()))
        })
        .map(|s| short(s, 80));
    match what {
        Some(w) => format!("{tool} ({w})"),
        None => tool.to_string(),
    }
}

fn short(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// Codex's JSONL events, folded in order.
#[derive(Default)]
struct CodexFold {
    seen: bool,
    thread_id: Option<String>,
    last_message: Option<String>,
    turns: u64,
    completed: bool,
    failed: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    denials: Vec<String>,
}

impl CodexFold {
    fn event(&mut self, ty: &str, v: &serde_json::Value) {
        match ty {
            "thread.started" => {
                self.seen = true;
                self.thread_id = str_at(v, "/thread_id").map(str::to_string);
            }
            "turn.started" => self.seen = true,
            "item.completed" => {
                self.seen = true;
                match str_at(v, "/item/type") {
                    Some("agent_message") => {
                        self.last_message = str_at(v, "/item/text").map(str::to_string);
                    }
                    Some("command_execution") if str_at(v, "/item/status") == Some("declined") => {
                        let cmd = str_at(v, "/item/command").unwrap_or("a command");
                        self.denials.push(format!("shell ({})", short(cmd, 80)));
                    }
                    _ => {}
                }
            }
            "turn.completed" => {
                self.seen = true;
                self.turns += 1;
                self.completed = true;
                // The usage is the thread's running total (also across
                // `exec resume`), not the turn's: the last one is the total.
                let at = |key: &str| v.pointer(&format!("/usage/{key}")).and_then(|n| n.as_u64());
                self.input_tokens = at("input_tokens").or(self.input_tokens);
                self.output_tokens = at("output_tokens").or(self.output_tokens);
            }
            "turn.failed" => {
                self.seen = true;
                self.turns += 1;
                self.completed = false;
                self.failed = Some(
                    str_at(v, "/error/message")
                        .unwrap_or("the turn failed")
                        .to_string(),
                );
            }
            "error" => {
                self.seen = true;
                self.failed = Some(str_at(v, "/message").unwrap_or("error").to_string());
            }
            _ => {
                // The event stream of Codex before `exec --json` had
                // `thread.*` events: `{"id":…,"msg":{"type":…}}`.
                match str_at(v, "/msg/type") {
                    Some("task_complete") => {
                        self.seen = true;
                        self.completed = true;
                        if let Some(m) = str_at(v, "/msg/last_agent_message") {
                            self.last_message = Some(m.to_string());
                        }
                    }
                    Some("session_configured") => {
                        self.seen = true;
                        self.thread_id = str_at(v, "/msg/session_id").map(str::to_string);
                    }
                    Some("error") => {
                        self.seen = true;
                        self.failed =
                            Some(str_at(v, "/msg/message").unwrap_or("error").to_string());
                    }
                    _ => {}
                }
            }
        }
    }

    fn finish(self) -> Option<AgentResult> {
        if !self.seen {
            return None;
        }
        let claim = if !self.denials.is_empty() || (self.failed.is_some() && !self.completed) {
            Some(Claim::Failed)
        } else if self.completed {
            Some(Claim::Complete)
        } else {
            None
        };
        Some(AgentResult {
            claim,
            turns: (self.turns > 0).then_some(self.turns),
            summary: self.last_message,
            session_id: self.thread_id,
            cost_usd: None,
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            remaining: Vec::new(),
            denials: self.denials,
            error: self.failed.filter(|_| !self.completed),
            source: "codex json",
        })
    }
}

/// aider's `Tokens: … Cost: $x message, $y session.` lines.
#[derive(Default)]
struct AiderFold {
    replies: u64,
    session_cost: Option<f64>,
}

impl AiderFold {
    fn line(&mut self, line: &str) {
        if line.starts_with("Tokens: ") && line.contains(" sent") {
            self.replies += 1;
        }
        // With cache figures aider puts the cost on a line of its own.
        if let Some(at) = line.find("Cost: $") {
            let rest = &line[at + "Cost: $".len()..];
            if let Some((_, session)) = rest.split_once(" message, $") {
                let figure: String = session
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                if let Ok(c) = figure.trim_end_matches('.').parse::<f64>() {
                    self.session_cost = Some(c);
                }
            }
        }
    }

    fn finish(self) -> Option<AgentResult> {
        if self.replies == 0 && self.session_cost.is_none() {
            return None;
        }
        Some(AgentResult {
            turns: (self.replies > 0).then_some(self.replies),
            cost_usd: self.session_cost,
            source: "aider output",
            ..AgentResult::default()
        })
    }
}

/// The agent's output log, whole: Codex names its thread on the first line
/// and Claude's result is on the last. A log beyond 64 MiB is read from its
/// last 8 MiB only (the result object and cost lines are at the end).
pub fn read_log(path: &std::path::Path) -> String {
    use std::io::Read;
    use std::io::Seek;
    const WHOLE: u64 = 64 << 20;
    const TAIL: u64 = 8 << 20;
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > WHOLE {
        let _ = f.seek(std::io::SeekFrom::Start(len - TAIL));
    }
    let mut bytes = Vec::new();
    let _ = f.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The conversation a finished dispatch reported: its result file's
/// `session_id`, else the one in its output (Claude, Codex).
pub fn reported_session(result_file: &std::path::Path, log: &std::path::Path) -> Option<String> {
    let from_file = std::fs::read_to_string(result_file)
        .ok()
        .and_then(|t| read_result_file(&t))
        .and_then(|r| r.session_id);
    from_file
        .or_else(|| read_agent_output(&read_log(log)).and_then(|r| r.session_id))
        .filter(|s| !s.trim().is_empty())
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
        let r = read_agent_output(log).expect("claude result");
        assert_eq!(
            (r.claim, r.turns, r.source),
            (Some(Claim::Partial), Some(50), "claude json")
        );
    }

    #[test]
    fn plain_text_has_no_agent_output() {
        assert_eq!(read_agent_output("hello\nCommitted.\n"), None);
    }
}
