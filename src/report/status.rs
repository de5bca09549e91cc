//! The status report (spec §R, v2 format) as text, and its JSON form
//! (design §8). Read-only: computed from the published state alone.

use std::fmt::Write;

use serde::Serialize;

use super::attempt;
use super::deps;
use super::sprint_position;
use super::NONE;
use crate::machine::Overall;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::machine::UnitStatus;

#[derive(Debug, Serialize)]
pub struct StatusJson<'a> {
    pub run_id: Option<&'a str>,
    pub operation: Option<&'a str>,
    pub overall: &'static str,
    /// What waits for a person, each with the command that acts on it:
    /// blocked units, confirmations, usage-limit pauses, the budget.
    pub needs_you: Vec<super::needs_you::Need>,
    /// Agents paused on their usage limit, with the reset and the line
    /// the agent printed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub usage_limits: Vec<super::needs_you::LimitJson>,
    pub units: Vec<UnitJson<'a>>,
    pub active_agents: usize,
    pub blocked: Vec<String>,
    pub waiting_on_blocked: Vec<WaitJson<'a>>,
    /// What every waiting thing waits for, in words.
    pub waiting: Vec<String>,
    pub next_event: String,
    /// The Cross-Unit Needs Registry.
    pub needs: Vec<crate::machine::Need>,
    /// Dollars every agent of the run reported spending.
    pub cost_usd: crate::machine::Usd,
    /// Set when the spending reached `run.budget_usd`: no new dispatches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_reached: Option<&'a crate::machine::BudgetReached>,
    /// The working tree's plan differs from the run's snapshot.
    pub plan_drift: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_diff: Option<String>,
    /// The working tree's config differs from the run's snapshot.
    pub config_drift: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_diff: Option<String>,
    /// With `workspace = "worktree"`: the run's integration branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integration_branch: Option<String>,
    /// With `workspace = "worktree"`: each unit's worktree and branch.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub workspaces: std::collections::BTreeMap<String, crate::workspace::UnitWorkspace>,
    /// How the state stood against each remote at the last `sync`.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub remotes: std::collections::BTreeMap<String, crate::store::sync::Relation>,
    /// On a run that lives on a remote: the worker each claimed sprint's
    /// agent runs on, by unit.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub workers: std::collections::BTreeMap<String, String>,
    /// With `[run] land`: what landing the completed run did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<String>,
    /// The plan's sprints no exit-criterion command can check: each
    /// completes on its agent's word.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub no_runnable_criterion: Vec<super::criteria::Unchecked>,
    /// Dispatches, their share and the relative cost per model tier (read
    /// from the history by the caller; absent without a run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_usage: Option<super::usage::ModelUsage>,
    /// The processes background sprints left running, with whether each
    /// still runs (looked up by the caller).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub background: Vec<BackgroundJson>,
    /// The last line each running agent printed (read by the caller from
    /// the agents' logs), by unit.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub agent_last_lines: std::collections::BTreeMap<String, String>,
}

/// One process a background sprint's agent left running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackgroundJson {
    pub unit: String,
    pub sprint: String,
    pub pid: u32,
    pub command: String,
    pub running: bool,
}

/// The run's background processes; `running` says whether one still runs.
pub fn background(
    s: &State,
    running: &dyn Fn(&crate::machine::BackgroundProcess) -> bool,
) -> Vec<BackgroundJson> {
    s.background()
        .into_iter()
        .map(|b| BackgroundJson {
            unit: b.unit.to_string(),
            sprint: b.sprint.to_string(),
            pid: b.process.pid,
            command: b.process.command.clone(),
            running: running(b.process),
        })
        .collect()
}

/// One line per background process: `server: sprint 1's background
/// process 4242 (`sleep 300`) is running.`
pub fn background_lines(entries: &[BackgroundJson]) -> Vec<String> {
    entries
        .iter()
        .map(|b| {
            format!(
                "{}: sprint {}'s background process {} (`{}`) {}.",
                b.unit,
                b.sprint,
                b.pid,
                b.command,
                if b.running {
                    "is running"
                } else {
                    "is no longer running"
                }
            )
        })
        .collect()
}

