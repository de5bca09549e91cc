//! The last level tried before a plan is refused: headings numbered as
//! work items (`### [x] 1.1 Split the store` under `## Batch 1`, `## 3.
//! Replace the parser`, a series of one word and a number `## Track 2 —
//! …`, a version alone `## 0.4.0` named by its subtitle) without a sprint
//! word. The level with the most
//! numbered headings that carry work of their own is the sprint level; a
//! heading that names no work (`1. Overview`, `2. Goals`) is not a sprint.
//! Failing those, the sub-headings of an open-work group (`## Not
//! Started` holding `### HDBSCAN`) are the steps, and failing those the
//! headings of a level the author marks done one by one (`### ~~Eject
//! button~~ (Done)` beside `### Playlists`). The reading is a guess,
//! said so in the plan's guesses.

use super::sprints::read_sprint;
use super::*;

/// `1.1 Name`, `3. Name`, `2) Name` → (`1.1`, `Name`); a coded item
/// (`T1: Name`, `TASK-3 — Name`, `US-101 Name`) → (`T1`, `Name`).
pub(super) fn numbered_heading(text: &str) -> Option<(String, String)> {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    if let Some(coded) = coded_heading(t) {
        return Some(coded);
    }
    // `CLAUDE · FIX-01 — Name`: the owner's label before the code.
    // (A byte search first: most headings hold no middle dot.)
    if let Some((owner, rest)) = t
        .as_bytes()
        .contains(&0xB7)
        .then(|| t.split_once(" · "))
        .flatten()
    {
        if owner.split_whitespace().count() <= 3 {
            if let Some(coded) = coded_heading(rest.trim_start()) {
                return Some(coded);
            }
        }
    }
    // `一、构建系统现代化`, `十一、其他`: an outline numbered in Chinese
    // numerals.
    if let Some(numbered) = cjk_numbered(t) {
        return Some(numbered);
    }
    let id_len = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.'))
        .map_or(t.len(), |(i, _)| i);
    let id = t[..id_len].trim_end_matches('.');
    if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    // `2024 roadmap`: a year, not an item number.
    if !id.contains('.') && id.len() > 3 {
        return None;
    }
    // `1️⃣ Modo solo lectura`: a keycap is the number's own mark.
    let rest = t[id_len..]
        .trim_start_matches(['\u{FE0F}', '\u{20E3}'])
        .trim_start_matches([')', ':', '—', '–', '-'])
        .trim();
    // `## 0.1.0`: a version alone names its release.
    if rest.is_empty() && id.matches('.').count() >= 1 && t[id_len..].trim().is_empty() {
        return Some((id.to_string(), id.to_string()));
    }
    if rest.is_empty() || !rest.starts_with(|c: char| c.is_alphabetic() || c == '`') {
        return None;
    }
    Some((id.to_string(), rest.to_string()))
}

/// `三、代码质量提升` → (`3`, `代码质量提升`): Chinese numerals up to 99
/// closed by an enumeration comma (or a full stop) and a name.
fn cjk_numbered(t: &str) -> Option<(String, String)> {
    const DIGITS: &str = "一二三四五六七八九";
    // Most headings open with no numeral: one look at the first letter.
    if !t.starts_with(|c: char| DIGITS.contains(c) || c == '十') {
        return None;
    }
    let end = t
        .char_indices()
        .find(|&(_, c)| !(DIGITS.contains(c) || c == '十'))
        .map(|(i, _)| i)?;
    let rest = t[end..].strip_prefix(['、', '．', '.'])?.trim();
    let digit = |c: char| DIGITS.chars().position(|d| d == c).map(|p| p as u32 + 1);
    let numeral: Vec<char> = t[..end].chars().collect();
    let n = match numeral.as_slice() {
        ['十'] => 10,
        [d] => digit(*d)?,
        ['十', d] => 10 + digit(*d)?,
        [t, '十'] => digit(*t)? * 10,
        [t, '十', d] => digit(*t)? * 10 + digit(*d)?,
        _ => return None,
    };
    let names = rest.starts_with(|c: char| c.is_alphanumeric() || c == '`');
    names.then(|| (n.to_string(), rest.to_string()))
}

