//! Overlap before it is a conflict: two units of a worktree run that edit
//! the same file are told apart while both work (a notice, `status`, the
//! later agent's next prompt), and a plan that names the file in both
//! sprints gets the overlap in the DISPATCHED reason (`warn`) or the later
//! sprint held until the earlier has left (`serialize`).

use std::path::Path;

use crate::common::git;

use crate::common::run_unpinned as sv;

/// Units a and b edit `shared.txt` (a its first line, b its last, so the
/// merges are clean), c and d files of their own; `named` puts the file in
/// a's and b's sprints.
fn repo(named: bool, on_overlap: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    crate::common::init_repo(d);
    let agent = r#"#!/bin/sh
u=$SUPERVISOR_UNIT
case "$u" in
  a) sed -i '1s/.*/line one by a/' shared.txt; f=shared.txt;;
  b) sleep 1; sed -i '10s/.*/line ten by b/' shared.txt; f=shared.txt;;
  *) echo "$u" > "$u/own.txt"; f="$u/own.txt";;
esac
git add "$f"
git commit -qm "$u: sprint 1" -m "Supervisor-Sprint: $u/1
Supervisor-Status: complete" -- "$f"
# Both stay at work a moment, so each tick sees the other.
sleep 2
"#;
    std::fs::write(d.join("agent.sh"), agent).expect("agent");
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    std::fs::write(d.join("shared.txt"), lines).expect("shared");
    let mut plan =
        String::from("# Overlap\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n");
    for u in ["a", "b", "c", "d"] {
        plan.push_str(&format!("| {u} | {u} | 0 | 1 |\n"));
    }
    for u in ["a", "b", "c", "d"] {
        let task = if named && (u == "a" || u == "b") {
            "- Edit `shared.txt`\n".to_string()
        } else {
            String::from("- Do the work\n")
        };
        plan.push_str(&format!(
            "\n## {u}\n\n### Sprint 1: Work\n\n{task}\n**Exit Criteria**:\n- [ ] `true`\n"
        ));
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), "# p\n").expect("progress");
    }
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        format!("[agent]\ncommand = [\"sh\", \"agent.sh\"]\nprompt = \"stdin\"\n\n[run]\npoll_interval = \"200ms\"\nworkspace = \"worktree\"\non_overlap = \"{on_overlap}\"\n"),
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    dir
}

/// Subjects and reasons of the transitions, oldest first.
fn history(d: &Path) -> Vec<String> {
    git(
        d,
        &[
            "log",
            "--reverse",
            "--format=%s %b%x1e",
            "refs/supervisor/state",
        ],
    )
    .split('\x1e')
    .map(|r| r.trim().replace('\n', " "))
    .filter(|r| !r.is_empty())
    .collect()
}

#[test]
fn two_units_editing_one_file_are_told_while_both_work() {
    let r = repo(false, "warn");
    let d = r.path();
    let out = sv(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    let h = history(d);
    let notice = h
        .iter()
        .position(|l| l.contains("a and b both edit shared.txt"))
        .unwrap_or_else(|| panic!("no overlap notice: {h:#?}"));
    // Said while both worked: before either merged.
    let first_merge = h
        .iter()
        .position(|l| {
            l.starts_with("a: sprint 1 RUNNING -> COMPLETED")
                || l.starts_with("b: sprint 1 RUNNING -> COMPLETED")
        })
        .expect("a merge");
    assert!(notice < first_merge, "{h:#?}");
    assert_eq!(
        h.iter().filter(|l| l.contains("both edit")).count(),
        1,
        "said once: {h:#?}"
    );
    assert!(!h.iter().any(|l| l.contains("-> BACKOFF")), "{h:#?}");
}

#[test]
fn named_files_warn_in_the_dispatch_or_hold_the_later_sprint() {
    let r = repo(true, "warn");
    let d = r.path();
    let out = sv(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    let h = history(d);
    assert!(
        h.iter()
            .any(|l| l.starts_with("b: sprint 1 PENDING -> DISPATCHED")
                && l.contains("overlaps `a` sprint 1 on shared.txt (on_overlap = warn)")),
        "{h:#?}"
    );

    let r = repo(true, "serialize");
    let d = r.path();
    let out = sv(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    let h = history(d);
    let a_done = h
        .iter()
        .position(|l| l.starts_with("a: sprint 1 RUNNING -> COMPLETED"))
        .expect("a completed");
    let b_dispatched = h
        .iter()
        .position(|l| l.starts_with("b: sprint 1 PENDING -> DISPATCHED"))
        .expect("b dispatched");
    assert!(a_done < b_dispatched, "b waited for a: {h:#?}");
    // The hold is recorded, once, with its reason.
    let held: Vec<&String> = h
        .iter()
        .filter(|l| l.contains("b sprint 1 waits for `a` sprint 1 (shared.txt) to leave"))
        .collect();
    assert_eq!(held.len(), 1, "{h:#?}");
    // c and d did not wait.
    let c_dispatched = h
        .iter()
        .position(|l| l.starts_with("c: sprint 1 PENDING -> DISPATCHED"))
        .expect("c dispatched");
    assert!(c_dispatched < a_done, "{h:#?}");
    assert!(
        !h.iter().any(|l| l.contains("-> BACKOFF")),
        "no retry: {h:#?}"
    );
}
