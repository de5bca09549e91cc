//! Model selection (spec §J): the complexity score with every point value,
//! the thresholds, and the overrides. Pure: the score's inputs are read from
//! the plan's sprint and the machine's sprint state.
//!
//! Where the spec leaves an input to judgement, it is read from the plan text
//! deterministically (documented on each function), so the same plan always
//! gives the same model.

use super::state::Model;
use super::state::SprintState;
use super::state::SprintStatus;
use crate::plan::CriterionKind;
use crate::plan::Plan;
use crate::plan::Sprint;
use crate::plan::TaskType;
use crate::plan_tools::analysis;
use crate::plan_tools::analysis::Risk;

/// Every component of the score, for the Decisions Log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub model: Model,
    pub score: i32,
    pub estimated_turns: u32,
    pub complexity: i32,
    pub ambiguity: i32,
    pub foundation: i32,
    pub risk: i32,
    pub type_modifier: i32,
    /// Which override applied, if any.
    pub forced: Option<&'static str>,
    /// What in the sprint the override read (an open decision, an
    /// external dependency), quoted.
    pub about: Option<String>,
}

impl Selection {
    pub fn rationale(&self) -> String {
        let mut s = format!(
            "complexity {} + ambiguity {} + foundation {} + risk {} + type {} = {}; ~{} turns",
            self.complexity,
            self.ambiguity,
            self.foundation,
            self.risk,
            self.type_modifier,
            self.score,
            self.estimated_turns
        );
        if let Some(f) = self.forced {
            s.push_str(&format!("; {f}"));
        }
        if let Some(a) = &self.about {
            s.push_str(&format!(": {a}"));
        }
        s
    }
}

pub use crate::plan_tools::analysis::estimated_turns;

const OPEN_ENDED: &[&str] = &[
    "improve", "optimize", "optimise", "enhance", "refine", "clean up",
];

fn vague_exit(sprint: &Sprint) -> bool {
    sprint.exit.is_empty() || sprint.exit.iter().any(|c| analysis::is_vague(&c.text))
}

/// Risk points of spec §J (0-5): integrations 5, new technology 4,
/// algorithms 3, file I/O or system calls 2, otherwise 1.
fn risk_points(risk: Risk) -> i32 {
    match risk {
        Risk::External => 5,
        Risk::NewTechnology => 4,
        Risk::Algorithm => 3,
        Risk::SystemIo => 2,
        Risk::Simple => 1,
    }
}

