//! Checklists written without boxes. Boxes written without a list marker
//! (`[x] Create the repository` on a line of its own, or drawn:
//! `:ballot_box_with_check:Order the PCB`, `☐ Debug`): each such line of a
//! paragraph is a checklist item, as `- [x] …` would be; the paragraph's
//! other lines stay its text. And lists that strike out what is finished
//! (`* ~~Units belong to a team~~`) or lead it with a check glyph (`- √
//! basic i/o`): a marked item is a ticked one, its unmarked siblings open
//! ones.

use std::collections::BTreeSet;

use super::Block;

/// Boxes drawn as emoji shortcodes or box glyphs (`:ballot_box_with_check:`,
/// `☐`), ticked or not; the text may follow with no space.
const DRAWN_BOXES: &[(&str, bool)] = &[
    (":ballot_box_with_check:", true),
    (":white_check_mark:", true),
    (":heavy_check_mark:", true),
    (":black_square_button:", false),
    (":white_square_button:", false),
    (":white_large_square:", false),
    ("☑", true),
    ("☒", true),
    ("☐", false),
    ("⬜", false),
    ("🔲", false),
];

/// Whether `code` is a box drawn as a shortcode (`:white_check_mark:`).
pub(super) fn drawn_box(code: &str) -> bool {
    DRAWN_BOXES.iter().any(|(b, _)| *b == code)
}

/// The box a line opens with, and the text after it.
fn boxed(line: &str) -> Option<(bool, &str)> {
    let t = line.trim_start();
    if let Some((rest, ticked)) = DRAWN_BOXES
        .iter()
        .find_map(|(b, ticked)| t.strip_prefix(b).map(|r| (r, *ticked)))
    {
        // A line ending in `\` breaks the line, no more.
        let rest = rest.trim().trim_end_matches('\\').trim();
        return (!rest.is_empty()).then_some((ticked, rest));
    }
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
    let blocks = items_from_check_paragraphs(source, blocks);
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

/// A plan that draws its open boxes on lines of their own (`⬜ Audit`)
/// draws its ticked ones with a check (`✅ Repository created`): a
/// paragraph of two or more lines each led by one or the other is a
/// checklist, each line an item.
fn items_from_check_paragraphs(source: &str, blocks: Vec<Block>) -> Vec<Block> {
    let draws_open = !source.is_ascii()
        && source.contains('⬜')
        && source
            .lines()
            .any(|l| l.trim_start().starts_with('⬜') && matches!(boxed(l), Some((false, _))));
    if !draws_open {
        return blocks;
    }
    // A section with plain items holds its work there: checks beside them
    // report results or prerequisites (`✅ 412/412 tests pass`), no boxes.
    let mut plain_items = vec![false; blocks.len()];
    let mut start = 0;
    for end in 0..=blocks.len() {
        if end < blocks.len() && !matches!(blocks[end], Block::Heading { .. }) {
            continue;
        }
        let plain = blocks[start..end]
            .iter()
            .any(|b| matches!(b, Block::Item { checked: None, .. }));
        plain_items[start..end].fill(plain);
        start = end + 1;
    }
    let mut out = Vec::with_capacity(blocks.len());
    for (i, b) in blocks.into_iter().enumerate() {
        let Block::Paragraph { span, .. } = &b else {
            out.push(b);
            continue;
        };
        let text = &source[span.clone()];
        let checklist = !plain_items[i]
            && text.lines().count() >= 2
            && text.lines().any(|l| checked_line(l).is_some())
            && text
                .lines()
                .all(|l| boxed(l).is_some() || checked_line(l).is_some());
        if !checklist {
            out.push(b);
            continue;
        }
        let mut at = span.start;
        for line in text.split_inclusive('\n') {
            let line_span = at..at + line.trim_end().len();
            at += line.len();
            let Some((ticked, rest)) =
                boxed(line).or_else(|| checked_line(line).map(|r| (true, r)))
            else {
                continue;
            };
            out.push(Block::Item {
                text: rest.to_string(),
                checked: Some(ticked),
                depth: 0,
                code: Vec::new(),
                span: line_span,
            });
        }
    }
    out
}

/// The text after the check leading a line (`✅ Repository created`).
fn checked_line(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('✅')?;
    let rest = rest.trim_start_matches('\u{fe0f}').trim();
    (!rest.is_empty()).then_some(rest)
}

/// Boxes ticked with the letter v (`- [v] Login controller`), as plans in
/// Korean and other languages tick by hand: ticked items. Not where other
/// letters tag the items (`[B] backend`, `[V] visual`) or a legend gives
/// `[v]` a meaning of its own.
pub(super) fn tick_letter_boxes(source: &str, blocks: &mut [Block]) {
    let ticked = |text: &str| text.starts_with("[v] ") || text.starts_with("[V] ");
    let any = blocks
        .iter()
        .any(|b| matches!(b, Block::Item { text, checked: None, .. } if ticked(text)));
    if !any {
        return;
    }
    let b = source.as_bytes();
    let tagged = source.match_indices('[').any(|(i, _)| {
        b.get(i + 2) == Some(&b']')
            && b.get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() && !b"xXvV".contains(c))
    });
    let named = source.lines().any(|l| {
        let t = l.trim_start();
        (l.contains("[v]") || l.contains("[V]"))
            && !t.starts_with(['-', '*', '+'])
            && !t.starts_with(|c: char| c.is_ascii_digit())
    });
    if tagged || named {
        return;
    }
    for block in blocks {
        if let Block::Item { text, checked, .. } = block {
            if checked.is_none() && ticked(text) {
                *checked = Some(true);
                text.drain(..4);
            }
        }
    }
}

