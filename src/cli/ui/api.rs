//! What each route of `ui` answers, as the commands answer it: reads are
//! the JSON of `status`, `log` and `report` (captured from the commands
//! themselves), the agent's files from the runtime directory; actions run
//! `stop`, `killall`, `resume`, `confirm` and `land` and hand back what
//! they printed.

use std::path::PathBuf;

use axum::http::header;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;
use serde_json::Value;

use crate::cli::Context;
use crate::cli::Format;
use crate::store::Store;

/// A route's answer: a status and a JSON (or other) body.
pub struct Reply {
    code: StatusCode,
    content_type: &'static str,
    body: String,
}

impl Reply {
    pub(super) fn json(v: &Value) -> Reply {
        Reply {
            code: StatusCode::OK,
            content_type: "application/json",
            body: v.to_string(),
        }
    }

    fn raw_json(body: String) -> Reply {
        Reply {
            code: StatusCode::OK,
            content_type: "application/json",
            body,
        }
    }

    pub(super) fn error(code: StatusCode, e: &miette::Report) -> Reply {
        let mut message = e.to_string();
        if let Some(help) = e.help() {
            message.push_str(&format!(" ({help})"));
        }
        Reply {
            code,
            content_type: "application/json",
            body: json!({ "error": message }).to_string(),
        }
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        (
            self.code,
            [(header::CONTENT_TYPE, self.content_type)],
            self.body,
        )
            .into_response()
    }
}

/// A command's stdout and exit code, run in this process.
fn capture(
    f: impl FnOnce(&mut dyn std::io::Write) -> miette::Result<u8>,
) -> Result<(String, u8), miette::Report> {
    let mut out = Vec::new();
    let code = f(&mut out)?;
    Ok((String::from_utf8_lossy(&out).into_owned(), code))
}

fn read_json(
    f: impl FnOnce(&mut dyn std::io::Write) -> miette::Result<u8>,
) -> Result<Value, Reply> {
    let (text, _) = capture(f).map_err(|e| Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e))?;
    serde_json::from_str(&text).map_err(|e| {
        Reply::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &miette::miette!("unreadable output: {e}"),
        )
    })
}

/// `status --format json`, byte for byte.
pub fn status(ctx: &Context) -> Reply {
    let args = crate::cli::status::StatusArgs {
        format: crate::cli::status::StatusFormat::Json,
        diff: false,
        watch: false,
    };
    match capture(|out| crate::cli::status::cmd_status(ctx, &args, out)) {
        Ok((text, _)) => Reply::raw_json(text),
        Err(e) => Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e),
    }
}

/// The published state itself (every sprint of every unit, which `status`
/// sums up), its commit, where the run lives, and the server's clock for
/// the page's running-agent clocks.
pub fn state(ctx: &Context) -> Reply {
    let store = match Store::open(&ctx.cwd) {
        Ok(s) => s,
        Err(e) => return Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into()),
    };
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let lives_on = crate::store::remote::recorded(&store.runtime_dir());
    match store.tip() {
        Ok(Some(t)) => Reply::json(&json!({
            "tip": t.id.to_string(),
            "driven": driven(&store, &t),
            "state": t.state,
            "lives_on": lives_on,
            "now": now,
        })),
        Ok(None) => Reply::json(&json!({ "tip": null, "state": null, "now": now })),
        Err(e) => Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into()),
    }
}

/// Who moves the run besides this clone: the workers that hold its
/// sprints, the other clones whose agents run them, and whether the tip
/// itself arrived from elsewhere (by `sync` or a fetch of the remote the
/// run lives on), with the remote whose state it is.
fn driven(store: &Store, tip: &crate::store::Tip) -> Value {
    let here = crate::engine::clone_id(&store.runtime_dir());
    let mut workers = std::collections::BTreeSet::new();
    let mut clones = std::collections::BTreeSet::new();
    for a in tip
        .state
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter_map(|s| s.agent.as_ref())
    {
        if let Some(w) = &a.worker {
            workers.insert(w.clone());
        } else if let Some(h) = a.host.as_ref().filter(|h| **h != here) {
            clones.insert(h.clone());
        }
    }
    let arrival = store.tip_arrival();
    let from = store.workdir().map_or_else(Vec::new, |dir| {
        crate::store::sync::synced_remotes(dir)
            .into_iter()
            .filter(|r| {
                store
                    .ref_id(&format!("refs/remotes/{r}/supervisor/state"))
                    .ok()
                    .flatten()
                    == Some(tip.id)
            })
            .collect()
    });
    let elsewhere = arrival.is_some_and(|(here, _)| !here);
    json!({
        "workers": workers,
        "clones": clones,
        "tip_from_elsewhere": elsewhere,
        "tip_arrived": arrival.map(|(_, at)| at),
        "tip_remotes": from,
    })
}

