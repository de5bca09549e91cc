//! Work items written in other outline forms, rewritten into the headings
//! the readers know, byte for byte (every span still points into the
//! user's file):
//!
//! - XML task elements (`<task type="auto"><name>Task 1: …</name>…</task>`,
//!   a GSD phase plan): each `<name>` line becomes a heading, one-line
//!   elements (`<files>x</files>`) become `Files: x` label lines, and lines
//!   that are only a tag are blanked;
//! - old Mac line endings (a lone CR) as LF;
//! - numbered list items that open with a bold step label are read in
//!   `bold_items`; list items numbered after their phase are read here;
//! - in a plan with no Markdown heading at all (a roadmap pasted as plain
//!   text), a line of its own that opens with a step word and a number
//!   (`🧠 Phase 1 — Agent autonomy`), two or more: each becomes a heading.
//!
//! A general reader finds the level of the work items; these are the forms
//! in which a level is written without headings.

use super::Block;
use crate::plan::markdown::Span;
use std::collections::BTreeMap;
use std::collections::BTreeSet;

/// Old Mac line endings (a CR with no LF after it) as LF, byte for byte, so
/// every span still points at the same bytes of the user's file. `None` when
/// the text has none.
pub(super) fn lone_cr_to_lf(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return None;
    }
    let out: Vec<u8> = (0..bytes.len())
        .map(|i| if lone(i) { b'\n' } else { bytes[i] })
        .collect();
    // Only ASCII bytes were swapped for ASCII bytes.
    String::from_utf8(out).ok()
}

/// XML task elements in `masked` (outside code fences, which are masked
/// already) rewritten in place as headings and label lines. Nothing changes
/// unless the plan holds at least one `<task` element with a `<name>`.
pub(super) fn rewrite_xml_tasks(masked: &mut String) {
    let has_tasks = masked.contains("<name>")
        && masked
            .lines()
            .any(|l| l.trim_start().starts_with("<task") && !l.trim_start().starts_with("<tasks"));
    if !has_tasks {
        return;
    }
    let mut out = String::with_capacity(masked.len());
    let mut in_task = false;
    // The open code fence, if any: its character and length.
    let mut open: Option<(char, usize)> = None;
    for line in masked.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let indent = body.len() - body.trim_start().len();
        let t = body.trim();
        let marker = super::fences::fence(t);
        match (open, marker) {
            (None, Some((c, n, _))) => open = Some((c, n)),
            (Some((oc, on)), Some((c, n, ""))) if c == oc && n >= on => open = None,
            _ => {}
        }
        let rewritten = if open.is_some() || marker.is_some() {
            body.to_string()
        } else if t.starts_with("<task") && !t.starts_with("<tasks") {
            in_task = true;
            blank(body)
        } else if t == "</task>" {
            in_task = false;
            blank(body)
        } else if let Some(name) = element(t, "name").filter(|_| in_task) {
            // `<name>` (6 bytes) → `### ` (4): the heading is never longer.
            let heading = format!("{}### {name}", " ".repeat(indent.min(3)));
            pad(&heading, body.len())
        } else if let Some((tag, inner)) = one_line_element(t) {
            // `<files>x</files>` → `Files: x`: `<tag>` and `Tag: ` have the
            // same length.
            let mut label = tag.to_string();
            label[..1].make_ascii_uppercase();
            pad(
                &format!("{}{label}: {inner}", " ".repeat(indent)),
                body.len(),
            )
        } else if is_tag_line(t) {
            // `<action>` alone: `Action:` labels the lines under it.
            match t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
                Some(tag)
                    if !tag.starts_with('/')
                        && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && in_task =>
                {
                    let mut label = tag.to_string();
                    label[..1].make_ascii_uppercase();
                    pad(&format!("{}{label}:", " ".repeat(indent)), body.len())
                }
                _ => blank(body),
            }
        } else {
            body.to_string()
        };
        debug_assert_eq!(rewritten.len(), body.len());
        out.push_str(&rewritten);
        out.push_str(ending);
    }
    *masked = out;
}

