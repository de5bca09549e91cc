//! The import use-case (`git supervisor import FILE`): a plan in any shape
//! is rewritten by the configured agent CLI into the canonical
//! `EXECUTION_PLAN.md`, read back by the parser, and written only when it
//! reads as a plan with sprints.
//!
//! The agent runs in a scratch git repository under the system's temporary
//! directory, never in the user's: it gets the source plan's text in its
//! prompt and writes the rewrite to a named file there. It is run by the same
//! wrapper that runs a sprint's agent (`dispatch::run_wrapper`: liveness,
//! timeout, rate-limit waits, the whole process tree ended), in this process,
//! with the argv built from the configured preset as a dispatch builds it.
//! The source file is only read; `refs/supervisor/state` is never opened for
//! writing; the output is written atomically (a file beside it, renamed).

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

use miette::NamedSource;

use crate::config::Config;
use crate::config::CONFIG_DIR;
use crate::config::CONFIG_FILE;
use crate::dispatch;
use crate::dispatch::Job;
use crate::dispatch::WrapperEvent;
use crate::plan::Plan;
use crate::plan::Problem;
use crate::plan::TaskType;
use crate::plan_tools::write;

/// The file the agent is asked to write, in its scratch repository.
pub const REWRITE_FILE: &str = "EXECUTION_PLAN.md";

/// The example of the canonical form shown to the agent: the template's
/// example plan, as the canonical writer writes it.
const EXAMPLE: &str = include_str!("../../.workflow-template/EXECUTION_PLAN.example.md");

/// Above this size a prompt given as an argument names the source's copy in
/// the scratch repository instead of holding it (one argument may not exceed
/// 128 KiB on Linux).
const ARG_PROMPT_LIMIT: usize = 96 * 1024;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ImportError {
    #[error("cannot read {path}")]
    #[diagnostic(
        code(import::unreadable),
        help("name an existing plan file (any Markdown or text)")
    )]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is empty")]
    #[diagnostic(code(import::empty), help("name the file that holds the plan"))]
    Empty { path: String },
    #[error("{path} already exists")]
    #[diagnostic(
        code(import::exists),
        help("pass --force to replace it, or --output PATH to write the plan elsewhere")
    )]
    Exists { path: String },
    #[error("the directory of the output {path} does not exist")]
    #[diagnostic(
        code(import::no_output_dir),
        help("create it first, or name another path with --output")
    )]
    NoOutputDir { path: String },
    #[error("the output {path} is the source file itself")]
    #[diagnostic(
        code(import::same_file),
        help("the source is never changed: name another file with --output")
    )]
    SameFile { path: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(Box<crate::config::LoadError>),
    #[error("agent.command is not set in .workflow/config.toml")]
    #[diagnostic(
        code(config::no_agent),
        help("`git supervisor init --agent claude` (or codex, aider, script) writes a preset; import runs the agent it names")
    )]
    NoAgentCommand,
    #[error(transparent)]
    #[diagnostic(transparent)]
    AgentProgram(Box<crate::config::ConfigError>),
    #[error("{agent} failed: {why}; nothing was written")]
    #[diagnostic(code(import::agent_failed), help("{help}"))]
    AgentFailed {
        agent: String,
        why: String,
        help: String,
    },
    #[error("{agent} wrote no {file}; nothing was written")]
    #[diagnostic(code(import::no_rewrite), help("{help}"))]
    NoRewrite {
        agent: String,
        file: String,
        help: String,
    },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<Invalid>),
    #[error("{path} changed while the agent ran; nothing was written")]
    #[diagnostic(
        code(import::source_changed),
        help("the agent or someone else edited it: check the file, then import again")
    )]
    SourceChanged { path: String },
    #[error("interrupted: the agent was ended and nothing was written")]
    #[diagnostic(code(import::interrupted))]
    Interrupted,
    #[error("{what}")]
    #[diagnostic(code(import::io))]
    Io {
        what: String,
        source: std::io::Error,
    },
}

