//! `git supervisor ci github|gitlab [--workers N]`: write the CI workflow
//! that turns a team's runners into workers (see `config::ci`), naming the
//! secrets it reads.

use std::io::Write;

use clap::Args;
use clap::ValueEnum;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use crate::config::ci;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CiService {
    /// GitHub Actions: .github/workflows/supervisor-workers.yml, a matrix
    Github,
    /// GitLab CI/CD: .gitlab-ci.yml, `parallel:`
    Gitlab,
}

#[derive(Debug, Args)]
pub struct CiArgs {
    /// The CI service
    #[arg(value_enum)]
    pub service: CiService,
    /// Jobs at once, each a worker with one agent
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
    /// The git remote the run lives on, as the CI's clone names it
    #[arg(long, default_value = "origin", value_name = "REMOTE")]
    pub remote: String,
    /// The shell command that installs git-supervisor on a runner
    #[arg(long, default_value = "cargo install --locked git-supervisor")]
    pub install: String,
    /// Replace the workflow file when it exists
    #[arg(long)]
    pub force: bool,
    /// Print the workflow instead of writing it
    #[arg(long)]
    pub print: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(serde::Serialize)]
struct Written<'a> {
    path: &'a str,
    workers: u16,
    /// The secrets (CI/CD variables) the workflow reads, by name.
    secrets: Vec<&'static str>,
    agent: Option<String>,
}

pub fn cmd_ci(ctx: &Context, args: &CiArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = crate::store::Store::open(&ctx.cwd)?;
    let root = store.workdir().unwrap_or(&ctx.cwd).to_path_buf();
    let config = crate::config::Config::load(&root)?;
    let service = match args.service {
        CiService::Github => ci::Service::Github,
        CiService::Gitlab => ci::Service::Gitlab,
    };
    let options = ci::CiOptions {
        service,
        workers: args.workers,
        remote: args.remote.clone(),
        agent: config.agent_command().and_then(|c| c.first().cloned()),
        install: args.install.clone(),
    };
    let text = ci::render(&options);
    if args.print {
        out.write_all(text.as_bytes()).into_diagnostic()?;
        return Ok(super::EXIT_OK);
    }
    let rel = ci::path(service);
    let path = root.join(rel);
    if path.exists() && !args.force {
        return Err(miette::miette!(
            code = "ci::exists",
            help = "look at it first (`--print` shows what would be written), then replace it with --force",
            "{rel} exists already"
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).into_diagnostic()?;
    }
    std::fs::write(&path, &text).into_diagnostic()?;
    let written = Written {
        path: rel,
        workers: args.workers,
        secrets: ci::secrets(&options),
        agent: options.agent.clone(),
    };
    match args.format {
        Format::Json => {
            serde_json::to_writer(&mut *out, &written).into_diagnostic()?;
            writeln!(out).into_diagnostic()?;
        }
        Format::Text => {
            writeln!(
                out,
                "Wrote {rel}: {} worker job(s), each `git supervisor worker --once`.",
                args.workers
            )
            .into_diagnostic()?;
            writeln!(
                out,
                "Set these secrets (by name) before running it: {}.",
                written.secrets.join(", ")
            )
            .into_diagnostic()?;
            if options.agent.is_none() {
                writeln!(
                    out,
                    "The config names no agent command: the jobs install no agent CLI."
                )
                .into_diagnostic()?;
            }
            writeln!(
                out,
                "Commit it, publish a run (`git supervisor start --remote {}`), then start the workflow.",
                args.remote
            )
            .into_diagnostic()?;
        }
    }
    Ok(super::EXIT_OK)
}
