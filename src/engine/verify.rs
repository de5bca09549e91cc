//! Verification (design §6): decides COMPLETED, PARTIAL or FAILURE for an
//! agent's sprint from the repository, strongest evidence first — exit
//! criteria commands from the plan snapshot, commits in scope since the
//! dispatch commit, progress-file markers, the agent's result file, its exit
//! code, and output keywords last. The verdict says which evidence decided.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

use crate::dispatch::result;
use crate::dispatch::result::Claim;
use crate::machine::Agent;
use crate::machine::DirtyFile;
use crate::machine::Outcome;
use crate::machine::State;
use crate::machine::UnitState;
use crate::plan::CriterionKind;
use crate::plan::Sprint;
use crate::plan::TaskType;

pub struct VerifyInput<'a> {
    /// Absolute project root (where criteria run).
    pub root: &'a Path,
    pub unit: &'a str,
    pub unit_dir: &'a str,
    pub sprint: &'a Sprint,
    pub base_commit: Option<&'a str>,
    pub exit_code: Option<i32>,
    pub killed: Option<&'a str>,
    pub result_file: Option<PathBuf>,
    pub log_file: Option<PathBuf>,
    /// The agent whose work is judged, as recorded at dispatch: the files
    /// dirty before it started are not its work, and whether it continued
    /// a PARTIAL sprint. `None` judges history alone.
    pub agent: Option<&'a Agent>,
    /// What the criteria commands are told of where they run (the unit,
    /// its slot and port).
    pub env: &'a [(String, String)],
    /// The directories of the other units working in the same tree
    /// (`others`): at the project root, only they tell another agent's
    /// files from this one's.
    pub others: Vec<String>,
}

/// The directories of the units other than `unit` that work in the same
/// tree as it: none with worktrees (each unit has its own).
pub fn others(state: &State, unit: &str) -> Vec<String> {
    if state.worktrees {
        return Vec::new();
    }
    state
        .units
        .iter()
        .filter(|o| o.name != unit)
        .map(|o| o.dir.clone())
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub outcome: Outcome,
    pub evidence: String,
    pub remaining: Vec<String>,
    pub commits: Vec<String>,
    /// Turns the agent reported (result file or JSON output).
    pub turns: Option<u64>,
    /// Dollars the agent reported spending on this dispatch.
    pub cost_usd: Option<crate::machine::Usd>,
    /// The exit-criterion commands as they ran, with their output.
    pub checks: Vec<crate::machine::CriterionCheck>,
}

impl Verdict {
    /// The outcome and evidence once the watchdog is taken into account: an
    /// agent it killed for producing nothing failed its attempt, whatever
    /// it left (`watchdog`: the wrapper ended the agent itself).
    pub fn after_watchdog(&self, watchdog: bool) -> (Outcome, String) {
        match self.outcome {
            Outcome::Partial if watchdog => (
                Outcome::Failure,
                format!(
                    "{} The watchdog killed the agent, so the attempt counts as failed.",
                    self.evidence
                ),
            ),
            other => (other, self.evidence.clone()),
        }
    }
}

/// Run `git` for reading, marked internal so our own hooks stay out.
pub fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        // Reads only: never take index.lock (`git status` would refresh the
        // index), so a reader killed mid-way cannot leave a stale lock that
        // blocks the agents' commits.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn head(root: &Path) -> Option<String> {
    git(root, &["rev-parse", "--verify", "-q", "HEAD"]).map(|s| s.trim().to_string())
}

