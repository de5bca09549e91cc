//! A plan's own legend of marks: `* 🟢 — Hecho y en producción` over `* 🔴
//! — Pendiente`, `🟢 Done · 🟡 Partial · 🔴 Todo`, `| 🟩 | Completed |`
//! over `| 🟥 | Open |`. A legend tells states apart: two or more entries
//! on one line or on lines one after another, one done and one not; a
//! lone `- 🚀 Complete the migration` is a task, not a legend. A symbol the
//! legend says means done is a done mark wherever the plan writes it, so
//! every reader of marks reads it as one: the symbol is written as `✅` in
//! the masked text (padded to its length), and the legend's own lines are
//! left alone. Symbols that already mean done everywhere, and symbols the
//! legend says mean something else, are left as written. A section named
//! a legend whose boxes are the marks' meanings (`## Status Legend` over
//! `- [ ] Not started`) holds no step.

use super::completion::MARK_EMOJI;
use super::line_marks::PENDING;

/// Rewrite each symbol the plan's legend defines as done into `✅`.
pub(super) fn mark_done_symbols(masked: &mut String) {
    let mut done: Vec<String> = Vec::new();
    let mut legend_lines: Vec<std::ops::Range<usize>> = Vec::new();
    // The run of lines with entries being read: their ranges and entries.
    let mut run: (Vec<std::ops::Range<usize>>, Vec<(String, bool)>) = Default::default();
    let mut close = |run: &mut (Vec<std::ops::Range<usize>>, Vec<(String, bool)>)| {
        let (lines, entries) = std::mem::take(run);
        let states = entries.iter().any(|(_, d)| *d) && entries.iter().any(|(_, d)| !d);
        if states {
            legend_lines.extend(lines);
            for (symbol, _) in entries.into_iter().filter(|(_, d)| *d) {
                if !done.contains(&symbol) {
                    done.push(symbol);
                }
            }
        }
    };
    let mut at = 0;
    for line in masked.split_inclusive('\n') {
        let found = legend_entries(line);
        if found.is_empty() {
            close(&mut run);
        } else {
            run.0.push(at..at + line.len());
            run.1.extend(found);
        }
        at += line.len();
    }
    close(&mut run);
    if done.is_empty() {
        return;
    }
    let mut out = String::with_capacity(masked.len());
    let mut at = 0;
    for line in masked.split_inclusive('\n') {
        let range = at..at + line.len();
        at += line.len();
        if legend_lines.contains(&range) {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        'scan: while !rest.is_empty() {
            for symbol in &done {
                if let Some(after) = rest.strip_prefix(symbol.as_str()) {
                    out.push('✅');
                    out.extend(std::iter::repeat_n(' ', symbol.len() - '✅'.len_utf8()));
                    rest = after;
                    continue 'scan;
                }
            }
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    *masked = out;
}

/// A legend of boxes, `Status markers: `[ ]` pending | `[x]` done | `[~]`
/// in progress | `[-]` skipped`: a box whose meaning says done or left
/// out (skipped, cancelled) is ticked wherever a list item opens with it,
/// written `[x]` in the masked text (the same length). Without such a
/// legend `[-]` stays open: Kiro writes it for work in progress.
pub(super) fn mark_legend_boxes(masked: &mut String) {
    // A legend names `[ ]` beside the others: most plans have none, and
    // cost one search.
    if !masked.contains("[ ]") {
        return;
    }
    let mut ticked: Vec<u8> = Vec::new();
    let mut legend_at = None;
    // Only lines that name `[ ]` after a word (`Legend: `[ ]` open`) are
    // asked: a task's line (`- [ ] …`) has no word before its box.
    // (Each line is looked at once, at its first `[ ]`: a line of many
    // boxes costs one pass.)
    let mut asked_to = 0;
    for (pos, _) in masked.match_indices("[ ]") {
        if pos < asked_to {
            continue;
        }
        let start = masked[..pos].rfind('\n').map_or(0, |n| n + 1);
        let end = masked[pos..].find('\n').map_or(masked.len(), |n| pos + n);
        asked_to = end;
        if !masked[start..pos]
            .bytes()
            .any(|b| b.is_ascii_alphabetic() || b >= 0x80)
        {
            continue;
        }
        let line = masked[start..end].trim_end_matches('\r');
        if line.bytes().filter(|&b| b == b'[').count() < 3 {
            continue;
        }
        let entries = box_entries(line);
        let states = entries.iter().any(|(c, _)| *c == b' ') && entries.len() >= 3;
        if states {
            ticked.extend(
                entries
                    .iter()
                    .filter(|(c, done)| *done && !matches!(c, b'x' | b'X' | b' '))
                    .map(|(c, _)| *c),
            );
            legend_at = Some(start..end);
            break;
        }
    }
    let Some(legend) = legend_at.filter(|_| !ticked.is_empty()) else {
        return;
    };
    let mut marks = Vec::new();
    for (at, line) in line_starts(masked) {
        if legend.contains(&at) {
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let Some(rest) = line[lead..].strip_prefix(['-', '*', '+']) else {
            continue;
        };
        let b = rest.as_bytes();
        if b.len() >= 4 && b[0] == b' ' && b[1] == b'[' && b[3] == b']' && ticked.contains(&b[2]) {
            marks.push(at + lead + 3);
        }
    }
    // SAFETY of offsets: each is an ASCII byte of a `[c]` box.
    let mut bytes = std::mem::take(masked).into_bytes();
    for m in marks {
        bytes[m] = b'x';
    }
    *masked = String::from_utf8(bytes).expect("an ASCII byte replaced by an ASCII byte");
}

/// Symbols that say a box is ticked beside the done marks: `√`, `☒`.
const TICKED_BOXES: &[char] = &['√', '☒'];

/// A box holding a state symbol (`- [⏳] Deploy`, `- [✓] Tests`, `- [🔗]
/// Vercel configured` where the plan's legend says `🔗 Pendente de infra`)
/// is a box, as its author means it: ticked where the symbol says done
/// (`✓`, `√`, `✅`, or a symbol the legend says means done, already
/// written `✅`), open otherwise. A symbol is a state where it is one of
/// the known ones or a line outside the lists names it beside another
/// state (a legend); a category drawn in a box (`[🐛] Fix the crash`,
/// `[✨] Dark mode`) is none and stays as written, as do letters (`[済]`)
/// and `[❌]`, `[✗]` (dropped or failed, which no box says). Written `[x]`
/// or `[ ]` in the masked text, padded to the same length; code blocks
/// are left alone.
pub(super) fn mark_symbol_boxes(masked: &mut String) {
    // Most plans have no such box: one byte search for `[` then a byte
    // outside ASCII.
    let bytes = masked.as_bytes();
    if masked.is_ascii()
        || !masked
            .match_indices('[')
            .any(|(i, _)| bytes.get(i + 1).is_some_and(|&b| b >= 0x80))
    {
        return;
    }
    let mut boxes: Vec<(usize, usize, char)> = Vec::new();
    let mut fence: Option<&str> = None;
    // Lines outside lists that write a known state symbol: where a legend
    // would name the others.
    let mut legend_lines: Vec<&str> = Vec::new();
    for (at, line) in line_starts(masked) {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            continue;
        }
        let lead = line.len() - t.len();
        let after_marker = t
            .strip_prefix(['-', '*', '+'])
            .or_else(|| {
                let digits = t.bytes().take_while(u8::is_ascii_digit).count();
                (digits > 0)
                    .then(|| t[digits..].strip_prefix(['.', ')']))
                    .flatten()
            })
            .filter(|r| r.starts_with(' '));
        let Some(rest) = after_marker else {
            let known = t.contains(MARK_EMOJI) || t.contains(TICKED_BOXES) || t.contains(PENDING);
            if !t.starts_with('#') && known {
                legend_lines.push(t);
            }
            continue;
        };
        let rest = rest.trim_start();
        let Some(inner) = rest.strip_prefix('[') else {
            continue;
        };
        let Some(close) = inner.find(']') else {
            continue;
        };
        let symbol = inner[..close]
            .trim()
            .trim_end_matches(['\u{fe0f}', '\u{fe0e}']);
        let mut chars = symbol.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            continue;
        };
        if c.is_ascii() || c.is_alphanumeric() {
            continue;
        }
        let start = at + lead + (t.len() - rest.len());
        boxes.push((start, close + 2, c));
    }
    let ticked = |c: char| MARK_EMOJI.contains(&c) || TICKED_BOXES.contains(&c);
    let state =
        |c: char| ticked(c) || PENDING.contains(&c) || legend_lines.iter().any(|l| l.contains(c));
    let boxes: Vec<(usize, usize, bool)> = boxes
        .into_iter()
        .filter(|&(_, _, c)| state(c))
        .map(|(start, len, c)| (start, len, ticked(c)))
        .collect();
    for (start, len, done) in boxes.into_iter().rev() {
        let mark = if done { "[x]" } else { "[ ]" };
        let written = format!("{mark}{}", " ".repeat(len - 3));
        masked.replace_range(start..start + len, &written);
    }
}

/// Each line of the text and the offset it starts at.
fn line_starts(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line.trim_end_matches(['\n', '\r'])))
    })
}

