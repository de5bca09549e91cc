//! `.workflow/config.toml`: how agents are run, retried and built.
//!
//! Every key is optional (the defaults are the spec's); `agent.command` is
//! required only by commands that dispatch, which ask for it with
//! [`Config::agent_command`]. Syntax and type errors become miette
//! diagnostics labelled at the offending bytes of the file.

use std::path::Path;
use std::time::Duration;

use miette::Diagnostic;
use miette::NamedSource;
use miette::SourceSpan;
use serde::Deserialize;
use serde::Serialize;
use toml::Spanned;

pub const CONFIG_DIR: &str = ".workflow";
pub const CONFIG_FILE: &str = "config.toml";

pub mod ci;
pub mod edit;
pub mod notify;
pub mod presets;
pub use notify::NotifyConfig;
pub use notify::NotifyOn;

/// The placeholders an agent command may use.
pub const PLACEHOLDERS: &[&str] = &[
    "model",
    "max_turns",
    "prompt_file",
    "unit",
    "sprint",
    "session_id",
];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub agent: AgentConfig,
    pub run: RunConfig,
    pub build: BuildConfig,
    pub models: ModelsConfig,
    pub hooks: HooksConfig,
    pub workspace: WorkspaceConfig,
    pub notify: NotifyConfig,
}

/// `[run] on_overlap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOverlap {
    #[default]
    Warn,
    Serialize,
}

/// The name a program's usage limit is kept under: its file name.
pub fn program_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_string())
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkspaceConfig {
    /// Where the units' linked worktrees live (relative to the repository's
    /// working tree); default `<repo>/../<repo-dir-name>.supervisor/`, out of
    /// sight of tools that scan the project.
    pub dir: Option<String>,
    /// A shell command run in a new worktree before its first agent (e.g.
    /// `npm ci`); its failure fails the dispatch, with its output.
    pub setup: Option<String>,
    /// Untracked files of the main working tree copied into each new
    /// worktree (e.g. `.env`), relative to the repository's working tree.
    pub copy: Vec<String>,
    /// A shell command run in a unit's worktree when it is removed (its
    /// unit completed, `clean`, a worker leaving): stop what `setup` or the
    /// agents started there, drop a per-unit database. Its failure is
    /// logged, never blocks the run.
    pub teardown: Option<String>,
    /// How long `teardown` may take before it is killed.
    #[serde(with = "humantime_serde_compat")]
    pub teardown_timeout: Duration,
    /// `SUPERVISOR_PORT` = `port_base` + slot × `port_stride`.
    pub port_base: u16,
    pub port_stride: u16,
}

impl Default for WorkspaceConfig {
    fn default() -> Self {
        WorkspaceConfig {
            dir: None,
            setup: None,
            copy: Vec::new(),
            teardown: None,
            teardown_timeout: Duration::from_secs(300),
            port_base: 4000,
            port_stride: 10,
        }
    }
}

impl WorkspaceConfig {
    /// The port of a slot: `port_base` + slot × `port_stride` (saturating).
    pub fn port(&self, slot: u32) -> u32 {
        u32::from(self.port_base).saturating_add(slot.saturating_mul(u32::from(self.port_stride)))
    }