/// Commits after `base` that are this unit's work, found with one `git
/// log` (paths and trailers together). A commit whose `Supervisor-Sprint`
/// trailers name only other units is never this unit's. Otherwise a commit
/// counts when its trailer names this sprint, or it touches the unit's
/// directory — for a unit at the project root, which every commit touches,
/// only when it touches a file the sprint names (`files`).
pub fn commits_in_scope(
    root: &Path,
    base: &str,
    dir: &str,
    unit: &str,
    sprint: &str,
    files: &[String],
) -> Vec<String> {
    let range = format!("{base}..HEAD");
    let Some(out) = git(
        root,
        &[
            "log",
            "--no-renames",
            "--relative",
            "--name-only",
            "--format=%x00%H %(trailers:key=Supervisor-Sprint,valueonly,separator=%x2C)",
            &range,
        ],
    ) else {
        return Vec::new();
    };
    let marker = format!("{unit}/{sprint}");
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let named = |path: &str| names_path(files, path);
    let mut commits = Vec::new();
    for record in out.split('\0').filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let header = lines.next().unwrap_or_default();
        let (id, trailers) = header.split_once(' ').unwrap_or((header, ""));
        let marks: Vec<&str> = trailers
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if marks.contains(&marker.as_str()) {
            commits.push(id.to_string());
            continue;
        }
        let ours = marks
            .iter()
            .any(|m| m.rsplit_once('/').is_some_and(|(u, _)| u == unit));
        if !marks.is_empty() && !ours {
            // Another unit's commit, whatever it touches.
            continue;
        }
        let touches = lines.any(|path| {
            !path.is_empty()
                && if dir == "." {
                    named(path)
                } else {
                    path.starts_with(&prefix)
                }
        });
        if touches {
            commits.push(id.to_string());
        }
    }
    commits
}

/// One of `files` (as a sprint names them) is `path` or a directory holding
/// it.
fn names_path(files: &[String], path: &str) -> bool {
    files.iter().any(|f| {
        let f = f.trim_start_matches("./").trim_end_matches('/');
        !f.is_empty() && (path == f || path.starts_with(&format!("{f}/")))
    })
}

/// Sprints that commits in `base..head` mark complete with their trailers
/// (`Supervisor-Sprint: <unit>/<id>` and `Supervisor-Status: complete`), as
/// (unit, sprint, commit), oldest first. One `git log` over the new commits
/// only: the cost follows what is new, not the history's length.
pub fn completion_claims(root: &Path, base: &str, head: &str) -> Vec<(String, String, String)> {
    let range = format!("{base}..{head}");
    let Some(out) = git(
        root,
        &[
            "log",
            "--reverse",
            "--format=%H|%(trailers:key=Supervisor-Sprint,valueonly,separator=%x2C)|%(trailers:key=Supervisor-Status,valueonly,separator=%x2C)",
            &range,
        ],
    ) else {
        return Vec::new();
    };
    let mut claims = Vec::new();
    for line in out.lines() {
        let mut parts = line.splitn(3, '|');
        let (Some(id), Some(sprints), Some(status)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if !status.split(',').any(|s| s.trim() == "complete") {
            continue;
        }
        for marker in sprints.split(',') {
            if let Some((unit, sprint)) = marker.trim().rsplit_once('/') {
                claims.push((unit.to_string(), sprint.to_string(), id.to_string()));
            }
        }
    }
    claims
}

/// The unit's progress file, relative to the project root.
pub fn progress_file(dir: &str) -> String {
    if dir == "." {
        "PROGRESS.md".to_string()
    } else {
        format!("{dir}/PROGRESS.md")
    }
}

/// Lines added to the progress file since `base` (at `base` against the
/// working tree), compared with `similar`.
pub fn progress_added(root: &Path, base: &str, dir: &str) -> Vec<String> {
    let file = progress_file(dir);
    let Ok(now) = std::fs::read_to_string(root.join(&file)) else {
        return Vec::new();
    };
    let before = git(root, &["show", &format!("{base}:{file}")]).unwrap_or_default();
    if before == now {
        return Vec::new();
    }
    similar::TextDiff::from_lines(&before, &now)
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Insert)
        .map(|c| c.value().trim_end().to_string())
        .collect()
}

/// Whether added progress lines say sprint `id` is complete (spec §H-5c
/// markers; a partial marker on the same line wins).
pub fn progress_says_complete(added: &[String], id: &str) -> bool {
    let lower: Vec<String> = added.iter().map(|l| l.to_ascii_lowercase()).collect();
    let names_it = |l: &str| {
        l.split(|c: char| !c.is_ascii_alphanumeric())
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[0] == "sprint" && w[1] == id)
    };
    let partial = |l: &str| {
        ["(partial)", "incomplete", "in progress"]
            .iter()
            .any(|m| l.contains(m))
    };
    // v1's form: the sprint noted as committed, and `Build status: passing`.
    let build_passing = lower.iter().any(|l| l.contains("build status: passing"));
    lower.iter().any(|l| {
        let done = ["complete", "done", "passing", "committed"]
            .iter()
            .any(|m| l.contains(m));
        names_it(l) && !partial(l) && (done || build_passing)
    })
}

