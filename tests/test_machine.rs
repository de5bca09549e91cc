//! The pure state machine: scenario tests (the properties over random
//! event sequences are in `test_machine_props.rs`).

use git_supervisor::machine::*;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::SprintId;

use crate::common::machine::*;
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
