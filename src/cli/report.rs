//! `git supervisor report`: the completion log `COMPLETE_<NAME>.md` (spec §S)
//! computed from the run's transition history, the user summary, and the
//! timeline picture. Reads the state ref only; writes report files into the
//! project root and nothing else.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::engine::Engine;
use crate::report::complete;
use crate::report::complete_md;
use crate::report::timeline;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// `text` writes COMPLETE_<NAME>.md and prints the summary; `json` prints
    /// the report's data and writes no log
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Print the completion log instead of writing it
    #[arg(long)]
    pub stdout: bool,
    /// Also write the timeline as a self-contained HTML page (default:
    /// TIMELINE_<NAME>.html in the project root)
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    #[allow(clippy::option_option)]
    pub html: Option<Option<PathBuf>>,
    /// Also write the timeline as an SVG image (default: TIMELINE_<NAME>.svg)
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    #[allow(clippy::option_option)]
    pub svg: Option<Option<PathBuf>>,
}

/// The report of the run the state ref holds, and the project root.
pub fn load(ctx: &Context) -> miette::Result<(complete::Report, PathBuf)> {
    let engine = Engine::open(&ctx.cwd)?;
    let Some(tip) = engine.store.tip()? else {
        return Err(miette::miette!(
            code = "report::no_run",
            help = "start one with `git supervisor start`; the report is computed from its history",
            "no run to report on: refs/supervisor/state does not exist"
        ));
    };
    let (plan, config) = engine.snapshot(&tip)?;
    let mut records = engine.store.history(None)?;
    records.retain(|r| r.run.as_deref().is_none_or(|run| run == tip.state.run_id));
    records.reverse();
    let report = complete::build(&records, &tip.state, &plan, config.agent.max_turns);
    Ok((report, engine.project_root(&tip.state)))
}

fn target(
    ctx: &Context,
    root: &std::path::Path,
    given: &Option<PathBuf>,
    default: String,
) -> PathBuf {
    match given {
        Some(p) => ctx.cwd.join(p),
        None => root.join(default),
    }
}

pub fn cmd_report(ctx: &Context, args: &ReportArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let (report, root) = load(ctx)?;
    let stem = report
        .file_name
        .trim_start_matches("COMPLETE_")
        .trim_end_matches(".md")
        .to_string();
    let shown = |p: &std::path::Path| p.strip_prefix(&ctx.cwd).unwrap_or(p).display().to_string();
    if let Some(p) = &args.html {
        let path = target(ctx, &root, p, format!("TIMELINE_{stem}.html"));
        super::write_file(&path, &timeline::html(&report))?;
        eprintln!("wrote {}", shown(&path));
    }
    if let Some(p) = &args.svg {
        let path = target(ctx, &root, p, format!("TIMELINE_{stem}.svg"));
        super::write_file(&path, &timeline::svg(&report))?;
        eprintln!("wrote {}", shown(&path));
    }
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &report).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text if args.stdout => {
            write!(out, "{}", complete_md::render(&report)).map_err(super::io_err)?;
        }
        Format::Text => {
            let path = root.join(&report.file_name);
            super::write_file(&path, &complete_md::render(&report))?;
            write!(out, "{}", complete_md::user_summary(&report, &shown(&path)))
                .map_err(super::io_err)?;
        }
    }
    Ok(EXIT_OK)
}
