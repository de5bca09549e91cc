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

pub mod agent_run;
pub mod analyze;
pub mod breakdown;
pub mod ci;
pub mod clean;
pub mod command_changes;
pub mod confirm;
pub mod demo;
pub mod docs;
pub mod doctor;
pub mod evaluate;
pub mod hooks;
pub mod import;
pub mod init;
pub mod killall;
pub mod land;
pub mod live;
pub mod log;
pub mod name_feature;
pub mod note;
pub mod notify_run;
pub mod plan;
pub mod prioritize;
pub mod replan;
pub mod report;
pub mod resume;
pub mod run;
pub mod start;
pub mod status;
pub mod stop;
pub mod sync;
pub mod tick;
pub mod ui;
pub mod wait;
pub mod worker;

/// What the process should exit with when a command returns normally.
pub const EXIT_OK: u8 = 0;
/// A user, plan, config or git error.
pub const EXIT_ERROR: u8 = 1;
/// The run ended without completing (some unit BLOCKED, STOPPED or KILLED),
/// or a wait timed out.
pub const EXIT_INCOMPLETE: u8 = 3;
/// `evaluate --check` / `prioritize --check`: the plan would be changed.
pub const EXIT_WOULD_CHANGE: u8 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "git-supervisor",
    bin_name = "git supervisor",
    version,
    about = "A git-native workflow engine: runs coding agents through an execution plan, one commit per state transition",
    propagate_version = true,
    after_help = "With no command: `resume` when a run exists, otherwise `start`.",
    after_long_help = "With no command: `resume` when a run exists, otherwise `start`.\n\nExit status:\n  0  success\n  1  an error: bad plan, config or arguments, a git or file-system failure\n  2  a usage error (unknown option or command)\n  3  the run ended without completing, a wait timed out, or\n     evaluate/prioritize --check would change the plan"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy the configuration template into .workflow/
    Init(init::InitArgs),
    /// Start a run of the plan: snapshot it, dispatch what is eligible
    Start(start::StartArgs),
    /// Continue a run: stopped, killed and blocked units go on
    Resume(resume::ResumeArgs),
    /// Start or resume, then stay with a live status table until the run ends
    Run(run::RunArgs),
    /// Wait until every work unit is terminal
    Wait(wait::WaitArgs),
    /// Graceful shutdown: drain, wait for agents, then terminate the rest
    Stop(stop::StopArgs),
    /// Emergency stop: terminate every agent now and record what they left
    Killall(killall::KillallArgs),
    /// Process agent reports and dispatch once (what hooks and agents call)
    Tick(tick::TickArgs),
    /// Confirm a manual sprint that waits for a person
    Confirm(confirm::ConfirmArgs),
    /// Apply the edited plan to the run (plan edits take effect only so)
    Replan(replan::ReplanArgs),
    /// Build a sample repository and run a whole plan with a scripted agent
    Demo(demo::DemoArgs),
    /// Show the parsed plan and which heuristic found what
    Plan(plan::PlanArgs),
    /// Diagnose the plan in three passes; writes ANALYSIS_REPORT.md
    Analyze(analyze::AnalyzeArgs),
    /// Turn a requirements document into EXECUTION_PLAN.md
    Breakdown(breakdown::BreakdownArgs),
    /// Rewrite a plan in any shape into EXECUTION_PLAN.md with the configured agent
    ///
    /// The agent CLI of .workflow/config.toml gets the plan's text and a
    /// description of the canonical format, and works in a scratch git
    /// repository under the system's temporary directory. Its rewrite is read
    /// with the parser `git supervisor plan` uses: one that does not read as a
    /// plan with sprints is refused with the parser's diagnostics and nothing
    /// is written; a good one is written atomically, with its reading and a
    /// summary. The source file and the run's state are never changed.
    Import(import::ImportArgs),
    /// Check sprint quality and size, fix criteria in place, propose splits
    Evaluate(evaluate::EvaluateArgs),
    /// Score and rank sprints, add a priority line to each open sprint
    Prioritize(prioritize::PrioritizeArgs),
    /// The ritual: give the plan its operation name (feature_name)
    NameFeature(name_feature::NameFeatureArgs),
    /// Show where every work unit and sprint stands (writes nothing)
    Status(status::StatusArgs),
    /// Fast-forward the branch the run started on to its integration branch
    Land(land::LandArgs),
    /// Remove the worktrees a finished run left (not with uncommitted work)
    Clean(clean::CleanArgs),
    /// Share the run's state and branches through a git remote (never forced)
    Sync(sync::SyncArgs),
    /// Claim and run the sprints of a run that lives on a git remote
    Worker(worker::WorkerArgs),
    /// Write the CI workflow that runs workers on GitHub's or GitLab's runners
    Ci(ci::CiArgs),
    /// Show the transition history, newest first
    Log(log::LogArgs),
    /// Serve a live page of the run on 127.0.0.1 (overview, sprints, history, actions)
    Ui(ui::UiArgs),
    /// Add an entry to the run's decisions log
    Note(note::NoteArgs),
    /// Write the completion log and final verification (COMPLETE_<NAME>.md)
    Report(report::ReportArgs),
    /// Install, remove or inspect the git hooks that wake the engine
    Hooks(hooks::HooksArgs),
    /// Check the repository, hooks, agent and config; say how to fix each
    Doctor(doctor::DoctorArgs),
    /// Install the manual pages and shell completions for this user
    Setup(docs::SetupArgs),
    /// Print shell completions (bash, zsh, fish)
    Completions(docs::CompletionsArgs),
    /// Print the manual page, or write every page into a directory
    Man(docs::ManArgs),
    /// What the hook shims call
    #[command(hide = true)]
    Hook(hooks::HookArgs),
    /// Run one agent (started by the engine)
    #[command(hide = true)]
    AgentRun(agent_run::AgentRunArgs),
    /// Deliver queued notifications (started by the engine)
    #[command(hide = true)]
    NotifyRun(notify_run::NotifyRunArgs),
    /// The demo's scripted agent
    #[command(hide = true)]
    DemoAgent(demo::DemoAgentArgs),
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

