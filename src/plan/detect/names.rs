//! A name as the plan writes it, read out of its markup: code marks,
//! emphasis, quotes and trailing slashes at its ends removed.

/// A unit or dependency name as written: backticks, emphasis and trailing
/// slashes removed. Code marks that pair up are markup, dropped as the
/// canonical form's reader drops them (`Schema \`db/schema.sql\`` is
/// `Schema db/schema.sql`); a stray one goes where it ends the name.
pub(crate) fn clean_name(s: &str) -> String {
    let paired;
    // Only a mark at an end is trimmed, so only a name with one there is
    // looked through for its pairs: most names are not.
    let t = s.trim();
    let marks = match t.starts_with('`') || t.ends_with('`') {
        true => s.matches('`').count(),
        false => 0,
    };
    let mut name = match marks {
        n if n > 0 && n % 2 == 0 => {
            paired = s.replace('`', "");
            paired.as_str()
        }
        _ => s,
    };
    // Until nothing changes: `passes "/` loses the slash, then the quote,
    // so a written name reads back the same.
    loop {
        let next = name
            .trim()
            .trim_matches(|c: char| c == '`' || c == '*' || c == '"')
            .trim()
            .trim_end_matches('/')
            .trim_end();
        if next == name {
            // A tab or a vertical tab inside a name reads back as a space
            // from a table cell: it is one here too.
            if name.contains(|c: char| c.is_whitespace() && c != ' ') {
                return name
                    .chars()
                    .map(|c| if c.is_whitespace() { ' ' } else { c })
                    .collect();
            }
            return name.to_string();
        }
        name = next;
    }
}

/// The word a name opens with before its number, lower-cased, and the
/// number (`Wave 4: Generated files` → `wave`, 4; `**Phase 2**` →
/// `phase`, 2): how a step names its series, whatever the word.
pub(super) fn word_and_number(name: &str) -> Option<(String, u32)> {
    let mut words = name.split_whitespace();
    let word = words.next()?.trim_matches(['*', '`', '#']).to_lowercase();
    let number = words.next()?.trim_start_matches(['*', '`']);
    let digits = number.chars().take_while(char::is_ascii_digit).count();
    let n = number[..digits].parse().ok()?;
    (!word.is_empty() && word.chars().all(char::is_alphabetic)).then_some((word, n))
}
