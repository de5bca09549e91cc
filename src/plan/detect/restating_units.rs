//! Sections that restate another unit's steps under headings of their own:
//! a list of the pages to fix (`## 📋 Pages` over `### Phase 2: 診断画面`
//! holding only `**URL**:` fields), a progress list (`## 📊 進捗管理` over
//! `### Phase 2` holding `- [ ] 2-1. …`) beside the section that holds the
//! work (`### Phase 2` over `#### 2-1. …` with its tasks). Read as units of
//! their own they dispatch the same work two or three times; they are about
//! the other unit's steps, and a done mark they carry is that step's.

use std::collections::HashSet;

use super::*;

/// Fold each unit that restates the steps of one other unit into it: its
/// done marks go to the steps it names, its own steps go. Says whether any
/// was folded.
pub(super) fn fold_restating_units(units: &mut Vec<RawUnit>) -> bool {
    // Only a unit of steps numbered within groups (`2.1`, `2-1`) can be
    // restated by groups: most plans have none, and each unit's groups
    // are gathered once.
    let mut folded = false;
    let mut groups: Vec<HashSet<(u32, String)>> = units.iter().map(step_groups).collect();
    if groups.iter().all(HashSet::is_empty) {
        return false;
    }
    let mut u = 0;
    while u < units.len() {
        let Some(target) = restated_by(units, &groups, u) else {
            u += 1;
            continue;
        };
        groups.remove(u);
        let restating = units.remove(u);
        let target = if target > u { target - 1 } else { target };
        for s in &restating.sprints {
            let Some(done) = &s.sprint.done else {
                continue;
            };
            let id = s.id.to_string();
            for t in units[target]
                .sprints
                .iter_mut()
                .filter(|t| same_or_inside(&t.id.to_string(), &id))
            {
                t.sprint.done.get_or_insert_with(|| done.clone());
            }
        }
        folded = true;
    }
    folded
}

/// The groups a unit's steps are numbered within: `2` of `2.1` and of
/// `2-1`.
fn step_groups(unit: &RawUnit) -> HashSet<(u32, String)> {
    unit.sprints
        .iter()
        .filter_map(|s| {
            let (group, _) = s.id.suffix.rsplit_once(['.', '-'])?;
            Some((s.id.number, group.to_string()))
        })
        .collect()
}

/// Whether step id `inner` is `outer` or one of its parts (`2.1` of `2`).
fn same_or_inside(inner: &str, outer: &str) -> bool {
    inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with(['.', '-']))
}

/// The one other unit whose steps `units[u]`'s restate: each of its steps
/// has the id of a group of steps there (`2` over `2.1`, `2.2`), the other
/// unit has more steps (or as many, with more tasks), and
/// no task line of its own is new work: each is a field (`URL: …`) or names
/// a step of the other unit (`2-1. 「追加見積内容」セクションの修正`).
/// Two units of the same phases with work of their own (`## Frontend`,
/// `## Backend`) restate nothing.
fn restated_by(units: &[RawUnit], groups: &[HashSet<(u32, String)>], u: usize) -> Option<usize> {
    let steps = &units[u].sprints;
    if steps.len() < 2 || steps.iter().any(|s| s.sprint.tasks.is_empty()) {
        return None;
    }
    // The first step's id must be a group of the other unit: most units
    // are ruled out there, before any id is written out again.
    let key = |s: &RawSprint| (s.id.number, s.id.suffix.clone());
    let first = key(&steps[0]);
    let mut candidates = (0..units.len())
        .filter(|&v| v != u && groups[v].contains(&first))
        .peekable();
    candidates.peek()?;
    let ids: Vec<(u32, String)> = steps.iter().map(key).collect();
    let tasks = |v: usize| -> usize { units[v].sprints.iter().map(|s| s.sprint.tasks.len()).sum() };
    let mut holders = candidates.filter(|&v| {
        let other = &units[v].sprints;
        // Each step is a group of the other's steps by id (`2` over
        // `2.1`, `2.2`), and says something (a step of no lines restates
        // nothing to show it). Steps of the same ids and names are two
        // units' own phases (`## Backend`, `## Frontend`, each `### Phase
        // 1: Setup`), whatever their lines look like.
        let covers = ids.iter().all(|id| groups[v].contains(id));
        let bigger = other.len() > steps.len() || other.len() == steps.len() && tasks(v) > tasks(u);
        covers
            && bigger
            && steps
                .iter()
                .all(|s| s.sprint.tasks.iter().all(|t| restates(t, other)))
    });
    let one = holders.next()?;
    holders.next().is_none().then_some(one)
}

/// Whether task line `task` is a field of the step (`URL: /admin`) or names
/// one of `steps` by its name.
fn restates(task: &str, steps: &[RawSprint]) -> bool {
    let task = task.trim();
    let field = task.split_once([':', '：']).is_some_and(|(key, _)| {
        !key.is_empty() && key.split_whitespace().count() <= 3 && key.chars().count() <= 24
    });
    field
        || steps.iter().any(|s| {
            let name = s.sprint.name.trim();
            name.chars().count() >= 4 && task.contains(name)
        })
}
