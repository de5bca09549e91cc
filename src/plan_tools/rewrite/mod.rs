//! The plan rewrites of `evaluate` (spec §V: auto-fixes) and `prioritize`
//! (spec §U: reorder, renumber, annotate, adjust layers). Pure: a plan in,
//! a plan and what was done out; `plan_tools::write` turns the result into text.

mod ranking;
mod split;
#[cfg(test)]
mod tests;

pub use ranking::prioritize;
pub use ranking::LayerChange;
pub use ranking::Prioritization;
pub use ranking::Ranked;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::plan::model::Criterion;
use crate::plan::model::CriterionKind;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;
use crate::plan::model::SprintId;
use crate::plan::model::TaskType;

use super::analysis;
use super::analysis::estimated_turns;
use super::analysis::Fitness;
use split::cut_to_fit;
use split::fits;
use split::split_concerns;
use split::Item;

/// Replace `Sprint <old>` references by `Sprint <new>` in one pass (so that
/// 2→3 and 3→4 do not chain).
pub fn retarget(text: &str, map: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("Sprint ") {
        out.push_str(&rest[..i + 7]);
        rest = &rest[i + 7..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            continue;
        }
        let mut len = digits;
        let next = rest[digits..].chars().next();
        if next.is_some_and(|c| c.is_ascii_lowercase())
            && !rest[digits + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric())
        {
            len += 1;
        }
        let id = &rest[..len];
        out.push_str(map.get(id).map(String::as_str).unwrap_or(id));
        rest = &rest[len..];
    }
    out.push_str(rest);
    out
}

fn retarget_criteria(list: &mut [Criterion], map: &BTreeMap<String, String>) {
    for c in list {
        c.text = retarget(&c.text, map);
    }
}

// ---------------------------------------------------------------------------
// evaluate

/// Commands `evaluate` may write into criteria.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    /// The build (or build-and-test) command: `[build] command`, else the
    /// plan's first runnable exit check.
    pub build: Option<String>,
    pub test: Option<String>,
}

impl Commands {
    pub fn from_plan(plan: &Plan, build: Option<&str>) -> Commands {
        let from_checks = plan
            .exit_checks
            .iter()
            .find_map(|c| c.command.clone())
            .filter(|c| !c.starts_with("test -e"));
        let build = build.map(str::to_string).or(from_checks);
        let test = build.clone().filter(|b| b.contains("test"));
        Commands { build, test }
    }

    /// Fill what the configuration and the plan leave open with the
    /// project's own commands (`Cargo.toml` → `cargo test`, …).
    pub fn with_project(mut self, found: Option<super::project::ProjectCommands>) -> Commands {
        if let Some(p) = found {
            if self.test.is_none() {
                self.test = p.test.clone().filter(|_| self.build.is_none());
            }
            if self.build.is_none() {
                self.build = p.test.or(p.build);
            }
        }
        self
    }
}

/// Per-check counts for the summary table (spec §V-125).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CheckCount {
    pub passed: usize,
    pub issues: usize,
    pub fixed: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    pub atomicity: CheckCount,
    pub testability: CheckCount,
    pub fitness: CheckCount,
    pub before: usize,
    pub after: usize,
    pub splits: usize,
    pub merges: usize,
    pub budget: u32,
    /// One line per change made, in order.
    pub changes: Vec<String>,
    /// Problems left because no fix applies (e.g. no build command known).
    pub unfixed: Vec<String>,
    /// Sprints the plan marks done: never fixed, split or merged.
    pub done_left: usize,
    /// Splits and merges, proposed and not written: a unit's sprints are
    /// the author's sections, so reshaping them is left to the author,
    /// with the text to paste.
    pub proposals: Vec<Proposal>,
}

/// A unit's sprints as `evaluate` would reshape them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Proposal {
    pub unit: String,
    /// What would change, one line each.
    pub changes: Vec<String>,
    /// The reshaped sprints in the plan format, to paste over the unit's
    /// sprint sections.
    pub text: String,
}

