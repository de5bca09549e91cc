//! `git supervisor killall`: emergency stop (spec §Q): every agent
//! terminated at once, each unit assessed, uncommitted work recorded but
//! neither committed nor discarded.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::control::render_report;
use crate::engine::Engine;

#[derive(Debug, Args)]
pub struct KillallArgs {}

pub fn cmd_killall(ctx: &Context, _args: &KillallArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let before = engine.store.tip()?.map(|t| t.id);
    let (state, ended) = engine.killall()?;
    if ended.terminated == 0 && engine.store.tip()?.map(|t| t.id) == before && state.is_finished() {
        writeln!(
            out,
            "Nothing to kill: no agent is running and the run {} is {}; its state is unchanged.",
            state.operation,
            state.overall().as_str()
        )
        .into_diagnostic()?;
        return Ok(super::EXIT_OK);
    }
    let worktrees = engine.run_workspaces(&state);
    write!(
        out,
        "{}",
        render_report("Kill All Complete", &state, &ended, worktrees.as_ref())
    )
    .into_diagnostic()?;
    Ok(super::EXIT_OK)
}
