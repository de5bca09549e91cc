//! Sprints of one unit that could run at once (spec §W-129, "independent
//! sprints within a unit"): sprints that each name files, share none with
//! another sprint of the unit, name none of the others' files and enter on
//! no other sprint's work. The plan runs a unit's sprints in sequence, so
//! such sprints are parallelism the plan misses: split into units, they
//! would run side by side. Pure over the plan.

use crate::plan::model::Plan;
use crate::plan::model::Sprint;

/// Sprint `b` relies on sprint `a` of the same unit, or they touch the
/// same files.
fn related(a: &Sprint, b: &Sprint) -> bool {
    if a.files.iter().any(|f| b.files.contains(f)) {
        return true;
    }
    let text = |s: &Sprint| {
        std::iter::once(&s.name)
            .chain(&s.tasks)
            .chain(s.entry.iter().map(|c| &c.text))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (ta, tb) = (text(a), text(b));
    let names = |t: &str, s: &Sprint| s.files.iter().any(|f| t.contains(f.as_str()));
    let entry_on_work = b.entry.iter().any(|c| {
        let l = c.text.to_lowercase();
        l.contains("sprint")
            || l.contains("previous")
            || l.contains("prior")
            || l.contains("earlier")
    });
    names(&tb, a) || names(&ta, b) || entry_on_work
}

/// Per unit, its sprints (ids) that relate to no other sprint of it, when
/// there are two or more.
pub fn independent_sprints(plan: &Plan) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for u in &plan.units {
        let open: Vec<&Sprint> = u.sprints.iter().filter(|s| s.done.is_none()).collect();
        if open.len() < 2 || open.iter().any(|s| s.files.is_empty()) {
            continue;
        }
        let alone: Vec<String> = open
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                open.iter()
                    .enumerate()
                    .all(|(j, o)| *i == j || !(related(o, s) || related(s, o)))
            })
            .map(|(_, s)| s.id.to_string())
            .collect();
        if alone.len() >= 2 {
            out.push((u.name.clone(), alone));
        }
    }
    out
}
