//! Done marks that name one step from elsewhere in the plan: a heading
//! outside every step marked done (`### Sharing: video export — DONE`
//! among a roadmap's directions) naming a step of its priority list, and
//! lettered parts in a progress index (`Task 5a`, `Task 5b`) marking the
//! step they are parts of; and a line marked done outside every step
//! that names a group of steps by its id (`✅ **v0.2** — … (all tasks
//! done)` under `## Completed versions`, naming `## v0.2 — Core`):
//! every step of that group; and a line stating a span of steps done by
//! their word and numbers (`Le Milestone 1-14 sono completate.`,
//! `**Status:** Phases 0–4 complete`).

use std::collections::BTreeMap;

use super::done_elsewhere::find_by_id;
use super::done_elsewhere::in_sprint;
use super::done_elsewhere::set;
use super::done_elsewhere::the_one;
use super::*;

/// Index entries naming a lettered part of a step (`Task 5a` of `Task 5`),
/// or a numbered part the step's own text holds (`フェーズ1-1` where
/// phase 1's section has `#### 1-1. go.mod`), mark that step done when
/// every part is ticked; they are its work, not steps of their own. The
/// entries left are those naming no step.
pub(super) fn parts_of_steps(
    units: &mut [RawUnit],
    listed: Vec<(bool, SprintId, String, Span)>,
    open_whole: &[SprintId],
) -> Vec<(bool, SprintId, String, Span)> {
    let lettered =
        |id: &SprintId| !id.suffix.is_empty() && id.suffix.chars().all(|c| c.is_ascii_lowercase());
    let mut parts: BTreeMap<u32, (bool, Vec<String>)> = BTreeMap::new();
    let mut rest = Vec::new();
    // Steps with numbered parts of their own that an entry names: done
    // only when the index names every part the step holds.
    let mut held_parts: BTreeMap<u32, usize> = BTreeMap::new();
    for entry in listed {
        let whole = SprintId::whole(entry.1.number);
        let step = units
            .iter()
            .flat_map(|u| &u.sprints)
            .find(|s| s.id == whole);
        let held = step.is_some_and(|s| holds_part(&s.sprint.body, &entry.1));
        if held {
            let count = step.map_or(0, |s| part_headings(&s.sprint.body, entry.1.number));
            held_parts.insert(entry.1.number, count);
        }
        if step.is_some() && (lettered(&entry.1) || held) {
            let e = parts.entry(entry.1.number).or_insert((true, Vec::new()));
            e.0 &= entry.0;
            e.1.push(entry.1.to_string());
        } else {
            rest.push(entry);
        }
    }
    for (number, (all_ticked, labels)) in parts {
        // `- [ ] **M1 — remaining: …**` beside the ticked `M1a` to `M1g`:
        // the step's own entry, open, says what of it is left.
        let mut all_ticked = all_ticked && !open_whole.contains(&SprintId::whole(number));
        if let Some(&held) = held_parts.get(&number) {
            let mut named = labels.clone();
            named.sort_unstable();
            named.dedup();
            all_ticked &= named.len() >= held;
        }
        if let Some(sprint) = find_by_id(units, &SprintId::whole(number)) {
            set(
                sprint,
                all_ticked,
                format!(
                    "marked complete in the plan (every part ticked in its index: {})",
                    labels.join(", ")
                ),
            );
        }
    }
    rest
}

/// Whether a step's text holds a heading opening with part `id`'s label
/// (`#### 1-1. go.mod`, `### 2.3 Cache`): a numbered part of the step. A
/// line of prose opening with a number alike (`2.1 GB peak memory`) is
/// none.
fn holds_part(body: &str, id: &SprintId) -> bool {
    if !id.suffix.starts_with(['.', '-']) {
        return false;
    }
    let label = id.to_string();
    part_labels(body).any(|l| l == label)
}

/// How many numbered part headings of step `number` its text holds.
fn part_headings(body: &str, number: u32) -> usize {
    let mut labels: Vec<String> = part_labels(body)
        .filter(|l| {
            l.split(['.', '-'])
                .next()
                .is_some_and(|n| n.parse() == Ok(number))
        })
        .collect();
    labels.sort_unstable();
    labels.dedup();
    labels.len()
}

