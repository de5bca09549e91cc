//! Code blocks written inside code blocks: a prompt bundle in ```` ```text
//! ```` holding a ```` ```typescript ```` example. CommonMark closes the
//! outer block at the example's closing fence and reads the rest of the
//! bundle, and then the whole plan after the bundle's own closing fence,
//! the wrong way round. An author means them nested, so an opening fence
//! with an info string inside a block opens an inner block whose bare
//! closing fence is its own; those inner fence lines are blanked (same
//! length) in the copy the blocks are read from. A document whose fences
//! do not balance that way is left as CommonMark reads it.
//!
//! A plan pasted whole into a ```` ```markdown ```` block (as a chat answer
//! gives it) is the plan, not an example of one: that one fence pair is
//! blanked and its text read.

/// Blank the fence lines of blocks nested in other blocks, if every block
/// then closes.
pub(super) fn mask_nested_fences(text: &mut String) {
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut inner: Vec<std::ops::Range<usize>> = Vec::new();
    for (range, _, fenced) in lines(text) {
        let Some((c, n, info)) = fenced else {
            continue;
        };
        match stack.last() {
            None => stack.push((c, n)),
            Some(&(oc, on)) if c == oc && n >= on && info.is_empty() => {
                if stack.len() > 1 {
                    inner.push(range);
                }
                stack.pop();
            }
            Some(_) if !info.is_empty() => {
                inner.push(range);
                stack.push((c, n));
            }
            Some(_) => {}
        }
    }
    if !stack.is_empty() || inner.is_empty() {
        return;
    }
    for r in inner {
        let blank = " ".repeat(r.len());
        text.replace_range(r, &blank);
    }
}

/// An HTML comment or processing instruction never closed (`<!--`, `<?`
/// with no `-->`, `?>` after it) runs to the end of the file as one HTML
/// block, and would swallow the plan's headings after it: where a heading
/// follows, its opening line is blanked (same length).
pub(super) fn drop_unclosed_html(text: &mut String) {
    // Most plans open no such block: one search for each opener.
    if !text.contains("<?") && !text.contains("<!--") {
        return;
    }
    let mut at = 0;
    let mut blanks = Vec::new();
    for line in text.split_inclusive('\n') {
        let t = line.trim_start_matches(' ');
        let indent = line.len() - t.len();
        let closer = if t.starts_with("<?") {
            Some("?>")
        } else if t.starts_with("<!--") {
            Some("-->")
        } else {
            None
        };
        if let Some(closer) = closer.filter(|_| indent <= 3) {
            let after = &text[at + indent + 2..];
            let heading_after = after.contains("\n#");
            if !after.contains(closer) && heading_after {
                blanks.push(at..at + line.trim_end_matches(['\n', '\r']).len());
            }
        }
        at += line.len();
    }
    for range in blanks {
        let blank = " ".repeat(range.len());
        text.replace_range(range, &blank);
    }
}

/// A block never closed runs to the end of the file and would swallow the
/// plan after it (a ```` ```json ```` block pasted without its closing
/// fence, the next work item's `## GM-PR-02` heading after it). Where the
/// text of such a block holds a `##` heading or a task box (`[ ] Add the
/// SDK`), its opening fence is not a fence: the line is blanked (same
/// length), and the text after it read again, until every block left
/// closes or holds neither.
pub(super) fn drop_unclosed_fences(text: &mut String) {
    loop {
        let mut open: Option<(char, usize, std::ops::Range<usize>)> = None;
        let mut heading_inside = false;
        for (range, t, fenced) in lines(text) {
            match (&open, fenced) {
                (None, Some((c, n, _))) => {
                    open = Some((c, n, range));
                    heading_inside = false;
                }
                (Some((oc, on, _)), Some((c, n, info)))
                    if c == *oc && n >= *on && info.is_empty() =>
                {
                    open = None;
                }
                // Headings, or task boxes (`[ ] Task`, `- [x] Task`): the
                // plan's own text, not the example's.
                (Some(_), _) => {
                    heading_inside |= t.starts_with("## ")
                        || t.starts_with("### ")
                        || t.trim_start_matches(['-', '*', ' ']).starts_with("[ ] ")
                        || t.trim_start_matches(['-', '*', ' ']).starts_with("[x] ")
                }
                (None, None) => {}
            }
        }
        match open {
            Some((_, _, range)) if heading_inside => {
                let blank = " ".repeat(range.len());
                text.replace_range(range, &blank);
            }
            _ => return,
        }
    }
}

