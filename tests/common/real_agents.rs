//! The real agent CLIs' test harness: Claude Code and Codex from npm,
//! aider from PyPI, each in a project of its own with its preset exactly
//! as `git supervisor init --agent NAME` writes it, and the stub model on
//! 127.0.0.1 (`common::stub_model`) as its provider. A CLI that is not
//! installed is skipped, except when `CI` or
//! `GIT_SUPERVISOR_REQUIRE_AGENTS` is set.

use crate::common::stub_model::Script;
use crate::common::stub_model::StubModel;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cli {
    Claude,
    Codex,
    Aider,
}

pub(crate) const CLIS: [Cli; 3] = [Cli::Claude, Cli::Codex, Cli::Aider];

impl Cli {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Aider => "aider",
        }
    }

    /// Installed, or (outside CI) skipped with a message.
    pub(crate) fn available(self) -> bool {
        let path = std::env::var_os("PATH").unwrap_or_default();
        if git_supervisor::config::presets::find_on_path(self.name(), &path).is_some() {
            return true;
        }
        let required = std::env::var_os("CI").is_some()
            || std::env::var_os("GIT_SUPERVISOR_REQUIRE_AGENTS").is_some();
        assert!(
            !required,
            "{} is not installed but CI/GIT_SUPERVISOR_REQUIRE_AGENTS requires it (run scripts/install-agent-clis.sh)",
            self.name()
        );
        eprintln!(
            "skipping the real {} test: `{}` is not on PATH (scripts/install-agent-clis.sh installs it)",
            self.name(),
            self.name()
        );
        false
    }
}

/// `{unit}`/`{sprint}` are filled in by the stub from the prompt. The
/// commit names its file: agents share one worktree and index, and a bare
/// `git commit` would take in what a parallel agent has staged.
pub(crate) const COMMIT: &str = "mkdir -p {unit} && echo 'sprint {sprint} done' > {unit}/{sprint}.txt && git add {unit}/{sprint}.txt && git commit -q -m '{unit}: sprint {sprint}' --trailer 'Supervisor-Sprint: {unit}/{sprint}' --trailer 'Supervisor-Status: complete' -- {unit}/{sprint}.txt && echo committed";

/// The script that does a sprint's work with each CLI's own means: a shell
/// command for Claude Code and Codex, a file edit that aider commits.
pub(crate) fn work(cli: Cli, before: &str) -> Script {
    let mut s = Script {
        final_text: "The sprint is complete and committed.".into(),
        ..Script::default()
    };
    if cli == Cli::Aider {
        s.edits = vec![("{unit}/{sprint}.txt".into(), "sprint {sprint} done".into())];
    } else if before.is_empty() {
        s.commands = vec![COMMIT.into()];
    } else {
        s.commands = vec![format!("{before} && {COMMIT}")];
    }
    s
}

pub(crate) const PLAN_2X2: &str = "# Stub Project

| Package | Directory | Layer | Sprints |
|---------|-----------|-------|---------|
| alpha   | alpha     | 0     | 2       |
| beta    | beta      | 0     | 2       |

## alpha

### Sprint 1: First alpha file

- Write `alpha/1.txt`

**Exit Criteria**:
- [ ] `alpha/1.txt` exists

### Sprint 2: Second alpha file

- Write `alpha/2.txt`

**Exit Criteria**:
- [ ] `alpha/2.txt` exists

## beta

### Sprint 1: First beta file

- Write `beta/1.txt`

**Exit Criteria**:
- [ ] `beta/1.txt` exists

### Sprint 2: Second beta file

- Write `beta/2.txt`

**Exit Criteria**:
- [ ] `beta/2.txt` exists
";

pub(crate) const PLAN_1X1: &str = "# Stub Project

| Package | Directory | Layer | Sprints |
|---------|-----------|-------|---------|
| alpha   | alpha     | 0     | 1       |

## alpha

### Sprint 1: First alpha file

- Write `alpha/1.txt`

**Exit Criteria**:
- [ ] `alpha/1.txt` exists
";

/// A project with `plan`, its preset written by `init --agent`, the stub as
/// the CLI's provider.
pub(crate) struct Project {
    pub(crate) cli: Cli,
    pub(crate) repo: tempfile::TempDir,
    pub(crate) home: tempfile::TempDir,
    pub(crate) stub: StubModel,
    pub(crate) extra_env: Vec<(String, String)>,
    /// Variables the user of this CLI does not have (a Claude subscription
    /// user has no `ANTHROPIC_API_KEY`).
    pub(crate) removed_env: Vec<&'static str>,
}

