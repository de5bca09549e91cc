//! `ANALYSIS_REPORT.md` (spec §W-130) and the `analyze` summary (§W-131),
//! rendered from a [`Review`].

use std::fmt::Write;

use crate::plan_tools::analysis::format_score;
use crate::plan_tools::review::Finding;
use crate::plan_tools::review::Review;
use crate::plan_tools::review::Severity;

fn counts(findings: &[Finding], pass: u8) -> (usize, usize, usize) {
    let of = |s: Severity| {
        findings
            .iter()
            .filter(|f| f.pass == pass && f.severity == s)
            .count()
    };
    (
        of(Severity::Critical),
        of(Severity::Recommended),
        of(Severity::Optional),
    )
}

fn status(c: (usize, usize, usize)) -> &'static str {
    if c.0 + c.1 == 0 {
        "PASS"
    } else {
        "NEEDS_WORK"
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "✓"
    } else {
        "✗"
    }
}

const PASSES: [(&str, u8); 3] = [
    ("Completeness", 1),
    ("Atomicity & Testability", 2),
    ("Priority & Parallelism", 3),
];

/// The whole report. `generated` is the timestamp (pinned in tests).
pub fn render(r: &Review, plan_path: &str, generated: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Execution Plan Analysis Report\n");
    let _ = writeln!(o, "Generated: {generated}");
    let _ = writeln!(o, "Execution plan: {plan_path}");
    let _ = writeln!(o, "Context budget: {} turns per sprint\n", r.budget);
    let _ = writeln!(o, "## Pass 1: Completeness\n");
    for (name, p) in [
        ("Point A (start state)", &r.point_a),
        ("Point B (end state)", &r.point_b),
    ] {
        let _ = writeln!(o, "### {name}\n");
        let _ = writeln!(o, "Status: {}\n", if p.clear { "CLEAR" } else { "UNCLEAR" });
        let _ = writeln!(o, "Findings:");
        for f in &p.findings {
            let _ = writeln!(o, "- {f}");
        }
        let _ = writeln!(o);
    }
    let complete = r.gaps.is_empty() && r.coverage.iter().all(|c| !c.addressed_by.is_empty());
    let _ = writeln!(o, "### Coverage\n");
    let _ = writeln!(
        o,
        "Status: {}\n",
        if complete { "COMPLETE" } else { "INCOMPLETE" }
    );
    if r.coverage.is_empty() {
        let _ = writeln!(
            o,
            "The plan lists no requirements or goals to map onto sprints.\n"
        );
    } else {
        super::table_head(&mut o, &["Requirement", "Addressed By", "Coverage"]);
        for c in &r.coverage {
            let _ = writeln!(
                o,
                "| {} | {} | {} |",
                c.requirement.replace('|', "\\|"),
                if c.addressed_by.is_empty() {
                    "—".to_string()
                } else {
                    c.addressed_by.join(", ")
                },
                if c.addressed_by.is_empty() {
                    "✗ Missing"
                } else {
                    "✓ Complete"
                }
            );
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "Gaps:");
    if r.gaps.is_empty() {
        let _ = writeln!(o, "- none");
    }
    for g in &r.gaps {
        let _ = writeln!(o, "- {g}");
    }
    let _ = writeln!(o, "\n### Open Questions\n");
    let _ = writeln!(o, "Count: {}", r.questions.len());
    let blocked = r.questions.iter().filter(|q| q.blocked).count();
    let _ = writeln!(
        o,
        "Status: {}\n",
        match (blocked, r.questions.len()) {
            (0, 0) => "CLEAR".to_string(),
            (0, _) => "OPEN".to_string(),
            (b, _) => format!("BLOCKED ({b} blocking: a unit cannot start, an external dependency has no interface, or one decision spans sprints)"),
        }
    );
    if !r.questions.is_empty() {
        super::table_head(&mut o, &["Question", "Location", "Type", "Blocking Impact"]);
        for q in &r.questions {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {}{} |",
                q.text.replace('|', "\\|"),
                q.location,
                q.kind,
                if q.blocked { "BLOCKED: " } else { "" },
                q.blocking
            );
        }
        let _ = writeln!(o, "\nRecommendations:\n- Decide each question in EXECUTION_PLAN.md before `git supervisor start`.\n");
    }

    let _ = writeln!(o, "## Pass 2: Atomicity, Testability, Context Fitness\n");
    let _ = writeln!(o, "### Atomicity\n");
    super::table_head(
        &mut o,
        &[
            "Sprint",
            "Single Concern",
            "Clear Artifact",
            "Bounded Scope",
            "Explicit I/O",
            "Verdict",
        ],
    );
    for q in &r.quality {
        let x = &q.quality;
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |",
            q.sprint,
            yes(x.single_concern),
            yes(x.clear_artifact),
            yes(x.bounded_scope),
            yes(x.explicit_io),
            x.atomicity_verdict()
        );
    }
    let _ = writeln!(o, "\n### Testability\n");
    super::table_head(
        &mut o,
        &[
            "Sprint",
            "Machine-Verifiable",
            "No Vague Language",
            "Full Coverage",
            "Verdict",
        ],
    );
    for q in &r.quality {
        let x = &q.quality;
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            q.sprint,
            yes(x.machine_verifiable),
            yes(x.no_vague_language),
            yes(x.full_coverage),
            x.testability_verdict()
        );
    }
    let _ = writeln!(o, "\n### Context Fitness\n");
    super::table_head(
        &mut o,
        &[
            "Sprint",
            "Estimated Turns",
            "Budget",
            "Utilization",
            "Verdict",
        ],
    );
    let mut total = 0;
    for q in &r.quality {
        total += q.quality.estimated_turns;
        let verdict = match q.quality.fitness {
            crate::plan_tools::analysis::Fitness::Oversized => "OVERSIZED",
            crate::plan_tools::analysis::Fitness::Right => "RIGHT-SIZED",
            crate::plan_tools::analysis::Fitness::Undersized => "UNDERSIZED",
        };
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.0}% | {verdict} |",
            q.sprint, q.quality.estimated_turns, r.budget, q.utilization
        );
    }
    let n = r.quality.len().max(1);
    let avg: f64 = r.quality.iter().map(|q| q.utilization).sum::<f64>() / n as f64;
    let over = r
        .quality
        .iter()
        .filter(|q| q.quality.fitness == crate::plan_tools::analysis::Fitness::Oversized)
        .count();
    let under = r
        .quality
        .iter()
        .filter(|q| q.quality.fitness == crate::plan_tools::analysis::Fitness::Undersized)
        .count();
    let _ = writeln!(o, "\nBudget Summary:");
    let _ = writeln!(o, "- Total estimated turns: {total}");
    let _ = writeln!(o, "- Average utilization: {avg:.0}%");
    let _ = writeln!(o, "- Oversized sprints: {over}");
    let _ = writeln!(o, "- Undersized sprints: {under}\n");

    let _ = writeln!(o, "## Pass 3: Priority, Dependencies, Parallelism\n");
    let _ = writeln!(o, "### Dependency Graph\n");
    let _ = writeln!(
        o,
        "- Critical path ({} sprints): {}",
        r.critical_path.len(),
        r.critical_path.join(" → ")
    );
    let _ = writeln!(
        o,
        "- Parallelizable clusters: {}",
        r.clusters
            .iter()
            .map(|c| format!("[{}]", c.join(", ")))
            .collect::<Vec<_>>()
            .join(" then ")
    );
    let _ = writeln!(o, "\n| Sprint | Blocks | Reason |");
    let _ = writeln!(o, "|--------|--------|--------|");
    let mut bottlenecks: Vec<_> = r.scores.iter().filter(|s| s.blocks >= 3).collect();
    bottlenecks.sort_by(|a, b| b.blocks.cmp(&a.blocks).then(a.current.cmp(&b.current)));
    if bottlenecks.is_empty() {
        let _ = writeln!(o, "| — | 0 | no sprint blocks three or more others |");
    }
    for b in bottlenecks {
        let _ = writeln!(
            o,
            "| {} | {} | {} |",
            b.sprint,
            b.blocks,
            if b.foundation {
                "establishes shared foundations"
            } else {
                "on the path of later units"
            }
        );
    }
    let _ = writeln!(o, "\n### Parallelization\n");
    let _ = writeln!(
        o,
        "- Current: up to {} units at once",
        r.current_parallelism
    );
    let _ = writeln!(
        o,
        "- Maximum: up to {} units at once",
        r.maximum_parallelism
    );
    let _ = writeln!(
        o,
        "- Missed: {}",
        if r.layer_changes.is_empty() && r.independent_sprints.is_empty() {
            "none".to_string()
        } else {
            r.layer_changes
                .iter()
                .map(|l| format!("{} (layer {} → {})", l.unit, l.from, l.to))
                .chain(r.independent_sprints.iter().map(|(u, ids)| {
                    format!(
                        "{u} sprints {} (independent, run in sequence)",
                        ids.join(", ")
                    )
                }))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    if !r.layers.is_empty() {
        let _ = writeln!(
            o,
            "- Declared layers: {}",
            r.layers
                .iter()
                .map(|(l, units)| format!("{l} [{}]", units.join(", ")))
                .collect::<Vec<_>>()
                .join(" then ")
        );
    }
    let _ = writeln!(o, "\n### Priority Analysis\n");
    super::table_head(
        &mut o,
        &[
            "Sprint",
            "Priority Score",
            "Current Position",
            "Optimal Position",
            "Recommendation",
        ],
    );
    for s in &r.scores {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            s.sprint,
            format_score(s.score),
            s.current,
            s.optimal,
            if s.current == s.optimal {
                "keep"
            } else if s.optimal < s.current {
                "move earlier"
            } else {
                "move later"
            }
        );
    }
    let late: Vec<_> = r.scores.iter().filter(|s| s.optimal < s.current).collect();
    let _ = writeln!(o, "\nHigh-Priority Sprints Appearing Late:");
    if late.is_empty() {
        let _ = writeln!(o, "- none");
    }
    for s in &late {
        let _ = writeln!(
            o,
            "- {} (priority {}, position {} → {})",
            s.sprint,
            format_score(s.score),
            s.current,
            s.optimal
        );
    }
    let early: Vec<_> = r.scores.iter().filter(|s| s.optimal > s.current).collect();
    let _ = writeln!(o, "\nLow-Priority Sprints Blocking High-Priority Work:");
    if early.is_empty() {
        let _ = writeln!(o, "- none");
    }
    for s in &early {
        let _ = writeln!(
            o,
            "- {} (priority {}, position {} → {})",
            s.sprint,
            format_score(s.score),
            s.current,
            s.optimal
        );
    }
    let _ = writeln!(o, "\n### Execution Order Recommendations\n");
    for n in &r.order_notes {
        let _ = writeln!(o, "- {n}");
    }
    let _ = writeln!(o, "\nProposed Reordering:\n");
    super::table_head(&mut o, &["Current", "Proposed", "Sprint", "Rationale"]);
    let moved: Vec<_> = r.scores.iter().filter(|s| s.optimal != s.current).collect();
    if moved.is_empty() {
        let _ = writeln!(o, "| — | — | — | the current order is already optimal |");
    }
    for s in moved {
        let _ = writeln!(
            o,
            "| {} | {} | {} | priority {}, blocks {} |",
            s.current,
            s.optimal,
            s.sprint,
            format_score(s.score),
            s.blocks
        );
    }

    let _ = writeln!(o, "\n## Summary\n");
    super::table_head(&mut o, &["Pass", "Status", "Issues", "Recommendations"]);
    for (name, pass) in PASSES {
        let c = counts(&r.findings, pass);
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} |",
            status(c),
            c.0 + c.1 + c.2,
            match pass {
                1 => "complete the plan's start, end and coverage by hand",
                2 => "`git supervisor evaluate` auto-fixes",
                _ => "`git supervisor prioritize` auto-reorders",
            }
        );
    }
    let total = r.findings.len();
    let by = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(o, "\nTotal Issues: {total}");
    let _ = writeln!(o, "- Critical: {}", by(Severity::Critical));
    let _ = writeln!(o, "- Recommended: {}", by(Severity::Recommended));
    let _ = writeln!(o, "- Optional: {}", by(Severity::Optional));
    let _ = writeln!(o, "\n### Next Steps\n");
    let _ = writeln!(o, "1. Resolve critical issues in EXECUTION_PLAN.md by hand (start state, end state, coverage, open questions).");
    let _ = writeln!(
        o,
        "2. `git supervisor evaluate` auto-fixes Pass 2 findings."
    );
    let _ = writeln!(
        o,
        "3. `git supervisor prioritize` auto-reorders per Pass 3."
    );
    let _ = writeln!(
        o,
        "4. Re-run `git supervisor analyze`, then `git supervisor start`."
    );
    let _ = writeln!(
        o,
        "\nanalyze produces a diagnostic report only: EXECUTION_PLAN.md was not modified.\n"
    );
    let _ = writeln!(o, "## Detailed Findings\n");
    if r.findings.is_empty() {
        let _ = writeln!(o, "No findings.");
    }
    for (k, f) in r.findings.iter().enumerate() {
        let _ = writeln!(o, "### Finding {}: {}\n", k + 1, f.kind);
        let _ = writeln!(o, "- **Location**: {}", f.location);
        let _ = writeln!(o, "- **Type**: {}", f.kind);
        let _ = writeln!(o, "- **Severity**: {}", f.severity.as_str());
        let _ = writeln!(o, "- **Problem**: {}", f.problem);
        let _ = writeln!(o, "- **Impact**: {}", f.impact);
        let _ = writeln!(o, "- **Recommendation**: {}\n", f.recommendation);
    }
    while o.ends_with("\n\n") {
        o.pop();
    }
    o
}

