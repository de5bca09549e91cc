//! The cadence analysis of the completion report: time per unit and per
//! model, velocity by phase, the critical path through the units and the
//! estimate of a run's length from it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::machine::State;
use crate::plan::TaskType;

use super::seconds_between;
use super::Attempt;
use super::SprintEntry;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitCadence {
    pub unit: String,
    pub sprints: usize,
    pub seconds: i64,
    pub gain: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCadence {
    pub model: String,
    pub sprints: usize,
    pub avg_seconds: f64,
    pub avg_turns: Option<f64>,
    pub success_rate: f64,
    pub avg_attempts: f64,
    pub cost: u32,
    pub weight: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VelocityPhase {
    pub label: String,
    pub sprints: usize,
    pub avg_seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub sprint: String,
    pub estimated: u32,
    pub actual: u64,
    /// (actual − estimated) / estimated, in percent.
    pub variance: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cadence {
    pub start: String,
    pub end: String,
    pub elapsed_seconds: i64,
    pub active_seconds: i64,
    pub parallelism_efficiency: f64,
    pub avg_sprint_seconds: f64,
    pub sprints_per_hour: f64,
    pub turns_used: Option<u64>,
    pub turns_available: u64,
    pub by_unit: Vec<UnitCadence>,
    pub parallelism_gain: f64,
    pub parallelism_saved_seconds: i64,
    pub by_model: Vec<ModelCadence>,
    pub velocity: Vec<VelocityPhase>,
    pub trend: &'static str,
    pub first_attempt: usize,
    pub retried: Vec<(String, u32)>,
    pub upgrades: usize,
    pub utilization: Option<f64>,
    pub oversized: Vec<String>,
    pub undersized: Vec<String>,
    pub critical_path: Vec<String>,
    pub critical_path_seconds: i64,
    pub longest: Option<(String, i64, Option<String>)>,
    pub most_retries: Option<(String, u32)>,
    pub recommendation: String,
    pub estimates: Vec<Estimate>,
    pub distribution: Vec<(String, i64)>,
    pub savings: Vec<(String, u32)>,
}

pub fn weight(model: &str) -> u32 {
    match model {
        "haiku" => 1,
        "sonnet" => 10,
        "opus" => 30,
        _ => 0,
    }
}

pub(super) fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

pub(super) fn cadence(
    state: &State,
    sprints: &[SprintEntry],
    attempts: &[Attempt],
    start: String,
    end_of_history: String,
    max_turns: u32,
) -> Cadence {
    let end = sprints
        .iter()
        .map(|s| s.completed.clone())
        .max()
        .unwrap_or(end_of_history);
    let elapsed = seconds_between(&start, &end);
    let active: i64 = attempts.iter().map(|a| a.seconds).sum();
    let pct = |a: f64, b: f64| if b > 0.0 { a / b * 100.0 } else { 0.0 };
    let hours = elapsed as f64 / 3600.0;
    let with_turns: Vec<&Attempt> = attempts.iter().filter(|a| a.turns.is_some()).collect();
    let turns_used =
        (!with_turns.is_empty()).then(|| with_turns.iter().filter_map(|a| a.turns).sum::<u64>());
    let turns_available = with_turns.len() as u64 * u64::from(max_turns);

    let by_unit: Vec<UnitCadence> = state
        .units
        .iter()
        .map(|u| {
            let secs: i64 = attempts
                .iter()
                .filter(|a| a.unit == u.name)
                .map(|a| a.seconds)
                .sum();
            UnitCadence {
                unit: u.name.clone(),
                sprints: sprints.iter().filter(|s| s.unit == u.name).count(),
                seconds: secs,
                gain: if elapsed > 0 {
                    secs as f64 / elapsed as f64
                } else {
                    0.0
                },
            }
        })
        .collect();
    let sequential: i64 = by_unit.iter().map(|u| u.seconds).sum();

    let mut by_model = Vec::new();
    let mut names: Vec<&String> = sprints.iter().filter_map(|s| s.model.as_ref()).collect();
    names.sort_by_key(|m| weight(m));
    names.dedup();
    for m in names {
        let mine: Vec<&SprintEntry> = sprints
            .iter()
            .filter(|s| s.model.as_ref() == Some(m))
            .collect();
        let turns: Vec<f64> = mine
            .iter()
            .filter_map(|s| s.turns)
            .map(|t| t as f64)
            .collect();
        by_model.push(ModelCadence {
            model: m.clone(),
            sprints: mine.len(),
            avg_seconds: mean(&mine.iter().map(|s| s.seconds as f64).collect::<Vec<_>>()),
            avg_turns: (!turns.is_empty()).then(|| mean(&turns)),
            success_rate: pct(
                mine.iter().filter(|s| s.attempts == 1).count() as f64,
                mine.len() as f64,
            ),
            avg_attempts: mean(
                &mine
                    .iter()
                    .map(|s| f64::from(s.attempts))
                    .collect::<Vec<_>>(),
            ),
            cost: mine.len() as u32 * weight(m),
            weight: weight(m),
        });
    }

    // Velocity: completed sprints in completion order, in thirds.
    let n = sprints.len();
    let cuts = [0, n.div_ceil(3), (2 * n).div_ceil(3), n];
    let mut velocity = Vec::new();
    for (k, name) in ["Early", "Middle", "Late"].iter().enumerate() {
        let part = &sprints[cuts[k]..cuts[k + 1]];
        if part.is_empty() {
            continue;
        }
        velocity.push(VelocityPhase {
            label: format!("{name} (Sprint {}-{})", cuts[k] + 1, cuts[k + 1]),
            sprints: part.len(),
            avg_seconds: mean(&part.iter().map(|s| s.seconds as f64).collect::<Vec<_>>()),
        });
    }
    let trend = match (velocity.first(), velocity.last()) {
        (Some(a), Some(b)) if velocity.len() > 1 && b.avg_seconds > a.avg_seconds * 1.2 => {
            "✗ Velocity degraded"
        }
        (Some(a), Some(b)) if velocity.len() > 1 && b.avg_seconds < a.avg_seconds * 0.8 => {
            "↗ Velocity improved"
        }
        _ => "✓ Velocity stabilized",
    };

    let utilizations: Vec<f64> = with_turns
        .iter()
        .filter_map(|a| a.turns)
        .map(|t| pct(t as f64, f64::from(max_turns)))
        .collect();
    let over_under = |pred: &dyn Fn(f64) -> bool| -> Vec<String> {
        with_turns
            .iter()
            .filter(|a| pred(pct(a.turns.unwrap_or(0) as f64, f64::from(max_turns))))
            .map(|a| format!("{}/{} (attempt {})", a.unit, a.sprint, a.attempt))
            .collect()
    };

    // Critical path: the longest chain of sprint times through the unit
    // order and the unit dependencies.
    let time_of = |u: &str, s: &str| {
        sprints
            .iter()
            .find(|e| e.unit == u && e.sprint == s)
            .map(|e| e.total_seconds)
            .unwrap_or(0)
    };
    let mut best: BTreeMap<String, (i64, Vec<String>)> = BTreeMap::new();
    let order = topo_units(state);
    for ui in order {
        let u = &state.units[ui];
        let mut acc: (i64, Vec<String>) = u
            .deps
            .iter()
            .filter_map(|d| best.get(d))
            .max_by_key(|(t, p)| (*t, std::cmp::Reverse(p.clone())))
            .cloned()
            .unwrap_or_default();
        for s in &u.sprints {
            acc.0 += time_of(&u.name, &s.id.to_string());
            acc.1.push(format!("{}/{}", u.name, s.id));
        }
        best.insert(u.name.clone(), acc);
    }
    let (critical_path_seconds, critical_path) = best
        .into_values()
        .max_by_key(|(t, p)| (*t, std::cmp::Reverse(p.clone())))
        .unwrap_or_default();

    let longest = sprints
        .iter()
        .max_by_key(|s| {
            (
                s.total_seconds,
                std::cmp::Reverse(format!("{}/{}", s.unit, s.sprint)),
            )
        })
        .map(|s| {
            (
                format!("{}/{} {}", s.unit, s.sprint, s.name),
                s.total_seconds,
                s.model.clone(),
            )
        });
    let retried: Vec<(String, u32)> = sprints
        .iter()
        .filter(|s| s.attempts > 1)
        .map(|s| (format!("{}/{}", s.unit, s.sprint), s.attempts))
        .collect();
    let most_retries = retried
        .iter()
        .max_by_key(|(l, a)| (*a, std::cmp::Reverse(l.clone())))
        .cloned();
    let avg = mean(&sprints.iter().map(|s| s.seconds as f64).collect::<Vec<_>>());
    let recommendation = match (&longest, &most_retries) {
        (Some((l, t, _)), _) if sprints.len() > 1 && (*t as f64) > 2.0 * avg && avg > 0.0 => {
            format!("Split {l}: it took more than twice the average sprint.")
        }
        (_, Some((l, a))) => {
            format!("Review the exit criteria and prompt of {l}: it needed {a} attempts.")
        }
        _ => "None: no sprint stands out.".into(),
    };

    let estimates: Vec<Estimate> = sprints
        .iter()
        .filter_map(|s| {
            let actual = s.turns?;
            let est = s.estimated_turns.max(1);
            Some(Estimate {
                sprint: format!("{}/{}", s.unit, s.sprint),
                estimated: est,
                actual,
                variance: (actual as f64 - f64::from(est)) / f64::from(est) * 100.0,
            })
        })
        .collect();

    let mut distribution: BTreeMap<&str, i64> = BTreeMap::new();
    for s in sprints {
        let is_test = s.name.to_lowercase().contains("test")
            || s.criteria
                .iter()
                .any(|c| c.text.to_lowercase().contains("test"));
        let kind = if is_test {
            "Testing"
        } else if s.foundation == 1 {
            "Foundation"
        } else if s.task_type == TaskType::Code {
            "Implementation"
        } else {
            "Other"
        };
        *distribution.entry(kind).or_default() += s.seconds;
        *distribution.entry("Retries").or_default() += s.total_seconds - s.seconds;
    }
    let distribution = [
        "Foundation",
        "Implementation",
        "Testing",
        "Other",
        "Retries",
    ]
    .iter()
    .map(|k| (k.to_string(), distribution.get(k).copied().unwrap_or(0)))
    .collect();

    // A pricier model was not needed when the sprint passed first time and
    // used under 15% of its turns (or, without reported turns, was estimated
    // under 15% of the budget).
    let savings = sprints
        .iter()
        .filter(|s| {
            let m = s.model.as_deref().unwrap_or("haiku");
            let small = match s.turns {
                Some(t) => pct(t as f64, f64::from(max_turns)) < 15.0,
                None => pct(f64::from(s.estimated_turns), f64::from(max_turns)) < 15.0,
            };
            m != "haiku" && s.attempts == 1 && small
        })
        .map(|s| {
            (
                format!("{}/{}", s.unit, s.sprint),
                weight(s.model.as_deref().unwrap_or("haiku")) - 1,
            )
        })
        .collect();

    Cadence {
        start,
        end,
        elapsed_seconds: elapsed,
        active_seconds: active,
        parallelism_efficiency: pct(active as f64, elapsed as f64),
        avg_sprint_seconds: avg,
        sprints_per_hour: if hours > 0.0 { n as f64 / hours } else { 0.0 },
        turns_used,
        turns_available,
        parallelism_gain: if elapsed > 0 {
            sequential as f64 / elapsed as f64
        } else {
            0.0
        },
        parallelism_saved_seconds: sequential - elapsed,
        by_unit,
        by_model,
        velocity,
        trend,
        first_attempt: sprints.iter().filter(|s| s.attempts == 1).count(),
        retried,
        upgrades: sprints.iter().filter(|s| s.upgraded).count(),
        utilization: (!utilizations.is_empty()).then(|| mean(&utilizations)),
        oversized: over_under(&|p| p > 80.0),
        undersized: over_under(&|p| p < 15.0),
        critical_path,
        critical_path_seconds,
        longest,
        most_retries,
        recommendation,
        estimates,
        distribution,
        savings,
    }
}

/// Unit indices with every dependency before its dependents.
pub(super) fn topo_units(state: &State) -> Vec<usize> {
    let mut done: Vec<usize> = Vec::new();
    while done.len() < state.units.len() {
        let before = done.len();
        for (i, u) in state.units.iter().enumerate() {
            if done.contains(&i) {
                continue;
            }
            let ready = u
                .deps
                .iter()
                .all(|d| state.unit_index(d).is_none_or(|k| done.contains(&k)));
            if ready {
                done.push(i);
            }
        }
        if done.len() == before {
            // A cycle cannot pass plan validation; keep the rest in order.
            done.extend(
                (0..state.units.len())
                    .filter(|i| !done.contains(i))
                    .collect::<Vec<_>>(),
            );
        }
    }
    done
}
