//! The plan's YAML frontmatter as text: where it is (for the parser and the
//! canonical writer), setting `feature_name` (the ritual of `start` and
//! `name-feature`) without touching anything else, and comparing plans while
//! ignoring it.

const KEY: &str = "feature_name";

/// A `---` fence line (any line ending: `\n`, `\r\n`, or none at the end).
fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\n', '\r']) == "---"
}

/// The frontmatter's body range and where the block ends (after its
/// closing fence line), for any line ending.
fn block(source: &str) -> Option<(std::ops::Range<usize>, usize)> {
    // A byte-order mark before the opening `---` must not hide the block.
    let bom = bom_len(source);
    let mut lines = source[bom..].split_inclusive('\n');
    let first = lines.next()?;
    if !is_fence(first) || !first.ends_with('\n') {
        return None;
    }
    let start = bom + first.len();
    let mut at = start;
    for line in lines {
        if is_fence(line) {
            return Some((start..at, at + line.len()));
        }
        at += line.len();
    }
    None
}

/// The byte range of the frontmatter's body (between the `---` lines); the
/// one definition of where a plan's frontmatter is.
pub fn body_range(source: &str) -> Option<std::ops::Range<usize>> {
    block(source).map(|(body, _)| body)
}

/// The length of a UTF-8 byte-order mark at the start of `source`, if any.
fn bom_len(source: &str) -> usize {
    if source.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

/// Where the frontmatter block ends (after its closing `---` line).
pub fn block_end(source: &str) -> Option<usize> {
    block(source).map(|(_, end)| end)
}

/// The line ending the plan uses: a CRLF plan gets CRLF lines.
fn eol(source: &str) -> &'static str {
    match source.find('\n') {
        Some(i) if source[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

fn is_key_line(line: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(k, _)| k.trim() == KEY && !k.starts_with(' '))
}

/// `source` with `feature_name: <name>` in its frontmatter: the line is
/// replaced when present, added first otherwise, and a frontmatter block is
/// created when the plan has none.
pub fn set_feature_name(source: &str, name: &str) -> String {
    let nl = eol(source);
    let line = format!("{KEY}: \"{}\"{nl}", name.replace('"', "'"));
    match body_range(source) {
        Some(range) => {
            let body = &source[range.clone()];
            let mut new_body = String::new();
            let mut replaced = false;
            for l in body.split_inclusive('\n') {
                if is_key_line(l) && !replaced {
                    new_body.push_str(&line);
                    replaced = true;
                } else {
                    new_body.push_str(l);
                }
            }
            if !replaced {
                new_body = format!("{line}{new_body}");
            }
            format!(
                "{}{new_body}{}",
                &source[..range.start],
                &source[range.end..]
            )
        }
        None => {
            let (bom, rest) = source.split_at(bom_len(source));
            format!("{bom}---{nl}{line}---{nl}{nl}{rest}")
        }
    }
}

/// `source` without its `feature_name` line (and without a frontmatter
/// block that held nothing else): what plan drift compares.
pub fn without_feature_name(source: &str) -> String {
    let Some(range) = body_range(source) else {
        return source.to_string();
    };
    let body: String = source[range.clone()]
        .split_inclusive('\n')
        .filter(|l| !is_key_line(l))
        .collect();
    if body.trim().is_empty() {
        let rest = &source[block_end(source).unwrap_or(range.end)..];
        let rest = rest
            .strip_prefix("\r\n")
            .or_else(|| rest.strip_prefix('\n'))
            .unwrap_or(rest);
        return rest.to_string();
    }
    format!("{}{body}{}", &source[..range.start], &source[range.end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_replaces_and_ignores_the_name() {
        let plain = "# Plan\n\n## Sprint 1: A\n";
        let named = set_feature_name(plain, "Operation Rusty Yak");
        assert_eq!(
            named,
            "---\nfeature_name: \"Operation Rusty Yak\"\n---\n\n# Plan\n\n## Sprint 1: A\n"
        );
        assert_eq!(without_feature_name(&named), plain);
        let renamed = set_feature_name(&named, "Operation Velvet Otter");
        assert!(renamed.contains("feature_name: \"Operation Velvet Otter\"\n"));
        assert!(!renamed.contains("Rusty"));
        let other = "---\nowner: me\n---\n# Plan\n";
        let named = set_feature_name(other, "X");
        assert_eq!(named, "---\nfeature_name: \"X\"\nowner: me\n---\n# Plan\n");
        assert_eq!(without_feature_name(&named), other);
    }

    #[test]
    fn crlf_plans_keep_their_frontmatter() {
        let crlf = "---\r\nowner: me\r\nfeature_name: \"Mine\"\r\n---\r\n# Plan\r\n";
        assert_eq!(body_range(crlf), Some(5..38));
        assert_eq!(block_end(crlf), Some(43));
        let named = set_feature_name(crlf, "X");
        assert_eq!(
            named,
            "---\r\nowner: me\r\nfeature_name: \"X\"\r\n---\r\n# Plan\r\n"
        );
        assert_eq!(named.matches("---").count(), 2, "no second block");
        let bare = set_feature_name("# Plan\r\n", "X");
        assert_eq!(bare, "---\r\nfeature_name: \"X\"\r\n---\r\n\r\n# Plan\r\n");
        assert_eq!(without_feature_name(&bare), "# Plan\r\n");
        // A fence at the very end of the file closes the block too.
        assert_eq!(body_range("---\nowner: me\n---"), Some(4..14));
        assert_eq!(body_range("---\n---\n# P\n"), Some(4..4));
        assert_eq!(body_range("--- \n# P\n"), None);
    }

    #[test]
    fn a_byte_order_mark_hides_neither_the_block_nor_the_name() {
        let bom = "\u{feff}---\nowner: me\n---\n# Plan\n";
        let named = set_feature_name(bom, "X");
        assert_eq!(
            named,
            "\u{feff}---\nfeature_name: \"X\"\nowner: me\n---\n# Plan\n"
        );
        assert_eq!(set_feature_name(&named, "Y").matches("---\n").count(), 2);
        let bare = set_feature_name("\u{feff}# Plan\n", "X");
        assert_eq!(bare, "\u{feff}---\nfeature_name: \"X\"\n---\n\n# Plan\n");
        assert_eq!(without_feature_name(&named), bom);
    }
}
