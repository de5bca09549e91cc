//! The HTTP side of `ui`: axum on a small tokio runtime, the token every
//! request must carry, the routes, and the two live streams (server-sent
//! events): the state ref's tip as it moves, and an agent's output log as it
//! grows.

use std::convert::Infallible;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Query;
use axum::extract::Request;
use axum::extract::State;
use axum::http::header;
use axum::http::HeaderMap;
use axum::http::HeaderValue;
use axum::http::Method;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::sse::Event;
use axum::response::sse::KeepAlive;
use axum::response::sse::Sse;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use axum::routing::post;
use axum::Router;
use futures_util::Stream;
use miette::IntoDiagnostic;

use super::api;
use super::commit::CommitQuery;
use crate::cli::Context;

/// How often the state ref is looked at: well within the page's one-second
/// promise, and a look is a stat of two files.
const TIP_POLL: Duration = Duration::from_millis(200);
/// How often an agent's log is looked at for new output.
const LOG_POLL: Duration = Duration::from_millis(200);
/// A log already long when the page opens is shown from its last this many
/// bytes.
const LOG_TAIL: u64 = 64 * 1024;
/// The header an action's POST carries the token in.
pub const TOKEN_HEADER: &str = "x-supervisor-token";

const INDEX: &str = include_str!("assets/index.html");
const STYLE: &str = include_str!("assets/app.css");
const SCRIPT: &str = include_str!("assets/app.js");

struct App {
    ctx: Context,
    token: String,
    tip: tokio::sync::watch::Receiver<String>,
}

type Shared = Arc<App>;

pub fn serve(listener: std::net::TcpListener, ctx: Context, token: String) -> miette::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .into_diagnostic()?;
    let (tx, rx) = tokio::sync::watch::channel(String::new());
    let cwd = ctx.cwd.clone();
    std::thread::spawn(move || watch_tip(&cwd, &tx));
    let app = Arc::new(App {
        ctx,
        token,
        tip: rx,
    });
    let router = Router::new()
        .route("/", get(page))
        .route("/api/status", get(status))
        .route("/api/state", get(state))
        .route("/api/log", get(log))
        .route("/api/sprint", get(sprint))
        .route("/api/commit", get(commit))
        .route("/api/timeline.svg", get(timeline))
        .route("/api/events", get(events))
        .route("/api/agent-log", get(agent_log))
        .route("/api/action/{name}", post(action))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            require_token,
        ))
        .with_state(app);
    runtime.block_on(async move {
        listener.set_nonblocking(true).into_diagnostic()?;
        let listener = tokio::net::TcpListener::from_std(listener).into_diagnostic()?;
        axum::serve(listener, router).await.into_diagnostic()
    })
}

/// What changes whenever the state ref moves, without reading it: the loose
/// ref's content and the packed refs' and reftable's modification times.
fn ref_fingerprint(common: &Path) -> String {
    let loose = std::fs::read_to_string(common.join("refs/supervisor/state")).unwrap_or_default();
    let stamp = |p: PathBuf| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .map(|t| format!("{t:?}"))
            .unwrap_or_default()
    };
    format!(
        "{loose}|{}|{}",
        stamp(common.join("packed-refs")),
        stamp(common.join("reftable"))
    )
}

/// Publish the state ref's tip whenever it moves. A run that lives on a
/// remote is fetched every few seconds, so the page follows its workers.
fn watch_tip(cwd: &Path, tx: &tokio::sync::watch::Sender<String>) {
    let mut fingerprint = String::new();
    let mut polls: u32 = 0;
    loop {
        if let Ok(store) = crate::store::Store::open(cwd) {
            let runtime = store.runtime_dir();
            let common = runtime.parent().map(Path::to_path_buf).unwrap_or_default();
            let remote = crate::store::remote::recorded(&runtime);
            if let (Some(r), Some(dir)) = (&remote, store.workdir()) {
                if polls.is_multiple_of(15) {
                    let _ = crate::store::remote::Remote::new(dir, &runtime, r).fetch();
                }
            }
            let now = ref_fingerprint(&common);
            // Every five seconds the tip is read anyway, in case a ref
            // backend changed it without touching these files.
            if now != fingerprint || polls.is_multiple_of(25) {
                fingerprint = now;
                let tip = match store.tip() {
                    Ok(Some(t)) => t.id.to_string(),
                    Ok(None) => "none".to_string(),
                    Err(_) => String::new(),
                };
                if !tip.is_empty() {
                    tx.send_if_modified(|old| {
                        let moved = *old != tip;
                        if moved {
                            old.clone_from(&tip);
                        }
                        moved
                    });
                }
            }
        }
        polls = polls.wrapping_add(1);
        std::thread::sleep(TIP_POLL);
    }
}

