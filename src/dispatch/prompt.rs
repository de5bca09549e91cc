//! Building an agent's prompt (spec §I): the plan's template with its
//! variables filled in (Approach A) or the dynamic four-part prompt
//! (Approach B), plus the continuation section for PARTIAL, the retry section
//! for BACKOFF, and the Build Coordination block for parallel code sprints.

use crate::machine::SprintState;
use crate::machine::SprintStatus;
use crate::plan::Plan;
use crate::plan::Sprint;
use crate::plan::TaskType;
use crate::plan::Unit;

/// Everything a prompt is built from.
pub struct PromptInput<'a> {
    pub plan: &'a Plan,
    pub unit: &'a Unit,
    pub sprint: &'a Sprint,
    pub state: &'a SprintState,
    /// Absolute project root.
    pub root: &'a str,
    /// Other units have agents working at the same time.
    pub parallel: bool,
    /// The last lines of the previous attempt's output, for a retry.
    pub previous_output: &'a str,
    /// Files named by the plan that exist under the root (read list).
    pub existing_files: &'a [String],
}

pub fn build(input: &PromptInput) -> String {
    let mut prompt = match &input.plan.template {
        Some(t) => fill_template(t, input),
        None => dynamic(input),
    };
    if input.parallel && input.sprint.task_type == TaskType::Code {
        prompt.push_str("\n\n");
        prompt.push_str(&build_coordination(input.sprint));
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

/// Approach A: the template verbatim with its variables filled in. Both the
/// spec's `<PACKAGE_NAME>` style and `{unit}` style are understood.
fn fill_template(template: &str, input: &PromptInput) -> String {
    let dir = input.unit.dir_or_root();
    let pairs: [(&str, String); 14] = [
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
        ("$PROJECT_ROOT", input.root.to_string()),
        ("{project_root}", input.root.to_string()),
    ];
    let mut out = template.to_string();
    for (k, v) in pairs {
        out = out.replace(k, &v);
    }
    out
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
    p.push_str(&format!(
        "- Commit your work with the trailer `Supervisor-Sprint: {}/{}` in the commit message.\n",
        unit.name, sprint.id
    ));
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

/// The spec's Build Coordination block (§I-49), with the syntax check for
/// the language of the sprint's files (§L-62).
pub fn build_coordination(sprint: &Sprint) -> String {
    let ext = sprint
        .files
        .iter()
        .filter_map(|f| f.rsplit_once('.').map(|(_, e)| e))
        .next()
        .unwrap_or("swift");
    let check = match ext {
        "rs" => "rustc --crate-type lib --emit metadata file.rs",
        "ts" | "tsx" => "tsc --noEmit --skipLibCheck File.ts",
        "js" | "mjs" => "node --check file.js",
        "py" => "python -m py_compile file.py",
        "go" => "go vet file.go",
        "java" => "javac -proc:none File.java",
        _ => "swift -frontend -typecheck YourFile.swift",
    };
    format!(
        "**Build Coordination**:\nYou are working in parallel with other agents. DO NOT run full builds\n(xcodebuild, swift build, cargo build, etc.).\n\nInstead, validate syntax only:\n  {check}\n\nThe supervisor will run a single coordinated build after all agents complete.\n\nExit criteria:\n- Code written ✓\n- Unit tests written ✓\n- Syntax validated ✓\n"
    )
}