#[derive(Debug, Deserialize)]
pub struct LogQuery {
    pub unit: Option<String>,
    pub sprint: Option<String>,
    pub n: Option<usize>,
}

fn log_entries(ctx: &Context, q: &LogQuery) -> Result<Value, Reply> {
    let args = crate::cli::log::LogArgs {
        unit: q.unit.clone().filter(|u| !u.is_empty()),
        sprint: q.sprint.clone().filter(|s| !s.is_empty()),
        since: None,
        oneline: false,
        no_pager: true,
        max_count: q.n,
        format: Format::Json,
    };
    read_json(|out| crate::cli::log::cmd_log(ctx, &args, out))
}

/// `log --format json` with the page's filters.
pub fn log(ctx: &Context, q: &LogQuery) -> Reply {
    match log_entries(ctx, q) {
        Ok(v) => Reply::json(&v),
        Err(r) => r,
    }
}

#[derive(Debug, Deserialize)]
pub struct SprintQuery {
    pub unit: String,
    pub sprint: String,
    /// Which dispatch of the sprint (1-based); the latest when absent.
    pub n: Option<u32>,
}

fn report_json(ctx: &Context) -> Result<(Value, crate::report::complete::Report), Reply> {
    let (report, _) = crate::cli::report::load(ctx)
        .map_err(|e| Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e))?;
    let v = serde_json::to_value(&report)
        .map_err(|e| Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &miette::miette!("{e}")))?;
    Ok((v, report))
}

fn of_sprint(v: &Value, key: &str, q: &SprintQuery) -> Vec<Value> {
    v[key]
        .as_array()
        .map(|list| {
            list.iter()
                .filter(|e| e["unit"] == q.unit.as_str() && e["sprint"] == q.sprint.as_str())
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// One sprint's page: its state, what `report --format json` says of it
/// (criteria and how each was judged, commits, attempts), its transitions
/// with their reasons, and per dispatch the prompt, the agent's result and
/// whether an output log exists.
pub fn sprint(ctx: &Context, q: &SprintQuery) -> Reply {
    let store = match Store::open(&ctx.cwd) {
        Ok(s) => s,
        Err(e) => return Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into()),
    };
    let tip = match store.tip() {
        Ok(Some(t)) => t,
        Ok(None) => return Reply::json(&json!({ "error": "no run in this repository" })),
        Err(e) => return Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into()),
    };
    let Some(sp) = tip
        .state
        .units
        .iter()
        .find(|u| u.name == q.unit)
        .and_then(|u| u.sprints.iter().find(|s| s.id.to_string() == q.sprint))
    else {
        return Reply::error(
            StatusCode::NOT_FOUND,
            &miette::miette!("no sprint {} in unit {}", q.sprint, q.unit),
        );
    };
    let (report, _) = match report_json(ctx) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let transitions = match log_entries(
        ctx,
        &LogQuery {
            unit: Some(q.unit.clone()),
            sprint: Some(q.sprint.clone()),
            n: None,
        },
    ) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let runtime = store.runtime_dir();
    let read = |dir: &str, stem: &str, ext: &str| {
        std::fs::read_to_string(runtime.join(dir).join(format!("{stem}.{ext}"))).ok()
    };
    let dispatches: Vec<Value> = (1..=sp.dispatches)
        .map(|n| {
            let stem = crate::base::runtime_name::stem(&q.unit, &q.sprint, n);
            json!({
                "n": n,
                "prompt": read(crate::base::runtime::PROMPTS, &stem, "md"),
                "result": read(crate::base::runtime::AGENTS, &stem, "result"),
                "report": read(crate::base::runtime::AGENTS, &stem, "report.toml"),
                "has_log": runtime.join(crate::base::runtime::AGENTS).join(format!("{stem}.log")).exists(),
            })
        })
        .collect();
    let verdicts = verdicts(&store, &transitions);
    Reply::json(&json!({
        "unit": q.unit,
        "sprint": sp,
        "verdicts": verdicts,
        "summary": of_sprint(&report, "sprints", q).into_iter().next(),
        "attempts": of_sprint(&report, "attempts", q),
        "transitions": transitions,
        "dispatches": dispatches,
    }))
}

/// Each verdict among a sprint's transitions (newest first), oldest first:
/// its attempt, outcome, evidence and the exit-criterion commands it ran
/// with their output, as the verdict's commit recorded them.
fn verdicts(store: &Store, transitions: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = transitions
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["event"] == "verdict")
        .filter_map(|e| {
            let id = gix::ObjectId::from_hex(e["commit"].as_str()?.as_bytes()).ok()?;
            let recorded = store.event_at(id).ok()??;
            let Some(crate::machine::EventKind::Verdict {
                outcome,
                evidence,
                checks,
                ..
            }) = recorded.kind
            else {
                return None;
            };
            Some(json!({
                "commit": e["commit"],
                "attempt": e["attempt"],
                "to": e["to"],
                "outcome": outcome,
                "evidence": evidence,
                "checks": checks,
            }))
        })
        .collect();
    out.reverse();
    out
}

