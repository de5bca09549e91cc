//! The pure state machine: scenario tests and property tests over random
//! event sequences.

use git_supervisor::machine::*;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;
use git_supervisor::plan::SprintId;
use proptest::prelude::*;

const PLAN: &str = "# P

| Package | Layer |
|---|---|
| a | 0 |
| b | 0 |
| c | 1 |

## a

### Sprint 1: Create a

### Sprint 2: Spot-check a

Type: manual

## b

### Sprint 1: Create b

Type: background

## c

### Sprint 1: Create c

### Sprint 2: Create more c
";

fn plan() -> Plan {
    parse(PLAN, &ParseContext::default()).expect("valid plan")
}

fn ev(kind: EventKind) -> Event {
    Event {
        at: "2026-01-01T00:00:00Z".into(),
        kind,
    }
}

fn agent() -> Agent {
    Agent {
        pid: None,
        log: "log".into(),
        dispatched_at: "2026-01-01T00:00:00Z".into(),
        base_commit: None,
        dirty: vec![],
        files: vec![],
        continuation: false,
        retry_of: None,
        worker: None,
        host: None,
    }
}

fn dispatch(unit: &str) -> Event {
    ev(EventKind::Dispatch {
        unit: unit.into(),
        model: Model::Sonnet,
        score: 7,
        rationale: "test".into(),
        agent: agent(),
    })
}

fn verdict(unit: &str, outcome: Outcome) -> Event {
    ev(EventKind::Verdict {
        unit: unit.into(),
        outcome,
        evidence: "test".into(),
        remaining: vec![],
        commits: vec![],
        turns: None,
        cost: None,
        checks: Vec::new(),
    })
}

fn run(state: &State, events: &[Event]) -> (State, Vec<Transition>) {
    let mut s = state.clone();
    let mut all = Vec::new();
    for e in events {
        let steps = apply(&s, e).unwrap_or_else(|err| panic!("{e:?}: {err}"));
        for step in steps {
            all.push(step.transition);
            s = step.state;
        }
    }
    (s, all)
}

fn subjects(ts: &[Transition]) -> Vec<String> {
    ts.iter().map(Transition::subject).collect()
}

fn started() -> State {
    let s = State::new(&plan(), "run-1", "Operation Test", 3, 5);
    run(&s, &[ev(EventKind::Start)]).0
}

#[test]
fn start_runs_units_without_dependencies() {
    let s = State::new(&plan(), "run-1", "Operation Test", 3, 5);
    let (after, ts) = run(&s, &[ev(EventKind::Start)]);
    assert_eq!(
        subjects(&ts),
        [
            "run: started Operation Test",
            "a: NOT_STARTED -> RUNNING",
            "b: NOT_STARTED -> RUNNING"
        ]
    );
    assert_eq!(
        after.unit("c").map(|u| u.state),
        Some(UnitStatus::NotStarted)
    );
    assert_eq!(dispatchable(&after), ["a", "b"]);
    assert_eq!(
        apply(&after, &ev(EventKind::Start)),
        Err(MachineError::AlreadyStarted)
    );
}

/// A worker's claim carries its name; when its lease lapses the sprint is
/// interrupted, not failed: BACKOFF at once, and its next dispatch runs the
/// same attempt. Only the claim's own worker can lose it.
#[test]
fn a_lapsed_lease_interrupts_the_claim_and_keeps_the_attempt() {
    let s = started();
    let claim = |w: &str| {
        ev(EventKind::AgentStarted {
            unit: "b".into(),
            pid: None,
            worker: Some(w.into()),
        })
    };
    let lapsed = |w: &str| {
        ev(EventKind::LeaseExpired {
            unit: "b".into(),
            worker: w.into(),
        })
    };
    let (s, ts) = run(&s, &[dispatch("b"), claim("host/1")]);
    assert_eq!(ts.last().and_then(|t| t.worker.as_deref()), Some("host/1"));
    // Another worker's lease on it is not this claim's.
    assert!(matches!(
        apply(&s, &lapsed("host/2")),
        Err(MachineError::SprintState { .. })
    ));
    let (s, ts) = run(&s, &[lapsed("host/1")]);
    assert_eq!(subjects(&ts), ["b: sprint 1 RUNNING -> BACKOFF"]);
    let sp = s.unit("b").and_then(|u| u.current()).expect("sprint");
    assert!(sp.interrupted && sp.retry_at.is_none() && sp.agent.is_none());
    assert!(dispatchable_at(&s, "2026-01-01T00:00:00Z").contains(&"b".to_string()));
    let (s, ts) = run(&s, &[dispatch("b"), claim("host/2")]);
    assert_eq!(ts[0].attempt, Some((1, 3)), "{ts:?}");
    let sp = s.unit("b").and_then(|u| u.current()).expect("sprint");
    assert_eq!((sp.attempt, sp.total_attempts, sp.dispatches), (1, 1, 2));
    // A lapse is not a failure: three of them never block the unit.
    let (s, _) = run(
        &s,
        &[
            lapsed("host/2"),
            dispatch("b"),
            claim("host/3"),
            lapsed("host/3"),
        ],
    );
    assert_eq!(s.unit("b").map(|u| u.state), Some(UnitStatus::Running));
}

