//! A plan read as one unit whose sprints sit in sections that each say
//! what they wait for (`## Track C: Integration` over `**Dependencies**:
//! Track A (health checks)`, `**Dependencies**: None`): the sections are
//! the plan's units, ordered by those lines. Every section holding sprints
//! must say it and every name must be a section of the plan (`Tracks A-E`
//! names five), else the plan stays one sequence: a section that says
//! nothing about its order has not said it may run at once.

use super::*;

/// Field names whose value lists what a section waits for.
const WAIT_KEYS: &[&str] = &[
    "depends on",
    "dependencies",
    "dependency",
    "deps",
    "requires",
    "blocked by",
    "waits for",
    "prerequisites",
];

/// Replace a lone unit by its sprints' sections when each states its
/// dependencies; true when it did.
pub(super) fn split_by_section_fields(doc: &Doc, units: &mut Vec<RawUnit>) -> bool {
    let [unit] = units.as_slice() else {
        return false;
    };
    if unit.sprints.len() < 3 {
        return false;
    }
    // Each sprint's section: the nearest heading above it stating a wait.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, s) in unit.sprints.iter().enumerate() {
        let Some(at) = doc
            .blocks
            .iter()
            .position(|b| b.span().start == s.span.start)
        else {
            return false;
        };
        let mut up = doc.parent[at];
        let section = loop {
            let Some(p) = up else {
                return false;
            };
            if doc.heading(p).is_some_and(|(l, _, _)| l >= 2) && waits(doc, p).is_some() {
                break p;
            }
            up = doc.parent[p];
        };
        let seen = groups.iter().position(|(g, _)| *g == section);
        match seen {
            Some(at) if at + 1 == groups.len() => groups[at].1.push(k),
            Some(_) => return false,
            None => groups.push((section, vec![k])),
        }
    }
    if groups.len() < 2 {
        return false;
    }
    let names: Vec<String> = groups
        .iter()
        .map(|(g, _)| {
            doc.heading(*g)
                .map_or_else(String::new, |(_, t, _)| clean_name(t))
        })
        .collect();
    let mut split = Vec::new();
    for (k, (g, members)) in groups.iter().enumerate() {
        let Some((waited, span)) = waits(doc, *g) else {
            return false;
        };
        let mut deps = Vec::new();
        for name in waited {
            let Some(found) = resolve(&name, &names) else {
                return false;
            };
            for d in found.into_iter().filter(|&d| d != k) {
                deps.push((names[d].clone(), span.clone()));
            }
        }
        let Some((_, _, heading)) = doc.heading(*g) else {
            return false;
        };
        let mut out = RawUnit::new(names[k].clone(), heading.clone(), doc.section(*g));
        out.rule = "section stating what it waits for (`Dependencies:`)".into();
        out.origin = Origin::new(doc.line(heading.start), out.rule.clone());
        out.dir = unit.dir.clone();
        out.deps = deps;
        out.sprints = members.iter().map(|&m| unit.sprints[m].clone()).collect();
        split.push(out);
    }
    *units = split;
    true
}

/// The names a section's `Dependencies:` line lists (none for `None`), and
/// where the line is.
fn waits(doc: &Doc, heading: usize) -> Option<(Vec<String>, Span)> {
    for j in doc.own_blocks(heading) {
        let (text, span) = match &doc.blocks[j] {
            Block::Paragraph { text, span } | Block::Item { text, span, .. } => (text, span),
            _ => continue,
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if WAIT_KEYS.contains(&norm(key).as_str()) {
                let value = strip_parentheticals(value.trim());
                let names = split_dep_names(&value)
                    .into_iter()
                    .flat_map(|n| n.split(" and ").map(clean_name).collect::<Vec<_>>())
                    .filter(|n| !n.is_empty())
                    .collect();
                return Some((names, line_span(doc.source, span, line)));
            }
        }
    }
    None
}

/// The sections a name stands for: one whose name it is or opens (`Track
/// A` for `Track A: Infrastructure`), or a range (`Tracks A-E`).
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
    // `Tracks A-E`, `Phase 1–3`: the word, then each id from one to the other.
    let (word, range) = name.rsplit_once(' ')?;
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
    ids.iter()
        .map(|id| names.iter().position(|n| opens(n, &format!("{word} {id}"))))
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
        assert_eq!(resolve("Track D", &names), None);
        assert_eq!(resolve("the database", &names), None);
    }
}
