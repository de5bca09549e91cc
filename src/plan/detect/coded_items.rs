//! The last reading before a refusal, beside numbered bold items: list
//! items at any depth that open with a work item's code and a name
//! (`- TASK-A1｜Service consolidation`, `- [ ] US-12: Export`), two or more.
//! Each becomes a heading one level below its section, in the order
//! written; a plan that names work only by such codes has no other form.

use super::Block;

/// `TASK-A1｜Name`, `US-12: Name`, `T-3 — Name`: the code and the name.
fn coded_line(line: &str) -> Option<(&str, &str)> {
    let t = super::outline::item_label(line).trim_start_matches('*');
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(t.len());
    let code = t[..end].trim_end_matches(['.', '-']);
    let (letters, rest) = code.split_once('-')?;
    let shaped = (1..=8).contains(&letters.len())
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && !rest.is_empty()
        && rest.chars().any(|c| c.is_ascii_digit());
    if !shaped {
        return None;
    }
    let name = t[code.len()..]
        .trim_start_matches('*')
        .trim_start()
        .strip_prefix(['｜', '|', ':', '：', '—', '–', '-'])?
        .trim();
    (!name.is_empty()).then_some((code, name))
}

/// Coded items as headings, when two or more are found.
pub(super) fn promote_coded_items(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let mut level = 1u8;
    let mut found: Vec<(usize, u8, String)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Heading { level: l, .. } => level = *l,
            Block::Item { span, checked, .. } => {
                let first = source[span.clone()].lines().next().unwrap_or_default();
                if let Some((code, name)) = coded_line(first) {
                    let mark = match checked {
                        Some(true) => "[x] ",
                        Some(false) => "[ ] ",
                        None => "",
                    };
                    found.push((i, (level + 1).min(6), format!("{mark}{code}: {name}")));
                }
            }
            _ => {}
        }
    }
    if found.len() < 2 {
        return blocks;
    }
    for (i, level, text) in found {
        super::outline::into_heading(&mut blocks, i, level, text);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_lines() {
        assert_eq!(
            coded_line("  - TASK-A1｜Service consolidation"),
            Some(("TASK-A1", "Service consolidation"))
        );
        assert_eq!(coded_line("- [ ] US-12: Export"), Some(("US-12", "Export")));
        assert_eq!(coded_line("- Use UTF-8: always"), None);
        assert_eq!(coded_line("- plain words"), None);
    }
}
