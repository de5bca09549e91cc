//! Events, transitions and `apply`: the only way state changes.
//!
//! `apply(&State, &Event)` returns the event's transitions as a list of
//! [`Step`]s, each carrying the state *after* it, so the store can write one
//! commit per step and publish them together. Every step is one edge of the
//! transition tables ([`super::legal_unit`], [`super::legal_sprint`]); states
//! are never skipped, so a failure on the last attempt is two steps (RUNNING
//! → BACKOFF, BACKOFF → FATAL) followed by the unit's RUNNING → BLOCKED.
//! Illegal events are [`MachineError`]s, never panics. Pure: no I/O, clock or
//! randomness — the time an event happened comes in the event. `apply` only
//! routes: each event's rule is its own handler in [`super::handlers`].

use super::cost::Usd;
use serde::Deserialize;
use serde::Serialize;

use super::handlers::agent;
use super::handlers::background;
use super::handlers::budget;
use super::handlers::completion;
use super::handlers::gate;
use super::handlers::limit;
use super::handlers::plan;
use super::handlers::run;
use super::handlers::usage;
use super::state::Agent;
use super::state::Model;
use super::state::SprintStatus;
use super::state::State;
use super::state::UnitStatus;
use super::steps::Steps;
use crate::plan::SprintId;
use crate::plan::TaskType;

/// What verification concluded about an agent's work (design §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Completed,
    Partial,
    Failure,
}

/// One exit-criterion command as verification ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CriterionCheck {
    /// The criterion as the plan words it.
    pub text: String,
    pub command: String,
    pub passed: bool,
    /// The command's exit status; `None` when it did not run to an exit
    /// (cannot start, timed out) or was checked without a shell.
    pub exit: Option<i32>,
    /// Why it failed, when it did (`exit 1`, `timed out after 600s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The end of what it printed (stdout then stderr), at most
    /// [`CriterionCheck::OUTPUT_KEPT`] bytes.
    #[serde(default)]
    pub output: String,
}

impl CriterionCheck {
    /// How much of a criterion's output a verdict keeps.
    pub const OUTPUT_KEPT: usize = 4096;
}

/// killall's verdict on one unit (spec §Q step 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KillAssessment {
    pub unit: String,
    /// Verification says the interrupted sprint is done.
    pub completed: bool,
    /// Anything in scope moved (a commit or a progress-file change).
    pub progress: bool,
    pub uncommitted: Vec<String>,
}

