//! `git supervisor demo`: build a sample repository in a new directory, with
//! a three-layer plan and the bundled scripted agent (`demo-agent`), run it
//! to the end, and show the status table and the state history.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use clap::Args;
use miette::IntoDiagnostic;
use miette::WrapErr;

use super::Context;

const PLAN: &str = r#"# Bookshelf Service

A small service built by scripted agents: two libraries in parallel, an API
on top of both, then a web front end.

| Work Unit | Directory | Layer | Sprints |
|-----------|-----------|-------|---------|
| store     | store     | 0     | 2       |
| auth      | auth      | 0     | 1       |
| api       | api       | 1     | 1       |
| web       | web       | 2     | 2       |

## store

### Sprint 1: Create the book model

- Write `store/1.done`

**Exit Criteria**:
- [ ] `store/1.done` exists

### Sprint 2: Implement the repository

- Write `store/2.done`

**Exit Criteria**:
- [ ] `store/2.done` exists

## auth

### Sprint 1: Create the token checker

- Write `auth/1.done`

**Exit Criteria**:
- [ ] `auth/1.done` exists

## api

### Sprint 1: Build the handlers (flaky on the first try)

- Write `api/1.done`

**Exit Criteria**:
- [ ] `api/1.done` exists

## web

### Sprint 1: Create the pages

- Write `web/1.done`

**Exit Criteria**:
- [ ] `web/1.done` exists

### Sprint 2: Implement the search box

- Write `web/2.done`

**Exit Criteria**:
- [ ] `web/2.done` exists
"#;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to build the sample repository (default: a new directory under
    /// the system's temporary directory); it is kept for you to inspect
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

