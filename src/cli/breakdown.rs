//! `git supervisor breakdown [REQS]` (spec §T): a requirements document →
//! `EXECUTION_PLAN.md` beside it, in the canonical form the parser reads.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;
use miette::WrapErr;

use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::plan::resolve::PLAN_FILE;
use crate::plan_tools::breakdown;
use crate::plan_tools::write;

#[derive(Debug, Args)]
pub struct BreakdownArgs {
    /// The requirements document; default: REQUIREMENTS.md, PRD.md, SPEC.md
    /// or README.md in the current directory
    pub path: Option<PathBuf>,
    /// Replace an existing EXECUTION_PLAN.md
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// No requirements document: the spec's message, adapted to this CLI.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("ERROR: Cannot find a requirements document.\nThe breakdown command needs a source document to analyze.\nPlease provide the path: git supervisor breakdown /path/to/requirements.md")]
#[diagnostic(code(breakdown::not_found))]
pub struct NoRequirements;

fn resolve(ctx: &Context, explicit: Option<&Path>) -> miette::Result<PathBuf> {
    if let Some(p) = explicit {
        let p = ctx.cwd.join(p);
        if p.is_file() {
            return Ok(p);
        }
        return Err(miette::miette!(
            code = "breakdown::not_found",
            help = "pass the path of an existing Markdown file",
            "no requirements document at {}",
            p.display()
        ));
    }
    // The current directory only: no upward search (spec §B-13).
    breakdown::REQUIREMENT_FILES
        .iter()
        .map(|f| ctx.cwd.join(f))
        .find(|p| p.is_file())
        .ok_or_else(|| NoRequirements.into())
}

pub fn cmd_breakdown(
    ctx: &Context,
    args: &BreakdownArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    let source_path = resolve(ctx, args.path.as_deref())?;
    let source = crate::config::read_regular(&source_path)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read {}", source_path.display()))?;
    let root = source_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ctx.cwd.clone());
    let target = root.join(PLAN_FILE);
    if target.exists() && !args.force {
        return Err(miette::miette!(
            code = "breakdown::exists",
            help = "run `git supervisor evaluate` or `prioritize` to refine it, or pass --force to replace it",
            "{} already exists",
            target.display()
        ));
    }
    let project = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    let config = crate::config::Config::load(&root)?;
    // An explicit `[build] command` wins; otherwise the project's own test
    // (or build) command gives every sprint a machine-verifiable exit.
    let detected = super::evaluate::project_commands(&root).and_then(|p| p.test.or(p.build));
    let build = config.build.command.clone().or(detected);
    let b = breakdown::breakdown(&source, &project, build.as_deref());
    let mut text = write::render(&b.plan, &write::Extras::default(), &Default::default());
    text.push_str("\n\n");
    text.push_str(&breakdown::summary_section(&b.plan));
    let not_planned = breakdown::not_planned_section(&b);
    if !not_planned.is_empty() {
        text.push('\n');
        text.push_str(&not_planned);
    }
    super::write_file(&target, &text)?;
    let shown = |p: &Path| p.strip_prefix(&ctx.cwd).unwrap_or(p).display().to_string();
    match args.format {
        Format::Json => {
            let v = serde_json::json!({
                "source": shown(&source_path),
                "output": shown(&target),
                "requirements": b.requirements,
                "not_planned": b.not_planned,
                "atomic_tasks": b.tasks,
                "work_units": b.plan.units.len(),
                "sprints": b.plan.sprint_total(),
            });
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            write!(
                out,
                "## Breakdown Complete\n\nSource: {}\nOutput: {}\n\n| Metric | Count |\n|--------|-------|\n| Requirements detected | {} |\n| Atomic tasks | {} |\n| Work units | {} |\n| Sprints | {} |\n| Not planned | {} |\n",
                shown(&source_path),
                shown(&target),
                b.requirements.len(),
                b.tasks,
                b.plan.units.len(),
                b.plan.sprint_total(),
                b.not_planned.len()
            )
            .map_err(super::io_err)?;
            if !b.not_planned.is_empty() {
                writeln!(
                    out,
                    "\nNot planned (listed in the plan's \"Not planned\" section):"
                )
                .map_err(super::io_err)?;
                for n in &b.not_planned {
                    writeln!(out, "- line {}: {} — {}", n.lines.0, n.text, n.reason)
                        .map_err(super::io_err)?;
                }
            }
            if build.is_none() {
                writeln!(out, "\nNo build or test command found (no [build] command, no Cargo.toml, package.json, go.mod…): sprints exit on the files they create and their commits only.")
                    .map_err(super::io_err)?;
            }
            writeln!(out, "\nNext step: git supervisor prioritize").map_err(super::io_err)?;
        }
    }
    Ok(EXIT_OK)
}
