//! The run loop end to end: real repositories, the real binary, fake agents
//! as real processes, and the engine woken only by agents' exits.

use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::Output;
use crate::common::SUCCEED;

pub(crate) fn sv(repo: &Path, scripts: &Path, args: &[&str]) -> Output {
    run_env(repo, args, &[("FAKE_AGENT_SCRIPT", scripts)])
}

#[derive(Debug, serde::Deserialize)]
pub(crate) struct Record {
    pub(crate) unit: Option<String>,
    pub(crate) sprint: Option<String>,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    pub(crate) event: Option<String>,
    pub(crate) why: String,
}

/// The transition history, oldest first.
pub(crate) fn history(repo: &Path) -> Vec<Record> {
    let out = crate::common::run(repo, &["log", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut records: Vec<Record> = serde_json::from_str(&out.stdout).expect("log JSON");
    records.reverse();
    records
}

pub(crate) fn status_json(repo: &Path) -> serde_json::Value {
    let out = crate::common::run(repo, &["status", "--format", "json"]);
    serde_json::from_str(&out.stdout).expect("status JSON")
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Replay the history and check the ordering rules on every dispatch.
fn assert_ordering(repo: &Path) {
    let plan = git_supervisor::plan::parse(
        &std::fs::read_to_string(repo.join("EXECUTION_PLAN.md")).expect("plan"),
        &Default::default(),
    )
    .expect("plan parses");
    let mut unit_state: HashMap<String, String> = HashMap::new();
    let mut sprint_state: HashMap<(String, String), String> = HashMap::new();
    for r in history(repo) {
        let (Some(unit), Some(from), Some(to)) = (&r.unit, &r.from, &r.to) else {
            continue;
        };
        match &r.sprint {
            Some(s) => {
                if from == "PENDING" && to == "DISPATCHED" {
                    let u = plan.unit(unit).expect("unit");
                    for earlier in u.sprints.iter().take_while(|x| x.id.to_string() != *s) {
                        let st = sprint_state.get(&(unit.clone(), earlier.id.to_string()));
                        assert_eq!(
                            st.map(String::as_str),
                            Some("COMPLETED"),
                            "{unit} sprint {s} before sprint {}",
                            earlier.id
                        );
                    }
                    for d in &u.deps {
                        assert_eq!(
                            unit_state.get(d).map(String::as_str),
                            Some("COMPLETED"),
                            "{unit} dispatched before {d} completed"
                        );
                    }
                }
                sprint_state.insert((unit.clone(), s.clone()), to.clone());
            }
            None => {
                unit_state.insert(unit.clone(), to.clone());
            }
        }
    }
}

#[test]
fn a_five_unit_three_layer_plan_completes_in_order() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("overall: completed"), "{}", out.stdout);
    assert_ordering(dir);
    for f in [
        "parser/1.txt",
        "parser/2.txt",
        "profiles/1.txt",
        "algs/1.txt",
        "validation/1.txt",
        "validation/2.txt",
        "biblioteca/1.txt",
    ] {
        assert!(dir.join(f).is_file(), "{f} was not written");
    }
    // Each verdict says which evidence decided it.
    let verdicts: Vec<Record> = history(dir)
        .into_iter()
        .filter(|r| r.to.as_deref() == Some("COMPLETED") && r.sprint.is_some())
        .collect();
    assert_eq!(verdicts.len(), 7);
    assert!(
        verdicts
            .iter()
            .all(|r| r.why.contains("exit criteria 1/1 passed")
                && r.why.contains("decided by the exit criteria")),
        "{verdicts:?}"
    );
    // The state store is consistent.
    let fsck = crate::common::command("git", dir)
        .args(["fsck"])
        .output()
        .expect("fsck");
    assert!(fsck.status.success());
    // The completion report verifies the whole run against the repository.
    let report = crate::common::run(dir, &["report"]);
    assert_eq!(report.status, 0, "{}", report.stderr);
    assert!(
        report
            .stdout
            .contains("✓ Coverage: 7/7 sprints accounted for")
            && report
                .stdout
                .contains("✓ Git Commits: 7/7 code sprints have commits"),
        "{}",
        report.stdout
    );
    let log = std::fs::read_to_string(dir.join("COMPLETE_FIVE_PACKAGES.md")).expect("log");
    assert!(log.contains("✓ VERIFICATION PASSED"), "{log}");
    let v: serde_json::Value =
        serde_json::from_str(&crate::common::run(dir, &["report", "--format", "json"]).stdout)
            .expect("JSON");
    for s in v["sprints"].as_array().expect("sprints") {
        for c in s["commits"].as_array().expect("commits") {
            let c = c.as_str().expect("hash");
            assert!(
                !git(
                    dir,
                    &[
                        "rev-parse",
                        "--verify",
                        "--quiet",
                        &format!("{c}^{{commit}}")
                    ]
                )
                .is_empty(),
                "{c} is a commit of the repository"
            );
        }
    }
}

#[test]
fn a_sprint_that_always_fails_blocks_its_unit_and_resume_retries_it() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("algs.txt", "print could not build the algorithms\nexit 1\n"),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status, 3,
        "the run ends without completing: {}\n{}",
        out.stdout, out.stderr
    );
    let st = status_json(dir);
    let unit = |n: &str| {
        st["units"]
            .as_array()
            .expect("units")
            .iter()
            .find(|u| u["name"] == n)
            .cloned()
            .expect("unit")
    };
    assert_eq!(unit("algs")["state"], "BLOCKED");
    assert_eq!(unit("algs")["current"]["state"], "FATAL");
    assert_eq!(
        unit("parser")["state"],
        "COMPLETED",
        "independent units finish"
    );
    assert_eq!(unit("profiles")["state"], "COMPLETED");
    assert_eq!(unit("validation")["state"], "NOT_STARTED");
    assert_eq!(st["overall"], "blocked");
    let dispatches = history(dir)
        .iter()
        .filter(|r| r.unit.as_deref() == Some("algs") && r.to.as_deref() == Some("DISPATCHED"))
        .count();
    assert_eq!(dispatches, 3, "dispatched exactly max_retries times");
    let text = crate::common::run(dir, &["status"]);
    assert!(
        text.stdout.contains(
            "BLOCKED: algs Sprint 1 — FATAL after 3 attempts. Run git supervisor resume to retry."
        ),
        "{}",
        text.stdout
    );

    // A fresh round after the cause is fixed.
    std::fs::remove_file(s.path().join("algs.txt")).expect("fix the agent");
    let out = sv(dir, s.path(), &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let st = status_json(dir);
    assert_eq!(st["overall"], "completed");
    assert_ordering(dir);
}