/// `T1: Name`, `TASK-03 — Name`, `DB-T1 — Name`, `WP-01A — Name`: a code
/// of capitals, digits and dashes (a digit last, or one letter after
/// one), then a separator and a name.
fn coded_heading(t: &str) -> Option<(String, String)> {
    if let Some(version) = version_heading(t) {
        return Some(version);
    }
    let len = t
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '.'))
        .unwrap_or(t.len());
    let code = t[..len].trim_end_matches(['.', '-']);
    // A small letter after the number and before a space (`T1b — …`): a
    // part of that number, as a capital is.
    let len = match t[code.len()..].strip_prefix(|c: char| c.is_ascii_lowercase()) {
        Some(after)
            if code.ends_with(|c: char| c.is_ascii_digit()) && after.starts_with([' ', ':']) =>
        {
            code.len() + 1
        }
        _ => code.len(),
    };
    let code = &t[..len];
    // A digit last, or one letter after a digit: `WP-01A`, `WP-01B` are
    // two packages of one number.
    let digit_last = code.ends_with(|c: char| c.is_ascii_digit())
        || code
            .strip_suffix(|c: char| c.is_ascii_alphabetic())
            .is_some_and(|head| head.ends_with(|c: char| c.is_ascii_digit()));
    let shaped =
        code.starts_with(|c: char| c.is_ascii_uppercase()) && digit_last && code.len() <= 16;
    if !shaped {
        return None;
    }
    let after = &t[code.len()..];
    // A note on the item between its code and its name (`T7 (stretch) —
    // OE-fitness score`).
    let after = after
        .strip_prefix(" (")
        .and_then(|n| n.split_once(')'))
        .filter(|(note, _)| !note.is_empty() && note.len() <= 24)
        .map_or(after, |(_, rest)| rest);
    let rest = after_separator(after, &[':', '.', ')'])?;
    // A name may open quoted (`T4 — "Why is this here?" popover`).
    let names = |c: char| c.is_alphabetic() || "`\"“„«'‘「".contains(c);
    (!rest.is_empty() && rest.starts_with(names)).then(|| (code.to_string(), rest.to_string()))
}

/// The name after a code: past one of `marks` or a spaced dash.
fn after_separator<'t>(after: &'t str, marks: &[char]) -> Option<&'t str> {
    after
        .strip_prefix(marks)
        .or_else(|| {
            [" — ", " – ", " - "]
                .iter()
                .find_map(|sep| after.strip_prefix(sep))
        })
        .map(str::trim)
}

/// The series key of releases whose word is written out.
const RELEASES: &str = "release";

/// The words a release is written out with, before its dotted number.
const VERSION_WORDS: &[&str] = &["version ", "release ", "versión ", "versão ", "версия "];

/// The version word that opens `t` (`Version 2.1 – …`).
fn version_word(t: &str) -> Option<&'static str> {
    // Every heading is asked: compared in place, never copied; most open
    // with no `v`, `r` or `V`/`R` at all.
    if !t.starts_with(['v', 'V', 'r', 'R', 'В', 'в']) {
        return None;
    }
    VERSION_WORDS
        .iter()
        .find(|w| {
            t.get(..w.len())
                .is_some_and(|h| h.chars().flat_map(char::to_lowercase).eq(w.chars()))
        })
        .copied()
}

/// Whether a heading is a release written out (`Version 2.1 – SQLite`).
fn written_version(text: &str) -> bool {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    version_word(t).is_some() && version_heading(t).is_some()
}

