//! `git supervisor import FILE [--output PATH] [--force]`: any plan,
//! rewritten by the configured agent CLI into the canonical
//! `EXECUTION_PLAN.md`. The use-case is the engine's (`engine::import`);
//! this file parses the arguments and prints the reading and a summary.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::io_err;
use super::Context;
use super::Format;
use super::EXIT_ERROR;
use super::EXIT_OK;
use crate::engine::import::ImportError;
use crate::engine::import::ImportRequest;
use crate::engine::import::Imported;
use crate::engine::import::SourceReading;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The plan to rewrite (Markdown or text, in any shape)
    pub file: PathBuf,
    /// Where to write the canonical plan; default: EXECUTION_PLAN.md at the
    /// repository's root
    #[arg(long, short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace the output when it exists
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_import(ctx: &Context, args: &ImportArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let prepared = crate::engine::import::prepare(ImportRequest {
        cwd: ctx.cwd.clone(),
        source: args.file.clone(),
        output: args.output.clone(),
        force: args.force,
    })?;
    let shown = |p: &Path| p.strip_prefix(&ctx.cwd).unwrap_or(p).display().to_string();
    // The agent may take minutes: say what is happening, on stderr so that
    // stdout stays the report (or the JSON).
    eprintln!(
        "Asking {} (model {}) to rewrite {} as {}…",
        prepared.agent,
        prepared.model,
        shown(&prepared.source),
        shown(&prepared.output)
    );
    let mut notice = |text: String| eprintln!("note: {text}");
    match prepared.run(&mut notice) {
        Ok(imported) => {
            match args.format {
                Format::Json => json(&imported, &shown, out)?,
                Format::Text => text(&imported, &shown, out).map_err(io_err)?,
            }
            super::note_run_in_progress(&imported.root);
            Ok(EXIT_OK)
        }
        // A program reading JSON gets the parser's problems too, as
        // `plan --format json` lists them.
        Err(ImportError::Invalid(invalid)) if args.format == Format::Json => {
            let problems = invalid.json.clone();
            let report = miette::Report::new(ImportError::Invalid(invalid));
            let v = serde_json::json!({
                "ok": false,
                "error": {
                    "code": report.code().map(|c| c.to_string()),
                    "message": report.to_string(),
                    "help": report.help().map(|h| h.to_string()),
                },
                "problems": problems,
            });
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
            writeln!(out).map_err(io_err)?;
            eprintln!("{report:?}");
            Ok(EXIT_ERROR)
        }
        Err(e) => Err(e.into()),
    }
}

fn json(
    imported: &Imported,
    shown: &dyn Fn(&Path) -> String,
    out: &mut dyn Write,
) -> miette::Result<()> {
    let plan = &imported.plan;
    let v = serde_json::json!({
        "ok": true,
        "source": shown(&imported.source),
        "output": shown(&imported.output),
        "replaced": imported.replaced,
        "source_lines": imported.source_lines,
        "output_lines": imported.text.lines().count(),
        "source_reading": imported.source_reading,
        "agent": imported.agent,
        "work_units": plan.units.len(),
        "sprints": plan.sprint_total(),
        "done": done(plan),
        "warnings": plan.warnings,
        "plan": plan,
    });
    serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
    writeln!(out).map_err(io_err)?;
    Ok(())
}

fn done(plan: &crate::plan::Plan) -> usize {
    plan.units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| s.done.is_some())
        .count()
}

fn text(
    imported: &Imported,
    shown: &dyn Fn(&Path) -> String,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let plan = &imported.plan;
    let (source, output) = (shown(&imported.source), shown(&imported.output));
    let agent = &imported.agent;
    let mut by = format!("{} (model {})", agent.program, agent.model);
    if let Some(t) = agent.turns {
        by.push_str(&format!(", {t} turn{}", if t == 1 { "" } else { "s" }));
    }
    if let Some(c) = agent.cost_usd {
        by.push_str(&format!(", ${c:.4}"));
    }
    writeln!(out, "## Import Complete\n")?;
    writeln!(out, "Source: {source} (unchanged)")?;
    writeln!(
        out,
        "Output: {output}{}",
        if imported.replaced { " (replaced)" } else { "" }
    )?;
    writeln!(out, "Rewritten by: {by}\n")?;
    let rows = [
        ("Source lines", imported.source_lines),
        ("Output lines", imported.text.lines().count()),
        ("Work units", plan.units.len()),
        ("Sprints", plan.sprint_total()),
        ("Marked done", done(plan)),
        ("Warnings", plan.warnings.len()),
    ];
    writeln!(out, "| Metric | Count |\n|--------|-------|")?;
    for (name, n) in rows {
        writeln!(out, "| {name} | {n} |")?;
    }
    // What the parser makes of the source unaided: a rewrite with fewer
    // sprints than that lost some.
    match imported.source_reading {
        SourceReading::Plan { units, sprints } => writeln!(
            out,
            "\nRead directly, {source} gives {units} work unit{} and {sprints} sprint{}.",
            if units == 1 { "" } else { "s" },
            if sprints == 1 { "" } else { "s" }
        )?,
        SourceReading::NotAPlan { problems } => writeln!(
            out,
            "\nRead directly, {source} is not a plan git supervisor can run ({problems} problem{}).",
            if problems == 1 { "" } else { "s" }
        )?,
    }
    writeln!(out, "\nThe plan is read as:")?;
    super::plan::write_reading(plan, true, out)?;
    writeln!(out, "{}", super::plan::structure_line(plan))?;
    for w in &plan.warnings {
        writeln!(out, "warning: line {}: {} [{}]", w.line, w.message, w.code)?;
    }
    let default = imported.output == imported.root.join(crate::plan::resolve::PLAN_FILE);
    let path = if default {
        String::new()
    } else {
        format!(" {output}")
    };
    writeln!(
        out,
        "\nNext: `git supervisor plan{path}` shows the whole reading; `git supervisor start{path}` runs it."
    )?;
    Ok(())
}
