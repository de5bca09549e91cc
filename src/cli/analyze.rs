//! `git supervisor analyze [PATH] [--max-turns N]` (spec §W): the three-pass
//! diagnostic. Writes `ANALYSIS_REPORT.md` beside the plan and never
//! modifies the plan.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::plan::load_plan;
use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::plan_tools::analysis::DEFAULT_BUDGET;
use crate::plan_tools::review;
use crate::report::analysis_md;

pub const REPORT_FILE: &str = "ANALYSIS_REPORT.md";

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Path to EXECUTION_PLAN.md (or a directory holding one); default: search
    /// the current directory and its parents
    pub path: Option<PathBuf>,
    /// Context budget: turns per sprint (default: `[agent] max_turns`, 50
    /// unless configured)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// `json` prints the findings and writes no report
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_analyze(ctx: &Context, args: &AnalyzeArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "analyze")?;
    let root = loaded.root.clone();
    let exists = |p: &str| root.join(p).exists();
    // The budget the run's agents get, unless asked for another.
    let budget = args.max_turns.unwrap_or_else(|| {
        crate::config::Config::load(&root)
            .map(|c| c.agent.max_turns)
            .unwrap_or(DEFAULT_BUDGET)
    });
    let r = review::review(&loaded.plan, &loaded.source, budget, &exists);
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &r).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            let generated = crate::store::Clock::from_env().iso_at_seq(0);
            let shown =
                |p: &std::path::Path| p.strip_prefix(&ctx.cwd).unwrap_or(p).display().to_string();
            let path = loaded.root.join(REPORT_FILE);
            let text = analysis_md::render(&r, &shown(&loaded.path), &generated);
            super::write_file(&path, &format!("{text}\n"))?;
            write!(out, "{}", analysis_md::user_summary(&r, &shown(&path)))
                .map_err(super::io_err)?;
        }
    }
    Ok(EXIT_OK)
}
