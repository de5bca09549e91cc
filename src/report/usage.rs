//! Model usage: the spec's "model usage summary for cost tracking" in
//! `status` and its Model Usage Summary in the completion message. Per model
//! tier, the dispatches (agent runs) and their share of all dispatches, the
//! sprints it completed, and the relative cost (haiku = 1x).
//!
//! The relative cost counts dispatches, not sprints: a failed attempt or a
//! continuation ran an agent and was paid for like the one that completed
//! the sprint. With one dispatch per sprint it is the spec's `<N * 10>x`.
//! Dispatches come from the history (every `→ DISPATCHED` transition names
//! its model), because the state keeps only a sprint's latest model.

use std::fmt::Write;

use serde::Serialize;

use crate::machine::Model;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::store::message::Record;

/// Every tier, cheapest first: the table always lists all three, as the
/// spec's does.
pub const MODELS: [Model; 3] = [Model::Haiku, Model::Sonnet, Model::Opus];

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelUsage {
    /// One row per tier, cheapest first.
    pub models: Vec<ModelRow>,
    /// Every dispatch of the run.
    pub dispatches: u32,
    /// Sprints completed by a model (a completion observed in history
    /// without a dispatch has none).
    pub sprints: u32,
    /// The sum of the rows' relative costs.
    pub relative_cost: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelRow {
    pub model: Model,
    /// What one dispatch of the model costs, haiku = 1.
    pub weight: u32,
    pub dispatches: u32,
    /// The model's dispatches over all dispatches, in whole percent
    /// (rounded half up; 0 before any dispatch).
    pub share_percent: u32,
    /// Sprints this model completed (the model of their latest dispatch).
    pub sprints: u32,
    /// dispatches × weight.
    pub relative_cost: u32,
}

fn model_named(name: &str) -> Option<Model> {
    MODELS.into_iter().find(|m| m.as_str() == name)
}

/// The usage of the run `state` holds, from its transition records (any
/// order; records of other runs are skipped).
pub fn of_run(records: &[Record], state: &State) -> ModelUsage {
    let mut dispatches = [0u32; 3];
    for r in records {
        if r.run.as_deref().is_some_and(|run| run != state.run_id) {
            continue;
        }
        if r.to.as_deref() != Some("DISPATCHED") || r.sprint.is_none() {
            continue;
        }
        if let Some(m) = r.model.as_deref().and_then(model_named) {
            dispatches[m as usize] += 1;
        }
    }
    let mut sprints = [0u32; 3];
    for sp in state.units.iter().flat_map(|u| &u.sprints) {
        if let (SprintStatus::Completed, Some(m)) = (sp.state, sp.model) {
            sprints[m as usize] += 1;
        }
    }
    let total: u32 = dispatches.iter().sum();
    let models: Vec<ModelRow> = MODELS
        .into_iter()
        .map(|m| {
            let d = dispatches[m as usize];
            ModelRow {
                model: m,
                weight: m.relative_cost(),
                dispatches: d,
                share_percent: (d * 100 + total / 2).checked_div(total).unwrap_or(0),
                sprints: sprints[m as usize],
                relative_cost: d * m.relative_cost(),
            }
        })
        .collect();
    ModelUsage {
        dispatches: total,
        sprints: sprints.iter().sum(),
        relative_cost: models.iter().map(|r| r.relative_cost).sum(),
        models,
    }
}

/// The table and its total line (the spec's Model Usage Summary, with the
/// dispatches and their share beside the sprints).
pub fn table(u: &ModelUsage, out: &mut String) {
    super::table_head(
        out,
        &["Model", "Sprints", "Dispatches", "Share", "Relative Cost"],
    );
    for r in &u.models {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {}% | {}x |",
            r.model, r.sprints, r.dispatches, r.share_percent, r.relative_cost
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Total relative cost: {}x (baseline: haiku = 1x)",
        u.relative_cost
    );
}

/// How the relative cost is counted, in one line.
pub fn definition() -> String {
    let weights: Vec<String> = MODELS
        .iter()
        .map(|m| format!("{m} {}x", m.relative_cost()))
        .collect();
    format!(
        "every dispatch costs its model's weight: {}",
        weights.join(", ")
    )
}

/// The status block: nothing before the first dispatch.
pub fn status_block(u: &ModelUsage, out: &mut String) {
    if u.dispatches == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "Model usage ({} dispatch{}; {}):",
        u.dispatches,
        if u.dispatches == 1 { "" } else { "es" },
        definition()
    );
    table(u, out);
}
