//! The state store on real repositories: races between writers (threads and
//! processes), crash safety, commit shape, and the read-only reports.

use std::collections::BTreeSet;

use git_supervisor::machine::EventKind;
use git_supervisor::machine::Model;
use git_supervisor::machine::Outcome;

use crate::common::command;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::seed;

const STATE_NAMES: [&str; 14] = [
    "NOT_STARTED",
    "RUNNING",
    "COMPLETED",
    "STOPPING",
    "STOPPED",
    "BLOCKED",
    "KILLED",
    "PENDING",
    "DISPATCHED",
    "PARTIAL",
    "BACKOFF",
    "FATAL",
    "RUNNING",
    "COMPLETED",
];

/// A run with progress, retries and a BLOCKED unit.
fn eventful_run(dir: &std::path::Path) {
    let store = seed::start(dir);
    seed::dispatch(&store, "parser", Model::Sonnet);
    seed::verdict(&store, "parser", Outcome::Completed);
    seed::dispatch(&store, "parser", Model::Haiku);
    for _ in 0..3 {
        seed::dispatch(&store, "wcag-algs", Model::Opus);
        seed::verdict(&store, "wcag-algs", Outcome::Failure);
    }
    seed::dispatch(&store, "validation-profiles", Model::Sonnet);
    seed::verdict(&store, "validation-profiles", Outcome::Partial);
}

#[test]
fn status_and_log_snapshots() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    let none = run(dir, &["status"]);
    insta::assert_snapshot!("status_no_run", none.snapshot());
    let none_json = run(dir, &["status", "--format", "json"]);
    assert!(
        none_json.stdout.contains("\"overall\": \"not_started\""),
        "{}",
        none_json.stdout
    );

    eventful_run(dir);
    insta::assert_snapshot!("status_text", run(dir, &["status"]).snapshot());
    insta::assert_snapshot!(
        "status_json",
        run(dir, &["status", "--format", "json"]).snapshot()
    );
    insta::assert_snapshot!(
        "status_markdown",
        run(dir, &["status", "--format", "markdown"]).snapshot()
    );
    insta::assert_snapshot!("log_text", run(dir, &["log"]).snapshot());
    insta::assert_snapshot!(
        "log_unit",
        run(
            dir,
            &["log", "--unit", "wcag-algs", "--format", "json", "-n", "3"]
        )
        .snapshot()
    );
}

#[test]
fn status_writes_nothing() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    eventful_run(dir);
    let before = (
        git(dir, &["rev-parse", "refs/supervisor/state"]),
        git(dir, &["count-objects", "-v"]),
        std::fs::read(dir.join(".git/logs/refs/supervisor/state")).expect("reflog"),
    );
    for format in ["text", "json", "markdown"] {
        assert_eq!(run(dir, &["status", "--format", format]).status, 0);
    }
    let after = (
        git(dir, &["rev-parse", "refs/supervisor/state"]),
        git(dir, &["count-objects", "-v"]),
        std::fs::read(dir.join(".git/logs/refs/supervisor/state")).expect("reflog"),
    );
    assert_eq!(before, after);
}

#[test]
fn every_state_commit_is_well_formed() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    eventful_run(dir);
    let commits = git(dir, &["rev-list", "--reverse", "refs/supervisor/state"]);
    let mut last_seq = 0;
    for c in commits.lines() {
        git(dir, &["cat-file", "-e", &format!("{c}:state.toml")]);
        git(
            dir,
            &["cat-file", "-e", &format!("{c}:SUPERVISOR_STATE.md")],
        );
        git(
            dir,
            &["cat-file", "-e", &format!("{c}:plan/EXECUTION_PLAN.md")],
        );
        let trailer = |key: &str| {
            git(
                dir,
                &[
                    "log",
                    "-1",
                    &format!("--format=%(trailers:key=Supervisor-{key},valueonly)"),
                    c,
                ],
            )
            .trim()
            .to_string()
        };
        let seq: u64 = trailer("Seq").parse().expect("Seq is a number");
        assert_eq!(seq, last_seq + 1, "Supervisor-Seq is monotonic");
        last_seq = seq;
        assert_eq!(trailer("Schema"), "1");
        let (from, to, sprint) = (trailer("From"), trailer("To"), trailer("Sprint"));
        assert_eq!(
            from.is_empty(),
            to.is_empty(),
            "{c}: From and To come together"
        );
        for name in [&from, &to] {
            assert!(
                name.is_empty() || STATE_NAMES.contains(&name.as_str()),
                "{c}: unknown state {name}"
            );
        }
        let subject = git(dir, &["log", "-1", "--format=%s", c]);
        if subject.contains(": sprint ") {
            assert!(
                !sprint.is_empty(),
                "{c}: a sprint transition names its sprint"
            );
        } else if !from.is_empty() {
            assert!(sprint.is_empty(), "{c}: a unit transition names no sprint");
        }
        // The commit's state agrees with its trailers.
        let state_seq = git(dir, &["show", &format!("{c}:state.toml")]);
        assert!(
            state_seq.contains(&format!("seq = {seq}\n")),
            "{c}: state.toml seq"
        );
    }
    let fsck = command("git", dir)
        .args(["fsck", "--strict"])
        .output()
        .expect("fsck runs");
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    // The reflog records every published event.
    let reflog = git(
        dir,
        &["reflog", "show", "--format=%gs", "refs/supervisor/state"],
    );
    assert!(reflog.lines().count() >= 10, "{reflog}");
}

