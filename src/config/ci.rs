//! The CI workflow that turns a team's runners into workers (`git
//! supervisor ci github|gitlab`): N jobs at once (a GitHub Actions matrix,
//! GitLab's `parallel:`), each a fresh clone with a token allowed to push
//! `refs/supervisor/*` and the `supervisor/*` branches, the agent CLI the
//! config names installed, and `git supervisor worker --once`. Secrets are
//! named, never written. Pure: the text from the agent program and the
//! options.

/// Which CI service the workflow is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    Github,
    Gitlab,
}

/// What a workflow is made of.
#[derive(Debug, Clone)]
pub struct CiOptions {
    pub service: Service,
    /// Jobs at once.
    pub workers: u16,
    /// The remote the run lives on (as the CI clone names it: `origin`).
    pub remote: String,
    /// The agent command's program (`claude`, `codex`, `.workflow/agent.sh`).
    pub agent: Option<String>,
    /// The shell command that installs `git-supervisor` on the runner.
    pub install: String,
}

/// An agent CLI a runner installs, and the secret it reads its key from.
struct AgentCli {
    /// The shell command that installs it.
    install: &'static str,
    /// Debian packages it needs first (on GitLab's plain image).
    debian: &'static str,
    /// The variable holding its API key (a secret, by name).
    secret: &'static str,
}

/// The known agent CLIs, by program name.
fn agent_cli(program: &str) -> Option<AgentCli> {
    Some(match program {
        "claude" => AgentCli {
            install: "npm install -g @anthropic-ai/claude-code",
            debian: "nodejs npm",
            secret: "ANTHROPIC_API_KEY",
        },
        "codex" => AgentCli {
            install: "npm install -g @openai/codex",
            debian: "nodejs npm",
            secret: "OPENAI_API_KEY",
        },
        "gemini" => AgentCli {
            install: "npm install -g @google/gemini-cli",
            debian: "nodejs npm",
            secret: "GEMINI_API_KEY",
        },
        "aider" => AgentCli {
            install: "python3 -m pip install --user aider-chat && echo \"$HOME/.local/bin\" >> \"$GITHUB_PATH\"",
            debian: "python3-pip",
            secret: "OPENAI_API_KEY",
        },
        _ => return None,
    })
}

/// The variable holding a token that may push the run's refs.
pub const PUSH_TOKEN: &str = "SUPERVISOR_PUSH_TOKEN";

/// The file the workflow goes to, relative to the repository's root.
pub fn path(service: Service) -> &'static str {
    match service {
        Service::Github => ".github/workflows/supervisor-workers.yml",
        Service::Gitlab => ".gitlab-ci.yml",
    }
}

/// The secrets the workflow reads, by name: the push token, then the
/// agent's key when the config names a known CLI.
pub fn secrets(options: &CiOptions) -> Vec<&'static str> {
    let mut names = vec![PUSH_TOKEN];
    if let Some(cli) = options.agent.as_deref().and_then(agent_cli) {
        names.push(cli.secret);
    }
    names
}

/// The agent program as the runner finds it: a path in the repository
/// (a script of the project's own, nothing to install), or a CLI on PATH.
fn in_repository(program: &str) -> bool {
    program.contains('/')
}

/// The workflow's text.
pub fn render(options: &CiOptions) -> String {
    match options.service {
        Service::Github => github(options),
        Service::Gitlab => gitlab(options),
    }
}

/// The worker's command, the same on every service.
fn worker_command(options: &CiOptions) -> String {
    format!(
        "git supervisor worker --once --remote {} --format json",
        options.remote
    )
}

/// The install step of the agent CLI, for GitHub: `(name, run)`.
fn github_agent_step(options: &CiOptions) -> Option<(String, String)> {
    let program = options.agent.as_deref()?;
    if in_repository(program) {
        return None;
    }
    Some(match agent_cli(program) {
        Some(cli) => (format!("Install the agent CLI ({program})"), cli.install.into()),
        None => (
            format!("Check the agent CLI ({program})"),
            format!(
                "command -v {program} || {{ echo \"install {program} in this step, the config's agent command runs it\" >&2; exit 1; }}"
            ),
        ),
    })
}

fn github(options: &CiOptions) -> String {
    let n = options.workers.max(1);
    let matrix: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let mut out = format!(
        "# Workers for git-supervisor runs on this repository's remote, written by
# `git supervisor ci github --workers {n}`. Publish a run from any clone
# (`git supervisor start --remote origin`), then start this workflow (the
# Actions tab, or `gh workflow run supervisor-workers.yml`): {n} jobs claim
# its sprints, each leaving when nothing is left to claim.
#
# Secrets, by name: {secrets}.
# {PUSH_TOKEN} is optional: without it the job's own token pushes, which
# `permissions: contents: write` allows for refs/supervisor/* and the
# supervisor/* branches unless a ruleset protects them; give a fine-grained
# token with Contents read and write when one does.
name: supervisor workers

on:
  workflow_dispatch:

permissions:
  contents: write

jobs:
  worker:
    name: worker ${{{{ matrix.worker }}}}
    runs-on: ubuntu-latest
    timeout-minutes: 360
    strategy:
      fail-fast: false
      matrix:
        worker: [{matrix}]
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          token: ${{{{ secrets.{PUSH_TOKEN} || github.token }}}}
      - name: Install git-supervisor
        run: |
          {install}
",
        secrets = secrets(options).join(", "),
        matrix = matrix.join(", "),
        install = options.install,
    );
    if let Some((name, run)) = github_agent_step(options) {
        // A block scalar: a command is never read as YAML.
        out.push_str(&format!(
            "      - name: {name}\n        run: |\n          {run}\n"
        ));
    }
    out.push_str("      - name: Work on the run\n");
    if let Some(cli) = options.agent.as_deref().and_then(agent_cli) {
        out.push_str(&format!(
            "        env:\n          {s}: ${{{{ secrets.{s} }}}}\n",
            s = cli.secret
        ));
    }
    out.push_str(&format!(
        "        run: |
          git config user.name \"supervisor worker ${{{{ matrix.worker }}}}\"
          git config user.email \"supervisor-worker@users.noreply.github.com\"
          {}
",
        worker_command(options)
    ));
    out
}

