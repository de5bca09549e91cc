//! Bold labels Markdown took into the list item above them. A label line
//! written at the margin right under an item (`4. Parsers collapsed` /
//! `**Plans**: 15 plans`) is, to Markdown, more of that item's text; to its
//! author it opens a part of its own, as it would after a blank line. Such
//! a line naming criteria or work becomes a paragraph of its own after the
//! item, so the label ends the criteria before it (`**Success Criteria**:`
//! … `**Plans**:` over the step's own checklist) wherever labels are read;
//! a note's label (`**Blocked by**:`) stays with what it annotates.

use super::criteria::label_line;
use super::Block;

/// The blocks with each item's label lines at the margin cut out of it,
/// each a paragraph after the item.
pub(super) fn split_lazy_labels(source: &str, blocks: Vec<Block>) -> Vec<Block> {
    // Bold lines at the margin inside an item's own lines (before the
    // items nested in it): most items are one line, and cost a look at it.
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        let Block::Item { span, .. } = b else {
            continue;
        };
        let end = blocks
            .get(k + 1)
            .map_or(span.end, |n| n.span().start.min(span.end));
        let own = source[span.start..end.max(span.start)]
            .trim_end()
            .as_bytes();
        if !own.contains(&b'\n') {
            continue;
        }
        let Some(p) = own.windows(3).position(|w| w == b"\n**") else {
            continue;
        };
        let at = span.start + p + 1;
        let line = source[at..span.end].split('\n').next().unwrap_or_default();
        // Only a label of criteria or of work (`**Plans**:`, `**Tasks**:`)
        // opens a part: a note's label (`**Blocked by**:`, `**Why:**`,
        // `**Risks**:`) stays with what it annotates.
        if line.starts_with("**") && label_line(&line.replace("**", "")).is_some() {
            found.push((k, at));
        }
    }
    if found.is_empty() {
        return blocks;
    }
    let mut out = Vec::with_capacity(blocks.len() + found.len());
    let mut next = found.into_iter().peekable();
    for (k, mut block) in blocks.into_iter().enumerate() {
        let Some((_, at)) = next.next_if(|&(f, _)| f == k) else {
            out.push(block);
            continue;
        };
        let Block::Item { text, span, .. } = &mut block else {
            out.push(block);
            continue;
        };
        let end = span.end;
        let lazy = &source[at..end];
        // Only the label's own lines: nested items after it stay the item's.
        let own_end = lazy
            .split_inclusive('\n')
            .take_while(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t']))
            .map(str::len)
            .sum::<usize>();
        let paragraph_end = at + lazy[..own_end].trim_end().len();
        let paragraph = source[at..paragraph_end].replace("**", "");
        // The label's lines as the item's text holds them (stars gone,
        // lines joined with a space) end it; written otherwise (a link, a
        // code span), the item is left whole.
        let joined = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(cut) = text
            .trim_end()
            .strip_suffix(joined.as_str())
            .map(str::len)
            .filter(|&c| c > 0)
        else {
            out.push(block);
            continue;
        };
        text.truncate(cut);
        let kept = text.trim_end().len();
        text.truncate(kept);
        if source[paragraph_end..end].trim().is_empty() {
            span.end = at;
        }
        out.push(block);
        out.push(Block::Paragraph {
            text: paragraph,
            span: at..paragraph_end,
        });
    }
    out
}
