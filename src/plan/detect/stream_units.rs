//! Streams of work that run at once: a plan read as one unit whose steps
//! are sections named as streams (`### Track 1: Infrastructure`, `## Track
//! A — Product`, `### Stream B: API`), where the plan says its work runs
//! at once ("5 independent tracks", "parallel workstreams") and no line
//! says a stream waits for another. Each stream is a unit of its own; its
//! steps are its work items: its checklist, the sub-sections under it, or
//! the items of its task list (`- **Tasks:**` over three bullets). A
//! stream that lists no work is one step, itself.
//!
//! Streams that state their waits are `section_units`' (they are units
//! ordered by those lines); a plan that names a stream beside a word of
//! waiting anywhere (`can start after Stream A`) keeps its one sequence,
//! which is safe.

use super::*;

/// Words that name a stream of work in a heading (`Track A`, `Stream 2`).
const STREAM_WORDS: &[&str] = &["track", "stream", "workstream", "lane"];

/// Words beside those of `section_units` that say one piece of work
/// waits for another (`Can start once Track A has merged`).
const MORE_WAIT_WORDS: &[&str] = &[
    "depend on",
    "depends on:",
    "dependent on",
    "blocks ",
    "wait for",
    "once ",
    "until ",
    "prerequisite",
    "before ",
    // The same in the plans' other languages (`Stream D(P8-3)는 Stream
    // B(P7-2) 완료 후 시작`).
    "후",
    "後",
    "之后",
    "以后",
    "待つ",
    "после",
    "nach ",
    "después",
    "após",
    "dopo",
    "après",
];

/// Replace a lone unit whose work lies in parallel streams by one unit per
/// stream; true when it did.
pub(super) fn split_by_streams(
    doc: &Doc,
    units: &mut Vec<RawUnit>,
    in_place: &mut std::collections::HashSet<usize>,
) -> bool {
    let [unit] = units.as_slice() else {
        return false;
    };
    let Some(streams) = stream_headings(doc) else {
        return false;
    };
    // Every step read lies in a stream (or is one): a step outside them
    // says the plan is shaped otherwise.
    let home = |at: usize| {
        streams
            .iter()
            .position(|&h| doc.blocks[h].span().start <= at && at < doc.section_end_offset(h))
    };
    let Some(homes) = unit
        .sprints
        .iter()
        .map(|s| home(s.span.start))
        .collect::<Option<Vec<usize>>>()
    else {
        return false;
    };
    if super::guesses::parallel_said(doc).is_none() || waits_named(doc) {
        return false;
    }
    let mut split = Vec::with_capacity(streams.len());
    for (k, &h) in streams.iter().enumerate() {
        let Some((_, text, span)) = doc.heading(h) else {
            return false;
        };
        let (name, marked) = strip_done_marks(text);
        let name = clean_name(&name);
        let read: Vec<&RawSprint> = unit
            .sprints
            .iter()
            .zip(&homes)
            .filter(|(_, &at)| at == k)
            .map(|(s, _)| s)
            .collect();
        let steps = match read.as_slice() {
            // The stream itself was read as a step: its work items are.
            [one] if one.span.start == span.start => stream_steps(doc, h, one, in_place),
            [] => {
                let mut whole = read_sprint(doc, h, SprintId::whole(1), name.clone());
                whole.done = done_evidence(doc, h, marked);
                whole.origin = Origin::new(doc.line(span.start), "a stream of work");
                let whole = RawSprint {
                    id: SprintId::whole(1),
                    span: span.clone(),
                    sprint: whole,
                };
                stream_steps(doc, h, &whole, in_place)
            }
            _ => read.into_iter().cloned().collect(),
        };
        let mut out = RawUnit::new(name, span.clone(), doc.section(h));
        out.rule = "a stream of work the plan runs at once with the others".into();
        out.origin = Origin::new(doc.line(span.start), out.rule.clone());
        out.dir = unit.dir.clone();
        out.sprints = steps;
        split.push(out);
    }
    *units = split;
    true
}

/// The plan's stream headings: two or more, siblings at one level, and
/// every heading named as a stream is one of them.
fn stream_headings(doc: &Doc) -> Option<Vec<usize>> {
    let named: Vec<usize> = (0..doc.blocks.len())
        .filter(|&i| {
            doc.heading(i)
                .is_some_and(|(_, text, _)| stream_label(text).is_some())
        })
        .collect();
    let first = *named.first()?;
    let level = doc.heading(first)?.0;
    let siblings = named.iter().all(|&i| {
        doc.heading(i).is_some_and(|(l, _, _)| l == level) && doc.parent[i] == doc.parent[first]
    });
    (named.len() >= 2 && siblings).then_some(named)
}

