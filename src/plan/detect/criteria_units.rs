//! A section of criteria read as a unit: `### 🎯 Critérios de aceite por
//! fase` holding `#### ✅ FASE 1 APROVADA QUANDO` beside the phases'
//! own section. Its headings restate the steps of another unit by their
//! ids, and what they hold is those steps' exit criteria, not work (a
//! unit of them would dispatch, or mark done, the criteria).

use super::*;

/// Fold each unit named by a criteria label whose every step restates a
/// step of one other unit (the same id) into those steps, as their exit
/// criteria. Says whether any was folded.
pub(super) fn fold_criteria_units(units: &mut Vec<RawUnit>) -> bool {
    let mut folded = false;
    let mut u = 0;
    while u < units.len() {
        let gates = names_gates(&units[u].name);
        let labelled = gates
            || matches!(
                criteria_label(&units[u].name),
                Some(Label::Exit | Label::Entry)
            );
        let Some((target, exact)) = labelled.then(|| restated_unit(units, u)).flatten() else {
            u += 1;
            continue;
        };
        // Gates may name a step less its aside; they must hide no open line
        // under a step done by its own marks (gates listing work to do).
        if !exact && !gates || gates && hides_open_lines(&units[u], &units[target]) {
            u += 1;
            continue;
        }
        let criteria = std::mem::take(&mut units[u].sprints);
        for c in criteria {
            let Some(step) = units[target].sprints.iter_mut().find(|s| s.id == c.id) else {
                continue;
            };
            let lines = c
                .sprint
                .tasks
                .iter()
                .chain(c.sprint.exit.iter().map(|e| &e.text));
            let exit: Vec<Criterion> = lines
                .map(|t| classify_criterion(t, &inline_code(t), false))
                .collect();
            step.sprint.exit.extend(exit);
        }
        units.remove(u);
        folded = true;
    }
    folded
}

/// Whether `restated` names the step `step` names, less an aside the step
/// carries (`要件定義 (見積もり: 0.5h)` restated as `要件定義`).
fn same_step_name(step: &str, restated: &str) -> bool {
    step.strip_prefix(restated).is_some_and(|rest| {
        rest.is_empty()
            || rest.starts_with([' ', '(', '（', ':', '：'])
                && !rest.trim_start().starts_with(char::is_alphanumeric)
    })
}

/// The one other unit holding a step of each of `units[u]`'s ids, when
/// those steps name no work of their own: each is named as its step is, or
/// all by one label (`APROVADA QUANDO:`). A step with a name of its own
/// under `## Success Criteria` is work the plan put there.
fn restated_unit(units: &[RawUnit], u: usize) -> Option<(usize, bool)> {
    let steps = &units[u].sprints;
    if steps.len() < 2 {
        return None;
    }
    let mut holders = (0..units.len()).filter(|&v| v != u).filter(|&v| {
        steps
            .iter()
            .all(|c| units[v].sprints.iter().any(|s| s.id == c.id))
    });
    let one = holders.next()?;
    if holders.next().is_some() {
        return None;
    }
    let name = |s: &RawSprint| s.sprint.name.trim().to_lowercase();
    let one_label = steps.iter().all(|c| name(c) == name(&steps[0]));
    let named = |same: &dyn Fn(&str, &str) -> bool| {
        steps.iter().all(|c| {
            units[one]
                .sprints
                .iter()
                .any(|s| s.id == c.id && same(&name(s), &name(c)))
        })
    };
    if one_label || named(&|a, b| a == b) {
        return Some((one, true));
    }
    named(&same_step_name).then_some((one, false))
}

/// `## 7. 品質ゲート`, `## Quality Gates`: a section of each step's gates.
fn names_gates(name: &str) -> bool {
    let n = norm(name);
    let n = n.trim_start_matches(|c: char| !c.is_alphabetic());
    matches!(
        n,
        "quality gates" | "quality gate" | "品質ゲート" | "质量门禁"
    )
}

/// Whether a restating step left open by its own marks names a step done
/// by its own: folding it in would hide what it lists.
fn hides_open_lines(restating: &RawUnit, target: &RawUnit) -> bool {
    restating.sprints.iter().any(|c| {
        c.sprint.done.is_none()
            && !c.sprint.tasks.is_empty()
            && target
                .sprints
                .iter()
                .any(|s| s.id == c.id && s.sprint.done.is_some())
    })
}
