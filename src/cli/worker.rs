//! `git supervisor worker [--remote R] [--agents N] [--once]`: claim and
//! run a remote run's sprints on this machine (see `engine::worker`).
//! It ends with a summary (one JSON line with `--format json`, for a CI
//! log) and exits 0 when the run completed or, with `--once`, when nothing
//! was left for it; 3 when the run ended otherwise or the worker was asked
//! to leave (SIGTERM, SIGINT) with its sprints handed back.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use crate::engine::worker::WorkerOptions;
use crate::engine::Engine;

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The git remote the run lives on (default: the one this clone's run
    /// was started on, else `origin`)
    #[arg(long, value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Agents to run at once
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub agents: u16,
    /// Leave once nothing is left to claim, instead of staying until the
    /// run is finished (one CI job, one round of work)
    #[arg(long)]
    pub once: bool,
    /// Time between looks at the remote
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    pub poll: Duration,
    /// The longest time between looks of a worker with nothing new to do:
    /// the poll doubles each quiet round up to it, and comes back to
    /// `--poll` when the worker claims or finishes a sprint
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub poll_max: Duration,
    /// Take the remote's refs/supervisor/state although it moved back to a
    /// commit that drops transitions this clone saw (the dropped history
    /// is kept under refs/supervisor/archive/); without it the worker stops
    #[arg(long)]
    pub accept_rewind: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_worker(ctx: &Context, args: &WorkerArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = crate::store::Store::open(&ctx.cwd)?;
    let runtime = store.runtime_dir();
    let remote = args
        .remote
        .clone()
        .or_else(|| crate::store::remote::recorded(&runtime))
        .unwrap_or_else(|| "origin".into());
    let dir = store.workdir().unwrap_or(&ctx.cwd).to_path_buf();
    if !crate::store::remote::known(&dir, &remote) {
        return Err(miette::miette!(
            code = "worker::no_remote",
            help = {
                let remotes = crate::store::remote::names(&dir);
                let known = if remotes.is_empty() {
                    "this clone has none".to_string()
                } else {
                    format!("this clone's remotes: {}", remotes.join(", "))
                };
                format!("a worker needs a clone whose remote holds the run: `git remote add {remote} <url>`, or name it with --remote ({known})")
            },
            "there is no git remote named `{remote}`"
        ));
    }
    crate::store::remote::record(&runtime, Some(&remote)).into_diagnostic()?;
    let engine = Engine::open(&ctx.cwd)?;
    if args.accept_rewind {
        if let Some(r) = engine.store.remote() {
            r.accept_rewind();
        }
    }
    let options = WorkerOptions {
        agents: usize::from(args.agents),
        once: args.once,
        poll: args.poll,
        poll_max: args.poll_max,
        identity: crate::engine::worker::identity(),
    };
    let text = args.format == Format::Text;
    if text {
        writeln!(
            out,
            "Worker {} on `{remote}`, {} agent(s) at once.",
            options.identity, options.agents
        )
        .into_diagnostic()?;
        out.flush().into_diagnostic()?;
    }
    let mut say = |line: &str| {
        if text {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    };
    let summary = engine.work(&options, &mut say)?;
    match args.format {
        Format::Json => {
            // One line: what a CI log shows last.
            serde_json::to_writer(&mut *out, &summary).into_diagnostic()?;
            writeln!(out).into_diagnostic()?;
        }
        Format::Text => {
            writeln!(
                out,
                "{} run; {} won, {} lost to other workers, {} refused by the remote; {} to the remote ({} fetches, {} pushes); idle {:.0} s; {}.",
                count(summary.sprints_run as usize, "sprint", "sprints"),
                count(summary.claimed.len(), "claim", "claims"),
                summary.lost_claims,
                count(summary.refused_pushes as usize, "push", "pushes"),
                count(summary.remote_requests as usize, "request", "requests"),
                summary.fetches,
                summary.pushes,
                summary.idle_seconds,
                match (summary.finished, summary.overall.as_deref()) {
                    _ if summary.terminated => format!(
                        "asked to leave: {} handed back for another worker",
                        count(summary.handed_back.len(), "sprint", "sprints")
                    ),
                    (true, Some("completed")) => "the run is completed".to_string(),
                    (true, Some(overall)) => format!(
                        "the run is {overall}: once `git supervisor resume` continues it, start workers again"
                    ),
                    (true, None) => "the run is finished".to_string(),
                    (false, _) if summary.run.is_some() => "nothing left to claim now".to_string(),
                    (false, _) => "there is no run on the remote".to_string(),
                }
            )
            .into_diagnostic()?;
        }
    }
    let completed = summary.overall.as_deref() == Some("completed");
    Ok(match () {
        _ if summary.terminated && !completed => super::EXIT_INCOMPLETE,
        _ if summary.finished && !completed => super::EXIT_INCOMPLETE,
        _ => super::EXIT_OK,
    })
}

/// `1 claim`, `2 claims`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
