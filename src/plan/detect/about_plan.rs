//! Section names that describe the plan rather than hold work to dispatch
//! (`Overview`, `Acceptance Criteria`, `Wave 1 Success Metrics`,
//! `Changelog`): a numbered heading so named is no sprint, and a task
//! line under one, in no sprint, is counted as not work.

/// Names matched whole, as the heading's first words or as its last.
const ABOUT_THE_PLAN: &[&str] = &[
    "overview",
    "introduction",
    "context",
    "background",
    "summary",
    "goal",
    "goals",
    "non-goals",
    "purpose",
    "motivation",
    "assumptions",
    "scope",
    "out of scope",
    "requirements",
    "references",
    "appendix",
    "glossary",
    "notes",
    "dev notes",
    "risks",
    "open questions",
    "questions",
    "timeline",
    "resources",
    "table of contents",
    "contents",
    "acceptance",
    "acceptance criteria",
    "success criteria",
    "definition of done",
    "criteria",
    "checklist",
    "verification checklist",
    "qa",
    "metrics",
    "success metrics",
    "changelog",
    "history",
    "completed",
    "future",
    "vision",
    "contributing",
    "how to contribute",
    // The same in the plans' other languages.
    "übersicht",
    "hintergrund",
    "ziel",
    "ziele",
    "mitwirken",
    "hors périmètre",
    "fuera de alcance",
    "fuera del alcance",
    "fora do escopo",
    "visión",
    "visão",
    "ausblick",
    "anhang",
    "risiken",
    "aperçu",
    "contexte",
    "objectifs",
    "annexe",
    "risques",
    "resumen",
    "contexto",
    "objetivos",
    "riesgos",
    "anexo",
    "visão geral",
    "обзор",
    "контекст",
    "цели",
    "риски",
    "приложение",
];

/// Names in scripts without spaces between words, matched as the heading's
/// start (`后续版本（v2+）`, `进度追踪`).
const ABOUT_THE_PLAN_CJK: &[&str] = &[
    "概览",
    "概述",
    "背景",
    "目标",
    "进度",
    "后续",
    "未来",
    "参考",
    "附录",
    "备注",
    "风险",
    "已知风险",
    "验收标准",
    "验收清单",
    "验收检查",
    "概要",
    "目的",
    "進捗",
    "今後",
    "参考資料",
    "備考",
    "개요",
    "배경",
    "목표",
    "향후",
    "참고",
];

/// Whether a heading (`## 7. Success Metrics`, `### Wave 1 Success
/// Metrics`) names a section about the plan.
pub(super) fn describes_plan(heading: &str) -> bool {
    if names_habits(heading) {
        return true;
    }
    let lower = super::clean_name(heading).to_lowercase();
    let lower = lower
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    // `Goal 3: Build the API`, `目标 3：前端`: a name numbered among
    // others is a work item, not a section about the plan.
    let numbered = |rest: &str| {
        rest.trim_start_matches([' ', ':', '：'])
            .starts_with(|c: char| c.is_ascii_digit())
    };
    // `三、已知风险`: an outline's numeral before the name, then the word
    // alone or set apart (`二、目标检测`, object detection, is work).
    let numeral = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_digit() || "一二三四五六七八九十".contains(c))
    };
    if let Some((_, name)) = lower.split_once('、').filter(|(n, _)| numeral(n)) {
        let name = name.trim_start();
        return ABOUT_THE_PLAN_CJK.iter().any(|w| {
            name.strip_prefix(w)
                .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
        });
    }
    if let Some(w) = ABOUT_THE_PLAN_CJK.iter().find(|w| lower.starts_with(*w)) {
        return !numbered(&lower[w.len()..]);
    }
    // `P0 验收`: acceptance named last, set apart by a space, as in `P0
    // Acceptance` (`验收上线`, `4. 验收测试` and `検収処理` are work).
    if !lower.is_ascii()
        && ["验收", "検収"]
            .iter()
            .any(|w| lower.strip_suffix(w).is_some_and(|r| r.ends_with(' ')))
    {
        return true;
    }
    ABOUT_THE_PLAN.iter().any(|w| {
        lower == *w
            || lower
                .strip_prefix(w)
                .is_some_and(|r| r.starts_with([' ', ':', '(']) && !numbered(r))
            || lower.strip_suffix(w).is_some_and(named_last)
    })
}

/// Whether the words before a name about the plan leave the heading
/// about the plan: `Wave 1 Success Metrics` does, but `Validation and QA`
/// joins the name to work of its own, and is about the plan only when
/// what it joins is too (`Background and Context`).
fn named_last(rest: &str) -> bool {
    if !rest.ends_with(' ') {
        return false;
    }
    match [" and ", " & ", " + "]
        .iter()
        .find_map(|j| rest.strip_suffix(j))
    {
        Some(joined) => describes_plan(joined),
        None => true,
    }
}