impl Project {
    pub(crate) fn new(cli: Cli, plan: &str, stub: StubModel) -> Project {
        // GIT_SUPERVISOR_KEEP_PROJECTS=1 leaves each project behind to look at.
        let keep = std::env::var_os("GIT_SUPERVISOR_KEEP_PROJECTS").is_some();
        let repo = tempfile::Builder::new()
            .disable_cleanup(keep)
            .tempdir()
            .expect("tempdir");
        let home = tempfile::Builder::new()
            .disable_cleanup(keep)
            .tempdir()
            .expect("tempdir");
        let p = Project {
            cli,
            repo,
            home,
            stub,
            extra_env: Vec::new(),
            removed_env: Vec::new(),
        };
        let dir = p.dir();
        p.git(&["init", "-q", "-b", "main"]);
        p.git(&["config", "user.name", "Stub User"]);
        p.git(&["config", "user.email", "user@example.com"]);
        p.git(&["config", "commit.gpgsign", "false"]);
        std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan");
        for unit in ["alpha", "beta"] {
            std::fs::create_dir_all(dir.join(unit)).expect("unit dir");
            std::fs::write(dir.join(unit).join("PROGRESS.md"), format!("# {unit}\n"))
                .expect("progress");
        }
        // As the README advises for aider's cache.
        std::fs::write(dir.join(".gitignore"), ".aider*\n").expect("gitignore");
        let init = p.sv(&["init", "--agent", cli.name()]);
        assert_eq!(init.0, 0, "init: {}", init.2);
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", "Initial layout"]);
        if cli == Cli::Codex {
            // The provider entry: where Codex finds its model, nothing else.
            let codex_home = p.home.path().join(".codex");
            std::fs::create_dir_all(&codex_home).expect("codex home");
            std::fs::write(
                codex_home.join("config.toml"),
                format!(
                    "model_provider = \"stub\"\n\n[model_providers.stub]\nname = \"stub\"\nbase_url = \"{}/v1\"\n\n[analytics]\nenabled = false\n",
                    p.stub.base_url()
                ),
            )
            .expect("codex config");
        }
        p
    }

    pub(crate) fn dir(&self) -> &Path {
        self.repo.path()
    }

    /// The environment a user of this CLI would have, pointed at the stub.
    pub(crate) fn command(&self, program: &str) -> Command {
        let mut cmd = crate::common::command(program, self.dir());
        // Real time: retry delays and durations are measured.
        cmd.env_remove("GIT_SUPERVISOR_TIMESTAMP")
            .env("HOME", self.home.path());
        let url = self.stub.base_url();
        match self.cli {
            Cli::Claude => {
                cmd.env("ANTHROPIC_BASE_URL", &url)
                    .env("ANTHROPIC_API_KEY", "sk-stub")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_TELEMETRY", "1")
                    .env("DISABLE_ERROR_REPORTING", "1")
                    .env("DISABLE_AUTOUPDATER", "1");
            }
            Cli::Codex => {
                cmd.env("CODEX_HOME", self.home.path().join(".codex"));
            }
            Cli::Aider => {
                cmd.env("OPENAI_API_BASE", format!("{url}/v1"))
                    .env("OPENAI_API_KEY", "sk-stub")
                    .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                    .env("AIDER_ANALYTICS_DISABLE", "true")
                    .env("AIDER_CHECK_UPDATE", "false");
            }
        }
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        for k in &self.removed_env {
            cmd.env_remove(k);
        }
        cmd
    }

    pub(crate) fn sv(&self, args: &[&str]) -> (i32, String, String) {
        let out = self
            .command(crate::common::bin())
            .args(args)
            .output()
            .expect("git-supervisor runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        crate::common::git(self.dir(), args)
    }

    pub(crate) fn start(&self) {
        let (code, out, err) = self.sv(&["start", "--yes"]);
        assert_eq!(code, 0, "start: {out}{err}");
    }

    /// `wait` with a bound; the run's outcome and exit status.
    pub(crate) fn wait(&self, timeout: &str) -> i32 {
        self.sv(&["wait", "--timeout", timeout]).0
    }

    pub(crate) fn status(&self) -> serde_json::Value {
        let (_, out, err) = self.sv(&["status", "--format", "json"]);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("status JSON: {e}: {out}{err}"))
    }

    /// Subjects and bodies of the transitions, oldest first, with their
    /// commit time.
    pub(crate) fn transitions(&self) -> Vec<(i64, String)> {
        let out = self.git(&[
            "log",
            "--reverse",
            "--format=%ct%x1f%B%x1e",
            "refs/supervisor/state",
        ]);
        out.split('\x1e')
            .filter(|r| !r.trim().is_empty())
            .map(|r| {
                let (t, msg) = r.trim_start().split_once('\x1f').expect("record");
                (t.parse().expect("time"), msg.to_string())
            })
            .collect()
    }

    /// Everything that tells what happened, for failure messages.
    /// Where the run stands and its last transitions, whole: first in a
    /// failure's message, so a clipped CI log still shows how it ended.
    pub(crate) fn ending(&self) -> String {
        let (_, status, _) = self.sv(&["status"]);
        let transitions = self.transitions();
        let last: Vec<String> = transitions
            .iter()
            .rev()
            .take(6)
            .rev()
            .map(|(t, m)| format!("@{t} {}", m.trim()))
            .collect();
        format!(
            "--- status:\n{}\n--- the last {} transitions, whole:\n{}\n",
            status.trim_end(),
            last.len(),
            last.join("\n--\n")
        )
    }

