//! What the tick notices before it dispatches: agents that reported or
//! are gone (judged by verification), sprints the plan marks done, and
//! needs that changed.

use std::path::Path;

use crate::base::runtime;
use crate::dispatch;
use crate::dispatch::Report;
use crate::machine;
use crate::machine::EventKind;
use crate::machine::SprintStatus;
use crate::plan::TaskType;
use crate::store::Tip;

use super::observed_queue::Claim;
use super::observed_queue::Late;
use super::observed_queue::Queued;
use super::short;
use super::Engine;
use super::EngineError;

impl Engine {
    /// The cross-unit needs in the units' progress files, when they differ
    /// from the registry in the state.
    pub(super) fn needs_changed(&self, tip: &Tip) -> Option<EventKind> {
        let state = &tip.state;
        // With worktrees a unit's progress file is in its own worktree.
        let worktree_config = self
            .snapshot(tip)
            .ok()
            .map(|(_, c)| c)
            .filter(|c| self.workspaces(state, c).is_some());
        let mut needs = Vec::new();
        for u in &state.units {
            let progress = super::verify::progress_file(&u.dir);
            let text = match &worktree_config {
                Some(c) => {
                    let ws = self.workspaces(state, c).expect("filtered on worktrees");
                    // A unit whose worktree is gone (integrated and removed)
                    // left its progress file on the integration branch.
                    if ws.unit_path(&u.name).join(".git").exists() {
                        std::fs::read_to_string(self.unit_root(state, c, &u.name).join(&progress))
                            .ok()
                    } else {
                        ws.integrated_file(&Path::new(&state.root).join(&progress))
                    }
                }
                None => std::fs::read_to_string(self.project_root(state).join(&progress)).ok(),
            };
            if let Some(text) = text {
                needs.extend(
                    super::verify::cross_unit_needs(&text)
                        .into_iter()
                        .map(|text| crate::machine::Need {
                            unit: u.name.clone(),
                            text,
                        }),
                );
            }
        }
        (needs != state.needs).then(|| {
            let rulings = self.need_rulings(tip, &needs);
            EventKind::Needs { needs, rulings }
        })
    }

