//! Properties of a reading that can't hurt, over generated plans: order
//! stated in prose (however it is wrapped) or a closing summary table never
//! lets units run at once; every task line has exactly one home (the
//! tally adds up); a sprint with an open task line of its own is never
//! done, nor one whose mark says it is done in part.

use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use proptest::prelude::*;

fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "p".into(),
    }
}

/// Unit sections, each with sprints whose task lines are ticked or not.
fn sections() -> impl Strategy<Value = Vec<(String, Vec<Vec<bool>>)>> {
    prop::collection::vec(
        (
            "[a-z]{3,8}",
            prop::collection::vec(prop::collection::vec(any::<bool>(), 1..4), 1..4),
        ),
        2..5,
    )
    .prop_map(|mut v| {
        // Unique unit names.
        for (k, (name, _)) in v.iter_mut().enumerate() {
            name.push_str(&format!("unit{k}"));
        }
        v
    })
}

/// The units `u` waits for, directly or not, by index.
fn waits_for(plan: &git_supervisor::plan::Plan, u: usize) -> std::collections::BTreeSet<usize> {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![u];
    while let Some(x) = stack.pop() {
        for d in &plan.units[x].deps {
            if let Some(j) = plan.units.iter().position(|n| &n.name == d) {
                if seen.insert(j) {
                    stack.push(j);
                }
            }
        }
    }
    seen
}

