//! A one-unit plan whose phases a mermaid graph orders (`P1 --> P2`, `P1
//! --> P2B`, `P2B --> P4`, labels `Phase 2: Backend Auth`), or a graph
//! drawn in a code block under a dependency heading (`Phase 6` over `├──▶
//! Phase 7`, a node noting `(depends on all above)`), runs each phase
//! as a unit of its own, waiting for what the graph says it waits for; the
//! phase's own steps (`### Task 2.1`) stay its sprints. The graph counts as
//! evidence only when it names every phase the plan details. Phases the
//! graph marks done (`Phase 1: Schema V2 ✅`) and the plan never details
//! become done units; phases it names after them with no section are left
//! out, with a warning.

use super::headings::parse_heading;
use super::headings::Heading;
use super::*;

/// Units read from the plan's mermaid graph, when it orders every phase of
/// a lone unit.
pub(super) fn units_by_graph(
    doc: &Doc,
    units: &[RawUnit],
    problems: &mut Vec<Problem>,
) -> Option<Vec<RawUnit>> {
    let [unit] = units else {
        return None;
    };
    let (edges, graph_span, mermaid) = mermaid_graph(doc)?;
    let graph = if mermaid {
        "mermaid graph"
    } else {
        "dependency graph"
    };
    let mut labels: Vec<String> = Vec::new();
    for (a, b) in &edges {
        for l in [a, b] {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    // Each node that names a step: (word, id, name, marked done).
    let steps: Vec<Option<(String, String, String, bool)>> = labels
        .iter()
        .map(|l| match parse_heading(l)? {
            Heading::Sprint(h) => {
                Some((format!("{:?}", h.word), h.id.to_lowercase(), h.name, h.done))
            }
            Heading::About { .. } => None,
        })
        .collect();
    // The lone unit's sprints grouped by the phase heading they sit in,
    // each phase matched to its node.
    let mut phases: Vec<(usize, usize, Vec<RawSprint>)> = Vec::new(); // (node, heading block, sprints)
    for s in &unit.sprints {
        let (node, block) = phase_of(doc, s, &steps)?;
        match phases.iter_mut().find(|(n, _, _)| *n == node) {
            Some((_, b, sprints)) if *b == block => sprints.push(s.clone()),
            Some(_) => return None,
            None => phases.push((node, block, vec![s.clone()])),
        }
    }
    if phases.len() < 2 {
        return None;
    }
    // A drawn graph's arrows run the way the plan writes its phases: one
    // pointing back (`Phase 4` over `──▶ Phase 1`, what each phase needs
    // first) is read the other way round, so the graph is not read.
    if !mermaid {
        let place = |label: &String| {
            labels
                .iter()
                .position(|l| l == label)
                .and_then(|n| phases.iter().position(|(p, _, _)| *p == n))
        };
        if edges
            .iter()
            .any(|(a, b)| matches!((place(a), place(b)), (Some(x), Some(y)) if x >= y))
        {
            return None;
        }
    }
    let parents = |n: usize| -> Vec<usize> {
        // `Phase 10: Release (depends on all above)`, a note on the node's
        // line: every node before it.
        let all_above = doc.source[graph_span.clone()]
            .lines()
            .filter(|l| l.contains(labels[n].as_str()))
            .any(|l| {
                let lower = l.to_lowercase();
                lower
                    .match_indices("depends on ")
                    .any(|(at, w)| super::dependencies::names_all_earlier(&lower[at + w.len()..]))
            });
        if all_above {
            return (0..n).collect();
        }
        edges
            .iter()
            .filter(|(_, b)| *b == labels[n])
            .filter_map(|(a, _)| labels.iter().position(|l| l == a))
            .collect()
    };
    let ancestors = |n: usize| -> Vec<usize> {
        let mut seen = Vec::new();
        let mut stack = parents(n);
        while let Some(p) = stack.pop() {
            if !seen.contains(&p) && p != n {
                seen.push(p);
                stack.extend(parents(p));
            }
        }
        seen
    };
    let detailed: Vec<usize> = phases.iter().map(|(n, _, _)| *n).collect();
    let before_detailed: Vec<usize> = detailed.iter().flat_map(|&n| ancestors(n)).collect();
    // Undetailed steps before detailed ones: done ones are units; an open
    // one is work the plan does not describe, so the graph is not read.
    let mut done_nodes = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let Some((_, _, _, done)) = step else {
            continue;
        };
        if detailed.contains(&n) {
            continue;
        }
        // A drawn graph names every phase it orders by its section.
        if !mermaid {
            return None;
        }
        if before_detailed.contains(&n) {
            if !done {
                return None;
            }
            done_nodes.push(n);
        }
    }
    let left_out: Vec<&str> = steps
        .iter()
        .enumerate()
        .filter(|(n, s)| s.is_some() && !detailed.contains(n) && !done_nodes.contains(n))
        .map(|(n, _)| labels[n].as_str())
        .collect();
    if detailed.iter().any(|n| ancestors(*n).contains(n)) {
        return None;
    }
    let is_unit = |n: usize| detailed.contains(&n) || done_nodes.contains(&n);
    // The nearest units above `n`, through nodes that are not units.
    let waits_for = |n: usize| -> Vec<usize> {
        let mut out = Vec::new();
        let mut seen = Vec::new();
        let mut stack = parents(n);
        while let Some(p) = stack.pop() {
            if seen.contains(&p) {
                continue;
            }
            seen.push(p);
            if is_unit(p) {
                if !out.contains(&p) {
                    out.push(p);
                }
            } else {
                stack.extend(parents(p));
            }
        }
        out
    };
    let line = doc.line(graph_span.start);
    let why = format!("a phase of its own: the {graph} (line {line}) orders the phases");
    let name_of = |n: usize| -> String {
        match phases.iter().find(|(p, _, _)| *p == n) {
            Some((_, block, _)) => doc
                .heading(*block)
                .map(|(_, t, _)| clean_heading(t))
                .unwrap_or_default(),
            None => clean_heading(&labels[n]),
        }
    };
    // Units in the graph's order: done phases first, then as written.
    let order: Vec<usize> = done_nodes.iter().chain(&detailed).copied().collect();
    let mut out = Vec::new();
    for &n in &order {
        let name = name_of(n);
        let (span, sprints) = match phases.iter().find(|(p, _, _)| *p == n) {
            Some((_, block, sprints)) => (doc.blocks[*block].span(), sprints.clone()),
            None => {
                let (_, id, step_name, _) = steps[n].clone()?;
                let id: SprintId = id.parse().ok()?;
                let mut sprint =
                    super::sprints::blank_sprint(id.clone(), &step_name, labels[n].clone());
                sprint.done = Some(format!(
                    "marked done in the plan's mermaid graph (`{}`, line {line})",
                    labels[n]
                ));
                sprint.origin = Origin::new(line, "named only in the plan's mermaid graph");
                let span = graph_span.clone();
                (span.clone(), vec![RawSprint { id, span, sprint }])
            }
        };
        let mut u = RawUnit::new(name, span.clone(), 0..0);
        u.rule = why.clone();
        u.origin = Origin::new(doc.line(span.start), why.clone());
        u.dir = unit.dir.clone();
        u.deps = waits_for(n)
            .into_iter()
            .map(|d| (name_of(d), graph_span.clone()))
            .collect();
        u.sprints = sprints;
        out.push(u);
    }
    if !left_out.is_empty() {
        problems.push(
            Problem::new(
                ProblemCode::LeftOut,
                format!(
                    "the mermaid graph names {} that the plan does not detail: left out of the run",
                    left_out.join(", ")
                ),
            )
            .label(graph_span, "the graph")
            .help("add a section for each, or run them in a later plan")
            .tolerated(),
        );
    }
    Some(out)
}

/// A graph's edges (by label), where it is, and whether it is mermaid.
type Graph = (Vec<(String, String)>, Span, bool);

/// The edges (by label) of the plan's first mermaid `graph`/`flowchart`
/// block, or else of a drawn graph in a code block under a heading naming
/// dependencies (`Phase 6` over `├──▶ Phase 7`), where it is, and whether
/// it is mermaid.
fn mermaid_graph(doc: &Doc) -> Option<Graph> {
    let mermaid = doc.blocks.iter().enumerate().find_map(|(k, b)| match b {
        Block::Code { info, text, span } if super::dependencies::is_mermaid_graph(info, text) => {
            // `Rollback paths if something goes wrong:` over `P3 --> P2`:
            // a graph of another time, not the phases' order; likewise the
            // running system's architecture or a decision's alternatives.
            if of_another_thing(&words_over(doc, k)) {
                return None;
            }
            let edges = super::dependencies::arrow_edges(text);
            (!edges.is_empty()).then(|| (edges, span.clone(), true))
        }
        _ => None,
    });
    if mermaid.is_some() {
        return mermaid;
    }
    // The heading a drawn graph sits under, while it names dependencies
    // and speaks of the plan as it stands: not a graph of another time or
    // purpose (`(before this plan)`, `(v1 draft)`, `## Rollback graph`).
    let mut under: Option<usize> = None;
    doc.blocks.iter().enumerate().find_map(|(i, b)| match b {
        Block::Heading { text, .. } => {
            let l = text.to_lowercase();
            let names_dependencies = l.contains("dependenc") || l.contains("abhängigkeit");
            // A heading names its graph's time more loosely than a line
            // over a mermaid graph does (`(before this plan)`, `current`).
            let other_time = of_another_time(&l)
                || ["before", "old", "reference", "v1", "current", "veraltet"]
                    .iter()
                    .any(|w| l.contains(w));
            under = (names_dependencies && !other_time).then_some(i);
            None
        }
        Block::Code { info, text, span } if under.is_some() && info.trim().is_empty() => {
            // A plan that keeps the work in order anyway (`we will do the
            // phases strictly in order`, `each phase is finished before the
            // next begins`) is read so.
            if keeps_order(doc) {
                return None;
            }
            let edges = super::dependencies::arrow_edges(text);
            (!edges.is_empty()).then(|| (edges, span.clone(), false))
        }
        _ => None,
    })
}

/// The words over block `k`, lower-cased: the heading it sits under and
/// the paragraph right before it (`Rollback paths if something goes
/// wrong:`).
pub(super) fn words_over(doc: &Doc, k: usize) -> String {
    let heading = doc.blocks[..k].iter().rev().find_map(|b| match b {
        Block::Heading { text, .. } => Some(text.as_str()),
        _ => None,
    });
    let before = match k.checked_sub(1).map(|j| &doc.blocks[j]) {
        Some(Block::Paragraph { text, .. }) => text.as_str(),
        _ => "",
    };
    format!("{} {before}", heading.unwrap_or_default()).to_lowercase()
}

/// Whether lower-cased `words` speak of another time than the plan as it
/// stands: a rollback, a history, a draft, a superseded version.
pub(super) fn of_another_time(words: &str) -> bool {
    [
        "rollback",
        "history",
        "legacy",
        "previous",
        "draft",
        "obsolete",
        "deprecated",
        "supersede",
    ]
    .iter()
    .any(|w| words.contains(w))
}

/// Whether lower-cased `words` over a graph say it draws no plan of the
/// work: another time (`Rollback`, `history`), or another thing named
/// outright (the running system's architecture or data flow, a decision
/// tree's alternatives, a chain of reviewers). A graph of the phases under
/// `Build order (decision made)` or beside `Phase 4 is optional` is
/// still their order.
pub(super) fn of_another_thing(words: &str) -> bool {
    const ANOTHER_THING: &[&str] = &[
        "architecture",
        "data flow",
        "dataflow",
        "runtime",
        "decision tree",
        "alternative",
        "review chain",
        "reviewer",
        "sign-off chain",
        "approval chain",
        "old ",
        "for reference",
    ];
    of_another_time(words) || at_word_start(words, ANOTHER_THING)
}

/// Whether lower-cased `words` over a graph beside a table of steps say
/// it is no plan of them: `of_another_thing`, or looser words a table's
/// rows are held to (`before`, `v1`, `decision`, `option`, `review`).
pub(super) fn not_the_order(words: &str) -> bool {
    const LOOSER: &[&str] = &[
        "before", "old", "v1", "decision", "option", "review", "sign-off", "approval",
    ];
    of_another_thing(words) || at_word_start(words, LOOSER)
}

/// Whether one of `names` starts a word of `words` (`Overview` is no
/// `review`).
fn at_word_start(words: &str, names: &[&str]) -> bool {
    names.iter().any(|w| {
        words
            .match_indices(w)
            .any(|(at, _)| !words[..at].ends_with(|c: char| c.is_alphanumeric()))
    })
}

/// Whether the plan keeps its work in order whatever a graph draws (`we
/// will do the phases strictly in order`, `each phase is finished before
/// the next begins`).
pub(super) fn keeps_order(doc: &Doc) -> bool {
    let prose = doc.source.to_lowercase();
    [
        "strictly in order",
        "in that order",
        "in order, ",
        "one at a time",
        "sequentially",
        "in sequence",
        "serially",
        "one after another",
        "one after the other",
        "before the next",
    ]
    .iter()
    .any(|w| prose.contains(w))
}

/// The phase heading `s` sits in (its own heading or one above it) that a
/// graph node names: (node, heading block).
fn phase_of(
    doc: &Doc,
    s: &RawSprint,
    steps: &[Option<(String, String, String, bool)>],
) -> Option<(usize, usize)> {
    let mut at = (0..doc.blocks.len()).find(|&i| {
        matches!(doc.blocks[i], Block::Heading { .. }) && doc.blocks[i].span().start == s.span.start
    });
    while let Some(i) = at {
        if let Some((_, text, _)) = doc.heading(i) {
            if let Some(Heading::Sprint(h)) = parse_heading(text) {
                let word = format!("{:?}", h.word);
                let id = h.id.to_lowercase();
                if let Some(n) = steps.iter().position(|st| {
                    st.as_ref()
                        .is_some_and(|(w, d, _, _)| *w == word && *d == id)
                }) {
                    return Some((n, i));
                }
            }
        }
        at = doc.parent[i];
    }
    None
}

/// `🟣 Phase 2: Backend Authorization` → `Phase 2: Backend Authorization`;
/// a graph label's done mark goes too.
fn clean_heading(text: &str) -> String {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(|c: char| !c.is_alphanumeric() && !")]".contains(c));
    clean_name(t)
}
