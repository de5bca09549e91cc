//! `git supervisor resume [--wait]`: pick up stopped, killed and blocked
//! units (a FATAL sprint gets a fresh round of attempts) and dispatch.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::Engine;
use crate::machine::EventKind;

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Stay until every work unit is terminal; exit 0 only if the run completed
    #[arg(long)]
    pub wait: bool,
}

pub fn cmd_resume(ctx: &Context, args: &ResumeArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let steps = engine.publish(EventKind::Resume)?;
    if steps.is_empty() {
        writeln!(
            out,
            "Nothing to resume: no unit is stopped, killed or blocked."
        )
        .into_diagnostic()?;
    }
    for s in &steps {
        writeln!(out, "{}", s.transition.subject()).into_diagnostic()?;
    }
    super::tick_and_report(&engine, out)?;
    if args.wait {
        return super::wait::wait_and_report(ctx, &engine, None, out);
    }
    Ok(super::EXIT_OK)
}
