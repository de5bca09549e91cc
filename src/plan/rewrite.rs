//! The plan rewrites of `evaluate` (spec §V: auto-fixes) and `prioritize`
//! (spec §U: reorder, renumber, annotate, adjust layers). Pure: a plan in,
//! a plan and what was done out; `plan::write` turns the result into text.

use std::collections::BTreeMap;

use serde::Serialize;

use super::analysis;
use super::analysis::At;
use super::analysis::Fitness;
use super::model::Criterion;
use super::model::CriterionKind;
use super::model::DependencyStructure;
use super::model::Plan;
use super::model::Sprint;
use super::model::SprintId;
use super::model::TaskType;
use crate::machine::model_select::estimated_turns;

/// Replace `Sprint <old>` references by `Sprint <new>` in one pass (so that
/// 2→3 and 3→4 do not chain).
pub fn retarget(text: &str, map: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("Sprint ") {
        out.push_str(&rest[..i + 7]);
        rest = &rest[i + 7..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            continue;
        }
        let mut len = digits;
        let next = rest[digits..].chars().next();
        if next.is_some_and(|c| c.is_ascii_lowercase())
            && !rest[digits + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric())
        {
            len += 1;
        }
        let id = &rest[..len];
        out.push_str(map.get(id).map(String::as_str).unwrap_or(id));
        rest = &rest[len..];
    }
    out.push_str(rest);
    out
}

fn retarget_criteria(list: &mut [Criterion], map: &BTreeMap<String, String>) {
    for c in list {
        c.text = retarget(&c.text, map);
    }
}

/// Number every unit's sprints 1, 2, 3… and update `Sprint N` references in
/// its texts. `origin[u][k]` is the id sprint k had in the input (splits
/// share it); references to an id point at the first sprint that had it.
/// Returns how many sprints changed number.
pub fn renumber(plan: &mut Plan) -> usize {
    let mut changed = 0;
    for u in &mut plan.units {
        let mut map = BTreeMap::new();
        for (k, s) in u.sprints.iter().enumerate() {
            let new = (k + 1).to_string();
            map.entry(s.id.to_string()).or_insert_with(|| new.clone());
        }
        for (k, s) in u.sprints.iter_mut().enumerate() {
            let new = SprintId {
                number: k as u32 + 1,
                suffix: String::new(),
            };
            if s.id != new {
                changed += 1;
            }
            s.id = new;
            s.name = retarget(&s.name, &map);
            for t in &mut s.tasks {
                *t = retarget(t, &map);
            }
            retarget_criteria(&mut s.entry, &map);
            retarget_criteria(&mut s.exit, &map);
        }
    }
    changed
}

// ---------------------------------------------------------------------------
// evaluate

/// Commands `evaluate` may write into criteria.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    /// The build (or build-and-test) command: `[build] command`, else the
    /// plan's first runnable exit check.
    pub build: Option<String>,
    pub test: Option<String>,
}

impl Commands {
    pub fn from_plan(plan: &Plan, build: Option<&str>) -> Commands {
        let from_checks = plan
            .exit_checks
            .iter()
            .find_map(|c| c.command.clone())
            .filter(|c| !c.starts_with("test -e"));
        let build = build.map(str::to_string).or(from_checks);
        let test = build.clone().filter(|b| b.contains("test"));
        Commands { build, test }
    }
}

/// Per-check counts for the summary table (spec §V-125).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CheckCount {
    pub passed: usize,
    pub issues: usize,
    pub fixed: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    pub atomicity: CheckCount,
    pub testability: CheckCount,
    pub fitness: CheckCount,
    pub before: usize,
    pub after: usize,
    pub splits: usize,
    pub merges: usize,
    pub budget: u32,
    /// One line per change made, in order.
    pub changes: Vec<String>,
    /// Problems left because no fix applies (e.g. no build command known).
    pub unfixed: Vec<String>,
}

