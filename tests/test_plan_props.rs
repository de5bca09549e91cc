//! The parser never panics: arbitrary text, and arbitrary arrangements of the
//! Markdown shapes the heuristics look for. The plan rewrites of every plan
//! it accepts parse back.

use std::collections::BTreeMap;

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan_tools::breakdown;
use git_supervisor::plan_tools::rewrite;
use git_supervisor::plan_tools::write;
use proptest::prelude::*;

use crate::test_rewrite::shape;

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("# Title\n".to_string()),
        "[a-z]{1,6}".prop_map(|n| format!("## {n}\n")),
        "[0-9]{1,2}[a-c]?".prop_map(|id| format!("### Sprint {id}: thing\n")),
        "[0-9]{1,2}[a-c]?".prop_map(|id| format!("## Sprint {id}: thing\n")),
        "[0-9]\\.[0-9]".prop_map(|id| format!("### Task {id}: t\n")),
        Just("| Package | Layer | Depends on | Sprints |\n|---|---|---|---|\n".to_string()),
        "[a-z]{1,4}".prop_map(|n| format!("| {n} | 1 | a, b | 2 |\n")),
        Just("| Sprint | Name |\n|---|---|\n| 1 | x |\n".to_string()),
        Just("**Exit Criteria**:\n- [ ] `cargo test` passes\n".to_string()),
        Just("Depends on: a, b\n".to_string()),
        Just("```mermaid\ngraph TD\n a --> b\n b --> a\n```\n".to_string()),
        Just("```\ntemplate: |\n  hi\n```\n".to_string()),
        Just("---\nfeature_name: X\n---\n".to_string()),
        Just("- [ ] item\n  - nested\n".to_string()),
        Just("\n".to_string()),
        ".{0,20}".prop_map(|s| format!("{s}\n")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let _ = parse(&text, &ParseContext::default());
    }

    #[test]
    fn arbitrary_plan_shapes_never_panic(parts in prop::collection::vec(fragment(), 0..40)) {
        let text = parts.concat();
        match parse(&text, &ParseContext { dir_name: "p".into() }) {
            Ok(plan) => {
                // A valid plan keeps the model's invariants.
                for unit in &plan.units {
                    prop_assert!(!unit.sprints.is_empty());
                    // Sprints keep the order they are written in; ids are unique.
                    let ids: std::collections::HashSet<_> = unit.sprints.iter().map(|s| &s.id).collect();
                    prop_assert_eq!(ids.len(), unit.sprints.len());
                    for dep in &unit.deps {
                        prop_assert!(plan.unit(dep).is_some());
                    }
                }
            }
            Err(problems) => {
                prop_assert!(!problems.is_empty());
                for p in &problems {
                    for (span, _) in &p.labels {
                        prop_assert!(span.end <= text.len() && span.start <= span.end);
                        prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                    }
                }
            }
        }
    }
}

fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "p".into(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever plan the parser accepts, the canonical form, `evaluate` and
    /// `prioritize` write plans it accepts again, and a second `evaluate`
    /// changes nothing.
    #[test]
    fn rewrites_of_arbitrary_plans_parse_back(parts in prop::collection::vec(fragment(), 0..40)) {
        let text = parts.concat();
        let Ok(plan) = parse(&text, &ctx()) else {
            return Ok(());
        };
        let none = BTreeMap::new();
        let canonical = write::render(&plan, &write::extras(&text, &plan), &none);
        let back = parse(&canonical, &ctx());
        prop_assert!(back.is_ok(), "canonical form does not parse:\n{}", canonical);
        let back = back.expect("checked");
        prop_assert_eq!(shape(&back), shape(&plan), "{}", canonical);

        let cmds = rewrite::Commands::from_plan(&plan, None);
        let (fixed, _) = rewrite::evaluate(&plan, 50, &cmds);
        let once = write::render(&fixed, &write::extras(&text, &plan), &none);
        let reparsed = parse(&once, &ctx());
        prop_assert!(reparsed.is_ok(), "evaluated plan does not parse:\n{}", once);
        let reparsed = reparsed.expect("checked");
        prop_assert_eq!(shape(&reparsed), shape(&fixed), "{}", once);
        let (again, _) = rewrite::evaluate(&reparsed, 50, &rewrite::Commands::from_plan(&reparsed, None));
        prop_assert!(again == reparsed, "a second evaluate changes the plan:\n{}", once);

        let (prioritized, _, notes) = rewrite::prioritize(&plan);
        let ordered = write::render(&prioritized, &write::extras(&text, &plan), &notes);
        prop_assert!(parse(&ordered, &ctx()).is_ok(), "prioritized plan does not parse:\n{}", ordered);
    }

    /// Any document gives `breakdown` a plan the parser reads back as built.
    #[test]
    fn breakdown_of_any_document_parses_back(
        parts in prop::collection::vec(fragment(), 0..40),
        build in prop::option::of(prop_oneof![Just("make".to_string()), Just("cargo test".to_string()), Just("./build.sh".to_string())]),
    ) {
        let text = parts.concat();
        let b = breakdown::breakdown(&text, "p", build.as_deref());
        let out = write::render(&b.plan, &write::Extras::default(), &BTreeMap::new());
        let back = parse(&out, &ctx());
        prop_assert!(back.is_ok(), "breakdown output does not parse:\n{}", out);
        prop_assert_eq!(shape(&back.expect("checked")), shape(&b.plan), "{}", out);
    }
}

