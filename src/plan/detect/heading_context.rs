//! Corrections to each heading's reading that need the plan's other
//! headings: version headings that only name releases, and a step's
//! number in an aside (`Phase 2: Integration (Sprint 9)`) that restates a
//! step the plan heads itself (`### Sprint 9: Integration & Staging`), and
//! a span heading over steps the plan heads one by one (`### ✅ Phase 1-10
//! all complete` after `### Phase 1` … `### Phase 10`).

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
    // Most plans have no such aside, and cost one look at each heading.
    if !(0..blocks.len()).any(aside) {
        return;
    }
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

/// `### ✅ Phase 1-10 all complete` after `### Phase 1` … `### Phase
/// 10`, or `## Phases 1-3: Overview` before them: a summary of steps the
/// plan heads one by one, not one more. Only a span of three or more,
/// every one headed elsewhere, or of two after both are headed and one
/// level below them under a heading that is no step, is so read: `###
/// Sprints 4-6: Medium priority` whose parts no heading names, `#### Woche
/// 4-6` beside a `Woche 4` alone, and `### Phase 1-2.` numbering a part of
/// phase 1 stay as they are.
pub(super) fn drop_summary_spans(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &mut [Option<Heading>],
) {
    let span_of = |id: &str| -> Option<(u32, u32)> {
        let (a, b) = id.split_once('-')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    // Most plans head no span, and cost one look at each id.
    let is_span =
        |h: &Option<Heading>| matches!(h, Some(Heading::Sprint(s)) if span_of(&s.id).is_some());
    if !parsed.iter().any(is_span) {
        return;
    }
    // Where each step word and number is first headed.
    let mut first: std::collections::HashMap<(Word, u32), usize> = Default::default();
    for (i, h) in parsed.iter().enumerate() {
        if let Some(Heading::Sprint(h)) = h {
            if let Ok(n) = h.id.parse::<u32>() {
                first.entry((h.word, n)).or_insert(i);
            }
        }
    }
    // `0-1`, `0-2`, `0-3`: parts of step 0 numbered with a dash, not spans.
    let mut opened: std::collections::HashMap<(Word, u32), usize> = Default::default();
    for h in parsed.iter().flatten() {
        if let Heading::Sprint(h) = h {
            if let Some((from, _)) = span_of(&h.id) {
                *opened.entry((h.word, from)).or_default() += 1;
            }
        }
    }
    let is_step: Vec<bool> = parsed
        .iter()
        .map(|h| matches!(h, Some(Heading::Sprint(_))))
        .collect();
    for (i, h) in parsed.iter_mut().enumerate() {
        let Some(Heading::Sprint(s)) = h else {
            continue;
        };
        let Some((from, to)) = span_of(&s.id) else {
            continue;
        };
        if opened.get(&(s.word, from)).is_some_and(|&n| n > 1) {
            continue;
        }
        // Headed before it (a summary) or after it (an overview of the
        // steps to come): either way no step of its own.
        // Two steps are summed up only after both are headed, one level
        // below them under a heading that is no step (`### Phase 5-6
        // 完成标准` under `## Acceptance Criteria`): `### Phase 1-2.` before
        // phase 2 is a part of phase 1, and `## Sprint 2-3 carry-over`
        // beside the sprints is work of its own.
        let level = |j: usize| match &blocks[j] {
            Block::Heading { level, .. } => *level,
            _ => 0,
        };
        let summary = to < from + 1000
            && if to >= from + 2 {
                (from..=to).all(|n| first.get(&(s.word, n)).is_some_and(|&at| at != i))
            } else {
                to == from + 1
                    && (from..=to).all(|n| {
                        first
                            .get(&(s.word, n))
                            .is_some_and(|&at| at < i && level(at) < level(i))
                    })
                    && parent[i].is_some_and(|p| !is_step[p] && sums_up(&blocks[p]))
            };
        if summary {
            *h = None;
        }
    }
}

/// Whether a heading holds what sums up steps: the plan's acceptance,
/// criteria or other words about the plan (`## 验收标准 / Acceptance
/// Criteria`), or finished work (`## 完了したタスク`). `## Hotfixes` holds
/// work of its own.
fn sums_up(block: &Block) -> bool {
    let Block::Heading { text, .. } = block else {
        return false;
    };
    let lower = text.to_lowercase();
    super::about_plan::describes_plan(text)
        || super::units::sections::is_done_group(text)
        || [
            "acceptance",
            "criteria",
            "验收",
            "标准",
            "完了",
            "受け入れ",
            "완료 기준",
        ]
        .iter()
        .any(|w| lower.contains(w))
}
