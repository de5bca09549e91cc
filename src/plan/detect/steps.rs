//! Sprints that only frame steps of their own: `## Week 1` holding `###
//! Days 1-2: …` and `### Day 5: …`, `## Phase 1` holding `### 1.1 …` and
//! `### 1.2 …` (or bold `**1.1 …**` lines), `### Priority 2` holding one
//! `#### 2.1 …`. The finest heading that carries its own work is the sprint.

use super::sprints::read_sprint;
use super::*;

/// A sub-heading that reads as a step of its own in time: `Days 1-2: …`,
/// `Day 5: …`, `Part 2 …` (numbered sub-sections such as `1. Context` are a
/// sprint's own parts, not steps).
fn step_heading(text: &str) -> bool {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    ["days ", "day ", "part "]
        .iter()
        .find_map(|w| t.strip_prefix(w))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// `Database models ✅ Completed`, its mark taken: the word that went with
/// the mark goes too.
fn without_done_word(name: &str, marked: bool) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    let cut = match words.last() {
        Some(w)
            if marked
                && words.len() > 1
                && super::completion::opens_with_done_word(
                    &w.trim_matches(|c: char| !c.is_alphanumeric())
                        .to_lowercase(),
                ) =>
        {
            words.len() - 1
        }
        _ => words.len(),
    };
    words[..cut]
        .join(" ")
        .trim_end_matches([' ', '-', '—', '–', ':', '|'])
        .to_string()
}

/// The number a heading other than a step gives its section (`Week 3`,
/// `Phase 2`): a frame between a sprint and its steps must have none.
fn heading_number_of(doc: &Doc, j: usize) -> Option<()> {
    let (_, text, _) = doc.heading(j)?;
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    t.split_whitespace()
        .take(2)
        .any(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .then_some(())
}

/// `1.2 Database schema` under sprint 1, `Task 2B.1: …` under `Phase 2B`:
/// a step numbered after its sprint.
fn numbered_after(text: &str, id: &SprintId) -> bool {
    numbered_part(text, id).is_some()
}

/// The text after a step's number (`Database schema` for `1.2 Database
/// schema`), when the step is numbered after sprint `id`; a step word
/// before the number (`Task`, `Step`, `Wave`) is part of the number.
fn numbered_part<'t>(text: &'t str, id: &SprintId) -> Option<&'t str> {
    let t = text.trim_start();
    let t = ["[ ]", "[x]", "[X]"]
        .iter()
        .find_map(|m| t.strip_prefix(m))
        .unwrap_or(t);
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
    // `Wave 1-2` under `Phase 1`: a wave of the phase's work.
    let t = ["task ", "step ", "wave ", "welle "]
        .iter()
        .find(|w| t.get(..w.len()).is_some_and(|h| h.eq_ignore_ascii_case(w)))
        .map_or(t, |w| t[w.len()..].trim_start());
    // `P2-1` under `Phase 2`: the phase's letter before its number and a
    // dash (`M0.1` under `M0` is the milestone's own code, read elsewhere).
    // `P0.5-01` under `Phase 0.5`: the phase's number holds a dot.
    let number = id.to_string();
    let dashed = |t: &str| {
        t.get(..number.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(&number))
            && t[number.len()..].starts_with('-')
    };
    let t = match t.as_bytes() {
        [l, d, ..]
            if l.is_ascii_uppercase()
                && d.is_ascii_digit()
                && (dashed(&t[1..])
                    || t[1..]
                        .find(['.', '-'])
                        .is_some_and(|at| t[1..][at..].starts_with('-'))) =>
        {
            &t[1..]
        }
        _ => t,
    };
    // `1.2`, and `1-2` where a plan numbers its steps so (`### 0-1. …`).
    let (major, rest) = match dashed(t) {
        true => (&t[..number.len()], &t[number.len() + 1..]),
        false => t.split_once(['.', '-'])?,
    };
    let minor = rest.chars().take_while(char::is_ascii_digit).count();
    (major.eq_ignore_ascii_case(&number) && minor > 0).then(|| {
        rest[minor..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .trim_start()
            .trim_start_matches([':', ')', '—', '–', '-'])
            .trim()
    })
}