/// `<name>text</name>` → `text`.
fn element<'t>(t: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let inner = t
        .strip_prefix(open.as_str())?
        .strip_suffix(close.as_str())?;
    (!inner.contains('<')).then(|| inner.trim())
}

/// `<files>src/a.ts</files>` → (`files`, `src/a.ts`).
fn one_line_element(t: &str) -> Option<(&str, &str)> {
    let rest = t.strip_prefix('<')?;
    let close = rest.find('>')?;
    let tag = &rest[..close];
    if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let inner = rest[close + 1..].strip_suffix(&format!("</{tag}>"))?;
    (!inner.contains('<')).then_some((tag, inner.trim()))
}

/// A line that is one tag (`<tasks>`, `</objective>`, `<task type="x">`).
fn is_tag_line(t: &str) -> bool {
    t.starts_with('<')
        && t.ends_with('>')
        && t.matches('<').count() == 1
        && t[1..]
            .chars()
            .next()
            .is_some_and(|c| c == '/' || c.is_ascii_alphabetic())
}

fn blank(body: &str) -> String {
    " ".repeat(body.len())
}

fn pad(text: &str, len: usize) -> String {
    let mut s = text.to_string();
    while s.len() < len {
        s.push(' ');
    }
    debug_assert!(s.len() == len, "{text:?} longer than {len}");
    s
}

/// A bold item that may be a step: (block index, heading text, written with
/// a step word).
/// A plan written without Markdown headings (but its title): its lines that read as step
/// headings (a step word and a number, after any emoji), two or more,
/// become level-2 headings, each with the span of its own line; the rest of
/// their paragraph stays paragraph text.
/// With `any`, the last reading before a refusal: beside other headings
/// too, a line that is only a step word of any language and a number
/// (`Hito 1:`) becomes a heading of the lowest level, ending at the next
/// heading of any level.
pub(super) fn promote_plain_lines(
    source: &str,
    blocks: Vec<Block>,
    any: bool,
    labels_read: &mut Option<(usize, usize)>,
) -> Vec<Block> {
    // `[Semana 1-2] Planejamento e Design` over its lines of work: a step
    // word and a number in brackets open a step's label wherever it is
    // written, under a phase's heading too; two or more are the steps. A
    // label with no lines of its own (`[Week 2] Login page shipped` in a
    // log, line after line) is an entry, not a step.
    let labelled = bracketed_labels(source, &blocks);
    if labelled.len() >= 2 {
        return blocks_in_paragraphs(source, blocks, |line, span| {
            let label = bracketed_step(line)?;
            (span.is_empty() || labelled.contains(&span.start)).then_some(Block::Heading {
                level: 6,
                text: label,
                span,
            })
        });
    }
    if let Some(blocks) = super::step_labels::step_labels_over_lists(&blocks) {
        return blocks;
    }
    if any {
        let label = |line: &str| {
            let t = line.trim().trim_end_matches(':').trim_end();
            let english = super::locale::localize(t);
            let words: Vec<&str> = english.split_whitespace().collect();
            (words.len() == 2 && starts_with_step_word(&english)).then(|| (6, t.to_string()))
        };
        if paragraph_lines(source, &blocks, |l| label(l).is_some()) >= 2 {
            return headings_in_paragraphs(source, blocks, label);
        }
    }
    // No heading but, at most, the plan's title.
    let headings: Vec<u8> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { level, .. } => Some(*level),
            _ => None,
        })
        .collect();
    if headings.len() > 1 || headings.iter().any(|&l| l > 1) {
        return blocks;
    }
    let heading_line = |line: &str| {
        let t = line.trim();
        t.chars().count() <= 120
            && starts_with_step_word(&super::locale::localize(
                t.trim_start_matches(|c: char| !c.is_alphanumeric()),
            ))
    };
    if paragraph_lines(source, &blocks, heading_line) < 2 {
        return label_lines_over_checklists(blocks, labels_read);
    }
    headings_in_paragraphs(source, blocks, |line| {
        heading_line(line).then(|| (2, line.trim().to_string()))
    })
}

