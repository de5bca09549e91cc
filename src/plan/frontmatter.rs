//! The plan's YAML frontmatter as text: where it is (for the parser and the
//! canonical writer), setting `feature_name` (the ritual of `start` and
//! `name-feature`) without touching anything else, and comparing plans while
//! ignoring it.

const KEY: &str = "feature_name";

/// The byte range of the frontmatter's body (between the `---` lines); the
/// one definition of where a plan's frontmatter is.
pub fn body_range(source: &str) -> Option<std::ops::Range<usize>> {
    // A byte-order mark before the opening `---` must not hide the block.
    let start = bom_len(source) + 4;
    let rest = source[bom_len(source)..].strip_prefix("---\n")?;
    if rest.starts_with("---\n") || rest == "---" {
        return Some(start..start);
    }
    let end = rest.find("\n---\n").map(|e| e + 1).or_else(|| {
        rest.strip_suffix("---")
            .filter(|r| r.is_empty() || r.ends_with('\n'))
            .map(str::len)
    })?;
    Some(start..start + end)
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
    body_range(source).map(|r| (r.end + 4).min(source.len()))
}

fn is_key_line(line: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(k, _)| k.trim() == KEY && !k.starts_with(' '))
}

/// `source` with `feature_name: <name>` in its frontmatter: the line is
/// replaced when present, added first otherwise, and a frontmatter block is
/// created when the plan has none.
pub fn set_feature_name(source: &str, name: &str) -> String {
    let line = format!("{KEY}: \"{}\"\n", name.replace('"', "'"));
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
            format!("{bom}---\n{line}---\n\n{rest}")
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
        let rest = &source[range.end..];
        let rest = rest
            .strip_prefix("---\n")
            .or_else(|| rest.strip_prefix("---"))
            .unwrap_or(rest);
        return rest.strip_prefix('\n').unwrap_or(rest).to_string();
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
