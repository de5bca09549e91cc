//! The three passes behind `analyze` (spec §W): completeness (start state,
//! end state, coverage, open questions), the evaluate checks and the
//! prioritize scores in diagnostic mode, and the dependency and parallelism
//! review. Pure: the plan, its text, and a way to ask whether a file exists.

mod layers;
mod parallel;
pub mod questions;

use serde::Serialize;

use crate::plan::markdown::blocks;
use crate::plan::markdown::Block;
use crate::plan::model::Plan;

use super::analysis;
use super::analysis::At;
use super::analysis::Quality;
use super::rewrite;
use layers::declared_layers;
use layers::layer_findings;
use layers::UnitGraph;

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
    /// Spec §W's BLOCKED: it keeps a unit from starting, is an external
    /// dependency without an interface, or recurs in several sprints.
    pub blocked: bool,
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
    /// Per unit, sprints that share nothing with its other sprints and
    /// could run at once were they units of their own.
    pub independent_sprints: Vec<(String, Vec<String>)>,
    /// The units of each declared layer, lowest first (empty when the plan
    /// declares none).
    pub layers: Vec<(u32, Vec<String>)>,
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
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "are", "all", "each", "must",
    "should", "shall", "will", "can", "have", "has", "its", "their", "them", "when", "where",
    // Three letters carry a concept ("pay", "tax", "map") unless they are glue.
    "add", "use", "new", "get", "set", "not", "any", "via", "per", "may", "own", "one", "two",
    "out", "see", "way", "too", "also", "but", "our", "you", "who", "why", "how", "was", "its",
    "let", "put", "run", "etc", "yet", "now",
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

/// Words that name one concept: a requirement saying "tokenizer" is about
/// the sprint that builds the "lexer". Each group maps to its first word
/// (groups hold stems, see [`stem`]).
const SYNONYMS: &[&[&str]] = &[
    &["token", "lex", "scann"],
    &["pars", "grammar"],
    &["test", "spec", "verif"],
    &["databas", "db", "storag", "persist", "sql"],
    &["config", "setting", "option", "preferenc"],
    &["doc", "document", "readm", "guid", "manual"],
    &["auth", "authentic", "login", "credential"],
    &["api", "endpoint", "rout", "handl"],
    &["cli", "command", "flag", "argument"],
    &["ui", "interfac", "frontend", "screen", "view"],
    &["export", "output", "serial", "emit"],
    &["import", "input", "load", "ingest"],
    &["error", "failur", "fault"],
    &["log", "logg", "trac", "telemetry"],
    &["cach", "memoiz"],
    &["deploy", "releas", "ship"],
];

/// A crude stem: common English suffixes off, so "tokenizes", "tokenizer"
/// and "tokens" meet at "token", "parsing" and "parser" at "pars".
fn stem(word: &str) -> String {
    const SUFFIXES: &[&str] = &[
        "izations", "ization", "ations", "ation", "izers", "izer", "izes", "ized", "izing", "ize",
        "ments", "ment", "ings", "ing", "ers", "er", "ied", "ies", "ed", "es", "s", "e",
    ];
    for suffix in SUFFIXES {
        if let Some(root) = word.strip_suffix(suffix) {
            if root.chars().count() >= 2 {
                return root.to_string();
            }
        }
    }
    word.to_string()
}

