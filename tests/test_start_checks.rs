//! What `start` checks before and while it dispatches: a reading with
//! warnings or guesses is confirmed first, failed sprints are retried on
//! the strongest model, sprints no command checks are named and can be
//! refused. Real git, the fake agent, the real binary.

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::scripts;
use crate::common::SUCCEED;
use crate::test_run::history;
use crate::test_run::status_json;
use crate::test_run::sv;

/// A plan read with warnings does not start off a terminal unless `--yes`
/// accepts its reading; refused, it records nothing.
#[test]
fn a_plan_with_warnings_starts_only_when_its_reading_is_accepted() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let plan = "# Tidy\n\n| Package | Sprints |\n|---|---|\n| cli | 3 |\n\n## cli\n\n### Sprint 1: One\n\n- Write `one.txt`\n\n### Sprint 2: Two\n\n- Write `two.txt`\n";
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan written");
    git(dir, &["commit", "-qam", "A plan whose table miscounts"]);
    let s = scripts(&[("default.txt", SUCCEED)]);
    let refused = sv(dir, s.path(), &["start"]);
    assert_eq!(refused.status, 1, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("run::unconfirmed"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stdout.contains("plan::sprint_count"),
        "{}",
        refused.stdout
    );
    assert!(git(dir, &["for-each-ref", "refs/supervisor"]).is_empty());
    let started = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(started.status, 0, "{}\n{}", started.stdout, started.stderr);
}

/// A reading that guesses (done marks kept in a progress list, away from
/// the milestones they tick) is shown and confirmed before the first run:
/// off a terminal `start` prints the reading, refuses and records nothing;
/// `--yes` accepts it and the ticked milestone is never dispatched.
#[test]
fn a_reading_that_guesses_starts_only_when_accepted() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let plan = "# Store\n\n## Progress\n\n- [x] (2026-01-02) Milestone 1: Local store in place.\n- [ ] Milestone 2: Sync.\n\n## Milestones\n\n### Milestone 1: Local store\n\n- Write `one.txt`\n\n### Milestone 2: Sync\n\n- Write `two.txt`\n";
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan written");
    git(
        dir,
        &[
            "commit",
            "-qam",
            "A plan whose progress list ticks a milestone",
        ],
    );
    let s = scripts(&[("default.txt", SUCCEED)]);
    let refused = sv(dir, s.path(), &["start"]);
    assert_eq!(refused.status, 1, "{}", refused.stdout);
    assert!(refused.stderr.contains("1 guess"), "{}", refused.stderr);
    for said in [
        "reading::done_elsewhere",
        "The plan is read as:",
        "2 sprints, 1 done",
    ] {
        assert!(refused.stdout.contains(said), "{said}: {}", refused.stdout);
    }
    assert!(git(dir, &["for-each-ref", "refs/supervisor"]).is_empty());
    let started = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(started.status, 0, "{}\n{}", started.stdout, started.stderr);
    let log = git(dir, &["log", "--format=%s", "refs/supervisor/state"]);
    assert!(!log.contains("sprint 1 PENDING -> DISPATCHED"), "{log}");
    assert!(log.contains("sprint 2 PENDING -> DISPATCHED"), "{log}");
}