/// Recorded with its transitions (`event.toml` in the first commit of an
/// event), so that `sync` can decide a diverged clone's events again on the
/// remote's state. A replan is not recorded: it carries the plan snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
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
    /// `worker` names the machine that claimed the sprint (`<host>/<pid>`)
    /// when the run lives on a remote.
    AgentStarted {
        unit: String,
        pid: Option<u32>,
        worker: Option<String>,
    },
    /// The lease of the worker running the unit's sprint expired (the
    /// worker died or lost the remote): the sprint waits in BACKOFF as
    /// interrupted, its attempt kept, for another worker.
    LeaseExpired { unit: String, worker: String },
    /// The unit's DISPATCHED sprint has no agent and never had one: its
    /// wrapper is gone without having started it (the engine ended between
    /// the dispatch and the start). The sprint waits in BACKOFF as
    /// interrupted, its attempt kept: nothing ran, so nothing failed.
    NeverStarted { unit: String },
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
        /// Each exit-criterion command verification ran, with its exit
        /// status and the end of its output: the attempt's evidence, kept
        /// with the verdict. Decides nothing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        checks: Vec<CriterionCheck>,
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
    /// A coordinated build starts (the engine holds the build lock).
    BuildStarted { phase: u32, units: Vec<String> },
    /// A coordinated build passed (the checkpoint is in the same commit). It
    /// covers `covers`; `warned` units' exit criteria failed after it
    /// (verdict `warn`): their dependents keep waiting.
    GatePassed {
        phase: u32,
        summary: String,
        head: String,
        covers: Vec<String>,
        warned: Vec<String>,
    },
    /// A coordinated build failed (the checkpoint is in the same commit);
    /// `GateFailed` events for the sprints it blames follow.
    BuildFailed {
        phase: u32,
        summary: String,
        head: String,
        units: Vec<String>,
        blamed: String,
    },
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
    #[serde(skip)]
    Replan { plan: Box<crate::plan::Plan> },
    /// The progress files' cross-unit needs changed: the new registry, and
    /// what its new entries come to under the plan's Allowed Imports
    /// (hand-offs and conflicts, for the decisions log).
    Needs {
        needs: Vec<super::state::Need>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        rulings: Vec<String>,
    },
    /// The agent of a sprint its trailer commit had already completed
    /// exited and reported what it used (turns, dollars, session): only the
    /// sprint's usage changes. Legal for a COMPLETED sprint's latest
    /// dispatch only.
    Usage {
        unit: String,
        sprint: SprintId,
        /// The dispatch whose agent reported it (`SprintState::dispatches`).
        dispatch: u32,
        turns: Option<u64>,
        cost: Option<Usd>,
        session: Option<String>,
    },
    /// The agent of a background sprint exited and left these processes
    /// running (recorded before its verdict, which needs one of them to be
    /// running for COMPLETED).
    Background {
        unit: String,
        sprint: SprintId,
        processes: Vec<super::background::BackgroundProcess>,
    },
    /// The unit's agent met a usage limit: the sprint waits without an
    /// attempt charged, and the agent is paused until the reset. `met_at`
    /// is the wall clock when it was read; `resets_at` what the agent said.
    UsageLimited {
        unit: String,
        agent: String,
        resets_at: Option<String>,
        met_at: String,
        line: String,
    },
    /// The reset time of an agent's usage-limit pause has come.
    LimitEnded { agent: String },
    /// Something worth recording that changes no state (unresponsive agent,
    /// deferred check still failing, a gate that passed).
    Notice {
        unit: Option<String>,
        sprint: Option<SprintId>,
        text: String,
    },
}

