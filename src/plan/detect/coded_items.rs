//! The last reading before a refusal, beside numbered bold items: list
//! items at any depth that open with a work item's code and a name
//! (`- TASK-A1｜Service consolidation`, `- [ ] US-12: Export`), two or more,
//! or with a short code counted in one series (`- M0 Base and CI: …`,
//! `- M1 Schema: …`, `- M2 …`), three or more. Each becomes a heading one
//! level below its section, in the order written; a plan that names work
//! only by such codes has no other form.

use super::Block;

/// `TASK-A1｜Name`, `US-12: Name`, `T-3 — Name`: the code and the name.
fn coded_line(line: &str) -> Option<(&str, &str)> {
    let t = super::outline::item_label(line).trim_start_matches('*');
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(t.len());
    let code = t[..end].trim_end_matches(['.', '-']);
    let (letters, rest) = code.split_once('-')?;
    let shaped = (1..=8).contains(&letters.len())
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && !rest.is_empty()
        && rest.chars().any(|c| c.is_ascii_digit());
    if !shaped {
        return None;
    }
    let name = t[code.len()..]
        .trim_start_matches('*')
        .trim_start()
        .strip_prefix(['｜', '|', ':', '：', '—', '–', '-'])?
        .trim();
    (!name.is_empty()).then_some((code, name))
}

/// `M0 Base and CI: …`, `P2｜Auth`: a short code of capitals run into a
/// number, then the name → (the capitals, the number, the name). Alone such a code says little (`Q3 goals`); counted in a
/// series it names steps.
fn series_line(line: &str) -> Option<(&str, u32, &str)> {
    let t = super::outline::item_label(line).trim_start_matches('*');
    let letters = t.chars().take_while(char::is_ascii_uppercase).count();
    let digits = t[letters..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count();
    if !(1..=3).contains(&letters) || !(1..=3).contains(&digits) {
        return None;
    }
    let rest = &t[letters + digits..];
    let name = rest
        .trim_start_matches('*')
        .trim_start_matches([' ', '｜', '|', ':', '：', '—', '–'])
        .trim();
    if rest.len() == name.len()
        || name.is_empty()
        || !rest.starts_with([' ', '｜', '|', ':', '：', '*'])
    {
        return None;
    }
    let number = t[letters..letters + digits].parse().ok()?;
    Some((&t[..letters], number, name))
}

/// The items (block index, checked) of the longest run of short codes of
/// one series counted up by one in the order written (`M0`, `M1`, …
/// `M12`), three or more.
fn series_items(source: &str, blocks: &[Block]) -> Vec<usize> {
    // A plan with boxes has its steps in them, a flat checklist read
    // after this; `- M1 MacBook Air` or `- P0 Blocker` beside them are
    // things of another kind.
    if blocks.iter().any(|b| {
        matches!(
            b,
            Block::Item {
                checked: Some(_),
                ..
            }
        )
    }) {
        return Vec::new();
    }
    let mut best: Vec<usize> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut last: Option<(String, u32)> = None;
    for (i, b) in blocks.iter().enumerate() {
        let Block::Item { span, .. } = b else {
            continue;
        };
        let first = source[span.clone()].lines().next().unwrap_or_default();
        let Some((letters, n, _)) = series_line(first) else {
            continue;
        };
        let next = last
            .as_ref()
            .is_some_and(|(l, m)| l == letters && *m + 1 == n);
        if !next {
            run.clear();
        }
        run.push(i);
        last = Some((letters.to_string(), n));
        if run.len() > best.len() {
            best = run.clone();
        }
    }
    if best.len() >= 3 {
        best
    } else {
        Vec::new()
    }
}

/// Coded items as headings, when two or more are found, and items of one
/// counted series, when three or more are.
pub(super) fn promote_coded_items(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let series: std::collections::HashSet<usize> =
        series_items(source, &blocks).into_iter().collect();
    let mut level = 1u8;
    let mut coded: Vec<(usize, u8, String)> = Vec::new();
    let mut counted: Vec<(usize, u8, String)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Heading { level: l, .. } => level = *l,
            Block::Item { span, checked, .. } => {
                let first = source[span.clone()].lines().next().unwrap_or_default();
                let mark = super::outline::box_mark(*checked);
                let at = (level + 1).min(6);
                if let Some((code, name)) = coded_line(first) {
                    coded.push((i, at, format!("{mark}{code}: {name}")));
                } else if series.contains(&i) {
                    if let Some((letters, n, name)) = series_line(first) {
                        counted.push((i, at, format!("{mark}{letters}{n}: {name}")));
                    }
                }
            }
            _ => {}
        }
    }
    if coded.len() < 2 {
        coded.clear();
    }
    for (i, level, text) in coded.into_iter().chain(counted) {
        super::outline::into_heading(&mut blocks, i, level, text);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_lines() {
        assert_eq!(
            coded_line("  - TASK-A1｜Service consolidation"),
            Some(("TASK-A1", "Service consolidation"))
        );
        assert_eq!(coded_line("- [ ] US-12: Export"), Some(("US-12", "Export")));
        assert_eq!(coded_line("- Use UTF-8: always"), None);
        assert_eq!(coded_line("- plain words"), None);
    }

    #[test]
    fn series_lines() {
        assert_eq!(
            series_line("- M0 Base/CI: pnpm, pytest"),
            Some(("M", 0, "Base/CI: pnpm, pytest"))
        );
        assert_eq!(series_line("- **P2**: Auth").map(|s| s.1), Some(2));
        assert_eq!(series_line("- 2FA for admins"), None);
        assert_eq!(series_line("- M2M sync"), None);
        assert_eq!(series_line("- plain words"), None);
    }
}