/// Spec §J: attempt 2 or later of a failed sprint goes to the strongest
/// model, and no retry drops below the model of the attempt before it.
#[test]
fn a_failed_sprint_is_retried_on_the_strongest_model() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let seen = tempfile::tempdir().expect("tempdir");
    let models = seen.path().join("models.txt");
    let record = format!(
        "append {} $SUPERVISOR_ATTEMPT $SUPERVISOR_MODEL\n",
        models.display()
    );
    let fail = format!("{record}exit 1\n");
    let succeed = format!("{record}{SUCCEED}");
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("biblioteca-1-1.txt", &fail),
        ("biblioteca-1-2.txt", &fail),
        ("biblioteca-1-3.txt", &succeed),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let seen = std::fs::read_to_string(&models).expect("the agent recorded its model");
    let lines: Vec<&str> = seen.lines().collect();
    assert_eq!(lines.len(), 3, "{seen}");
    assert!(
        lines[0].starts_with("1 ") && lines[0] != "1 opus",
        "the first attempt starts cheaper: {seen}"
    );
    assert_eq!(&lines[1..], ["2 opus", "3 opus"], "{seen}");
    let retries: Vec<String> = history(dir)
        .into_iter()
        .filter(|r| r.unit.as_deref() == Some("biblioteca") && r.from.as_deref() == Some("BACKOFF"))
        .map(|r| r.why)
        .collect();
    assert_eq!(retries.len(), 2, "{retries:?}");
    for why in &retries {
        assert!(
            why.contains("model opus") && why.contains("attempt 2 or later of a failed sprint"),
            "{why}"
        );
    }
}