/// `Track A` of `Track A — Product & validation`, `Stream 2` of `🟦 STREAM
/// 2: Parsing`: a stream word and a short label, then the end or a
/// separator.
fn stream_label(text: &str) -> Option<String> {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let word = STREAM_WORDS
        .iter()
        .find(|w| t.starts_with(*w) && t[w.len()..].starts_with(' '))?;
    let rest = t[word.len()..].trim_start();
    let label: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
    let after = rest[label.len()..].trim_start();
    let short = !label.is_empty() && label.chars().count() <= 3;
    let ends = after.is_empty() || after.starts_with([':', '—', '–', '-', '.', '(', '|']);
    (short && ends).then(|| format!("{word} {label}"))
}

/// Whether a line outside code names a stream beside a word of waiting
/// (`Can Start After Stream A Delivers Parsers`, `Track 4 needs Track 2`).
fn waits_named(doc: &Doc) -> bool {
    doc.blocks.iter().any(|b| {
        let text = match b {
            Block::Paragraph { text, .. } | Block::Item { text, .. } => text.as_str(),
            Block::Heading { text, .. } => text.as_str(),
            _ => return false,
        };
        let lower = text.to_lowercase();
        super::section_units::WAIT_WORDS
            .iter()
            .chain(MORE_WAIT_WORDS)
            .any(|w| {
                let mut from = 0;
                while let Some(p) = super::short_find::find(&lower[from..], w) {
                    let at = from + p + w.len();
                    let near: String = lower[at..].chars().take(40).collect();
                    if STREAM_WORDS.iter().any(|s| near.contains(s)) {
                        return true;
                    }
                    from = at;
                }
                false
            })
    })
}

/// The steps of a stream's section: its checklist, else its sub-sections,
/// else the items of its task list; else the stream itself, one step.
/// Steps done by their own box or heading join `in_place`.
fn stream_steps(
    doc: &Doc,
    h: usize,
    whole: &RawSprint,
    in_place: &mut std::collections::HashSet<usize>,
) -> Vec<RawSprint> {
    let items = work_items(doc, h);
    let boxed: Vec<usize> = items
        .iter()
        .copied()
        .filter(|&i| {
            matches!(
                doc.blocks[i],
                Block::Item {
                    checked: Some(_),
                    ..
                }
            )
        })
        .collect();
    let subsections: Vec<usize> = doc
        .section(h)
        .filter(|&j| doc.parent[j] == Some(h))
        .filter(|&j| {
            doc.heading(j)
                .is_some_and(|(_, t, _)| criteria_label(t).is_none())
        })
        .collect();
    // Its checklist first, then its sub-sections, then its task list.
    let listed = if boxed.len() >= 2 {
        Some(boxed)
    } else if subsections.len() >= 2 {
        None
    } else {
        Some(items).filter(|items| items.len() >= 2)
    };
    if let Some(listed) = listed {
        return listed
            .iter()
            .enumerate()
            .map(|(k, &i)| item_step(doc, h, i, k, whole, in_place))
            .collect();
    }
    if subsections.len() >= 2 {
        return subsections
            .iter()
            .enumerate()
            .filter_map(|(k, &j)| {
                let (_, text, span) = doc.heading(j)?;
                let (name, marked) = strip_done_marks(text);
                let id = SprintId::whole(k as u32 + 1);
                let mut sprint = read_sprint(doc, j, id.clone(), clean_name(&name));
                sprint.done = done_evidence(doc, j, marked);
                if sprint.done.is_some() {
                    in_place.insert(span.start);
                }
                sprint.done = sprint.done.or_else(|| whole.sprint.done.clone());
                sprint.origin = Origin::new(doc.line(span.start), "a section of a stream");
                Some(RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                })
            })
            .collect();
    }
    // The stream's own step is its first.
    let mut one = whole.clone();
    one.id = SprintId::whole(1);
    one.sprint.id = one.id.clone();
    vec![one]
}

