//! The pure state machine around coordinated builds: a unit waits for its
//! own dependencies and a build that covers them; a failed build reopens
//! the unit it blames; a warning keeps dependents waiting.

use git_supervisor::machine::*;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;

use crate::common::machine::*;

/// a and b in layer 0; c in layer 1 depends on b only (explicit wins).
const OWN_DEPS: &str = "# P

| Package | Layer |
|---|---|
| a | 0 |
| b | 0 |
| c | 1 |

## a

### Sprint 1: Create a

## b

### Sprint 1: Create b

Type: background

## c

Dependencies: b

### Sprint 1: Create c
";

fn gated(text: &str) -> State {
    let plan = parse(text, &ParseContext::default()).expect("valid plan");
    let s = State::new(&plan, "run-1", "Operation Test", 3, 5).with_gates();
    run(&s, &[ev(EventKind::Start)]).0
}

fn build_passed(covers: &[&str], warned: &[&str]) -> Event {
    ev(EventKind::GatePassed {
        phase: 0,
        summary: "CHECKPOINT-001.md: pass.".into(),
        head: "h1".into(),
        covers: covers.iter().map(|u| u.to_string()).collect(),
        warned: warned.iter().map(|u| u.to_string()).collect(),
    })
}

fn unit_of(s: &State, name: &str) -> UnitStatus {
    s.unit(name).expect("unit").state
}

/// Issue 15 item 1: a blocked unit holds back only what depends on it; a
/// dependent waits for a passing build that covers its own dependencies.
#[test]
fn a_unit_waits_for_its_own_dependencies_only() {
    let s = gated(OWN_DEPS);
    let fail = [dispatch("a"), verdict("a", Outcome::Failure)];
    let (s, _) = run(&s, &[fail.clone(), fail.clone(), fail].concat());
    assert_eq!(unit_of(&s, "a"), UnitStatus::Blocked);
    let (s, _) = run(&s, &[dispatch("b"), verdict("b", Outcome::Completed)]);
    assert_eq!(
        unit_of(&s, "c"),
        UnitStatus::NotStarted,
        "c waits for a build"
    );
    assert_eq!(s.build_due(), Some(vec!["b".to_string()]));
    assert_eq!(s.overall(), Overall::Running);
    let (s, ts) = run(&s, &[build_passed(&["b"], &[])]);
    assert_eq!(
        subjects(&ts)[1..],
        ["c: NOT_STARTED -> RUNNING"],
        "{:?}",
        subjects(&ts)
    );
    assert!(
        ts[1].why.contains("passing build covered them"),
        "{}",
        ts[1].why
    );
    assert_eq!(unit_of(&s, "c"), UnitStatus::Running);
    // c completes; no unit waits on it and a is blocked: no build is due.
    let (s, _) = run(&s, &[dispatch("c"), verdict("c", Outcome::Completed)]);
    assert_eq!(s.build_due(), None);
    assert_eq!(s.overall(), Overall::Blocked);
}

/// Issue 15 item 1: completions during a build are covered by the next one.
#[test]
fn a_build_covers_only_the_work_it_built() {
    let s = gated(OWN_DEPS);
    let (s, _) = run(&s, &[dispatch("b"), verdict("b", Outcome::Completed)]);
    let (s, _) = run(
        &s,
        &[
            ev(EventKind::BuildStarted {
                phase: 0,
                units: vec!["b".into()],
            }),
            dispatch("a"),
            verdict("a", Outcome::Completed),
            build_passed(&["b"], &[]),
        ],
    );
    assert!(s.unit("b").expect("b").built);
    assert!(
        !s.unit("a").expect("a").built,
        "a completed during the build"
    );
    assert_eq!(unit_of(&s, "c"), UnitStatus::Running);
    let (s, _) = run(&s, &[dispatch("c"), verdict("c", Outcome::Completed)]);
    assert_eq!(s.overall(), Overall::Running, "the final build is due");
    assert_eq!(s.build_due(), Some(vec!["a".to_string(), "c".to_string()]));
    let (s, _) = run(&s, &[build_passed(&["a", "c"], &[])]);
    assert_eq!(s.overall(), Overall::Completed);
}

/// Issue 15 item 2: a failed build blaming a unit whose dependent started
/// lands: the sprint goes back to BACKOFF, the dependent keeps running.
#[test]
fn a_failed_build_reopens_a_unit_whose_dependent_started() {
    let s = gated(OWN_DEPS);
    let (s, _) = run(
        &s,
        &[
            dispatch("b"),
            verdict("b", Outcome::Completed),
            build_passed(&["b"], &[]),
            dispatch("c"),
        ],
    );
    let (s, ts) = run(
        &s,
        &[ev(EventKind::GateFailed {
            unit: "b".into(),
            sprint: "1".parse().expect("id"),
            detail: "build broke".into(),
        })],
    );
    assert_eq!(
        subjects(&ts),
        [
            "b: COMPLETED -> RUNNING",
            "b: sprint 1 COMPLETED -> BACKOFF"
        ]
    );
    assert!(ts[0].why.contains("(c) keep running"), "{}", ts[0].why);
    assert_eq!(unit_of(&s, "c"), UnitStatus::Running);
    assert_eq!(dispatchable(&s), ["a", "b"]);
}

