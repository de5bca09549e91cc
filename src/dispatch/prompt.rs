//! Building an agent's prompt (spec §I): the plan's template with its
//! variables filled in (Approach A) or the dynamic four-part prompt
//! (Approach B), plus the continuation section for PARTIAL, the retry section
//! for BACKOFF, the Build Coordination block for parallel code sprints when a
//! coordinated build is configured, and the contract every agent is judged
//! by: the exit criteria, the commit trailers, the result file.

use crate::machine::SprintState;
use crate::machine::SprintStatus;
use crate::plan::Plan;
use crate::plan::Sprint;
use crate::plan::TaskType;
use crate::plan::Unit;

use super::template_vars;

/// Everything a prompt is built from.
pub struct PromptInput<'a> {
    pub plan: &'a Plan,
    pub unit: &'a Unit,
    pub sprint: &'a Sprint,
    pub state: &'a SprintState,
    /// Absolute root of the tree the agent works in (its worktree, or the
    /// project root).
    pub root: &'a str,
    /// Absolute project root of the checkout the run was started in: a
    /// template's paths under it are made relative to `root`.
    pub project_root: &'a str,
    /// The run's Cross-Package Needs Registry: this unit's entries become
    /// hand-offs (spec §M).
    pub needs: &'a [crate::machine::Need],
    /// Other units have agents working at the same time.
    pub parallel: bool,
    /// The last lines of the previous attempt's output, for a retry.
    pub previous_output: &'a str,
    /// Files named by the plan that exist under the root (read list).
    pub existing_files: &'a [String],
    /// `[build] command`: a coordinated build runs at phase boundaries, so
    /// parallel agents must not run full builds themselves.
    pub build_command: Option<&'a str>,
    /// Where the agent writes its result (`SUPERVISOR_RESULT_FILE`).
    pub result_file: &'a str,
    /// The project's own commands, for the syntax checks of Build
    /// Coordination.
    pub project: Option<&'a crate::plan_tools::project::ProjectCommands>,
    /// The files the plan tells agents to read (`dispatch::reading`).
    pub to_read: &'a [super::reading::ToRead],
}

pub fn build(input: &PromptInput) -> String {
    let mut prompt = match &input.plan.template {
        Some(t) => fill_template(t, input),
        None => dynamic(input),
    };
    // The plan's Rules / Constraints hold for every sprint: every agent
    // reads them, whatever its template says.
    let rules = &input.plan.rules;
    let stated_rules = input
        .plan
        .template
        .as_deref()
        .is_some_and(|t| rules.iter().all(|r| t.contains(r.as_str())));
    if !rules.is_empty() && !stated_rules {
        prompt.push_str("\n\nRULES (from the plan; they hold for every sprint):\n");
        for r in rules {
            prompt.push_str(&format!("- {r}\n"));
        }
    }
    prompt.push_str(&super::reading::section(input.to_read, input.root));
    prompt.push_str(&imports_section(input));
    if let Some(build) = input.build_command {
        if input.parallel && input.sprint.task_type == TaskType::Code {
            prompt.push_str("\n\n");
            prompt.push_str(&build_coordination(input.sprint, build, input.project));
        }
    }
    // A template that states the result file itself has said the contract.
    let stated = input
        .plan
        .template
        .as_deref()
        .is_some_and(|t| t.contains("SUPERVISOR_RESULT_FILE"));
    if !stated {
        prompt.push_str("\n\n");
        prompt.push_str(&contract(input));
    }
    match input.state.state {
        SprintStatus::Partial => {
            prompt.push_str("\n\nCONTINUATION:\n");
            prompt.push_str(&format!(
                "A previous agent made partial progress on Sprint {}. Do not redo finished work; complete only what remains:\n",
                input.sprint.id
            ));
            if input.state.remaining.is_empty() {
                for c in &input.sprint.exit {
                    prompt.push_str(&format!("- {}\n", c.text));
                }
            } else {
                for r in &input.state.remaining {
                    prompt.push_str(&format!("- {r}\n"));
                }
            }
        }
        SprintStatus::Backoff => {
            let details = input
                .state
                .last_failure
                .clone()
                .unwrap_or_else(|| "the agent exited without completing the sprint".into());
            prompt.push_str(&format!(
                "\n\nRETRY:\nSprint {} failed on attempt {}. Here is what went wrong: {}\n",
                input.sprint.id, input.state.attempt, details
            ));
            if !input.previous_output.trim().is_empty() {
                prompt.push_str("The previous attempt's last output:\n```\n");
                prompt.push_str(input.previous_output.trim_end());
                prompt.push_str("\n```\n");
            }
            prompt.push_str("Fix the issues, then complete the sprint.\n");
        }
        _ => {}
    }
    prompt
}