#[derive(Debug, Serialize)]
pub struct WaitJson<'a> {
    pub unit: &'a str,
    pub blocked_dependency: &'a str,
}

#[derive(Debug, Serialize)]
pub struct UnitJson<'a> {
    pub name: &'a str,
    pub dir: &'a str,
    pub layer: Option<u32>,
    pub deps: &'a [String],
    pub state: UnitStatus,
    pub sprint_total: usize,
    pub sprint_completed: usize,
    pub current: Option<CurrentJson<'a>>,
    /// Dollars the unit's agents reported, over all its sprints.
    pub cost_usd: crate::machine::Usd,
    /// The same per sprint, for the sprints that cost anything.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub sprint_costs: std::collections::BTreeMap<String, crate::machine::Usd>,
}

#[derive(Debug, Serialize)]
pub struct CurrentJson<'a> {
    pub id: String,
    pub name: &'a str,
    pub state: SprintStatus,
    #[serde(rename = "type")]
    pub task_type: crate::plan::TaskType,
    pub model: Option<crate::machine::Model>,
    pub score: Option<i32>,
    pub attempt: u32,
    pub max_retries: u32,
    pub total_attempts: u32,
    /// Dollars this sprint's agents reported, over every dispatch.
    pub cost_usd: crate::machine::Usd,
    /// Why the last attempt failed (BACKOFF and FATAL sprints).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<&'a str>,
    /// When a failed sprint's retry starts (RFC 3339), while it waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_at: Option<&'a str>,
    /// When an agent next checks a deferred sprint's condition (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_check_at: Option<&'a str>,
}

/// The BLOCKED notice of spec §R-96 for each blocked unit.
pub fn blocked_notices(s: &State) -> Vec<String> {
    s.units
        .iter()
        .filter(|u| u.state == UnitStatus::Blocked)
        .filter_map(|u| {
            let sp = u.sprints.iter().find(|x| x.state == SprintStatus::Fatal)?;
            Some(format!(
                "BLOCKED: {} Sprint {} — FATAL after {} attempts. Run git supervisor resume to retry.",
                u.name, sp.id, s.max_retries
            ))
        })
        .collect()
}

/// Why a failed sprint's last attempt failed, while it waits in BACKOFF or
/// FATAL (denied tools, the agent's error, what verification found).
fn failure_of(sp: &crate::machine::SprintState) -> Option<&str> {
    matches!(sp.state, SprintStatus::Backoff | SprintStatus::Fatal)
        .then_some(sp.last_failure.as_deref())
        .flatten()
}

/// What the agents reported spending (in total, per unit, per sprint) and
/// why nothing is dispatched when the budget is reached.
fn cost_lines(s: &State, o: &mut String) -> std::fmt::Result {
    let total = s.cost();
    if !total.is_zero() {
        writeln!(o, "Cost: {total} reported by the agents")?;
        for u in s.units.iter().filter(|u| !u.cost().is_zero()) {
            let sprints: Vec<String> = u
                .sprints
                .iter()
                .filter(|sp| !sp.cost.is_zero())
                .map(|sp| format!("sprint {} {}", sp.id, sp.cost))
                .collect();
            writeln!(o, "  {}: {} ({})", u.name, u.cost(), sprints.join(", "))?;
        }
    }
    if let Some(b) = &s.budget_reached {
        writeln!(
            o,
            "Budget reached: {} spent of run.budget_usd {} at {}; no new dispatches. Raise run.budget_usd in .workflow/config.toml, run `git supervisor replan`, then `git supervisor resume`.",
            b.spent, b.budget, b.at
        )?;
    }
    Ok(())
}

