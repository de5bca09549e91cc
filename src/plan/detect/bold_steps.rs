//! Steps written as bold lines instead of headings: under `## Phase 1`, a
//! paragraph that is only `**1.1 Initialize the project**` followed by its
//! own bullets is read as a heading one level down, so the phase's steps
//! are found like `### 1.1` sub-sections. Only a section with two or more
//! such lines numbered after the section itself (`1.1`, `1.2` under a
//! heading numbered 1) is read so; a lone bold label stays a paragraph.
//! So is a series of bold lines named by a step word and counted on through
//! the plan (`**Step 1: Scaffold**` … `**Step 11: Integrate**`, across the
//! phases that group them).

use super::Block;

/// The blocks with bold step lines turned into headings.
pub(super) fn promote_bold_steps(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let mut section: Option<(usize, u8, u32)> = None;
    let mut found: Vec<(usize, u8, String)> = Vec::new();
    let mut pending: Vec<(usize, u8, String)> = Vec::new();
    let flush = |pending: &mut Vec<(usize, u8, String)>, found: &mut Vec<(usize, u8, String)>| {
        if pending.len() >= 2 {
            found.append(pending);
        }
        pending.clear();
    };
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level, text, .. } => {
                flush(&mut pending, &mut found);
                section = first_number(text).map(|n| (i, *level, n));
            }
            Block::Paragraph { span, .. } => {
                let Some((_, level, number)) = section else {
                    continue;
                };
                let raw = source[span.clone()].trim();
                if let Some(text) = bold_step(raw, number) {
                    pending.push((i, (level + 1).min(6), text));
                }
            }
            _ => {}
        }
    }
    flush(&mut pending, &mut found);
    found.extend(counted_series(source, &blocks));
    found.extend(counted_items(source, &blocks));
    for (i, level, text) in found {
        let span = blocks[i].span();
        blocks[i] = Block::Heading { level, text, span };
    }
    blocks
}

/// `**1.2 Database schema**` (or `**1.2: …**`, `**1.2. …**`) under a
/// section numbered `number`: the line's text without the stars.
fn bold_step(raw: &str, number: u32) -> Option<String> {
    if raw.contains('\n') {
        return None;
    }
    let inner = raw.strip_prefix("**")?.strip_suffix("**")?.trim();
    if inner.contains("**") {
        return None;
    }
    let (major, rest) = inner.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[minor.len()..].trim_start_matches([':', '.', ')']);
    let named = after.starts_with(' ') && after.trim().len() >= 2;
    (major.parse() == Ok(number) && !minor.is_empty() && named).then(|| inner.to_string())
}

/// Bold lines `**Step N: name**` whose numbers count 1, 2, 3 … through the
/// plan, two or more: each a heading one level below its section.
fn counted_series(source: &str, blocks: &[Block]) -> Vec<(usize, u8, String)> {
    let mut level = 1;
    let mut series = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level: l, .. } => level = *l,
            Block::Paragraph { span, .. } => {
                let raw = source[span.clone()].trim();
                if let Some((n, text)) = counted_step(raw) {
                    series.push((i, (level + 1).min(6), text, n));
                }
            }
            _ => {}
        }
    }
    if !counts_from_one(&series) {
        return Vec::new();
    }
    series.into_iter().map(|(i, l, t, _)| (i, l, t)).collect()
}

/// Two or more labels whose numbers count 1, 2, 3 … in the order written.
fn counts_from_one(series: &[(usize, u8, String, u32)]) -> bool {
    series.len() >= 2
        && series
            .iter()
            .enumerate()
            .all(|(k, (_, _, _, n))| *n == k as u32 + 1)
}

/// Top-level list items led by a bold step label counted on through the
/// plan (`- **Day 1**:` … `- **Day 6**:` under `### Week 1` and `### Week
/// 2`), two or more, most with nested tasks of their own: each a heading
/// one level below its section, its nested lines its tasks.
fn counted_items(source: &str, blocks: &[Block]) -> Vec<(usize, u8, String)> {
    let mut level = 1;
    let mut series = Vec::new();
    let mut nested = 0;
    // The section an item sits in must be numbered (`### Week 1`): a
    // recipe's `- **Step 1**: start the stack` under `## How to reproduce`
    // is no step of the plan.
    let mut numbered = false;
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level: l, text, .. } => {
                level = *l;
                numbered = first_number(text).is_some();
            }
            Block::Item { depth: 0, .. } if !numbered => {}
            Block::Item { depth: 0, span, .. } => {
                // Most items open with no bold label: a look at the start
                // before the first line is cut out.
                let start = source[span.clone()]
                    .trim_start()
                    .trim_start_matches(['-', '*', '+'])
                    .trim_start();
                let Some(label) = start.strip_prefix("**") else {
                    continue;
                };
                if !label.starts_with(['D', 'd', 'S', 's', 'T', 't']) {
                    continue;
                }
                let first = start.lines().next().unwrap_or_default();
                if let Some((n, text)) = counted_label(first) {
                    if matches!(blocks.get(i + 1), Some(Block::Item { depth, .. }) if *depth > 0) {
                        nested += 1;
                    }
                    series.push((i, (level + 1).min(6), text, n));
                }
            }
            _ => {}
        }
    }
    if !counts_from_one(&series) || nested * 2 < series.len() {
        return Vec::new();
    }
    series.into_iter().map(|(i, l, t, _)| (i, l, t)).collect()
}

