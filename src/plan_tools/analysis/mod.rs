//! Plan analysis shared by `prioritize`, `evaluate`, `analyze` and the
//! completion report: the priority dimensions of spec §U and the quality
//! checks of spec §V. Pure functions of a parsed plan.

mod checks;
pub mod concerns;
#[cfg(test)]
mod tests;

pub use checks::has_phrase;
pub use checks::is_test_dir;
pub use checks::is_vague;
pub use checks::quality;
pub use checks::starts_word;
pub use checks::subsystems;
pub use checks::tested_name;
pub use checks::top_dir;
pub use checks::Fitness;
pub use checks::Phrases;
pub use checks::Quality;
pub use checks::TEST_DIRS;
pub use checks::VAGUE;

use serde::Serialize;

use crate::plan::model::Plan;
use crate::plan::model::Sprint;
use crate::plan::model::TaskType;

/// Default context budget (turns per sprint) of `evaluate` and `analyze`.
pub const DEFAULT_BUDGET: u32 = 50;

/// A sprint's place in the plan: unit index and sprint index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct At {
    pub unit: usize,
    pub sprint: usize,
}

/// Every sprint in plan order.
pub fn all_sprints(plan: &Plan) -> Vec<At> {
    plan.units
        .iter()
        .enumerate()
        .flat_map(|(u, unit)| (0..unit.sprints.len()).map(move |s| At { unit: u, sprint: s }))
        .collect()
}

pub fn sprint(plan: &Plan, at: At) -> &Sprint {
    &plan.units[at.unit].sprints[at.sprint]
}

/// `unit/id`, the label every table uses for a sprint.
pub fn label(plan: &Plan, at: At) -> String {
    format!("{}/{}", plan.units[at.unit].name, sprint(plan, at).id)
}

/// Everything the sprint says, lower-cased, for keyword tests.
pub fn words(s: &Sprint) -> String {
    let mut t = s.name.to_lowercase();
    for x in s.tasks.iter().chain(s.entry.iter().map(|c| &c.text)) {
        t.push('\n');
        t.push_str(&x.to_lowercase());
    }
    for c in &s.exit {
        t.push('\n');
        t.push_str(&c.text.to_lowercase());
    }
    t
}

/// Units that depend on unit `u`, directly or through others.
pub fn dependent_units(plan: &Plan, u: usize) -> Vec<usize> {
    let mut seen = vec![u];
    let mut i = 0;
    while i < seen.len() {
        let name = &plan.units[seen[i]].name;
        for (k, other) in plan.units.iter().enumerate() {
            if other.deps.contains(name) && !seen.contains(&k) {
                seen.push(k);
            }
        }
        i += 1;
    }
    seen.remove(0);
    seen.sort_unstable();
    seen
}

/// Sprints that cannot start before `at` finishes: the rest of its unit and
/// every sprint of every unit that depends on it (directly or not).
pub fn blocked_by(plan: &Plan, at: At) -> Vec<At> {
    let mut out: Vec<At> = (at.sprint + 1..plan.units[at.unit].sprints.len())
        .map(|s| At {
            unit: at.unit,
            sprint: s,
        })
        .collect();
    for u in dependent_units(plan, at.unit) {
        out.extend((0..plan.units[u].sprints.len()).map(|s| At { unit: u, sprint: s }));
    }
    out
}

const FOUNDATION_WORDS: &[&str] = &[
    "type",
    "interface",
    "trait",
    "schema",
    "model",
    "foundation",
    "core",
    "shared",
    "common",
    "pattern",
    "protocol",
    "scaffold",
];

/// 1 when the sprint establishes something two or more later sprints reuse:
/// a file of its own that later sprints mention, or foundation words (types,
/// interfaces, schema, core…) with at least two sprints depending on it.
pub fn foundation_score(plan: &Plan, at: At) -> u32 {
    Scoring::new(plan).foundation(at)
}

#[cfg(test)]
fn foundation_score_walk(plan: &Plan, at: At) -> u32 {
    let later = blocked_by(plan, at);
    if later.len() < 2 {
        return 0;
    }
    let s = sprint(plan, at);
    let reusing = later
        .iter()
        .filter(|l| {
            let text = words(sprint(plan, **l));
            s.files
                .iter()
                .any(|f| text.contains(&f.to_lowercase()) || sprint(plan, **l).files.contains(f))
        })
        .count();
    let w = words(s);
    let named = FOUNDATION_WORDS.iter().any(|k| {
        w.split(|c: char| !c.is_alphanumeric())
            .any(|t| t == *k || t.strip_suffix('s') == Some(*k))
    });
    u32::from(reusing >= 2 || named)
}

