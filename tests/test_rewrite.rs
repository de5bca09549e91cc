//! Plan rewrites: the canonical writer, `evaluate`, `prioritize` and
//! `breakdown` give plans that parse back with the same units and sprints.

use std::collections::BTreeMap;
use std::path::Path;

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;
use git_supervisor::plan_tools::write;

use crate::common::plans_dir;
use crate::common::run;

/// Every fixture plan that parses.
pub fn good_fixtures() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(plans_dir()).expect("plans dir") {
        let dir = entry.expect("entry").path();
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if name.starts_with("bad-") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
        out.push((name, text));
    }
    out.sort();
    out
}

pub fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "project".into(),
    }
}

pub fn parsed(name: &str, text: &str) -> Plan {
    parse(text, &ctx()).unwrap_or_else(|p| panic!("{name} does not parse: {p:?}\n{text}"))
}

/// What "the same plan" means: units (name, directory, layer, dependencies)
/// and, in order, each sprint's name, type, tasks and criteria. Sprint ids
/// are left out (rewrites renumber) and so are the derived file lists.
pub fn shape(p: &Plan) -> serde_json::Value {
    serde_json::json!({
        "title": p.title,
        "units": p.units.iter().map(|u| serde_json::json!({
            "name": u.name,
            "dir": u.dir_or_root(),
            "layer": u.layer,
            "deps": u.deps,
            "sprints": u.sprints.iter().map(|s| serde_json::json!({
                "name": s.name,
                "type": s.task_type,
                "tasks": s.tasks,
                "entry": s.entry,
                "exit": s.exit,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "entry_checks": p.entry_checks,
        "exit_checks": p.exit_checks,
        "rules": p.rules,
        "template": p.template.as_deref().map(str::trim_end),
    })
}

#[test]
fn the_canonical_form_of_every_fixture_parses_back_the_same() {
    for (name, text) in good_fixtures() {
        // Known limit: the canonical form keeps `## 3. Verification` (a
        // numbered step named like criteria) as written, and reads it back
        // as the plan's criteria; `import` is the way to rewrite such a plan.
        if name == "first-sight-verification-open" {
            continue;
        }
        // Known limit: the canonical form keeps a task's dependency aside
        // in its name (`Admin UI (dep: 3)`) but not the section headings
        // that kept the tasks in order (`## Next week (after this week's
        // review)`), and reads the asides back as the order.
        if name == "first-sight-review12-asides-cross-sections" {
            continue;
        }
        // Known limit: the canonical form drops the ticks that keep a
        // `## Quality Gates` section listing open work apart from the done
        // steps it names, and reads its steps back as their gates.
        if name == "first-sight-review14-gates-with-work" {
            continue;
        }
        let plan = parsed(&name, &text);
        let out = write::render(&plan, &write::extras(&text, &plan), &BTreeMap::new());
        let back = parsed(&name, &out);
        assert_eq!(shape(&back), shape(&plan), "{name}:\n{out}");
        let again = write::render(&back, &write::extras(&out, &back), &BTreeMap::new());
        assert_eq!(again, out, "{name}: writing is not stable");
    }
}

/// A scratch copy of a fixture directory.
fn scratch(fixture: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(fixture).expect("fixture") {
        let entry = entry.expect("entry");
        if entry.path().is_file() {
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
        }
    }
    dir
}

fn plan_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan")
}

/// Each unit's tasks, in order, across its sprints.
fn tasks_by_unit(p: &Plan) -> Vec<(String, Vec<String>)> {
    p.units
        .iter()
        .map(|u| {
            (
                u.name.clone(),
                u.sprints.iter().flat_map(|s| s.tasks.clone()).collect(),
            )
        })
        .collect()
}

fn unit_names(p: &Plan) -> Vec<String> {
    let mut v: Vec<String> = p.units.iter().map(|u| u.name.clone()).collect();
    v.sort();
    v
}

#[test]
fn evaluate_output_parses_back_keeps_every_task_and_is_idempotent() {
    for (name, text) in good_fixtures() {
        let dir = scratch(&plans_dir().join(&name));
        let before = parsed(&name, &text);
        let first = run(dir.path(), &["evaluate"]);
        assert_eq!(first.status, 0, "{name}: {}", first.stderr);
        let once = plan_text(dir.path());
        let after = parsed(&name, &once);
        assert_eq!(unit_names(&after), unit_names(&before), "{name}: units");
        assert_eq!(
            tasks_by_unit(&after),
            tasks_by_unit(&before),
            "{name}: every task survives, in order"
        );
        // Ids are the author's, and so are done marks.
        let ids = |p: &Plan| -> Vec<Vec<String>> {
            p.units
                .iter()
                .map(|u| u.sprints.iter().map(|s| s.id.to_string()).collect())
                .collect()
        };
        assert_eq!(ids(&after), ids(&before), "{name}: ids kept");
        let done = |p: &Plan| -> Vec<bool> {
            p.units
                .iter()
                .flat_map(|u| u.sprints.iter().map(|s| s.done.is_some()))
                .collect()
        };
        assert_eq!(done(&after), done(&before), "{name}: done marks kept");
        let second = run(dir.path(), &["evaluate"]);
        assert_eq!(second.status, 0, "{name}: {}", second.stderr);
        assert!(
            second
                .stdout
                .contains("EXECUTION_PLAN.md needs no changes.")
                || second.stdout.contains("EXECUTION_PLAN.md left as written"),
            "{name}: second run: {}",
            second.stdout
        );
        assert_eq!(
            plan_text(dir.path()),
            once,
            "{name}: evaluate twice changes nothing"
        );
        let check = run(dir.path(), &["evaluate", "--check"]);
        assert_eq!(check.status, 0, "{name}: --check after a fix passes");
    }
}

#[test]
fn prioritize_output_parses_back_with_the_same_units_and_sprints() {
    for (name, text) in good_fixtures() {
        let dir = scratch(&plans_dir().join(&name));
        let before = parsed(&name, &text);
        let out = run(dir.path(), &["prioritize"]);
        assert_eq!(out.status, 0, "{name}: {}", out.stderr);
        let once = plan_text(dir.path());
        let after = parsed(&name, &once);
        assert_eq!(unit_names(&after), unit_names(&before), "{name}: units");
        for u in &before.units {
            let a = after.unit(&u.name).expect("unit kept");
            let names = |x: &git_supervisor::plan::Unit| -> Vec<(String, Vec<String>)> {
                x.sprints
                    .iter()
                    .map(|s| (s.name.clone(), s.tasks.clone()))
                    .collect()
            };
            assert_eq!(names(a), names(u), "{name}/{}: same sprints", u.name);
            // Ids are the author's: never renumbered.
            let ids: Vec<String> = a.sprints.iter().map(|s| s.id.to_string()).collect();
            let was: Vec<String> = u.sprints.iter().map(|s| s.id.to_string()).collect();
            assert_eq!(ids, was, "{name}/{}: ids kept", u.name);
        }
        // Units stay where the author wrote them.
        assert_eq!(
            after.units.iter().map(|u| &u.name).collect::<Vec<_>>(),
            before.units.iter().map(|u| &u.name).collect::<Vec<_>>(),
            "{name}: unit order kept"
        );
        assert!(
            once.contains("**Supervisor priority**: ")
                || out.stdout.contains("\nNot placed")
                || before
                    .units
                    .iter()
                    .all(|u| u.sprints.iter().all(|s| s.done.is_some())),
            "{name}: open sprints are annotated, or the plan is left as written and says so"
        );
        run(dir.path(), &["prioritize"]);
        assert_eq!(plan_text(dir.path()), once, "{name}: prioritize is stable");
    }
}

#[test]
fn evaluate_rewrite_of_a_plan_that_needs_work() {
    let dir = scratch(&plans_dir().join("needs-work"));
    let check = run(dir.path(), &["evaluate", "--check"]);
    assert_eq!(check.status, 3, "--check reports a needed rewrite");
    insta::assert_snapshot!("evaluate_needs_work_check_diff", check.stdout);
    assert_eq!(
        plan_text(dir.path()),
        std::fs::read_to_string(plans_dir().join("needs-work/EXECUTION_PLAN.md")).expect("plan"),
        "--check writes nothing"
    );
    let out = run(dir.path(), &["evaluate"]);
    insta::assert_snapshot!("evaluate_needs_work_output", out.snapshot());
    insta::assert_snapshot!("evaluate_needs_work_plan", plan_text(dir.path()));
    let json = run(dir.path(), &["evaluate", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(v["would_rewrite"], false);
}

#[test]
fn prioritize_rewrite_of_a_plan_that_needs_work() {
    let dir = scratch(&plans_dir().join("needs-work"));
    let out = run(dir.path(), &["prioritize"]);
    insta::assert_snapshot!("prioritize_needs_work_output", out.snapshot());
    insta::assert_snapshot!("prioritize_needs_work_plan", plan_text(dir.path()));
}

#[test]
fn analyze_reports_three_passes_and_leaves_the_plan_alone() {
    let dir = scratch(&plans_dir().join("needs-work"));
    let before = plan_text(dir.path());
    let out = run(dir.path(), &["analyze"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    insta::assert_snapshot!("analyze_needs_work_output", out.snapshot());
    let report = std::fs::read_to_string(dir.path().join("ANALYSIS_REPORT.md")).expect("report");
    insta::assert_snapshot!("analyze_needs_work_report", report);
    assert_eq!(
        plan_text(dir.path()),
        before,
        "analyze never modifies the plan"
    );
    let again = run(dir.path(), &["analyze"]);
    assert_eq!(again.stdout, out.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ANALYSIS_REPORT.md")).expect("report"),
        report,
        "deterministic"
    );
}

#[test]
fn breakdown_turns_requirements_into_a_plan_the_parser_reads() {
    for fixture in ["prd", "stories"] {
        let dir = scratch(
            &crate::common::manifest_dir()
                .join("tests/reqs")
                .join(fixture),
        );
        // With a build command, every sprint also exits on the build.
        let build = (fixture == "prd").then_some("cargo test");
        if let Some(b) = build {
            std::fs::create_dir_all(dir.path().join(".workflow")).expect("mkdir");
            std::fs::write(
                dir.path().join(".workflow/config.toml"),
                format!("[build]\ncommand = \"{b}\"\n"),
            )
            .expect("config");
        }
        let out = run(dir.path(), &["breakdown"]);
        assert_eq!(out.status, 0, "{fixture}: {}", out.stderr);
        insta::assert_snapshot!(format!("breakdown_{fixture}_output"), out.snapshot());
        let text = plan_text(dir.path());
        insta::assert_snapshot!(format!("breakdown_{fixture}_plan"), text.clone());
        let plan = parsed(fixture, &text);
        // The written plan is exactly the plan breakdown built.
        let source = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .find(|p| p.is_file() && p.file_name().is_some_and(|n| n != "EXECUTION_PLAN.md"))
            .expect("requirements");
        let built = git_supervisor::plan_tools::breakdown::breakdown(
            &std::fs::read_to_string(source).expect("reqs"),
            "project",
            build,
        );
        assert_eq!(shape(&plan), shape(&built.plan), "{fixture}: round trip");
        for u in &plan.units {
            for s in &u.sprints {
                assert!(
                    s.tasks.len() <= 7,
                    "{fixture}: {}/{} has {} tasks",
                    u.name,
                    s.id,
                    s.tasks.len()
                );
            }
        }
        let again = run(dir.path(), &["breakdown"]);
        assert_eq!(again.status, 1, "an existing plan is not replaced");
        assert!(again.stderr.contains("--force"), "{}", again.stderr);
        assert_eq!(plan_text(dir.path()), text);
    }
}

#[test]
fn breakdown_without_a_document_prints_the_exact_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["breakdown"]);
    assert_eq!(out.status, 1);
    assert_eq!(
        out.stderr,
        "ERROR: Cannot find a requirements document.\nThe breakdown command needs a source document to analyze.\nPlease provide the path: git supervisor breakdown /path/to/requirements.md\n"
    );
    assert!(!dir.path().join("EXECUTION_PLAN.md").exists());
}

#[test]
fn breakdown_of_every_fixture_plan_parses_back_as_built() {
    for (name, text) in good_fixtures() {
        let b = git_supervisor::plan_tools::breakdown::breakdown(&text, &name, Some("make check"));
        let out = write::render(&b.plan, &write::Extras::default(), &BTreeMap::new());
        let back = parsed(&name, &out);
        assert_eq!(shape(&back), shape(&b.plan), "{name}:\n{out}");
        assert!(!b.plan.units.is_empty(), "{name}: at least one unit");
    }
}

#[test]
fn plan_tools_on_a_bad_plan_report_it_and_write_nothing() {
    for cmd in ["evaluate", "prioritize", "analyze"] {
        let dir = scratch(&plans_dir().join("bad-cycle"));
        let before = plan_text(dir.path());
        let out = run(dir.path(), &[cmd]);
        assert_eq!(out.status, 1, "{cmd}: {}", out.stdout);
        assert!(
            out.stderr.contains("plan::dependency_cycle"),
            "{cmd}: {}",
            out.stderr
        );
        assert_eq!(plan_text(dir.path()), before, "{cmd} changed a bad plan");
        assert!(!dir.path().join("ANALYSIS_REPORT.md").exists());
    }
    let empty = tempfile::tempdir().expect("tempdir");
    let out = run(empty.path(), &["evaluate"]);
    assert_eq!(
        out.stderr,
        "ERROR: Cannot find EXECUTION_PLAN.md.\ngit supervisor requires an execution plan to operate.\nPlease provide the path: git supervisor evaluate /path/to/EXECUTION_PLAN.md\n"
    );
}

/// Every line of `before` is in `after`, in order (lines may be added).
fn keeps_every_line(before: &str, after: &str) -> Result<(), String> {
    let mut rest = after.lines();
    for line in before.lines() {
        if !rest.any(|l| l == line) {
            return Err(format!("line lost or moved: {line:?}"));
        }
    }
    Ok(())
}

#[test]
fn evaluate_and_prioritize_edit_a_sprint_heading_plan_in_place() {
    let dir = scratch(&plans_dir().join("single"));
    let original = plan_text(dir.path());
    let out = run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let evaluated = plan_text(dir.path());
    assert_ne!(evaluated, original, "single needs a criterion");
    keeps_every_line(&original, &evaluated).unwrap();
    let headings = |t: &str| t.lines().filter(|l| l.starts_with("## Sprint")).count();
    assert_eq!(headings(&evaluated), headings(&original), "{evaluated}");
    let out = run(dir.path(), &["prioritize"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let prioritized = plan_text(dir.path());
    keeps_every_line(&evaluated, &prioritized).unwrap();
    assert!(
        prioritized.contains("**Supervisor priority**:"),
        "{prioritized}"
    );
    assert_eq!(headings(&prioritized), headings(&original), "{prioritized}");
}

const REAL_SHAPED: &str = r#"# Ledger service

Prose under the title, kept as written.

## Executive Summary

| Area | Owner |
|------|-------|
| api  | team  |

```text
keep this block
```

## Sprint 1: Schema

Some prose about the schema, with *emphasis* and a [link](x).

- [x] Create `db/schema.sql`
- [ ] Create `db/seed.sql`

**Exit Criteria**:
- [ ] It works correctly

**Prompt**:
```
You are building the schema. Do not touch api/.
```

## Sprint 2: API

**Preconditions**:
- [ ] Sprint 1 is complete

- Add the `api/routes.rs` handlers
- Add the `api/errors.rs` mapping

| Route | Verb |
|-------|------|
| /a    | GET  |

## Risks

- The schema may change (see Sprint 2).

```sh
echo untouched
```
"#;

#[test]
fn evaluate_and_prioritize_keep_every_untargeted_line_of_a_real_shaped_plan() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), REAL_SHAPED).expect("write");
    for (cmd, _) in [("evaluate", 0), ("prioritize", 0), ("evaluate", 0)] {
        let before = plan_text(dir.path());
        let out = run(dir.path(), &[cmd]);
        assert_eq!(out.status, 0, "{cmd}: {}{}", out.stdout, out.stderr);
        let after = plan_text(dir.path());
        // The vague criterion is the only line a fix may replace.
        let untargeted: String = before
            .lines()
            .filter(|l| !l.contains("It works correctly"))
            .map(|l| format!("{l}\n"))
            .collect();
        keeps_every_line(&untargeted, &after).unwrap_or_else(|e| panic!("{cmd}: {e}\n{after}"));
        for kept in [
            "## Executive Summary",
            "## Risks",
            "- [x] Create `db/schema.sql`",
            "keep this block",
            "echo untouched",
            "| /a    | GET  |",
            "You are building the schema.",
        ] {
            assert!(after.contains(kept), "{cmd} lost {kept:?}:\n{after}");
        }
    }
    let last = plan_text(dir.path());
    let out = run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 0);
    assert_eq!(
        plan_text(dir.path()),
        last,
        "a second evaluate changes nothing"
    );
}

#[test]
fn writing_refuses_a_plan_with_uncommitted_changes_unless_forced() {
    let dir = scratch(&plans_dir().join("single"));
    let git = |args: &[&str]| crate::common::git(dir.path(), args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "plan",
    ]);
    let committed = plan_text(dir.path());
    let edited = format!("{committed}\nA note of mine.\n");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), &edited).expect("write");
    let out = run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(out.stderr.contains("uncommitted changes"), "{}", out.stderr);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
    assert_eq!(plan_text(dir.path()), edited, "nothing written");
    let out = run(dir.path(), &["evaluate", "--force"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("+- [ ] `docs/flags.md` exists"),
        "the applied diff is printed: {}",
        out.stdout
    );
    assert!(plan_text(dir.path()).contains("A note of mine."));
    // A committed plan is written without --force.
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), &committed).expect("write");
    let out = run(dir.path(), &["prioritize", "--check"]);
    assert_eq!(out.status, 3, "{}", out.stderr);
    assert!(
        out.stdout.contains("+**Supervisor priority**:"),
        "{}",
        out.stdout
    );
    assert_eq!(plan_text(dir.path()), committed, "--check writes nothing");
    let out = run(dir.path(), &["prioritize"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(plan_text(dir.path()).contains("**Supervisor priority**:"));
}

#[test]
fn evaluate_replaces_a_vague_criterion_with_the_projects_own_test_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("go.mod"), "module example.com/x\n").expect("write");
    let plan = "# X\n\n## Sprint 1: Parser\n\n- Create `parse.go`\n- Create `lex.go`\n- Create `ast.go`\n\n**Exit Criteria**:\n- [ ] The parser works correctly\n";
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), plan).expect("write");
    let out = run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let after = plan_text(dir.path());
    assert!(after.contains("`go test ./...`"), "{after}\n{}", out.stdout);
    assert!(!after.contains("works correctly"), "{after}");
    keeps_every_line(
        &plan.replace("- [ ] The parser works correctly\n", ""),
        &after,
    )
    .unwrap();
}