/// `[Week 3-4] System design` → `Week 3-4: System design`: a paragraph
/// line opening with a step word and its number (or span) in brackets, then
/// a name.
fn bracketed_step(line: &str) -> Option<String> {
    let t = line.trim().strip_prefix('[')?;
    let close = t.get(..40.min(t.len())).unwrap_or(t).find(']')?;
    let label = t[..close].trim();
    let name = t[close + 1..]
        .trim_start_matches([':', ' ', '—', '–', '-'])
        .trim();
    let english = super::locale::localize(label);
    let stepped = starts_with_step_word(&english)
        && label.chars().any(|c| c.is_ascii_digit())
        && label.split_whitespace().count() <= 3;
    (stepped && name.starts_with(char::is_alphanumeric)).then(|| format!("{label}: {name}"))
}

/// A plan without headings whose checklists each sit under a label line
/// of their own (`[0.1.0]` over `- [x] …`, `Backend:` over `- [ ] …`):
/// the labels, two or more, are its sections, read as level-2 headings.
/// A paragraph of more than one line, or a sentence, is no label.
/// The offsets of the paragraph lines that open a bracketed step's label
/// ([`bracketed_step`]) and have lines of their own after them.
fn bracketed_labels(source: &str, blocks: &[Block]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for b in blocks {
        let Block::Paragraph { span, .. } = b else {
            continue;
        };
        let text = &source[span.clone()];
        // Most paragraphs open no line with a bracket: one byte search.
        if !text.contains('[') {
            continue;
        }
        let mut at = span.start;
        let mut lines = text.split_inclusive('\n').peekable();
        while let Some(line) = lines.next() {
            let body_follows = lines
                .peek()
                .is_some_and(|next| !next.trim().is_empty() && bracketed_step(next).is_none());
            if body_follows && bracketed_step(line).is_some() {
                out.insert(at);
            }
            at += line.len();
        }
    }
    out
}

fn label_lines_over_checklists(
    mut blocks: Vec<Block>,
    labels_read: &mut Option<(usize, usize)>,
) -> Vec<Block> {
    let labels: Vec<(usize, String)> = blocks
        .windows(2)
        .enumerate()
        .filter_map(|(i, pair)| match pair {
            [Block::Paragraph { text, .. }, Block::Item {
                checked: Some(_),
                depth: 0,
                ..
            }] => {
                let t = text.trim().trim_end_matches([':', '：']).trim_end();
                let label = !t.is_empty()
                    && !t.contains('\n')
                    && t.chars().count() <= 60
                    && !t.ends_with(['.', '。', '!', '?']);
                label.then(|| (i, t.to_string()))
            }
            _ => None,
        })
        .collect();
    if labels.len() < 2 {
        return blocks;
    }
    // The same label again (`[0.3.0]` over one stray line, then `[0.3.0]`
    // over the rest) goes on with its section.
    let mut last: Option<String> = None;
    let mut read = 0;
    for &(i, ref text) in &labels {
        if last.as_ref() != Some(text) {
            into_heading(&mut blocks, i, 2, text.clone());
            read += 1;
        }
        last = Some(text.clone());
    }
    *labels_read = labels.first().map(|(i, _)| (*i, read));
    blocks
}

