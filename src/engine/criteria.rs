//! Running one exit-criterion command (design §6's strongest evidence):
//! in the project root under `sh -c`, bounded in time (`shell`), and what a
//! verdict keeps of it — the command, its exit
//! status and the end of its output (`machine::CriterionCheck`).

use std::path::Path;
use std::time::Duration;

use crate::machine::CriterionCheck;

/// How long one exit-criterion command may run.
const CRITERION_TIMEOUT: Duration = Duration::from_secs(600);

/// One run of a criterion's command.
struct Ran {
    /// `Err` says why it failed.
    result: Result<(), String>,
    exit: Option<i32>,
    output: String,
}

/// Run one criterion command; `Ok(())` when it passes.
pub(crate) fn run_criterion(
    root: &Path,
    command: &str,
    expected: Option<&str>,
    env: &[(String, String)],
) -> Result<(), String> {
    run(root, command, expected, env).result
}

/// Run one criterion and keep what a verdict records of it.
pub(crate) fn check(
    root: &Path,
    text: &str,
    command: &str,
    expected: Option<&str>,
    env: &[(String, String)],
) -> CriterionCheck {
    let ran = run(root, command, expected, env);
    CriterionCheck {
        text: text.to_string(),
        command: command.to_string(),
        passed: ran.result.is_ok(),
        exit: ran.exit,
        why: ran.result.err(),
        output: tail(&ran.output, CriterionCheck::OUTPUT_KEPT),
    }
}

/// The last `max` bytes of `text`, from a character boundary.
fn tail(text: &str, max: usize) -> String {
    let mut from = text.len().saturating_sub(max);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    text[from..].to_string()
}

/// The file-exists assertions the plan parser generates (`test -e 'path'`)
/// are checked in-process: same answer, no shell.
fn run(root: &Path, command: &str, expected: Option<&str>, env: &[(String, String)]) -> Ran {
    let failed = |why: String, exit: Option<i32>, output: String| Ran {
        result: Err(why),
        exit,
        output,
    };
    if let Some(path) = command
        .strip_prefix("test -e '")
        .and_then(|r| r.strip_suffix('\''))
        .filter(|p| !p.contains('\''))
    {
        if expected.is_none() {
            return if root.join(path).exists() {
                Ran {
                    result: Ok(()),
                    exit: Some(0),
                    output: String::new(),
                }
            } else {
                failed("exit 1".into(), Some(1), String::new())
            };
        }
    }
    let super::shell::Shell { status, output } =
        super::shell::run(root, command, CRITERION_TIMEOUT, env);
    let status = match status {
        Ok(s) => s,
        Err(why) => return failed(why, None, output),
    };
    if !status.success() {
        let code = status.code().unwrap_or(-1);
        return failed(format!("exit {code}"), status.code(), output);
    }
    if let Some(e) = expected {
        if !output.contains(e.trim()) {
            return failed(
                "output does not match the expected text".into(),
                status.code(),
                output,
            );
        }
    }
    Ran {
        result: Ok(()),
        exit: status.code(),
        output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_keeps_the_exit_status_and_the_end_of_the_output() {
        let dir = tempfile::tempdir().expect("dir");
        let c = check(dir.path(), "prints", "echo hello; exit 3", None, &[]);
        assert!(!c.passed);
        assert_eq!(c.exit, Some(3));
        assert_eq!(c.why.as_deref(), Some("exit 3"));
        assert_eq!(c.output, "hello\n");
        let long = check(dir.path(), "long", "seq 1 100000", None, &[]);
        assert!(long.passed, "{long:?}");
        assert!(long.output.len() <= CriterionCheck::OUTPUT_KEPT);
        assert!(long.output.ends_with("99999\n100000\n"), "{}", long.output);
        assert_eq!(tail("ééé", 3), "é");
    }
}
