//! `breakdown` (spec §T): a requirements document in any Markdown shape →
//! requirements (with where they were found and how sure we are) → atomic
//! tasks → work units → sprints of 3–7 tasks → a [`Plan`] that
//! `plan_tools::write` renders and the parser reads back. Pure and deterministic.

mod requirements;

pub use requirements::requirements;
pub use requirements::scan;
pub use requirements::Confidence;
pub use requirements::Requirement;

use serde::Serialize;

use crate::plan::markdown::blocks;
use crate::plan::markdown::Block;
use crate::plan::model::Criterion;
use crate::plan::model::DependencyStructure;
use crate::plan::model::Detection;
use crate::plan::model::DispatchMode;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;
use crate::plan::model::SprintId;
use crate::plan::model::SprintSource;
use crate::plan::model::TaskType;
use crate::plan::model::Unit;
use crate::plan::model::UnitSource;

use super::analysis;
use requirements::atomic_tasks;
use requirements::capitalize;
use requirements::clean;
use requirements::lower;

/// The documents `breakdown` looks for in the current directory, in order
/// (spec §B-13).
pub const REQUIREMENT_FILES: &[&str] = &["REQUIREMENTS.md", "PRD.md", "SPEC.md", "README.md"];

/// A line of the document that became no task, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotPlanned {
    pub text: String,
    pub heading: String,
    pub lines: (usize, usize),
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    pub project: String,
    pub requirements: Vec<Requirement>,
    /// Every requirement-like line that became no task, with the reason.
    pub not_planned: Vec<NotPlanned>,
    pub tasks: usize,
    pub plan: Plan,
}

/// One task per top-level directory of the files it names, the path list
/// replaced by that directory's paths.
fn by_directory(task: &str) -> Vec<String> {
    let ps = paths(task);
    let mut dirs: Vec<&str> = Vec::new();
    for p in &ps {
        let d = analysis::top_dir(p);
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    if dirs.len() < 2 {
        return vec![task.to_string()];
    }
    let (Some(first), Some(last)) = (
        task.find(&format!("`{}`", ps[0])),
        task.rfind(&format!("`{}`", ps[ps.len() - 1])),
    ) else {
        return vec![task.to_string()];
    };
    let end = last + ps[ps.len() - 1].len() + 2;
    dirs.iter()
        .map(|d| {
            let mine: Vec<String> = ps
                .iter()
                .filter(|p| analysis::top_dir(p) == *d)
                .map(|p| format!("`{p}`"))
                .collect();
            format!("{}{}{}", &task[..first], mine.join(", "), &task[end..])
        })
        .collect()
}

/// Task text without "depends on" / "requires": in a plan those words make
/// dependencies between units, and the generated plan states its
/// dependencies in the Work Units table instead.
fn neutral(task: &str) -> String {
    let mut out = String::new();
    let mut rest = task;
    loop {
        let l = rest.to_ascii_lowercase();
        let hit = ["depends on ", "requires "]
            .iter()
            .filter_map(|k| l.find(k).map(|i| (i, k.len())))
            .min();
        let Some((i, len)) = hit else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..i]);
        out.push_str("needs ");
        rest = &rest[i + len..];
    }
}

/// A unit's tasks split by the top-level directory of the files they name
/// (spec §T: distinct directories are distinct units): with two or more,
/// each directory's tasks are a unit named after it (after the section and
/// the directory when the section is not the whole project), and tasks
/// naming no file stay in the section's unit. With fewer, one unit.
fn by_top_directory(name: &str, project: &str, tasks: Vec<String>) -> Vec<(String, Vec<String>)> {
    let dir_of = |t: &String| {
        paths(t)
            .first()
            .map(|p| analysis::top_dir(p).to_string())
            // `/healthz` is a route, not a file under a directory.
            .filter(|d| !d.is_empty() && d != "." && !analysis::is_test_dir(d))
    };
    let mut groups: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for t in &tasks {
        let d = dir_of(t);
        match groups.iter_mut().find(|(g, _)| *g == d) {
            Some((_, ts)) => ts.push(t.clone()),
            None => groups.push((d, vec![t.clone()])),
        }
    }
    if groups.iter().filter(|(d, _)| d.is_some()).count() < 2 {
        return vec![(name.to_string(), tasks)];
    }
    groups
        .into_iter()
        .map(|(d, ts)| match d {
            None => (name.to_string(), ts),
            Some(d) if name == project => (d, ts),
            Some(d) => (format!("{name} {d}"), ts),
        })
        .collect()
}

