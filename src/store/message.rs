//! State commit messages: subject, a body saying why, and the
//! `Supervisor-*` trailers (design §3) — written here and read back by `log`.

use serde::Serialize;

use crate::machine::Change;
use crate::machine::Transition;
use crate::machine::SCHEMA;

/// The message of the commit recording `t` as transition number `seq`.
pub fn format(t: &Transition, seq: u64, run_id: &str) -> String {
    let subject = t.subject();
    let subject = crate::base::escape::visible(&subject);
    let mut m = format!("{subject}\n\n{}\n\n", t.why.trim());
    let mut trailer = |k: &str, v: &str| m.push_str(&format!("Supervisor-{k}: {v}\n"));
    trailer("Event", t.event);
    if let Some(u) = &t.unit {
        trailer("Unit", u);
    }
    if let Some(s) = &t.sprint {
        if !matches!(t.change, Change::Unit { .. }) {
            trailer("Sprint", &s.to_string());
        }
    }
    match t.change {
        Change::Unit { from, to } => {
            trailer("From", from.as_str());
            trailer("To", to.as_str());
        }
        Change::Sprint { from, to } => {
            trailer("From", from.as_str());
            trailer("To", to.as_str());
        }
        Change::Run => {}
    }
    if let Some((a, max)) = t.attempt {
        trailer("Attempt", &format!("{a}/{max}"));
    }
    if let Some(model) = t.model {
        trailer("Model", model.as_str());
    }
    if let Some(turns) = t.turns {
        trailer("Turns", &turns.to_string());
    }
    if let Some(cost) = t.cost {
        trailer("Cost", &cost.exact());
    }
    if let Some(worker) = &t.worker {
        trailer("Worker", &crate::base::escape::visible(worker));
    }
    trailer("Run", run_id);
    trailer("Seq", &seq.to_string());
    trailer("Schema", &SCHEMA.to_string());
    m
}

/// One state commit, read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    pub commit: String,
    pub time: String,
    pub subject: String,
    pub why: String,
    pub event: Option<String>,
    pub unit: Option<String>,
    pub sprint: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub attempt: Option<String>,
    pub model: Option<String>,
    pub turns: Option<u64>,
    /// Dollars the agent reported for the dispatch a verdict ends.
    pub cost: Option<crate::machine::Usd>,
    pub run: Option<String>,
    pub seq: Option<u64>,
}

/// Parse a state commit's message.
pub fn parse(commit: &str, time: &str, message: &str) -> Record {
    let mut lines = message.lines();
    let subject = lines.next().unwrap_or_default().to_string();
    let rest: Vec<&str> = lines.collect();
    let mut why = Vec::new();
    let mut r = Record {
        commit: commit.to_string(),
        time: time.to_string(),
        subject,
        why: String::new(),
        event: None,
        unit: None,
        sprint: None,
        from: None,
        to: None,
        attempt: None,
        model: None,
        turns: None,
        cost: None,
        run: None,
        seq: None,
    };
    for line in rest {
        let Some((key, value)) = line
            .strip_prefix("Supervisor-")
            .and_then(|l| l.split_once(": "))
        else {
            if !line.trim().is_empty() {
                why.push(line.trim());
            }
            continue;
        };
        let v = Some(value.trim().to_string());
        match key {
            "Event" => r.event = v,
            "Unit" => r.unit = v,
            "Sprint" => r.sprint = v,
            "From" => r.from = v,
            "To" => r.to = v,
            "Attempt" => r.attempt = v,
            "Model" => r.model = v,
            "Seq" => r.seq = value.trim().parse().ok(),
            "Turns" => r.turns = value.trim().parse().ok(),
            "Cost" => r.cost = crate::machine::Usd::parse(value),
            "Run" => r.run = v,
            _ => {}
        }
    }
    r.why = why.join(" ");
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::SprintStatus;

    #[test]
    fn messages_round_trip() {
        let t = Transition {
            event: "dispatch",
            unit: Some("parser".into()),
            sprint: Some("2a".parse().expect("id")),
            change: Change::Sprint {
                from: SprintStatus::Pending,
                to: SprintStatus::Dispatched,
            },
            why: "First dispatch.".into(),
            attempt: Some((1, 3)),
            model: Some(crate::machine::Model::Sonnet),
            turns: None,
            cost: crate::machine::Usd::from_dollars(0.0834215),
            worker: None,
            at: "t".into(),
        };
        let m = format(&t, 7, "run-1");
        assert!(m.starts_with("parser: sprint 2a PENDING -> DISPATCHED\n\nFirst dispatch.\n\nSupervisor-Event: dispatch\n"));
        let r = parse("c", "t", &m);
        assert_eq!(r.unit.as_deref(), Some("parser"));
        assert_eq!(r.sprint.as_deref(), Some("2a"));
        assert_eq!(r.from.as_deref(), Some("PENDING"));
        assert_eq!(r.to.as_deref(), Some("DISPATCHED"));
        assert_eq!(r.seq, Some(7));
        assert!(m.contains("Supervisor-Cost: 0.083422\n"), "{m}");
        assert_eq!(r.cost, crate::machine::Usd::from_dollars(0.083422));
        assert_eq!(r.why, "First dispatch.");
    }
}