fn notes_in_history(dir: &std::path::Path) -> Vec<String> {
    git(
        dir,
        &[
            "log",
            "--format=%b",
            "--grep=Supervisor-Event: notice",
            "refs/supervisor/state",
        ],
    )
    .lines()
    .filter(|l| l.starts_with("note "))
    .map(str::to_string)
    .collect()
}

#[test]
fn racing_threads_land_every_event_exactly_once() {
    let repo = fixture_repo("layered");
    let dir = repo.path().to_path_buf();
    seed::start(&dir);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let store = seed::store(&dir);
                for i in 0..15 {
                    seed::event(
                        &store,
                        EventKind::Notice {
                            unit: None,
                            sprint: None,
                            text: format!("note {t}-{i}"),
                        },
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("writer thread");
    }
    let notes = notes_in_history(&dir);
    let unique: BTreeSet<_> = notes.iter().collect();
    assert_eq!(notes.len(), 60, "every event landed");
    assert_eq!(unique.len(), 60, "none doubled");
    let seqs = git(
        &dir,
        &[
            "log",
            "--format=%(trailers:key=Supervisor-Seq,valueonly)",
            "refs/supervisor/state",
        ],
    );
    let seqs: Vec<u64> = seqs
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.parse().expect("seq"))
        .collect();
    let expected: Vec<u64> = (1..=seqs.len() as u64).rev().collect();
    assert_eq!(seqs, expected, "one linear chain, no gaps");
}

#[test]
fn racing_processes_land_every_event_exactly_once() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    seed::start(dir);
    let children: Vec<_> = (0..4)
        .map(|p| {
            let script = (0..8)
                .map(|i| {
                    format!(
                        "'{}' note 'note {p}-{i}' >/dev/null || exit 1",
                        crate::common::bin()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            command("sh", dir)
                .arg("-c")
                .arg(script)
                .spawn()
                .expect("writer process")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("writer ends").success());
    }
    let notes = notes_in_history(dir);
    let unique: BTreeSet<_> = notes.iter().collect();
    assert_eq!((notes.len(), unique.len()), (32, 32));
}

#[test]
fn a_crash_between_objects_and_ref_changes_nothing() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    seed::start(dir);
    let before = git(dir, &["rev-parse", "refs/supervisor/state"]);
    let reflog_before = git(dir, &["reflog", "show", "refs/supervisor/state"]);
    let crashed = command(crate::common::bin(), dir)
        .args(["note", "lost"])
        .env("GIT_SUPERVISOR_FAULT_AT", "1")
        .output()
        .expect("runs");
    assert!(!crashed.status.success(), "the fault aborts the process");
    assert!(String::from_utf8_lossy(&crashed.stderr).contains("write boundary 1"));
    assert_eq!(git(dir, &["rev-parse", "refs/supervisor/state"]), before);
    assert_eq!(
        git(dir, &["reflog", "show", "refs/supervisor/state"]),
        reflog_before
    );
    assert!(
        !dir.join(".git/refs/supervisor/state.lock").exists(),
        "no lock left behind"
    );
    let ok = run(dir, &["note", "kept"]);
    assert_eq!(ok.status, 0, "{}", ok.stderr);
    assert_eq!(
        notes_in_history(dir).len(),
        0,
        "notes here do not start with 'note '"
    );
    let fsck = command("git", dir)
        .args(["fsck"])
        .output()
        .expect("fsck runs");
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
}

#[test]
fn a_finished_run_is_archived_under_runs() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    let store = seed::start(dir);
    let tip = store.tip().expect("readable").expect("a run");
    let name = store.archive_run(&tip).expect("archived");
    assert_eq!(name, "refs/supervisor/runs/run-test");
    assert_eq!(git(dir, &["rev-parse", &name]).trim(), tip.id.to_string());
    assert!(store.tip().expect("readable").is_none());
}

