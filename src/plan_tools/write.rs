//! Writing a plan back as Markdown, in the one canonical form the parser
//! reads most directly: a `## Work Units` table, a `## <unit>` section per
//! unit with `### Sprint N: <name>` headers, labelled Entry criteria / Tasks /
//! Exit criteria lists, plan-wide checks and the dispatch template. Used by
//! `breakdown`, `evaluate` and `prioritize`; the frontmatter and the prose
//! under the title are carried over verbatim.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::analysis::At;
use crate::plan::markdown::blocks;
use crate::plan::markdown::Block;
use crate::plan::model::Criterion;
use crate::plan::model::CriterionKind;
use crate::plan::model::Plan;
use crate::plan::model::Sprint;

/// What the canonical form keeps of the original text besides the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extras {
    /// The frontmatter block, `---` lines included.
    pub frontmatter: Option<String>,
    /// Prose paragraphs between the title and the first section.
    pub intro: Vec<String>,
    /// `##` sections that are neither units, sprints, checks, tables nor
    /// the template (Goals, Background…), verbatim.
    pub sections: Vec<String>,
}

/// Whether a `##` section of the original is something the canonical form
/// writes itself (and so must not be copied).
fn regenerated(heading: &str, body: &str, plan: &Plan) -> bool {
    let h = heading
        .trim_start_matches('#')
        .trim()
        .trim_matches('*')
        .to_lowercase();
    let unit_named = plan.units.iter().any(|u| {
        let n = u.name.to_lowercase();
        h == n || super::analysis::has_phrase(&h, &n)
    });
    // A section read as a sprint (`## T001 — Create the monorepo`) is
    // written as that sprint.
    let read_as_sprint = plan
        .units
        .iter()
        .flat_map(|u| &u.sprints)
        .any(|s| h.ends_with(&s.name.to_lowercase()) && s.name.chars().count() >= 8);
    // Sprint headings in any of the words the parser reads (Sortie, Phase,
    // Step, …) and headings about a sprint are regenerated too.
    let sprint_inside = read_as_sprint
        || crate::plan::detect::is_work_heading(heading.trim_start_matches('#'))
        || body.lines().any(|l| {
            let t = l.trim_start_matches('#').trim().to_lowercase();
            l.starts_with('#')
                && (t.starts_with("sprint ")
                    || t.starts_with("task ")
                    || crate::plan::detect::is_work_heading(l.trim_start_matches('#')))
        });
    let structural = [
        "work unit",
        "package",
        "component",
        "layer",
        "depend",
        "summary",
        "template",
        "appendix d",
    ]
    .iter()
    .any(|k| h.contains(k));
    let checks = ["checks", "rules", "constraints", "exit criteria"]
        .iter()
        .any(|k| h.ends_with(k));
    let table = body.lines().any(|l| l.trim_start().starts_with('|'));
    let code = body.contains("```") || body.contains("~~~");
    unit_named || sprint_inside || structural || checks || table || code
}

/// Read what the canonical form keeps out of `source`: the frontmatter, the
/// introduction's prose, and the sections that carry no plan structure.
pub fn extras(source: &str, plan: &Plan) -> Extras {
    let mut e = intro(source);
    let mut current: Option<(String, String)> = None;
    let mut fenced = false;
    let flush = |c: Option<(String, String)>, out: &mut Vec<String>| {
        if let Some((h, body)) = c {
            if !regenerated(&h, &body, plan) {
                out.push(format!("{h}\n{}", body.trim_end()).trim_end().to_string());
            }
        }
    };
    for line in source.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with("## ") {
            flush(current.take(), &mut e.sections);
            current = Some((line.to_string(), String::new()));
            continue;
        }
        if !fenced && line.starts_with("# ") {
            flush(current.take(), &mut e.sections);
            continue;
        }
        if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    flush(current.take(), &mut e.sections);
    e
}