/// Text the parser rendered from escapes, emphasis markers or entities is
/// written escaped, so that it reads back as it was; plain text is written
/// as it is.
#[test]
fn breakdown_escapes_what_markdown_would_read_otherwise() {
    let doc = "# Shop\n\n## Requirements\n\n- Implement a \\\\! b \\: c\n- Add * one star `a*b`\n- Support &amp; and <x> and _y_ and [z]\n- Parse snake_case names\n";
    let b = breakdown::breakdown(doc, "p", Some("cargo test"));
    let out = write::render(&b.plan, &write::Extras::default(), &BTreeMap::new());
    let back = parse(&out, &ctx()).expect("breakdown output parses");
    assert_eq!(shape(&back), shape(&b.plan), "{out}");
    let tasks: Vec<&String> = b
        .plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .flat_map(|s| &s.tasks)
        .collect();
    assert!(tasks.iter().any(|t| t.contains("a \\! b : c")), "{tasks:?}");
    assert!(
        out.contains("Parse snake_case names"),
        "plain text stays unescaped:\n{out}"
    );
    assert!(
        out.contains(r"a \\\! b"),
        "a backslash is written escaped:\n{out}"
    );
}

/// A plan of numbered phases, each with its steps and maybe some prose.
fn phased_plan() -> impl Strategy<Value = (String, Vec<Vec<String>>)> {
    let prose = prop_oneof![
        Just(String::new()),
        Just("Goal: get the groundwork right.\n\n".to_string()),
        Just("Tasks in this phase can run in parallel.\n\n".to_string()),
    ];
    (
        prop_oneof![
            Just("Phase"),
            Just("Stage"),
            Just("Week"),
            Just("Milestone")
        ],
        prop::collection::vec((1usize..4, prose), 2..6),
    )
        .prop_map(|(word, phases)| {
            let mut text = "# Roadmap\n\n".to_string();
            let mut ids = Vec::new();
            for (p, (steps, prose)) in phases.iter().enumerate() {
                let p = p + 1;
                text.push_str(&format!("## {word} {p}: Area {p}\n\n{prose}"));
                let mut mine = Vec::new();
                for s in 1..=*steps {
                    text.push_str(&format!(
                        "### Step {p}.{s}: Task {p}.{s}\n\n- Do {p}.{s}\n\n"
                    ));
                    mine.push(format!("{p}.{s}"));
                }
                ids.push(mine);
            }
            (text, ids)
        })
}

/// What a reader adds to a plan without meaning to order anything: a
/// closing table that groups its sprints, "parallel" in passing, or a
/// graph that branches over some phases and leaves the last one out.
fn harmless_addition(ids: &[Vec<String>], which: usize) -> String {
    let all: Vec<&String> = ids.iter().flatten().collect();
    match which % 5 {
        4 => {
            let mut t = "## Graph\n\n```mermaid\ngraph TD\n".to_string();
            for p in 2..ids.len() {
                t.push_str(&format!(
                    "    P1[Phase 1: Area 1] --> P{p}[Phase {p}: Area {p}]\n"
                ));
            }
            t.push_str("```\n");
            t
        }
        0 => {
            let mut t = "## Summary\n\n| Group | Sprints | Focus |\n|---|---|---|\n".to_string();
            for (g, chunk) in all.chunks(2).enumerate() {
                let list: Vec<&str> = chunk.iter().map(|s| s.as_str()).collect();
                t.push_str(&format!(
                    "| Group {} | {} | work |\n",
                    g + 1,
                    list.join(", ")
                ));
            }
            t
        }
        1 => {
            let mut t = "## Timeline\n\n| Sprint | Phase | Weeks |\n|---|---|---|\n".to_string();
            for (n, id) in all.iter().enumerate() {
                t.push_str(&format!("| {id} | Track {} | {} |\n", n % 3 + 1, n + 1));
            }
            t
        }
        2 => "## Notes\n\nThe test suite runs in parallel on CI.\n".to_string(),
        _ => "## Notes\n\nWe use parallel downloads; builds run concurrently on CI.\n".to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Numbered phases are one sequence, and neither a summary table that
    /// groups their steps nor "parallel" in passing makes any run at once.
    #[test]
    fn summaries_and_stray_parallel_never_create_parallelism(
        (text, ids) in phased_plan(),
        which in 0usize..5,
    ) {
        let plan = parse(&text, &ctx()).expect("a phased plan parses");
        prop_assert!(!plan.units_can_run_at_once(), "{text}");
        let more = format!("{text}{}", harmless_addition(&ids, which));
        if let Ok(after) = parse(&more, &ctx()) {
            prop_assert!(!after.units_can_run_at_once(), "{more}");
        }
    }

    /// For any plan the generic reader accepts as one sequence, the same
    /// additions keep it one sequence.
    #[test]
    fn additions_keep_any_sequential_plan_sequential(
        parts in prop::collection::vec(fragment(), 0..40),
        which in 0usize..5,
    ) {
        let text = parts.concat();
        let Ok(plan) = parse(&text, &ctx()) else { return Ok(()); };
        if plan.units_can_run_at_once() {
            return Ok(());
        }
        let ids: Vec<Vec<String>> = plan
            .units
            .iter()
            .map(|u| u.sprints.iter().map(|s| s.id.to_string()).collect())
            .collect();
        let more = format!("{text}\n{}", harmless_addition(&ids, which));
        if let Ok(after) = parse(&more, &ctx()) {
            prop_assert!(!after.units_can_run_at_once(), "{more}");
        }
    }
}
