//! Coordinated builds (spec §L, design §7.12), gated per dependent: when a
//! unit's dependencies are all COMPLETED but not yet covered by a passing
//! build (or every unit is COMPLETED: the final build), one build runs under
//! `supervisor/build.lock` and covers all completed work not yet built. Its
//! checkpoint report goes into the state tree; a failed build is attributed
//! by the files its output names to the units owning them (dependencies
//! included), and those sprints go back to BACKOFF with the output in their
//! retry prompt. A build that failed or warned is not run again for the same
//! commits.

use crate::base::runtime;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use super::verify;
use super::Engine;
use super::EngineError;
use crate::machine;
use crate::machine::Event;
use crate::machine::EventKind;
use crate::machine::State;
use crate::plan::SprintId;
use crate::store::Update;
use crate::store::UpdateError;

/// The result of one build run.
struct BuildRun {
    passed: bool,
    exit: Option<i32>,
    output: String,
    seconds: f64,
}

fn run_build(root: &Path, command: &str, timeout: Duration, env: &[(String, String)]) -> BuildRun {
    let start = Instant::now();
    // Its two streams interleaved as a terminal shows them.
    let ran = super::shell::run(root, &format!("{command} 2>&1"), timeout, env);
    let (status, output) = match ran.status {
        Ok(s) => (Some(s), ran.output),
        Err(why) if why.starts_with("cannot run") => (None, format!("cannot run `{command}`")),
        Err(_) => (
            None,
            format!("\n(build timed out after {}s)\n", timeout.as_secs()),
        ),
    };
    BuildRun {
        passed: status.is_some_and(|s| s.success()),
        exit: status.and_then(|s| s.code()),
        output,
        seconds: start.elapsed().as_secs_f64(),
    }
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Files each completed sprint of `units` changed, from its recorded
/// commits (relative to the project root, as unit directories are).
fn changed_files(
    root: &Path,
    state: &State,
    units: &[String],
) -> Vec<(String, SprintId, Vec<String>)> {
    let mut out = Vec::new();
    for u in state.units.iter().filter(|u| units.contains(&u.name)) {
        for s in &u.sprints {
            let mut files = Vec::new();
            for c in &s.commits {
                if let Some(list) = verify::git(
                    root,
                    &[
                        "diff-tree",
                        "--no-commit-id",
                        "--name-only",
                        "--relative",
                        "-r",
                        c,
                    ],
                ) {
                    files.extend(list.lines().map(str::to_string));
                }
            }
            files.sort();
            files.dedup();
            out.push((u.name.clone(), s.id.clone(), files));
        }
    }
    out
}

/// The units a build covering `units` judged: those units and, through
/// their dependencies, every unit whose work the build compiled too.
fn in_scope(state: &State, units: &[String]) -> Vec<String> {
    let mut scope: Vec<String> = units.to_vec();
    let mut i = 0;
    while i < scope.len() {
        if let Some(u) = state.unit(&scope[i]) {
            for d in &u.deps {
                if !scope.contains(d) {
                    scope.push(d.clone());
                }
            }
        }
        i += 1;
    }
    scope
}

/// Paths the build output names that exist under `root`, relative to it:
/// `lib/a.c:3:5:`, `--> src/x.rs:10:5`, `lib/a.ts(3,5)`, `"/abs/root/x.py"`.
fn named_paths(output: &str, root: &Path) -> Vec<String> {
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut paths: Vec<String> = Vec::new();
    let words = output.split(|c: char| c.is_whitespace() || "'\"`()[]<>,;=|".contains(c));
    for word in words {
        // Line and column suffixes, and the colon after a path.
        let mut w = word.trim_end_matches(['.', ':']);
        while let Some((head, tail)) = w.rsplit_once(':') {
            if tail.is_empty() || tail.chars().all(|c| c.is_ascii_digit()) {
                w = head;
            } else {
                break;
            }
        }
        let w = Path::new(w);
        let rel = if w.is_absolute() {
            w.strip_prefix(&abs).or_else(|_| w.strip_prefix(root)).ok()
        } else {
            Some(w.strip_prefix("./").unwrap_or(w))
        };
        let Some(rel) = rel.filter(|r| !r.as_os_str().is_empty()) else {
            continue;
        };
        if (rel.components().count() > 1 || rel.extension().is_some()) && root.join(rel).exists() {
            let p = rel.to_string_lossy().into_owned();
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
    }
    paths
}

/// Sprints to reopen for a failed build covering `units`, one per unit
/// (the earliest blamed; the unit re-runs from there):
/// 1. each path the output names, mapped to the unit in scope (covered
///    units and their dependencies) whose directory holds it, and to that
///    unit's latest sprint that changed it, else its last sprint — a unit
///    at the project root only through a file one of its sprints changed;
/// 2. the covered units' sprints whose changed files the output names;
/// 3. when nothing is named, the last sprint of each covered unit (the
///    newest work).
///
/// A dependent that already started is never blamed for its dependency's
/// file: it cannot fix it, and it keeps its state.
/// Only COMPLETED sprints of COMPLETED units can be reopened.
fn attribute(
    output: &str,
    root: &Path,
    changed: &[(String, SprintId, Vec<String>)],
    state: &State,
    units: &[String],
) -> Vec<(String, SprintId)> {
    let scope = in_scope(state, units);
    let reopenable = |unit: &str, sprint: &SprintId| {
        state.unit(unit).is_some_and(|u| {
            u.state == machine::UnitStatus::Completed
                && u.sprints
                    .iter()
                    .any(|s| s.id == *sprint && s.state == machine::SprintStatus::Completed)
        })
    };
    let mut blamed: Vec<(String, SprintId)> = Vec::new();
    for path in named_paths(output, root) {
        let owner = state
            .units
            .iter()
            .filter(|u| scope.contains(&u.name))
            .filter(|u| {
                let dir = u.dir.trim_end_matches('/');
                dir == "." || path == dir || path.starts_with(&format!("{dir}/"))
            })
            // The deepest directory owns it; the root only what no other does.
            .max_by_key(|u| if u.dir == "." { 0 } else { u.dir.len() + 1 });
        let Some(owner) = owner else { continue };
        let changed_it = changed
            .iter()
            .filter(|(u, _, files)| *u == owner.name && files.contains(&path))
            .map(|(_, s, _)| s.clone())
            .next_back();
        let sprint = match changed_it {
            Some(s) => Some(s),
            None if owner.dir == "." => None,
            None => owner.sprints.last().map(|s| s.id.clone()),
        };
        if let Some(s) = sprint {
            blamed.push((owner.name.clone(), s));
        }
    }
    blamed.extend(
        changed
            .iter()
            .filter(|(u, _, _)| units.contains(u))
            .filter(|(_, _, files)| {
                files.iter().any(|f| {
                    let name = f.rsplit('/').next().unwrap_or(f);
                    output.contains(f.as_str()) || (name.len() > 3 && output.contains(name))
                })
            })
            .map(|(u, s, _)| (u.clone(), s.clone())),
    );
    // A named file whose owner is already reopened (a fix is under way)
    // still names the cause: no other unit is blamed in its place.
    let named = !blamed.is_empty();
    blamed.retain(|(u, s)| reopenable(u, s));
    // One sprint per unit: the earliest, in plan order.
    let mut one: Vec<(String, SprintId)> = Vec::new();
    for u in &state.units {
        if let Some(first) = u
            .sprints
            .iter()
            .find(|s| blamed.iter().any(|(bu, bs)| *bu == u.name && *bs == s.id))
        {
            one.push((u.name.clone(), first.id.clone()));
        }
    }
    if one.is_empty() && !named {
        one = state
            .units
            .iter()
            .filter(|u| units.contains(&u.name))
            .filter_map(|u| u.sprints.last().map(|s| (u.name.clone(), s.id.clone())))
            .collect();
    }
    one
}

impl Engine {
    /// The build to run now, if any: the wanted one, unless the same build
    /// already failed or warned at the same commits.
    pub(crate) fn build_to_run(&self, state: &State) -> Option<Vec<String>> {
        let wanted = state.build_wanted()?;
        let mark = state.build.as_ref().and_then(|b| b.unpassed.as_ref());
        match mark {
            Some(m) if m.units == wanted && self.build_head(state).as_deref() == Some(&m.head) => {
                None
            }
            _ => Some(wanted),
        }
    }

    /// Units a failed build still stands against, while the commits a build
    /// would see are the ones it failed at: the units it covered and their
    /// dependencies. History at those commits cannot show their work done,
    /// so it credits none of their sprints (a FATAL sprint would otherwise
    /// go COMPLETED, fail the same build and go back, round after round).
    pub(crate) fn held_by_failed_build(&self, state: &State) -> Vec<String> {
        let Some(mark) = state.build.as_ref().and_then(|b| b.unpassed.as_ref()) else {
            return Vec::new();
        };
        if mark.verdict != machine::BuildVerdict::Block
            || self.build_head(state).as_deref() != Some(mark.head.as_str())
        {
            return Vec::new();
        }
        in_scope(state, &mark.units)
    }

    /// The commit a build would see: the integration branch's tip with
    /// worktrees, else HEAD.
    fn build_head(&self, state: &State) -> Option<String> {
        if state.worktrees {
            let tip = self.store.tip().ok().flatten()?;
            let (_, config) = self.snapshot(&tip).ok()?;
            return self.workspaces(state, &config)?.integration_tip();
        }
        self.store.head_id()
    }

    /// Run the coordinated build covering `units`. Returns whether it
    /// published.
    pub(crate) fn run_gate(
        &self,
        tip: &crate::store::Tip,
        units: &[String],
    ) -> Result<bool, EngineError> {
        let (plan, config) = self.snapshot(tip)?;
        let Some(command) = config.build.command.clone() else {
            return Ok(false);
        };
        let state = &tip.state;
        let phase = state.build_phase(units);
        // With worktrees the build runs on the integrated result, in the
        // integration worktree at the branch's tip.
        let workspaces = self.workspaces(state, &config);
        let mut root = self.project_root(state);
        let mut head = self.store.head_id().unwrap_or_default();
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.runtime(runtime::GATES_LOG))
            .map_err(super::io("cannot write the gate log"))?;
        // Exactly one build at a time, whatever else is running.
        let build = crate::base::lock::with_lock(
            &self.runtime(runtime::BUILD_LOCK),
            config.build.timeout,
            || {
                // The phase-boundary line goes into the history (and so
                // `log` and the waiting commands), with the time `status`
                // shows: only once the build really starts.
                let started = self.publish(EventKind::BuildStarted {
                    phase,
                    units: units.to_vec(),
                })?;
                if let Some(step) = started.last() {
                    let _ = writeln!(log, "{}", step.transition.why);
                }
                crate::store::fault::boundary("phase build about to run");
                if let Some(ws) = &workspaces {
                    let (path, tip) = ws.checkout_integration()?;
                    root = if state.root == "." {
                        path
                    } else {
                        path.join(&state.root)
                    };
                    head = tip;
                }
                // The run as a whole: slot 0.
                let mut env = vec![("SUPERVISOR_RUN_ID".to_string(), state.run_id.clone())];
                env.extend(config.workspace.slot_env(0));
                Ok::<_, EngineError>(run_build(&root, &command, config.build.timeout, &env))
            },
        )
        .map_err(super::io("cannot take the build lock"))?;
        let Some(build) = build else {
            return Ok(false);
        };
        let build = build?;
        // Checks: the build, then the covered units' runnable exit criteria
        // again (a unit whose criteria now fail is `warned`).
        let mut checks: Vec<(String, bool)> = vec![(format!("build: `{command}`"), build.passed)];
        let mut warned: Vec<String> = Vec::new();
        for u in state.units.iter().filter(|u| units.contains(&u.name)) {
            let Some(pu) = plan.unit(&u.name) else {
                continue;
            };
            for s in &pu.sprints {
                for c in s.exit.iter().filter(|c| c.command.is_some()) {
                    let cmd = c.command.as_deref().unwrap_or_default();
                    let ok = Command::new("sh")
                        .arg("-c")
                        .arg(cmd)
                        .current_dir(&root)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success());
                    if !ok && !warned.contains(&u.name) {
                        warned.push(u.name.clone());
                    }
                    checks.push((format!("{} sprint {}: {}", u.name, s.id, c.text), ok));
                }
            }
        }
        let passed = checks.iter().filter(|(_, ok)| *ok).count();
        let score = passed as f64 / checks.len() as f64;
        let verdict = if !build.passed {
            "block"
        } else if passed == checks.len() {
            "pass"
        } else {
            "warn"
        };
        let changed = changed_files(&root, state, &in_scope(state, units));
        let blamed = if build.passed {
            Vec::new()
        } else {
            attribute(&build.output, &root, &changed, state, units)
        };
        let mut blamed_text = blamed
            .iter()
            .map(|(u, s)| format!("{u} Sprint {s}"))
            .collect::<Vec<_>>()
            .join(", ");
        if blamed_text.is_empty() {
            // The files it names belong to sprints already reopened.
            blamed_text = "no sprint left to reopen".into();
        }
        if !build.passed {
            let _ = writeln!(
                log,
                "❌ Build failed. Failures attributed to: {blamed_text}"
            );
        } else if warned.is_empty() {
            let _ = writeln!(log, "✅ Build passed. Proceeding to next phase.");
        } else {
            let _ = writeln!(
                log,
                "⚠️  Build passed, but exit criteria of {} fail after it.",
                warned.join(", ")
            );
        }
        let existing = self.store.checkpoints_at(tip.id)?;
        let name = format!("CHECKPOINT-{:03}.md", existing.len() + 1);
        let others_active = state.active_agents();
        // 002's report: the decision, the risks logged, the quality trend
        // against the previous checkpoint's score.
        let previous = match existing.last() {
            Some(last) => self
                .store
                .checkpoint_at(tip.id, last)?
                .as_deref()
                .and_then(checkpoint_score),
            None => None,
        };
        let decision = if build.passed {
            "Proceed".to_string()
        } else {
            format!("Block: the build failed (attributed to {blamed_text})")
        };
        let risks = checks.len() - passed;
        let mut report = format!(
            "# {name}: phase {phase}\n\n- Verdict: {verdict}\n- Decision: {decision}\n- Score: {score:.2} ({passed}/{} checks passed)\n- Risks: {risks} logged\n- Quality trend: {}\n- Build: `{command}` → {} in {:.1}s\n- Covers: {}\n- Single-agent exception: {}\n\n## Checks\n",
            checks.len(),
            quality_trend(previous, score),
            match build.exit {
                Some(c) => format!("exit {c}"),
                None => "did not finish".into(),
            },
            build.seconds,
            units.join(", "),
            if others_active == 0 { "no other agent was active" } else { "other agents were active" },
        );
        for (c, ok) in &checks {
            report.push_str(&format!("- [{}] {c}\n", if *ok { "x" } else { " " }));
        }
        report.push_str("\n## Findings\n");
        if build.passed {
            report.push_str("- The coordinated build passed.\n");
            if !warned.is_empty() {
                report.push_str(&format!(
                    "- Exit criteria of {} fail after the build: their dependents wait.\n",
                    warned.join(", ")
                ));
            }
        } else {
            report.push_str(&format!(
                "- The build failed; failures attributed to: {blamed_text}.\n"
            ));
        }
        for (u, s, files) in &changed {
            if !files.is_empty() {
                report.push_str(&format!("- {u} Sprint {s} changed: {}\n", files.join(", ")));
            }
        }
        report.push_str(&format!(
            "\n## Output (last 40 lines)\n\n```\n{}\n```\n",
            tail(&build.output, 40)
        ));

        let clock = self.store.clock();
        let detail = format!("`{command}` failed:\n{}", tail(&build.output, 20));
        let summary = format!("{name}: {verdict}, score {score:.2}.");
        let covers: Vec<String> = units
            .iter()
            .filter(|u| !warned.contains(u))
            .cloned()
            .collect();
        let mut before = None;
        let published = self.store.update(|tip| {
            let tip = tip.ok_or(EngineError::NoRun)?;
            before = Some(tip.state.clone());
            let mut steps = Vec::new();
            let mut state = tip.state.clone();
            let mut kinds = Vec::new();
            if build.passed {
                kinds.push(EventKind::GatePassed {
                    phase,
                    summary: summary.clone(),
                    head: head.clone(),
                    covers: covers.clone(),
                    warned: warned.clone(),
                });
            } else {
                kinds.push(EventKind::BuildFailed {
                    phase,
                    summary: summary.clone(),
                    head: head.clone(),
                    units: units.to_vec(),
                    blamed: blamed_text.clone(),
                });
                for (u, s) in &blamed {
                    kinds.push(EventKind::GateFailed {
                        unit: u.clone(),
                        sprint: s.clone(),
                        detail: detail.clone(),
                    });
                }
            }
            let mut first = None;
            for kind in kinds {
                let event = Event {
                    at: clock.iso_at_seq(state.seq + 1),
                    kind,
                };
                if first.is_none() {
                    first = Some(event.clone());
                }
                // Every event lands or changes nothing: a blame the machine
                // refuses (the state moved meanwhile) is recorded as such,
                // never retried and never fails the command.
                let mut more = match machine::apply(&state, &event) {
                    Ok(more) => more,
                    Err(refused) => machine::apply(
                        &state,
                        &Event {
                            at: event.at.clone(),
                            kind: EventKind::Notice {
                                unit: None,
                                sprint: None,
                                text: format!("The build's blame was not applied: {refused}."),
                            },
                        },
                    )?,
                };
                if let Some(last) = more.last() {
                    state = last.state.clone();
                }
                steps.append(&mut more);
            }
            Ok(Some(Update {
                checkpoints: vec![(name.clone(), report.clone())],
                ..super::publish::update(steps, first)
            }))
        });
        match published {
            Ok(p) => {
                if let Some(before) = &before {
                    self.notify(before, &p.steps);
                }
                Ok(!p.steps.is_empty())
            }
            Err(UpdateError::Store(e)) => Err(e.into()),
            Err(UpdateError::Decide(e)) => Err(e),
        }
    }
}

/// The score a checkpoint report gives (`- Score: 0.75 (…)`).
fn checkpoint_score(report: &str) -> Option<f64> {
    report
        .lines()
        .find_map(|l| l.strip_prefix("- Score: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// 002's `quality_trend` from the previous checkpoint's score to this one:
/// `stable` within 0.05 (and for the first checkpoint), else `improving`
/// or `degrading`.
fn quality_trend(previous: Option<f64>, score: f64) -> &'static str {
    match previous {
        Some(p) if score > p + 0.05 => "improving",
        Some(p) if score < p - 0.05 => "degrading",
        _ => "stable",
    }
}