/// A claim that lapses while its unit is stopping ends the unit, as a
/// failed attempt would: STOPPED, the attempt kept for `resume`. Left
/// STOPPING, no worker would ever claim it and the run would never finish.
#[test]
fn a_lapsed_lease_stops_a_stopping_unit() {
    let claim = ev(EventKind::AgentStarted {
        unit: "b".into(),
        pid: None,
        worker: Some("host/1".into()),
    });
    let lapsed = ev(EventKind::LeaseExpired {
        unit: "b".into(),
        worker: "host/1".into(),
    });
    let (s, _) = run(&started(), &[dispatch("b"), claim, ev(EventKind::Stop)]);
    assert_eq!(s.unit("b").map(|u| u.state), Some(UnitStatus::Stopping));
    let (s, ts) = run(&s, &[lapsed]);
    assert_eq!(
        subjects(&ts),
        ["b: sprint 1 RUNNING -> BACKOFF", "b: STOPPING -> STOPPED"]
    );
    let sp = s.unit("b").and_then(|u| u.current()).expect("sprint");
    assert!(sp.interrupted && sp.attempt == 1, "{sp:?}");
    assert!(!s.units.iter().any(|u| u.state == UnitStatus::Stopping));
}

#[test]
fn the_last_failed_attempt_is_backoff_then_fatal_then_blocked() {
    let s = started();
    let started = |u: &str| {
        ev(EventKind::AgentStarted {
            unit: u.into(),
            pid: Some(1),
            worker: None,
        })
    };
    let events: Vec<Event> = (0..3)
        .flat_map(|_| [dispatch("b"), started("b"), verdict("b", Outcome::Failure)])
        .collect();
    let (after, ts) = run(&s, &events);
    let tail: Vec<String> = subjects(&ts).into_iter().rev().take(3).collect();
    assert_eq!(
        tail,
        [
            "b: RUNNING -> BLOCKED",
            "b: sprint 1 BACKOFF -> FATAL",
            "b: sprint 1 RUNNING -> BACKOFF"
        ]
    );
    let sprint = &after.unit("b").expect("b").sprints[0];
    assert_eq!((sprint.attempt, sprint.total_attempts), (3, 3));
    assert_eq!(ts.iter().filter(|t| t.event == "dispatch").count(), 3);
    assert!(matches!(
        apply(&after, &dispatch("b")),
        Err(MachineError::UnitState { .. })
    ));

    // Resume gives a fresh round and keeps the lifetime total.
    let (resumed, ts) = run(&after, &[ev(EventKind::Resume)]);
    assert_eq!(
        subjects(&ts),
        ["b: sprint 1 FATAL -> PENDING", "b: BLOCKED -> RUNNING"]
    );
    let (again, _) = run(&resumed, &[dispatch("b")]);
    let sprint = &again.unit("b").expect("b").sprints[0];
    assert_eq!((sprint.attempt, sprint.total_attempts), (1, 4));
}

#[test]
fn completing_a_layer_opens_the_next() {
    let s = started();
    let (after, ts) = run(
        &s,
        &[
            dispatch("b"),
            verdict("b", Outcome::Completed),
            dispatch("a"),
            verdict("a", Outcome::Completed),
            dispatch("a"),
            verdict("a", Outcome::Partial),
        ],
    );
    assert!(subjects(&ts).contains(&"b: RUNNING -> COMPLETED".to_string()));
    // a's sprint 2 is manual: it waits in PARTIAL and is not re-dispatched.
    assert_eq!(
        after.unit("a").and_then(|u| u.current()).map(|s| s.state),
        Some(SprintStatus::Partial)
    );
    assert!(!dispatchable(&after).contains(&"a".to_string()));
    assert_eq!(
        after.unit("c").map(|u| u.state),
        Some(UnitStatus::NotStarted)
    );
    let (done, ts) = run(
        &after,
        &[ev(EventKind::Confirm {
            unit: "a".into(),
            sprint: "2".parse().expect("id"),
        })],
    );
    assert_eq!(
        subjects(&ts),
        [
            "a: sprint 2 PARTIAL -> COMPLETED",
            "a: RUNNING -> COMPLETED",
            "c: NOT_STARTED -> RUNNING"
        ]
    );
    assert_eq!(dispatchable(&done), ["c"]);
}

fn usage(unit: &str, dispatch: u32) -> Event {
    ev(EventKind::Usage {
        unit: unit.into(),
        sprint: "1".parse().expect("id"),
        dispatch,
        turns: Some(7),
        cost: Usd::from_dollars(0.25),
        session: Some("sess-1".into()),
    })
}

