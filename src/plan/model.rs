//! The validated, span-free plan: what every other module consumes.
//!
//! Invariants (established by `plan::parse`, relied upon everywhere else):
//! unit names are unique; each unit has at least one sprint; sprint ids are
//! unique and strictly increasing within a unit; every dependency names an
//! existing unit and the dependency graph is acyclic.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde::Serialize;

/// A sprint id such as `3` or `2a`. Ordered by number, then suffix, so that
/// `1 < 2a < 2b < 3`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SprintId {
    pub number: u32,
    pub suffix: String,
}

impl Ord for SprintId {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.number, &self.suffix).cmp(&(other.number, &other.suffix))
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

    /// Accepts `\d+[a-z]?` (the spec's `Sprint \d+[a-z]?` ids).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &s[digits.len()..];
        let suffix_ok =
            rest.is_empty() || (rest.len() == 1 && rest.chars().all(|c| c.is_ascii_lowercase()));
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
}

impl Unit {
    /// The unit's working directory relative to the project root (`.` when the
    /// plan names none).
    pub fn dir_or_root(&self) -> &str {
        self.dir.as_deref().unwrap_or(".")
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
}

/// Which heuristic found the sprints (the first one that found any, per unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SprintSource {
    Headers,
    Table,
    TaskGroups,
    Checklists,
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
    pub detection: Detection,
}

impl Plan {
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
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
    fn bad_sprint_ids_are_rejected() {
        for bad in ["", "a", "2ab", "2A", "x1"] {
            assert!(bad.parse::<SprintId>().is_err(), "{bad:?} accepted");
        }
    }
}