/// The four-line message of spec §P-81 for a BLOCKED unit.
pub fn fatal_message(s: &State, unit: &str) -> Option<String> {
    let u = s.unit(unit)?;
    let sp = u.sprints.iter().find(|x| x.state == SprintStatus::Fatal)?;
    let last = sp
        .last_failure
        .as_deref()
        .map(|f| f.lines().next().unwrap_or_default().trim().to_string())
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| "no failure was recorded".into());
    let (unit, last) = (
        crate::base::escape::visible(unit),
        crate::base::escape::visible(&last),
    );
    Some(format!(
        "BLOCKED: {unit} Sprint {} failed after {} attempts.\nLast failure: {last}\nTo retry: git supervisor resume\n(resume resets the sprint to PENDING and the work unit to RUNNING)",
        sp.id, s.max_retries
    ))
}

/// What every waiting thing waits for, one line each: a manual sprint for
/// its confirmation, a retry, a running build, each NOT_STARTED unit's
/// unmet dependencies (issue 15, item 7).
pub fn waits(s: &State) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(since) = s.build.as_ref().and_then(|b| b.running_since.as_deref()) {
        out.push(format!("A coordinated build is running since {since}."));
    }
    let mark = s.build.as_ref().and_then(|b| b.unpassed.as_ref());
    for u in &s.units {
        match u.state {
            UnitStatus::Running | UnitStatus::Stopping => {
                let Some(sp) = u.current() else { continue };
                if sp.task_type == crate::plan::TaskType::Deferred && sp.checks > 0 {
                    let mut line = deferred_wait(&u.name, &sp.remaining.join("; "), sp.checks);
                    if let Some(at) = sp.next_check_at.as_deref() {
                        line = format!("{} Next check at {at}.", line);
                    }
                    out.push(line);
                    continue;
                }
                match sp.state {
                    SprintStatus::Partial if sp.task_type == crate::plan::TaskType::Manual => out
                        .push(format!(
                            "{}: manual sprint {} waits for `git supervisor confirm {} {}`.",
                            u.name, sp.id, u.name, sp.id
                        )),
                    SprintStatus::Backoff if sp.limited.is_some() => out.push(format!(
                        "{}: sprint {} waits for the usage limit of `{}` to reset{} (attempt {} kept).",
                        u.name,
                        sp.id,
                        sp.limited.as_deref().unwrap_or_default(),
                        sp.retry_at
                            .as_ref()
                            .map(|at| format!(" at {at}"))
                            .unwrap_or_default(),
                        sp.attempt.max(1),
                    )),
                    SprintStatus::Backoff if u.state == UnitStatus::Running => out.push(format!(
                        "{}: sprint {} retries (attempt {}/{}) {}.",
                        u.name,
                        sp.id,
                        sp.attempt + 1,
                        s.max_retries,
                        sp.retry_at
                            .as_ref()
                            .map_or("at the next tick".to_string(), |at| format!("at {at}"))
                    )),
                    _ => {}
                }
            }
            UnitStatus::NotStarted => {
                let unmet: Vec<String> = u
                    .deps
                    .iter()
                    .filter(|d| !s.dependency_met_for(u, d))
                    .map(|d| match s.unit(d) {
                        Some(dep) if dep.state != UnitStatus::Completed => {
                            format!("{d} ({})", dep.state)
                        }
                        _ => match mark {
                            Some(m) if m.units.contains(d) => match m.verdict {
                                crate::machine::BuildVerdict::Warn => format!(
                                    "{d} (its exit criteria fail after the last build; fix them and resume)"
                                ),
                                crate::machine::BuildVerdict::Block => {
                                    format!("{d} (the last build failed)")
                                }
                            },
                            _ => format!("a passing build covering {d}"),
                        },
                    })
                    .collect();
                if !unmet.is_empty() {
                    out.push(format!("{} waits for {}.", u.name, unmet.join(", ")));
                }
            }
            _ => {}
        }
    }
    out
}