#[test]
fn usage_after_completion_changes_only_the_sprints_usage() {
    let s = started();
    let (running, _) = run(&s, &[dispatch("b")]);
    // Before the verdict the verdict carries the usage: refused.
    assert!(matches!(
        apply(&running, &usage("b", 1)),
        Err(MachineError::SprintState { .. })
    ));
    let (done, _) = run(&running, &[verdict("b", Outcome::Completed)]);
    // Another dispatch's figures: refused, nothing changes.
    assert!(matches!(
        apply(&done, &usage("b", 2)),
        Err(MachineError::StaleUsage { .. })
    ));
    let steps = apply(&done, &usage("b", 1)).expect("usage of the completing dispatch");
    assert_eq!(steps.len(), 1);
    let t = &steps[0].transition;
    assert_eq!(t.event, "usage");
    assert_eq!(t.change, Change::Run);
    assert_eq!(t.turns, Some(7));
    assert_eq!(t.cost, Usd::from_dollars(0.25));
    assert!(t.why.contains("session sess-1"), "{}", t.why);
    let after = &steps[0].state;
    let b = after.unit("b").expect("b");
    assert_eq!(b.state, UnitStatus::Completed);
    assert_eq!(b.sprints[0].state, SprintStatus::Completed);
    assert_eq!(b.cost(), Usd::from_dollars(0.25).expect("money"));
    // Nothing but the usage and the sequence number moved.
    let mut same = after.clone();
    same.seq = done.seq;
    same.units.iter_mut().for_each(|u| {
        u.sprints.iter_mut().for_each(|sp| sp.cost = Usd::ZERO);
    });
    let mut before = done.clone();
    before.units.iter_mut().for_each(|u| {
        u.sprints.iter_mut().for_each(|sp| sp.cost = Usd::ZERO);
    });
    assert_eq!(same, before);
    assert!(usage_recordable(SprintStatus::Completed));
    assert!(!usage_recordable(SprintStatus::Running));
}

#[test]
fn partial_continuations_are_capped() {
    let s = State::new(&plan(), "r", "o", 3, 1);
    let (s, _) = run(&s, &[ev(EventKind::Start)]);
    let (after, ts) = run(
        &s,
        &[
            dispatch("b"),
            verdict("b", Outcome::Partial),
            dispatch("b"),
            verdict("b", Outcome::Partial),
        ],
    );
    assert_eq!(
        subjects(&ts).last().map(String::as_str),
        Some("b: sprint 1 RUNNING -> BACKOFF")
    );
    assert_eq!(
        after.unit("b").map(|u| u.sprints[0].attempt),
        Some(1),
        "PARTIAL never counts an attempt"
    );
}

#[test]
fn stop_drains_then_force_stop_kills_and_resume_requeues() {
    let s = started();
    let agent = ev(EventKind::AgentStarted {
        unit: "b".into(),
        pid: Some(1),
        worker: None,
    });
    let (s, _) = run(&s, &[dispatch("b"), agent]);
    let (stopping, ts) = run(&s, &[ev(EventKind::Stop)]);
    assert_eq!(
        subjects(&ts),
        [
            "a: RUNNING -> STOPPING",
            "a: STOPPING -> STOPPED",
            "b: RUNNING -> STOPPING"
        ]
    );
    assert!(dispatchable(&stopping).is_empty());
    let (killed, ts) = run(
        &stopping,
        &[ev(EventKind::ForceStop {
            unit: "b".into(),
            uncommitted: vec![],
        })],
    );
    assert_eq!(
        subjects(&ts),
        ["b: sprint 1 RUNNING -> BACKOFF", "b: STOPPING -> KILLED"]
    );
    let (resumed, ts) = run(&killed, &[ev(EventKind::Resume)]);
    assert_eq!(
        subjects(&ts),
        [
            "a: STOPPED -> RUNNING",
            "b: KILLED -> RUNNING",
            "b: sprint 1 BACKOFF -> PENDING"
        ]
    );
    let (again, _) = run(&resumed, &[dispatch("b")]);
    assert_eq!(
        again.unit("b").map(|u| u.sprints[0].attempt),
        Some(1),
        "the interrupted attempt is kept"
    );
}