/// The frontmatter and the prose under the title.
fn intro(source: &str) -> Extras {
    let cut = crate::plan::frontmatter::block_end(source).unwrap_or(0);
    let frontmatter = (cut > 0).then(|| source[..cut].to_string());
    let rest = &source[cut..];
    let mut intro = Vec::new();
    let mut seen_title = false;
    let mut fenced = false;
    let mut paragraph = String::new();
    for line in rest.lines() {
        let t = line.trim_start();
        // A fence ends the paragraph before it: joined to the line after
        // the fence, `Depends on: a` over `=` would become a heading.
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            if !paragraph.is_empty() {
                intro.push(std::mem::take(&mut paragraph));
            }
            continue;
        }
        if fenced {
            continue;
        }
        if t.starts_with("# ") && !seen_title {
            seen_title = true;
            continue;
        }
        if t.starts_with('#') {
            break;
        }
        let structural = t.starts_with('|')
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("> ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if t.is_empty() || structural {
            if !paragraph.is_empty() {
                intro.push(std::mem::take(&mut paragraph));
            }
            continue;
        }
        if !paragraph.is_empty() {
            paragraph.push('\n');
        }
        paragraph.push_str(line.trim_end());
    }
    if !paragraph.is_empty() {
        intro.push(paragraph);
    }
    Extras {
        frontmatter,
        intro,
        sections: Vec::new(),
    }
}

fn fence(out: &mut String, text: &str) {
    let ticks = if text.contains("```") { "````" } else { "```" };
    let _ = writeln!(out, "{ticks}sh\n{}\n{ticks}", text.trim_end());
}

/// A criterion that came from a code block (its text is its command) goes
/// back as a code block; every other one as a `- [ ]` item.
fn from_code(c: &Criterion) -> bool {
    c.kind == CriterionKind::Command && c.command.as_deref() == Some(c.text.as_str())
}

fn criteria(out: &mut String, label: &str, list: &[Criterion]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(out, "**{label}**:\n");
    let mut in_list = false;
    for (i, c) in list.iter().enumerate() {
        if from_code(c) {
            if in_list {
                out.push('\n');
                in_list = false;
            }
            fence(out, &c.text);
            out.push('\n');
        } else {
            let mark = if c.checked { "x" } else { " " };
            let _ = writeln!(out, "- [{mark}] {}", item("- [ ] ", &c.text));
            in_list = true;
        }
        if let Some(expected) = &c.expected {
            if in_list {
                out.push('\n');
                in_list = false;
            }
            let _ = writeln!(out, "**Expected**:\n");
            let _ = writeln!(out, "```\n{}\n```\n", expected.trim_end());
            // Criteria after an Expected block need their label again.
            if i + 1 < list.len() {
                let _ = writeln!(out, "**{label}**:\n");
            }
        }
    }
    if in_list {
        out.push('\n');
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A list item's text as the parser gave it: continuation lines indented
/// under the item so they stay part of it, and escaped where Markdown would
/// otherwise read it differently (see [`escaped_if_needed`]). `prefix` is
/// the list marker the text follows (`- [ ] `, `1. `, `- `).
fn item(prefix: &str, s: &str) -> String {
    let want = s
        .trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    escaped_if_needed(s.trim(), &want, |candidate| {
        let written = format!("{prefix}{}\n", candidate.replace('\n', "\n  "));
        match blocks(&written).into_iter().next() {
            Some(Block::Item { text, .. }) => Some(text),
            _ => None,
        }
    })
    .replace('\n', "\n  ")
}

/// A sprint heading's name, escaped where Markdown would read it otherwise.
fn heading_name(name: &str) -> String {
    let name = one_line(name);
    escaped_if_needed(&name, &name, |candidate| {
        match blocks(&format!("### Sprint 1: {candidate}\n"))
            .into_iter()
            .next()
        {
            Some(Block::Heading { text, .. }) => {
                text.strip_prefix("Sprint 1: ").map(str::to_string)
            }
            _ => None,
        }
    })
}

/// `text` as written, when `read` (the parser's reading of it in its place)
/// gives back `want`; otherwise with the Markdown punctuation outside code
/// spans backslash-escaped, and as a last resort with every punctuation
/// character escaped, backticks included. The model holds text as the parser
/// rendered it (`\!` already read as `!`, emphasis markers dropped), so text
/// holding a backslash, an unbalanced `*` or an entity must be escaped to
/// read back unchanged. Plain text, the common case, is written as it is.
fn escaped_if_needed(text: &str, want: &str, read: impl Fn(&str) -> Option<String>) -> String {
    if read(text).as_deref() == Some(want) {
        return text.to_string();
    }
    let outside_code = escape(text, false);
    if read(&outside_code).as_deref() == Some(want) {
        return outside_code;
    }
    escape(text, true)
}

/// Backslash-escape ASCII punctuation. Without `ticks`, paired backtick code
/// spans are kept (padded where Markdown would strip their outer spaces; an
/// unpaired backtick is escaped).
fn escape(text: &str, ticks: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`' && !ticks {
            if let Some(end) = rest[1..].find('`') {
                // Markdown strips one space from each side of a code span
                // whose content starts and ends with one: pad it back.
                let content = &rest[1..end + 1];
                let pad = content.starts_with(' ')
                    && content.ends_with(' ')
                    && !content.trim().is_empty();
                let pad = if pad { " " } else { "" };
                out.push_str(&format!("`{pad}{content}{pad}`"));
                rest = &rest[end + 2..];
                continue;
            }
        }
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

pub(crate) fn sprint(out: &mut String, s: &Sprint, annotation: Option<&String>) {
    let _ = writeln!(out, "### Sprint {}: {}\n", s.id, heading_name(&s.name));
    // A new annotation replaces the one the sprint had; otherwise it stays.
    let kept = s
        .body
        .lines()
        .find_map(|l| l.trim().strip_prefix("**Priority**:"))
        .map(|a| a.trim().to_string());
    if let Some(a) = annotation.or(kept.as_ref()) {
        let _ = writeln!(out, "**Priority**: {a}\n");
    }
    if s.task_type != crate::plan::detect::classify_task_type(&s.name, &s.tasks) {
        let _ = writeln!(out, "Type: {}\n", s.task_type);
    }
    criteria(out, "Entry criteria", &s.entry);
    if !s.tasks.is_empty() {
        let _ = writeln!(out, "**Tasks**:\n");
        for (i, t) in s.tasks.iter().enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, item("1. ", t));
        }
        out.push('\n');
    }
    criteria(out, "Exit criteria", &s.exit);
}

