//! Store benchmarks, measured side by side in one run on the same disk:
//!
//! 1. transitions per second written by the store (one event = one
//!    transition = one CAS ref update) against a shell loop of git plumbing
//!    doing the same per transition (`hash-object -w`, `mktree`,
//!    `commit-tree`, `update-ref` with the old value);
//! 2. whole-process `git supervisor status --format json` against
//!    `git cat-file -p refs/supervisor/state:state.toml` on runs of 10,000
//!    and 100,000 transitions (alternating, median of the runs);
//! 3. whole-process `git supervisor report --format json` (the completion
//!    report walks the run's whole history) on the same histories.
//!
//! Run: `cargo bench --bench store` (prints Markdown tables).

use std::process::Command;
use std::time::Duration;
use std::time::Instant;

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;
use common::git;
use common::notes;
use common::repo_with_plan;
use common::start;

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = include_str!("../tests/plans/layered/EXECUTION_PLAN.md");
    repo_with_plan(dir.path(), plan);
    dir
}

fn write_throughput() {
    // Paired rounds: each round times a batch of ours and a batch of the
    // plumbing loop back to back, so a slow phase of the machine hits both.
    let (rounds, ours_n, plumbing_n) = (9, 100, 20);
    let dir = repo();
    let store = start(dir.path());
    git(
        dir.path(),
        &[
            "update-ref",
            "refs/supervisor/plumbing",
            "refs/supervisor/state",
        ],
    );
    let script = format!(
        r#"set -e
old=$(git rev-parse refs/supervisor/plumbing)
for i in $(seq {plumbing_n}); do
  blob=$(printf 'seq = %s\n' "$i" | git hash-object -w --stdin)
  tree=$(printf '100644 blob %s\tstate.toml\n' "$blob" | git mktree)
  new=$(git commit-tree "$tree" -p "$old" -m "run: note $i")
  git update-ref refs/supervisor/plumbing "$new" "$old"
  old=$new
done"#
    );
    let (mut ours, mut plumbing, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..ours_n {
            notes(&store, 1);
        }
        let o = ours_n as f64 / t.elapsed().as_secs_f64();
        let t = Instant::now();
        let status = Command::new("bash")
            .current_dir(dir.path())
            .arg("-c")
            .arg(&script)
            .status()
            .expect("bash");
        assert!(status.success());
        let p = plumbing_n as f64 / t.elapsed().as_secs_f64();
        ours.push(o);
        plumbing.push(p);
        ratios.push(o / p);
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    println!("| writer (median of {rounds} paired rounds) | transitions/s |");
    println!("|---|---|");
    println!(
        "| git supervisor store (1 transition per event, CAS each) | {:.0} |",
        med(ours)
    );
    println!("| shell loop of git plumbing | {:.0} |", med(plumbing));
    println!(
        "| ratio (median of per-round ratios) | {:.1}x |",
        med(ratios)
    );
    println!();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn status_cost() {
    let bin = env!("CARGO_BIN_EXE_git-supervisor");
    println!("| transitions | `status --format json` (median ms) | `git cat-file -p …:state.toml` (median ms) | ratio |");
    println!("|---|---|---|---|");
    for total in [10_000usize, 100_000] {
        let dir = history_of(total);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..201 {
            let t = Instant::now();
            let out = Command::new(bin)
                .current_dir(dir.path())
                .args(["status", "--format", "json"])
                .output()
                .expect("status");
            ours.push(t.elapsed());
            assert!(out.status.success());
            let t = Instant::now();
            let out = Command::new("git")
                .current_dir(dir.path())
                .args(["cat-file", "-p", "refs/supervisor/state:state.toml"])
                .output()
                .expect("cat-file");
            theirs.push(t.elapsed());
            assert!(out.status.success());
        }
        let (o, g) = (median(ours), median(theirs));
        println!(
            "| {total} | {:.2} | {:.2} | {:.2}x |",
            o.as_secs_f64() * 1e3,
            g.as_secs_f64() * 1e3,
            o.as_secs_f64() / g.as_secs_f64()
        );
    }
}

/// A run of `total` transitions, packed.
fn history_of(total: usize) -> tempfile::TempDir {
    let dir = repo();
    let store = start(dir.path());
    let mut written = store.tip().expect("tip").expect("run").state.seq as usize;
    while written < total {
        let n = (total - written).min(2_000);
        notes(&store, n);
        written += n;
    }
    git(dir.path(), &["gc", "-q"]);
    dir
}

fn report_cost() {
    let bin = env!("CARGO_BIN_EXE_git-supervisor");
    println!("| transitions | `report --format json` (median ms) | per 1,000 transitions (ms) |");
    println!("|---|---|---|");
    for total in [1_000usize, 10_000, 100_000] {
        let dir = history_of(total);
        let mut times = Vec::new();
        for _ in 0..11 {
            let t = Instant::now();
            let out = Command::new(bin)
                .current_dir(dir.path())
                .args(["report", "--format", "json"])
                .output()
                .expect("report");
            times.push(t.elapsed());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let m = median(times).as_secs_f64() * 1e3;
        println!("| {total} | {m:.1} | {:.2} |", m / (total as f64 / 1000.0));
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if only.as_deref() == Some("ours") {
        let dir = repo();
        let store = start(dir.path());
        let t = Instant::now();
        for _ in 0..300 {
            notes(&store, 1);
        }
        println!("ours: {:.0}/s", 300.0 / t.elapsed().as_secs_f64());
        return;
    }
    if only.as_deref().is_none_or(|o| o == "write") {
        write_throughput();
    }
    if only.as_deref().is_none_or(|o| o == "status") {
        status_cost();
    }
    if only.as_deref().is_none_or(|o| o == "report") {
        report_cost();
    }
}