#[test]
fn killall_assesses_each_unit() {
    let s = started();
    let (s, _) = run(
        &s,
        &[
            dispatch("a"),
            ev(EventKind::AgentStarted {
                unit: "a".into(),
                pid: None,
                worker: None,
            }),
            dispatch("b"),
        ],
    );
    let kill = ev(EventKind::Killall {
        reason: "user invoked killall".into(),
        assessments: vec![
            KillAssessment {
                unit: "a".into(),
                completed: true,
                progress: true,
                uncommitted: vec![],
            },
            KillAssessment {
                unit: "b".into(),
                completed: false,
                progress: false,
                uncommitted: vec!["b/x.rs".into()],
            },
        ],
    });
    let (after, ts) = run(&s, &[kill]);
    assert_eq!(
        subjects(&ts)[1..],
        [
            "a: sprint 1 RUNNING -> COMPLETED",
            "a: RUNNING -> KILLED",
            "b: sprint 1 DISPATCHED -> BACKOFF",
            "b: RUNNING -> KILLED",
            "b: KILLED -> NOT_STARTED"
        ]
    );
    assert_eq!(after.overall(), Overall::Killed);
    assert_eq!(
        after.unit("b").map(|u| u.uncommitted.clone()),
        Some(vec!["b/x.rs".to_string()])
    );
}

#[test]
fn gate_failure_reopens_a_completed_sprint() {
    let s = started();
    let (s, _) = run(&s, &[dispatch("b"), verdict("b", Outcome::Completed)]);
    let fail = ev(EventKind::GateFailed {
        unit: "b".into(),
        sprint: "1".parse().expect("id"),
        detail: "build broke".into(),
    });
    let (after, ts) = run(&s, &[fail]);
    assert_eq!(
        subjects(&ts),
        [
            "b: COMPLETED -> RUNNING",
            "b: sprint 1 COMPLETED -> BACKOFF"
        ]
    );
    assert_eq!(dispatchable(&after), ["a", "b"]);
}

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

/// Issue 15 item 11: a deferred sprint's "not met yet" is a wait, never a
/// failure: no cap, no attempt, the 20th check asks the user.
#[test]
fn a_deferred_wait_never_escalates() {
    let text = "# P\n\n## w\n\n### Sprint 1: Wait for the mirror\n\nType: deferred\n\n## x\n\n### Sprint 1: Create x\n";
    let plan = parse(text, &ParseContext::default()).expect("valid plan");
    let s = State::new(&plan, "run-1", "Operation Test", 3, 2);
    let (mut s, _) = run(&s, &[ev(EventKind::Start)]);
    let not_met = ev(EventKind::Verdict {
        unit: "w".into(),
        outcome: Outcome::Partial,
        evidence: "not met".into(),
        remaining: vec!["the mirror is live".into()],
        commits: vec![],
        turns: None,
        cost: None,
        checks: Vec::new(),
    });
    let mut notices = 0;
    for _ in 0..25 {
        let (after, ts) = run(&s, &[dispatch("w"), not_met.clone()]);
        notices += ts
            .iter()
            .filter(|t| t.why.contains("Still not met after 20 checks"))
            .count();
        s = after;
    }
    let w = s.unit("w").expect("w");
    assert_eq!(w.state, UnitStatus::Running);
    let sp = &w.sprints[0];
    assert_eq!(
        (sp.state, sp.attempt, sp.checks),
        (SprintStatus::Partial, 1, 25)
    );
    assert_eq!(notices, 1);
}

// --- properties -----------------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Dispatch(usize, u8),
    Started(usize),
    Verdict(usize, u8),
    Stop,
    ForceStop(usize),
    Killall(Vec<(bool, bool)>),
    Resume,
    Confirm(usize, usize),
    GateFailed(usize, usize),
    Observed(usize, usize),
    Notice,
    /// The agents' spending reached the budget.
    Budget,
    /// The wanted build passes; with `true`, the first unit it would cover
    /// warns instead.
    BuildPassed(bool),
    /// The wanted build fails and blames the last sprint of its first unit.
    BuildFailed,
    /// The unit's agent left a process running (legal for b's background
    /// sprint only).
    Background(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3usize, 0..3u8).prop_map(|(u, m)| Op::Dispatch(u, m)),
        4 => (0..3usize).prop_map(Op::Started),
        6 => (0..3usize, 0..3u8).prop_map(|(u, o)| Op::Verdict(u, o)),
        3 => (0..3usize).prop_map(Op::Background),
        1 => Just(Op::Stop),
        1 => (0..3usize).prop_map(Op::ForceStop),
        1 => prop::collection::vec((any::<bool>(), any::<bool>()), 3).prop_map(Op::Killall),
        2 => Just(Op::Resume),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::Confirm(u, s)),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::GateFailed(u, s)),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::Observed(u, s)),
        1 => Just(Op::Notice),
        1 => Just(Op::Budget),
        2 => any::<bool>().prop_map(Op::BuildPassed),
        1 => Just(Op::BuildFailed),
    ]
}

const UNITS: [&str; 3] = ["a", "b", "c"];

