//! Arrows written as text: mermaid edges (`A --> B`, `A & B --> C`,
//! labels `P[parser]`), arrow lines (`A -> B`, `A → B`, `A ──► B`), and a
//! tree drawn with box lines, each branch (`├──▶ Phase 7`) hanging from
//! the nearest node above it that starts at or left of its column.

use std::collections::HashMap;

use super::super::clean_name;

/// Box drawing and arrow heads around a node in ASCII art.
fn art(c: char) -> bool {
    ('\u{2500}'..='\u{259F}').contains(&c)
        || matches!(
            c,
            '|' | '+' | '-' | '<' | '>' | '▼' | '▲' | '►' | '◄' | '▶' | '◀' | '=' | '.'
        )
        || c.is_whitespace()
}

pub(in crate::plan::detect) fn arrow_edges(text: &str) -> Vec<(String, String)> {
    let mut edges = Vec::new();
    // Mermaid node ids seen with a label (`P[parser]`) stand for the label.
    let mut labels: HashMap<String, String> = HashMap::new();
    // The nodes written on the lines so far, each with the column its text
    // starts at: a tree's branch (`├──▶ Phase 7`) hangs from the nearest
    // node above that starts at or left of the branch's column.
    let mut above: Vec<(usize, String)> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with("graph") || line.starts_with("flowchart") || line.starts_with("%%") {
            continue;
        }
        let column = |at: usize| raw[..at].chars().count();
        let indent = column(raw.len() - raw.trim_start().len());
        let mut normalized = line.to_string();
        for arrow in ["──►", "─►", "──▶", "─▶", "-->", "->", "→", "==>", "⟶"]
        {
            normalized = normalized.replace(arrow, "\u{1}");
        }
        // Drop mermaid edge labels: A -->|label| B; `A & B --> C` is an
        // edge from each of A and B.
        let parts: Vec<Vec<String>> = normalized
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
                joined_nodes(p)
                    .into_iter()
                    .map(|p| {
                        let (id, label) = node_name(p.trim_matches(art));
                        match label {
                            Some(l) => {
                                labels.insert(id, l.clone());
                                l
                            }
                            None => labels.get(&id).cloned().unwrap_or(id),
                        }
                    })
                    .collect()
            })
            .collect();
        // The last node's text on the line, and where it starts.
        let last = parts
            .last()
            .and_then(|p| p.last())
            .filter(|n| !n.is_empty())
            .cloned();
        let start = last
            .as_ref()
            .and_then(|n| raw.rfind(n.as_str()))
            .map(column);
        let branch = line.starts_with(['├', '└', '╰', '┣', '┗', '┠', '┖', '`', '+']);
        let mut parts = parts;
        if parts.len() >= 2 && branch && parts[0].iter().all(String::is_empty) {
            match above.iter().rev().find(|(c, _)| *c <= indent) {
                Some((_, parent)) => parts[0] = vec![parent.clone()],
                None => continue,
            }
        }
        if let (Some(name), Some(start)) = (last, start) {
            above.push((start, name.clone()));
        }
        if parts.len() < 2 || parts.iter().flatten().any(|p| p.is_empty()) {
            continue;
        }
        for w in parts.windows(2) {
            for from in &w[0] {
                for to in &w[1] {
                    edges.push((from.clone(), to.clone()));
                }
            }
        }
    }
    edges
}

/// A mermaid node `id[Label]` or `id(Label)`: (id, label).
fn node_name(p: &str) -> (String, Option<String>) {
    if let Some(open) = p.find(['[', '(', '{']) {
        // `report   (waits for both)`: a note after the node, not a label.
        if p[..open].ends_with(char::is_whitespace) {
            return (clean_name(&p[..open]), None);
        }
        let inner = p[open + 1..]
            .trim_end_matches([']', ')', '}'])
            .trim_matches(|c| c == '"' || c == '(' || c == '[' || c == '{');
        let id = clean_name(&p[..open]);
        // `T1_CORE[T1.CORE.*]`: every item whose id begins `T1.CORE.`.
        if let Some(prefix) = inner.strip_suffix(".*").filter(|p| !p.is_empty()) {
            return (id, Some(format!("{}.*", clean_name(prefix))));
        }
        if !inner.is_empty() {
            return (id, Some(clean_name(inner)));
        }
        return (id, None);
    }
    (clean_name(p), None)
}

/// Whether a code block is a mermaid graph of arrows (```` ```mermaid ````
/// opening with `graph` or `flowchart`), not a Gantt or a sequence.
pub(in crate::plan::detect) fn is_mermaid_graph(info: &str, text: &str) -> bool {
    let first = text.trim_start();
    info.trim().eq_ignore_ascii_case("mermaid")
        && (first.starts_with("graph") || first.starts_with("flowchart"))
}

/// The nodes `A & B` joins, split only outside a node's label: `F4[API &
/// Auth]` is one node.
fn joined_nodes(p: &str) -> Vec<&str> {
    if !p.contains(" & ") {
        return vec![p];
    }
    let mut out = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (at, c) in p.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            '&' if depth <= 0 && p[..at].ends_with(' ') && p[at + 1..].starts_with(' ') => {
                out.push(p[from..at - 1].trim_end());
                from = at + 2;
            }
            _ => {}
        }
    }
    out.push(&p[from..]);
    out
}
