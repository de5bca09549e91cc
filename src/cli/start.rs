//! `git supervisor start [PATH] [--wait]`: snapshot the plan and config,
//! record the run, dispatch what is eligible. The start itself is the
//! engine's (`engine::begin`); this file parses the arguments and prints.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::plan::load_plan;
use super::Context;
use crate::engine::begin::start_run;
use crate::engine::begin::NameKept;
use crate::engine::begin::StartRequest;

#[derive(Debug, Args)]
pub struct StartArgs {
    /// Path to EXECUTION_PLAN.md (or its directory); default: search upward
    pub path: Option<PathBuf>,
    /// Stay until every work unit is terminal; exit 0 only if the run completed
    #[arg(long)]
    pub wait: bool,
    /// Run on this git remote: its refs/supervisor/state is the run's one
    /// source of truth and `git supervisor worker` on any clone claims the
    /// sprints (default: `[run] remote`)
    #[arg(long, value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Accept the plan's reading although it has warnings (sprints no
    /// exit-criterion command checks among them) or guesses (without a
    /// terminal to ask at, such a plan does not start without it)
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// `json`: one object on stdout saying what started (the run, the
    /// naming commit, sprints with no runnable exit criterion, dispatches);
    /// the text goes to stderr
    #[arg(long, value_enum, default_value_t, conflicts_with = "wait")]
    pub format: super::Format,
}

/// `start --format json`.
#[derive(serde::Serialize)]
struct StartJson<'a> {
    run_id: &'a str,
    operation: &'a str,
    work_units: usize,
    sprints: usize,
    /// The branch `start` committed the plan's new name on (`HEAD` when
    /// detached); absent when it committed nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    name_committed_on: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    integration_branch: Option<String>,
    /// Sprints that complete on their agent's word.
    no_runnable_criterion: &'a [crate::report::criteria::Unchecked],
    dispatched: Vec<String>,
}

pub fn cmd_start(ctx: &Context, args: &StartArgs, out: &mut dyn Write) -> miette::Result<u8> {
    if args.format == super::Format::Json {
        // The words go to stderr, so stdout holds the object alone.
        let started = begin(args, &mut std::io::stderr(), ctx)?;
        let report = started.engine.tick(crate::engine::LockMode::Wait(
            std::time::Duration::from_secs(5),
        ))?;
        let state = &started.state;
        let v = StartJson {
            run_id: &state.run_id,
            operation: &state.operation,
            work_units: state.units.len(),
            sprints: state.sprint_total(),
            name_committed_on: started.christened.as_ref().and_then(|c| match &c.kept {
                NameKept::Committed { branch } => {
                    Some(branch.clone().unwrap_or_else(|| "HEAD".into()))
                }
                _ => None,
            }),
            integration_branch: started
                .layout
                .as_ref()
                .map(|l| l.integration_branch.clone()),
            no_runnable_criterion: &started.unchecked,
            dispatched: report.dispatched,
        };
        serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
        writeln!(out).into_diagnostic()?;
        return Ok(super::EXIT_OK);
    }
    let started = begin(args, out, ctx)?;
    super::tick_and_report(&started.engine, out)?;
    if args.wait {
        return super::wait::wait_and_report(ctx, &started.engine, None, out);
    }
    Ok(super::EXIT_OK)
}

