//! The live view's screen, as lines: one row per unit (a progress bar of
//! its sprints, the current sprint and its state, how long its agent has
//! run, the attempt, the cost so far, and the last line its agent printed),
//! then a footer saying what the run waits for. Pure: the caller gives the
//! time, the agents' last lines and the terminal's width.

use std::collections::BTreeMap;

use crate::base::escape::visible;
use crate::machine::State;
use crate::machine::UnitStatus;

const BAR: usize = 10;

/// The screen for `s` at `now`, each line at most `width` characters.
pub fn screen(
    s: &State,
    last_lines: &BTreeMap<String, String>,
    now: time::OffsetDateTime,
    width: usize,
) -> Vec<String> {
    let mut out = vec![format!(
        "git supervisor: {} (run {}) — {}",
        visible(&s.operation),
        s.run_id,
        s.overall().as_str()
    )];
    let name_w = s
        .units
        .iter()
        .map(|u| visible(&u.name).chars().count())
        .max()
        .unwrap_or(4)
        .min(24);
    for u in &s.units {
        let total = u.sprints.len().max(1);
        let done = u.completed_sprints();
        let filled = done * BAR / total;
        let bar = format!("[{}{}]", "#".repeat(filled), "-".repeat(BAR - filled));
        let name: String = visible(&u.name).chars().take(name_w).collect();
        let (sprint, elapsed, attempt) = match u.current() {
            Some(sp) if u.state != UnitStatus::NotStarted || done > 0 => {
                let elapsed = sp
                    .agent
                    .as_ref()
                    .filter(|_| sp.state.is_active())
                    .and_then(|a| crate::store::clock::parse(&a.dispatched_at))
                    .map(|t| short_duration(now - t))
                    .unwrap_or_else(|| "-".into());
                (
                    format!("S{} {}", sp.id, sp.state.as_str()),
                    elapsed,
                    format!("{}/{}", sp.attempt.max(1), s.max_retries),
                )
            }
            _ if done == u.sprints.len() && done > 0 => ("all done".into(), "-".into(), "-".into()),
            _ => ("-".into(), "-".into(), "-".into()),
        };
        let mut row = format!(
            "{name:<name_w$} {bar} {done}/{total} {:<11} {sprint:<16} {elapsed:>6} try {attempt:<5} {}",
            u.state.as_str(),
            u.cost()
        );
        if let Some(line) = last_lines.get(&u.name) {
            row.push_str(" │ ");
            row.push_str(&visible(line));
        }
        out.push(row);
    }
    out.push(String::new());
    out.push(format!("Next: {}", super::status::next_event(Some(s))));
    out.extend(
        super::status::waits(s)
            .iter()
            .map(|w| visible(w).into_owned()),
    );
    out.into_iter().map(|l| cut(&l, width)).collect()
}

/// `1h02m`, `3m05s`, `42s`.
fn short_duration(d: time::Duration) -> String {
    let secs = d.whole_seconds().max(0);
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

fn cut(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let mut s: String = line.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// The last non-empty line of an agent's output log's tail.
pub fn last_line(tail: &str) -> Option<String> {
    tail.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("git-supervisor:"))
        .map(|l| l.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_short() {
        assert_eq!(short_duration(time::Duration::seconds(42)), "42s");
        assert_eq!(short_duration(time::Duration::seconds(185)), "3m05s");
        assert_eq!(short_duration(time::Duration::seconds(3720)), "1h02m");
    }

    #[test]
    fn long_lines_are_cut_to_the_width() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }

    #[test]
    fn the_last_line_skips_blank_and_own_lines() {
        assert_eq!(
            last_line("one\ntwo\n\ngit-supervisor: note\n").as_deref(),
            Some("two")
        );
    }
}
