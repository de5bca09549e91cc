//! `git supervisor status`: where everything stands. Reads the published
//! state only and writes nothing.

use std::io::Write;

use clap::Args;
use clap::ValueEnum;
use miette::IntoDiagnostic;

use super::Context;
use super::EXIT_OK;
use crate::report;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum StatusFormat {
    #[default]
    Text,
    Json,
    /// SUPERVISOR_STATE.md as of the latest transition
    Markdown,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: StatusFormat,
}

pub fn cmd_status(ctx: &Context, args: &StatusArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    let tip = store.tip()?;
    let state = tip.as_ref().map(|t| &t.state);
    match args.format {
        StatusFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &report::status::json(state)).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        StatusFormat::Markdown => match state {
            Some(s) => write!(out, "{}", report::state_md::render(s)).map_err(super::io_err)?,
            None => writeln!(out, "# Supervisor State\n\nNo run in this repository.\n\n## Overall Status\nStatus: not_started")
                .map_err(super::io_err)?,
        },
        StatusFormat::Text => {
            let clock = store.clock();
            let stamp = clock.iso_at_seq(state.map(|s| s.seq).unwrap_or(0));
            write!(out, "{}", report::status::text(state, &stamp, ctx.color)).map_err(super::io_err)?;
        }
    }
    Ok(EXIT_OK)
}