fn cell(s: &str) -> String {
    let line = one_line(s).replace('|', "\\|");
    // An unclosed backtick would open a code span that swallows the
    // row's other cells.
    if line.matches('`').count() % 2 == 1 {
        line.replace('`', "\\`")
    } else {
        line
    }
}

/// The plan in canonical form. `annotations` are `**Priority**:` lines.
pub fn render(plan: &Plan, extras: &Extras, annotations: &BTreeMap<At, String>) -> String {
    let mut out = String::new();
    if let Some(f) = &extras.frontmatter {
        out.push_str(f);
        out.push('\n');
    }
    if let Some(t) = &plan.title {
        let _ = writeln!(out, "# {t}\n");
    }
    // Kept text that opens a raw HTML block it does not close (`<?`,
    // `<!--`) would hide every heading after it: it goes after the plan,
    // where in its own plan it hid nothing of the structure either.
    let (open, kept): (Vec<&String>, Vec<&String>) = extras
        .intro
        .iter()
        .chain(&extras.sections)
        .partition(|t| opens_html_block(t));
    for p in kept {
        let _ = writeln!(out, "{p}\n");
    }
    let layers = plan.units.iter().any(|u| u.layer.is_some());
    // Dependencies are written only where the layers do not already imply
    // them, so that a layered plan stays layered.
    let implied = |u: &crate::plan::model::Unit| -> Vec<String> {
        match u.layer {
            Some(l) => plan
                .units
                .iter()
                .filter(|x| x.layer.is_some_and(|x| x < l))
                .map(|x| x.name.clone())
                .collect(),
            None => Vec::new(),
        }
    };
    let explicit = |u: &crate::plan::model::Unit| !u.deps.is_empty() && u.deps != implied(u);
    let deps = layers || plan.units.iter().any(explicit);
    let _ = writeln!(out, "## Work Units\n");
    let mut header = vec!["Work Unit", "Directory", "Sprints"];
    if layers {
        header.push("Layer");
    }
    if deps {
        header.push("Dependencies");
    }
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(
        out,
        "|{}|",
        header
            .iter()
            .map(|h| "-".repeat(h.len() + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for u in &plan.units {
        let mut row = vec![
            cell(&u.name),
            cell(u.dir.as_deref().unwrap_or(".")),
            u.sprints.len().to_string(),
        ];
        if layers {
            row.push(u.layer.map(|l| l.to_string()).unwrap_or_default());
        }
        if deps {
            row.push(if explicit(u) {
                cell(&u.deps.join(", "))
            } else {
                "—".into()
            });
        }
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
    if !plan.entry_checks.is_empty() {
        let _ = writeln!(out, "## Entry Checks\n");
        criteria_items(&mut out, &plan.entry_checks);
    }
    if !plan.exit_checks.is_empty() {
        let _ = writeln!(out, "## Exit Checks\n");
        criteria_items(&mut out, &plan.exit_checks);
    }
    if !plan.rules.is_empty() {
        let _ = writeln!(out, "## Rules\n");
        for r in &plan.rules {
            let _ = writeln!(out, "- {}", item("- ", r));
        }
        out.push('\n');
    }
    for (ui, u) in plan.units.iter().enumerate() {
        let _ = writeln!(out, "## {}\n", u.name);
        for (si, s) in u.sprints.iter().enumerate() {
            sprint(
                &mut out,
                s,
                annotations.get(&At {
                    unit: ui,
                    sprint: si,
                }),
            );
        }
    }
    if let Some(t) = &plan.template {
        let _ = writeln!(out, "## Dispatch Template\n");
        let ticks = if t.contains("```") { "````" } else { "```" };
        let _ = writeln!(out, "{ticks}\n{}\n{ticks}", t.trim_end());
    }
    for p in open {
        let _ = writeln!(out, "{p}\n");
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Whether `text` holds a line that opens a CommonMark raw HTML block
/// ending only at a marker (`<?` … `?>`, `<!--` … `-->`, `<![CDATA[` …
/// `]]>`, `<!DOCTYPE` … `>`, `<script` … `</script>`) with no such marker
/// after it.
fn opens_html_block(text: &str) -> bool {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start_matches(' ');
        let indent = line.len() - t.len();
        let rest = &text[at + indent..];
        at += line.len();
        if indent > 3 {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        let close = if !lower.starts_with('<') {
            None
        } else if lower.starts_with("<!--") {
            Some("-->")
        } else if lower.starts_with("<?") {
            Some("?>")
        } else if lower.starts_with("<![cdata[") {
            Some("]]>")
        } else if lower.starts_with("<!")
            && lower[2..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            Some(">")
        } else {
            ["script", "pre", "style", "textarea"]
                .iter()
                .find(|tag| {
                    lower[1..].starts_with(*tag)
                        && lower[1 + tag.len()..].starts_with([' ', '>', '\n', '\r'])
                })
                .map(|tag| match *tag {
                    "script" => "</script>",
                    "pre" => "</pre>",
                    "style" => "</style>",
                    _ => "</textarea>",
                })
        };
        if let Some(close) = close {
            let opener = if close == ">" { 2 } else { 1 };
            if !rest[opener..].to_ascii_lowercase().contains(close) {
                return true;
            }
        }
    }
    false
}

/// Plan-wide checks: items, or code blocks for bare commands.
fn criteria_items(out: &mut String, list: &[Criterion]) {
    let mut in_list = false;
    for c in list {
        if from_code(c) {
            if in_list {
                out.push('\n');
                in_list = false;
            }
            fence(out, &c.text);
            out.push('\n');
        } else {
            in_list = true;
            let mark = if c.checked { "x" } else { " " };
            let _ = writeln!(out, "- [{mark}] {}", item("- [ ] ", &c.text));
        }
    }
    if in_list {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::opens_html_block;

    #[test]
    fn raw_html_blocks_left_open_are_found() {
        assert!(opens_html_block("<?"));
        assert!(opens_html_block("Notes\n<!-- draft"));
        assert!(opens_html_block("<script>\nlet x = 1;"));
        assert!(!opens_html_block("<!-- a note -->"));
        assert!(!opens_html_block("<?xml version=\"1.0\"?>"));
        assert!(!opens_html_block("Plain prose with <b>bold</b>."));
        assert!(!opens_html_block("<prefix is no tag"));
        assert!(!opens_html_block("    <? indented code"));
        assert!(!opens_html_block(""));
    }
}
