//! Dependencies between work units.
//!
//! Shapes recognised: mermaid `A --> B` edges (nodes known by their label:
//! `P[parser] --> V[validation]`, then `S --> V`); arrow lines in a code
//! block under a dependency/graph heading (`A -> B`, `A → B`, ASCII art
//! `profiles ───┼──► validation`); `depends on` / `requires` text inside a
//! unit's section. An edge `A --> B` means B depends on A.

mod graph_arrows;
pub(super) use graph_arrows::{arrow_edges, is_mermaid_graph};

use super::*;

/// Mermaid `A --> B` edges and arrow lines (`A -> B`, `A → B`, `A ──► B`) in
/// code blocks under a dependency heading; and free `depends on` / `requires`
/// text inside unit sections. An edge `A --> B` means B depends on A.
pub(super) fn detect_graph_edges(doc: &Doc, units: &mut [RawUnit], problems: &mut Vec<Problem>) {
    if units.len() < 2 {
        return;
    }
    let index = UnitIndex::new(units);
    // Sprint id → the one unit holding it (None when several do).
    let mut holders: HashMap<SprintId, Option<usize>> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        for sp in &u.sprints {
            holders
                .entry(sp.id.clone())
                .and_modify(|h| {
                    if *h != Some(i) {
                        *h = None
                    }
                })
                .or_insert(Some(i));
        }
    }
    let names: Vec<String> = units.iter().map(|u| u.name.clone()).collect();
    let mut under_graph_heading = false;
    for b in &doc.blocks {
        match b {
            Block::Heading { text, .. } => {
                let l = text.to_lowercase();
                under_graph_heading = l.contains("dependenc") || l.contains("graph");
            }
            Block::Code { info, text, span } if info.trim() == "mermaid" || under_graph_heading => {
                let edges = arrow_edges(text);
                let mermaid = info.trim() == "mermaid";
                // `L4 Evidence Review`: a mermaid node opening with a
                // unit's code (ASCII art writes notes beside its arrows).
                let code = |n: &str| {
                    let first = n.split([' ', ':']).next().filter(|_| mermaid)?;
                    first
                        .contains(|c: char| c.is_ascii_digit())
                        .then(|| index.get(first))?
                };
                let one = |n: &str| {
                    index
                        .get(n)
                        .or_else(|| unit_of_sprint(n, &holders))
                        .or_else(|| code(n))
                };
                // A node standing for a group (`T1.CORE.*`): the units
                // named so.
                let group = |n: &str| -> Vec<usize> {
                    let Some(prefix) = n.strip_suffix('*') else {
                        return Vec::new();
                    };
                    (0..names.len())
                        .filter(|&i| names[i].starts_with(prefix))
                        .collect()
                };
                let nodes_of =
                    |n: &str| -> Vec<usize> { one(n).map_or_else(|| group(n), |u| vec![u]) };
                // Whether a picture is a plan of the units is judged by
                // the nodes that name one; a group orders what it names
                // and, naming none yet, is no unknown unit.
                let node = |n: &str, _: &[RawUnit]| one(n);
                let group_node = |n: &str| n.ends_with('*');
                let known = edges
                    .iter()
                    .filter(|(a, b)| node(a, units).is_some() || node(b, units).is_some())
                    .count();
                if known == 0 {
                    continue;
                }
                // A mermaid picture most of whose nodes are no unit, with
                // no arrow from one unit to another, draws something else
                // (`UI[React UI] --> API[Verifier Client]`, an
                // architecture): one node named like a unit makes it no
                // plan of the units. A mistyped name among units is still
                // refused.
                let mut nodes: Vec<&str> = edges
                    .iter()
                    .flat_map(|(a, b)| [a.as_str(), b.as_str()])
                    .collect();
                nodes.sort_unstable();
                nodes.dedup();
                let units_named = nodes.iter().filter(|n| node(n, units).is_some()).count();
                // A unit reaching another, directly or through nodes that
                // are no unit (`Infra --> review{Security review} -->
                // Backend`), orders them.
                let joins_units = nodes
                    .iter()
                    .filter(|n| node(n, units).is_some())
                    .any(|start| {
                        let mut seen: Vec<&str> = vec![start];
                        let mut todo: Vec<&str> = vec![start];
                        while let Some(at) = todo.pop() {
                            for (_, b) in edges.iter().filter(|(a, _)| a == at) {
                                if seen.contains(&b.as_str()) {
                                    continue;
                                }
                                if node(b, units).is_some() {
                                    return true;
                                }
                                seen.push(b);
                                todo.push(b);
                            }
                        }
                        false
                    });
                if mermaid && units_named * 2 < nodes.len() && !joins_units {
                    continue;
                }
                for (from, to) in edges {
                    let (froms, tos) = (nodes_of(&from), nodes_of(&to));
                    if !froms.is_empty() && !tos.is_empty() {
                        for (&f, &t) in froms.iter().flat_map(|f| tos.iter().map(move |t| (f, t))) {
                            let dep = units[f].name.clone();
                            if f != t && !units[t].deps.iter().any(|(d, _)| *d == dep) {
                                units[t].deps.push((dep, span.clone()));
                            }
                        }
                        continue;
                    }
                    if group_node(&from) || group_node(&to) {
                        continue;
                    }
                    match (froms.first().copied(), tos.first().copied()) {
                        // ASCII art carries notes between its arrows; only
                        // a mermaid graph's nodes must all be units.
                        _ if !mermaid => {}
                        (f, _) => {
                            let unknown = if f.is_some() { &to } else { &from };
                            problems.push(unknown_unit(unknown, span.clone(), units));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let index: HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.to_lowercase(), i))
        .collect();
    // Free text inside each unit's own section.
    for t in 0..units.len() {
        let scope = units[t].scope.clone();
        for j in scope {
            let (Block::Paragraph { text, span } | Block::Item { text, span, .. }) = &doc.blocks[j]
            else {
                continue;
            };
            // ASCII lower-casing keeps byte offsets valid in `text`.
            let lower = text.to_ascii_lowercase();
            for key in ["depends on ", "requires "] {
                let mut from = 0;
                while let Some(pos) = super::short_find::find(&lower[from..], key) {
                    let start = from + pos + key.len();
                    let end = lower[start..]
                        .find(['.', '\n', ')'])
                        .map(|e| start + e)
                        .unwrap_or(lower.len());
                    for name in split_names(&text[start..end]) {
                        if let Some(&d) = index.get(&name.to_lowercase()) {
                            if d != t
                                && !units[t]
                                    .deps
                                    .iter()
                                    .any(|(x, _)| x.eq_ignore_ascii_case(&name))
                            {
                                let dep = units[d].name.clone();
                                units[t].deps.push((dep, span.clone()));
                            }
                        }
                    }
                    from = end;
                }
            }
        }
    }
}

/// A graph node naming a sprint (`2.1a`, `Sortie 3`, `S4`): the unit that
/// holds it, when exactly one does.
fn unit_of_sprint(node: &str, holders: &HashMap<SprintId, Option<usize>>) -> Option<usize> {
    let t = node.trim();
    let t = ["Sprint ", "Sortie ", "sprint ", "sortie ", "S"]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t);
    let id = t.split_whitespace().next()?.parse::<SprintId>().ok()?;
    holders.get(&id).copied().flatten()
}

/// Table dependency cells name units by name, by id (`WU1` for a row "WU1
/// — Parser"), as a range (`WU-1 through WU-6`), as `all previous`, or in
/// prose (`Verification complete` for "Verification & Documentation").
/// Parenthetical remarks and `none (…)` are dropped. What cannot be
/// resolved stays as written, for validation to report with the candidates.
///
/// A sentence (`WU1 complete for Sortie 6 onwards. Sorties 4 and 5 do not
/// need WU1`) depends on the units it names, and says so as a warning:
/// the rest of the sentence is not an order the engine can keep.
pub(super) fn resolve_table_deps(units: &mut [RawUnit], problems: &mut Vec<Problem>) {
    let index = UnitIndex::new(units);
    for t in 0..units.len() {
        // A name may hold "and" (`Slice 1 — IR and compile`): the whole
        // text first, then its parts.
        let deps: Vec<(String, Span)> = std::mem::take(&mut units[t].deps)
            .into_iter()
            .flat_map(|(text, span)| {
                // `Phase 0 complete`: the unit named, not its state.
                let names_units = |t: &str| {
                    index.get(t).is_some()
                        || expand_range(t).is_some_and(|r| r.iter().all(|n| index.get(n).is_some()))
                };
                let text = match without_done_tail(&text) {
                    Some(bare) if !names_units(&text) && names_units(bare) => bare.to_string(),
                    _ => text,
                };
                let named = index
                    .get(&text)
                    .or_else(|| index.get(&strip_parentheticals(&text)));
                // `Phases 2–4`: each unit of the range, when each is one.
                let range = expand_range(&text)
                    .filter(|names| names.iter().all(|n| index.get(n).is_some()));
                let parts: Vec<String> = if named.is_some() {
                    vec![text]
                } else if let Some(names) = range {
                    names
                } else {
                    text.split(" and ")
                        .map(clean_name)
                        .filter(|p| !p.is_empty())
                        .collect()
                };
                parts.into_iter().map(move |p| (p, span.clone()))
            })
            .collect();
        let mut out: Vec<(String, Span)> = Vec::new();
        for (text, span) in deps {
            // `core sprint 2`: the unit waits for that sprint of core only.
            if let Some((d, id)) = sprint_dep(&text, t, &index, units) {
                let name = units[d].name.clone();
                if !out.iter().any(|(x, _)| *x == name) {
                    out.push((name.clone(), span.clone()));
                }
                if let Some(first) = units[t].sprints.first_mut() {
                    let after = Criterion::after_sprint(&name, &id);
                    if !first.sprint.entry.contains(&after) {
                        first.sprint.entry.push(after);
                    }
                }
                continue;
            }
            let resolved = resolve_dep(&text, t, &index).or_else(|| {
                let named = named_in_sentence(&text, t, units);
                if named.is_empty() {
                    return None;
                }
                let names: Vec<&str> = named.iter().map(|&i| units[i].name.as_str()).collect();
                problems.push(
                    Problem::new(
                        ProblemCode::DependencySentence,
                        format!(
                            "`{}` is read as depending on {}",
                            units[t].name,
                            names.join(", ")
                        ),
                    )
                    .label(span.clone(), "a sentence, not a list of units")
                    .help(format!(
                        "the rest of \"{}\" is not kept: split the sprints into units, or list the units it waits for",
                        text.trim()
                    ))
                    .tolerated(),
                );
                Some(named)
            });
            match resolved {
                Some(found) => {
                    for f in found {
                        let name = units[f].name.clone();
                        if f != t && !out.iter().any(|(d, _)| *d == name) {
                            out.push((name, span.clone()));
                        }
                    }
                }
                None => out.push((text, span)),
            }
        }
        units[t].deps = out;
    }
}

/// A dependency on one sprint of another unit: `core sprint 2`, `core
/// Sprint 2a`, `Sprint 2 of core`, `sprint 2 in core`. The unit and the
/// sprint's id, when the unit is another one of the plan and holds it.
fn sprint_dep(
    text: &str,
    me: usize,
    index: &UnitIndex,
    units: &[RawUnit],
) -> Option<(usize, SprintId)> {
    let bare = strip_parentheticals(text);
    let t = bare.trim().trim_end_matches(['.', ',', ';']);
    let lower = t.to_ascii_lowercase();
    let (unit, id) = if let Some(rest) = lower.strip_prefix("sprint ") {
        let (id, unit) = rest
            .split_once(" of ")
            .or_else(|| rest.split_once(" in "))
            .or_else(|| rest.split_once(" from "))?;
        let start = t.len() - unit.len();
        (t[start..].trim(), id.trim())
    } else {
        let at = lower.rfind(" sprint ")?;
        (t[..at].trim(), t[at + " sprint ".len()..].trim())
    };
    let id: SprintId = id.trim_end_matches(':').parse().ok()?;
    let d = index.get(unit)?;
    (d != me && units[d].sprints.iter().any(|s| s.id == id)).then_some((d, id))
}

pub(super) fn strip_parentheticals(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// `All previous tasks`, `all prior phases`: every step before this one.
pub(super) fn names_all_earlier(lower: &str) -> bool {
    [
        "all previous",
        "all prior",
        "all above",
        "all earlier",
        "all preceding",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

fn resolve_dep(text: &str, me: usize, index: &UnitIndex) -> Option<Vec<usize>> {
    let bare = strip_parentheticals(text);
    let lower = bare.to_lowercase();
    let lower = lower.trim_matches(|c: char| !c.is_alphanumeric());
    if lower.is_empty() || lower.starts_with("none") || lower == "n/a" || lower == "nothing" {
        return Some(Vec::new());
    }
    if let Some(u) = index.get(text).or_else(|| index.get(&bare)) {
        return Some(vec![u]);
    }
    if names_all_earlier(lower) || lower.starts_with("previous") {
        return Some((0..me).collect());
    }
    for sep in [" through ", " thru ", " to ", "–", "—", "..", " - "] {
        if let Some((a, b)) = bare.split_once(sep) {
            if let (Some(x), Some(y)) = (index.get(a), index.get(b)) {
                return Some((x.min(y)..=x.max(y)).collect());
            }
        }
    }
    // Prose: the first word names exactly one unit's first word.
    let first = lower.split(|c: char| !c.is_alphanumeric()).next()?;
    if first.len() < 3 {
        return None;
    }
    let matches = index.by_first_word(first);
    (matches.len() == 1).then(|| matches.to_vec())
}

/// How many units an unknown-dependency message names: a plan of thousands
/// of units must not print its whole unit list once per bad reference.
const MAX_CANDIDATES: usize = 6;

pub(super) fn unknown_unit(name: &str, span: Span, units: &[RawUnit]) -> Problem {
    unknown_unit_near(name, span, units, &Closest::new(units))
}

/// [`unknown_unit`] with the unit names indexed once, for a plan with many
/// bad references.
pub(super) fn unknown_unit_near(
    name: &str,
    span: Span,
    units: &[RawUnit],
    closest: &Closest,
) -> Problem {
    let shown = |u: &RawUnit| match u.aliases.first() {
        Some(a) if *a != u.name => format!("{} ({a})", u.name),
        _ => u.name.clone(),
    };
    let help = if units.len() <= MAX_CANDIDATES {
        let known: Vec<String> = units.iter().map(shown).collect();
        format!("the plan's units are: {}", known.join(", "))
    } else {
        let known: Vec<String> = closest
            .near(name, MAX_CANDIDATES)
            .into_iter()
            .map(|i| shown(&units[i]))
            .collect();
        format!(
            "the plan has {} units; the closest names: {}",
            units.len(),
            known.join(", ")
        )
    };
    Problem::new(
        ProblemCode::UnknownUnit,
        format!("dependency on unknown unit `{name}`"),
    )
    .label(span, format!("`{name}` is not a work unit of this plan"))
    .help(help)
}

/// Unit names and aliases, lower-cased and sorted: the names sharing the
/// longest prefix with any text sit around its place in this order.
pub(super) struct Closest {
    sorted: Vec<(String, usize)>,
}

impl Closest {
    pub(super) fn new(units: &[RawUnit]) -> Closest {
        let mut sorted: Vec<(String, usize)> = units
            .iter()
            .enumerate()
            .flat_map(|(i, u)| {
                std::iter::once(&u.name)
                    .chain(u.aliases.iter())
                    .map(move |n| (n.to_lowercase(), i))
            })
            .collect();
        sorted.sort();
        Closest { sorted }
    }

    /// Up to `k` units whose names share the longest prefix with `name`
    /// (ignoring case), in plan order among equals.
    fn near(&self, name: &str, k: usize) -> Vec<usize> {
        let key = name.to_lowercase();
        let at = self
            .sorted
            .partition_point(|(n, _)| n.as_str() < key.as_str());
        let from = at.saturating_sub(k * 2);
        let to = (at + k * 2).min(self.sorted.len());
        let mut scored: Vec<(usize, usize)> = self.sorted[from..to]
            .iter()
            .map(|(n, i)| (shared_prefix(&key, n), *i))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<usize> = Vec::new();
        for (_, i) in scored {
            if !out.contains(&i) {
                out.push(i);
            }
            if out.len() == k {
                break;
            }
        }
        out
    }
}

fn shared_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// Which structure orders the units. Numbered phases, weeks and milestones
/// with no dependency information run one after another.
///
/// Order information that covers only some of the numbered sections (a
/// graph naming two phases of three) says nothing about the others: the
/// sections then stay one sequence, which keeps every stated dependency
/// as long as each names an earlier section.
///
/// Units that are rows of a unit table (or steps the plan orders as a
/// graph) with nothing between them run at once, as the table says; any
/// other units with no order information are one sequence too: sections
/// (`## Backend`, `## Frontend`) say nothing about running at once.
pub(super) fn dependency_structure(
    units: &mut [RawUnit],
    independence_stated: bool,
) -> DependencyStructure {
    let no_info = units.iter().all(|u| u.layer.is_none() && u.deps.is_empty());
    let numbered = units.len() > 1
        && (units.iter().all(|u| u.sequential) || (no_info && !independence_stated));
    // "These stages run in parallel" in the first section: all of them.
    let all_at_once = numbered && units[0].alongside;
    if numbered && !all_at_once && (no_info || partly_ordered(units)) {
        // Waves: a section that says it runs alongside the one before joins
        // its wave; every wave waits for the whole wave before it.
        let mut previous: Vec<String> = Vec::new();
        let mut current: Vec<String> = Vec::new();
        let mut waves = false;
        for (i, unit) in units.iter_mut().enumerate() {
            unit.layer = None;
            if i > 0 && !unit.alongside {
                previous = std::mem::take(&mut current);
            }
            waves |= i > 0 && unit.alongside;
            let span = unit.name_span.clone();
            unit.deps = previous.iter().map(|p| (p.clone(), span.clone())).collect();
            current.push(unit.name.clone());
        }
        return if waves {
            DependencyStructure::Graph
        } else {
            DependencyStructure::Sequential
        };
    }
    if units.iter().any(|u| u.layer.is_some()) {
        DependencyStructure::Layers
    } else if units.iter().any(|u| !u.deps.is_empty()) {
        DependencyStructure::Graph
    } else if units.len() == 1 {
        DependencyStructure::Sequential
    } else {
        DependencyStructure::Parallel
    }
}

/// Some section is left out of the stated order (no layer, no dependency,
/// nothing depends on it) while every stated dependency names an earlier
/// section, so reading the sections as one sequence loses nothing said.
fn partly_ordered(units: &[RawUnit]) -> bool {
    let position = |name: &str| units.iter().position(|u| u.name.eq_ignore_ascii_case(name));
    let forward_only = units.iter().enumerate().all(|(i, u)| {
        u.deps
            .iter()
            .all(|(d, _)| position(d).is_some_and(|p| p < i))
    });
    let left_out = units.iter().any(|u| {
        u.layer.is_none()
            && u.deps.is_empty()
            && !units
                .iter()
                .any(|o| o.deps.iter().any(|(d, _)| d.eq_ignore_ascii_case(&u.name)))
    });
    forward_only && left_out
}

/// The other units a dependency sentence names by name or alias, as whole
/// words, in plan order. Only sentences (four words or more) are read so.
fn named_in_sentence(text: &str, me: usize, units: &[RawUnit]) -> Vec<usize> {
    let lower = text.to_lowercase();
    if lower.split_whitespace().count() < 4 {
        return Vec::new();
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let joined = format!(" {} ", words.join(" "));
    (0..units.len())
        .filter(|&i| i != me)
        .filter(|&i| {
            std::iter::once(&units[i].name)
                .chain(units[i].aliases.iter())
                .map(|n| {
                    n.to_lowercase()
                        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                        .filter(|w| !w.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .any(|n| n.len() >= 2 && joined.contains(&format!(" {n} ")))
        })
        .collect()
}

/// Dependencies that name nothing in the plan and nothing close to a unit's
/// name (`OtherLib >= 2.0 released`) are prerequisites outside it: each
/// becomes an entry criterion of the unit's first sprint, with a warning.
/// A name close to a unit's (`Parsr`) stays a dependency, for validation
/// to report as a likely typo.
pub(super) fn outside_prerequisites(units: &mut [RawUnit], problems: &mut Vec<Problem>) {
    let names: Vec<String> = units
        .iter()
        .flat_map(|u| std::iter::once(&u.name).chain(u.aliases.iter()))
        .map(|n| n.to_lowercase())
        .collect();
    let known: HashSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
    let mut moved: Vec<(usize, String, Span)> = Vec::new();
    for (t, unit) in units.iter().enumerate() {
        for (dep, span) in &unit.deps {
            if known.contains(dep.as_str()) || unit.sprints.is_empty() {
                continue;
            }
            let lower = dep.to_lowercase();
            let close = names.iter().any(|n| {
                shared_prefix(&lower, n) >= 3 || (n.len() >= 3 && lower.contains(n.as_str()))
            });
            if !close && reads_as_prerequisite(dep) {
                moved.push((t, dep.clone(), span.clone()));
            }
        }
    }
    for (t, dep, span) in moved {
        let unit = &mut units[t];
        unit.deps.retain(|(d, _)| *d != dep);
        let first = &mut unit.sprints[0].sprint;
        first.entry.push(Criterion {
            kind: CriterionKind::Checklist,
            text: dep.clone(),
            command: None,
            expected: None,
            checked: false,
        });
        problems.push(
            Problem::new(
                ProblemCode::OutsidePrerequisite,
                format!(
                    "`{}` waits for `{dep}`, which is not a unit of this plan: it is an entry criterion of its first sprint",
                    unit.name
                ),
            )
            .label(span, "not a work unit of this plan")
            .help("name a unit of the plan here, or move the prerequisite to the sprint's Entry Criteria")
            .tolerated(),
        );
    }
}

/// Text that describes something to wait for rather than names a unit: a
/// phrase (`OtherLib released`), or a version (`libfoo >= 2.0`). One bare
/// word (`ghost`) reads as a unit's name, missing or misspelt.
fn reads_as_prerequisite(dep: &str) -> bool {
    let words = dep.split_whitespace().count();
    let version = dep.contains(['≥', '>', '<', '='])
        || dep
            .split(['.', ' '])
            .filter(|w| w.chars().all(|c| c.is_ascii_digit()) && !w.is_empty())
            .count()
            >= 2;
    words >= 2 || version
}

/// The names of what a step waits for, as a table's column (`| Depends
/// On |`, `| Blocked by |`, `| Abhängigkeiten |`, `| 依赖 |`) or a
/// section's field (`**Dependencies**: Track A`).
pub(super) const DEPENDENCY_COLUMNS: &[&str] = &[
    "depends on",
    // Written as a field name (`DependsOn`, `depends_on`, `blocked-by`).
    "dependson",
    "depends_on",
    "depends-on",
    "blockedby",
    "blocked_by",
    "blocked-by",
    "depends",
    "dependencies",
    "dependency",
    "deps",
    "blocked by",
    "requires",
    "after",
    "waits for",
    "prerequisites",
    "abhängigkeiten",
    "abhängig von",
    "dependencias",
    "dependências",
    "depende de",
    "dépendances",
    "dépend de",
    "зависимости",
    "зависит от",
    "依赖",
    "依赖任务",
    "依賴",
    "前置",
    "前置任务",
    "依存",
    "依存関係",
    "의존성",
    "선행",
    "يعتمد على",
    "الاعتماديات",
    "dipende da",
    "dipendenze",
    "zależności",
    "bağımlılıklar",
];

/// `Phase 0` of `Phase 0 complete`: a name followed by the state it must
/// reach.
fn without_done_tail(text: &str) -> Option<&str> {
    let t = text.trim_end();
    let (head, last) = t.rsplit_once(' ')?;
    super::completion::opens_with_done_word(&last.to_lowercase()).then(|| head.trim_end())
}

/// `Tracks A-E` → `Track A` … `Track E`, `Phases 2–4` → `Phase 2` …
/// `Phase 4`: the word, then each id from one to the other.
pub(super) fn expand_range(name: &str) -> Option<Vec<String>> {
    let (word, range) = name.trim().rsplit_once(' ')?;
    let (from, to) = range.split_once(['-', '–'])?;
    let word = word.strip_suffix('s').unwrap_or(word);
    let ids: Vec<String> = match (from.parse::<u32>(), to.parse::<u32>()) {
        (Ok(a), Ok(b)) if a <= b && b - a < 64 => (a..=b).map(|n| n.to_string()).collect(),
        _ => {
            let (mut a, mut b) = (from.chars(), to.chars());
            let (Some(a), None, Some(b), None) = (a.next(), a.next(), b.next(), b.next()) else {
                return None;
            };
            if !(a.is_ascii_alphabetic() && b.is_ascii_alphabetic() && a <= b) {
                return None;
            }
            (a..=b).map(|c| c.to_string()).collect()
        }
    };
    Some(ids.into_iter().map(|id| format!("{word} {id}")).collect())
}
