//! `git supervisor evaluate [PATH] [--max-turns N] [--check]` (spec §V):
//! check every sprint's atomicity, testability and size, fix criteria in
//! place, propose splits and merges with the text to paste. `--check`
//! reports and writes nothing.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;

use super::plan::load_plan;
use super::Context;
use super::Format;
use super::EXIT_OK;
use super::EXIT_WOULD_CHANGE;
use crate::config::Config;
use crate::plan_tools::edit;
use crate::plan_tools::rewrite;

#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// Path to EXECUTION_PLAN.md (or a directory holding one); default: search
    /// the current directory and its parents
    pub path: Option<PathBuf>,
    /// Context budget: turns per sprint (default: `[agent] max_turns`, 50
    /// unless configured); a new one is written there, for the run's agents
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Print the diff that would be applied and write nothing; exit 3 when
    /// the plan would change (1 stays "the plan is invalid")
    #[arg(long)]
    pub check: bool,
    /// Write even when the plan file has uncommitted changes
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_evaluate(ctx: &Context, args: &EvaluateArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let loaded = load_plan(ctx, args.path.as_deref(), "evaluate")?;
    let config = Config::load(&loaded.root)?;
    let cmds = commands(&loaded.plan, config.build.command.as_deref(), &loaded.root);
    let budget = args.max_turns.unwrap_or(config.agent.max_turns);
    let (fixed, ev) = rewrite::evaluate(&loaded.plan, budget, &cmds);
    // The budget the sprints were judged by is the one their agents get:
    // `[agent] max_turns`, which the run snapshots at `start`.
    let budget_written = match args.max_turns {
        Some(n) if n != config.agent.max_turns && !args.check => {
            write_max_turns(&loaded.root, n)?;
            true
        }
        _ => false,
    };
    let (text, not_placed) = if fixed != loaded.plan {
        let e = edit::edit(
            &loaded.source,
            &loaded.plan,
            &fixed,
            &Default::default(),
            &parse_context(&loaded.root),
        );
        (e.text, e.not_placed)
    } else {
        (loaded.source.clone(), Vec::new())
    };
    let changed = text != loaded.source;
    let diff = apply(&loaded, &text, args.check, args.force)?;
    match args.format {
        Format::Json => {
            let v = serde_json::json!({
                "evaluation": ev,
                "rewritten": changed && !args.check,
                "would_rewrite": changed,
                "not_placed": not_placed,
                "diff": diff,
                "max_turns_written": budget_written,
            });
            serde_json::to_writer_pretty(&mut *out, &v).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            write!(
                out,
                "{}",
                render(
                    &ev,
                    changed,
                    args.check,
                    &not_placed,
                    budget_written,
                    &loaded
                        .path
                        .file_name()
                        .map_or_else(|| "the plan".into(), |n| n.to_string_lossy()),
                )
            )
            .map_err(super::io_err)?;
            write!(out, "{diff}").map_err(super::io_err)?;
        }
    }
    Ok(if args.check && changed {
        EXIT_WOULD_CHANGE
    } else {
        EXIT_OK
    })
}

fn render(
    ev: &rewrite::Evaluation,
    changed: bool,
    check: bool,
    not_placed: &[String],
    budget_written: bool,
    file: &str,
) -> String {
    let mut s = String::from("## Evaluation Complete\n\n### Check Results\n\n");
    s.push_str("| Check | Passed | Issues Found | Auto-Fixed |\n");
    s.push_str("|-------|--------|-------------|------------|\n");
    for (name, c) in [
        ("Atomicity", &ev.atomicity),
        ("Testability", &ev.testability),
        ("Context Fitness", &ev.fitness),
    ] {
        s.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            c.passed, c.issues, c.fixed
        ));
    }
    s.push_str("\n### Sprint Changes\n\n| Change | Count |\n|--------|-------|\n");
    s.push_str(&format!("| Sprints before | {} |\n", ev.before));
    s.push_str(&format!("| Sprints after | {} |\n", ev.after));
    s.push_str(&format!("| Splits proposed | {} |\n", ev.splits));
    s.push_str(&format!("| Merges proposed | {} |\n", ev.merges));
    if ev.done_left > 0 {
        s.push_str(&format!(
            "| Marked done, left as written | {} |\n",
            ev.done_left
        ));
    }
    if !ev.changes.is_empty() {
        s.push_str("\n### Fixes\n\n");
        for c in &ev.changes {
            s.push_str(&format!("- {c}\n"));
        }
    }
    if !ev.unfixed.is_empty() {
        s.push_str("\n### Not Fixed\n\n");
        for c in &ev.unfixed {
            s.push_str(&format!("- {c}\n"));
        }
    }
    for p in &ev.proposals {
        s.push_str(&format!(
            "\n### Not placed: {} (its sprint sections are yours; paste to apply)\n\n",
            p.unit
        ));
        for c in &p.changes {
            s.push_str(&format!("- {c}\n"));
        }
        // Four backticks: the sprints may hold fenced blocks of their own.
        s.push_str("\n````markdown\n");
        s.push_str(p.text.trim_end());
        s.push_str("\n````\n");
    }
    s.push_str(&not_placed_note(not_placed));
    s.push_str(&format!(
        "\nContext budget: {} turns per sprint{}\n\n",
        ev.budget,
        if budget_written {
            " (written to .workflow/config.toml as `[agent] max_turns`: the run's agents get it)"
        } else {
            ""
        }
    ));
    let proposed = !ev.proposals.is_empty() || !not_placed.is_empty();
    s.push_str(&match (changed, check, proposed) {
        (true, true, _) => "The plan would be edited (--check: nothing written).\n\n".to_string(),
        (true, false, _) => format!("{file} edited.\n\n"),
        (false, _, true) => {
            format!("{file} left as written: the changes above are not placed.\n\n")
        }
        (false, _, false) => format!("{file} needs no changes.\n\n"),
    });
    s.push_str("Next step: git supervisor start\n");
    s
}

