//! The last reading tried before a plan is refused for having no sprints:
//! work written in forms that elsewhere are notes (numbered bold items,
//! coded items, `Hito 1:` label lines over lists, boxes written as code,
//! the rows of a table of work, a checklist tree). A plan read so is a guess `start` asks
//! about; this module says which.

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
    let board = plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .any(|s| s.origin.rule.contains("board"));
    if board {
        return Warning {
            code: "reading::table_rows".into(),
            message: format!(
                "nothing else reads as work: the cards of a board are read as {n} step{}, column by column, those in a column of finished work done",
                if n == 1 { "" } else { "s" },
            ),
            help,
            line,
        };
    }
    if plan.detection.sprints.contains(&SprintSource::TableRows) {
        return Warning {
            code: "reading::table_rows".into(),
            message: format!(
                "nothing else reads as work: the rows of a table are read as {n} step{}, rows with the same step column as one",
                if n == 1 { "" } else { "s" },
            ),
            help,
            line,
        };
    }
    if plan.detection.sprints.contains(&SprintSource::Checklists) {
        return Warning {
            code: "reading::checklist_tree".into(),
            message: format!(
                "no heading names a step: {n} top-level checklist item{} read as the steps, the items nested under each as its tasks",
                if n == 1 { "" } else { "s" },
            ),
            help,
            line,
        };
    }
    Warning {
        code: "reading::bold_items".into(),
        message: format!(
            "nothing else reads as work: {n} numbered bold or coded item{} or step label{} read as the steps, in the order written",
            if n == 1 { "" } else { "s" },
            if n == 1 { " is" } else { "s are" },
        ),
        help,
        line,
    }
}
