//! Work written at two levels, read at one: sub-task rows of a task table
//! fold into their task's sprint, and a fenced block under a criteria label
//! is a command only when its lines read as commands. Also which sections
//! join the checklist groups read as steps: status buckets lifted to their
//! numbered sections, gaps of a numbered series filled, and siblings of a
//! series (numbered, or worded `Stream A` … `Stream D`) written without
//! boxes.

use super::*;

/// A table mixing task rows (`2`) and their sub-task rows (`2.1`, `2.2`)
/// lists the work at two levels: the sub-task rows are the tasks of their
/// task's sprint, which is done only when it and all of them are.
pub(super) fn fold_sub_rows(sprints: Vec<RawSprint>) -> Vec<RawSprint> {
    let whole: BTreeSet<u32> = sprints
        .iter()
        .filter(|s| s.id.suffix.is_empty())
        .map(|s| s.id.number)
        .collect();
    let is_sub = |s: &RawSprint| s.id.suffix.starts_with('.') && whole.contains(&s.id.number);
    if whole.len() < 2 || !sprints.iter().any(is_sub) {
        return sprints;
    }
    let mut out: Vec<RawSprint> = Vec::new();
    for s in sprints {
        if is_sub(&s) {
            if let Some(parent) = out.iter_mut().rev().find(|p| p.id.number == s.id.number) {
                parent
                    .sprint
                    .tasks
                    .push(format!("{} {}", s.id, s.sprint.name));
                parent.sprint.exit.extend(s.sprint.exit);
                parent.sprint.body.push_str(&s.sprint.body);
                parent.sprint.files.extend(s.sprint.files);
                if s.sprint.done.is_none() {
                    parent.sprint.done = None;
                }
                continue;
            }
        }
        out.push(s);
    }
    out
}

/// A fenced block under a criteria label is a command to run when its
/// lines read as commands (comments and blank lines aside).
pub(super) fn fenced_commands(block: &str) -> bool {
    block
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(looks_like_command)
}

/// The checks of a fenced list (`[ ] parser handles empty input`, `- [x]
/// done`): each line's text and whether it is ticked.
pub(super) fn fenced_checks(block: &str) -> impl Iterator<Item = (&str, bool)> {
    block.lines().filter_map(|line| {
        let item = line.trim().trim_start_matches(['-', '*']).trim_start();
        let (item, ticked) = match ["[x]", "[X]"].iter().find_map(|m| item.strip_prefix(m)) {
            Some(rest) => (rest, true),
            None => (item.strip_prefix("[ ]").unwrap_or(item), false),
        };
        let item = item.trim();
        (!item.is_empty()).then_some((item, ticked))
    })
}

/// Checklist groups numbered as one series at one level (`## 1.` … `##
/// 9.`) beside deeper groups inside the next number of that series (`####
/// 10.1.1` under `## 10. Tests`): the deeper groups are parts of their
/// numbered section, which is the step, as its siblings are. Reading the
/// parts as steps mixes two levels in one sequence.
pub(super) fn nested_groups_lifted(
    doc: &Doc,
    groups: Vec<(usize, String)>,
) -> Vec<(usize, String)> {
    let level = |i: usize| doc.heading(i).map_or(0, |(l, _, _)| l);
    let whole_number = |i: usize| {
        doc.heading(i)
            .and_then(|(_, t, _)| super::numbered::numbered_heading(t))
            .is_some_and(|(id, _)| id.parse::<u32>().is_ok())
    };
    let Some(top) = groups.iter().map(|&(i, _)| level(i)).min() else {
        return groups;
    };
    let at_top: Vec<usize> = groups
        .iter()
        .map(|&(i, _)| i)
        .filter(|&i| level(i) == top)
        .collect();
    if at_top.len() < 3 || !at_top.iter().all(|&i| whole_number(i)) {
        return groups;
    }
    let section_of = |i: usize| {
        let mut up = doc.parent[i];
        while let Some(p) = up {
            if level(p) == top {
                return Some(p);
            }
            up = doc.parent[p];
        }
        None
    };
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, name) in groups {
        let lifted = (level(i) > top)
            .then(|| section_of(i))
            .flatten()
            .filter(|&p| whole_number(p) && !at_top.contains(&p))
            .and_then(|p| Some((p, clean_name(doc.heading(p)?.1))));
        let (i, name) = lifted.unwrap_or((i, name));
        if !out.iter().any(|(j, _)| *j == i) {
            out.push((i, name));
        }
    }
    out
}