/// Write `[agent] max_turns = n` into the project's config, every other
/// line kept; the file is made when there is none.
fn write_max_turns(root: &std::path::Path, n: u32) -> miette::Result<()> {
    let dir = root.join(crate::config::CONFIG_DIR);
    let path = dir.join(crate::config::CONFIG_FILE);
    let text = match std::fs::symlink_metadata(&path) {
        Ok(_) => crate::config::read_regular(&path).into_diagnostic()?,
        Err(_) => String::new(),
    };
    let text = crate::config::edit::set_value(&text, "agent", "max_turns", &n.to_string());
    std::fs::create_dir_all(&dir).into_diagnostic()?;
    std::fs::write(&path, text).into_diagnostic()?;
    Ok(())
}

/// Units whose changes were left out rather than rewrite what the user
/// wrote: named, with what to do.
pub(super) fn not_placed_note(units: &[String]) -> String {
    if units.is_empty() {
        return String::new();
    }
    format!(
        "\nNot placed (left exactly as written: a change there would rewrite your text, or it lives in your unit table): {}\nMake these changes by hand: each is listed above.\n",
        units.join(", ")
    )
}

/// The context the plan was parsed in, to read an edited plan back the same
/// way.
pub(super) fn parse_context(root: &std::path::Path) -> crate::plan::ParseContext {
    let dir_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    crate::plan::ParseContext { dir_name }
}

/// Changed lines (both sides) up to which the diff is a minimal one; above,
/// the changed middle is one hunk (Myers is quadratic in the size of the
/// change, and a split of thousands of tasks rewrites thousands of lines).
const EXACT_DIFF_LINES: usize = 4000;

/// The unified diff from the plan as read to `text`, empty when they agree.
pub(super) fn unified_diff(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - pre;
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    if (a.len() - pre - suf) + (b.len() - pre - suf) <= EXACT_DIFF_LINES {
        return similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string();
    }
    let start = pre.saturating_sub(3);
    let tail = suf.min(3);
    let (a_end, b_end) = (a.len() - suf + tail, b.len() - suf + tail);
    let range = |from: usize, to: usize| {
        let len = to - from;
        format!("{},{len}", if len == 0 { from } else { from + 1 })
    };
    let mut out = format!(
        "--- a/{name}\n+++ b/{name}\n@@ -{} +{} @@\n",
        range(start, a_end),
        range(start, b_end)
    );
    let mut line = |mark: char, l: &str| {
        out.push(mark);
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    a[start..pre].iter().for_each(|l| line(' ', l));
    a[pre..a.len() - suf].iter().for_each(|l| line('-', l));
    b[pre..b.len() - suf].iter().for_each(|l| line('+', l));
    a[a.len() - suf..a_end].iter().for_each(|l| line(' ', l));
    out
}

/// Refuse to overwrite a plan file holding edits git does not have yet:
/// git is the plan's backup. Outside a repository there is nothing to check.
fn guard_uncommitted(path: &std::path::Path) -> miette::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(std::path::Path::new("."));
    let Some(name) = path.file_name() else {
        return Ok(());
    };
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "--"])
        .arg(name)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output();
    let Ok(out) = out else { return Ok(()) };
    if !out.status.success() || out.stdout.is_empty() {
        return Ok(());
    }
    let shown = shown(path);
    let help = if out.stdout.starts_with(b"??") {
        format!(
            "git holds no version of it yet: commit it first (git add {shown} && git commit), or pass --force"
        )
    } else {
        format!(
            "commit or stash your edits first, or pass --force (it overwrites them; the last committed version stays in git: git show HEAD:./{name})",
            name = name.to_string_lossy()
        )
    };
    Err(miette::miette!(
        help = help,
        "{shown} has uncommitted changes: not rewriting it"
    ))
}

/// Write `text` over the plan unless `check`; the diff applied (or that
/// would be) comes back for printing.
pub(super) fn apply(
    loaded: &super::plan::LoadedPlan,
    text: &str,
    check: bool,
    force: bool,
) -> miette::Result<String> {
    let name = loaded
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let diff = unified_diff(&name, &loaded.source, text);
    if diff.is_empty() || check {
        return Ok(diff);
    }
    if !force {
        guard_uncommitted(&loaded.path)?;
    }
    super::write_file(&loaded.path, text)?;
    super::note_run_in_progress(&loaded.root);
    Ok(format!(
        "{diff}\nThe previous version: `git diff -- {p}` shows this change, `git checkout -- {p}` restores the committed plan.\n",
        p = shown(&loaded.path)
    ))
}

/// A path as the user would type it: relative to the working directory.
fn shown(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().ok();
    let cwd = cwd.as_deref().and_then(|c| c.canonicalize().ok());
    let full = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    cwd.and_then(|c| full.strip_prefix(c).ok().map(|p| p.display().to_string()))
        .unwrap_or_else(|| path.display().to_string())
}

/// The project's own build and test commands, read from the files at `root`.
/// The build and test commands `evaluate` writes into criteria: the
/// configured build, the plan's own checks, the project's files.
pub(crate) fn commands(
    plan: &crate::plan::Plan,
    build: Option<&str>,
    root: &std::path::Path,
) -> rewrite::Commands {
    rewrite::Commands::from_plan(plan, build).with_project(project_commands(root))
}

pub(crate) fn project_commands(
    root: &std::path::Path,
) -> Option<crate::plan_tools::project::ProjectCommands> {
    crate::config::project_commands(root)
}
