//! `evaluate` and `prioritize` never lose a word, over every fixture plan
//! and over plans `breakdown` generates: every line no fix targets stays
//! byte-for-byte (and in order, where nothing was reordered), the result
//! reads back as the same units and sprints but for the changes reported,
//! and a second run changes nothing. Plus snapshots of `--check` diffs on
//! each shape of plan.

use std::collections::BTreeMap;

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;
use git_supervisor::plan_tools::breakdown;
use git_supervisor::plan_tools::edit;
use git_supervisor::plan_tools::rewrite;
use git_supervisor::plan_tools::write;

use crate::common::run;
use crate::test_rewrite::good_fixtures;

/// Every plan to check: the fixtures, and what `breakdown` makes of each
/// fixture and of each requirements document.
fn plans() -> Vec<(String, String)> {
    let mut out = good_fixtures();
    let mut docs: Vec<(String, String)> = good_fixtures();
    for entry in std::fs::read_dir(crate::common::manifest_dir().join("tests/reqs")).expect("reqs")
    {
        let dir = entry.expect("entry").path();
        for f in std::fs::read_dir(&dir).expect("dir") {
            let f = f.expect("file").path();
            let name = dir
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            docs.push((name, std::fs::read_to_string(f).expect("doc")));
        }
    }
    for (name, doc) in docs {
        for build in [None, Some("make test")] {
            let b = breakdown::breakdown(&doc, &name, build);
            let mut text = write::render(&b.plan, &write::Extras::default(), &BTreeMap::new());
            text.push_str("\n\n");
            text.push_str(&breakdown::summary_section(&b.plan));
            let np = breakdown::not_planned_section(&b);
            if !np.is_empty() {
                text.push('\n');
                text.push_str(&np);
            }
            out.push((format!("generated from {name} ({build:?})"), text));
        }
    }
    out
}

fn ctx(name: &str) -> ParseContext {
    ParseContext {
        dir_name: name.replace(|c: char| !c.is_alphanumeric(), "-"),
    }
}

fn read(name: &str, text: &str) -> Plan {
    parse(text, &ctx(name)).unwrap_or_else(|p| panic!("{name}: {p:?}\n{text}"))
}

/// The lines of `text` no fix may touch: outside every sprint section and
/// every table, plus the sections of sprints the rewrite left exactly as
/// they were (`kept`).
fn untargeted(text: &str, plan: &Plan, kept: &dyn Fn(usize, usize) -> bool) -> Vec<String> {
    let mut touched: Vec<&str> = Vec::new();
    for (u, unit) in plan.units.iter().enumerate() {
        for (s, sprint) in unit.sprints.iter().enumerate() {
            if !kept(u, s) {
                touched.push(sprint.body.as_str());
            }
        }
    }
    let kept_bodies: Vec<&str> = plan
        .units
        .iter()
        .flat_map(|u| u.sprints.iter().map(|s| s.body.as_str()))
        .filter(|b| !touched.contains(b))
        .collect();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !l.trim_start().starts_with('|'))
        .filter(|l| {
            !touched.iter().any(|b| b.contains(*l)) || kept_bodies.iter().any(|b| b.contains(*l))
        })
        .map(str::to_string)
        .collect()
}

fn in_order(lines: &[String], after: &str) -> Result<(), String> {
    let mut rest = after.lines();
    for line in lines {
        if !rest.any(|l| l == line) {
            return Err(format!("line lost or moved: {line:?}"));
        }
    }
    Ok(())
}

fn sprint_names(p: &Plan) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = p
        .units
        .iter()
        .map(|u| {
            let mut names: Vec<String> = u.sprints.iter().map(|s| s.name.clone()).collect();
            names.sort();
            (u.name.clone(), names)
        })
        .collect();
    v.sort();
    v
}