/// The events an op stands for in `state` (builds look at what is wanted).
fn to_events(op: &Op, state: &State) -> Vec<Event> {
    let wanted = state.build_wanted().unwrap_or_default();
    match op {
        Op::BuildPassed(warn) => {
            let (warned, covers) = if *warn && !wanted.is_empty() {
                (wanted[..1].to_vec(), wanted[1..].to_vec())
            } else {
                (Vec::new(), wanted)
            };
            vec![ev(EventKind::GatePassed {
                phase: 0,
                summary: "p".into(),
                head: "h".into(),
                covers,
                warned,
            })]
        }
        Op::BuildFailed => {
            let mut events = vec![ev(EventKind::BuildFailed {
                phase: 0,
                summary: "p".into(),
                head: "h".into(),
                units: wanted.clone(),
                blamed: "p".into(),
            })];
            if let Some(u) = wanted.first().and_then(|u| state.unit(u)) {
                if let Some(last) = u.sprints.last() {
                    events.push(ev(EventKind::GateFailed {
                        unit: u.name.clone(),
                        sprint: last.id.clone(),
                        detail: "p".into(),
                    }));
                }
            }
            events
        }
        Op::Background(u) => {
            let sprint = state
                .unit(UNITS[*u])
                .and_then(|u| u.active_sprint().or(u.current()))
                .map(|s| s.id.clone())
                .unwrap_or_else(|| "1".parse().expect("id"));
            vec![ev(EventKind::Background {
                unit: UNITS[*u].into(),
                sprint,
                processes: vec![BackgroundProcess {
                    pid: 100 + *u as u32,
                    start: state.seq,
                    command: "server".into(),
                    host: None,
                }],
            })]
        }
        other => vec![to_event(other)],
    }
}

fn to_event(op: &Op) -> Event {
    let id = |s: usize| -> SprintId { (s + 1).to_string().parse().expect("id") };
    ev(match op {
        Op::BuildPassed(_) | Op::BuildFailed | Op::Background(_) => {
            unreachable!("built by to_events")
        }
        Op::Dispatch(u, m) => EventKind::Dispatch {
            unit: UNITS[*u].into(),
            model: [Model::Haiku, Model::Sonnet, Model::Opus][*m as usize],
            score: 5,
            rationale: "p".into(),
            agent: agent(),
        },
        Op::Started(u) => EventKind::AgentStarted {
            unit: UNITS[*u].into(),
            pid: Some(7),
            worker: None,
        },
        Op::Verdict(u, o) => EventKind::Verdict {
            unit: UNITS[*u].into(),
            outcome: [Outcome::Completed, Outcome::Partial, Outcome::Failure][*o as usize],
            evidence: "p".into(),
            remaining: vec![],
            commits: vec![],
            turns: None,
            cost: Some(VERDICT_COST),
            checks: Vec::new(),
        },
        Op::Stop => EventKind::Stop,
        Op::ForceStop(u) => EventKind::ForceStop {
            unit: UNITS[*u].into(),
            uncommitted: vec![],
        },
        Op::Killall(a) => EventKind::Killall {
            reason: "p".into(),
            assessments: a
                .iter()
                .zip(UNITS)
                .map(|((c, p), u)| KillAssessment {
                    unit: u.into(),
                    completed: *c,
                    progress: *p,
                    uncommitted: vec![],
                })
                .collect(),
        },
        Op::Resume => EventKind::Resume,
        Op::Confirm(u, s) => EventKind::Confirm {
            unit: UNITS[*u].into(),
            sprint: id(*s),
        },
        Op::GateFailed(u, s) => EventKind::GateFailed {
            unit: UNITS[*u].into(),
            sprint: id(*s),
            detail: "p".into(),
        },
        Op::Observed(u, s) => EventKind::Observed {
            unit: UNITS[*u].into(),
            sprint: id(*s),
            evidence: "p".into(),
            commits: vec![],
            head: "h".into(),
        },
        Op::Notice => EventKind::Notice {
            unit: None,
            sprint: None,
            text: "p".into(),
        },
        Op::Budget => EventKind::BudgetReached {
            spent: VERDICT_COST,
            budget: VERDICT_COST,
        },
    })
}

/// What every verdict of the property test reports spending.
const VERDICT_COST: Usd = Usd::from_micros(1234);

fn check_state(s: &State, reopened: &[String]) -> Result<(), TestCaseError> {
    for u in &s.units {
        if u.state != UnitStatus::NotStarted {
            // A dependency a failed build reopened after its dependent
            // started is the one exception: the dependent keeps running.
            for d in u.deps.iter().filter(|d| !reopened.contains(d)) {
                let dep = s.unit(d).expect("dependency exists");
                prop_assert_eq!(
                    dep.state,
                    UnitStatus::Completed,
                    "{} is {} while {} is {}",
                    u.name,
                    u.state,
                    d,
                    dep.state
                );
            }
        }
        for sp in &u.sprints {
            prop_assert!(
                sp.attempt <= s.max_retries,
                "attempt {} > {}",
                sp.attempt,
                s.max_retries
            );
            if sp.state == SprintStatus::Fatal {
                prop_assert_eq!(u.state, UnitStatus::Blocked);
            }
            prop_assert_eq!(
                sp.agent.is_some(),
                sp.state.is_active(),
                "agent recorded iff active"
            );
        }
        prop_assert!(
            u.sprints.iter().filter(|s| s.state.is_active()).count() <= 1,
            "one agent per unit"
        );
    }
    check_background(s)
}