/// The boxes a line of a legend names, each with whether its meaning says
/// done or left out: `` `[x]` done ``, `[-] skipped`, on one line. The
/// line is named a legend (`Legend:`, `Status markers:`, `凡例`) before
/// its first box, each meaning is a word or a few, and nothing but
/// separators stands between the entries: a sentence that lists boxes
/// (`the renderer reads `[ ]` open, `[x]` done, …`) is no legend, nor is
/// `[-] done, needs review`.
fn box_entries(line: &str) -> Vec<(u8, bool)> {
    const NAMES: &[&str] = &[
        "legend",
        "key",
        "marker",
        "status",
        "state",
        "symbol",
        "legende",
        "leyenda",
        "legenda",
        "légende",
        "обозначени",
        "статус",
        "凡例",
        "图例",
        "圖例",
        "状态",
        "状態",
        "범례",
        "상태",
    ];
    let Some(first) = line.find('[') else {
        return Vec::new();
    };
    let head = line[..first].to_lowercase();
    if !NAMES.iter().any(|n| head.contains(n)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut rest = &line[first..];
    while let Some(p) = rest.find('[') {
        // Between entries: separators, quotes and spaces only.
        if rest[..p]
            .chars()
            .any(|c| c.is_alphanumeric() && !out.is_empty())
        {
            return Vec::new();
        }
        let b = rest.as_bytes();
        if b.len() < p + 3 || b[p + 2] != b']' || !b[p + 1].is_ascii() {
            rest = &rest[p + 1..];
            continue;
        }
        let symbol = b[p + 1];
        let after = &rest[p + 3..];
        let end = after.find(['[', '|', ',', ';', '·']).unwrap_or(after.len());
        let meaning = after[..end]
            .trim_start_matches(['`', ' ', '=', ':', '-', '—', '–', '→'])
            .trim_end_matches(['`', ' '])
            .trim();
        if !meaning.starts_with(char::is_alphabetic) || meaning.split_whitespace().count() > 4 {
            return Vec::new();
        }
        let done =
            super::completion::status_says_done(meaning) || super::status_words::left_out(meaning);
        out.push((symbol, done));
        rest = &after[end..];
    }
    out
}

/// The entries of a line of a legend, each a symbol and whether what it
/// means is done: the line opens with a symbol (after a list bullet, a
/// quote or a table's pipe), and each entry is a symbol then a word
/// (`🟢 — Hecho`, `🟩 = done`), or a table row of the symbol's cell and
/// the meaning's.
fn legend_entries(line: &str) -> Vec<(String, bool)> {
    // Every line of the plan is asked: one that opens (after a bullet, a
    // quote or a pipe) with an ASCII byte is none, read without decoding.
    let lead = line
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'-' | b'*' | b'+' | b'>' | b'|'));
    if lead.is_none_or(|b| b.is_ascii()) {
        return Vec::new();
    }
    let trimmed = line.trim();
    if trimmed.starts_with('|') {
        let cells: Vec<&str> = trimmed
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        return match cells.as_slice() {
            [symbol, meaning, ..] => entry(&format!("{symbol} {meaning}")).into_iter().collect(),
            _ => Vec::new(),
        };
    }
    let t = trimmed
        .trim_start_matches(['-', '*', '+', '>'])
        .trim_start();
    if !t.starts_with(is_mark) {
        return Vec::new();
    }
    t.split(['·', '•', ',', ';', '|'])
        .filter_map(entry)
        .collect()
}