/// A ticket's heading: a code of capitals and a number (`BE-1 — Engine
/// freeze`, `FE-12: Dashboard`, `INF-3 Exit checklist`).
fn coded_heading(text: &str) -> bool {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    // `T001 — Create the monorepo`: a task id of a letter or few and three
    // digits or more, with no dash.
    let letters = t.chars().take_while(char::is_ascii_uppercase).count();
    let digits = t[letters..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count();
    if (1..=4).contains(&letters) && digits >= 3 && t[letters + digits..].starts_with([' ', ':']) {
        return true;
    }
    let Some((letters, rest)) = t.split_once('-') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    (1..=6).contains(&letters.len())
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && digits > 0
        && rest[digits..].starts_with([' ', ':'])
}

/// A sub-heading's number in a series counted across sprints (`7 - Wire
/// the popup`, `7. Wire the popup`, `7) …`), with the text after it; a
/// dotted number (`1.2`) is a part of its sprint's, read by
/// `numbered_after`.
pub(super) fn series_number(text: &str) -> Option<(u32, &str)> {
    match series_part(text)? {
        (n, None, name) => Some((n, name)),
        _ => None,
    }
}

/// A sub-heading's number in a series, with its letter where it is a
/// lettered part (`4a. Feature tests`), and the text after them.
fn series_part(text: &str) -> Option<(u32, Option<char>, &str)> {
    let t = text.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let n: u32 = t[..digits].parse().ok()?;
    let rest = &t[digits..];
    let mut chars = rest.chars();
    if let Some(letter) = chars.next().filter(char::is_ascii_lowercase) {
        let name = chars
            .as_str()
            .strip_prefix(['.', ')', ':'])?
            .strip_prefix(' ')?
            .trim();
        return (!name.is_empty()).then_some((n, Some(letter), name));
    }
    let after = rest.trim_start_matches([' ', '.', ')', ':', '-', '—', '–']);
    // `01-ast.md` is a file's name, not a number and a name.
    let separated = rest.len() > after.len()
        && rest[..rest.len() - after.len()].ends_with(char::is_whitespace)
        && !rest
            .strip_prefix('.')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    (separated && !after.is_empty()).then(|| (n, None, after.trim()))
}

/// The steps of each sprint where the plan counts them in one series
/// across its sprints (`## Sprint 1` holding `### 1 - …` to `### 6 - …`,
/// `## Sprint 2` holding `### 7 - …`): every sub-heading of a sprint that
/// has any is numbered, the numbers run on from sprint to sprint with no
/// gap, and at least two sprints hold two or more. A count that runs on
/// across frames is the author's own list of steps, whatever each step's
/// body holds; a sprint's own parts (`1. Context`, `2. Goals`) start again
/// in every sprint.
fn running_series(doc: &Doc, at: &[usize]) -> Option<Vec<Vec<usize>>> {
    // The last number counted, and its letter where the step is a part
    // (`4a. Feature tests`, `4b. Wrap in a job`).
    let mut last: Option<(u32, Option<char>)> = None;
    let mut out = Vec::with_capacity(at.len());
    for &i in at {
        let mut children = Vec::new();
        for j in (i + 1..doc.section_end[i]).filter(|&j| doc.parent[j] == Some(i)) {
            let Some((_, text, _)) = doc.heading(j) else {
                continue;
            };
            let (n, letter, name) = series_part(text)?;
            // A document's own sections counted on (`5. Context`, `6.
            // Risks`) are no steps.
            if super::about_plan::describes_plan(name) {
                return None;
            }
            let follows = match (last, letter) {
                (None, _) => true,
                (Some((m, _)), None | Some('a')) if m + 1 == n => true,
                (Some((m, Some(l))), Some(letter)) => m == n && (l as u8) + 1 == letter as u8,
                _ => false,
            };
            if !follows {
                return None;
            }
            last = Some((n, letter));
            children.push(j);
        }
        // A sprint with work of its own before its steps keeps it.
        let own_work = || {
            doc.own_blocks(i)
                .any(|b| matches!(doc.blocks[b], Block::Item { .. }))
        };
        if !children.is_empty() && own_work() {
            return None;
        }
        out.push(children);
    }
    let framing = out.iter().filter(|c| c.len() >= 2).count();
    let total: usize = out.iter().map(Vec::len).sum();
    // One sprint framing many and every other sprint counting on from it
    // (`## Phase 2` holding only `### 6. Migrate to Redis` after `### 5.`
    // in `## Phase 1`) is the same one count.
    let counted_on = framing >= 1 && total >= 6 && out.iter().all(|c| !c.is_empty());
    ((framing >= 2 || counted_on) && total >= 4 && framing * 2 >= at.len()).then_some(out)
}

/// The plan's title read as its one sprint (`# Phase 4a: Narrative
/// store`) over three or more sections of one worded series, at one level
/// under one parent, each listing work (`### サブフェーズ A: Store`, `###
/// サブフェーズ B: HTTP API`, …): the plan is the phase, the series its
/// steps.
fn worded_series(doc: &Doc, title: usize) -> Vec<usize> {
    // Lanes run beside each other, not one after another: streams, tracks,
    // agents and teams are no sub-phases of the titled phase.
    const LANES: &[&str] = &[
        "stream",
        "workstream",
        "track",
        "lane",
        "agent",
        "team",
        "squad",
        "worker",
    ];
    let mut series: BTreeMap<(u8, Option<usize>, String), Vec<usize>> = BTreeMap::new();
    for j in title + 1..doc.section_end[title] {
        if let Some(key) = super::levels::series_word(doc, j)
            .filter(|(_, _, w)| !LANES.iter().any(|l| w.starts_with(l)))
        {
            series.entry(key).or_default().push(j);
        }
    }
    let lists_work = |j: usize| {
        doc.section(j)
            .any(|b| matches!(doc.blocks[b], Block::Item { .. } | Block::Table { .. }))
    };
    // Open boxes outside every section of the series (`## Implementation`
    // with its own `- [ ]` lines, `## Wrap-up`): the plan's work is not
    // only the series, so the one sprint stays.
    // Open boxes are work unless a heading above says they are criteria
    // or notes about the plan (`### Definition of Done`, `## Progress`).
    let set_aside = |b: usize| {
        // The nearest heading before a block holds it.
        let owner = (title..b).rev().find(|&h| doc.heading(h).is_some());
        std::iter::successors(owner, |&p| doc.parent[p]).any(|p| {
            doc.heading(p).is_some_and(|(_, t, _)| {
                criteria_label(t) == Some(Label::Exit) || super::about_plan::describes_plan(t)
            })
        })
    };
    let boxed_outside = |heads: &[usize]| {
        (title + 1..doc.section_end[title]).any(|b| {
            matches!(
                doc.blocks[b],
                Block::Item {
                    checked: Some(false),
                    ..
                }
            ) && !heads.iter().any(|&h| h < b && b < doc.section_end[h])
                && !set_aside(b)
        })
    };
    // One series only, each of its sections listing work: two would be a
    // choice the reader cannot make, and a section of prose alone may be
    // work this reading would drop.
    let mut found = series.into_values().filter(|heads| {
        heads.len() >= 3 && heads.iter().all(|&j| lists_work(j)) && !boxed_outside(heads)
    });
    match (found.next(), found.next()) {
        (Some(heads), None) => heads,
        _ => Vec::new(),
    }
}

/// A frame's own criteria (`## Exit criteria for M1`) are met when its
/// last step is: they go with that step, but for those a step already has.
pub(super) fn criteria_to_last_step(frame: &[Criterion], steps: &mut [RawSprint]) {
    let own: Vec<Criterion> = frame
        .iter()
        .filter(|c| !steps.iter().any(|s| s.sprint.exit.contains(c)))
        .cloned()
        .collect();
    if let Some(last) = steps.last_mut() {
        last.sprint.exit.extend(own);
    }
}

/// Sprints that are each only a frame for two or more steps of their own
/// (`## Week 1` holding `### Days 1-2: …`, `### Day 5: …`, each with its own
/// tasks) run as those steps: the finest heading that carries its own work
/// is the sprint. Each step's id is its sprint's id and its place
/// (`1.1`, `1.2`, …).
/// `at` holds each sprint's heading block.
pub(super) fn subdivided(doc: &Doc, sprints: Vec<RawSprint>, at: &[usize]) -> Vec<RawSprint> {
    if sprints.is_empty() {
        return sprints;
    }
    let steps_of = |i: usize, number: &SprintId| -> Vec<usize> {
        let children: Vec<usize> = (i + 1..doc.section_end[i])
            .filter(|&j| doc.parent[j] == Some(i))
            .collect();
        let own_work = |j: usize| {
            doc.own_blocks(j)
                .any(|b| matches!(doc.blocks[b], Block::Item { .. } | Block::Code { .. }))
        };
        // A numbered step whose work sits in its own sub-sections
        // (`### Task 1.1` holding `#### Subtask: …`) carries work too.
        let section_work = |j: usize| {
            doc.section(j)
                .any(|b| matches!(doc.blocks[b], Block::Item { .. } | Block::Code { .. }))
        };
        // A part coded with the phase's letter that is about the phase
        // (`### P1-2 Risks`) is no step of it.
        let about_phase = |t: &str| {
            t.trim_start().starts_with(|c: char| c.is_ascii_uppercase())
                && numbered_part(t, number).is_some_and(super::about_plan::describes_plan)
        };
        let step = |t: &str| step_heading(t) || numbered_after(t, number) && !about_phase(t);
        // A step written as a list item (`- [ ] **Task 2.3**: …`) is a work
        // line itself.
        let list_item = |j: usize| {
            doc.heading(j).is_some_and(|(_, _, span)| {
                doc.source[span.clone()]
                    .trim_start()
                    .starts_with(['-', '*', '+'])
            })
        };
        // A group heading with no work of its own before its one step.
        let only_a_frame = |i: usize| !own_work(i);
        let all_steps = children.len() >= 2
            && children
                .iter()
                .all(|&j| doc.heading(j).is_some_and(|(_, t, _)| step(t)) && own_work(j));
        // Steps numbered after their sprint (`1.1`, `1.2`) are its steps
        // even beside a note of another kind (`### To-dos`), and below a
        // frame heading of no number (`### Tasks` holding `#### Task 1.1`);
        // the first numbered level counts (`2.1a` under `2.1` is a part).
        let numbered_at = |j: usize| {
            doc.heading(j).is_some_and(|(_, t, _)| {
                (numbered_after(t, number) && !about_phase(t)) || coded_heading(t)
            })
        };
        let numbered: Vec<usize> = (i + 1..doc.section_end[i])
            .filter(|&j| numbered_at(j))
            .filter(|&j| {
                let mut up = doc.parent[j];
                while let Some(p) = up.filter(|&p| p != i) {
                    if numbered_at(p) || heading_number_of(doc, p).is_some() {
                        return false;
                    }
                    up = doc.parent[p];
                }
                true
            })
            .collect();
        // Sub-sections each opening with a number and keeping a checkbox
        // of their own (`### 01-ast.md` holding `- [x] All tasks`): steps
        // whose progress the author tracks one by one.
        let own_checks = |j: usize| {
            doc.own_blocks(j).any(|b| {
                matches!(
                    doc.blocks[b],
                    Block::Item {
                        checked: Some(_),
                        ..
                    }
                )
            })
        };
        let opens_with_number = |j: usize| {
            doc.heading(j).is_some_and(|(_, t, _)| {
                t.trim_start_matches(|c: char| !c.is_alphanumeric())
                    .starts_with(|c: char| c.is_ascii_digit())
            })
        };
        let checked_steps = children.len() >= 2
            && children
                .iter()
                .all(|&j| opens_with_number(j) && own_checks(j));
        // A phase with exit criteria of its own (`### Acceptance
        // Criteria` beside `### 1.1`, `### 1.2`) is checked as a whole:
        // the phase is the sprint and its numbered parts are its tasks.
        // The plan's title read as its one sprint (`# M1 — Foundations`)
        // has the plan's criteria, not a phase's.
        let the_whole_plan = at.len() == 1 && doc.heading(i).is_some_and(|(l, _, _)| l == 1);
        let checked_whole = !the_whole_plan
            && children.iter().any(|&j| {
                doc.heading(j)
                    .is_some_and(|(_, t, _)| criteria_label(t) == Some(Label::Exit))
            });
        // Headings that open with a box (`### [x] Bootstrap the app`,
        // `### [ ] Add the history API`), two or more at any depth: steps
        // the author ticks one by one; the first boxed level counts.
        // Written as headings: list items read as headings keep their box.
        let boxed_at = |j: usize| {
            doc.heading(j).is_some_and(|(_, t, span)| {
                doc.source[span.clone()].trim_start().starts_with('#')
                    && ["[ ]", "[x]", "[X]"]
                        .iter()
                        .any(|m| t.trim_start().starts_with(m))
            })
        };
        let boxed: Vec<usize> = (i + 1..doc.section_end[i])
            .filter(|&j| boxed_at(j))
            .filter(|&j| {
                let mut up = doc.parent[j];
                while let Some(p) = up.filter(|&p| p != i) {
                    if boxed_at(p) {
                        return false;
                    }
                    up = doc.parent[p];
                }
                true
            })
            .collect();
        if checked_whole {
            Vec::new()
        } else if boxed.len() >= 2 {
            boxed
        } else if all_steps || checked_steps {
            children
        } else if (numbered.len() >= 2 || (numbered.len() == 1 && only_a_frame(i))) && {
            // Every one carries work, or all but one of three or more
            // (`#### 2.5 Error messages` written as before/after prose
            // among four numbered deliveries with lists).
            let with_work = numbered
                .iter()
                .filter(|&&j| own_work(j) || section_work(j) || list_item(j))
                .count();
            with_work == numbered.len() || numbered.len() >= 3 && with_work + 1 >= numbered.len()
        } {
            numbered
        } else if the_whole_plan {
            worded_series(doc, i)
        } else {
            Vec::new()
        }
    };
    let series = running_series(doc, at);
    let mut framed: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, (&i, sprint)) in at.iter().zip(&sprints).enumerate() {
        let steps = match &series {
            Some(series) => series[k].clone(),
            None => steps_of(i, &sprint.id),
        };
        framed.push((i, steps));
    }
    // One step each says nothing: the sprints frame steps only where some
    // frames more than one. Where at least half frame steps, one that frames
    // none is a step of its own (a phase with no sub-steps is one sprint).
    let framing = framed.iter().filter(|(_, steps)| !steps.is_empty()).count();
    if framed.iter().all(|(_, steps)| steps.len() < 2) || framing * 2 < framed.len() {
        return sprints;
    }
    let mut out = Vec::new();
    for (parent, (_, steps)) in sprints.iter().zip(&framed) {
        if steps.is_empty() {
            out.push(parent.clone());
            continue;
        }
        for (k, &j) in steps.iter().enumerate() {
            let (Some((_, text, span)), Ok(id)) = (
                doc.heading(j),
                format!("{}.{}", parent.id, k + 1).parse::<SprintId>(),
            ) else {
                return sprints;
            };
            let (name, marked) = strip_done_marks(text);
            // `1.2 Database schema`: the id is the sprint's own.
            let name = numbered_part(&name, &parent.id).map_or(name.clone(), str::to_string);
            // `7 - Refactor the selector`: the series' number is its place.
            let name = match &series {
                Some(_) => series_part(&name).map_or(name.clone(), |(_, _, rest)| rest.to_string()),
                None => name,
            };
            let name = name
                .trim_start()
                .strip_prefix("[ ]")
                .map_or(name.clone(), |rest| rest.trim().to_string());
            // A heading's name has no inline code (`packages/core`), as a
            // sprint heading's has none.
            let name = tidy_name(&without_done_word(&name, marked).replace('`', ""));
            let mut sprint = read_sprint(doc, j, id.clone(), name);
            // An open box of its own wins over its frame's mark.
            let open_box = text.trim_start().starts_with("[ ]");
            sprint.done = done_evidence(doc, j, marked)
                .or_else(|| (!open_box).then(|| parent.sprint.done.clone()).flatten());
            sprint.origin = Origin::new(
                doc.line(span.start),
                format!(
                    "step {} of sprint {}, the finest heading with its own tasks",
                    k + 1,
                    parent.id
                ),
            );
            out.push(RawSprint {
                id,
                span: span.clone(),
                sprint,
            });
        }
        let from = out.len() - steps.len();
        criteria_to_last_step(&parent.sprint.exit, &mut out[from..]);
    }
    out
}
