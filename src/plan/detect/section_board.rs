//! A board written as sections (a taskell or Kanban file: `## Backlog`,
//! `## In Progress`, `## Done`, each a list of cards): every top-level item
//! is a step, column by column, the items nested under it its tasks; a card
//! in a column of finished work is done, and so is a card whose own box is
//! ticked while none of its tasks is open. Columns that name no state
//! (`## Bugs`, `## Features`) hold open cards.
//!
//! Read only when the sections are columns and nothing else: two or more
//! named by a state, one of them finished work and one not, none holding a
//! heading or a table of its own. A `## Completed` section beside sections of work
//! is a group of finished work, which the checklist-group reader lifts.

use super::sprints::blank_sprint;
use super::*;

/// Where a step read from a board of sections comes from.
const CARD: &str = "a card of a board written as sections";

/// The cards of a board written as sections, when `scope` is one.
pub(super) fn board_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Option<Vec<RawSprint>> {
    let headings: Vec<usize> = scope.filter(|&i| doc.heading(i).is_some()).collect();
    let level = headings
        .iter()
        .filter_map(|&i| doc.heading(i).map(|(l, _, _)| l))
        .min()?;
    let columns: Vec<usize> = headings
        .iter()
        .copied()
        .filter(|&i| doc.heading(i).is_some_and(|(l, _, _)| l == level))
        .collect();
    // A lone top heading is the plan's title: the columns are below it.
    if columns.len() == 1 {
        return board_sprints(doc, columns[0] + 1..doc.section_end[columns[0]]);
    }
    let text = |i: usize| doc.heading(i).map_or("", |(_, t, _)| t);
    let done_column = |i: usize| super::units::sections::is_done_group(text(i));
    let states: Vec<usize> = columns
        .iter()
        .copied()
        .filter(|&i| super::units::sections::is_status_group(text(i)))
        .collect();
    // Columns hold cards: no heading of their own, and no table (a
    // `## Blocked` table of what waits for what is no column of cards).
    let flat = columns.iter().all(|&i| {
        doc.own_blocks(i).end >= doc.section_end[i]
            && !doc
                .own_blocks(i)
                .any(|j| matches!(doc.blocks[j], Block::Table { .. }))
    });
    if states.len() < 2
        || !states.iter().any(|&i| done_column(i))
        || states.iter().all(|&i| done_column(i))
        || !flat
    {
        return None;
    }
    let boxed = |c: usize| {
        doc.own_blocks(c).any(|j| {
            matches!(
                doc.blocks[j],
                Block::Item {
                    checked: Some(_),
                    depth: 0,
                    ..
                }
            )
        })
    };
    // Where the cards carry boxes (not only their tasks), a section
    // without one that names no state (`## 📝 Notes for Agents`) is notes
    // on the board, not a column.
    let carded = states.iter().any(|&c| boxed(c));
    let mut out: Vec<RawSprint> = Vec::new();
    for &c in &columns {
        if carded && !states.contains(&c) && !boxed(c) {
            continue;
        }
        let finished = done_column(c);
        let blocks: Vec<usize> = doc.own_blocks(c).collect();
        // A column written as lines, no list in it (`# In progress` over a
        // bare link): each line is a card.
        if !blocks
            .iter()
            .any(|&j| matches!(doc.blocks[j], Block::Item { .. }))
        {
            for &j in &blocks {
                let Block::Paragraph { span, .. } = &doc.blocks[j] else {
                    continue;
                };
                let mut at = span.start;
                for line in doc.source[span.clone()].split_inclusive('\n') {
                    let card = line.trim();
                    let line_span = at..at + line.trim_end().len();
                    at += line.len();
                    if card.is_empty() {
                        continue;
                    }
                    let id = SprintId::whole(out.len() as u32 + 1);
                    let mut sprint = blank_sprint(id.clone(), card, card.to_string());
                    sprint.done = finished.then(|| {
                        format!(
                            "marked complete in the plan (a card in `{}`)",
                            clean_name(text(c))
                        )
                    });
                    sprint.origin = Origin::new(doc.line(line_span.start), CARD);
                    out.push(RawSprint {
                        id,
                        span: line_span,
                        sprint,
                    });
                }
            }
            continue;
        }
        for (k, &j) in blocks.iter().enumerate() {
            let Block::Item {
                text: card,
                checked,
                depth: 0,
                span,
                ..
            } = &doc.blocks[j]
            else {
                continue;
            };
            let inner: Vec<usize> = blocks[k + 1..]
                .iter()
                .copied()
                .take_while(|&x| !matches!(doc.blocks[x], Block::Item { depth: 0, .. }))
                .collect();
            let end = inner.last().map_or(span.end, |&x| doc.blocks[x].span().end);
            let id = SprintId::whole(out.len() as u32 + 1);
            // The card's title is its first line; what follows (a `>`
            // note) is its description.
            let first = doc.source[span.clone()].lines().next().unwrap_or_default();
            let title = super::outline::item_label(first);
            // A card named in bold before its description (`**Testing**:
            // Write unit tests …`) is named by the bold words.
            let bold = title
                .strip_prefix("**")
                .and_then(|t| t.split_once("**"))
                .filter(|(name, after)| after.starts_with(':') || name.ends_with(':'))
                .map(|(name, _)| name.trim().trim_end_matches(':').trim().to_string())
                .filter(|name| !name.is_empty());
            let name = if let Some(bold) = bold {
                bold
            } else if card.starts_with(title.trim()) {
                title.trim().replace("~~", "")
            } else {
                card.replace("~~", "")
            };
            let mut sprint =
                blank_sprint(id.clone(), &name, doc.source[span.start..end].to_string());
            let mut open_task = false;
            for &x in &inner {
                if let Block::Item {
                    text: task,
                    checked,
                    ..
                } = &doc.blocks[x]
                {
                    sprint.tasks.push(clean_name(task));
                    open_task |= *checked == Some(false);
                }
            }
            let ticked = *checked == Some(true) && !open_task;
            sprint.done = (finished || ticked).then(|| {
                format!(
                    "marked complete in the plan ({})",
                    if finished {
                        format!("a card in `{}`", clean_name(text(c)))
                    } else {
                        "its own box ticked".to_string()
                    }
                )
            });
            sprint.origin = Origin::new(doc.line(span.start), CARD);
            out.push(RawSprint {
                id,
                span: span.start..end,
                sprint,
            });
        }
    }
    (out.len() >= 2).then_some(out)
}
