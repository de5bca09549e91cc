//! A plan read as one unit whose work sits in sections that each say what
//! they wait for (`## Track C: Integration` over `**Dependencies**: Track A
//! (health checks)`, `### Stream F` over `**Dependencies**: Requires Stream
//! E - can start after E completes`): the sections are the plan's units,
//! ordered by those lines. Two shapes:
//! - the sections hold the sprints read (`#### C1. …` under `## Track C`):
//!   each section is a unit of its sprints;
//! - the sections sit inside the sprints read (`### Stream E` under `##
//!   Phase 2`): each section is a unit of one sprint, itself.
//!
//! Every such section must say it, every name it gives must be another of
//! them (`Tracks A-E` names five), and at least one must name one: lines
//! that say `None` everywhere, or name libraries, are about something else,
//! and the plan stays one sequence.

use super::dependencies::DEPENDENCY_COLUMNS;
use super::*;

/// Words that open a clause naming what a section waits for (`Requires
/// Stream E`).
pub(super) const WAIT_WORDS: &[&str] = &[
    "requires ",
    "needs ",
    "after ",
    "waits for ",
    "depends on ",
    "blocked by ",
];

/// Replace a lone unit by the sections that state their waits; true when
/// it did.
pub(super) fn split_by_section_fields(doc: &Doc, units: &mut Vec<RawUnit>) -> bool {
    let [unit] = units.as_slice() else {
        return false;
    };
    if unit.sprints.len() < 2 {
        return false;
    }
    // Either shape needs a wait stated above the first sprint or in a
    // section of its own: most plans have neither, and cost no more.
    let Some(first) = unit.sprints.first() else {
        return false;
    };
    let Some(at) = doc
        .blocks
        .iter()
        .position(|b| b.span().start == first.span.start)
    else {
        return false;
    };
    let mut above = doc.parent[at];
    let mut stated = false;
    while let Some(p) = above {
        stated |= waits(doc, p).is_some();
        above = doc.parent[p];
    }
    stated |= doc
        .section(at)
        .any(|j| doc.parent[j] == Some(at) && waits(doc, j).is_some());
    if !stated {
        return false;
    }
    let starts = doc.headings_by_start();
    let split = holding_sections(doc, unit, &starts).or_else(|| inner_sections(doc, unit, &starts));
    let Some(split) = split else {
        return false;
    };
    *units = split;
    true
}

/// Heading blocks by where they start.
type Starts = std::collections::HashMap<usize, usize>;

/// Sections above the sprints, each holding a run of them.
fn holding_sections(doc: &Doc, unit: &RawUnit, starts: &Starts) -> Option<Vec<RawUnit>> {
    let mut groups: Vec<(usize, Vec<RawSprint>)> = Vec::new();
    for s in &unit.sprints {
        let mut up = doc.parent[*starts.get(&s.span.start)?];
        let section = loop {
            let p = up?;
            if doc.heading(p).is_some_and(|(l, _, _)| l >= 2) && waits(doc, p).is_some() {
                break p;
            }
            up = doc.parent[p];
        };
        let seen = groups.iter().position(|(g, _)| *g == section);
        match seen {
            Some(at) if at + 1 == groups.len() => groups[at].1.push(s.clone()),
            Some(_) => return None,
            None => groups.push((section, vec![s.clone()])),
        }
    }
    units_of(doc, unit, groups)
}

/// Sections inside the sprints, every sub-section of each that states a
/// wait: each a unit of one sprint.
fn inner_sections(doc: &Doc, unit: &RawUnit, starts: &Starts) -> Option<Vec<RawUnit>> {
    let mut groups: Vec<(usize, Vec<RawSprint>)> = Vec::new();
    let mut n = 0;
    for s in &unit.sprints {
        let at = *starts.get(&s.span.start)?;
        let inner: Vec<usize> = doc
            .section(at)
            .filter(|&j| doc.parent[j] == Some(at) && waits(doc, j).is_some())
            .collect();
        if inner.is_empty() {
            // A sprint with no such sections is a unit of its own, and says
            // nothing of its order: the reading needs every one to.
            return None;
        }
        for j in inner {
            let (_, text, span) = doc.heading(j)?;
            let (name, marked) = strip_done_marks(text);
            n += 1;
            let id = SprintId::whole(n);
            let mut sprint = read_sprint(doc, j, id.clone(), clean_name(&name));
            sprint.done = done_evidence(doc, j, marked);
            sprint.origin = Origin::new(doc.line(span.start), "section stating what it waits for");
            groups.push((
                j,
                vec![RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                }],
            ));
        }
    }
    units_of(doc, unit, groups)
}

