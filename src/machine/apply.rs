//! Events and `apply`: the only way state changes.
//!
//! `apply(&State, &Event)` returns the event's transitions as a list of
//! [`Step`]s, each carrying the state *after* it, so the store can write one
//! commit per step and publish them together. Every step is one edge of the
//! transition tables ([`legal_unit`], [`legal_sprint`]); states are never
//! skipped, so a failure on the last attempt is two steps (RUNNING → BACKOFF,
//! BACKOFF → FATAL) followed by the unit's RUNNING → BLOCKED. Illegal events
//! are [`MachineError`]s, never panics. Pure: no I/O, clock or randomness —
//! the time an event happened comes in the event.

use serde::Serialize;

use super::cost::Usd;
use super::state::Agent;
use super::state::Kill;
use super::state::Model;
use super::state::SprintStatus;
use super::state::State;
use super::state::UnitStatus;
use crate::plan::SprintId;
use crate::plan::TaskType;

/// What verification concluded about an agent's work (design §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Completed,
    Partial,
    Failure,
}

/// killall's verdict on one unit (spec §Q step 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KillAssessment {
    pub unit: String,
    /// Verification says the interrupted sprint is done.
    pub completed: bool,
    /// Anything in scope moved (a commit or a progress-file change).
    pub progress: bool,
    pub uncommitted: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The run begins: units without dependencies become RUNNING.
    Start,
    /// An agent was launched for a unit's current sprint.
    Dispatch {
        unit: String,
        model: Model,
        score: i32,
        rationale: String,
        agent: Agent,
    },
    /// The wrapper has started the agent process (DISPATCHED → RUNNING).
    AgentStarted { unit: String, pid: Option<u32> },
    /// Verification of an agent's (or observed) work.
    Verdict {
        unit: String,
        outcome: Outcome,
        evidence: String,
        /// Work still missing (failing criteria), for a continuation.
        remaining: Vec<String>,
        /// The commits in the sprint's scope.
        commits: Vec<String>,
        /// Turns the agent reported, when it did.
        turns: Option<u64>,
        /// Dollars the agent reported spending on this dispatch.
        cost: Option<Usd>,
    },
    /// The agents' reported spending reached `run.budget_usd`: units stop
    /// as on `stop` (running agents finish), and no new dispatch starts
    /// until `resume`.
    BudgetReached { spent: Usd, budget: Usd },
    /// Graceful stop, phase 1 (drain).
    Stop,
    /// Graceful stop, phase 3: the unit's agent was terminated.
    ForceStop {
        unit: String,
        uncommitted: Vec<String>,
    },
    /// A phase gate's build passed (the checkpoint is in the same commit).
    GatePassed { phase: u32, summary: String },
    /// Emergency stop: every agent terminated, units assessed.
    Killall {
        reason: String,
        assessments: Vec<KillAssessment>,
    },
    /// Pick up stopped, killed and blocked units.
    Resume,
    /// A person confirms a manual sprint.
    Confirm { unit: String, sprint: SprintId },
    /// History shows the unit's current sprint done (a trailer-marked commit
    /// whose exit criteria pass) although no agent of ours finished it:
    /// observed state wins, without another dispatch.
    Observed {
        unit: String,
        sprint: SprintId,
        evidence: String,
        commits: Vec<String>,
        /// The branch tip reconciled up to.
        head: String,
    },
    /// A phase gate's build failed and blames this COMPLETED sprint.
    GateFailed {
        unit: String,
        sprint: SprintId,
        detail: String,
    },
    /// The plan was edited and re-planned: the new plan's units and sprints
    /// (in plan order). Added sprints are PENDING, added units NOT_STARTED;
    /// removing or renumbering a sprint an agent is working on is refused.
    Replan { plan: Box<crate::plan::Plan> },
    /// The progress files' cross-unit needs changed: the new registry.
    Needs { needs: Vec<super::state::Need> },
    /// Something worth recording that changes no state (unresponsive agent,
    /// deferred check still failing, a gate that passed).
    Notice {
        unit: Option<String>,
        sprint: Option<SprintId>,
        text: String,
    },
}

/// An event with the time it happened (ISO 8601).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub at: String,
    pub kind: EventKind,
}

impl EventKind {
    /// The `Supervisor-Event` trailer value.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Start => "start",
            EventKind::Dispatch { .. } => "dispatch",
            EventKind::AgentStarted { .. } => "agent-started",
            EventKind::Verdict { .. } => "verdict",
            EventKind::Stop => "stop",
            EventKind::ForceStop { .. } => "force-stop",
            EventKind::Killall { .. } => "killall",
            EventKind::Resume => "resume",
            EventKind::Confirm { .. } => "confirm",
            EventKind::Observed { .. } => "observed",
            EventKind::GateFailed { .. } => "gate-failed",
            EventKind::GatePassed { .. } => "gate-passed",
            EventKind::Notice { .. } => "notice",
            EventKind::Replan { .. } => "replan",
            EventKind::Needs { .. } => "needs",
            EventKind::BudgetReached { .. } => "budget",
        }
    }
}

