//! Plan problems as miette diagnostics.
//!
//! Every problem the parser finds is collected (never the first only) and
//! reported together under one [`PlanError`], each with a stable code, a help
//! line and a label pointing into the user's `EXECUTION_PLAN.md`.

use std::fmt;

use miette::Diagnostic;
use miette::LabeledSpan;
use miette::NamedSource;

use super::markdown::Span;

/// Stable diagnostic codes (shown as `plan::<code>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemCode {
    UnknownUnit,
    DependencyCycle,
    DuplicateUnit,
    DuplicateSprint,
    SprintOrder,
    NoSprints,
    SprintCount,
    MalformedRow,
    BadLayer,
    BadSprintId,
    OutsidePrerequisite,
    DependencySentence,
    LeftOut,
    WorkOutside,
    SameWorkTwice,
    MergeConflict,
}

impl ProblemCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemCode::UnknownUnit => "plan::unknown_unit",
            ProblemCode::DependencyCycle => "plan::dependency_cycle",
            ProblemCode::DuplicateUnit => "plan::duplicate_unit",
            ProblemCode::DuplicateSprint => "plan::duplicate_sprint",
            ProblemCode::SprintOrder => "plan::sprint_order",
            ProblemCode::NoSprints => "plan::no_sprints",
            ProblemCode::SprintCount => "plan::sprint_count",
            ProblemCode::MalformedRow => "plan::malformed_row",
            ProblemCode::BadLayer => "plan::bad_layer",
            ProblemCode::BadSprintId => "plan::bad_sprint_id",
            ProblemCode::OutsidePrerequisite => "plan::outside_prerequisite",
            ProblemCode::DependencySentence => "plan::dependency_sentence",
            ProblemCode::LeftOut => "plan::left_out",
            ProblemCode::WorkOutside => "plan::work_outside",
            ProblemCode::SameWorkTwice => "plan::same_work_twice",
            ProblemCode::MergeConflict => "plan::merge_conflict",
        }
    }
}

/// One problem in the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub code: ProblemCode,
    pub message: String,
    pub help: String,
    pub labels: Vec<(Span, String)>,
    /// A problem the plan still runs with (a warning); `--strict` refuses it.
    pub tolerated: bool,
}

impl Problem {
    pub fn new(code: ProblemCode, message: impl Into<String>) -> Self {
        Problem {
            code,
            message: message.into(),
            help: String::new(),
            labels: Vec::new(),
            tolerated: false,
        }
    }

    /// Mark the problem as one the plan runs with: a warning, unless strict.
    pub fn tolerated(mut self) -> Self {
        self.tolerated = true;
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = help.into();
        self
    }

    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.tolerated.then_some(miette::Severity::Warning)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().map(|(span, text)| {
            LabeledSpan::new_with_span(Some(text.clone()), span.clone())
        })))
    }
}

/// How many problems a terminal is shown at once: a generated plan with
/// thousands of bad references must not print megabytes.
const SHOWN_PROBLEMS: usize = 100;

/// Every problem found in one plan file.
#[derive(Debug, thiserror::Error)]
#[error("{}", headline(.path, .problems))]
pub struct PlanError {
    pub path: String,
    pub source_code: NamedSource<String>,
    pub problems: Vec<Problem>,
}

/// "plan.md has 2 problems", or, when the plan is refused only for what it
/// would run with (`--strict`), "plan.md is refused for 2 warnings".
fn headline(path: &str, problems: &[Problem]) -> String {
    let n = problems.len();
    let s = if n == 1 { "" } else { "s" };
    if n > 0 && problems.iter().all(|p| p.tolerated) {
        format!("{path} is refused for {n} warning{s} (--strict)")
    } else {
        format!("{path} has {n} problem{s}")
    }
}

impl PlanError {
    pub fn new(path: &str, source: &str, mut problems: Vec<Problem>) -> Self {
        problems.sort_by_key(|p| p.labels.first().map(|(s, _)| s.start).unwrap_or(0));
        PlanError {
            path: path.to_string(),
            source_code: NamedSource::new(path, source.to_string()),
            problems,
        }
    }
}

impl Diagnostic for PlanError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("plan::invalid"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let hidden = self.problems.len().saturating_sub(SHOWN_PROBLEMS);
        if hidden == 0 {
            return Some(Box::new(
                "fix the plan and run `git supervisor plan` to check it again",
            ));
        }
        Some(Box::new(format!(
            "the first {SHOWN_PROBLEMS} problems are shown; {hidden} more are listed by `git supervisor plan --format json`; fix the plan and run `git supervisor plan` to check it again"
        )))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source_code)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(
            self.problems
                .iter()
                .take(SHOWN_PROBLEMS)
                .map(|p| p as &dyn Diagnostic),
        ))
    }
}

impl Problem {
    /// `{"code", "message", "line", "column", "help"}` for `plan --format
    /// json`: line and column (1-based) of the first label, 0 when none.
    pub fn to_json(&self, source: &str) -> serde_json::Value {
        self.to_json_with(source, &line_starts(source))
    }

    /// [`Problem::to_json`] with the source's line starts computed once,
    /// so thousands of problems cost one pass over the text, not one each.
    fn to_json_with(&self, source: &str, starts: &[usize]) -> serde_json::Value {
        let (line, column) = self
            .labels
            .first()
            .map(|(span, _)| line_column_in(source, starts, span.start))
            .unwrap_or((0, 0));
        serde_json::json!({
            "code": self.code.as_str(),
            "message": self.message,
            "line": line,
            "column": column,
            "help": self.help,
        })
    }
}

/// Byte offsets where the source's lines start.
fn line_starts(source: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// [`line_column`] by binary search in the line starts.
fn line_column_in(source: &str, starts: &[usize], offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let line = starts.partition_point(|&s| s <= offset);
    let start = starts[line - 1];
    (line, source[start..offset].chars().count() + 1)
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, source[start..offset].chars().count() + 1)
}

impl PlanError {
    /// `{"ok": false, "problems": [...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let source = self.source_code.inner();
        let starts = line_starts(source);
        let problems: Vec<serde_json::Value> = self
            .problems
            .iter()
            .map(|p| p.to_json_with(source, &starts))
            .collect();
        serde_json::json!({
            "ok": false,
            "problems": problems,
        })
    }
}
