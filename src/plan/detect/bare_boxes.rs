//! Boxes written without a list marker (`[x] Create the repository` on a
//! line of its own): each such line of a paragraph is a checklist item, as
//! `- [x] …` would be; the paragraph's other lines stay its text.

use super::Block;

/// The box a line opens with, and the text after it.
fn boxed(line: &str) -> Option<(bool, &str)> {
    let t = line.trim_start();
    let (ticked, rest) = if let Some(r) = t.strip_prefix("[ ]") {
        (false, r)
    } else {
        (
            true,
            t.strip_prefix("[x]").or_else(|| t.strip_prefix("[X]"))?,
        )
    };
    rest.starts_with(' ').then(|| (ticked, rest.trim()))
}

/// The blocks with boxed paragraph lines turned into items.
pub(super) fn items_from_bare_boxes(source: &str, blocks: Vec<Block>) -> Vec<Block> {
    super::outline::blocks_in_paragraphs(source, blocks, |line, span| {
        boxed(line).map(|(ticked, rest)| Block::Item {
            text: rest.to_string(),
            checked: Some(ticked),
            depth: 0,
            code: Vec::new(),
            span,
        })
    })
}
