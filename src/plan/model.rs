//! The validated, span-free plan: what every other module consumes.
//!
//! Invariants (established by `plan::parse`, relied upon everywhere else):
//! unit names are unique; each unit has at least one sprint; sprint ids are
//! unique within a unit (they run in the order written); every dependency names an
//! existing unit and the dependency graph is acyclic.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde::Serialize;

/// A sprint id such as `3`, `2a`, `1a.1` or `2-3`. Ordered by number, then
/// suffix in natural order (digit runs compare as numbers), so that
/// `1 < 1a.1 < 1a.2 < 1a.10 < 2a < 2b < 3`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SprintId {
    pub number: u32,
    pub suffix: String,
}

impl SprintId {
    /// The id `number` with no suffix (`3`): the id of a step numbered by
    /// its place.
    pub fn whole(number: u32) -> Self {
        SprintId {
            number,
            suffix: String::new(),
        }
    }
}

impl Ord for SprintId {
    fn cmp(&self, other: &Self) -> Ordering {
        self.number
            .cmp(&other.number)
            .then_with(|| natural_cmp(&self.suffix, &other.suffix))
    }
}

/// Compare strings with digit runs as numbers (`a.2 < a.10`).
fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let db = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let (na, nb) = (
                    a[..da].trim_start_matches('0'),
                    b[..db].trim_start_matches('0'),
                );
                let o = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
                if o != Ordering::Equal {
                    return o;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

impl PartialOrd for SprintId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for SprintId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.number, self.suffix)
    }
}

impl FromStr for SprintId {
    type Err = String;

    /// Accepts the spec's `\d+[a-z]?` ids and dotted or ranged forms built
    /// from them: `1a.1`, `3a2.1`, `2.0`, `2-3` (each part after a `.` or `-`
    /// starts with a digit; at most one letter in a row).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &s[digits.len()..];
        let suffix_ok = suffix_ok(rest);
        if digits.is_empty() || !suffix_ok {
            return Err(format!("`{s}` is not a sprint id (expected a number with an optional letter, like 3 or 2a)"));
        }
        let number = digits
            .parse()
            .map_err(|_| format!("sprint number `{digits}` is too large"))?;
        Ok(SprintId {
            number,
            suffix: rest.to_string(),
        })
    }
}

/// `[a-z]?` then `[a-z]?\d*` pieces separated by `.` or `-`, each piece
/// after a separator starting with a digit.
fn suffix_ok(rest: &str) -> bool {
    let b = rest.as_bytes();
    let mut i = 0;
    let mut letters_in_row = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_lowercase() {
            letters_in_row += 1;
            if letters_in_row > 1 {
                return false;
            }
        } else if c.is_ascii_digit() {
            letters_in_row = 0;
        } else if c == b'.' || c == b'-' {
            if !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                return false;
            }
            letters_in_row = 0;
        } else {
            return false;
        }
        i += 1;
    }
    true
}

impl Serialize for SprintId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SprintId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// How a sprint's completion is verified (spec §E-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TaskType {
    #[default]
    Code,
    Command,
    Background,
    Deferred,
    Manual,
}

impl TaskType {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskType::Code => "code",
            TaskType::Command => "command",
            TaskType::Background => "background",
            TaskType::Deferred => "deferred",
            TaskType::Manual => "manual",
        }
    }
}

