//! The plan's outline as the readers see it: its blocks, each heading's
//! section and parent, the sprint headings of the plan's sprint word, and
//! line numbers.

use super::*;

pub(super) struct Doc<'a> {
    pub(super) source: &'a str,
    pub(super) blocks: Vec<Block>,
    /// For each block index that is a heading: one past the last block of its
    /// section (the next heading of the same or a higher level).
    pub(super) section_end: Vec<usize>,
    /// For each heading: the nearest enclosing heading.
    pub(super) parent: Vec<Option<usize>>,
    /// Sprint headings of the plan's sprint word, by block index.
    pub(super) sprint_at: Vec<Option<SprintHeading>>,
    /// Headings about a sprint (`Sprint 1 Success`), by block index.
    pub(super) about_at: Vec<Option<(String, About)>>,
    /// Headings that restate a sprint written elsewhere (the same id at
    /// another level), with the id they restate, lower-cased.
    pub(super) restating: Vec<(String, usize)>,
    /// The word the plan uses for its sprints, if it uses one.
    pub(super) word: Option<Word>,
    /// Every word's headings, for diagnostics ("Sortie headings were seen").
    pub(super) seen: BTreeMap<Word, usize>,
    /// Byte offset of each line start, for 1-based line numbers.
    pub(super) line_starts: Vec<usize>,
}

