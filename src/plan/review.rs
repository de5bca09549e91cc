//! The three passes behind `analyze` (spec §W): completeness (start state,
//! end state, coverage, open questions), the evaluate checks and the
//! prioritize scores in diagnostic mode, and the dependency and parallelism
//! review. Pure: the plan, its text, and a way to ask whether a file exists.

use serde::Serialize;

use super::analysis;
use super::analysis::At;
use super::analysis::Quality;
use super::markdown::blocks;
use super::markdown::Block;
use super::model::Plan;
use super::rewrite;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Severity {
    Critical,
    Recommended,
    Optional,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "Critical",
            Severity::Recommended => "Recommended",
            Severity::Optional => "Optional",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// 1, 2 or 3.
    pub pass: u8,
    pub location: String,
    pub kind: String,
    pub severity: Severity,
    pub problem: String,
    pub impact: String,
    pub recommendation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub clear: bool,
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub requirement: String,
    pub addressed_by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    pub text: String,
    pub location: String,
    pub kind: &'static str,
    pub blocking: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SprintQuality {
    pub sprint: String,
    pub quality: Quality,
    pub utilization: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub sprint: String,
    pub score: f64,
    pub current: usize,
    pub optimal: usize,
    pub blocks: u32,
    pub foundation: bool,
    pub risk: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Review {
    pub budget: u32,
    pub point_a: Point,
    pub point_b: Point,
    pub coverage: Vec<Coverage>,
    pub gaps: Vec<String>,
    pub questions: Vec<Question>,
    pub quality: Vec<SprintQuality>,
    pub scores: Vec<Scored>,
    pub critical_path: Vec<String>,
    pub clusters: Vec<Vec<String>>,
    pub current_parallelism: usize,
    pub maximum_parallelism: usize,
    pub layer_changes: Vec<rewrite::LayerChange>,
    pub order_notes: Vec<String>,
    pub findings: Vec<Finding>,
}

const START_HEADINGS: &[&str] = &[
    "prerequisite",
    "starting state",
    "assumption",
    "precondition",
    "current state",
];
const END_HEADINGS: &[&str] = &[
    "goal",
    "objective",
    "success criteria",
    "done definition",
    "definition of done",
];
const TBD: &[&str] = &["tbd", "todo", "determine later", "decide", "clarify"];
const VAGUE_SPECIFICS: &[&str] = &[
    "appropriate library",
    "suitable approach",
    "standard method",
];
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "are", "all", "each", "must",
    "should", "shall", "will", "can", "have", "has", "its", "their", "them", "when", "where",
];

/// Headings of the document, lower-cased, with the items under each.
fn sections(source: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for b in blocks(source) {
        match b {
            Block::Heading { text, .. } => out.push((text.to_lowercase(), Vec::new())),
            Block::Item { text, .. } | Block::Paragraph { text, .. } => {
                if let Some(last) = out.last_mut() {
                    last.1.push(text);
                }
            }
            _ => {}
        }
    }
    out
}

fn significant(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 3 && !STOP_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// The sprints whose text shares at least half of a requirement's
/// significant words (and at least one).
fn addressed_by(plan: &Plan, requirement: &str) -> Vec<String> {
    let want = significant(requirement);
    if want.is_empty() {
        return Vec::new();
    }
    analysis::all_sprints(plan)
        .into_iter()
        .filter(|a| {
            let have = significant(&analysis::words(analysis::sprint(plan, *a)));
            let shared = want.iter().filter(|w| have.contains(w)).count();
            shared * 2 >= want.len() && shared > 0
        })
        .map(|a| analysis::label(plan, a))
        .collect()
}

fn question_kind(text: &str) -> &'static str {
    let l = text.to_lowercase();
    if l.contains("clarify") || l.contains("requirement") {
        "requirement clarification"
    } else if l.contains("external") || l.contains("third-party") || l.contains("api") {
        "external dependency"
    } else {
        "technical decision"
    }
}

pub fn review(plan: &Plan, source: &str, budget: u32, exists: &dyn Fn(&str) -> bool) -> Review {
    let secs = sections(source);
    let mut findings = Vec::new();
    let all = analysis::all_sprints(plan);

    // Pass 1: point A.
    let mut a_findings = Vec::new();
    let start_sections: Vec<&String> = secs
        .iter()
        .filter(|(h, _)| START_HEADINGS.iter().any(|k| h.contains(k)))
        .map(|(h, _)| h)
        .collect();
    for h in &start_sections {
        a_findings.push(format!("Start state described under \"{h}\"."));
    }
    if !plan.entry_checks.is_empty() {
        a_findings.push(format!(
            "{} plan-wide entry checks.",
            plan.entry_checks.len()
        ));
    }
    let firsts_with_entry = plan
        .units
        .iter()
        .filter(|u| u.sprints.first().is_some_and(|s| !s.entry.is_empty()))
        .count();
    if firsts_with_entry > 0 {
        a_findings.push(format!(
            "{firsts_with_entry} of {} units give entry criteria for their first sprint.",
            plan.units.len()
        ));
    }
    let mut a_clear =
        !start_sections.is_empty() || !plan.entry_checks.is_empty() || firsts_with_entry > 0;
    if !a_clear {
        a_findings.push("No start state: no Prerequisites/Assumptions section, no entry checks, no first-sprint entry criteria.".into());
        findings.push(Finding {
            pass: 1,
            location: "plan".into(),
            kind: "Point A".into(),
            severity: Severity::Critical,
            problem: "The plan does not say what exists before Sprint 1.".into(),
            impact: "Agents must guess the starting state.".into(),
            recommendation: "Add a Prerequisites or Starting State section, or entry criteria for each unit's first sprint.".into(),
        });
    }
    // Entry criteria naming files that nothing creates and that do not exist.
    let mut created: Vec<String> = Vec::new();
    for &at in &all {
        let s = analysis::sprint(plan, at);
        for c in &s.entry {
            for f in c.text.split('`').skip(1).step_by(2) {
                let looks_like_path = !f.contains(' ') && (f.contains('/') || f.contains('.'));
                if looks_like_path && !created.iter().any(|x| x == f) && !exists(f) {
                    a_clear = false;
                    a_findings.push(format!(
                        "{} enters on `{f}`, which no earlier sprint mentions and which does not exist.",
                        analysis::label(plan, at)
                    ));
                    findings.push(Finding {
                        pass: 1,
                        location: analysis::label(plan, at),
                        kind: "Point A".into(),
                        severity: Severity::Critical,
                        problem: format!(
                            "Entry criterion references `{f}`, which is not described."
                        ),
                        impact: "The sprint cannot check its entry criteria.".into(),
                        recommendation: format!(
                            "Describe where `{f}` comes from, or add a sprint that creates it."
                        ),
                    });
                }
            }
        }
        created.extend(s.files.iter().cloned());
    }
    // Point B.
    let mut b_findings = Vec::new();
    let end_sections: Vec<&String> = secs
        .iter()
        .filter(|(h, _)| END_HEADINGS.iter().any(|k| h.contains(k)))
        .map(|(h, _)| h)
        .collect();
    for h in &end_sections {
        b_findings.push(format!("End state described under \"{h}\"."));
    }
    let finals: Vec<String> = plan
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| !plan.units.iter().any(|other| other.deps.contains(&u.name)))
        .map(|(i, u)| {
            analysis::label(
                plan,
                At {
                    unit: i,
                    sprint: u.sprints.len() - 1,
                },
            )
        })
        .collect();
    let final_ok = plan.units.iter().enumerate().all(|(i, u)| {
        !finals.contains(&analysis::label(
            plan,
            At {
                unit: i,
                sprint: u.sprints.len() - 1,
            },
        )) || u.sprints.last().is_some_and(|s| {
            s.exit.iter().any(|c| c.command.is_some())
                && !s.exit.iter().any(|c| analysis::is_vague(&c.text))
        })
    });
    if final_ok {
        b_findings.push(format!(
            "Final sprints ({}) have machine-verifiable exit criteria.",
            finals.join(", ")
        ));
    } else {
        b_findings.push(format!(
            "Some final sprints ({}) lack machine-verifiable exit criteria.",
            finals.join(", ")
        ));
    }
    let b_clear = !end_sections.is_empty() || final_ok;
    if !b_clear {
        findings.push(Finding {
            pass: 1,
            location: finals.join(", "),
            kind: "Point B".into(),
            severity: Severity::Critical,
            problem: "The plan does not say when it is done.".into(),
            impact: "Nobody can verify the end state.".into(),
            recommendation: "Add a Goals or Success Criteria section and machine-verifiable exit criteria to the final sprints.".into(),
        });
    }
    // Coverage.
    let requirements: Vec<String> = secs
        .iter()
        .filter(|(h, _)| h.contains("requirement") || END_HEADINGS.iter().any(|k| h.contains(k)))
        .flat_map(|(_, items)| items.iter().cloned())
        .collect();
    let coverage: Vec<Coverage> = requirements
        .iter()
        .map(|r| Coverage {
            requirement: r.clone(),
            addressed_by: addressed_by(plan, r),
        })
        .collect();
    let mut gaps = Vec::new();
    for c in coverage.iter().filter(|c| c.addressed_by.is_empty()) {
        gaps.push(format!("No sprint addresses \"{}\".", c.requirement));
        findings.push(Finding {
            pass: 1,
            location: "requirements".into(),
            kind: "Coverage".into(),
            severity: Severity::Critical,
            problem: format!("Requirement \"{}\" has no sprint.", c.requirement),
            impact: "The plan can complete without meeting it.".into(),
            recommendation: "Add a sprint (or tasks) for it, or mark it out of scope.".into(),
        });
    }
    for &at in &all {
        let s = analysis::sprint(plan, at);
        if s.exit.is_empty() && s.tasks.is_empty() {
            gaps.push(format!(
                "{} has neither tasks nor exit criteria: it contributes nothing checkable.",
                analysis::label(plan, at)
            ));
        }
    }
    // Open questions.
    let mut questions = Vec::new();
    for &at in &all {
        let s = analysis::sprint(plan, at);
        let texts = std::iter::once(("name".to_string(), s.name.clone()))
            .chain(
                s.tasks
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (format!("task {}", k + 1), t.clone())),
            )
            .chain(
                s.exit
                    .iter()
                    .map(|c| ("exit criteria".to_string(), c.text.clone())),
            );
        for (place, text) in texts {
            let l = text.to_lowercase();
            let tbd = TBD.iter().any(|k| analysis::has_phrase(&l, k));
            let vague = VAGUE_SPECIFICS.iter().any(|k| l.contains(k));
            if tbd || vague {
                let first = at.sprint == 0;
                questions.push(Question {
                    text: text.clone(),
                    location: format!("{} {place}", analysis::label(plan, at)),
                    kind: question_kind(&text),
                    blocking: if first {
                        "blocks the unit's start"
                    } else {
                        "blocks this sprint"
                    },
                });
                findings.push(Finding {
                    pass: 1,
                    location: format!("{} {place}", analysis::label(plan, at)),
                    kind: "Open question".into(),
                    severity: if first {
                        Severity::Critical
                    } else {
                        Severity::Recommended
                    },
                    problem: format!("Undecided: \"{text}\"."),
                    impact: "An agent will decide on its own, or stop.".into(),
                    recommendation: "Decide it in the plan before execution.".into(),
                });
            }
        }
    }

    // Pass 2: the evaluate checks, diagnostic only.
    let quality: Vec<SprintQuality> = all
        .iter()
        .map(|&at| {
            let q = analysis::quality(analysis::sprint(plan, at), budget);
            SprintQuality {
                sprint: analysis::label(plan, at),
                utilization: f64::from(q.estimated_turns) / f64::from(budget) * 100.0,
                quality: q,
            }
        })
        .collect();
    for q in &quality {
        let a = q.quality.atomicity_verdict();
        if a != "PASS" {
            findings.push(Finding {
                pass: 2,
                location: q.sprint.clone(),
                kind: "Atomicity".into(),
                severity: Severity::Recommended,
                problem: a.trim_start_matches("FAIL: ").to_string(),
                impact: "The sprint is harder for one agent to finish in one go.".into(),
                recommendation: "Run `git supervisor evaluate` to split or merge it.".into(),
            });
        }
        let t = q.quality.testability_verdict();
        if t != "PASS" {
            findings.push(Finding {
                pass: 2,
                location: q.sprint.clone(),
                kind: "Testability".into(),
                severity: Severity::Recommended,
                problem: t.trim_start_matches("FAIL: ").to_string(),
                impact: "Completion cannot be verified by running something.".into(),
                recommendation: "Run `git supervisor evaluate` to add machine-verifiable criteria."
                    .into(),
            });
        }
        if q.quality.fitness == analysis::Fitness::Undersized {
            findings.push(Finding {
                pass: 2,
                location: q.sprint.clone(),
                kind: "Context fitness".into(),
                severity: Severity::Optional,
                problem: format!("Undersized (est. {} turns)", q.quality.estimated_turns),
                impact: "A dispatch for little work.".into(),
                recommendation: "Run `git supervisor evaluate` to merge it forward.".into(),
            });
        }
    }

    // Pass 3: priorities, dependencies, parallelism.
    let (adjusted, prio, _) = rewrite::prioritize(plan);
    let scores: Vec<Scored> = all
        .iter()
        .enumerate()
        .map(|(k, &at)| {
            let p = analysis::priority(plan, at);
            let optimal = prio
                .sprints
                .iter()
                .find(|r| r.was == k + 1)
                .map(|r| r.position)
                .unwrap_or(k + 1);
            Scored {
                sprint: analysis::label(plan, at),
                score: p.score,
                current: k + 1,
                optimal,
                blocks: p.dependency_depth,
                foundation: p.foundation == 1,
                risk: p.risk,
            }
        })
        .collect();
    for s in scores.iter().filter(|s| s.current != s.optimal) {
        findings.push(Finding {
            pass: 3,
            location: s.sprint.clone(),
            kind: "Order".into(),
            severity: Severity::Optional,
            problem: format!(
                "Priority {} sits at position {}; position {} would unblock more work sooner.",
                analysis::format_score(s.score),
                s.current,
                s.optimal
            ),
            impact: "Dependent work starts later than it could.".into(),
            recommendation: "Run `git supervisor prioritize`.".into(),
        });
    }
    // Critical path: the longest chain of sprints through the unit graph.
    let mut best: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); plan.units.len()];
    let mut done = vec![false; plan.units.len()];
    for _ in 0..plan.units.len() {
        for (i, u) in plan.units.iter().enumerate() {
            if done[i] {
                continue;
            }
            let dep_idx: Vec<usize> = u
                .deps
                .iter()
                .filter_map(|d| plan.units.iter().position(|x| &x.name == d))
                .collect();
            if dep_idx.iter().all(|d| done[*d]) {
                let mut chain = dep_idx
                    .iter()
                    .map(|d| best[*d].clone())
                    .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                    .unwrap_or_default();
                for s in &u.sprints {
                    chain.0 += 1;
                    chain.1.push(format!("{}/{}", u.name, s.id));
                }
                best[i] = chain;
                done[i] = true;
            }
        }
    }
    let critical_path = best
        .iter()
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|b| b.1.clone())
        .unwrap_or_default();
    // Waves: units that can run at the same time.
    let waves = |units: &[(String, Vec<String>)]| -> Vec<Vec<String>> {
        let mut placed: Vec<String> = Vec::new();
        let mut out = Vec::new();
        while placed.len() < units.len() {
            let wave: Vec<String> = units
                .iter()
                .filter(|(n, d)| !placed.contains(n) && d.iter().all(|x| placed.contains(x)))
                .map(|(n, _)| n.clone())
                .collect();
            if wave.is_empty() {
                break;
            }
            placed.extend(wave.iter().cloned());
            out.push(wave);
        }
        out
    };
    let current: Vec<(String, Vec<String>)> = plan
        .units
        .iter()
        .map(|u| (u.name.clone(), u.deps.clone()))
        .collect();
    let clusters = waves(&current);
    let after: Vec<(String, Vec<String>)> = adjusted
        .units
        .iter()
        .map(|u| (u.name.clone(), u.deps.clone()))
        .collect();
    let current_parallelism = clusters.iter().map(Vec::len).max().unwrap_or(0);
    let maximum_parallelism = waves(&after).iter().map(Vec::len).max().unwrap_or(0);
    for l in &prio.layers {
        findings.push(Finding {
            pass: 3,
            location: l.unit.clone(),
            kind: "Parallelization".into(),
            severity: Severity::Optional,
            problem: format!("Layer {} could be layer {}: it {}.", l.from, l.to, l.why),
            impact: "The unit waits for work it does not need.".into(),
            recommendation: "Run `git supervisor prioritize` to move it.".into(),
        });
    }
    let mut order_notes = Vec::new();
    for (i, u) in plan.units.iter().enumerate() {
        let ats: Vec<At> = (0..u.sprints.len())
            .map(|s| At { unit: i, sprint: s })
            .collect();
        // Foundation first: a foundation sprint after a non-foundation one.
        for w in ats.windows(2) {
            let (a, b) = (
                analysis::priority(plan, w[0]),
                analysis::priority(plan, w[1]),
            );
            if b.foundation == 1 && a.foundation == 0 {
                order_notes.push(format!(
                    "{} establishes shared foundations but comes after {}.",
                    analysis::label(plan, w[1]),
                    analysis::label(plan, w[0])
                ));
            }
            if b.risk > a.risk && b.risk >= 3 {
                order_notes.push(format!(
                    "{} is high-risk ({}) and comes late: earlier would surface problems sooner.",
                    analysis::label(plan, w[1]),
                    b.risk_reason
                ));
            }
        }
    }
    if order_notes.is_empty() {
        order_notes.push("Foundation-first, risk-early and bottleneck-early checks pass.".into());
    }
    findings.sort_by(|a, b| a.pass.cmp(&b.pass).then(a.severity.cmp(&b.severity)));
    Review {
        budget,
        point_a: Point {
            clear: a_clear,
            findings: a_findings,
        },
        point_b: Point {
            clear: b_clear,
            findings: b_findings,
        },
        coverage,
        gaps,
        questions,
        quality,
        scores,
        critical_path,
        clusters,
        current_parallelism,
        maximum_parallelism,
        layer_changes: prio.layers,
        order_notes,
        findings,
    }
}