/// Over every fixture: the lines outside the sprint sections an edit
/// replaced stay byte-for-byte and in order, the result parses into the
/// same units, and a second evaluate changes nothing.
#[test]
fn edits_of_every_fixture_keep_the_lines_no_fix_targets() {
    use git_supervisor::plan_tools::edit;
    use git_supervisor::plan_tools::rewrite;
    for (name, text) in good_fixtures() {
        // The context the plan was parsed in (a plan without a title names
        // its one unit after the directory).
        let ctx = ctx();
        let plan = parsed(&name, &text);
        let cmds = rewrite::Commands::from_plan(&plan, None);
        let (fixed, _) = rewrite::evaluate(&plan, 50, &cmds);
        let e = edit::edit(&text, &plan, &fixed, &BTreeMap::new(), &ctx);
        let back = parse(&e.text, &ctx).unwrap_or_else(|p| panic!("{name}: {p:?}\n{}", e.text));
        assert_eq!(unit_names(&back), unit_names(&plan), "{name}");
        assert_eq!(tasks_by_unit(&back), tasks_by_unit(&plan), "{name}");
        // Lines of no sprint section are all kept, in order.
        let sections: Vec<&str> = plan
            .units
            .iter()
            .flat_map(|u| u.sprints.iter().map(|s| s.body.as_str()))
            .collect();
        let outside: String = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter(|l| !sections.iter().any(|b| b.contains(*l)))
            .filter(|l| !l.trim_start().starts_with('|'))
            .map(|l| format!("{l}\n"))
            .collect();
        keeps_every_line(&outside, &e.text).unwrap_or_else(|m| panic!("{name}: {m}"));
        let (again, _) = rewrite::evaluate(&back, 50, &rewrite::Commands::from_plan(&back, None));
        let e2 = edit::edit(&e.text, &back, &again, &BTreeMap::new(), &ctx);
        assert_eq!(e2.text, e.text, "{name}: a second evaluate changes nothing");

        let (ordered, _, notes) = rewrite::prioritize(&plan);
        let p = edit::edit(&text, &plan, &ordered, &notes, &ctx);
        let back = parse(&p.text, &ctx).unwrap_or_else(|e| panic!("{name}: {e:?}\n{}", p.text));
        assert_eq!(unit_names(&back), unit_names(&plan), "{name}");
    }
}

