//! `git supervisor prioritize [PATH]` (spec §U): score every sprint, adjust
//! layers, rank under the hard constraints in the report, and add each open
//! sprint's `**Supervisor priority**:` line; ids and order stay as written.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::plan::load_plan;
use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::plan_tools::analysis::format_score;
use crate::plan_tools::edit;
use crate::plan_tools::rewrite;

#[derive(Debug, Args)]
pub struct PrioritizeArgs {
    /// Path to EXECUTION_PLAN.md (or a directory holding one); default: search
    /// the current directory and its parents
    pub path: Option<PathBuf>,
    /// Print the diff that would be applied and write nothing; exit 3 when
    /// the plan would change
    #[arg(long)]
    pub check: bool,
    /// Write even when the plan file has uncommitted changes
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_prioritize(
    ctx: &Context,
    args: &PrioritizeArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "prioritize")?;
    let (plan, result, annotations) = rewrite::prioritize(&loaded.plan);
    // Patches at the sprints' sections: every other line stays as written.
    let edited = edit::edit(
        &loaded.source,
        &loaded.plan,
        &plan,
        &annotations,
        &super::evaluate::parse_context(&loaded.root),
    );
    let text = edited.text;
    let changed = text != loaded.source;
    let diff = super::evaluate::apply(&loaded, &text, args.check, args.force)?;
    match args.format {
        Format::Json => {
            let mut v = serde_json::to_value(&result).into_diagnostic()?;
            if let Some(o) = v.as_object_mut() {
                o.insert("diff".into(), diff.clone().into());
                o.insert("not_placed".into(), edited.not_placed.clone().into());
            }
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            let mut s = String::from("## Prioritization Complete\n\n");
            s.push_str("| Sprint | Name | Priority | Change |\n");
            s.push_str("|--------|------|----------|--------|\n");
            for r in &result.sprints {
                let change = if r.was == r.position {
                    "unchanged".to_string()
                } else {
                    format!("was Sprint {}", r.was)
                };
                s.push_str(&format!(
                    "| {} | {}/{} {} | {} | {change} |\n",
                    r.position,
                    r.unit,
                    r.id,
                    r.name,
                    format_score(r.score)
                ));
            }
            s.push_str(&format!(
                "\nSprints ranked out of plan order: {} (the file keeps its order: dependencies and layers order the run)\n",
                result.reordered
            ));
            if result.layers.is_empty() {
                s.push_str("Layer adjustments: none\n");
            } else {
                s.push_str(&format!("Layer adjustments: {}\n", result.layers.len()));
                for l in &result.layers {
                    s.push_str(&format!(
                        "- {}: layer {} → {} ({})\n",
                        l.unit, l.from, l.to, l.why
                    ));
                }
            }
            s.push_str(&super::evaluate::not_placed_note(&edited.not_placed));
            if args.check {
                s.push_str("\n(--check: nothing written)\n");
            }
            s.push_str("\nNext step: git supervisor evaluate\n");
            s.push_str(&diff);
            write!(out, "{s}").map_err(super::io_err)?;
        }
    }
    Ok(if args.check && changed {
        super::EXIT_WOULD_CHANGE
    } else {
        EXIT_OK
    })
}