/// The last reading before a refusal: a list item's box written as code
/// (`` * `[X]` - `Menu; 7h` ``) is a box; `[.]`, work under way, an open one.
/// Rewritten in place, the same length.
pub(super) fn unquote_boxes(masked: &mut String) {
    let mut edits = Vec::new();
    let mut at = 0;
    for line in masked.split_inclusive('\n') {
        let t = line.trim_start();
        let lead = line.len() - t.len();
        if let Some(rest) = t
            .strip_prefix(['-', '*', '+'])
            .filter(|r| r.starts_with(' '))
        {
            let box_at = at + lead + 1 + (rest.len() - rest.trim_start().len());
            for (quoted, plain) in [
                ("`[X]`", "[X]  "),
                ("`[x]`", "[x]  "),
                ("`[ ]`", "[ ]  "),
                ("`[.]`", "[ ]  "),
            ] {
                if rest.trim_start().starts_with(quoted) {
                    edits.push((box_at, plain));
                }
            }
        }
        at += line.len();
    }
    for (pos, plain) in edits {
        masked.replace_range(pos..pos + plain.len(), plain);
    }
}

/// How many lines of the paragraphs among `blocks` `keep` says yes to.
fn paragraph_lines(source: &str, blocks: &[Block], keep: impl Fn(&str) -> bool) -> usize {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph { span, .. } => {
                Some(source[span.clone()].lines().filter(|l| keep(l)).count())
            }
            _ => None,
        })
        .sum()
}

/// Paragraph lines that `heading` reads as headings become headings (each
/// with the span of its own line); the rest of their paragraph stays
/// paragraph text.
fn headings_in_paragraphs(
    source: &str,
    blocks: Vec<Block>,
    heading: impl Fn(&str) -> Option<(u8, String)>,
) -> Vec<Block> {
    blocks_in_paragraphs(source, blocks, |line, span| {
        heading(line).map(|(level, text)| Block::Heading { level, text, span })
    })
}

/// Paragraph lines that `pick` reads as blocks of their own (a heading, a
/// checklist item) become those blocks, each given the span of its own
/// line; the rest of their paragraph stays paragraph text.
pub(super) fn blocks_in_paragraphs(
    source: &str,
    blocks: Vec<Block>,
    pick: impl Fn(&str, Span) -> Option<Block>,
) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len() + 8);
    for b in blocks {
        let Block::Paragraph { span, .. } = &b else {
            out.push(b);
            continue;
        };
        let text = &source[span.clone()];
        if !text.lines().any(|l| pick(l, 0..0).is_some()) {
            out.push(b);
            continue;
        }
        // (start, end) of the paragraph text waiting to be pushed.
        let mut pending: Option<(usize, usize)> = None;
        let flush = |out: &mut Vec<Block>, pending: &mut Option<(usize, usize)>| {
            if let Some((s, e)) = pending.take() {
                out.push(Block::Paragraph {
                    text: source[s..e].trim().to_string(),
                    span: s..e,
                });
            }
        };
        let mut at = span.start;
        for line in text.split_inclusive('\n') {
            let (s, e) = (at, at + line.trim_end().len());
            at += line.len();
            if let Some(block) = pick(line, s..e) {
                flush(&mut out, &mut pending);
                out.push(block);
            } else if !line.trim().is_empty() {
                pending = Some((pending.map_or(s, |p| p.0), e));
            }
        }
        flush(&mut out, &mut pending);
    }
    out
}

/// `###UI redesign`: a heading written without the space CommonMark wants
/// (two to six `#` then a letter), which a reader still reads as a heading.
/// Such lines of a paragraph become headings of their level, each with the
/// span of its own line.
pub(super) fn promote_unspaced_headings(source: &str, blocks: Vec<Block>) -> Vec<Block> {
    let unspaced = |line: &str| -> Option<(u8, String)> {
        let t = line.trim();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        let rest = &t[hashes..];
        ((2..=6).contains(&hashes) && rest.starts_with(|c: char| c.is_alphanumeric()))
            .then(|| (hashes as u8, rest.trim().to_string()))
    };
    let any = blocks.iter().any(|b| match b {
        Block::Paragraph { span, .. } => {
            source[span.clone()].lines().any(|l| unspaced(l).is_some())
        }
        _ => false,
    });
    if !any {
        return blocks;
    }
    headings_in_paragraphs(source, blocks, unspaced)
}

