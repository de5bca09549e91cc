//! The plan rewrites of `evaluate` (spec §V: auto-fixes) and `prioritize`
//! (spec §U: reorder, renumber, annotate, adjust layers). Pure: a plan in,
//! a plan and what was done out; `plan_tools::write` turns the result into text.

use std::collections::BTreeMap;

use serde::Serialize;

use super::analysis;
use super::analysis::estimated_turns;
use super::analysis::At;
use super::analysis::Fitness;
use crate::plan::model::Criterion;
use crate::plan::model::CriterionKind;
use crate::plan::model::DependencyStructure;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;
use crate::plan::model::SprintId;
use crate::plan::model::TaskType;

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

/// Number every unit's sprints 1, 2, 3… and update `Sprint N` references in
/// its texts. `origin[u][k]` is the id sprint k had in the input (splits
/// share it); references to an id point at the first sprint that had it.
/// Returns how many sprints changed number.
pub fn renumber(plan: &mut Plan) -> usize {
    let mut changed = 0;
    for u in &mut plan.units {
        let mut map = BTreeMap::new();
        for (k, s) in u.sprints.iter().enumerate() {
            let new = (k + 1).to_string();
            map.entry(s.id.to_string()).or_insert_with(|| new.clone());
        }
        for (k, s) in u.sprints.iter_mut().enumerate() {
            let new = SprintId {
                number: k as u32 + 1,
                suffix: String::new(),
            };
            if s.id != new {
                changed += 1;
            }
            s.id = new;
            s.name = retarget(&s.name, &map);
            for t in &mut s.tasks {
                *t = retarget(t, &map);
            }
            retarget_criteria(&mut s.entry, &map);
            retarget_criteria(&mut s.exit, &map);
        }
    }
    changed
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

/// A sprint on its way through `evaluate`: the ids it came from (a merge
/// has two), and whether it continues the sprint before it (a split part).
#[derive(Debug, Clone)]
struct Item {
    sprint: Sprint,
    olds: Vec<String>,
    continues: bool,
}

/// Split a sprint's tasks into `k` contiguous, balanced chunks. Every part
/// but the last has the files it creates as exit criteria (or the build);
/// the last keeps the sprint's own exit criteria. `full` parts carry the
/// sprint's text; sizing trials do without it.
fn split_chunks(
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
fn cut_to_fit(s: &Sprint, budget: u32, cmds: &Commands) -> Option<Vec<Sprint>> {
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
fn concern_of(f: &str, files: &[String]) -> Option<String> {
    let top = analysis::top_dir(f);
    if !f.contains('/') {
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

/// Group tasks by the concern of the files they name (code and its own
/// tests are one); tasks naming none stay with the first group. `None`
/// when there is one concern.
fn split_concerns(s: &Sprint, cmds: &Commands) -> Option<Vec<Sprint>> {
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

fn fits(s: &Sprint, budget: u32) -> bool {
    Fitness::of(estimated_turns(s), budget) != Fitness::Oversized
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
        for s in std::mem::take(&mut u.sprints) {
            let label = format!("{unit_name}/{}", s.id);
            let old = s.id.to_string();
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
            let mut parts = vec![s];
            if q.atomic() {
                ev.atomicity.passed += 1;
            } else {
                ev.atomicity.issues += 1;
                if !q.single_concern {
                    if let Some(split) = split_concerns(&parts[0], cmds) {
                        ev.changes.push(format!(
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
                        ev.changes.push(format!(
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
            let Some(t) =
                target.filter(|t| items[*t].sprint.task_type == items[k].sprint.task_type)
            else {
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
            ev.changes.push(format!(
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
        // Number 1, 2, 3…: old ids follow their sprint; split parts enter on
        // the part before them.
        let mut map = BTreeMap::new();
        for (k, item) in items.iter().enumerate() {
            for o in &item.olds {
                map.entry(o.clone()).or_insert_with(|| (k + 1).to_string());
            }
        }
        let mut sprints = Vec::new();
        for (k, item) in items.into_iter().enumerate() {
            let mut s = item.sprint;
            s.id = SprintId {
                number: k as u32 + 1,
                suffix: String::new(),
            };
            for t in &mut s.tasks {
                *t = retarget(t, &map);
            }
            retarget_criteria(&mut s.entry, &map);
            retarget_criteria(&mut s.exit, &map);
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
        u.sprints = sprints;
    }
    ev.after = out.sprint_total();
    (out, ev)
}

// ---------------------------------------------------------------------------
// prioritize

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    pub position: usize,
    pub was: usize,
    pub unit: String,
    pub id: String,
    pub name: String,
    pub score: f64,
    pub justification: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerChange {
    pub unit: String,
    pub from: u32,
    pub to: u32,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prioritization {
    pub sprints: Vec<Ranked>,
    pub reordered: usize,
    pub layers: Vec<LayerChange>,
}

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

/// Layer adjustment (spec §U-118): a unit whose text names units of lower
/// layers, none of them in the layer just below its own, does not really
/// depend on that layer: it moves to one past the highest layer it names.
/// A unit naming no other unit gives no evidence and stays.
fn adjust_layers(plan: &mut Plan) -> Vec<LayerChange> {
    if plan.detection.dependencies != DependencyStructure::Layers {
        return Vec::new();
    }
    let mut changes = Vec::new();
    let original: Vec<Option<u32>> = plan.units.iter().map(|u| u.layer).collect();
    let names = UnitNames::new(plan);
    for u in 0..plan.units.len() {
        let Some(layer) = original[u].filter(|l| *l > 0) else {
            continue;
        };
        let named: Vec<u32> = named_units(plan, u, &names)
            .into_iter()
            .filter_map(|k| original[k])
            .filter(|l| *l < layer)
            .collect();
        let Some(highest) = named.iter().copied().max() else {
            continue;
        };
        if highest + 1 < layer {
            changes.push(LayerChange {
                unit: plan.units[u].name.clone(),
                from: layer,
                to: highest + 1,
                why: format!(
                    "names nothing in layer {}; its latest named dependency is in layer {highest}",
                    layer - 1
                ),
            });
            plan.units[u].layer = Some(highest + 1);
        }
    }
    if !changes.is_empty() {
        // Dependencies follow the layers again.
        let layers: Vec<(String, Option<u32>)> = plan
            .units
            .iter()
            .map(|u| (u.name.clone(), u.layer))
            .collect();
        for u in &mut plan.units {
            if let Some(l) = u.layer {
                u.deps = layers
                    .iter()
                    .filter(|(_, x)| x.is_some_and(|x| x < l))
                    .map(|(n, _)| n.clone())
                    .collect();
            }
        }
    }
    changes
}

/// Score, adjust layers, reorder units under the hard constraints (a unit
/// comes after its dependencies; within a unit the order is kept), renumber
/// and annotate.
pub fn prioritize(plan: &Plan) -> (Plan, Prioritization, BTreeMap<At, String>) {
    let mut work = plan.clone();
    let layers = adjust_layers(&mut work);
    let before: Vec<(String, SprintId)> = analysis::all_sprints(plan)
        .into_iter()
        .map(|a| {
            (
                plan.units[a.unit].name.clone(),
                analysis::sprint(plan, a).id.clone(),
            )
        })
        .collect();
    let scoring = analysis::Scoring::new(&work);
    let scores: BTreeMap<At, analysis::Priority> = analysis::all_sprints(&work)
        .into_iter()
        .map(|a| (a, scoring.priority(a)))
        .collect();
    let mut unit_score = vec![0.0_f64; work.units.len()];
    for (a, p) in &scores {
        unit_score[a.unit] = unit_score[a.unit].max(p.score);
    }
    // Topological order by (layer, then highest score, then plan order):
    // of the units whose dependencies are placed, the first by that key.
    // Scores carry two decimals, so hundredths order them exactly.
    let n = work.units.len();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0usize; n];
    for (i, deps) in work.dependency_indices().into_iter().enumerate() {
        for k in deps {
            dependents[k].push(i);
            waiting[i] += 1;
        }
    }
    let key = |u: usize| {
        (
            work.units[u].layer.unwrap_or(0),
            std::cmp::Reverse((unit_score[u] * 100.0).round() as i64),
            u,
        )
    };
    let mut ready: std::collections::BTreeSet<_> =
        (0..n).filter(|u| waiting[*u] == 0).map(key).collect();
    let mut order: Vec<usize> = Vec::with_capacity(n);
    while let Some(first) = ready.pop_first() {
        let best = first.2;
        order.push(best);
        for &j in &dependents[best] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.insert(key(j));
            }
        }
    }
    if order.len() < n {
        // Validation rules out cycles; keep whatever is left in order.
        let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
        order.extend((0..n).filter(|u| !placed.contains(u)));
    }
    let mut annotations_by_unit: Vec<Vec<String>> = Vec::new();
    let mut units = Vec::new();
    for &u in &order {
        units.push(work.units[u].clone());
        annotations_by_unit.push(
            (0..work.units[u].sprints.len())
                .map(|s| scores[&At { unit: u, sprint: s }].justification())
                .collect(),
        );
    }
    let score_of: Vec<Vec<f64>> = order
        .iter()
        .map(|&u| {
            (0..work.units[u].sprints.len())
                .map(|s| scores[&At { unit: u, sprint: s }].score)
                .collect()
        })
        .collect();
    work.units = units;
    let old_ids: Vec<Vec<SprintId>> = work
        .units
        .iter()
        .map(|u| u.sprints.iter().map(|s| s.id.clone()).collect())
        .collect();
    renumber(&mut work);
    let before_at: std::collections::HashMap<(&str, &SprintId), usize> = before
        .iter()
        .enumerate()
        .map(|(k, (n, id))| ((n.as_str(), id), k))
        .collect();
    let mut ranked = Vec::new();
    let mut annotations = BTreeMap::new();
    let mut position = 0;
    for (ui, u) in work.units.iter().enumerate() {
        for (si, s) in u.sprints.iter().enumerate() {
            position += 1;
            let old = &old_ids[ui][si];
            let was = before_at
                .get(&(u.name.as_str(), old))
                .map(|p| p + 1)
                .unwrap_or(position);
            ranked.push(Ranked {
                position,
                was,
                unit: u.name.clone(),
                id: s.id.to_string(),
                name: s.name.clone(),
                score: score_of[ui][si],
                justification: annotations_by_unit[ui][si].clone(),
            });
            annotations.insert(
                At {
                    unit: ui,
                    sprint: si,
                },
                annotations_by_unit[ui][si].clone(),
            );
        }
    }
    let reordered = ranked.iter().filter(|r| r.was != r.position).count();
    (
        work,
        Prioritization {
            sprints: ranked,
            reordered,
            layers,
        },
        annotations,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_are_found_as_a_scan_finds_them() {
        let text = "# P\n\n## Sprint 1: A\n\n- Create `x.rs`\n";
        let mut plan = crate::plan::parse(text, &Default::default()).expect("parses");
        let template = plan.units[0].clone();
        plan.units = ["core", "unit-1", "unit-12", "web api", "(odd)", "Core-X"]
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let mut u = template.clone();
                u.name = n.to_string();
                u.dir = (k == 1).then(|| "svc/one".to_string());
                u
            })
            .collect();
        let names = UnitNames::new(&plan);
        for t in [
            "uses unit-1 and the core-x lib",
            "unit-12, web  api, web api (odd)",
            "svc/one/x.rs and xcore 1core",
            "",
        ] {
            let want: Vec<usize> = plan
                .units
                .iter()
                .enumerate()
                .filter(|(_, u)| {
                    analysis::has_phrase(t, &u.name.to_lowercase())
                        || u.dir
                            .as_deref()
                            .is_some_and(|d| analysis::has_phrase(t, &d.to_lowercase()))
                })
                .map(|(k, _)| k)
                .collect();
            assert_eq!(names.named_in(t), want, "{t:?}");
        }
    }

    #[test]
    fn references_are_retargeted_in_one_pass() {
        let map: BTreeMap<String, String> = [("2", "3"), ("3", "4"), ("2a", "2")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(
            retarget("Sprint 2 and Sprint 3 and Sprint 2a, Sprint 22", &map),
            "Sprint 3 and Sprint 4 and Sprint 2, Sprint 22"
        );
        assert_eq!(retarget("Sprint 2abc", &map), "Sprint 3abc");
    }
}