impl<'a> Doc<'a> {
    pub(super) fn new(source: &'a str, blocks: Vec<Block>) -> Self {
        let mut section_end = vec![blocks.len(); blocks.len()];
        // A stack of open headings gives every section's end in one pass.
        let mut open: Vec<(usize, u8)> = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            if let Block::Heading { level, .. } = b {
                while let Some(&(j, l)) = open.last() {
                    if l >= *level {
                        section_end[j] = i;
                        open.pop();
                    } else {
                        break;
                    }
                }
                open.push((i, *level));
            }
        }
        let mut parent = vec![None; blocks.len()];
        let mut open: Vec<(usize, u8)> = Vec::new();
        let mut parsed: Vec<Option<Heading>> = vec![None; blocks.len()];
        for (i, b) in blocks.iter().enumerate() {
            if let Block::Heading { level, text, .. } = b {
                while open.last().is_some_and(|&(_, l)| l >= *level) {
                    open.pop();
                }
                parent[i] = open.last().map(|&(j, _)| j);
                open.push((i, *level));
                parsed[i] = parse_heading(text);
            }
        }
        heading_context::drop_empty_versions(&blocks, &mut parsed);
        heading_context::drop_restated_asides(&blocks, &mut parsed);
        heading_context::drop_summary_spans(&blocks, &parent, &mut parsed);
        let mut seen: BTreeMap<Word, usize> = BTreeMap::new();
        for h in parsed.iter().flatten() {
            if let Heading::Sprint(h) = h {
                if !is_task_group_id(h.word, &h.id) {
                    *seen.entry(h.word).or_default() += 1;
                }
            }
        }
        let mut word = sprint_word::choose_word(&blocks, &parent, &parsed, &seen);
        let coded = word.and_then(|w| sprint_word::coded_series(&blocks, &parent, &parsed, w));
        let mut sprint_at = vec![None; blocks.len()];
        let mut about_at = vec![None; blocks.len()];
        for (i, h) in parsed.into_iter().enumerate() {
            match h {
                // `~~Phase 0: Alignment~~ ✂️ SKIPPED`: work the plan dropped
                // is about that phase, not work to dispatch.
                Some(Heading::Sprint(h))
                    if Some(h.word) == word
                        && matches!(&blocks[i], Block::Heading { text, .. } if super::dropped::dropped(text)) =>
                {
                    about_at[i] = Some((h.id, About::Notes))
                }
                Some(Heading::Sprint(h))
                    if Some(h.word) == word && !is_task_group_id(h.word, &h.id) =>
                {
                    sprint_at[i] = Some(h)
                }
                Some(Heading::About { word: w, id, about }) if Some(w) == word => {
                    about_at[i] = Some((id, about))
                }
                _ => {}
            }
        }
        if let Some(series) = coded {
            sprint_at.fill(None);
            about_at.fill(None);
            for (i, n) in series {
                if let Block::Heading { text, .. } = &blocks[i] {
                    let (name, done) = strip_done_marks(text);
                    sprint_at[i] = Some(SprintHeading {
                        word: Word::Task,
                        id: n.to_string(),
                        name: clean_name(&name),
                        done,
                        bare: false,
                    });
                }
            }
            word = Some(Word::Task);
        }
        let restating = restated::demote_restated(&blocks, &parent, &mut sprint_at, &mut about_at);
        restated::demote_tracking_repeats(
            &blocks,
            &parent,
            &section_end,
            &mut sprint_at,
            &mut about_at,
        );
        left_out(
            &blocks,
            &section_end,
            &parent,
            &mut sprint_at,
            &mut about_at,
        );
        let set_aside: Vec<bool> = about_at.iter().map(Option::is_some).collect();
        series_tail::extend_series(&blocks, &parent, &section_end, &mut sprint_at, &set_aside);
        // No numbered sprint headings: the subsections of a `## Milestones`
        // heading are the sprints, numbered in order.
        if word.is_none() {
            for i in 0..blocks.len() {
                let Block::Heading { text, .. } = &blocks[i] else {
                    continue;
                };
                let Some(w) = plural_word(text) else { continue };
                // Sections about the plan (`## 概览`, `## Future`) are not
                // its milestones.
                let children: Vec<usize> = (i + 1..section_end[i])
                    .filter(|&j| parent[j] == Some(i))
                    .filter(|&j| match &blocks[j] {
                        Block::Heading { text, .. } => !about_plan::describes_plan(text),
                        _ => true,
                    })
                    .collect();
                if children.len() < 2 {
                    continue;
                }
                // A table of the steps under the heading (`| # | Status |
                // Stage |`): its rows are the sprints, and the subsections
                // are notes about them.
                let first_child = children[0];
                let tabled = blocks[i + 1..first_child].iter().any(|b| {
                    matches!(b, Block::Table { header, rows, .. }
                        if rows.len() >= 2 && sprints::is_sprint_table(header, rows))
                });
                if tabled {
                    continue;
                }
                for (k, &j) in children.iter().enumerate() {
                    if let Block::Heading { text, .. } = &blocks[j] {
                        let (name, done) = strip_done_marks(text);
                        sprint_at[j] = Some(SprintHeading {
                            word: w,
                            id: (k + 1).to_string(),
                            name: clean_name(&name.replace('`', "")),
                            done,
                            bare: false,
                        });
                    }
                }
                word = Some(w);
                break;
            }
        }
        // Still none: `## Phase: Compatibility Fix`, `## Phase: MVP` — a
        // sprint word and a colon, no number — at one level, at least two,
        // are the sprints, numbered in order.
        if word.is_none() {
            let named: Vec<(usize, u8, Word, String, bool)> = blocks
                .iter()
                .enumerate()
                .filter_map(|(i, b)| {
                    let Block::Heading { level, text, .. } = b else {
                        return None;
                    };
                    let (w, name, done) = headings::unnumbered(text)?;
                    Some((i, *level, w, name, done))
                })
                .collect();
            if let Some(&(_, level, w, _, _)) = named.first() {
                let same: Vec<&(usize, u8, Word, String, bool)> = named
                    .iter()
                    .filter(|(_, l, nw, _, _)| *l == level && *nw == w)
                    .collect();
                if same.len() >= 2 {
                    for (k, (i, _, _, name, done)) in same.into_iter().enumerate() {
                        sprint_at[*i] = Some(SprintHeading {
                            word: w,
                            id: (k + 1).to_string(),
                            name: clean_name(name),
                            done: *done,
                            bare: false,
                        });
                    }
                    word = Some(w);
                }
            }
        }
        // A step heading inside one with its own id (`### Phase 2-1 종료
        // 조건` under `## Phase 2-1 …`) is about that step, not a step of
        // its own: otherwise the step would be read as a container of it.
        // Ids compare as numbers where they are (`Sprint 04` is `Sprint 4`).
        let same_id = |a: &str, b: &str| {
            a.eq_ignore_ascii_case(b)
                || a.parse::<crate::plan::SprintId>()
                    .is_ok_and(|a| b.parse::<crate::plan::SprintId>() == Ok(a))
        };
        for i in 0..blocks.len() {
            let Some(id) = sprint_at[i].as_ref().map(|h| h.id.as_str()) else {
                continue;
            };
            let inside: Vec<usize> = (i + 1..section_end[i])
                .filter(|&j| sprint_at[j].as_ref().is_some_and(|h| same_id(&h.id, id)))
                .collect();
            for j in inside {
                let h = sprint_at[j].take().expect("checked");
                about_at[j] = Some((h.id, About::Notes));
            }
        }
        // A sprint heading holding sprint headings of the same word (`Phase
        // A` holding `Phase A0`…) is a container: its leaves are the sprints.
        // One with task lines of its own before its first inner sprint
        // stays a sprint too: its own work is not dropped. So does one
        // marked done with lines under a sub-heading of its own (`## ✅
        // Phase 4 (Complete)` over `### Delivered` and `### Phase 4.1`):
        // read so, it is never dispatched, and its done mark is kept.
        let mut next_sprint = blocks.len();
        for i in (0..blocks.len()).rev() {
            if let Some(done) = sprint_at[i].as_ref().map(|h| h.done) {
                let own = &blocks[i + 1..next_sprint.min(section_end[i])];
                let direct = own
                    .iter()
                    .take_while(|b| !matches!(b, Block::Heading { .. }))
                    .any(|b| matches!(b, Block::Item { .. }));
                let own_tasks =
                    direct || own.iter().any(|b| done && matches!(b, Block::Item { .. }));
                if next_sprint < section_end[i] && !own_tasks {
                    sprint_at[i] = None;
                }
                next_sprint = i;
            }
        }
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Doc {
            source,
            blocks,
            section_end,
            parent,
            sprint_at,
            about_at,
            restating,
            word,
            seen,
            line_starts,
        }
    }

    /// 1-based line of a byte offset.
    pub(super) fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    /// Whether heading `i`'s section, its sub-sections included, holds an
    /// open box (`- [ ] …`).
    pub(super) fn holds_open_box(&self, i: usize) -> bool {
        self.section(i).any(|j| {
            matches!(
                self.blocks[j],
                Block::Item {
                    checked: Some(false),
                    ..
                }
            )
        })
    }

    pub(super) fn is_sprint(&self, i: usize) -> bool {
        self.sprint_at[i].is_some()
    }

    pub(super) fn heading(&self, i: usize) -> Option<(u8, &str, &Span)> {
        // A step read from a table's row may start past the last block.
        match self.blocks.get(i)? {
            Block::Heading { level, text, span } => Some((*level, text.as_str(), span)),
            _ => None,
        }
    }

    /// Each heading's block index by where its text starts: a sprint's
    /// span names its heading.
    pub(super) fn headings_by_start(&self) -> std::collections::HashMap<usize, usize> {
        (0..self.blocks.len())
            .filter(|&i| matches!(self.blocks[i], Block::Heading { .. }))
            .map(|i| (self.blocks[i].span().start, i))
            .collect()
    }

    /// Blocks of heading `i`'s section, after the heading itself.
    pub(super) fn section(&self, i: usize) -> std::ops::Range<usize> {
        i + 1..self.section_end[i]
    }

    /// Source text from the heading to the end of its section.
    pub(super) fn section_text(&self, i: usize) -> &'a str {
        let start = self.blocks[i].span().start;
        &self.source[start..self.section_end_offset(i).max(start)]
    }

    /// Where heading `i`'s section ends, as an offset in the source.
    pub(super) fn section_end_offset(&self, i: usize) -> usize {
        self.blocks
            .get(self.section_end[i])
            .map_or(self.source.len(), |b| b.span().start)
    }

    /// Blocks of heading `i` up to its first sub-heading.
    pub(super) fn own_blocks(&self, i: usize) -> std::ops::Range<usize> {
        let end = self
            .section(i)
            .find(|&j| matches!(self.blocks[j], Block::Heading { .. }))
            .unwrap_or(self.section_end[i]);
        i + 1..end
    }
}

