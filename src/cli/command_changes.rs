//! The commands a replan would run that the run did not have: every exit
//! and entry criterion, plan-wide check, agent command and build command of
//! the edited plan and config, compared with the run's snapshot. `replan`
//! shows them and applies them only when the user agrees.

use crate::config::Config;
use crate::plan::Plan;

/// One command that is new, or whose text changed, at one place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommandChange {
    /// Where the command lives: `alpha/2 exit criterion`, `agent.command`…
    pub place: String,
    /// What the run executes today at that place, if anything.
    pub before: Option<String>,
    pub after: String,
}

/// Every command of a plan and config, with its place.
fn commands(plan: Option<&Plan>, config: &Config) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(plan) = plan else {
        return config_commands(config, out);
    };
    for unit in &plan.units {
        for sprint in &unit.sprints {
            let place = format!("{}/{}", unit.name, sprint.id);
            for (kind, list) in [("entry", &sprint.entry), ("exit", &sprint.exit)] {
                for c in list {
                    if let Some(cmd) = &c.command {
                        out.push((format!("{place} {kind} criterion"), cmd.clone()));
                    }
                }
            }
        }
    }
    for (kind, list) in [("entry", &plan.entry_checks), ("exit", &plan.exit_checks)] {
        for c in list {
            if let Some(cmd) = &c.command {
                out.push((format!("plan-wide {kind} check"), cmd.clone()));
            }
        }
    }
    config_commands(config, out)
}

fn config_commands(config: &Config, mut out: Vec<(String, String)>) -> Vec<(String, String)> {
    let argv = |a: &Vec<String>| serde_json::to_string(a).unwrap_or_default();
    if let Some(c) = &config.agent.command {
        out.push(("agent.command".into(), argv(c.get_ref())));
    }
    if let Some(c) = &config.agent.resume_command {
        out.push(("agent.resume_command".into(), argv(c.get_ref())));
    }
    if let Some(c) = &config.build.command {
        out.push(("build.command".into(), c.clone()));
    }
    out
}

/// The commands of `(plan, config)` that `(old_plan, old_config)` does not
/// run at the same place, in plan order. An unreadable old plan runs
/// nothing.
pub fn new_commands(
    old_plan: Option<&Plan>,
    old_config: &Config,
    plan: &Plan,
    config: &Config,
) -> Vec<CommandChange> {
    use std::collections::HashMap;
    // What each place runs today, in order; a command found again at its
    // place is used up, so a repeated command counts once per repetition.
    let mut today: HashMap<String, Vec<Option<String>>> = HashMap::new();
    for (place, cmd) in commands(old_plan, old_config) {
        today.entry(place).or_default().push(Some(cmd));
    }
    let mut out = Vec::new();
    let new = commands(Some(plan), config);
    let mut fresh = Vec::new();
    for (place, cmd) in new {
        let slot = today
            .get_mut(&place)
            .and_then(|cmds| cmds.iter_mut().find(|c| c.as_deref() == Some(cmd.as_str())));
        match slot {
            Some(c) => *c = None,
            None => fresh.push((place, cmd)),
        }
    }
    for (place, cmd) in fresh {
        let before = today
            .get_mut(&place)
            .and_then(|cmds| cmds.iter_mut().find_map(Option::take));
        out.push(CommandChange {
            place,
            before,
            after: cmd,
        });
    }
    out
}

/// The lines `replan` prints for the changes.
pub fn render(changes: &[CommandChange]) -> String {
    let mut s = String::from("Commands this replan would run that the run does not run today:\n");
    for c in changes {
        use crate::base::escape::visible;
        let (place, after) = (visible(&c.place), visible(&c.after));
        match &c.before {
            Some(b) => s.push_str(&format!("  ~ {place}: `{after}` (was `{}`)\n", visible(b))),
            None => s.push_str(&format!("  + {place}: `{after}`\n")),
        }
    }
    s
}
