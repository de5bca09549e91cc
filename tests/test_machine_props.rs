//! Properties of the pure state machine over random event sequences: the
//! state stays consistent whatever the order of dispatches, verdicts,
//! stops, builds and claims.

use git_supervisor::machine::*;
use git_supervisor::plan::SprintId;
use proptest::prelude::*;

use crate::common::machine::*;
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
    /// The unit's agent met its usage limit, with a reset named or not.
    UsageLimited(usize, bool),
    /// The agent's pause reached its reset.
    LimitEnded,
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
        2 => (0..3usize, any::<bool>()).prop_map(|(u, named)| Op::UsageLimited(u, named)),
        1 => Just(Op::LimitEnded),
    ]
}

const UNITS: [&str; 3] = ["a", "b", "c"];

/// The events an op stands for in `state` (builds look at what is wanted).
fn to_events(op: &Op, state: &State) -> Vec<Event> {
    let wanted = state.build_wanted().unwrap_or_default();
    match op {
        Op::UsageLimited(u, named) => vec![ev(EventKind::UsageLimited {
            unit: UNITS[*u].into(),
            agent: "claude".into(),
            resets_at: named.then(|| "2026-01-01T05:00:00Z".into()),
            met_at: "2026-01-01T00:00:00Z".into(),
            line: "You've hit your limit".into(),
        })],
        Op::LimitEnded => vec![ev(EventKind::LimitEnded {
            agent: "claude".into(),
        })],
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
        Op::UsageLimited(..) | Op::LimitEnded => unreachable!("returned above"),
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
                // A usage limit charges nothing: no sprint's attempts or
                // failures move, and the limited sprint waits, never FATAL.
                if let (EventKind::UsageLimited { unit, .. }, Ok(steps)) = (&event.kind, &result) {
                    if let Some(after) = steps.last().map(|s| &s.state) {
                        for (u0, u1) in before.units.iter().zip(&after.units) {
                            for (s0, s1) in u0.sprints.iter().zip(&u1.sprints) {
                                prop_assert_eq!(
                                    (s0.attempt, s0.total_attempts, s0.failures),
                                    (s1.attempt, s1.total_attempts, s1.failures),
                                    "a usage limit charged {}/{}", u0.name, s0.id
                                );
                            }
                        }
                        let sp = after.unit(unit).and_then(|u| u.current()).expect("limited sprint");
                        prop_assert_eq!(sp.state, SprintStatus::Backoff);
                        prop_assert!(sp.interrupted && sp.limited.is_some());
                        prop_assert_eq!(after.active_limits().count(), 1, "one pause per agent");
                    }
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
