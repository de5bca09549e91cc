//! The dispatch template (Approach A).
//!
//! Shapes recognised: a section whose heading names a dispatch, sprint,
//! sortie or agent prompt template (`## Dispatch Template`, `## Appendix D:
//! Sprint Prompt Template`) and whose body holds template variables
//! (`<N>`, `{{sprint}}`, `$PROJECT_ROOT`) or instructions to the agent; a
//! fenced block with `template: |`. Example output and notes on writing
//! prompts are not templates.

use super::*;

pub(super) fn is_template_heading(text: &str) -> bool {
    let l = text.to_lowercase();
    l.contains("appendix d")
        || l.contains("dispatch template")
        || l.contains("sprint prompt template")
        || l.contains("agent prompt")
        || l.contains("prompt template")
}

pub(super) fn detect_template(doc: &Doc) -> (Option<String>, Option<String>) {
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if !is_template_heading(text) {
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
        if !body.trim().is_empty() {
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