fn token_in_query(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// Equal without an early exit, so the comparison's time says nothing
/// about how much of a guess was right.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Every request carries the token: reads in the header or the query (the
/// page's address, `EventSource`), actions in the header only, so no link
/// or form elsewhere can fire one.
async fn require_token(State(app): State<Shared>, req: Request, next: Next) -> Response {
    let header = req
        .headers()
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok());
    let query = (req.method() == Method::GET)
        .then(|| token_in_query(req.uri().query()))
        .flatten();
    let given = header.or(query).unwrap_or_default();
    if !same(given, &app.token) {
        return (
            StatusCode::FORBIDDEN,
            "403: this page needs the token `git supervisor ui` printed with its address\n",
        )
            .into_response();
    }
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // The token is in the page's address: never hand it to another site.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

async fn page() -> Response {
    let html = INDEX
        .replace("/*STYLE*/", STYLE)
        .replace("/*SCRIPT*/", SCRIPT);
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
        ),
    );
    (headers, html).into_response()
}

/// Run a blocking read or action off the async thread.
async fn blocking(
    app: &Shared,
    f: impl FnOnce(&Context) -> api::Reply + Send + 'static,
) -> Response {
    let ctx = app.ctx.clone();
    match tokio::task::spawn_blocking(move || f(&ctx)).await {
        Ok(reply) => reply.into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn status(State(app): State<Shared>) -> Response {
    blocking(&app, api::status).await
}

async fn state(State(app): State<Shared>) -> Response {
    blocking(&app, api::state).await
}

async fn log(State(app): State<Shared>, Query(q): Query<api::LogQuery>) -> Response {
    blocking(&app, move |ctx| api::log(ctx, &q)).await
}

async fn sprint(State(app): State<Shared>, Query(q): Query<api::SprintQuery>) -> Response {
    blocking(&app, move |ctx| api::sprint(ctx, &q)).await
}

async fn commit(State(app): State<Shared>, Query(q): Query<CommitQuery>) -> Response {
    blocking(&app, move |ctx| super::commit::commit(ctx, &q)).await
}

async fn timeline(State(app): State<Shared>) -> Response {
    blocking(&app, api::timeline).await
}

async fn action(
    State(app): State<Shared>,
    axum::extract::Path(name): axum::extract::Path<String>,
    Query(q): Query<api::ActionQuery>,
) -> Response {
    blocking(&app, move |ctx| api::action(ctx, &name, &q)).await
}

/// `state` with the tip's id at once and again each time it moves.
async fn events(State(app): State<Shared>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = app.tip.clone();
    let stream = futures_util::stream::unfold((rx, true), |(mut rx, first)| async move {
        if !first && rx.changed().await.is_err() {
            return None;
        }
        let tip = rx.borrow_and_update().clone();
        Some((Ok(Event::default().event("state").data(tip)), (rx, false)))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// An agent's output log: its last part at once, then each new piece as
/// the agent writes it.
async fn agent_log(State(app): State<Shared>, Query(q): Query<api::SprintQuery>) -> Response {
    let ctx = app.ctx.clone();
    let path = match tokio::task::spawn_blocking(move || api::agent_log_path(&ctx, &q)).await {
        Ok(Ok(p)) => p,
        Ok(Err(reply)) => return reply.into_response(),
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    };
    let start = std::fs::metadata(&path)
        .map(|m| m.len().saturating_sub(LOG_TAIL))
        .unwrap_or(0);
    let stream = futures_util::stream::unfold((path, start), |(path, mut offset)| async move {
        loop {
            let piece = read_from(&path, &mut offset);
            if !piece.is_empty() {
                let event = Event::default().event("log").data(piece);
                return Some((Ok::<_, Infallible>(event), (path, offset)));
            }
            tokio::time::sleep(LOG_POLL).await;
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// The complete lines written after `offset` (a line still being written
/// waits for its end), moving `offset` past them.
fn read_from(path: &Path, offset: &mut u64) -> String {
    use std::io::Read;
    use std::io::Seek;
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len < *offset {
        // Truncated or replaced: start over.
        *offset = 0;
    }
    if len == *offset || file.seek(std::io::SeekFrom::Start(*offset)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file
        .take((len - *offset).min(1 << 20))
        .read_to_end(&mut bytes)
        .is_err()
    {
        return String::new();
    }
    let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
        return String::new();
    };
    bytes.truncate(end);
    *offset += end as u64 + 1;
    String::from_utf8_lossy(&bytes).into_owned()
}