    /// The variables that tell a unit's commands where they run: its slot
    /// (the unit's place in the plan, 1-based: no two units share one, so
    /// no two live units do) and its port; slot 0 for the run as a whole
    /// (phase builds).
    pub fn slot_env(&self, slot: u32) -> Vec<(String, String)> {
        vec![
            ("SUPERVISOR_SLOT".into(), slot.to_string()),
            ("SUPERVISOR_PORT".into(), self.port(slot).to_string()),
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptDelivery {
    #[default]
    Stdin,
    File,
    Arg,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    /// argv template; no shell unless the user writes `sh -c`.
    pub command: Option<Spanned<Vec<String>>>,
    /// argv used instead of `command` for a PARTIAL sprint's continuation
    /// when the previous dispatch reported its session (`{session_id}`):
    /// the agent resumes its conversation instead of starting over.
    pub resume_command: Option<Spanned<Vec<String>>>,
    pub prompt: PromptDelivery,
    pub max_turns: u32,
    /// Silence (no output, no CPU time in the agent's process tree, no file
    /// changed in its workdir) after which a notice is recorded.
    #[serde(with = "humantime_serde_compat")]
    pub silence_notice: Duration,
    /// Silence after which the agent is ended; `"off"`: never for silence.
    #[serde(with = "duration_or_off")]
    pub silence_kill: Option<Duration>,
    /// Wall-clock limit of one agent run, however busy it is.
    #[serde(with = "humantime_serde_compat")]
    pub timeout: Duration,
    /// Between SIGTERM and SIGKILL when an agent's processes are ended.
    #[serde(with = "humantime_serde_compat")]
    pub kill_grace: Duration,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            command: None,
            resume_command: None,
            prompt: PromptDelivery::Stdin,
            max_turns: 50,
            silence_notice: Duration::from_secs(10 * 60),
            silence_kill: Some(Duration::from_secs(30 * 60)),
            timeout: Duration::from_secs(2 * 3600),
            kill_grace: Duration::from_secs(10),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workspace {
    /// `worktree` when two units of the plan can run at once, else `shared`
    /// (decided at `start` and kept for the run: `State::workspace`).
    #[default]
    Auto,
    /// Agents work in the main worktree.
    Shared,
    /// Each unit works in its own linked worktree and branch; sprints enter
    /// an integration branch through a merge queue (see `workspace`).
    Worktree,
}

/// `[run] land`: how a completed worktree run reaches the starting branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Land {
    /// Left on the integration branch for `git supervisor land`.
    #[default]
    Off,
    /// Fast-forward only.
    Ff,
    /// A fast-forward when possible, else a merge commit.
    Merge,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub max_retries: u32,
    #[serde(with = "humantime_serde_compat")]
    pub poll_interval: Duration,
    pub max_continuations: u32,
    pub workspace: Workspace,
    /// What happens to the integration branch when a worktree run
    /// completes: `off` (the user runs `git supervisor land`), `ff` or
    /// `merge` (the engine lands it on the starting branch).
    pub land: Land,
    /// Dollars the agents may spend in this run: once their reported costs
    /// reach it, no new dispatch starts (running agents finish).
    pub budget_usd: Option<f64>,
    /// The first retry's delay; it doubles per failure, capped at ten
    /// minutes, with jitter (see `machine::retry`).
    #[serde(with = "humantime_serde_compat")]
    pub retry_delay: Duration,
    /// How long a rate-limited or overloaded agent waits, in total, before
    /// its failure counts as an attempt.
    #[serde(with = "humantime_serde_compat")]
    pub rate_limit_wait: Duration,
    /// A sprint naming files a live sprint of another unit names: `warn`
    /// (dispatch it, the overlap in its reason) or `serialize` (hold it
    /// until the other has left).
    pub on_overlap: OnOverlap,
    /// The longest usage-limit reset the run waits for by itself; a later
    /// reset stops the run (resumable), its time in the message.
    #[serde(with = "humantime_serde_compat")]
    pub limit_wait_max: Duration,
    /// The git remote a run lives on (`start --remote` says it too): every
    /// event is published there and workers claim the sprints.
    pub remote: Option<String>,
    /// How long a worker's claim on a sprint lasts without renewal; a
    /// sprint whose lease lapsed is interrupted and taken by another worker.
    #[serde(with = "humantime_serde_compat")]
    pub lease: Duration,
    /// How long a worker rides out a remote that does not answer, its
    /// agents working and their verdicts queued, before it leaves; unset:
    /// `lease` (see [`RunConfig::offline_grace`]).
    #[serde(deserialize_with = "humantime_serde_compat::deserialize_some")]
    pub offline_grace: Option<Duration>,
    /// Refuse to start a plan with a sprint no exit-criterion command can
    /// check: such a sprint completes on its agent's word.
    pub require_criteria: bool,
    /// The wait after a deferred sprint's agent found its condition not met
    /// yet; it doubles per check up to `deferred_check_max`, because each
    /// check of a prose condition is a whole agent run.
    #[serde(with = "humantime_serde_compat")]
    pub deferred_check_min: Duration,
    #[serde(with = "humantime_serde_compat")]
    pub deferred_check_max: Duration,
    /// Leave the processes background sprints started running when the
    /// run ends, is stopped or killed (by default they are ended then).
    pub keep_background: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            max_retries: 3,
            poll_interval: Duration::from_secs(5),
            max_continuations: 5,
            workspace: Workspace::Auto,
            land: Land::Off,
            budget_usd: None,
            retry_delay: Duration::from_secs(30),
            rate_limit_wait: Duration::from_secs(3600),
            limit_wait_max: Duration::from_secs(12 * 3600),
            on_overlap: OnOverlap::Warn,
            remote: None,
            lease: Duration::from_secs(300),
            offline_grace: None,
            require_criteria: false,
            deferred_check_min: Duration::from_secs(60),
            deferred_check_max: Duration::from_secs(15 * 60),
            keep_background: false,
        }
    }
}

impl RunConfig {
    /// How long a worker waits out an outage: `offline_grace`, or as long
    /// as its leases hold.
    pub fn offline_grace(&self) -> Duration {
        self.offline_grace.unwrap_or(self.lease)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BuildConfig {
    /// Phase-gate command, run with `sh -c`.
    pub command: Option<String>,
    #[serde(with = "humantime_serde_compat")]
    pub timeout: Duration,
    /// The quick check run on a unit's changed files after its agent exits
    /// in a worktree run, instead of the checker table; `"off"`: none.
    pub check: Option<String>,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            command: None,
            timeout: Duration::from_secs(30 * 60),
            check: None,
        }
    }
}

/// What `{model}` becomes for each tier.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct ModelsConfig {
    pub haiku: String,
    pub sonnet: String,
    pub opus: String,
}

