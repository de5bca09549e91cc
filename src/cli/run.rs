//! `git supervisor run [PATH]`: start (or resume) and stay in the foreground
//! until the run ends, with a live view on stderr when it is a terminal (one
//! screen redrawn in place), else the status table each time it changes.
//! The terminal bell rings when something new needs the user (a unit
//! BLOCKED, a sprint to confirm, a usage-limit pause) and when the run
//! ends; `--quiet` keeps it silent.

use std::io::IsTerminal;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Context;
use crate::engine::Engine;
use crate::report;
use crate::store::Store;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Path to EXECUTION_PLAN.md when no run exists yet
    pub path: Option<PathBuf>,
    /// Never ring the terminal bell
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn cmd_run(ctx: &Context, args: &RunArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let exists = Store::open(&ctx.cwd)?
        .tip()?
        .is_some_and(|t| !t.state.is_finished());
    if exists {
        super::resume::cmd_resume(ctx, &super::resume::ResumeArgs { wait: false }, out)?;
    } else {
        super::start::cmd_start(
            ctx,
            &super::start::StartArgs {
                path: args.path.clone(),
                wait: false,
                remote: None,
                yes: false,
                format: Default::default(),
            },
            out,
        )?;
    }
    let engine = Engine::open(&ctx.cwd)?;
    let tty = std::io::stderr().is_terminal();
    let live = super::live::stderr_available();
    let mut screen = super::live::Screen::default();
    let mut last = String::new();
    let bell = tty && !args.quiet;
    let mut heard: Option<std::collections::BTreeSet<String>> = None;
    let state = engine.wait(None, |state, lines| {
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        if bell {
            let now = engine.store.clock().iso_at_seq(state.seq);
            let needs: std::collections::BTreeSet<String> = report::needs_you::needs(state, &now)
                .into_iter()
                .map(|n| format!("{} {}", n.kind, n.message))
                .collect();
            // What needed the user before `run` began rang no bell then.
            if heard.as_ref().is_some_and(|h| !needs.is_subset(h)) {
                let _ = write!(std::io::stderr(), "\x07");
            }
            heard = Some(needs);
        }
        if live {
            let _ = out.flush();
            let _ = screen.draw(&mut std::io::stderr(), &engine.store, state);
            return;
        }
        let table = report::status::text(
            Some(state),
            &engine.store.clock().iso_at_seq(state.seq),
            ctx.color,
        );
        if table != last {
            let mut err = std::io::stderr();
            if tty {
                // Redraw in place: clear the screen below the cursor.
                let _ = write!(err, "\x1b[H\x1b[J");
            }
            let _ = write!(err, "{table}");
            last = table;
        }
    })?;
    if bell {
        let _ = write!(std::io::stderr(), "\x07");
    }
    super::wait::print_final(ctx, &engine, &state, out)?;
    Ok(super::wait::exit_code(&state))
}
