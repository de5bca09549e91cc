//! The dispatch template (Approach A).
//!
//! Shapes recognised: a section whose heading names a dispatch, sprint,
//! sortie or agent prompt template (`## Dispatch Template`, `## Appendix D:
//! Sprint Prompt Template`) and whose body holds template variables
//! (`<N>`, `{{sprint}}`, `$PROJECT_ROOT`) or instructions to the agent; a
//! fenced block with `template: |`. Example output and notes on writing
//! prompts are not templates.

use super::*;

/// A heading naming a dispatch template: "template" with dispatch, sprint,
/// sortie, agent or prompt, or a dispatch/agent/sprint prompt. Examples,
/// notes and advice about prompts are not templates.
pub(super) fn is_template_heading(text: &str) -> bool {
    let l = text.to_lowercase();
    let names_one = (l.contains("template")
        && ["dispatch", "sprint", "sortie", "agent", "prompt"]
            .iter()
            .any(|w| l.contains(w)))
        || [
            "dispatch prompt",
            "agent prompt",
            "sprint prompt",
            "sortie prompt",
        ]
        .iter()
        .any(|w| l.contains(w));
    // Asked only of a name that names a template: most do not.
    let about_one = || {
        [
            "example", "notes", "note on", "writing", "tips", "good ", "guide", "sample",
        ]
        .iter()
        .any(|w| l.contains(w))
    };
    names_one && !about_one()
}

/// A section that is a template for the plan's own entries (`## GOV
/// Template (reference)` holding `- [ ] EP XXX — Название эпика`, `### Fix
/// Task Template` with `DEF-YYYYMMDD-###`): its heading names a template in
/// one of several languages and its text holds placeholders. Its boxes are
/// a pattern to copy, not work.
pub(super) fn is_entry_template(doc: &Doc, i: usize) -> bool {
    let Some((_, text, _)) = doc.heading(i) else {
        return false;
    };
    let l = text.to_lowercase();
    let named = l.split(|c: char| !c.is_alphanumeric()).any(|w| {
        matches!(
            w,
            "template" | "шаблон" | "plantilla" | "vorlage" | "modèle" | "modello" | "sjabloon"
        )
    }) || l.contains("テンプレート")
        || l.contains("模板");
    if !named {
        return false;
    }
    let body = doc.section_text(i);
    [
        "XXX", "YYYY", "<Name>", "<name>", "{name}", "TBD-", "###-", "-###",
    ]
    .iter()
    .any(|p| body.contains(p))
}

/// Whether heading `i` is an entry template or lies in one.
pub(super) fn in_entry_template(doc: &Doc, i: usize) -> bool {
    let mut at = Some(i);
    while let Some(h) = at {
        if is_entry_template(doc, h) {
            return true;
        }
        at = doc.parent[h];
    }
    false
}

/// Template variables (`<N>`, `{{sprint}}`, `{unit}`, `$PROJECT_ROOT`,
/// `[SPRINT_NAME]`) or instructions to the agent.
fn reads_as_template(body: &str) -> bool {
    let has_var = body.contains("{{")
        || body.split('<').skip(1).any(|p| {
            p.split_once('>').is_some_and(|(v, _)| {
                !v.is_empty()
                    && v.len() < 40
                    && v.chars().all(|c| {
                        c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit() || c == ' '
                    })
            })
        })
        || body.split('{').skip(1).any(|p| {
            p.split_once('}').is_some_and(|(v, _)| {
                !v.is_empty()
                    && v.len() < 40
                    && v.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            })
        })
        || body
            .split('$')
            .skip(1)
            .any(|p| p.starts_with(|c: char| c.is_ascii_uppercase() || c == '{'));
    let lower = body.to_lowercase();
    let instructs = [
        "you are",
        "your task",
        "you will",
        "do not",
        "you must",
        "read ",
        "implement",
        "when done",
        "when you",
    ]
    .iter()
    .any(|w| lower.contains(w));
    has_var || instructs
}

pub(super) fn detect_template(doc: &Doc) -> (Option<String>, Option<String>) {
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if !is_template_heading(text) {
            continue;
        }
        // A sprint about a template (`### Sprint 1: Back up the current
        // template`), or a section holding sprints, is work, not the prompt.
        if doc.is_sprint(i) || doc.section(i).any(|j| doc.is_sprint(j)) {
            continue;
        }
        let code = doc.section(i).find_map(|j| match &doc.blocks[j] {
            Block::Code { text, .. } => Some(text.clone()),
            _ => None,
        });
        let body = code.unwrap_or_else(|| {
            let t = doc.section_text(i);
            t.split_once('\n')
                .map(|(_, rest)| rest.trim().to_string())
                .unwrap_or_default()
        });
        // The canonical `## Dispatch Template` heading is unambiguous; other
        // headings that mention a prompt must hold something template-like.
        // (`## Dispatch Template`, `## Appendix D: Dispatch Template`).
        let heading = norm(text);
        let title = heading.rsplit(':').next().unwrap_or(&heading).trim();
        let canonical = title == "dispatch template";
        if !body.trim().is_empty() && (canonical || reads_as_template(&body)) {
            return (Some(body), Some(format!("section \"{text}\"")));
        }
    }
    for b in &doc.blocks {
        let Block::Code { text, .. } = b else {
            continue;
        };
        if let Some(t) = yaml_template(text) {
            return (Some(t), Some("fenced block with `template:`".to_string()));
        }
    }
    (None, None)
}

/// `template: |` followed by an indented block, or `template: "one line"`.
pub(super) fn yaml_template(text: &str) -> Option<String> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("template:") else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let rest = rest.trim();
        if !rest.starts_with('|') && !rest.starts_with('>') {
            return Some(rest.trim_matches('"').to_string()).filter(|s| !s.is_empty());
        }
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .collect();
        let strip = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let joined: Vec<&str> = body.iter().map(|l| l.get(strip..).unwrap_or("")).collect();
        return Some(joined.join("\n").trim_end().to_string()).filter(|s| !s.is_empty());
    }
    None
}