impl Default for ModelsConfig {
    fn default() -> Self {
        ModelsConfig {
            haiku: "haiku".into(),
            sonnet: "sonnet".into(),
            opus: "opus".into(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// Branches whose pushes are refused while the latest checkpoint blocks.
    pub guard: Vec<String>,
}

/// The longest duration a config value may name.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// Read a file the user names (config, plan) only when it is a regular file:
/// a FIFO would block forever and a directory or device is never meant.
pub fn read_regular(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, directory or device is not read)",
        ));
    }
    std::fs::read_to_string(path)
}

/// The project's own build, test and check commands, detected from the
/// files at `root` (`plan_tools::project` decides; this reads). A directory such
/// as `tests/` reads as present with no text; only regular files are read.
pub fn project_commands(root: &Path) -> Option<crate::plan_tools::project::ProjectCommands> {
    crate::plan_tools::project::detect(|f| {
        let p = root.join(f);
        if p.is_dir() {
            Some(String::new())
        } else {
            read_regular(&p).ok()
        }
    })
}

/// Durations written humantime-style: `"5s"`, `"30m"`, `"1h 30m"`.
/// A duration as the config writes it ("5s", "30m", "1h 30m"): longer than
/// zero and at most [`MAX_DURATION`]. What command-line duration flags use.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime_serde_compat::parse(s)
}

mod humantime_serde_compat {
    use std::time::Duration;

    use serde::Deserialize;
    use serde::Deserializer;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s).map_err(serde::de::Error::custom)
    }

    /// An optional duration that, when written, follows the same rule.
    pub fn deserialize_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        deserialize(d).map(Some)
    }

    /// The one duration rule: humantime syntax, longer than zero, and at most
    /// [`super::MAX_DURATION`], because deadlines are `Instant + duration` and
    /// no value may overflow one.
    pub(super) fn parse(s: &str) -> Result<Duration, String> {
        let parsed = humantime::parse_duration(s).map_err(|e| {
            format!("`{s}` is not a duration ({e}); write it like \"5s\", \"30m\" or \"1h 30m\"")
        })?;
        if parsed.is_zero() {
            return Err("a duration must be longer than zero".into());
        }
        if parsed > super::MAX_DURATION {
            return Err(format!("`{s}` is too long; a duration is at most 365 days"));
        }
        Ok(parsed)
    }
}

/// A duration, or `"off"` for none.
mod duration_or_off {
    use std::time::Duration;

    use serde::Deserialize;
    use serde::Deserializer;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let s = String::deserialize(d)?;
        if s.trim() == "off" {
            return Ok(None);
        }
        super::humantime_serde_compat::parse(&s)
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("{e} (or \"off\")")))
    }
}