/// Files a sprint's tasks say to create, in the order the tasks name them.
fn created_files(s: &Sprint) -> Vec<String> {
    let index = analysis::FileIndex::new(&s.files);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in &s.tasks {
        let l = t.to_lowercase();
        if !super::analysis::CREATE_VERBS
            .iter()
            .any(|v| l.starts_with(v))
        {
            continue;
        }
        for f in index.mentions(t) {
            if seen.insert(f.as_str()) {
                out.push(f.clone());
            }
        }
    }
    out
}

/// `\`path\` exists`, typed exactly as the parser types it.
pub(crate) fn exists_criterion(path: &str) -> Criterion {
    let text = format!("`{path}` exists");
    crate::plan::detect::classify_criterion(&text, &crate::plan::detect::inline_code(&text), false)
}

/// `what: \`cmd\`` when the parser reads that back as a command; a bare
/// command (written as a code block) otherwise.
pub(crate) fn command_criterion(what: &str, cmd: &str) -> Criterion {
    let text = format!("{what}: `{cmd}`");
    let c = crate::plan::detect::classify_criterion(
        &text,
        &crate::plan::detect::inline_code(&text),
        false,
    );
    if c.kind == CriterionKind::Command && c.command.as_deref() == Some(cmd) {
        return c;
    }
    Criterion {
        kind: CriterionKind::Command,
        text: cmd.to_string(),
        command: Some(cmd.to_string()),
        expected: None,
        checked: false,
    }
}

fn is_test_sprint(s: &Sprint) -> bool {
    s.name.to_lowercase().contains("test")
}

/// Recompute the derived file list after texts moved between sprints.
fn refresh_files_in(s: &mut Sprint, index: &analysis::FileIndex) {
    let mut files: std::collections::BTreeSet<String> = Default::default();
    for t in s
        .tasks
        .iter()
        .chain(s.entry.iter().map(|c| &c.text))
        .chain(s.exit.iter().map(|c| &c.text))
    {
        for f in index.mentions(t) {
            if !files.contains(f) {
                files.insert(f.clone());
            }
        }
    }
    s.files = files.into_iter().collect();
}

fn fix_criteria(
    s: &mut Sprint,
    cmds: &Commands,
    ev: &mut Evaluation,
    label: &str,
    plan_verified: bool,
) -> bool {
    let mut fixed = false;
    // Vague criteria are replaced by something a machine can check.
    let created = created_files(s);
    let mut replaced = Vec::new();
    let mut completeness = false;
    for c in &mut s.exit {
        if !analysis::is_vague(&c.text) {
            continue;
        }
        let l = c.text.to_lowercase();
        let replacement = if l.contains("is complete") {
            completeness = !created.is_empty();
            created
                .iter()
                .find(|f| !replaced.contains(*f))
                .map(|f| exists_criterion(f))
                .or_else(|| {
                    cmds.build
                        .as_deref()
                        .map(|b| command_criterion("build passes", b))
                })
        } else {
            cmds.test
                .as_deref()
                .map(|t| command_criterion("tests pass", t))
                .or_else(|| {
                    cmds.build
                        .as_deref()
                        .map(|b| command_criterion("build passes", b))
                })
        };
        match replacement {
            Some(r) => {
                ev.changes.push(format!(
                    "{label}: replaced vague criterion \"{}\" with \"{}\"",
                    c.text, r.text
                ));
                if let Some(p) = r.text.split('`').nth(1) {
                    replaced.push(p.to_string());
                }
                *c = r;
                fixed = true;
            }
            None => ev.unfixed.push(format!(
                "{label}: vague criterion \"{}\" kept (no build or test command known: set [build] command)",
                c.text
            )),
        }
    }
    // "X is complete" means every file the sprint creates exists.
    if completeness {
        for f in &created {
            let e = exists_criterion(f);
            if !s.exit.contains(&e) {
                s.exit.push(e);
            }
        }
    }
    // Missing machine-verifiable criteria are added.
    // A plan-wide runnable Exit Check verifies every sprint already.
    let verifiable = plan_verified || s.exit.iter().any(|c| c.command.is_some());
    if !verifiable && s.task_type != TaskType::Manual {
        let mut added = Vec::new();
        for f in created_files(s) {
            added.push(exists_criterion(&f));
        }
        if s.task_type == TaskType::Code || is_test_sprint(s) {
            let cmd = if is_test_sprint(s) {
                cmds.test.as_deref().or(cmds.build.as_deref())
            } else {
                cmds.build.as_deref()
            };
            if let Some(c) = cmd {
                added.push(command_criterion(
                    if is_test_sprint(s) {
                        "tests pass"
                    } else {
                        "build passes"
                    },
                    c,
                ));
            }
        }
        // When nothing can be added the sprint is reported at the end, if a
        // merge has not given it a criterion by then.
        if !added.is_empty() {
            for a in &added {
                ev.changes
                    .push(format!("{label}: added exit criterion \"{}\"", a.text));
            }
            s.exit.extend(added);
            fixed = true;
        }
    }
    fixed
}