fn tasks(p: &Plan) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = p
        .units
        .iter()
        .map(|u| {
            (
                u.name.clone(),
                u.sprints.iter().flat_map(|s| s.tasks.clone()).collect(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn evaluate_keeps_every_untargeted_line_in_order_and_is_idempotent() {
    let mut checked = 0;
    for (name, text) in plans() {
        let plan = read(&name, &text);
        let cmds = rewrite::Commands::from_plan(&plan, Some("make test"));
        let (fixed, ev) = rewrite::evaluate(&plan, 50, &cmds);
        let e = edit::edit(&text, &plan, &fixed, &BTreeMap::new(), &ctx(&name));
        let back = read(&name, &e.text);
        // Same units, every task still there, in order.
        assert_eq!(tasks(&back), tasks(&plan), "{name}");
        // Same sprints, ids and done marks: splits and merges are only
        // proposed (`ev.proposals`), never written.
        assert_eq!(
            sprint_names(&back),
            sprint_names(&plan),
            "{name}: {:?}",
            ev.changes
        );
        assert_eq!(ids_and_done(&back), ids_and_done(&plan), "{name}");
        assert_eq!(
            !ev.proposals.is_empty(),
            ev.splits + ev.merges > 0,
            "{name}: every reshaping is a proposal"
        );
        checked += 1;
        // A sprint evaluate left alone keeps its section.
        let kept = |u: usize, s: usize| {
            let same_count = fixed.units[u].sprints.len() == plan.units[u].sprints.len();
            same_count && fixed.units[u].sprints[s] == plan.units[u].sprints[s]
        };
        let lines = untargeted(&text, &plan, &kept);
        in_order(&lines, &e.text).unwrap_or_else(|m| panic!("{name}: {m}\n{}", e.text));
        // A second evaluate changes nothing.
        let (again, _) = rewrite::evaluate(
            &back,
            50,
            &rewrite::Commands::from_plan(&back, Some("make test")),
        );
        let e2 = edit::edit(&e.text, &back, &again, &BTreeMap::new(), &ctx(&name));
        assert_eq!(e2.text, e.text, "{name}: a second evaluate changes nothing");
    }
    assert!(checked > 20, "most plans are edited in place: {checked}");
}

#[test]
fn prioritize_keeps_every_untargeted_line_and_is_idempotent() {
    let mut checked = 0;
    for (name, text) in plans() {
        let plan = read(&name, &text);
        let (ordered, prio, notes) = rewrite::prioritize(&plan);
        let e = edit::edit(&text, &plan, &ordered, &notes, &ctx(&name));
        let back = read(&name, &e.text);
        assert_eq!(sprint_names(&back), sprint_names(&plan), "{name}");
        assert_eq!(tasks(&back), tasks(&plan), "{name}");
        assert_eq!(ids_and_done(&back), ids_and_done(&plan), "{name}");
        checked += 1;
        // Prioritize adds its own score lines and nothing else: units stay
        // where they are written, ids stay, every line stays in order.
        let _ = &prio;
        let lines = untargeted(&text, &plan, &|_, _| true);
        in_order(&lines, &e.text).unwrap_or_else(|m| panic!("{name}: {m}\n{}", e.text));
        let (again, _, notes) = rewrite::prioritize(&back);
        let e2 = edit::edit(&e.text, &back, &again, &notes, &ctx(&name));
        assert_eq!(
            e2.text, e.text,
            "{name}: a second prioritize changes nothing"
        );
    }
    assert!(checked > 20, "most plans are edited in place: {checked}");
}

/// Each unit's sprint ids and done marks, in order.
fn ids_and_done(p: &Plan) -> Vec<(String, String, bool)> {
    p.units
        .iter()
        .flat_map(|u| {
            u.sprints
                .iter()
                .map(|s| (u.name.clone(), s.id.to_string(), s.done.is_some()))
        })
        .collect()
}

/// `--check` on a plan of one shape: exit 3, and the diff it prints.
fn check_diff(cmd: &str, plan: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), plan).expect("write");
    let out = run(dir.path(), &[cmd, "--check"]);
    assert_eq!(out.status, 3, "{cmd}: {}{}", out.stdout, out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("EXECUTION_PLAN.md")).expect("plan"),
        plan,
        "--check writes nothing"
    );
    out.stdout[out.stdout.find("--- a/").expect("a diff")..].to_string()
}

const SPRINT_N: &str = "# Notes app\n\nA plan of `## Sprint N:` sections.\n\n## Sprint 1: Storage\n\n- [x] Create `src/store.rs`\n- [ ] Create `src/index.rs`\n\n**Exit Criteria**:\n- [ ] Storage works correctly\n\n## Sprint 2: Search\n\nBuilt on Sprint 1.\n\n- Create `src/search.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test search` passes\n";

const FREE_SECTIONS: &str = "# Ledger\n\n## Executive Summary\n\n| Area | Owner |\n|------|-------|\n| api  | team  |\n\n```text\nkeep this block\n```\n\n## Work Units\n\n| Unit | Directory | Layer |\n|------|-----------|-------|\n| db | db | 0 |\n| api | api | 1 |\n\n## db\n\n### Sprint 1: Schema\n\n- Create `db/schema.sql`\n\n**Exit Criteria**:\n- [ ] It works correctly\n\n## api\n\n### Sprint 1: Routes\n\n- Create `api/routes.rs` over the db schema\n\n**Exit Criteria**:\n- [ ] `cargo test -p api` passes\n\n## Risks\n\n```sh\necho untouched\n```\n";

const TICKED: &str = "# Tool\n\n## Sprint 1: Done already\n\n- [x] Create `tool/a.rs`\n- [x] Create `tool/b.rs`\n\n**Exit Criteria**:\n- [x] `tool/a.rs` exists\n\n## Sprint 1a: Follow-up\n\n- [ ] Create `tool/c.rs`\n\n**Exit Criteria**:\n- [ ] Follow-up is complete\n";

#[test]
fn check_diffs_of_each_shape() {
    insta::assert_snapshot!("check_sprint_n_evaluate", check_diff("evaluate", SPRINT_N));
    insta::assert_snapshot!(
        "check_sprint_n_prioritize",
        check_diff("prioritize", SPRINT_N)
    );
    insta::assert_snapshot!(
        "check_free_sections_evaluate",
        check_diff("evaluate", FREE_SECTIONS)
    );
    insta::assert_snapshot!(
        "check_free_sections_prioritize",
        check_diff("prioritize", FREE_SECTIONS)
    );
    insta::assert_snapshot!("check_ticked_evaluate", check_diff("evaluate", TICKED));
    insta::assert_snapshot!("check_ticked_prioritize", check_diff("prioritize", TICKED));
    // Ids from 0, a done sortie that would be split, the author's own
    // priority and budget lines: all kept; the split only proposed.
    insta::assert_snapshot!("check_sorties_evaluate", check_diff("evaluate", SORTIES));
    insta::assert_snapshot!(
        "check_sorties_prioritize",
        check_diff("prioritize", SORTIES)
    );
    insta::assert_snapshot!("check_phases_evaluate", check_diff("evaluate", PHASES_25));
}

/// `Sortie 0` onwards, a finished sortie far over the budget, the author's
/// `**Priority**:` and `**Context budget**:` lines, an oversized open one.
const SORTIES: &str = "# Flight\n\n## Sortie 0: Recon (COMPLETED)\n\n**Priority**: P0 — assign to opus\n**Context budget**: 30 turns\n\n- [x] Create `a/0.rs`\n- [x] Create `a/1.rs`\n- [x] Create `a/2.rs`\n- [x] Create `b/0.rs`\n- [x] Create `b/1.rs`\n- [x] Create `b/2.rs`\n- [x] Create `c/0.rs`\n- [x] Create `c/1.rs`\n- [x] Create `c/2.rs`\n\n## Sortie 1: Wire\n\n**Priority**: P1\n**Parallel group**: none\n\nSortie 0 complete first.\n\n- Create `d/0.rs`\n- Create `e/0.rs`\n- Create `f/0.rs`\n- Create `g/0.rs`\n- Create `h/0.rs`\n- Create `i/0.rs`\n- Create `j/0.rs`\n- Create `k/0.rs`\n- Create `l/0.rs`\n- Create `m/0.rs`\n- Create `n/0.rs`\n- Create `o/0.rs`\n\n**Exit Criteria**:\n- [ ] It all works correctly\n";

/// Roadmap phases numbered from 25, with a dotted inserted one.
const PHASES_25: &str = "# Roadmap\n\n## Phase 25: Import\n\n**Depends on**: nothing\n\n- Create `src/import.rs`\n\n**Exit Criteria**:\n- [ ] Import works correctly\n\n## Phase 25.1: Hotfix (INSERTED)\n\nMUST COMPLETE BEFORE 26.\n\n- Create `src/fix.rs`\n\n## Phase 26: Export\n\n**Depends on**: Phase 25\n\n- Create `src/export.rs`\n";

/// An edit of hundreds of sections prints a diff that `patch` applies to
/// give exactly the plan `evaluate` writes.
#[test]
fn the_diff_of_a_large_rewrite_applies() {
    let mut plan = String::from("# Big\n");
    for k in 1..=600 {
        let dir = ["core", "api", "web", "cli"][k % 4];
        plan.push_str(&format!(
            "\n## Sprint {k}: Part {k}\n\n- Create `{dir}/file{k}.rs`\n\n**Exit Criteria**:\n- [ ] It works correctly\n"
        ));
    }
    let plan = plan.trim_end().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), &plan).expect("write");
    let out = run(dir.path(), &["evaluate", "--check"]);
    assert_eq!(out.status, 3, "{}", out.stderr);
    let diff = &out.stdout[out.stdout.find("--- a/").expect("a diff")..];
    assert!(
        diff.contains("\\ No newline at end of file"),
        "the last line"
    );
    let out = run(dir.path(), &["evaluate", "--force"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let written = std::fs::read_to_string(dir.path().join("EXECUTION_PLAN.md")).expect("plan");
    let copy = tempfile::tempdir().expect("tempdir");
    std::fs::write(copy.path().join("EXECUTION_PLAN.md"), &plan).expect("write");
    std::fs::write(copy.path().join("change.diff"), diff).expect("write");
    let status = std::process::Command::new("patch")
        .current_dir(copy.path())
        .args(["-s", "-p1", "-i", "change.diff"])
        .status()
        .expect("patch runs");
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(copy.path().join("EXECUTION_PLAN.md")).expect("patched"),
        written
    );
}
