//! The merge queue's throughput: verified sprints merged into a run's
//! integration branch per second, one at a time, as the engine does it
//! (`Workspaces::integrate`: an ancestor check, `git merge-tree
//! --write-tree`, `commit-tree` with the trailers, a compare-and-swap
//! `update-ref`).
//!
//! 200 unit branches, each one commit touching a file of its own, all
//! branched from the same base, are merged in turn, so each merge sees an
//! integration branch that has moved on (the worst case for the
//! preflight); then the same 200 again, to time the "already merged" check
//! a resumed run makes.
//!
//! Run: `cargo bench --bench merge_queue` (prints a Markdown table).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use git_supervisor::workspace::Merge;
use git_supervisor::workspace::Workspaces;

const BRANCHES: usize = 200;

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;

/// `git` that must succeed; its stdout without the trailing newline.
fn git(dir: &Path, args: &[&str]) -> String {
    common::git(dir, args).trim().to_string()
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).expect("mkdir");
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "Bench"]);
    git(&repo, &["config", "user.email", "bench@example.com"]);
    git(&repo, &["config", "commit.gpgsign", "false"]);
    for i in 0..50 {
        std::fs::write(repo.join(format!("base-{i}.txt")), format!("{i}\n")).expect("write");
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    let base = git(&repo, &["rev-parse", "HEAD"]);
    let ws = Workspaces::new(&repo, Some("../wt"), "bench");
    ws.start(&base).expect("integration branch");
    // Unit branches made with plumbing (no worktrees needed to merge).
    let base_tree = git(&repo, &["rev-parse", "HEAD^{tree}"]);
    let units: Vec<String> = (0..BRANCHES).map(|i| format!("unit-{i:03}")).collect();
    for (i, unit) in units.iter().enumerate() {
        let blob = {
            let path = tmp.path().join("blob");
            std::fs::write(&path, format!("work of {unit}\n")).expect("write");
            git(&repo, &["hash-object", "-w", &path.display().to_string()])
        };
        let tree = {
            let listing = git(&repo, &["ls-tree", &base_tree]);
            let mut entries = format!("{listing}\n100644 blob {blob}\tunit-{i:03}.txt\n");
            entries = entries.replace("\n\n", "\n");
            let out = Command::new("git")
                .current_dir(&repo)
                .arg("mktree")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin
                        .take()
                        .expect("stdin")
                        .write_all(entries.as_bytes())?;
                    c.wait_with_output()
                })
                .expect("mktree");
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let commit = git(
            &repo,
            &[
                "commit-tree",
                &tree,
                "-p",
                &base,
                "-m",
                &format!("{unit}: work"),
            ],
        );
        git(
            &repo,
            &[
                "update-ref",
                &format!("refs/heads/{}", ws.unit_branch(unit)),
                &commit,
            ],
        );
    }

    let started = Instant::now();
    for unit in &units {
        match ws.integrate(unit, "1").expect("merge") {
            Merge::Merged { .. } => {}
            other => panic!("{unit}: expected a merge, got {other:?}"),
        }
    }
    let merging = started.elapsed();
    let started = Instant::now();
    for unit in &units {
        assert!(matches!(
            ws.integrate(unit, "1").expect("merge"),
            Merge::Already { .. }
        ));
    }
    let again = started.elapsed();
    let tip = ws.integration_tip().expect("tip");
    assert_eq!(
        git(
            &repo,
            &["rev-list", "--merges", "--count", &format!("{base}..{tip}")]
        ),
        BRANCHES.to_string()
    );
    println!("| merge queue step | per step | steps per second |");
    println!("|---|---|---|");
    println!(
        "| merge ({BRANCHES} branches, each onto a moved integration tip) | {:.1} ms | {:.1} |",
        merging.as_secs_f64() * 1000.0 / BRANCHES as f64,
        BRANCHES as f64 / merging.as_secs_f64()
    );
    println!(
        "| already merged (resume) | {:.1} ms | {:.1} |",
        again.as_secs_f64() * 1000.0 / BRANCHES as f64,
        BRANCHES as f64 / again.as_secs_f64()
    );
}
