//! `SUPERVISOR_STATE.md` in the spec's format (§N, v2 fields): plan summary,
//! work-unit table, one block per unit, active agents, overall status.

use std::fmt::Write;

use super::attempt;
use super::NONE;
use crate::machine::State;
use crate::machine::UnitStatus;

pub fn render(state: &State) -> String {
    let mut o = String::new();
    let _ = render_into(state, &mut o);
    o
}

fn render_into(s: &State, o: &mut String) -> std::fmt::Result {
    writeln!(o, "# Supervisor State — {}", s.operation)?;
    writeln!(o)?;
    writeln!(o, "- Run: {}", s.run_id)?;
    writeln!(o, "- max_retries: {}", s.max_retries)?;
    writeln!(o, "- max_continuations: {}", s.max_continuations)?;
    writeln!(o, "- Transitions: {}", s.seq)?;
    writeln!(o)?;
    writeln!(o, "## Plan Summary")?;
    writeln!(o, "- Work units: {}", s.units.len())?;
    writeln!(o, "- Total sprints: {}", s.sprint_total())?;
    writeln!(o, "- Dependency structure: {}", s.dependency_structure)?;
    writeln!(o, "- Dispatch mode: {}", s.dispatch_mode)?;
    writeln!(o)?;
    writeln!(o, "## Work Units")?;
    writeln!(o, "| Name | Directory | Sprints | Dependencies |")?;
    writeln!(o, "|------|-----------|---------|-------------|")?;
    for u in &s.units {
        let deps = if u.deps.is_empty() {
            "none".to_string()
        } else {
            u.deps.join(", ")
        };
        writeln!(
            o,
            "| {} | {} | {} | {} |",
            u.name,
            u.dir,
            u.sprints.len(),
            deps
        )?;
    }
    for u in &s.units {
        writeln!(o)?;
        writeln!(o, "### {}", u.name)?;
        writeln!(o, "- Work unit state: {}", u.state)?;
        let shown = u.current().or_else(|| u.sprints.last());
        match shown {
            Some(sp) => {
                writeln!(o, "- Current sprint: {} of {}", sp.id, u.sprints.len())?;
                writeln!(o, "- Sprint state: {}", sp.state)?;
                writeln!(o, "- Sprint type: {}", sp.task_type)?;
                writeln!(
                    o,
                    "- Model: {}",
                    sp.model.map(|m| m.as_str()).unwrap_or(NONE)
                )?;
                writeln!(
                    o,
                    "- Complexity score: {}",
                    sp.score
                        .map(|x| x.to_string())
                        .unwrap_or_else(|| NONE.into())
                )?;
                let a = if sp.attempt == 0 {
                    NONE.to_string()
                } else {
                    format!("{} of {}", sp.attempt, s.max_retries)
                };
                writeln!(
                    o,
                    "- Attempt: {a} (lifetime dispatches: {})",
                    sp.total_attempts
                )?;
                writeln!(
                    o,
                    "- Last verified: {}",
                    sp.last_verified.as_deref().unwrap_or(NONE)
                )?;
                let mut notes: Vec<String> = Vec::new();
                if let Some(f) = &sp.last_failure {
                    if sp.state != crate::machine::SprintStatus::Completed {
                        notes.push(format!("last failure: {f}"));
                    }
                }
                if !u.uncommitted.is_empty() {
                    notes.push(format!("uncommitted work: {}", u.uncommitted.join(", ")));
                }
                if let Some(n) = &u.notes {
                    notes.push(n.clone());
                }
                let needs = s.needs.iter().filter(|n| n.unit == u.name).count();
                if needs > 0 {
                    notes.push(format!("cross-unit needs: {needs}"));
                }
                writeln!(
                    o,
                    "- Notes: {}",
                    if notes.is_empty() {
                        NONE.to_string()
                    } else {
                        notes.join("; ")
                    }
                )?;
            }
            None => writeln!(o, "- Current sprint: none")?,
        }
    }
    writeln!(o)?;
    writeln!(o, "## Active Agents")?;
    let active: Vec<_> = s
        .units
        .iter()
        .filter_map(|u| u.active_sprint().map(|sp| (u, sp)))
        .collect();
    if active.is_empty() {
        if s.kill.is_some() {
            writeln!(o, "(none — all agents terminated)")?;
        } else {
            writeln!(o, "(none)")?;
        }
    } else {
        writeln!(
            o,
            "| Work Unit | Sprint | Sprint State | Attempt | Model | Complexity Score | Task ID | Output File | Dispatched At |"
        )?;
        writeln!(
            o,
            "|-----------|--------|-------------|---------|-------|------------------|---------|-------------|---------------|"
        )?;
        for (u, sp) in active {
            let agent = sp.agent.as_ref();
            writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                u.name,
                sp.id,
                sp.state,
                attempt(sp, s.max_retries),
                sp.model.map(|m| m.as_str()).unwrap_or(NONE),
                sp.score
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| NONE.into()),
                agent
                    .and_then(|a| a.pid)
                    .map(|p| p.to_string())
                    .unwrap_or_else(|| NONE.into()),
                agent.map(|a| a.log.as_str()).unwrap_or(NONE),
                agent.map(|a| a.dispatched_at.as_str()).unwrap_or(NONE),
            )?;
        }
    }
    writeln!(o)?;
    writeln!(o, "## Cross-Package Needs Registry")?;
    if s.needs.is_empty() {
        writeln!(o, "(none)")?;
    } else {
        writeln!(o, "| Work Unit | Need |")?;
        writeln!(o, "|-----------|------|")?;
        for n in &s.needs {
            writeln!(o, "| {} | {} |", n.unit, n.text)?;
        }
    }
    writeln!(o)?;
    writeln!(o, "## Decisions Log")?;
    writeln!(
        o,
        "Every transition and decision is a commit: `git log refs/supervisor/state` (or `git supervisor log`)."
    )?;
    writeln!(o)?;
    reconciliation(o, s)?;
    writeln!(o)?;
    writeln!(o, "## Waiting")?;
    let waits = super::status::waits(s);
    if waits.is_empty() {
        writeln!(o, "(nothing)")?;
    }
    for w in waits {
        writeln!(o, "- {w}")?;
    }
    writeln!(o)?;
    writeln!(o, "## Overall Status")?;
    writeln!(o, "Status: {}", s.overall().as_str())?;
    if let Some(k) = &s.kill {
        writeln!(o, "Kill reason: {}", k.reason)?;
        writeln!(o, "Kill timestamp: {}", k.at)?;
    }
    let blocked = s
        .units
        .iter()
        .filter(|u| u.state == UnitStatus::Blocked)
        .count();
    writeln!(o, "Blocked work units: {blocked}")?;
    Ok(())
}

/// The Reconciliation Status section (v1): the cross-package needs logged
/// and whether their reconciliation waits for the units, is due, or has
/// nothing to do.
fn reconciliation(o: &mut impl std::fmt::Write, s: &State) -> std::fmt::Result {
    writeln!(o, "## Reconciliation Status")?;
    let mut units: Vec<&str> = s.needs.iter().map(|n| n.unit.as_str()).collect();
    units.sort_unstable();
    units.dedup();
    let done = s
        .units
        .iter()
        .filter(|u| u.state == UnitStatus::Completed)
        .count();
    if s.needs.is_empty() {
        writeln!(o, "- Cross-package needs: none logged")?;
        return writeln!(o, "- Status: nothing to reconcile");
    }
    writeln!(
        o,
        "- Cross-package needs: {} logged (from {})",
        s.needs.len(),
        units.join(", ")
    )?;
    if done == s.units.len() {
        writeln!(
            o,
            "- Status: due: every work unit is COMPLETED; reconcile the needs above (hand-offs and subjects two units define are in the Decisions Log)"
        )
    } else {
        writeln!(
            o,
            "- Status: pending: reconciled once every work unit is COMPLETED ({done} of {} are)",
            s.units.len()
        )
    }
}