fn is_foundation(task: &str) -> bool {
    let l = lower(task);
    [
        "type",
        "interface",
        "schema",
        "model",
        "shared",
        "common",
        "config",
    ]
    .iter()
    .any(|w| l.contains(w))
        && !l.starts_with("write tests")
}

/// Paths written in backticks.
fn paths(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.contains(' ') && (s.contains('/') || s.contains('.')))
        .map(|(_, s)| s.to_string())
        .collect()
}

/// A criterion typed exactly as the parser will type it when it reads the
/// plan back.
fn checklist(text: String) -> Criterion {
    crate::plan::detect::classify_criterion(&text, &crate::plan::detect::inline_code(&text), false)
}

/// Group a unit's tasks into sprints of 3–7 (fewer only when the unit has
/// fewer than 3), foundation tasks first.
/// When the unit's tasks name files in several top-level directories,
/// each directory's tasks get sprints of their own (tasks naming no file
/// join the first), so that every sprint is one concern.
fn sprints_for(tasks: Vec<String>) -> Vec<Vec<String>> {
    let dir_of = |t: &String| paths(t).first().map(|p| analysis::top_dir(p).to_string());
    let mut dirs: Vec<String> = tasks.iter().filter_map(dir_of).collect();
    dirs.sort();
    dirs.dedup();
    if dirs.len() < 2 {
        return chunks(tasks);
    }
    let mut groups: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for t in tasks {
        let d = dir_of(&t);
        match groups.iter_mut().find(|(g, _)| *g == d) {
            Some((_, ts)) => ts.push(t),
            None => groups.push((d, vec![t])),
        }
    }
    // Loose tasks join the first directory's group.
    let loose: Vec<String> = groups
        .iter()
        .position(|(d, _)| d.is_none())
        .map(|k| groups.remove(k).1)
        .unwrap_or_default();
    groups[0].1.splice(0..0, loose);
    groups.into_iter().flat_map(|(_, ts)| chunks(ts)).collect()
}

fn chunks(tasks: Vec<String>) -> Vec<Vec<String>> {
    let (mut found, rest): (Vec<String>, Vec<String>) =
        tasks.into_iter().partition(|t| is_foundation(t));
    found.extend(rest);
    let n = found.len();
    let count = n.div_ceil(7).max(1);
    let base = n / count;
    let extra = n % count;
    let mut out = Vec::new();
    let mut it = found.into_iter();
    for k in 0..count {
        let size = base + usize::from(k < extra);
        out.push(it.by_ref().take(size).collect());
    }
    out
}

fn sprint_name(tasks: &[String]) -> String {
    let first = tasks
        .first()
        .map(|t| t.trim_start_matches("Implement: "))
        .unwrap_or("Work");
    let words: Vec<&str> = first.split_whitespace().take(6).collect();
    let mut name = capitalize(&words.join(" "));
    name = name.trim_end_matches([',', ';', ':', '.']).to_string();
    if first.split_whitespace().count() > 6 {
        name.push('…');
    }
    let name: Vec<&str> = name
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|w| !w.is_empty())
        .collect();
    // The name the parser reads back from the heading (no outer blanks, no
    // trailing tag such as `[P]`, no aside).
    // A requirement's `✓` or `[x]` would read back as a done mark.
    let (name, _) = crate::plan::detect::strip_done_marks(&name.join(" "));
    let name = crate::plan::detect::tidy_name(&crate::plan::detect::clean_name(&name));
    if name.is_empty() {
        "Work".to_string()
    } else {
        name
    }
}

