//! Checked as they go: after the agent of a unit in its own worktree (a
//! run whose units may work at once) exits, the project's quick checker
//! runs on the files the unit changed, before anything reaches the merge
//! queue. The same table of checkers the parallel prompt names
//! (`dispatch::prompt::syntax_check`: `cargo check` for a crate, `tsc
//! --noEmit` with a `tsconfig.json`, `python3 -m py_compile`, `node
//! --check`, `bash -n`, …), or `[build] check` (one command; `"off"`: none).
//! A file that does not parse fails the attempt with the checker's output,
//! which its retry's prompt carries; the phase build stays the one full
//! build. A checker that is not installed (exit 127) checks nothing and
//! fails nothing, and only *syntax* fails: a checker that also judges types
//! or resolves imports (`tsc`, `rustc`, `cargo check`) fails the attempt
//! only when its output has a parse error (TypeScript's `TS1xxx` codes,
//! Rust's uncoded `error:` lines), since a worktree may lack the
//! dependencies a full check needs (that is the phase build's job).

use std::path::Path;
use std::time::Duration;

/// How long one checker may run.
const CHECK_TIMEOUT: Duration = Duration::from_secs(300);

/// A failed quick check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailed {
    pub command: String,
    /// The end of what it printed.
    pub output: String,
}

/// The files the unit changed since `base` in `root` (committed, staged,
/// modified or new), that still exist.
pub fn changed_files(root: &Path, base: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for args in [
        vec!["diff", "--name-only", base],
        vec!["ls-files", "--others", "--exclude-standard"],
    ] {
        let out = std::process::Command::new("git")
            .args(&args)
            .current_dir(root)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        if let Some(o) = out.ok().filter(|o| o.status.success()) {
            for l in String::from_utf8_lossy(&o.stdout).lines() {
                if !l.is_empty() && root.join(l).is_file() && !files.iter().any(|f| f == l) {
                    files.push(l.to_string());
                }
            }
        }
    }
    files
}

/// The commands that check `files`: `[build] check` when set (`off`:
/// none), else one per language, the project's own checker once or a
/// single-file check per file.
pub fn commands(files: &[String], root: &Path, configured: Option<&str>) -> Vec<String> {
    match configured.map(str::trim) {
        Some("off") => return Vec::new(),
        Some(cmd) if !cmd.is_empty() => return vec![cmd.to_string()],
        _ => {}
    }
    let project = crate::config::project_commands(root);
    let mut out: Vec<String> = Vec::new();
    for f in files {
        let Some((_, cmd)) = crate::dispatch::prompt::syntax_check(&quote(f), project.as_ref())
        else {
            continue;
        };
        if !out.contains(&cmd) {
            out.push(cmd);
        }
    }
    out
}

/// A path as one shell word.
fn quote(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// Run the checks in `root`; the first that fails, if any.
pub fn run(root: &Path, commands: &[String], env: &[(String, String)]) -> Option<CheckFailed> {
    for cmd in commands {
        let ran = super::shell::run(root, &format!("{cmd} 2>&1"), CHECK_TIMEOUT, env);
        match ran.status {
            Ok(s) if s.success() => continue,
            // The checker is not installed here: it checks nothing.
            Ok(s) if s.code() == Some(127) => continue,
            Ok(_) if !parse_error(cmd, &ran.output) => continue,
            Ok(_) | Err(_) => {
                let tail: Vec<&str> = ran.output.lines().rev().take(30).collect();
                let output = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
                return Some(CheckFailed {
                    command: cmd.clone(),
                    output,
                });
            }
        }
    }
    None
}

/// Whether a failed check's output shows a file that does not parse (a
/// configured `[build] check` and the syntax-only checkers: any failure).
fn parse_error(command: &str, output: &str) -> bool {
    let program = command.split_whitespace().next().unwrap_or("");
    match program {
        "tsc" => output.lines().any(|l| {
            l.split("error TS")
                .nth(1)
                .is_some_and(|code| code.starts_with('1') && code.chars().nth(4) == Some(':'))
        }),
        "rustc" | "cargo" => output.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("error: ")
                && ![
                    "error: aborting",
                    "error: could not compile",
                    "error: failed to",
                    "error: no matching package",
                    "error: rustup",
                    "error: could not find",
                    "error: linking",
                    "error: cannot find",
                ]
                .iter()
                .any(|p| l.starts_with(p))
        }),
        // Compilers that also judge types and headers: not a parse check.
        "javac" | "cc" | "c++" | "swiftc" | "kotlinc" => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_syntax_fails_a_type_checking_checker() {
        let ts_syntax = "ts/main.ts(1,8): error TS1110: Type expected.";
        let ts_types = "src/a.ts(3,1): error TS2307: Cannot find module 'react'.";
        assert!(parse_error("tsc --noEmit x.ts", ts_syntax));
        assert!(!parse_error("tsc --noEmit x.ts", ts_types));
        let rs_syntax = "error: expected one of `,` or `)`, found `{`\n --> rs/lib.rs:1:18";
        let rs_types =
            "error[E0432]: unresolved import `crate::db`\nerror: aborting due to 1 previous error";
        let offline = "error: failed to get `serde` as a dependency of package `x`";
        assert!(parse_error("rustc --edition 2021 x.rs", rs_syntax));
        assert!(!parse_error("rustc --edition 2021 x.rs", rs_types));
        assert!(!parse_error("cargo check", offline));
        assert!(parse_error("python3 -m py_compile x.py", "SyntaxError"));
        assert!(!parse_error(
            "cc -fsyntax-only x.c",
            "x.c:1: error: unknown type name"
        ));
    }
}
