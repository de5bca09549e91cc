//! Free text from the plan (unit names, the operation name) shown on a
//! terminal or in a commit subject: control characters and ANSI escapes are
//! written escaped (`\u{1b}`), so a name cannot recolour, move the cursor or
//! break a line.

use std::borrow::Cow;

/// `s` with every control character escaped (newlines too: a name is one
/// line).
pub fn visible(s: &str) -> Cow<'_, str> {
    escape(s, |_| true)
}

/// Multi-line text with control characters escaped except line breaks and
/// tabs.
pub fn visible_text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c != '\n' && c != '\t')
}

fn escape(s: &str, escaped: impl Fn(char) -> bool) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() && escaped(c);
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| {
                if bad(c) {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(visible("a\u{1b}[31mred\nx"), "a\\u{1b}[31mred\\u{a}x");
        assert_eq!(visible_text("a\u{7}\nb"), "a\\u{7}\nb");
        assert!(matches!(visible("CI/CD & Docs"), Cow::Borrowed(_)));
    }
}
