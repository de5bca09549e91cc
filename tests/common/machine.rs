//! The pure state machine's test fixtures: a small plan (a manual and a
//! background sprint, two layers), events built from a few words, and a
//! run of events applied in order.

use git_supervisor::machine::*;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;

pub(crate) const PLAN: &str = "# P

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

pub(crate) fn plan() -> Plan {
    parse(PLAN, &ParseContext::default()).expect("valid plan")
}

pub(crate) fn ev(kind: EventKind) -> Event {
    Event {
        at: "2026-01-01T00:00:00Z".into(),
        kind,
    }
}

pub(crate) fn agent() -> Agent {
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

pub(crate) fn dispatch(unit: &str) -> Event {
    ev(EventKind::Dispatch {
        unit: unit.into(),
        model: Model::Sonnet,
        score: 7,
        rationale: "test".into(),
        agent: agent(),
    })
}

pub(crate) fn verdict(unit: &str, outcome: Outcome) -> Event {
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

pub(crate) fn run(state: &State, events: &[Event]) -> (State, Vec<Transition>) {
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

pub(crate) fn subjects(ts: &[Transition]) -> Vec<String> {
    ts.iter().map(Transition::subject).collect()
}

pub(crate) fn started() -> State {
    let s = State::new(&plan(), "run-1", "Operation Test", 3, 5);
    run(&s, &[ev(EventKind::Start)]).0
}