const CREATE_VERBS: &[&str] = &["create", "write", "add", "generate", "new"];

/// Files a sprint's tasks say to create.
fn created_files(s: &Sprint) -> Vec<String> {
    let mut out = Vec::new();
    for t in &s.tasks {
        let l = t.to_lowercase();
        if !CREATE_VERBS.iter().any(|v| l.starts_with(v)) {
            continue;
        }
        for f in &s.files {
            if t.contains(f.as_str()) && !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out
}

fn exists_criterion(path: &str) -> Criterion {
    Criterion {
        kind: CriterionKind::Assertion,
        text: format!("`{path}` exists"),
        command: Some(format!("test -e '{}'", path.replace('\'', "'\\''"))),
        expected: None,
        checked: false,
    }
}

fn command_criterion(what: &str, cmd: &str) -> Criterion {
    Criterion {
        kind: CriterionKind::Command,
        text: format!("{what}: `{cmd}`"),
        command: Some(cmd.to_string()),
        expected: None,
        checked: false,
    }
}

fn is_test_sprint(s: &Sprint) -> bool {
    s.name.to_lowercase().contains("test")
}

/// Files a text mentions among `files`.
fn mentions<'a>(text: &str, files: &'a [String]) -> Vec<&'a String> {
    files.iter().filter(|f| text.contains(f.as_str())).collect()
}

/// Recompute the derived file list after texts moved between sprints.
fn refresh_files(s: &mut Sprint, all: &[String]) {
    let mut files: Vec<String> = Vec::new();
    for t in s
        .tasks
        .iter()
        .chain(s.entry.iter().map(|c| &c.text))
        .chain(s.exit.iter().map(|c| &c.text))
    {
        for f in mentions(t, all) {
            if !files.contains(f) {
                files.push(f.clone());
            }
        }
    }
    files.sort();
    s.files = files;
}

fn fix_criteria(s: &mut Sprint, cmds: &Commands, ev: &mut Evaluation, label: &str) -> bool {
    let mut fixed = false;
    // Vague criteria are replaced by something a machine can check.
    let created = created_files(s);
    let mut replaced = Vec::new();
    for c in &mut s.exit {
        if !analysis::is_vague(&c.text) {
            continue;
        }
        let l = c.text.to_lowercase();
        let replacement = if l.contains("is complete") {
            created
                .iter()
                .find(|f| !replaced.contains(*f))
                .map(|f| exists_criterion(f))
                .or_else(|| cmds.build.as_deref().map(|b| command_criterion("build passes", b)))
        } else {
            cmds.test
                .as_deref()
                .map(|t| command_criterion("tests pass", t))
                .or_else(|| cmds.build.as_deref().map(|b| command_criterion("build passes", b)))
        };
        match replacement {
            Some(r) => {
                ev.changes.push(format!(
                    "{label}: replaced vague criterion \"{}\" with \"{}\"",
                    c.text, r.text
                ));
                if let Some(p) = r.text.split('`').nth(1) {
                    replaced.push(p.to_string());
                }
                *c = r;
                fixed = true;
            }
            None => ev.unfixed.push(format!(
                "{label}: vague criterion \"{}\" kept (no build or test command known: set [build] command)",
                c.text
            )),
        }
    }
    // Missing machine-verifiable criteria are added.
    let verifiable = s.exit.iter().any(|c| c.command.is_some());
    if !verifiable && s.task_type != TaskType::Manual {
        let mut added = Vec::new();
        for f in created_files(s) {
            added.push(exists_criterion(&f));
        }
        if s.task_type == TaskType::Code || is_test_sprint(s) {
            let cmd = if is_test_sprint(s) {
                cmds.test.as_deref().or(cmds.build.as_deref())
            } else {
                cmds.build.as_deref()
            };
            if let Some(c) = cmd {
                added.push(command_criterion(
                    if is_test_sprint(s) {
                        "tests pass"
                    } else {
                        "build passes"
                    },
                    c,
                ));
            }
        }
        if added.is_empty() {
            ev.unfixed.push(format!(
                "{label}: no machine-verifiable exit criterion, and none can be derived (name the files it creates, or set [build] command)"
            ));
        } else {
            for a in &added {
                ev.changes
                    .push(format!("{label}: added exit criterion \"{}\"", a.text));
            }
            s.exit.extend(added);
            fixed = true;
        }
    }
    fixed
}