/// A checklist group nested in another is a part of it where the outer
/// group is a release and the inner one its defects (`#### Bugs` under
/// `### v0.3`, holding boxes of its own), or where parts of the same name
/// sit in two groups (`#### Bugs` under each release): the outer group is
/// the step and its parts' boxes are its tasks. Reading both as steps cuts
/// one release into three. A feature under a release (`#### Offline
/// storage`) and a part with a number of its own (`### 1.2` under `## 1.`)
/// stay steps.
pub(super) fn groups_in_groups_folded(
    doc: &Doc,
    groups: Vec<(usize, String)>,
) -> Vec<(usize, String)> {
    let heads: BTreeSet<usize> = groups.iter().map(|&(i, _)| i).collect();
    let numbered = |i: usize| {
        doc.heading(i)
            .is_some_and(|(_, t, _)| super::numbered::numbered_heading(t).is_some())
    };
    let outer = |i: usize| {
        let mut up = doc.parent[i];
        while let Some(p) = up {
            if heads.contains(&p) {
                return Some(p);
            }
            up = doc.parent[p];
        }
        None
    };
    // `v0.3`, `Version 2.1`, `Release 1.4.0`: a dotted release.
    let release = |i: usize| {
        doc.heading(i).is_some_and(|(_, t, _)| {
            let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
            let lower = t.to_lowercase();
            let rest = ["version ", "release ", "v"]
                .iter()
                .find_map(|w| lower.strip_prefix(w))
                .unwrap_or("");
            let number: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            number.starts_with(|c: char| c.is_ascii_digit()) && number.contains('.')
        })
    };
    // `Bugs`, `Bug Fixes`, `Known issues`: a release's list of defects,
    // where `Offline storage` under `v2.0` is a feature of its own.
    let defects = |name: &str| {
        let lower = name.to_lowercase();
        ["bug", "fix", "issue", "defect", "regression"]
            .iter()
            .any(|w| lower.contains(w))
    };
    let key = |name: &str| name.trim().to_lowercase();
    let mut parents_of: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, name) in &groups {
        if let Some(p) = outer(*i) {
            parents_of.entry(key(name)).or_default().insert(p);
        }
    }
    groups
        .into_iter()
        .filter(|(i, name)| {
            let part = !numbered(*i)
                && outer(*i).is_some_and(|p| {
                    release(p) && defects(name)
                        || parents_of.get(&key(name)).is_some_and(|ps| ps.len() >= 2)
                });
            !part
        })
        .collect()
}

/// Checklist groups numbered as one series (`## 1. Pre-release checks`,
/// `## 6. Verify after release`) with sections of the same series between
/// them that hold no boxes (`## 2.` to `## 5.`, steps written as prose and
/// commands): every section of the series from the first group to the
/// last is a step. Otherwise the middle of a runbook is dropped. So are
/// the series' sections before its first group, from `1.` on (`### 1.
/// 数据库初始化` holding only its command).
pub(super) fn series_gaps_filled(
    doc: &Doc,
    groups: Vec<(usize, String)>,
    scope: std::ops::Range<usize>,
) -> Vec<(usize, String)> {
    let number = |i: usize| -> Option<(u8, u32)> {
        let (level, text, _) = doc.heading(i)?;
        let (id, _) = super::numbered::numbered_heading(text)?;
        Some((level, id.parse().ok()?))
    };
    let Some(&(first, _)) = groups.first() else {
        return groups;
    };
    let Some((level, _)) = number(first) else {
        return groups;
    };
    let mut numbers = Vec::with_capacity(groups.len());
    for &(i, _) in &groups {
        match number(i) {
            Some((l, n)) if l == level && doc.parent[i] == doc.parent[first] => numbers.push(n),
            _ => return groups,
        }
    }
    let (Some(&lo), Some(&hi)) = (numbers.iter().min(), numbers.iter().max()) else {
        return groups;
    };
    if numbers.len() < 2 || hi - lo + 1 == numbers.len() as u32 && lo <= 1 {
        return groups;
    }
    let mut added = Vec::new();
    for i in scope.filter(|&i| doc.parent[i] == doc.parent[first]) {
        let Some((l, n)) = number(i) else {
            continue;
        };
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        // `### 1. 数据库初始化` holding only its command, before the
        // groups `### 2.` to `### 6.`: the series' first step.
        let between = (lo < n && n < hi || n < lo) && !numbers.contains(&n);
        if l == level
            && between
            && criteria_label(text).is_none()
            && !super::about_plan::describes_plan(text)
        {
            added.push((i, n, clean_name(text)));
        }
    }
    // Only a series with no number missing: anything else is not one.
    let mut all_numbers: Vec<u32> = numbers
        .iter()
        .copied()
        .chain(added.iter().map(|&(_, n, _)| n))
        .collect();
    all_numbers.sort_unstable();
    all_numbers.dedup();
    let from = all_numbers.first().copied().unwrap_or(lo);
    if all_numbers.len() as u32 != hi - from + 1 || from > 1 && from < lo || added.is_empty() {
        return groups;
    }
    joined(
        groups,
        added.into_iter().map(|(i, _, name)| (i, name)).collect(),
    )
}