/// Ids are the author's: `Sprint 1a` after `Sprint 1` stays `1a`, and
/// every reference to it stays as written.
#[test]
fn evaluate_keeps_the_authors_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = REAL_SHAPED
        .replace("## Sprint 2: API", "## Sprint 1a: API")
        .replace("see Sprint 2)", "see Sprint 1a)");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), &plan).expect("write");
    let out = run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let after = plan_text(dir.path());
    assert!(after.contains("## Sprint 1a: API"), "{after}");
    assert!(after.contains("see Sprint 1a)"), "{after}");
    keeps_every_line(&plan.replace("- [ ] It works correctly\n", ""), &after)
        .unwrap_or_else(|m| panic!("{m}\n{after}"));
}

/// Sprints without a section of their own (Kiro task-list items, Cursor
/// todos, milestones named in a progress list, stage-table rows) cannot be
/// edited in place: the plan tools leave them exactly as written and say
/// so, never regenerate the plan (which would drop the author's text and
/// done marks).
#[test]
fn plan_tools_leave_sectionless_sprints_as_written() {
    for fixture in [
        "dialect-kiro",
        "dialect-kiro-tasks-heading",
        "dialect-cursor",
        "dialect-execplan-progress",
        "tables-stage-rows",
    ] {
        for cmd in ["evaluate", "prioritize"] {
            let dir = scratch(&plans_dir().join(fixture));
            let before = plan_text(dir.path());
            let out = run(dir.path(), &[cmd, "--force"]);
            assert_eq!(out.status, 0, "{fixture} {cmd}: {}", out.stderr);
            assert_eq!(
                plan_text(dir.path()),
                before,
                "{fixture} {cmd}: {}",
                out.stdout
            );
        }
    }
}