/// A deferred sprint's wait: "waiting on <condition> (check N of 20)".
pub fn deferred_wait(unit: &str, condition: &str, checks: u32) -> String {
    let notice = crate::machine::DEFERRED_NOTICE_CHECKS;
    let count = if checks <= notice {
        format!("check {checks} of {notice}")
    } else {
        format!("check {checks}; still not met after {notice} checks: keep waiting or intervene")
    };
    format!("{unit}: waiting on {condition} ({count}).")
}

/// What happens next, in words.
pub fn next_event(s: Option<&State>) -> String {
    let Some(s) = s else {
        return "none — no run yet; start one with `git supervisor start`".into();
    };
    let active = s.active_agents();
    match s.overall() {
        Overall::Completed => "none — every work unit is COMPLETED".into(),
        Overall::Killed => "none — run killed; `git supervisor resume` continues it".into(),
        Overall::Stopped if s.budget_reached.is_some() => {
            "none — the budget is reached; raise run.budget_usd, `git supervisor replan`, then `git supervisor resume`".into()
        }
        Overall::Stopped => "none — run stopped; `git supervisor resume` continues it".into(),
        _ if active == 0 && s.active_limits().next().is_some() => {
            let p = s.active_limits().next().expect("checked");
            format!(
                "waiting for the usage limit of `{}` to reset at {}; the agent's wrapper wakes the engine then (`git supervisor resume` ends the pause now)",
                p.agent, p.until
            )
        }
        Overall::Blocked if active == 0 => {
            "waiting for intervention: fix the cause, then `git supervisor resume`".into()
        }
        _ if active > 0 => {
            let unstarted = s
                .units
                .iter()
                .filter_map(|u| u.active_sprint())
                .filter(|sp| sp.state == crate::machine::SprintStatus::Dispatched)
                .count();
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let running = active - unstarted;
            if unstarted == 0 {
                format!(
                    "waiting for {active} active agent{} (an agent's exit wakes the engine)",
                    plural(active)
                )
            } else {
                let also = if running > 0 {
                    format!(" and {running} active agent{}", plural(running))
                } else {
                    String::new()
                };
                format!(
                    "waiting for {unstarted} dispatched sprint{} to start{also} (in a run on a remote, `git supervisor worker` claims them)",
                    plural(unstarted)
                )
            }
        }
        _ => "dispatching eligible sprints at the next tick".into(),
    }
}

