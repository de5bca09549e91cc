//! What a task line's own end says of it: a done mark (`… ✅`) or an aside
//! that it is still to do (`Deploy via Caddy (pendiente config)`). The
//! tally reads a trailing mark as a tick where the plan has no boxes, and
//! a pending aside as open on any line, boxed and ticked or not; a bold
//! label opening a line says whether it is work or a field of its step.

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

/// Whether an item opens with a bold field label that records what was
/// done or made (`- **Blocker Resolved:** …`, `- **Deliverable:** …`),
/// not a line of work (`- **Billing:** Stripe`, `- **TODO:** …`).
#[inline]
pub(super) fn bold_label_says_done(raw: &str) -> bool {
    const RECORDS: &[&str] = &[
        "deliverable",
        "deliverables",
        "output",
        "outputs",
        "result",
        "results",
        "outcome",
        "artifact",
        "artefact",
        "evidence",
        "commit",
        "note",
        "notes",
    ];
    let t = raw.trim_start_matches(['-', '*', '+']).trim_start();
    let Some((label, after)) = t.strip_prefix("**").and_then(|i| i.split_once("**")) else {
        return false;
    };
    let field = label.trim_end().ends_with(':') || after.starts_with(':');
    let lower = label.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    field
        && (words
            .iter()
            .any(|w| super::status_words::DONE_WORDS.contains(w))
            || words.first().is_some_and(|w| RECORDS.contains(w)))
}

#[inline]
pub(super) fn bold_work_label(raw: &str) -> bool {
    let t = raw.trim_start_matches(['-', '*', '+']).trim_start();
    let Some(inner) = t.strip_prefix("**") else {
        return false;
    };
    let Some(close) = inner.find("**") else {
        return false;
    };
    let label = inner[..close].trim();
    let after = inner[close + 2..].trim_start();
    !label.is_empty() && !label.ends_with(':') && !after.starts_with(':')
}