fn gitlab(options: &CiOptions) -> String {
    let n = options.workers.max(1);
    let cli = options
        .agent
        .as_deref()
        .filter(|p| !in_repository(p))
        .map(|p| (p, agent_cli(p)));
    let mut setup = Vec::new();
    match &cli {
        Some((_, Some(cli))) => {
            setup.push(format!(
                "apt-get update -qq && apt-get install -y -qq {} >/dev/null",
                cli.debian
            ));
            setup.push(cli.install.replace(
                " && echo \"$HOME/.local/bin\" >> \"$GITHUB_PATH\"",
                " --break-system-packages && export PATH=\"$HOME/.local/bin:$PATH\"",
            ));
        }
        Some((program, None)) => setup.push(format!(
            "command -v {program} || {{ echo \"install {program} here, the config's agent command runs it\" >&2; exit 1; }}"
        )),
        None => {}
    }
    let mut out = format!(
        "# Workers for git-supervisor runs on this repository's remote, written by
# `git supervisor ci gitlab --workers {n}`. Publish a run from any clone
# (`git supervisor start --remote origin`), then run a pipeline (Build >
# Pipelines > Run pipeline): {n} jobs claim its sprints, each leaving when
# nothing is left to claim.
#
# CI/CD variables (masked), by name: {secrets}.
# {PUSH_TOKEN}: a project access token with write_repository (the job
# token cannot push); it must be allowed to push refs/supervisor/* and the
# supervisor/* branches.
supervisor-worker:
  image: rust:1-bookworm
  parallel: {n}
  timeout: 6h
  rules:
    - if: $CI_PIPELINE_SOURCE == \"web\" || $CI_PIPELINE_SOURCE == \"api\" || $CI_PIPELINE_SOURCE == \"trigger\"
  variables:
    GIT_DEPTH: \"0\"
    GIT_STRATEGY: clone
  before_script:
    - {install}
",
        secrets = secrets(options).join(", "),
        install = scalar(&options.install),
    );
    for line in setup {
        out.push_str(&format!("    - {}\n", scalar(&line)));
    }
    out.push_str(&format!(
        "  script:
    - git remote set-url {remote} \"https://oauth2:${{{PUSH_TOKEN}}}@${{CI_SERVER_HOST}}/${{CI_PROJECT_PATH}}.git\"
    - git config user.name \"supervisor worker ${{CI_NODE_INDEX}}\"
    - git config user.email \"supervisor-worker@example.invalid\"
    - {command}
",
        remote = options.remote,
        command = scalar(&worker_command(options)),
    ));
    out
}

/// A command as a YAML list item: plain when YAML reads it back as the
/// same string, else single-quoted.
fn scalar(command: &str) -> String {
    let plain = !command.contains(": ")
        && !command.contains(" #")
        && !command.ends_with(':')
        && !command.starts_with(|c: char| "{}[]\"'&*!|>%@`#,?:-".contains(c) || c.is_whitespace());
    if plain {
        command.to_string()
    } else {
        format!("'{}'", command.replace('\'', "''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(service: Service, agent: &str) -> CiOptions {
        CiOptions {
            service,
            workers: 3,
            remote: "origin".into(),
            agent: Some(agent.into()),
            install: "cargo install --locked git-supervisor".into(),
        }
    }

    #[test]
    fn secrets_are_named_never_written() {
        for service in [Service::Github, Service::Gitlab] {
            let text = render(&options(service, "claude"));
            assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
            assert!(text.contains(PUSH_TOKEN), "{text}");
            assert!(
                text.contains("npm install -g @anthropic-ai/claude-code"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_script_of_the_project_needs_no_install() {
        let text = render(&options(Service::Github, ".workflow/agent.sh"));
        assert!(!text.contains("Install the agent CLI"), "{text}");
        assert!(!text.contains("API_KEY"), "{text}");
    }

    #[test]
    fn a_command_yaml_would_misread_is_quoted() {
        assert_eq!(scalar("cargo install x"), "cargo install x");
        assert_eq!(scalar("echo a: b"), "'echo a: b'");
        assert_eq!(scalar("'it''s'"), "'''it''''s'''");
    }

    #[test]
    fn an_unknown_cli_is_checked_with_a_hint() {
        let text = render(&options(Service::Gitlab, "my-agent"));
        assert!(text.contains("command -v my-agent"), "{text}");
    }
}
