//! One commit of the run's state history for the page (`/api/commit`):
//! its message, trailers and the state files it changed with their diff,
//! read with `git` from this clone, and only for a commit a ref under
//! `refs/supervisor/` holds — the page shows the run's history, not the
//! repository's.

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::api::Reply;
use crate::cli::Context;
use crate::engine::verify::git;

/// A diff longer than this is cut (a plan snapshot can be long).
const DIFF_KEPT: usize = 256 * 1024;

#[derive(Debug, Deserialize)]
pub struct CommitQuery {
    pub id: String,
}

fn not_found(what: String) -> Reply {
    Reply::error(StatusCode::NOT_FOUND, &miette::miette!("{what}"))
}

pub fn commit(ctx: &Context, q: &CommitQuery) -> Reply {
    let id = q.id.trim();
    // Hex only: nothing that git could read as an option or a range.
    if !(4..=64).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Reply::error(
            StatusCode::BAD_REQUEST,
            &miette::miette!("`{id}` is not a commit id"),
        );
    }
    let root = &ctx.cwd;
    let Some(full) = git(
        root,
        &["rev-parse", "--verify", "-q", &format!("{id}^{{commit}}")],
    )
    .map(|s| s.trim().to_string()) else {
        return not_found(format!("no commit {id} in this repository"));
    };
    let holders = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "--contains",
            &full,
            "refs/supervisor/state",
            "refs/supervisor/runs/",
        ],
    )
    .unwrap_or_default();
    if holders.trim().is_empty() {
        return not_found(format!("{id} is not a commit of the run's state history"));
    }
    let meta = git(
        root,
        &["show", "-s", "--format=%P%n%an <%ae>%n%cI%n%B", &full],
    )
    .unwrap_or_default();
    let mut lines = meta.lines();
    let parent = lines
        .next()
        .unwrap_or_default()
        .split(' ')
        .next()
        .unwrap_or_default();
    let author = lines.next().unwrap_or_default();
    let time = lines.next().unwrap_or_default();
    let message = lines.collect::<Vec<_>>().join("\n");
    let trailers: Vec<(String, String)> = git(
        root,
        &["show", "-s", "--format=%(trailers:only,unfold)", &full],
    )
    .unwrap_or_default()
    .lines()
    .filter_map(|l| l.split_once(": "))
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let files: Vec<serde_json::Value> = git(
        root,
        &[
            "diff-tree",
            "--root",
            "-r",
            "--no-commit-id",
            "--name-status",
            &full,
        ],
    )
    .unwrap_or_default()
    .lines()
    .filter_map(|l| l.split_once('\t'))
    .map(|(status, path)| json!({ "status": status, "path": path }))
    .collect();
    let mut diff = git(
        root,
        &["diff-tree", "--root", "-r", "--no-commit-id", "-p", &full],
    )
    .unwrap_or_default();
    let cut = diff.len() > DIFF_KEPT;
    if cut {
        let mut end = DIFF_KEPT;
        while !diff.is_char_boundary(end) {
            end -= 1;
        }
        diff.truncate(end);
    }
    Reply::json(&json!({
        "commit": full,
        "parent": (!parent.is_empty()).then_some(parent),
        "author": author,
        "time": time,
        "subject": message.lines().next().unwrap_or_default(),
        "message": message,
        "trailers": trailers,
        "files": files,
        "diff": diff,
        "diff_cut": cut,
        "refs": holders.lines().collect::<Vec<_>>(),
    }))
}