/// What `analyze` prints.
pub fn user_summary(r: &Review, report_path: &str) -> String {
    let mut o = String::from("## Analysis Complete\n\n");
    let _ = writeln!(o, "Report: {report_path}\n");
    let _ = writeln!(o, "### Summary\n");
    super::table_head(
        &mut o,
        &["Pass", "Status", "Critical", "Recommended", "Optional"],
    );
    for (name, pass) in PASSES {
        let c = counts(&r.findings, pass);
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} | {} |",
            status(c),
            c.0,
            c.1,
            c.2
        );
    }
    let by = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let (c, rec, opt) = (
        by(Severity::Critical),
        by(Severity::Recommended),
        by(Severity::Optional),
    );
    let _ = writeln!(
        o,
        "\n**Total Issues**: {} ({c} critical, {rec} recommended, {opt} optional)\n",
        r.findings.len()
    );
    let _ = writeln!(o, "### Critical Issues (must address before execution)\n");
    let critical: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Critical)
        .collect();
    if critical.is_empty() {
        let _ = writeln!(o, "None.");
    }
    for f in critical {
        let _ = writeln!(o, "- {}: {}", f.location, f.problem);
    }
    let _ = writeln!(o, "\n### Next Steps\n");
    if c > 0 {
        let _ = writeln!(o, "1. Review ANALYSIS_REPORT.md");
        let _ = writeln!(o, "2. Address critical issues in EXECUTION_PLAN.md");
        let _ = writeln!(o, "3. Re-run: git supervisor analyze");
    } else {
        let _ = writeln!(
            o,
            "1. Optional: git supervisor evaluate (auto-fixes atomicity and testability)"
        );
        let _ = writeln!(
            o,
            "2. Optional: git supervisor prioritize (auto-reorders by priority)"
        );
        let _ = writeln!(o, "3. Ready to execute: git supervisor start");
    }
    let _ = writeln!(o, "\n> **Workflow Note**: analyze = completeness + evaluate + prioritize, in diagnostic mode only. It never modifies EXECUTION_PLAN.md.");
    o
}
