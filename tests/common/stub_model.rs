//! A stub model server on 127.0.0.1 for the end-to-end tests of the real
//! agent CLIs. It speaks just enough of three wire protocols:
//!
//! - Anthropic Messages (`POST /v1/messages`, streaming SSE) for Claude Code;
//! - OpenAI Responses (`POST /v1/responses`, streaming SSE) for Codex, whose
//!   current models call tools through the code-mode `exec` tool (JavaScript
//!   that calls `tools.exec_command`), older ones through `exec_command`;
//! - OpenAI Chat Completions (`POST /v1/chat/completions`, SSE or not) for
//!   aider, which edits files through SEARCH/REPLACE blocks and asks a weak
//!   model for its commit message.
//!
//! Each test scripts it: the shell commands the agent is asked to run (one
//! tool call each, then a final message) or, for aider, the files to write;
//! failures answered to the first requests; a delay before answering. The
//! reply is chosen from the conversation itself (how many tool results it
//! holds), so a CLI's own retries and restarts get consistent answers.
//! `{unit}` and `{sprint}` in a script are taken from the prompt's
//! `Supervisor-Sprint: <unit>/<sprint>` trailer instruction.
//!
//! Bounded: it answers at most `MAX_REQUESTS` requests, lives at most
//! `LIFETIME`, and stops when dropped.

use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Write;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use serde_json::json;
use serde_json::Value;

const MAX_REQUESTS: usize = 400;
const LIFETIME: Duration = Duration::from_secs(600);

/// An HTTP error answered instead of a model reply.
#[derive(Debug, Clone)]
pub struct Failure {
    pub status: u16,
    /// Seconds for a `retry-after` header, if any.
    pub retry_after: Option<u64>,
    pub message: String,
}

impl Failure {
    /// A request error the CLIs do not retry (HTTP 400).
    pub fn api_error() -> Failure {
        Failure {
            status: 400,
            retry_after: None,
            message: "scripted API error".into(),
        }
    }

    /// A rate limit (HTTP 429).
    pub fn rate_limit() -> Failure {
        Failure {
            status: 429,
            retry_after: Some(1),
            message: "scripted rate limit: too many requests".into(),
        }
    }
}

/// What the model does.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// Shell commands, one tool call each, in order (Claude Code, Codex).
    pub commands: Vec<String>,
    /// Files to write, `(path, content)` (aider).
    pub edits: Vec<(String, String)>,
    /// The final message.
    pub final_text: String,
    /// Answered, in order, to the first agent requests (not to a CLI's
    /// side requests such as a commit message).
    pub failures: Vec<Failure>,
    /// Wait before answering an agent request that asks for edits: the
    /// model is silent meanwhile.
    pub reply_delay: Duration,
    /// Until this Unix time every agent request gets the subscription's
    /// usage-limit answer, as the real services send it: Anthropic's 429
    /// with its `anthropic-ratelimit-unified-*` headers (Claude Code says
    /// "You've hit your session limit · resets …"), OpenAI's 429
    /// `usage_limit_reached` with `resets_at` (Codex says "You've hit your
    /// usage limit … try again at …").
    pub limit_until: Option<u64>,
}

/// One request the stub saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub model: Option<String>,
    /// An agent request (as opposed to a side request).
    pub main: bool,
    pub status: u16,
    /// What the agent's last tool call printed, as sent back in this
    /// request: the first thing to read when a scripted command failed.
    pub tool_output: Option<String>,
}

pub struct StubModel {
    pub port: u16,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Shared {
    script: Script,
    failures_used: AtomicUsize,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl StubModel {
    pub fn start(script: Script) -> StubModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared {
            script,
            failures_used: AtomicUsize::new(0),
            seen: seen.clone(),
        });
        let stop_flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let born = Instant::now();
            let mut served = 0usize;
            while !stop_flag.load(Ordering::SeqCst)
                && born.elapsed() < LIFETIME
                && served < MAX_REQUESTS
            {
                match listener.accept() {
                    Ok((stream, _)) => {
                        served += 1;
                        let shared = shared.clone();
                        let stop = stop_flag.clone();
                        std::thread::spawn(move || {
                            let _ = serve(stream, &shared, &stop);
                        });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(_) => break,
                }
            }
        });
        StubModel {
            port,
            stop,
            seen,
            thread: Some(thread),
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("seen").clone()
    }
}

impl Drop for StubModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Request { method, path, body })
}

