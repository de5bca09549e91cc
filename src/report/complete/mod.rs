//! The completion report's data (spec §S): every sprint attempt and phase
//! gate read back from the transition history, the completed sprints' log
//! entries and, once every unit is COMPLETED, the final verification and the
//! cadence analysis. A pure function of the run's records, its final state
//! and its plan snapshot, so the same history always gives the same report.

mod timing;

pub use timing::weight;
pub use timing::Cadence;
pub use timing::Estimate;
pub use timing::ModelCadence;
pub use timing::UnitCadence;
pub use timing::VelocityPhase;

use std::collections::BTreeMap;

use serde::Serialize;
use time::OffsetDateTime;

use crate::machine::Overall;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::machine::Usd;
use crate::plan::CriterionKind;
use crate::plan::Plan;
use crate::plan::TaskType;
use crate::plan_tools::analysis;
use crate::plan_tools::analysis::estimated_turns;
use crate::store::message::Record;

use timing::cadence;

/// How one dispatch (or a completion without one) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Completed,
    Partial,
    Failed,
    Fatal,
    /// Ended by `stop` or `killall`.
    Interrupted,
    /// Still running when the history ends.
    Running,
    /// Completed from history (a marked commit or progress file) without a
    /// dispatch of ours.
    Observed,
    /// A manual sprint a person confirmed.
    Confirmed,
}

impl Outcome {
    /// The sprint state the attempt ended in (one of the formal names).
    pub fn state(self) -> &'static str {
        match self {
            Outcome::Completed | Outcome::Observed | Outcome::Confirmed => "COMPLETED",
            Outcome::Partial => "PARTIAL",
            Outcome::Failed | Outcome::Interrupted => "BACKOFF",
            Outcome::Fatal => "FATAL",
            Outcome::Running => "RUNNING",
        }
    }

    /// The state with how it was reached, where the state alone does not
    /// say: `BACKOFF (interrupted)`, `COMPLETED (observed)`.
    pub fn label(self) -> String {
        match self {
            Outcome::Observed | Outcome::Confirmed | Outcome::Interrupted => {
                format!("{} ({})", self.state(), self.as_str())
            }
            _ => self.state().to_string(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Partial => "partial",
            Outcome::Failed => "failed",
            Outcome::Fatal => "fatal",
            Outcome::Interrupted => "interrupted",
            Outcome::Running => "running",
            Outcome::Observed => "observed",
            Outcome::Confirmed => "confirmed",
        }
    }
}

/// One bar of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    pub unit: String,
    pub sprint: String,
    pub name: String,
    /// The attempt number the machine recorded (`Supervisor-Attempt`).
    pub attempt: u32,
    pub model: Option<String>,
    pub started: String,
    pub ended: Option<String>,
    pub seconds: i64,
    pub outcome: Outcome,
    pub turns: Option<u64>,
    /// Transition numbers of the start and the end (the timeline's axis
    /// when the run was too quick for wall-clock time to show anything).
    pub start_seq: u64,
    pub end_seq: Option<u64>,
}

/// A phase gate's build result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateMark {
    pub phase: u32,
    pub at: String,
    pub passed: bool,
    /// The sprint blamed when it failed (`unit/id`).
    pub blamed: Option<String>,
    pub seq: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriterionCheck {
    pub text: String,
    pub verified: bool,
    /// How it was verified, or why it was not.
    pub how: String,
}

/// A 14b entry: one completed sprint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SprintEntry {
    pub unit: String,
    pub sprint: String,
    pub name: String,
    pub task_type: TaskType,
    pub model: Option<String>,
    pub score: Option<i32>,
    pub attempts: u32,
    pub max_retries: u32,
    /// Dispatch time of the attempt that completed it (the completion time
    /// for an observed completion).
    pub started: String,
    pub completed: String,
    pub seconds: i64,
    /// Turns the completing dispatch reported.
    pub turns: Option<u64>,
    pub max_turns: u32,
    pub estimated_turns: u32,
    pub commits: Vec<String>,
    pub criteria: Vec<CriterionCheck>,
    /// An exit-criterion command ran and passed for it; otherwise it
    /// completed on its agent's word (or a person's), and no report calls
    /// it verified.
    pub verified_by_command: bool,
    /// Dispatches of this sprint (attempts and continuations).
    pub dispatches: u32,
    /// Seconds spent in every attempt, including the completing one.
    pub total_seconds: i64,
    /// The first dispatch's model differed from the completing one.
    pub upgraded: bool,
    pub foundation: u32,
    /// Dollars its agents reported, over every dispatch of the sprint.
    pub cost_usd: Usd,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub planned: usize,
    pub completed: usize,
    /// Completed sprints by the model that completed them.
    pub models: BTreeMap<String, usize>,
    /// The relative cost: haiku×1 + sonnet×10 + opus×30 over every
    /// dispatch (the model usage's total).
    pub cost: u32,
    /// The sum of the completed sprints' durations.
    pub seconds: i64,
    /// Dollars the agents reported spending, over every dispatch.
    pub spent_usd: Usd,
    /// The same, per work unit (plan order).
    pub unit_spent: Vec<UnitSpent>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitSpent {
    pub unit: String,
    pub cost_usd: Usd,
}

