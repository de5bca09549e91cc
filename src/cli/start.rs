//! `git supervisor start [PATH] [--wait]`: snapshot the plan and config,
//! record the run, dispatch what is eligible.

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
pub struct StartArgs {
    /// Path to EXECUTION_PLAN.md (or its directory); default: search upward
    pub path: Option<PathBuf>,
    /// Stay until every work unit is terminal; exit 0 only if the run completed
    #[arg(long)]
    pub wait: bool,
    /// Run on this git remote: its refs/supervisor/state is the run's one
    /// source of truth and `git supervisor worker` on any clone claims the
    /// sprints (default: `[run] remote`)
    #[arg(long, value_name = "REMOTE")]
    pub remote: Option<String>,
}

pub fn cmd_start(ctx: &Context, args: &StartArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let mut loaded = load_plan(ctx, args.path.as_deref(), "start")?;
    // The ritual (spec §X-134): a plan without a name gets one, in the run's
    // snapshot now and in the working tree once the run has started.
    // The supervisor leaves no uncommitted edit of its own: a clean plan
    // gets its name in a commit of its own; a plan with uncommitted edits is
    // left alone and the name lives in the run's state only.
    let christened = if loaded.plan.feature_name.is_none() {
        let name = super::name_feature::name_for(&loaded.plan);
        let clean = crate::store::worktree::is_clean(&loaded.path);
        if clean {
            loaded.source =
                crate::plan_tools::name_feature::set_feature_name(&loaded.source, &name);
        }
        loaded.plan.feature_name = Some(name.clone());
        Some((name, clean))
    } else {
        None
    };
    let config = Config::load(&loaded.root)?;
    let config_text = crate::config::read_regular(&loaded.root.join(CONFIG_DIR).join(CONFIG_FILE))
        .unwrap_or_default();
    // The clone remembers where its run lives, so every later command
    // (status, wait, resume, hooks) publishes there too.
    let remote = args.remote.clone().or_else(|| config.run.remote.clone());
    if let Some(r) = remote
        .as_deref()
        .filter(|r| !crate::store::remote::known(&loaded.root, r))
    {
        let remotes = crate::store::remote::names(&loaded.root);
        let known = if remotes.is_empty() {
            "this clone has none".to_string()
        } else {
            format!("this clone's remotes: {}", remotes.join(", "))
        };
        return Err(miette::miette!(
            code = "run::no_remote",
            help = format!(
                "add it with `git remote add {r} <url>`, or name another with --remote ({known})"
            ),
            "there is no git remote named `{r}`"
        ));
    }
    // Workers run the agent program from their own clones: one that lives
    // in this repository must be committed, or every attempt fails there.
    if let (Some(r), Some(program)) = (
        remote.as_deref(),
        config.agent_command().and_then(|c| c.first()),
    ) {
        let relative = program.contains('/') && !std::path::Path::new(program).is_absolute();
        let committed = || {
            crate::workspace::git(
                &loaded.root,
                &["rev-parse", "--verify", "-q", &format!("HEAD:./{program}")],
            )
            .is_ok_and(|r| r.code == 0)
        };
        if relative && !committed() {
            return Err(miette::miette!(
                code = "run::agent_not_committed",
                help = format!("commit it (`git add {program} && git commit`) and push, then start again: workers on `{r}` run it from their own clones"),
                "the agent program `{program}` is not committed"
            ));
        }
    }
    let store = crate::store::Store::open(&loaded.root)?;
    let recorded = crate::store::remote::recorded(&store.runtime_dir());
    crate::store::remote::record(&store.runtime_dir(), remote.as_deref()).into_diagnostic()?;
    let engine = Engine::open(&loaded.root)?;
    // A run that ended without completing is archived by a new start: say
    // so, since `resume` would have continued it.
    let previous = engine
        .store
        .tip()
        .ok()
        .flatten()
        .map(|t| t.state)
        .filter(|s| s.is_finished() && s.overall() != crate::machine::Overall::Completed);
    let started = engine.start(
        &loaded.plan,
        &loaded.source,
        &config_text,
        &config,
        &loaded.root,
    );
    let state = match started {
        Ok(state) => state,
        Err(e) => {
            // A refused start leaves the clone as it was.
            let _ = crate::store::remote::record(&store.runtime_dir(), recorded.as_deref());
            return Err(e.into());
        }
    };
    if let Some((name, clean)) = &christened {
        write!(out, "{}", super::name_feature::announcement(name)).into_diagnostic()?;
        let file = loaded
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        if *clean {
            // Before any agent is dispatched, so no agent's scope holds it.
            let before = crate::config::read_regular(&loaded.path).into_diagnostic()?;
            super::write_file(&loaded.path, &loaded.source)?;
            let message = format!("Name the plan: {name}");
            let committed = crate::store::worktree::commit_file(&loaded.path, &message);
            if committed.is_ok() {
                engine.integration_follows_head(&state, &config)?;
            }
            if let Err(why) = committed {
                // Leave nothing behind: the name stays in the run only.
                super::write_file(&loaded.path, &before)?;
                writeln!(
                    out,
                    "The name is kept in the run only: committing {file} failed ({why})."
                )
                .into_diagnostic()?;
            }
        } else {
            writeln!(
                out,
                "{file} has uncommitted edits, so it is left as it is; the name is kept in the run."
            )
            .into_diagnostic()?;
        }
    }
    if let Some(p) = previous.filter(|p| p.run_id != state.run_id) {
        writeln!(
            out,
            "The previous run, {} (run {}), was {} and is archived as {}{}; `git supervisor resume` continues such a run instead of starting anew.",
            p.operation,
            p.run_id,
            p.overall().as_str(),
            crate::store::RUNS_PREFIX,
            p.run_id
        )
        .into_diagnostic()?;
    }
    writeln!(
        out,
        "Started {} (run {}): {} work units, {} sprints.",
        state.operation,
        state.run_id,
        state.units.len(),
        state.sprint_total()
    )
    .into_diagnostic()?;
    if let Some(ws) = engine.workspaces(&state, &config) {
        let land = match config.run.land {
            crate::config::Land::Off => "`git supervisor land` when the run completes",
            _ => "`[run] land` lands the work on them when the run completes",
        };
        match &remote {
            // The worktrees are the workers', on their machines.
            Some(r) => writeln!(
                out,
                "Each claimed sprint works in a worktree of its unit's branch on the worker that claims it, and its verified work is merged into `{}` on `{r}`; your branch and working tree stay as they are ({land}).",
                ws.integration_branch(),
            ),
            None => writeln!(
                out,
                "Each unit works in its own worktree under {} and its verified sprints are merged into `{}`; your branch and working tree stay as they are ({land}).",
                ws.dir.display(),
                ws.integration_branch(),
            ),
        }
        .into_diagnostic()?;
        // The worktrees start from HEAD: edits not yet committed stay here.
        let dirty =
            crate::workspace::git(&ws.repo, &["status", "--porcelain", "--untracked-files=no"])
                .map(|r| r.stdout.lines().count())
                .unwrap_or(0);
        if dirty > 0 {
            writeln!(
                out,
                "Note: {dirty} file(s) with uncommitted changes here are not in the units' worktrees, which start from your last commit (commit before `start` when the agents need them)."
            )
            .into_diagnostic()?;
        }
    }
    if let Some(r) = &remote {
        writeln!(
            out,
            "The run lives on `{r}`: sprints are published DISPATCHED there for `git supervisor worker` on any clone to claim."
        )
        .into_diagnostic()?;
    }
    super::tick_and_report(&engine, out)?;
    if args.wait {
        return super::wait::wait_and_report(ctx, &engine, None, out);
    }
    Ok(super::EXIT_OK)
}
