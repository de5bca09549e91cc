//! `git supervisor note`: add an entry to the run's decisions log (a
//! run-level commit that changes no state; `engine::notes` records it).

use std::io::Write;

use clap::Args;

use super::Context;
use super::EXIT_OK;
use crate::engine::notes::record_note;
use crate::plan::SprintId;

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// What to record
    pub text: String,
    /// The work unit the note is about
    #[arg(long)]
    pub unit: Option<String>,
    /// The sprint the note is about (with --unit)
    #[arg(long, requires = "unit")]
    pub sprint: Option<SprintId>,
}

pub fn cmd_note(ctx: &Context, args: &NoteArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let seq = record_note(&ctx.cwd, args.unit.clone(), args.sprint.clone(), &args.text)?;
    writeln!(out, "recorded as transition {seq}").map_err(super::io_err)?;
    Ok(EXIT_OK)
}
