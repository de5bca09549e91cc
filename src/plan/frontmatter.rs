//! The plan's YAML frontmatter as text: where it is, the one definition for
//! the parser, the canonical writer and `plan_tools::name_feature`.

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
pub fn bom_len(source: &str) -> usize {
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
pub fn eol(source: &str) -> &'static str {
    match source.find('\n') {
        Some(i) if source[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}
