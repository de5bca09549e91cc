//! `git supervisor plan [PATH]`: the parsed plan and which heuristic found
//! what. Also checks `.workflow/config.toml`, so it is the one command to run
//! after editing either file.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use clap::Args;
use miette::IntoDiagnostic;
use miette::WrapErr;

use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::config::Config;
use crate::plan::resolve::resolve_plan;
use crate::plan::Criterion;
use crate::plan::CriterionKind;
use crate::plan::Plan;
use crate::plan::SprintSource;
use crate::plan::UnitSource;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Path to EXECUTION_PLAN.md (or a directory holding one); default: search
    /// the current directory and its parents
    pub path: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Refuse the plan for its warnings too (a count that disagrees with the
    /// sections, a prerequisite outside the plan, a dependency sentence)
    #[arg(long)]
    pub strict: bool,
}

/// A plan read from disk, with where it came from.
pub struct LoadedPlan {
    pub path: PathBuf,
    pub root: PathBuf,
    pub source: String,
    pub plan: Plan,
}

/// Resolve, read and parse the plan; errors are reports ready to print.
pub fn load_plan(
    ctx: &Context,
    explicit: Option<&Path>,
    command: &str,
) -> miette::Result<LoadedPlan> {
    load_plan_with(ctx, explicit, command, false)
}

/// [`load_plan`], refusing the plan for its warnings too when `strict`.
pub fn load_plan_with(
    ctx: &Context,
    explicit: Option<&Path>,
    command: &str,
    strict: bool,
) -> miette::Result<LoadedPlan> {
    let path = resolve_plan(explicit, &ctx.cwd, command)?;
    let source = crate::config::read_regular(&path)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read {}", path.display()))?;
    let root = path
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| ctx.cwd.clone());
    let dir_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into());
    let shown = path
        .strip_prefix(&ctx.cwd)
        .unwrap_or(&path)
        .display()
        .to_string();
    let plan = crate::plan::parse_named(
        &source,
        &shown,
        &crate::plan::ParseContext { dir_name },
        strict,
    )?;
    Ok(LoadedPlan {
        path,
        root,
        source,
        plan,
    })
}

pub fn cmd_plan(ctx: &Context, args: &PlanArgs, out: &mut dyn Write) -> miette::Result<u8> {
    if args.format == Format::Json {
        return plan_json(ctx, args, out);
    }
    let loaded = load_plan_with(ctx, args.path.as_deref(), "plan", args.strict)?;
    Config::load(&loaded.root)?;
    match args.format {
        Format::Json => unreachable!("handled above"),
        Format::Text => {
            let shown = loaded.path.strip_prefix(&ctx.cwd).unwrap_or(&loaded.path);
            render_text(&loaded.plan, &shown.display().to_string(), out).map_err(super::io_err)?;
        }
    }
    Ok(EXIT_OK)
}

/// `plan --format json` always prints JSON: the plan, or `{"ok": false,
/// "problems": [...]}` (exit 1) for a plan or configuration it rejects.
fn plan_json(ctx: &Context, args: &PlanArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let fail = |out: &mut dyn Write, value: serde_json::Value| -> miette::Result<u8> {
        serde_json::to_writer_pretty(&mut *out, &value).into_diagnostic()?;
        writeln!(out).map_err(super::io_err)?;
        Ok(super::EXIT_ERROR)
    };
    // Any other diagnostic (a configuration error, no plan found): its own
    // problems when it has related ones, each at its first label.
    let report_json = |e: &miette::Report| {
        let top: &dyn miette::Diagnostic = e.as_ref();
        let mut all: Vec<&dyn miette::Diagnostic> =
            top.related().map(|r| r.collect()).unwrap_or_default();
        if all.is_empty() {
            all.push(top);
        }
        let problems: Vec<serde_json::Value> = all
            .iter()
            .map(|d| {
                let (line, column) = d
                    .labels()
                    .and_then(|mut l| l.next())
                    .and_then(|label| {
                        let src = d.source_code().or_else(|| top.source_code())?;
                        let span = src.read_span(label.inner(), 0, 0).ok()?;
                        Some((span.line() + 1, span.column() + 1))
                    })
                    .unwrap_or((0, 0));
                let code = d
                    .code()
                    .or_else(|| top.code())
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "plan::unreadable".into());
                let help = d.help().or_else(|| top.help()).map(|h| h.to_string());
                serde_json::json!({
                    "code": code,
                    "message": d.to_string(),
                    "line": line,
                    "column": column,
                    "help": help.unwrap_or_default(),
                })
            })
            .collect();
        serde_json::json!({ "ok": false, "problems": problems })
    };
    let loaded = match load_plan_with(ctx, args.path.as_deref(), "plan", args.strict) {
        Ok(l) => l,
        Err(e) => {
            if let Some(pe) = e.downcast_ref::<crate::plan::PlanError>() {
                return fail(out, pe.to_json());
            }
            return fail(out, report_json(&e));
        }
    };
    if let Err(e) = Config::load(&loaded.root) {
        let report = miette::Report::new(e);
        return fail(out, report_json(&report));
    }
    // Built whole, then written once: a plan of thousands of sprints is
    // hundreds of thousands of small writes through `dyn Write` otherwise.
    let text = serde_json::to_vec_pretty(&loaded.plan).into_diagnostic()?;
    out.write_all(&text).map_err(super::io_err)?;
    writeln!(out).map_err(super::io_err)?;
    Ok(EXIT_OK)
}

