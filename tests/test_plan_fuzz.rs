//! No panic and no hang on arbitrary input: arbitrary bytes, mutations of
//! every fixture plan (truncation, duplicated and deleted lines, CRLF, a
//! byte-order mark, invalid UTF-8), and arbitrary arrangements of the shapes
//! real plans use. Bounded: a few hundred cases each, a time limit per parse.

use std::time::Duration;
use std::time::Instant;

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan_tools::write;
use proptest::prelude::*;

use crate::common::plans_dir;
use crate::test_rewrite::shape;

/// A parse of a few kilobytes taking longer than this is a hang (or a
/// quadratic blow-up) worth failing for.
const LIMIT: Duration = Duration::from_secs(2);

fn fixtures() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(plans_dir())
        .expect("tests/plans")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    for d in dirs {
        if let Ok(b) = std::fs::read(d.join("EXECUTION_PLAN.md")) {
            out.push(b);
        }
    }
    out
}

/// Parse bytes the way the CLI reads a file (lossy), within the time limit,
/// and check what any result must satisfy.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let started = Instant::now();
    let result = parse(
        &text,
        &ParseContext {
            dir_name: "p".into(),
        },
    );
    prop_assert!(
        started.elapsed() < LIMIT,
        "parse took {:?}",
        started.elapsed()
    );
    match result {
        Ok(plan) => {
            for unit in &plan.units {
                prop_assert!(!unit.sprints.is_empty());
                // Sprints keep the order they are written in; ids are unique.
                let ids: std::collections::HashSet<_> =
                    unit.sprints.iter().map(|s| &s.id).collect();
                prop_assert_eq!(ids.len(), unit.sprints.len());
                for dep in &unit.deps {
                    prop_assert!(plan.unit(dep).is_some(), "unknown dep {dep}");
                }
            }
        }
        Err(problems) => {
            prop_assert!(!problems.is_empty());
            for p in &problems {
                prop_assert!(!p.message.is_empty());
                for (span, _) in &p.labels {
                    prop_assert!(span.start <= span.end && span.end <= text.len());
                    prop_assert!(
                        text.is_char_boundary(span.start) && text.is_char_boundary(span.end)
                    );
                }
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    DuplicateLine(usize),
    DeleteLine(usize),
    Crlf,
    Bom,
    InvalidUtf8(usize),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        any::<usize>().prop_map(Mutation::DeleteLine),
        Just(Mutation::Crlf),
        Just(Mutation::Bom),
        any::<usize>().prop_map(Mutation::InvalidUtf8),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

fn apply(bytes: &[u8], m: &Mutation) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len().max(1);
    match m {
        Mutation::Truncate(at) => bytes[..at % (bytes.len() + 1)].to_vec(),
        Mutation::DuplicateLine(i) => {
            let l = lines.get(i % n).cloned().unwrap_or_default();
            lines.insert(i % n, l);
            lines.join(&b'\n')
        }
        Mutation::DeleteLine(i) => {
            if !lines.is_empty() {
                lines.remove(i % n);
            }
            lines.join(&b'\n')
        }
        Mutation::Crlf => lines.join(&b"\r\n"[..]),
        Mutation::Bom => [&[0xEF, 0xBB, 0xBF][..], bytes].concat(),
        Mutation::InvalidUtf8(at) => {
            let mut v = bytes.to_vec();
            v.insert(at % (v.len() + 1), 0xFF);
            v.insert(at % (v.len() + 1), 0xC3);
            v
        }
        Mutation::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % n, b % n);
            }
            lines.join(&b'\n')
        }
    }
}

