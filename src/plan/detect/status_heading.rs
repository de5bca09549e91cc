//! A status written as a heading of its own under its step: `## PHASE 1:
//! FOUNDATION` then `### Status: Completed` over the phase's table of
//! tasks. The heading is a field of the step, not a section apart: its
//! value is the step's status, and what stands under it is the step's own.

use super::status_words::is_status_key;
use super::status_words::split_label;
use super::*;

/// The blocks of step heading `i`'s own text, read through a status
/// heading that opens it and says done, and the status it gives (or, with
/// no such heading, the status its table of fields gives).
pub(super) fn own_blocks_and_status<'d>(
    doc: &'d Doc,
    i: usize,
) -> (std::ops::Range<usize>, Option<&'d str>) {
    let own = doc.own_blocks(i);
    let Some((level, _, _)) = doc.heading(i) else {
        return (own, None);
    };
    // The heading that opens the step's text, one level or more below it;
    // or else a table of its fields (`| **Status** | ✅ Done |`).
    let heading = doc
        .heading(own.end)
        .filter(|&(sub, _, _)| own.end < doc.section_end[i] && sub > level)
        .and_then(|(_, text, _)| field_status(text));
    let Some(status) = heading else {
        return (own, super::field_table::table_status(doc, i));
    };
    // A status that is not done (`In Progress`, `Blocked`) keeps the
    // step's own text to itself: ticks under it do not outvote it.
    if !super::status_words::status_says_done(status) {
        return (own, Some(status));
    }
    (own.start..doc.own_blocks(own.end).end, Some(status))
}

/// `Status: Completed` (a heading's whole text): the value.
fn field_status(text: &str) -> Option<&str> {
    let (key, value) = split_label(text)?;
    let value = value.trim().trim_matches(['*', '`', '.', ' ']);
    (is_status_key(key) && !value.is_empty() && value.split_whitespace().count() <= 4)
        .then_some(value)
}