    /// History that reached the branch since the last reconciliation (commits
    /// made with hooks disabled, by another tool, fetched, or while the engine
    /// was down): a trailer-marked completion of a unit's current waiting
    /// sprint whose exit criteria pass completes it without a dispatch. With
    /// worktrees every worktree's checked-out branch is looked at, and the
    /// work goes through the merge queue before it is credited
    /// (`observed_queue.rs`).
    pub(super) fn next_observation(&self, tip: &Tip) -> Result<Option<EventKind>, EngineError> {
        let state = &tip.state;
        let Some(head) = self.store.head_id() else {
            return Ok(None);
        };
        let Some(reconciled) = state.reconciled.clone() else {
            return Ok(None);
        };
        // Only a started unit's waiting sprint can be credited from history.
        // With worktrees, a hand commit for a sprint already credited still
        // has to reach the integration branch (`Engine::late_observation`).
        let creditable = state.units.iter().any(|u| {
            u.state != crate::machine::UnitStatus::NotStarted
                && u.current().is_some_and(|sp| !sp.state.is_active())
                || state.worktrees
                    && u.sprints
                        .iter()
                        .any(|sp| sp.state == SprintStatus::Completed)
        });
        if !creditable {
            return Ok(None);
        }
        let workspaces = if state.worktrees {
            let (_, config) = self.snapshot(tip)?;
            self.workspaces(state, &config)
        } else {
            None
        };
        // A disposable cache of what was already scanned without a finding.
        let cache = self.runtime(runtime::RECONCILED);
        let cached = std::fs::read_to_string(&cache).unwrap_or_default();
        let root = self.project_root(state);
        let mut claims: Vec<Claim> = Vec::new();
        // Found on a unit's branch no worktree holds: late fixes only.
        let mut unheld: Vec<Claim> = Vec::new();
        let scanned = match &workspaces {
            None => {
                let from = cached
                    .trim()
                    .split_once(' ')
                    .filter(|(base, _)| *base == reconciled)
                    .map_or_else(|| reconciled.clone(), |(_, upto)| upto.to_string());
                if from == head {
                    return Ok(None);
                }
                claims.extend(self.claims_between(&root, &from, &head));
                format!("{reconciled} {head}")
            }
            Some(ws) => {
                // Incremental per worktree: what any worktree's HEAD held
                // when last scanned without a finding was judged then.
                let tips = self.observation_tips(state);
                let unheld_tips: Vec<(std::path::PathBuf, String)> = self
                    .unheld_branch_tips(state, ws)
                    .into_iter()
                    .filter(|(_, b)| !tips.iter().any(|(_, h)| h == b))
                    .collect();
                let before: Vec<&str> = match cached.split_whitespace().collect::<Vec<_>>() {
                    scanned if scanned.first() == Some(&reconciled.as_str()) => scanned,
                    _ => vec![reconciled.as_str()],
                };
                let mut heads: Vec<String> = tips
                    .iter()
                    .chain(&unheld_tips)
                    .map(|(_, h)| h.clone())
                    .collect();
                heads.sort();
                heads.dedup();
                if heads.iter().all(|h| before.contains(&h.as_str())) {
                    return Ok(None);
                }
                for (tree, tip_head) in &tips {
                    for c in self.claims_hiding(tree, &before, tip_head) {
                        if !known(&claims, &c) {
                            claims.push(c);
                        }
                    }
                }
                for (tree, tip_head) in &unheld_tips {
                    for c in self.claims_hiding(tree, &before, tip_head) {
                        if !known(&claims, &c) && !known(&unheld, &c) {
                            unheld.push(c);
                        }
                    }
                }
                std::iter::once(reconciled.clone())
                    .chain(heads)
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        // Progress markers count as a claim too, for sprints waiting after a
        // failure or an interruption (a fresh PENDING sprint is about to be
        // dispatched and is judged then).
        for u in &state.units {
            let Some(sp) = u.current() else { continue };
            let waiting = matches!(
                sp.state,
                SprintStatus::Backoff | SprintStatus::Fatal | SprintStatus::Partial
            ) || (sp.state == SprintStatus::Pending && sp.total_attempts > 0);
            if waiting && u.state != crate::machine::UnitStatus::NotStarted {
                let id = sp.id.to_string();
                let added = super::verify::progress_added(&root, &reconciled, &u.dir);
                if super::verify::progress_says_complete(&added, &id) {
                    claims.push(Claim {
                        unit: u.name.clone(),
                        sprint: id,
                        source: format!("{} (progress file)", super::verify::progress_file(&u.dir)),
                        root: root.clone(),
                        tip: head.clone(),
                    });
                }
            }
        }
        // A claim a failing build stands against is kept for when the commits
        // change: the range is not marked scanned.
        let mut held_back = false;
        if !claims.is_empty() {
            let (plan, _) = self.snapshot(tip)?;
            let held = self.held_by_failed_build(state);
            for u in &state.units {
                if u.state == crate::machine::UnitStatus::NotStarted {
                    continue;
                }
                if held.contains(&u.name) {
                    held_back |= claims.iter().any(|c| c.unit == u.name);
                    continue;
                }
                let Some(sp) = u.current() else { continue };
                if sp.state.is_active() {
                    continue;
                }
                let id = sp.id.to_string();
                let marked: Vec<&Claim> = claims
                    .iter()
                    .filter(|c| c.unit == u.name && c.sprint == id)
                    .collect();
                if marked.is_empty() {
                    continue;
                }
                let Some(sprint) = plan
                    .unit(&u.name)
                    .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                else {
                    continue;
                };
                let verdict = super::verify::verify(&super::verify::VerifyInput {
                    env: &self.unit_env_at(tip, &u.name),
                    others: super::verify::others(&tip.state, &u.name),
                    root: &marked[0].root,
                    unit: &u.name,
                    unit_dir: &u.dir,
                    sprint,
                    base_commit: Some(&reconciled),
                    exit_code: None,
                    killed: None,
                    result_file: None,
                    log_file: None,
                    agent: None,
                });
                let runnable = sprint.exit.iter().any(|c| c.command.is_some());
                let source = if marked[0].is_progress_file() {
                    marked[0].source.clone()
                } else {
                    format!("commit {}", short(&marked[0].source))
                };
                let mut evidence = if verdict.outcome == machine::Outcome::Completed {
                    format!("{source} marks it complete; {}", verdict.evidence)
                } else if !runnable && sprint.task_type != TaskType::Manual {
                    format!("{source} marks it complete (no runnable exit criteria).")
                } else {
                    continue;
                };
                if let Some(ws) = &workspaces {
                    match self.observed_through_queue(tip, ws, &u.name, &sp.id, &marked, false)? {
                        Queued::Integrated(said) => evidence = format!("{evidence} {said}"),
                        Queued::Refused(text) => {
                            return Ok(Some(EventKind::Notice {
                                unit: Some(u.name.clone()),
                                sprint: Some(sp.id.clone()),
                                text,
                            }))
                        }
                        Queued::RefusedBefore => continue,
                        Queued::Busy => {
                            held_back = true;
                            continue;
                        }
                    }
                }
                let mut commits = verdict.commits;
                for c in marked.iter().filter(|c| !c.is_progress_file()) {
                    if !commits.contains(&c.source) {
                        commits.push(c.source.clone());
                    }
                }
                // With worktrees the reconciled commit stays: the user's
                // branch may hold other units' claims not judged yet, and
                // the cache scans each worktree incrementally instead.
                let head = if workspaces.is_some() {
                    reconciled.clone()
                } else {
                    head
                };
                return Ok(Some(EventKind::Observed {
                    unit: u.name.clone(),
                    sprint: sp.id.clone(),
                    evidence,
                    commits,
                    head,
                }));
            }
        }
        if let (Some(ws), false) = (&workspaces, claims.is_empty() && unheld.is_empty()) {
            claims.extend(unheld);
            match self.late_observation(tip, ws, &claims)? {
                Late::Said(kind) => return Ok(Some(*kind)),
                Late::Busy => held_back = true,
                Late::Nothing => {}
            }
        }
        if !held_back {
            let _ = std::fs::write(&cache, scanned);
        }
        Ok(None)
    }

    /// Trailer-marked completions in `from..head`, found in the tree at
    /// `root` (which has `head` checked out).
    fn claims_between(&self, root: &Path, from: &str, head: &str) -> Vec<Claim> {
        self.claims_hiding(root, &[from], head)
    }

    /// Trailer-marked completions of `head` that none of `hidden` holds.
    fn claims_hiding(&self, root: &Path, hidden: &[&str], head: &str) -> Vec<Claim> {
        if hidden.contains(&head) {
            return Vec::new();
        }
        self.store
            .completion_claims_hiding(hidden, head)
            .unwrap_or_else(|| super::observed_queue::claims_by_git(root, hidden, head))
            .into_iter()
            .map(|(unit, sprint, commit)| Claim {
                unit,
                sprint,
                source: commit,
                root: root.to_path_buf(),
                tip: head.to_string(),
            })
            .collect()
    }

    /// The first agent report that changes state, in plan order.
    pub(super) fn next_agent_event(&self, tip: &Tip) -> Result<Option<EventKind>, EngineError> {
        let state = &tip.state;
        // The worktree layout, when the run has one (a snapshot that does
        // not parse is reported where the plan is needed, not here).
        let worktree_config = self
            .snapshot(tip)
            .ok()
            .map(|(_, c)| c)
            .filter(|c| self.workspaces(state, c).is_some());
        let worktrees = worktree_config.is_some();
        // With worktrees, verdicts feed the merge queue: the agent that
        // finished first is judged (and merged) first.
        let mut order: Vec<(Option<std::time::SystemTime>, &crate::machine::UnitState)> = state
            .units
            .iter()
            .map(|u| {
                let finished_at = u.active_sprint().filter(|_| worktrees).and_then(|sp| {
                    let report = self.agent_paths(&u.name, &sp.id, sp.dispatches).report;
                    Report::read(&report)
                        .filter(|r| r.finished)
                        .and_then(|_| std::fs::metadata(&report).ok()?.modified().ok())
                });
                (finished_at, u)
            })
            .collect();
        // Finished first (earliest first), then the rest in plan order.
        order.sort_by_key(|(at, _)| (at.is_none(), *at));
        for u in order.into_iter().map(|(_, u)| u) {
            let Some(sp) = u.active_sprint() else {
                continue;
            };
            if self.hosted_elsewhere(sp) {
                continue;
            }
            let paths = self.agent_paths(&u.name, &sp.id, sp.dispatches);
            let report = Report::read(&paths.report).unwrap_or_default();
            if sp.state == SprintStatus::Dispatched && report.started && !report.finished {
                return Ok(Some(EventKind::AgentStarted {
                    unit: u.name.clone(),
                    pid: report.pid,
                    worker: None,
                }));
            }
            // The dispatching tick waits for the wrapper to take the liveness
            // lock before it lets go of the engine lock, so a free lock and no
            // wrapper process (one may be waiting for the previous agent's
            // lock) mean the agent is gone: crashed, killed, never started.
            let gone = !report.finished
                && !crate::base::lock::is_held(&paths.lock)
                && !report.wrapper_pid.is_some_and(dispatch::alive);
            // An agent still at work may already have committed the sprint as
            // complete (trailers `Supervisor-Sprint: <unit>/<id>` and
            // `Supervisor-Status: complete`): a post-commit hook's tick
            // verifies it then, without waiting for the process to exit.
            let base = sp.agent.as_ref().and_then(|a| a.base_commit.as_deref());
            // With worktrees a sprint is judged once its agent is done: its
            // merge may leave conflicts in the tree the agent works in.
            // A background sprint is judged once its agent has exited and
            // left its process running.
            if !report.finished
                && !gone
                && sp.state == SprintStatus::Running
                && !worktrees
                && sp.task_type != TaskType::Background
            {
                let head = self.store.head_id();
                if let (Some(base), Some(head)) = (base, head) {
                    if head != base {
                        let root = self.project_root(state);
                        if super::verify::claims_complete(&root, base, &u.name, &sp.id.to_string())
                        {
                            let (plan, _) = self.snapshot(tip)?;
                            if let Some(sprint) = plan
                                .unit(&u.name)
                                .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                            {
                                let verdict = super::verify::verify(&super::verify::VerifyInput {
                                    env: &self.unit_env_at(tip, &u.name),
                                    others: super::verify::others(&tip.state, &u.name),
                                    root: &root,
                                    unit: &u.name,
                                    unit_dir: &u.dir,
                                    sprint,
                                    base_commit: Some(base),
                                    exit_code: None,
                                    killed: None,
                                    result_file: None,
                                    log_file: None,
                                    agent: sp.agent.as_ref(),
                                });
                                if verdict.outcome == machine::Outcome::Completed {
                                    return Ok(Some(EventKind::Verdict {
                                        unit: u.name.clone(),
                                        outcome: verdict.outcome,
                                        evidence: format!(
                                            "{} (the agent's commit marked it complete)",
                                            verdict.evidence
                                        ),
                                        remaining: verdict.remaining,
                                        commits: verdict.commits,
                                        turns: verdict.turns,
                                        cost: verdict.cost_usd,
                                        checks: verdict.checks,
                                    }));
                                }
                            }
                        }
                    }
                }
            }
            // Gone before its wrapper started the agent (the engine ended
            // between the dispatch and the start): nothing ran, so nothing
            // is judged or charged.
            if gone
                && !report.started
                && sp.state == SprintStatus::Dispatched
                && sp.agent.as_ref().is_none_or(|a| a.pid.is_none())
            {
                return Ok(Some(EventKind::NeverStarted {
                    unit: u.name.clone(),
                }));
            }
            if report.finished || gone {
                if let Some(kind) = self.background_to_record(&u.name, sp, &report) {
                    return Ok(Some(kind));
                }
                let (plan, _) = self.snapshot(tip)?;
                let Some(sprint) = plan
                    .unit(&u.name)
                    .and_then(|pu| pu.sprints.iter().find(|s| s.id == sp.id))
                else {
                    continue;
                };
                let root = match &worktree_config {
                    Some(c) => self.unit_root(state, c, &u.name),
                    None => self.project_root(state),
                };
                let killed = if gone {
                    Some("the agent's wrapper is gone without a report")
                } else {
                    report.killed.as_deref()
                };
                let verdict = super::verify::verify(&super::verify::VerifyInput {
                    env: &self.unit_env_at(tip, &u.name),
                    others: super::verify::others(&tip.state, &u.name),
                    root: &root,
                    unit: &u.name,
                    unit_dir: &u.dir,
                    sprint,
                    base_commit: sp.agent.as_ref().and_then(|a| a.base_commit.as_deref()),
                    exit_code: report.exit_code,
                    killed,
                    result_file: Some(paths.result.clone()),
                    log_file: Some(paths.log.clone()),
                    agent: sp.agent.as_ref(),
                });
                let (outcome, evidence) = verdict.after_watchdog(!gone && report.killed.is_some());
                // The agent stopped on its subscription's usage limit: unless
                // its work is done anyway, the sprint waits for the reset,
                // uncharged.
                if let Some(limit) = report
                    .usage_limit
                    .as_ref()
                    .filter(|_| outcome != machine::Outcome::Completed)
                {
                    return Ok(Some(EventKind::UsageLimited {
                        unit: u.name.clone(),
                        agent: limit.agent.clone(),
                        resets_at: limit.resets_at.clone(),
                        met_at: limit.met_at.clone(),
                        line: limit.line.clone(),
                    }));
                }
                let (outcome, evidence) =
                    self.background_verdict(sp, &sp.background, outcome, evidence);
                // Checked as it goes: what the unit changed must parse
                // before it goes to the merge queue.
                let (outcome, evidence) = match &worktree_config {
                    Some(config) if outcome != machine::Outcome::Failure => {
                        let base = sp.agent.as_ref().and_then(|a| a.base_commit.as_deref());
                        self.quick_checked(&root, base, config, tip, &u.name, outcome, evidence)
                    }
                    _ => (outcome, evidence),
                };
                let Some((outcome, evidence)) =
                    self.through_queue(tip, &u.name, &sp.id, outcome, evidence)?
                else {
                    continue;
                };
                return Ok(Some(EventKind::Verdict {
                    unit: u.name.clone(),
                    outcome,
                    evidence,
                    remaining: verdict.remaining,
                    commits: verdict.commits,
                    turns: verdict.turns,
                    cost: verdict.cost_usd,
                    checks: verdict.checks,
                }));
            }
        }
        Ok(None)
    }

    /// A verdict after the quick check of the unit's changed files: a
    /// failure names the checker and what it printed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn quick_checked(
        &self,
        root: &std::path::Path,
        base: Option<&str>,
        config: &crate::config::Config,
        tip: &Tip,
        unit: &str,
        outcome: machine::Outcome,
        evidence: String,
    ) -> (machine::Outcome, String) {
        let Some(base) = base else {
            return (outcome, evidence);
        };
        let files = super::quick_check::changed_files(root, base);
        let commands = super::quick_check::commands(&files, root, config.build.check.as_deref());
        match super::quick_check::run(root, &commands, &self.unit_env_at(tip, unit)) {
            Some(failed) => (
                machine::Outcome::Failure,
                format!(
                    "The quick check `{}` failed on the unit's changes, so they do not reach the integration branch:\n{}",
                    failed.command, failed.output
                ),
            ),
            None => (outcome, evidence),
        }
    }
}

/// `claim` (the same commit for the same sprint) is among `claims`.
fn known(claims: &[Claim], claim: &Claim) -> bool {
    claims
        .iter()
        .any(|k| k.source == claim.source && k.unit == claim.unit && k.sprint == claim.sprint)
}
