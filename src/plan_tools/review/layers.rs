//! `analyze`'s third pass: the units' dependency graph, the waves it runs
//! in, and findings where the declared layers disagree with it.

use crate::plan::model::Plan;

use super::analysis;
use super::Finding;
use super::Severity;

/// The unit graph by index: dependencies resolved once, a dependency order,
/// and each unit's wave (0 for units with no dependencies).
pub(super) struct UnitGraph {
    pub(super) deps: Vec<Vec<usize>>,
    pub(super) order: Vec<usize>,
    pub(super) wave: Vec<usize>,
}

pub(super) fn declared_layers(plan: &Plan) -> Vec<(u32, Vec<String>)> {
    let mut by: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    for u in &plan.units {
        if let Some(l) = u.layer {
            by.entry(l).or_default().push(u.name.clone());
        }
    }
    by.into_iter().collect()
}

/// Layers the run would not honour: a unit depending on its own or a later
/// layer, a unit that starts in another wave than its layer says (explicit
/// dependencies win over layers), and layers the plan describes that no
/// unit carries.
pub(super) fn layer_findings(
    plan: &Plan,
    secs: &[(String, Vec<String>)],
    graph: &UnitGraph,
    layers: &[(u32, Vec<String>)],
    findings: &mut Vec<Finding>,
) {
    if layers.is_empty() {
        let described = secs
            .iter()
            .any(|(h, _)| analysis::has_phrase(h, "layers") || analysis::has_phrase(h, "tiers"));
        if described && plan.units.len() > 1 {
            findings.push(Finding {
                pass: 3,
                location: "plan".into(),
                kind: "Parallelization".into(),
                severity: Severity::Recommended,
                problem: "The plan describes layers, but no unit carries one: the run ignores them and starts units by their dependencies alone.".into(),
                impact: "Units may start before the layers they were meant to wait for.".into(),
                recommendation: "Give each unit its layer (a Layer column in the unit table, or a `Layer: N` line), or state the dependencies.".into(),
            });
        }
        return;
    }
    let rank: std::collections::HashMap<u32, usize> = layers
        .iter()
        .enumerate()
        .map(|(k, (l, _))| (*l, k))
        .collect();
    for (i, u) in plan.units.iter().enumerate() {
        let Some(l) = u.layer else { continue };
        for &d in &graph.deps[i] {
            let dep = &plan.units[d];
            if let Some(dl) = dep.layer.filter(|dl| *dl >= l) {
                findings.push(Finding {
                    pass: 3,
                    location: u.name.clone(),
                    kind: "Parallelization".into(),
                    severity: Severity::Recommended,
                    problem: format!(
                        "Layer {l} depends on {} of layer {dl}: the layers and the dependencies disagree.",
                        dep.name
                    ),
                    impact: "The run follows the dependencies; the layer table misleads.".into(),
                    recommendation: "Move one of them to another layer, or drop the dependency.".into(),
                });
            }
        }
        let wave = graph.wave[i];
        let layer_rank = rank[&l];
        if wave != layer_rank {
            findings.push(Finding {
                pass: 3,
                location: u.name.clone(),
                kind: "Parallelization".into(),
                severity: Severity::Recommended,
                problem: format!(
                    "Declared in layer {l} (wave {}), but its dependencies start it in wave {}.",
                    layer_rank + 1,
                    wave + 1
                ),
                impact: if wave < layer_rank {
                    "It runs before the layers below it are done: the layer is not enforced.".into()
                } else {
                    "It waits longer than its layer says.".into()
                },
                recommendation: "Make the dependencies and the layers agree (state the dependency, or change the layer).".into(),
            });
        }
    }
}