fn render(
    units: &[(String, Vec<Vec<bool>>)],
    preamble: &str,
    rules: bool,
    summary: bool,
) -> String {
    let mut out = format!("# Plan\n\n{preamble}\n");
    // A unit table: its rows start at once unless something orders them.
    out.push_str("\n| Unit | Directory |\n|---|---|\n");
    for (name, _) in units {
        out.push_str(&format!("| {name} | {name} |\n"));
    }
    for (k, (name, sprints)) in units.iter().enumerate() {
        out.push_str(&format!("\n## {name}\n\n"));
        if rules && k > 0 {
            out.push_str(&format!(
                "Rules: begin only after\n{} has completed.\n\n",
                units[k - 1].0
            ));
        }
        for (s, tasks) in sprints.iter().enumerate() {
            out.push_str(&format!("### Sprint {}: Work {s} of {name}\n\n", s + 1));
            for (t, ticked) in tasks.iter().enumerate() {
                let mark = if *ticked { 'x' } else { ' ' };
                out.push_str(&format!("- [{mark}] Task {t} of sprint {s} in {name}\n"));
            }
            out.push('\n');
        }
    }
    if summary {
        out.push_str("\n## Summary\n\n| Phase | Sprints | Features |\n|---|---|---|\n");
        for (name, sprints) in units {
            out.push_str(&format!("| {name} | 1-{} | things |\n", sprints.len()));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn stated_order_and_summary_tables_never_run_units_at_once(
        units in sections(),
        wrap in any::<bool>(),
        summary in any::<bool>(),
    ) {
        let preamble = if wrap {
            "The units run one after\nthe other, in the order written."
        } else {
            "The units run one after the other, in the order written."
        };
        let text = render(&units, preamble, true, summary);
        let plan = parse(&text, &ctx()).expect("a plan");
        prop_assert!(!plan.units_can_run_at_once(), "{text}");
        // Without the rules the table's rows do start at once: the rules
        // are what orders them.
        let free = parse(&render(&units, "", false, summary), &ctx()).expect("a plan");
        prop_assert!(free.units_can_run_at_once());
    }

    #[test]
    fn every_task_line_has_one_home_and_open_lines_keep_sprints_open(
        units in sections(),
        summary in any::<bool>(),
    ) {
        let text = render(&units, "", false, summary);
        let plan = parse(&text, &ctx()).expect("a plan");
        let lines: usize = units.iter().flat_map(|(_, s)| s).map(Vec::len).sum();
        prop_assert_eq!(plan.tally.task_lines, lines);
        prop_assert_eq!(plan.tally.in_sprints, lines, "{}", text);
        prop_assert!(plan.tally.adds_up());
        prop_assert!(plan.tally.twice.is_empty());
        for (unit, (_, sprints)) in plan.units.iter().zip(&units) {
            for (sprint, ticks) in unit.sprints.iter().zip(sprints) {
                if ticks.iter().any(|t| !t) {
                    prop_assert!(sprint.done.is_none(), "{} done with an open line", sprint.name);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Steps whose dependency lines each name an earlier step (or none)
    /// are ordered as those lines say: a step runs at once with another
    /// only when neither names the other, directly or not.
    #[test]
    fn dependency_lines_are_obeyed(
        picks in prop::collection::vec(prop::collection::vec(any::<prop::sample::Index>(), 0..3), 3..8),
        chain in any::<bool>(),
    ) {
        let n = picks.len();
        let mut text = String::from("# Plan\n\n## Tasks\n");
        let mut waits: Vec<Vec<usize>> = Vec::new();
        for (k, pick) in picks.iter().enumerate() {
            let mut on: Vec<usize> = if chain {
                k.checked_sub(1).into_iter().collect()
            } else {
                pick.iter().filter(|_| k > 0).map(|i| i.index(k)).collect()
            };
            on.sort_unstable();
            on.dedup();
            let line = if on.is_empty() {
                "None".to_string()
            } else {
                on.iter().map(|d| format!("T{}", d + 1)).collect::<Vec<_>>().join(", ")
            };
            text.push_str(&format!(
                "\n### T{}: Step {k}\n**Dependencies**: {line}\n\n- [ ] Build part {k} of the thing\n",
                k + 1
            ));
            waits.push(on);
        }
        let plan = parse(&text, &ctx()).expect("a plan");
        // What the lines allow at once.
        let mut before: Vec<std::collections::BTreeSet<usize>> = Vec::new();
        for w in &waits {
            let mut all: std::collections::BTreeSet<usize> = w.iter().copied().collect();
            for &d in w {
                all.extend(before[d].iter().copied());
            }
            before.push(all);
        }
        let lines_allow_at_once = before.iter().enumerate().any(|(i, b)| b.len() < i);
        if !lines_allow_at_once {
            prop_assert!(!plan.units_can_run_at_once(), "{}", text);
        } else {
            prop_assert_eq!(plan.units.len(), n);
            for (unit, w) in plan.units.iter().zip(&waits) {
                prop_assert_eq!(unit.deps.len(), w.len(), "{}", text);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Steps written in any order (a board lists its backlog above its done
    /// column) whose dependency lines name other steps: no step is ever
    /// placed to run before a step its line names.
    #[test]
    fn a_step_never_runs_before_what_its_line_names(
        picks in prop::collection::vec(prop::collection::vec(any::<prop::sample::Index>(), 0..3), 3..8),
        written in Just((0..8).collect::<Vec<usize>>()).prop_shuffle(),
    ) {
        let n = picks.len();
        let waits: Vec<Vec<usize>> = picks
            .iter()
            .enumerate()
            .map(|(k, pick)| {
                let mut on: Vec<usize> = pick.iter().filter(|_| k > 0).map(|i| i.index(k)).collect();
                on.sort_unstable();
                on.dedup();
                on
            })
            .collect();
        let order: Vec<usize> = written.into_iter().filter(|&k| k < n).collect();
        let mut text = String::from("# Board\n\n## Tasks\n");
        for &k in &order {
            let line = if waits[k].is_empty() {
                "None".to_string()
            } else {
                waits[k].iter().map(|d| format!("TASK-{}", d + 1)).collect::<Vec<_>>().join(", ")
            };
            text.push_str(&format!(
                "\n### TASK-{}: Step {k}\n**Dependencies**: {line}\n\n- [ ] Build part {k}\n",
                k + 1
            ));
        }
        let plan = parse(&text, &ctx()).expect("a plan");
        // Where each step runs: (unit, position in it), found by name.
        let at = |k: usize| {
            plan.units.iter().enumerate().find_map(|(u, unit)| {
                unit.sprints
                    .iter()
                    .position(|s| s.name.ends_with(&format!("Step {k}")))
                    .map(|p| (u, p))
            })
        };
        let reach = |u: usize| waits_for(&plan, u);
        for (k, on) in waits.iter().enumerate() {
            let (ku, kp) = at(k).expect("every step read");
            for &d in on {
                let (du, dp) = at(d).expect("every step read");
                let after = if ku == du { dp < kp } else { reach(ku).contains(&du) };
                prop_assert!(after, "step {k} may run before step {d}:\n{text}");
            }
        }
    }
}

/// Heading marks, each with whether it says the whole sprint is done.
const MARKS: &[(&str, bool)] = &[
    ("✅", true),
    ("(완료)", true),
    ("(ВЫПОЛНЕН)", true),
    ("— COMPLETE", true),
    ("（完了: 2026-02-14）", true),
    ("✅ **一部完了**", false),
    ("✅ Partially", false),
    ("— PARTIALLY COMPLETE", false),
    ("✅ 部分完成", false),
    ("(完成度 50%)", false),
    ("✅ DONE (except deploy)", false),
    ("", false),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A sprint heading's mark reads done exactly when it says the whole
    /// sprint is done: a mark qualified by "in part" or "except" never
    /// does, whatever the words around it.
    #[test]
    fn a_mark_done_in_part_never_reads_done(
        marks in prop::collection::vec(0..MARKS.len(), 2..6),
        names in prop::collection::vec("[A-Z][a-z]{3,9}( [a-z]{3,9})?", 6),
    ) {
        let mut text = String::from("# Plan\n\n");
        for (k, &m) in marks.iter().enumerate() {
            text.push_str(&format!(
                "## Phase {}: {} {}\n\n- Build {}\n\n",
                k + 1,
                names[k],
                MARKS[m].0,
                names[k].to_lowercase()
            ));
        }
        let plan = parse(&text, &ctx()).expect("a plan");
        let sprints: Vec<_> = plan.units.iter().flat_map(|u| &u.sprints).collect();
        prop_assert_eq!(sprints.len(), marks.len(), "{}", text);
        for (sprint, &m) in sprints.iter().zip(&marks) {
            prop_assert_eq!(sprint.done.is_some(), MARKS[m].1, "{}\n{}", MARKS[m].0, text);
        }
    }
}

/// Tracks (`## Track A — x`), each a checklist of ticked or open lines,
/// under a preamble that says they run in parallel or not, one of them
/// saying it waits for another or not.
fn render_tracks(tracks: &[Vec<bool>], parallel: bool, waits: bool) -> String {
    let mut out = String::from("# Tracks\n\n");
    if parallel {
        out.push_str("The tracks below are independent and run in parallel.\n");
    }
    for (k, lines) in tracks.iter().enumerate() {
        let label = (b'A' + k as u8) as char;
        out.push_str(&format!("\n## Track {label} — Stream {k}\n\n"));
        if waits && k == 1 {
            out.push_str("Can start once Track A has merged its schema.\n\n");
        }
        for (t, ticked) in lines.iter().enumerate() {
            let mark = if *ticked { 'x' } else { ' ' };
            out.push_str(&format!("- [{mark}] Item {t} of track {label}\n"));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Tracks run at once only when the plan says so and none says it
    /// waits; every line keeps one home, and an open line keeps its step
    /// open, whichever way the tracks are read.
    #[test]
    fn tracks_run_at_once_only_when_said_and_lose_no_line(
        tracks in prop::collection::vec(prop::collection::vec(any::<bool>(), 1..4), 2..5),
        parallel in any::<bool>(),
        waits in any::<bool>(),
    ) {
        let text = render_tracks(&tracks, parallel, waits);
        let plan = parse(&text, &ctx()).expect("a plan");
        if !parallel || waits {
            prop_assert!(!plan.units_can_run_at_once(), "{text}");
        } else {
            prop_assert!(plan.units_can_run_at_once(), "{text}");
        }
        let lines: usize = tracks.iter().map(Vec::len).sum();
        prop_assert_eq!(plan.tally.task_lines, lines);
        prop_assert_eq!(plan.tally.in_sprints, lines, "{}", text);
        prop_assert!(plan.tally.adds_up());
        prop_assert!(plan.tally.twice.is_empty());
        for sprint in plan.units.iter().flat_map(|u| &u.sprints) {
            let open = tracks.iter().enumerate().any(|(k, lines)| {
                let label = (b'A' + k as u8) as char;
                lines.iter().enumerate().any(|(t, ticked)| {
                    !ticked
                        && (sprint.name == format!("Item {t} of track {label}")
                            || sprint.tasks.iter().any(|x| *x == format!("Item {t} of track {label}")))
                })
            });
            if open {
                prop_assert!(sprint.done.is_none(), "{} done with an open line\n{text}", sprint.name);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Statements about the steps anywhere in the plan ("Sprint 4 depende
    /// de Sprint 2-3"): a step never runs before a step a statement names
    /// for it, a step no statement names runs after every step before it,
    /// and one statement whose other side names no step leaves the plan
    /// one sequence.
    #[test]
    fn stated_dependencies_are_obeyed_and_never_loosened(
        picks in prop::collection::vec(prop::option::of(prop::collection::vec(any::<prop::sample::Index>(), 1..3)), 3..8),
        spanish in any::<bool>(),
        vague in any::<bool>(),
    ) {
        let n = picks.len();
        let waits: Vec<Option<Vec<usize>>> = picks
            .iter()
            .enumerate()
            .map(|(k, pick)| {
                let pick = pick.as_ref().filter(|_| k > 0)?;
                let mut on: Vec<usize> = pick.iter().map(|i| i.index(k)).collect();
                on.sort_unstable();
                on.dedup();
                Some(on)
            })
            .collect();
        let mut text = String::from("# Plan\n");
        for k in 0..n {
            text.push_str(&format!("\n## Sprint {}: Work {k}\n\n- [ ] Build part {k}\n", k + 1));
        }
        text.push_str("\n## Order\n\n");
        let says = if spanish { "depende de" } else { "depends on" };
        for (k, on) in waits.iter().enumerate() {
            if let Some(on) = on {
                let named: Vec<String> = on.iter().map(|d| (d + 1).to_string()).collect();
                text.push_str(&format!("- Sprint {} {says} Sprint {}\n", k + 1, named.join(", ")));
            }
        }
        if vague {
            text.push_str(&format!("- Sprint {n} {says} the design review\n"));
        }
        let plan = parse(&text, &ctx()).expect("a plan");
        let at = |k: usize| {
            plan.units.iter().enumerate().find_map(|(u, unit)| {
                unit.sprints
                    .iter()
                    .position(|s| s.name.ends_with(&format!("Work {k}")))
                    .map(|p| (u, p))
            })
        };
        let reach = |u: usize| waits_for(&plan, u);
        if vague {
            prop_assert_eq!(plan.units.len(), 1, "{}", text);
        }
        for (k, on) in waits.iter().enumerate() {
            let (ku, kp) = at(k).expect("every step read");
            let before: Vec<usize> = match on {
                Some(on) => on.clone(),
                None => (0..k).collect(),
            };
            for d in before {
                let (du, dp) = at(d).expect("every step read");
                let after = if ku == du { dp < kp } else { reach(ku).contains(&du) };
                prop_assert!(after, "step {k} may run before step {d}:\n{text}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A spec-kit `Phase Dependencies` list, each phase naming earlier
    /// phases (singly or in the plural, `Phases 2 and 3`) and some offered
    /// to run beside an earlier one (`(can run in parallel with Phase
    /// 2)`): every named wait holds, and two phases run at once only where
    /// the list offers it.
    #[test]
    fn a_phase_list_runs_phases_at_once_only_where_offered(
        picks in prop::collection::vec(
            (prop::collection::vec(any::<prop::sample::Index>(), 1..3), any::<Option<prop::sample::Index>>()),
            3..7,
        ),
    ) {
        let n = picks.len() + 1;
        let mut text = String::from("# Tasks: Feature\n");
        for k in 1..=n {
            text.push_str(&format!("\n## Phase {k}: Part {k}\n\n- [ ] T{k:03} Build part {k}\n"));
        }
        text.push_str("\n## Dependencies & Execution Order\n\n### Phase Dependencies\n\n");
        text.push_str("- **Phase 1 (Setup)**: No dependencies - start immediately\n");
        let mut waits: Vec<Vec<usize>> = vec![Vec::new()];
        let mut offers: Vec<(usize, usize)> = Vec::new();
        for (k, (on, offer)) in picks.iter().enumerate() {
            let me = k + 2;
            let mut on: Vec<usize> = on.iter().map(|i| i.index(me - 1) + 1).collect();
            on.sort_unstable();
            on.dedup();
            let named = match on.as_slice() {
                [one] => format!("Phase {one}"),
                many => format!(
                    "Phases {}",
                    many.iter().map(usize::to_string).collect::<Vec<_>>().join(" and ")
                ),
            };
            let aside = match offer {
                Some(i) => {
                    let other = i.index(me - 1) + 1;
                    offers.push((other, me));
                    format!(" (can run in parallel with Phase {other})")
                }
                None => String::new(),
            };
            text.push_str(&format!("- **Phase {me} (Part {me})**: Depends on {named}{aside}\n"));
            waits.push(on);
        }
        let plan = parse(&text, &ctx()).expect("a plan");
        // Where each phase runs: (unit, position in it).
        let at = |k: usize| {
            plan.units.iter().enumerate().find_map(|(u, unit)| {
                unit.sprints
                    .iter()
                    .position(|s| s.name == format!("Part {k}"))
                    .map(|p| (u, p))
            })
        };
        let before = |a: usize, b: usize| {
            let ((au, ap), (bu, bp)) = (at(a).expect("read"), at(b).expect("read"));
            if au == bu { ap < bp } else { waits_for(&plan, bu).contains(&au) }
        };
        for (k, on) in waits.iter().enumerate() {
            let me = k + 1;
            for &d in on {
                prop_assert!(before(d, me), "phase {me} may run before phase {d}:\n{text}");
            }
        }
        for a in 1..=n {
            for b in a + 1..=n {
                let ordered = before(a, b) || before(b, a);
                prop_assert!(
                    ordered || offers.contains(&(a, b)),
                    "phases {a} and {b} run at once unoffered:\n{text}"
                );
            }
        }
    }
}
