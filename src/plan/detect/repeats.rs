//! Sprint ids written twice under other names (`### Priority 3: Actor
//! improvements` then `### Priority 3: Server improvements`, two `7.1`
//! sections in two stages): two pieces of work, not one defined twice. The
//! later keeps its place and is read under the next free id (`3b`), which
//! the reading says; the same id and name twice stays a duplicate, and so
//! does any repeat of a `Sprint N` id (the plan's own key).

use std::collections::HashMap;
use std::collections::HashSet;

use super::*;

/// Give each repeat of an id under another name an id of its own; the
/// guess that says so.
pub(super) fn distinct_repeats(doc: &Doc, units: &mut [RawUnit]) -> Option<Warning> {
    // `Sprint N` ids are the plan's own keys (the supervisor's format
    // among them): one written twice is a mistake to point at.
    if matches!(doc.word, Some(Word::Sprint | Word::Sortie)) {
        return None;
    }
    let mut renamed: Vec<(usize, String, String, String)> = Vec::new();
    for unit in units.iter_mut() {
        let mut used: HashSet<SprintId> = unit.sprints.iter().map(|s| s.id.clone()).collect();
        let mut names: HashMap<SprintId, String> = HashMap::new();
        for s in unit.sprints.iter_mut() {
            let name = norm(&s.sprint.name);
            let Some(first) = names.get(&s.id) else {
                names.insert(s.id.clone(), name);
                continue;
            };
            if *first == name || name.is_empty() || first.is_empty() {
                continue;
            }
            let Some(free) = lettered_free(&s.id, &used).or_else(|| {
                (2..100)
                    .filter_map(|k| format!("{}.{k}", s.id).parse::<SprintId>().ok())
                    .find(|t| !used.contains(t))
            }) else {
                continue;
            };
            used.insert(free.clone());
            renamed.push((
                doc.line(s.span.start),
                s.id.to_string(),
                free.to_string(),
                s.sprint.name.clone(),
            ));
            s.sprint.id = free.clone();
            s.id = free;
        }
    }
    let (line, old, new, name) = renamed.first()?.clone();
    let n = renamed.len();
    Some(Warning {
        code: "reading::repeated_id".into(),
        message: format!(
            "{n} sprint id{} written again under another name (first: `{name}`, a second sprint {old}): each is read as a sprint of its own, the later as {new}",
            if n == 1 { " is" } else { "s are" }
        ),
        help: "give each section an id of its own, or have your agent rewrite the plan with `git supervisor import`".into(),
        line,
    })
}

/// The first of `3b` … `3z` after id `base` that no step of `used` has:
/// a step read beside the plan's own `3`.
pub(super) fn lettered_free(base: &SprintId, used: &HashSet<SprintId>) -> Option<SprintId> {
    (b'b'..=b'z')
        .filter_map(|c| format!("{base}{}", c as char).parse::<SprintId>().ok())
        .find(|t| !used.contains(t))
}
