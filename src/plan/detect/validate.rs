//! Validation of the detected structure, and the span-free result.
//!
//! Checks: unique unit names, every unit has sprints, declared sprint counts
//! agree, sprint ids unique (in the order written), dependencies name units, the
//! dependency graph is acyclic. Every problem is reported, never the first
//! only.

use super::*;

/// The way forward for a plan the parser cannot read at all.
const WAY_FORWARD: &str = "write the plan in the canonical form (`## <unit>` sections holding `### Sprint 1: <name>` headings, or one `## Sprint 1: <name>` per sprint), have your agent CLI rewrite it with `git supervisor import FILE`, or turn a requirements document into a plan with `git supervisor breakdown`";

/// What sprint-like headings the plan has, for messages.
fn seen_words(doc: &Doc) -> String {
    let seen: Vec<String> = doc
        .seen
        .iter()
        .map(|(w, n)| {
            format!(
                "{n} `{} N` heading{}",
                w.as_str(),
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect();
    if seen.is_empty() {
        format!(
            "no `Sprint N`, `Sortie N`, `Phase N`, `Week N`, `Milestone N`, `Stage N`, `Step N` or `Task N.M` headings and no sprint table or checklist it can read{}",
            found_instead(doc)
        )
    } else {
        format!("only {}", seen.join(", "))
    }
}

/// What the plan holds instead, so a refusal never claims there is nothing
/// (`; it has 2 tables (| Sprint | Agent | Week |, …) and 12 checklist
/// items`).
fn found_instead(doc: &Doc) -> String {
    let mut tables = Vec::new();
    let (mut boxes, mut items) = (0, 0);
    for b in &doc.blocks {
        match b {
            Block::Table { header, .. } => tables.push(format!(
                "`| {} |`",
                header
                    .iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ")
            )),
            Block::Item {
                checked: Some(_), ..
            } => boxes += 1,
            Block::Item { .. } => items += 1,
            _ => {}
        }
    }
    let mut parts = Vec::new();
    if !tables.is_empty() {
        let shown: Vec<&String> = tables.iter().take(3).collect();
        let more = if tables.len() > 3 { ", …" } else { "" };
        parts.push(format!(
            "{} table{} ({}{more})",
            tables.len(),
            if tables.len() == 1 { "" } else { "s" },
            shown
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if boxes > 0 {
        parts.push(format!(
            "{boxes} checklist item{}",
            if boxes == 1 { "" } else { "s" }
        ));
    }
    if items > 0 {
        parts.push(format!(
            "{items} list item{}",
            if items == 1 { "" } else { "s" }
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("; it has {}", parts.join(" and "))
    }
}

pub(super) fn validate(doc: &Doc, units: &[RawUnit], problems: &mut Vec<Problem>) {
    let names: std::collections::HashSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
    let mut closest: Option<Closest> = None;
    // Every unit of a table without sprints: the table is the likely cause.
    if units.len() > 1 && units.iter().all(|u| u.sprints.is_empty()) {
        let rows: Vec<String> = units
            .iter()
            .take(6)
            .map(|u| format!("`{}`", u.name))
            .collect();
        let more = if units.len() > 6 { ", …" } else { "" };
        let column = units[0]
            .rule
            .split('"')
            .nth(1)
            .unwrap_or("name")
            .to_string();
        let cause = if units[0].rule.starts_with("unit table") {
            format!(
                "this table was taken as the unit table because of its `{column}` column; its rows {}{more} have no sprint sections",
                rows.join(", ")
            )
        } else {
            format!("the sections {}{more} hold no sprints", rows.join(", "))
        };
        problems.push(
            Problem::new(ProblemCode::NoSprints, cause)
                .label(units[0].name_span.clone(), "no sprints found for this unit")
                .help(format!(
                    "the plan has {}; name each row's section after it (`## {}` holding `### Sprint 1: <name>`), give the table a Sprints column counting flat sprints, or {WAY_FORWARD}",
                    seen_words(doc),
                    units[0].name
                )),
        );
        return;
    }
    if units.len() == 1 && units[0].sprints.is_empty() {
        problems.push(
            Problem::new(
                ProblemCode::NoSprints,
                format!(
                    "`{}` has no sprints: nothing in the plan reads as a unit of agent work",
                    units[0].name
                ),
            )
            .label(
                units[0].name_span.clone(),
                format!("the plan has {}", seen_words(doc)),
            )
            .help(WAY_FORWARD),
        );
        return;
    }
    let mut seen: HashMap<String, &RawUnit> = HashMap::new();
    for unit in units {
        if let Some(first) = seen.get(&unit.name) {
            problems.push(
                Problem::new(
                    ProblemCode::DuplicateUnit,
                    format!("work unit `{}` is defined twice", unit.name),
                )
                .label(first.name_span.clone(), "first defined here")
                .label(unit.name_span.clone(), "defined again here")
                .help("give every work unit a distinct name"),
            );
            // Both names resolve to the same sprints; checking them again
            // would only repeat the first unit's problems.
            continue;
        }
        seen.insert(unit.name.clone(), unit);
        if unit.sprints.is_empty() {
            problems.push(
                Problem::new(
                    ProblemCode::NoSprints,
                    format!("work unit `{}` has no sprints", unit.name),
                )
                .label(
                    unit.name_span.clone(),
                    "no sprint definitions found for this unit",
                )
                .help(format!(
                    "add `### Sprint 1: <name>` headings under a heading that names `{}`",
                    unit.name
                )),
            );
        }
        if let Some((declared, span)) = &unit.declared_sprints {
            if !unit.sprints.is_empty() && *declared != unit.sprints.len() {
                problems.push(
                    Problem::new(
                        ProblemCode::SprintCount,
                        format!(
                            "the table says `{}` has {} sprints but {} are defined; the {} sprint sections are read",
                            unit.name,
                            declared,
                            unit.sprints.len(),
                            unit.sprints.len()
                        ),
                    )
                    .label(
                        span.clone(),
                        format!("found {} sprint definitions", unit.sprints.len()),
                    )
                    .help("update the Sprints column or the sprint sections so they agree")
                    .tolerated(),
                );
            }
        }
        let mut ids: HashMap<&SprintId, &RawSprint> = HashMap::new();
        // Sprints run in the order they are written (`Sprint 9` before
        // `Sprint 1` is a plan's own order, not a mistake).
        for s in &unit.sprints {
            if let Some(first) = ids.get(&s.id) {
                problems.push(
                    Problem::new(
                        ProblemCode::DuplicateSprint,
                        format!("sprint {} of `{}` is defined twice", s.id, unit.name),
                    )
                    .label(first.span.clone(), "first defined here")
                    .label(s.span.clone(), "defined again here")
                    .help("sprint ids must be unique within a work unit"),
                );
            } else {
                ids.insert(&s.id, s);
            }
        }
        for (dep, span) in &unit.deps {
            if !names.contains(dep.as_str()) {
                let closest = closest.get_or_insert_with(|| Closest::new(units));
                problems.push(unknown_unit_near(dep, span.clone(), units, closest));
            }
        }
    }
    if let Some(cycle) = find_cycle(units) {
        let first = &units[cycle[0]];
        let names: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&cycle[0]))
            .map(|&i| units[i].name.as_str())
            .collect();
        let mut p = Problem::new(
            ProblemCode::DependencyCycle,
            format!("dependency cycle: {}", names.join(" → ")),
        )
        .help("remove one of these dependencies so the units can run in some order");
        p = p.label(
            first.name_span.clone(),
            format!("`{}` is part of the cycle", first.name),
        );
        if let Some((_, span)) = first
            .deps
            .iter()
            .find(|(d, _)| *d == units[cycle[1 % cycle.len()]].name)
        {
            p = p.label(span.clone(), "this dependency closes the cycle");
        }
        problems.push(p);
    }
}

/// A cycle in the explicit dependency graph, as unit indices, if any.
pub(super) fn find_cycle(units: &[RawUnit]) -> Option<Vec<usize>> {
    let index: HashMap<&str, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = units
        .iter()
        .map(|u| {
            u.deps
                .iter()
                .filter_map(|(d, _)| index.get(d.as_str()).copied())
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS: plans can be large.
    let mut mark = vec![0u8; units.len()];
    for root in 0..units.len() {
        if mark[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        mark[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = edges[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    0 => {
                        mark[dep] = 1;
                        stack.push((dep, 0));
                    }
                    1 => {
                        let at = stack
                            .iter()
                            .position(|(n, _)| *n == dep)
                            .expect("on-stack node is in the stack");
                        return Some(stack[at..].iter().map(|(n, _)| *n).collect());
                    }
                    _ => {}
                }
            } else {
                mark[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

pub(super) fn resolve_units(raw: Vec<RawUnit>) -> Vec<Unit> {
    let layers: Vec<(String, Option<u32>)> =
        raw.iter().map(|u| (u.name.clone(), u.layer)).collect();
    raw.into_iter()
        .map(|u| {
            let deps = if !u.deps.is_empty() {
                let mut d: Vec<String> = Vec::new();
                for (name, _) in u.deps {
                    if !d.contains(&name) {
                        d.push(name);
                    }
                }
                d
            } else if let Some(layer) = u.layer {
                layers
                    .iter()
                    .filter(|(_, l)| l.is_some_and(|l| l < layer))
                    .map(|(n, _)| n.clone())
                    .collect()
            } else {
                Vec::new()
            };
            Unit {
                name: u.name,
                dir: u.dir,
                layer: u.layer,
                deps,
                sprints: u.sprints.into_iter().map(|s| s.sprint).collect(),
                origin: u.origin,
            }
        })
        .collect()
}

/// A plan holding the markers of a merge git left unresolved (`<<<<<<<
/// HEAD` … `=======` … `>>>>>>> branch`): two versions of the text, which
/// no reading can choose between.
pub(super) fn merge_conflict(source: &str) -> Option<Problem> {
    // Most plans hold no marker: one search, no walk over the lines.
    if !source.starts_with("<<<<<<<")
        && !source.contains("\n<<<<<<<")
        && !source.contains("\r<<<<<<<")
    {
        return None;
    }
    let marker = |line: &str, mark: &str| {
        line.strip_prefix(mark)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    };
    let mut offset = 0;
    let mut start: Option<Span> = None;
    // Markers shown in a fenced example (a guide to resolving conflicts)
    // are text.
    let mut fenced = false;
    for line in source.split_inclusive(['\n', '\r']) {
        let text = line.trim_end_matches(['\n', '\r']);
        if text.trim_start().starts_with("```") || text.trim_start().starts_with("~~~") {
            fenced = !fenced;
        }
        if fenced {
            offset += line.len();
            continue;
        }
        if start.is_none() && marker(text, "<<<<<<<") {
            start = Some(offset..offset + text.len());
        } else if marker(text, ">>>>>>>") {
            if let Some(span) = start {
                return Some(
                    Problem::new(
                        ProblemCode::MergeConflict,
                        "the plan holds a merge conflict git left unresolved",
                    )
                    .label(span, "the conflict starts here")
                    .help("resolve the conflict (keep the text you mean, drop the `<<<<<<<`, `=======` and `>>>>>>>` lines), then run `git supervisor plan` again"),
                );
            }
        }
        offset += line.len();
    }
    None
}
