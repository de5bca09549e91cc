//! Editing a plan in place: `evaluate` and `prioritize` turn the plan the
//! parser read (`before`) into a changed one (`after`); this module carries
//! the changes into the source text as patches at the sprints' sections, so
//! every line no change targets stays byte-for-byte where it was.
//!
//! A sprint's section is its `body` (heading to the next heading of its level
//! or above), found in the source at its origin line. A unit keeps its
//! sprints, their order and ids: in each section criterion lines are
//! replaced, added after the list they belong to or removed, and the tool's
//! `**Supervisor priority**:` line is replaced or inserted under the
//! heading. A unit whose sprints would be split or merged, or whose edits do
//! not read back as intended (criteria the parser takes from another
//! section), is left exactly as written and reported in
//! [`Edited::not_placed`]; nothing is ever regenerated.
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

/// `at`, or past the end of the fenced block `at` falls in: criteria read
/// from a fenced list of checks are followed by new lines below the fence.
fn past_fence(text: &str, at: usize) -> usize {
    let fence = |l: &str| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
    let open = text[..at].lines().filter(|l| fence(l)).count() % 2 == 1;
    if !open {
        return at;
    }
    let mut offset = at;
    for line in text[at..].split_inclusive('\n') {
        offset += line.len();
        if fence(line) {
            return offset;
        }
    }
    at
}

fn insert(text: &mut String, anchor: &mut Option<usize>, c: &Criterion, label: &str) {
    let mark = if c.checked { "x" } else { " " };
    let line = format!("- [{mark}] {}\n", c.text.trim().replace('\n', " "));
    match anchor.map(|at| past_fence(text, at)) {
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
/// A unit whose edits cannot be placed in its own sections (sprints split,
/// merged or without a section, a criterion the parser reads from another
/// section) is left as written and named in [`Edited::not_placed`].
pub fn edit(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
    ctx: &crate::plan::ParseContext,
) -> Edited {
    let unchanged = |not_placed: Vec<String>| Edited {
        text: source.to_string(),
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
    let changed: Vec<String> = after
        .units
        .iter()
        .enumerate()
        .filter(|(ui, u)| {
            before.unit(&u.name).is_some_and(|b| b.sprints != u.sprints)
                || annotations.keys().any(|a| a.unit == *ui)
        })
        .map(|(_, u)| u.name.clone())
        .collect();
    // Units with a change but a sprint without a section of its own (table
    // rows, task-list items, frontmatter todos), and units whose sprints
    // would be split or merged, are never rewritten: they stay as written
    // and are reported.
    let mut leave: BTreeSet<String> = after
        .units
        .iter()
        .filter(|u| changed.contains(&u.name))
        .filter(|u| {
            before.unit(&u.name).is_none_or(|b| {
                b.sprints.len() != u.sprints.len()
                    || b.sprints.iter().any(|s| section(source, s).is_none())
            })
        })
        .map(|u| u.name.clone())
        .collect();
    let Some((first, mismatched)) = placed(source, before, after, annotations, &leave, ctx) else {
        return with_layers(unchanged(changed));
    };
    if mismatched.is_empty() {
        return with_layers(first);
    }
    // A unit whose edits do not read back as intended stays as written.
    leave.extend(mismatched);
    match placed(source, before, after, annotations, &leave, ctx) {
        Some((second, still)) if still.is_empty() => with_layers(second),
        _ => with_layers(unchanged(changed)),
    }
}

/// One attempt at placing `after`'s changes, units in `leave` left as
/// written (reported in `not_placed`): the edited text and the units that
/// do not read back as intended, or `None` when the text does not parse.
fn placed(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
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
    let edited = Edited {
        text: patched(source, before, after, annotations, leave),
        not_placed: leave.iter().cloned().collect(),
    };
    let back = crate::plan::parse(&edited.text, ctx).ok()?;
    let mismatched = target
        .units
        .iter()
        .filter(|u| outline(&back, &u.name) != outline(&target, &u.name))
        .map(|u| u.name.clone())
        .collect();
    Some((edited, mismatched))
}

/// `source` with each sprint's section patched in place: its criteria as
/// `after` has them and the tool's score line. Units in `leave`, and units
/// whose sprints are not each in a section of their own, are untouched.
fn patched(
    source: &str,
    before: &Plan,
    after: &Plan,
    annotations: &BTreeMap<At, String>,
    leave: &BTreeSet<String>,
) -> String {
    let mut patches: Vec<(Range<usize>, String)> = Vec::new();
    for (ui, new_unit) in after.units.iter().enumerate() {
        let Some(old_unit) = before.unit(&new_unit.name).filter(|o| {
            !leave.contains(&new_unit.name) && o.sprints.len() == new_unit.sprints.len()
        }) else {
            continue;
        };
        for (si, (o, n)) in old_unit.sprints.iter().zip(&new_unit.sprints).enumerate() {
            let Some(slot) = section(source, o) else {
                continue;
            };
            let mut text = source[slot.clone()].to_string();
            patch_criteria(&mut text, &o.entry, &n.entry, "Entry criteria");
            patch_criteria(&mut text, &o.exit, &n.exit, "Exit criteria");
            if let Some(a) = annotations.get(&At {
                unit: ui,
                sprint: si,
            }) {
                annotate(&mut text, a);
            }
            if text != source[slot.clone()] {
                patches.push((slot, text));
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
    text
}
