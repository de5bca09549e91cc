//! Code blocks written inside code blocks: a prompt bundle in ```` ```text
//! ```` holding a ```` ```typescript ```` example. CommonMark closes the
//! outer block at the example's closing fence and reads the rest of the
//! bundle, and then the whole plan after the bundle's own closing fence,
//! the wrong way round. An author means them nested, so an opening fence
//! with an info string inside a block opens an inner block whose bare
//! closing fence is its own; those inner fence lines are blanked (same
//! length) in the copy the blocks are read from. A document whose fences
//! do not balance that way is left as CommonMark reads it.

/// Blank the fence lines of blocks nested in other blocks, if every block
/// then closes.
pub(super) fn mask_nested_fences(text: &mut String) {
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut inner: Vec<std::ops::Range<usize>> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let range = at..at + line.trim_end_matches(['\n', '\r']).len();
        at += line.len();
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let Some((c, n, info)) = fence(t).filter(|_| indent <= 3) else {
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

/// A fence line: its character, length and info string.
pub(super) fn fence(t: &str) -> Option<(char, usize, &str)> {
    let c = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    let info = t[n..].trim();
    // A backtick fence's info string has no backtick (that is inline code).
    (c == '~' || !info.contains('`')).then_some((c, n, info))
}

#[cfg(test)]
mod tests {
    use super::mask_nested_fences;

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
