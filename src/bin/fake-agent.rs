//! `fake-agent`: a real program that stands in for a coding agent in tests.
//!
//! It runs a script of one command per line, so a test can say exactly what
//! the "agent" does: write files, commit with trailers, write a result file,
//! print, sleep, hang, exit with a code. The script comes from
//! `FAKE_AGENT_SCRIPT`, the first argument, or stdin; when it names a
//! directory, the first of `<unit>-<sprint>-<attempt>.txt`,
//! `<unit>-<sprint>.txt`, `<unit>.txt`, `default.txt` that exists is used
//! (unit, sprint and attempt come from the `SUPERVISOR_*` environment).
//!
//! Commands (`$VAR` and `${VAR}` are expanded, `\n` in text is a newline):
//!   write PATH TEXT     create or replace a file
//!   append PATH TEXT    append a line to a file
//!   trailer KEY: VALUE  add a trailer to the next commit
//!   commit SUBJECT      add and commit $SUPERVISOR_UNIT_DIR (with `Supervisor-Sprint:
//!                       $SUPERVISOR_UNIT/$SUPERVISOR_SPRINT` when set)
//!   result STATUS [SUMMARY]  write `status`/`summary` TOML to
//!                       $SUPERVISOR_RESULT_FILE
//!   commit-all SUBJECT  the same for the whole tree (concludes a merge)
//!   save-prompt PATH    copy stdin (the prompt) to PATH
//!   save-status PATH    write `git status --porcelain` of the workdir to PATH
//!   print TEXT / eprint TEXT
//!   sleep MILLISECONDS / hang / exit CODE
//!   spawn PATH COMMAND  start `sh -c COMMAND` without waiting for it (a
//!                       server left running) and write its pid to PATH
//!   await PATH          wait until PATH exists
//!
//! A line starting `?PATH ` runs only if PATH exists, `!PATH ` only if it
//! does not (checked when the line is reached).

use std::io::Read;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("fake-agent: {e}");
            ExitCode::from(101)
        }
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

fn script_text() -> Result<String, String> {
    let path = std::env::var_os("FAKE_AGENT_SCRIPT")
        .map(PathBuf::from)
        .or_else(|| std::env::args_os().nth(1).map(PathBuf::from));
    let Some(path) = path else {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| e.to_string())?;
        return Ok(s);
    };
    let file = if path.is_dir() {
        let (u, s, a) = (
            env("SUPERVISOR_UNIT"),
            env("SUPERVISOR_SPRINT"),
            env("SUPERVISOR_ATTEMPT"),
        );
        [
            format!("{u}-{s}-{a}.txt"),
            format!("{u}-{s}.txt"),
            format!("{u}.txt"),
            "default.txt".into(),
        ]
        .iter()
        .map(|n| path.join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no script for {u} sprint {s} attempt {a} in {}",
                path.display()
            )
        })?
    } else {
        path
    };
    std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))
}

