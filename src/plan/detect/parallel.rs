//! Prose that lets numbered sections (phases, stages, weeks) run at once.
//!
//! Phases are read as one sequence unless the plan says the sections
//! themselves run at the same time: "These stages run in parallel.",
//! "Runs in parallel with the frontend.". A sentence about what is inside a
//! section is no such evidence: "Tasks in this phase can run in parallel.",
//! "Items marked [P] run concurrently." A section run out of order is worse
//! than one run late, so a doubtful sentence keeps the sequence.

/// Phrases that say two things run at the same time.
const AT_ONCE: &[&str] = &[
    "in parallel",
    "parallel with",
    "concurrently",
    "at the same time",
    "simultaneously",
];

/// Words that put a sentence about the work inside a section: its tasks,
/// steps or items run at once, not the section with its siblings.
const INSIDE: &[&str] = &[
    "task",
    "step",
    "item",
    "todo",
    "ticket",
    "issue",
    "stor",
    "[p]",
    "within",
    "in this phase",
    "in this stage",
    "in this week",
    "in this milestone",
    "inside",
    "of this phase",
    "of this stage",
];

/// Nouns that name sections themselves, so a sentence with one is about
/// sections running at once ("These stages run in parallel").
const SECTIONS: &[&str] = &[
    "phase",
    "stage",
    "stream",
    "track",
    "unit",
    "milestone",
    "week",
    "section",
    "iteration",
];

/// Whether `text` (section `me`'s own prose) says the section runs at the
/// same time as its siblings: a sentence that says two things run at once,
/// is not about the work inside, and names sections or another of `names`
/// (the sections' names). A stray "tests run in parallel" is not.
pub(crate) fn says_sections_run_at_once(text: &str, names: &[String], me: usize) -> bool {
    // Most sections say nothing of the kind: one look before any copy.
    let words = ["parallel", "concurrent", "same", "simultaneous"];
    if !words
        .iter()
        .any(|w| text.contains(w) || text.to_ascii_lowercase().contains(w))
    {
        return false;
    }
    let lower = unwrap_lines(text).to_lowercase();
    // A table's rows are the section's work items, and what a row says
    // runs in parallel is that work's own design (`Phase 2A parallel
    // with code review`), not the section beside its siblings.
    let prose: String;
    let lower = match lower.lines().any(|l| l.trim_start().starts_with('|')) {
        false => lower.as_str(),
        true => {
            prose = lower
                .lines()
                .filter(|l| !l.trim_start().starts_with('|'))
                .collect::<Vec<_>>()
                .join("\n");
            prose.as_str()
        }
    };
    let sentences: Vec<&str> = lower
        .split(['.', '\n', ';', '!', '?'])
        .filter(|s| AT_ONCE.iter().any(|p| s.contains(p)))
        .filter(|s| !INSIDE.iter().any(|w| s.contains(w)))
        .collect();
    if sentences.is_empty() {
        return false;
    }
    let others: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|&(j, n)| j != me && n.len() >= 3)
        .map(|(_, n)| n.to_lowercase())
        .collect();
    sentences.iter().any(|s| {
        SECTIONS.iter().any(|w| s.contains(w)) || others.iter().any(|o| s.contains(o.as_str()))
    })
}

/// Whether lower-cased words deny, hedge, make conditional or put in the
/// past what they say of the work (`unsafe to run … in parallel`, `could
/// in principle … but`, `only if we get a second database`, `If we get a
/// second engineer:`, `Last release we did …`, `strictly in order`): such
/// words offer no parallelism and order no groups.
pub(crate) fn hedged(lower: &str) -> bool {
    const HEDGES: &[&str] = &[
        "unsafe",
        "not ",
        "n't",
        "never",
        "cannot",
        "avoid",
        "no ",
        "but ",
        "if ",
        "unless",
        "could",
        "might",
        "would",
        "instead",
        "last ",
        "previous",
        " did ",
        "used to",
        "sequential",
        "one at a time",
        "in order",
        "strictly",
    ];
    HEDGES.iter().any(|w| lower.contains(w))
}

/// Prose with its hard wraps undone: a line that does not end a sentence
/// runs on into the next, unless the next starts a block of its own (a
/// list item, a table row, a heading, a `Label:` line). A sentence is read
/// whole however the author wrapped it.
pub(crate) fn unwrap_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        let Some(next) = lines.peek() else { break };
        let ends = line
            .trim_end()
            .ends_with(['.', '!', '?', ':', ';', '|', '`'])
            || line.trim().is_empty();
        let n = next.trim_start();
        let starts_block = n.is_empty()
            || n.starts_with(['-', '*', '+', '|', '#', '>', '`', '<'])
            || n.starts_with(|c: char| c.is_ascii_digit())
            || n.split_once(':')
                .is_some_and(|(k, _)| k.split_whitespace().count() <= 2 && !k.is_empty());
        out.push(if ends || starts_block { '\n' } else { ' ' });
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrapped_sentences_are_read_whole() {
        assert_eq!(
            super::unwrap_lines("The three units are independent and\nrun in parallel.\n- item"),
            "The three units are independent and run in parallel.\n- item"
        );
        assert!(super::says_sections_run_at_once(
            "The three units are independent and\nrun in parallel.",
            &[],
            0
        ));
    }

    fn at_once(text: &str) -> bool {
        super::says_sections_run_at_once(text, &["Backend".to_string(), "Frontend".to_string()], 0)
    }

    #[test]
    fn sections_said_to_run_together_are_evidence() {
        assert!(at_once("These stages run in parallel."));
        assert!(at_once("Runs in parallel with the frontend."));
        assert!(at_once("This phase can run concurrently with Phase 2."));
    }

    #[test]
    fn work_inside_a_section_running_at_once_is_not() {
        assert!(!at_once("Tasks in this phase can run in parallel."));
        assert!(!at_once("All items marked [P] can run in parallel"));
        assert!(!at_once("Steps 2 and 3 may be done concurrently."));
        assert!(!at_once("Work within the phase can run in parallel."));
        assert!(!at_once("Build the parser. Then the checker."));
        assert!(!at_once("The suite runs in parallel on CI."));
    }
}