/// The labels of the part headings in a step's text: `1-1` of `#### 1-1.
/// go.mod`, `2.3` of `### 2.3 Cache`.
fn part_labels(body: &str) -> impl Iterator<Item = String> + '_ {
    body.lines().filter_map(|l| {
        let t = l
            .trim_start()
            .strip_prefix('#')?
            .trim_start_matches('#')
            .trim_start();
        let label: String = t
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-'))
            .collect();
        let label = label.trim_end_matches(['.', '-']);
        let mut parts = label.split(['.', '-']);
        let two = parts.clone().count() == 2 && parts.all(|p| !p.is_empty());
        two.then(|| label.to_string())
    })
}

/// A heading outside every sprint marked done whose name, or its part
/// after a label (`### Sharing: video / GIF export — DONE`), is the name
/// of exactly one sprint, or of its head before a dash (`Video / GIF
/// export — highest sharing value` in a priority list): that sprint is
/// done. Only a sprint no evidence of its own marks.
pub(super) fn done_headings(doc: &Doc, units: &mut [RawUnit]) {
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if doc.is_sprint(i) || in_sprint(doc, Some(i)) {
            continue;
        }
        let (name, marked) = strip_done_marks(text);
        if !marked || super::headings::done_but_for(text) {
            continue;
        }
        let name = clean_name(&name).to_lowercase();
        let after_label = name.split_once(": ").map(|(_, n)| n.trim().to_string());
        let names_it = |s: &RawSprint| {
            let own = s.sprint.name.to_lowercase();
            let head = own.split(" — ").next().unwrap_or(&own).trim().to_string();
            [Some(&name), after_label.as_ref()]
                .into_iter()
                .flatten()
                .any(|n| !n.is_empty() && (*n == own || *n == head))
        };
        if let Some(sprint) = the_one(units, names_it) {
            if sprint.sprint.done.is_none() {
                sprint.sprint.done = Some(format!(
                    "marked complete in the plan (its heading `{}`)",
                    clean_name(text)
                ));
            }
        }
    }
}

/// Lines outside every step that open with a done mark and name a group
/// heading by its first word, an id (`✅ **v0.2** — Core`): the steps in
/// that group's section are done. The id must open exactly one heading
/// that holds steps.
pub(super) fn done_groups(doc: &Doc, units: &mut [RawUnit]) {
    let mut named: Vec<(usize, String)> = Vec::new();
    for (i, b) in doc.blocks.iter().enumerate() {
        let text = match b {
            Block::Paragraph { text, .. } | Block::Item { text, .. } => text,
            _ => continue,
        };
        // The marks are not ASCII: a text without a byte of one is skipped
        // before its lines are looked at.
        if text.is_ascii() {
            continue;
        }
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix(super::completion::MARK_EMOJI) else {
                continue;
            };
            if let Some(id) = group_id(rest).filter(|_| !in_sprint(doc, doc.parent[i])) {
                named.push((i, id));
            }
        }
    }
    if named.is_empty() {
        return;
    }
    let mut heads: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for i in 0..doc.blocks.len() {
        if let Some((_, text, _)) = doc.heading(i) {
            if let Some(id) = group_id(text) {
                heads.entry(id).or_default().push(i);
            }
        }
    }
    // Per block, the group listed done whose section holds it: each
    // group's section is walked once, however many steps it holds.
    let mut listed: Vec<Option<&str>> = vec![None; doc.blocks.len()];
    for (line_block, id) in &named {
        let Some([h]) = heads.get(id).map(Vec::as_slice) else {
            continue;
        };
        let (h, end) = (*h, doc.section_end[*h]);
        if (h..end).contains(line_block) || doc.is_sprint(h) {
            continue;
        }
        for slot in &mut listed[h + 1..end] {
            slot.get_or_insert(id.as_str());
        }
    }
    for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
        let at = doc
            .blocks
            .partition_point(|b| b.span().start < sprint.span.start);
        if let (Some(Some(id)), None) = (listed.get(at), &sprint.sprint.done) {
            sprint.sprint.done = Some(format!(
                "marked complete in the plan (its group `{id}` is listed done)"
            ));
        }
    }
}

/// Keys of a line stating where the plan stands (`**Status:** Phases 0–4
/// complete`).
const STATUS_KEYS: &[&str] = &[
    "status",
    "state",
    "progress",
    "estado",
    "stato",
    "statut",
    "stand",
    "état",
    "progresso",
    "progreso",
];

/// Words between a span of steps and its done word (`are`, `sono`).
const LINKING: &[&str] = &[
    "are",
    "is",
    "were",
    "have been",
    "has been",
    "all",
    "now",
    "sono",
    "son",
    "están",
    "estan",
    "estão",
    "sind",
    "sont",
    "ont été",
    "zijn",
];