/// What changed in one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Unit {
        from: UnitStatus,
        to: UnitStatus,
    },
    Sprint {
        from: SprintStatus,
        to: SprintStatus,
    },
    /// A run-level record: no state name changes.
    Run,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub event: &'static str,
    pub unit: Option<String>,
    pub sprint: Option<SprintId>,
    pub change: Change,
    /// One or two sentences: why this happened.
    pub why: String,
    /// `(attempt, max_retries)` for sprint steps.
    pub attempt: Option<(u32, u32)>,
    pub model: Option<Model>,
    /// Turns the agent reported for the dispatch a verdict ends.
    pub turns: Option<u64>,
    /// Dollars the agent reported for the dispatch a verdict ends.
    pub cost: Option<Usd>,
    pub at: String,
}

impl Transition {
    /// The commit subject: `<unit>: sprint <id> <FROM> -> <TO>`,
    /// `<unit>: <FROM> -> <TO>` or `run: <event>`.
    pub fn subject(&self) -> String {
        match (&self.change, &self.unit, &self.sprint) {
            (Change::Sprint { from, to }, Some(u), Some(s)) => {
                format!("{u}: sprint {s} {from} -> {to}")
            }
            (Change::Unit { from, to }, Some(u), _) => format!("{u}: {from} -> {to}"),
            _ => format!("run: {}", self.why_subject()),
        }
    }

    /// The first sentence of `why`, cut at a word boundary to fit a subject.
    fn why_subject(&self) -> String {
        let first = self
            .why
            .split(". ")
            .next()
            .unwrap_or(self.event)
            .trim_end_matches('.');
        let first = if first.is_empty() { self.event } else { first };
        if first.chars().count() <= 64 {
            return first.to_string();
        }
        let mut out = String::new();
        for word in first.split_whitespace() {
            if out.chars().count() + word.chars().count() + 1 > 63 {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        out.push('…');
        out
    }
}

/// One transition and the state after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub transition: Transition,
    pub state: State,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    #[error("the run has already started")]
    AlreadyStarted,
    #[error("the run has not started")]
    NotStarted,
    #[error("no work unit named `{0}`")]
    UnknownUnit(String),
    #[error("work unit `{0}` has no sprint {1}")]
    UnknownSprint(String, SprintId),
    #[error("work unit `{unit}` is {state}; {needed}")]
    UnitState {
        unit: String,
        state: UnitStatus,
        needed: &'static str,
    },
    #[error("sprint {sprint} of `{unit}` is {state}; {needed}")]
    SprintState {
        unit: String,
        sprint: SprintId,
        state: SprintStatus,
        needed: &'static str,
    },
    #[error("work unit `{0}` has every sprint COMPLETED")]
    NothingLeft(String),
    #[error(
        "sprint {sprint} of `{unit}` is a {task_type} sprint; only manual sprints are confirmed"
    )]
    NotManual {
        unit: String,
        sprint: SprintId,
        task_type: TaskType,
    },
    #[error("the edited plan {0}")]
    Replan(String),
    #[error("phase {0} has no pending gate")]
    NoGate(u32),
    #[error("cannot reopen `{unit}`: `{dependent}` depends on it and has already started")]
    DependentStarted { unit: String, dependent: String },
}

/// Unit edges: spec §D-19, the procedures' extra edges (STOPPING → KILLED,
/// RUNNING → KILLED, KILLED → NOT_STARTED), STOPPING → BLOCKED (a stopping
/// unit's last attempt fails) and COMPLETED → RUNNING (a phase gate reopens a
/// unit whose sprint it blames).
pub fn legal_unit(from: UnitStatus, to: UnitStatus) -> bool {
    use UnitStatus::*;
    matches!(
        (from, to),
        (NotStarted, Running)
            | (Running, Completed)
            | (Running, Stopping)
            | (Running, Blocked)
            | (Stopping, Stopped)
            | (Stopped, Running)
            | (Blocked, Running)
            | (Killed, Running)
            | (Stopping, Killed)
            | (Running, Killed)
            | (Killed, NotStarted)
            | (Stopping, Blocked)
            | (Completed, Running)
    )
}

/// Sprint edges: spec §D-20, plus DISPATCHED → BACKOFF (the agent died or
/// was killed before it started), COMPLETED → BACKOFF (a failed phase gate),
/// BACKOFF → PENDING (resume of an interrupted sprint, attempt kept),
/// PARTIAL → COMPLETED (a person confirms a manual sprint) and PENDING,
/// BACKOFF, FATAL → COMPLETED (observed in history: the work is done and its
/// exit criteria pass, whatever the run thought).
pub fn legal_sprint(from: SprintStatus, to: SprintStatus) -> bool {
    use SprintStatus::*;
    matches!(
        (from, to),
        (Pending, Dispatched)
            | (Dispatched, Running)
            | (Running, Completed)
            | (Running, Partial)
            | (Running, Backoff)
            | (Partial, Dispatched)
            | (Backoff, Dispatched)
            | (Backoff, Fatal)
            | (Fatal, Pending)
            | (Dispatched, Backoff)
            | (Completed, Backoff)
            | (Backoff, Pending)
            | (Partial, Completed)
            | (Pending, Completed)
            | (Backoff, Completed)
            | (Fatal, Completed)
    )
}

/// Builds an event's steps on a working copy of the state.
struct Steps<'a> {
    state: State,
    steps: Vec<Step>,
    /// Units found waiting for a phase gate during `open_gates`.
    skipped: Vec<usize>,
    event: &'static str,
    at: &'a str,
    /// Turns reported for the dispatch being judged (verdict steps carry it).
    turns: Option<u64>,
    /// Dollars reported for the dispatch being judged (likewise).
    cost: Option<Usd>,
}