/// `🟢 — Hecho`: the symbol, and whether its meaning says done; None when
/// no word follows the symbol or the symbol means done already.
fn entry(text: &str) -> Option<(String, bool)> {
    let entry = text.trim();
    let len: usize = entry
        .chars()
        .take_while(|&c| is_mark(c) || c == '\u{FE0F}')
        .map(char::len_utf8)
        .sum();
    let (symbol, meaning) = entry.split_at(len);
    if symbol.is_empty()
        || symbol.chars().count() > 2
        || symbol.contains(super::completion::MARK_EMOJI)
    {
        return None;
    }
    let meaning = meaning
        .trim_start()
        .trim_start_matches(['—', '–', '-', '=', ':', '→'])
        .trim();
    // A word, not another mark: `🟢 🟡` is no legend.
    meaning.starts_with(char::is_alphabetic).then_some(())?;
    Some((
        symbol.to_string(),
        super::completion::status_says_done(meaning),
    ))
}

/// A legend written in a sentence, `update the status emoji to one of: ✅
/// (done), ⬜ (not done), ⚠️ (in progress)`: each symbol then its meaning
/// in parentheses, one meaning done and one not. The symbols meaning done,
/// and the others: a list item led by one is ticked or open by the plan's
/// own word (`bare_boxes`).
pub(super) fn sentence_legend(masked: &str) -> Option<(Vec<String>, Vec<String>)> {
    // Every ` (` of the plan is looked at, the lines of those after a mark
    // read: most plans have none, and cost one search.
    let mut last_line = usize::MAX;
    // (A one-byte search: a two-byte pattern costs a searcher's set-up and
    // more steps per byte over the whole plan.)
    for (open, _) in masked.match_indices('(') {
        let Some(p) = open
            .checked_sub(1)
            .filter(|&p| masked.as_bytes()[p] == b' ')
        else {
            continue;
        };
        let before = &masked[..p];
        if !before
            .chars()
            .next_back()
            .is_some_and(|c| is_mark(c) || c == '\u{FE0F}')
        {
            continue;
        }
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        if start == last_line {
            continue;
        }
        last_line = start;
        let end = masked[p..].find('\n').map_or(masked.len(), |i| p + i);
        if let Some(found) = line_legend(&masked[start..end]) {
            return Some(found);
        }
    }
    None
}

