//! Plans that hand numbered items to agents in waves: `### Wave 1: …
//! (Parallel - Start Immediately)` holding `1. **#37**: CI smoke tests`
//! items, each with its own `- **Files**:`, `- **Prerequisites**:` and
//! `- **Success**:` lines. Each item is a unit of one sprint. A wave waits
//! for the whole wave before it; the items of a wave run at once only when
//! the wave itself says so (its heading or its own lines say "parallel"),
//! and an item's prerequisites naming earlier items are kept.

use super::criteria::classify_criterion;
use super::norm;
use super::sprints::blank_sprint;
use super::sprints::code_paths;
use super::sprints::step_code;
use super::Block;
use super::Cell;
use super::Doc;
use super::Origin;
use super::RawSprint;
use super::RawUnit;
use super::Row;
use super::SprintId;

struct Item {
    label: String,
    title: String,
    block: usize,
    lines: Vec<String>,
    wave: usize,
    /// What a table row's Dependencies cell names, when the wave is a
    /// table with one: the row's own word on what it waits for.
    stated: Option<Vec<String>>,
}

/// The units of a plan written in waves of items, if it is one.
pub(super) fn wave_units(doc: &Doc) -> Option<Vec<RawUnit>> {
    let mut waves: Vec<(u32, usize)> = Vec::new();
    for i in 0..doc.blocks.len() {
        if let Some(n) = doc.heading(i).and_then(|(_, t, _)| wave_number(t)) {
            waves.push((n, i));
        }
    }
    let mut items: Vec<Item> = Vec::new();
    let mut parallel: Vec<bool> = Vec::new();
    let mut numbers: Vec<u32> = Vec::new();
    for &(n, heading) in &waves {
        let found = wave_items(doc, heading, numbers.len());
        if found.is_empty() {
            continue;
        }
        // Two sections of one wave that both list items: not this shape.
        if numbers.contains(&n) {
            return None;
        }
        numbers.push(n);
        parallel.push(says_at_once(doc, heading));
        items.extend(found);
    }
    let sorted = numbers.windows(2).all(|w| w[0] < w[1]);
    let mut labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    labels.sort_unstable();
    labels.dedup();
    if numbers.len() < 2 || items.len() < 3 || labels.len() != items.len() || !sorted {
        return None;
    }
    let mut units = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let span = doc.blocks[item.block].span();
        let span = if item.stated.is_some() || matches!(doc.blocks[item.block], Block::Table { .. })
        {
            row_span(doc, item).unwrap_or(span)
        } else {
            span
        };
        let mut deps: Vec<String> = items
            .iter()
            .filter(|o| o.wave + 1 == item.wave)
            .map(|o| o.label.clone())
            .collect();
        match &item.stated {
            // A Dependencies cell is the row's own word: its earlier items,
            // beside the whole wave before.
            Some(stated) => {
                let none = |d: &str| {
                    let d = d.to_lowercase();
                    d.is_empty()
                        || d.starts_with("none")
                        || matches!(d.as_str(), "-" | "—" | "–" | "n/a")
                };
                // A cell that names no item (`ALL above`, prose): the row
                // waits for every earlier row of its wave.
                let vague = stated
                    .iter()
                    .any(|d| !none(d) && !items.iter().any(|o| &o.label == d));
                for earlier in &items[..k] {
                    let named =
                        stated.contains(&earlier.label) || (vague && earlier.wave == item.wave);
                    if named && !deps.contains(&earlier.label) {
                        deps.push(earlier.label.clone());
                    }
                }
            }
            None if !parallel[item.wave] => {
                if let Some(before) = k.checked_sub(1).map(|b| &items[b]) {
                    if before.wave == item.wave {
                        deps.push(before.label.clone());
                    }
                }
            }
            None => {}
        }
        for line in item.lines.iter().filter(|l| prerequisite_line(l)) {
            for earlier in &items[..k] {
                let named = line
                    .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
                    .any(|w| w == earlier.label);
                if named && !deps.contains(&earlier.label) {
                    deps.push(earlier.label.clone());
                }
            }
        }
        let why = format!(
            "an item of wave {}{}",
            numbers[item.wave],
            if item.stated.is_some() {
                " (its Dependencies cell orders it within the wave)"
            } else if parallel[item.wave] {
                " (the wave runs its items in parallel)"
            } else {
                ""
            }
        );
        let mut unit = RawUnit::new(item.label.clone(), span.clone(), 0..0);
        unit.rule = why.clone();
        unit.origin = Origin::new(doc.line(span.start), why);
        unit.deps = deps.into_iter().map(|d| (d, span.clone())).collect();
        let id = SprintId::whole(1);
        let body = std::iter::once(format!("{}: {}", item.label, item.title))
            .chain(item.lines.iter().cloned())
            .collect::<Vec<_>>()
            .join("\n");
        let mut sprint = blank_sprint(id.clone(), &item.title, body);
        sprint.files = code_paths(&sprint.body);
        for line in &item.lines {
            match criterion_text(line) {
                Some(text) => sprint.exit.push(classify_criterion(text, &[], false)),
                None if !prerequisite_line(line) => sprint.tasks.push(line.clone()),
                None => {}
            }
        }
        let rule = if item.stated.is_some() {
            "a row of a wave's task table"
        } else {
            "a numbered item of a wave"
        };
        sprint.origin = Origin::new(doc.line(span.start), rule);
        unit.sprints = vec![RawSprint { id, span, sprint }];
        units.push(unit);
    }
    Some(units)
}

