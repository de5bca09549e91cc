//! `git supervisor stop`: graceful shutdown with escalation (spec §P).
//! Returns when the run is stopped.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::control::render_report;
use crate::engine::Engine;

#[derive(Debug, Args)]
pub struct StopArgs {
    /// Wait at most this long ("30s", "2m") for running agents to finish
    /// before they are terminated (default: until ten poll intervals pass
    /// with none finishing)
    #[arg(long, value_name = "DURATION", value_parser = crate::config::parse_duration)]
    pub timeout: Option<std::time::Duration>,
}

pub fn cmd_stop(ctx: &Context, args: &StopArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let (state, ended) = engine.stop(args.timeout, |line| eprintln!("{line}"))?;
    let worktrees = engine.run_workspaces(&state);
    write!(
        out,
        "{}",
        render_report("Stop Complete", &state, &ended, worktrees.as_ref())
    )
    .into_diagnostic()?;
    Ok(super::EXIT_OK)
}
