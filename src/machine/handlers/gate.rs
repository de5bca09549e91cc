//! The coordinated build: it starts, passes (covering the completed work it
//! built, so dependents may start), or fails and blames sprints, which go
//! back to BACKOFF with the build's output.

use super::super::apply::MachineError;
use super::super::state::Build;
use super::super::state::BuildMark;
use super::super::state::BuildVerdict;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::steps::Steps;
use crate::plan::SprintId;

fn build_mut<'s>(b: &'s mut Steps<'_>) -> Result<&'s mut Build, MachineError> {
    b.require_started()?;
    b.state.build.as_mut().ok_or(MachineError::NoBuild)
}

/// A coordinated build starts: the spec's phase-boundary line, and the
/// time for `status`.
pub(in crate::machine) fn build_started(
    b: &mut Steps<'_>,
    phase: u32,
    units: &[String],
) -> Result<(), MachineError> {
    let at = b.at.to_string();
    build_mut(b)?.running_since = Some(at);
    let whole_phase = b
        .state
        .units
        .iter()
        .filter(|u| u.phase() == phase)
        .all(|u| u.state == UnitStatus::Completed);
    let line = if whole_phase {
        format!("🏗️  Phase {phase} complete. Running coordinated build...")
    } else {
        format!(
            "🏗️  Phase {phase}: {} complete. Running coordinated build...",
            units.join(", ")
        )
    };
    b.run_note(line);
    Ok(())
}

/// A coordinated build passed (the checkpoint is in the same commit): the
/// units it covers are built, except those whose exit criteria failed
/// after it (`warned`), whose dependents wait until that is resolved.
pub(in crate::machine) fn gate_passed(
    b: &mut Steps<'_>,
    phase: u32,
    summary: &str,
    head: &str,
    covers: &[String],
    warned: &[String],
) -> Result<(), MachineError> {
    let build = build_mut(b)?;
    build.running_since = None;
    build.runs += 1;
    // What stays unbuilt is the warned work, in plan order as
    // `State::build_wanted` lists it: that build is not due again until the
    // commits change or a person resumes.
    let units: Vec<String> = b
        .state
        .units
        .iter()
        .filter(|u| warned.contains(&u.name))
        .map(|u| u.name.clone())
        .collect();
    let build = build_mut(b)?;
    build.unpassed = (!warned.is_empty()).then(|| BuildMark {
        verdict: BuildVerdict::Warn,
        head: head.to_string(),
        units,
    });
    for u in b.state.units.iter_mut() {
        if u.state == UnitStatus::Completed && covers.contains(&u.name) {
            u.built = true;
        }
    }
    let mut why = format!("phase {phase} gate passed. {summary}");
    if warned.is_empty() {
        why.push_str(" ✅ Build passed. Proceeding to next phase.");
    } else {
        why.push_str(&format!(
            " ⚠️  Build passed, but exit criteria of {} fail after it: their dependents stay NOT_STARTED until that is resolved (new commits, or git supervisor resume, run the build again).",
            warned.join(", ")
        ));
    }
    b.run_note(why);
    b.start_ready(&format!("Phase {phase} gate passed"));
    Ok(())
}

/// A coordinated build failed (the checkpoint is in the same commit). The
/// sprints it blames are reopened by their own `GateFailed` events; the
/// build is remembered so it is not run again for the same work.
pub(in crate::machine) fn build_failed(
    b: &mut Steps<'_>,
    phase: u32,
    summary: &str,
    head: &str,
    units: &[String],
    blamed: &str,
) -> Result<(), MachineError> {
    let build = build_mut(b)?;
    build.running_since = None;
    build.runs += 1;
    build.unpassed = Some(BuildMark {
        verdict: BuildVerdict::Block,
        head: head.to_string(),
        units: units.to_vec(),
    });
    b.run_note(format!("❌ Build failed. Failures attributed to: {blamed}"));
    b.run_note(format!(
        "phase {phase} build failed. {summary} Attributed to: {blamed}."
    ));
    Ok(())
}

/// A phase gate's build failed and blames this COMPLETED sprint.
pub(in crate::machine) fn gate_failed(
    b: &mut Steps<'_>,
    unit: &str,
    sprint: &SprintId,
    detail: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let k = b.sprint_index(i, sprint)?;
    let s = &b.state.units[i].sprints[k];
    if s.state != SprintStatus::Completed {
        return Err(MachineError::SprintState {
            unit: unit.to_string(),
            sprint: sprint.clone(),
            state: s.state,
            needed: "a phase gate only reopens COMPLETED sprints",
        });
    }
    // Dependents that already started keep running: the build blames this
    // sprint's files, not theirs. Say so, so the log explains it.
    let started: Vec<String> = b
        .state
        .units
        .iter()
        .filter(|d| d.deps.iter().any(|x| x == unit) && d.state != UnitStatus::NotStarted)
        .map(|d| d.name.clone())
        .collect();
    let mut why = format!("The coordinated build failed in files sprint {sprint} changed.");
    if !started.is_empty() {
        why.push_str(&format!(
            " Its dependents that already started ({}) keep running.",
            started.join(", ")
        ));
    }
    match b.state.units[i].state {
        UnitStatus::Completed => b.unit_to(i, UnitStatus::Running, why),
        other => {
            return Err(MachineError::UnitState {
                unit: unit.to_string(),
                state: other,
                needed: "a coordinated build only blames COMPLETED units",
            })
        }
    }
    // The sprint goes back through RUNNING's failure path: the build
    // failure counts as a failed attempt.
    let max = b.state.max_retries;
    let s = &mut b.state.units[i].sprints[k];
    s.failures += 1;
    s.last_failure = Some(detail.to_string());
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
    Ok(())
}
