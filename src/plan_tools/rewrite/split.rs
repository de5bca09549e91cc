//! `evaluate`'s splits: a sprint too large for one agent cut into chunks
//! that fit, or by the concerns its tasks name.

use crate::plan::model::Criterion;
use crate::plan::model::Sprint;

use super::analysis;
use super::analysis::estimated_turns;
use super::analysis::Fitness;
use super::command_criterion;
use super::created_files;
use super::exists_criterion;
use super::refresh_files_in;
use super::Commands;

/// A sprint on its way through `evaluate`: the ids it came from (a merge
/// has two), and whether it continues the sprint before it (a split part).
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) sprint: Sprint,
    pub(super) olds: Vec<String>,
    pub(super) continues: bool,
}

/// Split a sprint's tasks into `k` contiguous, balanced chunks. Every part
/// but the last has the files it creates as exit criteria (or the build);
/// the last keeps the sprint's own exit criteria. `full` parts carry the
/// sprint's text; sizing trials do without it.
pub(super) fn split_chunks(
    s: &Sprint,
    k: usize,
    cmds: &Commands,
    index: &analysis::FileIndex,
    full: bool,
) -> Vec<Sprint> {
    let n = s.tasks.len();
    let mut parts: Vec<Sprint> = Vec::new();
    let mut at = 0;
    let mut earlier: Vec<String> = Vec::new();
    for i in 0..k {
        let size = n / k + usize::from(i < n % k);
        // Built field by field: cloning the whole sprint per part made
        // sizing a sprint of thousands of tasks cubic.
        let mut p = Sprint {
            id: s.id.clone(),
            name: format!("{} (part {} of {k})", s.name, i + 1),
            task_type: s.task_type,
            tasks: s.tasks[at..at + size].to_vec(),
            entry: if i == 0 { s.entry.clone() } else { Vec::new() },
            // Only the last part starts from the sprint's criteria (a sprint
            // split by concern may hold one per file it creates).
            exit: if i + 1 == k {
                s.exit.clone()
            } else {
                Vec::new()
            },
            files: Vec::new(),
            body: if full { s.body.clone() } else { String::new() },
            done: s.done.clone(),
            origin: s.origin.clone(),
        };
        at += size;
        refresh_files_in(&mut p, index);
        if i + 1 < k {
            p.exit = created_files(&p)
                .iter()
                .map(|f| exists_criterion(f))
                .collect();
            if p.exit.is_empty() {
                if let Some(c) = cmds.build.as_deref() {
                    p.exit.push(command_criterion("build passes", c));
                }
            }
            earlier.extend(created_files(&p));
        } else {
            // The last part keeps the sprint's criteria, less the ones the
            // earlier parts already check.
            let earlier_index = analysis::FileIndex::new(&earlier);
            p.exit
                .retain(|c| earlier_index.mentioned(&c.text).is_empty());
            if !p.exit.iter().any(|c| c.command.is_some()) {
                let own: Vec<Criterion> = created_files(&p)
                    .iter()
                    .map(|f| exists_criterion(f))
                    .collect();
                p.exit.extend(own);
            }
        }
        refresh_files_in(&mut p, index);
        parts.push(p);
    }
    parts
}

