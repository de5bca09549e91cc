//! Steps written as bold lines instead of headings: under `## Phase 1`, a
//! paragraph that is only `**1.1 Initialize the project**` followed by its
//! own bullets is read as a heading one level down, so the phase's steps
//! are found like `### 1.1` sub-sections. Only a section with two or more
//! such lines numbered after the section itself (`1.1`, `1.2` under a
//! heading numbered 1) is read so; a lone bold label stays a paragraph.

use super::Block;

/// The blocks with bold step lines turned into headings.
pub(super) fn promote_bold_steps(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let mut section: Option<(usize, u8, u32)> = None;
    let mut found: Vec<(usize, u8, String)> = Vec::new();
    let mut pending: Vec<(usize, u8, String)> = Vec::new();
    let flush = |pending: &mut Vec<(usize, u8, String)>, found: &mut Vec<(usize, u8, String)>| {
        if pending.len() >= 2 {
            found.append(pending);
        }
        pending.clear();
    };
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level, text, .. } => {
                flush(&mut pending, &mut found);
                section = first_number(text).map(|n| (i, *level, n));
            }
            Block::Paragraph { span, .. } => {
                let Some((_, level, number)) = section else {
                    continue;
                };
                let raw = source[span.clone()].trim();
                if let Some(text) = bold_step(raw, number) {
                    pending.push((i, (level + 1).min(6), text));
                }
            }
            _ => {}
        }
    }
    flush(&mut pending, &mut found);
    for (i, level, text) in found {
        let span = blocks[i].span();
        blocks[i] = Block::Heading { level, text, span };
    }
    blocks
}

/// `**1.2 Database schema**` (or `**1.2: …**`, `**1.2. …**`) under a
/// section numbered `number`: the line's text without the stars.
fn bold_step(raw: &str, number: u32) -> Option<String> {
    if raw.contains('\n') {
        return None;
    }
    let inner = raw.strip_prefix("**")?.strip_suffix("**")?.trim();
    if inner.contains("**") {
        return None;
    }
    let (major, rest) = inner.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[minor.len()..].trim_start_matches([':', '.', ')']);
    let named = after.starts_with(' ') && after.trim().len() >= 2;
    (major.parse() == Ok(number) && !minor.is_empty() && named).then(|| inner.to_string())
}

/// The first number in a heading (`Phase 3: Payments` → 3).
fn first_number(text: &str) -> Option<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::bold_step;

    #[test]
    fn only_numbered_bold_lines_of_the_section() {
        assert_eq!(
            bold_step("**1.2 Database Schema**", 1).as_deref(),
            Some("1.2 Database Schema")
        );
        assert_eq!(
            bold_step("**2.1: Pricing**", 2).as_deref(),
            Some("2.1: Pricing")
        );
        assert_eq!(bold_step("**2.1 Pricing**", 1), None);
        assert_eq!(bold_step("**Exit Criteria:**", 1), None);
        assert_eq!(bold_step("**1.2** and more text", 1), None);
        assert_eq!(bold_step("**1.5x faster**", 1), None);
    }
}
