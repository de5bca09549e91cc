//! The plan model: `EXECUTION_PLAN.md` → a typed, span-free [`Plan`].
//!
//! `markdown` flattens the document into spanned blocks, `detect` runs the
//! spec's detection heuristics over them and validates the result, and
//! `diagnostics` turns problems into miette reports. Nothing here touches git
//! or the process: the caller hands in text and gets a plan or every problem.

pub mod detect;
pub mod diagnostics;
pub mod frontmatter;
pub mod imports;
pub mod markdown;
pub mod model;
pub mod resolve;
pub mod sections;

pub use detect::parse;
pub use detect::parse_with;
pub use detect::ParseContext;
pub use diagnostics::PlanError;
pub use diagnostics::Problem;
pub use diagnostics::ProblemCode;
pub use model::*;

/// Parse `source` (read from `path`, used only in messages) into a plan, or a
/// report of every problem in it; when `strict`, its warnings are problems
/// too.
pub fn parse_named(
    source: &str,
    path: &str,
    ctx: &ParseContext,
    strict: bool,
) -> Result<Plan, PlanError> {
    parse_with(source, ctx, strict).map_err(|problems| PlanError::new(path, source, problems))
}