/// A problem in the config file, labelled at the bytes that caused it.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("invalid configuration: {message}")]
#[diagnostic(code(config::invalid))]
pub struct ConfigError {
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    pub label: String,
    #[help]
    pub help: Option<String>,
}

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum LoadError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(#[from] Box<ConfigError>),
    #[error("{path} is a symbolic link to {target}, which does not exist")]
    #[diagnostic(
        code(config::dangling_link),
        help("point the link at the config file (ln -sf <file> {path}), or remove it to use the defaults")
    )]
    DanglingLink { path: String, target: String },
    #[error("cannot read {path}: {source}")]
    #[diagnostic(code(config::unreadable))]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl Config {
    /// Load `<root>/.workflow/config.toml`; a missing file is the default.
    pub fn load(root: &Path) -> Result<Config, LoadError> {
        let path = root.join(CONFIG_DIR).join(CONFIG_FILE);
        match read_regular(&path) {
            Ok(text) => Config::parse(&text, &format!("{CONFIG_DIR}/{CONFIG_FILE}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A symlink whose target is gone is a broken config, not a
                // missing one: say so rather than "agent.command is not set".
                match std::fs::read_link(&path) {
                    Ok(target) => Err(LoadError::DanglingLink {
                        path: path.display().to_string(),
                        target: target.display().to_string(),
                    }),
                    Err(_) => Ok(Config::default()),
                }
            }
            Err(source) => Err(LoadError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Parse config text; `name` is used in diagnostics.
    pub fn parse(text: &str, name: &str) -> Result<Config, LoadError> {
        let invalid = |message: String,
                       span: Option<std::ops::Range<usize>>,
                       label: &str,
                       help: Option<String>| {
            LoadError::Invalid(Box::new(ConfigError {
                message,
                src: NamedSource::new(name, text.to_string()),
                span: span.map(Into::into),
                label: label.to_string(),
                help,
            }))
        };
        let config: Config = toml::from_str(text).map_err(|e| {
            let help = e.message().contains("unknown field").then(|| {
                "the known sections are [agent], [run], [build], [models] and [hooks]; see .workflow-template/config.toml".to_string()
            });
            invalid(e.message().trim().to_string(), e.span(), "here", help)
        })?;
        if let Some(budget) = config.run.budget_usd {
            if !budget.is_finite() || budget < 0.0 {
                let span = value_span(text, "budget_usd");
                return Err(invalid(
                    format!(
                        "run.budget_usd must be a number of dollars, zero or more (got {budget})"
                    ),
                    span,
                    "here",
                    Some("for example: budget_usd = 25.0".into()),
                ));
            }
        }
        if config.run.deferred_check_min > config.run.deferred_check_max {
            return Err(invalid(
                "run.deferred_check_min is longer than run.deferred_check_max".into(),
                value_span(text, "deferred_check_min"),
                "here",
                Some("the checks back off from the minimum up to the maximum: for example deferred_check_min = \"1m\", deferred_check_max = \"15m\"".into()),
            ));
        }
        for entry in &config.workspace.copy {
            let path = std::path::Path::new(entry);
            let escapes = path.is_absolute()
                || path
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir));
            if escapes || entry.trim().is_empty() {
                return Err(invalid(
                    format!("workspace.copy entry `{entry}` is not a path inside the repository"),
                    value_span(text, "copy"),
                    "here",
                    Some(
                        "name untracked files relative to the repository's working tree, without `..`: copy = [\".env\"]"
                            .into(),
                    ),
                ));
            }
        }
        let commands = [
            ("agent.command", &config.agent.command),
            ("agent.resume_command", &config.agent.resume_command),
        ];
        for (key, command) in commands {
            let Some(command) = command else { continue };
            if command.get_ref().is_empty() {
                return Err(invalid(
                    format!("{key} is empty"),
                    Some(command.span()),
                    "needs at least the program to run",
                    Some(
                        "for example: command = [\"claude\", \"-p\", \"--model\", \"{model}\"]"
                            .into(),
                    ),
                ));
            }
            for arg in command.get_ref() {
                if let Some(bad) = unknown_placeholder(arg) {
                    return Err(invalid(
                        format!("unknown placeholder `{{{bad}}}` in {key}"),
                        Some(command.span()),
                        "in this command",
                        Some(format!(
                            "the placeholders are {}",
                            PLACEHOLDERS
                                .iter()
                                .map(|p| format!("{{{p}}}"))
                                .collect::<Vec<_>>()
                                .join(" ")
                        )),
                    ));
                }
            }
        }
        Ok(config)
    }

    /// The name a usage limit is kept under: the agent program's file
    /// name (`claude`, `codex`, `aider`).
    pub fn agent_program_name(&self) -> Option<String> {
        let program = self.agent_command()?.first()?;
        Some(program_name(program))
    }

    /// The agent argv template, required by commands that dispatch.
    pub fn agent_command(&self) -> Option<&[String]> {
        self.agent.command.as_ref().map(|c| c.get_ref().as_slice())
    }

    /// Refuse an agent command whose program cannot be run (empty, or not
    /// found on PATH / relative to `workdir`): otherwise every attempt of
    /// every unit fails the same way. `text` is the config source, for the
    /// label; `name` its file name.
    pub fn check_agent_program(
        &self,
        text: &str,
        name: &str,
        workdir: &Path,
    ) -> Result<(), Box<ConfigError>> {
        let Some(command) = &self.agent.command else {
            return Ok(());
        };
        let program = command.get_ref().first().map(String::as_str).unwrap_or("");
        // A placeholder in the program is resolved per dispatch.
        if program.contains('{') {
            return Ok(());
        }
        let problem = if program.trim().is_empty() {
            "agent.command has no program to run".to_string()
        } else if find_program(program, workdir) {
            return Ok(());
        } else {
            let where_ = if program.contains('/') {
                ""
            } else {
                " on PATH"
            };
            format!("agent.command runs `{program}`, which is not an executable file{where_}")
        };
        let span = command.span();
        let span = (span.end <= text.len()).then_some(span);
        Err(Box::new(ConfigError {
            message: problem,
            src: NamedSource::new(name, text.to_string()),
            span: span.map(Into::into),
            label: "this program".into(),
            help: Some(
                "name an installed program (e.g. \"claude\") or a path to an executable".into(),
            ),
        }))
    }

    /// The argv for a continuation that resumes a conversation, if set.
    pub fn resume_command(&self) -> Option<&[String]> {
        self.agent
            .resume_command
            .as_ref()
            .map(|c| c.get_ref().as_slice())
    }
}

/// Whether `program` resolves to an executable file: a path (relative to
/// `workdir`) when it holds a `/`, else a search of PATH.
fn find_program(program: &str, workdir: &Path) -> bool {
    if program.contains('/') {
        return presets::is_executable(&workdir.join(program));
    }
    std::env::var_os("PATH").is_some_and(|path| presets::find_on_path(program, &path).is_some())
}

/// The bytes of `key = value`'s value on the line that sets `key`.
fn value_span(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(key) {
            if let Some(eq) = rest.find('=') {
                let start = offset + (line.len() - t.len()) + key.len() + eq + 1;
                let value = &text[start..offset + line.trim_end().len()];
                let lead = value.len() - value.trim_start().len();
                return Some(start + lead..offset + line.trim_end().len());
            }
        }
        offset += line.len();
    }
    None
}

