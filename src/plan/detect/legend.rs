//! A plan's own legend of marks: `* 🟢 — Hecho y en producción`, `🟢 Done
//! · 🟡 Partial · 🔴 Todo`, `| 🟩 | Completed |`. A symbol the legend says
//! means done is a done mark wherever the plan writes it, so every reader
//! of marks reads it as one: the symbol is written as `✅` in the masked
//! text (padded to its length), and the legend's own line is left alone.
//! Symbols that already mean done everywhere, and symbols the legend says
//! mean something else, are left as written.

/// Symbols that mean done without a legend.
const DONE_ALREADY: &[char] = &['✅', '✔', '☑'];

/// Rewrite each symbol the plan's legend defines as done into `✅`.
pub(super) fn mark_done_symbols(masked: &mut String) {
    let mut done: Vec<String> = Vec::new();
    let mut legend_lines: Vec<std::ops::Range<usize>> = Vec::new();
    let mut at = 0;
    for line in masked.split_inclusive('\n') {
        let found = legend_entries(line);
        if !found.is_empty() {
            legend_lines.push(at..at + line.len());
            for symbol in found {
                if !done.contains(&symbol) {
                    done.push(symbol);
                }
            }
        }
        at += line.len();
    }
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

/// The symbols a line of a legend says mean done: the line opens with a
/// symbol (after a list bullet, a quote or a table's pipe), and each entry
/// is a symbol then what it means (`🟢 — Hecho`, `🟩 = done`).
fn legend_entries(line: &str) -> Vec<String> {
    // Every line of the plan is asked: one that opens (after a bullet, a
    // quote or a pipe) with an ASCII byte is none, read without decoding.
    let lead = line
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'-' | b'*' | b'+' | b'>' | b'|'));
    if lead.is_none_or(|b| b.is_ascii()) {
        return Vec::new();
    }
    let t = line
        .trim()
        .trim_start_matches(['-', '*', '+', '>', '|'])
        .trim_start();
    if !t.starts_with(is_mark) {
        return Vec::new();
    }
    t.split(['|', '·', '•', ',', ';'])
        .filter_map(|entry| {
            let entry = entry.trim();
            let len: usize = entry
                .chars()
                .take_while(|&c| is_mark(c) || c == '\u{FE0F}')
                .map(char::len_utf8)
                .sum();
            let (symbol, meaning) = entry.split_at(len);
            if symbol.is_empty() || symbol.chars().count() > 2 || symbol.contains(DONE_ALREADY) {
                return None;
            }
            let meaning = meaning
                .trim_start()
                .trim_start_matches(['—', '–', '-', '=', ':', '→'])
                .trim();
            // A word, not another mark: `🟢 🟡` is no legend.
            meaning.starts_with(char::is_alphabetic).then_some(())?;
            super::completion::status_says_done(meaning).then(|| symbol.to_string())
        })
        .collect()
}

/// A pictograph or a geometric shape used as a mark (`🟢`, `🟩`, `●`).
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x25A0..=0x25FF | 0x2B00..=0x2BFF)
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
}