/// Issue 15 item 2: a failed build whose blame could not land is not due
/// again for the same work: nothing loops on it.
#[test]
fn a_failed_build_is_not_due_again_for_the_same_work() {
    let s = gated(OWN_DEPS);
    let (s, _) = run(&s, &[dispatch("b"), verdict("b", Outcome::Completed)]);
    let (s, ts) = run(
        &s,
        &[ev(EventKind::BuildFailed {
            phase: 0,
            summary: "CHECKPOINT-001.md: block.".into(),
            head: "h1".into(),
            units: vec!["b".into()],
            blamed: "b Sprint 1".into(),
        })],
    );
    assert_eq!(
        subjects(&ts),
        ["run: ❌ Build failed", "run: phase 0 build failed"]
    );
    assert_eq!(s.build_wanted(), Some(vec!["b".to_string()]));
    assert_eq!(s.build_due(), None);
    // resume runs it again.
    let (s, _) = run(&s, &[ev(EventKind::Resume)]);
    assert_eq!(s.build_due(), Some(vec!["b".to_string()]));
}

/// Issue 15 item 2: new work on a unit a failed build blamed is built
/// again, and a run whose build is running is not over.
#[test]
fn a_redone_unit_is_built_again_and_a_running_build_keeps_the_run_running() {
    let s = gated(OWN_DEPS);
    let (s, _) = run(
        &s,
        &[
            dispatch("b"),
            verdict("b", Outcome::Completed),
            ev(EventKind::BuildFailed {
                phase: 0,
                summary: "CHECKPOINT-001.md: block.".into(),
                head: "h1".into(),
                units: vec!["b".into()],
                blamed: "b Sprint 1".into(),
            }),
            ev(EventKind::GateFailed {
                unit: "b".into(),
                sprint: "1".parse().expect("id"),
                detail: "build broke".into(),
            }),
            dispatch("b"),
            verdict("b", Outcome::Completed),
        ],
    );
    assert_eq!(s.build_due(), Some(vec!["b".to_string()]), "new work");
    // The same work's build failed (its blame could not land) and the
    // engine runs it again for new commits: while it runs, the run is not
    // over even though the state alone would call it stuck.
    let fail = [dispatch("a"), verdict("a", Outcome::Failure)];
    let (s, _) = run(
        &s,
        &[
            fail.to_vec(),
            fail.to_vec(),
            fail.to_vec(),
            vec![ev(EventKind::BuildFailed {
                phase: 0,
                summary: "CHECKPOINT-002.md: block.".into(),
                head: "h2".into(),
                units: vec!["b".into()],
                blamed: "b Sprint 1".into(),
            })],
        ]
        .concat(),
    );
    assert_eq!(unit_of(&s, "a"), UnitStatus::Blocked);
    assert_eq!(s.build_due(), None);
    assert_eq!(s.overall(), Overall::Blocked);
    let (s, _) = run(
        &s,
        &[ev(EventKind::BuildStarted {
            phase: 0,
            units: vec!["b".into()],
        })],
    );
    assert_eq!(s.overall(), Overall::Running, "the build is still running");
}

/// Issue 15 item 3: a build that passed while a dependency's exit criterion
/// now fails (`warn`) keeps the dependents NOT_STARTED until resolved.
#[test]
fn a_warning_build_keeps_dependents_not_started() {
    let s = gated(OWN_DEPS);
    let (s, _) = run(
        &s,
        &[
            dispatch("b"),
            verdict("b", Outcome::Completed),
            dispatch("a"),
            verdict("a", Outcome::Completed),
        ],
    );
    let (s, _) = run(&s, &[build_passed(&["a"], &["b"])]);
    assert_eq!(unit_of(&s, "c"), UnitStatus::NotStarted);
    assert!(!s.unit("b").expect("b").built);
    assert_eq!(s.build_due(), None, "not re-run for the same work");
    assert_eq!(s.overall(), Overall::Blocked);
    let (s, _) = run(&s, &[ev(EventKind::Resume)]);
    assert_eq!(s.build_due(), Some(vec!["b".to_string()]));
    let (s, _) = run(&s, &[build_passed(&["b"], &[])]);
    assert_eq!(unit_of(&s, "c"), UnitStatus::Running);
}