impl<'a> Steps<'a> {
    fn push(&mut self, transition: Transition) {
        self.state.seq += 1;
        self.steps.push(Step {
            transition,
            state: self.state.clone(),
        });
    }

    fn run_note(&mut self, why: String) {
        let t = Transition {
            event: self.event,
            unit: None,
            sprint: None,
            change: Change::Run,
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    fn unit_note(&mut self, unit: usize, sprint: Option<usize>, why: String) {
        let u = &self.state.units[unit];
        let t = Transition {
            event: self.event,
            unit: Some(u.name.clone()),
            sprint: sprint.map(|s| u.sprints[s].id.clone()),
            change: Change::Run,
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    fn unit_to(&mut self, unit: usize, to: UnitStatus, why: String) {
        let from = self.state.units[unit].state;
        debug_assert!(legal_unit(from, to), "illegal unit edge {from} -> {to}");
        self.state.units[unit].state = to;
        let t = Transition {
            event: self.event,
            unit: Some(self.state.units[unit].name.clone()),
            sprint: None,
            change: Change::Unit { from, to },
            why,
            attempt: None,
            model: None,
            turns: None,
            cost: None,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    fn sprint_to(&mut self, unit: usize, sprint: usize, to: SprintStatus, why: String) {
        let max = self.state.max_retries;
        let u = &mut self.state.units[unit];
        let name = u.name.clone();
        let s = &mut u.sprints[sprint];
        let from = s.state;
        debug_assert!(legal_sprint(from, to), "illegal sprint edge {from} -> {to}");
        s.state = to;
        let t = Transition {
            event: self.event,
            unit: Some(name),
            sprint: Some(s.id.clone()),
            change: Change::Sprint { from, to },
            why,
            attempt: Some((s.attempt, max)),
            model: s.model,
            turns: self.turns,
            cost: self.cost,
            at: self.at.to_string(),
        };
        self.push(t);
    }

    fn sprint_index(&self, unit: usize, id: &SprintId) -> Result<usize, MachineError> {
        let u = &self.state.units[unit];
        u.sprints
            .iter()
            .position(|s| &s.id == id)
            .ok_or_else(|| MachineError::UnknownSprint(u.name.clone(), id.clone()))
    }

    fn unit_index(&self, name: &str) -> Result<usize, MachineError> {
        self.state
            .unit_index(name)
            .ok_or_else(|| MachineError::UnknownUnit(name.to_string()))
    }

    /// NOT_STARTED units whose dependencies are all COMPLETED become RUNNING,
    /// in plan order. An interrupted first sprint goes back to PENDING.
    /// Remember a unit that is waiting for a phase gate; `false` when it was
    /// already skipped (nothing more to open).
    fn skip_gated(&mut self, i: usize) -> bool {
        if self.skipped.contains(&i) {
            return false;
        }
        self.skipped.push(i);
        true
    }

    fn open_gates(&mut self, why_prefix: &str) {
        self.skipped.clear();
        loop {
            let skipped = self.skipped.clone();
            let ready = (0..self.state.units.len()).find(|&i| {
                let u = &self.state.units[i];
                !skipped.contains(&i)
                    && u.state == UnitStatus::NotStarted
                    && u.deps.iter().all(|d| {
                        self.state
                            .unit(d)
                            .is_some_and(|d| d.state == UnitStatus::Completed)
                    })
            });
            let Some(i) = ready else { break };
            let phase = self.state.units[i].phase();
            let gated = self.state.units[i].deps.iter().any(|d| {
                self.state.unit(d).is_some_and(|d| {
                    d.phase() != phase && self.state.gate(d.phase()).is_some_and(|g| !g.passed)
                })
            });
            if gated {
                // Its dependencies are done but their phase build has not
                // passed yet: leave it, and look at the units after it.
                if !self.skip_gated(i) {
                    break;
                }
                continue;
            }
            let why = if self.state.units[i].deps.is_empty() {
                format!("{why_prefix}; it has no dependencies.")
            } else {
                format!(
                    "{why_prefix}; its dependencies ({}) are COMPLETED.",
                    self.state.units[i].deps.join(", ")
                )
            };
            self.unit_to(i, UnitStatus::Running, why);
            self.requeue_interrupted(i);
        }
    }

    fn requeue_interrupted(&mut self, unit: usize) {
        if let Some(k) = self.state.units[unit].current_index() {
            let s = &mut self.state.units[unit].sprints[k];
            if s.state == SprintStatus::Backoff && s.interrupted {
                s.interrupted = false;
                let attempt = s.attempt;
                self.sprint_to(
                    unit,
                    k,
                    SprintStatus::Pending,
                    format!("Resumed after an interruption; attempt {attempt} is re-dispatched, not counted again."),
                );
            }
        }
    }

    /// After a sprint of `unit` completes: the unit completes when it was the
    /// last one (then dependents may start); a stopping unit stops.
    fn after_completion(&mut self, unit: usize) {
        let u = &self.state.units[unit];
        if u.state == UnitStatus::Stopping {
            self.unit_to(
                unit,
                UnitStatus::Stopped,
                "Stop requested; the active sprint finished, so the unit stops here.".into(),
            );
            return;
        }
        if u.all_completed() && u.state == UnitStatus::Running {
            let n = u.sprints.len();
            self.unit_to(
                unit,
                UnitStatus::Completed,
                format!("All {n} sprints are COMPLETED."),
            );
            let name = self.state.units[unit].name.clone();
            self.open_gates(&format!("`{name}` completed"));
        }
    }

    /// A failed attempt: BACKOFF, then FATAL and BLOCKED when it was the last.
    fn fail(&mut self, unit: usize, sprint: usize, why: String) {
        let max = self.state.max_retries;
        let s = &mut self.state.units[unit].sprints[sprint];
        s.agent = None;
        s.failures += 1;
        s.last_failure = Some(why.clone());
        let attempt = s.attempt;
        let last = attempt >= max;
        let note = if last {
            format!("{why} Attempt {attempt}/{max} failed; no retries remain.")
        } else {
            format!("{why} Attempt {attempt}/{max} failed; it will be retried.")
        };
        self.sprint_to(unit, sprint, SprintStatus::Backoff, note);
        if last {
            let id = self.state.units[unit].sprints[sprint].id.clone();
            self.sprint_to(
                unit,
                sprint,
                SprintStatus::Fatal,
                format!("max_retries ({max}) exhausted; no automatic retry."),
            );
            let name = self.state.units[unit].name.clone();
            self.unit_to(
                unit,
                UnitStatus::Blocked,
                format!(
                    "BLOCKED: {name} Sprint {id} — FATAL after {max} attempts. Run git supervisor resume to retry."
                ),
            );
        } else if self.state.units[unit].state == UnitStatus::Stopping {
            self.unit_to(
                unit,
                UnitStatus::Stopped,
                "Stop requested; the active sprint ended, so the unit stops here.".into(),
            );
        }
    }
}

/// Apply one event. Returns its steps in order (possibly none: an event that
/// finds nothing to do), or why the event is not allowed now.
pub fn apply(state: &State, event: &Event) -> Result<Vec<Step>, MachineError> {
    let mut b = Steps {
        state: state.clone(),
        steps: Vec::new(),
        skipped: Vec::new(),
        event: event.kind.name(),
        at: &event.at,
        turns: None,
        cost: None,
    };
    let started = state.seq > 0;
    match &event.kind {
        EventKind::Start => {
            if started {
                return Err(MachineError::AlreadyStarted);
            }
            let (units, sprints) = (state.units.len(), state.sprint_total());
            b.run_note(format!(
                "started {}. {units} work units, {sprints} sprints, max_retries {}.",
                state.operation, state.max_retries
            ));
            b.open_gates("Run started");
        }
        EventKind::Dispatch {
            unit,
            model,
            score,
            rationale,
            agent,
        } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let u = &b.state.units[i];
            if u.state != UnitStatus::Running {
                return Err(MachineError::UnitState {
                    unit: unit.clone(),
                    state: u.state,
                    needed: "only RUNNING units get agents",
                });
            }
            let k = u
                .current_index()
                .ok_or_else(|| MachineError::NothingLeft(unit.clone()))?;
            let s = &u.sprints[k];
            let dispatchable = match s.state {
                SprintStatus::Pending | SprintStatus::Backoff => true,
                SprintStatus::Partial => s.task_type != TaskType::Manual,
                _ => false,
            };
            if !dispatchable {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: s.id.clone(),
                    state: s.state,
                    needed: "only PENDING, BACKOFF and (non-manual) PARTIAL sprints are dispatched",
                });
            }
            let from = s.state;
            let s = &mut b.state.units[i].sprints[k];
            let kind = match from {
                SprintStatus::Pending => {
                    // A sprint re-queued after an interruption keeps its attempt.
                    s.attempt = s.attempt.max(1);
                    "First dispatch"
                }
                SprintStatus::Backoff => {
                    s.attempt += 1;
                    "Retry"
                }
                _ => {
                    s.continuations += 1;
                    "Continuation"
                }
            };
            if from != SprintStatus::Partial {
                s.total_attempts += 1;
            }
            s.dispatches += 1;
            s.model = Some(*model);
            s.score = Some(*score);
            s.agent = Some(agent.clone());
            s.interrupted = false;
            let (attempt, max) = (s.attempt, b.state.max_retries);
            b.sprint_to(
                i,
                k,
                SprintStatus::Dispatched,
                format!("{kind}, attempt {attempt}/{max}, model {model} (complexity score {score}: {rationale})."),
            );
        }
        EventKind::AgentStarted { unit, pid } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let (k, s) = active(&b.state, i, unit)?;
            if s.state != SprintStatus::Dispatched {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: s.id.clone(),
                    state: s.state,
                    needed: "only a DISPATCHED sprint's agent can start",
                });
            }
            if let Some(agent) = b.state.units[i].sprints[k].agent.as_mut() {
                agent.pid = *pid;
            }
            let pid = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
            b.sprint_to(
                i,
                k,
                SprintStatus::Running,
                format!("The agent process started{pid}."),
            );
        }
        EventKind::Verdict {
            unit,
            outcome,
            evidence,
            remaining,
            commits,
            turns,
            cost,
        } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let (k, s) = active(&b.state, i, unit)?;
            if s.state == SprintStatus::Dispatched {
                b.sprint_to(
                    i,
                    k,
                    SprintStatus::Running,
                    "The agent ran and exited before its start was recorded.".into(),
                );
            }
            // The verdict's transition carries the turns (a trailer); the
            // report sums them from history.
            b.turns = *turns;
            // So do the dollars; the sprint keeps their sum for status and
            // the budget.
            b.cost = *cost;
            if let Some(c) = cost {
                let s = &mut b.state.units[i].sprints[k];
                s.cost = s.cost + *c;
            }
            let s = &b.state.units[i].sprints[k];
            let capped =
                *outcome == Outcome::Partial && s.continuations >= b.state.max_continuations;
            match outcome {
                Outcome::Completed => {
                    let s = &mut b.state.units[i].sprints[k];
                    s.agent = None;
                    s.remaining.clear();
                    for c in commits {
                        if !s.commits.contains(c) {
                            s.commits.push(c.clone());
                        }
                    }
                    s.last_verified = Some(evidence.clone());
                    b.sprint_to(
                        i,
                        k,
                        SprintStatus::Completed,
                        format!("Verified: {evidence}"),
                    );
                    b.after_completion(i);
                }
                Outcome::Partial if !capped => {
                    let s = &mut b.state.units[i].sprints[k];
                    s.agent = None;
                    s.remaining = remaining.clone();
                    let manual = s.task_type == TaskType::Manual;
                    let why = if manual {
                        format!("Manual sprint: {evidence} Waiting for `git supervisor confirm {unit} {}`.", s.id)
                    } else {
                        format!("Partial progress: {evidence} A continuation will be dispatched.")
                    };
                    b.sprint_to(i, k, SprintStatus::Partial, why);
                    if b.state.units[i].state == UnitStatus::Stopping {
                        b.unit_to(
                            i,
                            UnitStatus::Stopped,
                            "Stop requested; the active sprint ended PARTIAL, so the unit stops here.".into(),
                        );
                    }
                }
                Outcome::Partial => {
                    let cap = b.state.max_continuations;
                    b.fail(
                        i,
                        k,
                        format!("Partial again after {cap} continuations (max_continuations); counted as a failure: {evidence}"),
                    );
                }
                Outcome::Failure => b.fail(i, k, format!("Failed: {evidence}")),
            }
        }
        EventKind::Stop => {
            require_started(started)?;
            for i in 0..b.state.units.len() {
                if b.state.units[i].state != UnitStatus::Running {
                    continue;
                }
                if b.state.units[i].active_sprint().is_some() {
                    b.unit_to(
                        i,
                        UnitStatus::Stopping,
                        "Stop requested: no new dispatches; waiting for the active agent.".into(),
                    );
                } else {
                    b.unit_to(
                        i,
                        UnitStatus::Stopping,
                        "Stop requested: no new dispatches.".into(),
                    );
                    b.unit_to(
                        i,
                        UnitStatus::Stopped,
                        "No active agent; stopped at once.".into(),
                    );
                }
            }
        }
        EventKind::ForceStop { unit, uncommitted } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let u = &b.state.units[i];
            if u.state != UnitStatus::Stopping {
                return Err(MachineError::UnitState {
                    unit: unit.clone(),
                    state: u.state,
                    needed: "only STOPPING units are force-stopped",
                });
            }
            if let Some(k) = u.sprints.iter().position(|s| s.state.is_active()) {
                let s = &mut b.state.units[i].sprints[k];
                s.agent = None;
                s.interrupted = true;
                let id = s.id.clone();
                let attempt = s.attempt;
                b.sprint_to(
                    i,
                    k,
                    SprintStatus::Backoff,
                    format!("Sprint {id} force-terminated during graceful shutdown; attempt {attempt} kept."),
                );
            }
            b.state.units[i].uncommitted = uncommitted.clone();
            let mut why =
                "Its agent did not finish within the stop timeout and was terminated.".to_string();
            if !uncommitted.is_empty() {
                why.push_str(&format!(
                    " Uncommitted work left on disk, neither committed nor discarded: {}.",
                    uncommitted.join(", ")
                ));
            }
            b.unit_to(i, UnitStatus::Killed, why);
        }
        EventKind::Killall {
            reason,
            assessments,
        } => {
            require_started(started)?;
            b.state.kill = Some(Kill {
                reason: reason.clone(),
                at: event.at.clone(),
            });
            let killed = b
                .state
                .units
                .iter()
                .filter(|u| u.active_sprint().is_some())
                .count();
            b.run_note(format!("killall: {reason}; {killed} agents terminated."));
            for i in 0..b.state.units.len() {
                let u = &b.state.units[i];
                let Some(k) = u.sprints.iter().position(|s| s.state.is_active()) else {
                    continue;
                };
                if !matches!(u.state, UnitStatus::Running | UnitStatus::Stopping) {
                    continue;
                }
                let name = u.name.clone();
                let a = assessments.iter().find(|a| a.unit == name);
                let completed = a.is_some_and(|a| a.completed);
                let progress = a.is_some_and(|a| a.progress);
                b.state.units[i].uncommitted = a.map(|a| a.uncommitted.clone()).unwrap_or_default();
                let id = b.state.units[i].sprints[k].id.clone();
                b.state.units[i].sprints[k].agent = None;
                if completed && b.state.units[i].sprints[k].state == SprintStatus::Running {
                    b.sprint_to(
                        i,
                        k,
                        SprintStatus::Completed,
                        "killall: verification shows the sprint done; clean state.".into(),
                    );
                } else {
                    b.state.units[i].sprints[k].interrupted = true;
                    let attempt = b.state.units[i].sprints[k].attempt;
                    b.sprint_to(
                        i,
                        k,
                        SprintStatus::Backoff,
                        format!("killall: sprint {id} interrupted before it was done; attempt {attempt} kept."),
                    );
                }
                let mut why = format!("killall: {reason}.");
                if !b.state.units[i].uncommitted.is_empty() {
                    why.push_str(&format!(
                        " {name}: has uncommitted work from killed Sprint {id} ({}); neither committed nor discarded.",
                        b.state.units[i].uncommitted.join(", ")
                    ));
                }
                b.unit_to(i, UnitStatus::Killed, why);
                if b.state.units[i].completed_sprints() == 0 && !progress && !completed {
                    b.unit_to(
                        i,
                        UnitStatus::NotStarted,
                        "No sprint completed and nothing in scope moved: back to NOT_STARTED."
                            .into(),
                    );
                }
            }
        }
        EventKind::BudgetReached { spent, budget } => {
            require_started(started)?;
            if b.state.budget_reached.is_some() {
                return Ok(Vec::new());
            }
            b.state.budget_reached = Some(super::state::BudgetReached {
                spent: *spent,
                budget: *budget,
                at: event.at.clone(),
            });
            b.run_note(format!(
                "Budget reached: {spent} spent of run.budget_usd {budget}. No new dispatches; raise the budget, replan, then resume."
            ));
            for i in 0..b.state.units.len() {
                if b.state.units[i].state != UnitStatus::Running {
                    continue;
                }
                if b.state.units[i].active_sprint().is_some() {
                    b.unit_to(
                        i,
                        UnitStatus::Stopping,
                        "Budget reached: no new dispatches; waiting for the active agent.".into(),
                    );
                } else {
                    b.unit_to(
                        i,
                        UnitStatus::Stopping,
                        "Budget reached: no new dispatches.".into(),
                    );
                    b.unit_to(
                        i,
                        UnitStatus::Stopped,
                        "No active agent; stopped at once.".into(),
                    );
                }
            }
        }
        EventKind::Resume => {
            require_started(started)?;
            b.state.kill = None;
            b.state.budget_reached = None;
            for i in 0..b.state.units.len() {
                match b.state.units[i].state {
                    UnitStatus::Blocked => {
                        if let Some(k) = b.state.units[i]
                            .sprints
                            .iter()
                            .position(|s| s.state == SprintStatus::Fatal)
                        {
                            let s = &mut b.state.units[i].sprints[k];
                            let total = s.total_attempts;
                            s.attempt = 0;
                            s.failures = 0;
                            s.continuations = 0;
                            b.sprint_to(
                                i,
                                k,
                                SprintStatus::Pending,
                                format!("Resumed after FATAL: a fresh round of attempts ({total} so far in this run)."),
                            );
                        }
                        b.unit_to(
                            i,
                            UnitStatus::Running,
                            "Resumed by the user after BLOCKED.".into(),
                        );
                    }
                    UnitStatus::Stopped => {
                        b.unit_to(i, UnitStatus::Running, "Resumed after stop.".into());
                    }
                    UnitStatus::Killed => {
                        b.unit_to(i, UnitStatus::Running, "Resumed after kill.".into());
                        b.state.units[i].uncommitted.clear();
                        b.requeue_interrupted(i);
                    }
                    _ => {}
                }
            }
            // Units whose every sprint completed while stopping finish now.
            for i in 0..b.state.units.len() {
                if b.state.units[i].state == UnitStatus::Running && b.state.units[i].all_completed()
                {
                    b.after_completion(i);
                }
            }
            b.open_gates("Resumed");
        }
        EventKind::Confirm { unit, sprint } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let k = b.sprint_index(i, sprint)?;
            let s = &b.state.units[i].sprints[k];
            if s.task_type != TaskType::Manual {
                return Err(MachineError::NotManual {
                    unit: unit.clone(),
                    sprint: sprint.clone(),
                    task_type: s.task_type,
                });
            }
            if s.state != SprintStatus::Partial {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: sprint.clone(),
                    state: s.state,
                    needed: "a manual sprint is confirmed while it waits in PARTIAL",
                });
            }
            b.state.units[i].sprints[k].last_verified = Some("confirmed by a person".into());
            b.sprint_to(
                i,
                k,
                SprintStatus::Completed,
                "Confirmed by a person (git supervisor confirm).".into(),
            );
            b.after_completion(i);
        }
        EventKind::Observed {
            unit,
            sprint,
            evidence,
            commits,
            head,
        } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let k = b.sprint_index(i, sprint)?;
            let u = &b.state.units[i];
            if u.current_index() != Some(k) {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: sprint.clone(),
                    state: u.sprints[k].state,
                    needed: "only a unit's current sprint is completed from history",
                });
            }
            let st = u.sprints[k].state;
            if !matches!(
                st,
                SprintStatus::Pending
                    | SprintStatus::Backoff
                    | SprintStatus::Fatal
                    | SprintStatus::Partial
            ) || u.state == UnitStatus::NotStarted
            {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: sprint.clone(),
                    state: st,
                    needed: "history completes a sprint that waits (PENDING, BACKOFF, FATAL, PARTIAL) in a started unit",
                });
            }
            b.state.reconciled = Some(head.clone());
            if u.state == UnitStatus::Blocked {
                b.unit_to(
                    i,
                    UnitStatus::Running,
                    format!("History shows sprint {sprint} done."),
                );
            }
            let s = &mut b.state.units[i].sprints[k];
            s.interrupted = false;
            s.remaining.clear();
            s.last_verified = Some(evidence.clone());
            for c in commits {
                if !s.commits.contains(c) {
                    s.commits.push(c.clone());
                }
            }
            b.sprint_to(
                i,
                k,
                SprintStatus::Completed,
                format!("Observed in history: {evidence}"),
            );
            b.after_completion(i);
        }
        EventKind::GateFailed {
            unit,
            sprint,
            detail,
        } => {
            require_started(started)?;
            let i = b.unit_index(unit)?;
            let k = b.sprint_index(i, sprint)?;
            let s = &b.state.units[i].sprints[k];
            if s.state != SprintStatus::Completed {
                return Err(MachineError::SprintState {
                    unit: unit.clone(),
                    sprint: sprint.clone(),
                    state: s.state,
                    needed: "a phase gate only reopens COMPLETED sprints",
                });
            }
            if let Some(d) = b
                .state
                .units
                .iter()
                .find(|d| d.deps.contains(unit) && d.state != UnitStatus::NotStarted)
            {
                return Err(MachineError::DependentStarted {
                    unit: unit.clone(),
                    dependent: d.name.clone(),
                });
            }
            match b.state.units[i].state {
                UnitStatus::Completed => b.unit_to(
                    i,
                    UnitStatus::Running,
                    format!("The phase gate's build failed in files sprint {sprint} changed."),
                ),
                other => {
                    return Err(MachineError::UnitState {
                        unit: unit.clone(),
                        state: other,
                        needed: "a phase gate runs when every unit of a layer is COMPLETED",
                    })
                }
            }
            let phase = b.state.units[i].phase();
            if let Some(g) = b.state.gates.iter_mut().find(|g| g.phase == phase) {
                g.runs += 1;
            }
            // The sprint goes back through RUNNING's failure path: the build
            // failure counts as a failed attempt.
            let max = b.state.max_retries;
            let s = &mut b.state.units[i].sprints[k];
            s.failures += 1;
            s.last_failure = Some(detail.clone());
            let attempt = s.attempt;
            b.sprint_to(
                i,
                k,
                SprintStatus::Backoff,
                format!("Phase gate build failed: {detail} Attempt {attempt}/{max}."),
            );
            if attempt >= max {
                let id = sprint.clone();
                b.sprint_to(
                    i,
                    k,
                    SprintStatus::Fatal,
                    format!("max_retries ({max}) exhausted; no automatic retry."),
                );
                b.unit_to(
                    i,
                    UnitStatus::Blocked,
                    format!("BLOCKED: {unit} Sprint {id} — FATAL after {max} attempts. Run git supervisor resume to retry."),
                );
            }
        }
        EventKind::GatePassed { phase, summary } => {
            require_started(started)?;
            let Some(g) = b
                .state
                .gates
                .iter_mut()
                .find(|g| g.phase == *phase && !g.passed)
            else {
                return Err(MachineError::NoGate(*phase));
            };
            g.passed = true;
            g.runs += 1;
            b.run_note(format!("phase {phase} gate passed. {summary}"));
            b.open_gates(&format!("Phase {phase} gate passed"));
        }
        EventKind::Needs { needs } => {
            require_started(started)?;
            let added: Vec<String> = needs
                .iter()
                .filter(|n| !b.state.needs.contains(n))
                .map(|n| format!("{}: {}", n.unit, n.text))
                .collect();
            let resolved = b.state.needs.iter().filter(|n| !needs.contains(n)).count();
            b.state.needs = needs.clone();
            let mut why = format!("cross-unit needs registry: {} open.", needs.len());
            if !added.is_empty() {
                why.push_str(&format!(" New: {}.", added.join("; ")));
            }
            if resolved > 0 {
                why.push_str(&format!(" {resolved} no longer listed."));
            }
            b.run_note(why);
        }
        EventKind::Replan { plan } => {
            require_started(started)?;
            let fresh = State::new(
                plan,
                &b.state.run_id,
                &b.state.operation,
                b.state.max_retries,
                b.state.max_continuations,
            );
            // Refuse first: an active sprint must keep its place.
            for u in &b.state.units {
                for sp in u.sprints.iter().filter(|s| s.state.is_active()) {
                    let kept = fresh
                        .unit(&u.name)
                        .and_then(|nu| nu.sprints.iter().position(|x| x.id == sp.id))
                        .zip(u.sprints.iter().position(|x| x.id == sp.id));
                    let same_place = kept.is_some_and(|(new, old)| {
                        let before_new: Vec<_> = fresh
                            .unit(&u.name)
                            .map(|nu| nu.sprints[..new].iter().map(|x| x.id.clone()).collect())
                            .unwrap_or_default();
                        let before_old: Vec<_> =
                            u.sprints[..old].iter().map(|x| x.id.clone()).collect();
                        before_new == before_old
                    });
                    if !same_place {
                        return Err(MachineError::Replan(format!(
                            "removes or renumbers sprint {} of `{}`, which is {}; stop it first (git supervisor stop)",
                            sp.id, u.name, sp.state
                        )));
                    }
                }
            }
            let mut added_units = Vec::new();
            let mut added_sprints = Vec::new();
            let mut removed = Vec::new();
            let mut units = Vec::new();
            for nu in fresh.units {
                match b.state.unit(&nu.name) {
                    None => {
                        added_units.push(nu.name.clone());
                        units.push(nu);
                    }
                    Some(old) => {
                        let mut u = old.clone();
                        u.deps = nu.deps.clone();
                        u.layer = nu.layer;
                        u.dir = nu.dir.clone();
                        u.sprints = nu
                            .sprints
                            .into_iter()
                            .map(|ns| match old.sprints.iter().find(|x| x.id == ns.id) {
                                Some(os) => {
                                    let mut s = os.clone();
                                    s.name = ns.name;
                                    s.task_type = ns.task_type;
                                    s
                                }
                                None => {
                                    added_sprints.push(format!("{} sprint {}", nu.name, ns.id));
                                    ns
                                }
                            })
                            .collect();
                        for os in &old.sprints {
                            if !u.sprints.iter().any(|x| x.id == os.id) {
                                removed.push(format!("{} sprint {}", old.name, os.id));
                            }
                        }
                        units.push(u);
                    }
                }
            }
            for old in &b.state.units {
                if !units.iter().any(|u| u.name == old.name) {
                    if old.active_sprint().is_some() {
                        return Err(MachineError::Replan(format!(
                            "removes `{}`, whose agent is working; stop it first (git supervisor stop)",
                            old.name
                        )));
                    }
                    removed.push(format!("unit {}", old.name));
                }
            }
            for u in &units {
                let reopened = b
                    .state
                    .unit(&u.name)
                    .is_some_and(|old| old.state == UnitStatus::Completed)
                    && !u.all_completed();
                if reopened {
                    if let Some(d) = units
                        .iter()
                        .find(|d| d.deps.contains(&u.name) && d.state != UnitStatus::NotStarted)
                    {
                        return Err(MachineError::Replan(format!(
                            "adds work to `{}`, which is COMPLETED, but `{}` depends on it and has started",
                            u.name, d.name
                        )));
                    }
                }
            }
            b.state.units = units;
            if !b.state.gates.is_empty() {
                let phases: Vec<u32> = b.state.units.iter().map(|u| u.phase()).collect();
                for p in phases {
                    if b.state.gate(p).is_none() {
                        b.state.gates.push(crate::machine::Gate {
                            phase: p,
                            passed: false,
                            runs: 0,
                        });
                    }
                }
                b.state.gates.sort_by_key(|g| g.phase);
            }
            let mut why = String::from("replanned from the edited EXECUTION_PLAN.md.");
            for (label, list) in [
                ("Added units", &added_units),
                ("Added sprints", &added_sprints),
                ("Removed", &removed),
            ] {
                if !list.is_empty() {
                    why.push_str(&format!(" {label}: {}.", list.join(", ")));
                }
            }
            b.run_note(why);
            // A COMPLETED unit with a new sprint has work again.
            for i in 0..b.state.units.len() {
                let u = &b.state.units[i];
                if u.state == UnitStatus::Completed && !u.all_completed() {
                    b.unit_to(
                        i,
                        UnitStatus::Running,
                        "The replanned unit has a new sprint.".into(),
                    );
                }
            }
            b.open_gates("Replanned");
        }
        EventKind::Notice { unit, sprint, text } => match unit {
            Some(u) => {
                let i = b.unit_index(u)?;
                let k = sprint.as_ref().map(|s| b.sprint_index(i, s)).transpose()?;
                b.unit_note(i, k, text.clone());
            }
            None => b.run_note(text.clone()),
        },
    }
    Ok(b.steps)
}