/// Shapes the detectors look for, in any order and number.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("# Title\n".to_string()),
        "[a-z]{1,6}".prop_map(|n| format!("## {n}\n")),
        "[0-9]{1,2}[a-c]?(\\.[0-9])?".prop_map(|id| format!("### Sortie {id}: thing\n")),
        "[0-9]{1,2}".prop_map(|id| format!("## Phase {id} — stage\n")),
        "[0-9]\\.[0-9]".prop_map(|id| format!("### Step {id} — step\n")),
        "[0-9]{1,2}".prop_map(|id| format!("## WEEK {id} — week\n")),
        "[0-9]{1,2}".prop_map(|id| format!("### Sprint {id} Success\n- [ ] ok\n")),
        "[0-9]{1,2}".prop_map(|id| format!("## ✅ **PHASE {id}: Done** (COMPLETE)\n")),
        "[A-C][0-9]?".prop_map(|id| format!("## Phase {id}: lettered\n")),
        Just(
            "| WU | Directory | Layer | Depends on | Sprints |\n|---|---|---|---|---|\n"
                .to_string()
        ),
        "[1-3]".prop_map(|n| format!(
            "| WU{n} — unit{n} | src | 2–4 | WU1, all previous | {n} (S1–S{n}) |\n"
        )),
        Just("| **Total** | | | | 9 |\n".to_string()),
        Just("| Phase | Status |\n|---|---|\n| Build | done |\n".to_string()),
        Just("**Work Unit**: WU1\n".to_string()),
        Just("* **Exit Criteria:**\n  * `cargo test`\n".to_string()),
        Just("DoD: `make check` passes\n".to_string()),
        Just("## Exit Criteria\n- [ ] `#available(macOS 27, *)` guards in place\n".to_string()),
        Just("```\nunit1 ───┼──► unit2\n```\n".to_string()),
        Just("```mermaid\ngraph TD\n A[unit1] --> B[unit2]\n B --> A\n```\n".to_string()),
        Just("## Sortie Prompt Template\n```\nDo {{SORTIE}}\n```\n".to_string()),
        Just("- [x] done\n".to_string()),
        Just("\r\n".to_string()),
        "[a-z ]{0,20}".prop_map(|s| format!("{s}\n")),
    ]
}

/// The shapes and arbitrary text between them (escapes, emphasis): for the
/// no-panic property only, as the canonical writer's escaping of free text
/// is not the parser's to guarantee.
fn fragment_or_text() -> impl Strategy<Value = String> {
    prop_oneof![fragment(), ".{0,20}".prop_map(|s| format!("{s}\n"))]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic_or_hang(bytes in prop::collection::vec(any::<u8>(), 0..4000)) {
        check(&bytes)?;
    }

    #[test]
    fn mutated_fixtures_never_panic_or_hang(
        pick in any::<prop::sample::Index>(),
        ms in prop::collection::vec(mutation(), 1..4),
    ) {
        let all = fixtures();
        let mut bytes = pick.get(&all).clone();
        for m in &ms {
            bytes = apply(&bytes, m);
        }
        check(&bytes)?;
    }

    #[test]
    fn real_plan_shapes_and_text_never_panic(parts in prop::collection::vec(fragment_or_text(), 0..40)) {
        check(parts.concat().as_bytes())?;
    }

    /// Plans built from real-plan shapes keep the model's invariants, and
    /// the canonical form of any accepted one parses back to the same shape.
    #[test]
    fn real_plan_shapes_parse_back(parts in prop::collection::vec(fragment(), 0..40)) {
        let text = parts.concat();
        check(text.as_bytes())?;
        let ctx = ParseContext { dir_name: "p".into() };
        let Ok(plan) = parse(&text, &ctx) else {
            return Ok(());
        };
        let none = std::collections::BTreeMap::new();
        let canonical = write::render(&plan, &write::extras(&text, &plan), &none);
        let back = parse(&canonical, &ctx);
        prop_assert!(back.is_ok(), "canonical form does not parse:\n{}\nfrom:\n{}", canonical, text);
        prop_assert_eq!(shape(&back.expect("checked")), shape(&plan), "{}", canonical);
    }
}

