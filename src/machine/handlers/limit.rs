//! Usage limits: an agent's subscription window is used up. The sprint is
//! not charged (it waits in BACKOFF as interrupted, its attempt kept, until
//! the reset); the agent is paused for the whole run (the engine dispatches
//! nothing more to it until then); the pause ends at the reset (the engine
//! records it) or on `resume`. A reset beyond `run.limit_wait_max` stops
//! the run as `stop` does, resumable.

use std::time::Duration;

use super::super::apply::MachineError;
use super::super::state::LimitPause;
use super::super::state::SprintStatus;
use super::super::state::UnitStatus;
use super::super::steps::active;
use super::super::steps::Steps;

/// The first wait when the agent named no reset; it doubles per hit, up to
/// [`UNNAMED_MAX`].
pub const UNNAMED_FIRST: Duration = Duration::from_secs(60);
pub const UNNAMED_MAX: Duration = Duration::from_secs(3600);

/// How long to wait after the `hits`-th limit in a row that named no reset.
pub fn unnamed_wait(hits: u32) -> Duration {
    let doubled = UNNAMED_FIRST.saturating_mul(1u32 << hits.saturating_sub(1).min(16));
    doubled.min(UNNAMED_MAX)
}

/// The unit's agent met a usage limit. `met_at` is the wall clock when the
/// wrapper read it (the commit clock may be pinned); `resets_at` what the
/// agent said, if it did.
pub(in crate::machine) fn usage_limited(
    b: &mut Steps<'_>,
    unit: &str,
    agent: &str,
    resets_at: Option<&str>,
    met_at: &str,
    line: &str,
) -> Result<(), MachineError> {
    b.require_started()?;
    let i = b.unit_index(unit)?;
    let (k, _) = active(&b.state, i, unit)?;
    b.exited_before_start(i, k);
    let met = super::super::timestamp::parse(met_at);
    // A reset already past when it was read is a stale message: wait as if
    // none were named.
    let named = resets_at
        .and_then(super::super::timestamp::parse)
        .filter(|r| met.is_none_or(|m| *r > m));
    let previous = b.state.usage_limits.iter().find(|p| p.agent == agent);
    let hits = match (named, previous) {
        (Some(_), _) => 0,
        (None, Some(p)) => p.unnamed_hits + 1,
        (None, None) => 1,
    };
    let until = match named {
        Some(r) => r,
        None => {
            let base = met.unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
            base + unnamed_wait(hits)
        }
    };
    let until_text = until
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default();
    let wait = met
        .map(|m| Duration::try_from(until - m).unwrap_or_default())
        .unwrap_or_default();
    let in_words = humantime::format_duration(Duration::from_secs(wait.as_secs())).to_string();
    let said = if named.is_some() {
        format!("resets at {until_text} (in {in_words})")
    } else {
        format!("no reset named; waiting {in_words}, until {until_text}")
    };
    let pause = LimitPause {
        agent: agent.to_string(),
        until: until_text.clone(),
        since: met_at.to_string(),
        line: line.to_string(),
        named: named.is_some(),
        unnamed_hits: hits,
        ended: false,
    };
    match b.state.usage_limits.iter_mut().find(|p| p.agent == agent) {
        // Several agents meet the same limit at once: one pause, to the
        // latest reset any of them named.
        Some(p) if !p.ended => {
            if super::super::retry::due(&p.until, &pause.until) {
                p.until = pause.until;
                p.line = pause.line;
                p.named = pause.named;
            }
            p.unnamed_hits = hits;
        }
        Some(p) => *p = pause,
        None => b.state.usage_limits.push(pause),
    }
    let s = &mut b.state.units[i].sprints[k];
    s.agent = None;
    s.interrupted = true;
    s.retry_at = Some(until_text.clone());
    s.limited = Some(agent.to_string());
    let attempt = s.attempt;
    b.sprint_to(
        i,
        k,
        SprintStatus::Backoff,
        format!(
            "Usage limit of `{agent}`: {said}. No attempt is counted (attempt {attempt} is kept); nothing more is dispatched to `{agent}` until then. The agent said: {line}"
        ),
    );
    // A stop requested before: the unit stops here, as on a failure.
    if b.state.units[i].state == UnitStatus::Stopping {
        b.unit_to(
            i,
            UnitStatus::Stopped,
            "Stop requested; the active sprint met a usage limit, so the unit stops here.".into(),
        );
    }
    let max = Duration::from_millis(b.state.limit_wait_max_ms);
    if !max.is_zero() && wait > max {
        let max = humantime::format_duration(max);
        b.drain_running_units(&format!(
            "The usage limit of `{agent}` resets at {until_text}, beyond run.limit_wait_max ({max}); `git supervisor resume` after the reset"
        ));
    }
    Ok(())
}

/// The reset time of `agent`'s pause has come (the engine read the wall
/// clock): dispatches to it go on.
pub(in crate::machine) fn limit_ended(b: &mut Steps<'_>, agent: &str) -> Result<(), MachineError> {
    b.require_started()?;
    let Some(p) = b
        .state
        .usage_limits
        .iter_mut()
        .find(|p| p.agent == agent && !p.ended)
    else {
        return Ok(());
    };
    p.ended = true;
    let until = p.until.clone();
    b.run_note(format!(
        "The usage limit of `{agent}` has reset ({until}): dispatching to it again."
    ));
    Ok(())
}

/// `resume` ends every pause early: the limited sprints may go at once.
pub(in crate::machine) fn end_pauses_early(b: &mut Steps<'_>) {
    let agents: Vec<String> = b
        .state
        .usage_limits
        .iter()
        .filter(|p| !p.ended)
        .map(|p| p.agent.clone())
        .collect();
    for p in b.state.usage_limits.iter_mut() {
        p.ended = true;
    }
    for u in b.state.units.iter_mut() {
        for s in u.sprints.iter_mut() {
            if s.limited.is_some() && s.state == SprintStatus::Backoff {
                s.retry_at = None;
            }
        }
    }
    for agent in agents {
        b.run_note(format!(
            "Resumed: the usage-limit pause of `{agent}` ends early."
        ));
    }
}
