//! The prompt an agent gets: the contract it is judged by (issue 14 item 7)
//! and the Build Coordination block (issue 15 item 12).

use git_supervisor::dispatch::prompt;
use git_supervisor::machine::SprintStatus;
use git_supervisor::machine::State;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;

const PLAN: &str = "\
# Polyglot

## Work Units

| Unit | Directory | Layer |
|------|-----------|-------|
| engine | engine | 0 |
| bindings | bindings | 0 |
| docs | docs | 0 |

## engine

### Sprint 1: Core

- Write `engine/src/core.c` and `engine/include/core.hpp`
- Write `engine/tests/test_core.py`

**Exit Criteria:**
- [ ] `test -f engine/src/core.c`

## bindings

### Sprint 1: Wrapper

- Write `bindings/wrap.zig`

## docs

### Sprint 1: Guide

- Write the guide
";

fn plan(text: &str) -> Plan {
    parse(text, &ParseContext::default()).expect("the plan parses")
}

fn prompt_for(
    plan: &Plan,
    unit: &str,
    parallel: bool,
    build: Option<&str>,
    tweak: impl FnOnce(&mut git_supervisor::machine::SprintState),
) -> String {
    let state = State::new(plan, "run-1", "polyglot", 3, 5);
    let mut sprint_state = state
        .unit(unit)
        .expect("unit in state")
        .sprints
        .first()
        .expect("a sprint")
        .clone();
    tweak(&mut sprint_state);
    let u = plan.unit(unit).expect("unit in plan");
    prompt::build(&prompt::PromptInput {
        plan,
        unit: u,
        sprint: &u.sprints[0],
        state: &sprint_state,
        root: "/repo",
        parallel,
        previous_output: "",
        existing_files: &[],
        build_command: build,
        result_file: "/repo/.git/supervisor/agents/engine-1-1.result",
        project: PROJECT.with(|p| p.borrow().clone()).as_ref(),
    })
}

thread_local! {
    /// The project commands the next `prompt_for` sees (none by default).
    static PROJECT: std::cell::RefCell<Option<git_supervisor::plan_tools::project::ProjectCommands>> =
        const { std::cell::RefCell::new(None) };
}

#[test]
fn the_prompt_states_the_contract() {
    let p = plan(PLAN);
    let text = prompt_for(&p, "engine", false, None, |_| {});
    assert!(text.contains("HOW THIS SPRINT IS JUDGED:"), "{text}");
    assert!(text.contains("every exit criterion above passes and at least one commit"));
    assert_eq!(
        text.matches("`test -f engine/src/core.c`").count(),
        2,
        "in the sprint's text and the checks, not a third time:\n{text}"
    );
    assert!(text.contains("    Supervisor-Sprint: engine/1\n    Supervisor-Status: complete"));
    assert!(text.contains("A commit under `engine/` without the trailers counts too."));
    // At the project root, units share the tree: only the named files count.
    let root_plan = plan("# Notes\n\n## Sprint 1: Write\n\n- Write `notes/a.txt`\n");
    let at_root = prompt_for(
        &root_plan,
        &root_plan.units[0].name.clone(),
        false,
        None,
        |_| {},
    );
    assert!(
        at_root.contains("A commit without the trailers counts too when it changes files this sprint names (`notes/a.txt`)."),
        "{at_root}"
    );
    assert!(
        text.contains("$SUPERVISOR_RESULT_FILE (/repo/.git/supervisor/agents/engine-1-1.result)")
    );
    for field in ["status = ", "summary = ", "remaining = ", "session_id"] {
        assert!(
            text.contains(field),
            "result field {field} missing:\n{text}"
        );
    }
}

#[test]
fn build_coordination_only_with_a_configured_build() {
    let p = plan(PLAN);
    let without = prompt_for(&p, "engine", true, None, |_| {});
    assert!(
        !without.contains("Build Coordination") && !without.contains("DO NOT run full builds"),
        "no [build] command, no coordinated build to wait for:\n{without}"
    );
    let alone = prompt_for(&p, "engine", false, Some("make all"), |_| {});
    assert!(
        !alone.contains("Build Coordination"),
        "a single agent may build"
    );
    let with = prompt_for(&p, "engine", true, Some("make all"), |_| {});
    assert!(with.contains("**Build Coordination**"), "{with}");
    assert!(
        with.contains("DO NOT run full builds\n(`make all`"),
        "{with}"
    );
}

#[test]
fn syntax_checks_follow_the_sprints_languages() {
    let p = plan(PLAN);
    let text = prompt_for(&p, "engine", true, Some("make"), |_| {});
    assert!(
        text.contains("  cc -fsyntax-only -Iengine/src -Iengine/include engine/src/core.c\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  c++ -fsyntax-only -Iengine/include -x c++-header engine/include/core.hpp\n"
        ),
        "{text}"
    );
    assert!(text.contains("  python3 -m py_compile engine/tests/test_core.py\n"));
    assert!(
        !text.to_lowercase().contains("swift"),
        "no Swift here:\n{text}"
    );

    // A language no checker is known for gets no Swift default either.
    let zig = prompt_for(&p, "bindings", true, Some("make"), |_| {});
    assert!(
        zig.contains("the syntax checker of the files' language"),
        "{zig}"
    );
    assert!(!zig.to_lowercase().contains("swift"), "{zig}");
}