/// The output log of one dispatch of a sprint.
pub fn agent_log_path(ctx: &Context, q: &SprintQuery) -> Result<PathBuf, Reply> {
    let store = Store::open(&ctx.cwd)
        .map_err(|e| Reply::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into()))?;
    let n = match q.n {
        Some(n) => n,
        None => store
            .tip()
            .ok()
            .flatten()
            .and_then(|t| {
                t.state
                    .units
                    .iter()
                    .find(|u| u.name == q.unit)?
                    .sprints
                    .iter()
                    .find(|s| s.id.to_string() == q.sprint)
                    .map(|s| s.dispatches)
            })
            .unwrap_or(1)
            .max(1),
    };
    let stem = crate::base::runtime_name::stem(&q.unit, &q.sprint, n);
    Ok(store
        .runtime_dir()
        .join(crate::base::runtime::AGENTS)
        .join(format!("{stem}.log")))
}

/// The timeline picture `report --svg` draws.
pub fn timeline(ctx: &Context) -> Reply {
    match report_json(ctx) {
        Ok((_, report)) => Reply {
            code: StatusCode::OK,
            content_type: "image/svg+xml",
            body: crate::report::timeline::svg(&report),
        },
        Err(r) => r,
    }
}

#[derive(Debug, Deserialize)]
pub struct ActionQuery {
    pub unit: Option<String>,
    pub sprint: Option<String>,
    #[serde(default)]
    pub merge: bool,
}

/// Run the command an action names, exactly as typed at the prompt would.
pub fn action(ctx: &Context, name: &str, q: &ActionQuery) -> Reply {
    use crate::cli;
    let ran = match name {
        "stop" => {
            capture(|out| cli::stop::cmd_stop(ctx, &cli::stop::StopArgs { timeout: None }, out))
        }
        "killall" => {
            capture(|out| cli::killall::cmd_killall(ctx, &cli::killall::KillallArgs {}, out))
        }
        "resume" => capture(|out| {
            cli::resume::cmd_resume(ctx, &cli::resume::ResumeArgs { wait: false }, out)
        }),
        "land" => capture(|out| {
            cli::land::cmd_land(
                ctx,
                &cli::land::LandArgs {
                    merge: q.merge,
                    format: Format::Text,
                },
                out,
            )
        }),
        "confirm" => {
            let (Some(unit), Some(sprint)) = (&q.unit, &q.sprint) else {
                return Reply::error(
                    StatusCode::BAD_REQUEST,
                    &miette::miette!("confirm needs a unit and a sprint"),
                );
            };
            let sprint = match sprint.parse() {
                Ok(s) => s,
                Err(_) => {
                    return Reply::error(
                        StatusCode::BAD_REQUEST,
                        &miette::miette!("`{sprint}` is not a sprint id"),
                    )
                }
            };
            let args = cli::confirm::ConfirmArgs {
                unit: unit.clone(),
                sprint,
            };
            capture(|out| cli::confirm::cmd_confirm(ctx, &args, out))
        }
        other => {
            return Reply::error(
                StatusCode::NOT_FOUND,
                &miette::miette!("no action `{other}`: stop, killall, resume, confirm or land"),
            )
        }
    };
    match ran {
        Ok((output, code)) => Reply::json(&json!({ "exit": code, "output": output })),
        Err(e) => Reply::error(StatusCode::CONFLICT, &e),
    }
}
