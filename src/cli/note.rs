//! `git supervisor note`: add an entry to the run's decisions log (a
//! run-level commit that changes no state).

use std::io::Write;

use clap::Args;

use super::Context;
use super::EXIT_OK;
use crate::machine::apply;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::MachineError;
use crate::plan::SprintId;
use crate::store::Store;
use crate::store::UpdateError;

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
    let store = Store::open(&ctx.cwd)?;
    let clock = store.clock();
    let published = store.update(|tip| {
        let Some(tip) = tip else {
            return Err(None);
        };
        let event = Event {
            at: clock.iso_at_seq(tip.state.seq + 1),
            kind: EventKind::Notice {
                unit: args.unit.clone(),
                sprint: args.sprint.clone(),
                text: args.text.clone(),
            },
        };
        let steps = apply(&tip.state, &event).map_err(Some)?;
        Ok(Some(crate::engine::publish::update(steps, Some(event))))
    });
    match published {
        Ok(p) => {
            let seq = p.steps.last().map(|s| s.state.seq).unwrap_or_default();
            writeln!(out, "recorded as transition {seq}").map_err(super::io_err)?;
            Ok(EXIT_OK)
        }
        Err(UpdateError::Store(e)) => Err(e.into()),
        Err(UpdateError::Decide(None)) => Err(miette::miette!(
            code = "run::none",
            help = "start a run with `git supervisor start`",
            "there is no run to add a note to"
        )),
        Err(UpdateError::Decide(Some(e))) => Err(refused(e)),
    }
}

fn refused(e: MachineError) -> miette::Report {
    miette::miette!(code = "run::refused", "{e}")
}
