//! A failing coordinated build is attributed by the files its output names,
//! to the unit owning their directory, dependencies included.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;

/// The state ref's subjects, oldest first.
fn subjects(repo: &Path) -> Vec<String> {
    git(
        repo,
        &["log", "--reverse", "--format=%s", "refs/supervisor/state"],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

/// `lib` builds and passes; `app` then completes and the build covering it
/// fails in `lib/lib.txt`. lib is reopened with the output, app is kept.
#[test]
fn a_build_failing_in_a_dependencys_file_reopens_the_dependency() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    // The app exposes a bug in the library until lib's second version.
    std::fs::write(
        dir.join("build.sh"),
        "#!/bin/sh\necho build >> build.log\nif [ -e app/app.txt ] && ! grep -q v2 lib/lib.txt; then\n  echo 'error: lib/lib.txt: bug'\n  exit 1\nfi\necho ok\n",
    )
    .expect("build.sh");
    git(dir, &["commit", "-qam", "A build the app breaks"]);
    let s = scripts(&[
        (
            "lib-1-1.txt",
            "write lib/lib.txt v1\nappend lib/PROGRESS.md - Sprint 1: complete\ncommit lib: v1\nresult complete\n",
        ),
        (
            "lib-1-2.txt",
            "save-prompt ../lib-retry-prompt.txt\nwrite lib/lib.txt v2\ncommit lib: v2\nresult complete\n",
        ),
        (
            "app.txt",
            "write app/app.txt app\ncommit app\nresult complete\n",
        ),
    ]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    let h = subjects(dir);
    assert_eq!(
        out.status,
        0,
        "{}\n{}\n{h:#?}\n{}",
        out.stdout,
        out.stderr,
        run(dir, &["log"]).stdout
    );
    // The failing build blamed lib, not app.
    let log = run(dir, &["log"]).stdout;
    assert!(log.contains("Attributed to: lib Sprint 1"), "{log}");
    assert!(
        h.iter()
            .any(|s| s.contains("lib: sprint 1 COMPLETED -> BACKOFF")),
        "{h:#?}"
    );
    // app was never sent back nor re-dispatched.
    assert!(
        !h.iter()
            .any(|s| s.contains("app: sprint 1 COMPLETED -> BACKOFF")),
        "{h:#?}"
    );
    // lib's progress file says sprint 1 is complete since its first try:
    // that is not credited again while the build fails at the same commits.
    assert!(
        !h.iter()
            .any(|s| s.contains("lib: sprint 1 BACKOFF -> COMPLETED")),
        "{h:#?}"
    );
    let app_runs = h
        .iter()
        .filter(|s| s.contains("app: sprint 1") && s.contains("-> DISPATCHED"))
        .count();
    assert_eq!(app_runs, 1, "{h:#?}");
    // lib's retry prompt carried the build output.
    let prompt = std::fs::read_to_string(dir.join("../lib-retry-prompt.txt")).unwrap_or_default();
    assert!(prompt.contains("error: lib/lib.txt: bug"), "{prompt}");
}

/// app's own file breaks the build and app's first commit marks the sprint
/// complete; its retries cannot fix it and it ends FATAL. History (scanned
/// afresh: the scan cache is disposable) must not credit it again while the
/// build that failed it still fails at the same commits.
#[test]
fn a_sprint_a_build_failed_is_not_credited_again_from_history() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    std::fs::write(
        dir.join("build.sh"),
        "#!/bin/sh\necho build >> build.log\nif grep -q bug app/app.txt 2>/dev/null; then\n  echo 'error: app/app.txt: bug'\n  exit 1\nfi\necho ok\n",
    )
    .expect("build.sh");
    git(dir, &["commit", "-qam", "A build the app breaks"]);
    let s = scripts(&[
        (
            "lib.txt",
            "write lib/lib.txt v1\ncommit lib: v1\nresult complete\n",
        ),
        (
            "app-1-1.txt",
            "write app/app.txt bug\ntrailer Supervisor-Status: complete\ncommit app\nresult complete\n",
        ),
        ("app.txt", "print cannot fix it\nresult complete\n"),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(dir, &["start", "--yes", "--wait"], &env);
    let h = subjects(dir);
    assert_eq!(out.status, 3, "{}\n{}\n{h:#?}", out.stdout, out.stderr);
    assert!(
        h.iter()
            .any(|s| s.contains("app: sprint 1 BACKOFF -> FATAL")),
        "{h:#?}"
    );
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    let _ = std::fs::remove_file(dir.join(".git/supervisor/reconciled"));
    for args in [&["tick"][..], &["wait"][..]] {
        run_env(dir, args, &env);
    }
    let after = subjects(dir);
    assert!(
        !after
            .iter()
            .any(|s| s.contains("app: sprint 1 FATAL -> COMPLETED")),
        "{after:#?}\n{}",
        run(dir, &["log"]).stdout
    );
    assert_eq!(after, h);
    assert_eq!(
        std::fs::read_to_string(dir.join("build.log")).expect("builds"),
        builds
    );
}
