//! An epic's list of the tickets it created (ccpm's `## Tasks Created`):
//! `- [ ] #342 - Real execution engine (parallel: false - depends on 342)`
//! or `- [x] 001.md - Monorepo scaffold (parallel: true)`. Each ticket is a
//! sprint, done by its box; the list is the work, so a preview of the same
//! tickets elsewhere in the epic is not.
//!
//! Order, in the epic's own words only: a ticket's `depends on 342` (or
//! `depends on all others`), else a `Dependency order: 001 → {002,003} ;
//! 003 → 004` line. Where the epic states some order, a ticket it marks
//! `parallel: true` and names no wait for starts at once, and one it marks
//! `parallel: false` waits for the ticket before it; where it states none,
//! the tickets are one sequence.

use super::sprints::blank_sprint;
use super::*;

/// One created ticket, with what its own line says of its order.
pub(super) struct Ticket {
    pub(super) sprint: RawSprint,
    /// The ticket's code as written (`#342`, `001`).
    pub(super) code: String,
    parallel: bool,
    /// Ticket numbers it names after `depends on`; `None` when it names
    /// none, `Some(all earlier)` for "all others".
    waits: Option<Vec<u32>>,
}

/// The tickets under a `Tasks Created` heading, two or more.
pub(super) fn created_tickets(doc: &Doc) -> Vec<Ticket> {
    // A look at the bytes before any copy: most headings are no such list.
    let named = |t: &str| {
        t.as_bytes()
            .windows(7)
            .any(|w| w.eq_ignore_ascii_case(b"created"))
            && norm(t).trim_end_matches(':') == "tasks created"
    };
    let Some(heading) =
        (0..doc.blocks.len()).find(|&i| doc.heading(i).is_some_and(|(_, t, _)| named(t)))
    else {
        return Vec::new();
    };
    let mut out: Vec<Ticket> = Vec::new();
    for b in doc.own_blocks(heading) {
        let Block::Item {
            depth: 0,
            checked,
            span,
            ..
        } = &doc.blocks[b]
        else {
            continue;
        };
        let line = doc.source[span.clone()].lines().next().unwrap_or_default();
        let Some((number, code, title)) = ticket_parts(line) else {
            continue;
        };
        let code = code.to_string();
        let lower = title.to_lowercase();
        let (name, aside) = match title.find("(parallel") {
            Some(k) => (title[..k].trim(), &lower[k..]),
            None => (title.trim(), lower.as_str()),
        };
        let id = SprintId {
            number,
            suffix: String::new(),
        };
        let mut sprint = blank_sprint(id.clone(), name, line.to_string());
        sprint.tasks = vec![name.to_string()];
        sprint.done = (*checked == Some(true))
            .then(|| "marked complete in the plan (ticked in the epic's created tickets)".into());
        sprint.origin = Origin::new(
            doc.line(span.start),
            "a ticket in the epic's `Tasks Created` list",
        );
        out.push(Ticket {
            sprint: RawSprint {
                id,
                span: span.clone(),
                sprint,
            },
            code,
            parallel: aside.contains("parallel: true"),
            waits: depends_on(aside, &out),
        });
    }
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// `#342 - Title`, `001.md - Title`, `**#12** — Title`: the ticket number,
/// its code as written and the rest of the line.
fn ticket_parts(line: &str) -> Option<(u32, &str, &str)> {
    let t = super::outline::item_label(line).trim_start_matches('*');
    let hash = usize::from(t.starts_with('#'));
    let digits = t[hash..].chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let code = &t[..hash + digits];
    let t = &t[hash..];
    let number = t[..digits].parse().ok()?;
    let rest = t[digits..].strip_prefix(".md").unwrap_or(&t[digits..]);
    let rest = rest.trim_start_matches('*').trim_start();
    let title = rest.strip_prefix(['-', '—', '–', ':'])?.trim_start();
    (!title.is_empty()).then_some((number, code, title))
}

/// What a ticket's aside names after `depends on`.
fn depends_on(aside: &str, earlier: &[Ticket]) -> Option<Vec<u32>> {
    let (_, rest) = aside.split_once("depends on")?;
    let rest = rest.split(')').next().unwrap_or_default();
    if rest.trim_start().starts_with("all") {
        return Some(earlier.iter().map(|t| t.sprint.id.number).collect());
    }
    let named: Vec<u32> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    (!named.is_empty()).then_some(named)
}

/// What each ticket waits for (indices of earlier tickets), when the epic
/// states an order with some tickets at once.
pub(super) fn waits(doc: &Doc, tickets: &[Ticket]) -> Option<Vec<Vec<usize>>> {
    let position = |n: u32| tickets.iter().position(|t| t.sprint.id.number == n);
    let stated_inline = tickets.iter().any(|t| t.waits.is_some());
    let order_line = if stated_inline {
        None
    } else {
        dependency_order(doc.source)
    };
    if !stated_inline && order_line.is_none() {
        return None;
    }
    let mut waits = Vec::with_capacity(tickets.len());
    for (me, t) in tickets.iter().enumerate() {
        let named: Option<Vec<u32>> = match &order_line {
            Some(edges) => {
                let on: Vec<u32> = edges
                    .iter()
                    .filter(|(_, to)| *to == t.sprint.id.number)
                    .map(|(from, _)| *from)
                    .collect();
                (!on.is_empty()).then_some(on)
            }
            None => t.waits.clone(),
        };
        let on = match named {
            Some(named) => {
                let mut on = Vec::new();
                for n in named {
                    match position(n) {
                        Some(p) if p < me => on.push(p),
                        // Itself (`#342 … depends on 342` in a sloppy
                        // list) names nothing.
                        Some(p) if p == me => {}
                        _ => return None,
                    }
                }
                on.sort_unstable();
                on.dedup();
                on
            }
            None if t.parallel => Vec::new(),
            None => me.checked_sub(1).into_iter().collect(),
        };
        waits.push(on);
    }
    super::dependency_lines::at_once(&waits).then_some(waits)
}

/// `Dependency order: 001 → {002,003,006} ; 003 → {004,006} ;` and on
/// the next lines `{003,004} → 005`: (from, to) pairs.
fn dependency_order(source: &str) -> Option<Vec<(u32, u32)>> {
    // The line and the lines that carry on its arrows (`… ;` then
    // `{003,004} → 005`).
    let mut lines = source
        .lines()
        .skip_while(|l| !l.trim().starts_with("Dependency order:"));
    let first = lines.next()?.trim().strip_prefix("Dependency order:")?;
    let mut line = first.to_string();
    for more in
        lines.take_while(|l| l.contains('→') && !l.trim_start().starts_with(['-', '#', '*']))
    {
        line.push(' ');
        line.push_str(more.trim());
    }
    let group = |s: &str| -> Option<Vec<u32>> {
        let s = s.trim().trim_start_matches('{').trim_end_matches('}');
        s.split(',').map(|n| n.trim().parse().ok()).collect()
    };
    let mut edges = Vec::new();
    for part in line.split(';') {
        let steps: Vec<&str> = part.split(['→']).collect();
        if steps.len() < 2 {
            continue;
        }
        for pair in steps.windows(2) {
            for from in group(pair[0])? {
                for to in group(pair[1])? {
                    edges.push((from, to));
                }
            }
        }
    }
    (!edges.is_empty()).then_some(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticket_lines() {
        assert_eq!(
            ticket_parts("- [ ] #342 - Real engine (parallel: false)"),
            Some((342, "#342", "Real engine (parallel: false)"))
        );
        assert_eq!(
            ticket_parts("- [x] 001.md - Monorepo scaffold"),
            Some((1, "001", "Monorepo scaffold"))
        );
        assert_eq!(ticket_parts("- [ ] Write the docs"), None);
    }

    #[test]
    fn dependency_order_lines() {
        let src = "Dependency order: 001 → {002,003} ; 003 → 004 ;\n{003,004} → 005\n";
        assert_eq!(
            dependency_order(src),
            Some(vec![(1, 2), (1, 3), (3, 4), (3, 5), (4, 5)])
        );
    }
}