/// What a sprint risks, by its words (the highest matching indicator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Risk {
    External,
    NewTechnology,
    Algorithm,
    SystemIo,
    Simple,
}

impl Risk {
    pub fn reason(self) -> &'static str {
        match self {
            Risk::External => "external API calls",
            Risk::NewTechnology => "new technology",
            Risk::Algorithm => "complex algorithms",
            Risk::SystemIo => "file I/O or system calls",
            Risk::Simple => "simple CRUD/config",
        }
    }

    /// Points of spec §U: external APIs and new technology 3, algorithms and
    /// I/O 2, the rest 1.
    pub fn level(self) -> u32 {
        match self {
            Risk::External | Risk::NewTechnology => 3,
            Risk::Algorithm | Risk::SystemIo => 2,
            Risk::Simple => 1,
        }
    }
}

/// Classify `text` (any case). Keywords match at the start of a word, so
/// "file" is not found in "profiles".
pub fn risk(text: &str) -> Risk {
    let w = text.to_lowercase();
    let has = |k: &[&str]| k.iter().any(|x| starts_word(&w, x));
    if has(&[
        "external api",
        "integration",
        "http",
        "network",
        "webhook",
        "third-party",
        "oauth",
        "remote",
    ]) {
        Risk::External
    } else if has(&["new technology", "unfamiliar", "prototype", "experimental"]) {
        Risk::NewTechnology
    } else if has(&[
        "algorithm",
        "parser",
        "concurren",
        "scheduler",
        "graph",
        "optimi",
    ]) {
        Risk::Algorithm
    } else if has(&[
        "file",
        "i/o",
        "system call",
        "process",
        "filesystem",
        "socket",
    ]) {
        Risk::SystemIo
    } else {
        Risk::Simple
    }
}

/// Risk level of spec §U for a sprint, with its reason.
pub fn risk_level(s: &Sprint) -> (u32, &'static str) {
    let r = risk(&words(s));
    (r.level(), r.reason())
}

pub const CREATE_VERBS: &[&str] = &["create", "write", "add", "generate", "new"];

/// Which of a list of files a text contains (`text.contains(file)`), by
/// lookup: a file without whitespace can only occur inside one
/// whitespace-free run of the text, so only the substrings of those runs of
/// a file's length are looked up. Files with whitespace are searched
/// directly. Asking for every task of a sprint is then linear in its text,
/// not tasks × files.
pub struct FileIndex<'f> {
    files: &'f [String],
    at: std::collections::HashMap<&'f str, usize>,
    lengths: Vec<usize>,
    spaced: Vec<usize>,
}

