//! What waits for a person, first in `status` (text, JSON, the web page):
//! blocked units with their last failure, manual sprints to confirm,
//! usage-limit pauses and a spent budget, each with the command that acts
//! on it. Read-only, from the published state and the time given.

use serde::Serialize;

use crate::machine::LimitPause;
use crate::machine::SprintStatus;
use crate::machine::State;
use crate::machine::UnitStatus;

/// One thing that waits for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Need {
    /// `blocked`, `confirm`, `usage_limit`, `budget`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprint: Option<String>,
    pub message: String,
    /// The command that acts on it.
    pub command: String,
}

/// A usage-limit pause as `status --format json` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimitJson {
    pub agent: String,
    pub resets_at: String,
    /// The reset in the local time zone, as the text says it.
    pub resets_local: String,
    pub since: String,
    /// The agent named the reset (else the wait is a backoff).
    pub named: bool,
    /// The line the agent printed.
    pub line: String,
    /// The sprints that wait for it.
    pub sprints: Vec<String>,
}

/// Everything that waits for a person, in this order: blocked units,
/// confirmations, usage-limit pauses, the budget. `now` is RFC 3339.
pub fn needs(s: &State, now: &str) -> Vec<Need> {
    let mut out = Vec::new();
    for u in &s.units {
        if u.state != UnitStatus::Blocked {
            continue;
        }
        let Some(sp) = u.sprints.iter().find(|x| x.state == SprintStatus::Fatal) else {
            continue;
        };
        let last = sp
            .last_failure
            .as_deref()
            .and_then(|f| f.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("no failure was recorded");
        out.push(Need {
            kind: "blocked",
            unit: Some(u.name.clone()),
            sprint: Some(sp.id.to_string()),
            message: format!(
                "{} is BLOCKED: sprint {} failed after {} attempts. Last failure: {last}",
                u.name, sp.id, s.max_retries
            ),
            command: "git supervisor resume".into(),
        });
    }
    for u in &s.units {
        let Some(sp) = u.current() else { continue };
        if sp.state == SprintStatus::Partial && sp.task_type == crate::plan::TaskType::Manual {
            out.push(Need {
                kind: "confirm",
                unit: Some(u.name.clone()),
                sprint: Some(sp.id.to_string()),
                message: format!(
                    "{}: manual sprint {} ({}) waits for your confirmation.",
                    u.name, sp.id, sp.name
                ),
                command: format!("git supervisor confirm {} {}", u.name, sp.id),
            });
        }
    }
    for p in pending(s, now) {
        out.push(Need {
            kind: "usage_limit",
            unit: None,
            sprint: None,
            message: limit_sentence(p, now),
            command: "git supervisor resume (ends the pause now; it ends by itself at the reset)"
                .into(),
        });
    }
    if let Some(b) = &s.budget_reached {
        out.push(Need {
            kind: "budget",
            unit: None,
            sprint: None,
            message: format!(
                "The budget is reached: {} spent of run.budget_usd {}.",
                b.spent, b.budget
            ),
            command: "raise run.budget_usd, `git supervisor replan`, then `git supervisor resume`"
                .into(),
        });
    }
    out
}

/// The pauses whose reset has not come by `now` (a run on a remote
/// records no end: its workers dispatch again at the reset).
fn pending<'a>(s: &'a State, now: &'a str) -> impl Iterator<Item = &'a LimitPause> {
    s.active_limits()
        .filter(move |p| !crate::machine::retry::due(&p.until, now))
}

/// "waiting for the usage limit of `claude` — resets 15:50 JST (in 2h 13m)"
pub fn limit_sentence(p: &LimitPause, now: &str) -> String {
    let local = local_time(&p.until, now);
    let reset = if p.named {
        format!("resets {local}")
    } else {
        format!("no reset named; trying again {local}")
    };
    format!("waiting for the usage limit of `{}` — {reset}", p.agent)
}

/// `15:50 JST (in 2h 13m)`; a date when the reset is not within the day.
fn local_time(until: &str, now: &str) -> String {
    let Ok(at) = until.parse::<jiff::Timestamp>() else {
        return until.to_string();
    };
    let zoned = at.to_zoned(jiff::tz::TimeZone::system());
    let left = now
        .parse::<jiff::Timestamp>()
        .ok()
        .map(|n| at.as_second() - n.as_second());
    let format = if left.is_some_and(|l| l > 20 * 3600) {
        "%a %b %-d %H:%M %Z"
    } else {
        "%H:%M %Z"
    };
    let when = zoned.strftime(format).to_string();
    match left {
        Some(l) if l > 0 => {
            let (h, m) = (l / 3600, (l % 3600) / 60);
            let span = match (h, m) {
                (0, 0) => format!("{l}s"),
                (0, m) => format!("{m}m"),
                (h, m) => format!("{h}h {m}m"),
            };
            format!("{when} (in {span})")
        }
        _ => format!("{when} (due)"),
    }
}

/// The run's pauses not ended, with the sprints waiting for each.
pub fn limits(s: &State, now: &str) -> Vec<LimitJson> {
    pending(s, now)
        .map(|p| LimitJson {
            agent: p.agent.clone(),
            resets_at: p.until.clone(),
            resets_local: local_time(&p.until, now),
            since: p.since.clone(),
            named: p.named,
            line: p.line.clone(),
            sprints: s
                .units
                .iter()
                .flat_map(|u| u.sprints.iter().map(move |sp| (u, sp)))
                .filter(|(_, sp)| {
                    sp.state == SprintStatus::Backoff && sp.limited.as_deref() == Some(&p.agent)
                })
                .map(|(u, sp)| format!("{}/{}", u.name, sp.id))
                .collect(),
        })
        .collect()
}
