//! A section after the last of the plan's step headings, at their level,
//! written as they are but named without the step word (`## Rally (5/3)`
//! after `## Milestone 6 (4/21)`, each holding `##### To Do:`; `##
//! Documentation ✅ COMPLETE` after `## Phase 5`, each a checklist): the
//! series' next step, not a note. Without it the last step is dropped.
//! A section between two steps, written as they are and its boxes carrying
//! their task codes (`## Review 1.5 Hotfix` with `T-HF01` among phases of
//! `T001` …), is a step inserted there, `5.5a`; one named as kept aside
//! (`## Known Issues`, `## Deferred to v2`) is not.

use super::about_plan::describes_plan;
use super::headings::SprintHeading;
use super::*;

/// Mark the sections that close the series of step headings as its next
/// steps, numbered on from the last.
pub(super) fn extend_series(
    blocks: &[Block],
    parent: &[Option<usize>],
    section_end: &[usize],
    sprint_at: &mut [Option<SprintHeading>],
    set_aside: &[bool],
) {
    let series: Vec<usize> = (0..blocks.len())
        .filter(|&i| sprint_at[i].is_some())
        .collect();
    let [first, .., last] = series.as_slice() else {
        return;
    };
    let level = |i: usize| match &blocks[i] {
        Block::Heading { level, .. } => Some(*level),
        _ => None,
    };
    // One series: every step a sibling of the first, at its level.
    if series
        .iter()
        .any(|&i| parent[i] != parent[*first] || level(i) != level(*first))
    {
        return;
    }
    let shapes: Vec<Shape> = series
        .iter()
        .map(|&i| Shape::of(blocks, i, section_end[i]))
        .collect();
    // A section between two steps, written as they are (`## Review 1.5
    // Hotfix` with its boxed tasks between `## Phase 5.5` and `## Phase
    // 6`): a step inserted there, its id the one before it and a letter.
    let word = sprint_at[*last].as_ref().map(|h| h.word);
    let ids: Vec<String> = series
        .iter()
        .filter_map(|&i| sprint_at[i].as_ref().map(|h| h.id.to_ascii_lowercase()))
        .collect();
    // Only a section whose boxes carry the steps' task codes (`- [ ] T006
    // …` among steps of `T001` …): a `## Blockers` or `## Rollback plan`
    // with boxes is no step.
    let codes: Vec<String> = series
        .iter()
        .filter_map(|&i| task_code(blocks, i, section_end[i]))
        .collect();
    for pair in series
        .windows(2)
        .filter(|_| codes.len() * 2 >= series.len())
    {
        let [before, after] = [pair[0], pair[1]];
        let mut next = section_end[before];
        let mut letters = 'a'..='z';
        while next < after && level(next) == level(*first) && parent[next] == parent[*first] {
            if !written_as_steps(blocks, next, section_end, set_aside, &shapes)
                || !task_code(blocks, next, section_end[next]).is_some_and(|c| codes.contains(&c))
                || names_kept_aside(&blocks[next])
            {
                break;
            }
            let Some(id) = sprint_at[before]
                .as_ref()
                .zip(letters.next())
                .map(|(h, l)| format!("{}{l}", h.id))
            else {
                break;
            };
            if ids.contains(&id.to_ascii_lowercase()) || id.parse::<SprintId>().is_err() {
                break;
            }
            let Block::Heading { text, .. } = &blocks[next] else {
                break;
            };
            let (name, done) = strip_done_marks(text);
            sprint_at[next] = word.map(|word| SprintHeading {
                word,
                id,
                name: clean_name(&name).trim_end_matches([':', '：']).to_string(),
                done,
                bare: false,
            });
            next = section_end[next];
        }
    }
    let Some(mut number) = sprint_at[*last]
        .as_ref()
        .and_then(|h| h.id.parse::<u32>().ok())
    else {
        return;
    };
    let mut next = section_end[*last];
    while next < blocks.len() && parent[next] == parent[*first] && level(next) == level(*first) {
        if !written_as_steps(blocks, next, section_end, set_aside, &shapes) {
            break;
        }
        let Block::Heading { text, .. } = &blocks[next] else {
            break;
        };
        let (name, done) = strip_done_marks(text);
        number += 1;
        sprint_at[next] = word.map(|word| SprintHeading {
            word,
            id: number.to_string(),
            name: clean_name(&name).trim_end_matches([':', '：']).to_string(),
            done,
            bare: false,
        });
        next = section_end[next];
    }
}

