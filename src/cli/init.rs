//! `git supervisor init`: copy the bundled `.workflow-template/` into the
//! project's `.workflow/`, never overwriting without `--force`, with one
//! agent preset switched on: the one named by `--agent`, else the first of
//! `claude`, `codex`, `aider` found on `PATH` (see `config::presets`).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;
use miette::WrapErr;

use super::Context;
use super::EXIT_OK;
use crate::config::presets;
use crate::config::presets::Preset;
use crate::config::CONFIG_DIR;
use crate::plan::resolve::resolve_plan;

/// The template, embedded so that an installed binary carries it.
pub const TEMPLATE: &[(&str, &str)] = &[
    (
        "config.toml",
        include_str!("../../.workflow-template/config.toml"),
    ),
    (
        "EXECUTION_PLAN.example.md",
        include_str!("../../.workflow-template/EXECUTION_PLAN.example.md"),
    ),
    (
        "prompt-template.md",
        include_str!("../../.workflow-template/prompt-template.md"),
    ),
    (
        "agent.sh",
        include_str!("../../.workflow-template/agent.sh"),
    ),
];

/// Template files written executable.
const EXECUTABLE: &[&str] = &["agent.sh"];

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The project root (default: the directory of the plan found from the
    /// current directory, else the current directory)
    pub dir: Option<PathBuf>,
    /// Overwrite files that already exist
    #[arg(long)]
    pub force: bool,
    /// The agent preset to switch on (default: the first of claude, codex,
    /// aider found on PATH)
    #[arg(long, value_enum)]
    pub agent: Option<Preset>,
}

