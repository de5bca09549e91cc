//! Group titles written as numbered list items: under `## Plan (phases)`,
//! `1) Foundations` then its own checklist, `2) Auth` then its own, … A
//! numbered item with no box and nothing nested, directly followed by a
//! checklist, titles that checklist; two or more such titles in a row,
//! numbered from one up, are the section's steps, so they become headings
//! one level below it, titled without their numbers (they count from one
//! as the sprints do).

use super::Block;

/// The blocks with numbered group titles turned into headings.
pub(super) fn promote_group_items(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    // Titles found in the current section: (block index, number, text).
    let mut section_level = 1u8;
    let mut pending: Vec<(usize, u32, String)> = Vec::new();
    let mut found: Vec<(usize, u8, String)> = Vec::new();
    let flush = |pending: &mut Vec<(usize, u32, String)>,
                 found: &mut Vec<(usize, u8, String)>,
                 level: u8| {
        let counted = pending
            .iter()
            .enumerate()
            .all(|(k, (_, n, _))| *n == k as u32 + 1);
        if pending.len() >= 2 && counted {
            found.extend(
                pending
                    .drain(..)
                    .map(|(i, _, text)| (i, (level + 1).min(6), text)),
            );
        }
        pending.clear();
    };
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level, .. } => {
                flush(&mut pending, &mut found, section_level);
                section_level = *level;
            }
            Block::Item {
                depth: 0,
                checked: None,
                span,
                ..
            } => {
                let titles_a_checklist = matches!(
                    blocks.get(i + 1),
                    Some(Block::Item {
                        depth: 0,
                        checked: Some(_),
                        ..
                    })
                );
                let title = titles_a_checklist
                    .then(|| group_title(&source[span.clone()]))
                    .flatten();
                match title {
                    Some((n, text)) => pending.push((i, n, text)),
                    None => flush(&mut pending, &mut found, section_level),
                }
            }
            _ => {}
        }
    }
    flush(&mut pending, &mut found, section_level);
    for (i, level, text) in found {
        super::outline::into_heading(&mut blocks, i, level, text);
    }
    blocks
}

/// `1) Foundations`, `2. **Auth and profiles**`: the number and the title
/// of a one-line numbered item that is a short title (not a sentence).
fn group_title(raw: &str) -> Option<(u32, String)> {
    let line = raw.trim();
    if line.contains('\n') {
        return None;
    }
    let digits: String = line.chars().take_while(char::is_ascii_digit).collect();
    let rest = line[digits.len()..].strip_prefix(['.', ')'])?;
    let title = rest.trim().trim_matches(['*', '_']).trim();
    let words = title.split_whitespace().count();
    let sentence = title.ends_with(['.', ':', ';', ',']) && !title.ends_with("..");
    (!digits.is_empty() && (1..=10).contains(&words) && !sentence)
        .then(|| Some((digits.parse().ok()?, title.to_string())))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::group_title;

    #[test]
    fn a_title_is_a_short_numbered_line() {
        assert_eq!(
            group_title("1) Fundaciones"),
            Some((1, "Fundaciones".into()))
        );
        assert_eq!(
            group_title("2. **Auth and profiles**"),
            Some((2, "Auth and profiles".into()))
        );
        assert_eq!(group_title("- Fundaciones"), None);
        assert_eq!(
            group_title("3. Run the migration against staging and check it."),
            None
        );
    }
}
