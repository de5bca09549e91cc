//! The command line: clap definitions, one file per command, and the one place
//! where error kinds become exit codes.
//!
//! Commands write their results to the `out` writer they are given and never
//! print directly, so tests and `main` decide where output goes.

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use clap::Subcommand;
use clap::ValueEnum;

pub mod init;
pub mod log;
pub mod note;
pub mod plan;
pub mod status;

/// What the process should exit with when a command returns normally.
pub const EXIT_OK: u8 = 0;
/// A user, plan, config or git error.
pub const EXIT_ERROR: u8 = 1;

#[derive(Debug, Parser)]
#[command(
    name = "git-supervisor",
    bin_name = "git supervisor",
    version,
    about = "A git-native workflow engine: runs coding agents through an execution plan, one commit per state transition",
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy the configuration template into .workflow/
    Init(init::InitArgs),
    /// Show the parsed plan and which heuristic found what
    Plan(plan::PlanArgs),
    /// Show where every work unit and sprint stands (writes nothing)
    Status(status::StatusArgs),
    /// Show the transition history, newest first
    Log(log::LogArgs),
    /// Add an entry to the run's decisions log
    Note(note::NoteArgs),
}

/// Output format of reporting commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// What every command gets besides its arguments.
#[derive(Debug, Clone)]
pub struct Context {
    pub cwd: PathBuf,
    /// Colour is used only on a terminal and never when `NO_COLOR` is set.
    pub color: bool,
}

impl Context {
    pub fn from_env() -> std::io::Result<Self> {
        use std::io::IsTerminal;
        Ok(Context {
            cwd: std::env::current_dir()?,
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal(),
        })
    }
}

/// Run one parsed command line; returns the exit code on success.
pub fn run(cli: Cli, ctx: &Context, out: &mut dyn Write) -> miette::Result<u8> {
    match cli.command {
        Command::Init(args) => init::cmd_init(ctx, &args, out),
        Command::Plan(args) => plan::cmd_plan(ctx, &args, out),
        Command::Status(args) => status::cmd_status(ctx, &args, out),
        Command::Log(args) => log::cmd_log(ctx, &args, out),
        Command::Note(args) => note::cmd_note(ctx, &args, out),
    }
}

/// Writing to stdout failed: a closed pipe is not an error worth a report.
pub(crate) fn io_err(e: std::io::Error) -> miette::Report {
    miette::Report::msg(format!("cannot write output: {e}"))
}
