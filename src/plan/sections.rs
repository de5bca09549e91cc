//! The numbered plan sections that hold each unit's sprint definitions
//! (`## 8. Parser Sprints` → `8`): what a v1 template's `<8|9|10|11|12>`
//! stands for (spec §I-44).

use std::collections::BTreeMap;

use super::markdown::Block;
use super::model::Unit;

/// For each unit, the numbers of the headings enclosing its first sprint,
/// innermost first; units with none are left out.
pub fn unit_sections(
    blocks: &[Block],
    source: &str,
    units: &[Unit],
) -> BTreeMap<String, Vec<String>> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    // (line, level, number) of every heading, in order.
    let headings: Vec<(usize, u8, Option<String>)> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, text, span } => {
                Some((line_of(span.start), *level, section_number(text)))
            }
            _ => None,
        })
        .collect();
    let mut out = BTreeMap::new();
    for u in units {
        let Some(line) = u
            .sprints
            .iter()
            .map(|s| s.origin.line)
            .filter(|&l| l > 0)
            .min()
        else {
            continue;
        };
        let upto = headings.partition_point(|h| h.0 <= line);
        // The sprint's own heading, when it is one, bounds what encloses it.
        let mut level = match headings[..upto].last() {
            Some(h) if h.0 == line => h.1,
            _ => u8::MAX,
        };
        let mut numbers = Vec::new();
        for (l, lv, n) in headings[..upto].iter().rev() {
            if *l == line || *lv >= level {
                continue;
            }
            level = *lv;
            if let Some(n) = n {
                numbers.push(n.clone());
            }
        }
        if !numbers.is_empty() {
            out.insert(u.name.clone(), numbers);
        }
    }
    out
}

/// `8. Parser`, `8 Parser`, `Section 8: Parser`, `§8.2 …` → `8`, `8.2`.
fn section_number(text: &str) -> Option<String> {
    let t = text.trim().trim_start_matches('§');
    let t = t
        .strip_prefix("Section ")
        .or_else(|| t.strip_prefix("section "))
        .unwrap_or(t)
        .trim_start();
    let n: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let n = n.trim_end_matches('.');
    (!n.is_empty() && n.starts_with(|c: char| c.is_ascii_digit())).then(|| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_from_the_enclosing_headings() {
        for (heading, n) in [
            ("8. Parser Sprints", Some("8")),
            ("Section 10: X", Some("10")),
            ("§8.2 Y", Some("8.2")),
            ("Sprint 3", None),
            ("Parser", None),
        ] {
            assert_eq!(section_number(heading).as_deref(), n, "{heading}");
        }
    }
}