pub fn cmd_init(ctx: &Context, args: &InitArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let root = match &args.dir {
        Some(d) => ctx.cwd.join(d),
        None => resolve_plan(None, &ctx.cwd, "init")
            .ok()
            .and_then(|p| p.parent().map(PathBuf::from))
            .unwrap_or_else(|| ctx.cwd.clone()),
    };
    let target = root.join(CONFIG_DIR);
    let existing: Vec<&str> = TEMPLATE
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| target.join(name).exists())
        .collect();
    if !existing.is_empty() && !args.force {
        return Err(miette::miette!(
            code = "init::exists",
            help = "pass --force to overwrite them",
            "{} already has {}",
            target.display(),
            existing.join(", ")
        ));
    }
    std::fs::create_dir_all(&target)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot create {}", target.display()))?;
    let chosen = match args.agent {
        Some(preset) => Some((preset, None)),
        None => presets::detect(&std::env::var_os("PATH").unwrap_or_default())
            .map(|(preset, at)| (preset, Some(at))),
    };
    // The project's own build and test, from its manifest files.
    let project = crate::config::project_commands(&root);
    let build_command = project.as_ref().and_then(|p| match (&p.build, &p.test) {
        (Some(b), Some(t)) => Some(format!("{b} && {t}")),
        (Some(c), None) | (None, Some(c)) => Some(c.clone()),
        (None, None) => None,
    });
    // Agents in worktrees need the project's untracked .env too.
    let has_env = root.join(".env").is_file();
    // A desktop that has notify-send hears about what needs the user.
    let notify_send =
        presets::find_on_path("notify-send", &std::env::var_os("PATH").unwrap_or_default());
    for (name, text) in TEMPLATE {
        let path = target.join(name);
        let mut text = match (*name, &chosen) {
            ("config.toml", Some((preset, _))) => presets::enable(text, *preset)
                .map_err(|e| miette::miette!(code = "init::template", "{e}"))?,
            _ => text.to_string(),
        };
        if *name == "config.toml" {
            if let Some(cmd) = &build_command {
                text = set_build_command(&text, cmd);
            }
            if has_env {
                text = text.replacen(
                    "copy = []                        # untracked files copied into each new worktree, e.g. [\".env\"]",
                    "copy = [\".env\"]                  # this project's .env (untracked settings and secrets), copied into each unit's worktree",
                    1,
                );
            }
            if notify_send.is_some() {
                text = text.replacen(
                    "# It runs detached",
                    &format!("command = {NOTIFY_SEND}\n# It runs detached"),
                    1,
                );
            }
        }
        super::write_file(&path, &text)?;
        if EXECUTABLE.contains(name) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .into_diagnostic()
                .wrap_err_with(|| format!("cannot make {} executable", path.display()))?;
        }
        writeln!(out, "wrote {CONFIG_DIR}/{name}").map_err(super::io_err)?;
    }
    match &chosen {
        Some((preset, Some(at))) => writeln!(
            out,
            "agent: {} (found {} on PATH; pass --agent to choose another)",
            preset.name(),
            at.display()
        ),
        Some((preset, None)) => writeln!(out, "agent: {}", preset.name()),
        None => writeln!(
            out,
            "agent: none of claude, codex, aider is on PATH; every preset in {CONFIG_DIR}/config.toml is left commented (or run `git supervisor init --force --agent script`)"
        ),
    }
    .map_err(super::io_err)?;
    match (&project, &build_command) {
        (Some(p), Some(cmd)) => writeln!(
            out,
            "build: `{cmd}` at each phase boundary (a {} project; edit [build] command to change it)",
            p.ecosystem
        ),
        _ => writeln!(
            out,
            "build: no build or test command recognised (Cargo.toml, package.json, go.mod, pyproject.toml, Package.swift, Makefile, CMakeLists.txt); set [build] command in {CONFIG_DIR}/config.toml"
        ),
    }
    .map_err(super::io_err)?;
    if has_env {
        writeln!(
            out,
            "workspace: copy = [\".env\"] (this project has one; each unit's worktree gets a copy)"
        )
        .map_err(super::io_err)?;
    }
    match &notify_send {
        Some(at) => writeln!(
            out,
            "notify: notify-send (found {} on PATH; edit [notify] to change it)",
            at.display()
        ),
        None => writeln!(
            out,
            "notify: off (set [notify] command to hear when the run needs you; the README shows ntfy and a webhook)"
        ),
    }
    .map_err(super::io_err)?;
    match crate::hooks::install(&root) {
        Ok(done) => {
            for (hook, _) in done {
                writeln!(out, "hook {hook}: installed").map_err(super::io_err)?;
            }
        }
        Err(crate::hooks::HooksError::NoHooksDir(_)) => {
            writeln!(out, "not a git repository: hooks not installed (run `git supervisor hooks install` after `git init`)")
                .map_err(super::io_err)?;
        }
        Err(e @ crate::hooks::HooksError::Managed { .. }) => {
            writeln!(out, "hooks not installed: {e}").map_err(super::io_err)?;
        }
        Err(e) => return Err(e.into()),
    }
    let first = if chosen.is_some() {
        String::new()
    } else {
        format!("uncomment an agent preset in {CONFIG_DIR}/config.toml, ")
    };
    let plan = resolve_plan(Some(&root), &root, "init").ok();
    match plan {
        Some(plan) => writeln!(
            out,
            "next: {first}run `git supervisor plan` to check {}, then `git supervisor start`",
            plan.strip_prefix(&root).unwrap_or(&plan).display()
        ),
        None => writeln!(
            out,
            "next: {first}write EXECUTION_PLAN.md (see {CONFIG_DIR}/EXECUTION_PLAN.example.md), then run `git supervisor plan`"
        ),
    }
    .map_err(super::io_err)?;
    Ok(EXIT_OK)
}

/// `[notify] command` when notify-send is on PATH.
const NOTIFY_SEND: &str =
    r#"["sh", "-c", "notify-send \"git supervisor: $SUPERVISOR_EVENT\" \"$SUPERVISOR_MESSAGE\""]"#;

/// The template's config with `[build] command` set: the commented example
/// line under `[build]` becomes the project's command (TOML-quoted).
fn set_build_command(config: &str, command: &str) -> String {
    let quoted = toml::Value::String(command.to_string()).to_string();
    let mut out = String::new();
    let mut in_build = false;
    let mut done = false;
    for line in config.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            in_build = t == "[build]";
        }
        if in_build && !done && t.starts_with("# command =") {
            out.push_str(&format!("command = {quoted}\n"));
            done = true;
            continue;
        }
        out.push_str(line);
        if in_build && !done && t == "[build]" && !config.contains("# command =") {
            out.push_str(&format!("command = {quoted}\n"));
            done = true;
        }
    }
    out
}
