//! A plan written as a Mermaid Gantt chart (```` ```mermaid ```` holding
//! `gantt`): each task row is a sprint in the chart's order, done when the
//! row is tagged `done`. Milestones (zero-length rows) are dates, not work;
//! `section` lines group rows in time and order nothing more than the rows
//! do. Read only when nothing else in the plan reads as work.

use super::sprints::blank_sprint;
use super::*;

/// Keywords of a Gantt chart's own settings, never task rows.
const SETTINGS: &[&str] = &[
    "gantt",
    "title",
    "dateformat",
    "axisformat",
    "tickinterval",
    "excludes",
    "includes",
    "todaymarker",
    "weekday",
    "inclusiveenddates",
    "topaxis",
    "displaymode",
    "section",
    "click",
    "accTitle",
    "accDescr",
];

/// The task rows of every Gantt chart in `scope`, as sprints.
pub(super) fn gantt_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    let mut out = Vec::new();
    for i in scope {
        for (start, line) in chart_rows(doc, i) {
            let t = line.trim();
            let Some((name, tags)) = task_row(t) else {
                continue;
            };
            if tags.iter().any(|t| t == "milestone") {
                continue;
            }
            let id = SprintId::whole(out.len() as u32 + 1);
            let mut sprint = blank_sprint(id.clone(), name, t.to_string());
            sprint.tasks = vec![name.to_string()];
            sprint.done = tags.iter().any(|t| t == "done").then(|| {
                "marked complete in the plan (its Gantt row is tagged `done`)".to_string()
            });
            sprint.origin = Origin::new(doc.line(start), "a task row of a Mermaid Gantt chart");
            let lead = line.len() - line.trim_start().len();
            out.push(RawSprint {
                id,
                span: start + lead..start + lead + t.len(),
                sprint,
            });
        }
    }
    out
}

/// The lines after the `gantt` line of block `i`, when it is a Mermaid
/// Gantt chart, each with its offset in the source; blank lines, comments
/// and the closing fence left out.
fn chart_rows<'a>(doc: &Doc<'a>, i: usize) -> Vec<(usize, &'a str)> {
    let Block::Code { info, span, .. } = &doc.blocks[i] else {
        return Vec::new();
    };
    if !info.trim().eq_ignore_ascii_case("mermaid") {
        return Vec::new();
    }
    let fence = &doc.source[span.clone()];
    let mut lines = fence.split_inclusive('\n');
    // The fence line itself, then the chart.
    let mut at = span.start + lines.next().map_or(0, str::len);
    let mut gantt = false;
    let mut out = Vec::new();
    for line in lines {
        let start = at;
        at += line.len();
        let t = line.trim();
        if t.is_empty() || t.starts_with("%%") || t.starts_with("```") {
            continue;
        }
        if !gantt {
            gantt = t.eq_ignore_ascii_case("gantt");
            if !gantt {
                break;
            }
            continue;
        }
        out.push((start, line));
    }
    out
}

/// The rows of the plan's Gantt charts that name one of its steps by word
/// and number (`Sprint 1 - Pesquisa :done, s1, 15/09/2025, 7d` in a plan
/// of `## Sprint N` sections) and are tagged `done`: the chart's word that
/// those steps are finished. A row without the tag says nothing (charts
/// are often left behind the work), so only done is read.
pub(super) fn done_rows(doc: &Doc) -> Vec<(SprintId, String)> {
    // Most plans hold no chart: one search before any block is asked.
    if !doc.source.contains("gantt") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for i in 0..doc.blocks.len() {
        for (_, line) in chart_rows(doc, i) {
            let Some((name, tags)) = task_row(line.trim()) else {
                continue;
            };
            if !tags.iter().any(|t| t == "done") || tags.iter().any(|t| t == "milestone") {
                continue;
            }
            let Some(Heading::Sprint(h)) = parse_heading(name) else {
                continue;
            };
            if doc.word.is_some_and(|w| w != h.word) || h.id.contains('.') {
                continue;
            }
            if let Some(id) = super::sprints::model_id(&h.id) {
                let row = line.split_whitespace().collect::<Vec<_>>().join(" ");
                out.push((id, row));
            }
        }
    }
    out
}

/// `Analisi dei requisiti :done, a1, 2026-04-27, 2d` → the name and its
/// tags, lower-cased (`done`, `a1`, …); None for a setting or a section.
fn task_row(t: &str) -> Option<(&str, Vec<String>)> {
    let first = t.split_whitespace().next()?.to_lowercase();
    if SETTINGS.iter().any(|s| s.eq_ignore_ascii_case(&first)) {
        return None;
    }
    let (name, rest) = t.split_once(':')?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let tags = rest
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    Some((name, tags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_settings_and_sections() {
        assert_eq!(
            task_row("Schema design :done, s1, 2026-04-28, 2d"),
            Some((
                "Schema design",
                vec!["done".into(), "s1".into(), "2026-04-28".into(), "2d".into()]
            ))
        );
        assert_eq!(task_row("dateFormat YYYY-MM-DD"), None);
        assert_eq!(task_row("section Build"), None);
        assert_eq!(task_row("title Plan: five weeks"), None);
    }
}
