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

#[test]
fn the_last_failed_attempt_is_backoff_then_fatal_then_blocked() {
    let s = started();
    let started = |u: &str| {
        ev(EventKind::AgentStarted {
            unit: u.into(),
            pid: Some(1),
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
    let (s, _) = run(&s, &[dispatch("b")]);
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
        ["b: sprint 1 DISPATCHED -> BACKOFF", "b: STOPPING -> KILLED"]
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
    Budget,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3usize, 0..3u8).prop_map(|(u, m)| Op::Dispatch(u, m)),
        4 => (0..3usize).prop_map(Op::Started),
        6 => (0..3usize, 0..3u8).prop_map(|(u, o)| Op::Verdict(u, o)),
        1 => Just(Op::Stop),
        1 => (0..3usize).prop_map(Op::ForceStop),
        1 => prop::collection::vec((any::<bool>(), any::<bool>()), 3).prop_map(Op::Killall),
        2 => Just(Op::Resume),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::Confirm(u, s)),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::GateFailed(u, s)),
        1 => (0..3usize, 0..2usize).prop_map(|(u, s)| Op::Observed(u, s)),
        1 => Just(Op::Notice),
        1 => Just(Op::Budget),
    ]
}

const UNITS: [&str; 3] = ["a", "b", "c"];

fn to_event(op: &Op) -> Event {
    let id = |s: usize| -> SprintId { (s + 1).to_string().parse().expect("id") };
    ev(match op {
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
        },
        Op::Verdict(u, o) => EventKind::Verdict {
            unit: UNITS[*u].into(),
            outcome: [Outcome::Completed, Outcome::Partial, Outcome::Failure][*o as usize],
            evidence: "p".into(),
            remaining: vec![],
            commits: vec![],
            turns: None,
            cost: Some(VERDICT_COST),
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

fn check_state(s: &State) -> Result<(), TestCaseError> {
    for u in &s.units {
        if u.state != UnitStatus::NotStarted {
            for d in &u.deps {
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
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_event_sequences_keep_the_invariants(ops in prop::collection::vec(op(), 1..80)) {
        let mut state = started();
        let mut verdicts = 0u64;
        for op in &ops {
            let event = to_event(op);
            let result = apply(&state, &event);
            if state.budget_reached.is_some() && matches!(op, Op::Dispatch(..)) {
                prop_assert!(result.is_err(), "a dispatch landed with the budget reached");
            }
            let Ok(steps) = result else { continue };
            if matches!(op, Op::Verdict(..)) && !steps.is_empty() {
                verdicts += 1;
            }
            for step in steps {
                prop_assert_eq!(step.state.seq, state.seq + 1);
                match step.transition.change {
                    Change::Unit { from, to } => {
                        prop_assert!(legal_unit(from, to), "{} -> {}", from, to);
                        if from == UnitStatus::NotStarted && to == UnitStatus::Running {
                            let u = step.state.unit(step.transition.unit.as_deref().expect("unit")).expect("unit");
                            for d in &u.deps {
                                prop_assert_eq!(step.state.unit(d).map(|d| d.state), Some(UnitStatus::Completed));
                            }
                        }
                    }
                    Change::Sprint { from, to } => {
                        prop_assert!(legal_sprint(from, to), "{} -> {}", from, to);
                        let u = step.state.unit(step.transition.unit.as_deref().expect("unit")).expect("unit");
                        let id = step.transition.sprint.clone().expect("sprint");
                        if from == SprintStatus::Pending {
                            for earlier in u.sprints.iter().take_while(|s| s.id != id) {
                                prop_assert_eq!(earlier.state, SprintStatus::Completed, "sprint {} left PENDING early", id);
                            }
                        }
                    }
                    Change::Run => {}
                }
                state = step.state;
            }
            // The ref only ever points at an event's last step: that is the
            // state anyone can observe, so that is where the invariants hold.
            check_state(&state)?;
            // Every landed verdict's dollars are in the sprints' sums.
            prop_assert_eq!(state.cost().micros(), verdicts * VERDICT_COST.micros());
        }
        // state.toml round-trips.
        let text = toml::to_string(&state).expect("serializes");
        let back: State = toml::from_str(&text).expect("parses back");
        prop_assert_eq!(back, state);
    }
}