#[test]
fn sprint_kinds_partial_manual_deferred_and_hung() {
    let repo = fixture_repo("kinds");
    let dir = repo.path();
    let prompts = tempfile::tempdir().expect("tempdir");
    let partial = format!(
        "save-prompt {}/partial-prompt-$SUPERVISOR_ATTEMPT.txt
?partial/a.txt write partial/b.txt b
write partial/a.txt a
commit partial work
?partial/b.txt result complete
!partial/b.txt result partial
",
        prompts.path().display()
    );
    let s = scripts(&[
        ("partial.txt", &partial),
        (
            "manual.txt",
            "print looked at the widgets: they look fine\n",
        ),
        ("hung-1-1.txt", "hang\n"),
        ("hung-1-2.txt", SUCCEED),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let unit_state = |n: &str| -> (String, String) {
        let st = status_json(dir);
        let u = st["units"]
            .as_array()
            .expect("units")
            .iter()
            .find(|u| u["name"] == n)
            .cloned()
            .expect("unit");
        (
            u["state"].as_str().unwrap_or("").to_string(),
            u["current"]["state"].as_str().unwrap_or("").to_string(),
        )
    };
    let tick = || sv(dir, s.path(), &["tick"]);

    // PARTIAL, then a continuation prompt listing what remains, then done.
    wait_for("partial to complete", Duration::from_secs(30), || {
        tick();
        unit_state("partial").0 == "COMPLETED"
    });
    let partial_history: Vec<String> = history(dir)
        .iter()
        .filter(|r| r.unit.as_deref() == Some("partial") && r.sprint.is_some())
        .filter_map(|r| r.to.clone())
        .collect();
    assert_eq!(
        partial_history,
        [
            "DISPATCHED",
            "RUNNING",
            "PARTIAL",
            "DISPATCHED",
            "RUNNING",
            "COMPLETED"
        ]
    );
    let prompt = std::fs::read_to_string(prompts.path().join("partial-prompt-1.txt"))
        .expect("continuation prompt");
    assert!(prompt.contains("CONTINUATION:"), "{prompt}");
    assert!(
        prompt.contains("`partial/b.txt` exists"),
        "the remaining criterion is listed: {prompt}"
    );
    let continuation = prompt.split("CONTINUATION:").nth(1).unwrap_or_default();
    assert!(
        continuation.contains("`partial/b.txt` exists"),
        "{continuation}"
    );
    assert!(
        !continuation.contains("`partial/a.txt` exists"),
        "finished work is not listed: {continuation}"
    );

    // The manual sprint waits in PARTIAL, is never re-dispatched, until confirmed.
    wait_for("manual to wait", Duration::from_secs(30), || {
        unit_state("manual").1 == "PARTIAL"
    });
    tick();
    std::thread::sleep(Duration::from_millis(300));
    let manual_dispatches = history(dir)
        .iter()
        .filter(|r| r.unit.as_deref() == Some("manual") && r.to.as_deref() == Some("DISPATCHED"))
        .count();
    assert_eq!(manual_dispatches, 1);
    let out = sv(dir, s.path(), &["confirm", "manual", "1"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(unit_state("manual").0, "COMPLETED");

    // The deferred sprint is polled by its wrapper and completes once its
    // check passes; polls never count attempts.
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(unit_state("deferred").1, "RUNNING");
    std::fs::write(dir.join("mirror-ready"), "").expect("condition met");
    wait_for("deferred to complete", Duration::from_secs(30), || {
        unit_state("deferred").0 == "COMPLETED"
    });
    let st = status_json(dir);
    let deferred = st["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == "deferred")
        .cloned()
        .expect("unit");
    assert_eq!(deferred["sprint_completed"], 1);

    // The hung agent is ended after 2 s without activity (silence_kill),
    // retried, done.
    let done = (0..600).any(|_| {
        tick();
        std::thread::sleep(Duration::from_millis(100));
        unit_state("hung").0 == "COMPLETED"
    });
    assert!(
        done,
        "hung did not complete:\n{}",
        crate::common::run(dir, &["log", "--unit", "hung"]).stdout
    );
    let h = history(dir);
    let notice = h.iter().any(|r| {
        r.unit.as_deref() == Some("hung")
            && r.event.as_deref() == Some("notice")
            && r.why.contains("may be unresponsive")
    });
    assert!(notice, "the silence notice is in the history");
    let backoff = h
        .iter()
        .find(|r| r.unit.as_deref() == Some("hung") && r.to.as_deref() == Some("BACKOFF"))
        .expect("the hung attempt failed");
    assert!(backoff.why.contains("no activity for"), "{}", backoff.why);
    let out = sv(dir, s.path(), &["wait", "--timeout", "30s"]);
    assert_eq!(out.status, 0, "{}", out.stdout);
}

/// Processes whose command line names our binary.
fn supervisor_processes() -> Vec<String> {
    let bin = crate::common::bin();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let cmdline: PathBuf = entry.path().join("cmdline");
        if let Ok(bytes) = std::fs::read(&cmdline) {
            let args: Vec<String> = bytes
                .split(|b| *b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            if args.first().is_some_and(|a| a == bin) {
                found.push(args.join(" "));
            }
        }
    }
    found
}

#[test]
fn the_engine_is_not_running_between_events() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", &format!("sleep 600\n{SUCCEED}"))]);
    let out = sv(dir, s.path(), &["start", "--yes"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    // `start` has returned; while the agents work, the only supervisor
    // processes are their wrappers.
    let procs: Vec<String> = supervisor_processes()
        .into_iter()
        .filter(|p| p.contains(&dir.display().to_string()) || p.contains("agent-run"))
        .collect();
    assert!(!procs.is_empty(), "wrappers are running");
    assert!(
        procs.iter().all(|p| p.contains(" agent-run ")),
        "only wrappers: {procs:?}"
    );
    // Agent exits wake the engine: the run completes with nobody ticking.
    let completed = (0..600).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        status_json(dir)["overall"] == "completed"
    });
    assert!(
        completed,
        "{}\n{:?}",
        crate::common::run(dir, &["log"]).stdout,
        std::fs::read_dir(dir.join(".git/supervisor/agents"))
            .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
    );
    assert_ordering(dir);
    let _ = git(dir, &["status"]);
}

#[test]
fn an_edited_plan_is_shown_as_drift_and_runs_nothing() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let clean = crate::common::run(dir, &["status"]);
    assert!(!clean.stdout.contains("Plan drift"), "{}", clean.stdout);
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    std::fs::write(
        dir.join("EXECUTION_PLAN.md"),
        format!(
            "{}\n### Sprint 3: Create more\n",
            plan.replace(
                "| biblioteca | biblioteca | 2 | 1 |",
                "| biblioteca | biblioteca | 2 | 2 |"
            )
        ),
    )
    .expect("edit");
    let drift = crate::common::run(dir, &["status"]);
    assert!(
        drift.stdout.contains(
            "Plan drift: EXECUTION_PLAN.md differs from the run's snapshot (4 changed lines)"
        ),
        "{}",
        drift.stdout
    );
    let diff = crate::common::run(dir, &["status", "--diff"]);
    assert!(
        diff.stdout.contains("+### Sprint 3: Create more"),
        "{}",
        diff.stdout
    );
    let json = status_json(dir);
    assert_eq!(json["plan_drift"], true);
    // The run executes its snapshot: the edit dispatched nothing.
    assert_eq!(json["overall"], "completed");
    let shown = crate::common::run(dir, &["status", "--format", "json", "--diff"]);
    assert!(shown.stdout.contains("Sprint 3: Create more"));

    // `replan` applies it: the added sprint is PENDING, then it runs.
    let out = sv(dir, s.path(), &["replan"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Added sprints: biblioteca sprint 3."),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("biblioteca: COMPLETED -> RUNNING"),
        "{}",
        out.stdout
    );
    let out = sv(dir, s.path(), &["wait", "--timeout", "60s"]);
    assert_eq!(out.status, 0, "{}", out.stdout);
    assert!(
        dir.join("biblioteca/3.txt").is_file(),
        "the added sprint ran"
    );
    assert_eq!(status_json(dir)["plan_drift"], false);
}

#[test]
fn replan_refuses_to_remove_a_sprint_an_agent_works_on() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", &"print working\nsleep 100\n".repeat(100))]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    let edited = plan
        .replace(
            "### Sprint 1: Create the lexer\n\n**Exit Criteria**:\n- [ ] `parser/1.txt` exists\n\n",
            "",
        )
        .replace("| parser | parser | 0 | 2 |", "| parser | parser | 0 | 1 |");
    assert_ne!(edited, plan);
    std::fs::write(dir.join("EXECUTION_PLAN.md"), edited).expect("edit");
    let before = git(dir, &["rev-parse", "refs/supervisor/state"]);
    let out = sv(dir, s.path(), &["replan"]);
    assert_eq!(out.status, 1, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("removes or renumbers sprint 1 of `parser`"),
        "{}",
        out.stderr
    );
    // Bad input changes nothing (agents may still move the state, so compare
    // the plan snapshot).
    let snap = git(
        dir,
        &["show", "refs/supervisor/state:plan/EXECUTION_PLAN.md"],
    );
    assert_eq!(snap, plan);
    let _ = before;
    let _ = sv(dir, s.path(), &["killall"]);
}

#[test]
fn work_finished_by_hand_with_hooks_disabled_is_completed_by_resume_without_a_dispatch() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("algs.txt", "print could not do it\nexit 1\n"),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}", out.stdout);
    let dispatches = |dir: &Path| {
        history(dir)
            .iter()
            .filter(|r| r.unit.as_deref() == Some("algs") && r.to.as_deref() == Some("DISPATCHED"))
            .count()
    };
    assert_eq!(dispatches(dir), 3);
    // A person does the work and commits it, hooks disabled.
    std::fs::write(dir.join("algs/1.txt"), "done by hand\n").expect("work");
    git(dir, &["add", "algs"]);
    git(
        dir,
        &[
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "-m",
            "algs: done by hand\n\nSupervisor-Sprint: algs/1\nSupervisor-Status: complete",
        ],
    );
    let out = sv(dir, s.path(), &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(dispatches(dir), 3, "no agent was dispatched again for algs");
    let observed = history(dir)
        .into_iter()
        // The unit's own record (BLOCKED to RUNNING) comes first when resume
        // finds the unit still blocked; the sprint's record holds the evidence.
        .find(|r| {
            r.unit.as_deref() == Some("algs")
                && r.sprint.is_some()
                && r.event.as_deref() == Some("observed")
        })
        .expect("an observed completion");
    assert_eq!(observed.to.as_deref(), Some("COMPLETED"));
    assert!(
        observed.why.contains("marks it complete")
            && observed.why.contains("exit criteria 1/1 passed"),
        "{}",
        observed.why
    );
    assert_eq!(status_json(dir)["overall"], "completed");
    assert_ordering(dir);
}

#[test]
fn a_progress_marker_and_passing_criteria_complete_a_failed_sprint() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED), ("algs.txt", "exit 1\n")]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes", "--wait"]).status, 3);
    // Finished by hand: the file, a progress note, a commit without trailers.
    std::fs::write(dir.join("algs/1.txt"), "by hand\n").expect("work");
    let mut progress = std::fs::read_to_string(dir.join("algs/PROGRESS.md")).expect("progress");
    progress.push_str("- Sprint 1: complete (done by hand)\n");
    std::fs::write(dir.join("algs/PROGRESS.md"), progress).expect("progress");
    git(dir, &["add", "algs"]);
    git(
        dir,
        &[
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "-m",
            "algs by hand",
        ],
    );
    let out = sv(dir, s.path(), &["resume", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let observed = history(dir)
        .into_iter()
        .find(|r| {
            r.unit.as_deref() == Some("algs")
                && r.sprint.is_some()
                && r.event.as_deref() == Some("observed")
        })
        .expect("observed");
    assert!(
        observed
            .why
            .contains("algs/PROGRESS.md (progress file) marks it complete"),
        "{}",
        observed.why
    );
}

#[test]
fn cross_unit_needs_from_progress_files_are_registered() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    // The need is noted before the sprint's commit, as an agent does: a
    // note written after it may come after the run's last look. The
    // progress file is written whole, so an attempt retried on a loaded
    // machine notes it once, as the first did.
    let needy = "write ${SUPERVISOR_UNIT_DIR}/${SUPERVISOR_SPRINT}.txt done
write ${SUPERVISOR_UNIT_DIR}/PROGRESS.md # progress\\n- Sprint ${SUPERVISOR_SPRINT}: complete\\n\\n## Cross-Package Needs\\n- a Token type from parser\\n
commit ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}
result complete
";
    let s = scripts(&[("default.txt", SUCCEED), ("profiles.txt", needy)]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes", "--wait"]).status, 0);
    let st = status_json(dir);
    assert_eq!(st["needs"][0]["unit"], "profiles");
    assert_eq!(st["needs"][0]["text"], "a Token type from parser");
    let text = crate::common::run(dir, &["status"]).stdout;
    assert!(
        text.contains("Cross-unit needs: 1\n  profiles: a Token type from parser"),
        "{text}"
    );
    let md = crate::common::run(dir, &["status", "--format", "markdown"]).stdout;
    assert!(
        md.contains("## Cross-Package Needs Registry\n| Work Unit | Need |"),
        "{md}"
    );
}

