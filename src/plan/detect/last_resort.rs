//! The last reading tried before a plan is refused for having no sprints:
//! work written in forms that elsewhere are notes (numbered bold items,
//! coded items, `Hito 1:` label lines over lists, boxes written as code,
//! the rows of a table of work, a checklist tree, a board). A plan read so
//! is a guess `start` asks about; this module says which.

use super::*;

/// The guess a plan read by the last reading carries.
pub(super) fn guess(plan: &Plan) -> Warning {
    let n = plan.sprint_total();
    let line = plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .next()
        .map_or(0, |s| s.origin.line);
    let help = "check the reading with `git supervisor plan`, or give each step a heading".into();
    let s = if n == 1 { "" } else { "s" };
    let board = plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .any(|s| s.origin.rule.starts_with(super::work_table::BOARD_CARD));
    let (code, message) = if board {
        (
            "reading::table_rows",
            format!("nothing else reads as work: the cards of a board are read as {n} step{s}, column by column, those in a column of finished work done"),
        )
    } else if plan.detection.sprints.contains(&SprintSource::TableRows) {
        (
            "reading::table_rows",
            format!("nothing else reads as work: the rows of a table are read as {n} step{s}, rows with the same step column as one"),
        )
    } else if plan.detection.sprints.contains(&SprintSource::Checklists) {
        (
            "reading::checklist_tree",
            format!("no heading names a step: {n} top-level checklist item{s} read as the steps, the items nested under each as its tasks"),
        )
    } else {
        (
            "reading::bold_items",
            format!(
                "nothing else reads as work: {n} numbered item{s} (bold, coded, or under a heading naming their order) or step label{} read as the steps, in the order written",
                if n == 1 { " is" } else { "s are" },
            ),
        )
    };
    Warning {
        code: code.into(),
        message,
        help,
        line,
    }
}

/// The guess a plan read as nothing but its plain numbered instructions
/// carries (`1. Verify the app folder exists.`), counted on across lists.
pub(super) fn numbered_guess(plan: &Plan) -> Warning {
    let n = plan.sprint_total();
    let mut warning = guess(plan);
    warning.message = format!(
        "nothing else reads as work: the plan's {n} plain numbered instruction{} read as its steps, counted on across its lists in the order written",
        if n == 1 { " is" } else { "s are" },
    );
    warning
}
