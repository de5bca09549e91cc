//! `prioritize`: the units ranked by the §U scores and their layers
//! adjusted to the dependencies the plan states.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::plan::model::DependencyStructure;
use crate::plan::model::Plan;
use crate::plan::model::SprintId;

use super::analysis;
use super::analysis::At;
use super::named_units;
use super::UnitNames;

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

/// Layer adjustment (spec §U-118): a unit whose text names units of lower
/// layers, none of them in the layer just below its own, does not really
/// depend on that layer: it moves to one past the highest layer it names.
/// A unit naming no other unit gives no evidence and stays.
pub(super) fn adjust_layers(plan: &mut Plan) -> Vec<LayerChange> {
    if plan.detection.dependencies != DependencyStructure::Layers {
        return Vec::new();
    }
    let mut changes = Vec::new();
    let original: Vec<Option<u32>> = plan.units.iter().map(|u| u.layer).collect();
    let names = UnitNames::new(plan);
    for u in 0..plan.units.len() {
        let Some(layer) = original[u].filter(|l| *l > 0) else {
            continue;
        };
        let named: Vec<u32> = named_units(plan, u, &names)
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
/// comes after its dependencies; within a unit the order is kept) and
/// annotate; every sprint keeps its id.
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
    let scoring = analysis::Scoring::new(&work);
    let scores: BTreeMap<At, analysis::Priority> = analysis::all_sprints(&work)
        .into_iter()
        .map(|a| (a, scoring.priority(a)))
        .collect();
    let mut unit_score = vec![0.0_f64; work.units.len()];
    for (a, p) in &scores {
        unit_score[a.unit] = unit_score[a.unit].max(p.score);
    }
    // Topological order by (layer, then highest score, then plan order):
    // of the units whose dependencies are placed, the first by that key.
    // Scores carry two decimals, so hundredths order them exactly.
    let n = work.units.len();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0usize; n];
    for (i, deps) in work.dependency_indices().into_iter().enumerate() {
        for k in deps {
            dependents[k].push(i);
            waiting[i] += 1;
        }
    }
    let key = |u: usize| {
        (
            work.units[u].layer.unwrap_or(0),
            std::cmp::Reverse((unit_score[u] * 100.0).round() as i64),
            u,
        )
    };
    let mut ready: std::collections::BTreeSet<_> =
        (0..n).filter(|u| waiting[*u] == 0).map(key).collect();
    let mut order: Vec<usize> = Vec::with_capacity(n);
    while let Some(first) = ready.pop_first() {
        let best = first.2;
        order.push(best);
        for &j in &dependents[best] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.insert(key(j));
            }
        }
    }
    if order.len() < n {
        // Validation rules out cycles; keep whatever is left in order.
        let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
        order.extend((0..n).filter(|u| !placed.contains(u)));
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
    // Ids are the author's: units move, their sprints keep their ids and
    // order.
    let before_at: std::collections::HashMap<(&str, &SprintId), usize> = before
        .iter()
        .enumerate()
        .map(|(k, (n, id))| ((n.as_str(), id), k))
        .collect();
    let mut ranked = Vec::new();
    let mut annotations = BTreeMap::new();
    let mut position = 0;
    for (ui, u) in work.units.iter().enumerate() {
        for (si, s) in u.sprints.iter().enumerate() {
            position += 1;
            let old = &old_ids[ui][si];
            let was = before_at
                .get(&(u.name.as_str(), old))
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
            // A sprint the plan marks done needs no priority in the file.
            if s.done.is_none() {
                annotations.insert(
                    At {
                        unit: ui,
                        sprint: si,
                    },
                    annotations_by_unit[ui][si].clone(),
                );
            }
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
