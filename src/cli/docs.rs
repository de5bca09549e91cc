//! What a git user reaches for without thinking: manual pages (git turns
//! `git supervisor --help` into `man git-supervisor`), shell completions,
//! and `setup`, which installs both where man and the shells look. All of it
//! is generated from the clap definitions, so it never drifts from the CLI.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use clap::Args;
use clap::ValueEnum;
use miette::IntoDiagnostic;
use miette::WrapErr;

use super::Context;
use super::EXIT_OK;

/// Exit codes, as every command's long help and the manual list them.
pub const EXIT_CODES: &str = "Exit status:
  0  success
  1  an error: bad plan, config or arguments, a git or file-system failure
  2  a usage error (unknown option or command)
  3  the run ended without completing, a wait timed out, or
     evaluate/prioritize --check would change the plan";

const ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "when set and not empty, no colour in any output"),
    ("GIT_SUPERVISOR_TIMESTAMP", "a fixed clock (RFC 3339) for the timestamps of transitions and reports; for reproducible output"),
    ("GIT_SUPERVISOR_INTERNAL", "set in git processes the supervisor starts, so its own hooks do not run again"),
    ("SUPERVISOR_WORKDIR, SUPERVISOR_UNIT, SUPERVISOR_UNIT_DIR, SUPERVISOR_SPRINT", "given to every agent: where it works and what it works on"),
];

const FILES: &[(&str, &str)] = &[
    (
        "EXECUTION_PLAN.md",
        "the plan: work units, their sprints, entry and exit criteria",
    ),
    (
        ".workflow/config.toml",
        "the configuration: agent command, retries, build command, models",
    ),
    (
        "refs/supervisor/state",
        "the run: one commit per state transition (git log refs/supervisor/state)",
    ),
    (
        ".git/supervisor/",
        "runtime files: agents' logs and reports, locks, prompts; never committed",
    ),
];

/// Shells completions are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    fn generator(self) -> clap_complete::Shell {
        match self {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        }
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page (git-supervisor.1 and one per command) into this
    /// directory instead of printing git-supervisor(1)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Print the directories setup writes to, one per line, and change
    /// nothing (for packagers)
    #[arg(long)]
    pub print_dir: bool,
}

/// The command tree as the manual and completions show it.
fn command() -> clap::Command {
    use clap::CommandFactory;
    super::Cli::command()
        .name("git-supervisor")
        .bin_name("git-supervisor")
}

/// Every page: `(file name, roff text)`.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let top = command();
    let mut out = vec![("git-supervisor.1".to_string(), page(&top, true))];
    for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git-supervisor-{}", sub.get_name());
        let cmd = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("git supervisor {}", sub.get_name()));
        out.push((format!("{name}.1"), page(&cmd, false)));
    }
    out
}

fn page(cmd: &clap::Command, top: bool) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = clap_mangen::Man::new(cmd.clone()).render(&mut buf);
    let mut extra = String::new();
    extra.push_str(".SH \"EXIT STATUS\"\n");
    for line in EXIT_CODES.lines().skip(1) {
        let line = line.trim();
        if let Some((code, what)) = line.split_once("  ") {
            extra.push_str(&format!(".TP\n{}\n{}\n", code.trim(), roff(what.trim())));
        } else {
            extra.push_str(&format!("{}\n", roff(line)));
        }
    }
    extra.push_str(".SH ENVIRONMENT\n");
    for (name, what) in ENVIRONMENT {
        extra.push_str(&format!(".TP\n.B {}\n{}\n", roff(name), roff(what)));
    }
    extra.push_str(".SH FILES\n");
    for (name, what) in FILES {
        extra.push_str(&format!(".TP\n.I {}\n{}\n", roff(name), roff(what)));
    }
    if !top {
        extra.push_str(".SH \"SEE ALSO\"\n.BR git-supervisor (1)\n");
    }
    buf.extend_from_slice(extra.as_bytes());
    buf
}

/// Text safe in a roff line: backslashes, leading dots and quotes escaped,
/// hyphens as minus signs.
fn roff(s: &str) -> String {
    let s = s.replace('\\', "\\\\").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// Completions for `shell`, for the `git-supervisor` binary.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut cmd = command();
    let mut buf = Vec::new();
    clap_complete::generate(shell.generator(), &mut cmd, "git-supervisor", &mut buf);
    buf
}

pub fn cmd_completions(
    _ctx: &Context,
    args: &CompletionsArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    out.write_all(&completions(args.shell)).into_diagnostic()?;
    Ok(EXIT_OK)
}

pub fn cmd_man(_ctx: &Context, args: &ManArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let pages = pages();
    match &args.dir {
        None => out.write_all(&pages[0].1).into_diagnostic()?,
        Some(dir) => {
            write_all(dir, &pages)?;
            writeln!(out, "{} pages written to {}", pages.len(), dir.display())
                .into_diagnostic()?;
        }
    }
    Ok(EXIT_OK)
}

/// Where setup puts things, from the XDG variables and HOME.
struct Places {
    man1: PathBuf,
    bash: PathBuf,
    zsh: PathBuf,
    fish: PathBuf,
}

fn places() -> miette::Result<Places> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| miette::miette!(help = "set HOME, or install by hand with `git supervisor man --dir DIR` and `git supervisor completions SHELL`", "HOME is not set; setup installs under the user's home"))?;
    let xdg = |var: &str, default: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty() && Path::new(v).is_absolute())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(default))
    };
    let data = xdg("XDG_DATA_HOME", ".local/share");
    let config = xdg("XDG_CONFIG_HOME", ".config");
    Ok(Places {
        man1: data.join("man/man1"),
        bash: data.join("bash-completion/completions"),
        zsh: data.join("zsh/site-functions"),
        fish: config.join("fish/completions"),
    })
}

fn write_all(dir: &Path, files: &[(String, Vec<u8>)]) -> miette::Result<()> {
    std::fs::create_dir_all(dir)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot create {}", dir.display()))?;
    for (name, bytes) in files {
        // Written whole, then renamed: a reader never sees half a page.
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn cmd_setup(_ctx: &Context, args: &SetupArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let p = places()?;
    if args.print_dir {
        for d in [&p.man1, &p.bash, &p.zsh, &p.fish] {
            writeln!(out, "{}", d.display()).into_diagnostic()?;
        }
        return Ok(EXIT_OK);
    }
    let pages = pages();
    write_all(&p.man1, &pages)?;
    writeln!(out, "manual pages ({}): {}", pages.len(), p.man1.display()).into_diagnostic()?;
    let shells = [
        (Shell::Bash, &p.bash, "git-supervisor"),
        (Shell::Zsh, &p.zsh, "_git-supervisor"),
        (Shell::Fish, &p.fish, "git-supervisor.fish"),
    ];
    for (shell, dir, name) in shells {
        write_all(dir, &[(name.to_string(), completions(shell))])?;
        writeln!(out, "{shell:?} completion: {}", dir.join(name).display()).into_diagnostic()?;
    }
    let man_dir = p.man1.parent().unwrap_or(&p.man1);
    writeln!(
        out,
        "`man git-supervisor` and `git supervisor --help` find the pages when ~/.local/bin is on PATH (man maps it to ~/.local/share/man), or with MANPATH={}:",
        man_dir.display()
    )
    .into_diagnostic()?;
    Ok(EXIT_OK)
}
