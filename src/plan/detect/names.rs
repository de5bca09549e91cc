//! A name as the plan writes it, read out of its markup: code marks,
//! emphasis, quotes and trailing slashes at its ends removed.

/// A name's code marks at its ends: the pair around a name that is all one
/// code span goes, and so does a stray mark; the closing mark of a code
/// span inside the name (`Schema \`db/schema.sql\``) stays with its span.
fn trim_code_marks(name: &str) -> &str {
    let (opens, closes) = (name.starts_with('`'), name.ends_with('`'));
    let marks = name.matches('`').count();
    match (opens, closes) {
        (true, true) if marks == 2 => &name[1..name.len() - 1],
        (true, _) if marks % 2 == 1 => &name[1..],
        (_, true) if marks % 2 == 1 => &name[..name.len() - 1],
        _ => name,
    }
}

/// A unit or dependency name as written: backticks, emphasis and trailing
/// slashes removed.
pub(crate) fn clean_name(s: &str) -> String {
    // Until nothing changes: `passes "/` loses the slash, then the quote,
    // so a written name reads back the same.
    let mut name = s;
    loop {
        let next = trim_code_marks(
            name.trim()
                .trim_matches(|c: char| c == '*' || c == '"')
                .trim(),
        )
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
