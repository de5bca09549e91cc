//! The parser never panics: arbitrary text, and arbitrary arrangements of the
//! Markdown shapes the heuristics look for.

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use proptest::prelude::*;

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
                    for pair in unit.sprints.windows(2) {
                        prop_assert!(pair[0].id < pair[1].id);
                    }
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