/// The command line, with the exit codes in every command's long help.
pub fn parse() -> Cli {
    use clap::CommandFactory;
    use clap::FromArgMatches;
    let command = Cli::command().mut_subcommands(|s| s.after_long_help(docs::EXIT_CODES));
    let matches = command.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Run one parsed command line; returns the exit code on success.
pub fn run(cli: Cli, ctx: &Context, out: &mut dyn Write) -> miette::Result<u8> {
    let command = match cli.command {
        Some(c) => c,
        // Spec §B-10: resume when a run exists, otherwise start.
        None => match crate::store::Store::open(&ctx.cwd)
            .ok()
            .and_then(|s| s.tip().ok().flatten())
        {
            Some(_) => Command::Resume(resume::ResumeArgs { wait: false }),
            None => Command::Start(start::StartArgs {
                path: None,
                wait: false,
                remote: None,
                yes: false,
                format: Default::default(),
            }),
        },
    };
    match command {
        Command::Init(args) => init::cmd_init(ctx, &args, out),
        Command::Start(args) => start::cmd_start(ctx, &args, out),
        Command::Resume(args) => resume::cmd_resume(ctx, &args, out),
        Command::Run(args) => run::cmd_run(ctx, &args, out),
        Command::Wait(args) => wait::cmd_wait(ctx, &args, out),
        Command::Stop(args) => stop::cmd_stop(ctx, &args, out),
        Command::Killall(args) => killall::cmd_killall(ctx, &args, out),
        Command::Tick(args) => tick::cmd_tick(ctx, &args, out),
        Command::Confirm(args) => confirm::cmd_confirm(ctx, &args, out),
        Command::Replan(args) => replan::cmd_replan(ctx, &args, out),
        Command::Demo(args) => demo::cmd_demo(ctx, &args, out),
        Command::AgentRun(args) => agent_run::cmd_agent_run(ctx, &args, out),
        Command::NotifyRun(args) => notify_run::cmd_notify_run(ctx, &args, out),
        Command::Hooks(args) => hooks::cmd_hooks(ctx, &args, out),
        Command::Doctor(args) => doctor::cmd_doctor(ctx, &args, out),
        Command::Setup(args) => docs::cmd_setup(ctx, &args, out),
        Command::Completions(args) => docs::cmd_completions(ctx, &args, out),
        Command::Man(args) => docs::cmd_man(ctx, &args, out),
        Command::Hook(args) => hooks::cmd_hook(ctx, &args, out),
        Command::DemoAgent(args) => demo::cmd_demo_agent(ctx, &args, out),
        Command::Plan(args) => plan::cmd_plan(ctx, &args, out),
        Command::Analyze(args) => analyze::cmd_analyze(ctx, &args, out),
        Command::Breakdown(args) => breakdown::cmd_breakdown(ctx, &args, out),
        Command::Import(args) => import::cmd_import(ctx, &args, out),
        Command::Evaluate(args) => evaluate::cmd_evaluate(ctx, &args, out),
        Command::Prioritize(args) => prioritize::cmd_prioritize(ctx, &args, out),
        Command::NameFeature(args) => name_feature::cmd_name_feature(ctx, &args, out),
        Command::Status(args) => status::cmd_status(ctx, &args, out),
        Command::Land(args) => land::cmd_land(ctx, &args, out),
        Command::Clean(args) => clean::cmd_clean(ctx, &args, out),
        Command::Sync(args) => sync::cmd_sync(ctx, &args, out),
        Command::Worker(args) => worker::cmd_worker(ctx, &args, out),
        Command::Ci(args) => ci::cmd_ci(ctx, &args, out),
        Command::Log(args) => log::cmd_log(ctx, &args, out),
        Command::Ui(args) => ui::cmd_ui(ctx, &args, out),
        Command::Note(args) => note::cmd_note(ctx, &args, out),
        Command::Report(args) => report::cmd_report(ctx, &args, out),
    }
}

/// Writing to stdout failed: a closed pipe is not an error worth a report.
pub(crate) fn io_err(e: std::io::Error) -> miette::Report {
    miette::Report::msg(format!("cannot write output: {e}"))
}

/// Write a file beside its destination and rename it into place, so that a
/// crash or an error never leaves half a file.
pub(crate) fn write_file(path: &std::path::Path, text: &str) -> miette::Result<()> {
    use miette::IntoDiagnostic;
    use miette::WrapErr;
    crate::store::worktree::write_file(path, text)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write {}", path.display()))
}

/// After a command rewrote the plan: a run in progress keeps executing its
/// snapshot, so say how the edit takes effect.
pub(crate) fn note_run_in_progress(root: &std::path::Path) {
    let active = crate::store::Store::open(root)
        .ok()
        .and_then(|s| s.tip().ok().flatten())
        .is_some_and(|t| !t.state.is_finished());
    if active {
        eprintln!(
            "note: a run is in progress and keeps its snapshot of the plan; apply the rewrite with `git supervisor replan`"
        );
    }
}

/// Tick once after a command changed the state, and say what was dispatched.
pub(crate) fn tick_and_report(
    engine: &crate::engine::Engine,
    out: &mut dyn Write,
) -> miette::Result<()> {
    let before = engine.store.tip()?.map(|t| t.state.seq).unwrap_or(0);
    let report = engine.tick(crate::engine::LockMode::Wait(
        std::time::Duration::from_secs(5),
    ))?;
    if !report.dispatched.is_empty() {
        // A unit whose sprint finished within the tick is dispatched again:
        // named once, with its count.
        let mut named: Vec<(&str, usize)> = Vec::new();
        for unit in &report.dispatched {
            match named.iter_mut().find(|(n, _)| n == unit) {
                Some((_, count)) => *count += 1,
                None => named.push((unit, 1)),
            }
        }
        let list: Vec<String> = named
            .iter()
            .map(|(n, c)| match c {
                1 => n.to_string(),
                c => format!("{n} ({c} sprints)"),
            })
            .collect();
        writeln!(out, "Dispatched: {}", list.join(", ")).map_err(io_err)?;
    }
    // Builds and blocked units this tick produced say so here too.
    if let Some(tip) = engine.store.tip()? {
        for line in engine.announcements(before, &tip.state)? {
            writeln!(out, "{line}").map_err(io_err)?;
        }
    }
    Ok(())
}
