//! The manual pages, shell completions, `setup`, and JSON errors: what a
//! git user and a program reach for without reading the README.

use std::process::Command;

use crate::common::command;
use crate::common::run;

#[test]
fn every_manual_page_renders_with_man() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["man", "--dir", "pages"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut pages: Vec<_> = std::fs::read_dir(dir.path().join("pages"))
        .expect("pages")
        .flatten()
        .map(|e| e.path())
        .collect();
    pages.sort();
    assert!(pages.len() > 20, "{pages:?}");
    for page in &pages {
        let rendered = Command::new("man")
            .arg("-l")
            .arg(page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("man");
        let text = String::from_utf8_lossy(&rendered.stdout);
        let errors = String::from_utf8_lossy(&rendered.stderr);
        assert!(rendered.status.success(), "{page:?}: {errors}");
        assert!(errors.trim().is_empty(), "{page:?}: {errors}");
        for section in ["NAME", "SYNOPSIS", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
            assert!(text.contains(section), "{page:?} has no {section}:\n{text}");
        }
    }
    let top = std::fs::read_to_string(dir.path().join("pages/git-supervisor.1")).expect("top");
    assert!(top.contains("git\\-supervisor\\-start(1)"), "{top}");
    let stop = Command::new("man")
        .arg("-l")
        .arg(dir.path().join("pages/git-supervisor-stop.1"))
        .env("MANPAGER", "cat")
        .output()
        .expect("man");
    let stop = String::from_utf8_lossy(&stop.stdout);
    assert!(stop.contains("--timeout"), "{stop}");
    assert!(stop.contains("refs/supervisor/state"), "{stop}");
}

#[test]
fn bash_completion_loads_and_completes_a_subcommand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = run(dir.path(), &["completions", "bash"]);
    assert_eq!(script.status, 0, "{}", script.stderr);
    let file = dir.path().join("completion.bash");
    std::fs::write(&file, &script.stdout).expect("script");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && COMP_WORDS=(git-supervisor sta) && COMP_CWORD=1 && COMP_LINE='git-supervisor sta' && COMP_POINT=${{#COMP_LINE}} && _git__supervisor git-supervisor sta git-supervisor && echo \"${{COMPREPLY[@]}}\"",
            file.display()
        ))
        .output()
        .expect("bash");
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words: Vec<&str> = words.split_whitespace().collect();
    assert!(
        words.contains(&"start") && words.contains(&"status"),
        "{words:?}"
    );
    assert!(!words.contains(&"stop"), "{words:?}");
    for shell in ["zsh", "fish"] {
        let out = run(dir.path(), &["completions", shell]);
        assert_eq!(out.status, 0, "{}", out.stderr);
        assert!(out.stdout.contains("replan"), "{shell}");
    }
}

#[test]
fn setup_installs_pages_and_completions_where_they_are_looked_for() {
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    let setup = |args: &[&str]| {
        command(crate::common::bin(), h)
            .args(args)
            .env("HOME", h)
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .expect("setup")
    };
    let dirs = setup(&["setup", "--print-dir"]);
    assert!(dirs.status.success());
    let dirs = String::from_utf8_lossy(&dirs.stdout).into_owned();
    assert_eq!(
        dirs.lines().collect::<Vec<_>>(),
        vec![
            h.join(".local/share/man/man1").display().to_string(),
            h.join(".local/share/bash-completion/completions")
                .display()
                .to_string(),
            h.join(".local/share/zsh/site-functions")
                .display()
                .to_string(),
            h.join(".config/fish/completions").display().to_string(),
        ]
    );
    assert!(!h.join(".local").exists(), "--print-dir changes nothing");
    let out = setup(&["setup"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        ".local/share/man/man1/git-supervisor.1",
        ".local/share/man/man1/git-supervisor-status.1",
        ".local/share/bash-completion/completions/git-supervisor",
        ".local/share/zsh/site-functions/_git-supervisor",
        ".config/fish/completions/git-supervisor.fish",
    ] {
        assert!(h.join(file).is_file(), "{file}");
    }
    // man finds the installed page by name.
    let found = Command::new("man")
        .args(["-w", "git-supervisor"])
        .env("MANPATH", h.join(".local/share/man"))
        .output()
        .expect("man -w");
    assert!(
        String::from_utf8_lossy(&found.stdout).contains("git-supervisor.1"),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    // And `git supervisor --help` opens it, as git turns it into
    // `man git-supervisor` (found through ~/.local/bin on PATH).
    std::fs::create_dir_all(h.join(".local/bin")).expect("bin");
    crate::common::git(h, &["init", "-q"]);
    let bins = std::path::Path::new(crate::common::bin())
        .parent()
        .expect("bins");
    let help = Command::new("git")
        .args(["supervisor", "--help"])
        .current_dir(h)
        .env("HOME", h)
        .env_remove("MANPATH")
        .env(
            "PATH",
            format!(
                "{}:{}:/usr/bin:/bin",
                h.join(".local/bin").display(),
                bins.display()
            ),
        )
        .env("MANPAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git supervisor --help");
    let page = String::from_utf8_lossy(&help.stdout);
    assert!(
        page.contains("EXIT STATUS") && page.contains("git-supervisor"),
        "{page}{}",
        String::from_utf8_lossy(&help.stderr)
    );
}

#[test]
fn json_commands_print_a_json_error_on_failure() {
    let dir = tempfile::tempdir().expect("not a repository");
    for args in [
        &["status", "--format", "json"][..],
        &["log", "--format=json"][..],
        &["report", "--format", "json"][..],
        &["import", "plan.md", "--format", "json"][..],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status, 1, "{args:?}");
        let v: serde_json::Value = serde_json::from_str(out.stdout.trim())
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", out.stdout));
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["code"], "store::not_a_repository", "{v}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        assert!(v["error"]["help"]
            .as_str()
            .is_some_and(|h| h.contains("git init")));
    }
}

