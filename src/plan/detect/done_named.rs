//! Done marks that name one step from elsewhere in the plan: a heading
//! outside every step marked done (`### Sharing: video export — DONE`
//! among a roadmap's directions) naming a step of its priority list, and
//! lettered parts in a progress index (`Task 5a`, `Task 5b`) marking the
//! step they are parts of; and a line marked done outside every step
//! that names a group of steps by its id (`✅ **v0.2** — … (all tasks
//! done)` under `## Completed versions`, naming `## v0.2 — Core`):
//! every step of that group.

use std::collections::BTreeMap;

use super::done_elsewhere::find_by_id;
use super::done_elsewhere::in_sprint;
use super::done_elsewhere::set;
use super::done_elsewhere::the_one;
use super::*;

/// Index entries naming a lettered part of a step (`Task 5a` of `Task 5`)
/// mark that step done when every part is ticked; the entries left are
/// those naming no step.
pub(super) fn parts_of_steps(
    units: &mut [RawUnit],
    listed: Vec<(bool, SprintId, String, Span)>,
) -> Vec<(bool, SprintId, String, Span)> {
    let is_part =
        |id: &SprintId| !id.suffix.is_empty() && id.suffix.chars().all(|c| c.is_ascii_lowercase());
    let mut parts: BTreeMap<u32, (bool, Vec<String>)> = BTreeMap::new();
    let mut rest = Vec::new();
    for entry in listed {
        let whole = SprintId::whole(entry.1.number);
        let has_step = units.iter().flat_map(|u| &u.sprints).any(|s| s.id == whole);
        if is_part(&entry.1) && has_step {
            let e = parts.entry(entry.1.number).or_insert((true, Vec::new()));
            e.0 &= entry.0;
            e.1.push(entry.1.to_string());
        } else {
            rest.push(entry);
        }
    }
    for (number, (all_ticked, labels)) in parts {
        if let Some(sprint) = find_by_id(units, &SprintId::whole(number)) {
            set(
                sprint,
                all_ticked,
                format!(
                    "marked complete in the plan (every part ticked in its index: {})",
                    labels.join(", ")
                ),
            );
        }
    }
    rest
}

/// A heading outside every sprint marked done whose name, or its part
/// after a label (`### Sharing: video / GIF export — DONE`), is the name
/// of exactly one sprint, or of its head before a dash (`Video / GIF
/// export — highest sharing value` in a priority list): that sprint is
/// done. Only a sprint no evidence of its own marks.
pub(super) fn done_headings(doc: &Doc, units: &mut [RawUnit]) {
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if doc.is_sprint(i) || in_sprint(doc, Some(i)) {
            continue;
        }
        let (name, marked) = strip_done_marks(text);
        if !marked || super::headings::done_but_for(text) {
            continue;
        }
        let name = clean_name(&name).to_lowercase();
        let after_label = name.split_once(": ").map(|(_, n)| n.trim().to_string());
        let names_it = |s: &RawSprint| {
            let own = s.sprint.name.to_lowercase();
            let head = own.split(" — ").next().unwrap_or(&own).trim().to_string();
            [Some(&name), after_label.as_ref()]
                .into_iter()
                .flatten()
                .any(|n| !n.is_empty() && (*n == own || *n == head))
        };
        if let Some(sprint) = the_one(units, names_it) {
            if sprint.sprint.done.is_none() {
                sprint.sprint.done = Some(format!(
                    "marked complete in the plan (its heading `{}`)",
                    clean_name(text)
                ));
            }
        }
    }
}

/// Lines outside every step that open with a done mark and name a group
/// heading by its first word, an id (`✅ **v0.2** — Core`): the steps in
/// that group's section are done. The id must open exactly one heading
/// that holds steps.
pub(super) fn done_groups(doc: &Doc, units: &mut [RawUnit]) {
    let mut named: Vec<(usize, String)> = Vec::new();
    for (i, b) in doc.blocks.iter().enumerate() {
        let text = match b {
            Block::Paragraph { text, .. } | Block::Item { text, .. } => text,
            _ => continue,
        };
        // The marks are not ASCII: a text without a byte of one is skipped
        // before its lines are looked at.
        if text.is_ascii() {
            continue;
        }
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix(super::completion::MARK_EMOJI) else {
                continue;
            };
            if let Some(id) = group_id(rest).filter(|_| !in_sprint(doc, doc.parent[i])) {
                named.push((i, id));
            }
        }
    }
    if named.is_empty() {
        return;
    }
    let mut heads: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for i in 0..doc.blocks.len() {
        if let Some((_, text, _)) = doc.heading(i) {
            if let Some(id) = group_id(text) {
                heads.entry(id).or_default().push(i);
            }
        }
    }
    // Per block, the group listed done whose section holds it: each
    // group's section is walked once, however many steps it holds.
    let mut listed: Vec<Option<&str>> = vec![None; doc.blocks.len()];
    for (line_block, id) in &named {
        let Some([h]) = heads.get(id).map(Vec::as_slice) else {
            continue;
        };
        let (h, end) = (*h, doc.section_end[*h]);
        if (h..end).contains(line_block) || doc.is_sprint(h) {
            continue;
        }
        for slot in &mut listed[h + 1..end] {
            slot.get_or_insert(id.as_str());
        }
    }
    for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
        let at = doc
            .blocks
            .partition_point(|b| b.span().start < sprint.span.start);
        if let (Some(Some(id)), None) = (listed.get(at), &sprint.sprint.done) {
            sprint.sprint.done = Some(format!(
                "marked complete in the plan (its group `{id}` is listed done)"
            ));
        }
    }
}

/// The id a text opens with (`**v0.2** — Core` → `v0.2`): a word with a
/// digit, lower-cased.
fn group_id(text: &str) -> Option<String> {
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '#'));
    let word = t.split_whitespace().next()?;
    let word = word.trim_matches(|c: char| matches!(c, '*' | '_' | ':' | ',' | '—' | '-' | '.'));
    (word.chars().any(|c| c.is_ascii_digit()) && word.chars().count() <= 12)
        .then(|| word.to_lowercase())
}