/// What the unit may import (the plan's Allowed Imports table) and the
/// hand-offs of its cross-package needs (spec §M): empty when the plan has
/// no such table.
fn imports_section(input: &PromptInput) -> String {
    use crate::plan::imports;
    let (plan, unit) = (input.plan, input.unit);
    let rows: Vec<&imports::AllowedImport> = plan
        .allowed_imports
        .iter()
        .filter(|r| r.unit == unit.name)
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let any = rows.iter().any(|r| r.any);
    let allowed: Vec<&str> = plan
        .units
        .iter()
        .filter(|u| u.name != unit.name)
        .filter(|u| any || rows.iter().any(|r| r.may_import.contains(&u.name)))
        .map(|u| u.name.as_str())
        .collect();
    let others: Vec<&str> = plan
        .units
        .iter()
        .filter(|u| u.name != unit.name && !allowed.contains(&u.name.as_str()))
        .map(|u| u.name.as_str())
        .collect();
    let mut p = String::from("\n\nALLOWED IMPORTS (from the plan):\n");
    if allowed.is_empty() {
        p.push_str(&format!(
            "- {} may import from no other unit of this plan.\n",
            unit.name
        ));
    } else {
        p.push_str(&format!(
            "- {} may import from: {}.\n",
            unit.name,
            allowed.join(", ")
        ));
    }
    if !others.is_empty() {
        let progress = match unit.dir_or_root() {
            "." => "PROGRESS.md".to_string(),
            d => format!("{d}/PROGRESS.md"),
        };
        p.push_str(&format!(
            "- Do NOT import from {}. When you need something one of them has, define it locally and list it under `## Cross-Package Needs` in {progress}, as `- Name from <unit>`.\n",
            others.join(", ")
        ));
    }
    let mut handoffs = String::new();
    for need in input.needs.iter().filter(|n| n.unit == unit.name) {
        let reading =
            imports::read_need(&need.text, &unit.name, &plan.units, &plan.allowed_imports);
        match reading.ruling {
            imports::Ruling::Import { from } => handoffs.push_str(&format!(
                "- Import {} from {from} (your earlier sprint listed it as a need; the plan allows the import): use it instead of a local stand-in.\n",
                reading.subject
            )),
            imports::Ruling::Forbidden { from } => handoffs.push_str(&format!(
                "- Keep your local definition of {}: the plan does not let {} import from {from}.\n",
                reading.subject, unit.name
            )),
            imports::Ruling::Open => {}
        }
    }
    if !handoffs.is_empty() {
        p.push_str("\nHAND-OFF (the run's Cross-Package Needs Registry):\n");
        p.push_str(&handoffs);
    }
    p
}

/// Approach A: the template verbatim with its variables filled in. Both the
/// spec's `<PACKAGE_NAME>` style and `{unit}` style are understood.
fn fill_template(template: &str, input: &PromptInput) -> String {
    let dir = input.unit.dir_or_root();
    let template = template_vars::fill_sections(template, input.plan, input.unit);
    let pairs: [(&str, String); 12] = [
        ("<PACKAGE_NAME>", input.unit.name.clone()),
        ("<WORK_UNIT>", input.unit.name.clone()),
        ("<WORK_UNIT_NAME>", input.unit.name.clone()),
        ("<PACKAGE_DIR>", dir.to_string()),
        ("<WORK_UNIT_DIR>", dir.to_string()),
        ("<SPRINT_NAME>", input.sprint.name.clone()),
        ("<N>", input.sprint.id.to_string()),
        ("<ID>", input.sprint.id.to_string()),
        ("{unit}", input.unit.name.clone()),
        ("{unit_dir}", dir.to_string()),
        ("{sprint}", input.sprint.id.to_string()),
        ("{sprint_name}", input.sprint.name.clone()),
    ];
    let mut out = template;
    for (k, v) in pairs {
        out = out.replace(k, &v);
    }
    // With the unit's directory filled in, a hard-coded path shows where it
    // points into the project.
    let out = template_vars::relative_paths(&out, input.plan, input.project_root);
    let root = input.root;
    out.replace("${PROJECT_ROOT}", root)
        .replace("$PROJECT_ROOT", root)
        .replace("{project_root}", root)
}