/// Whether a section's name keeps its items aside from the work (`##
/// Known Issues`, `## Deferred to v2`, `## Removed Tasks`, `## Blocked
/// (waiting on vendor)`, `## Bugs found during Phase 2`): tracked, not
/// scheduled.
fn names_kept_aside(heading: &Block) -> bool {
    let Block::Heading { text, .. } = heading else {
        return false;
    };
    let lower = text.to_lowercase();
    // Notes, risks, questions and ideas are sections about the plan, and
    // deferrals put off (`written_as_steps`, `put_off`); these are the
    // names of tracked items besides. Stems at a word's start (`Blocked`).
    const STEMS: &[&str] = &[
        "issue", "remov", "block", "bug", "debt", "won't", "wont", "backlog", "cancel", "drop",
    ];
    super::status_words::put_off(&lower)
        || lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .any(|w| STEMS.iter().any(|s| w.starts_with(s)))
}

/// The letters of the code opening a section's first box (`T` of `- [x]
/// T005 Release tabs`), when it opens with one.
fn task_code(blocks: &[Block], heading: usize, end: usize) -> Option<String> {
    let text = blocks[heading + 1..end].iter().find_map(|b| match b {
        Block::Item {
            checked: Some(_),
            text,
            ..
        } => Some(text),
        _ => None,
    })?;
    let word = text
        .trim_start()
        .trim_start_matches('*')
        .split_whitespace()
        .next()?;
    // `T005`, and `T-HF01` of a hotfix among `T001` …: the same letter.
    let letters = word.chars().take_while(char::is_ascii_uppercase).count();
    let rest = word[letters..].trim_start_matches('-');
    let digits = rest.chars().filter(char::is_ascii_digit).count();
    let code = rest
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    (letters > 0 && letters <= 4 && digits >= 2 && code).then(|| word[..letters].to_string())
}

/// Whether the section headed at `next` is a step of the series with no
/// number: not a step heading, not about the plan or its criteria, and
/// written as every step of the series is.
fn written_as_steps(
    blocks: &[Block],
    next: usize,
    section_end: &[usize],
    set_aside: &[bool],
    shapes: &[Shape],
) -> bool {
    let Block::Heading { text, .. } = &blocks[next] else {
        return false;
    };
    // `## M2 remaining priorities`: a heading with a step word, or one
    // read as about a step, is read by the rules for those.
    // A first word with a number (`M2 remaining priorities`) names a
    // step by its code: not a step of no number.
    let coded = clean_name(text)
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains(|c: char| c.is_ascii_digit()));
    // `## Critérios de aprovação por fase`: the steps' criteria.
    let criteria = super::criteria::criteria_label(text).is_some();
    if describes_plan(text)
        || super::about_plan::names_after_the_plan(text)
        || criteria
        || coded
        || parse_heading(text).is_some()
        || set_aside[next]
    {
        return false;
    }
    let shape = Shape::of(blocks, next, section_end[next]);
    shapes.iter().all(|s| s.matches(&shape))
}

/// What a step's section is made of, as far as telling a step from a note.
struct Shape {
    /// The names of its subsections (`to do`, `done`).
    subsections: Vec<String>,
    /// It holds task-list boxes.
    boxes: bool,
    /// A `Due:` or `Status:` line opens it.
    dated: bool,
    /// A box of it names a step (`- [x] Phase 0: Foundation`): an index of
    /// the steps, not one more.
    restates: bool,
}

impl Shape {
    fn of(blocks: &[Block], heading: usize, end: usize) -> Shape {
        let mut shape = Shape {
            subsections: Vec::new(),
            boxes: false,
            dated: false,
            restates: false,
        };
        for (k, b) in blocks[heading + 1..end].iter().enumerate() {
            match b {
                Block::Heading { text, .. } => shape.subsections.push(
                    clean_name(text)
                        .to_lowercase()
                        .trim_matches(|c: char| !c.is_alphabetic())
                        .to_string(),
                ),
                Block::Item {
                    checked: Some(_),
                    text,
                    ..
                } => {
                    shape.boxes = true;
                    shape.restates |= matches!(
                        parse_heading(text.trim()),
                        Some(super::headings::Heading::Sprint(_))
                    );
                }
                Block::Paragraph { text, .. } if k == 0 => {
                    let l = text.trim_start_matches(['*', '_']).to_lowercase();
                    shape.dated = l.starts_with("due") || l.contains("| status");
                }
                _ => {}
            }
        }
        shape
    }

    /// Whether `other` is written as this step is: the same subsection
    /// names, or both checklists, or both opened by a date or status line.
    fn matches(&self, other: &Shape) -> bool {
        // `##### To Do:` under the last step, `To Do:` and `Done:` under
        // the others.
        let within = |a: &[String], b: &[String]| a.iter().all(|s| b.contains(s));
        let named = !self.subsections.is_empty()
            && !other.subsections.is_empty()
            && (within(&self.subsections, &other.subsections)
                || within(&other.subsections, &self.subsections));
        named || (self.boxes && other.boxes && !other.restates) || (self.dated && other.dated)
    }
}
