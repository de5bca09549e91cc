//! Property: workers through outages and kills lose no work and do none
//! twice. Random interleavings of outages of the remote shorter than the
//! lease (its `git daemon` stopped and started again), SIGKILL of a worker
//! and a worker started again in its clone, while two clones' workers run
//! a run of independent sprints — real `git daemon` on 127.0.0.1, real
//! worker processes and fake agents. Whatever the order, every sprint is
//! COMPLETED exactly once, a sprint goes to a second agent only when the
//! worker holding it was killed (never for an outage), a surviving worker
//! leaves no zombie child, each clone has at most one worktree per unit,
//! and the remote's repository is sound.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

use proptest::prelude::*;

use crate::common::git;
use crate::common::on_remote::*;
use crate::common::remote_scenarios::works_for;
use crate::common::scripts;

const UNITS: [&str; 4] = ["alpha", "beta", "gamma", "delta"];
const CLONES: usize = 2;

/// One thing that happens to the run while the workers work.
#[derive(Debug, Clone)]
enum Step {
    /// The remote is unreachable for this many milliseconds.
    Outage(u64),
    /// SIGKILL the worker of this clone, if one runs there.
    Kill(usize),
    /// Start a worker in this clone, if none runs there.
    Start(usize),
    /// Let the workers work for this many milliseconds.
    Pause(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (1000u64..3000).prop_map(Step::Outage),
        (0..CLONES).prop_map(Step::Kill),
        (0..CLONES).prop_map(Step::Start),
        (300u64..1500).prop_map(Step::Pause),
    ]
}

/// A worker process and the clone it works in.
struct Running {
    clone: usize,
    child: Child,
}

/// Every worker still running, and every worker killed (`<pid>`).
struct Workers {
    running: Vec<Running>,
    killed: Vec<u32>,
}

impl Workers {
    fn start(&mut self, clones: &[PathBuf], clone: usize, script: &Path) {
        if self.running.iter().any(|r| r.clone == clone) {
            return;
        }
        let child = worker(
            &clones[clone],
            script,
            &["--agents", "2", "--poll", "100ms"],
        );
        self.running.push(Running { clone, child });
    }

