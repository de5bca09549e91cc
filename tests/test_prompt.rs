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
        project_root: "/repo",
        needs: &[],
        parallel,
        previous_output: "",
        existing_files: &[],
        build_command: build,
        result_file: "/repo/.git/supervisor/agents/engine-1-1.result",
        project: PROJECT.with(|p| p.borrow().clone()).as_ref(),
        to_read: &[],
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

/// A v1 plan: packages in Section 2, who may import whom in 2.2, each
/// package's sprints in a numbered section, and an Appendix D template
/// written with the author's own absolute paths.
const V1: &str = "\
# Verifier

## 2. Packages

| Package | Directory | Layer |
|---------|-----------|-------|
| parser | parser | 0 |
| profiles | profiles | 0 |
| validation | validation | 1 |

### 2.2 Allowed Imports

| Package | May Import |
|---------|------------|
| parser | none (Foundation only) |
| profiles | none |
| validation | `profiles` |

## 8. parser Sprints

### Sprint 1: Lexer

- Write `parser/lexer.txt`

## 9. profiles Sprints

### Sprint 1: Profiles

- Write `profiles/profiles.txt`

## 10. validation Sprints

### Sprint 1: Rules

- Write `validation/rules.txt`

## Appendix D: Sprint Prompt Template

```
You are working on package <PACKAGE_NAME> located at /Users/author/Projects/Verifier/<PACKAGE_DIR>/.

FIRST, read these files in order:
1. /Users/author/Projects/Verifier/EXECUTION_PLAN.md (the master execution plan)
2. ~/Projects/Verifier/<PACKAGE_DIR>/PROGRESS.md (if it exists)
3. $PROJECT_ROOT/<PACKAGE_DIR>/TODO.md (detailed type mappings)
Build with `cd /Users/author/Projects/Verifier && make`, using /usr/bin/env and https://example.com/docs.

You are executing Sprint <N>: <SPRINT_NAME>.
Create all types and tests listed for Sprint <N> in Section <8|9|10> of EXECUTION_PLAN.md.
Do NOT start the next sprint.
```
";

/// The v1 template's `<8|9|10>` is the section holding the unit's sprints,
/// and its hard-coded absolute paths name the tree the agent works in.
#[test]
fn a_v1_template_is_filled_per_unit_and_project_relative() {
    let p = plan(V1);
    assert!(p.template.is_some(), "{:#?}", p.detection);
    let names: Vec<&str> = p.units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["parser", "profiles", "validation"]);
    for (unit, section) in [("parser", "8"), ("profiles", "9"), ("validation", "10")] {
        let text = prompt_for(&p, unit, false, None, |_| {});
        assert!(
            text.contains(&format!(
                "listed for Sprint 1 in Section {section} of EXECUTION_PLAN.md."
            )),
            "{unit}:\n{text}"
        );
        assert!(
            text.starts_with(&format!(
                "You are working on package {unit} located at /repo/{unit}/.\n"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "1. /repo/EXECUTION_PLAN.md (the master execution plan)\n2. /repo/{unit}/PROGRESS.md (if it exists)\n3. /repo/{unit}/TODO.md"
            )),
            "{text}"
        );
        assert!(
            text.contains("`cd /repo && make`, using /usr/bin/env and https://example.com/docs."),
            "{text}"
        );
        assert!(!text.contains("/Users/author"), "{text}");
        assert!(!text.contains('|'), "no alternation is left:\n{text}");
    }
}

/// Each agent is told what its unit may import; its registered needs come
/// back as hand-offs to its next sprint.
#[test]
fn allowed_imports_and_hand_offs_reach_the_agent() {
    let p = plan(V1);
    let validation = prompt_for(&p, "validation", false, None, |_| {});
    assert!(
        validation.contains("ALLOWED IMPORTS (from the plan):\n- validation may import from: profiles.\n- Do NOT import from parser. When you need something one of them has, define it locally and list it under `## Cross-Package Needs` in validation/PROGRESS.md"),
        "{validation}"
    );
    let parser = prompt_for(&p, "parser", false, None, |_| {});
    assert!(
        parser.contains("- parser may import from no other unit of this plan.\n- Do NOT import from profiles, validation."),
        "{parser}"
    );
    // Without a table nothing is said.
    let plain = prompt_for(&plan(PLAN), "engine", false, None, |_| {});
    assert!(!plain.contains("ALLOWED IMPORTS"), "{plain}");

    use git_supervisor::machine::Need;
    let needs = [
        Need {
            unit: "validation".into(),
            text: "`Profile` from profiles".into(),
        },
        Need {
            unit: "validation".into(),
            text: "`Token` from parser".into(),
        },
        Need {
            unit: "parser".into(),
            text: "`Rule` from validation".into(),
        },
    ];
    let state = State::new(&p, "run-1", "v", 3, 5);
    let u = p.unit("validation").expect("unit");
    let text = prompt::build(&prompt::PromptInput {
        plan: &p,
        unit: u,
        sprint: &u.sprints[0],
        state: &state.unit("validation").expect("unit").sprints[0],
        root: "/work/validation-tree",
        project_root: "/repo",
        needs: &needs,
        parallel: false,
        previous_output: "",
        existing_files: &[],
        build_command: None,
        result_file: "/r",
        project: None,
        to_read: &[],
    });
    assert!(
        text.contains("HAND-OFF (the run's Cross-Package Needs Registry):\n- Import `Profile` from profiles (your earlier sprint listed it as a need; the plan allows the import): use it instead of a local stand-in.\n- Keep your local definition of `Token`: the plan does not let validation import from parser.\n"),
        "{text}"
    );
    assert!(!text.contains("`Rule`"), "another unit's need:\n{text}");
    // The agent's own tree, not the checkout the run started in.
    assert!(
        text.starts_with(
            "You are working on package validation located at /work/validation-tree/validation/."
        ),
        "{text}"
    );
}