/// `v0.1 — Local registry`, `v1.2.x: Hooks`, `Version 2.1 – SQLite
/// storage`: a release of a roadmap.
fn version_heading(t: &str) -> Option<(String, String)> {
    // The word written out (`Version`, `Release`, `Версия`) before a
    // dotted number: the release's own name.
    if let Some(word) = version_word(t) {
        let rest = &t[word.len()..];
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x'))
            .unwrap_or(rest.len());
        let number = rest[..len].trim_end_matches('.');
        // A dotted number only: `Version 2` may be one of two designs.
        if !number.starts_with(|c: char| c.is_ascii_digit()) || !number.contains('.') {
            return None;
        }
        let name = after_separator(&rest[len..], &[':'])?;
        return (!name.is_empty()).then(|| (number.to_string(), name.to_string()));
    }
    let rest = t.strip_prefix(['v', 'V'])?;
    if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x'))
        .unwrap_or(rest.len());
    let code = &t[..len + 1];
    let name = after_separator(&t[code.len()..], &[':'])?;
    (!name.is_empty()).then(|| (code.trim_end_matches('.').to_string(), name.to_string()))
}

/// A heading numbered or coded as a work item that names work (`### DB-T1
/// — Update the model`, `## 3. Replace the parser`).
pub(super) fn names_step(heading: &str) -> bool {
    let (clean, _) = strip_done_marks(heading);
    numbered_heading(&clean).is_some_and(|(_, name)| names_work(&name))
}

fn names_work(name: &str) -> bool {
    !super::about_plan::describes_plan(name)
        && criteria_label(name).is_none()
        && !is_template_heading(name)
}

/// The numbered headings of `scope` at the level that holds the most of
/// them, each with work of its own (list items, code, or a paragraph).
pub(super) fn numbered_sprints(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    let found = numbered_level(doc, scope.clone());
    if !found.is_empty() {
        return found;
    }
    let open = open_group(doc, scope.clone());
    if !open.is_empty() {
        return open;
    }
    marked_level(doc, scope)
}

/// Unnumbered headings the author marks done one by one (`### ~~Eject
/// button~~ (Done)` among `### Playlists`): the level where two or more
/// headings carry a mark holds the work items, each heading of it with
/// text of its own a sprint, in order.
fn marked_level(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    let mut by_level: BTreeMap<u8, (Vec<usize>, usize)> = BTreeMap::new();
    for i in scope {
        let Some((level, text, _)) = doc.heading(i) else {
            continue;
        };
        // Leaves with text of their own, and no section about the plan.
        if level < 2
            || doc.own_blocks(i).end < doc.section_end[i]
            || doc.own_blocks(i).next().is_none()
            || super::about_plan::describes_plan(text)
        {
            continue;
        }
        let e = by_level.entry(level).or_default();
        e.0.push(i);
        e.1 += usize::from(strip_done_marks(text).1);
    }
    let Some((_, (chosen, _))) = by_level
        .into_iter()
        .filter(|(_, (v, marked))| *marked >= 2 && v.len() >= 3)
        .max_by_key(|(_, (_, marked))| *marked)
    else {
        return Vec::new();
    };
    chosen
        .into_iter()
        .enumerate()
        .filter_map(|(k, i)| {
            let (_, text, span) = doc.heading(i)?;
            let (name, marked) = strip_done_marks(text);
            let id = SprintId::whole(k as u32 + 1);
            let name = clean_name(&name.replace("~~", ""));
            let mut sprint = read_sprint(doc, i, id.clone(), name);
            sprint.done = done_evidence(doc, i, marked);
            sprint.origin = Origin::new(
                doc.line(span.start),
                "heading of a level whose headings are marked done one by one",
            );
            Some(RawSprint {
                id,
                span: span.clone(),
                sprint,
            })
        })
        .collect()
}

/// Group headings that hold work not yet done (`## Not Started`, `##
/// Backlog`): each sub-heading with text of its own is a step.
const OPEN_GROUPS: &[&str] = &[
    "not started",
    "backlog",
    "todo",
    "to do",
    "planned",
    "upcoming",
    "next",
    "next up",
    "remaining",
    "remaining work",
    "open",
    "open work",
];

