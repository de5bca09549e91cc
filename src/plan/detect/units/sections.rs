//! Units read from sections: a heading per unit with its fields
//! (`**Dependencies**:`, `**Layer**:`…) and its sprints below, or units
//! separated by dividers.

use super::*;
use crate::plan::detect::parallel::says_sections_run_at_once;

/// Units are the headings that hold the sprints: each sprint's nearest
/// enclosing heading below the title. Two or more of them, holding every
/// sprint, make the plan's units (`## Parser` / `### Sprint 1`, `### Work
/// Unit 2: Core` / `#### Sortie 2a`, `## Phase 1` / `### Step 1.1`).
pub(super) fn units_from_sections(doc: &Doc) -> Vec<RawUnit> {
    let mut holders: Vec<usize> = Vec::new();
    let mut orphan = false;
    for i in 0..doc.blocks.len() {
        let is_sprint = doc.is_sprint(i)
            || doc
                .heading(i)
                .is_some_and(|(_, t, _)| task_heading(t).is_some());
        if !is_sprint {
            continue;
        }
        let mut up = doc.parent[i];
        while let Some(p) = up {
            if doc.is_sprint(p) {
                up = doc.parent[p];
            } else {
                break;
            }
        }
        match up.filter(|&p| doc.heading(p).is_some_and(|(l, _, _)| l >= 2)) {
            Some(p) => {
                if !holders.contains(&p) {
                    holders.push(p);
                }
            }
            None => orphan = true,
        }
    }
    // Old plans: `## Unit` sections holding sprint tables; a task board:
    // one table per `### Area` under a `## Group`, each area a unit.
    if holders.is_empty() {
        holders = table_holders(doc);
    }
    if orphan || holders.len() < 2 {
        return units_from_dividers(doc);
    }
    let holders = distinct_holders(doc, holders);
    // A holder inside another holder: keep the outer one only.
    let holders: Vec<usize> = holders
        .iter()
        .copied()
        .filter(|&h| {
            let mut up = doc.parent[h];
            while let Some(p) = up {
                if holders.contains(&p) {
                    return false;
                }
                up = doc.parent[p];
            }
            true
        })
        .collect();
    let (holders, whole) = with_series_siblings(doc, holders);
    if chapters_of_one_series(doc, &holders) {
        return Vec::new();
    }
    let mut units = Vec::new();
    let mut texts = Vec::new();
    let mut titles: Vec<String> = Vec::new();
    for i in holders {
        let Some((_, text, span)) = doc.heading(i) else {
            continue;
        };
        let (clean, marked) = strip_done_marks(text);
        // `Status M1: zrealizowane` under the unit's heading marks it too.
        let marked = marked || own_status_done(doc, i);
        let mut unit = unit_of_heading(
            &clean,
            marked,
            strip_unit_prefix(&clean),
            span,
            doc.section(i),
        );
        read_unit_fields(doc, i, &mut unit);
        unit.whole = whole
            .iter()
            .find(|(j, _)| *j == i)
            .map(|(_, n)| SprintId::whole(*n));
        units.push(unit);
        texts.push(doc.section_text(i));
        titles.push(clean);
    }
    // `## Completed` / `## Pending`: the sprints grouped by their state,
    // not units of work.
    if titles.iter().all(|t| is_status_group(t)) {
        return Vec::new();
    }
    distinct_names(&mut units, &titles);
    sequence_by_number(&mut units, &titles);
    parallel_by_word(&mut units, &texts);
    said_at_once_before(doc, &mut units);
    units
}

