//! `git supervisor replan [PATH]`: apply the edited EXECUTION_PLAN.md (and
//! config) to the running state — the only way plan edits take effect.

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
}

pub fn cmd_replan(ctx: &Context, args: &ReplanArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "replan")?;
    Config::load(&loaded.root)?;
    let config_text = crate::config::read_regular(&loaded.root.join(CONFIG_DIR).join(CONFIG_FILE))
        .unwrap_or_default();
    let engine = Engine::open(&loaded.root)?;
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