/// A line outside every step that states a span of the plan's steps done,
/// as its subject: first on the line or after a status key (`Le Milestone
/// 1-14 sono completate.`, `**Estado:** Fases 1-4 COMPLETADAS`). Each step
/// of the plan's word so numbered is done. `After Phases 1-2 complete`,
/// `**Prerequisites**: Phases 1-5 complete` and `Foundation → Phases 1-2
/// complete` state a condition, not where the plan stands, and mark
/// nothing.
pub(super) fn done_spans(doc: &Doc, units: &mut [RawUnit]) {
    let Some(word) = doc.word else {
        return;
    };
    // The blocks inside steps, marked in one pass: most of a plan's lines
    // are, and are never looked at.
    let mut inside = vec![false; doc.blocks.len()];
    for h in 0..doc.blocks.len() {
        if !inside[h] && doc.is_sprint(h) {
            for j in doc.section(h) {
                inside[j] = true;
            }
        }
    }
    for (i, b) in doc.blocks.iter().enumerate() {
        let text = match b {
            Block::Paragraph { text, .. } | Block::Item { text, .. } if !inside[i] => text,
            _ => continue,
        };
        for line in text.lines().filter(|l| has_number_span(l)) {
            let Some((from, to)) = span_stated_done(line, word) else {
                continue;
            };
            // The units the statement speaks for: the one whose section
            // holds it, or, at the plan's top level, all of them where
            // each number names one step.
            let holder = units.iter().position(|u| u.scope.contains(&i));
            let named = |n: u32| {
                units
                    .iter()
                    .flat_map(|u| &u.sprints)
                    .filter(|s| s.id.suffix.is_empty() && s.id.number == n)
                    .count()
            };
            if holder.is_none() && (from..=to).any(|n| named(n) > 1) {
                continue;
            }
            let units_of_it = units
                .iter_mut()
                .enumerate()
                .filter(|(k, _)| holder.is_none_or(|h| h == *k))
                .map(|(_, u)| u);
            for sprint in units_of_it.flat_map(|u| u.sprints.iter_mut()) {
                let id = &sprint.id;
                if id.suffix.is_empty()
                    && (from..=to).contains(&id.number)
                    && !says_open(doc, sprint.span.start)
                {
                    // The sentence stating it, not the rest of its line.
                    let said = line.trim();
                    let said = said.split_once(". ").map_or(said, |(first, _)| first);
                    sprint
                        .sprint
                        .done
                        .get_or_insert_with(|| format!("marked complete in the plan (`{said}`)"));
                }
            }
        }
    }
}

