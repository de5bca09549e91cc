//! Editing a plan in place: `evaluate` and `prioritize` turn the plan the
//! parser read (`before`) into a changed one (`after`); this module carries
//! the changes into the source text as patches at the sprints' sections, so
//! every line no change targets stays byte-for-byte where it was.
//!
//! A sprint's section is its `body` (heading to the next heading of its level
//! or above), found in the source at its origin line. Per unit:
//! - the same sprints, maybe reordered (prioritize) or with changed criteria
//!   (evaluate): each section keeps its text; criterion lines are replaced,
//!   added after the list they belong to or removed; the heading's number
//!   and the section's `Sprint N` references follow the renumbering; a
//!   `**Priority**:` line is replaced or inserted under the heading; moved
//!   sections take the places of the ones they swap with;
//! - sprints split or merged: the unit's sprint sections (first heading to
//!   the end of the last section) are replaced by the new sprints in the
//!   canonical form, the only text the canonical writer still produces here;
//! - changes that do not read back when placed (criteria the parser takes
//!   from another section, headings not numbered as `Sprint N`): the unit is
//!   left exactly as written and reported in [`Edited::not_placed`].
//!
//! Sprints with no section of their own (table rows, Kiro task-list items,
//! Cursor todos, milestones named in a progress list): their units are left
//! exactly as written and reported in [`Edited::not_placed`], never
//! regenerated.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::ops::Range;

use super::analysis::At;
use crate::plan::model::Criterion;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    /// Units whose sprints have no section to place a change in.
    pub skipped: Vec<String>,
    /// The edits could not be carried in place; `text` is the canonical form.
    pub canonical: bool,
    /// Units whose changes (criteria, numbers) could not be placed without
    /// rewriting sections the user wrote (their criteria live elsewhere in
    /// the plan): left exactly as written, for the user to change by hand.
    pub not_placed: Vec<String>,
}

fn line_offset(source: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    source
        .match_indices('\n')
        .nth(line - 2)
        .map(|(i, _)| i + 1)
        .unwrap_or(source.len())
}

/// Where a sprint's section sits in `source`, when it has one.
fn section(source: &str, s: &Sprint) -> Option<Range<usize>> {
    if !s.body.trim_start().starts_with('#') || s.body.is_empty() {
        return None;
    }
    let near = line_offset(source, s.origin.line);
    source
        .match_indices(s.body.as_str())
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(near))
        .map(|i| i..i + s.body.len())
}

/// Replace the first whole-word occurrence of `old` (a sprint id) in `line`.
fn replace_id(line: &str, old: &str, new: &str) -> String {
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices(old) {
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'.';
        let end = i + old.len();
        let after_ok = end == line.len()
            || !(bytes[end].is_ascii_alphanumeric()
                || bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit));
        if before_ok && after_ok {
            return format!("{}{new}{}", &line[..i], &line[end..]);
        }
    }
    line.to_string()
}