fn git(dir: &Path, args: &[&str]) -> miette::Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .output()
        .into_diagnostic()
        .wrap_err("cannot run git")?;
    if !out.status.success() {
        return Err(miette::miette!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn cmd_demo(ctx: &Context, args: &DemoArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let dir = match &args.dir {
        Some(d) => ctx.cwd.join(d),
        None => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            std::env::temp_dir().join(format!("git-supervisor-demo-{}-{t:x}", std::process::id()))
        }
    };
    if dir.join(".git").exists() || dir.join("EXECUTION_PLAN.md").exists() {
        return Err(miette::miette!(
            code = "demo::exists",
            help = "pass --dir with a new or empty directory",
            "{} already holds a repository or a plan",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir.join(".workflow")).into_diagnostic()?;
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).into_diagnostic()?;
    let exe = std::env::current_exe().into_diagnostic()?;
    let config = format!(
        "[agent]\ncommand = [{:?}, \"demo-agent\"]\nprompt = \"stdin\"\n\n[run]\nmax_retries = 3\npoll_interval = \"200ms\"\nretry_delay = \"2s\"\nland = \"ff\"\n",
        exe.display().to_string()
    );
    std::fs::write(dir.join(".workflow/config.toml"), config).into_diagnostic()?;
    for d in ["store", "auth", "api", "web"] {
        std::fs::create_dir_all(dir.join(d)).into_diagnostic()?;
        std::fs::write(dir.join(d).join("PROGRESS.md"), format!("# {d} progress\n"))
            .into_diagnostic()?;
    }
    git(&dir, &["init", "-q", "-b", "main"])?;
    git(&dir, &["config", "user.name", "Demo User"])?;
    git(&dir, &["config", "user.email", "demo@example.com"])?;
    git(&dir, &["config", "commit.gpgsign", "false"])?;
    git(&dir, &["add", "-A"])?;
    git(&dir, &["commit", "-q", "-m", "Bookshelf: plan and layout"])?;
    writeln!(out, "Demo repository: {}", dir.display()).into_diagnostic()?;
    out.flush().into_diagnostic()?;

    let sub = Context {
        cwd: dir.clone(),
        color: ctx.color,
    };
    let code = super::start::cmd_start(
        &sub,
        &super::start::StartArgs {
            path: None,
            wait: true,
            remote: None,
            yes: false,
            format: Default::default(),
        },
        out,
    )?;
    writeln!(out, "\n## git log refs/supervisor/state\n").into_diagnostic()?;
    let log = git(
        &dir,
        &[
            "log",
            "--reverse",
            "--format=%h %s",
            "refs/supervisor/state",
        ],
    )?;
    write!(out, "{log}").into_diagnostic()?;
    // The completion report and the timeline of what just happened.
    let (report, root) = super::report::load(&sub)?;
    let log_path = root.join(&report.file_name);
    super::write_file(&log_path, &crate::report::complete_md::render(&report))?;
    let timeline = root.join("TIMELINE.html");
    super::write_file(&timeline, &crate::report::timeline::html(&report))?;
    writeln!(
        out,
        "\nCompletion log (written here as `git supervisor report` writes it): {}\nTimeline: {}\n\nInspect it: cd {} && git supervisor status && git supervisor log",
        log_path.display(),
        timeline.display(),
        dir.display()
    )
    .into_diagnostic()?;
    Ok(code)
}

#[derive(Debug, Args)]
pub struct DemoAgentArgs {}

/// The bundled scripted agent: does the sprint's work (a file per sprint),
/// notes progress, commits with the sprint trailer and reports. A sprint
/// whose prompt says "flaky" fails on its first attempt, to show a retry.
pub fn cmd_demo_agent(
    _ctx: &Context,
    _args: &DemoAgentArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let (unit, dir, sprint, attempt) = (
        env("SUPERVISOR_UNIT"),
        env("SUPERVISOR_UNIT_DIR"),
        env("SUPERVISOR_SPRINT"),
        env("SUPERVISOR_ATTEMPT"),
    );
    let mut prompt = String::new();
    let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut prompt);
    writeln!(
        out,
        "demo-agent: {unit} sprint {sprint}, attempt {attempt}, model {}",
        env("SUPERVISOR_MODEL")
    )
    .into_diagnostic()?;
    // Simulated work, so that the report has durations and overlap to show.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    if prompt.to_lowercase().contains("flaky") && attempt == "1" {
        writeln!(
            out,
            "demo-agent: could not finish: the test server timed out (simulated)"
        )
        .into_diagnostic()?;
        return Ok(1);
    }
    let root = PathBuf::from(env("SUPERVISOR_WORKDIR"));
    let work = root.join(&dir);
    std::fs::create_dir_all(&work).into_diagnostic()?;
    std::fs::write(
        work.join(format!("{sprint}.done")),
        format!("{unit} sprint {sprint}\n"),
    )
    .into_diagnostic()?;
    let mut progress = std::fs::read_to_string(work.join("PROGRESS.md")).unwrap_or_default();
    progress.push_str(&format!("- Sprint {sprint}: complete\n"));
    std::fs::write(work.join("PROGRESS.md"), progress).into_diagnostic()?;
    git(&root, &["add", "-A", "--", &dir])?;
    let message = format!(
        "{unit}: sprint {sprint} ({})\n\nSupervisor-Sprint: {unit}/{sprint}\nSupervisor-Status: complete",
        env("SUPERVISOR_SPRINT_NAME")
    );
    // A real agent's commit runs the user's hooks: no internal marker here.
    let status = Command::new("git")
        .args(["commit", "-q", "-m", &message])
        .current_dir(&root)
        .env_remove("GIT_SUPERVISOR_INTERNAL")
        .status()
        .into_diagnostic()?;
    if !status.success() {
        return Ok(1);
    }
    let result = env("SUPERVISOR_RESULT_FILE");
    if !result.is_empty() {
        // A made-up but steady turn count, so the report has turns to show.
        let turns = 6 + 4 * sprint.parse::<u32>().unwrap_or(1) + 3 * unit.len() as u32;
        std::fs::write(
            result,
            format!("status = \"complete\"\nsummary = \"sprint done\"\nturns = {turns}\n"),
        )
        .into_diagnostic()?;
    }
    writeln!(out, "demo-agent: committed; done").into_diagnostic()?;
    Ok(0)
}
