//! The very last reading before a refusal: a plan of plain sections (a
//! runbook's `Pre-install`, `Prepare data`, `Import`), none named by a step
//! word or a number, read as its steps in order. The sections are those one
//! level below the plan's title (or the top level where there is none),
//! each with text of its own and none about the plan; two at least. Each is
//! numbered by its place, so the numbered-heading reader reads it and says
//! it guessed.

use super::Block;

/// The blocks with each section of the plan's step level numbered by its
/// place (`Pre-install` → `1. Pre-install`).
pub(super) fn number_sections(mut blocks: Vec<Block>) -> Vec<Block> {
    let levels: Vec<u8> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, .. } => Some(*level),
            _ => None,
        })
        .collect();
    let Some(&top) = levels.iter().min() else {
        return blocks;
    };
    let titled = levels.iter().filter(|&&l| l == top).count() == 1;
    let level = if titled { top + 1 } else { top };
    // The numbered-heading reader takes no title-level heading.
    if level < 2 {
        return blocks;
    }
    let steps: Vec<usize> = (0..blocks.len())
        .filter(|&i| match &blocks[i] {
            Block::Heading { level: l, text, .. } => {
                let own = blocks[i + 1..]
                    .iter()
                    .take_while(|b| !matches!(b, Block::Heading { .. }))
                    .next()
                    .is_some();
                *l == level && own && !super::about_plan::describes_plan(text)
            }
            _ => false,
        })
        .collect();
    if steps.len() < 2 {
        return blocks;
    }
    for (k, i) in steps.into_iter().enumerate() {
        if let Block::Heading { text, .. } = &mut blocks[i] {
            *text = format!("{}. {text}", k + 1);
        }
    }
    blocks
}