pub fn json(s: Option<&State>) -> StatusJson<'_> {
    let Some(s) = s else {
        return StatusJson {
            run_id: None,
            operation: None,
            overall: Overall::NotStarted.as_str(),
            needs_you: Vec::new(),
            usage_limits: Vec::new(),
            units: Vec::new(),
            active_agents: 0,
            blocked: Vec::new(),
            waiting_on_blocked: Vec::new(),
            waiting: Vec::new(),
            next_event: next_event(None),
            needs: Vec::new(),
            cost_usd: crate::machine::Usd::ZERO,
            budget_reached: None,
            plan_drift: false,
            plan_diff: None,
            config_drift: false,
            config_diff: None,
            integration_branch: None,
            workspaces: Default::default(),
            landed: None,
            remotes: Default::default(),
            workers: Default::default(),
            no_runnable_criterion: Vec::new(),
            model_usage: None,
            background: Vec::new(),
            agent_last_lines: Default::default(),
        };
    };
    let now = now_of(s);
    StatusJson {
        run_id: Some(&s.run_id),
        operation: Some(&s.operation),
        overall: s.overall().as_str(),
        needs_you: super::needs_you::needs(s, &now),
        usage_limits: super::needs_you::limits(s, &now),
        units: s
            .units
            .iter()
            .map(|u| UnitJson {
                name: &u.name,
                dir: &u.dir,
                layer: u.layer,
                deps: &u.deps,
                state: u.state,
                sprint_total: u.sprints.len(),
                sprint_completed: u.completed_sprints(),
                current: u.current().map(|sp| CurrentJson {
                    id: sp.id.to_string(),
                    name: &sp.name,
                    state: sp.state,
                    task_type: sp.task_type,
                    model: sp.model,
                    score: sp.score,
                    attempt: sp.attempt,
                    max_retries: s.max_retries,
                    total_attempts: sp.total_attempts,
                    cost_usd: sp.cost,
                    last_failure: failure_of(sp),
                    retry_at: sp
                        .retry_at
                        .as_deref()
                        .filter(|_| sp.state == SprintStatus::Backoff),
                    next_check_at: sp
                        .next_check_at
                        .as_deref()
                        .filter(|_| sp.state == SprintStatus::Partial),
                }),
                cost_usd: u.cost(),
                sprint_costs: u
                    .sprints
                    .iter()
                    .filter(|sp| !sp.cost.is_zero())
                    .map(|sp| (sp.id.to_string(), sp.cost))
                    .collect(),
            })
            .collect(),
        active_agents: s.active_agents(),
        workers: claims(s)
            .into_iter()
            .map(|(u, _, w)| (u.to_string(), w.to_string()))
            .collect(),
        blocked: blocked_notices(s),
        waiting_on_blocked: s
            .waiting_on_blocked()
            .into_iter()
            .map(|(unit, blocked_dependency)| WaitJson {
                unit,
                blocked_dependency,
            })
            .collect(),
        waiting: waits(s),
        next_event: next_event(Some(s)),
        needs: s.needs.clone(),
        cost_usd: s.cost(),
        budget_reached: s.budget_reached.as_ref(),
        plan_drift: false,
        plan_diff: None,
        config_drift: false,
        config_diff: None,
        integration_branch: None,
        workspaces: Default::default(),
        landed: None,
        remotes: Default::default(),
        no_runnable_criterion: Vec::new(),
        model_usage: None,
        background: Vec::new(),
        agent_last_lines: Default::default(),
    }
}

/// The time "in 2h 13m" is counted from: the clock the state is stamped
/// with (the wall clock, or the pinned one).
fn now_of(s: &State) -> String {
    crate::store::clock::Clock::from_env().iso_at_seq(s.seq)
}

/// Colours for state names on a terminal.
fn paint(name: &str, color: bool) -> String {
    if !color {
        return name.to_string();
    }
    let code = match name {
        "COMPLETED" => "32",
        "RUNNING" | "DISPATCHED" | "PARTIAL" | "STOPPING" => "33",
        "BLOCKED" | "FATAL" | "KILLED" | "BACKOFF" => "31",
        _ => return name.to_string(),
    };
    format!("\x1b[{code}m{name}\x1b[0m")
}

/// The spec's status table (v2) with its three summary lines.
pub fn text(s: Option<&State>, timestamp: &str, color: bool) -> String {
    text_with_usage(s, timestamp, color, None)
}

/// The same with the model usage block the spec's v2 status carries for
/// cost tracking. It needs the run's history, which the caller reads: the
/// live views redraw with [`text`] and do not walk the history each time.
pub fn text_with_usage(
    s: Option<&State>,
    timestamp: &str,
    color: bool,
    usage: Option<&super::usage::ModelUsage>,
) -> String {
    let mut o = String::new();
    let shown = s.map(escaped_names);
    let _ = text_into(shown.as_ref(), timestamp, color, usage, &mut o);
    o
}

/// The state with its free text made safe to print: names from the plan,
/// and what agents said (their errors reach a sprint's failure, their
/// needs the run's list). Each becomes one line, so no text can pose as a
/// line of the report.
fn escaped_names(s: &State) -> State {
    let one = |t: &mut String| *t = crate::base::escape::visible(t).into_owned();
    let mut s = s.clone();
    one(&mut s.operation);
    for u in &mut s.units {
        one(&mut u.name);
        u.deps.iter_mut().for_each(one);
        for sp in &mut u.sprints {
            one(&mut sp.name);
            sp.last_failure.iter_mut().for_each(one);
            sp.remaining.iter_mut().for_each(one);
        }
    }
    if let Some(k) = &mut s.kill {
        one(&mut k.reason);
    }
    for n in &mut s.needs {
        one(&mut n.unit);
        one(&mut n.text);
    }
    s
}