/// Build the plan. With a build command (`[build] command`), every sprint
/// also exits on it passing, so each has a machine-verifiable criterion.
pub fn breakdown(source: &str, project: &str, build: Option<&str>) -> Breakdown {
    let title = blocks(source)
        .iter()
        .find_map(|b| match b {
            Block::Heading { level: 1, text, .. } => Some(clean(text)),
            _ => None,
        })
        // An empty `#` heading names nothing: the project does.
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| project.to_string());
    let (reqs, mut not_planned) = scan(source, &title);
    // Units in order of first mention, each with its requirements.
    let mut unit_names: Vec<String> = Vec::new();
    let mut by_unit: std::collections::HashMap<&str, Vec<&Requirement>> = Default::default();
    for r in &reqs {
        let mine = by_unit.entry(r.unit.as_str()).or_default();
        if mine.is_empty() {
            unit_names.push(r.unit.clone());
        }
        mine.push(r);
    }
    if unit_names.is_empty() {
        unit_names.push(title.clone());
    }
    let mut task_count = 0;
    // (unit, the section it came from, its tasks), in order of mention.
    let mut parts: Vec<(String, String, Vec<String>)> = Vec::new();
    for name in &unit_names {
        let mine: &[&Requirement] = by_unit.get(name.as_str()).map_or(&[], Vec::as_slice);
        let mut tasks: Vec<String> = Vec::new();
        let mut seen: std::collections::HashSet<String> = Default::default();
        for r in mine {
            let before = tasks.len();
            for t in atomic_tasks(r) {
                let t = neutral(&t.split_whitespace().collect::<Vec<_>>().join(" "));
                if seen.insert(t.clone()) {
                    tasks.push(t);
                }
            }
            if tasks.len() == before {
                not_planned.push(NotPlanned {
                    text: r.text.clone(),
                    heading: r.heading.clone(),
                    lines: r.lines,
                    reason: "repeats a requirement already planned".into(),
                });
            }
        }
        if tasks.is_empty() {
            tasks.push(format!("Implement {name}"));
        }
        task_count += tasks.len();
        for (unit, tasks) in by_top_directory(name, &title, tasks) {
            let mut unique = unit.clone();
            let mut n = 1;
            while parts.iter().any(|(u, _, _)| lower(u) == lower(&unique)) {
                n += 1;
                unique = format!("{unit} {n}");
            }
            parts.push((unique, name.clone(), tasks));
        }
    }
    // Foundation first (spec §T): units made mostly of types, interfaces,
    // schemas and shared code come before the rest, which wait for them.
    // Their own tests do not count against them.
    let foundation = |tasks: &[String]| {
        let work: Vec<&String> = tasks
            .iter()
            .filter(|t| !t.starts_with("Write tests") && !t.starts_with("Write a test"))
            .collect();
        work.iter().filter(|t| is_foundation(t)).count() * 2 > work.len()
    };
    parts.sort_by_key(|(_, _, tasks)| !foundation(tasks));
    let founding: Vec<bool> = parts.iter().map(|(_, _, t)| foundation(t)).collect();
    let mut units: Vec<Unit> = Vec::new();
    for (name, _, tasks) in &parts {
        let tasks = tasks.clone();
        let all_paths: Vec<String> = tasks.iter().flat_map(|t| paths(t)).collect();
        let dir = {
            let tops: Vec<&str> = all_paths
                .iter()
                .filter_map(|p| p.split_once('/').map(|(d, _)| d))
                .collect();
            // The directory as the parser will read it back from the table.
            tops.first()
                .filter(|d| tops.iter().all(|x| x == *d))
                .map(|d| crate::plan::detect::clean_name(d))
                .filter(|d| !matches!(d.as_str(), "" | "-" | "—" | "."))
        };
        let groups = sprints_for(tasks);
        let mut sprints = Vec::new();
        for (k, g) in groups.into_iter().enumerate() {
            let id = SprintId::whole(k as u32 + 1);
            let entry = vec![checklist(if k == 0 {
                "First sprint — no prerequisites".into()
            } else {
                format!("Sprint {k} exit criteria met")
            })];
            let mut exit: Vec<Criterion> = g
                .iter()
                .filter(|t| !t.starts_with("Write tests") && !t.starts_with("Write a test"))
                .flat_map(|t| paths(t))
                .map(|p| super::rewrite::exists_criterion(&p))
                .collect();
            exit.dedup();
            // Only checks a machine runs: a `Done: <task>` checklist can
            // never be verified, so a run that did everything would still
            // fail its final verification. With neither a file nor a
            // command, the sprint is judged by its commits and result.
            if let Some(b) = build {
                exit.push(super::rewrite::command_criterion("build passes", b));
            }
            let files = g.iter().flat_map(|t| paths(t)).collect();
            sprints.push(Sprint {
                id,
                name: sprint_name(&g),
                task_type: TaskType::Code,
                tasks: g,
                entry,
                exit,
                files,
                body: String::new(),
                done: None,
                origin: Default::default(),
            });
        }
        units.push(Unit {
            name: name.clone(),
            dir,
            layer: Some(0),
            deps: Vec::new(),
            sprints,
            origin: Default::default(),
        });
    }
    // A unit whose requirements name an earlier unit depends on it, and
    // every other unit on the foundation.
    let lowered: Vec<String> = units.iter().map(|u| lower(&u.name)).collect();
    for i in 0..units.len() {
        // A unit split off by directory is judged by its own tasks, not by
        // the whole section's requirements.
        let text: String = if parts[i].0 != parts[i].1 {
            parts[i]
                .2
                .iter()
                .map(|t| lower(t))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            by_unit
                .get(parts[i].1.as_str())
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|r| lower(&r.text))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let index = analysis::Phrases::new(&text);
        let named: Vec<usize> = (0..i)
            .filter(|k| index.has(&lowered[*k]) || (founding[*k] && !founding[i]))
            .collect();
        let layer = named
            .iter()
            .filter_map(|k| units[*k].layer)
            .max()
            .map(|l| l + 1)
            .unwrap_or(0);
        units[i].layer = Some(layer);
        units[i].deps = named.iter().map(|k| units[*k].name.clone()).collect();
    }
    // Dependencies are explicit; layers follow from them.
    let dependencies = if units.len() == 1 {
        DependencyStructure::Sequential
    } else if units.iter().any(|u| u.layer != Some(0)) {
        DependencyStructure::Layers
    } else {
        DependencyStructure::Parallel
    };
    not_planned.sort_by_key(|n| n.lines);
    Breakdown {
        project: title.clone(),
        tasks: task_count,
        requirements: reqs,
        not_planned,
        plan: Plan {
            // The title names the run and its report (`COMPLETE_<TITLE>.md`).
            title: Some(title.clone()),
            feature_name: None,
            units,
            entry_checks: Vec::new(),
            exit_checks: Vec::new(),
            rules: Vec::new(),
            template: None,
            referenced_files: Vec::new(),
            allowed_imports: Vec::new(),
            unit_sections: Default::default(),
            detection: Detection {
                units: UnitSource::Table {
                    column: "Work Unit".into(),
                },
                sprints: vec![SprintSource::Headers],
                dependencies,
                dispatch_mode: DispatchMode::Dynamic,
                template_source: None,
                dialect: crate::plan::Dialect {
                    name: "generic".into(),
                    why: "written by breakdown".into(),
                },
            },
            warnings: Vec::new(),
            guesses: Vec::new(),
            tally: Default::default(),
        },
    }
}

/// The `## Not planned` section: every line of the document that became
/// no task, with its line and the reason. Empty when nothing was left out.
pub fn not_planned_section(b: &Breakdown) -> String {
    if b.not_planned.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("## Not planned\n\nLines of the requirements that became no task:\n\n");
    for n in &b.not_planned {
        // Quoted as plain words: no code, and none of the words that would
        // make the parser read a dependency.
        let text =
            neutral(&n.text.split_whitespace().collect::<Vec<_>>().join(" ")).replace('`', "'");
        out.push_str(&format!(
            "- line {}: \"{text}\" — {}\n",
            n.lines.0, n.reason
        ));
    }
    out
}

/// The `## Summary` table the generated plan ends with.
pub fn summary_section(plan: &Plan) -> String {
    let structure = match plan.detection.dependencies {
        DependencyStructure::Layers | DependencyStructure::Graph => "layers",
        DependencyStructure::Sequential => "sequential",
        DependencyStructure::Parallel => "parallel",
    };
    format!(
        "## Summary\n\n| Metric | Value |\n|--------|-------|\n| Work units | {} |\n| Total sprints | {} |\n| Dependency structure | {structure} |\n",
        plan.units.len(),
        plan.sprint_total()
    )
}