/// The plan's own status line, above its first section (`ステータス:
/// Implemented（2026年02月28日）`, `**Status:** Complete.`): the plan holds
/// every step, and its mark is the mark of each step that says nothing of
/// its own. It speaks only where nothing in the plan says otherwise: no open
/// box anywhere, no step saying it is under way, and a status of the whole
/// (`Planning complete`, `Phase 1 complete`, `Ready for implementation` are
/// about a part or the writing). Steps with open lines of their own are
/// read open again afterwards, as for every done mark.
pub(super) fn plan_status(doc: &Doc, units: &mut [RawUnit]) {
    use super::completion::{status_says_done, status_values};
    // The preamble: before the first heading under the title.
    let title = match doc.blocks.first() {
        Some(Block::Heading { level: 1, .. }) => 1,
        _ => 0,
    };
    let first_section = (title..doc.blocks.len())
        .find(|&i| doc.heading(i).is_some())
        .unwrap_or(doc.blocks.len());
    let mut values = (title..first_section)
        .flat_map(|j| status_values(doc, std::iter::once(j)).map(move |v| (j, v)));
    let (Some((at, value)), None) = (values.next(), values.next()) else {
        return;
    };
    let lower = value
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let first = lower
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default();
    const WHOLE_DONE: &[&str] = &[
        "complete",
        "completed",
        "done",
        "implemented",
        "finished",
        "shipped",
        "delivered",
    ];
    const A_PART: &[&str] = &[
        "plan",
        "design",
        "draft",
        "spec",
        "ready",
        "review",
        "phase",
        "sprint",
        "stage",
        "step",
        "milestone",
        "mvp",
        "partial",
        "%",
        "|",
        "/",
        " but ",
        "except",
    ];
    if !WHOLE_DONE.contains(&first)
        || !status_says_done(value)
        || A_PART.iter().any(|w| lower.contains(w))
    {
        return;
    }
    let open_box = doc.blocks.iter().any(|b| {
        matches!(
            b,
            Block::Item {
                checked: Some(false),
                ..
            }
        )
    });
    let sprints = || units.iter().flat_map(|u| &u.sprints);
    // A step that says anything of where it stands, open or left
    // (`Not started`, `— WIP`, `**Progress:** 60%`, `⏸️ paused`, `❌`),
    // in its heading or its text: the status line is no longer the plan's
    // whole word, and marks nothing.
    let heading_open = |s: &RawSprint| {
        let line = doc.source[s.span.start..]
            .lines()
            .next()
            .unwrap_or_default();
        let text = format!("{line}\n{}", s.sprint.body);
        let lower = text.to_lowercase();
        // Beyond the open words, work left and put off: what a status of
        // a part says and the plan's lists of words do not.
        const LEFT: &[&str] = &[
            "not ",
            "wip",
            "%",
            "left",
            "waiting",
            "paused",
            "on hold",
            "next",
            "tbd",
            "scheduled",
            "starting",
            "started",
        ];
        text.contains(['⏳', '🚧', '🔄', '⬜', '🔲', '📋', '❌', '⏸', '⚠'])
            || super::status_words::OPEN_WORDS
                .iter()
                .chain(LEFT)
                .any(|w| lower.contains(w))
            || super::status_words::still_open(&lower)
            || super::status_words::put_off(&lower)
    };
    if open_box || sprints().any(|s| heading_open(s) || says_open(doc, s.span.start)) {
        return;
    }
    let line = doc.line(doc.blocks[at].span().start);
    let why = format!(
        "marked complete in the plan (its status line at line {line} says the whole plan is done)"
    );
    for sprint in units.iter_mut().flat_map(|u| u.sprints.iter_mut()) {
        sprint.sprint.done.get_or_insert_with(|| why.clone());
    }
}

/// Whether the step heading at `start` says itself that work is left: a
/// status line of its own that is not done (`**Stato**: implementata; resta
/// il collaudo`), or a row of its status table not done (`| world-navigation
/// | 🔴 未完成 |`). The step's own word outweighs a line about many.
fn says_open(doc: &Doc, start: usize) -> bool {
    use super::completion::{status_says_done, status_values};
    let at = doc.blocks.partition_point(|b| b.span().start < start);
    if doc.heading(at).is_none() {
        return false;
    }
    if status_values(doc, doc.own_blocks(at)).any(|v| !status_says_done(v)) {
        return true;
    }
    doc.own_blocks(at).any(|j| {
        let Block::Table { header, rows, .. } = &doc.blocks[j] else {
            return false;
        };
        super::completion::status_column(header).is_some_and(|col| {
            rows.iter()
                .any(|r| r.cells.get(col).is_some_and(|c| !status_says_done(&c.text)))
        })
    })
}

/// What stands between the numbers of a span (`1-14`, `0–4`, `1 & 2`, `1
/// and 2`, `2 bis 5`), in the plans' languages.
const SPAN_SEPARATORS: &[&str] = &[
    " - ",
    " – ",
    "-",
    "–",
    " & ",
    " and ",
    " through ",
    " to ",
    " a ",
    " bis ",
    " e ",
    " y ",
    " et ",
    " und ",
];

/// Whether a line's opening holds a span of numbers (`1-14`, `0–4`, `1 &
/// 2`, `1 and 2`): a scan without a copy.
fn has_number_span(line: &str) -> bool {
    let head = &line.as_bytes()[..line.len().min(120)];
    let mut k = 0;
    while k < head.len() {
        if !head[k].is_ascii_digit() {
            k += 1;
            continue;
        }
        while k < head.len() && head[k].is_ascii_digit() {
            k += 1;
        }
        // (`k` follows ASCII digits: a character boundary.)
        let rest = &line[k..];
        let after = SPAN_SEPARATORS
            .iter()
            .find_map(|sep| rest.strip_prefix(sep));
        if after.is_some_and(|a| a.starts_with(|c: char| c.is_ascii_digit())) {
            return true;
        }
    }
    false
}

