//! Property: observed work is integrated exactly once. Random interleavings
//! of hand-made commits with the sprint's trailers (in the user's checkout,
//! the unit's worktree or another worktree of the person's, sometimes two
//! for one sprint), agents that finish or give up, resumes, hooks on or off
//! — real repositories, the real binary and fake agents. Whatever the
//! order, every hand-made commit reaches the integration branch, no sprint
//! is merged twice, each sprint is credited once, and the run completes.

use std::path::Path;
use std::path::PathBuf;

use proptest::prelude::*;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run_env;
use crate::common::scripts;

const PLAN: &str = "# Hand and Agent

| Package | Directory | Depends on |
|---------|-----------|------------|
| api | api | — |
| web | web | — |
| docs | docs | api |

## api

### Sprint 1: Routes

**Exit Criteria**:
- [ ] `test -f api/s1.txt` passes

### Sprint 2: Handlers

**Exit Criteria**:
- [ ] `test -f api/s2.txt` passes

## web

### Sprint 1: Pages

**Exit Criteria**:
- [ ] `test -f web/s1.txt` passes

### Sprint 2: Styles

**Exit Criteria**:
- [ ] `test -f web/s2.txt` passes

## docs

### Sprint 1: Reference

**Exit Criteria**:
- [ ] `test -f docs/s1.txt` passes
";

const SPRINTS: [(&str, &str); 5] = [
    ("api", "1"),
    ("api", "2"),
    ("web", "1"),
    ("web", "2"),
    ("docs", "1"),
];

/// Where a person commits a fix.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Their own checkout, the branch the run started on.
    Checkout,
    /// The blocked unit's worktree.
    UnitWorktree,
    /// A worktree of their own, on a branch of their own.
    OwnWorktree,
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        Just(Place::Checkout),
        Just(Place::UnitWorktree),
        Just(Place::OwnWorktree)
    ]
}

/// One case: which agents give up, and how each blocked sprint is fixed
/// (where, and whether a second commit elsewhere marks it too).
#[derive(Debug, Clone)]
struct Case {
    hooks: bool,
    agent_gives_up: [bool; 5],
    fixes: Vec<(Place, Option<Place>)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        proptest::array::uniform5(any::<bool>()),
        proptest::collection::vec((place(), proptest::option::weighted(0.3, place())), 5),
    )
        .prop_map(|(hooks, agent_gives_up, fixes)| Case {
            hooks,
            agent_gives_up,
            // With hooks (or a tick woken by an agent's exit) the first
            // commit may be credited before the second exists: the second
            // is merged as a late fix.
            fixes,
        })
}

fn status(dir: &Path) -> serde_json::Value {
    let out = run_env(dir, &["status", "--format", "json"], &[]);
    serde_json::from_str(&out.stdout).expect("status JSON")
}

/// The blocked units and their FATAL sprint, in plan order.
fn blocked(dir: &Path) -> Vec<(String, String)> {
    let st = status(dir);
    st["units"]
        .as_array()
        .expect("units")
        .iter()
        .filter(|u| {
            u["state"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("blocked"))
        })
        .map(|u| {
            (
                u["name"].as_str().expect("name").to_string(),
                u["current"]["id"].as_str().expect("sprint").to_string(),
            )
        })
        .collect()
}