/// The work items of a stream's own text, at the shallowest depth they are
/// written: items that label others (`- **Tasks:**`) and items under a
/// label of criteria or notes (`**Acceptance:**`, `Deliverables:`) are not
/// work.
fn work_items(doc: &Doc, h: usize) -> Vec<usize> {
    let mut kept: Vec<(usize, usize)> = Vec::new();
    // The label over the items that follow, and the depth it governs.
    let mut label: Option<(bool, usize)> = None;
    for j in doc.section(h) {
        match &doc.blocks[j] {
            Block::Heading { .. } => break,
            Block::Paragraph { text, .. } => {
                label = label_of(text).map(|work| (work, 0));
            }
            Block::Item { text, depth, .. } => {
                if label.is_some_and(|(_, d)| *depth < d) {
                    label = None;
                }
                if let Some(work) = label_of(text) {
                    label = Some((work, depth + 1));
                    continue;
                }
                if label.is_none_or(|(work, _)| work) {
                    kept.push((j, *depth));
                }
            }
            _ => {}
        }
    }
    let top = kept.iter().map(|(_, d)| *d).min().unwrap_or(0);
    kept.into_iter()
        .filter(|(_, d)| *d == top)
        .map(|(j, _)| j)
        .collect()
}

/// A line that labels what follows (`**Tasks:**`, `Deliverables:`):
/// whether the items it labels are work. None for a line of its own.
fn label_of(text: &str) -> Option<bool> {
    let t = text.trim().trim_matches(['*', '_']).trim();
    let body = t.strip_suffix(':')?.trim_matches(['*', '_']).trim();
    if body.is_empty() || body.split_whitespace().count() > 3 {
        return None;
    }
    Some(matches!(criteria_label(body), None | Some(Label::Tasks)) && !not_work_label(body))
}

/// Labels of what describes a stream rather than its work.
fn not_work_label(body: &str) -> bool {
    let b = body.to_lowercase();
    [
        "focus",
        "goal",
        "goals",
        "owner",
        "files",
        "notes",
        "note",
        "risks",
        "deliverables",
        "outputs",
        "output",
        "scope",
    ]
    .iter()
    .any(|w| b == *w)
}

/// One work item of a stream as a step: its text up to the next item of
/// its depth (its sub-items are its tasks), its box its done mark.
fn item_step(
    doc: &Doc,
    h: usize,
    i: usize,
    k: usize,
    whole: &RawSprint,
    in_place: &mut std::collections::HashSet<usize>,
) -> RawSprint {
    let Block::Item {
        span,
        checked,
        depth,
        ..
    } = &doc.blocks[i]
    else {
        return whole.clone();
    };
    let end_block = doc
        .section(h)
        .filter(|&j| j > i)
        .find(|&j| match &doc.blocks[j] {
            Block::Item { depth: d, .. } => d <= depth,
            _ => true,
        })
        .unwrap_or(doc.section_end[h]);
    let end = doc
        .blocks
        .get(end_block)
        .map_or(doc.source.len(), |b| b.span().start);
    let body = doc.source[span.start..end.max(span.end)].trim_end();
    let first = body.lines().next().unwrap_or_default();
    // A name has no inline code (`POST /transfers`), as a heading's has
    // none: its canonical form reads back the same.
    let name = super::outline::item_label(first)
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')'])
        .replace("**", "")
        .replace('`', "");
    let id = SprintId::whole(k as u32 + 1);
    let mut sprint = blank_sprint(id.clone(), name.trim(), body.to_string());
    sprint.tasks = (i + 1..end_block)
        .filter_map(|j| match &doc.blocks[j] {
            Block::Item { text, .. } => Some(clean_name(text)),
            _ => None,
        })
        .collect();
    let ticked = *checked == Some(true);
    if ticked {
        in_place.insert(span.start);
    }
    if ticked || (whole.sprint.done.is_some() && checked.is_none()) {
        sprint.done = Some(if ticked {
            "marked complete in the plan (its box is ticked)".into()
        } else {
            whole.sprint.done.clone().unwrap_or_default()
        });
    }
    sprint.origin = Origin::new(doc.line(span.start), "a work item of a stream");
    RawSprint {
        id,
        span: span.clone(),
        sprint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_named_by_its_word_and_a_short_label() {
        assert_eq!(
            stream_label("Track A — Product & validation").as_deref(),
            Some("track a")
        );
        assert_eq!(
            stream_label("🟦 STREAM 2: Parsing").as_deref(),
            Some("stream 2")
        );
        assert_eq!(stream_label("Track 1").as_deref(), Some("track 1"));
        assert_eq!(stream_label("Tracking the budget"), None);
        assert_eq!(stream_label("Track record of releases"), None);
        assert_eq!(stream_label("Phase 1: Setup"), None);
    }

    #[test]
    fn a_label_says_whether_its_items_are_work() {
        assert_eq!(label_of("**Tasks:**"), Some(true));
        assert_eq!(label_of("**Focus:**"), Some(false));
        assert_eq!(label_of("Acceptance criteria:"), Some(false));
        assert_eq!(label_of("Write the tests"), None);
    }
}