    fn kill(&mut self, clone: usize) {
        if let Some(i) = self.running.iter().position(|r| r.clone == clone) {
            let mut r = self.running.remove(i);
            let _ = r.child.kill();
            let _ = r.child.wait();
            self.killed.push(r.child.id());
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        for r in &mut self.running {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }
}

/// Children of the running workers that are zombies now and still are a
/// few rounds later (a finished wrapper is reaped the next round).
fn lasting_zombies(workers: &Workers) -> Vec<(u32, u32)> {
    let zombies = || -> Vec<(u32, u32)> {
        workers
            .running
            .iter()
            .flat_map(|r| {
                let pid = r.child.id();
                children_of(pid)
                    .into_iter()
                    .filter(|(_, st)| *st == 'Z')
                    .map(move |(c, _)| (pid, c))
            })
            .collect()
    };
    let before = zombies();
    if before.is_empty() {
        return before;
    }
    std::thread::sleep(Duration::from_secs(2));
    let after = zombies();
    before.into_iter().filter(|z| after.contains(z)).collect()
}

/// The units with more than one worktree in `clone`.
fn doubled_worktrees(clone: &Path) -> Vec<String> {
    let list = git(clone, &["worktree", "list", "--porcelain"]);
    let mut per_unit: BTreeMap<String, usize> = BTreeMap::new();
    for branch in list.lines().filter_map(|l| l.strip_prefix("branch ")) {
        if let Some(unit) = UNITS.iter().find(|u| branch.ends_with(&format!("/{u}"))) {
            *per_unit.entry(unit.to_string()).or_default() += 1;
        }
    }
    per_unit
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(u, n)| format!("{u}: {n} worktrees"))
        .collect()
}

fn run_case(steps: &[Step]) -> Result<(), TestCaseError> {
    let mut remote = OnRemote::with_plan_and_config(
        &plan(&UNITS, 1),
        &[
            // Outages last at most 3 s; a lease five times that is not
            // lapsed by a round slowed down by a loaded machine.
            ("lease = \"3s\"", "lease = \"15s\""),
            ("kill_grace = \"2s\"", "kill_grace = \"30s\""),
        ],
    );
    let s = scripts(&[("default.txt", &works_for(2))]);
    remote.start(s.path());
    let clones: Vec<PathBuf> = (0..CLONES)
        .map(|i| remote.clone(&format!("w{i}")))
        .collect();
    let mut workers = Workers {
        running: Vec::new(),
        killed: Vec::new(),
    };
    for c in 0..CLONES {
        workers.start(&clones, c, s.path());
    }
    let mut zombies = Vec::new();
    for step in steps {
        match step {
            Step::Outage(ms) => {
                remote.daemon_mut().stop();
                std::thread::sleep(Duration::from_millis(*ms));
                remote.daemon_mut().start_again();
            }
            Step::Kill(c) => workers.kill(*c),
            Step::Start(c) => workers.start(&clones, *c, s.path()),
            Step::Pause(ms) => std::thread::sleep(Duration::from_millis(*ms)),
        }
        zombies.extend(lasting_zombies(&workers));
        for clone in &clones {
            let doubled = doubled_worktrees(clone);
            prop_assert!(doubled.is_empty(), "{:?} after {:?}", doubled, step);
        }
    }
    prop_assert!(
        zombies.is_empty(),
        "zombie children (worker, child): {:?}",
        zombies
    );
    // A worker in every clone sees the run to its end (one started again
    // publishes what a killed one queued there).
    for c in 0..CLONES {
        workers.start(&clones, c, s.path());
    }
    let since = Instant::now();
    for r in std::mem::take(&mut workers.running) {
        let left = Duration::from_secs(150).saturating_sub(since.elapsed());
        let done = summary(r.child, left.max(Duration::from_secs(1)));
        prop_assert_eq!(&done["finished"], true, "{}", done);
    }

    let subjects = remote.subjects();
    let log = subjects.join("\n");
    let reader = &clones[0];
    git(
        reader,
        &[
            "fetch",
            "-q",
            "origin",
            "+refs/supervisor/state:refs/supervisor/state",
        ],
    );
    let records: Vec<serde_json::Value> =
        serde_json::from_str(&crate::common::run(reader, &["log", "--format", "json"]).stdout)
            .expect("log JSON");
    for u in UNITS {
        let completed = records
            .iter()
            .filter(|r| r["unit"] == u && r["sprint"] == "1" && r["to"] == "COMPLETED")
            .count();
        prop_assert_eq!(completed, 1, "{} COMPLETED {} times\n{}", u, completed, log);
    }
    // A sprint is interrupted (and so dispatched again) only when its
    // worker stopped renewing because it was killed.
    let killed: Vec<String> = workers.killed.iter().map(|p| format!("/{p} ")).collect();
    for u in UNITS {
        let lapse = format!("{u}: sprint 1 RUNNING -> BACKOFF");
        if subjects.contains(&lapse) {
            let bodies = git(
                &remote.bare(),
                &[
                    "log",
                    "--format=%B",
                    &format!("--grep={lapse}"),
                    "refs/supervisor/state",
                ],
            );
            for why in bodies.lines().filter(|l| l.contains("stopped renewing")) {
                prop_assert!(
                    killed.iter().any(|k| why.contains(k.as_str())),
                    "{} lapsed though its worker was not killed: {}\nkilled: {:?}\n{}",
                    u,
                    why,
                    workers.killed,
                    log
                );
            }
        }
        let claims = subjects
            .iter()
            .filter(|l| **l == format!("{u}: sprint 1 DISPATCHED -> RUNNING"))
            .count();
        prop_assert!(
            claims <= 1 + workers.killed.len(),
            "{} claimed {} times with {} kills\n{}",
            u,
            claims,
            workers.killed.len(),
            log
        );
    }
    for clone in &clones {
        let doubled = doubled_worktrees(clone);
        prop_assert!(doubled.is_empty(), "{:?}", doubled);
    }
    remote.assert_fsck_clean();
    Ok(())
}

proptest! {
    // Each case is a whole run with real processes: a few cases, each
    // different, catch an interleaving the fixed tests do not.
    #![proptest_config(ProptestConfig {
        cases: 4,
        max_shrink_iters: 4,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn workers_through_outages_and_kills_complete_each_sprint_once(
        steps in proptest::collection::vec(step(), 3..7)
    ) {
        run_case(&steps)?;
    }
}
