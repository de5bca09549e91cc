//! `git supervisor log`: the transition history, newest first, one line each.

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
    /// At most this many entries
    #[arg(short = 'n', long)]
    pub max_count: Option<usize>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn cmd_log(ctx: &Context, args: &LogArgs, out: &mut dyn Write) -> miette::Result<u8> {
    let store = Store::open(&ctx.cwd)?;
    let mut records = store.history(None)?;
    if let Some(u) = &args.unit {
        records.retain(|r| r.unit.as_deref() == Some(u.as_str()));
    }
    if let Some(n) = args.max_count {
        records.truncate(n);
    }
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &records).into_diagnostic()?;
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
                            |u| crate::report::escape::visible(u).into_owned(),
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
            for (row, r) in rows.iter().zip(&records) {
                let [time, unit, sprint, change] = row;
                writeln!(
                    out,
                    "{time}  {unit:<w1$}  {sprint:<w2$}  {change:<w3$}  {}",
                    crate::report::escape::visible(&r.why)
                )
                .map_err(super::io_err)?;
            }
        }
    }
    Ok(EXIT_OK)
}