/// Every fixture, each mutation at a spread of positions: deterministic, so
/// a regression shows up on every run, not only on an unlucky seed.
#[test]
fn every_fixture_survives_every_mutation() {
    for bytes in fixtures() {
        for k in 0..8usize {
            let at = k * 97;
            for m in [
                Mutation::Truncate(at),
                Mutation::DuplicateLine(k),
                Mutation::DeleteLine(k),
                Mutation::Crlf,
                Mutation::Bom,
                Mutation::InvalidUtf8(at),
                Mutation::SwapLines(k, k * 3 + 1),
            ] {
                check(&apply(&bytes, &m)).expect("fixture mutation");
            }
        }
    }
}

/// A byte-order mark and CRLF line ends change nothing a reader sees.
#[test]
fn bom_and_crlf_parse_like_the_original() {
    let ctx = ParseContext {
        dir_name: "p".into(),
    };
    for dir in [
        "layered",
        "words-sortie",
        "tables-noise",
        "units-flat-counts",
    ] {
        let text = std::fs::read_to_string(plans_dir().join(dir).join("EXECUTION_PLAN.md"))
            .expect("fixture");
        let plan = parse(&text, &ctx).expect("fixture parses");
        let crlf = text.replace('\n', "\r\n");
        let bom = format!("\u{feff}{text}");
        for variant in [crlf, bom] {
            let other = parse(&variant, &ctx).expect("variant parses");
            assert_eq!(shape(&other), shape(&plan), "{dir}");
        }
    }
}

/// A byte-order mark before the frontmatter hides neither the frontmatter
/// nor the title, and a non-ASCII value in it moves no span.
#[test]
fn a_byte_order_mark_keeps_the_frontmatter_and_the_title() {
    let ctx = ParseContext {
        dir_name: "p".into(),
    };
    let text = "---\nfeature_name: \"Opération Ünïcode\"\n---\n# My Plan\n\n## Sprint 1: Build it\n\n**Exit Criteria**:\n- [ ] `test -f a.txt`\n";
    for variant in [text.to_string(), format!("\u{feff}{text}")] {
        let plan = parse(&variant, &ctx).expect("plan parses");
        assert_eq!(plan.title.as_deref(), Some("My Plan"), "{variant:?}");
        assert_eq!(
            plan.feature_name.as_deref(),
            Some("Opération Ünïcode"),
            "{variant:?}"
        );
        assert_eq!(shape(&plan), shape(&parse(text, &ctx).expect("original")));
    }
}

/// Old Mac line endings (CR alone) read exactly like LF: the same units,
/// sprints, criteria and line numbers for every fixture.
#[test]
fn cr_only_line_endings_parse_like_lf() {
    let ctx = ParseContext {
        dir_name: "project".into(),
    };
    let mut compared = 0;
    for bytes in fixtures() {
        let lf = String::from_utf8_lossy(&bytes).into_owned();
        if lf.contains('\r') {
            continue;
        }
        let cr = lf.replace('\n', "\r");
        let a = parse(&lf, &ctx);
        let b = parse(&cr, &ctx);
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{lf}"),
            (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{lf}"),
            (a, b) => panic!("LF and CR parse differently:\n{a:?}\n{b:?}\n{lf}"),
        }
        compared += 1;
    }
    assert!(compared > 20, "only {compared} fixtures compared");
}

/// A unit named like a table's totals row (`sum`, `total`) that has a
/// section of its own is a unit: its row is no summary (found by the
/// round trip above, which wrote such a plan and read one unit back).
#[test]
fn a_unit_named_like_a_totals_row_with_its_own_section_is_a_unit() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("EXECUTION_PLAN.md"),
        "## Work Units\n\n| Work Unit | Directory | Sprints | Dependencies |\n|---|---|---|---|\n| stage | . | 1 | — |\n| sum | . | 1 | stage |\n\n## stage\n\n### Sprint 1: thing\n\n## sum\n\n### Sprint 1: thing\n",
    )
    .expect("plan");
    let out = crate::common::run(
        dir.path(),
        &["plan", "--format", "json", "EXECUTION_PLAN.md"],
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    let names: Vec<&str> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .filter_map(|u| u["name"].as_str())
        .collect();
    assert_eq!(names, ["stage", "sum"], "{v}");
}
