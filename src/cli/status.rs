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
    /// Show how EXECUTION_PLAN.md in the working tree differs from the plan
    /// the run executes (a unified diff)
    #[arg(long)]
    pub diff: bool,
}

/// The working tree's plan against the run's snapshot: `None` when they
/// agree (or the working plan is unreadable), else a unified diff.
fn plan_drift(store: &Store, tip: &crate::store::Tip) -> miette::Result<Option<String>> {
    let snapshot = store.snapshot_at(tip.id)?;
    let Some(workdir) = store.workdir() else {
        return Ok(None);
    };
    let path = workdir
        .join(&tip.state.root)
        .join(crate::plan::resolve::PLAN_FILE);
    let Ok(current) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    // The ritual writes feature_name into the working plan; that is not an
    // edit the run needs to know about.
    use crate::plan::frontmatter::without_feature_name;
    if without_feature_name(&current) == without_feature_name(&snapshot.plan) {
        return Ok(None);
    }
    let diff = similar::TextDiff::from_lines(&snapshot.plan, &current)
        .unified_diff()
        .context_radius(2)
        .header(
            "EXECUTION_PLAN.md (the run's snapshot)",
            "EXECUTION_PLAN.md (working tree)",
        )
        .to_string();
    Ok(Some(diff))
}

pub fn cmd_status(ctx: &Context, args: &StatusArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    let tip = store.tip()?;
    let state = tip.as_ref().map(|t| &t.state);
    let drift = match &tip {
        Some(t) => plan_drift(&store, t)?,
        None => None,
    };
    match args.format {
        StatusFormat::Json => {
            let mut v = report::status::json(state);
            v.plan_drift = drift.is_some();
            if args.diff {
                v.plan_diff = drift.clone();
            }
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
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
            if let Some(diff) = &drift {
                let changed = diff.lines().filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---")).count();
                writeln!(
                    out,
                    "Plan drift: EXECUTION_PLAN.md differs from the run's snapshot ({changed} changed lines); the run keeps executing the snapshot until `git supervisor replan`.{}",
                    if args.diff { "" } else { " See `git supervisor status --diff`." }
                )
                .map_err(super::io_err)?;
                if args.diff {
                    write!(out, "{diff}").map_err(super::io_err)?;
                }
            }
        }
    }
    Ok(EXIT_OK)
}