/// The span of steps a line states done (`Phases 0–4 complete` → 0 to 4),
/// when the steps are named by `word` and the span is the line's subject.
fn span_stated_done(line: &str, word: super::headings::Word) -> Option<(u32, u32)> {
    let mut t = line.trim_start_matches(|c: char| !c.is_alphanumeric());
    if let Some((key, rest)) = t.split_once(':') {
        let key = key.trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
        if STATUS_KEYS.contains(&key.to_lowercase().as_str()) {
            t = rest.trim_start_matches(|c: char| !c.is_alphanumeric());
        }
    }
    let lower = t.to_lowercase();
    let mut t = lower.as_str();
    for article in [
        "the ", "le ", "i ", "gli ", "las ", "los ", "les ", "die ", "all ",
    ] {
        if let Some(rest) = t.strip_prefix(article) {
            t = rest;
            break;
        }
    }
    let kind: &str = t.split(|c: char| !c.is_alphabetic()).next()?;
    let rest = t[kind.len()..].strip_prefix(' ')?;
    let forms = [
        Some(kind.to_string()),
        kind.strip_suffix('s').map(str::to_string),
        kind.strip_suffix("es").map(str::to_string),
        kind.strip_suffix('i').map(|k| format!("{k}e")),
        // German plurals: `Phasen 1–5`, `Schritte 1–3`.
        kind.strip_suffix('n').map(str::to_string),
        kind.strip_suffix('e').map(str::to_string),
    ];
    let named = forms.into_iter().flatten().any(|form| {
        let probe = super::locale::localize(&format!("{form} 1")).to_lowercase();
        super::headings::Word::parse(&probe)
            .is_some_and(|(w, len)| w == word && probe[len..].trim_start().starts_with('1'))
    });
    if !named {
        return None;
    }
    let (from, rest) = leading_number(rest)?;
    let rest = SPAN_SEPARATORS
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?;
    let (to, rest) = leading_number(rest)?;
    let mut rest = rest.trim_start_matches(|c: char| !c.is_alphanumeric());
    for link in LINKING {
        if let Some(r) = rest.strip_prefix(link).filter(|r| r.starts_with(' ')) {
            rest = r.trim_start_matches(|c: char| !c.is_alphanumeric());
        }
    }
    // The done word ends the statement (`Phases 1-2 complete.`, `… ✅`):
    // `Phases 1-2 complete: internal alpha` names a target, and `Phases 1-3
    // complete the MVP` uses the word as a verb.
    let word_len = rest
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(rest.len());
    let after = rest[word_len..].trim_start();
    let ends = after.is_empty() || after.starts_with(['.', ',', ';', '!', '✅', '(', '|', '*']);
    (from <= to && to - from < 100 && ends && super::completion::opens_with_done_word(rest))
        .then_some((from, to))
}

/// A number opening a text, and the text after it.
fn leading_number(t: &str) -> Option<(u32, &str)> {
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    Some((t[..digits].parse().ok()?, &t[digits..]))
}

/// The id a text opens with (`**v0.2** — Core` → `v0.2`): a word with a
/// digit, lower-cased.
fn group_id(text: &str) -> Option<String> {
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '#'));
    let word = t.split_whitespace().next()?;
    let word = word.trim_matches(|c: char| matches!(c, '*' | '_' | ':' | ',' | '—' | '-' | '.'));
    (word.chars().any(|c| c.is_ascii_digit()) && word.chars().count() <= 12)
        .then(|| word.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::super::headings::Word;
    use super::*;

    #[test]
    fn a_span_of_steps_is_stated_done_only_as_the_lines_subject() {
        let done = |line| span_stated_done(line, Word::Milestone);
        assert_eq!(done("Le Milestone 1-14 sono completate."), Some((1, 14)));
        let phases = |line| span_stated_done(line, Word::Phase);
        assert_eq!(phases("> **Status:** Phases 0–4 complete"), Some((0, 4)));
        assert_eq!(phases("**Estado:** Fases 1-4 COMPLETADAS ✅"), Some((1, 4)));
        assert_eq!(phases("- Phase 1 & 2 complete"), Some((1, 2)));
        assert_eq!(phases("After Phase 1 & 2 complete"), None);
        assert_eq!(phases("**Prerequisites**: Phases 1-5 complete"), None);
        assert_eq!(phases("1. **Foundation** → Phases 1-2 complete"), None);
        assert_eq!(phases("Phases 1-3 will be complete by May"), None);
        assert_eq!(done("Le Milestone 1-14 sono completate."), Some((1, 14)));
        assert_eq!(phases("Le Milestone 1-14 sono completate."), None);
    }
}