fn expand(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'n') => {
                chars.next();
                out.push('\n');
            }
            '$' => {
                let braced = chars.peek() == Some(&'{');
                if braced {
                    chars.next();
                }
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if braced && chars.peek() == Some(&'}') {
                    chars.next();
                }
                if name.is_empty() {
                    out.push('$');
                } else {
                    out.push_str(&env(&name));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Run git; agents sharing one worktree race for `index.lock`, so a busy
/// index is retried as a real agent would.
fn git(args: &[&str]) -> Result<(), String> {
    for _ in 0..200 {
        let out = Command::new("git")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        let err = String::from_utf8_lossy(&out.stderr);
        if !err.contains(".lock") {
            return Err(format!("git {} failed: {err}", args.join(" ")));
        }
        std::thread::sleep(std::time::Duration::from_millis(15));
    }
    Err(format!("git {}: the index stayed locked", args.join(" ")))
}

fn run() -> Result<u8, String> {
    let script = script_text()?;
    let mut trailers: Vec<String> = Vec::new();
    for raw in script.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = match line.chars().next() {
            Some(c @ ('?' | '!')) => {
                let (cond, rest) = line[1..].split_once(' ').unwrap_or((&line[1..], ""));
                if Path::new(&expand(cond)).exists() != (c == '?') {
                    continue;
                }
                rest.trim()
            }
            _ => line,
        };
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = expand(rest.trim());
        match cmd {
            "write" | "append" => {
                let (path, text) = rest.split_once(' ').unwrap_or((rest.as_str(), ""));
                if let Some(parent) = Path::new(path)
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .append(cmd == "append")
                    .truncate(cmd == "write")
                    .open(path)
                    .map_err(|e| format!("cannot open {path}: {e}"))?;
                writeln!(f, "{text}").map_err(|e| e.to_string())?;
            }
            "trailer" => trailers.push(rest),
            "commit" | "commit-all" => {
                let mut message = format!("{rest}\n\n");
                let (unit, sprint) = (env("SUPERVISOR_UNIT"), env("SUPERVISOR_SPRINT"));
                if !unit.is_empty() && !trailers.iter().any(|t| t.starts_with("Supervisor-Sprint:"))
                {
                    trailers.insert(0, format!("Supervisor-Sprint: {unit}/{sprint}"));
                }
                message.push_str(&trailers.join("\n"));
                trailers.clear();
                if cmd == "commit-all" {
                    // The whole tree and no pathspec, so it can conclude a
                    // merge in progress.
                    git(&["add", "-A"])?;
                    git(&["commit", "-q", "--allow-empty", "-m", message.trim_end()])?;
                } else {
                    let dir = env("SUPERVISOR_UNIT_DIR");
                    let scope = if dir.is_empty() { ".".to_string() } else { dir };
                    git(&["add", "-A", "--", &scope])?;
                    git(&[
                        "commit",
                        "-q",
                        "--allow-empty",
                        "-m",
                        message.trim_end(),
                        "--",
                        &scope,
                    ])?;
                }
            }
            "result" => {
                let (status, summary) = rest.split_once(' ').unwrap_or((rest.as_str(), ""));
                let path = env("SUPERVISOR_RESULT_FILE");
                if path.is_empty() {
                    return Err("result: SUPERVISOR_RESULT_FILE is not set".into());
                }
                let toml = format!("status = {status:?}\nsummary = {summary:?}\n");
                std::fs::write(&path, toml).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            "save-status" => {
                let out = Command::new("git")
                    .args(["status", "--porcelain", "--untracked-files=all"])
                    .output()
                    .map_err(|e| format!("cannot run git: {e}"))?;
                std::fs::write(&rest, &out.stdout)
                    .map_err(|e| format!("cannot write {rest}: {e}"))?;
            }
            "save-prompt" => {
                let mut prompt = String::new();
                std::io::stdin()
                    .read_to_string(&mut prompt)
                    .map_err(|e| e.to_string())?;
                std::fs::write(&rest, prompt).map_err(|e| format!("cannot write {rest}: {e}"))?;
            }
            "print" => println!("{rest}"),
            "eprint" => eprintln!("{rest}"),
            "sleep" => {
                let ms: u64 = rest
                    .parse()
                    .map_err(|_| format!("sleep takes milliseconds, not {rest:?}"))?;
                std::thread::sleep(std::time::Duration::from_millis(ms));
            }
            "spawn" => {
                let (path, command) = rest.split_once(' ').unwrap_or((rest.as_str(), ""));
                let child = Command::new("sh")
                    .arg("-c")
                    .arg(command)
                    .stdin(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| format!("cannot start {command:?}: {e}"))?;
                std::fs::write(path, child.id().to_string())
                    .map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            "await" => {
                while !Path::new(&rest).exists() {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
            "hang" => loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            },
            "exit" => {
                return rest
                    .parse()
                    .map_err(|_| format!("exit takes a code, not {rest:?}"))
            }
            other => return Err(format!("unknown command {other:?} in line {raw:?}")),
        }
        std::io::stdout().flush().map_err(|e| e.to_string())?;
    }
    Ok(0)
}
