//! Substring search tuned for the short lines a plan is made of.
//!
//! `str::find(&str)` prepares a two-way searcher on every call, which costs
//! more than the search itself on a heading or a list item; the reader asks
//! such questions of every line of a 20,000-sprint plan. Here the needle's
//! first character that is not a space is found with `str::find(char)`
//! (memchr) and the rest compared in place. Same answers as `str::find`.

/// The byte offset of the first `needle` in `hay`.
pub(crate) fn find(hay: &str, needle: &str) -> Option<usize> {
    let Some((lead, anchor)) = needle.char_indices().find(|(_, c)| *c != ' ') else {
        return hay.find(needle);
    };
    let mut from = 0;
    while let Some(p) = hay[from..].find(anchor) {
        let a = from + p;
        if a >= lead && hay.is_char_boundary(a - lead) && hay[a - lead..].starts_with(needle) {
            return Some(a - lead);
        }
        from = a + anchor.len_utf8();
    }
    None
}

/// `str::split_once` with a string needle.
pub(crate) fn split_once<'a>(hay: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let at = find(hay, needle)?;
    Some((&hay[..at], &hay[at + needle.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_str_find_does() {
        let hays = [
            "",
            "Sprint 1: Parser",
            "API — Sprint 2 — Done",
            "a-b - c",
            "  - x",
            "— —",
            "depends on depends on x",
            "ünïcödé — Sprint 3",
            "é —",
            "—x — y",
            " :",
        ];
        let needles = [" — ", ": ", " - ", "depends on ", " ", "—", "x", "ö"];
        for h in hays {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "{h:?} / {n:?}");
                assert_eq!(split_once(h, n), h.split_once(n), "{h:?} / {n:?}");
            }
        }
    }
}