fn require_started(started: bool) -> Result<(), MachineError> {
    if started {
        Ok(())
    } else {
        Err(MachineError::NotStarted)
    }
}

/// The unit's sprint with an agent (DISPATCHED or RUNNING).
fn active<'s>(
    state: &'s State,
    i: usize,
    unit: &str,
) -> Result<(usize, &'s super::state::SprintState), MachineError> {
    let u = &state.units[i];
    match u.sprints.iter().position(|s| s.state.is_active()) {
        Some(k) => Ok((k, &u.sprints[k])),
        None => {
            let current = u
                .current()
                .ok_or_else(|| MachineError::NothingLeft(unit.to_string()))?;
            Err(MachineError::SprintState {
                unit: unit.to_string(),
                sprint: current.id.clone(),
                state: current.state,
                needed: "there is no active agent to report on",
            })
        }
    }
}

/// Units whose current sprint should get an agent now, in plan order: RUNNING
/// units whose current sprint is PENDING, BACKOFF or a non-manual PARTIAL.
pub fn dispatchable(state: &State) -> Vec<String> {
    state
        .units
        .iter()
        .filter(|u| u.state == UnitStatus::Running)
        .filter(|u| {
            u.current().is_some_and(|s| match s.state {
                SprintStatus::Pending | SprintStatus::Backoff => true,
                SprintStatus::Partial => s.task_type != TaskType::Manual,
                _ => false,
            })
        })
        .map(|u| u.name.clone())
        .collect()
}
