//! `git supervisor tick`: process what happened (agent reports, dead agents)
//! and dispatch what is eligible, once. What hooks and wrappers call.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::Engine;
use crate::engine::LockMode;

#[derive(Debug, Args)]
pub struct TickArgs {
    /// When another tick holds the engine, leave it a wake-up marker and
    /// return at once instead of waiting up to 2 s (what hooks use)
    #[arg(long)]
    pub no_wait: bool,
}

pub fn cmd_tick(ctx: &Context, args: &TickArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let mode = if args.no_wait {
        LockMode::MarkerOnly
    } else {
        LockMode::Wait(Duration::from_secs(2))
    };
    let r = engine.tick(mode)?;
    if r.deferred {
        writeln!(
            out,
            "The engine is busy; it will pick this up before it stops."
        )
        .into_diagnostic()?;
    } else {
        let dispatched = if r.dispatched.is_empty() {
            "none".to_string()
        } else {
            r.dispatched.join(", ")
        };
        writeln!(
            out,
            "{} transition{}; dispatched: {dispatched}",
            r.steps,
            if r.steps == 1 { "" } else { "s" }
        )
        .into_diagnostic()?;
    }
    Ok(super::EXIT_OK)
}
