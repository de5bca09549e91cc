//! Inputs that once broke something, kept so they never do again.

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;

/// Lower-casing `Ⱥ` grows it from two bytes to three: byte offsets found in
/// lower-cased text must not be used to slice the original.
#[test]
fn depends_on_text_after_a_growing_lowercase_char() {
    let text = "## a\nȺȺȺ Depends on: b, c\n### Sprint 1: x\n## b\n### Sprint 1: y\n";
    let _ = parse(text, &ParseContext::default());
    let text = "## a\nȺ depends on b.\n### Sprint 1: x\n## b\n### Sprint 1: y\n";
    let plan = parse(text, &ParseContext::default()).expect("valid plan");
    assert_eq!(
        plan.unit("a").map(|u| u.deps.clone()),
        Some(vec!["b".to_string()])
    );
}

/// A run whose only remaining work is a due phase build is still running:
/// `wait` once returned "blocked" before the gate had run.
#[test]
fn a_due_phase_gate_keeps_the_run_running() {
    use git_supervisor::machine::*;
    let plan = parse(
        "# P\n\n| Package | Layer |\n|---|---|\n| a | 0 |\n| b | 1 |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: y\n",
        &ParseContext::default(),
    )
    .expect("plan");
    let state = State::new(&plan, "r", "o", 3, 5).with_gates();
    let ev = |kind| Event {
        at: "t".into(),
        kind,
    };
    let mut s = state;
    for e in [
        ev(EventKind::Start),
        ev(EventKind::Dispatch {
            unit: "a".into(),
            model: Model::Haiku,
            score: 1,
            rationale: "r".into(),
            agent: Agent {
                pid: None,
                log: "l".into(),
                dispatched_at: "t".into(),
                base_commit: None,
                dirty: vec![],
                files: vec![],
                continuation: false,
                retry_of: None,
                worker: None,
                host: None,
            },
        }),
        ev(EventKind::Verdict {
            unit: "a".into(),
            outcome: Outcome::Completed,
            evidence: "e".into(),
            remaining: vec![],
            commits: vec![],
            turns: None,
            cost: None,
            checks: Vec::new(),
        }),
    ] {
        s = apply(&s, &e).expect("applies").pop().expect("a step").state;
    }
    assert_eq!(
        s.unit("b").map(|u| u.state),
        Some(UnitStatus::NotStarted),
        "b waits for the gate"
    );
    assert_eq!(s.build_due(), Some(vec!["a".to_string()]));
    assert_eq!(s.overall(), Overall::Running);
    assert!(!s.is_finished());
}