/// The agent's rewrite does not read as a plan: the parser's problems,
/// labelled in the rewrite's text.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{agent}'s rewrite is not a plan git supervisor can run ({headline}); nothing was written")]
#[diagnostic(
    code(import::invalid),
    help("run the import again (an agent's answer varies), or rewrite the plan by hand; `git supervisor plan FILE` shows how a file reads")
)]
pub struct Invalid {
    pub agent: String,
    pub headline: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[related]
    pub problems: Vec<Problem>,
    /// The problems as `plan --format json` lists them.
    pub json: serde_json::Value,
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ImportError {
    let what = what.into();
    move |source| ImportError::Io { what, source }
}

/// What the CLI asks for.
pub struct ImportRequest {
    /// Where relative paths start.
    pub cwd: PathBuf,
    /// The plan to rewrite.
    pub source: PathBuf,
    /// Where to write the result; default `EXECUTION_PLAN.md` at the root of
    /// the repository holding `cwd`.
    pub output: Option<PathBuf>,
    /// Replace an existing output.
    pub force: bool,
}

/// An import ready to run: everything checked that can be checked before
/// the agent is asked.
pub struct Prepared {
    pub source: PathBuf,
    pub output: PathBuf,
    /// The repository's working tree (its config names the agent).
    pub root: PathBuf,
    /// The agent program's name, for messages (`claude`).
    pub agent: String,
    /// The model the agent is asked to use (the `sonnet` tier's name).
    pub model: String,
    force: bool,
    cwd: PathBuf,
    text: String,
    config: Config,
    template: Vec<String>,
}

/// What the agent reported about its own run, where its CLI prints it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct AgentRun {
    pub program: String,
    pub model: String,
    pub exit_code: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// How the parser reads the source as written, for comparison.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "reads", rename_all = "snake_case")]
pub enum SourceReading {
    /// It already reads as a plan: its units and sprints.
    Plan { units: usize, sprints: usize },
    /// It does not: how many problems the parser found.
    NotAPlan { problems: usize },
}

/// A written import.
pub struct Imported {
    pub source: PathBuf,
    pub output: PathBuf,
    pub root: PathBuf,
    /// The output existed and was replaced (`--force`).
    pub replaced: bool,
    pub source_lines: usize,
    pub source_reading: SourceReading,
    /// The rewrite, as written to the output.
    pub text: String,
    pub plan: Plan,
    pub agent: AgentRun,
}

/// `path` as the user named it: relative to where the command runs.
fn shown(cwd: &Path, path: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// Find the repository, read the source and the config, and refuse what
/// would make the agent's work useless: an output that exists (without
/// `force`) or is the source, no agent command, a program that cannot run.
pub fn prepare(request: ImportRequest) -> Result<Prepared, ImportError> {
    let store = crate::store::Store::open(&request.cwd)?;
    let root = store
        .workdir()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| request.cwd.clone());
    let source = request.cwd.join(&request.source);
    let cwd = request.cwd.clone();
    let text = crate::config::read_regular(&source).map_err(|e| ImportError::Unreadable {
        path: shown(&cwd, &source),
        source: e,
    })?;
    if text.trim().is_empty() {
        return Err(ImportError::Empty {
            path: shown(&cwd, &source),
        });
    }
    let output = match &request.output {
        Some(o) => request.cwd.join(o),
        None => root.join(crate::plan::resolve::PLAN_FILE),
    };
    if same_file(&source, &output) {
        return Err(ImportError::SameFile {
            path: shown(&cwd, &output),
        });
    }
    refuse_existing(&output, &shown(&cwd, &output), request.force)?;
    // Found now rather than after minutes of the agent's work.
    if !output.parent().is_some_and(Path::is_dir) {
        return Err(ImportError::NoOutputDir {
            path: shown(&cwd, &output),
        });
    }
    let config = Config::load(&root).map_err(|e| ImportError::Config(Box::new(e)))?;
    let template = config
        .agent_command()
        .ok_or(ImportError::NoAgentCommand)?
        .to_vec();
    let config_text =
        crate::config::read_regular(&root.join(CONFIG_DIR).join(CONFIG_FILE)).unwrap_or_default();
    config
        .check_agent_program(&config_text, ".workflow/config.toml", &root)
        .map_err(ImportError::AgentProgram)?;
    let agent = template
        .first()
        .map(|p| {
            Path::new(p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.clone())
        })
        .unwrap_or_default();
    Ok(Prepared {
        source,
        output,
        root,
        agent,
        model: config.models.sonnet.clone(),
        force: request.force,
        cwd,
        text,
        config,
        template,
    })
}

fn refuse_existing(output: &Path, shown: &str, force: bool) -> Result<(), ImportError> {
    if !force && std::fs::symlink_metadata(output).is_ok() {
        return Err(ImportError::Exists {
            path: shown.to_string(),
        });
    }
    Ok(())
}

/// Whether `a` and `b` name one file (`b` may not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| {
        p.canonicalize().ok().or_else(|| {
            let parent = p.parent()?.canonicalize().ok()?;
            Some(parent.join(p.file_name()?))
        })
    };
    matches!((canonical(a), canonical(b)), (Some(x), Some(y)) if x == y)
}

