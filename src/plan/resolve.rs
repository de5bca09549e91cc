//! Finding `EXECUTION_PLAN.md` (spec §B-11): the explicit path, then the
//! current directory, then each parent in turn.

use std::path::Path;
use std::path::PathBuf;

pub const PLAN_FILE: &str = "EXECUTION_PLAN.md";

/// The plan could not be found: the spec's message, adapted to this CLI.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("ERROR: Cannot find EXECUTION_PLAN.md.\ngit supervisor requires an execution plan to operate.\nPlease provide the path: git supervisor {command} /path/to/EXECUTION_PLAN.md")]
#[diagnostic(code(plan::not_found))]
pub struct PlanNotFound {
    pub command: String,
}

/// An explicit path that does not exist.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("no execution plan at {}", .path.display())]
#[diagnostic(
    code(plan::not_found),
    help("pass the path of an existing EXECUTION_PLAN.md, or a directory that holds one")
)]
pub struct NoPlanAt {
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ResolveError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    NotFound(#[from] PlanNotFound),
    #[error(transparent)]
    #[diagnostic(transparent)]
    NoPlanAt(#[from] NoPlanAt),
}

/// Where the plan is. `command` only shapes the error message.
pub fn resolve_plan(
    explicit: Option<&Path>,
    cwd: &Path,
    command: &str,
) -> Result<PathBuf, ResolveError> {
    if let Some(p) = explicit {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        let candidate = if p.is_dir() { p.join(PLAN_FILE) } else { p };
        if candidate.is_file() {
            return Ok(candidate);
        }
        return Err(NoPlanAt { path: candidate }.into());
    }
    cwd.ancestors()
        .map(|dir| dir.join(PLAN_FILE))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            PlanNotFound {
                command: command.to_string(),
            }
            .into()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_upward_then_fails_with_the_spec_message() {
        let dir = tempfile::tempdir().expect("tempdir");
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).expect("mkdir");
        let err = resolve_plan(None, &nested, "start").expect_err("no plan yet");
        assert!(err
            .to_string()
            .starts_with("ERROR: Cannot find EXECUTION_PLAN.md."));
        assert!(err
            .to_string()
            .ends_with("git supervisor start /path/to/EXECUTION_PLAN.md"));
        std::fs::write(dir.path().join("a").join(PLAN_FILE), "# P\n").expect("write");
        let found = resolve_plan(None, &nested, "start").expect("found upward");
        assert_eq!(found, dir.path().join("a").join(PLAN_FILE));
        let explicit =
            resolve_plan(Some(Path::new("..")), &nested, "plan").expect("directory works");
        assert_eq!(explicit, nested.join("..").join(PLAN_FILE));
    }
}
