//! `git supervisor confirm UNIT SPRINT`: a person confirms a manual sprint
//! that waits in PARTIAL; the unit moves on.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use crate::engine::Engine;
use crate::engine::LockMode;
use crate::machine::EventKind;
use crate::plan::SprintId;

#[derive(Debug, Args)]
pub struct ConfirmArgs {
    pub unit: String,
    pub sprint: SprintId,
}

pub fn cmd_confirm(ctx: &Context, args: &ConfirmArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let engine = Engine::open(&ctx.cwd)?;
    let steps = engine.publish(EventKind::Confirm {
        unit: args.unit.clone(),
        sprint: args.sprint.clone(),
    })?;
    for s in &steps {
        writeln!(out, "{}", s.transition.subject()).into_diagnostic()?;
    }
    engine.tick(LockMode::Wait(Duration::from_secs(5)))?;
    Ok(super::EXIT_OK)
}
