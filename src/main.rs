//! The `git-supervisor` binary: parse arguments, install the diagnostic
//! handler, run the command, map the outcome to an exit code.

use std::io::IsTerminal;
use std::io::Write;
use std::process::ExitCode;

use git_supervisor::cli;

fn main() -> ExitCode {
    // Before anything else, while this is the only thread.
    if std::env::args_os().nth(1).is_some_and(|c| c == "hook") {
        git_supervisor::hooks::leave_hook_context();
    }
    let args = cli::parse();
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stderr().is_terminal();
    // Deterministic reports off a terminal: no colour, a fixed width, ASCII-safe
    // Unicode drawing only when colour is on.
    let _ = miette::set_hook(Box::new(move |_| {
        let theme = if color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        Box::new(
            miette::GraphicalReportHandler::new_themed(theme)
                .with_width(100)
                .with_context_lines(1),
        )
    }));
    let ctx = match cli::Context::from_env() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("error: cannot read the current directory: {e}");
            return ExitCode::from(cli::EXIT_ERROR);
        }
    };
    // Block-buffered: JSON and long tables are written in many small pieces.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let command = std::env::args().nth(1).unwrap_or_default();
    let result = cli::run(args, &ctx, &mut out);
    let flushed = out.flush();
    record_cpu(&command);
    match result {
        Ok(code) => ExitCode::from(code),
        Err(report) => {
            // A closed pipe (`git supervisor plan | head`) is not a failure.
            if flushed
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
                || report.to_string().contains("Broken pipe")
            {
                return ExitCode::SUCCESS;
            }
            // A program asked for JSON: it gets a JSON error, never nothing.
            if wants_json() {
                let error = serde_json::json!({
                    "ok": false,
                    "error": {
                        "code": report.code().map(|c| c.to_string()).unwrap_or_else(|| "error".into()),
                        "message": report.to_string(),
                        "help": report.help().map(|h| h.to_string()),
                    }
                });
                println!("{error}");
            }
            // The spec's "cannot find" messages are printed exactly as
            // written, without diagnostic decoration.
            let text = report.to_string();
            if text.starts_with("ERROR: Cannot find") {
                eprintln!("{text}");
            } else {
                eprintln!("{report:?}");
            }
            ExitCode::from(cli::EXIT_ERROR)
        }
    }
}

/// Whether the command line asks for `--format json`.
fn wants_json() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().enumerate().any(|(i, a)| {
        a == "--format=json" || (a == "--format" && args.get(i + 1).is_some_and(|v| v == "json"))
    })
}

/// A measuring aid: with `GIT_SUPERVISOR_CPU_LOG=<file>`, every process
/// appends its command and its own CPU time (user and system, microseconds)
/// so that a whole run's engine cost can be summed (`scripts/bench-run.sh`).
fn record_cpu(command: &str) {
    let Some(path) = std::env::var_os("GIT_SUPERVISOR_CPU_LOG") else {
        return;
    };
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a complete rusage into the pointer it is given.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return;
        }
        usage.assume_init()
    };
    // The casts are not no-ops everywhere: time_t and suseconds_t vary.
    #[allow(clippy::unnecessary_cast)]
    let us = |t: libc::timeval| t.tv_sec as i64 * 1_000_000 + t.tv_usec as i64;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{command} {} {}", us(usage.ru_utime), us(usage.ru_stime));
    }
}