/// Whether an item is marked finished without a box: its whole text struck
/// out (`~~Network~~`, `~~Fix click~~ (done)`), or led by a check glyph
/// (`√ basic i/o`, `✓ mob generation`).
fn struck(text: &str, done_marks: &[String]) -> bool {
    let t = text.trim();
    if t.starts_with(['√', '✓', '✔']) {
        return t.chars().skip(1).any(char::is_alphanumeric);
    }
    // A symbol the plan's own legend says means done (`✅ (done)`).
    if let Some(rest) = done_marks.iter().find_map(|m| t.strip_prefix(m.as_str())) {
        return rest.chars().any(char::is_alphanumeric);
    }
    t.strip_prefix("~~")
        .and_then(|r| r.split_once("~~"))
        .is_some_and(|(inside, after)| {
            !inside.trim().is_empty() && (after.trim().is_empty() || after.trim().starts_with('('))
        })
}

/// The blocks with each list that strikes out some of its items (and has
/// no box) read as a checklist: struck items ticked, the others at their
/// depth open. Only where some list strikes out part of its items, or some
/// item is led by a check glyph: that is a plan marking progress item by
/// item, where a list struck out whole (a `## Completed` log beside
/// numbered open work) may be no more than a log.
///
/// With a legend in a sentence (`✅ (done), ⬜ (not done)`), items led by
/// one of its symbols mark progress the same way: a done symbol ticks its
/// item, an open one leaves it open.
pub(super) fn items_from_struck_lists(
    mut blocks: Vec<Block>,
    legend: Option<&(Vec<String>, Vec<String>)>,
) -> Vec<Block> {
    // Steps marked on their headings (`## Step 2: Export ⬜`) are marked
    // there: the legend is theirs, and items led by its symbols (`- ✅ CSV
    // export`, what the step will give) stay what they are.
    let symbols = |t: &str| {
        legend.is_some_and(|(done, open)| done.iter().chain(open).any(|m| t.contains(m.as_str())))
    };
    let headed = blocks
        .iter()
        .any(|b| matches!(b, Block::Heading { text, .. } if symbols(text)));
    let legend = legend.filter(|_| !headed);
    let done_marks: &[String] = legend.map_or(&[], |(done, _)| done.as_slice());
    let struck = |t: &str| struck(t, done_marks);
    let led_by_legend = |t: &str| {
        legend.is_some_and(|(done, open)| {
            let t = t.trim_start();
            done.iter().chain(open).any(|m| t.starts_with(m.as_str()))
        })
    };
    let mut runs = Vec::new();
    let mut start = 0;
    while start < blocks.len() {
        let end = (start..blocks.len())
            .find(|&j| !matches!(blocks[j], Block::Item { .. }))
            .unwrap_or(blocks.len());
        runs.push(start..end);
        start = end + 1;
    }
    let partly_struck = runs.iter().any(|run| {
        let texts = || {
            blocks[run.clone()].iter().filter_map(|b| match b {
                Block::Item {
                    text,
                    checked: None,
                    ..
                } => Some(text),
                _ => None,
            })
        };
        texts().any(|t| struck(t)) && texts().any(|t| !struck(t))
    });
    // A check glyph marks finished work wherever it stands.
    let glyphs = blocks.iter().any(|b| {
        matches!(b, Block::Item { text, checked: None, .. }
            if text.trim_start().starts_with(['√', '✓', '✔']))
    });
    let legend_led = blocks
        .iter()
        .any(|b| matches!(b, Block::Item { text, checked: None, .. } if led_by_legend(text)));
    if !partly_struck && !glyphs && !legend_led {
        return blocks;
    }
    // Read by a legend alone, only the lists its symbols lead are marked.
    let legend_only = !partly_struck && !glyphs;
    for run in runs {
        let items = || {
            blocks[run.clone()].iter().filter_map(|b| match b {
                Block::Item {
                    text,
                    checked,
                    depth,
                    ..
                } => Some((text, *checked, *depth)),
                _ => None,
            })
        };
        if items().any(|(_, checked, _)| checked.is_some()) {
            continue;
        }
        if legend_only && !items().any(|(t, _, _)| led_by_legend(t)) {
            continue;
        }
        // Every depth that strikes an item is a checklist (a tree struck
        // item by item); a depth that strikes none stays plain notes. A
        // list that strikes nothing yet (`0.4 Release` not begun) is open
        // work at its top level: read as notes, its section was dropped
        // beside the sections with marks.
        let mut depths: BTreeSet<usize> = items()
            .filter(|(t, _, _)| struck(t))
            .map(|(_, _, d)| d)
            .collect();
        if depths.is_empty() {
            depths.insert(0);
        }
        for b in &mut blocks[run] {
            if let Block::Item {
                text,
                checked,
                depth,
                ..
            } = b
            {
                if depths.contains(depth) {
                    *checked = Some(struck(text));
                }
            }
        }
    }
    blocks
}
