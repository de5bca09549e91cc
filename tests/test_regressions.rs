//! Inputs that once broke something, kept so they never do again.

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;

/// Lower-casing `Ⱥ` grows it from two bytes to three: byte offsets found in
/// lower-cased text must not be used to slice the original.
#[test]
fn depends_on_text_after_a_growing_lowercase_char() {
    let text = "## a\nȺȺȺ Depends on: b, c\n### Sprint 1: x\n## b\n### Sprint 1: y\n";
    let _ = parse(text, &ParseContext::default());
    let text = "## a\nȺ depends on b.\n### Sprint 1: x\n## b\n### Sprint 1: y\n";
    let plan = parse(text, &ParseContext::default()).expect("valid plan");
    assert_eq!(
        plan.unit("a").map(|u| u.deps.clone()),
        Some(vec!["b".to_string()])
    );
}
