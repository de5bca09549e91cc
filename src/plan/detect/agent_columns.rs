//! A sprint table with one column per agent (`| Sprint | Agent A (Backend)
//! | Agent B (Frontend) | Gate |`): each row is a sprint of every agent, and
//! a gate closes the row before the next starts. The engine has no gate
//! across units, so the cells run as one sequence, row by row (`36a`,
//! `36b`, `37a`, …): slower than the authors' two agents, never out of
//! order. A completion log (`| Sprint | Agent | … |` under a heading that
//! says so) marks the cells it lists done.

use super::*;

/// The words an agent's column starts with.
const AGENT_WORDS: &[&str] = &["agent", "track", "team", "stream", "workstream", "lane"];

/// The agent columns of a table: (column, the agent's letter or name as
/// a completion log writes it), when there are two or more.
fn agent_columns(header: &[Cell]) -> Option<Vec<(usize, String)>> {
    let cols: Vec<(usize, String)> = header
        .iter()
        .enumerate()
        .filter_map(|(c, cell)| {
            let h = norm(&cell.text);
            let word = AGENT_WORDS
                .iter()
                .find(|w| h.starts_with(&format!("{w} ")))?;
            let who = h[word.len()..].split_whitespace().next()?.to_string();
            Some((c, who))
        })
        .collect();
    (cols.len() >= 2).then_some(cols)
}

/// The sprints of the first per-agent sprint table in `scope`.
pub(super) fn sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Option<Vec<RawSprint>> {
    scope.into_iter().find_map(|i| {
        let Block::Table { header, rows, .. } = &doc.blocks[i] else {
            return None;
        };
        let id_col = column(header, &["sprint", "sprint id", "#", "week", "phase"])?;
        let agents = agent_columns(header)?;
        let mut out = Vec::new();
        for row in rows {
            let raw = row.cells.get(id_col)?.text.trim().to_string();
            let raw = raw
                .trim_start_matches(|c: char| c.is_alphabetic() || c == ' ')
                .trim_matches('`');
            let number: u32 = raw.parse().ok()?;
            for (k, (c, _)) in agents.iter().enumerate() {
                let cell = row.cells.get(*c).map_or("", |c| c.text.trim());
                if cell.is_empty() || matches!(cell, "—" | "-" | "–") {
                    continue;
                }
                let id = SprintId {
                    number,
                    suffix: ((b'a' + k as u8) as char).to_string(),
                };
                let who = clean_name(&header[*c].text);
                let body = format!("{who}: {cell}\n");
                let mut sprint = super::sprints::blank_sprint(id.clone(), &who, body);
                // As a table row's name: no inline code, quotes kept.
                sprint.name = format!("{who}: {}", cell.replace('`', ""));
                sprint.tasks = vec![cell.to_string()];
                sprint.files = super::sprints::code_paths(cell);
                sprint.origin = Origin::new(
                    doc.line(row.span.start),
                    format!("a cell of the per-agent sprint table ({who})"),
                );
                out.push(RawSprint {
                    id,
                    span: row.cells[*c].span.clone(),
                    sprint,
                });
            }
        }
        (out.len() >= 2).then_some(out)
    })
}

/// Mark done the cells a completion log lists: a `| Sprint | Agent |`
/// table under a heading that says `Completion`, `Completed` or `Done`.
pub(super) fn completion_log(doc: &Doc, units: &mut [RawUnit]) {
    let Some(agents) = doc.blocks.iter().find_map(|b| match b {
        Block::Table { header, .. } => agent_columns(header),
        _ => None,
    }) else {
        return;
    };
    let mut heading = String::new();
    for b in &doc.blocks {
        match b {
            Block::Heading { text, .. } => heading = text.to_lowercase(),
            Block::Table { header, rows, span } => {
                let logged = ["completion", "completed", "done"]
                    .iter()
                    .any(|w| heading.contains(w));
                let (Some(sc), Some(ac)) = (
                    column(header, &["sprint", "sprint id", "#", "week", "phase"]),
                    column(header, &["agent", "track", "team", "stream", "lane"]),
                ) else {
                    continue;
                };
                if !logged {
                    continue;
                }
                for row in rows {
                    let cell = |c: usize| row.cells.get(c).map_or("", |c| c.text.trim());
                    let number: Option<u32> = cell(sc)
                        .trim_start_matches(|c: char| c.is_alphabetic() || c == ' ')
                        .parse()
                        .ok();
                    let who = cell(ac).to_lowercase();
                    let k = agents.iter().position(|(_, a)| *a == who);
                    let (Some(number), Some(k)) = (number, k) else {
                        continue;
                    };
                    let id = SprintId {
                        number,
                        suffix: ((b'a' + k as u8) as char).to_string(),
                    };
                    for s in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
                        if s.id == id && s.sprint.done.is_none() {
                            s.sprint.done = Some(format!(
                                "marked complete in the plan (listed in its completion log, line {})",
                                doc.line(span.start)
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