impl Prepared {
    /// Ask the agent for the rewrite, read it back with the parser, and
    /// write it when it reads as a plan. `notice` hears what the wrapper
    /// reports while the agent runs (a rate limit waited out, silence).
    pub fn run(self, notice: &mut dyn FnMut(String)) -> Result<Imported, ImportError> {
        let scratch = Scratch::create()?;
        let (rewrite, agent) = self.ask(&scratch, notice)?;
        drop(scratch);
        // The agent never saw the source's path; anything else that changed
        // it meanwhile makes the rewrite stale.
        let now = crate::config::read_regular(&self.source).ok();
        if now.as_deref() != Some(self.text.as_str()) {
            return Err(ImportError::SourceChanged {
                path: shown(&self.cwd, &self.source),
            });
        }
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        // Named as `plan` names it when it reads the output: after the
        // directory that holds it.
        let ctx = crate::plan::ParseContext {
            dir_name: self
                .output
                .parent()
                .and_then(|d| d.canonicalize().ok())
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "project".into()),
        };
        let label = format!("{} (the rewrite)", name(&self.output));
        let plan = crate::plan::parse_named(&rewrite, &label, &ctx, false)
            .map_err(|e| invalid(&self.agent, e))?;
        if plan.sprint_total() == 0 {
            // The parser refuses a plan without sprints; this says so
            // should that ever change.
            return Err(ImportError::AgentFailed {
                agent: self.agent.clone(),
                why: "its rewrite holds no sprints".into(),
                help: "run the import again, or rewrite the plan by hand".into(),
            });
        }
        let source_reading = match crate::plan::parse_with(&self.text, &ctx, false) {
            Ok(p) => SourceReading::Plan {
                units: p.units.len(),
                sprints: p.sprint_total(),
            },
            Err(problems) => SourceReading::NotAPlan {
                problems: problems.len(),
            },
        };
        // Checked again: the agent may have taken minutes, and the output
        // may have appeared meanwhile.
        refuse_existing(&self.output, &shown(&self.cwd, &self.output), self.force)?;
        let replaced = self.output.exists();
        crate::store::worktree::write_file(&self.output, &rewrite).map_err(io(format!(
            "cannot write {}",
            shown(&self.cwd, &self.output)
        )))?;
        Ok(Imported {
            source_lines: self.text.lines().count(),
            source: self.source,
            output: self.output,
            root: self.root,
            replaced,
            source_reading,
            text: rewrite,
            plan,
            agent,
        })
    }

    /// Run the agent in the scratch repository; the rewrite's text.
    fn ask(
        &self,
        scratch: &Scratch,
        notice: &mut dyn FnMut(String),
    ) -> Result<(String, AgentRun), ImportError> {
        let work = scratch.work();
        let files = scratch.files();
        let source_name = self
            .source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "plan.md".into());
        // A copy for agents that prefer reading files, and for prompts too
        // large to be one argument. The agent's own file names never
        // collide with it.
        let copy = format!("SOURCE-{}", source_name.replace('/', "_"));
        std::fs::write(work.join(&copy), &self.text)
            .map_err(io("cannot write the scratch copy of the source"))?;
        let inline = !(self.config.agent.prompt == crate::config::PromptDelivery::Arg
            && self.text.len() > ARG_PROMPT_LIMIT);
        let prompt_text = prompt(&source_name, &copy, &self.text, inline);
        let mut job = Job {
            run_id: "import".into(),
            unit: "import".into(),
            unit_dir: ".".into(),
            sprint: "1".into(),
            sprint_name: format!("Rewrite {source_name} as {REWRITE_FILE}"),
            attempt: 1,
            max_retries: 1,
            model: self.model.clone(),
            max_turns: self.config.agent.max_turns,
            task_type: TaskType::Code,
            argv: Vec::new(),
            prompt: self.config.agent.prompt,
            prompt_file: files.join("prompt.md"),
            result_file: files.join("result"),
            log_file: files.join("agent.log"),
            report_file: files.join("report.toml"),
            lock_file: files.join("agent.lock"),
            workdir: work.clone(),
            poll_interval_ms: self.config.run.poll_interval.as_millis() as u64,
            timing: dispatch::liveness::Timing::from_config(&self.config),
            deferred_checks: Vec::new(),
            session_id: None,
            setup: None,
            worker_pid: None,
            slot: 0,
            port: 0,
        };
        job.argv = dispatch::resolve_argv(&self.template, &job, &prompt_text);
        dispatch::anchor_program(&mut job.argv, &self.root);
        std::fs::write(&job.prompt_file, &prompt_text)
            .map_err(io("cannot write the prompt file"))?;
        dispatch::Report::default()
            .write(&job.report_file)
            .map_err(io("cannot write the agent report"))?;
        let mut host = Host { notice };
        let code = dispatch::run_wrapper(&job, &mut host).map_err(io(format!(
            "cannot run {}",
            self.template.first().cloned().unwrap_or_default()
        )))?;
        if dispatch::terminating() {
            return Err(ImportError::Interrupted);
        }
        let log = dispatch::result::read_log(&job.log_file);
        let said = dispatch::result::read_agent_output(&log).unwrap_or_default();
        let agent = AgentRun {
            program: self.agent.clone(),
            model: self.model.clone(),
            exit_code: code,
            turns: said.turns,
            cost_usd: said.cost_usd,
        };
        let tail = dispatch::tail(&job.log_file, 15);
        let output_help = |lead: &str| {
            if tail.trim().is_empty() {
                format!("{lead}; the agent printed nothing")
            } else {
                format!("{lead}; the agent's last output:\n{tail}")
            }
        };
        let report = dispatch::Report::read(&job.report_file).unwrap_or_default();
        if let Some(killed) = report.killed {
            return Err(ImportError::AgentFailed {
                agent: self.agent.clone(),
                why: killed,
                help: output_help(
                    "[agent] timeout and silence_kill in .workflow/config.toml bound a run",
                ),
            });
        }
        if code != 0 {
            let why = match said.failure_reason() {
                Some(r) => format!("it exited with status {code} ({r})"),
                None => format!("it exited with status {code}"),
            };
            return Err(ImportError::AgentFailed {
                agent: self.agent.clone(),
                why,
                help: output_help("check that the agent runs (`git supervisor doctor`)"),
            });
        }
        let path = work.join(REWRITE_FILE);
        let rewrite = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => std::fs::read_to_string(&path)
                .map_err(io(format!("cannot read the agent's {REWRITE_FILE}")))?,
            _ => String::new(),
        };
        if rewrite.trim().is_empty() {
            return Err(ImportError::NoRewrite {
                agent: self.agent.clone(),
                file: REWRITE_FILE.into(),
                help: output_help(
                    "the prompt asks for the file in the agent's working directory; an agent command that cannot write files cannot import",
                ),
            });
        }
        Ok((rewrite, agent))
    }
}

