//! The machine's data: the fourteen state names and the run state that
//! `state.toml` holds. Plain data with serde; behaviour lives in `apply`.

use std::fmt;

use serde::Deserialize;
use serde::Serialize;

use super::after::SprintDep;
use super::cost::Usd;
use crate::plan::Plan;
use crate::plan::SprintId;
use crate::plan::TaskType;

pub const SCHEMA: u32 = 1;

/// Work-unit states (spec §D-19). No other names exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UnitStatus {
    NotStarted,
    Running,
    Completed,
    Stopping,
    Stopped,
    Blocked,
    Killed,
}

/// Sprint states (spec §D-20). No other names exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SprintStatus {
    Pending,
    Dispatched,
    Running,
    Completed,
    Partial,
    Backoff,
    Fatal,
}

impl UnitStatus {
    pub const ALL: [UnitStatus; 7] = [
        UnitStatus::NotStarted,
        UnitStatus::Running,
        UnitStatus::Completed,
        UnitStatus::Stopping,
        UnitStatus::Stopped,
        UnitStatus::Blocked,
        UnitStatus::Killed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            UnitStatus::NotStarted => "NOT_STARTED",
            UnitStatus::Running => "RUNNING",
            UnitStatus::Completed => "COMPLETED",
            UnitStatus::Stopping => "STOPPING",
            UnitStatus::Stopped => "STOPPED",
            UnitStatus::Blocked => "BLOCKED",
            UnitStatus::Killed => "KILLED",
        }
    }

    /// A unit that will not move again without a command.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            UnitStatus::Completed | UnitStatus::Blocked | UnitStatus::Stopped | UnitStatus::Killed
        )
    }
}

impl SprintStatus {
    pub const ALL: [SprintStatus; 7] = [
        SprintStatus::Pending,
        SprintStatus::Dispatched,
        SprintStatus::Running,
        SprintStatus::Completed,
        SprintStatus::Partial,
        SprintStatus::Backoff,
        SprintStatus::Fatal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SprintStatus::Pending => "PENDING",
            SprintStatus::Dispatched => "DISPATCHED",
            SprintStatus::Running => "RUNNING",
            SprintStatus::Completed => "COMPLETED",
            SprintStatus::Partial => "PARTIAL",
            SprintStatus::Backoff => "BACKOFF",
            SprintStatus::Fatal => "FATAL",
        }
    }

    /// An agent is (or may still be) working on the sprint.
    pub fn is_active(self) -> bool {
        matches!(self, SprintStatus::Dispatched | SprintStatus::Running)
    }
}

