//! `git supervisor stop`: graceful shutdown with escalation (spec §P).
//! Returns when the run is stopped.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::control::render_report;
use crate::engine::Engine;

#[derive(Debug, Args)]
pub struct StopArgs {}

pub fn cmd_stop(ctx: &Context, _args: &StopArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let (state, ended) = engine.stop(|line| eprintln!("{line}"))?;
    let root = engine.project_root(&state);
    write!(
        out,
        "{}",
        render_report("Stop Complete", &state, &ended, &root)
    )
    .into_diagnostic()?;
    Ok(super::EXIT_OK)
}