/// Entries under a "Cross-Package Needs" (or "Cross-Unit Needs") heading of
/// a progress file.
pub fn cross_unit_needs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            let l = t.to_ascii_lowercase();
            inside = l.contains("cross-package needs") || l.contains("cross-unit needs");
            continue;
        }
        if inside {
            if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
                let item = item.trim_start_matches("[ ] ").trim();
                if !item.is_empty() && !item.eq_ignore_ascii_case("none") {
                    out.push(item.to_string());
                }
            }
        }
    }
    out
}

/// A commit after `base` marks this sprint complete with its trailers.
pub fn claims_complete(root: &Path, base: &str, unit: &str, sprint: &str) -> bool {
    let range = format!("{base}..HEAD");
    let marker = format!("{unit}/{sprint}");
    git(
        root,
        &[
            "log",
            "--format=%(trailers:key=Supervisor-Sprint,valueonly,separator=%x2C)|%(trailers:key=Supervisor-Status,valueonly,separator=%x2C)",
            &range,
        ],
    )
    .is_some_and(|out| {
        out.lines().any(|l| {
            let (sprints, status) = l.split_once('|').unwrap_or((l, ""));
            sprints.split(',').any(|s| s.trim() == marker) && status.split(',').any(|s| s.trim() == "complete")
        })
    })
}

/// Uncommitted paths under `dir`, with the blob id of each one's content
/// (untracked files one by one, never a whole untracked directory).
pub fn dirty_files(root: &Path, dir: &str) -> Vec<DirtyFile> {
    let Some(out) = git(
        root,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            dir,
        ],
    ) else {
        return Vec::new();
    };
    // Porcelain paths are relative to the repository's top; the project
    // root may be a directory inside it.
    let prefix = git(root, &["rev-parse", "--show-prefix"])
        .map(|p| p.trim().to_string())
        .unwrap_or_default();
    let mut paths: Vec<String> = Vec::new();
    let mut entries = out.split('\0').filter(|e| !e.is_empty());
    while let Some(entry) = entries.next() {
        let status = entry.get(..2).unwrap_or_default();
        if let Some(path) = entry.get(3..) {
            paths.push(
                path.strip_prefix(prefix.as_str())
                    .unwrap_or(path)
                    .to_string(),
            );
        }
        // A rename or copy is followed by its source path.
        if status.contains('R') || status.contains('C') {
            entries.next();
        }
    }
    let existing: Vec<&String> = paths.iter().filter(|p| root.join(p).is_file()).collect();
    let mut hashes = std::collections::HashMap::new();
    if !existing.is_empty() {
        let mut args = vec!["hash-object", "--"];
        args.extend(existing.iter().map(|p| p.as_str()));
        if let Some(out) = git(root, &args) {
            for (p, h) in existing.iter().zip(out.lines()) {
                hashes.insert(p.to_string(), h.trim().to_string());
            }
        }
    }
    paths
        .into_iter()
        .map(|path| DirtyFile {
            hash: hashes.get(&path).cloned().unwrap_or_default(),
            path,
        })
        .collect()
}

/// Uncommitted paths under `dir` that differ from `baseline` (the unit's
/// dirty files when its agent was dispatched): what the agent left.
pub fn left_since(root: &Path, dir: &str, baseline: &[DirtyFile]) -> Vec<String> {
    dirty_files(root, dir)
        .into_iter()
        .filter(|f| !baseline.contains(f))
        .map(|f| f.path)
        .collect()
}

