//! The sprints of a plan that no exit-criterion command can check. The
//! verifier (`engine::verify`) runs only criteria with a command that are
//! not checklist items; a sprint without one completes on its agent's word
//! (commits and its report), so `start` lists such sprints, `status` marks
//! them and `[run] require_criteria` refuses to start with any. Pure: it
//! reads the plan it is given.

use serde::Serialize;

use crate::plan::Criterion;
use crate::plan::CriterionKind;
use crate::plan::Plan;

/// One sprint with no runnable exit criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unchecked {
    pub unit: String,
    pub sprint: String,
    pub name: String,
}

/// A criterion the verifier runs: the same test as `engine::verify`.
pub fn runnable(c: &Criterion) -> bool {
    c.kind != CriterionKind::Checklist && c.command.is_some()
}

/// Every sprint still to run (the plan does not mark it done) that has no
/// runnable exit criterion, in plan order.
pub fn unchecked(plan: &Plan) -> Vec<Unchecked> {
    plan.units
        .iter()
        .flat_map(|u| {
            u.sprints
                .iter()
                .filter(|s| s.done.is_none() && !s.exit.iter().any(runnable))
                .map(move |s| Unchecked {
                    unit: u.name.clone(),
                    sprint: s.id.to_string(),
                    name: s.name.clone(),
                })
        })
        .collect()
}

/// `parser 2 (Add completions), parser 3 (Document the flags)`, with the
/// plan's names made safe to print on one line.
pub fn list(sprints: &[Unchecked]) -> String {
    sprints
        .iter()
        .map(|s| {
            crate::base::escape::visible(&format!("{} {} ({})", s.unit, s.sprint, s.name))
                .into_owned()
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line `start` and `status` print, when there is anything to say.
pub fn notice(sprints: &[Unchecked]) -> Option<String> {
    if sprints.is_empty() {
        return None;
    }
    let n = sprints.len();
    Some(format!(
        "No runnable exit criterion ({n} sprint{}; {} on the agent's word): {}",
        if n == 1 { "" } else { "s" },
        if n == 1 {
            "it completes"
        } else {
            "they complete"
        },
        list(sprints)
    ))
}

/// The warning `start` asks about before it dispatches sprints no command
/// can check, with the criteria `evaluate` would give each (`cmds`: the
/// build and test commands it knows); `None` when every sprint has one.
pub fn warning(
    plan: &Plan,
    sprints: &[Unchecked],
    cmds: &crate::plan_tools::rewrite::Commands,
) -> Option<String> {
    if sprints.is_empty() {
        return None;
    }
    let n = sprints.len();
    let mut out = format!(
        "{n} sprint{} {} no runnable exit criterion and would complete on the agent's word [run::no_criteria]",
        if n == 1 { "" } else { "s" },
        if n == 1 { "has" } else { "have" },
    );
    for u in sprints {
        let proposed = plan
            .unit(&u.unit)
            .and_then(|pu| pu.sprints.iter().find(|s| s.id.to_string() == u.sprint))
            .map(|s| crate::plan_tools::rewrite::proposed_criteria(s, cmds))
            .unwrap_or_default();
        let what = if proposed.is_empty() {
            "evaluate knows nothing to propose (no build or test command: set [build] command)"
                .to_string()
        } else {
            format!(
                "evaluate proposes {}",
                proposed
                    .iter()
                    .map(|p| format!("\"{p}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push_str(&format!(
            "\n  {}: {}",
            crate::base::escape::visible(&format!("{} {} ({})", u.unit, u.sprint, u.name)),
            crate::base::escape::visible(&what)
        ));
    }
    Some(out)
}