#[test]
fn an_agent_that_exits_0_having_changed_nothing_is_not_believed() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", SUCCEED),
        (
            "algs-1-1.txt",
            "print all done, committed, all checks pass\nresult complete\nexit 0\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}", out.stdout);
    let first = history(dir)
        .into_iter()
        .find(|r| r.unit.as_deref() == Some("algs") && r.from.as_deref() == Some("RUNNING"))
        .expect("a verdict for algs");
    assert_eq!(first.to.as_deref(), Some("BACKOFF"), "{}", first.why);
    assert!(
        first.why.contains("exit criteria 0/1 passed") && first.why.contains("0 commits in scope"),
        "{}",
        first.why
    );
}

#[test]
fn replan_lists_new_commands_and_applies_them_only_when_confirmed() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", "sleep 10000\n")]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    let plan = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    let edited = format!(
        "{}\n### Sprint 2: More\n\n**Exit Criteria**:\n- [ ] `touch ADDED` succeeds\n",
        plan.replace(
            "- [ ] `parser/2.txt` exists",
            "- [ ] `touch PWNED` succeeds"
        )
        .replace(
            "| biblioteca | biblioteca | 2 | 1 |",
            "| biblioteca | biblioteca | 2 | 2 |"
        )
    );
    std::fs::write(dir.join("EXECUTION_PLAN.md"), &edited).expect("plan");
    let config_path = dir.join(".workflow/config.toml");
    let config = std::fs::read_to_string(&config_path).expect("config");
    let changed = config.replace(
        r#"command = ["fake-agent"]"#,
        r#"command = ["fake-agent", "--quiet"]"#,
    );
    assert_ne!(changed, config);
    std::fs::write(&config_path, &changed).expect("config");

    // status --diff shows the config edit too.
    let st = crate::common::run(dir, &["status", "--diff"]);
    assert!(st.stdout.contains("Config drift:"), "{}", st.stdout);
    assert!(
        st.stdout
            .contains(r#"+command = ["fake-agent", "--quiet"]"#),
        "{}",
        st.stdout
    );
    assert_eq!(status_json(dir)["config_drift"], true);

    // Not at a terminal and no --yes: every new command is listed, nothing
    // is applied.
    let snapshot = |what: &str| git(dir, &["show", &format!("refs/supervisor/state:{what}")]);
    let out = sv(dir, s.path(), &["replan"]);
    assert_eq!(out.status, 1, "{}\n{}", out.stdout, out.stderr);
    for needle in [
        "~ parser/2 exit criterion: `touch PWNED` (was `test -e 'parser/2.txt'`)",
        "+ biblioteca/2 exit criterion: `touch ADDED`",
        r#"~ agent.command: `["fake-agent","--quiet"]` (was `["fake-agent"]`)"#,
        "nothing was applied",
        "replan --yes",
    ] {
        assert!(out.stderr.contains(needle), "{needle}\n{}", out.stderr);
    }
    assert_eq!(snapshot("plan/EXECUTION_PLAN.md"), plan);
    assert_eq!(snapshot("plan/config.toml"), config);

    // --yes applies them.
    let out = sv(dir, s.path(), &["replan", "--yes"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(snapshot("plan/EXECUTION_PLAN.md"), edited);
    assert_eq!(snapshot("plan/config.toml"), changed);
    assert_eq!(status_json(dir)["config_drift"], false);
    let _ = sv(dir, s.path(), &["killall"]);
}