/// The sub-headings of the first open-work group heading (two or more,
/// each with text of its own), numbered in order.
fn open_group(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    let Some(group) = scope.clone().find(|&i| {
        doc.heading(i).is_some_and(|(_, t, _)| {
            let l = clean_name(t).to_lowercase();
            OPEN_GROUPS.contains(&l.trim_matches(|c: char| !c.is_alphanumeric()))
        })
    }) else {
        return Vec::new();
    };
    let steps: Vec<usize> = doc
        .section(group)
        .filter(|&j| doc.parent[j] == Some(group) && doc.own_blocks(j).next().is_some())
        .collect();
    if steps.len() < 2 {
        return Vec::new();
    }
    steps
        .into_iter()
        .enumerate()
        .filter_map(|(k, i)| {
            let (_, text, span) = doc.heading(i)?;
            let id = SprintId::whole(k as u32 + 1);
            let mut sprint = read_sprint(doc, i, id.clone(), clean_name(text));
            sprint.origin = Origin::new(doc.line(span.start), "heading under an open-work group");
            Some(RawSprint {
                id,
                span: span.clone(),
                sprint,
            })
        })
        .collect()
}

/// A numbered heading: its block, id, name, and whether it is marked done.
type Numbered = (usize, String, String, bool);

fn numbered_level(doc: &Doc, scope: std::ops::Range<usize>) -> Vec<RawSprint> {
    // Keyed by level, and by the word of a `Track 1 — …` series (the same
    // word before every number of it); plain numbers have no word.
    let mut by_level: BTreeMap<(u8, String), Vec<Numbered>> = BTreeMap::new();
    // Two or more `#` headings are the plan's sections, not its title
    // (`# Version 2.1 – …`, `# Version 2.2 – …`).
    let titles = scope
        .clone()
        .filter(|&i| matches!(doc.heading(i), Some((1, _, _))))
        .count();
    let top = if titles >= 2 { 1 } else { 2 };
    let read_items = std::cell::OnceCell::new();
    let waves_read_items = || *read_items.get_or_init(|| super::waves::wave_units(doc).is_some());
    for i in scope {
        let Some((level, text, _)) = doc.heading(i) else {
            continue;
        };
        if level < top {
            continue;
        }
        let (clean, done) = strip_done_marks(text);
        let (series, (id, name)) = match numbered_heading(&clean) {
            // `Version 2.1 – …` written out: releases, read only where
            // no other numbered level is there to read.
            Some(numbered) if written_version(&clean) => (RELEASES.to_string(), numbered),
            Some(numbered) => (String::new(), numbered),
            None => match word_series(&clean) {
                // Waves whose items the wave reader reads are its.
                Some((word, ..)) if word == "wave" && waves_read_items() => continue,
                Some((word, id, name)) => (word, (id, name)),
                None => continue,
            },
        };
        let own_work = doc.section(i).any(|j| {
            matches!(
                doc.blocks[j],
                Block::Item { .. }
                    | Block::Code { .. }
                    | Block::Paragraph { .. }
                    | Block::Table { .. }
            )
        });
        // A card of a zero-padded catalogue (`### 019: Response Quality
        // Metrics`, `### 024: Context Window Management`) is work whatever
        // its name's words: no section about a plan is so numbered.
        // (A short name, `01. Overview`, is still the document's section.)
        let card = id.len() >= 2
            && id.starts_with('0')
            && id.chars().all(|c| c.is_ascii_digit())
            && name.split_whitespace().count() >= 3;
        if own_work && (card || names_work(&name)) {
            by_level
                .entry((level, series))
                .or_default()
                .push((i, id, name, done));
        }
    }
    // The level with the most numbered headings; the finer one on a tie,
    // and plain numbers over a word's series.
    let Some((_, chosen)) = by_level
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .max_by_key(|((level, series), v)| {
            (series != RELEASES, v.len(), *level, series.is_empty())
        })
    else {
        return Vec::new();
    };
    // Ids as written when each parses and they rise in order; otherwise
    // numbered in order (coded ids such as `T1` are kept in the name).
    let written: Vec<Option<SprintId>> = chosen.iter().map(|(_, w, _, _)| w.parse().ok()).collect();
    let as_written = written.iter().all(Option::is_some) && written.windows(2).all(|w| w[0] < w[1]);
    let mut out: Vec<RawSprint> = Vec::new();
    for (k, ((i, code, name, marked), id)) in chosen.into_iter().zip(written).enumerate() {
        let id = id
            .filter(|_| as_written)
            .unwrap_or(SprintId::whole(k as u32 + 1));
        let Some((_, _, span)) = doc.heading(i) else {
            continue;
        };
        let span = span.clone();
        // A heading's name has no inline code (`` `typescript` dependency``).
        // (nor strikethrough: `~~B1 — Fix the IPs~~ ✅ FIXED`).
        let name = name.replace('`', "").replace("~~", "");
        let name = without_status(name.trim());
        let name = if code.starts_with(|c: char| c.is_ascii_uppercase()) {
            format!("{code}: {name}")
        } else {
            name.to_string()
        };
        // A version alone (`## 0.4.0`) over its subtitle (`### mobs`): the
        // subtitle names the release.
        let name = match doc.blocks.get(i + 1) {
            Some(Block::Heading { text, .. })
                if name == code && doc.section(i).contains(&(i + 1)) =>
            {
                clean_name(text)
            }
            _ => name,
        };
        let mut sprint = read_sprint(doc, i, id.clone(), name);
        sprint.done = done_evidence(doc, i, marked);
        sprint.origin = Origin::new(doc.line(span.start), "numbered heading (no sprint word)");
        out.push(RawSprint { id, span, sprint });
    }
    out
}