fn doctor(dir: &std::path::Path) -> (i32, serde_json::Value) {
    let out = run(dir, &["doctor", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    (out.status, v)
}

fn level_of(v: &serde_json::Value, check: &str) -> Vec<String> {
    v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["check"] == check)
        .map(|c| c["level"].as_str().expect("level").to_string())
        .collect()
}

#[test]
fn doctor_on_a_healthy_repository_finds_nothing_wrong() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    let (status, v) = doctor(dir);
    assert_eq!(status, 0, "{v:#}");
    assert_eq!(v["ok"], true);
    for check in ["git", "repository", "agent", "runtime", "worktrees"] {
        assert_eq!(level_of(&v, check), vec!["ok"], "{check}: {v:#}");
    }
    assert!(level_of(&v, "hooks").contains(&"ok".to_string()), "{v:#}");
    let text = run(dir, &["doctor"]);
    assert_eq!(text.status, 0);
    assert!(text.stdout.contains("0 problems"), "{}", text.stdout);
}

#[test]
fn doctor_names_a_foreign_hooks_manager_and_how_to_chain() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    std::fs::create_dir_all(dir.join(".husky/_")).expect("husky");
    crate::common::git(dir, &["config", "core.hooksPath", ".husky/_"]);
    let (status, v) = doctor(dir);
    assert_eq!(status, 0, "a warning is not a problem: {v:#}");
    let hooks: Vec<&serde_json::Value> = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["check"] == "hooks" && c["level"] == "warning")
        .collect();
    assert!(
        hooks
            .iter()
            .any(|c| c["message"].as_str().expect("m").contains("husky")
                && c["fix"]
                    .as_str()
                    .expect("fix")
                    .contains("git supervisor hook")),
        "{v:#}"
    );
}

#[test]
fn doctor_reports_a_missing_agent_cli_as_a_problem() {
    let repo = crate::common::fixture_repo("five");
    let dir = repo.path();
    let config = dir.join(".workflow/config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace(
            r#"command = ["fake-agent"]"#,
            r#"command = ["claude-not-installed", "-p"]"#,
        ),
    )
    .expect("config");
    let (status, v) = doctor(dir);
    assert_eq!(status, 1, "{v:#}");
    assert_eq!(v["ok"], false);
    let agent = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "agent")
        .expect("agent check")
        .clone();
    assert_eq!(agent["level"], "problem");
    assert!(
        agent["message"]
            .as_str()
            .expect("m")
            .contains("claude-not-installed"),
        "{agent}"
    );
    // Credentials are named, never shown.
    let claude = std::fs::read_to_string(&config)
        .expect("config")
        .replace("claude-not-installed", "claude");
    std::fs::write(&config, claude).expect("config");
    let out = command(crate::common::bin(), dir)
        .args(["doctor", "--format", "json"])
        .env("ANTHROPIC_API_KEY", "sk-secret-value")
        .output()
        .expect("doctor");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("ANTHROPIC_API_KEY set"), "{shown}");
    assert!(!shown.contains("sk-secret-value"), "{shown}");
}