/// A background process outlives its agent and never its run: recorded
/// only for a background sprint, it stays recorded once its sprint is
/// COMPLETED (the agent gone) and is not to be ended while the run goes
/// on; it is to be ended as soon as its sprint is neither at work nor
/// COMPLETED, and every one of them once the run has ended — unless
/// `keep_background`, which keeps a completed sprint's.
fn check_background(s: &State) -> Result<(), TestCaseError> {
    let ended = s.run_ended();
    let to_end = s.background_to_end(false);
    let kept = s.background_to_end(true);
    for b in s.background() {
        let sp = s
            .unit(b.unit)
            .and_then(|u| u.sprints.iter().find(|x| &x.id == b.sprint))
            .expect("recorded on a sprint of the plan");
        prop_assert_eq!(sp.task_type, git_supervisor::plan::TaskType::Background);
        let listed = to_end.contains(&b);
        match sp.state {
            SprintStatus::Completed => {
                prop_assert!(sp.agent.is_none(), "a COMPLETED sprint has no agent");
                prop_assert_eq!(listed, ended, "completed: to end iff the run ended");
                prop_assert!(!kept.contains(&b), "keep_background keeps it");
            }
            st if st.is_active() => {
                prop_assert!(!listed && !kept.contains(&b), "its agent is at work");
            }
            _ => prop_assert!(listed && kept.contains(&b), "its sprint did not complete"),
        }
    }
    if ended {
        prop_assert_eq!(to_end.len(), s.background().len(), "never its run");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_event_sequences_keep_the_invariants(
        gates in any::<bool>(),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let fresh = State::new(&plan(), "run-1", "Operation Test", 3, 5);
        let fresh = if gates { fresh.with_gates() } else { fresh };
        let mut state = run(&fresh, &[ev(EventKind::Start)]).0;
        // Units a failed build reopened while a dependent had started.
        let mut reopened: Vec<String> = Vec::new();
        // Verdicts that landed: their dollars are in the sprints' sums.
        let mut verdicts = 0u64;
        for op in &ops {
            for event in to_events(op, &state) {
                let before = state.clone();
                let result = apply(&state, &event);
                if state.budget_reached.is_some() && matches!(event.kind, EventKind::Dispatch { .. }) {
                    prop_assert!(result.is_err(), "a dispatch landed with the budget reached");
                }
                if matches!(event.kind, EventKind::Verdict { .. }) && result.as_ref().is_ok_and(|s| !s.is_empty()) {
                    verdicts += 1;
                }
                let steps = match result {
                    Ok(steps) => steps,
                    Err(e) => {
                        // Every event lands or changes nothing: a refusal
                        // is the same refusal again, and leaves the state.
                        prop_assert_eq!(apply(&state, &event), Err(e));
                        prop_assert_eq!(&state, &before);
                        continue;
                    }
                };
                for step in steps {
                    prop_assert_eq!(step.state.seq, state.seq + 1);
                    match step.transition.change {
                        Change::Unit { from, to } => {
                            prop_assert!(legal_unit(from, to), "{} -> {}", from, to);
                            let name = step.transition.unit.clone().expect("unit");
                            let u = step.state.unit(&name).expect("unit");
                            if from == UnitStatus::NotStarted && to == UnitStatus::Running {
                                // Started only once every dependency is
                                // COMPLETED and a passing build covered it.
                                for d in &u.deps {
                                    prop_assert_eq!(step.state.unit(d).map(|d| d.state), Some(UnitStatus::Completed));
                                    prop_assert!(step.state.dependency_met(d), "{} started before a build covered {}", name, d);
                                }
                            }
                            if from == UnitStatus::Completed && to == UnitStatus::Running {
                                let dependent_started = step.state.units.iter().any(|x| {
                                    x.deps.contains(&name) && x.state != UnitStatus::NotStarted
                                });
                                if dependent_started && !reopened.contains(&name) {
                                    reopened.push(name.clone());
                                }
                            }
                        }
                        Change::Sprint { from, to } => {
                            prop_assert!(legal_sprint(from, to), "{} -> {}", from, to);
                            let name = step.transition.unit.clone().expect("unit");
                            let u = step.state.unit(&name).expect("unit");
                            let id = step.transition.sprint.clone().expect("sprint");
                            if from == SprintStatus::Pending {
                                for earlier in u.sprints.iter().take_while(|s| s.id != id) {
                                    prop_assert_eq!(earlier.state, SprintStatus::Completed, "sprint {} left PENDING early", id);
                                }
                            }
                            if to == SprintStatus::Dispatched {
                                // No unit is dispatched before its
                                // dependencies completed and were built.
                                for d in u.deps.iter().filter(|d| !reopened.contains(d)) {
                                    prop_assert!(step.state.dependency_met(d), "{} dispatched before {} was met", name, d);
                                }
                            }
                        }
                        Change::Run => {}
                    }
                    state = step.state;
                }
                // The ref only ever points at an event's last step: that is
                // the state anyone can observe, so that is where the
                // invariants hold.
                check_state(&state, &reopened)?;
                // What a background sprint's agent left running stays
                // recorded through the verdict that completes the sprint.
                for (u, v) in before.units.iter().zip(&state.units) {
                    for (a, b) in u.sprints.iter().zip(&v.sprints) {
                        if (a.state.is_active() && !a.background.is_empty()) && b.state == SprintStatus::Completed {
                            prop_assert_eq!(&a.background, &b.background, "the record outlives the agent");
                        }
                    }
                }
                prop_assert_eq!(state.cost().micros(), verdicts * VERDICT_COST.micros());
                // A blocked (or otherwise unfinished) unit never keeps a unit
                // that does not depend on it from starting.
                let paused = state.kill.is_some()
                    || state.budget_reached.is_some()
                    || state.units.iter().any(|u| {
                        matches!(u.state, UnitStatus::Stopping | UnitStatus::Stopped | UnitStatus::Killed)
                    });
                if !paused {
                    for u in state.units.iter().filter(|u| u.state == UnitStatus::NotStarted) {
                        prop_assert!(
                            !u.deps.iter().all(|d| state.dependency_met(d)),
                            "{} is NOT_STARTED although every dependency is met",
                            u.name
                        );
                    }
                }
            }
        }
        // state.toml round-trips.
        let text = toml::to_string(&state).expect("serializes");
        let back: State = toml::from_str(&text).expect("parses back");
        prop_assert_eq!(back, state);
    }
}

/// Stopped before any agent started on it (no worker claimed it): the
/// sprint waits in BACKOFF with its attempt kept and the unit is STOPPED,
/// not KILLED; one whose agent ran is KILLED as before.
#[test]
fn a_force_stop_before_any_agent_started_stops_the_unit() {
    let s = started();
    let (s, _) = run(&s, &[dispatch("b"), ev(EventKind::Stop)]);
    assert_eq!(s.unit("b").map(|u| u.state), Some(UnitStatus::Stopping));
    let force = |u: &str| {
        ev(EventKind::ForceStop {
            unit: u.into(),
            uncommitted: Vec::new(),
        })
    };
    let (s, ts) = run(&s, &[force("b")]);
    assert_eq!(
        subjects(&ts),
        [
            "b: sprint 1 DISPATCHED -> BACKOFF",
            "b: STOPPING -> STOPPED"
        ]
    );
    let sp = s.unit("b").and_then(|u| u.current()).expect("sprint");
    assert!(sp.interrupted && sp.agent.is_none());
    assert_eq!(sp.attempt, 1);
    let (s, ts) = run(&s, &[ev(EventKind::Resume), dispatch("b")]);
    assert!(ts.iter().any(|t| t.attempt == Some((1, 3))), "{ts:?}");
    assert_eq!(s.unit("b").map(|u| u.state), Some(UnitStatus::Running));

    // A claimed sprint whose agent ran is force-terminated: KILLED.
    let s = started();
    let claim = ev(EventKind::AgentStarted {
        unit: "b".into(),
        pid: None,
        worker: Some("host/1".into()),
    });
    let (s, _) = run(&s, &[dispatch("b"), claim, ev(EventKind::Stop), force("b")]);
    assert_eq!(s.unit("b").map(|u| u.state), Some(UnitStatus::Killed));
}

/// Every event a clone may have to decide again elsewhere survives its
/// record (`event.toml`) unchanged: `sync` replays what it reads back.
#[test]
fn every_recorded_event_reads_back_as_written() {
    let s1: SprintId = "1".parse().expect("id");
    let usd = Usd::from_dollars(1.25);
    let mut busy = agent();
    busy.pid = Some(42);
    busy.base_commit = Some("abc".into());
    busy.dirty = vec![DirtyFile {
        path: "a/x".into(),
        hash: "123".into(),
    }];
    busy.files = vec!["a/x".into()];
    busy.continuation = true;
    busy.retry_of = Some(2);
    busy.worker = Some("host/1".into());
    let kinds = vec![
        EventKind::Start,
        EventKind::Dispatch {
            unit: "a".into(),
            model: Model::Opus,
            score: -3,
            rationale: "why \"quoted\"\nand more".into(),
            agent: busy,
        },
        EventKind::Dispatch {
            unit: "a".into(),
            model: Model::Haiku,
            score: 0,
            rationale: String::new(),
            agent: agent(),
        },
        EventKind::AgentStarted {
            unit: "a".into(),
            pid: Some(7),
            worker: None,
        },
        EventKind::AgentStarted {
            unit: "a".into(),
            pid: None,
            worker: Some("h/2".into()),
        },
        EventKind::LeaseExpired {
            unit: "a".into(),
            worker: "h/2".into(),
        },
        EventKind::Verdict {
            unit: "a".into(),
            outcome: Outcome::Partial,
            evidence: "e".into(),
            remaining: vec!["r".into()],
            commits: vec!["c1".into(), "c2".into()],
            turns: Some(12),
            cost: usd,
            checks: Vec::new(),
        },
        EventKind::Verdict {
            unit: "a".into(),
            outcome: Outcome::Failure,
            evidence: String::new(),
            remaining: vec![],
            commits: vec![],
            turns: None,
            cost: None,
            checks: Vec::new(),
        },
        EventKind::BudgetReached {
            spent: usd.expect("usd"),
            budget: usd.expect("usd"),
        },
        EventKind::Stop,
        EventKind::ForceStop {
            unit: "b".into(),
            uncommitted: vec!["b/y".into()],
        },
        EventKind::BuildStarted {
            phase: 1,
            units: vec!["a".into()],
        },
        EventKind::GatePassed {
            phase: 1,
            summary: "s".into(),
            head: "h".into(),
            covers: vec!["a".into()],
            warned: vec![],
        },
        EventKind::BuildFailed {
            phase: 2,
            summary: "s".into(),
            head: "h".into(),
            units: vec!["a".into()],
            blamed: "b".into(),
        },
        EventKind::Killall {
            reason: "r".into(),
            assessments: vec![KillAssessment {
                unit: "a".into(),
                completed: true,
                progress: false,
                uncommitted: vec!["f".into()],
            }],
        },
        EventKind::Resume,
        EventKind::Confirm {
            unit: "a".into(),
            sprint: "2".parse().expect("id"),
        },
        EventKind::Observed {
            unit: "a".into(),
            sprint: s1.clone(),
            evidence: "e".into(),
            commits: vec!["c".into()],
            head: "h".into(),
        },
        EventKind::GateFailed {
            unit: "a".into(),
            sprint: s1.clone(),
            detail: "d".into(),
        },
        EventKind::Needs {
            needs: vec![Need {
                unit: "a".into(),
                text: "t".into(),
            }],
            rulings: Vec::new(),
        },
        EventKind::Usage {
            unit: "a".into(),
            sprint: s1.clone(),
            dispatch: 3,
            turns: None,
            cost: usd,
            session: Some("sess".into()),
        },
        EventKind::Notice {
            unit: None,
            sprint: Some(s1),
            text: "n".into(),
        },
    ];
    for kind in kinds {
        let record = git_supervisor::store::RecordedEvent {
            name: kind.name().into(),
            at: "2026-01-01T00:00:00Z".into(),
            kind: Some(kind),
        };
        let text = toml::to_string(&record).unwrap_or_else(|e| panic!("{record:?}: {e}"));
        let back: git_supervisor::store::RecordedEvent =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, record, "{text}");
    }
}