/// The source line of a table item's row.
fn row_span(doc: &Doc, item: &Item) -> Option<super::Span> {
    let Block::Table { rows, .. } = &doc.blocks[item.block] else {
        return None;
    };
    rows.iter()
        .find(|r| {
            r.cells
                .iter()
                .any(|c| step_code(&c.text) == Some(item.label.as_str()))
        })
        .map(|r| r.span.clone())
}

/// `Wave 2: Enhancement …` → 2.
pub(super) fn wave_number(text: &str) -> Option<u32> {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    // Every heading is asked: compared in place, never copied.
    if !t.get(..5)?.eq_ignore_ascii_case("wave ") {
        return None;
    }
    let rest = &t[5..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The numbered top-level items of wave heading `heading` that start with
/// a label (`1. **#37**: title`), each with its nested lines.
fn wave_items(doc: &Doc, heading: usize, wave: usize) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    // Whether the last top-level item was a labelled one (its nested lines
    // are its own).
    let mut open = false;
    // The header of the wave's first table of items, once read.
    let mut first_header: Option<&Vec<Cell>> = None;
    for b in doc.section(heading) {
        match &doc.blocks[b] {
            Block::Item { depth: 0, span, .. } => {
                let raw = doc.source[span.clone()].lines().next().unwrap_or_default();
                open = false;
                if let Some((label, title)) = labelled(raw) {
                    open = true;
                    out.push(Item {
                        label,
                        title,
                        block: b,
                        lines: Vec::new(),
                        wave,
                        stated: None,
                    });
                }
            }
            Block::Item { text, .. } if open => {
                if let Some(last) = out.last_mut() {
                    last.lines.push(text.clone());
                }
            }
            Block::Heading { .. } => open = false,
            Block::Table { header, rows, .. } if out.is_empty() => {
                out.extend(table_items(header, rows, b, wave));
                first_header = Some(header);
            }
            // The wave's tables one per part (`#### CORE`, `#### API`),
            // each with the first one's columns.
            Block::Table { header, rows, .. }
                if first_header.is_some_and(|first| same_columns(first, header)) =>
            {
                out.extend(table_items(header, rows, b, wave));
            }
            _ => {}
        }
    }
    out
}

/// Whether a table's first two columns are named as another's, and both
/// have a column of their items' dependencies: a rollback, a check or a
/// reference table beside them has none.
fn same_columns(first: &[Cell], header: &[Cell]) -> bool {
    let names = |h: &[Cell]| -> Vec<String> { h.iter().map(|c| norm(&c.text)).collect() };
    let (a, b) = (names(first), names(header));
    let deps = |n: &[String]| n.iter().skip(2).any(|c| c.starts_with("dep"));
    deps(&a) && deps(&b) && a[..2] == b[..2]
}

/// The rows of a wave's task table (`| Agent | Task | Duration |
/// Dependencies |` with `CORE-001` codes): an item each, its
/// Dependencies cell kept.
fn table_items(header: &[Cell], rows: &[Row], block: usize, wave: usize) -> Vec<Item> {
    let col = |names: &[&str]| {
        header
            .iter()
            .position(|c| names.contains(&norm(&c.text).as_str()))
    };
    let Some(code) = col(&["task", "task id", "id", "ticket", "issue", "story"]) else {
        return Vec::new();
    };
    let coded = !rows.is_empty()
        && rows.iter().all(|r| {
            r.cells
                .get(code)
                .is_some_and(|c| step_code(&c.text).is_some())
        });
    if !coded {
        return Vec::new();
    }
    let title = col(&["title", "name", "description", "summary", "goal"]);
    let deps = col(&[
        "dependencies",
        "depends on",
        "deps",
        "blocked by",
        "after",
        "needs",
    ]);
    rows.iter()
        .filter_map(|r| {
            let label = step_code(&r.cells.get(code)?.text)?.to_string();
            let cell = |c: Option<usize>| c.and_then(|c| r.cells.get(c)).map(|c| c.text.clone());
            let lines: Vec<String> = header
                .iter()
                .zip(&r.cells)
                .enumerate()
                .filter(|&(k, (_, c))| k != code && !c.text.trim().is_empty())
                .map(|(_, (h, c))| format!("{}: {}", h.text.trim(), c.text.trim()))
                .collect();
            Some(Item {
                title: cell(title)
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| label.clone()),
                label,
                block,
                lines,
                wave,
                stated: deps.map(|_| {
                    cell(deps)
                        .unwrap_or_default()
                        .split([',', ';'])
                        .map(|d| d.trim().to_string())
                        .filter(|d| !d.is_empty())
                        .collect()
                }),
            })
        })
        .collect()
}