impl fmt::Display for UnitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for SprintStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Model tiers, cheapest first (spec §J-51).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    Haiku,
    Sonnet,
    Opus,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Haiku => "haiku",
            Model::Sonnet => "sonnet",
            Model::Opus => "opus",
        }
    }

    /// Relative cost, haiku = 1.
    pub fn relative_cost(self) -> u32 {
        match self {
            Model::Haiku => 1,
            Model::Sonnet => 10,
            Model::Opus => 30,
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The agent working on a sprint, as recorded at dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pid: Option<u32>,
    /// Output log, relative to the git common dir.
    pub log: String,
    /// ISO 8601.
    pub dispatched_at: String,
    /// The project's HEAD when the agent was dispatched: commits in scope are
    /// those after it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub base_commit: Option<String>,
    /// The unit's uncommitted files when the agent was dispatched, with their
    /// content: they are not the agent's work.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub dirty: Vec<DirtyFile>,
    /// The files the sprint names: for a unit at the project root, where
    /// other units' agents work too, only these are its uncommitted work.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub files: Vec<String>,
    /// The dispatch continues a PARTIAL sprint (decided at dispatch, never
    /// from timing).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub continuation: bool,
    /// The attempt this dispatch retries (failed, or interrupted and kept):
    /// the retry's prompt names it, on whichever machine it is written.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_of: Option<u32>,
    /// The worker that claimed the sprint (`<host>/<pid>`), on a run that
    /// lives on a remote.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub worker: Option<String>,
    /// The clone that started the agent (`<hostname>:<git directory>`), on
    /// a run that lives in a clone: a run shared with others by `sync` is
    /// judged and ended there only, never as "gone" by a clone that merely
    /// holds a copy of its state.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub host: Option<String>,
}

/// An uncommitted path and the blob id of its content (empty when the file
/// is deleted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirtyFile {
    pub path: String,
    #[serde(default)]
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SprintState {
    pub id: SprintId,
    pub name: String,
    pub task_type: TaskType,
    pub state: SprintStatus,
    /// The attempt of the current round (1-based once dispatched).
    pub attempt: u32,
    /// Every dispatch over the run's lifetime, across resume rounds.
    pub total_attempts: u32,
    /// Continuations dispatched from PARTIAL.
    pub continuations: u32,
    /// Checks of a deferred sprint's condition that found it not met yet
    /// (waiting is not failure: they never count attempts).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub checks: u32,
    /// Failures in the current round (a retry after one goes to opus, spec §J).
    pub failures: u32,
    /// Commits verification counted for the sprint (for attributing a failed
    /// phase build to the sprints that changed the failing files).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub commits: Vec<String>,
    /// Every dispatch of this sprint (attempts and continuations), never
    /// reset: names the dispatch's log, prompt and report files.
    #[serde(default)]
    pub dispatches: u32,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model: Option<Model>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub score: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agent: Option<Agent>,
    /// When a failed sprint's retry may be dispatched (RFC 3339), while it
    /// waits in BACKOFF.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_at: Option<String>,
    /// When a deferred sprint's condition is checked again (RFC 3339), while
    /// it waits in PARTIAL on an agent's check: checks back off.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub next_check_at: Option<String>,
    /// The BACKOFF came from an interruption (stop, killall), not a failure:
    /// resume re-dispatches it as PENDING with the attempt kept.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub interrupted: bool,
    /// The BACKOFF waits for the usage limit of this agent to reset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub limited: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub last_verified: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub last_failure: Option<String>,
    /// What verification found still missing (for the continuation prompt).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub remaining: Vec<String>,
    /// Dollars its agents reported spending, over every dispatch.
    #[serde(rename = "cost_usd", skip_serializing_if = "Usd::is_zero", default)]
    pub cost: Usd,
    /// The processes a background sprint's agent left running (recorded
    /// before its verdict; see `machine::background`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub background: Vec<super::background::BackgroundProcess>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitState {
    pub name: String,
    /// Directory relative to the project root (`.` for the root).
    pub dir: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub layer: Option<u32>,
    pub deps: Vec<String>,
    /// Dependencies on one sprint of another unit (`Depends on: core
    /// sprint 2`): that unit counts as met once the sprint is COMPLETED.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub after: Vec<SprintDep>,
    pub state: UnitStatus,
    /// A passing coordinated build covered the unit's completed work; reset
    /// whenever the unit completes (again). Meaningful only while COMPLETED.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub built: bool,
    /// Uncommitted paths recorded when the unit was killed.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub uncommitted: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub notes: Option<String>,
    pub sprints: Vec<SprintState>,
}

impl UnitState {
    /// The sprint the unit is on: the first one not COMPLETED.
    pub fn current(&self) -> Option<&SprintState> {
        self.sprints
            .iter()
            .find(|s| s.state != SprintStatus::Completed)
    }

    pub fn current_index(&self) -> Option<usize> {
        self.sprints
            .iter()
            .position(|s| s.state != SprintStatus::Completed)
    }

    pub fn completed_sprints(&self) -> usize {
        self.sprints
            .iter()
            .filter(|s| s.state == SprintStatus::Completed)
            .count()
    }

    pub fn all_completed(&self) -> bool {
        self.sprints
            .iter()
            .all(|s| s.state == SprintStatus::Completed)
    }

    /// The unit's phase: its layer (a plan without layers is phase 0).
    pub fn phase(&self) -> u32 {
        self.layer.unwrap_or(0)
    }

    pub fn active_sprint(&self) -> Option<&SprintState> {
        self.sprints.iter().find(|s| s.state.is_active())
    }

    /// Dollars the unit's agents reported spending.
    pub fn cost(&self) -> Usd {
        self.sprints.iter().map(|s| s.cost).sum()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Checks of a deferred condition after which the user is asked whether to
/// keep waiting (spec §O-83).
pub const DEFERRED_NOTICE_CHECKS: u32 = 20;

fn dot() -> String {
    ".".to_string()
}

/// Why and when the run was killed (spec §N-74).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kill {
    pub reason: String,
    pub at: String,
}

/// The whole machine state: what `state.toml` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub schema: u32,
    pub run_id: String,
    pub operation: String,
    /// The project root (the plan's directory) relative to the repository's
    /// working tree; `.` when they are the same.
    #[serde(default = "dot")]
    pub root: String,
    /// The `Supervisor-Seq` of the last transition.
    pub seq: u64,
    pub max_retries: u32,
    pub max_continuations: u32,
    /// `run.retry_delay` of the run's config, filled in by the engine before
    /// each event (policy input, not state; zero retries at once).
    #[serde(skip)]
    pub retry_delay_ms: u64,
    /// `run.deferred_check_min` and `run.deferred_check_max`, filled in the
    /// same way (zero: a deferred condition is checked again at once).
    #[serde(skip)]
    pub deferred_check_ms: (u64, u64),
    /// How the plan was read: `layers|graph|sequential|parallel`.
    pub dependency_structure: String,
    /// `template|dynamic`.
    pub dispatch_mode: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub kill: Option<Kill>,
    /// The coordinated build, when a build command is configured: a unit
    /// starts only once a passing build covered every one of its
    /// dependencies (design §7.12, per dependent rather than per layer).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub build: Option<Build>,
    /// The last commit of the watched branch whose history was reconciled
    /// against the state (observed completions).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reconciled: Option<String>,
    /// The Cross-Unit Needs Registry (v1 §M): entries agents wrote under a
    /// "Cross-Package Needs" heading in their progress files.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub needs: Vec<Need>,
    /// The agents' reported costs reached `run.budget_usd`: no new dispatch
    /// until `resume` (after the budget was raised).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub budget_reached: Option<BudgetReached>,
    /// Agents that met a usage limit (by program): nothing is dispatched to
    /// one while its pause lasts. Ended pauses are kept until the agent
    /// completes a sprint, so waits without a named reset double.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub usage_limits: Vec<LimitPause>,
    /// `run.limit_wait_max`, filled in by the engine before each event
    /// (policy input, not state; zero: no maximum).
    #[serde(skip)]
    pub limit_wait_max_ms: u64,
    /// Each unit works in a linked worktree of its own and sprints enter
    /// the run's integration branch through the merge queue (decided at
    /// `start` from `[run] workspace`; fixed for the run).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub worktrees: bool,
    pub units: Vec<UnitState>,
}

/// An agent paused on its usage limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitPause {
    /// The agent's program (`claude`, `codex`, `aider`).
    pub agent: String,
    /// When dispatches to it go on (RFC 3339, wall clock).
    pub until: String,
    /// When it was met (wall clock).
    pub since: String,
    /// What the agent said.
    pub line: String,
    /// The agent named the reset (else the wait is a backoff).
    #[serde(default)]
    pub named: bool,
    /// Limits in a row that named no reset (the backoff doubles).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub unnamed_hits: u32,
    /// The reset came, or `resume` ended the pause.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub ended: bool,
}

