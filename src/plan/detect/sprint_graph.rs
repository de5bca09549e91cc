//! A plan read as one unit whose steps the plan itself orders as a graph
//! runs each step as a unit of its own, waiting for what the plan says it
//! waits for. Two kinds of evidence count, each naming the steps it is
//! about: a Cursor plan's todos that list their `dependencies:`, and a
//! sentence scoped to numbered steps ("Tasks 1-4 are independent and can
//! run in parallel"). Everything else stays one sequence: "tasks in this
//! phase can run in parallel" names nothing, and "Phases 4-6 can proceed
//! in parallel with Phase 3" orders them against a step, not each other.
//! Steps that each write a `Dependencies:` line are read in
//! `dependency_lines`.

mod group_chain;

use super::dependencies::DEPENDENCY_COLUMNS;
use super::done_elsewhere::todos;
use super::Block;
use super::Doc;
use super::Origin;
use super::RawSprint;
use super::RawUnit;
use super::SprintId;

/// Replace a lone unit by one unit per step when the plan states the
/// steps' order as a graph; true when it did.
pub(super) fn split_by_stated_order(doc: &Doc, units: &mut Vec<RawUnit>) -> bool {
    let [unit] = units.as_slice() else {
        return false;
    };
    if unit.sprints.len() < 2 {
        return false;
    }
    let split = from_todos(doc, unit)
        .or_else(|| {
            super::phase_dependencies::from_phase_dependencies(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        })
        .or_else(|| from_order_list(doc, unit))
        .or_else(|| from_sentence(doc, unit))
        .or_else(|| {
            group_chain::from_group_chain(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        })
        .or_else(|| from_dependency_lines(doc, unit))
        // A dependency column naming rows is their order; waves naming the
        // rows come before a column left blank (`-` all down), which says
        // less.
        .or_else(|| from_table_dependencies(doc, unit, true))
        .or_else(|| {
            super::wave_groups::from_wave_groups(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        })
        .or_else(|| from_table_dependencies(doc, unit, false))
        .or_else(|| {
            super::index_graph::from_index_table(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        })
        .or_else(|| {
            super::index_graph::from_coded_index(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        })
        .or_else(|| from_tickets(doc, unit))
        .or_else(|| {
            super::stated_deps::from_statements(doc, unit, |names, waits, why| {
                units_of(doc, unit, names, waits, why)
            })
        });
    let found = split.is_some();
    if let Some(split) = split {
        *units = split;
    }
    found
}

/// The todos the unit's sprints were read from, when some name others.
fn from_todos(doc: &Doc, unit: &RawUnit) -> Option<Vec<RawUnit>> {
    let todos = todos(doc.source);
    let from_todos = todos.len() == unit.sprints.len()
        && unit
            .sprints
            .iter()
            .zip(&todos)
            .all(|(s, t)| s.span.start == t.at);
    let ids: Vec<&str> = todos.iter().map(|t| t.id.as_str()).collect();
    let waits: Vec<Vec<usize>> = todos
        .iter()
        .enumerate()
        .map(|(me, t)| {
            t.dependencies
                .iter()
                .filter_map(|d| ids.iter().position(|id| id == d))
                .filter(|&p| p != me)
                .collect()
        })
        .collect();
    if !from_todos
        || waits.iter().all(Vec::is_empty)
        || ids.iter().any(|i| i.is_empty())
        || super::order_prose::states_a_sequence(doc)
    {
        return None;
    }
    let names: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let why = "a todo of its own: the plan's todos list their `dependencies:`";
    Some(units_of(doc, unit, &names, &waits, why))
}

/// "Depends on" and "is blocked by", in the plans' languages: as
/// spec-kit's list writes it, and as a statement anywhere says it
/// (`stated_deps`).
pub(super) const DEPENDS_ON: &[&str] = &[
    "depends on",
    "depend on",
    "is blocked by",
    "are blocked by",
    "dependem de",
    "зависит от",
    "зависят от",
    "depende de",
    "dependen de",
    "dipende da",
    "dipendono da",
    "dépend de",
    "dépendent de",
];

/// A numbered list under an order heading (`## Suggested order`,
/// `## Execution order`) naming every step once: `1. **A** (extract
/// hooks)`, `2. **B** + **C**`, `3. Phase D`. Each item waits for the one
/// before it; steps named in one item run at once. A list that keeps the
/// plan's own one-by-one order changes nothing.
fn from_order_list(doc: &Doc, unit: &RawUnit) -> Option<Vec<RawUnit>> {
    let labels: Vec<(String, String)> = unit
        .sprints
        .iter()
        .map(|s| sprint_label(&doc.source[s.span.clone()]))
        .collect();
    let heading = (0..doc.blocks.len()).find(|&i| {
        doc.heading(i).is_some_and(|(_, t, _)| {
            let t = t.to_lowercase();
            t.contains("order") && !t.contains("work order")
        })
    })?;
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for b in doc.section(heading) {
        let Block::Item { depth: 0, span, .. } = &doc.blocks[b] else {
            continue;
        };
        let raw = doc.source[span.clone()].lines().next().unwrap_or_default();
        let numbered = raw
            .trim_start()
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let (_, text) = numbered?;
        let names = order_item_names(text);
        let wave: Vec<usize> = names
            .iter()
            .map(|n| {
                labels.iter().position(|(label, id)| {
                    n.eq_ignore_ascii_case(label) || n.eq_ignore_ascii_case(id)
                })
            })
            .collect::<Option<Vec<usize>>>()?;
        if wave.is_empty() {
            return None;
        }
        waves.push(wave);
    }
    let mut seen: Vec<usize> = waves.iter().flatten().copied().collect();
    seen.sort_unstable();
    let every_once = seen == (0..unit.sprints.len()).collect::<Vec<_>>();
    let as_written = waves.iter().enumerate().all(|(k, w)| *w == [k]);
    if !every_once || as_written {
        return None;
    }
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); unit.sprints.len()];
    for pair in waves.windows(2) {
        for &s in &pair[1] {
            waits[s] = pair[0].clone();
        }
    }
    let names: Vec<String> = labels.iter().map(|(label, _)| label.clone()).collect();
    let why = format!(
        "a step of its own: the numbered list under `{}` (line {}) orders the steps",
        doc.heading(heading).map_or("", |h| h.1),
        doc.line(doc.blocks[heading].span().start)
    );
    Some(units_of(doc, unit, &names, &waits, &why))
}

/// A sprint heading's label and id: `## Phase A — Extract` → (`Phase A`,
/// `A`).
fn sprint_label(heading: &str) -> (String, String) {
    let text = heading.trim_start_matches('#').trim().replace("**", "");
    let label = text
        .split([':', '—', '–'])
        .next()
        .unwrap_or_default()
        .split(" - ")
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let id = label.rsplit(' ').next().unwrap_or_default().to_string();
    (label, id)
}

/// The steps an order item names: its bold parts (`**B** + **C** — low
/// risk`), else its head before a dash or colon split at `+`, `&`, `,`
/// and " and ".
fn order_item_names(text: &str) -> Vec<String> {
    let head = text
        .split([':', '—', '–', '('])
        .next()
        .unwrap_or_default()
        .split(" - ")
        .next()
        .unwrap_or_default();
    let bold: Vec<String> = head
        .split("**")
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if !bold.is_empty() {
        return bold;
    }
    head.replace(" and ", ",")
        .split(['+', '&', ','])
        .map(|s| s.trim().trim_matches('`').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// "Tasks 1-4 are independent and can run in parallel": those steps form
/// one wave, every other step a wave of its own, and each wave waits for
/// the one before it.
fn from_sentence(doc: &Doc, unit: &RawUnit) -> Option<Vec<RawUnit>> {
    let numbers: Vec<u32> = unit.sprints.iter().map(|s| s.id.number).collect();
    let (word, first, last, line) = super::parallel::unwrap_lines(doc.source)
        .lines()
        .enumerate()
        .find_map(|(n, l)| scoped_parallel(l).map(|(w, a, b)| (w, a, b, n + 1)))?;
    let start = numbers.iter().position(|&n| n == first)?;
    let end = numbers.iter().position(|&n| n == last)?;
    let contiguous = end > start
        && numbers[start..=end]
            .iter()
            .zip(first..=last)
            .all(|(&n, want)| n == want);
    let whole_ids = unit.sprints.iter().all(|s| s.id.suffix.is_empty());
    if !contiguous || !whole_ids {
        return None;
    }
    let mut waits: Vec<Vec<usize>> = Vec::new();
    let mut previous: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let wave: Vec<usize> = if i == start {
            (start..=end).collect()
        } else {
            vec![i]
        };
        for _ in &wave {
            waits.push(previous.clone());
        }
        i = wave[wave.len() - 1] + 1;
        previous = wave;
    }
    let names: Vec<String> = numbers.iter().map(|n| format!("{word} {n}")).collect();
    let why =
        format!("a step of its own: line {line} says {word}s {first}-{last} can run in parallel");
    Some(units_of(doc, unit, &names, &waits, &why))
}

/// `(Task, 1, 4)` for a line saying steps 1 to 4 can run in parallel (or
/// are independent), the range being the sentence's subject.
fn scoped_parallel(line: &str) -> Option<(String, u32, u32)> {
    let lower = line.to_lowercase();
    let plural = [
        "tasks ",
        "steps ",
        "phases ",
        "sprints ",
        "chunks ",
        "milestones ",
        // The same in the plans' other languages (`Las fases 2-4 son
        // independientes … en paralelo`).
        "fases ",
        "etapas ",
        "pasos ",
        "tareas ",
        "tarefas ",
        "étapes ",
        "tâches ",
        "phasen ",
        "schritte ",
        "aufgaben ",
        "fasi ",
    ];
    for sentence in lower.split(". ") {
        let t = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
        let t = ["las ", "los ", "les ", "as ", "os ", "die ", "le "]
            .iter()
            .find_map(|a| t.strip_prefix(a))
            .unwrap_or(t);
        let Some(word) = plural.iter().find(|w| t.starts_with(**w)) else {
            continue;
        };
        let rest = &t[word.len()..];
        let digits = |s: &str| -> Option<(u32, usize)> {
            let n = s.chars().take_while(char::is_ascii_digit).count();
            s[..n].parse().ok().map(|v| (v, n))
        };
        let Some((first, n)) = digits(rest) else {
            continue;
        };
        let after = rest[n..].trim_start();
        let Some(after) = ["-", "–", "to ", "through "]
            .iter()
            .find_map(|sep| after.strip_prefix(sep))
        else {
            continue;
        };
        let after = after.trim_start();
        let Some((last, m)) = digits(after) else {
            continue;
        };
        let claim = &after[m..];
        // "Phases 0–2 first, then 3 with 4 and 5 in parallel": the claim
        // is the range's own clause, up to a word passing on to other work.
        let claim = [
            " first",
            " then ",
            "; ",
            " followed by",
            " before ",
            " after ",
        ]
        .iter()
        .filter_map(|w| claim.find(w))
        .min()
        .map_or(claim, |end| &claim[..end]);
        let parallel = [
            "in parallel",
            "concurrently",
            "are independent",
            "en paralelo",
            "em paralelo",
            "en parallèle",
            "in parallelo",
            "laufen parallel",
            "parallel laufen",
            "parallel ausgeführt",
            "independientes",
            "independentes",
            "indépendant",
            "unabhängig",
            "indipendenti",
        ]
        .iter()
        .any(|w| claim.contains(w));
        // "in parallel with Phase 3" orders the range against another step.
        if !parallel || claim.contains("parallel with") || last <= first {
            continue;
        }
        let singular = word.trim_end().trim_end_matches('s');
        let mut name = singular.to_string();
        name[..1].make_ascii_uppercase();
        return Some((name, first, last));
    }
    None
}

/// Steps that each write what they wait for (`**Dependencies:** Task
/// Group 1`): see `dependency_lines`.
fn from_dependency_lines(doc: &Doc, unit: &RawUnit) -> Option<Vec<RawUnit>> {
    // `Phases execute in numeric order: 1 → 1.1 → 2`: the plan's own
    // sequence over what each step's line allows.
    if super::order_prose::states_a_sequence(doc) {
        return None;
    }
    let waits = super::dependency_lines::waits(&unit.sprints)?;
    // Steps under sections of their own whose headings order them (`##
    // Next week (after this week's review)`) keep that order over asides.
    let asides = unit.sprints.iter().any(|s| {
        super::dependency_lines::without_dependency_aside(&s.sprint.name).len()
            < s.sprint.name.len()
    });
    let (first, last) = (unit.sprints.first()?, unit.sprints.last()?);
    let ordered_sections = doc.blocks.iter().any(|b| match b {
        Block::Heading { text, span, .. } => {
            span.start > first.span.start && span.start < last.span.start && {
                let l = text.to_lowercase();
                ["after", "next", "later", "then", "once", "before"]
                    .iter()
                    .any(|w| l.contains(w))
            }
        }
        _ => false,
    });
    if asides && ordered_sections {
        return None;
    }
    // A step naming its waits in an aside closing its name (`Reports (dep:
    // 11, 13)`) is named without it: the aside is now its unit's order.
    let mut unit = unit.clone();
    for s in &mut unit.sprints {
        let plain = super::dependency_lines::without_dependency_aside(&s.sprint.name);
        if plain.len() < s.sprint.name.len() {
            s.sprint.name = plain.to_string();
        }
    }
    let unit = &unit;
    let names = step_names(&unit.sprints);
    let why = "a step of its own: each step's `Dependencies:` line names what it waits for";
    Some(units_of(doc, unit, &names, &waits, why))
}

/// The steps' numbers, where there are three or more and each is a whole
/// number (`2`, not `2a`): the steps the readers of an order over numbered
/// steps can name.
pub(super) fn whole_numbers(steps: &[RawSprint]) -> Option<Vec<u32>> {
    (steps.len() >= 3 && steps.iter().all(|s| s.id.suffix.is_empty()))
        .then(|| steps.iter().map(|s| s.id.number).collect())
}

/// The steps' names as units, with their numbers where two are named
/// alike.
pub(super) fn step_names(steps: &[RawSprint]) -> Vec<String> {
    let plain: std::collections::BTreeSet<&str> =
        steps.iter().map(|s| s.sprint.name.as_str()).collect();
    let unique = plain.len() == steps.len();
    steps
        .iter()
        .map(|s| match unique {
            true => s.sprint.name.clone(),
            false => format!("{} {}", s.id, s.sprint.name),
        })
        .collect()
}

/// Sprints read from the rows of a table with a Dependencies column (a
/// Taskmaster export: `| 4 | Repository UI | done | 2, 3 |`): each row
/// waits for the rows its cell names. Every name must be an earlier row's
/// number, or the plan stays one sequence; sub-rows (`4.1`) folded into
/// their row say nothing about other rows.
///
/// With `naming`, only a column where some cell names a row.
fn from_table_dependencies(doc: &Doc, unit: &RawUnit, naming: bool) -> Option<Vec<RawUnit>> {
    whole_numbers(&unit.sprints)?;
    let first = unit.sprints.first()?.span.start;
    let (header, rows) = doc.blocks.iter().find_map(|b| match b {
        Block::Table { header, rows, .. } if rows.iter().any(|r| r.span.start == first) => {
            Some((header, rows))
        }
        _ => None,
    })?;
    let col = super::column(header, DEPENDENCY_COLUMNS)?;
    let position = |n: u32| unit.sprints.iter().position(|s| s.id.number == n);
    // Rows keyed by codes (`T#2.13I`) name the rows they wait for by code.
    let codes = coded_rows(header, rows, unit);
    let mut waits = Vec::with_capacity(unit.sprints.len());
    for (me, s) in unit.sprints.iter().enumerate() {
        let row = rows.iter().find(|r| r.span.start == s.span.start)?;
        let cell = row.cells.get(col).map_or("", |c| c.text.trim());
        // An empty cell says nothing: the row waits for the one before.
        if cell.is_empty() {
            waits.push(me.checked_sub(1).into_iter().collect());
            continue;
        }
        if let Some(codes) = &codes {
            let named = named_codes(cell, codes, me)?;
            waits.push(named);
            continue;
        }
        let named = super::dependency_lines::referenced_numbers(&cell.to_lowercase())?;
        waits.push(super::dependency_lines::earlier(&named, me, position)?);
    }
    let blank = waits
        .iter()
        .enumerate()
        .all(|(me, w)| w.is_empty() || w.as_slice() == me.checked_sub(1).as_slice());
    if !super::dependency_lines::at_once(&waits) || naming && blank {
        return None;
    }
    let names = numbered_names(unit);
    let why = "a row of its own: its Dependencies cell names the rows it waits for";
    Some(units_of(doc, unit, &names, &waits, why))
}

/// Each step's name after its number (`3 Invoice PDF rendering`): the
/// names of units split from rows or numbered steps.
pub(super) fn numbered_names(unit: &RawUnit) -> Vec<String> {
    unit.sprints
        .iter()
        .map(|s| format!("{} {}", s.id, s.sprint.name))
        .collect()
}

/// A code as a dependency cell may write it: `T#2.13I` and `T2.13I` alike.
fn code_key(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_alphanumeric() || *c == '.')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Each row's code by its sprint's place, where the table's id column
/// holds codes of letters and numbers (`T#2.1D`, `SEC-01`), all distinct.
fn coded_rows(
    header: &[crate::plan::markdown::Cell],
    rows: &[crate::plan::markdown::Row],
    unit: &RawUnit,
) -> Option<Vec<String>> {
    let id = super::sprint_table::id_column(header, rows)?;
    let codes: Vec<String> = unit
        .sprints
        .iter()
        .map(|s| {
            let row = rows.iter().find(|r| r.span.start == s.span.start)?;
            let code = super::sprint_table::step_code(&row.cells.get(id)?.text)?;
            code.chars()
                .any(|c| c.is_ascii_alphabetic())
                .then(|| code_key(code))
        })
        .collect::<Option<_>>()?;
    let distinct: std::collections::HashSet<&String> = codes.iter().collect();
    (distinct.len() == codes.len()).then_some(codes)
}

/// The places of the earlier rows a cell names by code (`T#2.1D, T#2.4D`),
/// or none where it names nothing (`-`); None when it names anything else.
fn named_codes(cell: &str, codes: &[String], me: usize) -> Option<Vec<usize>> {
    if super::dependency_lines::names_nothing(cell) {
        return Some(Vec::new());
    }
    let mut on = Vec::new();
    for part in cell
        .split([',', ';', '/', ' '])
        .filter(|p| !p.trim().is_empty())
    {
        let key = code_key(part);
        let at = codes.iter().position(|c| *c == key).filter(|&p| p < me)?;
        on.push(at);
    }
    on.sort_unstable();
    on.dedup();
    (!on.is_empty()).then_some(on)
}

/// An epic's created tickets, ordered by their own `depends on` or the
/// epic's `Dependency order:` line: see `tickets`.
fn from_tickets(doc: &Doc, unit: &RawUnit) -> Option<Vec<RawUnit>> {
    let tickets = super::tickets::created_tickets(doc);
    let same = tickets.len() == unit.sprints.len()
        && tickets
            .iter()
            .zip(&unit.sprints)
            .all(|(t, s)| t.sprint.span.start == s.span.start);
    if !same {
        return None;
    }
    let waits = super::tickets::waits(doc, &tickets)?;
    let names: Vec<String> = tickets
        .iter()
        .map(|t| format!("{} {}", t.code, t.sprint.sprint.name))
        .collect();
    let why = "a ticket of its own: the epic says what each ticket waits for";
    Some(units_of(doc, unit, &names, &waits, why))
}

/// One unit per sprint of `unit`, named `names[i]`, waiting for
/// `waits[i]`; each sprint keeps its text and done mark as sprint 1.
fn units_of(
    doc: &Doc,
    unit: &RawUnit,
    names: &[String],
    waits: &[Vec<usize>],
    why: &str,
) -> Vec<RawUnit> {
    unit.sprints
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut out = RawUnit::new(names[i].clone(), s.span.clone(), 0..0);
            out.rule = why.to_string();
            out.origin = Origin::new(doc.line(s.span.start), why);
            out.dir = unit.dir.clone();
            out.deps = waits[i]
                .iter()
                .map(|&w| (names[w].clone(), s.span.clone()))
                .collect();
            let id = SprintId::whole(1);
            let mut sprint = s.sprint.clone();
            sprint.id = id.clone();
            out.sprints = vec![RawSprint {
                id,
                span: s.span.clone(),
                sprint,
            }];
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::scoped_parallel;

    #[test]
    fn only_a_range_that_is_the_subject_counts() {
        assert_eq!(
            scoped_parallel("Tasks 1-4 are independent and can run in parallel. Task 5 after."),
            Some(("Task".into(), 1, 4))
        );
        assert_eq!(
            scoped_parallel("Steps 2 to 3 run concurrently"),
            Some(("Step".into(), 2, 3))
        );
        assert_eq!(
            scoped_parallel("- **Flutter**: Phases 4-6 can proceed in parallel with Phase 3"),
            None
        );
        assert_eq!(
            scoped_parallel("Tasks in this phase can run in parallel."),
            None
        );
        assert_eq!(scoped_parallel("Tasks 1-4 are done."), None);
        assert_eq!(
            scoped_parallel(
                "Las fases 2-4 son independientes entre si y pueden hacerse en paralelo."
            ),
            Some(("Fase".into(), 2, 4))
        );
        assert_eq!(scoped_parallel("Phases 2-3 add parallel downloads."), None);
        assert_eq!(
            scoped_parallel("Sprint 1-2 (Parallel tracks): 6-8 days"),
            None
        );
    }
}