/// The reading a person checks before a plan runs (`start` asks at a
/// terminal, `import` shows it): each unit's sprints, how many the plan
/// marks done, what it waits for; with `sprints`, every sprint by name.
pub(crate) fn write_reading(
    plan: &Plan,
    sprints: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for unit in &plan.units {
        let done = unit.sprints.iter().filter(|s| s.done.is_some()).count();
        let deps = if unit.deps.is_empty() {
            "starts at once".to_string()
        } else {
            format!("after {}", unit.deps.join(", "))
        };
        writeln!(
            out,
            "  {}: {} sprint{}, {done} done, {deps}",
            unit.name,
            unit.sprints.len(),
            if unit.sprints.len() == 1 { "" } else { "s" }
        )?;
        if sprints {
            for s in &unit.sprints {
                let done = s
                    .done
                    .as_ref()
                    .map(|d| format!(" — done: {d}"))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "    Sprint {}: {} [{}]{done}",
                    s.id, s.name, s.task_type
                )?;
            }
        }
    }
    Ok(())
}

fn render_text(plan: &Plan, path: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let d = &plan.detection;
    writeln!(
        out,
        "Plan: {}  ({path})",
        plan.title.as_deref().unwrap_or("(untitled)")
    )?;
    writeln!(
        out,
        "Operation: {}",
        plan.feature_name.as_deref().unwrap_or("(not named yet)")
    )?;
    let units_by = match &d.units {
        UnitSource::Table { column } => format!("table, column \"{column}\""),
        UnitSource::Sections => "## sections".into(),
        UnitSource::Single => "single unit (no unit structure found)".into(),
        UnitSource::Steps => "one per step (the plan orders its steps as a graph)".into(),
        UnitSource::Waves => "one per item of the `Wave N` sections".into(),
        UnitSource::PhaseSections => {
            "one per section of a phase that runs its sections at once".into()
        }
    };
    writeln!(
        out,
        "Work units: {} (found by: {units_by})",
        plan.units.len()
    )?;
    let sprints_by: Vec<&str> = d
        .sprints
        .iter()
        .map(|s| match s {
            SprintSource::Headers => "sprint headings (Sprint, Phase, Stage, Step, Task N.M…)",
            SprintSource::Table => "sprint table",
            SprintSource::TaskGroups => "Task N.M groups",
            SprintSource::Checklists => "checklist groups",
            SprintSource::TaskList => "numbered task list (`- [ ] 1. …`)",
            SprintSource::Todos => "frontmatter todos",
            SprintSource::Progress => "milestones named in the progress checklist",
            SprintSource::Numbered => "numbered headings without a sprint word (a guess)",
            SprintSource::Gantt => "task rows of a Mermaid Gantt chart",
            SprintSource::TableRows => "the rows of a table of work",
            SprintSource::Tickets => "the epic's created tickets (`Tasks Created`)",
        })
        .collect();
    writeln!(
        out,
        "Total sprints: {} (found by: {})",
        plan.sprint_total(),
        sprints_by.join(", ")
    )?;
    writeln!(out, "{}", structure_line(plan))?;
    writeln!(out, "Dialect: {} ({})", d.dialect.name, d.dialect.why)?;
    match &d.template_source {
        Some(src) => writeln!(out, "Dispatch mode: template ({src})")?,
        None => writeln!(out, "Dispatch mode: dynamic")?,
    }
    let files = if plan.referenced_files.is_empty() {
        "none".to_string()
    } else {
        plan.referenced_files.join(", ")
    };
    writeln!(out, "Referenced files: {files}")?;
    let t = &plan.tally;
    writeln!(
        out,
        "Task lines: {} — {} in sprints, {} criteria, {} not work, {} in no sprint, {} twice",
        t.task_lines,
        t.in_sprints,
        t.criteria,
        t.not_work.len(),
        t.outside.len(),
        t.twice.len()
    )?;
    for (label, lines, shown) in [
        ("in no sprint", &t.outside, 10),
        ("twice", &t.twice, 10),
        ("same work", &t.same_work, 10),
        ("not work", &t.not_work, 5),
    ] {
        for l in lines.iter().take(shown) {
            let why = if l.reason.is_empty() {
                String::new()
            } else {
                format!(" ({})", l.reason)
            };
            writeln!(out, "  {label}: line {}: {}{why}", l.line, l.text)?;
        }
        if lines.len() > shown {
            writeln!(
                out,
                "  {label}: … and {} more (`--format json` lists them all)",
                lines.len() - shown
            )?;
        }
    }
    if !plan.warnings.is_empty() {
        writeln!(
            out,
            "Warnings: {} (the plan runs with them; `--strict` refuses them)",
            plan.warnings.len()
        )?;
        for w in &plan.warnings {
            writeln!(out, "  line {}: {} [{}]", w.line, w.message, w.code)?;
            if !w.help.is_empty() {
                writeln!(out, "    help: {}", w.help)?;
            }
        }
    }
    if !plan.guesses.is_empty() {
        writeln!(
            out,
            "Guesses: {} (`start` shows this reading and asks before the first run)",
            plan.guesses.len()
        )?;
        for g in &plan.guesses {
            writeln!(out, "  line {}: {} [{}]", g.line, g.message, g.code)?;
        }
    }
    for (label, checks) in [
        ("Entry checks", &plan.entry_checks),
        ("Exit checks", &plan.exit_checks),
    ] {
        if !checks.is_empty() {
            writeln!(out, "{label} (every sprint):")?;
            for c in checks {
                writeln!(out, "  {}", criterion(c))?;
            }
        }
    }
    if !plan.rules.is_empty() {
        writeln!(out, "Rules:")?;
        for r in &plan.rules {
            writeln!(out, "  - {r}")?;
        }
    }
    for unit in &plan.units {
        writeln!(out)?;
        let layer = unit
            .layer
            .map(|l| format!("  layer {l}"))
            .unwrap_or_default();
        let deps = if unit.deps.is_empty() {
            "none".to_string()
        } else {
            unit.deps.join(", ")
        };
        writeln!(
            out,
            "{}{layer}  dir {}  deps {deps}  ({} sprint{})",
            unit.name,
            unit.dir_or_root(),
            unit.sprints.len(),
            if unit.sprints.len() == 1 { "" } else { "s" }
        )?;
        if unit.origin.line > 0 || !unit.origin.rule.is_empty() {
            writeln!(
                out,
                "  from line {}: {}",
                unit.origin.line, unit.origin.rule
            )?;
        }
        for s in &unit.sprints {
            writeln!(out, "  Sprint {}: {} [{}]", s.id, s.name, s.task_type)?;
            if s.origin.line > 0 {
                writeln!(out, "      from line {}: {}", s.origin.line, s.origin.rule)?;
            }
            if let Some(done) = &s.done {
                writeln!(out, "      done: {done}")?;
            }
            for t in &s.tasks {
                writeln!(out, "      task: {t}")?;
            }
            for c in &s.entry {
                writeln!(out, "      entry {}", criterion(c))?;
            }
            for c in &s.exit {
                writeln!(out, "      exit  {}", criterion(c))?;
            }
        }
    }
    Ok(())
}

