//! `git supervisor agent-run JOB` (hidden): the detached wrapper that runs
//! one agent; see `dispatch`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Context;

#[derive(Debug, Args)]
pub struct AgentRunArgs {
    /// The job file the engine wrote
    pub job: PathBuf,
}

pub fn cmd_agent_run(
    _ctx: &Context,
    args: &AgentRunArgs,
    _out: &mut dyn Write,
) -> miette::Result<u8> {
    crate::engine::wrapper::agent_run(&args.job)?;
    Ok(super::EXIT_OK)
}