/// A hand-made commit for `unit`/`sprint` at `place`: the file its exit
/// criterion names and one of its own. Its id and its own file.
fn fix_by_hand(
    dir: &Path,
    env: &[(&str, &Path)],
    place: Place,
    unit: &str,
    sprint: &str,
    n: usize,
) -> (String, String) {
    let root: PathBuf = match place {
        Place::Checkout => dir.to_path_buf(),
        Place::UnitWorktree => {
            let st = status(dir);
            PathBuf::from(
                st["workspaces"][unit]["worktree"]
                    .as_str()
                    .expect("the blocked unit's worktree"),
            )
        }
        Place::OwnWorktree => {
            let own = dir.with_file_name(format!(
                "{}-own-{n}",
                dir.file_name().expect("name").to_string_lossy()
            ));
            git(
                dir,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    &format!("own-{n}"),
                    &own.display().to_string(),
                    "HEAD",
                ],
            );
            own
        }
    };
    assert!(
        root.join(".git").exists(),
        "{unit}/{sprint} at {place:?}: no worktree at {}",
        root.display()
    );
    std::fs::create_dir_all(root.join(unit)).expect("unit dir");
    std::fs::write(root.join(unit).join(format!("s{sprint}.txt")), "by hand\n").expect("fix");
    let own = format!("{unit}/hand-{n}.txt");
    std::fs::write(root.join(&own), format!("hand {n}\n")).expect("fix");
    let commit = crate::common::worktrees::commit_by_hand(
        &root,
        env,
        &format!("{unit}: sprint {sprint} by hand ({n})"),
        &format!("{unit}/{sprint}"),
    );
    (commit, own)
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let repo = fixture_repo("workspace");
    let dir = repo.path();
    let _cleanup = crate::common::worktrees::beside(dir);
    let _own = OwnWorktrees(dir.to_path_buf());
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).expect("plan");
    for unit in ["api", "web", "docs"] {
        std::fs::create_dir_all(dir.join(unit)).expect("unit dir");
        std::fs::write(dir.join(unit).join("PROGRESS.md"), "# progress\n").expect("progress");
    }
    std::fs::write(
        dir.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"fake-agent\"]\nprompt = \"stdin\"\nsilence_notice = \"1s\"\nsilence_kill = \"2s\"\nkill_grace = \"2s\"\n\n[run]\nmax_retries = 0\npoll_interval = \"100ms\"\n\n[build]\ncommand = \"true\"\ntimeout = \"1m\"\n",
    )
    .expect("config");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "api, web, then docs"]);
    let files: Vec<(String, String)> = SPRINTS
        .iter()
        .zip(case.agent_gives_up)
        .map(|((u, s), gives_up)| {
            let script = if gives_up {
                "print giving up\nexit 1\n".to_string()
            } else {
                format!("write {u}/s{s}.txt by the agent\ntrailer Supervisor-Status: complete\ncommit {u}: sprint {s}\nresult complete\n")
            };
            (format!("{u}-{s}-1.txt"), script)
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let s = scripts(&files);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    if case.hooks {
        let out = run_env(dir, &["hooks", "install"], &env);
        prop_assert_eq!(out.status, 0, "{}", out.stderr);
    }
    let out = run_env(dir, &["start", "--yes", "--wait"], &env);
    let mut told = out.stdout;
    let mut hand: Vec<(String, String, String, String)> = Vec::new();
    let mut fixes = case.fixes.iter();
    let mut n = 0;
    for _round in 0..8 {
        let stuck = blocked(dir);
        if stuck.is_empty() {
            break;
        }
        for (unit, sprint) in stuck {
            let (first, second) = *fixes.next().unwrap_or(&(Place::Checkout, None));
            for (k, place) in std::iter::once(first).chain(second).enumerate() {
                n += 1;
                // Two fixes of one sprint are made together: the first
                // wakes nothing (a hook woken by it could finish the sprint
                // before the second exists, a commit the run then never
                // sees as this sprint's), the last wakes the run for both.
                let quiet = [("GIT_SUPERVISOR_INTERNAL", Path::new("1"))];
                let env_now: Vec<(&str, &Path)> = if k == 0 && second.is_some() {
                    env.iter().copied().chain(quiet).collect()
                } else {
                    env.to_vec()
                };
                let (commit, own) = fix_by_hand(dir, &env_now, place, &unit, &sprint, n);
                told.push_str(&format!(
                    "hand-made {commit} for {unit}/{sprint} at {place:?}\n"
                ));
                hand.push((unit.clone(), sprint.clone(), commit, own));
            }
        }
        let out = run_env(dir, &["resume", "--wait"], &env);
        told.push_str(&out.stdout);
    }
    let log = crate::common::run(dir, &["log"]).stdout;
    let st = status(dir);
    prop_assert_eq!(
        st["overall"].as_str(),
        Some("completed"),
        "{}\n{}",
        told,
        log
    );
    let branch = st["integration_branch"]
        .as_str()
        .expect("integration branch")
        .to_string();
    // Every hand-made commit, and its change, is on the integration branch.
    for (unit, sprint, commit, own) in &hand {
        let contained = crate::common::command("git", dir)
            .args(["merge-base", "--is-ancestor", commit, &branch])
            .status()
            .expect("git");
        prop_assert!(
            contained.success(),
            "{unit}/{sprint}: {commit} not integrated\n{told}\n{log}"
        );
        prop_assert_eq!(
            git(dir, &["show", &format!("{branch}:{own}")]),
            format!(
                "hand {}\n",
                own.trim_start_matches(&format!("{unit}/hand-"))
                    .trim_end_matches(".txt")
            )
        );
    }
    // Every merge on the integration branch brought something new (nothing
    // merged twice); each sprint merged at least once and at most once per
    // commit that marked it; each credited once.
    let merges = git(
        dir,
        &[
            "log",
            "--first-parent",
            "--merges",
            "--format=%H %P|%(trailers:key=Supervisor-Sprint,valueonly,separator=%x2C)",
            &branch,
        ],
    );
    let mut merged_sprints: Vec<String> = Vec::new();
    for line in merges.lines().filter(|l| !l.is_empty()) {
        let (ids, marker) = line.split_once('|').expect("format");
        let ids: Vec<&str> = ids.split(' ').collect();
        let again = crate::common::command("git", dir)
            .args(["merge-base", "--is-ancestor", ids[2], ids[1]])
            .status()
            .expect("git");
        prop_assert!(!again.success(), "{} merged again\n{}", line, log);
        merged_sprints.push(marker.to_string());
    }
    let records: Vec<serde_json::Value> =
        serde_json::from_str(&crate::common::run(dir, &["log", "--format", "json"]).stdout)
            .expect("log JSON");
    for (unit, sprint) in SPRINTS {
        let marker = format!("{unit}/{sprint}");
        let merged = merged_sprints.iter().filter(|m| **m == marker).count();
        let by_hand = hand
            .iter()
            .filter(|(u, s, _, _)| u == unit && s == sprint)
            .count();
        prop_assert!(
            (1..=by_hand.max(1)).contains(&merged),
            "{} merged {} times ({} by hand)\n{}",
            marker,
            merged,
            by_hand,
            log
        );
        let credited = records
            .iter()
            .filter(|r| r["unit"] == unit && r["sprint"] == sprint && r["to"] == "COMPLETED")
            .count();
        prop_assert_eq!(
            credited,
            1,
            "{} credited {} times\n{}",
            marker,
            credited,
            log
        );
    }
    Ok(())
}

/// Removes the worktrees of the person's own beside a test repository.
struct OwnWorktrees(PathBuf);

impl Drop for OwnWorktrees {
    fn drop(&mut self) {
        let name = self
            .0
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let Some(parent) = self.0.parent() else {
            return;
        };
        if let Ok(entries) = std::fs::read_dir(parent) {
            for e in entries.flatten() {
                if e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{name}-own-"))
                {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
}

proptest! {
    // Each case is a whole run with real processes: a few cases, each
    // different, catch an interleaving the fixed tests do not.
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn observed_work_is_integrated_exactly_once(case in case()) {
        run_case(&case)?;
    }
}

/// A sprint fixed twice by hand, in the person's checkout and then in the
/// unit's worktree (the checkout's commit wakes nothing): both commits
/// reach the integration branch, with hooks or without.
#[test]
fn a_sprint_fixed_in_the_checkout_and_the_unit_worktree_integrates_both() {
    for hooks in [false, true] {
        let case = Case {
            hooks,
            agent_gives_up: [true, true, false, true, false],
            fixes: vec![
                (Place::OwnWorktree, None),
                (Place::OwnWorktree, None),
                (Place::Checkout, Some(Place::UnitWorktree)),
            ],
        };
        if let Err(e) = run_case(&case) {
            panic!("hooks {hooks}: {e}");
        }
    }
}
