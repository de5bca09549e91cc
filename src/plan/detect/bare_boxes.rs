//! Boxes written without a list marker (`[x] Create the repository` on a
//! line of its own): each such line of a paragraph is a checklist item, as
//! `- [x] …` would be. A line of the paragraph after a boxed line that has
//! no box of its own is part of that item (its wrapped text).

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
    if !blocks.iter().any(
        |b| matches!(b, Block::Paragraph { text, .. } if text.lines().any(|l| boxed(l).is_some())),
    ) {
        return blocks;
    }
    let mut out = Vec::with_capacity(blocks.len() + 8);
    for b in blocks {
        let Block::Paragraph { span, .. } = &b else {
            out.push(b);
            continue;
        };
        let text = &source[span.clone()];
        if !text.lines().any(|l| boxed(l).is_some()) {
            out.push(b);
            continue;
        }
        let mut at = span.start;
        let mut prose: Option<(usize, usize)> = None;
        // Whether the last block out is this paragraph's item.
        let mut in_item = false;
        for line in text.split_inclusive('\n') {
            let (s, e) = (at, at + line.trim_end().len());
            at += line.len();
            if let Some((ticked, rest)) = boxed(line) {
                if let Some((ps, pe)) = prose.take() {
                    out.push(Block::Paragraph {
                        text: source[ps..pe].trim().to_string(),
                        span: ps..pe,
                    });
                }
                out.push(Block::Item {
                    text: rest.to_string(),
                    checked: Some(ticked),
                    depth: 0,
                    code: Vec::new(),
                    span: s..e,
                });
                in_item = true;
            } else if let Some(Block::Item { text, span, .. }) = out.last_mut().filter(|_| in_item)
            {
                // The item's text, wrapped onto the next line.
                if !line.trim().is_empty() {
                    text.push(' ');
                    text.push_str(line.trim());
                    span.end = e;
                }
            } else if !line.trim().is_empty() {
                prose = Some((prose.map_or(s, |p| p.0), e));
            }
        }
        if let Some((ps, pe)) = prose {
            out.push(Block::Paragraph {
                text: source[ps..pe].trim().to_string(),
                span: ps..pe,
            });
        }
    }
    out
}