/// Split a sprint's tasks in two halves; the first half's exit criteria are
/// the files it creates (or the build), the second keeps the original exit
/// criteria and enters on the first's.
fn split_halves(s: &Sprint, cmds: &Commands) -> Option<(Sprint, Sprint)> {
    if s.tasks.len() < 2 {
        return None;
    }
    let mid = s.tasks.len().div_ceil(2);
    let mut a = s.clone();
    let mut b = s.clone();
    a.tasks = s.tasks[..mid].to_vec();
    b.tasks = s.tasks[mid..].to_vec();
    a.name = format!("{} (part 1)", s.name);
    b.name = format!("{} (part 2)", s.name);
    a.exit = created_files(&a).iter().map(|f| exists_criterion(f)).collect();
    if a.exit.is_empty() {
        match cmds.build.as_deref() {
            Some(c) => a.exit.push(command_criterion("build passes", c)),
            None => a.exit = s.exit.clone(),
        }
    }
    b.entry = vec![Criterion {
        kind: CriterionKind::Checklist,
        text: format!("Sprint {} exit criteria met", s.id),
        command: None,
        expected: None,
        checked: false,
    }];
    Some((a, b))
}

/// Group tasks by the top-level directory of the files they name; tasks
/// naming none stay with the first group. `None` when there is one concern.
fn split_concerns(s: &Sprint) -> Option<Vec<Sprint>> {
    let dir_of = |f: &str| f.split_once('/').map(|(d, _)| d.to_string());
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut loose = Vec::new();
    for t in &s.tasks {
        let dirs: Vec<String> = mentions(t, &s.files)
            .iter()
            .filter_map(|f| dir_of(f))
            .collect();
        match dirs.first() {
            Some(d) => match groups.iter_mut().find(|(g, _)| g == d) {
                Some((_, ts)) => ts.push(t.clone()),
                None => groups.push((d.clone(), vec![t.clone()])),
            },
            None => loose.push(t.clone()),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    groups[0].1.splice(0..0, loose);
    let n = groups.len();
    let mut out = Vec::new();
    for (i, (dir, tasks)) in groups.into_iter().enumerate() {
        let mut part = s.clone();
        part.tasks = tasks;
        part.name = format!("{} ({dir})", s.name);
        // Criteria go with the concern whose directory they name; the rest
        // (builds, tests) with the last part, which completes the sprint.
        part.exit = s
            .exit
            .iter()
            .filter(|c| {
                let own = c.text.contains(&format!("{dir}/"));
                let anyone = s
                    .files
                    .iter()
                    .filter_map(|f| dir_of(f))
                    .any(|d| c.text.contains(&format!("{d}/")));
                own || (!anyone && i == n - 1)
            })
            .cloned()
            .collect();
        if i > 0 {
            part.entry = vec![Criterion {
                kind: CriterionKind::Checklist,
                text: format!("Sprint {} exit criteria met", s.id),
                command: None,
                expected: None,
                checked: false,
            }];
        }
        out.push(part);
    }
    Some(out)
}

/// Run every check and apply every fix; renumber at the end.
pub fn evaluate(plan: &Plan, budget: u32, cmds: &Commands) -> (Plan, Evaluation) {
    let mut out = plan.clone();
    let mut ev = Evaluation {
        budget,
        before: plan.sprint_total(),
        ..Evaluation::default()
    };
    let all_files: Vec<String> = {
        let mut v: Vec<String> = plan
            .units
            .iter()
            .flat_map(|u| u.sprints.iter().flat_map(|s| s.files.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    for u in &mut out.units {
        let unit_name = u.name.clone();
        let mut result: Vec<Sprint> = Vec::new();
        for s in std::mem::take(&mut u.sprints) {
            let label = format!("{unit_name}/{}", s.id);
            let q = analysis::quality(&s, budget);
            let mut s = s;
            // Testability first: the fixes add criteria the size estimate
            // counts.
            if q.testable() {
                ev.testability.passed += 1;
            } else {
                ev.testability.issues += 1;
                if fix_criteria(&mut s, cmds, &mut ev, &label) {
                    ev.testability.fixed += 1;
                }
            }
            // Atomicity is judged after the criteria fixes (explicit outputs
            // may have just been added).
            let q = analysis::quality(&s, budget);
            let mut parts = vec![s];
            if q.single_concern {
                if q.atomic() {
                    ev.atomicity.passed += 1;
                } else {
                    ev.atomicity.issues += 1;
                }
            } else {
                ev.atomicity.issues += 1;
                if let Some(split) = split_concerns(&parts[0]) {
                    ev.changes.push(format!(
                        "{label}: split by concern into {} sprints",
                        split.len()
                    ));
                    ev.splits += split.len() - 1;
                    ev.atomicity.fixed += 1;
                    parts = split;
                }
            }
            // Oversized parts are halved until they fit (or cannot split).
            let mut sized = Vec::new();
            let mut oversized = false;
            let mut fixed = false;
            let mut queue: std::collections::VecDeque<Sprint> = parts.into();
            while let Some(p) = queue.pop_front() {
                if Fitness::of(estimated_turns(&p), budget) == Fitness::Oversized {
                    oversized = true;
                    if let Some((a, b)) = split_halves(&p, cmds) {
                        ev.changes
                            .push(format!("{label}: oversized, split \"{}\" in two", p.name));
                        ev.splits += 1;
                        fixed = true;
                        queue.push_front(b);
                        queue.push_front(a);
                        continue;
                    }
                }
                sized.push(p);
            }
            if oversized {
                ev.fitness.issues += 1;
                if fixed {
                    ev.fitness.fixed += 1;
                }
            }
            if sized.len() > 1 {
                for p in &mut sized {
                    refresh_files(p, &all_files);
                }
            }
            result.extend(sized);
        }
        // Undersized sprints merge forward into the next sprint of the unit
        // (backward for the last), when the types agree and the merge fits.
        let mut k = 0;
        while k < result.len() {
            let small = Fitness::of(estimated_turns(&result[k]), budget) == Fitness::Undersized;
            if !small {
                k += 1;
                continue;
            }
            ev.fitness.issues += 1;
            let target = if k + 1 < result.len() {
                Some(k + 1)
            } else if k > 0 {
                Some(k - 1)
            } else {
                None
            };
            let Some(t) = target.filter(|t| result[*t].task_type == result[k].task_type) else {
                k += 1;
                continue;
            };
            let (first, second) = if t > k { (k, t) } else { (t, k) };
            let mut merged = result[first].clone();
            let b = result[second].clone();
            merged.name = format!("{} + {}", merged.name, b.name);
            merged.tasks.extend(b.tasks.iter().cloned());
            merged.exit.extend(b.exit.iter().cloned());
            for c in &b.entry {
                if !merged.entry.contains(c) && !c.text.contains(&format!("Sprint {}", merged.id)) {
                    merged.entry.push(c.clone());
                }
            }
            refresh_files(&mut merged, &all_files);
            if Fitness::of(estimated_turns(&merged), budget) == Fitness::Oversized {
                k += 1;
                continue;
            }
            ev.changes.push(format!(
                "{unit_name}/{}: undersized, merged with Sprint {}",
                result[k].id, result[t].id
            ));
            ev.merges += 1;
            ev.fitness.fixed += 1;
            result[first] = merged;
            result.remove(second);
        }
        let passed_fitness = result
            .iter()
            .filter(|s| Fitness::of(estimated_turns(s), budget) == Fitness::Right)
            .count();
        ev.fitness.passed += passed_fitness.min(result.len());
        u.sprints = result;
    }
    renumber(&mut out);
    ev.after = out.sprint_total();
    (out, ev)
}

// ---------------------------------------------------------------------------
// prioritize

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    pub position: usize,
    pub was: usize,
    pub unit: String,
    pub id: String,
    pub name: String,
    pub score: f64,
    pub justification: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerChange {
    pub unit: String,
    pub from: u32,
    pub to: u32,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prioritization {
    pub sprints: Vec<Ranked>,
    pub reordered: usize,
    pub layers: Vec<LayerChange>,
}

/// Units of lower layers a unit's texts name (by name or directory).
fn named_units(plan: &Plan, u: usize) -> Vec<usize> {
    let text: String = plan.units[u]
        .sprints
        .iter()
        .map(|s| format!("{}\n{}", analysis::words(s), s.body.to_lowercase()))
        .collect();
    plan.units
        .iter()
        .enumerate()
        .filter(|(k, other)| {
            *k != u && {
                let name = other.name.to_lowercase();
                let dir = other.dir.as_deref().map(str::to_lowercase);
                analysis::has_phrase(&text, &name)
                    || dir.is_some_and(|d| d != "." && analysis::has_phrase(&text, &d))
            }
        })
        .map(|(k, _)| k)
        .collect()
}

/// Layer adjustment (spec §U-118): a unit whose text names units of lower
/// layers, none of them in the layer just below its own, does not really
/// depend on that layer: it moves to one past the highest layer it names.
/// A unit naming no other unit gives no evidence and stays.
fn adjust_layers(plan: &mut Plan) -> Vec<LayerChange> {
    if plan.detection.dependencies != DependencyStructure::Layers {
        return Vec::new();
    }
    let mut changes = Vec::new();
    let original: Vec<Option<u32>> = plan.units.iter().map(|u| u.layer).collect();
    for u in 0..plan.units.len() {
        let Some(layer) = original[u].filter(|l| *l > 0) else {
            continue;
        };
        let named: Vec<u32> = named_units(plan, u)
            .into_iter()
            .filter_map(|k| original[k])
            .filter(|l| *l < layer)
            .collect();
        let Some(highest) = named.iter().copied().max() else {
            continue;
        };
        if highest + 1 < layer {
            changes.push(LayerChange {
                unit: plan.units[u].name.clone(),
                from: layer,
                to: highest + 1,
                why: format!(
                    "names nothing in layer {}; its latest named dependency is in layer {highest}",
                    layer - 1
                ),
            });
            plan.units[u].layer = Some(highest + 1);
        }
    }
    if !changes.is_empty() {
        // Dependencies follow the layers again.
        let layers: Vec<(String, Option<u32>)> = plan
            .units
            .iter()
            .map(|u| (u.name.clone(), u.layer))
            .collect();
        for u in &mut plan.units {
            if let Some(l) = u.layer {
                u.deps = layers
                    .iter()
                    .filter(|(_, x)| x.is_some_and(|x| x < l))
                    .map(|(n, _)| n.clone())
                    .collect();
            }
        }
    }
    changes
}

/// Score, adjust layers, reorder units under the hard constraints (a unit
/// comes after its dependencies; within a unit the order is kept), renumber
/// and annotate.
pub fn prioritize(plan: &Plan) -> (Plan, Prioritization, BTreeMap<At, String>) {
    let mut work = plan.clone();
    let layers = adjust_layers(&mut work);
    let before: Vec<(String, SprintId)> = analysis::all_sprints(plan)
        .into_iter()
        .map(|a| {
            (
                plan.units[a.unit].name.clone(),
                analysis::sprint(plan, a).id.clone(),
            )
        })
        .collect();
    let scores: BTreeMap<At, analysis::Priority> = analysis::all_sprints(&work)
        .into_iter()
        .map(|a| (a, analysis::priority(&work, a)))
        .collect();
    let unit_score = |u: usize| {
        scores
            .iter()
            .filter(|(a, _)| a.unit == u)
            .map(|(_, p)| p.score)
            .fold(0.0_f64, f64::max)
    };
    // Topological order by (layer, then highest score, then plan order).
    let mut order: Vec<usize> = Vec::new();
    while order.len() < work.units.len() {
        let ready: Vec<usize> = (0..work.units.len())
            .filter(|u| !order.contains(u))
            .filter(|u| {
                work.units[*u].deps.iter().all(|d| {
                    work.units
                        .iter()
                        .position(|x| &x.name == d)
                        .is_none_or(|k| order.contains(&k))
                })
            })
            .collect();
        let Some(best) = ready.iter().copied().min_by(|a, b| {
            let la = work.units[*a].layer.unwrap_or(0);
            let lb = work.units[*b].layer.unwrap_or(0);
            la.cmp(&lb)
                .then(unit_score(*b).total_cmp(&unit_score(*a)))
                .then(a.cmp(b))
        }) else {
            // Validation rules out cycles; keep whatever is left in order.
            order.extend((0..work.units.len()).filter(|u| !order.contains(u)).collect::<Vec<_>>());
            break;
        };
        order.push(best);
    }
    let mut annotations_by_unit: Vec<Vec<String>> = Vec::new();
    let mut units = Vec::new();
    for &u in &order {
        units.push(work.units[u].clone());
        annotations_by_unit.push(
            (0..work.units[u].sprints.len())
                .map(|s| scores[&At { unit: u, sprint: s }].justification())
                .collect(),
        );
    }
    let score_of: Vec<Vec<f64>> = order
        .iter()
        .map(|&u| {
            (0..work.units[u].sprints.len())
                .map(|s| scores[&At { unit: u, sprint: s }].score)
                .collect()
        })
        .collect();
    work.units = units;
    let old_ids: Vec<Vec<SprintId>> = work
        .units
        .iter()
        .map(|u| u.sprints.iter().map(|s| s.id.clone()).collect())
        .collect();
    renumber(&mut work);
    let mut ranked = Vec::new();
    let mut annotations = BTreeMap::new();
    let mut position = 0;
    for (ui, u) in work.units.iter().enumerate() {
        for (si, s) in u.sprints.iter().enumerate() {
            position += 1;
            let old = &old_ids[ui][si];
            let was = before
                .iter()
                .position(|(n, id)| n == &u.name && id == old)
                .map(|p| p + 1)
                .unwrap_or(position);
            ranked.push(Ranked {
                position,
                was,
                unit: u.name.clone(),
                id: s.id.to_string(),
                name: s.name.clone(),
                score: score_of[ui][si],
                justification: annotations_by_unit[ui][si].clone(),
            });
            annotations.insert(
                At {
                    unit: ui,
                    sprint: si,
                },
                annotations_by_unit[ui][si].clone(),
            );
        }
    }
    let reordered = ranked.iter().filter(|r| r.was != r.position).count();
    (
        work,
        Prioritization {
            sprints: ranked,
            reordered,
            layers,
        },
        annotations,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_retargeted_in_one_pass() {
        let map: BTreeMap<String, String> = [("2", "3"), ("3", "4"), ("2a", "2")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(
            retarget("Sprint 2 and Sprint 3 and Sprint 2a, Sprint 22", &map),
            "Sprint 3 and Sprint 4 and Sprint 2, Sprint 22"
        );
        assert_eq!(retarget("Sprint 2abc", &map), "Sprint 3abc");
    }
}