/// The units of the sections found, with the waits each states; none
/// unless every name resolves and one names another section.
fn units_of(
    doc: &Doc,
    unit: &RawUnit,
    groups: Vec<(usize, Vec<RawSprint>)>,
) -> Option<Vec<RawUnit>> {
    if groups.len() < 2 {
        return None;
    }
    let names: Vec<String> = groups
        .iter()
        .map(|(g, _)| {
            doc.heading(*g)
                .map_or_else(String::new, |(_, t, _)| clean_name(&strip_done_marks(t).0))
        })
        .collect();
    let mut split = Vec::new();
    let mut edges = 0;
    for (k, (g, sprints)) in groups.into_iter().enumerate() {
        let (waited, span) = waits(doc, g)?;
        let mut deps = Vec::new();
        for name in waited {
            for d in resolve(&name, &names)?.into_iter().filter(|&d| d != k) {
                deps.push((names[d].clone(), span.clone()));
            }
        }
        edges += deps.len();
        let (_, _, heading) = doc.heading(g)?;
        let mut out = RawUnit::new(names[k].clone(), heading.clone(), doc.section(g));
        out.rule = "section stating what it waits for (`Dependencies:`)".into();
        out.origin = Origin::new(doc.line(heading.start), out.rule.clone());
        out.dir = unit.dir.clone();
        out.deps = deps;
        out.sprints = sprints;
        split.push(out);
    }
    (edges > 0).then_some(split)
}

/// The names a section's `Dependencies:` line gives (none for `None`), and
/// where the line is. Only a clause's first part names them: `Requires
/// Stream E - can start after E completes` waits for Stream E. A line with
/// no value lists its clauses as the items below it; an item that only
/// says what may run beside it (`Can start in parallel with Stream F`)
/// names no wait.
fn waits(doc: &Doc, heading: usize) -> Option<(Vec<String>, Span)> {
    let own = doc.own_blocks(heading);
    for j in own.clone() {
        let (text, span) = match &doc.blocks[j] {
            Block::Paragraph { text, span } | Block::Item { text, span, .. } => (text, span),
            _ => continue,
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if !DEPENDENCY_COLUMNS.contains(&norm(key).as_str()) {
                continue;
            }
            let clauses: Vec<String> = if value.trim().is_empty() {
                (j + 1..own.end)
                    .map_while(|k| match &doc.blocks[k] {
                        Block::Item { text, .. } => Some(text.lines().next().unwrap_or_default()),
                        _ => None,
                    })
                    .filter(|t| {
                        let t = t.to_lowercase();
                        !(t.contains("parallel")
                            || t.contains("can start")
                            || t.contains("independent"))
                            || after_word(&t, WAIT_WORDS).is_some()
                    })
                    .map(str::to_string)
                    .collect()
            } else {
                vec![value.to_string()]
            };
            let names = clauses.iter().flat_map(|c| clause_names(c)).collect();
            return Some((names, line_span(doc.source, span, line)));
        }
    }
    None
}

/// The names one clause gives: its first part, past a word of waiting,
/// split at commas and `and`.
fn clause_names(clause: &str) -> Vec<String> {
    let value = strip_parentheticals(clause.trim());
    let first = [" - ", " — ", " – ", ". "]
        .iter()
        .filter_map(|sep| value.find(sep))
        .min()
        .map_or(value.as_str(), |at| &value[..at])
        .trim();
    let first = after_word(first, WAIT_WORDS).unwrap_or(first);
    split_dep_names(first)
        .into_iter()
        .flat_map(|n| n.split(" and ").map(clean_name).collect::<Vec<_>>())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The sections a name stands for: one whose name it is or opens (`Track
/// A` for `Track A: Infrastructure`, `Stream A from Phase 1` naming
/// `Stream A: …`), or a range (`Tracks A-E`).
fn resolve(name: &str, names: &[String]) -> Option<Vec<usize>> {
    let opens = |n: &str, want: &str| {
        let (n, want) = (n.to_lowercase(), want.to_lowercase());
        n == want
            || n.strip_prefix(&want)
                .is_some_and(|r| r.starts_with([':', ' ', '—', '–', '-', '.']))
    };
    if let Some(k) = names.iter().position(|n| opens(n, name)) {
        return Some(vec![k]);
    }
    // `Stream A from Phase 1`: a section's label (`Stream A` of `Stream A:
    // Task Dependencies`) opening the name.
    let labelled = names.iter().position(|n| {
        n.split_once(':')
            .is_some_and(|(label, _)| opens(name, label.trim()))
    });
    if let Some(k) = labelled {
        return Some(vec![k]);
    }
    // `Tracks A-E`, `Phase 1–3`: each section of the range.
    super::dependencies::expand_range(name)?
        .iter()
        .map(|n| names.iter().position(|m| opens(m, n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn names_and_ranges_resolve_to_sections() {
        let names: Vec<String> = ["Track A: Infra", "Track B: LLM", "Track C: Adapters"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(resolve("Track A", &names), Some(vec![0]));
        assert_eq!(resolve("Tracks A-C", &names), Some(vec![0, 1, 2]));
        assert_eq!(resolve("Track B from Phase 1", &names), Some(vec![1]));
        assert_eq!(resolve("Track D", &names), None);
        assert_eq!(resolve("the database", &names), None);
    }
}