/// The runnable exit criteria `evaluate` would add to a sprint that has
/// none (its texts, as they would be written), empty when it knows no
/// command or file to check: what `start` shows beside its warning.
pub fn proposed_criteria(s: &Sprint, cmds: &Commands) -> Vec<String> {
    let mut fixed = s.clone();
    let mut scratch = Evaluation::default();
    fix_criteria(&mut fixed, cmds, &mut scratch, "", false);
    fixed
        .exit
        .iter()
        .filter(|c| c.command.is_some() && c.kind != CriterionKind::Checklist)
        .filter(|c| !s.exit.contains(c))
        .map(|c| c.text.clone())
        .collect()
}

/// Run every check and apply every fix, then number the sprints 1, 2, 3…
/// with every `Sprint N` reference following its sprint.
pub fn evaluate(plan: &Plan, budget: u32, cmds: &Commands) -> (Plan, Evaluation) {
    let mut out = plan.clone();
    let mut ev = Evaluation {
        budget,
        before: plan.sprint_total(),
        ..Evaluation::default()
    };
    let all_files: Vec<String> = {
        let mut v: Vec<String> = plan
            .units
            .iter()
            .flat_map(|u| u.sprints.iter().flat_map(|s| s.files.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let all_index = analysis::FileIndex::new(&all_files);
    let plan_verified = plan.exit_checks.iter().any(|c| c.command.is_some());
    for u in &mut out.units {
        let unit_name = u.name.clone();
        let mut items: Vec<Item> = Vec::new();
        // Each sprint with its criteria fixed and nothing else: what is
        // written when the unit's reshaping is only proposed.
        let mut fixed_only: Vec<Sprint> = Vec::new();
        let mut reshaping: Vec<String> = Vec::new();
        // Fix counts before the unit: a reshaping only proposed fixes nothing.
        let fixed_before = (ev.atomicity.fixed, ev.fitness.fixed);
        for s in std::mem::take(&mut u.sprints) {
            let label = format!("{unit_name}/{}", s.id);
            let old = s.id.to_string();
            // Done is the author's word: the sprint stays as written.
            if s.done.is_some() {
                ev.done_left += 1;
                fixed_only.push(s.clone());
                items.push(Item {
                    sprint: s,
                    olds: vec![old],
                    continues: false,
                });
                continue;
            }
            let q = analysis::quality(&s, budget, &plan.exit_checks);
            let mut s = s;
            // Testability first: the fixes add criteria the size estimate
            // counts.
            if q.testable() {
                ev.testability.passed += 1;
            } else {
                ev.testability.issues += 1;
                if fix_criteria(&mut s, cmds, &mut ev, &label, plan_verified) {
                    ev.testability.fixed += 1;
                }
            }
            // Atomicity is judged after the criteria fixes (explicit outputs
            // may have just been added).
            let q = analysis::quality(&s, budget, &plan.exit_checks);
            fixed_only.push(s.clone());
            let mut parts = vec![s];
            if q.atomic() {
                ev.atomicity.passed += 1;
            } else {
                ev.atomicity.issues += 1;
                if !q.single_concern {
                    if let Some(split) = split_concerns(&parts[0], cmds) {
                        reshaping.push(format!(
                            "{label}: split by concern into {} sprints",
                            split.len()
                        ));
                        ev.splits += split.len() - 1;
                        ev.atomicity.fixed += 1;
                        parts = split;
                    }
                }
            }
            // Oversized parts are cut into the fewest chunks that all fit.
            let mut sized = Vec::new();
            let mut oversized = false;
            let mut fixed = false;
            for p in parts {
                if fits(&p, budget) {
                    sized.push(p);
                    continue;
                }
                oversized = true;
                let cut = cut_to_fit(&p, budget, cmds);
                match cut {
                    Some(chunks) => {
                        reshaping.push(format!(
                            "{label}: oversized (est. {} turns), split \"{}\" into {}",
                            estimated_turns(&p),
                            p.name,
                            chunks.len()
                        ));
                        ev.splits += chunks.len() - 1;
                        fixed = true;
                        sized.extend(chunks);
                    }
                    None => {
                        ev.unfixed.push(format!(
                            "{label}: oversized (est. {} turns) and cannot be split further",
                            estimated_turns(&p)
                        ));
                        sized.push(p);
                    }
                }
            }
            if oversized {
                ev.fitness.issues += 1;
                if fixed {
                    ev.fitness.fixed += 1;
                }
            }
            let split = sized.len() > 1;
            for (k, mut p) in sized.into_iter().enumerate() {
                if split {
                    refresh_files_in(&mut p, &all_index);
                }
                items.push(Item {
                    sprint: p,
                    olds: if k == 0 {
                        vec![old.clone()]
                    } else {
                        Vec::new()
                    },
                    continues: k > 0,
                });
            }
        }
        // Undersized sprints merge forward into the next sprint of the unit
        // (backward for the last), when the types agree and the merge fits.
        let mut k = 0;
        while k < items.len() {
            let small =
                Fitness::of(estimated_turns(&items[k].sprint), budget) == Fitness::Undersized;
            if !small {
                k += 1;
                continue;
            }
            ev.fitness.issues += 1;
            let target = if k + 1 < items.len() {
                Some(k + 1)
            } else {
                k.checked_sub(1)
            };
            let done = |i: usize| items[i].sprint.done.is_some();
            let Some(t) = target.filter(|t| {
                items[*t].sprint.task_type == items[k].sprint.task_type && !done(*t) && !done(k)
            }) else {
                k += 1;
                continue;
            };
            let (first, second) = if t > k { (k, t) } else { (t, k) };
            let a = &items[first];
            let b = &items[second];
            let mut merged = a.sprint.clone();
            merged.name = format!("{} + {}", a.sprint.name, b.sprint.name);
            merged.tasks.extend(b.sprint.tasks.iter().cloned());
            merged.exit.extend(b.sprint.exit.iter().cloned());
            let a_refs: Vec<String> = a.olds.iter().map(|o| format!("Sprint {o}")).collect();
            for c in &b.sprint.entry {
                let on_a = a_refs.iter().any(|r| analysis::has_phrase(&c.text, r));
                if !merged.entry.contains(c) && !on_a {
                    merged.entry.push(c.clone());
                }
            }
            refresh_files_in(&mut merged, &all_index);
            if !fits(&merged, budget) {
                k += 1;
                continue;
            }
            reshaping.push(format!(
                "{unit_name}/{}: undersized, merged with Sprint {}",
                items[k].olds.first().cloned().unwrap_or_default(),
                items[t].olds.first().cloned().unwrap_or_default()
            ));
            ev.merges += 1;
            ev.fitness.fixed += 1;
            let mut olds = items[first].olds.clone();
            olds.extend(items[second].olds.iter().cloned());
            let continues = items[first].continues;
            items[first] = Item {
                sprint: merged,
                olds,
                continues,
            };
            items.remove(second);
        }
        ev.fitness.passed += items
            .iter()
            .filter(|i| Fitness::of(estimated_turns(&i.sprint), budget) == Fitness::Right)
            .count();
        // Ids are the author's: a unit nothing was split in or merged into
        // keeps them. Otherwise number 1, 2, 3…: old ids follow their
        // sprint; split parts enter on the part before them.
        let kept = items.iter().all(|i| i.olds.len() == 1 && !i.continues);
        let mut map = BTreeMap::new();
        for (k, item) in items.iter().enumerate() {
            for o in &item.olds {
                map.entry(o.clone()).or_insert_with(|| (k + 1).to_string());
            }
        }
        let mut sprints = Vec::new();
        for (k, item) in items.into_iter().enumerate() {
            let mut s = item.sprint;
            if !kept {
                s.id = SprintId::whole(k as u32 + 1);
            }
            if !kept {
                for t in &mut s.tasks {
                    *t = retarget(t, &map);
                }
                retarget_criteria(&mut s.entry, &map);
                retarget_criteria(&mut s.exit, &map);
            }
            if item.continues {
                s.entry.insert(
                    0,
                    Criterion {
                        kind: CriterionKind::Checklist,
                        text: format!("Sprint {k} exit criteria met"),
                        command: None,
                        expected: None,
                        checked: false,
                    },
                );
            }
            if s.task_type != TaskType::Manual
                && !plan_verified
                && !s.exit.iter().any(|c| c.command.is_some())
            {
                ev.unfixed.push(format!(
                    "{unit_name}/{}: no machine-verifiable exit criterion, and none can be derived (name the files it creates, or set [build] command)",
                    s.id
                ));
            }
            sprints.push(s);
        }
        if kept {
            u.sprints = sprints;
        } else {
            let mut text = String::new();
            for s in &sprints {
                crate::plan_tools::write::sprint(&mut text, s, None);
            }
            (ev.atomicity.fixed, ev.fitness.fixed) = fixed_before;
            ev.proposals.push(Proposal {
                unit: unit_name.clone(),
                changes: reshaping,
                text,
            });
            u.sprints = fixed_only;
        }
    }
    ev.after = out.sprint_total();
    (out, ev)
}

// ---------------------------------------------------------------------------
// prioritize

/// Every unit's name and directory (lower-cased), looked up by the word
/// runs of a text rather than searched for one by one.
struct UnitNames {
    by_phrase: std::collections::HashMap<String, Vec<usize>>,
    /// Names that do not start and end with a letter or digit: searched.
    odd: Vec<(String, usize)>,
    /// The most word runs in any name.
    longest: usize,
}

impl UnitNames {
    fn new(plan: &Plan) -> UnitNames {
        let mut by_phrase: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut odd = Vec::new();
        let mut longest = 1;
        for (k, u) in plan.units.iter().enumerate() {
            let name = u.name.to_lowercase();
            let dir = u.dir.as_deref().map(str::to_lowercase).filter(|d| d != ".");
            for p in std::iter::once(name).chain(dir) {
                let b = p.as_bytes();
                let clean = !p.is_empty()
                    && b[0].is_ascii_alphanumeric()
                    && b[b.len() - 1].is_ascii_alphanumeric();
                if !clean {
                    odd.push((p, k));
                    continue;
                }
                let runs = p
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .count();
                longest = longest.max(runs);
                let v = by_phrase.entry(p).or_default();
                if v.last() != Some(&k) {
                    v.push(k);
                }
            }
        }
        UnitNames {
            by_phrase,
            odd,
            longest,
        }
    }

    /// The units `text` names as whole phrases, as [`analysis::has_phrase`]
    /// would find them.
    fn named_in(&self, text: &str) -> Vec<usize> {
        let b = text.as_bytes();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphanumeric() {
                let start = i;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                runs.push((start, i));
            } else {
                i += 1;
            }
        }
        let mut out: Vec<usize> = Vec::new();
        for a in 0..runs.len() {
            for z in a..(a + self.longest).min(runs.len()) {
                if let Some(units) = self.by_phrase.get(&text[runs[a].0..runs[z].1]) {
                    out.extend(units);
                }
            }
        }
        out.extend(
            self.odd
                .iter()
                .filter(|(p, _)| analysis::has_phrase(text, p))
                .map(|(_, k)| *k),
        );
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Units of lower layers a unit's texts name (by name or directory).
fn named_units(plan: &Plan, u: usize, names: &UnitNames) -> Vec<usize> {
    let text: String = plan.units[u]
        .sprints
        .iter()
        .map(|s| format!("{}\n{}", analysis::words(s), s.body.to_lowercase()))
        .collect();
    let mut named = names.named_in(&text);
    named.retain(|k| *k != u);
    named
}
