//! The files a plan tells its agents to read ("Read `docs/ARCH.md`
//! first"), for the prompt's FILES TO READ section, which template and
//! dynamic prompts both carry: named in the plan's own text outside the
//! sprints, or in the dispatched sprint's section. A file not there yet is
//! announced with the sprint that creates it. Pure over the plan's text;
//! the engine says which files exist.

use crate::plan::Plan;
use crate::plan::Sprint;
use crate::plan_tools::analysis::has_phrase;
use crate::plan_tools::analysis::CREATE_VERBS;

/// Words that tell the reader to read something.
const READ_VERBS: &[&str] = &["read", "consult", "refer to", "see", "review", "study"];

/// One file the plan asks the agent to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToRead {
    /// As the plan writes it, relative to the project root.
    pub path: String,
    /// It is in the agent's tree.
    pub exists: bool,
    /// The sprint that creates it (`core sprint 2`; `this sprint`), when
    /// the plan says one does.
    pub created_by: Option<String>,
}

/// Paths in a line: backticked spans and bare words that look like files
/// (a `/`, or an extension).
fn paths_in(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let ticked: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
    let words = line
        .split('`')
        .step_by(2)
        .flat_map(|p| p.split_whitespace())
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '"' | '\'' | '*'))
        })
        .map(|w| w.trim_end_matches('.'));
    for w in ticked.into_iter().chain(words) {
        let file_like = !w.contains(char::is_whitespace)
            && !w.contains("://")
            && !w.starts_with('$')
            && !w.contains('<')
            // `docs/ARCH.md`, `Makefile.toml`; not "e.g." or "v1.2".
            && w.rsplit_once('.').is_some_and(|(stem, ext)| {
                stem.rsplit('/').next().is_some_and(|s| s.chars().count() >= 2)
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
            })
            && w.chars().any(|c| c.is_ascii_alphabetic());
        let w = w.trim_start_matches("./").to_string();
        if file_like && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The files `source` (the plan) asks the agent of `sprint` to read: read
/// instructions outside every sprint's section, and in this sprint's own.
/// The plan file itself is left out (every prompt names it).
pub fn named(source: &str, plan: &Plan, sprint: &Sprint) -> Vec<String> {
    let others: Vec<&str> = plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| !std::ptr::eq(*s, sprint) && !s.body.trim().is_empty())
        .map(|s| s.body.as_str())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for line in source.lines() {
        let l = line.to_lowercase();
        if !READ_VERBS.iter().any(|v| has_phrase(&l, v)) {
            continue;
        }
        let t = line.trim();
        let theirs = !sprint.body.contains(t) && others.iter().any(|b| b.contains(t));
        if t.is_empty() || theirs {
            continue;
        }
        for p in paths_in(line) {
            let is_plan = p.ends_with("EXECUTION_PLAN.md");
            if !is_plan && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The sprint whose tasks create `path` (a create verb first), as the
/// prompt names it.
pub fn created_by(plan: &Plan, path: &str, me: &Sprint) -> Option<String> {
    for u in &plan.units {
        for s in &u.sprints {
            let creates = s.tasks.iter().any(|t| {
                let l = t.to_lowercase();
                CREATE_VERBS.iter().any(|v| l.starts_with(v)) && t.contains(path)
            });
            if creates {
                return Some(if std::ptr::eq(s, me) {
                    "this sprint".to_string()
                } else {
                    format!("{} sprint {}", u.name, s.id)
                });
            }
        }
    }
    None
}

/// The prompt's section, empty when the plan names nothing to read.
pub fn section(files: &[ToRead], root: &str) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n\nFILES TO READ (the plan asks you to read them):\n");
    for f in files {
        s.push_str(&format!("- {root}/{}", f.path));
        if !f.exists {
            match &f.created_by {
                Some(by) => s.push_str(&format!(" — not there yet: it will be created by {by}")),
                None => {
                    s.push_str(" — not there yet, and no sprint of the plan says it creates it")
                }
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::paths_in;

    #[test]
    fn paths_are_files_not_abbreviations_or_versions() {
        assert_eq!(
            paths_in("Read `docs/ARCH.md` first, e.g. before v1.2; see README.md."),
            ["docs/ARCH.md", "README.md"]
        );
    }
}