/// How the units are ordered, and why when they form one sequence.
pub(crate) fn structure_line(plan: &Plan) -> String {
    // Units run at once only on the plan's word: say when none was found.
    let why = match plan.detection.dependencies {
        crate::plan::DependencyStructure::Sequential if plan.units.len() > 1 => {
            " (read as one sequence: nothing says these may run at once)"
        }
        _ => "",
    };
    format!(
        "Dependency structure: {}{why}",
        serde_plain(&plan.detection.dependencies)
    )
}

fn criterion(c: &Criterion) -> String {
    let kind = match c.kind {
        CriterionKind::Checklist => "checklist",
        CriterionKind::Command => "command",
        CriterionKind::Assertion => "assertion",
        CriterionKind::After => "after",
    };
    let tick = if c.checked { " (ticked)" } else { "" };
    let mut s = match (&c.command, c.kind) {
        (Some(cmd), CriterionKind::Command) if *cmd == c.text => {
            format!("[{kind}] `{}`{tick}", one_line(cmd))
        }
        (Some(cmd), _) => format!("[{kind}] {} → `{}`{tick}", c.text, one_line(cmd)),
        (None, _) => format!("[{kind}] {}{tick}", c.text),
    };
    if let Some(e) = &c.expected {
        s.push_str(&format!(" expecting `{}`", one_line(e)));
    }
    s
}

fn one_line(s: &str) -> String {
    s.lines().collect::<Vec<_>>().join(" ⏎ ")
}

fn serde_plain<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