/// Select the model for dispatching `sprint` of `unit` whose machine state is
/// `state` (spec §J-52..55).
pub fn select(plan: &Plan, unit: &str, sprint: &Sprint, state: &SprintState) -> Selection {
    let turns = estimated_turns(sprint);
    let turn_points = match turns {
        0..=9 => 1,
        10..=20 => 3,
        21..=35 => 5,
        36..=50 => 8,
        _ => 10,
    };
    let file_points = match sprint.files.len() {
        0..=2 => 0,
        3..=5 => 2,
        6..=10 => 4,
        _ => 6,
    };
    let complexity = turn_points + file_points;

    let machine = sprint
        .exit
        .iter()
        .filter(|c| c.command.is_some() || c.kind == CriterionKind::Command)
        .count();
    let criteria_points = if vague_exit(sprint) {
        5
    } else if machine == sprint.exit.len() {
        0
    } else {
        2
    };
    let body = format!("{} {}", sprint.name, sprint.tasks.join(" "));
    let lower = body.to_lowercase();
    let clarity_points = if OPEN_ENDED.iter().any(|w| lower.contains(w)) {
        5
    } else if !sprint.files.is_empty() {
        0
    } else {
        3
    };
    let ambiguity = criteria_points + clarity_points;

    let depth = plan
        .units
        .iter()
        .position(|u| u.name == unit)
        .map(|i| analysis::dependent_units(plan, i).len())
        .unwrap_or(0);
    let first = plan
        .unit(unit)
        .and_then(|u| u.sprints.first())
        .is_some_and(|s| s.id == sprint.id);
    let foundation_score = u8::from(first && depth >= 2);
    let depth_points = match depth {
        0..=1 => 0,
        2..=5 => 2,
        _ => 5,
    };
    let foundation = if foundation_score == 1 { 5 } else { 0 } + depth_points;

    let category = analysis::risk(&body);
    let risk = risk_points(category);
    let type_modifier = match sprint.task_type {
        TaskType::Code => 0,
        TaskType::Command | TaskType::Background => -3,
        TaskType::Deferred => -2,
        TaskType::Manual => -1,
    };
    let score = complexity + ambiguity + foundation + risk + type_modifier;
    let by_score = match score {
        i32::MIN..=5 => Model::Haiku,
        6..=12 => Model::Sonnet,
        _ => Model::Opus,
    };

    let open_questions =
        sprint.body.contains("TBD") || sprint.body.to_lowercase().contains("open question");
    // The attempt this dispatch makes: a retry after a failure is the next
    // one; a first dispatch, or one after an interruption, keeps its number.
    let retry = state.state == SprintStatus::Backoff && !state.interrupted;
    let this_attempt = if retry {
        state.attempt + 1
    } else {
        state.attempt.max(1)
    };
    // What `analyze` reports of the sprint: a decision left open, or an
    // external dependency without a documented interface.
    let question = crate::plan_tools::review::questions::needs_strongest(sprint);
    let mut about = None;
    let (model, forced) = if state.failures >= 1 && this_attempt >= 2 {
        // Spec §J: "If attempt ≥ 2, the override condition forces opus" —
        // the cheaper model already had its chance and failed.
        (
            Model::Opus,
            Some("forced opus: attempt 2 or later of a failed sprint"),
        )
    } else if foundation_score == 1 && depth >= 5 {
        (
            Model::Opus,
            Some("forced opus: establishes core patterns for 5+ dependents"),
        )
    } else if open_questions {
        (
            Model::Opus,
            Some("forced opus: open questions (TBD) in the sprint"),
        )
    } else if let Some(q) = question {
        about = Some(q);
        (Model::Opus, Some("forced opus: analyze finds"))
    } else if category == Risk::NewTechnology {
        (
            Model::Opus,
            Some("forced opus: risk category new technology (new, unfamiliar or experimental)"),
        )
    } else if state.state == SprintStatus::Partial {
        let prior = state.model.unwrap_or(Model::Sonnet);
        let m = prior.max(by_score).max(Model::Sonnet);
        (
            m,
            (m != by_score).then_some("at least sonnet for a continuation"),
        )
    } else if state.attempt == 0 && vague_exit(sprint) && by_score < Model::Sonnet {
        (
            Model::Sonnet,
            Some("at least sonnet: vague exit criteria on a first attempt"),
        )
    } else {
        (by_score, None)
    };
    // "Start cheaper and upgrade on retry": whatever ran the attempt before
    // (an interrupted one, a round before a resume after FATAL) is the floor.
    let (model, forced) = match state.model {
        Some(prior) if prior > model => (
            prior,
            Some("never below the model of the attempt before it"),
        ),
        _ => (model, forced),
    };
    Selection {
        model,
        score,
        estimated_turns: turns,
        complexity,
        ambiguity,
        foundation,
        risk,
        type_modifier,
        forced,
        about,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::state::State;
    use crate::plan::parse;
    use crate::plan::ParseContext;

    fn plan(src: &str) -> Plan {
        parse(
            src,
            &ParseContext {
                dir_name: "p".into(),
            },
        )
        .expect("valid plan")
    }

    #[test]
    fn a_small_well_specified_sprint_gets_haiku() {
        let p = plan(
            "# P\n\n## Sprint 1: Run the formatter\n\n**Validate**:\n```\ncargo fmt --check\n```\n",
        );
        let st = State::new(&p, "r", "op", 3, 5);
        let sel = select(&p, "P", &p.units[0].sprints[0], &st.units[0].sprints[0]);
        assert_eq!(sel.type_modifier, -3);
        assert_eq!(sel.model, Model::Haiku, "{}", sel.rationale());
    }

    #[test]
    fn overrides_apply_in_order() {
        let p = plan("# P\n\n## Sprint 1: Improve things\n\n- make it better\n");
        let mut st = State::new(&p, "r", "op", 3, 5).units[0].sprints[0].clone();
        let first = select(&p, "P", &p.units[0].sprints[0], &st);
        assert!(
            first.model >= Model::Sonnet,
            "vague criteria: {}",
            first.rationale()
        );
        st.state = SprintStatus::Backoff;
        st.failures = 2;
        st.attempt = 2;
        let third = select(&p, "P", &p.units[0].sprints[0], &st);
        assert_eq!(third.model, Model::Opus);
        assert_eq!(
            third.forced,
            Some("forced opus: attempt 2 or later of a failed sprint")
        );
    }

    #[test]
    fn the_turn_formula_counts_files() {
        let p = plan("# P\n\n## Sprint 1: Create files\n\n- Create `a.rs`\n- Create `b.rs`\n- Update `c.rs`\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n");
        // R 2 + C 2*2 + M 1*2 + B 1 + ceil(150/75)=2 + V 1 + 5
        assert_eq!(estimated_turns(&p.units[0].sprints[0]), 17);
    }
}
