//! `git supervisor replan [PATH]`: apply the edited EXECUTION_PLAN.md (and
//! config) to the running state — the only way plan edits take effect.

use std::io::IsTerminal;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::plan::load_plan;
use super::Context;
use crate::config::Config;
use crate::config::CONFIG_DIR;
use crate::config::CONFIG_FILE;
use crate::engine::Engine;

#[derive(Debug, Args)]
pub struct ReplanArgs {
    /// Path to EXECUTION_PLAN.md (or its directory); default: search upward
    pub path: Option<PathBuf>,
    /// Apply new or changed commands (criteria, checks, agent and build
    /// commands) without asking
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("the edited plan or config runs {count} new or changed commands; nothing was applied")]
#[diagnostic(
    code(replan::unconfirmed),
    help("review the commands listed above, then run `git supervisor replan --yes` to apply them")
)]
struct Unconfirmed {
    count: usize,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("replan cancelled; nothing was applied")]
#[diagnostic(code(replan::cancelled))]
struct Cancelled;

pub fn cmd_replan(ctx: &Context, args: &ReplanArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "replan")?;
    let config = Config::load(&loaded.root)?;
    let config_text = crate::config::read_regular(&loaded.root.join(CONFIG_DIR).join(CONFIG_FILE))
        .unwrap_or_default();
    let engine = Engine::open(&loaded.root)?;
    let changes = command_changes(&engine, &loaded.root, &loaded.plan, &config)?;
    if !changes.is_empty() {
        eprint!("{}", super::command_changes::render(&changes));
        if !args.yes {
            if !std::io::stdin().is_terminal() {
                return Err(Unconfirmed {
                    count: changes.len(),
                }
                .into());
            }
            eprint!("Apply them? [y/N] ");
            let mut answer = String::new();
            std::io::stdin().read_line(&mut answer).into_diagnostic()?;
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                return Err(Cancelled.into());
            }
        }
    }
    let steps = engine.replan(&loaded.plan, &loaded.source, &config_text)?;
    for s in &steps {
        writeln!(out, "{}", s.transition.subject()).into_diagnostic()?;
        if s.transition.change == crate::machine::Change::Run {
            writeln!(out, "  {}", s.transition.why).into_diagnostic()?;
        }
    }
    super::tick_and_report(&engine, out)?;
    Ok(super::EXIT_OK)
}

/// The commands the edited plan and config run that the run's snapshot
/// does not.
fn command_changes(
    engine: &Engine,
    root: &std::path::Path,
    plan: &crate::plan::Plan,
    config: &Config,
) -> miette::Result<Vec<super::command_changes::CommandChange>> {
    let Some(tip) = engine.store.tip()? else {
        // No run: replan itself reports that.
        return Ok(Vec::new());
    };
    let snapshot = engine.store.snapshot_at(tip.id)?;
    // Parsed as `start` parsed it: a plan with no title names its one unit
    // after the directory.
    let dir_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    let old_plan = crate::plan::parse(&snapshot.plan, &crate::plan::ParseContext { dir_name }).ok();
    let old_config = Config::parse(&snapshot.config, "config").unwrap_or_default();
    Ok(super::command_changes::new_commands(
        old_plan.as_ref(),
        &old_config,
        plan,
        config,
    ))
}