    pub(crate) fn story(&self) -> String {
        let mut s = format!("--- {} transitions:\n", self.cli.name());
        for (_, msg) in self.transitions() {
            // The subject, and why for anything but a plain step forward.
            let mut lines = msg.lines();
            let subject = lines.next().unwrap_or("");
            s.push_str(subject);
            if ["PARTIAL", "BACKOFF", "FATAL", "BLOCKED"]
                .iter()
                .any(|w| subject.ends_with(w))
            {
                let why: String = lines
                    .skip_while(|l| l.is_empty())
                    .take_while(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                s.push_str(&format!("  ({why})"));
            }
            s.push('\n');
        }
        // What the model was asked and what the agent's tools printed
        // (repeats collapsed), before the logs: the first thing to read.
        let mut saw: Vec<(String, usize)> = Vec::new();
        for r in self.stub.seen() {
            let line = match &r.tool_output {
                Some(o) => format!(
                    "{} {:?} {} (tool printed: {o:?})",
                    r.path, r.model, r.status
                ),
                None => format!("{} {:?} {}", r.path, r.model, r.status),
            };
            match saw.last_mut() {
                Some((last, n)) if *last == line => *n += 1,
                _ => saw.push((line, 1)),
            }
        }
        s.push_str("--- stub saw:\n");
        for (line, n) in saw {
            let times = if n > 1 {
                format!(" x{n}")
            } else {
                String::new()
            };
            s.push_str(&format!("{line}{times}\n"));
        }
        let agents = crate::common::git(self.dir(), &["rev-parse", "--git-common-dir"]);
        let agents = self.dir().join(agents.trim()).join("supervisor/agents");
        let mut logs: Vec<PathBuf> = std::fs::read_dir(&agents)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        logs.sort();
        for log in logs {
            s.push_str(&format!("--- {}:\n", log.display()));
            s.push_str(&git_supervisor::dispatch::tail(&log, 15));
            s.push('\n');
        }
        s
    }

    /// Processes inside the project after a short grace for the engine's
    /// own last tick to finish.
    pub(crate) fn processes_left(&self) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let left = self.processes_inside();
            if left.is_empty() || Instant::now() > until {
                return left;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Processes whose working directory is inside the project: the agents
    /// and everything they started, however detached.
    pub(crate) fn processes_inside(&self) -> Vec<String> {
        self.processes_under(self.dir())
    }

    /// Processes whose working directory is inside `root`.
    pub(crate) fn processes_under(&self, root: &Path) -> Vec<String> {
        let root = root.canonicalize().expect("canonical");
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
                continue;
            };
            if cwd.starts_with(&root) {
                let cmdline = std::fs::read(entry.path().join("cmdline"))
                    .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                    .unwrap_or_default();
                // A zombie is gone already; only its parent has not looked.
                let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
                {
                    continue;
                }
                found.push(format!("{pid} {cmdline}"));
            }
        }
        found
    }

    /// The models the stub was asked for by the agent's own requests.
    pub(crate) fn models_used(&self) -> Vec<String> {
        let mut m: Vec<String> = self
            .stub
            .seen()
            .iter()
            .filter(|r| r.main)
            .filter_map(|r| r.model.clone())
            .collect();
        m.sort();
        m.dedup();
        m
    }

    pub(crate) fn preset_models(&self) -> Vec<String> {
        let text =
            std::fs::read_to_string(self.dir().join(".workflow/config.toml")).expect("config");
        let c = git_supervisor::config::Config::parse(&text, "config").expect("loads");
        vec![c.models.haiku, c.models.sonnet, c.models.opus]
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        // Never leave an agent behind, whatever the test did.
        let _ = self.sv(&["killall"]);
    }
}

pub(crate) fn check(ok: bool, what: &str, p: &Project) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{what}\n{}{}", p.ending(), p.story()))
    }
}

/// The `Supervisor-Attempt` of the transition that completed `unit/sprint`.
pub(crate) fn completed_attempt(p: &Project, unit: &str, sprint: &str) -> Option<String> {
    p.transitions().into_iter().find_map(|(_, msg)| {
        let subject = msg.lines().next().unwrap_or("");
        (subject.starts_with(&format!("{unit}: sprint {sprint} "))
            && subject.ends_with("-> COMPLETED"))
        .then(|| {
            msg.lines()
                .find_map(|l| l.strip_prefix("Supervisor-Attempt: "))
                .map(str::to_string)
        })
        .flatten()
    })
}

/// Any number under a key that names a cost in dollars.
pub(crate) fn find_costs(v: &serde_json::Value, out: &mut Vec<f64>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                if k.contains("cost_usd") || k == "usd" || k == "dollars" {
                    if let Some(x) = v.as_f64() {
                        out.push(x);
                    }
                }
                find_costs(v, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| find_costs(v, out)),
        _ => {}
    }
}
