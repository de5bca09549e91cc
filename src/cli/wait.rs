//! `git supervisor wait [--timeout D]`: block until every unit is terminal
//! (COMPLETED, BLOCKED, STOPPED or KILLED), then print the status table.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::EXIT_INCOMPLETE;
use super::EXIT_OK;
use crate::engine::Engine;
use crate::machine::Overall;
use crate::report;

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// Give up after this long (e.g. "10m"); exit 3 if the run is not done
    #[arg(long, value_parser = humantime::parse_duration)]
    pub timeout: Option<Duration>,
}

pub fn cmd_wait(ctx: &Context, args: &WaitArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    wait_and_report(ctx, &engine, args.timeout, out)
}

/// Wait, print the final status table, and map the outcome to an exit code.
pub fn wait_and_report(
    ctx: &Context,
    engine: &Engine,
    timeout: Option<Duration>,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    let state = engine.wait(timeout, |_, lines| {
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
    })?;
    if state.is_finished() {
        engine.settle();
    }
    print_final(ctx, engine, &state, out)?;
    Ok(exit_code(&state))
}

/// The final status table of a waiting command, and when the run completed
/// the final verification's summary (spec §S-104) with the model usage
/// table (§R-97). The completion log itself
/// is written by `git supervisor report`, so a finished run leaves no
/// untracked file behind unasked.
pub fn print_final(
    ctx: &Context,
    engine: &Engine,
    state: &crate::machine::State,
    out: &mut dyn Write,
) -> miette::Result<()> {
    let stamp = engine.store.clock().iso_at_seq(state.seq);
    let completed = state.overall() == Overall::Completed;
    // A completed run's message below carries the model usage table; a run
    // that ended otherwise shows it in its status.
    let usage = if completed {
        None
    } else {
        Some(report::usage::of_run(&engine.store.history(None)?, state))
    };
    write!(
        out,
        "{}",
        report::status::text_with_usage(Some(state), &stamp, ctx.color, usage.as_ref())
    )
    .into_diagnostic()?;
    if completed {
        let (r, _) = super::report::load(ctx)?;
        let hint = format!("{} (write it with `git supervisor report`)", r.file_name);
        write!(out, "\n{}", report::complete_md::user_summary(&r, &hint)).into_diagnostic()?;
        if let Some(ws) = engine.run_workspaces(state) {
            let note = ws
                .land_note(&engine.store.runtime_dir())
                .unwrap_or_else(|| {
                    format!(
                        "The work is on `{}`; `git supervisor land` brings it onto your branch.",
                        ws.integration_branch()
                    )
                });
            writeln!(out, "\n{}", crate::base::escape::visible(&note)).into_diagnostic()?;
        }
    }
    Ok(())
}

pub fn exit_code(state: &crate::machine::State) -> u8 {
    if state.overall() == Overall::Completed {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    }
}