/// A name without a trailing status word and its date (`Fix the IPs
/// FIXED 2026-02-28`, the mark itself already read).
fn without_status(name: &str) -> &str {
    let words = [
        "FIXED",
        "DONE",
        "RESOLVED",
        "COMPLETE",
        "COMPLETED",
        "SHIPPED",
        "MERGED",
    ];
    let cut = words
        .iter()
        .filter_map(|w| name.rfind(&format!(" {w}")))
        .max()
        .filter(|&at| {
            let rest = name[at..]
                .trim_start()
                .split_once(' ')
                .map_or("", |(_, r)| r);
            rest.chars()
                .all(|c| c.is_ascii_digit() || c == '-' || c.is_whitespace())
        });
    cut.map_or(name, |at| name[..at].trim_end())
}

/// The guess the reading made, said so that `start` asks.
pub(super) fn guess(doc: &Doc, units: &[RawUnit]) -> Option<Warning> {
    let first = units.iter().flat_map(|u| &u.sprints).next()?;
    Some(Warning {
        code: "reading::numbered_headings".into(),
        message: format!(
            "no heading names a sprint, phase or task: {} headings (numbered, under an open-work group, or marked done one by one) are read as the sprints (first: `{}`)",
            units.iter().map(|u| u.sprints.len()).sum::<usize>(),
            first.sprint.name
        ),
        help: "check the sprints with `git supervisor plan`, or have your agent rewrite the plan with `git supervisor import`".into(),
        line: doc.line(first.span.start),
    })
}

/// `Track 1 — Invitations`, `트랙 2 — 동의`, `Lane 3: Docs`: a word of any
/// script, a number, a separator and a name → (the word in lower case, the
/// number, the name). Words for alternatives and illustrations (`Option
/// 2`, `Figure 1`) name no work, and layers group work the layer reader
/// reads. Waves the wave readers did not read (`## Wave 1: Data model`,
/// one after another) are steps like any numbered section.
fn word_series(text: &str) -> Option<(String, String, String)> {
    const NOT_WORK: &[&str] = &[
        "option",
        "alternative",
        "variant",
        "approach",
        "example",
        "figure",
        "table",
        "appendix",
        "scenario",
        "case",
        "version",
        "chapter",
        "question",
        "risk",
        "layer",
        "tier",
    ];
    let (word, id) = match word_numbered(text) {
        Some((word, n)) => (word, n.to_string()),
        None => word_lettered(text)?,
    };
    if NOT_WORK.contains(&word.as_str()) {
        return None;
    }
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let after = t.split_once(' ')?.1;
    let name = after.trim_start_matches(|c: char| c.is_ascii_digit());
    let name = match id.ends_with(|c: char| c.is_ascii_lowercase()) {
        true => &name[1..],
        false => name,
    };
    let name = name.trim_start_matches([':', '.', ')', '—', '–', '-', ' ']);
    (!name.is_empty()).then(|| (word, id, name.trim().to_string()))
}