/// The unit's uncommitted paths its agent left: those that were not dirty,
/// with the same content, when the agent was dispatched.
/// At the project root, paths in another unit's directory are that unit's;
/// only when another unit works at the root too are the files the sprint
/// names (and the progress file) all that tells the two agents apart.
pub fn uncommitted(root: &Path, state: &State, unit: &UnitState) -> Vec<String> {
    let agent = unit.sprints.iter().find_map(|s| s.agent.as_ref());
    let baseline = agent.map(|a| a.dirty.as_slice()).unwrap_or_default();
    // In a worktree of its own everything left is the unit's.
    if state.worktrees {
        return left_since(root, ".", baseline);
    }
    let mut left = left_since(root, &unit.dir, baseline);
    let others: Vec<String> = state
        .units
        .iter()
        .filter(|o| o.name != unit.name)
        .map(|o| o.dir.clone())
        .collect();
    if unit.dir == "." && others.iter().any(|d| d == ".") {
        let files = agent.map(|a| a.files.as_slice()).unwrap_or_default();
        left.retain(|p| names_path(files, p) || *p == progress_file("."));
    } else if unit.dir == "." {
        left.retain(|p| !names_path(&others, p));
    }
    left
}

/// Markers in lines added to the unit's progress file since `base`
/// (spec §H-5c and v1): `(partial)`, `incomplete`, `in progress` → partial;
/// `complete`, `done`, `passing` → complete.
pub fn progress_claim(root: &Path, base: &str, dir: &str) -> (bool, Option<Claim>) {
    let file = if dir == "." {
        "PROGRESS.md".to_string()
    } else {
        format!("{dir}/PROGRESS.md")
    };
    let Some(diff) = git(root, &["diff", base, "--", &file]) else {
        return (false, None);
    };
    let added: Vec<String> = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(|l| l[1..].to_ascii_lowercase())
        .collect();
    if added.is_empty() {
        return (false, None);
    }
    let any = |w: &[&str]| added.iter().any(|l| w.iter().any(|x| l.contains(x)));
    let claim = if any(&[
        "(partial)",
        "incomplete",
        "in progress",
        "context exhausted",
    ]) {
        Some(Claim::Partial)
    } else if any(&["complete", "done", "passing"]) {
        Some(Claim::Complete)
    } else {
        None
    };
    (true, claim)
}