/// A box kept in front of an item read as a heading: `[x] `, `[ ] `, or
/// nothing for an item without one.
pub(super) fn box_mark(checked: Option<bool>) -> &'static str {
    match checked {
        Some(true) => "[x] ",
        Some(false) => "[ ] ",
        None => "",
    }
}

/// Block `i` (a list item or a line) read as a heading of `level` named
/// `text`, its span kept, so every reader sees it as it sees a heading.
pub(super) fn into_heading(blocks: &mut [Block], i: usize, level: u8, text: String) {
    let span = blocks[i].span();
    blocks[i] = Block::Heading {
        level: level.min(6),
        text,
        span,
    };
}

/// Top-level list items numbered after the heading they sit under (`- [x]
/// **Task 1.1**: Models` under `## Phase 1`, also through a frame heading
/// without a number such as `### Tasks`), two or more under one heading and
/// most with nested lines of their own, are
/// that heading's steps written as a list: they become headings one level
/// below their section, a ticked box kept as `[x]` and an open one as `[ ]`,
/// so the steps reader sees them as it sees `### 1.1` sub-sections.
pub(super) fn promote_numbered_items(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    // Open headings: (level, number), the number read when an item asks.
    let mut open: Vec<(u8, std::cell::OnceCell<Option<String>>)> = Vec::new();
    let number = |open: &[(u8, std::cell::OnceCell<Option<String>>)], k: usize, heads: &[usize]| {
        open[k]
            .1
            .get_or_init(|| match &blocks[heads[k]] {
                Block::Heading { text, .. } => heading_number(text),
                _ => None,
            })
            .clone()
    };
    // Per numbered heading (its block index): items numbered after it, with
    // the level of the section each sits in.
    // Each with whether it is numbered after its heading (`**5.1**` under
    // `Phase 5`) rather than coded.
    let mut found: BTreeMap<usize, Vec<(usize, u8, String, bool)>> = BTreeMap::new();
    let mut heads: Vec<usize> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level, text, .. } => {
                while open.last().is_some_and(|(l, _)| l >= level) {
                    open.pop();
                    heads.pop();
                }
                let _ = text;
                open.push((*level, std::cell::OnceCell::new()));
                heads.push(i);
            }
            Block::Item {
                depth: 0,
                checked,
                span,
                ..
            } => {
                let first = source[span.clone()].lines().next().unwrap_or_default();
                // Steps are bold or open with a step word: most items are
                // neither, and cost nothing more.
                let head = first.trim_start().trim_start_matches(['-', '*', '+', ' ']);
                let head = head.get(..head.len().min(12)).unwrap_or(head).as_bytes();
                let worded = head
                    .windows(4)
                    .any(|w| w.eq_ignore_ascii_case(b"task") || w.eq_ignore_ascii_case(b"step"));
                if !worded && !first.contains("**") && !first.contains("__") {
                    continue;
                }
                let numbered_at = (0..open.len())
                    .rev()
                    .find(|&k| number(&open, k, &heads).is_some());
                let numbered = numbered_at.and_then(|k| {
                    Some((k, numbered_item(first, number(&open, k, &heads)?.as_str())?))
                });
                // A coded item (`- [x] **TASK-101**: Ethics engine`) is a step
                // of its numbered section (`## Phase 3` over `### ✅ Done`),
                // else of the section it sits in.
                let coded = || {
                    let k = numbered_at.or(open.len().checked_sub(1))?;
                    Some((k, coded_item(first)?))
                };
                let by_number = numbered.is_some();
                let Some((k, step)) = numbered.or_else(coded) else {
                    continue;
                };
                let mark = box_mark(*checked);
                let level = open.last().map_or(1, |(l, _)| *l);
                found.entry(heads[k]).or_default().push((
                    i,
                    level,
                    format!("{mark}{step}"),
                    by_number,
                ));
            }
            _ => {}
        }
    }
    // Steps carry work of their own: most have nested lines (a one-line
    // `- [x] **1.1** Define the structs` is a task line of its phase).
    let nested =
        |i: usize| matches!(blocks.get(i + 1), Some(Block::Item { depth, .. }) if *depth > 0);
    let steps = |items: &Vec<(usize, u8, String, bool)>| {
        items.len() >= 2 && items.iter().filter(|(i, ..)| nested(*i)).count() * 2 >= items.len()
    };
    // Sections written alike read alike: where most sections' numbered
    // items are steps, the others' numbered items are too (`## Phase 5`
    // listing `- [ ] **5.1** …` a line each, beside phases whose items
    // carry nested lines).
    // Only under headings named by a step word (`## Phase 3: Rollout`), not
    // a numbered section of another kind (`## 3. Acceptance criteria`), and
    // not of questions (`**3.1** Do we keep …?`).
    let groups: Vec<(usize, Vec<_>)> = found.into_iter().collect();
    let stepping = groups.iter().filter(|(_, g)| steps(g)).count();
    let alike = stepping >= 2 && stepping * 2 >= groups.len();
    let phase_like = |h: usize| match &blocks[h] {
        Block::Heading { text, .. } => {
            matches!(
                super::headings::parse_heading(text),
                Some(super::headings::Heading::Sprint(_))
            ) && !super::about_plan::describes_plan(text)
                && super::criteria::criteria_label(text).is_none()
        }
        _ => false,
    };
    let numbered_only = |g: &Vec<(usize, u8, String, bool)>| {
        g.iter()
            .all(|item| item.3 && !item.2.trim_end().ends_with(['?', '？']))
    };
    let found: Vec<_> = groups
        .into_iter()
        .filter(|(h, g)| steps(g) || alike && numbered_only(g) && phase_like(*h))
        .map(|(_, g)| g)
        .collect();
    for items in found {
        for (i, level, text, _) in items {
            into_heading(&mut blocks, i, level + 1, text);
        }
    }
    blocks
}