/// The concepts a text names: significant words, stemmed, synonyms folded
/// to one word each.
fn concepts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| (w.len() >= 3 || SHORT_TERMS.contains(w)) && !STOP_WORDS.contains(w))
        .map(|w| {
            let s = stem(w);
            SYNONYMS
                .iter()
                .find(|g| {
                    g.iter()
                        .any(|k| s == *k || (k.len() >= 5 && s.starts_with(k)))
                })
                .map(|g| g[0].to_string())
                .unwrap_or(s)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Short words that still carry meaning in a requirement.
const SHORT_TERMS: &[&str] = &["api", "cli", "db", "ui", "sql", "csv", "xml", "log"];

/// Each sprint's concepts, computed once per review.
fn sprint_concepts(plan: &Plan) -> Vec<(String, Vec<String>)> {
    analysis::all_sprints(plan)
        .into_iter()
        .map(|a| {
            (
                analysis::label(plan, a),
                concepts(&analysis::words(analysis::sprint(plan, a))),
            )
        })
        .collect()
}

/// The sprints whose text shares at least half of a requirement's concepts
/// (and at least one), and whether any sprint shares a concept at all.
fn addressed_by(sprints: &[(String, Vec<String>)], requirement: &str) -> (Vec<String>, bool) {
    let want = concepts(requirement);
    if want.is_empty() {
        return (Vec::new(), true);
    }
    let mut any = false;
    let by = sprints
        .iter()
        .filter(|(_, have)| {
            let shared = want
                .iter()
                .filter(|w| have.binary_search(w).is_ok())
                .count();
            any |= shared > 0;
            shared * 2 >= want.len() && shared > 0
        })
        .map(|(l, _)| l.clone())
        .collect();
    (by, any)
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
    let mut created: std::collections::HashSet<String> = Default::default();
    for &at in &all {
        let s = analysis::sprint(plan, at);
        for c in &s.entry {
            for f in c.text.split('`').skip(1).step_by(2) {
                let looks_like_path = !f.contains(' ') && (f.contains('/') || f.contains('.'));
                if looks_like_path && !created.contains(f) && !exists(f) {
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
    // The final sprints are those of units nothing depends on; each must be
    // checkable by running something (its own criterion, or a plan-wide
    // Exit Check, which covers every sprint).
    let depended: std::collections::HashSet<&str> = plan
        .units
        .iter()
        .flat_map(|u| u.deps.iter().map(String::as_str))
        .collect();
    let plan_runnable = plan.exit_checks.iter().any(|c| c.command.is_some());
    let mut finals: Vec<String> = Vec::new();
    let mut unverified: Vec<String> = Vec::new();
    for (i, u) in plan.units.iter().enumerate() {
        if depended.contains(u.name.as_str()) {
            continue;
        }
        let Some(last) = u.sprints.last() else {
            continue;
        };
        let label = analysis::label(
            plan,
            At {
                unit: i,
                sprint: u.sprints.len() - 1,
            },
        );
        let verifiable = (plan_runnable || last.exit.iter().any(|c| c.command.is_some()))
            && !last.exit.iter().any(|c| analysis::is_vague(&c.text));
        if !verifiable {
            unverified.push(label.clone());
        }
        finals.push(label);
    }
    let final_ok = unverified.is_empty();
    if final_ok {
        b_findings.push(format!(
            "Final sprints ({}) have machine-verifiable exit criteria.",
            finals.join(", ")
        ));
    } else {
        b_findings.push(format!(
            "Final sprints without machine-verifiable exit criteria: {}.",
            unverified.join(", ")
        ));
    }
    // A Goals section describes the end; only runnable final criteria let
    // anyone check it was reached.
    let b_clear = final_ok;
    if !b_clear {
        findings.push(Finding {
            pass: 1,
            location: unverified.join(", "),
            kind: "Point B".into(),
            severity: Severity::Critical,
            problem: if end_sections.is_empty() {
                "The plan does not say when it is done.".into()
            } else {
                "The plan describes its end state, but its final sprints cannot be checked by running anything.".into()
            },
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
    let sprint_words = sprint_concepts(plan);
    let mut coverage: Vec<Coverage> = Vec::new();
    let mut unrelated: Vec<bool> = Vec::new();
    for r in &requirements {
        let (by, any) = addressed_by(&sprint_words, r);
        coverage.push(Coverage {
            requirement: r.clone(),
            addressed_by: by,
        });
        unrelated.push(!any);
    }
    let mut gaps = Vec::new();
    for (c, unrelated) in coverage.iter().zip(&unrelated) {
        if !c.addressed_by.is_empty() {
            continue;
        }
        // Words alone cannot prove a gap: a sprint sharing some concept may
        // well do it under another name. Critical only when none does.
        gaps.push(format!(
            "No sprint clearly addresses \"{}\".",
            c.requirement
        ));
        findings.push(Finding {
            pass: 1,
            location: "requirements".into(),
            kind: "Coverage".into(),
            severity: if *unrelated {
                Severity::Critical
            } else {
                Severity::Recommended
            },
            problem: if *unrelated {
                format!("Requirement \"{}\" has no sprint: no sprint mentions any of its concepts.", c.requirement)
            } else {
                format!(
                    "Requirement \"{}\" may have no sprint: sprints share some of its words, none most of them.",
                    c.requirement
                )
            },
            impact: "The plan can complete without meeting it.".into(),
            recommendation: "Add a sprint (or tasks) for it, name it in the sprint that does it, or mark it out of scope.".into(),
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
    // Open questions: BLOCKED when one keeps a unit from starting, names an
    // external dependency without an interface, or recurs in several sprints.
    let mut questions = Vec::new();
    for &at in &all {
        let s = analysis::sprint(plan, at);
        for q in questions::sprint_questions(s) {
            let first = at.sprint == 0;
            let external = q.kind == questions::EXTERNAL_DEPENDENCY;
            let location = format!("{} {}", analysis::label(plan, at), q.place);
            questions.push(Question {
                text: q.text.clone(),
                location: location.clone(),
                kind: q.kind,
                blocking: if first {
                    "blocks the unit's start"
                } else {
                    "blocks this sprint"
                },
                blocked: first || external,
            });
            findings.push(Finding {
                pass: 1,
                location,
                kind: "Open question".into(),
                severity: if first || external {
                    Severity::Critical
                } else {
                    Severity::Recommended
                },
                problem: if external {
                    format!(
                        "External dependency without a documented interface: \"{}\".",
                        q.text
                    )
                } else {
                    format!("Undecided: \"{}\".", q.text)
                },
                impact: "An agent will decide on its own, or stop.".into(),
                recommendation: if external {
                    "Document the interface (endpoint, schema or SDK) in the plan before execution."
                        .into()
                } else {
                    "Decide it in the plan before execution.".into()
                },
            });
        }
    }
    for k in 0..questions.len() {
        let again = questions
            .iter()
            .filter(|q| q.text == questions[k].text)
            .count()
            > 1;
        questions[k].blocked |= again;
    }

    // Pass 2: the evaluate checks, diagnostic only.
    let quality: Vec<SprintQuality> = all
        .iter()
        .map(|&at| {
            let q = analysis::quality(analysis::sprint(plan, at), budget, &plan.exit_checks);
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
    let scoring = analysis::Scoring::new(plan);
    let priorities: Vec<Vec<analysis::Priority>> = plan
        .units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            (0..unit.sprints.len())
                .map(|s| scoring.priority(At { unit: u, sprint: s }))
                .collect()
        })
        .collect();
    let prio_of = |at: At| &priorities[at.unit][at.sprint];
    let optimal_of: std::collections::HashMap<usize, usize> =
        prio.sprints.iter().map(|r| (r.was, r.position)).collect();
    let scores: Vec<Scored> = all
        .iter()
        .enumerate()
        .map(|(k, &at)| {
            let p = prio_of(at);
            let optimal = optimal_of.get(&(k + 1)).copied().unwrap_or(k + 1);
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
    // Critical path: the longest chain of sprints through the unit graph,
    // one pass over the units in dependency order (ties: the dependency
    // written first).
    let graph = UnitGraph::of(plan);
    let mut length = vec![0usize; plan.units.len()];
    let mut pred: Vec<Option<usize>> = vec![None; plan.units.len()];
    for &i in &graph.order {
        let best_dep =
            graph.deps[i]
                .iter()
                .copied()
                .fold(None, |best: Option<usize>, d| match best {
                    Some(b) if length[b] >= length[d] => Some(b),
                    _ => Some(d),
                });
        pred[i] = best_dep;
        length[i] = best_dep.map_or(0, |d| length[d]) + plan.units[i].sprints.len();
    }
    let end = (0..plan.units.len()).fold(None, |best: Option<usize>, i| match best {
        Some(b) if length[b] >= length[i] => Some(b),
        _ => Some(i),
    });
    let mut critical_path = Vec::new();
    let mut at = end;
    while let Some(i) = at {
        let u = &plan.units[i];
        for s in u.sprints.iter().rev() {
            critical_path.push(format!("{}/{}", u.name, s.id));
        }
        at = pred[i];
    }
    critical_path.reverse();
    // Waves: units that can run at the same time.
    let clusters = graph.waves(plan);
    let current_parallelism = clusters.iter().map(Vec::len).max().unwrap_or(0);
    let maximum_parallelism = UnitGraph::of(&adjusted)
        .waves(&adjusted)
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    // Layers: what the plan declares against what the dependencies do.
    let layers = declared_layers(plan);
    layer_findings(plan, &secs, &graph, &layers, &mut findings);
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
    let independent_sprints = parallel::independent_sprints(plan);
    for (unit, ids) in &independent_sprints {
        findings.push(Finding {
            pass: 3,
            location: unit.clone(),
            kind: "Parallelization".into(),
            severity: Severity::Optional,
            problem: format!(
                "Sprints {} of {unit} share no files and none enters on another's work, yet run one after another.",
                ids.join(", ")
            ),
            impact: "Work that could run side by side waits in sequence.".into(),
            recommendation: "Make them units of their own (each with its own section) so they run at once.".into(),
        });
    }
    let mut order_notes = Vec::new();
    for (i, u) in plan.units.iter().enumerate() {
        let ats: Vec<At> = (0..u.sprints.len())
            .map(|s| At { unit: i, sprint: s })
            .collect();
        // Foundation first: a foundation sprint after a non-foundation one.
        for w in ats.windows(2) {
            let (a, b) = (prio_of(w[0]), prio_of(w[1]));
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
        independent_sprints,
        layers,
        layer_changes: prio.layers,
        order_notes,
        findings,
    }
}

impl UnitGraph {
    fn of(plan: &Plan) -> UnitGraph {
        let deps: Vec<Vec<usize>> = plan.dependency_indices();
        let n = deps.len();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
        for (i, ds) in deps.iter().enumerate() {
            for &d in ds {
                dependents[d].push(i);
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|i| waiting[*i] == 0).collect();
        let mut wave = vec![0usize; n];
        let mut k = 0;
        while k < order.len() {
            let i = order[k];
            k += 1;
            for &j in &dependents[i] {
                wave[j] = wave[j].max(wave[i] + 1);
                waiting[j] -= 1;
                if waiting[j] == 0 {
                    order.push(j);
                }
            }
        }
        // Validation rules out cycles; anything left keeps its place.
        if order.len() < n {
            let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
            order.extend((0..n).filter(|i| !placed.contains(i)));
        }
        UnitGraph { deps, order, wave }
    }

    /// Units by wave, each wave in plan order.
    fn waves(&self, plan: &Plan) -> Vec<Vec<String>> {
        let count = self.wave.iter().max().map_or(0, |m| m + 1);
        let mut out: Vec<Vec<String>> = vec![Vec::new(); count];
        for (i, u) in plan.units.iter().enumerate() {
            out[self.wave[i]].push(u.name.clone());
        }
        out
    }
}