fn invalid(agent: &str, e: crate::plan::PlanError) -> ImportError {
    let json = e.to_json()["problems"].clone();
    let n = e.problems.len();
    let headline = format!(
        "the parser found {n} problem{}",
        if n == 1 { "" } else { "s" }
    );
    ImportError::Invalid(Box::new(Invalid {
        agent: agent.to_string(),
        headline,
        src: e.source_code,
        problems: e.problems,
        json,
    }))
}

/// The wrapper's host for an agent that belongs to no run: notices go to
/// the caller, and nothing waits for a retry.
struct Host<'a> {
    notice: &'a mut dyn FnMut(String),
}

impl dispatch::WrapperHost for Host<'_> {
    fn event(&mut self, event: WrapperEvent) {
        let human = |d: std::time::Duration| {
            humantime::format_duration(std::time::Duration::from_secs(d.as_secs())).to_string()
        };
        let text = match event {
            WrapperEvent::Unresponsive { silent } => format!(
                "the agent may be unresponsive: no output, no CPU time and no file change for {}",
                human(silent)
            ),
            WrapperEvent::RateLimited { limited, wait } => format!(
                "the agent hit a {}: it runs again in {} ({})",
                limited.kind,
                human(wait),
                limited.line
            ),
            WrapperEvent::DeferredWaiting { .. } | WrapperEvent::StaleLockRemoved { .. } => return,
        };
        (self.notice)(text);
    }
    fn wake(&mut self) {}
    fn still_wanted(&mut self) -> bool {
        true
    }
    fn retry_wait(&mut self) -> Option<std::time::Duration> {
        None
    }
    fn record_usage(&mut self) {}
}

