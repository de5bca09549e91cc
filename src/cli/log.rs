//! `git supervisor log`: the transition history, newest first, one line
//! each; filtered like `git log` (`--unit`, `--sprint`, `--since`, `-n`),
//! `--oneline` for commit and subject, and paged on a terminal as git pages.

use std::io::Write;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;
use super::EXIT_OK;
use crate::store::Store;

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only transitions of this work unit
    #[arg(long)]
    pub unit: Option<String>,
    /// Only transitions of this sprint (e.g. `2`, or `parser/2`)
    #[arg(long)]
    pub sprint: Option<String>,
    /// Only transitions at or after this time: RFC 3339, a date
    /// (2026-11-24), or an age ("2h", "3 days", "90min ago")
    #[arg(long, value_name = "WHEN", value_parser = since_arg)]
    pub since: Option<time::OffsetDateTime>,
    /// One line per transition: the state commit's short id and its subject
    #[arg(long)]
    pub oneline: bool,
    /// Never start a pager
    #[arg(long)]
    pub no_pager: bool,
    /// At most this many entries
    #[arg(short = 'n', long)]
    pub max_count: Option<usize>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `--since`: an absolute time, a date, or an age before now.
fn since_arg(text: &str) -> Result<time::OffsetDateTime, String> {
    since_bound(text, time::OffsetDateTime::now_utc())
}

/// The earliest time `text` admits, with `now` for ages.
pub fn since_bound(text: &str, now: time::OffsetDateTime) -> Result<time::OffsetDateTime, String> {
    let t = text.trim();
    if let Some(at) = crate::store::clock::parse(t) {
        return Ok(at);
    }
    let date_format = time::macros::format_description!("[year]-[month]-[day]");
    if let Ok(d) = time::Date::parse(t, &date_format) {
        return Ok(d.midnight().assume_utc());
    }
    let age = t.strip_suffix("ago").unwrap_or(t).trim();
    let d = humantime::parse_duration(age).map_err(|_| {
        format!("`{text}` is not a time: write 2026-11-24, 2026-11-24T10:00:00Z or an age like \"2h\" or \"3 days ago\"")
    })?;
    let d = time::Duration::try_from(d).map_err(|e| e.to_string())?;
    now.checked_sub(d)
        .ok_or_else(|| format!("`{text}` reaches before any representable time"))
}

pub fn cmd_log(ctx: &Context, args: &LogArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    let mut records = store.history(None)?;
    if let Some(u) = &args.unit {
        records.retain(|r| r.unit.as_deref() == Some(u.as_str()));
    }
    if let Some(s) = &args.sprint {
        // `unit/sprint` names both.
        let (unit, sprint) = match s.rsplit_once('/') {
            Some((u, sp)) => (Some(u), sp),
            None => (None, s.as_str()),
        };
        records.retain(|r| {
            r.sprint.as_deref() == Some(sprint) && unit.is_none_or(|u| r.unit.as_deref() == Some(u))
        });
    }
    if let Some(since) = args.since {
        records.retain(|r| crate::store::clock::parse(&r.time).is_none_or(|t| t >= since));
    }
    if let Some(n) = args.max_count {
        records.truncate(n);
    }
    if args.format == Format::Text && !args.no_pager {
        if let Some(pager) = pager(ctx) {
            let mut text = Vec::new();
            render(&records, args, &mut text)?;
            return page(&pager, &text, out);
        }
    }
    render(&records, args, out)
}

/// The pager git would use here, when stdout is a terminal: `GIT_PAGER`,
/// `core.pager`, `PAGER`, then `less`; none when it is set empty or `cat`.
fn pager(ctx: &Context) -> Option<String> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let configured = std::env::var("GIT_PAGER").ok().or_else(|| {
        std::process::Command::new("git")
            .args(["config", "core.pager"])
            .current_dir(&ctx.cwd)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    });
    let pager = configured
        .or_else(|| std::env::var("PAGER").ok())
        .unwrap_or_else(|| "less".into());
    let pager = pager.trim().to_string();
    (!pager.is_empty() && pager != "cat").then_some(pager)
}

/// Show `text` through `pager` (run by the shell, as git does), with git's
/// defaults for less (`LESS=FRX`: quit when it fits, keep colour).
fn page(pager: &str, text: &[u8], out: &mut dyn Write) -> miette::Result<u8> {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(pager).stdin(std::process::Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        cmd.env("LV", "-c");
    }
    let Ok(mut child) = cmd.spawn() else {
        // No pager after all: print as if there were none.
        out.write_all(text).map_err(super::io_err)?;
        return Ok(EXIT_OK);
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A pager quit early closes its input: not an error.
        let _ = stdin.write_all(text);
    }
    let _ = child.wait();
    Ok(EXIT_OK)
}

fn render(
    records: &[crate::store::message::Record],
    args: &LogArgs,
    out: &mut dyn Write,
) -> miette::Result<u8> {
    if args.oneline && args.format == Format::Text {
        for r in records {
            let short = r.commit.get(..7).unwrap_or(&r.commit);
            writeln!(out, "{short} {}", crate::base::escape::visible(&r.subject))
                .map_err(super::io_err)?;
        }
        return Ok(EXIT_OK);
    }
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, records).into_diagnostic()?;
            writeln!(out).map_err(super::io_err)?;
        }
        Format::Text => {
            if records.is_empty() {
                writeln!(
                    out,
                    "No transitions recorded (no run, or none for this unit)."
                )
                .map_err(super::io_err)?;
            }
            let rows: Vec<[String; 4]> = records
                .iter()
                .map(|r| {
                    let change = match (&r.from, &r.to) {
                        (Some(f), Some(t)) => format!("{f} → {t}"),
                        _ => r.event.clone().unwrap_or_default(),
                    };
                    [
                        r.time.clone(),
                        r.unit.as_deref().map_or_else(
                            || "run".into(),
                            |u| crate::base::escape::visible(u).into_owned(),
                        ),
                        r.sprint
                            .as_deref()
                            .map(|s| format!("sprint {s}"))
                            .unwrap_or_default(),
                        change,
                    ]
                })
                .collect();
            let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
            let (w1, w2, w3) = (width(1), width(2), width(3));
            for (row, r) in rows.iter().zip(records) {
                let [time, unit, sprint, change] = row;
                writeln!(
                    out,
                    "{time}  {unit:<w1$}  {sprint:<w2$}  {change:<w3$}  {}",
                    crate::base::escape::visible(&r.why)
                )
                .map_err(super::io_err)?;
            }
        }
    }
    Ok(EXIT_OK)
}