/// Approach B: context, assignment, checks, boundaries.
fn dynamic(input: &PromptInput) -> String {
    let (unit, sprint, root) = (input.unit, input.sprint, input.root);
    let dir = unit.dir_or_root();
    let mut p = String::new();
    // Part 1 — Context.
    let place = if dir == "." {
        format!("{root}/")
    } else {
        format!("{root}/{dir}/")
    };
    p.push_str(&format!("You are working on {} in {place}.\n\n", unit.name));
    p.push_str("FIRST, read these files in order:\n");
    p.push_str(&format!("1. {root}/EXECUTION_PLAN.md\n"));
    for (n, f) in input.existing_files.iter().enumerate() {
        p.push_str(&format!("{}. {root}/{f}\n", n + 2));
    }
    // Part 2 — Assignment.
    p.push_str(&format!(
        "\nYou are executing Sprint {}: {}.\n\n",
        sprint.id, sprint.name
    ));
    p.push_str(sprint.body.trim());
    p.push('\n');
    // Part 3 — Checks.
    p.push_str("\nENTRY CRITERIA (verify before starting):\n");
    let first = unit.sprints.first().is_some_and(|s| s.id == sprint.id);
    let entry: Vec<&crate::plan::Criterion> = sprint
        .entry
        .iter()
        .chain(&input.plan.entry_checks)
        .collect();
    if entry.is_empty() {
        if first {
            p.push_str("None — this is the first sprint\n");
        } else {
            p.push_str("The previous sprint is complete.\n");
        }
    }
    for c in entry {
        p.push_str(&format!("- {}\n", c.text));
    }
    p.push_str("\nEXIT CRITERIA (verify before declaring done):\n");
    let exit: Vec<&crate::plan::Criterion> =
        sprint.exit.iter().chain(&input.plan.exit_checks).collect();
    if exit.is_empty() {
        p.push_str("- The sprint's tasks are done and committed.\n");
    }
    for c in exit {
        p.push_str(&format!("- {}\n", c.text));
    }
    // Part 4 — Boundaries.
    p.push_str("\nIMPORTANT:\n");
    p.push_str("- Do NOT start the next sprint. Your scope ends after this sprint.\n");
    p.push_str("- Do NOT modify EXECUTION_PLAN.md.\n");
    match sprint.task_type {
        TaskType::Background => {
            p.push_str("- This sprint is complete once the process is confirmed running. Do NOT wait for it to finish.\n")
        }
        TaskType::Deferred => p.push_str("- Check the specified condition. If not met, report what you found and stop.\n"),
        TaskType::Manual => p.push_str(
            "- Perform the checks described and report your findings. Do NOT mark this as complete — the user will verify.\n",
        ),
        TaskType::Code | TaskType::Command => {}
    }
    p
}

/// How the agent's work is judged (design §5, §6): the exit criteria the
/// supervisor runs itself, the commits it counts, the result file it reads.
fn contract(input: &PromptInput) -> String {
    let (unit, sprint) = (input.unit, input.sprint);
    let dir = unit.dir_or_root();
    let mut p = String::from("HOW THIS SPRINT IS JUDGED:\n");
    let exit: Vec<&crate::plan::Criterion> =
        sprint.exit.iter().chain(&input.plan.exit_checks).collect();
    let ends = match sprint.task_type {
        TaskType::Code => " and at least one commit of yours is in scope",
        _ => "",
    };
    if exit.is_empty() {
        p.push_str(&format!(
            "- Done means the sprint's tasks are finished{ends}.\n"
        ));
    } else if input.plan.template.is_none() {
        // The dynamic prompt has just listed them.
        p.push_str(&format!(
            "- Done means every exit criterion above passes{ends}; the supervisor runs the criteria itself.\n"
        ));
    } else {
        p.push_str(&format!(
            "- Done means every exit criterion passes{ends}; the supervisor runs the criteria itself:\n"
        ));
        for c in exit {
            p.push_str(&format!("  - {}\n", c.text));
        }
    }
    // Units share the project root, so there only the files the sprint
    // names tell one unit's untrailered commit from another's.
    let (place, untrailered) = if dir == "." {
        let named = if sprint.files.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                sprint
                    .files
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        (
            "in this repository".to_string(),
            format!("A commit without the trailers counts too when it changes files this sprint names{named}."),
        )
    } else {
        (
            format!("under `{dir}/`"),
            format!("A commit under `{dir}/` without the trailers counts too."),
        )
    };
    p.push_str(&format!(
        "- Commit your work {place} with these trailers at the end of the commit message:\n    Supervisor-Sprint: {}/{}\n    Supervisor-Status: complete   (or `partial` when work remains)\n  {untrailered}\n",
        unit.name, sprint.id
    ));
    p.push_str(&format!(
        "- Before you exit, write the result file named by $SUPERVISOR_RESULT_FILE ({}), in TOML:\n    status = \"complete\"    # or \"partial\" or \"failed\"\n    summary = \"what you did, in one or two sentences\"\n    remaining = [\"what is left, when partial\"]\n  Optional: turns = N, cost_usd = 0.0, session_id = \"…\".\n",
        input.result_file
    ));
    p.push_str(
        "- If a tool you need is denied, say which in `summary` and set status = \"failed\".\n",
    );
    p
}

