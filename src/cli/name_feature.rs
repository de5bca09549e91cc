//! `git supervisor name-feature [PATH]`: the ritual (spec §X). Naming is a
//! ritual of starting the plan: `start` christens a plan that has no
//! `feature_name`; called by hand before any run, this only reproaches and
//! never replaces a `feature_name` the user wrote; after a run exists it
//! regenerates the name quietly and writes it to the plan's frontmatter.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::plan::load_plan;
use super::Context;
use super::EXIT_OK;
use crate::engine::naming::operation_name;
use crate::plan::Plan;
use crate::plan_tools::name_feature::set_feature_name;

#[derive(Debug, Args)]
pub struct NameFeatureArgs {
    /// Path to EXECUTION_PLAN.md (or a directory holding one); default: search
    /// the current directory and its parents
    pub path: Option<PathBuf>,
}

/// The ceremony `start` performs when it names a plan.
pub fn announcement(name: &str) -> String {
    let rule = "=".repeat(name.chars().count() + 8);
    format!(
        "{rule}\n    {}\n{rule}\nBy order of git supervisor, this plan shall henceforth be known as\n{name}. May its sprints be short and its builds green.\n(written to EXECUTION_PLAN.md as `feature_name`)\n",
        name.to_uppercase()
    )
}

/// What a hand-called `name-feature` says before any run exists.
pub const REPROACH: &str = "Naming is a ritual of starting the plan, and nothing has started.\nOne does not christen a ship still in the drawing office: run\n`git supervisor start` and the plan will be named with due ceremony.\n(Nothing was written.)\n";

/// The name a plan gets: deterministic from its title and work units.
pub fn name_for(plan: &Plan) -> String {
    operation_name(plan)
}

pub fn cmd_name_feature(
    ctx: &Context,
    args: &NameFeatureArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "name-feature")?;
    let started = crate::store::Store::open(&loaded.root)
        .ok()
        .and_then(|s| s.tip().ok().flatten())
        .is_some();
    if !started {
        // Before any run the plan's name is the user's to give: one they
        // wrote is never replaced.
        match &loaded.plan.feature_name {
            None => write!(out, "{REPROACH}").map_err(super::io_err)?,
            Some(own) => writeln!(
                out,
                "{own} (your feature_name, kept: nothing has started, nothing was written)"
            )
            .map_err(super::io_err)?,
        }
        return Ok(EXIT_OK);
    }
    let name = name_for(&loaded.plan);
    if loaded.plan.feature_name.as_deref() == Some(name.as_str()) {
        writeln!(out, "{name} (unchanged)").map_err(super::io_err)?;
        return Ok(EXIT_OK);
    }
    super::write_file(&loaded.path, &set_feature_name(&loaded.source, &name))?;
    writeln!(out, "{name} (feature_name updated)").map_err(super::io_err)?;
    Ok(EXIT_OK)
}
