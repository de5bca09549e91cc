//! `feature_name` in a plan's frontmatter: set it without touching anything
//! else (the ritual of `start` and `name-feature`), and compare plans while
//! ignoring it (plan drift).

use crate::plan::frontmatter::block_end;
use crate::plan::frontmatter::body_range;
use crate::plan::frontmatter::bom_len;
use crate::plan::frontmatter::eol;

const KEY: &str = "feature_name";

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
    use crate::plan::frontmatter::block_end;
    use crate::plan::frontmatter::body_range;

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
