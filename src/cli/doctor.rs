//! `git supervisor doctor`: checks the repository, the hooks, the config and
//! what earlier runs left, and says for each what is wrong and how to fix
//! it. Reads only; writes nothing. Exit 0 when nothing is a problem.

use crate::base::runtime;

use std::io::Write;
use std::path::Path;

use clap::Args;
use miette::IntoDiagnostic;
use serde::Serialize;

use super::Context;
use super::Format;
use super::EXIT_ERROR;
use super::EXIT_OK;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warning,
    Problem,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub check: &'static str,
    pub level: Level,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

fn check(name: &'static str, level: Level, message: String, fix: Option<String>) -> Check {
    Check {
        check: name,
        level,
        message,
        fix,
    }
}

/// The oldest git with `merge-tree --write-tree` and `worktree` as used.
const GIT_MIN: (u32, u32) = (2, 38);

fn git_version() -> Check {
    let out = std::process::Command::new("git").arg("--version").output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        return check(
            "git",
            Level::Problem,
            "git is not on PATH".into(),
            Some("install git 2.38 or newer".into()),
        );
    };
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let version: Vec<u32> = text
        .split_whitespace()
        .nth(2)
        .unwrap_or("")
        .split('.')
        .map_while(|p| p.parse().ok())
        .collect();
    let (major, minor) = (
        version.first().copied().unwrap_or(0),
        version.get(1).copied().unwrap_or(0),
    );
    if (major, minor) >= GIT_MIN {
        check("git", Level::Ok, text, None)
    } else {
        check(
            "git",
            Level::Warning,
            format!("{text}: older than {}.{}", GIT_MIN.0, GIT_MIN.1),
            Some("upgrade git; worktrees and merges need 2.38 or newer".into()),
        )
    }
}

fn repository(cwd: &Path) -> (Check, Option<crate::store::Store>) {
    match crate::store::Store::open(cwd) {
        Ok(store) => (
            check(
                "repository",
                Level::Ok,
                "sha1 objects, files ref storage".into(),
                None,
            ),
            Some(store),
        ),
        Err(e) => {
            use miette::Diagnostic;
            let fix = e.help().map(|h| h.to_string());
            (
                check("repository", Level::Problem, e.to_string(), fix),
                None,
            )
        }
    }
}

fn hooks(cwd: &Path) -> Vec<Check> {
    let status = match crate::hooks::status(cwd) {
        Ok(s) => s,
        Err(e) => {
            use miette::Diagnostic;
            return vec![check(
                "hooks",
                Level::Warning,
                e.to_string(),
                e.help().map(|h| h.to_string()),
            )];
        }
    };
    let mut out = Vec::new();
    let states: Vec<&str> = status.hooks.iter().map(|h| h.state).collect();
    if let Some(manager) = status.manager {
        out.push(check(
            "hooks",
            Level::Warning,
            format!("{manager} manages the hooks directory ({}); commits wake the engine only if its hooks call git supervisor", status.dir),
            Some(format!("add `git supervisor hook <name> \"$@\" || true` to {manager}'s post-commit, post-merge and pre-push (`git supervisor hooks install` prints the lines)")),
        ));
    } else if states.iter().all(|s| *s == "installed" || *s == "chained") {
        let chained = states.iter().filter(|s| **s == "chained").count();
        out.push(check(
            "hooks",
            Level::Ok,
            format!(
                "post-commit, post-merge and pre-push installed in {}{}",
                status.dir,
                if chained > 0 {
                    format!(" ({chained} chained to the hooks that were there)")
                } else {
                    String::new()
                }
            ),
            None,
        ));
    } else {
        let missing: Vec<String> = status
            .hooks
            .iter()
            .filter(|h| h.state != "installed" && h.state != "chained")
            .map(|h| format!("{} ({})", h.hook, h.state))
            .collect();
        out.push(check(
            "hooks",
            Level::Warning,
            format!(
                "not installed: {}; agents' exits still wake the engine, commits do not",
                missing.join(", ")
            ),
            Some("git supervisor hooks install".into()),
        ));
    }
    match (&status.on_path, status.on_path_is_this) {
        (None, _) => out.push(check(
            "hooks",
            Level::Warning,
            "git-supervisor is not on PATH, so the hook shims cannot run it".into(),
            Some("install it (cargo install --path . --bin git-supervisor) or add its directory to PATH".into()),
        )),
        (Some(p), false) => out.push(check(
            "hooks",
            Level::Warning,
            format!("the hook shims run {p}, not this binary"),
            Some("put this build first on PATH, or reinstall it".into()),
        )),
        (Some(p), true) => out.push(check("hooks", Level::Ok, format!("the shims run {p} (this binary)"), None)),
    }
    out
}

