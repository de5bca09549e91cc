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
use crate::workspace::Workspaces;

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
    /// Stay and show the run as it changes until it ends: one screen redrawn
    /// in place on a terminal, else the table each time it changes
    #[arg(long, conflicts_with_all = ["diff", "format"])]
    pub watch: bool,
}

/// `status --watch`: follow the published state (reads only, ticks nothing).
fn watch(ctx: &Context, store: &Store, out: &mut dyn Write) -> miette::Result<u8> {
    let live = super::live::stdout_available();
    let mut screen = super::live::Screen::default();
    let mut last = String::new();
    loop {
        let tip = store.tip()?;
        let Some(t) = &tip else {
            writeln!(out, "No run in this repository.").map_err(super::io_err)?;
            return Ok(EXIT_OK);
        };
        if live {
            out.flush().map_err(super::io_err)?;
            screen
                .draw(&mut std::io::stdout(), store, &t.state)
                .map_err(super::io_err)?;
        } else {
            let stamp = store.clock().iso_at_seq(t.state.seq);
            let table = report::status::text(Some(&t.state), &stamp, ctx.color);
            if table != last {
                write!(out, "{table}").map_err(super::io_err)?;
                out.flush().map_err(super::io_err)?;
                last = table;
            }
        }
        if t.state.is_finished() {
            return Ok(EXIT_OK);
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
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
    use crate::plan_tools::name_feature::without_feature_name;
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

/// The working tree's `.workflow/config.toml` against the run's snapshot,
/// like [`plan_drift`].
fn config_drift(store: &Store, tip: &crate::store::Tip) -> miette::Result<Option<String>> {
    let snapshot = store.snapshot_at(tip.id)?;
    let Some(workdir) = store.workdir() else {
        return Ok(None);
    };
    let path = workdir
        .join(&tip.state.root)
        .join(crate::config::CONFIG_DIR)
        .join(crate::config::CONFIG_FILE);
    let current = crate::config::read_regular(&path).unwrap_or_default();
    if current == snapshot.config {
        return Ok(None);
    }
    let diff = similar::TextDiff::from_lines(&snapshot.config, &current)
        .unified_diff()
        .context_radius(2)
        .header(
            ".workflow/config.toml (the run's snapshot)",
            ".workflow/config.toml (working tree)",
        )
        .to_string();
    Ok(Some(diff))
}

fn changed_lines(diff: &str) -> usize {
    diff.lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .count()
}

/// Deferred conditions a wrapper is polling with the plan's own checks: how
/// many checks found them not met, from the wrapper's output log (the state
/// counts only checks made by agents).
/// Overlaps found between units that still work: "api and web both edit
/// src/routes.ts — conflict predicted".
fn overlap_lines(store: &Store, tip: &crate::store::Tip) -> Vec<String> {
    crate::engine::overlap::live(&store.runtime_dir(), &tip.state)
        .iter()
        .map(|o| format!("{}.", o.sentence()))
        .collect()
}

/// Sprints of a run on a remote that a worker holds by its lease while the
/// state still says DISPATCHED: a claim is its lease, and its RUNNING
/// transition rides on that worker's next push of the state.
fn lease_claims(store: &Store, tip: &crate::store::Tip) -> Vec<String> {
    let (Some(r), Some(dir)) = (
        crate::store::remote::recorded(&store.runtime_dir()),
        store.workdir(),
    ) else {
        return Vec::new();
    };
    let remote = crate::store::remote::Remote::new(dir, &store.runtime_dir(), &r);
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let mut out = Vec::new();
    for (_, id) in remote.tracked_under(crate::store::lease::LEASES_PREFIX) {
        if store.lease_verdict(&id).is_some() {
            continue;
        }
        let Some(lease) = store.read_lease(&id).filter(|l| !l.expired_at(now)) else {
            continue;
        };
        let Some(sp) = tip
            .state
            .unit(&lease.subject)
            .and_then(|u| u.active_sprint())
            .filter(|sp| sp.state == crate::machine::SprintStatus::Dispatched)
        else {
            continue;
        };
        out.push(format!(
            "{} sprint {}: claimed by worker {} (dispatch {}); its agent is at work, and RUNNING is recorded with that worker's next push",
            lease.subject, sp.id, lease.worker, lease.dispatch
        ));
    }
    out
}

fn deferred_polls(store: &Store, tip: &crate::store::Tip) -> Vec<String> {
    let Some(common) = store
        .runtime_dir()
        .parent()
        .map(std::path::Path::to_path_buf)
    else {
        return Vec::new();
    };
    let plan = store.snapshot_at(tip.id).ok().and_then(|snap| {
        crate::plan::parse(&snap.plan, &crate::plan::ParseContext::default()).ok()
    });
    let mut out = Vec::new();
    for u in &tip.state.units {
        let Some(sp) = u.active_sprint() else {
            continue;
        };
        if sp.task_type != crate::plan::TaskType::Deferred || sp.checks > 0 {
            continue;
        }
        let Some(agent) = &sp.agent else { continue };
        let log = std::fs::read_to_string(common.join(&agent.log)).unwrap_or_default();
        let polls = log
            .lines()
            .rev()
            .find_map(|l| l.split("deferred check not met yet (poll ").nth(1))
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u32>().ok());
        let Some(polls) = polls else { continue };
        let condition = plan
            .as_ref()
            .and_then(|p| p.unit(&u.name))
            .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
            .map(|s| {
                s.exit
                    .iter()
                    .filter_map(|c| c.command.clone())
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(" && ")
            })
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| format!("sprint {}'s condition", sp.id));
        out.push(report::status::deferred_wait(&u.name, &condition, polls));
    }
    out
}

/// The snapshot's sprints no exit-criterion command can check.
fn unchecked(store: &Store, tip: &crate::store::Tip) -> Vec<report::criteria::Unchecked> {
    store
        .snapshot_at(tip.id)
        .ok()
        .and_then(|snap| crate::plan::parse(&snap.plan, &crate::plan::ParseContext::default()).ok())
        .map(|plan| report::criteria::unchecked(&plan))
        .unwrap_or_default()
}

/// Where each unit works: its branch and worktree (or that the worktree is
/// gone), under the integration branch.
fn workspaces_text(ws: &Workspaces, state: &crate::machine::State) -> String {
    let mut s = format!("Integration branch: {}\n", ws.integration_branch());
    for (name, w) in ws.describe_all(state) {
        s.push_str(&format!(
            "  {}  {}  {}{}\n",
            crate::base::escape::visible(&name),
            w.branch,
            w.worktree,
            if w.present { "" } else { " (removed)" }
        ));
        if !w.uncommitted.is_empty() {
            let files: Vec<&str> = w
                .uncommitted
                .iter()
                .map(|l| l.get(3..).unwrap_or(l))
                .collect();
            s.push_str(&format!(
                "    uncommitted: {}\n",
                crate::base::escape::visible(&files.join(", "))
            ));
        }
    }
    s
}

pub fn cmd_status(ctx: &Context, args: &StatusArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    if args.watch {
        return watch(ctx, &store, out);
    }
    // A run on a remote is shown as the remote holds it: this clone's
    // copy is only as new as its last fetch.
    if let (Some(r), Some(dir)) = (
        crate::store::remote::recorded(&store.runtime_dir()),
        store.workdir(),
    ) {
        if let Err(e) = crate::store::remote::Remote::new(dir, &store.runtime_dir(), &r).fetch() {
            eprintln!("warning: {e}; showing the run as this clone last fetched it");
        }
    }
    let tip = store.tip()?;
    let state = tip.as_ref().map(|t| &t.state);
    let drift = match &tip {
        Some(t) => plan_drift(&store, t)?,
        None => None,
    };
    let config_drift = match &tip {
        Some(t) => config_drift(&store, t)?,
        None => None,
    };
    let usage = match state {
        Some(s) => Some(report::usage::of_run(&store.history(None)?, s)),
        None => None,
    };
    match args.format {
        StatusFormat::Json => {
            let mut v = report::status::json(state);
            v.model_usage = usage;
            if let Some(t) = &tip {
                v.background =
                    report::status::background(&t.state, &crate::dispatch::background::running);
                v.waiting.extend(deferred_polls(&store, t));
                v.waiting.extend(lease_claims(&store, t));
                v.waiting.extend(overlap_lines(&store, t));
                v.no_runnable_criterion = unchecked(&store, t);
                v.agent_last_lines = super::live::last_lines(&store, &t.state);
            }
            if let Some(ws) = tip.as_ref().and_then(|t| Workspaces::of_run(&store, t)) {
                v.integration_branch = Some(ws.integration_branch());
                v.workspaces = ws.describe_all(&tip.as_ref().expect("a run").state);
                v.landed = ws.land_note(&store.runtime_dir());
            }
            if let Some(dir) = store.workdir() {
                v.remotes = crate::store::sync::synced_remotes(dir)
                    .into_iter()
                    .filter_map(|r| {
                        let rel = crate::store::sync::last_known(dir, &r)?;
                        Some((r, rel))
                    })
                    .collect();
            }
            v.plan_drift = drift.is_some();
            v.config_drift = config_drift.is_some();
            if args.diff {
                v.plan_diff = drift.clone();
                v.config_diff = config_drift.clone();
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
            let table = report::status::text_with_usage(state, &stamp, ctx.color, usage.as_ref());
            write!(out, "{table}").map_err(super::io_err)?;
            if let Some(t) = &tip {
                let background =
                    report::status::background(&t.state, &crate::dispatch::background::running);
                for line in report::status::background_lines(&background) {
                    // Unit names and command lines are free text.
                    let line = crate::base::escape::visible(&line);
                    writeln!(out, "{line}").map_err(super::io_err)?;
                }
                for line in deferred_polls(&store, t)
                    .into_iter()
                    .chain(overlap_lines(&store, t))
                    .chain(lease_claims(&store, t))
                {
                    // Unit names and exit criteria are the plan's free text.
                    let line = crate::base::escape::visible(&line);
                    writeln!(out, "{line}").map_err(super::io_err)?;
                }
                if let Some(line) = report::criteria::notice(&unchecked(&store, t)) {
                    writeln!(out, "{line}.").map_err(super::io_err)?;
                }
                let lives_on = crate::store::remote::recorded(&store.runtime_dir());
                if let Some(r) = &lives_on {
                    writeln!(
                        out,
                        "The run lives on `{r}`: its workers' worktrees are on their machines; the integration branch is on `{r}`."
                    )
                    .map_err(super::io_err)?;
                }
                if let Some(dir) = store.workdir().filter(|_| lives_on.is_none()) {
                    for remote in crate::store::sync::synced_remotes(dir) {
                        if let Some(r) = crate::store::sync::last_known(dir, &remote) {
                            writeln!(
                                out,
                                "Remote {} (as of the last `git supervisor sync`)",
                                super::sync::relation_text(&remote, r)
                            )
                            .map_err(super::io_err)?;
                        }
                    }
                }
                let here = Workspaces::of_run(&store, t).filter(|_| lives_on.is_none());
                if let Some(ws) = here {
                    write!(out, "{}", workspaces_text(&ws, &t.state)).map_err(super::io_err)?;
                    if let Some(note) = ws.land_note(&store.runtime_dir()) {
                        writeln!(out, "{}", crate::base::escape::visible(&note))
                            .map_err(super::io_err)?;
                    }
                }
            }
            if let Some(diff) = &drift {
                let changed = changed_lines(diff);
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
            if let Some(diff) = &config_drift {
                writeln!(
                    out,
                    "Config drift: .workflow/config.toml differs from the run's snapshot ({} changed lines); the run keeps its snapshot's commands until `git supervisor replan`.{}",
                    changed_lines(diff),
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
