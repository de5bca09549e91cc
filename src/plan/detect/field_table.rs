//! A step's fields written as a table of two columns (`| Field | Value |`
//! with `| **Status** | ✅ Done |`), as task cards are: the status row is
//! the step's status. Only the table that opens the step's text, with a
//! row keyed by the one word of a status, counts; and only over a step
//! whose work is boxed: a card's fields may describe something else (a
//! package, a previous release), and plain items under it are work no
//! mark covers.

use super::status_words::is_bare_status_key;
use super::Block;
use super::Doc;

/// The status the table opening heading `i`'s text gives, if it is one.
pub(super) fn table_status<'d>(doc: &'d Doc, i: usize) -> Option<&'d str> {
    let own = doc.own_blocks(i);
    let Block::Table { header, rows, .. } =
        doc.blocks.get(own.start).filter(|_| !own.is_empty())?
    else {
        return None;
    };
    if header.len() != 2 {
        return None;
    }
    let plain_items = own
        .clone()
        .any(|j| matches!(doc.blocks[j], Block::Item { checked: None, .. }));
    if plain_items {
        return None;
    }
    rows.iter().find_map(|r| match r.cells.as_slice() {
        [key, value] => {
            let key = key.text.trim().trim_matches('*');
            is_bare_status_key(key).then(|| value.text.trim())
        }
        _ => None,
    })
}