/// Groups named by a state (`### ✅ Completed`, `### 🏗️ In Progress`,
/// `### 📋 Planned`) under a section of work (`## Current Sprint (Week 1)`)
/// sort that section's items by their state: the section is the work item,
/// read once, and its state is its items' (open while one is).
pub(super) fn status_buckets_lifted(
    doc: &Doc,
    groups: Vec<(usize, String)>,
    top: u8,
) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, name) in groups {
        let parent = doc.parent[i].filter(|_| super::units::sections::is_status_group(&name));
        let lifted = parent.and_then(|p| {
            let (level, text, _) = doc.heading(p)?;
            (level >= top && !super::units::sections::is_status_group(text))
                .then(|| (p, clean_name(text)))
        });
        let (i, name) = lifted.unwrap_or((i, name));
        if seen.insert(i) {
            out.push((i, name));
        }
    }
    out
}

/// Checklist groups named as one series by a word and an id (`### Stream
/// B: Validation`, `### Stream C: CI/CD`) beside sections of the same
/// word and level under the same parent that hold their work in other
/// forms (`### Stream A: Manual Skills` over tables of waves, `### Stream
/// E` over bullets of batches): those are steps of the series too.
/// Otherwise the work of a stream written without boxes is dropped
/// without a word.
pub(super) fn worded_siblings_added(
    doc: &Doc,
    groups: Vec<(usize, String)>,
    scope: std::ops::Range<usize>,
) -> Vec<(usize, String)> {
    let word = |i: usize| series_word(doc, i);
    let mut series: BTreeMap<(u8, Option<usize>, String), usize> = BTreeMap::new();
    for &(i, _) in &groups {
        if let Some(key) = word(i) {
            *series.entry(key).or_default() += 1;
        }
    }
    series.retain(|_, n| *n >= 2);
    if series.is_empty() {
        return groups;
    }
    let held: BTreeSet<usize> = groups.iter().map(|(i, _)| *i).collect();
    let mut added = Vec::new();
    for i in scope.filter(|i| !held.contains(i)) {
        let Some(key) = word(i) else { continue };
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        // Work written as a list or a table; prose alone (`Finished last
        // quarter; kept for reference.`) names none.
        let own_work = doc
            .section(i)
            .any(|j| matches!(doc.blocks[j], Block::Item { .. } | Block::Table { .. }));
        // A section that says its work is done or put off (`(deferred to
        // next quarter)`, `Done last week, kept here for reference:`)
        // holds no open work for the series.
        const ASIDE: &[&str] = &[
            "deferred",
            "postponed",
            "not in this plan",
            "out of scope",
            "later",
            "for reference",
            "done ",
            "completed",
            "already",
        ];
        let set_aside = {
            let heading = text.to_lowercase();
            ASIDE.iter().any(|w| heading.contains(w))
                || doc.own_blocks(i).any(|b| match &doc.blocks[b] {
                    Block::Paragraph { text, .. } => {
                        let t = text.to_lowercase();
                        ASIDE.iter().any(|w| t.contains(w))
                    }
                    _ => false,
                })
        };
        if series.contains_key(&key)
            && own_work
            && !set_aside
            && criteria_label(text).is_none()
            && !super::about_plan::describes_plan(text)
        {
            added.push((i, clean_name(text)));
        }
    }
    joined(groups, added)
}