/// The fewest balanced chunks (at least two) that each fit the budget, or
/// `None` when even one task per chunk does not. Smaller chunks never need
/// more turns, so the count is found by bisection.
pub(super) fn cut_to_fit(s: &Sprint, budget: u32, cmds: &Commands) -> Option<Vec<Sprint>> {
    let index = analysis::FileIndex::new(&s.files);
    let fit = |k: usize| {
        split_chunks(s, k, cmds, &index, false)
            .iter()
            .all(|c| fits(c, budget))
    };
    let n = s.tasks.len();
    if n < 2 || !fit(n) {
        return None;
    }
    let (mut lo, mut hi) = (2, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fit(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(split_chunks(s, lo, cmds, &index, true))
}

/// The concern a file belongs to within a sprint: its top-level directory,
/// except that a file under a test directory belongs to the code it tests
/// (`tests/parser.rs` to the `src/` that holds `parser`, `Tests/PortTests`
/// to `Sources/Port`; the first code directory when no name matches).
pub(super) fn concern_of(f: &str, files: &[String]) -> Option<String> {
    let top = analysis::top_dir(f);
    if !f.contains('/') || !looks_like_a_directory(top) {
        return None;
    }
    if !analysis::is_test_dir(top) {
        return Some(top.to_string());
    }
    let code: Vec<&String> = files
        .iter()
        .filter(|x| x.contains('/') && !analysis::is_test_dir(analysis::top_dir(x)))
        .collect();
    let name = analysis::tested_name(f);
    let ext = |p: &str| p.rsplit_once('.').map(|(_, e)| e.to_string());
    let named = |x: &&&String| !name.is_empty() && x.to_lowercase().contains(&name);
    code.iter()
        .filter(named)
        .find(|x| ext(x) == ext(f))
        .or_else(|| code.iter().find(named))
        .or(code.first())
        .map(|x| analysis::top_dir(x).to_string())
        .or_else(|| Some(top.to_string()))
}

/// A name a directory has: not a pseudo-path read from prose (`(Sources)`,
/// `<tag`, ``).
fn looks_like_a_directory(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | '+'))
        && name.chars().any(|c| c.is_alphanumeric())
}

/// Group tasks by the concern of the files they name (code and its own
/// tests are one); tasks naming none stay with the first group. `None`
/// when there is one concern.
pub(super) fn split_concerns(s: &Sprint, cmds: &Commands) -> Option<Vec<Sprint>> {
    let index = analysis::FileIndex::new(&s.files);
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut loose = Vec::new();
    for t in &s.tasks {
        let dirs: Vec<String> = index
            .mentions(t)
            .iter()
            .filter_map(|f| concern_of(f, &s.files))
            .collect();
        match dirs.first() {
            Some(d) => match groups.iter_mut().find(|(g, _)| g == d) {
                Some((_, ts)) => ts.push(t.clone()),
                None => groups.push((d.clone(), vec![t.clone()])),
            },
            None => loose.push(t.clone()),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    groups[0].1.splice(0..0, loose);
    let n = groups.len();
    let dirs: Vec<String> = groups.iter().map(|(d, _)| d.clone()).collect();
    let mut out = Vec::new();
    for (i, (dir, tasks)) in groups.into_iter().enumerate() {
        let mut part = Sprint {
            id: s.id.clone(),
            name: format!("{} ({dir})", s.name),
            task_type: s.task_type,
            tasks,
            entry: s.entry.clone(),
            exit: Vec::new(),
            files: Vec::new(),
            body: s.body.clone(),
            done: s.done.clone(),
            origin: s.origin.clone(),
        };
        // Criteria go with the concern whose files or directory they name;
        // the rest (builds, tests) with the last part, which completes the
        // sprint.
        part.exit = s
            .exit
            .iter()
            .filter(|c| {
                let named: Vec<String> = index
                    .mentions(&c.text)
                    .iter()
                    .filter_map(|f| concern_of(f, &s.files))
                    .collect();
                let own = named.contains(&dir)
                    || (named.is_empty() && c.text.contains(&format!("{dir}/")));
                let anyone =
                    !named.is_empty() || dirs.iter().any(|d| c.text.contains(&format!("{d}/")));
                own || (!anyone && i == n - 1)
            })
            .cloned()
            .collect();
        refresh_files_in(&mut part, &index);
        if !part.exit.iter().any(|c| c.command.is_some()) {
            part.exit
                .extend(created_files(&part).iter().map(|f| exists_criterion(f)));
            if part.exit.is_empty() {
                if let Some(c) = cmds.build.as_deref() {
                    part.exit.push(command_criterion("build passes", c));
                }
            }
        }
        if i > 0 {
            part.entry.clear();
        }
        refresh_files_in(&mut part, &index);
        out.push(part);
    }
    Some(out)
}

pub(super) fn fits(s: &Sprint, budget: u32) -> bool {
    Fitness::of(estimated_turns(s), budget) != Fitness::Oversized
}