/// The number a heading gives its section: `1` for `Phase 1: Schema`, `2B`
/// for `## Phase 2B — Sync`, `3` for `3. Rollout`; the first word of its
/// first three that starts with a digit.
fn heading_number(text: &str) -> Option<String> {
    text.split_whitespace()
        // A mark before the word (`✅ Phase 1`) is no word.
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .take(3)
        .map(|w| w.trim_end_matches([':', '.', ')', ',']))
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|w| w.chars().all(|c| c.is_ascii_alphanumeric()) && w.len() <= 4)
        .map(str::to_string)
}

/// `Task 1.2: Create the migration` for an item `**Task 1.2**: Create the
/// migration` (or `1.2 Create …`, `Step 1.2 — …`) under heading number `1`.
/// An item's line without its list marker and box: `**Task 1.2**: …` of
/// `- [x] **Task 1.2**: …`.
pub(super) fn item_label(line: &str) -> &str {
    let t = line
        .trim_start()
        .trim_start_matches(['-', '*', '+'])
        .trim_start();
    ["[ ]", "[x]", "[X]"]
        .iter()
        .find_map(|m| t.strip_prefix(m))
        .unwrap_or(t)
        .trim_start()
}

/// `TASK-101: Ethics engine` for an item `- [x] **TASK-101**: Ethics
/// engine`: a bold code of letters and a number opening the item.
fn coded_item(line: &str) -> Option<String> {
    let t = item_label(line);
    let inner = t.strip_prefix("**")?;
    let close = inner.find("**")?;
    let code = inner[..close].trim().trim_end_matches(':');
    let letters = code.chars().take_while(char::is_ascii_alphabetic).count();
    let rest = code[letters..].trim_start_matches(['-', '_']);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let tail = &rest[digits..];
    let tail_ok = tail.is_empty()
        || tail
            .strip_prefix('.')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    if !(1..=8).contains(&letters) || digits == 0 || !tail_ok {
        return None;
    }
    let name = inner[close + 2..]
        .trim_start_matches([':', ' ', '—', '–', '-'])
        .trim();
    (!name.is_empty()).then(|| format!("{code}: {}", without_done_aside(name)))
}

