//! Every waiting thing says what it waits for (issue 15, item 7): status
//! lines for confirmations, running builds and unmet dependencies; the
//! phase-boundary lines and the FATAL message printed by waiting commands.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::fixture_repo;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::Output;
use crate::common::SUCCEED;

fn sv(repo: &Path, scripts: &Path, args: &[&str]) -> Output {
    run_env(repo, args, &[("FAKE_AGENT_SCRIPT", scripts)])
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A blocked run: the FATAL message where it blocks, the build lines, and
/// each waiting unit's unmet dependencies in `status`.
#[test]
fn a_blocked_run_says_why_and_what_waits() {
    let repo = fixture_repo("independent");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED), ("wcag.txt", "exit 1\n")]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    // The four-line FATAL message, printed as the run blocks.
    assert!(
        out.stdout
            .contains("BLOCKED: wcag Sprint 1 failed after 3 attempts.\nLast failure: "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "To retry: git supervisor resume\n(resume resets the sprint to PENDING and the work unit to RUNNING)"
        ),
        "{}",
        out.stdout
    );
    // The phase-boundary lines, printed by the waiting command and in log.
    let log = run(dir, &["log"]).stdout;
    for text in [&out.stdout, &log] {
        assert!(
            text.contains("🏗️  Phase 0: parser, profiles complete. Running coordinated build...")
                || text.contains("🏗️  Phase 0: profiles complete. Running coordinated build..."),
            "{text}"
        );
        assert!(
            text.contains("✅ Build passed. Proceeding to next phase."),
            "{text}"
        );
    }
    // status: biblioteca waits for wcag (BLOCKED) and a build of validation.
    let status = run(dir, &["status"]).stdout;
    assert!(
        status
            .contains("biblioteca waits for wcag (BLOCKED), a passing build covering validation."),
        "{status}"
    );
}

/// A failing build prints its attribution line in the waiting command.
#[test]
fn a_failing_build_is_announced_with_its_attribution() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    let s = scripts(&[
        (
            "lib-1-1.txt",
            "write lib/lib.txt bug\ncommit lib: first try\nresult complete\n",
        ),
        (
            "lib-1-2.txt",
            "write lib/lib.txt fixed\ncommit lib: fix\nresult complete\n",
        ),
        (
            "app-1-1.txt",
            "write app/app.txt app\ncommit app\nresult complete\n",
        ),
    ]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("❌ Build failed. Failures attributed to: lib Sprint 1"),
        "{}",
        out.stdout
    );
    assert!(run(dir, &["log"])
        .stdout
        .contains("❌ Build failed. Failures attributed to: lib Sprint 1"),);
}

/// A manual sprint says which command confirms it; a running build says
/// since when.
#[test]
fn status_names_the_confirmation_and_the_running_build() {
    let repo = fixture_repo("kinds");
    let dir = repo.path();
    let s = scripts(&[
        ("manual.txt", "print looked at the widgets\n"),
        ("default.txt", "hang\n"),
    ]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    wait_until("the manual sprint waits", || {
        sv(dir, s.path(), &["tick"]);
        run(dir, &["status"])
            .stdout
            .contains("manual: manual sprint 1 waits for `git supervisor confirm manual 1`.")
    });
    let json: serde_json::Value =
        serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("JSON");
    assert!(
        json["waiting"]
            .as_array()
            .expect("waiting")
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.contains("confirm manual 1"))),
        "{json}"
    );
    assert_eq!(sv(dir, s.path(), &["killall"]).status, 0);

    let repo = fixture_repo("gated");
    let dir = repo.path();
    // The build runs until the test releases it.
    std::fs::write(
        dir.join("build.sh"),
        "#!/bin/sh\necho build >> build.log\nwhile [ ! -e release ]; do sleep 0.05; done\necho ok\n",
    )
    .expect("build.sh");
    std::fs::write(dir.join(".gitignore"), "build.log\nrelease\n").expect("ignore");
    crate::common::git(dir, &["commit", "-qam", "A build that waits"]);
    let s = scripts(&[(
        "lib.txt",
        "write lib/lib.txt ok\ncommit lib\nresult complete\n",
    )]);
    assert_eq!(sv(dir, s.path(), &["start", "--yes"]).status, 0);
    wait_until("status shows the running build", || {
        run(dir, &["status"])
            .stdout
            .contains("A coordinated build is running since ")
    });
    std::fs::write(dir.join("release"), "").expect("release");
    wait_until("the build ends", || {
        !run(dir, &["status"])
            .stdout
            .contains("A coordinated build is running since ")
    });
    assert_eq!(sv(dir, s.path(), &["killall"]).status, 0);
}
