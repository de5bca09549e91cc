//! What a task line's own end says of it: a done mark (`… ✅`) or an aside
//! that it is still to do (`Deploy via Caddy (pendiente config)`). The
//! tally reads a trailing mark as a tick where the plan has no boxes, and
//! a pending aside as open on any line, boxed and ticked or not.

/// Whether an item ends with a done mark (`… docs/CAPTURE.md. ✅`).
pub(super) fn ends_marked(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches('\u{fe0f}')
        .ends_with(super::completion::MARK_EMOJI)
}

/// Whether an item ends with an aside saying it is still to do (`Deploy
/// via Caddy (pendiente config)`, `Docs (TODO)`, `Export (in progress)`).
pub(super) fn ends_pending(text: &str) -> bool {
    let Some(aside) = text
        .trim_end()
        .strip_suffix(')')
        .and_then(|t| t.rsplit_once('('))
        .map(|(_, a)| a.trim().to_lowercase())
    else {
        return false;
    };
    // `(Pending, Running, Failed)` lists states; it marks nothing.
    !aside.contains([',', '、', '/'])
        && super::completion::OPEN_WORDS.iter().any(|w| {
            aside
                .strip_prefix(w)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']))
        })
}
