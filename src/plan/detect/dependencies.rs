//! Dependencies between work units.
//!
//! Shapes recognised: mermaid `A --> B` edges (nodes known by their label:
//! `P[parser] --> V[validation]`, then `S --> V`); arrow lines in a code
//! block under a dependency/graph heading (`A -> B`, `A → B`, ASCII art
//! `profiles ───┼──► validation`); `depends on` / `requires` text inside a
//! unit's section. An edge `A --> B` means B depends on A.

use super::*;

/// Mermaid `A --> B` edges and arrow lines (`A -> B`, `A → B`, `A ──► B`) in
/// code blocks under a dependency heading; and free `depends on` / `requires`
/// text inside unit sections. An edge `A --> B` means B depends on A.
pub(super) fn detect_graph_edges(doc: &Doc, units: &mut [RawUnit], problems: &mut Vec<Problem>) {
    if units.len() < 2 {
        return;
    }
    let index: HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.name.to_lowercase(), i))
        .collect();
    let mut under_graph_heading = false;
    for b in &doc.blocks {
        match b {
            Block::Heading { text, .. } => {
                let l = text.to_lowercase();
                under_graph_heading = l.contains("dependenc") || l.contains("graph");
            }
            Block::Code { info, text, span } if info.trim() == "mermaid" || under_graph_heading => {
                let edges = arrow_edges(text);
                let known = edges
                    .iter()
                    .filter(|(a, b)| {
                        index.contains_key(&a.to_lowercase())
                            || index.contains_key(&b.to_lowercase())
                    })
                    .count();
                if known == 0 {
                    continue;
                }
                for (from, to) in edges {
                    match (
                        index.get(&from.to_lowercase()),
                        index.get(&to.to_lowercase()),
                    ) {
                        (Some(_), Some(&t)) => {
                            if !units[t]
                                .deps
                                .iter()
                                .any(|(d, _)| d.eq_ignore_ascii_case(&from))
                            {
                                units[t].deps.push((
                                    units[index[&from.to_lowercase()]].name.clone(),
                                    span.clone(),
                                ));
                            }
                        }
                        _ => {
                            let unknown = if index.contains_key(&from.to_lowercase()) {
                                &to
                            } else {
                                &from
                            };
                            problems.push(unknown_unit(unknown, span.clone(), units));
                        }
                    }
                }
            }
            _ => {}
        }
    }
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
                while let Some(pos) = lower[from..].find(key) {
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

pub(super) fn arrow_edges(text: &str) -> Vec<(String, String)> {
    let mut edges = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("graph") || line.starts_with("flowchart") || line.starts_with("%%") {
            continue;
        }
        let mut normalized = line.to_string();
        for arrow in ["──►", "─►", "-->", "->", "→", "==>"] {
            normalized = normalized.replace(arrow, "\u{1}");
        }
        // Drop mermaid edge labels: A -->|label| B.
        let parts: Vec<String> = normalized
            .split('\u{1}')
            .map(|p| {
                let p = p.trim();
                let p = if let Some(labelled) = p.strip_prefix('|') {
                    labelled
                        .split_once('|')
                        .map(|(_, r)| r.trim())
                        .unwrap_or("")
                } else {
                    p
                };
                node_name(p)
            })
            .collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            continue;
        }
        for w in parts.windows(2) {
            edges.push((w[0].clone(), w[1].clone()));
        }
    }
    edges
}

/// A mermaid node `id[Label]` or `id(Label)` is known by its label.
pub(super) fn node_name(p: &str) -> String {
    if let Some(open) = p.find(['[', '(', '{']) {
        let inner = p[open + 1..]
            .trim_end_matches([']', ')', '}'])
            .trim_matches(|c| c == '"' || c == '(' || c == '[');
        if !inner.is_empty() {
            return clean_name(inner);
        }
        return clean_name(&p[..open]);
    }
    clean_name(p)
}

pub(super) fn unknown_unit(name: &str, span: Span, units: &[RawUnit]) -> Problem {
    let known: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
    Problem::new(
        ProblemCode::UnknownUnit,
        format!("dependency on unknown unit `{name}`"),
    )
    .label(span, format!("`{name}` is not a work unit of this plan"))
    .help(format!("the plan's units are: {}", known.join(", ")))
}

pub(super) fn dependency_structure(units: &[RawUnit]) -> DependencyStructure {
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
