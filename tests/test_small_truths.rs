//! Small things a run or a plan tool once said wrong: an agent that never
//! started charged as a failed attempt, an agent's unnamed leftovers, a
//! report's file name and axes, `start --wait` returning early, and
//! `breakdown`'s order. Real git, the fake agent, the real binary.

use std::path::Path;

use crate::common::command;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::scripts;
use crate::test_run::history;
use crate::test_run::status_json;
use crate::test_run::sv;

/// A one-unit plan in the `five` fixture (fake agent, 200 ms polls).
fn one_unit(dir: &Path, plan: &str) {
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan written");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "One unit"]);
}

const ONE_SPRINT: &str = "# Notes\n\n## Sprint 1: Write the notes\n\n- Write `notes.txt`\n\n**Exit Criteria**:\n- [ ] `notes.txt` exists\n";

/// The engine ended between publishing a dispatch and starting its agent:
/// the next tick records that the agent never started and dispatches the
/// sprint again on the same attempt; no failure is charged.
#[test]
fn a_crash_before_the_agent_starts_costs_no_attempt() {
    let s = scripts(&[(
        "default.txt",
        "write notes.txt n\ncommit notes\nresult complete\n",
    )]);
    for n in 1..=20 {
        let repo = fixture_repo("five");
        let dir = repo.path();
        one_unit(dir, ONE_SPRINT);
        let crashed = command(crate::common::bin(), dir)
            .args(["start", "--yes"])
            .env("FAKE_AGENT_SCRIPT", s.path())
            .env("GIT_SUPERVISOR_FAULT_AT", n.to_string())
            .output()
            .expect("start");
        let said = String::from_utf8_lossy(&crashed.stderr);
        if !said.contains("DISPATCHED written, agent not started") {
            continue;
        }
        let tick = sv(dir, s.path(), &["tick"]);
        assert_eq!(tick.status, 0, "{}\n{}", tick.stdout, tick.stderr);
        let waited = sv(dir, s.path(), &["wait"]);
        assert_eq!(waited.status, 0, "{}\n{}", waited.stdout, waited.stderr);
        let steps = sprint_steps(dir);
        assert!(
            steps
                .iter()
                .any(|s| s.starts_with("DISPATCHED -> BACKOFF") && s.contains("never started")),
            "{steps:#?}"
        );
        assert!(
            !steps.iter().any(|s| s.contains("RUNNING -> BACKOFF")),
            "no failed attempt: {steps:#?}"
        );
        assert_eq!(status_json(dir)["overall"], "completed");
        let log = crate::common::run(dir, &["log", "--format", "json"]).stdout;
        let records: Vec<serde_json::Value> = serde_json::from_str(&log).expect("log JSON");
        let done = records
            .iter()
            .find(|r| r["to"] == "COMPLETED" && !r["sprint"].is_null())
            .expect("the sprint completed");
        assert!(
            done["attempt"]
                .as_str()
                .is_some_and(|a| a.starts_with("1/")),
            "completed on its first attempt: {done}"
        );
        return;
    }
    panic!("no run reached the boundary between its dispatch and its agent's start");
}

/// Sprint transitions of the history, oldest first, as
/// `FROM -> TO: why`.
fn sprint_steps(dir: &Path) -> Vec<String> {
    history(dir)
        .into_iter()
        .filter(|r| r.sprint.is_some() && r.from.is_some())
        .map(|r| {
            format!(
                "{} -> {}: {}",
                r.from.unwrap_or_default(),
                r.to.unwrap_or_default(),
                r.why
            )
        })
        .collect()
}

/// The only unit of a plan works at the project root: a file its agent
/// leaves uncommitted is its work even when the sprint never names it, so
/// "partial" with such a file is PARTIAL (continued), not a failed attempt.
#[test]
fn a_lone_units_unnamed_leftover_makes_its_partial_word_count() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    one_unit(dir, ONE_SPRINT);
    let s = scripts(&[(
        "default.txt",
        "?draft.md write notes.txt n\n?draft.md commit notes\n?draft.md result complete\n?draft.md exit 0\nresult partial\nwrite draft.md half\n",
    )]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let steps = sprint_steps(dir);
    assert!(
        steps.iter().any(|s| s.starts_with("RUNNING -> PARTIAL")),
        "{steps:#?}"
    );
    assert!(
        !steps.iter().any(|s| s.starts_with("RUNNING -> BACKOFF")),
        "{steps:#?}"
    );
}

/// A plan titled after its file (`# EXECUTION_PLAN.md — Bookshelf`) gets a
/// completion log named by the rest of its title.
#[test]
fn a_title_that_starts_with_the_file_name_names_the_log_by_the_rest() {
    use git_supervisor::report::complete::file_name;
    for (title, name) in [
        ("EXECUTION_PLAN.md — Bookshelf", "COMPLETE_BOOKSHELF.md"),
        (
            "EXECUTION_PLAN.md: Bookshelf v2",
            "COMPLETE_BOOKSHELF_V2.md",
        ),
        ("PLAN.md - Book shelf", "COMPLETE_BOOK_SHELF.md"),
        ("Bookshelf", "COMPLETE_BOOKSHELF.md"),
        ("EXECUTION_PLAN.md", "COMPLETE_EXECUTION_PLAN_MD.md"),
    ] {
        assert_eq!(file_name(title), name, "{title}");
    }
}

/// The marks of a one-minute run's timeline are five different times, not
/// `+0m +0m +0m +0m +1m`.
#[test]
fn a_one_minute_runs_timeline_marks_differ() {
    use git_supervisor::machine::State;
    use git_supervisor::plan::parse;
    use git_supervisor::plan::ParseContext;
    use git_supervisor::report::complete::build;
    use git_supervisor::report::complete::Attempt;
    use git_supervisor::report::complete::Outcome;
    let plan = parse(ONE_SPRINT, &ParseContext::default()).expect("plan");
    let state = State::new(&plan, "r", "o", 3, 5);
    let mut report = build(&[], &state, &plan, 50);
    let unit = plan.units[0].name.clone();
    report.attempts.push(Attempt {
        unit,
        sprint: "1".into(),
        name: "Write the notes".into(),
        attempt: 1,
        model: Some("sonnet".into()),
        started: "2026-01-01T00:00:00Z".into(),
        ended: Some("2026-01-01T00:01:00Z".into()),
        seconds: 60,
        outcome: Outcome::Completed,
        turns: None,
        start_seq: 2,
        end_seq: Some(4),
    });
    let svg = git_supervisor::report::timeline::svg(&report);
    let marks: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains("text-anchor=\"middle\">+"))
        .filter_map(|l| l.split('>').nth(1)?.split('<').next())
        .collect();
    assert_eq!(marks, ["+0s", "+15s", "+30s", "+45s", "+1m"], "{svg}");
}
