//! The quality checks of spec §V: atomicity, testability and context
//! fitness of one sprint, with the vague phrases and test directories they
//! look for.

use serde::Serialize;

use crate::plan::model::Criterion;
use crate::plan::model::CriterionKind;
use crate::plan::model::Sprint;
use crate::plan::model::TaskType;

use super::estimated_turns;
use super::words;

pub const VAGUE: &[&str] = &[
    "works correctly",
    "work correctly",
    "works properly",
    "work properly",
    "properly handles",
    "is complete",
    "works well",
    "looks good",
    "works as expected",
];

pub(super) const UNCLEAR_ARTIFACT: &[&str] = &[
    "make it work",
    "update things",
    "fix stuff",
    "misc",
    "various",
    "etc",
];

pub(super) const PREVIOUS_WORK: &[&str] = &["previous work", "prior work", "earlier work"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fitness {
    Oversized,
    Right,
    Undersized,
}

/// What `evaluate` (and `analyze`'s second pass) finds in one sprint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quality {
    pub single_concern: bool,
    pub clear_artifact: bool,
    pub bounded_scope: bool,
    pub explicit_io: bool,
    pub machine_verifiable: bool,
    pub no_vague_language: bool,
    pub full_coverage: bool,
    pub estimated_turns: u32,
    pub fitness: Fitness,
}

/// Top-level directories that hold a project's tests, not a concern of
/// their own: `tests/x` tests `src/x`, `Tests/PortTests` tests
/// `Sources/Port`.
pub const TEST_DIRS: &[&str] = &[
    "tests",
    "test",
    "Tests",
    "Test",
    "spec",
    "specs",
    "__tests__",
    "testing",
];

/// The top-level directory of a path (`.` for a file at the root).
pub fn top_dir(f: &str) -> &str {
    f.split_once('/').map(|(d, _)| d).unwrap_or(".")
}

pub fn is_test_dir(d: &str) -> bool {
    TEST_DIRS.contains(&d)
}

/// The top-level directories a sprint's files live in (its "subsystems").
/// Code and its own tests are one concern: test directories count only
/// when the sprint touches no other directory.
pub fn subsystems(s: &Sprint) -> Vec<String> {
    let mut dirs: Vec<String> = s.files.iter().map(|f| top_dir(f).to_string()).collect();
    dirs.sort();
    dirs.dedup();
    if dirs.iter().any(|d| d != "." && !is_test_dir(d)) {
        dirs.retain(|d| !is_test_dir(d));
    }
    dirs
}

/// The name a test path is about: `tests/parser_test.rs` → `parser`,
/// `Tests/PortTests/FooTests.swift` → `port` (its first component below
/// the test directory, less test affixes), lower-cased.
pub fn tested_name(f: &str) -> String {
    let below = f.split_once('/').map(|(_, r)| r).unwrap_or(f);
    let first = below.split('/').next().unwrap_or(below);
    let stem = first.split('.').next().unwrap_or(first).to_lowercase();
    let mut s = stem.as_str();
    for affix in ["_tests", "_test", "tests", "test", "_spec", ".spec", "spec"] {
        if let Some(x) = s.strip_suffix(affix).filter(|x| !x.is_empty()) {
            s = x;
            break;
        }
    }
    for affix in ["test_", "tests_"] {
        if let Some(x) = s.strip_prefix(affix).filter(|x| !x.is_empty()) {
            s = x;
        }
    }
    s.trim_matches(|c: char| c == '_' || c == '-').to_string()
}

/// `prefix` occurs in `text` at the start of a word.
pub fn starts_word(text: &str, prefix: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(prefix)
        .any(|(i, _)| i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
}

/// `phrase` occurs in `text` with word boundaries on both sides.
pub fn has_phrase(text: &str, phrase: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(phrase).any(|(i, m)| {
        let before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let end = i + m.len();
        let after = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
        before && after
    })
}

/// A text indexed by the words it holds, so that asking whether it names
/// each of many units costs a lookup each, not a scan each.
pub struct Phrases<'t> {
    pub(super) text: &'t str,
    /// Where each maximal run of ASCII letters and digits starts.
    pub(super) words: std::collections::HashMap<&'t str, Vec<usize>>,
}

pub fn is_vague(text: &str) -> bool {
    let l = text.to_lowercase();
    VAGUE.iter().any(|v| l.contains(v))
}

/// The quality of one sprint. `plan_checks` are the plan-wide Exit Checks:
/// they apply to every sprint, so a runnable one makes each sprint
/// machine-verifiable and covers its tasks as a build or test would.
pub fn quality(s: &Sprint, budget: u32, plan_checks: &[Criterion]) -> Quality {
    let turns = estimated_turns(s);
    let fitness = Fitness::of(turns, budget);
    let w = words(s);
    // One concern: one subsystem, and tasks that share a subject or a file
    // (twelve unrelated features in one directory are not one concern).
    let single_concern = subsystems(s).iter().filter(|d| *d != ".").count() <= 1
        && !super::concerns::several_concerns(s);
    let plan_runnable: Vec<&str> = plan_checks
        .iter()
        .filter_map(|c| c.command.as_deref())
        .collect();
    let clear_artifact = !UNCLEAR_ARTIFACT.iter().any(|k| has_phrase(&w, k));
    let explicit_io = !s.exit.is_empty()
        && !s.entry.iter().any(|c| {
            PREVIOUS_WORK
                .iter()
                .any(|p| c.text.to_lowercase().contains(p))
        });
    let machine_verifiable = !plan_runnable.is_empty()
        || s.exit
            .iter()
            .any(|c| c.command.is_some() || c.kind == CriterionKind::Command);
    let no_vague_language = !s.exit.iter().any(|c| is_vague(&c.text));
    // Every task needs an exit criterion: at least as many criteria as tasks,
    // or a runnable one that covers the sprint as a whole (a build or test).
    // Files the tasks create or change are each checked by a criterion,
    // unless a build or test covers them.
    let covered_by_command = s
        .exit
        .iter()
        .filter_map(|c| c.command.as_deref())
        .chain(plan_runnable.iter().copied())
        // `test -e x` checks one file, not the sprint.
        .filter(|c| !c.starts_with("test ") && !c.starts_with("[ "))
        .any(|c| c.contains("test") || c.contains("build") || c.contains("check"));
    let full_coverage = s.tasks.is_empty()
        || covered_by_command
        || (s.exit.len() >= s.tasks.len() && super::concerns::unchecked_files(s).is_empty());
    Quality {
        single_concern,
        clear_artifact,
        bounded_scope: fitness != Fitness::Oversized,
        explicit_io,
        machine_verifiable: machine_verifiable || s.task_type == TaskType::Manual,
        no_vague_language,
        full_coverage,
        estimated_turns: turns,
        fitness,
    }
}
