//! Task types (spec §E-28): how a sprint's completion is verified.
//!
//! Shapes recognised: an explicit `Type: command` line (or a Type column of a
//! sprint table); otherwise the first word(s) of the sprint's name: Run,
//! Execute, Deploy → command; Start, Kick off → background; Wait for,
//! Monitor → deferred; Manual, Listen, Visit, Spot-check, Human review →
//! manual; anything else → code. Never a substring: "Add the monitoring
//! dashboard" is code.

use super::*;

pub(super) fn parse_task_type(s: &str) -> Option<TaskType> {
    Some(match norm(s).as_str() {
        "code" => TaskType::Code,
        "command" => TaskType::Command,
        "background" => TaskType::Background,
        "deferred" => TaskType::Deferred,
        "manual" => TaskType::Manual,
        _ => return None,
    })
}

/// Task-type keywords of spec §E-28, read from the first words of the
/// sprint's name (an explicit `Type:` line wins over this). Never a
/// substring: "Add the monitoring dashboard" and "Event listener" are code.
pub(crate) fn classify_task_type(name: &str, tasks: &[String]) -> TaskType {
    let classify = |text: &str| -> Option<TaskType> {
        let l = text.to_lowercase();
        let mut words = l
            .split(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '.' | '—' | '(' | ')'))
            .filter(|w| !w.is_empty())
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'));
        let first = words.next().unwrap_or("");
        let second = words.next().unwrap_or("");
        let pair = (first, second);
        if matches!(
            first,
            "manual" | "manually" | "listen" | "visit" | "spot-check" | "eyeball"
        ) || matches!(
            pair,
            ("spot", "check") | ("human", "review") | ("check", "browser")
        ) {
            Some(TaskType::Manual)
        } else if matches!(first, "monitor" | "await")
            || matches!(
                pair,
                ("wait", "for") | ("wait", "until") | ("check", "deployment")
            )
        {
            Some(TaskType::Deferred)
        } else if matches!(first, "start" | "nohup" | "background")
            || matches!(pair, ("kick", "off") | ("launch", "background"))
        {
            Some(TaskType::Background)
        } else if matches!(first, "run" | "execute" | "deploy") {
            Some(TaskType::Command)
        } else if matches!(
            first,
            "write" | "create" | "implement" | "build" | "fix" | "add"
        ) {
            Some(TaskType::Code)
        } else {
            None
        }
    };
    // The tasks are not read: "Event listener" with a task "Listen for
    // events" is code, whatever its first task says.
    let _ = tasks;
    classify(name).unwrap_or(TaskType::Code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_words_decide() {
        for (name, t) in [
            ("Add the monitoring dashboard", TaskType::Code),
            ("Event listener", TaskType::Code),
            ("Visitor", TaskType::Code),
            ("Background jobs table", TaskType::Background),
            ("Monitor the rollout", TaskType::Deferred),
            ("Wait for the deploy", TaskType::Deferred),
            ("Spot-check the page", TaskType::Manual),
            ("Listen to the episode", TaskType::Manual),
            ("Run the migration", TaskType::Command),
            ("Start the indexer", TaskType::Background),
        ] {
            assert_eq!(classify_task_type(name, &[]), t, "{name}");
        }
    }
}
