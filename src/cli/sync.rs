//! `git supervisor sync [REMOTE]`: share the run's state and branches
//! through a git remote (see `store::sync`).

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use crate::store::sync::Relation;

/// The ref every run's transitions are committed to.
const STATE_REF: &str = "refs/supervisor/state";

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The git remote to sync with
    #[arg(default_value = "origin")]
    pub remote: String,
    /// Take the remote's refs/supervisor/state although it moved back to a
    /// commit that drops transitions this clone saw (this clone's history
    /// is kept under refs/supervisor/archive/); without it the sync stops
    #[arg(long)]
    pub accept_rewind: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

fn transitions(n: usize) -> String {
    format!("{n} transition{}", if n == 1 { "" } else { "s" })
}

/// One line on how the local state stands against a remote.
pub fn relation_text(remote: &str, r: Relation) -> String {
    match r {
        Relation::Neither => format!("{remote}: no run on either side"),
        Relation::LocalOnly => format!("{remote}: the run is only here"),
        Relation::RemoteOnly => format!("{remote}: the run is only on the remote"),
        Relation::Same => format!("{remote}: up to date"),
        Relation::Ahead { ahead } => format!("{remote}: {} ahead", transitions(ahead)),
        Relation::Behind { behind } => format!("{remote}: {} behind", transitions(behind)),
        Relation::Diverged { ahead, behind } => format!(
            "{remote}: diverged ({} only here, {behind} only on the remote)",
            transitions(ahead)
        ),
        Relation::NewerRunHere => {
            format!("{remote}: a newer run here; the remote's run is archived here")
        }
        Relation::NewerRunThere => {
            format!("{remote}: a newer run on the remote; this clone's run is archived there")
        }
    }
}

pub fn cmd_sync(ctx: &Context, args: &SyncArgs, out: &mut dyn Write) -> miette::Result<u8> {
    // The repository's top level, wherever in it the command runs.
    let store = crate::store::Store::open(&ctx.cwd)?;
    let dir = store.workdir().unwrap_or(&ctx.cwd).to_path_buf();
    if !crate::store::remote::known(&dir, &args.remote) {
        let remotes = crate::store::remote::names(&dir);
        let help = if remotes.is_empty() {
            format!(
                "this clone has no remote: `git remote add {} <url>`, then sync again",
                args.remote
            )
        } else {
            format!(
                "this clone's remotes: {}; name one (`git supervisor sync {}`) or add it with `git remote add {} <url>`",
                remotes.join(", "),
                remotes[0],
                args.remote
            )
        };
        return Err(miette::miette!(
            code = "sync::no_remote",
            help = help,
            "there is no git remote named `{}`",
            args.remote
        ));
    }
    let mut report = crate::store::sync::sync(&dir, &args.remote, args.accept_rewind)?;
    let mut unreplayed = None;
    if matches!(report.relation, Relation::Diverged { .. })
        && report.left.iter().any(|r| r == STATE_REF)
    {
        // Both sides moved on: this clone's events are decided again on
        // the remote's state, never over it.
        let engine = crate::engine::Engine::open(&dir)?;
        let replayed = engine.replay_onto_remote(&args.remote)?;
        report.reapplied = replayed.reapplied;
        report.dropped = replayed.dropped;
        match replayed.left {
            None => {
                report.left.retain(|r| r != STATE_REF);
                // Every event dropped: this clone took the remote's state.
                if report.reapplied.is_empty() {
                    report.taken.push(STATE_REF.to_string());
                } else {
                    report.pushed.push(STATE_REF.to_string());
                }
            }
            Some(why) => unreplayed = Some(why),
        }
    }
    let why = unreplayed
        .map(|w| format!(" (this clone's transitions were not decided again: {w})"))
        .unwrap_or_default();
    let failure = (!report.clean()).then(|| {
        format!(
            "left as they are, diverged from {} or refused by it: {}{why}",
            report.remote,
            report.left.join(", ")
        )
    });
    const HELP: &str = "nothing was overwritten on either side: keep one side's (on the other clone, `git update-ref <ref> refs/remotes/<remote>/supervisor/...` takes the remote's) and sync again";
    match args.format {
        Format::Json => {
            // One document, also when something was left: the report with
            // the error beside it.
            let mut doc = serde_json::to_value(&report).into_diagnostic()?;
            doc["ok"] = serde_json::Value::Bool(failure.is_none());
            if let Some(message) = &failure {
                doc["error"] = serde_json::json!({
                    "code": "sync::diverged",
                    "message": message,
                    "help": HELP,
                });
            }
            serde_json::to_writer_pretty(&mut *out, &doc).into_diagnostic()?;
            writeln!(out).into_diagnostic()?;
            return Ok(if failure.is_none() {
                super::EXIT_OK
            } else {
                super::EXIT_ERROR
            });
        }
        Format::Text => {
            writeln!(
                out,
                "Before: {}",
                relation_text(&report.remote, report.relation)
            )
            .into_diagnostic()?;
            for r in &report.taken {
                writeln!(out, "Took {r} from {}", report.remote).into_diagnostic()?;
            }
            for r in &report.pushed {
                writeln!(out, "Pushed {r} to {}", report.remote).into_diagnostic()?;
            }
            for e in &report.reapplied {
                writeln!(out, "Decided again on the remote's state: {e}").into_diagnostic()?;
            }
            for e in &report.dropped {
                writeln!(out, "No longer applies on the remote's state, dropped: {e}")
                    .into_diagnostic()?;
            }
            if report.taken.is_empty() && report.pushed.is_empty() && report.clean() {
                writeln!(out, "Nothing to sync.").into_diagnostic()?;
            }
        }
    }
    match failure {
        None => Ok(super::EXIT_OK),
        Some(message) => Err(miette::miette!(
            code = "sync::diverged",
            help = HELP,
            "{message}"
        )),
    }
}