/// `Wave 3a: Web checkout`, `Wave 3b`: a lettered part of a member of a
/// worded series → (the word in lower case, `3a`). Without it the parts
/// between `Wave 2` and `Wave 4` were dropped with their work.
fn word_lettered(text: &str) -> Option<(String, String)> {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let (word, rest) = t.split_once(' ')?;
    let id = &rest[..rest.find(SET_APART).unwrap_or(rest.len())];
    (series_word_fits(word) && super::levels::lettered_number(id))
        .then(|| (word.to_lowercase(), id.to_string()))
}

/// What sets a series member's id apart from its name.
const SET_APART: [char; 6] = [':', '.', ' ', ')', '—', '–'];

/// A series' word: letters of any script, twelve at most.
fn series_word_fits(word: &str) -> bool {
    !word.is_empty() && word.chars().count() <= 12 && word.chars().all(char::is_alphabetic)
}

/// `Chat 1: Database`, `ЧАТ 2 — Ядро`, `Lot 3`: a word of any script and a
/// number, then the name → (the word in lower case, the number).
pub(super) fn word_numbered(text: &str) -> Option<(String, u32)> {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let (word, rest) = t.split_once(' ')?;
    if !series_word_fits(word) {
        return None;
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with(SET_APART)) {
        return None;
    }
    Some((word.to_lowercase(), digits.parse().ok()?))
}

