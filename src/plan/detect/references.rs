//! Progress, TODO and status files the plan mentions (spec §E-27).
//!
//! Shapes recognised: `PROGRESS.md`, `TODO.md`, `STATUS.md`, `NOTES.md`,
//! `DECISIONS.md`, `CHANGELOG.md`, `CONTEXT.md` (and `.toml`), with or
//! without a directory, anywhere in the text.

use super::*;

pub(super) const REFERENCED_STEMS: &[&str] = &[
    "PROGRESS",
    "TODO",
    "STATUS",
    "NOTES",
    "DECISIONS",
    "CHANGELOG",
    "CONTEXT",
];

/// Progress, TODO and status files the plan mentions (spec §E-27).
pub(super) fn referenced_files(source: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for word in source.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '(' | ')' | '[' | ']' | ',' | '"' | '\'' | '*' | '|'
            )
    }) {
        // `)` splits words, so `.)` needs no trimming of its own.
        let word = word.trim_end_matches([':', ';', '.']);
        let Some(stem) = word
            .strip_suffix(".md")
            .or_else(|| word.strip_suffix(".toml"))
        else {
            continue;
        };
        let file_stem = stem.rsplit('/').next().unwrap_or(stem);
        if REFERENCED_STEMS.contains(&file_stem) && !word.contains('<') && !word.contains('$') {
            out.insert(word.trim_start_matches("./").to_string());
        }
    }
    out.into_iter().collect()
}