impl fmt::Display for TaskType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a criterion is checked (spec §E-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CriterionKind {
    /// Human-verifiable; reported, never run.
    Checklist,
    /// Machine-verifiable: `command` is run with `sh -c`, exit 0 passes (and
    /// when `expected` is set, the output must contain it).
    Command,
    /// A boolean statement about repository state (a file exists, a progress
    /// file says complete).
    Assertion,
    /// Another unit's sprint is COMPLETED (`Depends on: core sprint 2`): an
    /// entry criterion of the waiting unit's first sprint, which the run
    /// keeps by starting the unit once that sprint, not the whole unit, is
    /// done ([`Unit::sprint_deps`]).
    After,
}

impl Criterion {
    /// The entry criterion that `unit`'s sprint `id` is COMPLETED.
    pub fn after_sprint(unit: &str, id: &SprintId) -> Criterion {
        Criterion {
            kind: CriterionKind::After,
            text: format!("{unit} sprint {id} COMPLETED"),
            command: None,
            expected: None,
            checked: false,
        }
    }

    /// The unit and sprint an [`CriterionKind::After`] criterion waits for.
    pub fn after(&self) -> Option<(String, SprintId)> {
        if self.kind != CriterionKind::After {
            return None;
        }
        let (unit, id) = self
            .text
            .strip_suffix(" COMPLETED")?
            .rsplit_once(" sprint ")?;
        Some((unit.to_string(), id.parse().ok()?))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    pub kind: CriterionKind,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// `- [x]` in the plan: already ticked by a human.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub checked: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sprint {
    pub id: SprintId,
    pub name: String,
    pub task_type: TaskType,
    pub tasks: Vec<String>,
    pub entry: Vec<Criterion>,
    pub exit: Vec<Criterion>,
    /// Files the sprint's text mentions (paths in backticks), for the prompt's
    /// read list and for attributing build failures.
    pub files: Vec<String>,
    /// The sprint's definition exactly as written, pasted into dynamic prompts.
    #[serde(skip)]
    pub body: String,
    /// The plan marks this sprint done (a ticked heading, `✅ COMPLETE`, a
    /// `Status: Done` line, every task ticked): `start` records it COMPLETED
    /// from the plan instead of dispatching it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub done: Option<String>,
    /// Where in the plan the sprint was found and by which rule.
    #[serde(skip)]
    pub origin: Origin,
}

/// Where a unit or sprint came from: the line of the plan and the rule that
/// found it. Provenance is not part of a plan's identity: two plans that
/// differ only in where things were written compare equal.
#[derive(Debug, Clone, Default, Eq)]
pub struct Origin {
    /// 1-based line in the plan; 0 when the plan was not read from text.
    pub line: usize,
    pub rule: String,
}

impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

impl Origin {
    pub fn new(line: usize, rule: impl Into<String>) -> Self {
        Origin {
            line,
            rule: rule.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unit {
    pub name: String,
    /// Directory relative to the project root, when the plan names one.
    pub dir: Option<String>,
    pub layer: Option<u32>,
    /// Effective dependencies: explicit ones when the plan gives any for this
    /// unit, otherwise every unit of a lower layer.
    pub deps: Vec<String>,
    pub sprints: Vec<Sprint>,
    /// Where in the plan the unit was found and by which rule.
    #[serde(skip)]
    pub origin: Origin,
}

impl Unit {
    /// The unit's working directory relative to the project root (`.` when the
    /// plan names none).
    pub fn dir_or_root(&self) -> &str {
        self.dir.as_deref().unwrap_or(".")
    }

    /// Dependencies on one sprint of another unit, not the whole of it
    /// (`Depends on: core sprint 2`): the unit may start once that sprint is
    /// COMPLETED. Kept as entry criteria of its first sprint; the unit also
    /// lists the other unit in `deps`, for the order and the checks.
    pub fn sprint_deps(&self) -> Vec<(String, SprintId)> {
        self.sprints
            .first()
            .map(|s| s.entry.iter().filter_map(Criterion::after).collect())
            .unwrap_or_default()
    }
}

/// Which heuristic of spec §E found the work units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UnitSource {
    /// A table with a unit column (the column header is recorded).
    Table { column: String },
    /// `## <Name>` sections that each contain sprints.
    Sections,
    /// No structure: one unit named after the title or directory.
    Single,
    /// One per step of a plan that orders its steps as a graph (todos
    /// with `dependencies:`, "Tasks 1-4 can run in parallel").
    Steps,
    /// The numbered items of `Wave N` sections, one unit each.
    Waves,
    /// The sections of a phase that runs them at once (`## Phase 1:
    /// Parallel implementation` holding `### Agent 1: …`), one unit each;
    /// every other phase one unit.
    PhaseSections,
}

/// Which heuristic found the sprints (the first one that found any, per unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SprintSource {
    Headers,
    Table,
    TaskGroups,
    Checklists,
    /// Top-level numbered checklist items (`- [ ] 1. …`, Kiro's tasks.md).
    TaskList,
    /// The frontmatter's `todos:` (a Cursor plan).
    Todos,
    /// Milestones named only in a progress checklist (an ExecPlan).
    Progress,
    /// Numbered headings without a sprint word (`### 1.1 Split the store`):
    /// a guess, said so at `start`.
    Numbered,
    /// The task rows of a Mermaid Gantt chart.
    Gantt,
    /// The tickets an epic lists as created (ccpm's `## Tasks Created`).
    Tickets,
    /// The rows of a table of work (`| Phase | Task | Status |`): the last
    /// reading before a refusal, a guess.
    TableRows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DependencyStructure {
    /// A Layer/Tier column or per-unit layer lines.
    Layers,
    /// Explicit edges: a Dependencies column, `depends on` text, mermaid or
    /// arrow graphs.
    Graph,
    /// One unit: its sprints run in order and nothing else exists.
    Sequential,
    /// Several units and no dependency information: all start at once.
    Parallel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DispatchMode {
    Template,
    Dynamic,
}

/// What the parser found where: shown by `git supervisor plan` and recorded in
/// `SUPERVISOR_STATE.md`'s Plan Summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detection {
    pub units: UnitSource,
    pub sprints: Vec<SprintSource>,
    pub dependencies: DependencyStructure,
    pub dispatch_mode: DispatchMode,
    /// The heading (or `template:` block) the dispatch template came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template_source: Option<String>,
    /// The well-known format the plan was read as.
    pub dialect: Dialect,
}

/// A well-known plan format (`kiro`, `cursor`, `execplan`, `spec-kit`,
/// `gsd-roadmap`, `superpowers`, `sprint-supervisor`, or `generic`) and the
/// fingerprint that said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dialect {
    pub name: String,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub title: Option<String>,
    /// `feature_name` from the YAML frontmatter (the operation name).
    pub feature_name: Option<String>,
    pub units: Vec<Unit>,
    /// Plan-wide checks (Entry Checks, Exit Checks, Rules, Constraints
    /// sections outside any sprint).
    pub entry_checks: Vec<Criterion>,
    pub exit_checks: Vec<Criterion>,
    pub rules: Vec<String>,
    /// The verbatim dispatch template (Approach A), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// Progress/TODO/status files the plan mentions.
    pub referenced_files: Vec<String>,
    /// The Allowed Imports table: which unit may import from which.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub allowed_imports: Vec<super::imports::AllowedImport>,
    /// The numbers of the plan sections holding each unit's sprints,
    /// innermost first (a v1 template's `<8|9|10|11|12>`).
    #[serde(skip)]
    pub unit_sections: std::collections::BTreeMap<String, Vec<String>>,
    pub detection: Detection,
    /// What the plan runs with although it is not quite right (a count that
    /// disagrees with the sections, a prerequisite outside the plan): each
    /// said, with where; `plan --strict` refuses them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<Warning>,
    /// Where the reading guessed at the author's meaning (done marks kept
    /// away from the sprint, units run at once on a graph's or a
    /// sentence's word): `start` shows the reading and asks first.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub guesses: Vec<Warning>,
    /// Where each task line of the plan went: into a sprint, a criterion,
    /// or left out as not work (with the reason); open lines in no sprint
    /// and lines in two sprints are listed.
    pub tally: Tally,
}

/// The count of the plan's task lines (checkbox, numbered and bold items):
/// each is in one sprint, a criterion, not work, in no sprint, or in two
/// sprints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Tally {
    pub task_lines: usize,
    pub in_sprints: usize,
    pub criteria: usize,
    /// Lines left out on purpose, each with the reason.
    pub not_work: Vec<TallyLine>,
    /// Open task lines in no sprint: work that would never be dispatched.
    pub outside: Vec<TallyLine>,
    /// Lines in two sprints.
    pub twice: Vec<TallyLine>,
    /// Sprints whose task lists name the same tasks as an earlier one.
    pub same_work: Vec<TallyLine>,
}

impl Tally {
    /// Every line has exactly one home.
    pub fn adds_up(&self) -> bool {
        self.in_sprints
            + self.criteria
            + self.not_work.len()
            + self.outside.len()
            + self.twice.len()
            == self.task_lines
    }
}

/// One task line of the tally: its line, its text, and why it is where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct TallyLine {
    pub line: usize,
    pub text: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// One tolerated problem of a plan, span-free: its code, what it says, what
/// was done about it and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub code: String,
    pub message: String,
    pub help: String,
    pub line: usize,
}

impl Plan {
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }

    /// Each unit's dependencies as unit indices (names that are not units
    /// are left out), built with one name index: linear in the edges.
    pub fn dependency_indices(&self) -> Vec<Vec<usize>> {
        let index: std::collections::HashMap<&str, usize> = self
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.name.as_str(), i))
            .collect();
        self.units
            .iter()
            .map(|u| {
                u.deps
                    .iter()
                    .filter_map(|d| index.get(d.as_str()).copied())
                    .collect()
            })
            .collect()
    }

    /// Whether two units can ever run at the same time: Kahn's order over
    /// the dependencies is the only one exactly when every unit waits for
    /// the one before it (a chain). Dependency cycles are left to the
    /// plan's own diagnostics; linear in units and edges.
    pub fn units_can_run_at_once(&self) -> bool {
        let deps = self.dependency_indices();
        let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
        let mut dependents = vec![Vec::new(); deps.len()];
        for (unit, ds) in deps.iter().enumerate() {
            for &d in ds {
                dependents[d].push(unit);
            }
        }
        let mut ready: Vec<usize> = (0..deps.len()).filter(|&u| waiting[u] == 0).collect();
        while let Some(unit) = ready.pop() {
            if !ready.is_empty() {
                return true;
            }
            for &next in &dependents[unit] {
                waiting[next] -= 1;
                if waiting[next] == 0 {
                    ready.push(next);
                }
            }
            if ready.len() > 1 {
                return true;
            }
        }
        false
    }

    pub fn sprint_total(&self) -> usize {
        self.units.iter().map(|u| u.sprints.len()).sum()
    }

    /// The name used for the run and reports: the operation name when given,
    /// otherwise the title.
    pub fn display_name(&self) -> &str {
        self.feature_name
            .as_deref()
            .or(self.title.as_deref())
            .unwrap_or("plan")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprint_ids_order_numbers_then_suffixes() {
        let mut ids: Vec<SprintId> = ["3", "2b", "10", "1", "2a", "2"]
            .iter()
            .map(|s| s.parse().expect("valid id"))
            .collect();
        ids.sort();
        let shown: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        assert_eq!(shown, ["1", "2", "2a", "2b", "3", "10"]);
    }

    #[test]
    fn dotted_ids_order_naturally() {
        let ids: Vec<SprintId> = [
            "1", "1a.1", "1a.2", "1a.10", "1b", "2", "2-3", "2.0", "2.1a", "3a", "3a2.1", "10",
        ]
        .iter()
        .map(|s| s.parse().expect("valid id"))
        .collect();
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(ids[1].to_string(), "1a.1");
    }

    fn overlap(plan: &str) -> bool {
        crate::plan::parse(plan, &crate::plan::ParseContext::default())
            .expect("plan parses")
            .units_can_run_at_once()
    }

    #[test]
    fn units_run_at_once_unless_they_form_one_chain() {
        let unit =
            |name: &str| format!("\n## {name}\n\n### Sprint 1: Go\n\n- Write `{name}.txt`\n");
        let table = |rows: &[(&str, &str)]| {
            let mut t = String::from("# P\n\n| Unit | Depends On |\n|---|---|\n");
            for (name, deps) in rows {
                t.push_str(&format!("| {name} | {deps} |\n"));
            }
            for (name, _) in rows {
                t.push_str(&unit(name));
            }
            t
        };
        assert!(!overlap(&format!("# P\n{}", unit("solo"))));
        assert!(!overlap(&table(&[("a", "-"), ("b", "a"), ("c", "b")])));
        assert!(overlap(&table(&[("a", "-"), ("b", "-")])));
        assert!(overlap(&table(&[("a", "-"), ("b", "a"), ("c", "a")])));
        // A diamond's middle runs at once, however it is listed.
        assert!(overlap(&table(&[
            ("d", "b, c"),
            ("b", "a"),
            ("c", "a"),
            ("a", "-")
        ])));
    }

    #[test]
    fn bad_sprint_ids_are_rejected() {
        for bad in ["", "a", "2ab", "2A", "x1", "1.", "1..2", "1.a", "2 3"] {
            assert!(bad.parse::<SprintId>().is_err(), "{bad:?} accepted");
        }
    }
}
