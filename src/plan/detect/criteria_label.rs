//! Which heading or label line names a sprint's criteria, tasks, rules or
//! expected output (`Exit Criteria`, `Definition of Done`, `完了条件`,
//! `Tasks`, `Rules`), in the plans' languages, with a gloss aside of the
//! same kind (`成功条件（Definition of Done）`).

use super::criteria::Label;
use super::norm;

/// The label of `label (gloss)` where both are labels of one kind.
fn gloss_label(t: &str) -> Option<Label> {
    // One byte looked for at a time (memchr), not a set of chars walked.
    let open = t.find('(').or_else(|| t.find('（'))?;
    let label = &t[..open];
    let gloss = t[open..]
        .trim_start_matches(['(', '（'])
        .trim_end_matches([')', '）']);
    if label.trim().is_empty() || label.len() > 48 || gloss.len() > 64 || label.contains(':') {
        return None;
    }
    let kind = criteria_label(label)?;
    (criteria_label(gloss) == Some(kind)).then_some(kind)
}

pub(super) fn criteria_label(text: &str) -> Option<Label> {
    let t = norm(text.trim_end_matches(':'));
    let t = t.trim_end_matches(':').trim();
    // `5.5 Acceptance criteria for Phase B`, `Exit Criteria (Sprint 1)`.
    let t = t
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')')
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(|c: char| !c.is_alphanumeric() && c != ')');
    Some(match t {
        "entry criteria" | "entry checks" | "preconditions" | "prerequisites" | "entry" => {
            Label::Entry
        }
        "exit criteria"
        | "exit checks"
        | "exit checklist"
        | "validation"
        | "validate"
        | "verify"
        | "verification"
        | "acceptance criteria"
        | "acceptance"
        // An ExecPlan's own section.
        | "validation and acceptance"
        | "success criteria"
        | "completion criteria"
        | "done when"
        | "done criteria"
        | "definition of done"
        | "dod"
        | "execute"
        | "exit gate"
        | "sign-off checklist"
        | "sign-off criteria"
        | "signoff checklist"
        | "exit" => Label::Exit,
        // The same labels in other languages.
        "完成标准"
        | "成功标准"
        | "验收标准"
        | "退出标准"
        | "完成条件"
        | "验收条件"
        | "完了条件"
        | "成功条件"
        | "受け入れ基準"
        | "完了基準"
        | "완료 기준"
        | "인수 기준"
        | "criterios de aceptación"
        | "criterios de aceptacion"
        | "criterios de salida"
        | "criterios de éxito"
        | "definición de hecho"
        | "critères d'acceptation"
        | "critères de sortie"
        | "critères de succès"
        | "akzeptanzkriterien"
        | "abnahmekriterien"
        | "abschlusskriterien"
        | "critérios de aceitação"
        | "critérios de aceite"
        | "critérios de aprovação"
        | "criterios de aprobación"
        | "approval criteria"
        | "critérios de saída"
        | "criteri di accettazione"
        | "критерии приёмки"
        | "критерии приемки"
        | "критерии готовности"
        | "критерии завершения"
        | "معیار پذیرش"
        | "معیارهای پذیرش"
        | "معیار تکمیل"
        | "معايير القبول" => Label::Exit,
        "任务"
        | "任務"
        | "范围"
        | "範囲"
        | "产出"
        | "交付物"
        | "タスク"
        | "작업"
        | "tareas"
        | "entregables"
        | "tâches"
        | "livrables"
        | "aufgaben"
        | "tarefas"
        | "entregáveis"
        | "задачи"
        | "результаты"
        | "تسک‌ها"
        | "وظایف"
        | "المهام" => Label::Tasks,
        "rules" | "constraints" => Label::Rules,
        "expected" | "expected output" | "expected result" => Label::Expected,
        "tasks" | "deliverables" | "steps" | "scope" | "files" | "plans" => Label::Tasks,
        // `成功条件（Definition of Done）`: a label with its gloss aside,
        // itself a label of the same kind (`Validation (optional)` over
        // tasks stays a section of work). Both are short phrases: a step's
        // heading (`Sprint 3: Export (CSV)`) is looked at no further.
        _ if text
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '*' | '_' | '`'))
            .ends_with([')', '）'])
            && gloss_label(t).is_some() =>
        {
            gloss_label(t)?
        }
        _ => {
            const EXIT_PREFIXES: &[&str] = &[
                "exit criteria ",
                "exit criteria(",
                "acceptance criteria ",
                "success criteria ",
                "definition of done ",
                "dod ",
                "done when ",
                "exit checklist ",
                "approval criteria ",
            ];
            // `Критерии готовности 0.3.0`, `Criterios de aceptación (v2)`:
            // every one opens with `к`, `c` or `a`, which most labels do
            // not (every heading and label line is asked).
            const OTHER_LANGUAGES: &[&str] = &[
                "критерии готовности ",
                "критерии приёмки ",
                "критерии приемки ",
                "критерии завершения ",
                "criterios de aceptación ",
                "criterios de aceptacion ",
                "criterios de éxito ",
                "critères d'acceptation ",
                "critères de succès ",
                "critérios de aceitação ",
                "critérios de aceite ",
                "critérios de aprovação ",
                "criterios de aprobación ",
                "criteri di accettazione ",
                "akzeptanzkriterien ",
                "abnahmekriterien ",
            ];
            const ENTRY_PREFIXES: &[&str] = &["entry criteria ", "entry criteria("];
            // Written without spaces, a label ends its heading: `Epic成功标准`.
            const EXIT_ENDINGS: &[&str] = &[
                "成功标准",
                "验收标准",
                "完成标准",
                "受け入れ基準",
                "完了基準",
            ];
            let other = || {
                t.starts_with(['к', 'c', 'a']) && OTHER_LANGUAGES.iter().any(|p| t.starts_with(p))
            };
            // `Phase 2 Sign-off Checklist`: the step's own checks.
            const SIGN_OFF: &[&str] = &[" sign-off checklist", " sign-off criteria"];
            if EXIT_PREFIXES.iter().any(|p| t.starts_with(p))
                || other()
                || EXIT_ENDINGS.iter().any(|e| t.ends_with(e))
                || SIGN_OFF.iter().any(|e| t.ends_with(e))
            {
                Label::Exit
            } else if ENTRY_PREFIXES.iter().any(|p| t.starts_with(p)) {
                Label::Entry
            } else {
                return None;
            }
        }
    })
}
