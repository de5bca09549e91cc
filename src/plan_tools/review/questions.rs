//! Open questions of a sprint (spec §W-127): TBD markers, decisions left
//! open ("Decide whether to use webhooks or polling"), vague specifics, and
//! external dependencies whose interface the plan does not document. What
//! `analyze` lists, and what model selection reads to send such a sprint
//! to the strongest model. Pure over the sprint's text.

use crate::plan::model::Sprint;

const TBD: &[&str] = &["tbd", "todo", "determine later", "decide", "clarify"];
const VAGUE_SPECIFICS: &[&str] = &[
    "appropriate library",
    "suitable approach",
    "standard method",
];

/// Words that say the text calls something outside the project.
const EXTERNAL: &[&str] = &[
    "external api",
    "third-party",
    "third party",
    "webhook",
    "remote api",
    "rest api",
    "external service",
    "api call",
    "https://",
    "http://",
];

/// A verb that calls out with an API named after it ("call the Stripe
/// API", "fetch rates from the exchange API").
const CALLS: &[&str] = &[
    "call ", "calls ", "fetch ", "fetches ", "query ", "queries ", "post to ",
];

/// Words that say the interface is written down.
const DOCUMENTED: &[&str] = &[
    "interface",
    "schema",
    "openapi",
    "swagger",
    "contract",
    "documented",
    "sdk",
    ".proto",
    "api docs",
    "docs/",
];

/// What a question is about (spec §W's types).
pub const EXTERNAL_DEPENDENCY: &str = "external dependency";

/// One open question of a sprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Open {
    /// `name`, `task 2`, `exit criteria`.
    pub place: String,
    pub text: String,
    pub kind: &'static str,
}

/// A TBD marker as a word of its own: "TBD", "decide the format", but not
/// the file in "Read TODO.md", a path, or anything in backticks.
fn open_marker(text: &str, marker: &str) -> bool {
    let plain: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let l = plain.to_lowercase();
    let b = l.as_bytes();
    let part_of_name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'/');
    l.match_indices(marker).any(|(i, m)| {
        let end = i + m.len();
        let before = i == 0 || !(part_of_name(b[i - 1]) || b[i - 1] == b'.');
        let after = end == b.len()
            || !(part_of_name(b[end])
                || (b[end] == b'.' && b.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)));
        before && after
    })
}

fn question_kind(text: &str) -> &'static str {
    let l = text.to_lowercase();
    if l.contains("clarify") || l.contains("requirement") {
        "requirement clarification"
    } else if l.contains("external") || l.contains("third-party") || l.contains("api") {
        EXTERNAL_DEPENDENCY
    } else {
        "technical decision"
    }
}

/// A decision the text leaves open: a TBD marker, alternatives still to
/// choose between ("whether to use webhooks or polling", "JSON or YAML?"),
/// or a vague specific ("a suitable approach").
pub fn open_decision(text: &str) -> bool {
    let l = text.to_lowercase();
    let whether = l.find("whether ").is_some_and(|i| l[i..].contains(" or "));
    let asked = l.trim_end().ends_with('?') && l.contains(" or ");
    TBD.iter().any(|k| open_marker(text, k))
        || VAGUE_SPECIFICS.iter().any(|k| l.contains(k))
        || whether
        || asked
}

/// The text calls something outside the project.
pub fn external_call(text: &str) -> bool {
    let l = text.to_lowercase();
    EXTERNAL.iter().any(|k| l.contains(k))
        || CALLS.iter().any(|c| {
            l.match_indices(c).any(|(i, _)| {
                l[i..]
                    .split(['.', ';'])
                    .next()
                    .is_some_and(|s| s.contains(" api"))
            })
        })
}

/// The sprint's text documents the interface it calls.
fn documented(s: &Sprint) -> bool {
    let all = std::iter::once(&s.name)
        .chain(&s.tasks)
        .chain(s.entry.iter().map(|c| &c.text))
        .map(|t| t.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    DOCUMENTED.iter().any(|k| all.contains(k))
}

/// Every open question of a sprint, in the order of its text.
pub fn sprint_questions(s: &Sprint) -> Vec<Open> {
    let texts = std::iter::once(("name".to_string(), s.name.clone()))
        .chain(
            s.tasks
                .iter()
                .enumerate()
                .map(|(k, t)| (format!("task {}", k + 1), t.clone())),
        )
        .chain(
            s.exit
                .iter()
                .map(|c| ("exit criteria".to_string(), c.text.clone())),
        );
    let undocumented = !documented(s);
    let mut out = Vec::new();
    for (place, text) in texts {
        if open_decision(&text) {
            out.push(Open {
                place,
                kind: question_kind(&text),
                text,
            });
        } else if undocumented && external_call(&text) {
            out.push(Open {
                place,
                kind: EXTERNAL_DEPENDENCY,
                text,
            });
        }
    }
    out
}

/// Why a sprint needs the strongest model, from what `analyze` finds in
/// it: a decision left open, or an external dependency without a
/// documented interface (the question quoted).
pub fn needs_strongest(s: &Sprint) -> Option<String> {
    let q = sprint_questions(s).into_iter().next()?;
    Some(if q.kind == EXTERNAL_DEPENDENCY {
        format!(
            "an external dependency with no documented interface (\"{}\")",
            q.text
        )
    } else {
        format!("an open decision (\"{}\")", q.text)
    })
}