/// Whether a heading names the legend of the plan's marks (`## Status
/// Legend` holding `- [ ] Not started` and `- [x] Completed`): its boxes
/// explain the marks, they are no work.
pub(super) fn names_legend(heading: &str) -> bool {
    const LEGEND: &[&str] = &[
        "legend",
        "legende",
        "légende",
        "leyenda",
        "legenda",
        "легенда",
        "凡例",
        "图例",
        "범례",
    ];
    let lower = super::clean_name(heading).to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| LEGEND.contains(&w))
        || ["凡例", "图例", "범례"].iter().any(|w| lower.contains(w))
}

/// Whether a heading names upkeep after the plan's end (`Post-Launch:
/// Maintenance & Growth`, `Post-release support`), ideas for later, or
/// the future (`Future Enhancements (Post-MVP)`): its lines, however deep
/// below it, are not work the plan schedules. `Post-Launch Cleanup` is a
/// last step.
pub(super) fn names_after_the_plan(heading: &str) -> bool {
    let lower = super::clean_name(heading).to_lowercase();
    let lower = lower.trim_start_matches(|c: char| !c.is_alphabetic());
    // `Post-launch monitoring setup`, `Post-release support tooling`:
    // work built for after launch, a step.
    let upkeep = ["maintenance", "ongoing"];
    (["post-launch", "post-release", "after launch"]
        .iter()
        .any(|w| lower.starts_with(w))
        && upkeep.iter().any(|w| lower.contains(w)))
        || lower.starts_with("future ")
        || names_later_ideas(heading)
}

/// Whether a heading names habits kept throughout (`## Ongoing Tasks`:
/// commit regularly, add comments): never done, so never a step to run.
/// Only the section named so alone: `Ongoing migration work` is work.
pub(super) fn names_habits(heading: &str) -> bool {
    let lower = super::clean_name(heading).to_lowercase();
    let lower = lower
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    matches!(
        lower,
        "ongoing" | "ongoing tasks" | "ongoing practices" | "ongoing habits" | "ongoing chores"
    )
}

/// Whether a heading names ideas put off to some later day (`💡 Backlog
/// (Idee Future)`, `Future ideas`, `Icebox`, `Someday`): ideas the plan
/// keeps, not steps it schedules. A numbered heading is a step whatever
/// its name.
pub(super) fn names_later_ideas(heading: &str) -> bool {
    // Future milestones and nice-to-haves are still work of the plan;
    // ideas are not yet.
    const LATER: &[&str] = &[
        "ideas", "idea", "someday", "icebox", "wishlist", "idee", "ideen", "idées", "ideias",
        "идеи",
    ];
    let lower = heading.to_lowercase();
    if lower
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .starts_with(|c: char| c.is_ascii_digit())
    {
        return false;
    }
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| LATER.contains(&w))
        || lower.contains("parking lot")
}

/// Whether a heading names a routine repeated for each piece of work (`5.
/// Незмінний цикл роботи агента`, `Daily workflow`, `Each cycle`), not a
/// stretch of the plan.
pub(super) fn names_routine(heading: &str) -> bool {
    const ROUTINE: &[&str] = &[
        "cycle",
        "loop",
        "workflow",
        "routine",
        "procedure",
        "daily",
        "цикл",
        "ciclo",
        "zyklus",
        "arbeitsablauf",
    ];
    // Written without spaces between words: found anywhere.
    const ROUTINE_CJK: &[&str] = &["循环", "ループ", "사이클"];
    let lower = heading.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| ROUTINE.contains(&w))
        || ROUTINE_CJK.iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::describes_plan;
    use super::names_later_ideas;

    #[test]
    fn headings_of_later_ideas_are_named_so() {
        assert!(names_later_ideas("💡 Backlog (Idee Future)"));
        assert!(names_later_ideas("Future ideas"));
        assert!(!describes_plan("6. Validation and QA"));
        assert!(describes_plan("Background and Context"));
        assert!(describes_plan("Wave 1 Success Metrics"));
        assert!(!names_later_ideas("Future Milestones"));
        assert!(super::names_after_the_plan(
            "Post-Launch: Maintenance & Growth"
        ));
        assert!(!super::names_after_the_plan("Post-Launch Cleanup"));
        assert!(!super::names_after_the_plan("Summary of remaining work"));
        assert!(!names_later_ideas("Lower Priority (P2 - Nice to Have)"));
        assert!(!names_later_ideas("3. Future-proof the parser"));
        assert!(!names_later_ideas("Backlog"));
        assert!(!names_later_ideas("Futures contracts"));
    }

    #[test]
    fn sections_about_the_plan_are_named_so() {
        assert!(describes_plan("## 1. Overview"));
        assert!(describes_plan("Wave 1 Success Metrics"));
        assert!(describes_plan("Acceptance Criteria (all must pass)"));
        assert!(!describes_plan("3. Implement the summary view"));
        assert!(!describes_plan("Integration testing"));
        assert!(!describes_plan("Goalkeeper AI"));
        assert!(describes_plan("## 后续版本（v2+）"));
        assert!(describes_plan("Übersicht"));
        assert!(!describes_plan("项目脚手架"));
        assert!(!describes_plan("目标 3：前端 orchestrator"));
        assert!(!describes_plan("Goal 2: Ship the parser"));
    }
}
