//! Unit tests of the outline, the sprint word and the parse order.

use super::*;

fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "proj".into(),
    }
}

#[test]
fn frontmatter_is_read_and_masked() {
    let src = "---\nfeature_name: Operation Tidy Lemur\n---\n# T\n\n## Sprint 1: A\n- do it\n";
    let plan = parse(src, &ctx()).expect("valid plan");
    assert_eq!(plan.feature_name.as_deref(), Some("Operation Tidy Lemur"));
    assert_eq!(plan.title.as_deref(), Some("T"));
    assert_eq!(plan.units[0].sprints.len(), 1);
}

#[test]
fn layers_alone_mean_every_lower_layer() {
    let src = "# P\n\n| Package | Layer |\n|---|---|\n| a | 0 |\n| b | 0 |\n| c | 1 |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
    let plan = parse(src, &ctx()).expect("valid plan");
    assert_eq!(
        plan.unit("c").map(|u| u.deps.clone()),
        Some(vec!["a".into(), "b".into()])
    );
    assert!(plan.unit("a").is_some_and(|u| u.deps.is_empty()));
}

#[test]
fn a_dependencies_line_in_a_tables_unit_section_wins_over_layers() {
    let src = "# P\n\n| Package | Layer |\n|---|---|\n| a | 0 |\n| b | 0 |\n| c | 1 |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n\nDependencies: b\n\n### Sprint 1: x\n";
    let plan = parse(src, &ctx()).expect("valid plan");
    assert_eq!(
        plan.unit("c").map(|u| u.deps.clone()),
        Some(vec!["b".into()])
    );
    assert!(plan.unit("a").is_some_and(|u| u.deps.is_empty()));
}

#[test]
fn explicit_dependencies_win_over_layers() {
    let src = "# P\n\n| Package | Layer | Depends on |\n|---|---|---|\n| a | 0 | — |\n| b | 0 | — |\n| c | 1 | b |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
    let plan = parse(src, &ctx()).expect("valid plan");
    assert_eq!(
        plan.unit("c").map(|u| u.deps.clone()),
        Some(vec!["b".into()])
    );
}

#[test]
fn criteria_are_typed() {
    let c = classify_criterion(
        "`cargo test -p parser` passes",
        &["cargo test -p parser".into()],
        false,
    );
    assert_eq!(c.kind, CriterionKind::Command);
    let a = classify_criterion("`src/lib.rs` exists", &["src/lib.rs".into()], false);
    assert_eq!(a.kind, CriterionKind::Assertion);
    assert_eq!(a.command.as_deref(), Some("test -e 'src/lib.rs'"));
    let h = classify_criterion("Code reviewed by a human", &[], false);
    assert_eq!(h.kind, CriterionKind::Checklist);
}

#[test]
fn cycles_are_found() {
    let src = "# P\n\n| Unit | Depends on |\n|---|---|\n| a | c |\n| b | a |\n| c | b |\n\n## a\n### Sprint 1: x\n## b\n### Sprint 1: x\n## c\n### Sprint 1: x\n";
    let problems = parse(src, &ctx()).expect_err("cycle");
    assert!(
        problems
            .iter()
            .any(|p| p.code == ProblemCode::DependencyCycle && p.message.contains("a → c → b → a")),
        "{problems:?}"
    );
}