#[test]
fn a_retry_carries_the_failure_reason() {
    let p = plan(PLAN);
    let text = prompt_for(&p, "docs", false, None, |s| {
        s.state = SprintStatus::Backoff;
        s.attempt = 1;
        s.last_failure = Some(
            "Failed: claude json says failed, tools denied: Bash (git commit -m x) (the agent command lacks a permission for them)".into(),
        );
    });
    assert!(text.contains("RETRY:\nSprint 1 failed on attempt 1. Here is what went wrong: Failed: claude json says failed, tools denied: Bash (git commit -m x)"), "{text}");
    // No exit criteria: the tasks and a commit decide.
    assert!(
        text.contains("- Done means the sprint's tasks are finished and at least one commit of yours is in scope.\n"),
        "{text}"
    );
}

#[test]
fn a_template_that_states_the_result_file_is_not_repeated() {
    let template = include_str!("../.workflow-template/prompt-template.md");
    let mut p = plan(PLAN);
    p.template = Some(template.to_string());
    let text = prompt_for(&p, "engine", false, None, |_| {});
    assert!(text.contains("You are executing Sprint 1: Core."), "{text}");
    assert!(text.contains("    Supervisor-Sprint: engine/1\n"));
    assert!(!text.contains("HOW THIS SPRINT IS JUDGED"), "{text}");

    p.template = Some("Do sprint {sprint} of {unit}.".into());
    let text = prompt_for(&p, "engine", false, None, |_| {});
    assert!(
        text.starts_with("Do sprint 1 of engine.\n\nHOW THIS SPRINT IS JUDGED:"),
        "{text}"
    );
    // A template lists no criteria: the contract does.
    assert!(
        text.contains("every exit criterion passes and at least one commit of yours is in scope; the supervisor runs the criteria itself:\n  - `test -f engine/src/core.c`\n"),
        "{text}"
    );
}

#[test]
fn syntax_checks_use_the_projects_own_checker() {
    use git_supervisor::plan_tools::project::detect;
    let text = "# P\n\n## Sprint 1: Core\n\n- Create `src/core.rs`\n- Create `web/app.ts`\n- Create `native/fast.c`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n";
    let p = plan(text);
    let unit = p.units[0].name.clone();
    let files = |fs: &'static [(&'static str, &'static str)]| {
        move |f: &str| fs.iter().find(|(n, _)| *n == f).map(|(_, t)| t.to_string())
    };
    // A crate: `cargo check` resolves the crate's modules, rustc on one
    // file cannot.
    let cargo = detect(files(&[("Cargo.toml", "[package]")]));
    PROJECT.with(|x| *x.borrow_mut() = cargo);
    let with = prompt_for(&p, &unit, true, Some("make"), |_| {});
    assert!(with.contains("  cargo check --quiet\n"), "{with}");
    assert!(!with.contains("rustc "), "{with}");
    assert!(
        with.contains("  tsc --noEmit --skipLibCheck web/app.ts\n"),
        "no tsconfig: the file alone: {with}"
    );
    assert!(
        with.contains("  cc -fsyntax-only -Inative -Iinclude native/fast.c\n"),
        "{with}"
    );
    // A TypeScript project checks with its tsconfig.json.
    let pnpm = detect(files(&[
        ("package.json", r#"{"scripts": {"test": "vitest"}}"#),
        ("pnpm-lock.yaml", ""),
        ("tsconfig.json", "{}"),
    ]));
    PROJECT.with(|x| *x.borrow_mut() = pnpm);
    let with = prompt_for(&p, &unit, true, Some("make"), |_| {});
    PROJECT.with(|x| *x.borrow_mut() = None);
    assert!(with.contains("  pnpm exec tsc --noEmit\n"), "{with}");
    assert!(
        with.contains("rustc --edition 2021"),
        "no crate: the file alone: {with}"
    );
}

/// The plan's Rules / Constraints / must-not lists reach every agent, with
/// the dynamic prompt and with a template alike.
#[test]
fn the_plans_rules_reach_every_agent() {
    let text = PLAN.replace(
        "## engine\n",
        "## Constraints\n\n- Never edit `vendor/`\n- Keep the C API stable\n\n## Must not\n\n- Push to main\n\n## engine\n",
    );
    let p = plan(&text);
    assert_eq!(
        p.rules,
        [
            "Never edit `vendor/`",
            "Keep the C API stable",
            "Push to main"
        ]
    );
    for unit in ["engine", "docs"] {
        let prompt = prompt_for(&p, unit, false, None, |_| {});
        assert!(
            prompt.contains("RULES (from the plan; they hold for every sprint):\n- Never edit `vendor/`\n- Keep the C API stable\n- Push to main\n"),
            "{unit}: {prompt}"
        );
    }
    let templated = format!(
        "{text}\n## Agent Prompt Template\n\n```\nYou are working on <PACKAGE_NAME> in $PROJECT_ROOT/<PACKAGE_DIR>/.\nExecute Sprint <N>.\n```\n"
    );
    let p = plan(&templated);
    assert!(p.template.is_some());
    let prompt = prompt_for(&p, "engine", false, None, |_| {});
    assert!(prompt.contains("- Push to main"), "{prompt}");
}
