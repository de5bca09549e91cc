//! The final verification section of `COMPLETE_<NAME>.md`: the criteria
//! and commits of every unit checked once the run completed, the cadence
//! tables, and the definitions they use.

use std::fmt::Write;

use crate::plan::TaskType;
use crate::report::complete::Report;

use super::agents_at_work;
use super::bar;
use super::duration;
use super::hours;

pub(super) fn final_section(
    out: &mut String,
    r: &Report,
    v: &crate::report::complete::FinalVerification,
) {
    let c = &v.cadence;
    let _ = writeln!(out, "## Final Verification — {}\n", v.at);
    let _ = writeln!(out, "### Coverage Check\n");
    crate::report::table_head(out, &["Sprint", "Planned", "Completed", "Status"]);
    for row in &v.coverage {
        let _ = writeln!(
            out,
            "| {} | ✓ | {} | {} |",
            row.sprint,
            if row.completed { "✓" } else { "✗" },
            if row.completed {
                "VERIFIED"
            } else {
                "MISSING FROM COMPLETION LOG"
            }
        );
    }
    let _ = writeln!(out, "\n### Exit Criteria Verification\n");
    let _ = writeln!(
        out,
        "Checking that all planned exit criteria were actually verified...\n"
    );
    let mut unverified = 0;
    for l in &v.criteria {
        let ok = l.verified == l.total && l.by_command;
        if !ok {
            unverified += 1;
        }
        if l.by_command {
            let _ = writeln!(
                out,
                "- Sprint {}: {}/{} criteria verified {}",
                l.sprint,
                l.verified,
                l.total,
                if ok { "✓" } else { "✗" }
            );
        } else {
            let _ = writeln!(
                out,
                "- Sprint {}: no command checked it, completed on the agent's word ✗",
                l.sprint,
            );
        }
        for m in &l.missing {
            let _ = writeln!(out, "  - Missing: \"{m}\" not verified");
        }
    }
    let on_word = agent_word(v);
    let _ = writeln!(
        out,
        "\n**Result**: {}\n",
        if unverified == 0 {
            "✓ every sprint's exit criteria were verified".to_string()
        } else if on_word > 0 && on_word == unverified {
            format!(
                "✗ {on_word} of {} sprints completed on the agent's word: no exit-criterion command checked them",
                v.criteria.len()
            )
        } else {
            format!("✗ {unverified} sprints have unverified exit criteria")
        }
    );
    let _ = writeln!(out, "### Git Commit Verification\n");
    let _ = writeln!(out, "Checking that code sprints produced commits...\n");
    let mut without = 0;
    for l in &v.commits {
        if l.task_type == TaskType::Code {
            let ok = l.commits > 0;
            if !ok {
                without += 1;
            }
            let _ = writeln!(
                out,
                "- Sprint {} (code): {} commits found {}",
                l.sprint,
                l.commits,
                if ok { "✓" } else { "✗" }
            );
        } else {
            let _ = writeln!(
                out,
                "- Sprint {} ({}): N/A (not a code sprint)",
                l.sprint, l.task_type
            );
        }
    }
    let _ = writeln!(
        out,
        "\n**Result**: {}\n",
        if without == 0 {
            "✓ every code sprint has commits".to_string()
        } else {
            format!("✗ {without} code sprints have no commits")
        }
    );
    let _ = writeln!(out, "## Issues Found: {}\n", v.issues.len());
    for (k, i) in v.issues.iter().enumerate() {
        let _ = writeln!(out, "### Issue {}: {}", k + 1, i.title);
        let _ = writeln!(out, "- **Severity**: {}", i.severity);
        let _ = writeln!(out, "- **Details**: {}", i.details);
        let _ = writeln!(out, "- **Impact**: {}", i.impact);
        let _ = writeln!(out, "- **Recommendation**: {}\n", i.recommendation);
    }

    let _ = writeln!(out, "## Cadence Analysis\n");
    let _ = writeln!(out, "### Overall Performance\n");
    let _ = writeln!(
        out,
        "- Total elapsed time: {} ({} → {})",
        hours(c.elapsed_seconds),
        c.start,
        c.end
    );
    let _ = writeln!(out, "- Active work time: {}", duration(c.active_seconds));
    let _ = writeln!(
        out,
        "- **Parallelism efficiency: {:.0}%** ({})",
        c.parallelism_efficiency,
        agents_at_work(c.parallelism_efficiency)
    );
    let _ = writeln!(
        out,
        "- Average sprint duration: {}",
        duration(c.avg_sprint_seconds.round() as i64)
    );
    let _ = writeln!(out, "- **Sprints per hour: {:.1}**", c.sprints_per_hour);
    match c.turns_used {
        Some(t) => {
            let _ = writeln!(
                out,
                "- Total turns used: {t} / {} ({:.0}% utilization)",
                c.turns_available,
                t as f64 / (c.turns_available.max(1)) as f64 * 100.0
            );
        }
        None => {
            let _ = writeln!(out, "- Total turns used: not reported by the agents");
        }
    }
    let _ = writeln!(out, "\n### By Work Unit\n");
    crate::report::table_head(
        out,
        &[
            "Work Unit",
            "Sprints",
            "Total Time",
            "Avg Time/Sprint",
            "Parallelism Gain",
        ],
    );
    for u in &c.by_unit {
        let avg = if u.sprints > 0 {
            u.seconds / u.sprints as i64
        } else {
            0
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2}× |",
            u.unit,
            u.sprints,
            duration(u.seconds),
            duration(avg),
            u.gain
        );
    }
    let _ = writeln!(
        out,
        "\n- Parallelism gain: {:.2}× (sum of unit times / elapsed)",
        c.parallelism_gain
    );
    let _ = writeln!(
        out,
        "- Parallelism saved: {} (sequential time − elapsed time)",
        hours(c.parallelism_saved_seconds)
    );
    let _ = writeln!(out, "\n### By Model\n");
    crate::report::table_head(
        out,
        &[
            "Model",
            "Sprints",
            "Avg Duration",
            "Avg Turns",
            "Success Rate",
            "Avg Attempts",
            "Cost Impact",
        ],
    );
    for m in &c.by_model {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0}% | {:.1} | {}×{}× = {}× |",
            m.model,
            m.sprints,
            duration(m.avg_seconds.round() as i64),
            m.avg_turns
                .map(|t| format!("{t:.1}"))
                .unwrap_or_else(|| "—".into()),
            m.success_rate,
            m.avg_attempts,
            m.sprints,
            m.weight,
            m.cost
        );
    }
    let _ = writeln!(out, "\n### Velocity Trend\n");
    crate::report::table_head(out, &["Phase", "Sprints", "Avg Duration", "Notes"]);
    let first = c.velocity.first().map(|p| p.avg_seconds).unwrap_or(0.0);
    for p in &c.velocity {
        let note = if first > 0.0 {
            format!("{:+.0}% vs early", (p.avg_seconds - first) / first * 100.0)
        } else {
            "—".into()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {note} |",
            p.label,
            p.sprints,
            duration(p.avg_seconds.round() as i64)
        );
    }
    let _ = writeln!(out, "\nTrend: {}\n", c.trend);
    let n = r.sprints.len().max(1);
    let _ = writeln!(out, "### Efficiency Metrics\n");
    let _ = writeln!(
        out,
        "- First-attempt success: {}/{} ({:.0}%)",
        c.first_attempt,
        r.sprints.len(),
        c.first_attempt as f64 / n as f64 * 100.0
    );
    let _ = writeln!(
        out,
        "- Retries required: {}/{} ({:.0}%){}",
        c.retried.len(),
        r.sprints.len(),
        c.retried.len() as f64 / n as f64 * 100.0,
        if c.retried.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                c.retried
                    .iter()
                    .map(|(s, a)| format!("{s} ({a} attempts)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let _ = writeln!(
        out,
        "- Model selection accuracy: {:.0}% ({} upgrades needed on retry)",
        (r.sprints.len() - c.upgrades) as f64 / n as f64 * 100.0,
        c.upgrades
    );
    match c.utilization {
        Some(u) => {
            let _ = writeln!(
                out,
                "- Context budget utilization: {u:.0}% average ({:.0}% headroom)",
                100.0 - u
            );
        }
        None => {
            let _ = writeln!(
                out,
                "- Context budget utilization: not measurable (no agent reported turns)"
            );
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(
        out,
        "- Oversized sprints (over 80% of the turn budget): {}",
        list(&c.oversized)
    );
    let _ = writeln!(
        out,
        "- Undersized sprints (under 15% of the turn budget): {}",
        list(&c.undersized)
    );
    let _ = writeln!(out, "\n### Bottleneck Analysis\n");
    let _ = writeln!(
        out,
        "- Critical path: {} ({})",
        c.critical_path
            .iter()
            .map(|s| format!("Sprint {s}"))
            .collect::<Vec<_>>()
            .join(" → "),
        duration(c.critical_path_seconds)
    );
    if let Some((name, secs, model)) = &c.longest {
        let _ = writeln!(
            out,
            "- Longest sprint: {name} ({}, {})",
            duration(*secs),
            model.as_deref().unwrap_or("no model")
        );
    }
    let _ = writeln!(
        out,
        "- Most retries: {}",
        c.most_retries
            .as_ref()
            .map(|(s, a)| format!("{s} ({a} attempts)"))
            .unwrap_or_else(|| "none".into())
    );
    let _ = writeln!(out, "- Recommendation: {}", c.recommendation);
    let _ = writeln!(out, "\n### Estimation Accuracy\n");
    if c.estimates.is_empty() {
        let _ = writeln!(
            out,
            "No agent reported its turns, so estimates cannot be compared (agents report `turns` in the result file or Claude's JSON `num_turns`).\n"
        );
    } else {
        crate::report::table_head(
            out,
            &[
                "Sprint",
                "Estimated Turns",
                "Actual Turns",
                "Variance",
                "Accuracy",
            ],
        );
        for e in &c.estimates {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:+.0}% | {} |",
                e.sprint,
                e.estimated,
                e.actual,
                e.variance,
                if e.variance.abs() <= 20.0 {
                    "Good"
                } else {
                    "Poor"
                }
            );
        }
        let abs: f64 =
            c.estimates.iter().map(|e| e.variance.abs()).sum::<f64>() / c.estimates.len() as f64;
        let _ = writeln!(out, "\n- Average estimation error: ±{abs:.0}%");
        // Complex sprints are those estimated at or above the median.
        let mut ests: Vec<u32> = c.estimates.iter().map(|e| e.estimated).collect();
        ests.sort_unstable();
        let median = ests[ests.len() / 2];
        let mut trends = Vec::new();
        for (label, complex) in [("complex", true), ("simple", false)] {
            let group: Vec<f64> = c
                .estimates
                .iter()
                .filter(|e| (e.estimated >= median) == complex)
                .map(|e| e.variance)
                .collect();
            if group.is_empty() {
                continue;
            }
            let signed = group.iter().sum::<f64>() / group.len() as f64;
            let way = if signed >= 0.0 {
                "Underestimated"
            } else {
                "Overestimated"
            };
            let bound = if complex { "≥" } else { "<" };
            trends.push(format!(
                "{way} {label} sprints (est. {bound} {median} turns) by {:.0}%",
                signed.abs()
            ));
        }
        let _ = writeln!(out, "- Trend: {}\n", trends.join("; "));
    }
    let _ = writeln!(out, "### Time Distribution\n");
    let total: i64 = c.distribution.iter().map(|(_, s)| s).sum();
    let _ = writeln!(out, "```");
    for (k, s) in &c.distribution {
        let _ = writeln!(
            out,
            "{k:<15}{} {:>3.0}% ({})",
            bar(*s as f64, total as f64),
            if total > 0 {
                *s as f64 / total as f64 * 100.0
            } else {
                0.0
            },
            duration(*s)
        );
    }
    let _ = writeln!(out, "```\n");
    let _ = writeln!(out, "### Cost Breakdown\n");
    let _ = writeln!(out, "```");
    let cost_total: u32 = c.by_model.iter().map(|m| m.cost).sum();
    for m in &c.by_model {
        let _ = writeln!(
            out,
            "{:<8}{} {:>3.0}% ({}×)",
            m.model,
            bar(f64::from(m.cost), f64::from(cost_total)),
            if cost_total > 0 {
                f64::from(m.cost) / f64::from(cost_total) * 100.0
            } else {
                0.0
            },
            m.cost
        );
    }
    let _ = writeln!(out, "```\n");
    if c.savings.is_empty() {
        let _ = writeln!(
            out,
            "Cost optimization opportunities: none (every pricier model was needed).\n"
        );
    } else {
        let saved: u32 = c.savings.iter().map(|(_, s)| s).sum();
        let _ = writeln!(out, "Cost optimization opportunities:");
        for (s, x) in &c.savings {
            let _ = writeln!(
                out,
                "- {s} passed first time with little of its budget: haiku would have saved {x}×"
            );
        }
        let _ = writeln!(
            out,
            "\nPotential savings: {saved}× ({:.0}%)\n",
            f64::from(saved) / f64::from(cost_total.max(1)) * 100.0
        );
    }
    definitions(out);
    let _ = writeln!(out, "## Verdict\n");
    let on_word = agent_word(v);
    if v.passed && on_word > 0 {
        let _ = writeln!(out, "⚠ COMPLETED, NOT ALL VERIFIED\n");
        let _ = writeln!(
            out,
            "All sprints from EXECUTION_PLAN.md are accounted for in {}, but only {} of {} were verified by an exit-criterion command; {on_word} completed on the agent's word. Give them runnable exit criteria (`git supervisor evaluate` proposes them) or review their work before considering the sprint complete.",
            r.file_name,
            v.criteria.len() - on_word,
            v.criteria.len()
        );
    } else if v.passed {
        let _ = writeln!(out, "✓ VERIFICATION PASSED\n");
        let _ = writeln!(out, "All sprints from EXECUTION_PLAN.md are accounted for in {} with verified exit criteria and git commits (where applicable). The sprint is complete.", r.file_name);
    } else {
        let critical = v.issues.iter().filter(|i| i.severity == "CRITICAL").count();
        let _ = writeln!(out, "✗ VERIFICATION FAILED\n");
        let _ = writeln!(out, "The execution plan shows all work units as COMPLETED, but final verification found {} issues. Review and resolve before considering the sprint complete.\n", v.issues.len());
        let _ = writeln!(out, "**Critical issues**: {critical} (must resolve)");
        let _ = writeln!(
            out,
            "**Recommended fixes**: {} (should resolve)",
            v.issues.len() - critical
        );
    }
}

pub(super) fn definitions(out: &mut String) {
    let _ = writeln!(out, "### Definitions\n");
    for line in [
        "Sprint duration: from the dispatch of the attempt that completed it to its COMPLETED transition (zero for completions observed in history).",
        "Elapsed time: from the run's first dispatch to its last sprint completion.",
        "Active work time: the sum of every attempt's time, failed ones included.",
        "Parallelism efficiency: active work time / elapsed time (above 100% means agents overlapped).",
        "Parallelism gain: a unit's attempt time / elapsed time; the total is the sum over units. Parallelism saved: that sum minus elapsed time.",
        "Success rate: sprints completed on their first attempt / sprints the model completed. Model selection accuracy: sprints completed by the model first chosen for them.",
        "Turns budget: `agent.max_turns` per dispatch; utilization is over dispatches whose agent reported turns.",
        "Velocity: completed sprints in completion order, cut into thirds; the trend compares the last third with the first (±20%).",
        "Critical path: the chain of sprints through unit order and unit dependencies with the most attempt time.",
        "Time distribution: a sprint's completing attempt counts as Testing (\"test\" in its name or exit criteria), else Foundation (foundation score 1), else Implementation (code), else Other; earlier attempts count as Retries.",
        "Cost: every dispatch costs its model's weight (haiku 1, sonnet 10, opus 30), failed attempts and continuations included; the By Model table and the Cost Breakdown count each completed sprint once, at its completing model's weight.",
    ] {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out);
}

/// Completed sprints no exit-criterion command checked.
fn agent_word(v: &crate::report::complete::FinalVerification) -> usize {
    v.criteria.iter().filter(|l| !l.by_command).count()
}

/// The summary's exit-criteria line: sprints verified by a command counted
/// apart from those completed on the agent's word, which are never called
/// verified.
pub(super) fn criteria_line(v: &crate::report::complete::FinalVerification) -> String {
    let n = v.criteria.len();
    let on_word = agent_word(v);
    let full = v
        .criteria
        .iter()
        .filter(|l| l.by_command && l.verified == l.total)
        .count();
    let mark = if full == n { "✓" } else { "✗" };
    let mut line = format!("{mark} Exit Criteria: {full}/{n} sprints verified by a command");
    if on_word > 0 {
        line.push_str(&format!(
            "; {on_word} completed on the agent's word (no command checked {})",
            if on_word == 1 { "it" } else { "them" }
        ));
    }
    line
}