/// The entries of one line of a legend in a sentence: (done, open), when
/// it holds both.
fn line_legend(line: &str) -> Option<(Vec<String>, Vec<String>)> {
    let (mut done, mut open) = (Vec::new(), Vec::new());
    let mut rest = line;
    while let Some(p) = rest.find(" (") {
        let before = &rest[..p];
        let after = &rest[p + 2..];
        let Some(close) = after.find(')') else { break };
        let symbol_len: usize = before
            .chars()
            .rev()
            .take_while(|&c| is_mark(c) || c == '\u{FE0F}')
            .map(char::len_utf8)
            .sum();
        let meaning = &after[..close];
        if symbol_len > 0 && meaning.starts_with(char::is_alphabetic) {
            let symbol = before[before.len() - symbol_len..].to_string();
            match super::completion::status_says_done(meaning) {
                true => done.push(symbol),
                false => open.push(symbol),
            }
        }
        rest = &after[close + 1..];
    }
    (!done.is_empty() && !open.is_empty()).then_some((done, open))
}

/// A pictograph or a geometric shape used as a mark (`🟢`, `🟩`, `●`).
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x25A0..=0x25FF | 0x2B00..=0x2BFF)
}

/// `## Status Legend` holding `- [ ] Not started`, `- [x] Completed`: a
/// section named a legend whose boxes are a few words each, the marks'
/// meanings; a legend section of tasks (`- [ ] Draw the map's legend for
/// the print edition`) is work.
pub(super) fn legend_of_marks(doc: &super::Doc, i: usize, text: &str) -> bool {
    if !super::about_plan::names_legend(text) {
        return false;
    }
    let items: Vec<&str> = doc
        .own_blocks(i)
        .filter_map(|b| match &doc.blocks[b] {
            super::Block::Item { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    !items.is_empty() && items.len() <= 6 && items.iter().all(|t| t.split_whitespace().count() <= 3)
}

#[cfg(test)]
mod tests {
    use super::mark_done_symbols;

    #[test]
    fn a_symbol_the_legend_says_is_done_is_a_done_mark_elsewhere() {
        let mut text = "* 🟢 — Hecho y en producción\n* 🔴 — Pendiente\n\n| Item | Estado |\n|---|---|\n| A | 🟢 |\n| B | 🔴 |\n".to_string();
        let len = text.len();
        mark_done_symbols(&mut text);
        assert_eq!(text.len(), len);
        assert!(text.starts_with("* 🟢 — Hecho"), "{text}");
        assert!(text.contains("| A | ✅  |"), "{text}");
        assert!(text.contains("| B | 🔴 |"), "{text}");
    }

    #[test]
    fn one_line_of_entries_and_no_legend() {
        let mut text = "🟩 Done · 🟨 Partial\n\n- 🟩 Parser\n- 🟨 Lexer\n".to_string();
        mark_done_symbols(&mut text);
        assert!(text.contains("- ✅  Parser"), "{text}");
        assert!(text.contains("- 🟨 Lexer"), "{text}");
        let mut plain = "- 🟢 Parser\n- 🔴 Lexer\n".to_string();
        mark_done_symbols(&mut plain);
        assert_eq!(plain, "- 🟢 Parser\n- 🔴 Lexer\n");
    }

    #[test]
    fn a_task_opening_with_a_done_word_is_no_legend() {
        let text = "## 🚀 Phase 1\n\n- 🚀 Complete the migration to the new API\n".to_string();
        let mut read = text.clone();
        mark_done_symbols(&mut read);
        assert_eq!(read, text);
    }

    #[test]
    fn a_legend_in_a_sentence_names_done_and_open_symbols() {
        let text =
            "> Update the status emoji to one of: ✅ (done), ⬜ (not done), ⚠️ (in progress).\n";
        let (done, open) = super::sentence_legend(text).expect("a legend");
        assert_eq!(done, ["✅"]);
        assert_eq!(open, ["⬜", "⚠️"]);
        assert!(super::sentence_legend("- Fix the parser (done by hand)\n").is_none());
    }

    #[test]
    fn a_table_of_marks_is_a_legend() {
        let mut text =
            "| Mark | Meaning |\n|---|---|\n| 🟩 | Completed |\n| 🟥 | Open |\n\n- 🟩 Parser\n"
                .to_string();
        mark_done_symbols(&mut text);
        assert!(text.contains("- ✅  Parser"), "{text}");
    }
}