/// `Sprint N` references renumbered by `map` (old id → new id), all at once.
fn retarget_refs(text: &str, map: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("Sprint ") {
        out.push_str(&rest[..i + 7]);
        rest = &rest[i + 7..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
            .unwrap_or(rest.len());
        let id = rest[..len].trim_end_matches('.');
        match map.get(id) {
            Some(new) if !id.is_empty() => {
                out.push_str(new);
                rest = &rest[id.len()..];
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// The line range (start..end, newline included) of the first line of
/// `text` holding `needle`.
fn find_line(text: &str, needle: &str, from: usize) -> Option<Range<usize>> {
    let needle = needle.lines().next().unwrap_or("").trim();
    if needle.is_empty() {
        return None;
    }
    let i = from + text[from..].find(needle)?;
    let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
    let end = text[i..].find('\n').map_or(text.len(), |n| i + n + 1);
    Some(start..end)
}

/// Carry one criterion list's changes into a section's text.
fn patch_criteria(text: &mut String, old: &[Criterion], new: &[Criterion], label: &str) {
    let mut anchor: Option<usize> = None;
    let mut from = 0;
    for k in 0..old.len().max(new.len()) {
        match (old.get(k), new.get(k)) {
            (Some(o), Some(n)) if o.text == n.text => {
                if let Some(r) = find_line(text, &o.text, from) {
                    anchor = Some(r.end);
                    from = r.end;
                }
            }
            (Some(o), Some(n)) => match find_line(text, &o.text, from) {
                Some(r) => {
                    let line = text[r.clone()].to_string();
                    let first = o.text.lines().next().unwrap_or("").trim();
                    let replaced = line.replacen(first, n.text.trim(), 1);
                    text.replace_range(r.clone(), &replaced);
                    anchor = Some(r.start + replaced.len());
                    from = r.start + replaced.len();
                }
                None => insert(text, &mut anchor, n, label),
            },
            (None, Some(n)) => insert(text, &mut anchor, n, label),
            (Some(o), None) => {
                if let Some(r) = find_line(text, &o.text, from) {
                    text.replace_range(r, "");
                }
            }
            (None, None) => {}
        }
    }
}

fn insert(text: &mut String, anchor: &mut Option<usize>, c: &Criterion, label: &str) {
    let mark = if c.checked { "x" } else { " " };
    let line = format!("- [{mark}] {}\n", c.text.trim().replace('\n', " "));
    match *anchor {
        Some(at) => {
            // After a last line with no newline of its own (the file's end).
            let line = if at > 0 && !text[..at].ends_with('\n') {
                format!("\n{}", line.trim_end_matches('\n'))
            } else {
                line
            };
            text.insert_str(at, &line);
            *anchor = Some(at + line.len());
        }
        None => {
            // No line of this list to follow: a labelled list at the end of
            // the section's own text.
            // The section's own trailing blank lines and `---` rule follow
            // the new list.
            let end = own_end(text);
            let block = format!("\n\n**{label}**:\n\n{}", line.trim_end_matches('\n'));
            text.insert_str(end, &block);
            *anchor = Some(end + block.len());
        }
    }
}

/// Where a section's own text ends: before its trailing blank lines and
/// a closing rule (`---`, `***`, `___`).
fn own_end(text: &str) -> usize {
    let mut end = text.trim_end().len();
    loop {
        let start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let line = text[start..end].trim();
        let rule = line.len() >= 3
            && ["-", "*", "_"]
                .iter()
                .any(|c| line.chars().all(|x| x.to_string() == *c));
        if !rule || start == 0 {
            return end;
        }
        end = text[..start].trim_end().len();
    }
}

/// The tool's own score line. The author's `**Priority**:` line (with
/// its rationale, model or budget) stays as written; this one sits beside
/// it and is replaced on the next run.
const SCORE_LABEL: &str = "**Supervisor priority**:";

fn annotate(text: &mut String, note: &str) {
    let line = format!("{SCORE_LABEL} {note}");
    if let Some(r) = find_line(text, SCORE_LABEL, 0) {
        let nl = if text[r.clone()].ends_with('\n') {
            "\n"
        } else {
            ""
        };
        text.replace_range(r, &format!("{line}{nl}"));
        return;
    }
    let head = text.find('\n').map_or(text.len(), |i| i + 1);
    text.insert_str(head, &format!("\n{line}\n"));
}

/// The same sprint in another place: `prioritize` moves and renumbers,
/// `evaluate` without splits or merges keeps places and names.
fn same(a: &Sprint, b: &Sprint) -> bool {
    a.name == b.name && a.tasks == b.tasks
}

/// A units table's `Sprints` cells follow the units' new sprint counts.
fn recount(text: &str, before: &Plan, after: &Plan) -> String {
    let changed: BTreeMap<&str, (usize, usize)> = after
        .units
        .iter()
        .filter_map(|u| {
            let old = before.unit(&u.name)?.sprints.len();
            (old != u.sprints.len()).then_some((u.name.as_str(), (old, u.sprints.len())))
        })
        .collect();
    if changed.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut column: Option<usize> = None;
    let mut in_table = false;
    for line in text.split_inclusive('\n') {
        let row = line.trim_start().starts_with('|');
        if !row {
            in_table = false;
            column = None;
            out.push_str(line);
            continue;
        }
        let cells: Vec<&str> = line.trim_end().trim_start().split('|').collect();
        if !in_table {
            in_table = true;
            column = cells
                .iter()
                .position(|c| c.trim().eq_ignore_ascii_case("sprints"));
            out.push_str(line);
            continue;
        }
        let name = cells
            .get(1)
            .map(|c| c.trim().trim_matches(|c| c == '`' || c == '*'))
            .unwrap_or("");
        match (column, changed.get(name)) {
            (Some(k), Some((old, new)))
                if cells.get(k).is_some_and(|c| c.trim() == old.to_string()) =>
            {
                let mut cells: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                cells[k] = cells[k].replacen(&old.to_string(), &new.to_string(), 1);
                let indent = &line[..line.len() - line.trim_start().len()];
                let ending = &line[line.trim_end().len()..];
                out.push_str(&format!("{indent}{}{ending}", cells.join("|")));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// What of a unit the edits must carry: ids, names, tasks and criteria.
/// A sprint as the edits must carry it: id, name, tasks, exit criteria.
type Outline = (String, String, Vec<String>, Vec<String>);

fn outline(p: &Plan, unit: &str) -> Option<Vec<Outline>> {
    p.unit(unit).map(|u| {
        u.sprints
            .iter()
            .map(|s| {
                (
                    s.id.to_string(),
                    s.name.clone(),
                    s.tasks.clone(),
                    s.exit.iter().map(|c| c.text.clone()).collect(),
                )
            })
            .collect()
    })
}

/// Apply `after`'s changes to `source`, the text `before` was read from.
/// A unit whose line edits do not read back as `after` says (a heading
/// whose number is not written as `Sprint N`, a criterion the parser reads
/// from another section) is left as written and named in
/// [`Edited::not_placed`]; only a unit whose sprints were split or merged
/// gets its sprint sections rewritten.
pub fn edit(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
    ctx: &crate::plan::ParseContext,
) -> Edited {
    let unchanged = |not_placed: Vec<String>| Edited {
        text: source.to_string(),
        skipped: Vec::new(),
        canonical: false,
        not_placed,
    };
    let mut names: Vec<&str> = before.units.iter().map(|u| u.name.as_str()).collect();
    let mut after_names: Vec<&str> = after.units.iter().map(|u| u.name.as_str()).collect();
    names.sort_unstable();
    after_names.sort_unstable();
    if names != after_names {
        // Units added, removed or renamed: nothing to place as an edit.
        return unchanged(after.units.iter().map(|u| u.name.clone()).collect());
    }
    // Units keep their places in the file (the run's order comes from
    // their dependencies and layers, not from where they are written), and
    // a change of layers or dependencies is reported, not written: the
    // unit table is the author's.
    let mut after = after.clone();
    let mut annotations_here = BTreeMap::new();
    let mut units = Vec::new();
    let mut moved_layers = Vec::new();
    for (ui, old) in before.units.iter().enumerate() {
        let Some(from) = after.units.iter().position(|u| u.name == old.name) else {
            continue;
        };
        let mut unit = after.units[from].clone();
        if (unit.layer, &unit.deps) != (old.layer, &old.deps) {
            moved_layers.push(unit.name.clone());
            unit.layer = old.layer;
            unit.deps = old.deps.clone();
        }
        for (a, note) in annotations.iter().filter(|(a, _)| a.unit == from) {
            annotations_here.insert(
                At {
                    unit: ui,
                    sprint: a.sprint,
                },
                note.clone(),
            );
        }
        units.push(unit);
    }
    after.units = units;
    let annotations = &annotations_here;
    let after = &after;
    let with_layers = |mut e: Edited| {
        for n in &moved_layers {
            if !e.not_placed.contains(n) {
                e.not_placed.push(n.clone());
            }
        }
        e
    };
    let none = BTreeSet::new();
    // Units whose sprints have no section of their own (table rows, task
    // list items, frontmatter todos) cannot be edited in place: they stay
    // exactly as written and are reported, never regenerated.
    let sectionless: BTreeSet<String> = edit_with(source, before, after, annotations, &none, &none)
        .skipped
        .into_iter()
        .collect();
    let changed: Vec<String> = after
        .units
        .iter()
        .filter(|u| before.unit(&u.name).is_some_and(|b| b.sprints != u.sprints))
        .map(|u| u.name.clone())
        .collect();
    // Split or merged units are never rewritten: the change itself would
    // replace the author's sections. They stay as written and are reported.
    let mut leave = sectionless;
    leave.extend(
        after
            .units
            .iter()
            .filter(|u| before.unit(&u.name).map(|b| b.sprints.len()) != Some(u.sprints.len()))
            .map(|u| u.name.clone()),
    );
    let Some((first, mismatched)) = placed(source, before, after, annotations, &none, &leave, ctx)
    else {
        return with_layers(unchanged(changed));
    };
    if mismatched.is_empty() {
        return with_layers(first);
    }
    // A unit whose edits do not read back as intended stays as written.
    leave.extend(mismatched);
    match placed(source, before, after, annotations, &none, &leave, ctx) {
        Some((second, still)) if still.is_empty() => with_layers(second),
        _ => with_layers(unchanged(changed)),
    }
}

/// One attempt at placing `after`'s changes: units in `whole` get their
/// sprint sections replaced, units in `leave` stay as written (reported in
/// `not_placed`). The edited text and the units that do not read back as
/// intended, or `None` when the text does not parse.
fn placed(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
    whole: &BTreeSet<String>,
    leave: &BTreeSet<String>,
    ctx: &crate::plan::ParseContext,
) -> Option<(Edited, BTreeSet<String>)> {
    // What the text should read as: `after`, except the units left alone.
    let mut target = after.clone();
    for unit in &mut target.units {
        if let Some(old) = before
            .unit(&unit.name)
            .filter(|_| leave.contains(&unit.name))
        {
            *unit = old.clone();
        }
    }
    let mut edited = edit_with(source, before, after, annotations, whole, leave);
    edited.text = recount(&edited.text, before, &target);
    edited.not_placed = leave.iter().cloned().collect();
    let back = crate::plan::parse(&edited.text, ctx).ok()?;
    let mismatched = target
        .units
        .iter()
        .filter(|u| outline(&back, &u.name) != outline(&target, &u.name))
        .map(|u| u.name.clone())
        .collect();
    Some((edited, mismatched))
}

fn edit_with(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
    whole: &BTreeSet<String>,
    leave: &BTreeSet<String>,
) -> Edited {
    let mut patches: Vec<(Range<usize>, String)> = Vec::new();
    let mut skipped = Vec::new();
    for (ui, new_unit) in after.units.iter().enumerate() {
        if leave.contains(&new_unit.name) {
            continue;
        }
        let Some(old_unit) = before.units.iter().find(|u| u.name == new_unit.name) else {
            skipped.push(new_unit.name.clone());
            continue;
        };
        let sections: Option<Vec<Range<usize>>> = old_unit
            .sprints
            .iter()
            .map(|s| section(source, s))
            .collect();
        let Some(sections) = sections.filter(|s| !s.is_empty()) else {
            if old_unit.sprints != new_unit.sprints
                || (0..new_unit.sprints.len()).any(|si| {
                    annotations.contains_key(&At {
                        unit: ui,
                        sprint: si,
                    })
                })
            {
                skipped.push(new_unit.name.clone());
            }
            continue;
        };
        // Each new sprint's old place, when every one has its own.
        let mut used = vec![false; old_unit.sprints.len()];
        let places: Option<Vec<usize>> = if new_unit.sprints.len() == old_unit.sprints.len()
            && !whole.contains(&new_unit.name)
        {
            new_unit
                .sprints
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    let p = if same(&old_unit.sprints[k], n) && !used[k] {
                        Some(k)
                    } else {
                        (0..old_unit.sprints.len())
                            .find(|&j| !used[j] && same(&old_unit.sprints[j], n))
                    };
                    let p = p.or_else(|| (!used[k]).then_some(k));
                    if let Some(p) = p {
                        used[p] = true;
                    }
                    p
                })
                .collect()
        } else {
            None
        };
        let note = |si: usize| {
            annotations.get(&At {
                unit: ui,
                sprint: si,
            })
        };
        match places {
            Some(places) => {
                let map: BTreeMap<String, String> = places
                    .iter()
                    .enumerate()
                    .map(|(k, &p)| {
                        (
                            old_unit.sprints[p].id.to_string(),
                            new_unit.sprints[k].id.to_string(),
                        )
                    })
                    .filter(|(o, n)| o != n)
                    .collect();
                // In a plan of one unit every `Sprint N` names its sprints:
                // references in the text around the sections follow too.
                if after.units.len() == 1 && !map.is_empty() {
                    let mut bounds: Vec<Range<usize>> = sections.clone();
                    bounds.sort_by_key(|r| r.start);
                    let mut at = 0;
                    let mut gaps = Vec::new();
                    for r in &bounds {
                        gaps.push(at..r.start.max(at));
                        at = at.max(r.end);
                    }
                    gaps.push(at..source.len());
                    for g in gaps {
                        let moved = retarget_refs(&source[g.clone()], &map);
                        if moved != source[g.clone()] {
                            patches.push((g, moved));
                        }
                    }
                }
                for (k, &p) in places.iter().enumerate() {
                    let (o, n) = (&old_unit.sprints[p], &new_unit.sprints[k]);
                    let slot = sections[k].clone();
                    let mut text = source[sections[p].clone()].to_string();
                    patch_criteria(&mut text, &o.entry, &n.entry, "Entry criteria");
                    patch_criteria(&mut text, &o.exit, &n.exit, "Exit criteria");
                    if !map.is_empty() {
                        let head = text.find('\n').map_or(text.len(), |i| i + 1);
                        let heading =
                            replace_id(&text[..head], &o.id.to_string(), &n.id.to_string());
                        let rest = retarget_refs(&text[head..], &map);
                        text = format!("{heading}{rest}");
                    }
                    if let Some(a) = note(k) {
                        annotate(&mut text, a);
                    }
                    if text != source[slot.clone()] {
                        patches.push((slot, text));
                    }
                }
            }
            None => {
                let start = sections.iter().map(|r| r.start).min().unwrap_or(0);
                let end = sections.iter().map(|r| r.end).max().unwrap_or(start);
                let mut text = String::new();
                for (si, s) in new_unit.sprints.iter().enumerate() {
                    super::write::sprint(&mut text, s, note(si));
                }
                let tail = &source[start..end];
                let trailing = &tail[tail.trim_end().len()..];
                let text = format!("{}{}", text.trim_end(), trailing);
                patches.push((start..end, text));
            }
        }
    }
    patches.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut text = source.to_string();
    let mut floor = usize::MAX;
    for (r, t) in patches {
        if r.end > floor {
            continue;
        }
        floor = r.start;
        text.replace_range(r, &t);
    }
    Edited {
        text,
        skipped,
        canonical: false,
        not_placed: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_references_follow_their_sprints() {
        assert_eq!(replace_id("### Sprint 2: b", "2", "1"), "### Sprint 1: b");
        assert_eq!(
            replace_id("### Sprint 2.1: b", "2", "1"),
            "### Sprint 2.1: b"
        );
        let map = BTreeMap::from([
            ("1".to_string(), "2".to_string()),
            ("2".to_string(), "1".to_string()),
        ]);
        assert_eq!(
            retarget_refs("after Sprint 1 and Sprint 2. Sprint 10", &map),
            "after Sprint 2 and Sprint 1. Sprint 10"
        );
    }
}