fn respond(
    mut stream: &TcpStream,
    status: u16,
    content_type: &str,
    extra: &[(&str, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        _ => "Error",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

fn serve(stream: TcpStream, shared: &Shared, stop: &AtomicBool) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let req = read_request(&stream)?;
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let route = req.path.split('?').next().unwrap_or("").to_string();
    let kind = match (req.method.as_str(), route.as_str()) {
        ("POST", "/v1/messages") => Some(Protocol::Anthropic),
        ("POST", "/v1/responses") => Some(Protocol::Responses),
        ("POST", "/v1/chat/completions") | ("POST", "/chat/completions") => Some(Protocol::Chat),
        _ => None,
    };
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    let record = |main: bool, status: u16| {
        shared.seen.lock().expect("seen").push(Seen {
            path: req.path.clone(),
            model: model.clone(),
            main,
            status,
            tool_output: kind.and_then(|k| k.last_tool_output(&body)),
        });
    };
    let Some(kind) = kind else {
        if route == "/v1/messages/count_tokens" {
            record(false, 200);
            return respond(
                &stream,
                200,
                "application/json",
                &[],
                br#"{"input_tokens":10}"#,
            );
        }
        record(false, 404);
        return respond(&stream, 404, "application/json", &[], b"{}");
    };
    let main = kind.is_main(&body);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    if let Some(until) = shared.script.limit_until.filter(|u| main && now < *u) {
        record(true, 429);
        let (extra, body) = match kind {
            Protocol::Anthropic => (
                vec![
                    ("anthropic-ratelimit-unified-status", "rejected".to_string()),
                    ("anthropic-ratelimit-unified-reset", until.to_string()),
                    (
                        "anthropic-ratelimit-unified-representative-claim",
                        "five_hour".to_string(),
                    ),
                    ("x-should-retry", "false".to_string()),
                ],
                json!({"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed your account's rate limit. Please try again later."}}),
            ),
            Protocol::Responses | Protocol::Chat => (
                Vec::new(),
                json!({"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "plus", "resets_at": until, "resets_in_seconds": until - now}}),
            ),
        };
        return respond(
            &stream,
            429,
            "application/json",
            &extra,
            body.to_string().as_bytes(),
        );
    }
    if main {
        let n = shared.failures_used.fetch_add(1, Ordering::SeqCst);
        if let Some(f) = shared.script.failures.get(n) {
            record(true, f.status);
            let mut extra = Vec::new();
            if let Some(s) = f.retry_after {
                extra.push(("retry-after", s.to_string()));
            }
            return respond(
                &stream,
                f.status,
                "application/json",
                &extra,
                kind.error_body(f).to_string().as_bytes(),
            );
        }
    }
    record(main, 200);
    let raw = String::from_utf8_lossy(&req.body);
    let (unit, sprint) = trailer_target(&raw);
    let fill = |s: &str| s.replace("{unit}", &unit).replace("{sprint}", &sprint);
    let script = &shared.script;
    let stream_wanted = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    // The first request of a conversation; aider's requests carry example
    // exchanges and each asks for all the edits at once.
    let opening = matches!(kind, Protocol::Chat) || kind.step(&body) == 0;
    if main && !script.reply_delay.is_zero() && opening {
        let until = Instant::now() + script.reply_delay;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    match kind {
        Protocol::Anthropic => {
            let reply = if !main {
                Reply::Text("ok".into())
            } else {
                match script.commands.get(kind.step(&body)) {
                    Some(c) => Reply::Command(fill(c)),
                    None => Reply::Text(script.final_text.clone()),
                }
            };
            let step = kind.step(&body);
            if stream_wanted {
                respond(
                    &stream,
                    200,
                    "text/event-stream",
                    &[],
                    anthropic_sse(&reply, model.as_deref(), step).as_bytes(),
                )
            } else {
                respond(
                    &stream,
                    200,
                    "application/json",
                    &[],
                    anthropic_json(&reply, model.as_deref(), step)
                        .to_string()
                        .as_bytes(),
                )
            }
        }
        Protocol::Responses => {
            let step = kind.step(&body);
            let reply = match script.commands.get(step) {
                Some(c) => Reply::Command(fill(c)),
                None => Reply::Text(script.final_text.clone()),
            };
            respond(
                &stream,
                200,
                "text/event-stream",
                &[],
                responses_sse(&reply, &body, step).as_bytes(),
            )
        }
        Protocol::Chat => {
            let text = if main {
                let mut t = String::new();
                for (path, content) in &script.edits {
                    t.push_str(&format!(
                        "{}\n```\n<<<<<<< SEARCH\n=======\n{}\n>>>>>>> REPLACE\n```\n\n",
                        fill(path),
                        fill(content).trim_end()
                    ));
                }
                t.push_str(&script.final_text);
                t
            } else {
                format!("{unit}: sprint {sprint}")
            };
            if stream_wanted {
                respond(
                    &stream,
                    200,
                    "text/event-stream",
                    &[],
                    chat_sse(&text, model.as_deref()).as_bytes(),
                )
            } else {
                respond(
                    &stream,
                    200,
                    "application/json",
                    &[],
                    chat_json(&text, model.as_deref()).to_string().as_bytes(),
                )
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Protocol {
    Anthropic,
    Responses,
    Chat,
}

enum Reply {
    Command(String),
    Text(String),
}

impl Protocol {
    /// Whether this is the agent's own conversation (not a title, a quota
    /// probe or a commit message).
    fn is_main(self, body: &Value) -> bool {
        match self {
            Protocol::Anthropic => body
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|t| !t.is_empty()),
            Protocol::Responses => true,
            Protocol::Chat => {
                let first = body
                    .pointer("/messages/0/content")
                    .map(|c| c.to_string())
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                !first.contains("commit message")
            }
        }
    }

    /// The text of the last tool result in the conversation.
    fn last_tool_output(self, body: &Value) -> Option<String> {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        };
        match self {
            Protocol::Anthropic => body
                .get("messages")?
                .as_array()?
                .iter()
                .filter_map(|m| m.get("content").and_then(Value::as_array))
                .flatten()
                .rfind(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .and_then(|b| b.get("content"))
                .map(text),
            Protocol::Responses => body
                .get("input")?
                .as_array()?
                .iter()
                .rfind(|i| {
                    i.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.ends_with("call_output"))
                })
                .and_then(|i| i.get("output"))
                .map(text),
            Protocol::Chat => None,
        }
    }

    /// Tool results since the conversation's latest prompt (a user
    /// message carrying the sprint's `Supervisor-Sprint:` trailer): which
    /// scripted step is next. A resumed conversation (a continuation)
    /// starts the script again with its new prompt, as a model given new
    /// instructions would; other user messages a CLI adds between turns
    /// (reminders, context) do not.
    fn step(self, body: &Value) -> usize {
        let prompt = |m: &Value| {
            m.get("role").and_then(Value::as_str) == Some("user")
                && m.get("content").is_some_and(|c| match c {
                    Value::String(s) => s.contains(PROMPT_MARK),
                    Value::Array(parts) => {
                        parts.iter().all(|p| {
                            !p.get("type")
                                .and_then(Value::as_str)
                                .is_some_and(|t| t.contains("tool_result"))
                        }) && parts.iter().any(|p| {
                            p.get("text")
                                .and_then(Value::as_str)
                                .is_some_and(|t| t.contains(PROMPT_MARK))
                        })
                    }
                    _ => false,
                })
        };
        match self {
            Protocol::Anthropic => body
                .get("messages")
                .and_then(Value::as_array)
                .map(|ms| {
                    ms.iter().fold(0, |n, m| {
                        if prompt(m) {
                            return 0;
                        }
                        let results = m
                            .get("content")
                            .and_then(Value::as_array)
                            .map(|c| {
                                c.iter()
                                    .filter(|b| {
                                        b.get("type").and_then(Value::as_str) == Some("tool_result")
                                    })
                                    .count()
                            })
                            .unwrap_or(0);
                        n + results
                    })
                })
                .unwrap_or(0),
            Protocol::Responses => body
                .get("input")
                .and_then(Value::as_array)
                .map(|items| {
                    items.iter().fold(0, |n, i| {
                        let kind = i.get("type").and_then(Value::as_str).unwrap_or("");
                        if kind.ends_with("call_output") {
                            n + 1
                        } else if prompt(i) {
                            0
                        } else {
                            n
                        }
                    })
                })
                .unwrap_or(0),
            Protocol::Chat => body
                .get("messages")
                .and_then(Value::as_array)
                .map(|ms| {
                    ms.iter()
                        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                        .count()
                })
                .unwrap_or(0),
        }
    }

    fn error_body(self, f: &Failure) -> Value {
        match self {
            Protocol::Anthropic => {
                let kind = match f.status {
                    429 => "rate_limit_error",
                    529 => "overloaded_error",
                    _ => "invalid_request_error",
                };
                json!({"type": "error", "error": {"type": kind, "message": f.message}})
            }
            Protocol::Responses | Protocol::Chat => {
                let code = if f.status == 429 {
                    "rate_limit_exceeded"
                } else {
                    "invalid_request_error"
                };
                json!({"error": {"message": f.message, "type": code, "code": code, "param": null}})
            }
        }
    }
}

/// What every sprint prompt carries (the trailer it asks commits for).
const PROMPT_MARK: &str = "Supervisor-Sprint: ";

/// `(unit, sprint)` from the first `Supervisor-Sprint: <unit>/<sprint>` in
/// the request.
fn trailer_target(raw: &str) -> (String, String) {
    let Some(at) = raw.find(PROMPT_MARK) else {
        return ("unit".into(), "0".into());
    };
    let rest = &raw[at + PROMPT_MARK.len()..];
    let token: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        .collect();
    match token.split_once('/') {
        Some((u, s)) => (u.to_string(), s.to_string()),
        None => (token, "0".into()),
    }
}

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn anthropic_usage() -> Value {
    json!({"input_tokens": 1200, "output_tokens": 80, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn anthropic_sse(reply: &Reply, model: Option<&str>, step: usize) -> String {
    let (block, delta, stop) = match reply {
        Reply::Command(c) => (
            json!({"type": "tool_use", "id": format!("toolu_stub_{step}"), "name": "Bash", "input": {}}),
            json!({"type": "input_json_delta", "partial_json": json!({"command": c, "description": "run the sprint's step", "timeout": 600000}).to_string()}),
            "tool_use",
        ),
        Reply::Text(t) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": t}),
            "end_turn",
        ),
    };
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": format!("msg_stub_{step}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": anthropic_usage()}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 80}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

fn anthropic_json(reply: &Reply, model: Option<&str>, step: usize) -> Value {
    let text = match reply {
        Reply::Command(_) => "ok".to_string(),
        Reply::Text(t) => t.clone(),
    };
    json!({"id": format!("msg_stub_{step}"), "type": "message", "role": "assistant", "model": model,
           "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null,
           "usage": anthropic_usage()})
}

/// Codex: current models have no top-level tools and call
/// `tools.exec_command` from JavaScript run by the code-mode `exec` tool;
/// the script waits for a long command through `write_stdin` polls, as a
/// model does. Older models get a plain `exec_command` function call.
fn responses_sse(reply: &Reply, body: &Value, step: usize) -> String {
    let code_mode = !body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| {
            t.iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some("exec_command"))
        });
    let call_id = format!("call_stub_{step}");
    let item = match reply {
        Reply::Command(c) if code_mode => {
            let js = format!(
                "// @exec: {{\"yield_time_ms\": 900000}}\n\
                 let r = await tools.exec_command({{cmd: {cmd}, yield_time_ms: 30000}});\n\
                 while (r.exit_code === undefined || r.exit_code === null) {{\n\
                 \x20 r = await tools.write_stdin({{session_id: r.session_id, chars: \"\", yield_time_ms: 300000}});\n\
                 }}\n\
                 text(JSON.stringify(r));\n",
                cmd = Value::String(c.clone())
            );
            json!({"type": "custom_tool_call", "call_id": call_id, "namespace": "functions", "name": "exec", "input": js})
        }
        Reply::Command(c) => {
            json!({"type": "function_call", "call_id": call_id, "name": "exec_command", "arguments": json!({"cmd": c, "yield_time_ms": 30000}).to_string()})
        }
        Reply::Text(t) => {
            json!({"type": "message", "role": "assistant", "id": format!("msg_stub_{step}"), "content": [{"type": "output_text", "text": t}]})
        }
    };
    let id = format!("resp_stub_{step}");
    sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": id}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": 1200, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 80, "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 1280}}}),
        ),
    ])
}

fn chat_usage() -> Value {
    json!({"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280})
}

fn chat_sse(text: &str, model: Option<&str>) -> String {
    let chunk = |delta: Value, finish: Value, usage: Option<Value>| {
        let mut v = json!({"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 1_767_225_600,
               "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        if let Some(u) = usage {
            v["usage"] = u;
        }
        format!("data: {v}\n\n")
    };
    let mut out = chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
        None,
    );
    out.push_str(&chunk(json!({"content": text}), Value::Null, None));
    out.push_str(&chunk(json!({}), json!("stop"), Some(chat_usage())));
    out.push_str("data: [DONE]\n\n");
    out
}

fn chat_json(text: &str, model: Option<&str>) -> Value {
    json!({"id": "chatcmpl-stub", "object": "chat.completion", "created": 1_767_225_600, "model": model,
           "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
           "usage": chat_usage()})
}