/// `1. **#37**: CI smoke tests` → (`#37`, `CI smoke tests`).
fn labelled(raw: &str) -> Option<(String, String)> {
    let t = raw.trim_start();
    let (n, rest) = t.split_once(". ")?;
    if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start().strip_prefix("**")?;
    let (label, title) = rest.split_once("**")?;
    let label = label.trim().trim_end_matches(':').trim();
    let title = title.trim_start_matches(':').trim();
    let code_like =
        label.len() <= 12 && label.chars().any(|c| c.is_ascii_digit()) && !label.contains(' ');
    (code_like && !title.is_empty()).then(|| (label.to_string(), title.replace("**", "")))
}

/// Whether `text` may say work runs at once (`parallel`, `concurrent`,
/// `simultaneous`), looked for in place: the word's first letter may be a
/// capital, so it is left out.
pub(super) fn may_say_at_once(text: &str) -> bool {
    [
        "arallel",
        "ARALLEL",
        "oncurren",
        "ONCURREN",
        "imultane",
        "IMULTANE",
        "並行",
        "並列",
        "并行",
        "병렬",
        "араллельн",
    ]
    .iter()
    .any(|w| text.contains(w))
}

pub(super) fn says_at_once(doc: &Doc, heading: usize) -> bool {
    // Most texts hold none of the words: a look in place first, a
    // lower-cased copy only then.
    let may_say = may_say_at_once;
    let own = doc.own_blocks(heading).map(|b| match &doc.blocks[b] {
        Block::Paragraph { text, .. } | Block::Item { text, .. } if may_say(text) => {
            text.to_lowercase()
        }
        _ => String::new(),
    });
    std::iter::once(
        doc.heading(heading)
            .filter(|h| may_say(h.1))
            .map_or(String::new(), |h| h.1.to_lowercase()),
    )
    .chain(own)
    .any(|t| text_says_at_once(&t))
}

