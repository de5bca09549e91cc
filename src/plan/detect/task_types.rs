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

/// Task-type keywords of spec §E-28, read from the sprint's name (and its
/// first task when the name says nothing). Verbs count only as the first word
/// so that "Implement the run loop" stays `code`.
pub(crate) fn classify_task_type(name: &str, tasks: &[String]) -> TaskType {
    let classify = |text: &str| -> Option<TaskType> {
        let l = text.to_lowercase();
        let first = l.split_whitespace().next().unwrap_or("");
        let has = |words: &[&str]| words.iter().any(|w| l.contains(w));
        if has(&[
            "listen",
            "visit",
            "check browser",
            "spot-check",
            "spot check",
            "manual",
            "human review",
        ]) {
            Some(TaskType::Manual)
        } else if has(&["wait for", "monitor", "check deployment"]) {
            Some(TaskType::Deferred)
        } else if has(&["kick off", "nohup", "background"]) || first == "start" {
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
    classify(name)
        .or_else(|| tasks.first().and_then(|t| classify(t)))
        .unwrap_or(TaskType::Code)
}