/// Steps a section setting work outside the plan names by their labels
/// (`## 3. 지금 만들지 않는 것 (명시적 제외)` with a row `| **M5 프로필
/// 개인화** | … |`, `## Out of scope` with `- Phase 6: mobile app`): notes
/// about that step, not work to send, unless marked done. The line must
/// name the whole step: its label with words of the step's own name
/// (`Phase 2 polish items go to the backlog`, or `Phase 2` alone over what
/// of it is left out, leaves phase 2 in). A section inside a step (`####
/// Out of scope for this phase`) names nothing out. The plan keeps at
/// least one step.
fn left_out(
    blocks: &[Block],
    section_end: &[usize],
    parent: &[Option<usize>],
    sprint_at: &mut [Option<SprintHeading>],
    about_at: &mut [Option<(String, About)>],
) {
    let mut named: Vec<(String, String)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let Block::Heading { text, .. } = b else {
            continue;
        };
        if sprint_at[i].is_some() || !super::dropped::leaves_out(text) {
            continue;
        }
        let mut up = parent[i];
        let mut in_step = false;
        while let Some(p) = up {
            in_step |= sprint_at[p].is_some();
            up = parent[p];
        }
        if in_step {
            continue;
        }
        for b in &blocks[i + 1..section_end[i]] {
            match b {
                Block::Item { text, .. } => named.extend(super::dropped::opening_label(text)),
                Block::Paragraph { text, .. } => {
                    named.extend(text.lines().filter_map(super::dropped::opening_label))
                }
                Block::Table { rows, .. } => named.extend(
                    rows.iter()
                        .filter_map(|r| r.cells.first())
                        .filter_map(|c| super::dropped::opening_label(&c.text)),
                ),
                _ => {}
            }
        }
    }
    if named.is_empty() {
        return;
    }
    let out: Vec<usize> = (0..blocks.len())
        .filter(|&i| {
            let (Some(h), Block::Heading { text, .. }) = (&sprint_at[i], &blocks[i]) else {
                return false;
            };
            let Some((label, own)) = super::dropped::opening_label(text) else {
                return false;
            };
            !h.done
                && named
                    .iter()
                    .any(|(l, rest)| *l == label && !rest.is_empty() && own.contains(rest.as_str()))
        })
        .collect();
    if out.is_empty() || out.len() == sprint_at.iter().flatten().count() {
        return;
    }
    for i in out {
        if let Some(h) = sprint_at[i].take() {
            about_at[i] = Some((h.id, About::Notes));
        }
    }
}