/// The credentials variables an agent CLI reads, when it has them (it may
/// also use its own login, so a missing one is only a warning).
fn credentials(program: &str) -> &'static [&'static str] {
    match program.rsplit('/').next().unwrap_or(program) {
        "claude" => &["ANTHROPIC_API_KEY"],
        "codex" => &["OPENAI_API_KEY"],
        "aider" => &["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
        _ => &[],
    }
}

fn config(root: &Path) -> Vec<Check> {
    let name = format!(
        "{}/{}",
        crate::config::CONFIG_DIR,
        crate::config::CONFIG_FILE
    );
    let config = match crate::config::Config::load(root) {
        Ok(c) => c,
        Err(e) => {
            return vec![check(
                "config",
                Level::Problem,
                e.to_string(),
                Some(format!("fix {name}; `git supervisor plan` shows where")),
            )]
        }
    };
    let mut out = Vec::new();
    match config.agent_command() {
        None => out.push(check(
            "agent",
            Level::Problem,
            format!("agent.command is not set in {name}"),
            Some("git supervisor init (it picks the agent CLI found on PATH)".into()),
        )),
        Some(argv) => {
            let text = crate::config::read_regular(&root.join(&name)).unwrap_or_default();
            match config.check_agent_program(&text, &name, root) {
                Err(e) => out.push(check(
                    "agent",
                    Level::Problem,
                    e.message.clone(),
                    e.help.clone(),
                )),
                Ok(()) => out.push(check(
                    "agent",
                    Level::Ok,
                    format!(
                        "agent.command runs `{}`",
                        argv.first().map(String::as_str).unwrap_or("")
                    ),
                    None,
                )),
            }
            let program = argv.first().map(String::as_str).unwrap_or("");
            let wanted = credentials(program);
            if !wanted.is_empty() {
                let present: Vec<&str> = wanted
                    .iter()
                    .copied()
                    .filter(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
                    .collect();
                if present.is_empty() {
                    out.push(check(
                        "credentials",
                        Level::Warning,
                        format!("{} not set (names only are checked); `{program}` needs it unless it is logged in", wanted.join(" or ")),
                        Some(format!("export {}=… in the environment agents start from, or log in with `{program}`", wanted[0])),
                    ));
                } else {
                    out.push(check(
                        "credentials",
                        Level::Ok,
                        format!("{} set", present.join(", ")),
                        None,
                    ));
                }
            }
        }
    }
    out.extend(setup_reads(root, &config));
    match &config.build.command {
        Some(cmd) => out.push(check(
            "build",
            Level::Ok,
            format!("phase builds run `{cmd}`"),
            None,
        )),
        None => {
            let detected = crate::config::project_commands(root).and_then(|p| p.build.clone());
            out.push(check(
                "build",
                if detected.is_some() {
                    Level::Warning
                } else {
                    Level::Ok
                },
                "no [build] command: phase boundaries are not built".into(),
                detected.map(|d| format!("add to {name}: [build] command = \"{d}\"")),
            ));
        }
    }
    out
}

/// `[workspace] setup` runs in a new worktree, which holds only tracked
/// files and the `copy` list: a file it names that git does not track and
/// the list does not bring (`cp .env.local …`, `source .env`) is missing
/// there.
fn setup_reads(root: &Path, config: &crate::config::Config) -> Vec<Check> {
    let Some(setup) = &config.workspace.setup else {
        return Vec::new();
    };
    let untracked = std::process::Command::new("git")
        .args([
            "ls-files",
            "--others",
            "--exclude-standard",
            "--ignored",
            "--directory",
        ])
        .current_dir(root)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let copied = |w: &str| {
        config
            .workspace
            .copy
            .iter()
            .any(|c| w == c || w.starts_with(&format!("{}/", c.trim_end_matches('/'))))
    };
    let missing: Vec<String> = setup
        .split(|c: char| c.is_whitespace() || ";&|<>()'\"".contains(c))
        .map(|w| w.trim_start_matches("./"))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .filter(|w| untracked.lines().any(|l| l.trim_end_matches('/') == *w))
        .filter(|w| !copied(w))
        .map(str::to_string)
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    vec![check(
        "workspace",
        Level::Warning,
        format!(
            "[workspace] setup reads {}, which git does not track and `copy` does not bring into a unit's worktree",
            missing.join(", ")
        ),
        Some(format!(
            "add to [workspace]: copy = [{}]",
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    )]
}

/// What earlier runs left: agents still holding a unit's liveness lock when
/// no run is in progress, and linked worktrees on `supervisor/` branches.
fn leftovers(cwd: &Path, store: &crate::store::Store) -> Vec<Check> {
    let in_progress = store
        .tip()
        .ok()
        .flatten()
        .is_some_and(|t| !t.state.is_finished());
    let mut out = Vec::new();
    let agents = store.runtime_dir().join(runtime::AGENTS);
    let mut held = Vec::new();
    if !in_progress {
        for e in std::fs::read_dir(&agents).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "lock") && crate::base::lock::is_held(&p) {
                let who = crate::base::lock::holder(&p)
                    .map(|pid| format!("pid {pid}"))
                    .unwrap_or_else(|| "a process".into());
                held.push(format!("{} ({who})", p.display()));
            }
        }
    }
    if held.is_empty() {
        out.push(check(
            "runtime",
            Level::Ok,
            "no agent outlived its run".into(),
            None,
        ));
    } else {
        out.push(check(
            "runtime",
            Level::Problem,
            format!(
                "no run is in progress, yet agents still hold: {}",
                held.join(", ")
            ),
            Some("git supervisor killall, or kill the process named".into()),
        ));
    }
    let listed = std::process::Command::new("git")
        .args(["worktree", "list", "--porcelain"])
        .current_dir(cwd)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .output();
    let mut left = Vec::new();
    if let Ok(listed) = listed {
        let text = String::from_utf8_lossy(&listed.stdout).into_owned();
        for block in text.split("\n\n") {
            let path = block.lines().find_map(|l| l.strip_prefix("worktree "));
            let branch = block
                .lines()
                .find_map(|l| l.strip_prefix("branch refs/heads/"));
            if let (Some(path), Some(branch)) = (path, branch) {
                if branch.starts_with("supervisor/") {
                    left.push((path.to_string(), branch.to_string()));
                }
            }
        }
    }
    if left.is_empty() || in_progress {
        out.push(check(
            "worktrees",
            Level::Ok,
            format!("{} supervisor worktrees", left.len()),
            None,
        ));
    } else {
        out.push(check(
            "worktrees",
            Level::Warning,
            format!(
                "worktrees left by a finished run: {}",
                left.iter()
                    .map(|(p, b)| format!("{p} ({b})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(
                "git supervisor clean (it keeps any worktree with uncommitted work; look there first)"
                    .to_string(),
            ),
        ));
    }
    out
}

pub fn cmd_doctor(ctx: &Context, args: &DoctorArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let mut checks = vec![git_version()];
    let (repo, store) = repository(&ctx.cwd);
    checks.push(repo);
    if let Some(store) = &store {
        let root = store
            .workdir()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| ctx.cwd.clone());
        checks.extend(hooks(&ctx.cwd));
        checks.extend(config(&root));
        checks.extend(leftovers(&ctx.cwd, store));
    }
    let problems = checks.iter().filter(|c| c.level == Level::Problem).count();
    match args.format {
        Format::Json => {
            let v = serde_json::json!({ "ok": problems == 0, "checks": checks });
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
            writeln!(out).into_diagnostic()?;
        }
        Format::Text => {
            for c in &checks {
                let level = match c.level {
                    Level::Ok => "ok     ",
                    Level::Warning => "warning",
                    Level::Problem => "problem",
                };
                writeln!(out, "{level}  {:<12} {}", c.check, c.message).into_diagnostic()?;
                if let Some(fix) = &c.fix {
                    writeln!(out, "         {:<12} fix: {fix}", "").into_diagnostic()?;
                }
            }
            let warnings = checks.iter().filter(|c| c.level == Level::Warning).count();
            writeln!(out, "\n{problems} problems, {warnings} warnings").into_diagnostic()?;
        }
    }
    Ok(if problems == 0 { EXIT_OK } else { EXIT_ERROR })
}
