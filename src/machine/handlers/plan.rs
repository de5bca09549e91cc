//! Plan-side events: a re-planned EXECUTION_PLAN.md and the cross-unit
//! needs registry.

use super::super::apply::MachineError;
use super::super::state::Need;
use super::super::state::State;
use super::super::state::UnitStatus;
use super::super::steps::Steps;
use crate::plan::Plan;

/// The cross-unit needs in the progress files changed.
pub(in crate::machine) fn needs(
    b: &mut Steps<'_>,
    needs: &[Need],
    rulings: &[String],
) -> Result<(), MachineError> {
    b.require_started()?;
    let added: Vec<String> = needs
        .iter()
        .filter(|n| !b.state.needs.contains(n))
        .map(|n| format!("{}: {}", n.unit, n.text))
        .collect();
    let resolved = b.state.needs.iter().filter(|n| !needs.contains(n)).count();
    b.state.needs = needs.to_vec();
    let mut why = format!("cross-unit needs registry: {} open.", needs.len());
    if !added.is_empty() {
        why.push_str(&format!(" New: {}.", added.join("; ")));
    }
    if resolved > 0 {
        why.push_str(&format!(" {resolved} no longer listed."));
    }
    for r in rulings {
        why.push(' ');
        why.push_str(r);
    }
    b.run_note(why);
    Ok(())
}

/// The plan was edited and re-planned: keep each sprint's history, add
/// new units and sprints, refuse to move a sprint an agent works on.
pub(in crate::machine) fn replan(b: &mut Steps<'_>, plan: &Plan) -> Result<(), MachineError> {
    b.require_started()?;
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
                let before_old: Vec<_> = u.sprints[..old].iter().map(|x| x.id.clone()).collect();
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
                u.after = nu.after.clone();
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
    b.start_ready("Replanned");
    Ok(())
}
