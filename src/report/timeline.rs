//! The run as a picture: one row per work unit, one bar per sprint attempt
//! coloured by outcome, phase gates as vertical marks. A self-contained SVG
//! (no scripts, no fonts, no network), optionally wrapped in an HTML page.

use std::fmt::Write;

use super::complete::Outcome;
use super::complete::Report;

const LEFT: f64 = 170.0;
const WIDTH: f64 = 1000.0;
const ROW: f64 = 44.0;
const TOP: f64 = 56.0;

fn colour(o: Outcome) -> &'static str {
    match o {
        Outcome::Completed => "#2e9d57",
        Outcome::Observed | Outcome::Confirmed => "#7ac79a",
        Outcome::Partial => "#e0a526",
        Outcome::Failed => "#d9534f",
        Outcome::Fatal => "#8b1e1e",
        Outcome::Interrupted => "#8a8f98",
        Outcome::Running => "#3d7fd9",
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The timeline as an SVG document.
pub fn svg(r: &Report) -> String {
    let units: Vec<&str> = {
        let mut v: Vec<&str> = Vec::new();
        for a in &r.attempts {
            if !v.contains(&a.unit.as_str()) {
                v.push(&a.unit);
            }
        }
        for o in &r.outstanding {
            if !v.contains(&o.unit.as_str()) {
                v.push(&o.unit);
            }
        }
        for s in &r.sprints {
            if !v.contains(&s.unit.as_str()) {
                v.push(&s.unit);
            }
        }
        v
    };
    // Wall-clock time is the axis, unless the run took under a minute: then
    // transition numbers are, so that every bar can be seen.
    let clock = |s: &str| {
        super::complete::parse_time(s)
            .map(|t| t.unix_timestamp())
            .unwrap_or(0)
    };
    let wall: Vec<i64> = r
        .attempts
        .iter()
        .flat_map(|a| [Some(clock(&a.started)), a.ended.as_deref().map(clock)])
        .flatten()
        .chain(r.gates.iter().map(|g| clock(&g.at)))
        .collect();
    let by_seq = wall.iter().max().unwrap_or(&0) - wall.iter().min().unwrap_or(&0) < 60;
    let begin = |a: &super::complete::Attempt| {
        if by_seq {
            a.start_seq as i64
        } else {
            clock(&a.started)
        }
    };
    let finish = |a: &super::complete::Attempt| {
        if by_seq {
            a.end_seq.map(|s| s as i64)
        } else {
            a.ended.as_deref().map(clock)
        }
    };
    let gate_at = |g: &super::complete::GateMark| if by_seq { g.seq as i64 } else { clock(&g.at) };
    let times: Vec<i64> = r
        .attempts
        .iter()
        .flat_map(|a| [Some(begin(a)), finish(a)])
        .flatten()
        .chain(r.gates.iter().map(gate_at))
        .collect();
    let start = times.iter().copied().min().unwrap_or(0);
    let end = times.iter().copied().max().unwrap_or(0).max(start + 1);
    let span = (end - start) as f64;
    let x = |v: i64| LEFT + (v - start) as f64 / span * WIDTH;
    let height = TOP + ROW * units.len().max(1) as f64 + 70.0;
    let total_w = LEFT + WIDTH + 40.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{height}" viewBox="0 0 {total_w} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{total_w}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="10" y="24" font-size="16" font-weight="bold" fill="#222">{} — {}</text>"##,
        esc(&r.project),
        esc(&r.operation)
    );
    let _ = writeln!(
        out,
        r##"<text x="10" y="42" fill="#555">run {} · {} · {}/{} sprints completed</text>"##,
        esc(&r.run_id),
        r.overall.as_str(),
        r.summary.completed,
        r.summary.planned
    );
    for (i, u) in units.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let fill = if i % 2 == 0 { "#f4f6f8" } else { "#ffffff" };
        let _ = writeln!(
            out,
            r##"<rect x="0" y="{y}" width="{total_w}" height="{ROW}" fill="{fill}"/>"##
        );
        // Units with sprints left say where they stopped.
        let state = r
            .outstanding
            .iter()
            .find(|o| o.unit == *u)
            .map(|o| o.unit_state.as_str())
            .unwrap_or("COMPLETED");
        let _ = writeln!(
            out,
            r##"<text x="10" y="{}" fill="#222">{}</text><text x="10" y="{}" fill="#777" font-size="10">{state}</text>"##,
            y + ROW / 2.0 - 1.0,
            esc(u),
            y + ROW / 2.0 + 12.0
        );
        for a in r.attempts.iter().filter(|a| a.unit == *u) {
            let x0 = x(begin(a));
            let x1 = x(finish(a).unwrap_or(end)).max(x0 + 4.0);
            let _ = writeln!(
                out,
                r##"<rect class="attempt {}" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="3" fill="{}" stroke="#333" stroke-width="0.5"><title>{}/{} {} · attempt {} · {} · {}</title></rect>"##,
                a.outcome.as_str(),
                y + 8.0,
                x1 - x0,
                ROW - 16.0,
                colour(a.outcome),
                esc(&a.unit),
                esc(&a.sprint),
                esc(&a.name),
                a.attempt,
                a.model.as_deref().unwrap_or("no model"),
                a.outcome.label()
            );
            let label = if a.attempt > 1 {
                format!("{} · try {}", a.sprint, a.attempt)
            } else {
                a.sprint.clone()
            };
            if x1 - x0 > 7.0 * label.chars().count() as f64 {
                let _ = writeln!(
                    out,
                    r##"<text x="{:.1}" y="{:.1}" fill="#fff" font-size="11">{}</text>"##,
                    x0 + 4.0,
                    y + ROW / 2.0 + 4.0,
                    esc(&label)
                );
            }
        }
    }
    let bottom = TOP + ROW * units.len().max(1) as f64;
    for g in &r.gates {
        let gx = x(gate_at(g));
        let c = if g.passed { "#2e9d57" } else { "#d9534f" };
        let _ = writeln!(
            out,
            r##"<line class="gate" x1="{gx:.1}" y1="{TOP}" x2="{gx:.1}" y2="{bottom}" stroke="{c}" stroke-width="2" stroke-dasharray="5,3"><title>phase {} gate {}</title></line>"##,
            g.phase,
            if g.passed { "passed" } else { "failed" }
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" fill="{c}" font-size="11" text-anchor="{}">gate {} {}</text>"##,
            if gx > LEFT + WIDTH * 0.9 {
                gx - 3.0
            } else {
                gx + 3.0
            },
            TOP - 4.0,
            if gx > LEFT + WIDTH * 0.9 {
                "end"
            } else {
                "start"
            },
            g.phase,
            if g.passed { "✓" } else { "✗" }
        );
    }
    // Axis and legend.
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{bottom}" x2="{}" y2="{bottom}" stroke="#333"/>"##,
        LEFT + WIDTH
    );
    for k in 0..=4 {
        let v = start + (span * f64::from(k) / 4.0) as i64;
        let label = if by_seq {
            format!("#{v}")
        } else {
            offset_label(v - start, end - start)
        };
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" fill="#555" text-anchor="middle">{label}</text>"##,
            x(v),
            bottom + 16.0
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" fill="#555" text-anchor="end">{}</text>"##,
        LEFT + WIDTH,
        bottom + 30.0,
        if by_seq {
            "transition number"
        } else {
            "elapsed time"
        }
    );
    let mut lx = 10.0;
    for o in [
        Outcome::Completed,
        Outcome::Observed,
        Outcome::Partial,
        Outcome::Failed,
        Outcome::Fatal,
        Outcome::Interrupted,
        Outcome::Running,
    ] {
        let label = match o {
            Outcome::Failed => "BACKOFF (failed)".to_string(),
            _ => o.label(),
        };
        let _ = writeln!(
            out,
            r##"<rect x="{lx}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{}" y="{:.1}" fill="#333">{}</text>"##,
            bottom + 40.0,
            colour(o),
            lx + 16.0,
            bottom + 50.0,
            label
        );
        lx += 16.0 + 6.5 * label.chars().count() as f64 + 22.0;
    }
    let _ = writeln!(out, "</svg>");
    out
}

/// A standalone HTML page holding the SVG.
/// An axis mark `offset` seconds into a run of `span` seconds: minutes
/// (and hours) once the run lasts ten minutes, else seconds too, so a
/// short run's marks never repeat (`+0s +15s +30s +45s +1m`).
fn offset_label(offset: i64, span: i64) -> String {
    let m = offset / 60;
    if span >= 600 {
        if m >= 60 {
            format!("+{}h{:02}m", m / 60, m % 60)
        } else {
            format!("+{m}m")
        }
    } else if m == 0 {
        format!("+{offset}s")
    } else if offset % 60 == 0 {
        format!("+{m}m")
    } else {
        format!("+{m}m{:02}s", offset % 60)
    }
}

pub fn html(r: &Report) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{} — timeline</title>\n<style>body{{margin:16px;background:#fff;color:#222;font-family:sans-serif}}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
        esc(&r.project),
        svg(r)
    )
}