/// A directory of our own under the system's temporary directory, removed
/// when dropped: `work/` is a fresh git repository the agent works in (Codex
/// and aider refuse to work outside one), `files/` holds the prompt, the
/// agent's log and the wrapper's report and lock, out of the agent's sight.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn create() -> Result<Scratch, ImportError> {
        let base = std::env::temp_dir();
        let seed = dispatch::jitter_seed();
        let mut attempt = 0u64;
        let dir = loop {
            let dir = base.join(format!(
                "git-supervisor-import-{}-{:x}",
                std::process::id(),
                seed.wrapping_add(attempt)
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => {
                    attempt += 1;
                }
                Err(e) => return Err(io("cannot create a scratch directory")(e)),
            }
        };
        let scratch = Scratch { dir };
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&scratch.dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io("cannot create a scratch directory"))?;
        for d in [scratch.work(), scratch.files()] {
            std::fs::create_dir(&d).map_err(io("cannot create a scratch directory"))?;
        }
        let work = scratch.work();
        for args in [
            &["init", "-q"][..],
            &["config", "user.name", "git supervisor import"],
            &["config", "user.email", "import@git-supervisor.invalid"],
            &["config", "commit.gpgsign", "false"],
            &[
                "commit",
                "-q",
                "--allow-empty",
                "--no-verify",
                "-m",
                "Scratch repository for git supervisor import",
            ],
        ] {
            scratch_git(&work, args)?;
        }
        Ok(scratch)
    }

    fn work(&self) -> PathBuf {
        self.dir.join("work")
    }

    fn files(&self) -> PathBuf {
        self.dir.join("files")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `git` in the scratch repository and nowhere else: the variables that
/// could point it at the user's repository are dropped.
fn scratch_git(dir: &Path, args: &[&str]) -> Result<(), ImportError> {
    let mut cmd = Command::new("git");
    for var in crate::base::runtime::REPOSITORY_LOCATION {
        cmd.env_remove(var);
    }
    let out = cmd
        .args(args)
        .current_dir(dir)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(Stdio::null())
        .output()
        .map_err(io("cannot run git"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(ImportError::Io {
        what: format!(
            "cannot set up the scratch repository (git {})",
            args.join(" ")
        ),
        source: std::io::Error::other(String::from_utf8_lossy(&out.stderr).trim().to_string()),
    })
}

/// The canonical form of the template's example plan, as the writer that
/// `breakdown`, `evaluate` and `prioritize` use writes it.
pub fn canonical_example() -> String {
    let ctx = crate::plan::ParseContext {
        dir_name: "example".into(),
    };
    match crate::plan::parse(EXAMPLE, &ctx) {
        Ok(plan) => write::render(&plan, &write::Extras::default(), &Default::default()),
        Err(_) => EXAMPLE.to_string(),
    }
}

/// The prompt: what to write where, the canonical form with an example, and
/// the source plan (inline, or named when too large to be one argument).
pub fn prompt(source_name: &str, copy: &str, text: &str, inline: bool) -> String {
    let example = canonical_example();
    let fence = |t: &str| {
        let longest = t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        "`".repeat(longest.max(2) + 1)
    };
    let (source_fence, example_fence) = (fence(text), fence(&example));
    let source = if inline {
        format!(
            "{source_fence}markdown\n{}\n{source_fence}\n",
            text.trim_end()
        )
    } else {
        format!(
            "The plan is too long to quote here: read it from `{copy}` in the current directory.\n"
        )
    };
    format!(
        "# Rewrite a plan as {REWRITE_FILE}

Rewrite the plan below (`{source_name}`, {lines} lines) into the canonical
format of git supervisor's `{REWRITE_FILE}`, and write the result to the
file `{REWRITE_FILE}` in the current directory. That file is the only thing
to create or change. Do not run builds or tests, do not commit, and do not
ask questions: decide as the rules below say, then stop. A copy of the
plan is in `{copy}`; leave it as it is.

## The canonical format

- First line: `# <title>`, the plan's own title. Prose that introduces the
  plan (goals, background) may follow as paragraphs, before any `##`
  heading. Keep a YAML frontmatter block (`---` … `---`) at the very top if
  the plan has one.
- `## Work Units`: a table with the columns `Work Unit | Directory |
  Sprints | Layer | Dependencies`. A work unit is one independent stream of
  work (a component, package, service or area); a plan with no such
  structure is one unit named after its title. `Directory` is the folder
  the unit works in (`.` for the whole repository). `Sprints` is how many
  sprints the unit has. Units in `Layer` 0 start at once; a unit in layer N
  waits for every unit of a lower layer. `Dependencies` names the units it
  waits for beyond that, comma-separated, or `—`.
- Then one `## <unit name>` section per unit, in the table's order, named
  exactly as in the table.
- In it, one `### Sprint <N>: <name>` heading per sprint, numbered 1, 2, 3…
  within the unit, in the order the work is done. A sprint is one
  agent-sized piece of work (a few tasks that belong together). Keep the
  plan's own phases, milestones, steps or stages as sprints; split only one
  that is plainly several unrelated pieces.
- Under a sprint heading, in this order and each only when there is
  something to put in it:
  - `Type: manual` for work a person does rather than a coding agent
    (approvals, spot checks, accounts);
  - `**Entry criteria**:` then `- [ ] …` items: what must hold before it
    starts;
  - `**Tasks**:` then a numbered list `1. …`, one task per item;
  - `**Exit criteria**:` then `- [ ] …` items: how to tell it is done. Put a
    command a machine can run in backticks (`` - [ ] `cargo test -p core`
    passes ``), a file that must exist as `` - [ ] `src/lib.rs` exists ``.
- A sprint the plan says is already finished (ticked, marked done or
  complete, in a completed list) ends its heading with ` ✅`:
  `### Sprint 2: Add the parser ✅`. Mark nothing done that the plan does
  not say is done.
- Optional plan-wide sections, after the table: `## Exit Checks` (`- [ ]`
  items or a fenced `sh` block: commands that verify every sprint) and
  `## Rules` (`- ` items every agent must follow).

Keep every task, criterion, command, file name and done mark of the plan,
in its own words; invent no work and drop none. Leave out only what is not
work: estimates, dates, owners, status prose.

## An example in the canonical format

{example_fence}markdown
{example}
{example_fence}

## The plan to rewrite: `{source_name}`

{source}
Now write `{REWRITE_FILE}`.
",
        lines = text.lines().count(),
        example = example.trim_end(),
    )
}
