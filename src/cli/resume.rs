//! `git supervisor resume [--wait]`: pick up stopped, killed and blocked
//! units (a FATAL sprint gets a fresh round of attempts) and dispatch.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::Engine;
use crate::engine::LockMode;
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
    let report = engine.tick(LockMode::Wait(Duration::from_secs(5)))?;
    if !report.dispatched.is_empty() {
        writeln!(out, "Dispatched: {}", report.dispatched.join(", ")).into_diagnostic()?;
    }
    if args.wait {
        return super::wait::wait_and_report(ctx, &engine, None, out);
    }
    Ok(super::EXIT_OK)
}