/// The numbered headings `groups` (headings holding checklists) sit in,
/// when the groups are unnumbered parts of one series: each group's nearest
/// numbered heading above (through frames of no number, `### Checklist`)
/// is numbered the same way (`Chat 1`, `Chat 2`, or `1.`, `2.`, or `D00`,
/// `D01`), and at least two such headings hold groups. Every heading of
/// that series at that level is a sprint, in order, named as written.
/// Groups under a heading of another series (`## 2. Common gate` above
/// `## D00 …` to `## D24 …`) are left to the accounting, where the series
/// holds three quarters of the groups and they are no part of it.
pub(super) fn numbered_parents(
    doc: &Doc,
    groups: &[(usize, String)],
) -> Option<Vec<(usize, String)>> {
    let key = |i: usize| -> Option<String> {
        let (level, text, _) = doc.heading(i)?;
        if level < 2 {
            return None;
        }
        match word_numbered(text) {
            Some((word, _)) => Some(word),
            None => numbered_heading(text)
                .filter(|(id, _)| !id.contains('.'))
                // A code's letters name its series (`D00`, `D01`); a bare
                // number is the plain series.
                .map(|(id, _)| {
                    let letters: String = id.chars().take_while(|c| !c.is_ascii_digit()).collect();
                    if letters.is_empty() {
                        "#".to_string()
                    } else {
                        letters
                    }
                }),
        }
    };
    // The nearest keyed heading above a group, through unnumbered frames.
    let keyed_above = |g: usize| -> Option<(usize, String)> {
        let mut up = doc.parent[g];
        while let Some(p) = up {
            if let Some(k) = key(p) {
                return Some((p, k));
            }
            // Only a frame of no number whose sub-sections are all groups
            // (`### Checklist` holding `#### Tooling`, `#### Tests`) is passed
            // through; a numbered one (`### v4.20.2 …`) is a part of its own.
            let (level, text, _) = doc.heading(p)?;
            let only_groups = (p + 1..doc.section_end[p])
                .filter(|&j| doc.parent[j] == Some(p) && doc.heading(j).is_some())
                .all(|j| groups.iter().any(|(g, _)| *g == j));
            if level < 2
                || !only_groups
                || numbered_heading(text).is_some()
                || word_numbered(text).is_some()
            {
                return None;
            }
            up = doc.parent[p];
        }
        None
    };
    // Groups that are numbered: members of the series holding their
    // checklist themselves (`## Faz 12` with no parts), checked below.
    let mut members: Vec<usize> = Vec::new();
    let mut homes: Vec<(usize, String)> = Vec::new();
    for (g, _) in groups {
        let (_, text, _) = doc.heading(*g)?;
        if numbered_heading(text).is_some() || word_numbered(text).is_some() {
            members.push(*g);
            continue;
        }
        homes.push(keyed_above(*g)?);
    }
    // The series most groups sit in; the others only where it holds three
    // quarters of them.
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (_, k) in &homes {
        match counts.iter_mut().find(|(c, _)| c == k) {
            Some(c) => c.1 += 1,
            None => counts.push((k.clone(), 1)),
        }
    }
    let (series, most) = counts.iter().max_by_key(|(_, n)| *n)?.clone();
    if most < homes.len() && most * 4 < homes.len() * 3 {
        return None;
    }
    // Others are left out only before the series (a preamble's gate);
    // after it (`## 3. Launch` after `## D02 …`) they are more work, each
    // a step in its place.
    let first_home = homes
        .iter()
        .filter(|(_, k)| *k == series)
        .map(|(p, _)| *p)
        .min()?;
    let mut after: Vec<usize> = homes
        .iter()
        .filter(|(p, k)| *k != series && *p > first_home)
        .map(|(p, _)| *p)
        .collect();
    after.dedup();
    let series = Some(series);
    let mut parents: Vec<usize> = Vec::new();
    for (p, k) in &homes {
        if Some(k) == series.as_ref() && !parents.contains(p) {
            parents.push(*p);
        }
    }
    if parents.len() < 2 {
        return None;
    }
    let level = doc.heading(parents[0])?.0;
    let above = doc.parent[parents[0]];
    let all: Vec<(usize, String)> = (0..doc.blocks.len())
        .filter(|&i| doc.parent[i] == above && doc.heading(i).is_some_and(|h| h.0 == level))
        .filter(|&i| key(i) == series)
        .filter_map(|i| {
            // `🏗️ Faz 1: …`: an icon before the number is no part of the name.
            let text = doc.heading(i)?.1;
            Some((
                i,
                clean_name(text.trim_start_matches(|c: char| !c.is_alphanumeric())),
            ))
        })
        .collect();
    // The series' own headings must be the groups' homes; a numbered group
    // elsewhere (`### Faz 12` under `## Later phases`) stays a sprint of
    // its own, in its place.
    let series_at: Vec<usize> = all.iter().map(|(i, _)| *i).collect();
    if !parents.iter().all(|p| series_at.contains(p)) {
        return None;
    }
    let mut all = all;
    for (g, name) in groups {
        // A numbered group of another series (`## 2.1 Wireframe gate`
        // among `## D00 …`) is no step of this one.
        if members.contains(g) && !series_at.contains(g) && key(*g) == series {
            all.push((*g, name.clone()));
        }
    }
    for p in after {
        if !all.iter().any(|(i, _)| *i == p) {
            let text = doc.heading(p)?.1;
            all.push((
                p,
                clean_name(text.trim_start_matches(|c: char| !c.is_alphanumeric())),
            ));
        }
    }
    all.sort_by_key(|(i, _)| *i);
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::numbered_heading;

    #[test]
    fn numbered_headings_give_id_and_name() {
        for (heading, id, name) in [
            ("1.1 Split the store", "1.1", "Split the store"),
            ("3. Replace the parser", "3", "Replace the parser"),
            ("T1: Add the source", "T1", "Add the source"),
            ("TASK-03 — Wire it", "TASK-03", "Wire it"),
            ("DB-T1 — Update the model", "DB-T1", "Update the model"),
        ] {
            assert_eq!(
                numbered_heading(heading),
                Some((id.to_string(), name.to_string())),
                "{heading}"
            );
        }
        for not_a_step in ["Overview", "API: notes", "2024 roadmap"] {
            assert_eq!(numbered_heading(not_a_step), None, "{not_a_step}");
        }
    }
}