/// Sections that divide one numbered series of steps between them
/// (`## Phase Details` holding Phases 12 to 28, `## Progress` holding
/// Phase 29): no section names a unit of its own (neither is a step
/// heading), every step's number is written once, and each section's
/// numbers run on from the section before. They are chapters of one
/// sequence, not units that may run at once, unless a sentence names two
/// of them as running in parallel.
fn chapters_of_one_series(doc: &Doc, holders: &[usize]) -> bool {
    let mut last: Option<SprintId> = None;
    for &h in holders {
        // A section named by a number (`## Phase 1: Parser` over `### Step
        // 1.1`, `### Work Unit 2`) names a unit of its own.
        if doc
            .heading(h)
            .is_none_or(|(_, t, _)| t.contains(|c: char| c.is_ascii_digit()))
        {
            return false;
        }
        let mut ids: Vec<SprintId> = Vec::new();
        for j in doc.section(h) {
            let Some(step) = &doc.sprint_at[j] else {
                continue;
            };
            let Ok(id) = step.id.parse::<SprintId>() else {
                return false;
            };
            ids.push(id);
        }
        let (Some(first), Some(end)) = (ids.first(), ids.iter().max()) else {
            return false;
        };
        if ids.windows(2).any(|w| w[0] >= w[1]) || last.as_ref().is_some_and(|l| first <= l) {
            return false;
        }
        last = Some(end.clone());
    }
    // Sections a sentence of the plan names together as running beside
    // each other (`Backend and frontend are separate teams and proceed in
    // parallel`) are units.
    let titles: Vec<String> = holders
        .iter()
        .filter_map(|&h| doc.heading(h).map(|(_, t, _)| clean_name(t).to_lowercase()))
        .collect();
    let text = crate::plan::detect::parallel::unwrap_lines(doc.source).to_lowercase();
    let named_at_once = text.split(['.', '\n', ';']).any(|sentence| {
        titles
            .iter()
            .filter(|t| t.len() >= 3 && sentence.contains(t.as_str()))
            .count()
            >= 2
            && crate::plan::detect::waves::text_says_at_once(sentence)
    });
    holders.len() >= 2 && !named_at_once
}

/// `## PHASE 1 CHECKPOINT` and `## PHASE 2 CHECKPOINT` both read as
/// `CHECKPOINT`: sections whose names collide once their word and number
/// are read past keep their whole headings, which differ. The same heading
/// twice stays a unit defined twice.
fn distinct_names(units: &mut [RawUnit], titles: &[String]) {
    // Most plans name every section apart: one count says so.
    let mut by_name: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (k, u) in units.iter().enumerate() {
        by_name.entry(u.name.as_str()).or_default().push(k);
    }
    let collide: Vec<Vec<usize>> = by_name
        .into_values()
        .filter(|same| {
            same.len() > 1
                && same
                    .iter()
                    .any(|&j| clean_name(&titles[j]) != clean_name(&titles[same[0]]))
        })
        .collect();
    for same in collide {
        for j in same {
            units[j].name = clean_name(&titles[j]);
        }
    }
}