impl State {
    /// A unit's slot: its place in the plan, 1-based (`SUPERVISOR_SLOT`).
    pub fn slot_of(&self, unit: &str) -> Option<u32> {
        self.units
            .iter()
            .position(|u| u.name == unit)
            .map(|i| i as u32 + 1)
    }

    /// The pause of `agent` that holds dispatches at wall time `now`.
    pub fn limit_pause(&self, agent: &str, now: &str) -> Option<&LimitPause> {
        self.usage_limits
            .iter()
            .find(|p| p.agent == agent && !p.ended && !super::retry::due(&p.until, now))
    }

    /// Pauses whose reset has come by `now` and are not recorded as ended.
    pub fn limits_reset(&self, now: &str) -> Vec<String> {
        self.usage_limits
            .iter()
            .filter(|p| !p.ended && super::retry::due(&p.until, now))
            .map(|p| p.agent.clone())
            .collect()
    }

    /// Pauses not ended yet (for status).
    pub fn active_limits(&self) -> impl Iterator<Item = &LimitPause> {
        self.usage_limits.iter().filter(|p| !p.ended)
    }
}

/// When and at what figures the budget stopped new dispatches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetReached {
    pub spent: Usd,
    pub budget: Usd,
    pub at: String,
}

/// One cross-unit need, as its unit's progress file states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Need {
    pub unit: String,
    pub text: String,
}

/// The coordinated build's record (design §7.12).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// Builds run so far.
    #[serde(default)]
    pub runs: u32,
    /// When the build now running started (ISO 8601).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub running_since: Option<String>,
    /// The last build, when it did not pass cleanly: the same build is not
    /// run again for the same work until the commits change or a person
    /// resumes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub unpassed: Option<BuildMark>,
}

