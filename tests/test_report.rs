//! `git supervisor report`: golden completion logs of recorded runs (one
//! complete with a failed and a passed phase gate, one with retries, a
//! continuation and a BLOCKED unit), the JSON form, and the timeline drawn
//! by a headless browser.

use std::path::Path;

use git_supervisor::machine::EventKind;
use git_supervisor::machine::Model;
use git_supervisor::machine::Outcome;
use git_supervisor::store::Clock;
use git_supervisor::store::Store;

use crate::common::fixture_repo;
use crate::common::run;
use crate::common::seed;

/// A run recorded through the real store, one minute per transition.
fn record_start(dir: &Path, gates: bool) -> Store {
    let store = Store::open(dir).expect("a git repository").with_clock(
        Clock::pinned("2026-03-02T09:00:00Z")
            .expect("valid time")
            .with_step(60),
    );
    seed::start_with(store, dir, gates)
}

fn verdict(store: &Store, unit: &str, outcome: Outcome, commits: &[&str], turns: Option<u64>) {
    let evidence = match outcome {
        Outcome::Completed => {
            "exit criteria 1/1 passed, 1 commit in scope; decided by the exit criteria."
        }
        Outcome::Partial => {
            "exit criteria 0/1 passed, 1 commit in scope; work moved but is not done."
        }
        Outcome::Failure => {
            "exit criteria 0/1 passed, 0 commits in scope, exit 1; nothing in scope moved."
        }
    };
    seed::event(
        store,
        EventKind::Verdict {
            unit: unit.into(),
            outcome,
            evidence: evidence.into(),
            remaining: vec![],
            commits: commits.iter().map(|c| c.to_string()).collect(),
            turns,
            // A cent per turn: every reported figure shows in the report.
            cost: turns.and_then(|t| git_supervisor::machine::Usd::from_dollars(t as f64 / 100.0)),
            checks: Vec::new(),
        },
    );
}

fn attempt(
    store: &Store,
    unit: &str,
    model: Model,
    outcome: Outcome,
    commits: &[&str],
    turns: u64,
) {
    seed::dispatch(store, unit, model);
    verdict(store, unit, outcome, commits, Some(turns));
}

/// lib completes, the phase-0 build fails on it, lib is redone, the gate
/// passes, app completes, the last gate passes.
fn complete_run() -> tempfile::TempDir {
    let repo = fixture_repo("gated");
    let store = record_start(repo.path(), true);
    attempt(
        &store,
        "lib",
        Model::Sonnet,
        Outcome::Completed,
        &["a1b2c3d4e5f6"],
        18,
    );
    seed::event(
        &store,
        EventKind::GateFailed {
            unit: "lib".into(),
            sprint: "1".parse().expect("id"),
            detail: "error: lib/lib.txt: the library has a bug".into(),
        },
    );
    attempt(
        &store,
        "lib",
        Model::Opus,
        Outcome::Completed,
        &["b2c3d4e5f6a1"],
        24,
    );
    seed::event(
        &store,
        EventKind::GatePassed {
            phase: 0,
            summary: "sh build.sh passed".into(),
            head: "0".repeat(40),
            covers: vec!["lib".into()],
            warned: vec![],
        },
    );
    attempt(
        &store,
        "app",
        Model::Haiku,
        Outcome::Completed,
        &["c3d4e5f6a1b2"],
        6,
    );
    seed::event(
        &store,
        EventKind::GatePassed {
            phase: 1,
            summary: "sh build.sh passed".into(),
            head: "0".repeat(40),
            covers: vec!["app".into()],
            warned: vec![],
        },
    );
    repo
}

