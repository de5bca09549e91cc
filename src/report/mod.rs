//! Renderings of the state for people and programs: `SUPERVISOR_STATE.md`
//! (kept in every state commit), the status table/JSON and the model usage.
//! Pure functions of the state and the records their callers read; no git.

pub mod analysis_md;
pub mod complete;
pub mod complete_md;
pub mod criteria;
pub mod live;
pub mod needs_you;
pub mod state_md;
pub mod status;
pub mod timeline;
pub mod usage;

use crate::machine::SprintState;
use crate::machine::UnitState;

/// `—` for an absent value, as the spec's tables write it.
pub const NONE: &str = "—";

/// `<current>/<total>` sprint position of a unit: the current sprint's
/// 1-based index, all of them when COMPLETED, 0 before it started.
pub fn sprint_position(u: &UnitState) -> String {
    let total = u.sprints.len();
    let at = match u.current_index() {
        None => total,
        Some(_)
            if u.state == crate::machine::UnitStatus::NotStarted && u.completed_sprints() == 0 =>
        {
            0
        }
        Some(i) => i + 1,
    };
    format!("{at}/{total}")
}

pub fn attempt(s: &SprintState, max: u32) -> String {
    if s.attempt == 0 {
        NONE.to_string()
    } else {
        format!("{}/{max}", s.attempt)
    }
}

pub fn deps(u: &UnitState) -> String {
    if u.deps.is_empty() {
        NONE.to_string()
    } else {
        u.deps.join(", ")
    }
}

/// A Markdown table's header and separator row.
pub fn table_head(out: &mut String, columns: &[&str]) {
    out.push_str(&format!("| {} |\n|", columns.join(" | ")));
    for c in columns {
        out.push_str(&"-".repeat(c.chars().count() + 2));
        out.push('|');
    }
    out.push('\n');
}
