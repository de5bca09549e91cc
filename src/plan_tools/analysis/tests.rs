//! Unit tests of the priority scores and quality checks.

use super::*;

/// The indexes answer exactly what scanning answers.
#[test]
fn indexes_agree_with_scanning() {
    let files: Vec<String> = [
        "src/a.rs",
        "a.rs",
        "src/é.rs",
        "docs/my file.md",
        "x",
        "src/a.rs",
        "b/c",
    ]
    .iter()
    .map(|f| f.to_string())
    .collect();
    let index = FileIndex::new(&files);
    let texts = [
        "Create `src/a.rs` and `b/c`",
        "see docs/my file.md, then src/é.rs.",
        "xylophone (x) src/a.rsx",
        "",
        "a.rs",
    ];
    for t in texts {
        let want: Vec<usize> = (0..files.len())
            .filter(|i| t.contains(files[*i].as_str()))
            .filter(|i| files[..*i].iter().all(|f| f != &files[*i]))
            .collect();
        assert_eq!(index.mentioned(t), want, "{t:?}");
    }
    for text in [
        "unit-1 uses unit-12 and core",
        "core-x, the core; 1core",
        "-lead x",
    ] {
        let phrases = Phrases::new(text);
        for p in [
            "unit-1", "unit-12", "unit-2", "core", "1core", "-lead", "x", "core-x", "",
        ] {
            assert_eq!(phrases.has(p), has_phrase(text, p), "{text:?} / {p:?}");
        }
    }
}

/// The one-pass scoring agrees with walking the graph sprint by sprint.
#[test]
fn scoring_once_agrees_with_the_walk() {
    let mut text =
        String::from("# P\n\n| Unit | Directory | Layer | Dependencies |\n|---|---|---|---|\n");
    for u in 0..12 {
        let deps = match u {
            0 | 1 => "—".to_string(),
            _ => format!("u{}, u{}", u - 1, u / 3),
        };
        text.push_str(&format!("| u{u} | u{u} | {} | {deps} |\n", u / 4));
    }
    for u in 0..12 {
        text.push_str(&format!("\n## u{u}\n"));
        for s in 1..=3 {
            text.push_str(&format!(
                "\n### Sprint {s}: Part {s}\n\n- Create `u{u}/p{s}.rs` using `u0/p1.rs`{}\n\n**Exit Criteria**:\n- [ ] `cargo test` passes\n",
                if u % 5 == 0 { " and the shared schema" } else { "" }
            ));
        }
    }
    let plan = crate::plan::parse(&text, &Default::default()).expect("parses");
    let scoring = Scoring::new(&plan);
    for at in all_sprints(&plan) {
        assert_eq!(
            scoring.blocked_count(at),
            blocked_by(&plan, at).len(),
            "{at:?}"
        );
        assert_eq!(
            scoring.foundation(at),
            foundation_score_walk(&plan, at),
            "{at:?}"
        );
    }
    assert!(all_sprints(&plan)
        .iter()
        .any(|a| scoring.foundation(*a) == 1));
}