/// `Ethics engine (Completed: 2025-08-21)` → `Ethics engine`: the item's box
/// already says it is done.
fn without_done_aside(name: &str) -> &str {
    match name.rfind('(') {
        Some(open)
            if open > 0
                && ["(completed", "(complete", "(done", "(finished", "(shipped"]
                    .iter()
                    .any(|w| name[open..].to_lowercase().starts_with(w)) =>
        {
            name[..open].trim_end()
        }
        _ => name,
    }
}

/// A plain `1.2 Create …` item is a task line of its section, not a step:
/// the label must be bold or carry a step word.
fn numbered_item(line: &str, number: &str) -> Option<String> {
    let t = item_label(line);
    let bold = t.starts_with("**") || t.starts_with("__");
    let t = t.trim_start_matches(['*', '_', ' ']);
    let worded = t.split_once(' ').is_some_and(|(w, _)| {
        ["task", "step", "subtask"].contains(&w.to_ascii_lowercase().as_str())
    });
    if !bold && !worded {
        return None;
    }
    let (word, rest) = match t.split_once(' ') {
        Some((w, r)) if ["task", "step", "subtask"].contains(&w.to_ascii_lowercase().as_str()) => {
            (w, r.trim_start())
        }
        _ => ("Task", t),
    };
    let (major, after) = rest.split_once('.')?;
    // A phase's letter before the number (`**P1.2**` under `## Phase 1`)
    // is part of the item's number.
    let letters = major.chars().take_while(char::is_ascii_alphabetic).count();
    let major = match &major[letters..] {
        digits if bold && (1..=2).contains(&letters) && !digits.is_empty() => digits,
        _ => major,
    };
    if !major.eq_ignore_ascii_case(number) {
        return None;
    }
    let minor = after.chars().take_while(char::is_ascii_digit).count();
    if minor == 0 {
        return None;
    }
    let name = after[minor..]
        .trim_start_matches(['*', '_', ':', ')', '.', ' ', '—', '–', '-'])
        .trim();
    if name.is_empty() {
        return None;
    }
    Some(format!("{word} {major}.{}: {name}", &after[..minor]))
}

/// `Step 1`, `Task 3`, `Phase 2`: a step word and a number.
pub(super) fn starts_with_step_word(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "step ",
        "task ",
        "phase ",
        "stage ",
        "milestone ",
        "sprint ",
        "wave ",
        "week ",
    ]
    .iter()
    .any(|w| {
        lower
            .strip_prefix(w)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_tasks_become_headings_of_the_same_length() {
        let src = "<tasks>\n<task type=\"auto\">\n  <name>Task 1: Auth</name>\n  <files>src/a.ts</files>\n  <action>\n  Write it.\n  </action>\n</task>\n</tasks>\n";
        let mut m = src.to_string();
        rewrite_xml_tasks(&mut m);
        assert_eq!(m.len(), src.len());
        assert!(m.contains("  ### Task 1: Auth"), "{m}");
        assert!(m.contains("  Files: src/a.ts"), "{m}");
        assert!(m.contains("  Action:"), "{m}");
        assert!(!m.contains('<'), "{m}");
    }

    #[test]
    fn plans_without_task_elements_are_left_alone() {
        let src = "# Plan\n\n<details>\n<summary>x</summary>\n</details>\n";
        let mut m = src.to_string();
        rewrite_xml_tasks(&mut m);
        assert_eq!(m, src);
    }
}