pub fn verify(input: &VerifyInput) -> Verdict {
    let sprint = input.sprint;
    let mut evidence: Vec<String> = Vec::new();
    let mut remaining: Vec<String> = Vec::new();

    // 1. Exit criteria commands (authoritative when present).
    let checks: Vec<(&str, &str, Option<&str>)> = sprint
        .exit
        .iter()
        .filter(|c| c.kind != CriterionKind::Checklist)
        .filter_map(|c| {
            c.command
                .as_deref()
                .map(|cmd| (c.text.as_str(), cmd, c.expected.as_deref()))
        })
        .collect();
    let mut ran = Vec::new();
    let criteria_ok = if checks.is_empty() {
        None
    } else {
        let mut passed = 0;
        for (text, cmd, expected) in &checks {
            let check = super::criteria::check(input.root, text, cmd, *expected, input.env);
            match &check.why {
                None => passed += 1,
                Some(why) => remaining.push(format!("{text} ({why})")),
            }
            ran.push(check);
        }
        evidence.push(format!("exit criteria {passed}/{} passed", checks.len()));
        Some(passed == checks.len())
    };

    // 2. Commits in scope since the dispatch commit.
    let id = sprint.id.to_string();
    let commits = match input.base_commit {
        Some(base) => commits_in_scope(
            input.root,
            base,
            input.unit_dir,
            input.unit,
            &id,
            &sprint.files,
        ),
        None => Vec::new(),
    };
    evidence.push(format!(
        "{} commit{} in scope",
        commits.len(),
        if commits.len() == 1 { "" } else { "s" }
    ));
    let needs_commit = sprint.task_type == TaskType::Code;
    let has_commit = !commits.is_empty();
    let (log_tail, reported) = agent_report(input);
    if criteria_ok == Some(true)
        && (!needs_commit || has_commit)
        && sprint.task_type != TaskType::Manual
    {
        // The strongest evidence is definitive: weaker sources are not asked.
        return Verdict {
            outcome: Outcome::Completed,
            evidence: format!("{}; decided by the exit criteria.", evidence.join(", ")),
            remaining,
            commits,
            turns: reported.as_ref().and_then(|r| r.turns),
            cost_usd: reported
                .as_ref()
                .and_then(|r| r.cost_usd)
                .and_then(crate::machine::Usd::from_dollars),
            checks: ran,
        };
    }
    // Uncommitted work and the progress file, against the tree at dispatch:
    // files already dirty then (with the same content) are not the agent's.
    let baseline = input.agent.map(|a| a.dirty.as_slice()).unwrap_or_default();
    let mut dirty = left_since(input.root, input.unit_dir, baseline);
    if input.unit_dir == "." && input.others.iter().any(|d| d == ".") {
        // At the project root other units' agents work too: only files the
        // sprint names are this agent's progress (as with commits).
        dirty.retain(|p| names_path(&sprint.files, p) || *p == progress_file("."));
    } else if input.unit_dir == "." {
        // Alone at the root: all but the other units' directories is its.
        dirty.retain(|p| !names_path(&input.others, p));
    }
    if !dirty.is_empty() {
        evidence.push(format!("{} uncommitted path(s)", dirty.len()));
    }
    let progress_untouched = {
        let file = progress_file(input.unit_dir);
        baseline.iter().any(|f| f.path == file) && !dirty.contains(&file)
    };
    let (progress_moved, progress) = match input.base_commit {
        Some(base) if !progress_untouched => progress_claim(input.root, base, input.unit_dir),
        _ => (false, None),
    };
    if let Some(p) = progress {
        evidence.push(format!("progress file says {}", claim_word(p)));
    }

    // 3. The agent's own word: result file, CLI output, exit code, keywords.
    let turns = reported.as_ref().and_then(|r| r.turns);
    let mut claim = reported.as_ref().and_then(|r| r.claim);
    // What the agent (or its progress file) said in so many words.
    let explicit = claim.or(progress);
    if let (Some(r), Some(c)) = (&reported, claim) {
        evidence.push(format!("{} says {}", r.source, claim_word(c)));
    }
    // Denied tools or an agent error: the reason goes into the evidence, so
    // into the retry prompt and `status`.
    let agent_failure = reported.as_ref().and_then(|r| r.failure_reason());
    if let Some(why) = &agent_failure {
        evidence.push(why.clone());
    }
    let denied = reported.as_ref().is_some_and(|r| !r.denials.is_empty());
    if let Some(code) = input.exit_code {
        evidence.push(format!("exit {code}"));
    }
    if let Some(k) = input.killed {
        evidence.push(k.to_string());
    }
    if claim.is_none() {
        claim = progress;
    }
    if claim.is_none() && input.exit_code.is_some_and(|c| c != 0) {
        claim = Some(Claim::Failed);
    }
    if claim.is_none() {
        claim = result::keywords(&log_tail);
        if let Some(c) = claim {
            evidence.push(format!("output keywords say {}", claim_word(c)));
        }
    }

    // A deferred sprint no command can check waits on its agent's report:
    // only an explicit "complete" ends it; anything else is waiting (not
    // failure), unless the agent crashed or was killed.
    let waits_on_agent = sprint.task_type == TaskType::Deferred && criteria_ok.is_none();
    if waits_on_agent {
        let done = explicit == Some(Claim::Complete) && input.killed.is_none();
        let crashed = input.killed.is_some()
            || (input.exit_code.is_some_and(|c| c != 0) && explicit.is_none());
        if !done {
            // The condition, for the wait's messages and the next check.
            remaining = sprint.exit.iter().map(|c| c.text.clone()).collect();
            if remaining.is_empty() {
                remaining.push(sprint.name.clone());
            }
        }
        // "Deployment errored" is not "not yet": waiting on would never end.
        let (outcome, decided_by) = if done {
            (Outcome::Completed, "the agent reports the condition met")
        } else if explicit == Some(Claim::Failed) {
            (Outcome::Failure, "the check reports a failure")
        } else if crashed {
            (Outcome::Failure, "the check itself failed")
        } else {
            (
                Outcome::Partial,
                "the condition is not met yet; waiting is not failure",
            )
        };
        return Verdict {
            outcome,
            evidence: format!("{}; {decided_by}.", evidence.join(", ")),
            remaining,
            commits,
            turns,
            cost_usd: reported
                .as_ref()
                .and_then(|r| r.cost_usd)
                .and_then(crate::machine::Usd::from_dollars),
            checks: ran,
        };
    }
    let done = match criteria_ok {
        Some(ok) => ok && (!needs_commit || has_commit),
        None => {
            let agent_ok = match claim {
                Some(Claim::Complete) => true,
                Some(_) => false,
                None => input.exit_code == Some(0),
            };
            agent_ok && input.killed.is_none() && (!needs_commit || has_commit)
        }
    };
    if needs_commit && !has_commit && criteria_ok != Some(false) {
        remaining.push("commit the sprint's work (no commit in scope yet)".into());
    }
    // The agent's word alone ("context exhausted", "partial") moves nothing:
    // without a change in scope the attempt failed.
    let moved = has_commit || progress_moved || !dirty.is_empty();
    let outcome = if sprint.task_type == TaskType::Manual {
        // Manual sprints wait for a person (`git supervisor confirm`).
        Outcome::Partial
    } else if done {
        Outcome::Completed
    } else if denied {
        // The agent could not do what the sprint needs: a continuation
        // would be denied the same tools, so this is a failure.
        Outcome::Failure
    } else if moved {
        Outcome::Partial
    } else {
        Outcome::Failure
    };
    if outcome == Outcome::Partial {
        // The agent's own list of what is left, after the failing criteria.
        for r in reported.iter().flat_map(|r| &r.remaining) {
            if !remaining.contains(r) {
                remaining.push(r.clone());
            }
        }
    }
    let decided_by = match (outcome, criteria_ok) {
        (Outcome::Completed, Some(_)) => "decided by the exit criteria",
        (Outcome::Completed, None) => {
            "decided by commits and the agent's report (no runnable exit criteria)"
        }
        (Outcome::Partial, _) if sprint.task_type == TaskType::Manual => {
            "manual sprint: waits for confirmation"
        }
        (Outcome::Partial, _) => "work moved but is not done",
        (Outcome::Failure, _) if denied => "the agent was denied the tools it needed",
        (Outcome::Failure, _) => "nothing in scope moved",
    };
    Verdict {
        outcome,
        evidence: format!("{}; {decided_by}.", evidence.join(", ")),
        remaining,
        commits,
        turns,
        cost_usd: reported
            .as_ref()
            .and_then(|r| r.cost_usd)
            .and_then(crate::machine::Usd::from_dollars),
        checks: ran,
    }
}