impl<'f> FileIndex<'f> {
    pub fn new(files: &'f [String]) -> FileIndex<'f> {
        let mut at = std::collections::HashMap::new();
        let mut lengths = Vec::new();
        let mut spaced = Vec::new();
        for (i, f) in files.iter().enumerate() {
            if f.is_empty() || f.contains(char::is_whitespace) {
                spaced.push(i);
            } else {
                at.entry(f.as_str()).or_insert(i);
                lengths.push(f.len());
            }
        }
        lengths.sort_unstable();
        lengths.dedup();
        FileIndex {
            files,
            at,
            lengths,
            spaced,
        }
    }

    /// The indices (ascending) of the files `text` contains.
    pub fn mentioned(&self, text: &str) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .spaced
            .iter()
            .copied()
            .filter(|&i| text.contains(self.files[i].as_str()))
            .collect();
        if !self.at.is_empty() {
            let mut run_start = None;
            for (i, c) in text
                .char_indices()
                .chain(std::iter::once((text.len(), ' ')))
            {
                if !c.is_whitespace() {
                    run_start.get_or_insert(i);
                    continue;
                }
                let Some(start) = run_start.take() else {
                    continue;
                };
                let run = &text[start..i];
                for (k, _) in run.char_indices() {
                    for &len in &self.lengths {
                        let end = k + len;
                        if end > run.len() {
                            break;
                        }
                        if let Some(&f) = run.get(k..end).and_then(|piece| self.at.get(piece)) {
                            out.push(f);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn mentions(&self, text: &str) -> Vec<&'f String> {
        self.mentioned(text)
            .into_iter()
            .map(|i| &self.files[i])
            .collect()
    }
}

fn creates(task: &str) -> bool {
    let l = task.to_lowercase();
    CREATE_VERBS.iter().any(|v| l.starts_with(v))
}

/// Files the sprint creates (named in a task that starts with a creating
/// verb) and files it modifies (every other path it names).
fn created_and_modified(sprint: &Sprint) -> (u32, u32) {
    let index = FileIndex::new(&sprint.files);
    let created: std::collections::HashSet<&str> = sprint
        .tasks
        .iter()
        .filter(|t| creates(t))
        .flat_map(|t| index.mentions(t))
        .map(String::as_str)
        .collect();
    let c = sprint
        .files
        .iter()
        .filter(|f| created.contains(f.as_str()))
        .count() as u32;
    (c, sprint.files.len() as u32 - c)
}

/// Tasks that name none of the sprint's files: prose work ("Wire the
/// retry policy into the client") that still costs turns.
pub fn prose_tasks(sprint: &Sprint) -> u32 {
    let index = FileIndex::new(&sprint.files);
    sprint
        .tasks
        .iter()
        .filter(|t| index.mentioned(t).is_empty())
        .count() as u32
}

/// `estimated_turns = R + 2C + 2M + B + ceil(L/75) + V + 5` (spec §V-123),
/// with R = the plan plus the unit's progress file, B = 1 for code sprints,
/// L = 60 lines per created file and 30 per modified one, V = exit criteria.
/// A prose task (one naming no file) counts as one modification: a sprint
/// of twelve prose tasks is not the nine turns of an empty one.
pub fn estimated_turns(sprint: &Sprint) -> u32 {
    let (c, m) = created_and_modified(sprint);
    let m = m + prose_tasks(sprint);
    let r = 2;
    let b = u32::from(sprint.task_type == TaskType::Code);
    let l = c * 60 + m * 30;
    let v = sprint.exit.len() as u32;
    r + 2 * c + 2 * m + b + l.div_ceil(75) + v + 5
}

/// The three complexity sub-scores of spec §U and their average.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Complexity {
    pub tasks: u32,
    pub files: u32,
    pub verification: u32,
    pub average: f64,
}

pub fn complexity(s: &Sprint) -> Complexity {
    let tasks = match s.tasks.len() {
        0..=3 => 1,
        4..=5 => 2,
        6..=7 => 3,
        _ => 4,
    };
    let files = match s.files.len() {
        0..=2 => 1,
        3..=5 => 2,
        6..=10 => 3,
        _ => 4,
    };
    let verification = verification_level(s);
    Complexity {
        tasks,
        files,
        verification,
        average: f64::from(tasks + files + verification) / 3.0,
    }
}

/// Checklist only 1, build check 2, test suite 3, integration test 4.
fn verification_level(s: &Sprint) -> u32 {
    let runnable: Vec<String> = s
        .exit
        .iter()
        .filter(|c| c.command.is_some())
        .map(|c| format!("{} {}", c.text, c.command.as_deref().unwrap_or("")).to_lowercase())
        .collect();
    if runnable.iter().any(|c| c.contains("integration")) {
        4
    } else if runnable.iter().any(|c| c.contains("test")) {
        3
    } else if runnable.is_empty() {
        1
    } else {
        2
    }
}

/// A sprint's priority (spec §U-115) with the parts it was made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Priority {
    pub dependency_depth: u32,
    pub foundation: u32,
    pub risk: u32,
    pub risk_reason: &'static str,
    pub complexity: Complexity,
    pub score: f64,
}

impl Priority {
    /// `12.5 — blocks 4 downstream sprints, establishes core types`.
    pub fn justification(&self) -> String {
        let mut parts = Vec::new();
        match self.dependency_depth {
            0 => parts.push("leaf sprint".to_string()),
            1 => parts.push("blocks 1 downstream sprint".to_string()),
            n => parts.push(format!("blocks {n} downstream sprints")),
        }
        if self.foundation == 1 {
            parts.push("establishes shared foundations".into());
        }
        if self.risk >= 2 {
            parts.push(format!("risk: {}", self.risk_reason));
        }
        parts.push(
            match self.complexity.average {
                a if a < 1.5 => "low complexity",
                a if a < 2.5 => "moderate complexity",
                _ => "high complexity",
            }
            .into(),
        );
        if self.dependency_depth == 0 {
            parts.push("no dependents".into());
        }
        format!("{} — {}", format_score(self.score), parts.join(", "))
    }
}

/// Scores print with one decimal: `12.5`, `3.0`.
pub fn format_score(score: f64) -> String {
    format!("{score:.1}")
}

pub fn priority(plan: &Plan, at: At) -> Priority {
    Scoring::new(plan).priority(at)
}

fn score_of(s: &Sprint, dependency_depth: u32, foundation: u32, words: &str) -> Priority {
    let r = risk(words);
    let (risk, risk_reason) = (r.level(), r.reason());
    let complexity = complexity(s);
    let score = f64::from(dependency_depth) * 3.0
        + f64::from(foundation) * 2.0
        + f64::from(risk)
        + complexity.average * 0.5;
    // Two decimals are plenty and keep the score stable across platforms.
    let score = (score * 100.0).round() / 100.0;
    Priority {
        dependency_depth,
        foundation,
        risk,
        risk_reason,
        complexity,
        score,
    }
}

/// What scoring every sprint of a plan needs, computed once: each unit's
/// transitive dependents (a bit set per unit, built in one pass over the
/// dependency order) and each sprint's words. [`priority`] and
/// [`foundation_score`] on their own walk the graph per call, which made
/// scoring every sprint cubic in the number of units.
pub struct Scoring<'a> {
    plan: &'a Plan,
    /// Sprints in each unit's dependents, summed.
    dependent_sprints: Vec<usize>,
    /// `bits[u]` has bit `d` set when unit `d` depends on unit `u`.
    bits: Vec<Vec<u64>>,
    words: Vec<Vec<String>>,
    /// The sprints whose text names a file (lower-cased) or whose file list
    /// holds it: who reuses what a sprint makes, without a scan per sprint.
    named_in: std::collections::HashMap<String, Vec<At>>,
    listed_in: std::collections::HashMap<String, Vec<At>>,
}

impl<'a> Scoring<'a> {
    pub fn new(plan: &'a Plan) -> Scoring<'a> {
        let n = plan.units.len();
        let deps: Vec<Vec<usize>> = plan.dependency_indices();
        // Dependency order (dependencies first), then the closure from the
        // last unit back: a unit's dependents are its direct dependents and
        // theirs.
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
        for (i, ds) in deps.iter().enumerate() {
            for &d in ds {
                direct[d].push(i);
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|i| waiting[*i] == 0).collect();
        let mut k = 0;
        while k < order.len() {
            let i = order[k];
            k += 1;
            for &j in &direct[i] {
                waiting[j] -= 1;
                if waiting[j] == 0 {
                    order.push(j);
                }
            }
        }
        let words_per = n.div_ceil(64);
        let mut bits: Vec<Vec<u64>> = vec![vec![0; words_per]; n];
        for &i in order.iter().rev() {
            let mut mine = vec![0u64; words_per];
            for &j in &direct[i] {
                mine[j / 64] |= 1 << (j % 64);
                for (m, b) in mine.iter_mut().zip(&bits[j]) {
                    *m |= b;
                }
            }
            bits[i] = mine;
        }
        let dependent_sprints = bits
            .iter()
            .map(|b| {
                (0..n)
                    .filter(|j| b[j / 64] & (1 << (j % 64)) != 0)
                    .map(|d| plan.units[d].sprints.len())
                    .sum()
            })
            .collect();
        let words: Vec<Vec<String>> = plan
            .units
            .iter()
            .map(|u| u.sprints.iter().map(words).collect())
            .collect();
        let mut listed_in: std::collections::HashMap<String, Vec<At>> = Default::default();
        for at in all_sprints(plan) {
            for f in &sprint(plan, at).files {
                let v = listed_in.entry(f.clone()).or_default();
                if v.last() != Some(&at) {
                    v.push(at);
                }
            }
        }
        let mut lowered: Vec<String> = listed_in.keys().map(|f| f.to_lowercase()).collect();
        lowered.sort();
        lowered.dedup();
        let index = FileIndex::new(&lowered);
        let mut named_in: std::collections::HashMap<String, Vec<At>> = Default::default();
        for at in all_sprints(plan) {
            for i in index.mentioned(&words[at.unit][at.sprint]) {
                named_in.entry(lowered[i].clone()).or_default().push(at);
            }
        }
        Scoring {
            plan,
            dependent_sprints,
            bits,
            words,
            named_in,
            listed_in,
        }
    }

    /// `later` cannot start before `at` finishes.
    fn blocks(&self, at: At, later: At) -> bool {
        if later.unit == at.unit {
            later.sprint > at.sprint
        } else {
            self.bits[at.unit][later.unit / 64] & (1 << (later.unit % 64)) != 0
        }
    }

    /// How many sprints cannot start before `at` finishes.
    pub fn blocked_count(&self, at: At) -> usize {
        self.plan.units[at.unit].sprints.len() - at.sprint - 1 + self.dependent_sprints[at.unit]
    }

    pub fn foundation(&self, at: At) -> u32 {
        if self.blocked_count(at) < 2 {
            return 0;
        }
        let s = sprint(self.plan, at);
        let w = &self.words[at.unit][at.sprint];
        let named = FOUNDATION_WORDS.iter().any(|k| {
            w.split(|c: char| !c.is_alphanumeric())
                .any(|t| t == *k || t.strip_suffix('s') == Some(*k))
        });
        if named {
            return 1;
        }
        if s.files.is_empty() {
            return 0;
        }
        // Later sprints that name one of its files or list it: two make it
        // a foundation.
        let mut reusing: Vec<At> = Vec::new();
        for f in &s.files {
            let named = self.named_in.get(&f.to_lowercase()).into_iter().flatten();
            let listed = self.listed_in.get(f).into_iter().flatten();
            for &l in named.chain(listed) {
                if self.blocks(at, l) && !reusing.contains(&l) {
                    reusing.push(l);
                    if reusing.len() >= 2 {
                        return 1;
                    }
                }
            }
        }
        0
    }

    pub fn priority(&self, at: At) -> Priority {
        score_of(
            sprint(self.plan, at),
            self.blocked_count(at) as u32,
            self.foundation(at),
            &self.words[at.unit][at.sprint],
        )
    }
}

// ---------------------------------------------------------------------------
// Quality checks (spec §V)

impl Fitness {
    pub fn of(turns: u32, budget: u32) -> Fitness {
        let t = f64::from(turns);
        let b = f64::from(budget);
        if t > b * 0.80 {
            Fitness::Oversized
        } else if t < b * 0.15 {
            Fitness::Undersized
        } else {
            Fitness::Right
        }
    }
}

impl Quality {
    pub fn atomic(&self) -> bool {
        self.single_concern && self.clear_artifact && self.bounded_scope && self.explicit_io
    }

    pub fn testable(&self) -> bool {
        self.machine_verifiable && self.no_vague_language && self.full_coverage
    }

    /// `PASS`, or `FAIL: <first failing part>`.
    pub fn atomicity_verdict(&self) -> String {
        if !self.single_concern {
            "FAIL: Multiple concerns".into()
        } else if !self.bounded_scope {
            format!("FAIL: Oversized (est. {} turns)", self.estimated_turns)
        } else if !self.clear_artifact {
            "FAIL: No clear artifact".into()
        } else if !self.explicit_io {
            "FAIL: Implicit inputs".into()
        } else {
            "PASS".into()
        }
    }

    pub fn testability_verdict(&self) -> String {
        if !self.machine_verifiable {
            "FAIL: No machine-verifiable criterion".into()
        } else if !self.no_vague_language {
            "FAIL: Vague criteria".into()
        } else if !self.full_coverage {
            "FAIL: Tasks without criteria".into()
        } else {
            "PASS".into()
        }
    }
}

impl<'t> Phrases<'t> {
    pub fn new(text: &'t str) -> Phrases<'t> {
        let b = text.as_bytes();
        let mut words: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphanumeric() {
                let start = i;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                words.entry(&text[start..i]).or_default().push(start);
            } else {
                i += 1;
            }
        }
        Phrases { text, words }
    }

    /// [`has_phrase`], answered from the index.
    pub fn has(&self, phrase: &str) -> bool {
        let lead = phrase.bytes().take_while(u8::is_ascii_alphanumeric).count();
        if lead == 0 {
            return has_phrase(self.text, phrase);
        }
        let b = self.text.as_bytes();
        self.words.get(&phrase[..lead]).is_some_and(|starts| {
            starts.iter().any(|&i| {
                let end = i + phrase.len();
                self.text[i..].starts_with(phrase)
                    && (end == b.len() || !b[end].is_ascii_alphanumeric())
            })
        })
    }
}