/// An event with the time it happened (ISO 8601).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
            EventKind::LeaseExpired { .. } => "lease-expired",
            EventKind::NeverStarted { .. } => "never-started",
            EventKind::Verdict { .. } => "verdict",
            EventKind::Stop => "stop",
            EventKind::ForceStop { .. } => "force-stop",
            EventKind::Killall { .. } => "killall",
            EventKind::Resume => "resume",
            EventKind::Confirm { .. } => "confirm",
            EventKind::Observed { .. } => "observed",
            EventKind::GateFailed { .. } => "gate-failed",
            EventKind::GatePassed { .. } => "gate-passed",
            EventKind::BuildStarted { .. } => "build-started",
            EventKind::BuildFailed { .. } => "build-failed",
            EventKind::Notice { .. } => "notice",
            EventKind::Usage { .. } => "usage",
            EventKind::Background { .. } => "background",
            EventKind::Replan { .. } => "replan",
            EventKind::Needs { .. } => "needs",
            EventKind::BudgetReached { .. } => "budget",
            EventKind::UsageLimited { .. } => "usage-limit",
            EventKind::LimitEnded { .. } => "limit-ended",
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
    /// The worker that claimed the sprint (a run on a remote).
    pub worker: Option<String>,
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
    #[error("sprint {sprint} of `{unit}` was last dispatched as dispatch {latest}; the usage of dispatch {dispatch} is not recorded")]
    StaleUsage {
        unit: String,
        sprint: SprintId,
        dispatch: u32,
        latest: u32,
    },
    #[error("no build command is configured, so there is no coordinated build")]
    NoBuild,
    #[error("the budget is reached ({spent} spent of run.budget_usd {budget}); raise it, replan, then resume")]
    BudgetReached { spent: Usd, budget: Usd },
}
/// Apply one event. Returns its steps in order (possibly none: an event that
/// finds nothing to do), or why the event is not allowed now. Each event has
/// its own handler in [`super::handlers`].
pub fn apply(state: &State, event: &Event) -> Result<Vec<Step>, MachineError> {
    let mut b = Steps {
        state: state.clone(),
        steps: Vec::new(),
        event: event.kind.name(),
        at: &event.at,
        started: state.seq > 0,
        turns: None,
        cost: None,
        worker: None,
    };
    match &event.kind {
        EventKind::Start => run::start(&mut b)?,
        EventKind::Stop => run::stop(&mut b)?,
        EventKind::ForceStop { unit, uncommitted } => run::force_stop(&mut b, unit, uncommitted)?,
        EventKind::Killall {
            reason,
            assessments,
        } => run::killall(&mut b, reason, assessments)?,
        EventKind::Resume => run::resume(&mut b)?,
        EventKind::BudgetReached { spent, budget } => {
            budget::budget_reached(&mut b, *spent, *budget)?
        }
        EventKind::Notice { unit, sprint, text } => {
            run::notice(&mut b, unit.as_deref(), sprint.as_ref(), text)?
        }
        EventKind::Usage {
            unit,
            sprint,
            dispatch,
            turns,
            cost,
            session,
        } => usage::usage(
            &mut b,
            unit,
            sprint,
            *dispatch,
            *turns,
            *cost,
            session.as_deref(),
        )?,
        EventKind::Background {
            unit,
            sprint,
            processes,
        } => background::background(&mut b, unit, sprint, processes)?,
        EventKind::Dispatch {
            unit,
            model,
            score,
            rationale,
            agent,
        } => agent::dispatch(&mut b, unit, *model, *score, rationale, agent)?,
        EventKind::AgentStarted { unit, pid, worker } => {
            b.worker = worker.clone();
            agent::agent_started(&mut b, unit, *pid, worker.as_deref())?
        }
        EventKind::LeaseExpired { unit, worker } => agent::lease_expired(&mut b, unit, worker)?,
        EventKind::NeverStarted { unit } => agent::never_started(&mut b, unit)?,
        EventKind::UsageLimited {
            unit,
            agent,
            resets_at,
            met_at,
            line,
        } => limit::usage_limited(&mut b, unit, agent, resets_at.as_deref(), met_at, line)?,
        EventKind::LimitEnded { agent } => limit::limit_ended(&mut b, agent)?,
        EventKind::Verdict {
            unit,
            outcome,
            evidence,
            remaining,
            commits,
            turns,
            cost,
            checks: _,
        } => {
            // The verdict's steps carry the dollars as they carry the turns.
            b.cost = *cost;
            agent::verdict(&mut b, unit, *outcome, evidence, remaining, commits, *turns)?
        }
        EventKind::BuildStarted { phase, units } => gate::build_started(&mut b, *phase, units)?,
        EventKind::GatePassed {
            phase,
            summary,
            head,
            covers,
            warned,
        } => gate::gate_passed(&mut b, *phase, summary, head, covers, warned)?,
        EventKind::BuildFailed {
            phase,
            summary,
            head,
            units,
            blamed,
        } => gate::build_failed(&mut b, *phase, summary, head, units, blamed)?,
        EventKind::GateFailed {
            unit,
            sprint,
            detail,
        } => gate::gate_failed(&mut b, unit, sprint, detail)?,
        EventKind::Confirm { unit, sprint } => completion::confirm(&mut b, unit, sprint)?,
        EventKind::Observed {
            unit,
            sprint,
            evidence,
            commits,
            head,
        } => completion::observed(&mut b, unit, sprint, evidence, commits, head)?,
        EventKind::Replan { plan } => plan::replan(&mut b, plan)?,
        EventKind::Needs { needs, rulings } => plan::needs(&mut b, needs, rulings)?,
    }
    Ok(b.steps)
}

/// Units whose current sprint should get an agent now, in plan order: RUNNING
/// units whose current sprint is PENDING, BACKOFF or a non-manual PARTIAL.
/// [`dispatchable`] at `now` (RFC 3339, from the caller's clock: the
/// machine has none): a failed sprint waits in BACKOFF until its retry time.
pub fn dispatchable_at(state: &State, now: &str) -> Vec<String> {
    dispatchable(state)
        .into_iter()
        .filter(|name| {
            state
                .unit(name)
                .and_then(|u| u.current())
                .and_then(|s| s.retry_at.as_deref())
                .is_none_or(|at| super::retry::due(at, now))
        })
        .collect()
}

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