fn text_into(
    s: Option<&State>,
    timestamp: &str,
    color: bool,
    usage: Option<&super::usage::ModelUsage>,
    o: &mut String,
) -> std::fmt::Result {
    writeln!(o, "## Supervisor Status — {timestamp}")?;
    let Some(s) = s else {
        writeln!(o)?;
        writeln!(o, "No run in this repository (overall: not_started).")?;
        writeln!(o, "Next event: {}", next_event(None))?;
        return Ok(());
    };
    writeln!(
        o,
        "Operation: {} (run {}, overall: {})",
        s.operation,
        s.run_id,
        s.overall().as_str()
    )?;
    let needs = super::needs_you::needs(s, &now_of(s));
    if !needs.is_empty() {
        writeln!(o)?;
        writeln!(o, "Needs you:")?;
        for n in &needs {
            writeln!(o, "  - {}", crate::base::escape::visible(&n.message))?;
            writeln!(o, "    → {}", n.command)?;
        }
    }
    writeln!(o)?;
    writeln!(
        o,
        "| Work Unit | Deps | State | Sprint | Sprint State | Type | Model | Attempt |"
    )?;
    writeln!(
        o,
        "|-----------|------|-------|--------|-------------|------|-------|---------|"
    )?;
    for u in &s.units {
        let started = u.state != UnitStatus::NotStarted || u.completed_sprints() > 0;
        let (sstate, ty, model, att) = match u.current() {
            Some(sp) if started => (
                paint(sp.state.as_str(), color),
                sp.task_type.to_string(),
                sp.model
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| NONE.into()),
                attempt(sp, s.max_retries),
            ),
            _ => (NONE.into(), NONE.into(), NONE.into(), NONE.into()),
        };
        writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            u.name,
            deps(u),
            paint(u.state.as_str(), color),
            sprint_position(u),
            sstate,
            ty,
            model,
            att
        )?;
    }
    writeln!(o)?;
    writeln!(o, "Active agents: {}", s.active_agents())?;
    for (unit, sprint, worker) in claims(s) {
        writeln!(o, "  {unit} sprint {sprint}: worker {worker}")?;
    }
    let blocked = s
        .units
        .iter()
        .filter(|u| u.state == UnitStatus::Blocked)
        .count();
    writeln!(o, "Blocked work units: {blocked}")?;
    writeln!(o, "Next event: {}", next_event(Some(s)))?;
    for n in blocked_notices(s) {
        writeln!(o, "{n}")?;
    }
    // Why a sprint waiting for a retry (or BLOCKED) failed: denied tools,
    // the agent's error, what verification found.
    for u in &s.units {
        if let Some((sp, why)) = u.current().and_then(|sp| Some((sp, failure_of(sp)?))) {
            writeln!(o, "{} Sprint {} last failed: {why}", u.name, sp.id)?;
        }
    }
    for w in waits(s) {
        writeln!(o, "{w}")?;
    }
    cost_lines(s, o)?;
    if let Some(u) = usage {
        super::usage::status_block(u, o);
    }
    if let Some(k) = &s.kill {
        writeln!(o, "Killed: {} at {}", k.reason, k.at)?;
    }
    if !s.needs.is_empty() {
        writeln!(o, "Cross-unit needs: {}", s.needs.len())?;
        for n in &s.needs {
            writeln!(o, "  {}: {}", n.unit, n.text)?;
        }
    }
    Ok(())
}

/// The active sprints a remote run's workers claimed: (unit, sprint,
/// `<host>/<pid>`), in plan order.
fn claims(s: &State) -> Vec<(&str, String, &str)> {
    s.units
        .iter()
        .filter_map(|u| {
            let sp = u.active_sprint()?;
            let worker = sp.agent.as_ref()?.worker.as_deref()?;
            Some((u.name.as_str(), sp.id.to_string(), worker))
        })
        .collect()
}
