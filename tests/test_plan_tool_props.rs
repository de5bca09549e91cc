//! The plan tools' promises over generated plans written as people write
//! them: author ids (dotted, lettered, starting at 0 or 25, `Sortie`),
//! done marks on headings and ticked items, the author's own `**Priority**:`
//! and context-budget lines, free sections and separators. For `evaluate`
//! and `prioritize`: every line of the plan is still there, in order (the
//! tools only add lines here, as no build command is known to replace a
//! vague criterion with); every sprint keeps its id and done mark; and a
//! second run changes nothing.

use std::collections::BTreeMap;

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;
use git_supervisor::plan_tools::edit;
use git_supervisor::plan_tools::rewrite;
use proptest::prelude::*;

fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "p".into(),
    }
}

#[derive(Debug, Clone)]
struct GenSprint {
    done: bool,
    author_priority: bool,
    ticked: bool,
    files: usize,
    vague: bool,
}

fn sprint() -> impl Strategy<Value = GenSprint> {
    (
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.3),
        1usize..12,
        any::<bool>(),
    )
        .prop_map(|(done, author_priority, ticked, files, vague)| GenSprint {
            done,
            author_priority,
            ticked,
            files,
            vague,
        })
}

/// Ids as authors write them: `(word, ids)`.
fn ids(style: usize, n: usize) -> (&'static str, Vec<String>) {
    match style {
        0 => ("Sprint", (1..=n).map(|k| k.to_string()).collect()),
        1 => ("Sortie", (0..n).map(|k| k.to_string()).collect()),
        2 => ("Phase", (25..25 + n).map(|k| k.to_string()).collect()),
        3 => ("Phase", (1..=n).map(|k| format!("3.{k}")).collect()),
        _ => (
            "Sprint",
            (1..=n)
                .map(|k| format!("1{}", (b'a' + k as u8 - 1) as char))
                .collect(),
        ),
    }
}

fn render(style: usize, sprints: &[GenSprint], free: bool) -> String {
    let (word, ids) = ids(style, sprints.len());
    let mut t = String::from("# Ledger\n\n> A note the author keeps.\n\n");
    if free {
        t.push_str(
            "## Executive Summary\n\n| Area | Owner |\n|------|-------|\n| api | team |\n\n---\n\n",
        );
    }
    for (k, s) in sprints.iter().enumerate() {
        let mark = if s.done { " ✅" } else { "" };
        t.push_str(&format!("## {word} {}: Part {k}{mark}\n\n", ids[k]));
        if s.author_priority {
            t.push_str("**Priority**: high — assign to opus\n**Context budget**: 40 turns\n\n");
        }
        for f in 0..s.files {
            let tick = if s.ticked { "x" } else { " " };
            t.push_str(&format!("- [{tick}] Create `src/p{k}/f{f}.rs`\n"));
        }
        t.push_str("\n**Exit Criteria**:\n");
        if s.vague {
            t.push_str("- [ ] It works correctly\n");
        } else {
            t.push_str(&format!("- [ ] `src/p{k}/f0.rs` exists\n"));
        }
        t.push('\n');
    }
    if free {
        t.push_str("## Risks\n\n```sh\necho untouched\n```\n");
    }
    t
}

fn ids_and_done(p: &Plan) -> Vec<(String, bool)> {
    p.units
        .iter()
        .flat_map(|u| {
            u.sprints
                .iter()
                .map(|s| (s.id.to_string(), s.done.is_some()))
        })
        .collect()
}

/// Every line of `before` is in `after`, in order.
fn in_order(before: &str, after: &str) -> Result<(), String> {
    let mut rest = after.lines();
    for line in before.lines() {
        if !rest.any(|l| l == line) {
            return Err(format!("line lost or moved: {line:?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn evaluate_and_prioritize_keep_lines_ids_and_done_marks(
        style in 0usize..5,
        sprints in prop::collection::vec(sprint(), 1..7),
        free in any::<bool>(),
    ) {
        let text = render(style, &sprints, free);
        let plan = parse(&text, &ctx()).map_err(|p| TestCaseError::fail(format!("{p:?}\n{text}")))?;
        prop_assert_eq!(plan.sprint_total(), sprints.len(), "{}", text);

        let cmds = rewrite::Commands::from_plan(&plan, None);
        let (fixed, _) = rewrite::evaluate(&plan, 50, &cmds);
        let e = edit::edit(&text, &plan, &fixed, &BTreeMap::new(), &ctx());
        in_order(&text, &e.text).map_err(|m| TestCaseError::fail(format!("evaluate: {m}\n{}", e.text)))?;
        let back = parse(&e.text, &ctx()).map_err(|p| TestCaseError::fail(format!("{p:?}")))?;
        prop_assert_eq!(ids_and_done(&back), ids_and_done(&plan));
        let (again, _) = rewrite::evaluate(&back, 50, &rewrite::Commands::from_plan(&back, None));
        let e2 = edit::edit(&e.text, &back, &again, &BTreeMap::new(), &ctx());
        prop_assert_eq!(&e2.text, &e.text, "a second evaluate changes nothing");

        let (ordered, _, notes) = rewrite::prioritize(&plan);
        let p = edit::edit(&text, &plan, &ordered, &notes, &ctx());
        in_order(&text, &p.text).map_err(|m| TestCaseError::fail(format!("prioritize: {m}\n{}", p.text)))?;
        let back = parse(&p.text, &ctx()).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(ids_and_done(&back), ids_and_done(&plan));
        let (again, _, notes) = rewrite::prioritize(&back);
        let p2 = edit::edit(&p.text, &back, &again, &notes, &ctx());
        prop_assert_eq!(&p2.text, &p.text, "a second prioritize changes nothing");
    }
}
