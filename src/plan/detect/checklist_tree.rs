//! The last reading before a refusal, beside numbered bold items: a
//! checklist tree. Top-level checklist items, two or more in one section
//! and most holding checklist items of their own (`- [ ] **Design**` over
//! `- [x] write design.md`), are the section's steps; the nested items are
//! their tasks. Each top-level item becomes a heading one level below its
//! section, its box kept at the end (`Design [ ]`), so the checklist-group
//! reader reads it as a work item with or without tasks. A step is done
//! where its box is ticked or all its tasks are, never with one open.
//!
//! After that last reading, in a pass of its own: the plan's first run of
//! three or more top-level boxed items (a `# Checklist` build log, nested
//! items or not) is its steps, each promoted the same way.

use super::Block;

/// Top-level items of checklist trees as headings, where a section holds
/// such a tree.
pub(super) fn promote_checklist_tree(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let mut level = 1u8;
    // Per section: (block index, heading text) of its top-level boxed items,
    // and how many of them hold boxed items of their own.
    let mut section: Vec<(usize, String)> = Vec::new();
    let mut holding = 0;
    let mut found: Vec<(usize, u8, String)> = Vec::new();
    let flush = |section: &mut Vec<(usize, String)>,
                 holding: &mut usize,
                 found: &mut Vec<(usize, u8, String)>,
                 level: u8| {
        if section.len() >= 2 && *holding * 2 >= section.len() {
            found.extend(section.drain(..).map(|(i, t)| (i, (level + 1).min(6), t)));
        }
        section.clear();
        *holding = 0;
    };
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Heading { level: l, .. } => {
                flush(&mut section, &mut holding, &mut found, level);
                level = *l;
            }
            Block::Item {
                depth: 0,
                checked: Some(ticked),
                ..
            } => {
                let Some(name) = item_name(source, b) else {
                    continue;
                };
                // `Setup @DONE`: a done word on the item is its tick.
                let (name, marked) = super::completion::strip_done_marks(&name);
                let mark = if *ticked || marked { "[x]" } else { "[ ]" };
                section.push((i, format!("{} {mark}", name.trim())));
                let nested_box = blocks[i + 1..]
                    .iter()
                    .take_while(|b| matches!(b, Block::Item { depth, .. } if *depth > 0))
                    .any(|b| {
                        matches!(
                            b,
                            Block::Item {
                                checked: Some(_),
                                ..
                            }
                        )
                    });
                holding += usize::from(nested_box);
            }
            _ => {}
        }
    }
    flush(&mut section, &mut holding, &mut found, level);
    for (i, level, text) in found {
        super::outline::into_heading(&mut blocks, i, level, text);
    }
    blocks
}

/// The very last reading but one, for a plan refused with every other: its
/// first checklist (three or more top-level boxed items in one section, a
/// `# Checklist` build log) is its steps, each item a heading one level
/// below its section, its box kept.
pub(super) fn promote_flat_checklist(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let mut level = 1u8;
    let mut run: Vec<(usize, String)> = Vec::new();
    let mut chosen: Option<(u8, Vec<(usize, String)>)> = None;
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Heading { level: l, .. } => {
                if run.len() >= 3 {
                    chosen = Some((level, std::mem::take(&mut run)));
                    break;
                }
                run.clear();
                level = *l;
            }
            Block::Item {
                depth: 0,
                checked: Some(ticked),
                ..
            } => {
                let Some(name) = item_name(source, b) else {
                    continue;
                };
                let mark = if *ticked { "[x]" } else { "[ ]" };
                run.push((i, format!("{} {mark}", name.trim())));
            }
            _ => {}
        }
    }
    let chosen = chosen.or_else(|| (run.len() >= 3).then_some((level, run)));
    if let Some((level, items)) = chosen {
        for (i, text) in items {
            super::outline::into_heading(&mut blocks, i, (level + 1).min(6), text);
        }
    }
    blocks
}

/// A checklist item's name: its first line without the marker, the box and
/// bold marks; for a box drawn on a paragraph line (no list marker), the
/// item's text.
fn item_name(source: &str, item: &Block) -> Option<String> {
    let Block::Item { text, span, .. } = item else {
        return None;
    };
    let first = source[span.clone()].lines().next().unwrap_or_default();
    let name = if first.trim_start().starts_with(['-', '*', '+']) {
        super::outline::item_label(first).trim().replace("**", "")
    } else {
        text.trim().to_string()
    };
    // `(2026-05-06 10:00Z) Agreed the design`: an ExecPlan's timestamp
    // says when, the words after it name the step.
    let name = match name.trim_start().strip_prefix('(') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest
            .split_once(')')
            .map_or(name.clone(), |(_, after)| after.trim().to_string()),
        _ => name,
    };
    (!name.trim().is_empty()).then_some(name)
}
