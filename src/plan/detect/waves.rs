//! Plans that hand numbered items to agents in waves: `### Wave 1: …
//! (Parallel - Start Immediately)` holding `1. **#37**: CI smoke tests`
//! items, each with its own `- **Files**:`, `- **Prerequisites**:` and
//! `- **Success**:` lines. Each item is a unit of one sprint. A wave waits
//! for the whole wave before it; the items of a wave run at once only when
//! the wave itself says so (its heading or its own lines say "parallel"),
//! and an item's prerequisites naming earlier items are kept.

use super::criteria::classify_criterion;
use super::sprints::blank_sprint;
use super::sprints::code_paths;
use super::Block;
use super::Doc;
use super::Origin;
use super::RawSprint;
use super::RawUnit;
use super::SprintId;

struct Item {
    label: String,
    title: String,
    block: usize,
    lines: Vec<String>,
    wave: usize,
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
        let mut deps: Vec<String> = items
            .iter()
            .filter(|o| o.wave + 1 == item.wave)
            .map(|o| o.label.clone())
            .collect();
        if !parallel[item.wave] {
            if let Some(before) = k.checked_sub(1).map(|b| &items[b]) {
                if before.wave == item.wave {
                    deps.push(before.label.clone());
                }
            }
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
            if parallel[item.wave] {
                " (the wave runs its items in parallel)"
            } else {
                ""
            }
        );
        let mut unit = RawUnit::new(item.label.clone(), span.clone(), 0..0);
        unit.rule = why.clone();
        unit.origin = Origin::new(doc.line(span.start), why);
        unit.deps = deps.into_iter().map(|d| (d, span.clone())).collect();
        let id = SprintId {
            number: 1,
            suffix: String::new(),
        };
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
        sprint.origin = Origin::new(doc.line(span.start), "a numbered item of a wave");
        unit.sprints = vec![RawSprint { id, span, sprint }];
        units.push(unit);
    }
    Some(units)
}

/// `Wave 2: Enhancement …` → 2.
fn wave_number(text: &str) -> Option<u32> {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let rest = t.strip_prefix("wave ")?;
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
                    });
                }
            }
            Block::Item { text, .. } if open => {
                if let Some(last) = out.last_mut() {
                    last.lines.push(text.clone());
                }
            }
            Block::Heading { .. } => open = false,
            _ => {}
        }
    }
    out
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

fn says_at_once(doc: &Doc, heading: usize) -> bool {
    let own = doc.own_blocks(heading).map(|b| match &doc.blocks[b] {
        Block::Paragraph { text, .. } | Block::Item { text, .. } => text.to_lowercase(),
        _ => String::new(),
    });
    std::iter::once(
        doc.heading(heading)
            .map_or(String::new(), |h| h.1.to_lowercase()),
    )
    .chain(own)
    .any(|t| t.contains("parallel") || t.contains("concurrent") || t.contains("simultaneous"))
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