/// The holders, with the sections of their own series that hold no step
/// headings but work of their own (`## Fase 1` with its list of activities
/// beside `## Fase 3` holding `### Sprint 0`): without them that work would
/// be dropped. Those sections are returned apart too, each with its number:
/// each is one step.
fn with_series_siblings(doc: &Doc, holders: Vec<usize>) -> (Vec<usize>, Vec<(usize, u32)>) {
    // `Fase 3 – Arquitetura` → (`fase`, 3): a word, then a number.
    let series = |i: usize| {
        let (_, text, _) = doc.heading(i)?;
        // `🎯 Fase 1: MVP`: a pictograph before the word decorates it.
        let text = clean_name(text);
        let text = text.trim_start_matches(|c: char| !c.is_alphanumeric());
        let word: String = text.chars().take_while(|c| c.is_alphabetic()).collect();
        let digits: String = text[word.len()..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Some((word.to_lowercase(), digits.parse::<u32>().ok()?)).filter(|(w, _)| !w.is_empty())
    };
    let word = |i: usize| series(i).map(|(w, _)| w);
    let Some(&first) = holders.first() else {
        return (holders, Vec::new());
    };
    let key = word(first);
    let same = |i: usize| {
        doc.parent[i] == doc.parent[first]
            && doc.heading(i).map(|h| h.0) == doc.heading(first).map(|h| h.0)
    };
    if key.is_none() || holders.iter().any(|&h| word(h) != key || !same(h)) {
        return (holders, Vec::new());
    }
    let held: std::collections::HashSet<usize> = holders.iter().copied().collect();
    let whole: Vec<(usize, u32)> = (0..doc.blocks.len())
        .filter(|&i| doc.heading(i).is_some() && same(i) && !held.contains(&i))
        .filter_map(|i| {
            series(i)
                .filter(|(w, _)| Some(w) == key.as_ref())
                .map(|(_, n)| (i, n))
        })
        .filter(|&(i, _)| {
            doc.section(i)
                .any(|j| matches!(doc.blocks[j], Block::Item { .. }))
        })
        .collect();
    let mut all = holders;
    all.extend(whole.iter().map(|(i, _)| i));
    all.sort_unstable();
    (all, whole)
}

/// "The units below are independent and run in parallel." before the first
/// unit: every unit runs at once.
fn said_at_once_before(doc: &Doc, units: &mut [RawUnit]) {
    let Some(first) = units.first() else {
        return;
    };
    let preamble = &doc.source[..first.name_span.start];
    let names: Vec<String> = units.iter().map(|u| u.name.clone()).collect();
    if says_sections_run_at_once(preamble, &names, usize::MAX) {
        for unit in units.iter_mut() {
            unit.alongside = true;
        }
    }
}

/// The sections that hold sprint tables: a `##` section holding one, else
/// the heading just above each table.
fn table_holders(doc: &Doc) -> Vec<usize> {
    let tables: Vec<usize> = (0..doc.blocks.len())
        .filter(|&j| {
            matches!(&doc.blocks[j], Block::Table { header, rows, .. }
                if is_sprint_table(header, rows))
        })
        .collect();
    let mut holders = Vec::new();
    for &j in &tables {
        let Some(inner) = (0..j).rev().find(|&h| doc.heading(h).is_some()) else {
            continue;
        };
        let mut top = inner;
        while doc.heading(top).is_some_and(|(l, _, _)| l > 2) {
            match doc.parent[top] {
                Some(p) => top = p,
                None => break,
            }
        }
        let level = |h: usize| doc.heading(h).map_or(0, |(l, _, _)| l);
        let in_top = tables
            .iter()
            .filter(|&&t| doc.section(top).contains(&t))
            .count();
        let holder = if level(top) == 2 && in_top == 1 {
            top
        } else {
            inner
        };
        if level(holder) >= 2 && !doc.is_sprint(holder) && !holders.contains(&holder) {
            holders.push(holder);
        }
    }
    holders
}

/// A heading that groups sprints by their state.
/// Holders named alike (`### Week-by-Week Plan` under each `## Phase N`)
/// are parts of the sections above them, which are the units: each is
/// replaced by its parent heading, until the names differ.
fn distinct_holders(doc: &Doc, mut holders: Vec<usize>) -> Vec<usize> {
    let name = |i: usize| doc.heading(i).map(|(_, t, _)| clean_name(t).to_lowercase());
    for _ in 0..3 {
        let names: Vec<Option<String>> = holders.iter().map(|&h| name(h)).collect();
        let mut counts: HashMap<&Option<String>, usize> = HashMap::new();
        for n in &names {
            *counts.entry(n).or_default() += 1;
        }
        // (Columns of a board in each phase, `### BACKLOG`, `### DONE`,
        // sort the phase's work; they are read as such elsewhere.)
        let repeated = |k: usize, h: usize| {
            counts[&names[k]] > 1 && !doc.heading(h).is_some_and(|(_, t, _)| is_status_group(t))
        };
        let lifted: Vec<usize> = holders
            .iter()
            .enumerate()
            .map(|(k, &h)| match doc.parent[h] {
                Some(p) if repeated(k, h) && doc.heading(p).is_some_and(|(l, _, _)| l >= 2) => p,
                _ => h,
            })
            .collect();
        if lifted == holders {
            break;
        }
        holders = lifted;
        holders.dedup();
    }
    holders
}

pub(in crate::plan::detect) fn is_status_group(title: &str) -> bool {
    const STATES: &[&str] = &[
        "completed",
        "complete",
        "done",
        "finished",
        "pending",
        "in progress",
        "todo",
        "to do",
        "remaining",
        "backlog",
        "next",
        "up next",
        "blocked",
        "open",
        "closed",
        "not started",
        "planned",
        "current",
        "future",
        "later",
        "work in progress",
        "wip",
        "doing",
        // Open states in the plans' other languages (done ones are read by
        // their done word, below).
        "da fare",
        "in corso",
        "pendiente",
        "por hacer",
        "en progreso",
        "em andamento",
        "a fazer",
        "offen",
        "in arbeit",
        "à faire",
        "en cours",
        "未开始",
        "进行中",
        "待办",
        "未着手",
        "進行中",
        "대기",
        "진행중",
        "진행 중",
        "не начато",
        "в работе",
    ];
    let t = title
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let t = t
        .split(['(', ':', '—', '-'])
        .next()
        .unwrap_or_default()
        .trim();
    // Two names for one column (`Missing / Pending Features`): the last.
    let t = t.rsplit(" / ").next().unwrap_or(t).trim();
    let t = [
        "tasks", "work", "items", "sprints", "phases", "steps", "features", "stories", "tickets",
    ]
    .iter()
    .find_map(|w| t.strip_suffix(w))
    .unwrap_or(t)
    .trim();
    let words = || t.split_whitespace().count();
    // A state after what it sorts (`Pages to do`, `Pages done`): only the
    // states of a board's columns, as `Ideas for later` or `Plan for the
    // future` name no state of work.
    let after_a_noun = || {
        [
            "done",
            "to do",
            "todo",
            "in progress",
            "completed",
            "finished",
        ]
        .iter()
        .any(|s| t.ends_with(s) && t[..t.len() - s.len()].ends_with(' '))
            && words() <= 3
    };
    // Finished work in the plans' other languages (`## 完了したタスク`,
    // `## Erledigt`, `## Tamamlanan`): a done word alone.
    STATES.contains(&t)
        || (words() <= 2 && super::super::completion::opens_with_done_word(t))
        || after_a_noun()
}

/// Whether a group named by a state names finished work (`## Done`,
/// `## Pages done`, `## ✅ Completed`).
pub(in crate::plan::detect) fn is_done_group(title: &str) -> bool {
    let t = title
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    is_status_group(title)
        && (super::super::completion::opens_with_done_word(&t)
            || t.split_whitespace()
                .last()
                .is_some_and(super::super::completion::opens_with_done_word))
}

/// Sections numbered alike (`Chunk 1`, `Chunk 2`; `Wave 1`, `Wave 2`; `1.
/// Setup`, `2. Build`) follow one another, whatever the word.
fn sequence_by_number(units: &mut [RawUnit], titles: &[String]) {
    let key = |t: &str| -> Option<(String, u32)> {
        let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        let mut words = t.split_whitespace();
        let first = words.next()?;
        let number = |w: &str| w.trim_end_matches(['.', ':', ')']).parse::<u32>().ok();
        // A version (`v1.0`, `v2`): milestones numbered by release.
        let version = |w: &str| -> Option<u32> {
            let v = w.strip_prefix(['v', 'V'])?.trim_end_matches([':', ')']);
            let mut parts = v.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next().map_or(Some(0), |m| m.parse().ok())?;
            Some(major * 1000 + minor)
        };
        if let Some(n) = version(first) {
            return Some(("v".to_string(), n));
        }
        match number(first) {
            Some(n) => Some((String::new(), n)),
            None => Some((first.to_lowercase(), number(words.next()?)?)),
        }
    };
    let keys: Vec<Option<(String, u32)>> = titles.iter().map(|t| key(t)).collect();
    let alike = keys.len() > 1
        && keys.iter().all(Option::is_some)
        && keys.windows(2).all(|w| match (&w[0], &w[1]) {
            (Some((a, x)), Some((b, y))) => a == b && x < y,
            _ => false,
        });
    if alike {
        for u in units.iter_mut() {
            u.sequential = true;
        }
    }
}

/// A unit opened by heading text `clean` (done marks stripped, `marked`
/// when it had one): its id as an alias (`WU2`), and whether it is a
/// numbered phase, week or milestone.
fn unit_of_heading(
    clean: &str,
    marked: bool,
    name: String,
    span: &Span,
    scope: std::ops::Range<usize>,
) -> RawUnit {
    let mut unit = RawUnit::new(name, span.clone(), scope);
    unit.done_mark = marked;
    if let Some((id, _)) = split_id_prefix(&clean_name(clean)) {
        unit.aliases.push(id.to_string());
    }
    unit.sequential = matches!(
        parse_heading(clean),
        Some(Heading::Sprint(h)) if h.word.is_sequential()
    );
    unit
}

/// Sections stay one sequence unless a section's own prose says it runs at
/// once with its siblings (`parallel.rs`).
fn parallel_by_word(units: &mut [RawUnit], texts: &[&str]) {
    let names: Vec<String> = units.iter().map(|u| u.name.clone()).collect();
    for (k, unit) in units.iter_mut().enumerate() {
        if says_sections_run_at_once(texts[k], &names, k) {
            unit.alongside = true;
        }
    }
}

/// `Directory: x`, `Layer: N`, `Depends on: a, b` lines before a section
/// unit's first sprint.
pub(super) fn read_unit_fields(doc: &Doc, heading: usize, unit: &mut RawUnit) {
    for j in doc.own_blocks(heading) {
        let (text, span) = match &doc.blocks[j] {
            Block::Paragraph { text, span } => (text.as_str(), span),
            Block::Item { text, span, .. } => (text.as_str(), span),
            _ => continue,
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = norm(key);
            let value = value.trim();
            match key.as_str() {
                "directory" | "dir" | "path" | "location" | "folder" => {
                    let d = clean_name(value);
                    if !d.is_empty() {
                        unit.dir = Some(d);
                    }
                }
                "layer" | "tier" => unit.layer = parse_layer(value),
                "depends on" | "dependencies" | "deps" | "requires" => {
                    let at = line_span(doc.source, span, line);
                    let value = strip_parentheticals(value);
                    unit.deps
                        .extend(split_dep_names(&value).into_iter().map(|d| (d, at.clone())));
                }
                _ => {}
            }
        }
    }
}

/// `### Phase 1: Provider (Sprints 1a.1 - 2b)` written at the same level as
/// the `### Sprint` headings that follow it: each such divider opens a unit
/// that runs to the next one. Dividers are headings of another sprint word
/// or with a unit id (`Work Unit 2`, `Part 3`), two or more, with every
/// sprint after the first.
pub(super) fn units_from_dividers(doc: &Doc) -> Vec<RawUnit> {
    let sprints: Vec<usize> = (0..doc.blocks.len())
        .filter(|&i| doc.is_sprint(i))
        .collect();
    let Some(&first_sprint) = sprints.first() else {
        return Vec::new();
    };
    let Some((level, _, _)) = doc.heading(first_sprint) else {
        return Vec::new();
    };
    let dividers: Vec<usize> = (0..doc.blocks.len())
        .filter(|&i| {
            !doc.is_sprint(i)
                && doc.heading(i).is_some_and(|(l, t, _)| {
                    l == level
                        && doc.parent[i] == doc.parent[first_sprint]
                        && (matches!(parse_heading(t), Some(Heading::Sprint(_)))
                            || split_id_prefix(&clean_name(t))
                                .is_some_and(|(_, rest)| !rest.is_empty()))
                })
        })
        .collect();
    if dividers.len() < 2 || dividers[0] > first_sprint {
        return Vec::new();
    }
    let end_of_parent = doc.parent[first_sprint]
        .map(|p| doc.section_end[p])
        .unwrap_or(doc.blocks.len());
    let mut units = Vec::new();
    let mut texts = Vec::new();
    for (k, &d) in dividers.iter().enumerate() {
        let end = dividers.get(k + 1).copied().unwrap_or(end_of_parent);
        let Some((_, text, span)) = doc.heading(d) else {
            continue;
        };
        if !(d + 1..end).any(|j| doc.is_sprint(j)) {
            continue;
        }
        let (clean, marked) = strip_done_marks(text);
        // `Provider (Sprints 1a.1 - 2b)`: the range is not part of the name.
        let mut name = strip_unit_prefix(&clean);
        if let Some(open) = name.rfind(" (Sprint") {
            name.truncate(open);
        }
        let mut unit = unit_of_heading(&clean, marked, name, span, d + 1..end);
        texts.push(doc.section_text(d));
        unit.rule = format!(
            "divider heading before {} headings at its own level",
            word_name(doc)
        );
        units.push(unit);
    }
    if units.len() < 2 {
        return Vec::new();
    }
    parallel_by_word(&mut units, &texts);
    units
}
