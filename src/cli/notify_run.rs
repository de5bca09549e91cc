//! `git supervisor notify-run DIR` (hidden): delivers the queued
//! notifications of a run to `[notify] command`, detached from the engine;
//! see `dispatch::notify`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Context;

#[derive(Debug, Args)]
pub struct NotifyRunArgs {
    /// The queue directory the engine wrote
    pub dir: PathBuf,
}

pub fn cmd_notify_run(
    _ctx: &Context,
    args: &NotifyRunArgs,
    _out: &mut dyn Write,
) -> miette::Result<u8> {
    crate::dispatch::notify::drain(&args.dir)
        .map_err(|e| miette::miette!("cannot deliver notifications: {e}"))?;
    Ok(super::EXIT_OK)
}