/// `### 2.1 Senado` under `## P2 — Extensiones`, beside `### 0.1 …` and
/// `### 1.1 …` under `## P0 …` and `## P1 …` that hold boxes: numbered
/// headings of the groups' own series, at their level, under sections
/// named as theirs are (`P0`, `P1`, `P2`), are steps too, boxes or not.
/// Otherwise the work written in plain bullets is dropped without a word.
pub(super) fn with_unboxed_siblings(
    doc: &Doc,
    groups: Vec<(usize, String)>,
    scope: std::ops::Range<usize>,
) -> Vec<(usize, String)> {
    let shape = |i: usize| -> Option<(u8, usize, u32)> {
        let (level, text, _) = doc.heading(i)?;
        let (id, _) = super::numbered::numbered_heading(text)?;
        let major = id.split('.').next()?.parse().ok()?;
        Some((level, id.matches('.').count(), major))
    };
    // The first word of a heading, its digits as `#`: `P0 — Sprint` → `P#`.
    let parent_shape = |i: usize| -> Option<String> {
        let (_, text, _) = doc.heading(doc.parent[i]?)?;
        let word = text.split_whitespace().next()?;
        Some(
            word.chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect(),
        )
    };
    let Some(&(first, _)) = groups.first() else {
        return groups;
    };
    let Some((level, dots, _)) = shape(first) else {
        return groups;
    };
    let mut majors = Vec::with_capacity(groups.len());
    let mut parents = BTreeSet::new();
    for (i, _) in &groups {
        match shape(*i) {
            Some((l, d, major)) if l == level && d == dots && d >= 1 => majors.push(major),
            _ => return groups,
        }
        match parent_shape(*i) {
            Some(p) if p.contains('#') => parents.insert(p),
            _ => return groups,
        };
    }
    let Some(&top_major) = majors.iter().max() else {
        return groups;
    };
    let held: BTreeSet<usize> = groups.iter().map(|(i, _)| *i).collect();
    let mut added = Vec::new();
    for i in scope.filter(|&i| i > first && !held.contains(&i)) {
        let Some((l, d, major)) = shape(i) else {
            continue;
        };
        let leaf = doc.section(i).all(|j| doc.heading(j).is_none());
        let same_parent = parent_shape(i).is_some_and(|p| parents.contains(&p));
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if l == level
            && d == dots
            && major <= top_major + 1
            && leaf
            && same_parent
            && criteria_label(text).is_none()
            && !super::sprints::under_a_section_about_the_plan(doc, i)
        {
            added.push((i, clean_name(text)));
        }
    }
    joined(groups, added)
}

/// The groups with the sections found to join them, in the plan's order.
fn joined(groups: Vec<(usize, String)>, added: Vec<(usize, String)>) -> Vec<(usize, String)> {
    if added.is_empty() {
        return groups;
    }
    let mut all = groups;
    all.extend(added);
    all.sort_by_key(|(i, _)| *i);
    all
}

/// `3a` of `Wave 3a`: a number and one lower-case letter after it.
pub(super) fn lettered_number(id: &str) -> bool {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    (1..=3).contains(&digits)
        && id.len() == digits + 1
        && id.as_bytes()[digits].is_ascii_lowercase()
}

/// A heading's place in a worded series, (level, parent, word): `Stream A:
/// …`, `Sub-phase B`, `Lote 3 —` → `stream`, `sub-phase`, `lote`: a word,
/// then a letter or a number alone. Choices weighed (`Option A`,
/// `Alternative B`) and appendices are no work, whatever their siblings
/// hold.
pub(super) fn series_word(doc: &Doc, i: usize) -> Option<(u8, Option<usize>, String)> {
    let (level, text, _) = doc.heading(i)?;
    let mut words = text.split_whitespace();
    let word = words.next()?;
    let id = words.next()?.trim_end_matches([':', '.', ',', ')', '：']);
    // `Sub-phase B`, `Work-stream 2`: a hyphen inside the word joins it.
    let shaped = word.chars().all(|c| c.is_alphabetic() || c == '-')
        && word.starts_with(char::is_alphabetic)
        && word.ends_with(char::is_alphabetic)
        && word.chars().count() >= 3
        && (id.chars().all(|c| c.is_ascii_digit())
            || (id.len() == 1 && id.chars().all(|c| c.is_ascii_uppercase()))
            // `Wave 3a`, `Wave 3b`: lettered parts of a numbered member.
            || lettered_number(id))
        && !id.is_empty();
    let word = word.to_lowercase();
    // Risks, open questions, scenarios and examples weighed beside the
    // work are no steps either.
    let choice = [
        "option",
        "alternative",
        "approach",
        "variant",
        "appendix",
        "annex",
        "risk",
        "question",
        "scenario",
        "persona",
        "example",
        "case",
        "риск",
        "вопрос",
        "сценари",
        "riesgo",
        "pregunta",
        "escenario",
        "cenário",
        "risco",
    ]
    .iter()
    .any(|w| word.starts_with(w));
    (shaped && !choice).then(|| (level, doc.parent[i], word))
}
