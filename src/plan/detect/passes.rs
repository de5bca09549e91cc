//! Which of two readings of one plan says more of its steps: a finer
//! reading (a checklist tree, a table's rows) over one step for the whole
//! plan, as long as it loses no done mark.

use super::*;

/// A plan read as one sprint, one unit: its steps may be written finer
/// (a checklist tree, a table of work).
pub(super) fn one_step(plan: &Plan) -> bool {
    plan.sprint_total() == 1 && plan.units.len() == 1
}

/// A lone sprint read from a checklist under a heading that names a list
/// (`Progress`, `To-dos`, `Tasks`, `任务`), not a piece of work.
pub(super) fn container_step(plan: &Plan) -> bool {
    let [unit] = plan.units.as_slice() else {
        return false;
    };
    let [sprint] = unit.sprints.as_slice() else {
        return false;
    };
    let name = headings::tidy_name(&sprint.name).to_lowercase();
    plan.detection.sprints == [SprintSource::Checklists]
        && (matches!(
            name.trim_end_matches(':'),
            "progress"
                | "to-dos"
                | "todos"
                | "todo"
                | "to do"
                | "checklist"
                | "task list"
                | "action items"
                | "work items"
                | "status"
                // A list of steps, in the plans' languages (`# Schritte:`).
                | "steps"
                | "implementation steps"
                | "schritte"
                | "pasos"
                | "passos"
                | "étapes"
                | "шаги"
                | "步骤"
                | "手順"
                | "단계"
        ) || criteria::criteria_label(&name) == Some(criteria::Label::Tasks))
}

/// The task lines of a one-sprint plan.
pub(super) fn tasks_of(plan: &Plan) -> usize {
    plan.units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| s.tasks.len())
        .sum()
}

/// A finer reading loses no done mark: a step read done stays done in
/// every step it is read as.
pub(super) fn keeps_done(coarse: &Plan, fine: &Plan) -> bool {
    let done = |p: &Plan| {
        p.units
            .iter()
            .flat_map(|u| &u.sprints)
            .all(|s| s.done.is_some())
    };
    !done(coarse) || done(fine)
}

/// A finer reading of a one-sprint plan: a checklist tree or a table's
/// rows, not a guess of another kind.
pub(super) fn finer_reading(plan: &Plan) -> bool {
    matches!(
        plan.detection.sprints.as_slice(),
        [SprintSource::Checklists] | [SprintSource::TableRows]
    )
}