/// A sprint that is not COMPLETED, for incomplete runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outstanding {
    pub unit: String,
    pub unit_state: String,
    pub sprint: String,
    pub name: String,
    pub state: String,
    pub attempts: u32,
    pub last_failure: Option<String>,
    pub cost_usd: Usd,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Issue {
    pub title: String,
    pub severity: &'static str,
    pub details: String,
    pub impact: String,
    pub recommendation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub sprint: String,
    pub completed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriteriaLine {
    pub sprint: String,
    pub verified: usize,
    pub total: usize,
    pub missing: Vec<String>,
    /// A command checked it (see `SprintEntry::verified_by_command`).
    pub by_command: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLine {
    pub sprint: String,
    pub task_type: TaskType,
    pub commits: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalVerification {
    pub at: String,
    pub coverage: Vec<Coverage>,
    pub criteria: Vec<CriteriaLine>,
    pub commits: Vec<CommitLine>,
    pub issues: Vec<Issue>,
    pub cadence: Cadence,
    pub passed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub project: String,
    pub operation: String,
    pub run_id: String,
    pub file_name: String,
    pub overall: Overall,
    pub complete: bool,
    pub start: Option<String>,
    pub last_updated: Option<String>,
    pub units: usize,
    pub summary: Summary,
    pub sprints: Vec<SprintEntry>,
    pub outstanding: Vec<Outstanding>,
    pub attempts: Vec<Attempt>,
    pub gates: Vec<GateMark>,
    pub final_verification: Option<FinalVerification>,
    /// Dispatches, sprints and relative cost per model tier.
    pub usage: crate::report::usage::ModelUsage,
}

/// `COMPLETE_<NAME>.md` with the name in upper snake case. A title that
/// starts with the plan's file name (`EXECUTION_PLAN.md — Bookshelf`) is
/// named by the rest.
pub fn file_name(project: &str) -> String {
    let project = without_file_name(project);
    let mut out = String::new();
    for c in project.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let name = out.trim_matches('_');
    format!(
        "COMPLETE_{}.md",
        if name.is_empty() { "PLAN" } else { name }
    )
}

/// The title after a leading Markdown file name and the punctuation that
/// follows it; the whole title when that leaves nothing.
fn without_file_name(title: &str) -> &str {
    let title = title.trim();
    let first = title.split_whitespace().next().unwrap_or_default();
    let name = first.trim_end_matches([':', ',', ';']);
    if !name.to_ascii_lowercase().ends_with(".md") {
        return title;
    }
    let rest = title[first.len()..]
        .trim_start_matches(|c: char| c.is_whitespace() || ":-–—|,;/".contains(c))
        .trim();
    if rest.chars().any(char::is_alphanumeric) {
        rest
    } else {
        title
    }
}

pub fn parse_time(t: &str) -> Option<OffsetDateTime> {
    crate::store::clock::parse(t)
}

fn seconds_between(a: &str, b: &str) -> i64 {
    match (parse_time(a), parse_time(b)) {
        (Some(a), Some(b)) => (b - a).whole_seconds().max(0),
        _ => 0,
    }
}

fn attempt_number(r: &Record) -> u32 {
    r.attempt
        .as_deref()
        .and_then(|a| a.split('/').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Read the attempts and gates out of the records (oldest first).
pub fn attempts_and_gates(records: &[Record], state: &State) -> (Vec<Attempt>, Vec<GateMark>) {
    let mut attempts: Vec<Attempt> = Vec::new();
    let mut open: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut gates = Vec::new();
    let name_of = |unit: &str, sprint: &str| {
        state
            .unit(unit)
            .and_then(|u| u.sprints.iter().find(|s| s.id.to_string() == sprint))
            .map(|s| s.name.clone())
            .unwrap_or_default()
    };
    let phase_of = |unit: &str| state.unit(unit).map(|u| u.phase()).unwrap_or(0);
    for r in records {
        let event = r.event.as_deref().unwrap_or("");
        if event == "gate-passed" && r.unit.is_none() {
            let phase = r
                .why
                .strip_prefix("phase ")
                .and_then(|x| x.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            gates.push(GateMark {
                phase,
                at: r.time.clone(),
                passed: true,
                blamed: None,
                seq: r.seq.unwrap_or(0),
            });
            continue;
        }
        if event == "usage" {
            // Turns its agent reported at exit, after its commit had
            // completed the sprint: they belong to the attempt that did.
            if let (Some(unit), Some(sprint), Some(t)) = (&r.unit, &r.sprint, r.turns) {
                if let Some(a) = attempts
                    .iter_mut()
                    .rev()
                    .find(|a| &a.unit == unit && &a.sprint == sprint)
                {
                    a.turns = Some(t);
                }
            }
            continue;
        }
        let (Some(unit), Some(sprint), Some(from), Some(to)) =
            (&r.unit, &r.sprint, r.from.as_deref(), r.to.as_deref())
        else {
            continue;
        };
        let key = (unit.clone(), sprint.clone());
        let active = |s: &str| s == "DISPATCHED" || s == "RUNNING";
        if to == "DISPATCHED" {
            open.insert(key, attempts.len());
            attempts.push(Attempt {
                unit: unit.clone(),
                sprint: sprint.clone(),
                name: name_of(unit, sprint),
                attempt: attempt_number(r),
                model: r.model.clone(),
                started: r.time.clone(),
                ended: None,
                seconds: 0,
                outcome: Outcome::Running,
                turns: None,
                start_seq: r.seq.unwrap_or(0),
                end_seq: None,
            });
            continue;
        }
        if active(from) && !active(to) {
            let outcome = match (to, event) {
                (_, "stop" | "force-stop" | "killall") => Outcome::Interrupted,
                ("COMPLETED", _) => Outcome::Completed,
                ("PARTIAL", _) => Outcome::Partial,
                ("FATAL", _) => Outcome::Fatal,
                _ => Outcome::Failed,
            };
            if let Some(i) = open.remove(&key) {
                let a = &mut attempts[i];
                a.ended = Some(r.time.clone());
                a.seconds = seconds_between(&a.started, &r.time);
                a.outcome = outcome;
                a.turns = r.turns;
                a.end_seq = r.seq;
            }
            continue;
        }
        if from == "BACKOFF" && to == "FATAL" {
            // Retries ran out: the attempt that failed last is the fatal one.
            if let Some(a) = attempts
                .iter_mut()
                .rev()
                .find(|a| &a.unit == unit && &a.sprint == sprint)
            {
                a.outcome = Outcome::Fatal;
            }
            continue;
        }
        if to == "COMPLETED" && (event == "observed" || event == "confirm") {
            attempts.push(Attempt {
                unit: unit.clone(),
                sprint: sprint.clone(),
                name: name_of(unit, sprint),
                attempt: attempt_number(r),
                model: r.model.clone(),
                started: r.time.clone(),
                ended: Some(r.time.clone()),
                seconds: 0,
                outcome: if event == "observed" {
                    Outcome::Observed
                } else {
                    Outcome::Confirmed
                },
                turns: None,
                start_seq: r.seq.unwrap_or(0),
                end_seq: r.seq,
            });
            continue;
        }
        if event == "gate-failed" && from == "COMPLETED" {
            gates.push(GateMark {
                phase: phase_of(unit),
                at: r.time.clone(),
                passed: false,
                blamed: Some(format!("{unit}/{sprint}")),
                seq: r.seq.unwrap_or(0),
            });
        }
    }
    (attempts, gates)
}

/// A criterion's `how` when its command ran and passed.
pub const RAN_AND_PASSED: &str = "ran and passed";

/// Which criteria verification confirmed: runnable ones when the sprint's
/// verdict passed every exit criterion (or history showed them passing);
/// the rest only when ticked in the plan or confirmed by a person.
fn criteria_checks(
    plan_sprint: Option<&crate::plan::Sprint>,
    evidence: &str,
    confirmed: bool,
) -> Vec<CriterionCheck> {
    let Some(ps) = plan_sprint else {
        return Vec::new();
    };
    let all_passed = evidence
        .split("exit criteria ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|f| f.split_once('/'))
        .is_some_and(|(a, b)| a == b);
    ps.exit
        .iter()
        .map(|c| {
            let (verified, how) = if c.command.is_some() && all_passed {
                (true, RAN_AND_PASSED.to_string())
            } else if c.checked {
                (true, "ticked in the plan".into())
            } else if confirmed {
                (true, "confirmed by a person".into())
            } else if c.command.is_some() {
                (false, "not confirmed by the verdict".into())
            } else if c.kind == CriterionKind::Checklist {
                (false, "checklist item: not machine-verifiable".into())
            } else {
                (false, "statement with no check to run".into())
            };
            CriterionCheck {
                text: c.text.clone(),
                verified,
                how,
            }
        })
        .collect()
}

fn short(c: &str) -> String {
    c.chars().take(7).collect()
}

/// Build the report. `records` are this run's transitions, oldest first.
pub fn build(records: &[Record], state: &State, plan: &Plan, max_turns: u32) -> Report {
    let (attempts, gates) = attempts_and_gates(records, state);
    let project = plan
        .title
        .clone()
        .unwrap_or_else(|| state.operation.clone());
    let mut completions: Vec<(usize, String, String)> = Vec::new(); // (record index, unit, sprint)
    for (i, r) in records.iter().enumerate() {
        if r.to.as_deref() == Some("COMPLETED") && r.sprint.is_some() {
            let (u, s) = (
                r.unit.clone().unwrap_or_default(),
                r.sprint.clone().unwrap_or_default(),
            );
            // Only the last completion of a sprint counts (a failed phase
            // gate reopens it).
            completions.retain(|(_, cu, cs)| !(cu == &u && cs == &s));
            completions.push((i, u, s));
        }
    }
    let mut sprints = Vec::new();
    for (i, unit, id) in &completions {
        let Some(us) = state.unit(unit) else { continue };
        let Some(ss) = us.sprints.iter().find(|s| &s.id.to_string() == id) else {
            continue;
        };
        if ss.state != SprintStatus::Completed {
            continue;
        }
        let record = &records[*i];
        let mine: Vec<&Attempt> = attempts
            .iter()
            .filter(|a| &a.unit == unit && &a.sprint == id)
            .collect();
        let last = mine.last();
        let started = last
            .map(|a| a.started.clone())
            .unwrap_or_else(|| record.time.clone());
        let pu = plan.unit(unit);
        let ps = pu.and_then(|u| u.sprints.iter().find(|s| &s.id.to_string() == id));
        let at = pu.and_then(|u| {
            let ui = plan.units.iter().position(|x| x.name == u.name)?;
            let si = u.sprints.iter().position(|s| &s.id.to_string() == id)?;
            Some(analysis::At {
                unit: ui,
                sprint: si,
            })
        });
        let model = last
            .and_then(|a| a.model.clone())
            .or(ss.model.map(|m| m.to_string()));
        let first_model = mine.first().and_then(|a| a.model.clone());
        let checks = criteria_checks(
            ps,
            ss.last_verified.as_deref().unwrap_or(""),
            record.event.as_deref() == Some("confirm"),
        );
        sprints.push(SprintEntry {
            unit: unit.clone(),
            sprint: id.clone(),
            name: ss.name.clone(),
            task_type: ss.task_type,
            model: model.clone(),
            score: ss.score,
            attempts: ss.total_attempts.max(1),
            max_retries: state.max_retries,
            seconds: seconds_between(&started, &record.time),
            started,
            completed: record.time.clone(),
            turns: last.and_then(|a| a.turns),
            max_turns,
            estimated_turns: ps.map(estimated_turns).unwrap_or(0),
            commits: ss.commits.iter().map(|c| short(c)).collect(),
            verified_by_command: checks.iter().any(|c| c.how == RAN_AND_PASSED),
            criteria: checks,
            dispatches: ss.dispatches,
            total_seconds: mine.iter().map(|a| a.seconds).sum(),
            upgraded: first_model.is_some() && first_model != model,
            foundation: at.map(|a| analysis::foundation_score(plan, a)).unwrap_or(0),
            cost_usd: ss.cost,
        });
    }
    let mut models: BTreeMap<String, usize> = BTreeMap::new();
    for s in &sprints {
        if let Some(m) = &s.model {
            *models.entry(m.clone()).or_default() += 1;
        }
    }
    // Every dispatch was paid for, the failed ones too: the relative cost
    // is the model usage's, so the summary and its table agree.
    let usage = crate::report::usage::of_run(records, state);
    let cost = usage.relative_cost;
    let planned = state.units.iter().map(|u| u.sprints.len()).sum();
    let summary = Summary {
        planned,
        completed: sprints.len(),
        models,
        cost,
        seconds: sprints.iter().map(|s| s.seconds).sum(),
        spent_usd: state.cost(),
        unit_spent: state
            .units
            .iter()
            .map(|u| UnitSpent {
                unit: u.name.clone(),
                cost_usd: u.cost(),
            })
            .collect(),
    };
    let outstanding = state
        .units
        .iter()
        .flat_map(|u| {
            u.sprints
                .iter()
                .filter(|s| s.state != SprintStatus::Completed)
                .map(move |s| Outstanding {
                    unit: u.name.clone(),
                    unit_state: u.state.to_string(),
                    sprint: s.id.to_string(),
                    name: s.name.clone(),
                    state: s.state.to_string(),
                    attempts: s.total_attempts,
                    last_failure: s.last_failure.clone(),
                    cost_usd: s.cost,
                })
        })
        .collect();
    let overall = state.overall();
    let complete = overall == Overall::Completed;
    let start = attempts.first().map(|a| a.started.clone());
    let last_updated = records.last().map(|r| r.time.clone());
    let final_verification = complete.then(|| {
        final_verification(
            state,
            &sprints,
            &attempts,
            start.clone().unwrap_or_default(),
            last_updated.clone().unwrap_or_default(),
            max_turns,
        )
    });
    Report {
        file_name: file_name(&project),
        project,
        operation: state.operation.clone(),
        run_id: state.run_id.clone(),
        overall,
        complete,
        start,
        last_updated,
        units: state.units.len(),
        summary,
        sprints,
        outstanding,
        attempts,
        gates,
        final_verification,
        usage,
    }
}

fn final_verification(
    state: &State,
    sprints: &[SprintEntry],
    attempts: &[Attempt],
    start: String,
    at: String,
    max_turns: u32,
) -> FinalVerification {
    let label = |u: &str, s: &str| format!("{u}/{s}");
    let find = |u: &str, s: &str| sprints.iter().find(|e| e.unit == u && e.sprint == s);
    let mut coverage = Vec::new();
    let mut criteria = Vec::new();
    let mut commits = Vec::new();
    let mut issues = Vec::new();
    for u in &state.units {
        for s in &u.sprints {
            let id = s.id.to_string();
            let entry = find(&u.name, &id);
            coverage.push(Coverage {
                sprint: label(&u.name, &id),
                completed: entry.is_some(),
            });
            let Some(e) = entry else {
                issues.push(Issue {
                    title: format!(
                        "Sprint {} missing from the completion log",
                        label(&u.name, &id)
                    ),
                    severity: "CRITICAL",
                    details: format!(
                        "The sprint is {} in the final state and never completed in the history.",
                        s.state
                    ),
                    impact: "The plan's coverage is incomplete.".into(),
                    recommendation: "Review SUPERVISOR_STATE.md and git history to confirm status"
                        .into(),
                });
                continue;
            };
            let missing: Vec<String> = e
                .criteria
                .iter()
                .filter(|c| !c.verified)
                .map(|c| c.text.clone())
                .collect();
            for m in &missing {
                issues.push(Issue {
                    title: format!("Unverified exit criterion in {}", label(&u.name, &id)),
                    severity: "HIGH",
                    details: format!("\"{m}\" was not verified."),
                    impact: "The sprint may be complete in name only.".into(),
                    recommendation: "Manually run verification command to confirm".into(),
                });
            }
            criteria.push(CriteriaLine {
                sprint: label(&u.name, &id),
                verified: e.criteria.len() - missing.len(),
                total: e.criteria.len(),
                missing,
                by_command: e.verified_by_command,
            });
            commits.push(CommitLine {
                sprint: label(&u.name, &id),
                task_type: e.task_type,
                commits: e.commits.len(),
            });
            if e.task_type == TaskType::Code && e.commits.is_empty() {
                issues.push(Issue {
                    title: format!("Code sprint {} has no commits", label(&u.name, &id)),
                    severity: "HIGH",
                    details: "No commit in the sprint's scope was recorded.".into(),
                    impact: "Its work may be uncommitted or made elsewhere.".into(),
                    recommendation: "Check `git log` for the sprint's work and commit it".into(),
                });
            }
        }
    }
    let cadence = cadence(state, sprints, attempts, start, at.clone(), max_turns);
    FinalVerification {
        at,
        passed: issues.is_empty(),
        coverage,
        criteria,
        commits,
        issues,
        cadence,
    }
}