/// Issue: vague criteria are dispatched silently. `start` and `status`
/// name the sprints no exit-criterion command can check, and
/// `[run] require_criteria = true` refuses to start, writing nothing.
#[test]
fn sprints_no_command_checks_are_named_and_can_be_refused() {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let s = scripts(&[(
        "default.txt",
        "write $SUPERVISOR_UNIT.txt done\ncommit $SUPERVISOR_UNIT\nresult complete\n",
    )]);
    let config = dir.join(".workflow/config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, format!("{text}require_criteria = true\n")).expect("config");
    let head = git(dir, &["rev-parse", "HEAD"]);
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    let refused = sv(dir, s.path(), &["start", "--yes"]);
    assert_eq!(refused.status, 1, "{}\n{}", refused.stdout, refused.stderr);
    for said in [
        "2 sprint(s) have no runnable exit criterion",
        "french 1 (Translate to French), german 1 (Translate to German)",
        "require_criteria = false",
    ] {
        assert!(refused.stderr.contains(said), "{said}: {}", refused.stderr);
    }
    assert!(git(dir, &["for-each-ref", "refs/supervisor"]).is_empty());
    assert_eq!(git(dir, &["rev-parse", "HEAD"]), head, "no naming commit");
    assert_eq!(
        std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan"),
        plan
    );

    // Off (the default), the start lists them, in JSON too.
    std::fs::write(&config, &text).expect("config");
    let out = sv(dir, s.path(), &["start", "--yes", "--format", "json"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("start JSON");
    let listed = |v: &serde_json::Value| -> Vec<String> {
        v["no_runnable_criterion"]
            .as_array()
            .expect("listed")
            .iter()
            .map(|s| {
                format!(
                    "{} {}",
                    s["unit"].as_str().unwrap(),
                    s["sprint"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(listed(&v), ["french 1", "german 1"], "{}", out.stdout);
    assert_eq!(v["name_committed_on"], "main", "{}", out.stdout);
    assert!(
        out.stderr.contains("No runnable exit criterion (2 sprints; they complete on the agent's word): french 1 (Translate to French), german 1 (Translate to German)."),
        "the words go to stderr: {}",
        out.stderr
    );
    let waited = sv(dir, s.path(), &["wait"]);
    assert_eq!(waited.status, 0, "{}\n{}", waited.stdout, waited.stderr);
    let status = crate::common::run(dir, &["status"]);
    assert!(
        status
            .stdout
            .contains("No runnable exit criterion (2 sprints; they complete on the agent's word): french 1 (Translate to French), german 1 (Translate to German)."),
        "{}",
        status.stdout
    );
    assert_eq!(listed(&status_json(dir)), ["french 1", "german 1"]);
}

/// A sprint no command can check is a warning `start` asks about, with the
/// criteria `evaluate` would give it; once the run completes, every report
/// counts the sprints a command verified apart from those completed on the
/// agent's word, and calls only the first verified.
#[test]
fn sprints_on_the_agents_word_are_confirmed_and_never_called_verified() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let plan = "# Shelf\n\n## Sprint 1: Implement the catalogue\n\n- Create `shelf.txt`\n\n**Exit Criteria**:\n- [ ] `shelf.txt` exists\n\n## Sprint 2: Implement the export\n\n- Export the shelf\n\n**Exit Criteria**:\n- [ ] The export works well\n";
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan written");
    std::fs::write(dir.join("Makefile"), "test:\n\ttrue\n").expect("Makefile");
    git(dir, &["add", "-A"]);
    git(
        dir,
        &["commit", "-qm", "A plan with a sprint no command checks"],
    );
    let s = scripts(&[(
        "default.txt",
        "write shelf.txt books\ncommit shelf: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
    )]);
    let refused = sv(dir, s.path(), &["start"]);
    assert_eq!(refused.status, 1, "{}\n{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains("run::unconfirmed"),
        "{}",
        refused.stderr
    );
    for said in [
        "warning: 1 sprint has no runnable exit criterion and would complete on the agent's word",
        "2 (Implement the export): evaluate proposes \"tests pass: `make test`\"",
    ] {
        assert!(refused.stdout.contains(said), "{said}: {}", refused.stdout);
    }
    assert!(git(dir, &["for-each-ref", "refs/supervisor"]).is_empty());

    let started = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(started.status, 0, "{}\n{}", started.stdout, started.stderr);
    let said =
        "✗ Exit Criteria: 1/2 sprints verified by a command; 1 completed on the agent's word";
    assert!(started.stdout.contains(said), "{said}: {}", started.stdout);
    assert!(
        !started.stdout.contains("fully verified"),
        "{}",
        started.stdout
    );
    let report = crate::common::run(dir, &["report"]);
    assert_eq!(report.status, 0, "{}", report.stderr);
    let log = std::fs::read_to_string(dir.join("COMPLETE_SHELF.md")).expect("log");
    assert!(!log.contains("VERIFICATION PASSED"), "{log}");
    for said in [
        "✗ 1 of 2 sprints completed on the agent's word: no exit-criterion command checked them",
        "no command checked it, completed on the agent's word ✗",
        "- **Exit criteria**: no command checked this sprint; it completed on the agent's word",
    ] {
        assert!(log.contains(said), "{said}: {log}");
    }
    // The web page reads the report's JSON.
    let json = crate::common::run(dir, &["report", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let by_command: Vec<bool> = v["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["verified_by_command"].as_bool().expect("flag"))
        .collect();
    assert_eq!(by_command, [true, false], "{}", json.stdout);
}

/// `evaluate --max-turns 20` judges the sprints by a budget of 20 turns and
/// writes it where the run reads it, `[agent] max_turns`: the agents get 20.
#[test]
fn evaluates_turn_budget_is_the_one_the_agents_get() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let plan = "# Notes\n\n## Sprint 1: Write the notes\n\n- Write `notes.txt`\n\n**Exit Criteria**:\n- [ ] `notes.txt` exists\n";
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan written");
    git(dir, &["commit", "-qam", "One sprint"]);
    let out = crate::common::run(dir, &["evaluate", "--max-turns", "20"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("Context budget: 20 turns per sprint (written to .workflow/config.toml"),
        "{}",
        out.stdout
    );
    let config = std::fs::read_to_string(dir.join(".workflow/config.toml")).expect("config");
    assert!(config.contains("\nmax_turns = 20\n"), "{config}");
    // analyze judges by the same budget.
    let analyzed = crate::common::run(dir, &["analyze", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&analyzed.stdout).expect("analyze JSON");
    assert_eq!(v["budget"], 20, "{}", analyzed.stdout);
    git(dir, &["commit", "-qam", "Budget"]);
    let seen = tempfile::tempdir().expect("tempdir");
    let turns = seen.path().join("turns.txt");
    let s = scripts(&[(
        "default.txt",
        &format!(
            "append {} $SUPERVISOR_MAX_TURNS\nwrite notes.txt n\ncommit notes\nresult complete\n",
            turns.display()
        ),
    )]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        std::fs::read_to_string(&turns).expect("the agent wrote its budget"),
        "20\n"
    );
}