/// A build that failed (`block`) or passed with failing exit criteria
/// (`warn`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildMark {
    pub verdict: BuildVerdict,
    /// The project's HEAD the build ran at.
    pub head: String,
    /// The completed work left unbuilt: what the build covered (`block`), or
    /// the units whose exit criteria failed after it (`warn`).
    pub units: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildVerdict {
    Warn,
    Block,
}

/// The run's overall status, derived from its units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overall {
    NotStarted,
    Running,
    Completed,
    Blocked,
    Stopped,
    Killed,
}

impl Overall {
    pub fn as_str(self) -> &'static str {
        match self {
            Overall::NotStarted => "not_started",
            Overall::Running => "running",
            Overall::Completed => "completed",
            Overall::Blocked => "blocked",
            Overall::Stopped => "stopped",
            Overall::Killed => "killed",
        }
    }
}

impl State {
    /// A fresh run of `plan`: every unit NOT_STARTED, every sprint PENDING.
    pub fn new(
        plan: &Plan,
        run_id: &str,
        operation: &str,
        max_retries: u32,
        max_continuations: u32,
    ) -> Self {
        State {
            schema: SCHEMA,
            run_id: run_id.to_string(),
            operation: operation.to_string(),
            root: ".".to_string(),
            seq: 0,
            max_retries: max_retries.max(1),
            max_continuations,
            retry_delay_ms: 0,
            deferred_check_ms: (0, 0),
            dependency_structure: serde_json::to_value(plan.detection.dependencies)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            dispatch_mode: serde_json::to_value(plan.detection.dispatch_mode)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            kill: None,
            build: None,
            reconciled: None,
            needs: Vec::new(),
            budget_reached: None,
            usage_limits: Vec::new(),
            limit_wait_max_ms: 0,
            worktrees: false,
            units: plan
                .units
                .iter()
                .map(|u| UnitState {
                    name: u.name.clone(),
                    dir: u.dir_or_root().to_string(),
                    layer: u.layer,
                    deps: u.deps.clone(),
                    after: u
                        .sprint_deps()
                        .into_iter()
                        .map(|(unit, sprint)| SprintDep { unit, sprint })
                        .collect(),
                    state: UnitStatus::NotStarted,
                    built: false,
                    uncommitted: Vec::new(),
                    notes: None,
                    sprints: u
                        .sprints
                        .iter()
                        .map(|s| SprintState {
                            id: s.id.clone(),
                            name: s.name.clone(),
                            task_type: s.task_type,
                            state: SprintStatus::Pending,
                            attempt: 0,
                            total_attempts: 0,
                            continuations: 0,
                            checks: 0,
                            failures: 0,
                            dispatches: 0,
                            commits: Vec::new(),
                            model: None,
                            score: None,
                            agent: None,
                            retry_at: None,
                            next_check_at: None,
                            interrupted: false,
                            limited: None,
                            last_verified: None,
                            last_failure: None,
                            remaining: Vec::new(),
                            cost: Usd::ZERO,
                            background: Vec::new(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// Turn on the coordinated build (a build command is configured).
    pub fn with_gates(mut self) -> Self {
        self.build = Some(Build::default());
        self
    }

    /// Whether `dep` lets its dependents start: COMPLETED, and covered by a
    /// passing build when builds are configured.
    pub fn dependency_met(&self, dep: &str) -> bool {
        self.unit(dep)
            .is_some_and(|d| d.state == UnitStatus::Completed && (self.build.is_none() || d.built))
    }

    /// The completed units a build would cover now, when one is wanted:
    /// a NOT_STARTED unit has every dependency COMPLETED but not all built,
    /// or every unit is COMPLETED (the final build). One build covers all
    /// completed work not yet built.
    pub fn build_wanted(&self) -> Option<Vec<String>> {
        self.build.as_ref()?;
        let unbuilt: Vec<String> = self
            .units
            .iter()
            .filter(|u| u.state == UnitStatus::Completed && !u.built)
            .map(|u| u.name.clone())
            .collect();
        if unbuilt.is_empty() {
            return None;
        }
        let done = |d: &String| {
            self.unit(d)
                .is_some_and(|d| d.state == UnitStatus::Completed)
        };
        let dependent_waits = self.units.iter().any(|u| {
            u.state == UnitStatus::NotStarted
                && u.deps.iter().all(done)
                && u.deps.iter().any(|d| unbuilt.contains(d))
        });
        let last = self.units.iter().all(|u| u.state == UnitStatus::Completed);
        (dependent_waits || last).then_some(unbuilt)
    }

    /// A build is wanted and it is not the one that last failed or warned
    /// (that one waits for new commits or `resume`).
    pub fn build_due(&self) -> Option<Vec<String>> {
        let wanted = self.build_wanted()?;
        let stuck = self
            .build
            .as_ref()
            .and_then(|b| b.unpassed.as_ref())
            .is_some_and(|m| m.units == wanted);
        (!stuck).then_some(wanted)
    }

    /// The phase a build covering `units` is named after: the lowest layer
    /// among them (a plan without layers is phase 0).
    pub fn build_phase(&self, units: &[String]) -> u32 {
        units
            .iter()
            .filter_map(|n| self.unit(n))
            .map(UnitState::phase)
            .min()
            .unwrap_or(0)
    }

    /// Dollars every agent of the run reported spending.
    pub fn cost(&self) -> Usd {
        self.units.iter().map(UnitState::cost).sum()
    }

    pub fn unit(&self, name: &str) -> Option<&UnitState> {
        self.units.iter().find(|u| u.name == name)
    }

    pub fn unit_index(&self, name: &str) -> Option<usize> {
        self.units.iter().position(|u| u.name == name)
    }

    /// RUNNING units whose sprint waits DISPATCHED for an agent (on a
    /// remote: for a worker to claim it), in plan order.
    pub fn waiting_for_an_agent(&self) -> impl Iterator<Item = &UnitState> {
        self.units
            .iter()
            .filter(|u| u.state == UnitStatus::Running)
            .filter(|u| {
                u.active_sprint()
                    .is_some_and(|sp| sp.state == SprintStatus::Dispatched)
            })
    }

    pub fn active_agents(&self) -> usize {
        self.units
            .iter()
            .filter(|u| u.active_sprint().is_some())
            .count()
    }

    pub fn sprint_total(&self) -> usize {
        self.units.iter().map(|u| u.sprints.len()).sum()
    }

    /// The overall status: `killed` after killall, otherwise what the units
    /// add up to.
    pub fn overall(&self) -> Overall {
        if self.kill.is_some() && self.units.iter().all(|u| u.state != UnitStatus::Running) {
            return Overall::Killed;
        }
        let all = |s: UnitStatus| self.units.iter().all(|u| u.state == s);
        let any = |s: UnitStatus| self.units.iter().any(|u| u.state == s);
        if self.seq == 0 || all(UnitStatus::NotStarted) {
            Overall::NotStarted
        } else if all(UnitStatus::Completed)
            && self.units.iter().all(|u| self.build.is_none() || u.built)
        {
            Overall::Completed
        } else if any(UnitStatus::Running)
            || any(UnitStatus::Stopping)
            || self.build_due().is_some()
            || (self.build_wanted().is_some()
                && self
                    .build
                    .as_ref()
                    .is_some_and(|b| b.running_since.is_some()))
        {
            // A due or running build is work in progress too (the mark of a
            // build that was killed counts only while a build is wanted,
            // which the next tick runs again).
            Overall::Running
        } else if any(UnitStatus::Blocked) {
            Overall::Blocked
        } else if any(UnitStatus::Killed) {
            Overall::Killed
        } else if any(UnitStatus::Stopped) {
            Overall::Stopped
        } else {
            // Only NOT_STARTED units left besides COMPLETED ones: they wait on
            // something that will not finish (a blocked dependency, or a
            // build that failed or warned for the same work).
            Overall::Blocked
        }
    }

    /// Every unit is terminal (the run needs a command to move again).
    pub fn is_finished(&self) -> bool {
        !matches!(self.overall(), Overall::Running | Overall::NotStarted)
    }

    /// NOT_STARTED units that wait on a BLOCKED dependency, with it.
    pub fn waiting_on_blocked(&self) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        for u in self
            .units
            .iter()
            .filter(|u| u.state == UnitStatus::NotStarted)
        {
            for d in &u.deps {
                if self.unit(d).is_some_and(|d| d.state == UnitStatus::Blocked) {
                    out.push((u.name.as_str(), d.as_str()));
                }
            }
        }
        out
    }
}
