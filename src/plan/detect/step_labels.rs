//! Step label lines in a section that names the plan's course (`##
//! Implementation Roadmap` over `Phase 0: Policy + Schema`, each on a line
//! of its own over a list) read as the steps' headings, byte for byte, in a
//! plan none of whose headings names a step.

use super::outline::into_heading;
use super::Block;

/// `Phase 0: Policy + Schema` on a line of its own over a list, two or
/// more, in a plan none of whose headings names a step (`## Implementation
/// Roadmap` holding them): each label is a step's heading, one level
/// below its section. Without them the plan's plain sections (`##
/// Principles`, `## Tooling Map`) were read as its steps.
pub(super) fn step_labels_over_lists(blocks: &[Block]) -> Option<Vec<Block>> {
    let is_step = |t: &str| {
        matches!(
            super::headings::parse_heading(t),
            Some(super::headings::Heading::Sprint(h)) if !h.name.is_empty()
        )
    };
    // Most plans name their steps in headings: one pass says so.
    if blocks
        .iter()
        .any(|b| matches!(b, Block::Heading { text, .. } if is_step(text)))
    {
        return None;
    }
    let mut level = 1u8;
    let mut section = None;
    let mut sections: Vec<Option<(usize, &str)>> = Vec::new();
    let mut labels: Vec<(usize, u8, String)> = Vec::new();
    for (i, pair) in blocks.windows(2).enumerate() {
        match pair {
            [Block::Heading { level: l, text, .. }, _] => {
                level = *l;
                section = Some((i, text.as_str()));
            }
            [Block::Paragraph { text, .. }, Block::Item { depth: 0, .. }] => {
                let t = text.trim();
                // `Phase 0: …` with a separator and a name, not a sentence.
                let named = t.contains([':', '—', '–'])
                    && !t.contains('\n')
                    && t.chars().count() <= 100
                    && !t.ends_with(['.', '。', '!', '?']);
                if named && is_step(t) {
                    labels.push((i, level.saturating_add(1).min(6), t.to_string()));
                    sections.push(section);
                }
            }
            _ => {}
        }
    }
    // All in one section that names the plan's course (`## Implementation
    // Roadmap`, `## Phases`): elsewhere such lines are notes on tickets or
    // rows a plan reads in other ways.
    let one = sections.first().copied().flatten();
    let course = one.is_some_and(|(_, heading)| {
        let lower = heading.to_lowercase();
        lower.contains("roadmap") || super::bold_items::names_an_order(heading)
    });
    if labels.len() < 2 || !course || sections.iter().any(|s| s.map(|x| x.0) != one.map(|x| x.0)) {
        return None;
    }
    let mut blocks = blocks.to_vec();
    for (i, level, text) in labels {
        into_heading(&mut blocks, i, level, text);
    }
    Some(blocks)
}