/// `- **Day 3**: Wire the API` (or `- **Step 3:** …`): its number and the
/// label with its name.
fn counted_label(line: &str) -> Option<(u32, String)> {
    const WORDS: &[&str] = &["day ", "step ", "task ", "stage "];
    // The list marker, when the line keeps it.
    let t = line.trim_start();
    let t = match t.strip_prefix("**") {
        Some(_) => t,
        None => t.strip_prefix(['-', '*', '+'])?.trim_start(),
    };
    let inner_and_rest = t.strip_prefix("**")?;
    let (inner, rest) = inner_and_rest.split_once("**")?;
    let inner = inner.trim().trim_end_matches(':');
    let word = WORDS.iter().find(|w| {
        inner
            .get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w))
    })?;
    let number = &inner[word.len()..];
    let digits: String = number.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    let inner_name = number[digits.len()..].trim_start_matches([':', ' ', '—', '–', '-']);
    let rest = rest.trim_start_matches([':', ' ', '—', '–', '-']).trim();
    let label = inner[..word.len() + digits.len()].trim();
    let name = if inner_name.is_empty() {
        rest
    } else {
        inner_name
    };
    Some(match name.is_empty() {
        true => (n, label.to_string()),
        false => (n, format!("{label}: {name}")),
    })
}

/// `**Step 3: lib/ core**` (or `**Task 3 — …**`): its number and text.
fn counted_step(raw: &str) -> Option<(u32, String)> {
    let inner = raw.strip_prefix("**")?.strip_suffix("**")?.trim();
    if inner.contains('\n') {
        return None;
    }
    if inner.contains("**") {
        return None;
    }
    let lower = inner.to_lowercase();
    let (word, len) = super::headings::Word::parse(&lower)?;
    let steps = [
        super::headings::Word::Step,
        super::headings::Word::Task,
        super::headings::Word::Sprint,
        super::headings::Word::Stage,
    ];
    if !steps.contains(&word) {
        return None;
    }
    let rest = inner[len..].strip_prefix(' ')?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    let after = &rest[digits.len()..];
    let name = [":", "：", " —", " –", " -", "."]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))?
        .trim();
    (!name.is_empty()).then(|| (n, inner.to_string()))
}

/// The first number in a heading (`Phase 3: Payments` → 3).
fn first_number(text: &str) -> Option<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::bold_step;

    #[test]
    fn only_numbered_bold_lines_of_the_section() {
        assert_eq!(
            bold_step("**1.2 Database Schema**", 1).as_deref(),
            Some("1.2 Database Schema")
        );
        assert_eq!(
            bold_step("**2.1: Pricing**", 2).as_deref(),
            Some("2.1: Pricing")
        );
        assert_eq!(bold_step("**2.1 Pricing**", 1), None);
        assert_eq!(bold_step("**Exit Criteria:**", 1), None);
        assert_eq!(bold_step("**1.2** and more text", 1), None);
        assert_eq!(bold_step("**1.5x faster**", 1), None);
    }

    #[test]
    fn bold_lines_counted_by_a_step_word() {
        use super::counted_step;
        assert_eq!(
            counted_step("**Step 3: lib/ 核心逻辑**"),
            Some((3, "Step 3: lib/ 核心逻辑".to_string()))
        );
        assert_eq!(counted_step("**Task 2 — Parser**").map(|s| s.0), Some(2));
        assert_eq!(counted_step("**Step 3**"), None);
        assert_eq!(counted_step("**Phase 2: Build**"), None);
        assert_eq!(counted_step("**Stepping stones: 3**"), None);
    }

    #[test]
    fn list_items_led_by_a_counted_label() {
        use super::counted_label;
        assert_eq!(
            counted_label("- **Day 1**: "),
            Some((1, "Day 1".to_string()))
        );
        assert_eq!(
            counted_label("- **Step 2:** Wire the API").map(|s| s.1),
            Some("Step 2: Wire the API".to_string())
        );
        assert_eq!(counted_label("- **Daily standup**"), None);
        assert_eq!(counted_label("- Day 1"), None);
    }
}