/// Whether a section's own text says its work does not run at once
/// (`**Parallelizable:** No.`, `Do not run these in parallel`): a word of
/// running at once, denied.
pub(super) fn says_at_once_denied(doc: &Doc, heading: usize) -> bool {
    doc.own_blocks(heading).any(|b| match &doc.blocks[b] {
        Block::Paragraph { text, .. } | Block::Item { text, .. } if may_say_at_once(text) => {
            !text_says_at_once(&text.to_lowercase())
        }
        _ => false,
    })
}

/// Whether lower-cased `t` says work runs at once (`parallel`,
/// `concurrent`, `simultaneous`, `並行`, `병렬`) and does not deny it
/// around the word (`Do not run these in parallel`, `nicht parallel`,
/// `不并行`, `병렬로 실행하지 않음`, `Parallel: no`).
pub(super) fn text_says_at_once(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "parallel",
        "concurrent",
        "simultaneous",
        "並行",
        "並列",
        "并行",
        "병렬",
        "paralel",
        "параллельн",
    ];
    const DENIED: &[&str] = &[
        "not ", "n't ", "never ", "no ", "nicht", "non ", "sin ", "sans ", "без", "不", "않",
    ];
    let window = |from: usize, to: usize| {
        let (mut from, mut to) = (from, to.min(t.len()));
        while !t.is_char_boundary(from) {
            from -= 1;
        }
        while !t.is_char_boundary(to) {
            to += 1;
        }
        &t[from..to]
    };
    WORDS.iter().any(|w| {
        t.match_indices(w).any(|(at, _)| {
            let before = window(at.saturating_sub(24), at);
            let after = window(at + w.len(), at + w.len() + 16);
            let after_no = after
                .trim_start_matches(|c: char| c.is_alphanumeric())
                .trim_start_matches([':', ' ', '*'])
                .strip_prefix("no")
                .is_some_and(|rest| !rest.starts_with(char::is_alphabetic));
            !DENIED.iter().any(|n| before.contains(n)) && !after.contains('않') && !after_no
        })
    })
}

fn label_of(line: &str) -> String {
    line.split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_lowercase()
}

fn prerequisite_line(line: &str) -> bool {
    let label = label_of(line);
    [
        "prerequisites",
        "prerequisite",
        "depends on",
        "needs",
        "blocked by",
    ]
    .contains(&label.as_str())
}

/// The text of a `Success:` / `Acceptance:` line.
fn criterion_text(line: &str) -> Option<&str> {
    let label = label_of(line);
    let is = [
        "success",
        "acceptance",
        "done when",
        "exit criteria",
        "verify",
    ]
    .contains(&label.as_str());
    is.then(|| line.split_once(':').map_or("", |(_, t)| t.trim()))
}

#[cfg(test)]
mod tests {
    use super::labelled;
    use super::wave_number;

    #[test]
    fn wave_headings_and_labelled_items() {
        assert_eq!(wave_number("Wave 2: Enhancement (Parallel)"), Some(2));
        assert_eq!(wave_number("🌊 Wave 10"), Some(10));
        assert_eq!(wave_number("Waves of work"), None);
        assert_eq!(
            labelled("1. **#37**: CI: Add smoke tests"),
            Some(("#37".into(), "CI: Add smoke tests".into()))
        );
        assert_eq!(labelled("2. **Goal**: ship it"), None);
        assert_eq!(labelled("- **#37**: not numbered"), None);
    }
}