/// The syntax check for one source file, by its extension (§L-62): the
/// project's own checker for the language when it has one (`cargo check`
/// for a crate, `tsc` with the project's `tsconfig.json`), else a
/// single-file check; `None` for files no checker is known for.
pub fn syntax_check(
    file: &str,
    project: Option<&crate::plan_tools::project::ProjectCommands>,
) -> Option<(&'static str, String)> {
    let (lang, single) = single_file_check(file)?;
    match project.and_then(|p| p.syntax_for(lang)) {
        Some(cmd) => Some((lang, cmd.to_string())),
        None => Some((lang, single)),
    }
}

/// A check of one file by its extension.
fn single_file_check(file: &str) -> Option<(&'static str, String)> {
    let ext = file.rsplit_once('.').map(|(_, e)| e)?;
    let (lang, cmd) = match ext {
        "rs" => (
            "Rust",
            // Into a fresh directory: rustc replaces its output file, and
            // `-o /dev/null` run as root would replace /dev/null itself.
            format!("rustc --edition 2021 --crate-type lib --emit metadata --out-dir \"$(mktemp -d)\" {file}"),
        ),
        "ts" | "tsx" | "mts" => ("TypeScript", format!("tsc --noEmit --skipLibCheck {file}")),
        "js" | "mjs" | "cjs" => ("JavaScript", format!("node --check {file}")),
        "py" => ("Python", format!("python3 -m py_compile {file}")),
        "go" => ("Go", format!("gofmt -e -l {file}")),
        "java" => ("Java", format!("javac -proc:none -d /tmp {file}")),
        "swift" => ("Swift", format!("swiftc -parse {file}")),
        "c" => ("C", format!("cc -fsyntax-only {} {file}", includes(file))),
        "h" => (
            "C",
            format!("cc -fsyntax-only {} -x c-header {file}", includes(file)),
        ),
        "cc" | "cpp" | "cxx" | "c++" => (
            "C++",
            format!("c++ -fsyntax-only {} {file}", includes(file)),
        ),
        "hh" | "hpp" | "hxx" => (
            "C++",
            format!("c++ -fsyntax-only {} -x c++-header {file}", includes(file)),
        ),
        "rb" => ("Ruby", format!("ruby -c {file}")),
        "sh" | "bash" => ("shell", format!("bash -n {file}")),
        "kt" => ("Kotlin", format!("kotlinc -Werror {file}")),
        _ => return None,
    };
    Some((lang, cmd))
}

/// Where a C or C++ file's own headers are: its directory and the
/// `include/` beside it (`engine/src/core.c` → `-Iengine/src
/// -Iengine/include`), so that its includes resolve.
fn includes(file: &str) -> String {
    let dir = file.rsplit_once('/').map_or(".", |(d, _)| d);
    let up = dir.rsplit_once('/').map_or(".", |(d, _)| d);
    let up = if dir == "." { "." } else { up };
    let sibling = if up == "." {
        "include".to_string()
    } else {
        format!("{up}/include")
    };
    if dir == "." {
        "-I. -Iinclude".to_string()
    } else if sibling == dir {
        format!("-I{dir}")
    } else {
        format!("-I{dir} -I{sibling}")
    }
}

/// The spec's Build Coordination block (§I-49), given only when a
/// coordinated build is configured: one syntax-check line per language of
/// the sprint's files (§L-62), a plain instruction when none is known.
pub fn build_coordination(
    sprint: &Sprint,
    build_command: &str,
    project: Option<&crate::plan_tools::project::ProjectCommands>,
) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut checks = String::new();
    for (lang, cmd) in sprint.files.iter().filter_map(|f| syntax_check(f, project)) {
        if !seen.contains(&lang) {
            seen.push(lang);
            checks.push_str(&format!("  {cmd}\n"));
        }
    }
    if checks.is_empty() {
        checks.push_str("  the syntax checker of the files' language, on the files you changed\n");
    }
    format!(
        "**Build Coordination**:\nYou are working in parallel with other agents. DO NOT run full builds\n(`{build_command}`, or any other full build or test run).\n\nInstead, validate syntax only:\n{checks}\nThe supervisor will run a single coordinated build after all agents complete.\n\nAnything you start that listens or stores (a dev server, a test database)\nmust use this unit's own port `$SUPERVISOR_PORT` and slot `$SUPERVISOR_SLOT`\n(e.g. `db-$SUPERVISOR_SLOT.sqlite`): other agents run beside you.\n\nExit criteria:\n- Code written ✓\n- Unit tests written ✓\n- Syntax validated ✓\n"
    )
}
