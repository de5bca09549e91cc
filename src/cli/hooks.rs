//! `git supervisor hooks install|uninstall|status` and the hidden
//! `git supervisor hook <name>` that the shims call.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use clap::Subcommand;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::hooks;

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Write the post-commit, post-merge and pre-push shims (existing hooks are kept and chained)
    Install,
    /// Remove the shims and restore the previous hooks exactly
    Uninstall,
    /// Show what is installed, which binary the shims run, and any drift
    Status {
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

pub fn cmd_hooks(ctx: &Context, args: &HooksArgs, out: &mut dyn Write) -> miette::Result<u8> {
    match &args.action {
        HooksAction::Install => {
            for (hook, what) in hooks::install(&ctx.cwd)? {
                let what = match what {
                    hooks::Installed::Written => "installed",
                    hooks::Installed::Chained => {
                        "installed; the existing hook is kept and runs first"
                    }
                    hooks::Installed::AlreadyInstalled => "already installed",
                };
                writeln!(out, "{hook}: {what}").into_diagnostic()?;
            }
        }
        HooksAction::Uninstall => {
            for (hook, what) in hooks::uninstall(&ctx.cwd)? {
                writeln!(out, "{hook}: {what}").into_diagnostic()?;
            }
        }
        HooksAction::Status { format } => {
            let st = hooks::status(&ctx.cwd)?;
            match format {
                Format::Json => {
                    serde_json::to_writer_pretty(&mut *out, &st).into_diagnostic()?;
                    writeln!(out).into_diagnostic()?;
                }
                Format::Text => {
                    writeln!(out, "Hooks directory: {}", st.dir).into_diagnostic()?;
                    if let Some(m) = st.manager {
                        writeln!(out, "Managed by {m}: chain git supervisor there (see `git supervisor hooks install`).").into_diagnostic()?;
                    }
                    for h in &st.hooks {
                        writeln!(out, "  {:<12} {}", h.hook, h.state).into_diagnostic()?;
                    }
                    match &st.on_path {
                        Some(p) if st.on_path_is_this => {
                            writeln!(out, "The shims run {p} (this binary).").into_diagnostic()?
                        }
                        Some(p) => writeln!(out, "The shims run {p}, which is not this binary.")
                            .into_diagnostic()?,
                        None => writeln!(
                            out,
                            "git-supervisor is not on PATH: the shims do nothing until it is."
                        )
                        .into_diagnostic()?,
                    }
                    if st.hooks.iter().any(|h| h.state == "drifted") {
                        writeln!(out, "Some shims differ from what this version writes: run `git supervisor hooks uninstall && git supervisor hooks install`.").into_diagnostic()?;
                    }
                }
            }
        }
    }
    Ok(EXIT_OK)
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The git hook that fired
    pub name: String,
    /// What git passed to the hook
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// What the shims call. post-commit and post-merge never fail and never
/// wait: they start a detached tick and return. pre-push ticks in place so
/// the state is current before the push.
pub fn cmd_hook(ctx: &Context, args: &HookArgs, _out: &mut dyn Write) -> miette::Result<u8> {
    if std::env::var_os("GIT_SUPERVISOR_INTERNAL").is_some() || !hooks::run_exists_fast(&ctx.cwd) {
        return Ok(EXIT_OK);
    }
    match args.name.as_str() {
        // A commit on another branch in a linked worktree is not the run's,
        // nor one in a clone whose run lives on a remote.
        "post-commit" | "post-merge"
            if !hooks::acts_here(&ctx.cwd) || hooks::run_lives_on_remote(&ctx.cwd) => {}
        "post-commit" | "post-merge" => {
            use std::os::unix::process::CommandExt;
            // A tick already running picks up a wake-up marker before it lets
            // go: leave one and exit, so a storm of commits never piles up
            // processes that each wait for the engine lock.
            if let Ok(engine) = crate::engine::Engine::open(&ctx.cwd) {
                if engine.wake_running_tick() {
                    return Ok(EXIT_OK);
                }
            }
            let spawned = std::env::current_exe().and_then(|exe| {
                let mut cmd = std::process::Command::new(exe);
                // SAFETY: nice() is async-signal-safe; it only lowers this
                // child's priority so the user's git command comes first.
                unsafe {
                    cmd.pre_exec(|| {
                        libc::nice(10);
                        Ok(())
                    });
                }
                cmd.args(["tick", "--no-wait"])
                    .current_dir(&ctx.cwd)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .process_group(0)
                    .spawn()
            });
            if let Err(e) = spawned {
                eprintln!(
                    "git-supervisor: could not wake the engine after {}: {e}",
                    args.name
                );
            }
        }
        "pre-push" => {
            let mut input = String::new();
            let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut input);
            let engine = match crate::engine::Engine::open(&ctx.cwd) {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("git-supervisor: state not updated before push: {e}");
                    return Ok(EXIT_OK);
                }
            };
            if let Err(e) = engine.tick(crate::engine::LockMode::Wait(Duration::from_secs(2))) {
                eprintln!("git-supervisor: state not updated before push: {e}");
            }
            if let Some(reason) = push_refused(&engine, &input) {
                eprintln!("git-supervisor: push refused: {reason}");
                return Ok(super::EXIT_ERROR);
            }
        }
        _ => {}
    }
    Ok(EXIT_OK)
}

/// The guard: a push to a branch listed in `[hooks] guard` is refused while
/// the latest phase checkpoint's verdict is `block`.
fn push_refused(engine: &crate::engine::Engine, input: &str) -> Option<String> {
    let tip = engine.store.tip().ok()??;
    let (_, config) = engine.snapshot(&tip).ok()?;
    if config.hooks.guard.is_empty() {
        return None;
    }
    let latest = engine
        .store
        .checkpoints_at(tip.id)
        .ok()?
        .into_iter()
        .max()?;
    let text = engine.store.checkpoint_at(tip.id, &latest).ok()??;
    if !text.contains("- Verdict: block") {
        return None;
    }
    // Lines: <local ref> <local sha> <remote ref> <remote sha>.
    let branch = input.lines().find_map(|l| {
        let remote = l.split_whitespace().nth(2)?;
        let name = remote.strip_prefix("refs/heads/")?;
        config
            .hooks
            .guard
            .iter()
            .any(|g| g == name)
            .then(|| name.to_string())
    })?;
    Some(format!("`{branch}` is guarded and the latest phase checkpoint ({latest}) is `block`; fix the build or push elsewhere"))
}