/// The end of the agent's output and what it reported: the result file
/// first, what the CLI printed (Claude/Codex JSON, aider's cost lines) for
/// anything the file leaves out.
fn agent_report(input: &VerifyInput) -> (String, Option<result::AgentResult>) {
    let log = input
        .log_file
        .as_deref()
        .map(result::read_log)
        .unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    let log_tail = lines[lines.len().saturating_sub(40)..].join("\n");
    let from_file = input
        .result_file
        .as_deref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| result::read_result_file(&t));
    let from_output = result::read_agent_output(&log);
    let reported = match (from_file, from_output) {
        (Some(f), Some(o)) => Some(f.or(o)),
        (f, o) => f.or(o),
    };
    (log_tail, reported)
}

fn claim_word(c: Claim) -> &'static str {
    match c {
        Claim::Complete => "complete",
        Claim::Partial => "partial",
        Claim::Failed => "failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_markers() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(progress_says_complete(
            &lines(&["- Sprint 2: complete"]),
            "2"
        ));
        assert!(!progress_says_complete(
            &lines(&["- Sprint 2: complete"]),
            "3"
        ));
        assert!(!progress_says_complete(
            &lines(&["- Sprint 2 (partial)"]),
            "2"
        ));
        assert!(!progress_says_complete(
            &lines(&["Sprint 2 (incomplete — context exhausted, no commit)"]),
            "2"
        ));
        assert!(progress_says_complete(
            &lines(&["Sprint 2a: types ported", "Build status: passing"]),
            "2a"
        ));
        assert_eq!(
            cross_unit_needs("# P\n## Cross-Package Needs\n- Token from parser\n- none\n## Notes\n- not a need\n"),
            vec!["Token from parser".to_string()]
        );
    }
}