/// parser fails three times (FATAL → BLOCKED), profiles needs a
/// continuation, algs passes on its second attempt with a bigger model;
/// validation and biblioteca never start.
fn blocked_run() -> tempfile::TempDir {
    let repo = fixture_repo("five");
    let store = record_start(repo.path(), false);
    attempt(&store, "parser", Model::Sonnet, Outcome::Failure, &[], 50);
    attempt(
        &store,
        "profiles",
        Model::Haiku,
        Outcome::Partial,
        &["d4e5f6a1b2c3"],
        40,
    );
    attempt(&store, "algs", Model::Haiku, Outcome::Failure, &[], 45);
    attempt(&store, "parser", Model::Sonnet, Outcome::Failure, &[], 50);
    attempt(
        &store,
        "profiles",
        Model::Haiku,
        Outcome::Completed,
        &["e5f6a1b2c3d4"],
        12,
    );
    attempt(
        &store,
        "algs",
        Model::Sonnet,
        Outcome::Completed,
        &["f6a1b2c3d4e5"],
        20,
    );
    attempt(&store, "parser", Model::Opus, Outcome::Failure, &[], 50);
    repo
}

#[test]
fn report_of_a_complete_run() {
    let repo = complete_run();
    let out = run(repo.path(), &["report", "--stdout"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    insta::assert_snapshot!("report_complete", out.stdout);
    let summary = run(repo.path(), &["report"]);
    assert_eq!(summary.status, 0, "{}", summary.stderr);
    insta::assert_snapshot!("report_complete_summary", summary.stdout);
    let written = std::fs::read_to_string(repo.path().join("COMPLETE_GATED_BUILD.md"))
        .expect("the log is written to the project root");
    assert_eq!(written, out.stdout, "--stdout prints what is written");
}

#[test]
fn report_of_a_run_with_retries_and_a_blocked_unit() {
    let repo = blocked_run();
    let out = run(repo.path(), &["report", "--stdout"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    insta::assert_snapshot!("report_blocked", out.stdout);
    let summary = run(repo.path(), &["report"]);
    insta::assert_snapshot!("report_blocked_summary", summary.stdout);
}

#[test]
fn report_json_carries_the_same_data_and_is_deterministic() {
    let repo = blocked_run();
    let first = run(repo.path(), &["report", "--format", "json"]);
    assert_eq!(first.status, 0, "{}", first.stderr);
    let v: serde_json::Value = serde_json::from_str(&first.stdout).expect("JSON");
    assert_eq!(v["complete"], false);
    assert_eq!(v["overall"], "blocked");
    assert_eq!(v["summary"]["planned"], 7);
    assert_eq!(v["summary"]["completed"], 2);
    let outcomes: Vec<&str> = v["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["outcome"].as_str().expect("outcome"))
        .collect();
    assert_eq!(
        outcomes,
        [
            "failed",
            "partial",
            "failed",
            "failed",
            "completed",
            "completed",
            "fatal"
        ]
    );
    assert!(
        !repo.path().join("COMPLETE_FIVE_PACKAGES.md").exists(),
        "json writes no log"
    );
    let second = run(repo.path(), &["report", "--format", "json"]);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn report_without_a_run_says_how_to_start_one() {
    let repo = fixture_repo("five");
    let out = run(repo.path(), &["report"]);
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("no run to report on"), "{}", out.stderr);
    assert!(
        out.stderr.contains("git supervisor start"),
        "{}",
        out.stderr
    );
}

/// Debian's Chromium, or `GIT_SUPERVISOR_CHROMIUM`.
fn chromium() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("GIT_SUPERVISOR_CHROMIUM") {
        return Some(p.into());
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
}

/// Pixels of `png` within a small distance of `rgb`.
fn pixels_like(png_path: &Path, rgb: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).expect("screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(channels)
        .filter(|px| {
            px.len() >= 3 && (0..3).all(|i| (i32::from(px[i]) - i32::from(rgb[i])).abs() <= 12)
        })
        .count()
}

/// Write `repo`'s timeline page and photograph it with `browser`; the
/// screenshot is also kept as `target/<name>.png` for people and CI.
fn screenshot(browser: &Path, repo: &Path, name: &str) -> std::path::PathBuf {
    let page = repo.join("timeline.html");
    let out = run(
        repo,
        &["report", "--html", "timeline.html", "--format", "json"],
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).expect("the page is written");
    assert!(
        html.contains("<svg") && !html.contains("<script"),
        "self-contained, no scripts"
    );
    let shot = repo.join("timeline.png");
    let profile = tempfile::tempdir().expect("profile dir");
    let status = std::process::Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-extensions",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1250,420",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .env("HOME", profile.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("chromium runs");
    assert!(status.success(), "chromium exited with {status}");
    let kept = crate::common::manifest_dir().join(format!("target/{name}.png"));
    let _ = std::fs::copy(&shot, kept);
    shot
}

#[test]
fn the_timeline_renders_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("GIT_SUPERVISOR_REQUIRE_BROWSER").is_none(),
            "GIT_SUPERVISOR_REQUIRE_BROWSER is set but Chromium is not installed (apt-get install chromium)"
        );
        eprintln!("skipped: Chromium is not installed");
        return;
    };
    // The complete run: bars of completed attempts (green), the failed gate
    // mark (red) and the unit labels (dark text) are all drawn.
    let repo = complete_run();
    let shot = screenshot(&browser, repo.path(), "timeline");
    let green = pixels_like(&shot, [0x2e, 0x9d, 0x57]);
    let red = pixels_like(&shot, [0xd9, 0x53, 0x4f]);
    let text = pixels_like(&shot, [0x22, 0x22, 0x22]);
    assert!(green > 2000, "completed bars drawn: {green} green pixels");
    assert!(red > 50, "the failed gate is marked: {red} red pixels");
    assert!(text > 100, "labels drawn: {text} dark pixels");
    // The blocked run: failed (red), partial (amber) and fatal (dark red)
    // attempts.
    let repo = blocked_run();
    let shot = screenshot(&browser, repo.path(), "timeline-blocked");
    let failed = pixels_like(&shot, [0xd9, 0x53, 0x4f]);
    let partial = pixels_like(&shot, [0xe0, 0xa5, 0x26]);
    let fatal = pixels_like(&shot, [0x8b, 0x1e, 0x1e]);
    assert!(failed > 2000, "failed attempts drawn: {failed}");
    assert!(partial > 500, "the partial attempt drawn: {partial}");
    assert!(fatal > 500, "the fatal attempt drawn: {fatal}");
}

/// A manual sprint a person confirms and a sprint observed done in history
/// show as such, with their criteria accounted for.
#[test]
fn report_shows_confirmed_and_observed_completions() {
    let repo = fixture_repo("kinds");
    let store = record_start(repo.path(), false);
    seed::dispatch(&store, "manual", Model::Haiku);
    verdict(&store, "manual", Outcome::Partial, &[], None);
    seed::event(
        &store,
        EventKind::Confirm {
            unit: "manual".into(),
            sprint: "1".parse().expect("id"),
        },
    );
    seed::event(
        &store,
        EventKind::Observed {
            unit: "hung".into(),
            sprint: "1".parse().expect("id"),
            evidence: "exit criteria 1/1 passed; a commit marked it complete".into(),
            commits: vec!["0123456789ab".into()],
            head: "0123456789ab".into(),
        },
    );
    let out = run(repo.path(), &["report", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let outcomes: Vec<(&str, &str)> = v["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| {
            (
                a["unit"].as_str().expect("unit"),
                a["outcome"].as_str().expect("outcome"),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("manual", "partial"),
            ("manual", "confirmed"),
            ("hung", "observed")
        ]
    );
    let sprints = v["sprints"].as_array().expect("sprints");
    let hung = sprints
        .iter()
        .find(|s| s["unit"] == "hung")
        .expect("hung completed");
    assert_eq!(hung["commits"][0], "0123456");
    assert_eq!(hung["criteria"][0]["verified"], true);
    let text = run(repo.path(), &["report", "--stdout"]);
    assert!(
        text.stdout.contains("> **Partial report.**"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("| hung | 1 | 0 | — |"),
        "{}",
        text.stdout
    );
}