/// A fence line: its character, length and info string.
type Fence<'t> = (char, usize, &'t str);

/// Each line of `text`: its range (without the line end), its text after
/// the indent, and the fence it is, if it is one (indented at most three).
fn lines(text: &str) -> impl Iterator<Item = (std::ops::Range<usize>, &str, Option<Fence<'_>>)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let range = at..at + line.trim_end_matches(['\n', '\r']).len();
        at += line.len();
        let t = line.trim_start();
        let fenced = fence(t).filter(|_| line.len() - t.len() <= 3);
        (range, t, fenced)
    })
}

/// A fence line's [`Fence`], if it is one.
pub(super) fn fence(t: &str) -> Option<Fence<'_>> {
    let c = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    let info = t[n..].trim();
    // A backtick fence's info string has no backtick (that is inline code).
    (c == '~' || !info.contains('`')).then_some((c, n, info))
}

/// Blank the fence lines around a document that is one `markdown` block
/// from its first line to its last, so its text is read as the plan.
pub(super) fn unwrap_whole_document(text: &mut String) {
    let first_at = text.len() - text.trim_start().len();
    let first_end = text[first_at..]
        .find('\n')
        .map_or(text.len(), |n| first_at + n);
    let opening = text[first_at..first_end].trim_end();
    let marks = opening
        .chars()
        .take_while(|&c| c == '`' || c == '~')
        .count();
    let info = opening[marks..].trim().to_ascii_lowercase();
    if marks < 3 || !matches!(info.as_str(), "markdown" | "md") {
        return;
    }
    let opening_len = opening.len();
    let fence = opening[..marks].to_string();
    let body = text[..text.trim_end().len()].to_string();
    let last_at = body.rfind('\n').map_or(0, |n| n + 1);
    if last_at <= first_end || body[last_at..].trim() != fence.as_str() {
        return;
    }
    // No line between them closes the block early.
    let closes_early = body[first_end..last_at]
        .lines()
        .any(|l| l.trim() == fence.as_str());
    if closes_early {
        return;
    }
    let blank = |t: &mut String, r: std::ops::Range<usize>| {
        let spaces = " ".repeat(r.len());
        t.replace_range(r, &spaces);
    };
    blank(text, last_at..body.len());
    blank(text, first_at..first_at + opening_len);
}

#[cfg(test)]
mod tests {
    use super::drop_unclosed_fences;
    use super::mask_nested_fences;

    #[test]
    fn a_block_never_closed_does_not_swallow_the_headings_after_it() {
        let mut t = "## PR 1\n```json\n{}\n## PR 2\n```md\n## PR 3\n".to_string();
        drop_unclosed_fences(&mut t);
        assert_eq!(t, "## PR 1\n       \n{}\n## PR 2\n     \n## PR 3\n");
        // Task boxes after a block never closed are the plan's too.
        let mut t = "### 1.2 Split\n```json\n{}\n2.1 Cache\n[ ] Add the SDK\n".to_string();
        drop_unclosed_fences(&mut t);
        assert_eq!(
            t,
            "### 1.2 Split\n       \n{}\n2.1 Cache\n[ ] Add the SDK\n"
        );
        // Closed blocks, and an unclosed one holding no heading, stay.
        for kept in ["```sh\n## x\n```\n## y\n", "## a\n```sh\n# comment\nmake\n"] {
            let mut t = kept.to_string();
            drop_unclosed_fences(&mut t);
            assert_eq!(t, kept);
        }
    }

    #[test]
    fn an_example_inside_a_bundle_stays_inside() {
        let mut t =
            "```text\nDo this:\n```ts\nlet x = 1;\n```\nThen that.\n```\n## Next\n".to_string();
        mask_nested_fences(&mut t);
        assert_eq!(
            t,
            "```text\nDo this:\n     \nlet x = 1;\n   \nThen that.\n```\n## Next\n"
        );
    }

    #[test]
    fn plain_blocks_and_unbalanced_ones_are_left_alone() {
        let plain = "```sh\nmake\n```\n\n```\nout\n```\n";
        let mut t = plain.to_string();
        mask_nested_fences(&mut t);
        assert_eq!(t, plain);
        let open = "```text\n```ts\nx\n```\n";
        let mut t = open.to_string();
        mask_nested_fences(&mut t);
        assert_eq!(t, open);
    }
}
