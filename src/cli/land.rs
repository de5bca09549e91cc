//! `git supervisor land`: bring a COMPLETED run's integration branch onto
//! the branch `start` ran on: a fast-forward, or with `--merge` a merge
//! commit when that branch has moved on.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use crate::machine::Overall;
use crate::store::Store;
use crate::workspace::LandRefused;
use crate::workspace::Workspaces;

#[derive(Debug, Args)]
pub struct LandArgs {
    /// When the starting branch has moved on, merge instead of refusing
    #[arg(long)]
    pub merge: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_land(ctx: &Context, args: &LandArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let mut store = Store::open(&ctx.cwd)?;
    let remote = crate::store::remote::recorded(&store.runtime_dir());
    if let Some(r) = &remote {
        // A run on a remote: its state and integration branch are there.
        store = store.with_remote(r);
        store.remote().expect("just set").fetch()?;
    }
    let tip = store.tip()?.ok_or_else(|| {
        miette::miette!(
            code = "land::no_run",
            help = "start one with `git supervisor start`",
            "there is no run in this repository"
        )
    })?;
    let ws = Workspaces::of_run(&store, &tip).ok_or_else(|| {
        miette::miette!(
            code = "land::shared",
            help = "agents worked in this working tree: their commits are already on its branch",
            "the run did not use worktrees (`[run] workspace = \"worktree\"`)"
        )
    })?;
    if let Some(remote) = store.remote() {
        remote.adopt(&format!("refs/heads/{}", ws.integration_branch()))?;
    }
    let overall = tip.state.overall();
    if overall != Overall::Completed {
        return Err(miette::miette!(
            code = "land::unfinished",
            help = format!(
                "`git supervisor status` shows what is left; `{}` lands what is integrated so far by hand",
                ws.land_by_hand()
            ),
            "the run is {}, not COMPLETED",
            overall.as_str()
        ));
    }
    let runtime = store.runtime_dir();
    let branch = ws.start_branch(&runtime).ok_or_else(|| {
        miette::miette!(
            code = "land::no_branch",
            help = format!(
                "check out the branch to land on, then run `{}`",
                ws.land_by_hand()
            ),
            "the run started on a detached HEAD"
        )
    })?;
    let by_hand = ws.land_by_hand();
    match ws.land(&branch, args.merge)? {
        Ok(landed) => {
            match args.format {
                Format::Json => {
                    serde_json::to_writer_pretty(&mut *out, &landed).into_diagnostic()?;
                    writeln!(out).map_err(super::io_err)?;
                }
                Format::Text => writeln!(
                    out,
                    "Landed {} on {}: {}..{}.",
                    landed.integration,
                    landed.branch,
                    short(&landed.from),
                    short(&landed.to)
                )
                .map_err(super::io_err)?,
            }
            Ok(super::EXIT_OK)
        }
        Err(LandRefused::Dirty(files)) => Err(miette::miette!(
            code = "land::dirty",
            help = format!(
                "commit or stash them and run `git supervisor land` again; by hand:\n{by_hand}"
            ),
            "the working tree has uncommitted changes: {}",
            files.join(", ")
        )),
        Err(LandRefused::NotOnBranch { branch, head }) => Err(miette::miette!(
            code = "land::other_branch",
            help = format!(
                "`git checkout {}` first, or land by hand:\n{by_hand}",
                branch.trim_start_matches("refs/heads/")
            ),
            "the run started on {branch}, but HEAD is {head}"
        )),
        Err(LandRefused::Conflict) => Err(miette::miette!(
            code = "land::conflict",
            help = format!(
                "the merge was aborted; merge by hand and resolve the conflicts:\ngit merge {}",
                ws.integration_branch()
            ),
            "merging {} into {} conflicts",
            ws.integration_branch(),
            branch.trim_start_matches("refs/heads/")
        )),
        Err(LandRefused::NotFastForward) => Err(miette::miette!(
            code = "land::not_ff",
            help = format!(
                "`git supervisor land --merge`, or merge it by hand:\ngit merge {}",
                ws.integration_branch()
            ),
            "{} has moved since the run started: landing would not be a fast-forward",
            branch.trim_start_matches("refs/heads/")
        )),
    }
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
