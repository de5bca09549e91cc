//! `git supervisor clean`: remove the worktrees a finished run left; never
//! one with uncommitted work unless `--force`. Branches stay (history).

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use crate::store::Store;
use crate::workspace::Workspaces;

#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Remove worktrees with uncommitted work too (that work is lost)
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Default, serde::Serialize)]
struct Cleaned {
    removed: Vec<String>,
    /// Worktrees kept for their uncommitted work, with what it is.
    kept: Vec<Kept>,
}

#[derive(Debug, serde::Serialize)]
struct Kept {
    unit: String,
    worktree: String,
    uncommitted: Vec<String>,
}

pub fn cmd_clean(ctx: &Context, args: &CleanArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    let Some(tip) = store.tip()? else {
        writeln!(out, "No run in this repository: nothing to clean.").map_err(super::io_err)?;
        return Ok(super::EXIT_OK);
    };
    let Some(ws) = Workspaces::of_run(&store, &tip) else {
        writeln!(out, "The run did not use worktrees: nothing to clean.").map_err(super::io_err)?;
        return Ok(super::EXIT_OK);
    };
    if !tip.state.is_finished() {
        return Err(miette::miette!(
            code = "clean::running",
            help = "stop it first (`git supervisor stop`), or wait for it to end",
            "the run is still {}: its agents work in these worktrees",
            tip.state.overall().as_str()
        ));
    }
    let mut cleaned = Cleaned::default();
    for u in &tip.state.units {
        let uncommitted = ws.uncommitted(&u.name);
        if !uncommitted.is_empty() && !args.force {
            cleaned.kept.push(Kept {
                unit: u.name.clone(),
                worktree: ws.unit_path(&u.name).display().to_string(),
                uncommitted,
            });
            continue;
        }
        if ws.remove(&u.name, args.force)? {
            cleaned
                .removed
                .push(ws.unit_path(&u.name).display().to_string());
        }
    }
    if ws.remove_integration()? {
        cleaned
            .removed
            .push(ws.integration_path().display().to_string());
    }
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &cleaned).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            for r in &cleaned.removed {
                writeln!(out, "Removed {r}").map_err(super::io_err)?;
            }
            if cleaned.removed.is_empty() && cleaned.kept.is_empty() {
                writeln!(out, "No worktrees left to remove.").map_err(super::io_err)?;
            }
        }
    }
    if cleaned.kept.is_empty() {
        return Ok(super::EXIT_OK);
    }
    let list = cleaned
        .kept
        .iter()
        .map(|k| {
            format!(
                "{} ({}): {}",
                crate::base::escape::visible(&k.unit),
                k.worktree,
                k.uncommitted.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Err(miette::miette!(
        code = "clean::uncommitted",
        help = "commit that work in its worktree, or `git supervisor clean --force` to discard it",
        "kept worktrees with uncommitted work: {list}"
    ))
}
