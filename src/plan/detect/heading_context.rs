//! Corrections to each heading's reading that need the plan's other
//! headings: version headings that only name releases, and a step's
//! number in an aside (`Phase 2: Integration (Sprint 9)`) that restates a
//! step the plan heads itself (`### Sprint 9: Integration & Staging`).

use super::headings::{parse_heading_as, strip_lead, Heading, Word};
use super::Block;

/// `### Version 1.0.1 — Stabilisation` over a paragraph, its work in the
/// `## 1. …` sections after it: versions that only name releases, not
/// milestones of work. Version or release headings are milestones only
/// when every one holds its own list or table (`## Version 0.2` over its
/// features); otherwise none is.
pub(super) fn drop_empty_versions(blocks: &[Block], parsed: &mut [Option<Heading>]) {
    let versions: Vec<usize> = (0..blocks.len())
        .filter(|&i| {
            let (Some(Heading::Sprint(h)), Block::Heading { text, .. }) = (&parsed[i], &blocks[i])
            else {
                return false;
            };
            // Milestones only: most sprint headings are something else.
            if h.word != Word::Milestone {
                return false;
            }
            let lead = strip_lead(text).to_ascii_lowercase();
            lead.starts_with("version") || lead.starts_with("release")
        })
        .collect();
    let holds_work = |i: usize| {
        blocks[i + 1..]
            .iter()
            .take_while(|b| !matches!(b, Block::Heading { .. }))
            .any(|b| matches!(b, Block::Item { .. } | Block::Table { .. }))
    };
    if !versions.iter().all(|&i| holds_work(i)) {
        for i in versions {
            parsed[i] = None;
        }
    }
}

/// `### Phase 2: Integration (Sprint 9)` in a closing checklist, where the
/// plan also heads `### Sprint 9: Integration & Staging`: the aside refers
/// to that step, and the heading is read by its own word (a phase), not
/// as sprint 9 a second time.
pub(super) fn drop_restated_asides(blocks: &[Block], parsed: &mut [Option<Heading>]) {
    let text_of = |i: usize| match &blocks[i] {
        Block::Heading { text, .. } => Some(text.as_str()),
        _ => None,
    };
    let aside = |i: usize| text_of(i).is_some_and(|t| t.contains("(Sprint "));
    let own_ids: std::collections::HashSet<String> = (0..blocks.len())
        .filter_map(|i| match &parsed[i] {
            Some(Heading::Sprint(h)) if h.word == Word::Sprint => {
                if !aside(i) {
                    return Some(h.id.clone());
                }
                match parse_heading_as(text_of(i)?, false) {
                    Some(Heading::Sprint(own)) if own.word == Word::Sprint => Some(own.id),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    for i in (0..blocks.len()).filter(|&i| aside(i)) {
        let Some(Heading::Sprint(h)) = &parsed[i] else {
            continue;
        };
        let Some(text) = text_of(i) else { continue };
        let own = parse_heading_as(text, false);
        let restated = matches!(&own, Some(Heading::Sprint(o)) if o.word != Word::Sprint)
            && own_ids.contains(&h.id);
        if restated {
            parsed[i] = own;
        }
    }
}