/// The first `{name}` in `arg` that is not a known placeholder.
fn unknown_placeholder(arg: &str) -> Option<String> {
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Some(name.to_string());
        }
        rest = &after[close + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_specs() {
        let c = Config::parse("", "c.toml").expect("empty config is valid");
        assert_eq!(c.run.max_retries, 3);
        assert_eq!(c.run.poll_interval, Duration::from_secs(5));
        assert_eq!(c.agent.max_turns, 50);
        assert_eq!(c.models.opus, "opus");
        assert!(c.agent_command().is_none());
        assert_eq!(c.agent.silence_notice, Duration::from_secs(600));
        assert_eq!(c.agent.silence_kill, Some(Duration::from_secs(1800)));
        assert_eq!(c.agent.timeout, Duration::from_secs(7200));
        assert_eq!(c.run.retry_delay, Duration::from_secs(30));
        assert_eq!(c.run.rate_limit_wait, Duration::from_secs(3600));
        assert_eq!(c.run.deferred_check_min, Duration::from_secs(60));
        assert_eq!(c.run.deferred_check_max, Duration::from_secs(900));
    }

    #[test]
    fn deferred_checks_back_off_from_a_minimum_up_to_a_maximum() {
        let c = Config::parse(
            "[run]\ndeferred_check_min = \"30s\"\ndeferred_check_max = \"1h\"\n",
            "c.toml",
        )
        .expect("valid");
        assert_eq!(c.run.deferred_check_min, Duration::from_secs(30));
        assert_eq!(c.run.deferred_check_max, Duration::from_secs(3600));
        let text = "[run]\ndeferred_check_min = \"2h\"\n";
        let Err(LoadError::Invalid(e)) = Config::parse(text, "c.toml") else {
            panic!("a minimum beyond the maximum is refused");
        };
        assert!(e.message.contains("deferred_check_min"), "{}", e.message);
        let span = e.span.expect("labelled");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"2h\"");
    }

    #[test]
    fn offline_grace_is_the_lease_unless_written_and_a_bad_one_is_pointed_at() {
        let c = Config::parse("[run]\nlease = \"90s\"\n", "c.toml").expect("valid");
        assert_eq!(c.run.offline_grace(), Duration::from_secs(90));
        let c = Config::parse("[run]\noffline_grace = \"10m\"\n", "c.toml").expect("valid");
        assert_eq!(c.run.offline_grace(), Duration::from_secs(600));
        for bad in ["\"soon\"", "\"0s\"", "30"] {
            let text = format!("[run]\nlease = \"2m\"\noffline_grace = {bad}\n");
            let Err(LoadError::Invalid(e)) = Config::parse(&text, "c.toml") else {
                panic!("{bad} is refused");
            };
            let span = e.span.expect("labelled");
            assert_eq!(&text[span.offset()..span.offset() + span.len()], bad);
            let shown = format!("{:?}", miette::Report::new(*e));
            assert!(
                shown.contains("offline_grace") && shown.contains("c.toml"),
                "{shown}"
            );
        }
    }

    #[test]
    fn silence_kill_may_be_off_and_nothing_else() {
        let c = Config::parse("[agent]\nsilence_kill = \"off\"\n", "c.toml").expect("off");
        assert_eq!(c.agent.silence_kill, None);
        let text = "[agent]\nsilence_kill = \"never\"\n";
        let Err(LoadError::Invalid(e)) = Config::parse(text, "c.toml") else {
            panic!("expected an invalid config")
        };
        assert!(e.message.contains("\"off\""), "{}", e.message);
        let span = e.span.expect("span");
        assert_eq!(
            &text[span.offset()..span.offset() + span.len()],
            "\"never\""
        );
    }

    #[test]
    fn type_errors_point_at_the_value() {
        let text = "[run]\nmax_retries = \"three\"\n";
        let Err(LoadError::Invalid(e)) = Config::parse(text, "c.toml") else {
            panic!("expected an invalid config")
        };
        let span = e.span.expect("span");
        assert_eq!(
            &text[span.offset()..span.offset() + span.len()],
            "\"three\""
        );
    }

    #[test]
    fn a_budget_is_dollars() {
        let c = Config::parse("[run]\nbudget_usd = 12.5\n", "c.toml").expect("valid");
        assert_eq!(c.run.budget_usd, Some(12.5));
        let c = Config::parse("[run]\nbudget_usd = 3\n", "c.toml").expect("an integer is dollars");
        assert_eq!(c.run.budget_usd, Some(3.0));
        let text = "[run]\nbudget_usd = -1.0\n";
        let Err(LoadError::Invalid(e)) = Config::parse(text, "c.toml") else {
            panic!("a negative budget is refused")
        };
        let span = e.span.expect("span");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "-1.0");
    }

    #[test]
    fn unknown_placeholders_are_refused() {
        let err =
            Config::parse("[agent]\ncommand = [\"x\", \"{modle}\"]\n", "c.toml").expect_err("typo");
        assert!(err.to_string().contains("{modle}"), "{err}");
    }
}