#[test]
fn reftable_repositories_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let init = command("git", dir.path())
        .args(["init", "-q", "--ref-format=reftable", "."])
        .output()
        .expect("git");
    if !init.status.success() {
        eprintln!("this git cannot create reftable repositories; skipping");
        return;
    }
    let out = run(dir.path(), &["status"]);
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("reftable"), "{}", out.stderr);
}

#[test]
fn bad_input_to_a_writing_command_changes_nothing() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    seed::start(dir);
    let before = git(dir, &["rev-parse", "refs/supervisor/state"]);
    let out = run(dir, &["note", "x", "--unit", "no-such-unit"]);
    assert_eq!(out.status, 1);
    assert!(
        out.stderr.contains("no work unit named `no-such-unit`"),
        "{}",
        out.stderr
    );
    assert_eq!(git(dir, &["rev-parse", "refs/supervisor/state"]), before);
    let outside = tempfile::tempdir().expect("tempdir");
    let out = run(outside.path(), &["status"]);
    assert_eq!(out.status, 1);
    assert!(
        out.stderr.contains("not inside a git repository"),
        "{}",
        out.stderr
    );
}

#[test]
fn log_filters_like_git_log_and_pages_on_a_terminal() {
    let repo = fixture_repo("layered");
    let dir = repo.path();
    eventful_run(dir);
    let all: Vec<serde_json::Value> =
        serde_json::from_str(&run(dir, &["log", "--format", "json"]).stdout).expect("json");
    assert!(all.len() > 10);

    // --sprint, alone and with its unit.
    let sprint: Vec<serde_json::Value> = serde_json::from_str(
        &run(dir, &["log", "--sprint", "parser/2a", "--format", "json"]).stdout,
    )
    .expect("json");
    assert!(!sprint.is_empty());
    assert!(sprint
        .iter()
        .all(|r| r["unit"] == "parser" && r["sprint"] == "2a"));
    let any_unit = run(dir, &["log", "--sprint", "1", "--format", "json"]).stdout;
    let any_unit: Vec<serde_json::Value> = serde_json::from_str(&any_unit).expect("json");
    assert!(any_unit.len() > sprint.len());

    // --since: the pinned clock puts transition N at 00:00:N.
    let since: Vec<serde_json::Value> = serde_json::from_str(
        &run(
            dir,
            &["log", "--since", "2026-01-01T00:00:20Z", "--format", "json"],
        )
        .stdout,
    )
    .expect("json");
    assert!(!since.is_empty() && since.len() < all.len());
    assert!(since
        .iter()
        .all(|r| r["time"].as_str().expect("time") >= "2026-01-01T00:00:20Z"));
    let bad = run(dir, &["log", "--since", "yesterday-ish"]);
    assert_eq!(bad.status, 2);
    assert!(bad.stderr.contains("is not a time"), "{}", bad.stderr);

    // --oneline: short commit and subject, as git prints them.
    let oneline = run(dir, &["log", "--oneline", "-n", "3"]).stdout;
    let git_oneline = git(
        dir,
        &[
            "log",
            "--oneline",
            "--no-decorate",
            "-n",
            "3",
            "refs/supervisor/state",
        ],
    );
    assert_eq!(oneline, git_oneline);

    // A pager only on a terminal: GIT_PAGER runs under a pseudo-terminal,
    // never when the output is a pipe.
    let piped = command(crate::common::bin(), dir)
        .args(["log", "-n", "2"])
        .env("GIT_PAGER", "sed s/^/PAGED:/")
        .output()
        .expect("log");
    assert!(!String::from_utf8_lossy(&piped.stdout).contains("PAGED:"));
    let tty = command("script", dir)
        .args([
            "-qec",
            &format!("{} log -n 2", crate::common::bin()),
            "/dev/null",
        ])
        .env("GIT_PAGER", "sed s/^/PAGED:/")
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert_eq!(shown.matches("PAGED:2026-01-01T").count(), 2, "{shown}");
}