/// b's background sprint: the process its agent left is recorded before
/// the verdict, stays recorded after it, is not to be ended while the run
/// goes on, and is once the run is stopped (unless kept). A code sprint
/// records none.
#[test]
fn a_background_record_outlives_its_agent_and_ends_with_the_run() {
    let server = BackgroundProcess {
        pid: 4242,
        start: 99,
        command: "sleep 300".into(),
        host: None,
    };
    let record = |unit: &str| {
        ev(EventKind::Background {
            unit: unit.into(),
            sprint: "1".parse().expect("id"),
            processes: vec![server.clone()],
        })
    };
    let s = started();
    let (s, ts) = run(&s, &[dispatch("b"), record("b")]);
    assert_eq!(
        ts.last().map(|t| t.why.as_str()),
        Some("Its agent exited and left a process running: pid 4242 (`sleep 300`).")
    );
    let (s, _) = run(&s, &[verdict("b", Outcome::Completed)]);
    let sp = s.unit("b").map(|u| &u.sprints[0]).expect("b");
    assert_eq!(sp.state, SprintStatus::Completed);
    assert_eq!(sp.background, std::slice::from_ref(&server));
    assert!(!s.run_ended() && s.background_to_end(false).is_empty());
    let (s, _) = run(&s, &[ev(EventKind::Stop)]);
    assert!(s.run_ended());
    assert_eq!(s.background_to_end(false).len(), 1);
    assert!(s.background_to_end(true).is_empty());
    // Only a background sprint's agent leaves processes to keep.
    let s = started();
    let (s, _) = run(&s, &[dispatch("a")]);
    assert!(apply(&s, &record("a")).is_err());
}