/// Start the run and say in words what the start did: the name and where
/// it was committed, the layout, the sprints no command can check.
fn begin(
    args: &StartArgs,
    out: &mut dyn Write,
    ctx: &Context,
) -> miette::Result<crate::engine::begin::Started> {
    let loaded = load_plan(ctx, args.path.as_deref(), "start")?;
    // What the plan runs with although it is not quite right, and where
    // its reading guessed: said before anything starts, and confirmed by
    // the user (`git supervisor plan` shows the whole reading).
    let plan = &loaded.plan;
    // Sprints no command can check are a warning too, with the criteria
    // `evaluate` would give them; `[run] require_criteria` refuses them
    // outright (in the engine), so there is nothing to ask then.
    let config = crate::config::Config::load(&loaded.root).ok();
    let unchecked = match &config {
        Some(c) if c.run.require_criteria => Vec::new(),
        _ => crate::report::criteria::unchecked(plan),
    };
    let criteria_warning = crate::report::criteria::warning(
        plan,
        &unchecked,
        &super::evaluate::commands(
            plan,
            config.as_ref().and_then(|c| c.build.command.as_deref()),
            &loaded.root,
        ),
    );
    if !plan.warnings.is_empty() || !plan.guesses.is_empty() || criteria_warning.is_some() {
        for w in &plan.warnings {
            writeln!(out, "warning: line {}: {} [{}]", w.line, w.message, w.code)
                .into_diagnostic()?;
        }
        if let Some(w) = &criteria_warning {
            writeln!(out, "warning: {w}").into_diagnostic()?;
        }
        for g in &plan.guesses {
            writeln!(out, "guess: line {}: {} [{}]", g.line, g.message, g.code)
                .into_diagnostic()?;
        }
        if !args.yes && !confirmed(plan, out)? {
            let count = |n: usize, what: &str| match n {
                0 => None,
                1 => Some(format!("1 {what}")),
                n => Some(format!("{n} {what}s")),
            };
            let why: Vec<String> = [
                count(
                    plan.warnings.len() + usize::from(criteria_warning.is_some()),
                    "warning",
                ),
                count(plan.guesses.len(), "guess"),
            ]
            .into_iter()
            .flatten()
            .map(|w| w.replace("guesss", "guesses"))
            .collect();
            return Err(miette::miette!(
                code = "run::unconfirmed",
                help = "check the reading with `git supervisor plan` (and the criteria `git supervisor evaluate` would write), fix the plan or start with --yes to accept it",
                "not started: the plan is read with {}",
                why.join(" and ")
            ));
        }
    }
    let file = loaded
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let started = start_run(StartRequest {
        plan: loaded.plan,
        source: loaded.source,
        path: loaded.path,
        root: loaded.root,
        remote: args.remote.clone(),
    })?;
    if let Some(c) = &started.christened {
        write!(out, "{}", super::name_feature::announcement(&c.name)).into_diagnostic()?;
        match &c.kept {
            // The one commit `start` makes on the user's branch, said so
            // (with worktrees too: the integration branch starts from it).
            NameKept::Committed { branch } => writeln!(
                out,
                "The name is committed on {} as \"Name the plan: {}\" ({file} only).",
                match branch {
                    Some(b) => format!("your branch `{b}`"),
                    None => "the detached HEAD".to_string(),
                },
                c.name
            )
            .into_diagnostic()?,
            NameKept::CommitFailed(why) => writeln!(
                out,
                "The name is kept in the run only: committing {file} failed ({why})."
            )
            .into_diagnostic()?,
            NameKept::PlanHasEdits => writeln!(
                out,
                "{file} has uncommitted edits, so it is left as it is; the name is kept in the run."
            )
            .into_diagnostic()?,
        }
    }
    let state = &started.state;
    if let Some(p) = &started.archived {
        writeln!(
            out,
            "The previous run, {} (run {}), was {} and is archived as {}{}; `git supervisor resume` continues such a run instead of starting anew.",
            p.operation,
            p.run_id,
            p.overall().as_str(),
            crate::store::RUNS_PREFIX,
            p.run_id
        )
        .into_diagnostic()?;
    }
    writeln!(
        out,
        "Started {} (run {}): {} work units, {} sprints.",
        state.operation,
        state.run_id,
        state.units.len(),
        state.sprint_total()
    )
    .into_diagnostic()?;
    if let Some(line) = crate::report::criteria::notice(&started.unchecked) {
        writeln!(
            out,
            "{line}. Give each a command in its exit criteria, or set `[run] require_criteria = true` to refuse such plans."
        )
        .into_diagnostic()?;
    }
    // Said plainly: with the naming commit, `start` did move the branch.
    let stays = match started.christened.as_ref().map(|c| &c.kept) {
        Some(NameKept::Committed { .. }) => {
            "apart from the naming commit, which the integration branch starts from, your branch and working tree stay as they are"
        }
        _ => "your branch and working tree stay as they are",
    };
    if let Some(layout) = &started.layout {
        let land = match started.config.run.land {
            crate::config::Land::Off => "`git supervisor land` when the run completes",
            _ => "`[run] land` lands the work on them when the run completes",
        };
        match &started.remote {
            // The worktrees are the workers', on their machines.
            Some(r) => writeln!(
                out,
                "Each claimed sprint works in a worktree of its unit's branch on the worker that claims it, and its verified work is merged into `{}` on `{r}`; {stays} ({land}).",
                layout.integration_branch,
            ),
            None => writeln!(
                out,
                "Each unit works in its own worktree under {} and its verified sprints are merged into `{}`; {stays} ({land}).",
                layout.dir.display(),
                layout.integration_branch,
            ),
        }
        .into_diagnostic()?;
        // The worktrees start from HEAD: edits not yet committed stay here.
        if layout.uncommitted > 0 {
            writeln!(
                out,
                "Note: {} file(s) with uncommitted changes here are not in the units' worktrees, which start from your last commit (commit before `start` when the agents need them).",
                layout.uncommitted
            )
            .into_diagnostic()?;
        }
    }
    if let Some(r) = &started.remote {
        writeln!(
            out,
            "The run lives on `{r}`: sprints are published DISPATCHED there for `git supervisor worker` on any clone to claim."
        )
        .into_diagnostic()?;
    }
    Ok(started)
}

/// Show the reading (its units, their order and the sprints already done)
/// and ask at a terminal whether to start with it. Off a terminal nobody
/// can answer: the reading is shown and the answer is no.
fn confirmed(plan: &crate::plan::Plan, out: &mut dyn Write) -> miette::Result<bool> {
    use std::io::IsTerminal;
    writeln!(out, "The plan is read as:").into_diagnostic()?;
    super::plan::write_reading(plan, false, out).into_diagnostic()?;
    if !std::io::stdin().is_terminal() {
        return Ok(false);
    }
    write!(out, "Start with this reading? [y/N] ").into_diagnostic()?;
    out.flush().into_diagnostic()?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).into_diagnostic()?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
