//! Completion marks: work the plan says is already done.
//!
//! Shapes recognised: on a sprint heading `✅`, `✔`, `☑`, `[x]`,
//! `(COMPLETE)`, `(Completed)`, `[DONE]`, a trailing `— COMPLETE` or an
//! upper-case `DONE` / `COMPLETE` word; in the sprint's own text a status
//! line (`Status: ✅ Complete`, `**Status**: DONE`); a status table whose
//! every row is done (`| Item | Status |` rows all `✅`); a sprint whose
//! innermost subsections are all marked done (`#### 1.1 Models ✅
//! Completed`, at least two); and a sprint whose task-list items are all
//! ticked (`- [x]`, at least one); a sprint whose tasks' own status lines
//! all say done (`- **Status**: ✅ Done`, at least two).

pub(crate) use super::status_words::{
    done_item, is_status_key, open_status_lines, opens_with_done_word, status_says_done,
    status_says_open, status_says_open_after_marks,
};
use super::status_words::{labelled_lines, DONE_PHRASES, DONE_WORDS};
pub(super) use super::status_words::{
    left_out, split_label, status_column, status_values, OPEN_WORDS,
};
use super::*;

pub(super) const MARK_EMOJI: &[char] = &['✅', '✔', '☑', '✓'];

/// Remove completion marks from a heading: (clean text, was it marked).
/// Whether a shouted word after `before` is part of a name written in
/// capitals (`FASE 4: TESTING COMPLETO`, full testing): the word before it
/// is in capitals too, with no dash, colon or bar between them to set the
/// word apart as a status (`SETUP — COMPLETE`).
fn in_a_name_in_capitals(before: &str) -> bool {
    let before = before.trim_end();
    let Some(prev) = before.split_whitespace().last() else {
        return false;
    };
    let letters = prev.chars().filter(|c| c.is_alphabetic()).count();
    // The whole name is in capitals (`Sirius CRM COMPLETO` names a CRM and
    // marks it).
    let all_capitals = before
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(char::is_uppercase);
    letters >= 2
        && all_capitals
        && prev.chars().all(|c| c.is_alphabetic() && c.is_uppercase())
        && !DONE_WORDS.contains(&prev.to_lowercase().as_str())
}

/// Whether a done mark after a step's name goes on to say what is still
/// open (`API ✅ backend done, docs pending`, `✅ 后端完成，前端待开发`):
/// the mark is for a part, and the step is not done. Any other words
/// after the mark (`✅ 実装完了`, `✅ Fully implemented`, `✅ v1.0
/// shipped`) say how it was done, and the step is.
fn qualified_mark(text: &str) -> bool {
    let Some(at) = text.find(MARK_EMOJI) else {
        return false;
    };
    if !text[..at].chars().any(char::is_alphanumeric) {
        return false;
    }
    let after = text[at..].to_lowercase();
    OPEN_WORDS.iter().any(|w| {
        after.match_indices(w).any(|(i, _)| {
            // A whole word where words are set apart (`pending`, not
            // `unpending`); anywhere in scripts without spaces.
            let before = after[..i].chars().next_back();
            let next = after[i + w.len()..].chars().next();
            !w.is_ascii()
                || (before.is_none_or(|c| !c.is_alphanumeric())
                    && next.is_none_or(|c| !c.is_alphanumeric()))
        })
    })
}

pub(crate) fn strip_done_marks(text: &str) -> (String, bool) {
    let mut t = text.to_string();
    let mut done = false;
    // Every mark is outside ASCII: most headings are ASCII, and one pass
    // over their bytes says so.
    if !t.is_ascii() && t.contains(MARK_EMOJI) {
        done = !qualified_mark(&t);
        t = t.replace(MARK_EMOJI, "");
        t = t.replace('\u{fe0f}', "");
    }
    // Every bracketed mark opens with `[` or `(`: most text has neither.
    if t.bytes().any(|b| b == b'[' || b == b'(') {
        // ASCII lower-casing keeps byte offsets: found in `lower`, cut from both.
        let mut lower = t.to_ascii_lowercase();
        for mark in [
            "[x]",
            "[X]",
            "(complete)",
            "(completed)",
            "(done)",
            "[complete]",
            "[completed]",
            "[done]",
            "(finished)",
        ] {
            if let Some(pos) = lower.find(mark) {
                if t.is_char_boundary(pos) && t.is_char_boundary(pos + mark.len()) {
                    t.replace_range(pos..pos + mark.len(), "");
                    lower.replace_range(pos..pos + mark.len(), "");
                    done = true;
                }
            }
        }
    }
    // A closing aside that is a done word of the plan's language alone:
    // `Phase 0 — 환경 정리 (완료)`, `Этап 1 (ВЫПОЛНЕН)`, `（完了）`.
    if let Some(head) = done_aside(&t) {
        t = head;
        done = true;
    }
    // A date after a shouted done word (`— ABGESCHLOSSEN (2026-06-05)`,
    // `— COMPLETE (Dec 8)`): the date goes with the mark.
    if let Some(open) = t.trim_end().strip_suffix(')').and_then(|h| h.rfind('(')) {
        let aside = &t[open + 1..t.trim_end().len() - 1];
        let before = t[..open].trim_end();
        let word = before.split_whitespace().last().unwrap_or_default();
        let shouted = word.chars().any(char::is_alphabetic)
            && !word.chars().any(char::is_lowercase)
            && DONE_WORDS.contains(&word.to_lowercase().as_str())
            && (done || !in_a_name_in_capitals(&before[..before.len() - word.len()]));
        if shouted && aside.len() <= 24 && aside.chars().any(|c| c.is_ascii_digit()) {
            t = before.to_string();
        }
    }
    // A trailing upper-case word: `Sprint 2: Parser DONE`, `— COMPLETE`.
    loop {
        let trimmed = t.trim_end_matches(|c: char| c.is_whitespace() || c == '*' || c == '_');
        let Some(last) = trimmed.split_whitespace().last() else {
            break;
        };
        let word = last.trim_matches(|c: char| !c.is_alphanumeric());
        // `— PARTIALLY COMPLETE`: the qualifier goes with the word (the
        // heading reads it as not done).
        let qualifier = done && matches!(word, "PARTIALLY" | "PARTLY");
        // In capitals, the plan's language's word too (`Settimana 1 ✅
        // COMPLETATA`, `Fase 2 — CONCLUÍDA`).
        let shouted = || {
            word.chars().any(char::is_alphabetic)
                && !word.chars().any(char::is_lowercase)
                && DONE_WORDS.contains(&word.to_lowercase().as_str())
        };
        // `DEFINITION OF DONE`, `CRITERIA FOR DONE`: the word is the
        // name's object, not a mark.
        let object = || {
            let before = trimmed[..trimmed.len() - last.len()].trim_end();
            let prev = before.split_whitespace().last().unwrap_or_default();
            matches!(
                prev.to_ascii_lowercase().as_str(),
                "of" | "for" | "de" | "du" | "des" | "von"
            )
        };
        if (qualifier
            || matches!(word, "DONE" | "COMPLETE" | "COMPLETED" | "FINISHED")
            || shouted())
            && trimmed.split_whitespace().count() > 2
            && !object()
            && (done || !in_a_name_in_capitals(&trimmed[..trimmed.len() - last.len()]))
        {
            let cut = trimmed.len() - last.len();
            t = trimmed[..cut]
                .trim_end_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '—' | '–' | '-' | ':' | '|')
                })
                .to_string();
            done = true;
        } else {
            break;
        }
    }
    // A status set off by a dash or bar, any case: `v0.1 — Registry —
    // Implemented`, `Parser | shipped`.
    let trimmed = t.trim_end();
    let last = trimmed.rsplit(' ').next().unwrap_or_default();
    let word = last.trim_matches(['*', '_', '(', ')', '.']);
    let status_word = [
        "implemented",
        "shipped",
        "released",
        "done",
        "complete",
        "completed",
        "finished",
        "merged",
    ]
    .iter()
    .any(|w| w.eq_ignore_ascii_case(word))
        || (!word.is_empty()
            && trimmed[..trimmed.len() - last.len()]
                .trim_end()
                .ends_with(['—', '–', '-', '|'])
            && (DONE_WORDS.contains(&word.to_lowercase().as_str())
                // `验证闭环 - ✅ 已完成`
                || !word.is_ascii() && DONE_PHRASES.contains(&word)));
    if status_word {
        let before = trimmed[..trimmed.len() - last.len()].trim_end();
        let head = ['—', '–', '-', '|']
            .iter()
            .find_map(|sep| before.strip_suffix(*sep))
            .filter(|h| h.ends_with(' ') && !h.trim().is_empty())
            .map(|h| h.trim_end().to_string());
        if let Some(head) = head {
            t = head;
            done = true;
        }
    }
    // `Verification Loop - ✅`: the dash set the mark apart and goes with it.
    // `C--` keeps its dashes: only one set apart by a space goes.
    let t = t.trim_end();
    let t = match t.strip_suffix(['—', '–', '-', '|']) {
        Some(head) if done && head.ends_with(char::is_whitespace) => head,
        _ => t,
    };
    (t.trim().to_string(), done)
}

/// The text before a closing `(…)` or `（…）` that holds nothing but a
/// done word (`완료`, `выполнен`, `terminé`); an aside that says more
/// (`(完成度 50%)`, `(done by QA)`) is not a mark.
fn done_aside(text: &str) -> Option<String> {
    let t = text.trim_end_matches(|c: char| c.is_whitespace() || c == '*' || c == '_');
    let (close, open) = if t.ends_with(')') {
        (')', '(')
    } else if t.ends_with('）') {
        ('）', '（')
    } else {
        return None;
    };
    let at = t.rfind(open)?;
    // A mark is a word or two and a day: a longer aside is something else.
    if t.len() - at > 64 {
        return None;
    }
    let inner = t[at + open.len_utf8()..t.len() - close.len_utf8()]
        .trim()
        .trim_matches(['*', '_', '!', '.'])
        .to_lowercase();
    let head = t[..at].trim_end();
    // `（第 1-5 天，已完成）`, `(Week 1-2, done)`: the last part of a
    // listing aside.
    let inner = inner
        .rsplit([',', '，', ';', '；', '、'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    // `(完了: 2026-02-14)`, `(done 2025-10-02)`: the word and the day.
    let inner = match inner.split_once(|c: char| c == ':' || c == '：' || c.is_whitespace()) {
        Some((word, day))
            if !day.trim().is_empty()
                && day
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_digit() || "-/.".contains(c)) =>
        {
            word.trim().to_string()
        }
        _ => inner,
    };
    let said = DONE_WORDS.contains(&inner.as_str())
        || DONE_PHRASES.contains(&inner.as_str())
        || super::status_words::settled_aside(&inner);
    (said && !head.is_empty()).then(|| head.to_string())
}

/// Open lines the tally does not count, in sprints marked done: `Status:
/// Not started` lines (open work of their own, as an open box is) and open
/// items read as step headings. (unit, sprint) → how many.
/// (unit, sprint) → (open lines, open rows of its status tables): rows the
/// tally may count already, so the caller adds them only where it counted
/// none.
pub(super) fn open_in_done(doc: &Doc, units: &[RawUnit]) -> Vec<((usize, usize), usize, usize)> {
    let heading_at = doc.headings_by_start();
    let mut out = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        for (k, s) in unit.sprints.iter().enumerate() {
            if s.sprint.done.is_none() {
                continue;
            }
            let (steps, rows) = heading_at.get(&s.span.start).map_or((0, 0), |&i| {
                (
                    open_step_headings(doc, i) + open_marked_items(doc, i),
                    super::status_tables::open_status_rows(doc, i),
                )
            });
            let n = open_status_lines(&s.sprint.body) + steps;
            if n + rows > 0 {
                out.push(((u, k), n, rows));
            }
        }
    }
    out
}

/// Items marked one by one in the section of heading `i` (`- FE — Phase
/// 1 ✅`) beside an item that says it is still open (`- BE — Phase 1 (en
/// cours)`, `- 1.3 Security (prochaine étape)`, `- Deploy 🔄`): open lines
/// of that sprint, though no box says so.
fn open_marked_items(doc: &Doc, i: usize) -> usize {
    // Next in line: not begun.
    const NEXT: &[&str] = &[
        "next step",
        "next up",
        "up next",
        "prochaine étape",
        "próximo paso",
        "próximo passo",
        "nächster schritt",
    ];
    let items = || {
        doc.section(i).filter_map(|j| match &doc.blocks[j] {
            Block::Item {
                text,
                checked: None,
                ..
            } => Some(text.as_str()),
            _ => None,
        })
    };
    if !items().any(|t| t.contains(MARK_EMOJI)) {
        return 0;
    }
    let says_open = |t: &str| {
        let first = t.lines().next().unwrap_or_default().trim_end();
        // `⏳ Review history (deferred — needs storage)`: put off, not open.
        if first.contains(MARK_EMOJI) || super::status_words::put_off(&first.to_lowercase()) {
            return false;
        }
        if first.contains(['⏳', '🔄', '🚧']) {
            return true;
        }
        let Some(aside) = first
            .strip_suffix(')')
            .and_then(|h| h.rfind('(').map(|at| &h[at + 1..]))
        else {
            return false;
        };
        let lower = aside.to_lowercase();
        status_says_open_after_marks(aside) || NEXT.iter().any(|w| lower.starts_with(w))
    };
    items().filter(|t| says_open(t)).count()
}

/// Steps written as open items and read as headings (`- [ ] **1.5.1** Unit
/// tests`) in the section of heading `i`: open lines of that sprint, though
/// the tally does not count them as task lines.
fn open_step_headings(doc: &Doc, i: usize) -> usize {
    doc.section(i)
        .filter(
            |&j| matches!(&doc.blocks[j], Block::Heading { text, .. } if text.starts_with("[ ]")),
        )
        .count()
}

/// Whether heading `i` opens with ✅ as its siblings open with pictographs
/// that mark no state (`## 📍 FASE 0`, `## 🔧 FASE 1`, `## ✅ FASE 3`, `##
/// 🚦 GATES`): a decoration of the section, not a done mark. Beside a
/// sibling marked with another state (`## 🚧 Fase 2`) it is a state.
fn decorated(doc: &Doc, i: usize) -> bool {
    const STATES: &[char] = &[
        '✅', '✔', '☑', '🚧', '⏳', '🔄', '📋', '⬜', '🔲', '❌', '🟢', '🟡', '🔴', '🟠', '⏸', '⌛',
    ];
    let lead = |j: usize| {
        doc.heading(j)
            .and_then(|(_, t, _)| t.trim_start().chars().next())
    };
    let pictograph = |c: char| matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF);
    if lead(i) != Some('✅') {
        return false;
    }
    let Some((level, _, _)) = doc.heading(i) else {
        return false;
    };
    // The nearest three siblings each way: a plan of many sprints asks
    // this of each, and its neighbours say its style.
    let sibling = |j: &usize| {
        doc.parent[*j] == doc.parent[i] && doc.heading(*j).is_some_and(|(l, _, _)| l == level)
    };
    // Siblings lie inside the parent's section: the walk never leaves it.
    let (lo, hi) = doc.parent[i].map_or((0, doc.blocks.len()), |p| (p + 1, doc.section_end[p]));
    let before = (lo..i).rev().filter(sibling).take(3);
    let after = (i + 1..hi).filter(sibling).take(3);
    let mut leads: Vec<char> = before.chain(after).filter_map(lead).collect();
    // Siblings all marked ✅ (`### ✅ 1.1` to `### ✅ 1.4` under `## FASE
    // 1`) say nothing of the style; the headings of that level under the
    // other parents do (`### 🌐 2.1`, `### 🔐 2.2`), where a step so
    // marked holds open boxes of its own: the plan itself then says its ✅
    // is no mark (a plan recording progress on its headings ticks its
    // boxes too).
    let contradicted = || {
        (lo..hi)
            .filter(|j| *j == i || sibling(j))
            .filter(|&j| lead(j) == Some('✅'))
            .any(|j| {
                doc.section(j).any(|k| {
                    matches!(
                        doc.blocks[k],
                        Block::Item {
                            checked: Some(false),
                            ..
                        }
                    )
                })
            })
    };
    if leads.iter().all(|&c| c == '✅') && contradicted() {
        let cousin = |j: &usize| {
            doc.parent[*j] != doc.parent[i] && doc.heading(*j).is_some_and(|(l, _, _)| l == level)
        };
        let before = (0..lo).rev().filter(cousin).take(3);
        let after = (hi..doc.blocks.len()).filter(cousin).take(3);
        leads.extend(before.chain(after).filter_map(lead));
    }
    // A sibling opening with another state (`## 🚧 Fase 2`) says the
    // plan's marks are states, whatever else is decorated.
    let states = leads.iter().any(|&c| c != '✅' && STATES.contains(&c));
    let decorations = leads
        .iter()
        .filter(|&&c| pictograph(c) && !STATES.contains(&c))
        .count();
    decorations >= 2 && !states
}

/// Whether heading `i` says done in words, its leading ✅ aside, and
/// neither asks (`— DONE?`) nor counts less than all (`(Completed 2/5)`).
fn words_say_done(doc: &Doc, i: usize) -> bool {
    doc.heading(i).is_some_and(|(_, t, _)| {
        let words = t.trim_start().trim_start_matches(['✅', '\u{fe0f}']);
        let short_count = words.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_digit());
            w.split_once('/')
                .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
                .is_some_and(|(a, b)| a < b)
        });
        !words.contains('?') && !short_count && strip_done_marks(words).1
    })
}

/// Whether heading `i`'s own text (before any sub-heading) has a status
/// line that says done (`Status M1: zrealizowane`).
pub(super) fn own_status_done(doc: &Doc, i: usize) -> bool {
    status_values(doc, doc.own_blocks(i)).any(status_says_done)
}

/// A section with no list, table or code of its own whose prose says it
/// needs nothing (`No setup tasks required.`, `N/A for this feature`):
/// there is no work to send an agent.
fn nothing_to_do(doc: &Doc, i: usize) -> bool {
    let mut says = false;
    for j in doc.section(i) {
        match &doc.blocks[j] {
            Block::Item { .. }
            | Block::Code { .. }
            | Block::Table { .. }
            | Block::Heading { .. } => return false,
            Block::Paragraph { text, .. } => {
                let l = text.to_lowercase();
                says |= [
                    "no setup tasks required",
                    "no tasks required",
                    "no tasks needed",
                    "no work required",
                    "nothing to do",
                    "n/a for this feature",
                ]
                .iter()
                .any(|p| l.contains(p));
            }
        }
    }
    says
}

/// A count line that says all is done (`**Plans:** 3/3 plans complete`,
/// `Progress: 4/4 done`): the line, when its two numbers are equal and it
/// says complete or done. `1/2 plans executed` is not.
fn count_says_done<'d>(doc: &'d Doc, blocks: impl Iterator<Item = usize> + 'd) -> Option<String> {
    labelled_lines(doc, blocks).find_map(|(key, value)| {
        if !matches!(norm(key).as_str(), "plans" | "progress" | "tasks") {
            return None;
        }
        let value = value.trim().trim_matches('*').trim();
        let (count, rest) = value.split_once(' ').unwrap_or((value, ""));
        let (done, all) = count.split_once('/')?;
        let (done, all): (u32, u32) = (done.parse().ok()?, all.parse().ok()?);
        let says = rest.to_lowercase();
        let complete = says.contains("complete") || says.contains("done");
        (all > 0 && done == all && complete).then(|| format!("{}: {value}", key.trim()))
    })
}

/// Why sprint heading `i`'s text says it is done, if it does.
pub(crate) fn done_evidence(doc: &Doc, i: usize, heading_done: bool) -> Option<String> {
    // A decorated ✅ is no mark, but the heading's words may still be one
    // (`## ✅ Phase 6 — GTD (Complete)` beside `## 🧠 Phase 9`).
    if heading_done && (!decorated(doc, i) || words_say_done(doc, i)) {
        return Some("marked complete in the plan (on its heading)".into());
    }
    let (own, heading_status) = super::status_heading::own_blocks_and_status(doc, i);
    if let Some(v) = heading_status
        .into_iter()
        .chain(status_values(doc, own.clone()))
        .find(|v| status_says_done(v) || left_out(v))
    {
        // A value wrapped over lines is shown by its first.
        let v = v
            .lines()
            .next()
            .unwrap_or(v)
            .trim_end_matches(['*', '`', '.', ' ']);
        return Some(format!("marked complete in the plan (Status: {v})"));
    }
    if nothing_to_do(doc, i) {
        return Some("nothing to do: the plan says so and lists no work".into());
    }
    if let Some(text) = own.clone().find_map(|j| match &doc.blocks[j] {
        Block::Item {
            checked: Some(true),
            text,
            ..
        } if done_item(text) => Some(text),
        _ => None,
    }) {
        let text = text
            .lines()
            .next()
            .unwrap_or_default()
            .replace(['*', '_'], "");
        return Some(format!(
            "marked complete in the plan (`[x] {}`)",
            text.trim()
        ));
    }
    if let Some(line) = count_says_done(doc, own.clone()) {
        return Some(format!("marked complete in the plan ({line})"));
    }
    // A status table whose every row is done (`| Item | Status |` with ✅).
    for j in own.clone() {
        let Block::Table { header, rows, .. } = &doc.blocks[j] else {
            continue;
        };
        // A board: each row's mark under its state's column.
        if let Some(states) = super::state_columns::state_columns(header) {
            let row_done = |r| super::state_columns::row_done(&states, r);
            if !rows.is_empty() && rows.iter().all(|r| row_done(r) == Some(true)) {
                return Some(format!(
                    "marked complete in the plan (all {} rows of its table marked under `{}`)",
                    rows.len(),
                    header[states.0[0]].text.trim()
                ));
            }
            if rows.iter().any(|r| row_done(r).is_some()) {
                continue;
            }
        }
        if super::status_tables::status_table_done(header, rows) {
            return Some(format!(
                "marked complete in the plan (all {} rows of its status table done)",
                rows.len()
            ));
        }
    }
    // Every innermost subsection marked done (`#### 1.1 Models ✅
    // Completed`, …, or its table's every row `✅ DONE`): the sprint is
    // done, whatever a stray box says. A subsection of criteria (`###
    // Phase 2 Sign-off Checklist`) checks the work and is no part of it.
    let mut leaves = 0;
    let mut all_marked = true;
    // One subsection alone marks the sprint only by its tables; and
    // tables mark it only where it has nothing of its own above them.
    let mut by_tables = true;
    let mut any_by_tables = false;
    for j in doc.section(i) {
        let Some((_, text, _)) = doc.heading(j) else {
            continue;
        };
        if doc.own_blocks(j).end < doc.section_end[j] {
            continue; // holds subsections: not a leaf
        }
        if matches!(criteria_label(text), Some(Label::Exit | Label::Entry)) {
            continue;
        }
        leaves += 1;
        // `### Status: In Progress` over rows all done: the heading says.
        let said = text.split_once(':').map_or(text, |(_, v)| v);
        let tables = !status_says_open(said) && super::status_tables::leaf_tables_done(doc, j);
        by_tables &= tables;
        any_by_tables |= tables && !strip_done_marks(text).1;
        all_marked &= strip_done_marks(text).1 && !decorated(doc, j) || tables;
        if !all_marked {
            break;
        }
    }
    // Marked by tables, the sprint's own text above them says nothing
    // (`Remaining: the Kafka collector`, `Not started`).
    let bare = doc.own_blocks(i).is_empty();
    let lone_by_tables = leaves == 1 && by_tables && bare;
    if all_marked && (leaves >= 2 && (bare || !any_by_tables) || lone_by_tables) {
        return Some(format!(
            "marked complete in the plan (all {leaves} subsections marked done)"
        ));
    }
    // Every task's own status line done (`- **Status**: ✅ Done` under each
    // task of the section, two or more): the sprint is done.
    let statuses: Vec<&str> = status_values(doc, doc.section(i)).collect();
    if statuses.len() >= 2 && statuses.iter().all(|v| status_says_done(v)) {
        let statuses = statuses.len();
        return Some(format!(
            "marked complete in the plan (all {statuses} task statuses done)"
        ));
    }
    if open_numbered_part(doc, i) {
        return None;
    }
    let mut boxes = 0;
    // One list of ticked and unboxed items (`1. Set up the repo` over `4.
    // [x] Verified the hierarchy`): the unboxed ones may be open work.
    let (mut plain, mut ticked) = (false, false);
    // Under a criteria heading (`### Acceptance Criteria`): checks, not
    // task lines. Authors tick the work and leave its checks unticked; the
    // work's own ticks are the mark, and some must be there.
    let mut checks = false;
    let mut open_checks = false;
    for j in doc.section(i) {
        if let Block::Heading { text, .. } = &doc.blocks[j] {
            checks = matches!(criteria_label(text), Some(Label::Exit | Label::Entry));
        }
        match &doc.blocks[j] {
            Block::Item {
                checked: Some(false),
                ..
            } if checks => open_checks = true,
            Block::Item {
                checked: Some(_), ..
            } if checks => {}
            Block::Item {
                checked: Some(c), ..
            } => {
                if !c {
                    return None;
                }
                boxes += 1;
                ticked = true;
            }
            // `- Verify: psql -c …` after the ticked work: the step's
            // check, not work left open.
            Block::Item {
                checked: None,
                depth: 0,
                text,
                ..
            } if super::criteria::label_line(text.trim_start_matches(['*', '_']))
                .is_some_and(|(l, _)| !matches!(l, Label::Tasks | Label::Rules))
                || super::criteria::note_line(text) => {}
            Block::Item {
                checked: None,
                depth: 0,
                ..
            } => plain = true,
            Block::Item { .. } => {}
            // A step written as a list item and read as a heading keeps its
            // box (`[ ] Task 30.4: Seed data`): an open one is open work of
            // the sprint, whether or not the steps are read as sprints.
            Block::Heading { text, .. } if text.starts_with("[ ]") => return None,
            Block::Heading { text, .. } if text.starts_with("[x]") || text.starts_with("[X]") => {
                boxes += 1;
                (plain, ticked) = (false, false);
            }
            _ => (plain, ticked) = (false, false),
        }
        if plain && ticked {
            return None;
        }
    }
    let unticked = if open_checks {
        "; its checks unticked"
    } else {
        ""
    };
    (boxes > 0).then(|| format!("marked complete in the plan (all {boxes} items ticked{unticked})"))
}

/// Whether the section's numbered parts are marked done one by one on
/// their headings (`### 1. Adapters — done`) and one listing work carries
/// no mark and no tick (`### 2. Unit tests → service`): the ticks the
/// section holds are the marked parts', and that part is work left to do.
fn open_numbered_part(doc: &Doc, i: usize) -> bool {
    let (mut marked, mut open) = (false, false);
    for j in doc.section(i) {
        let Block::Heading { text, .. } = &doc.blocks[j] else {
            continue;
        };
        let text = text.trim_start_matches(['*', '_', ' ']);
        if !text.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        // `### 3. Risks`, `### 3. Open questions`: about the phase, no work.
        let name = text.trim_start_matches(|c: char| c.is_ascii_digit() || ". )".contains(c));
        if super::about_plan::describes_plan(name) {
            continue;
        }
        if strip_done_marks(text).1 {
            marked = true;
        } else if criteria_label(text).is_none() && {
            let mut items = doc.own_blocks(j).filter_map(|k| match &doc.blocks[k] {
                Block::Item {
                    checked, depth: 0, ..
                } => Some(*checked),
                _ => None,
            });
            let first = items.next();
            first.is_some()
                && std::iter::once(first.flatten())
                    .chain(items)
                    .all(|c| c.is_none())
        } {
            open = true;
        }
        if marked && open {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_stripped() {
        assert_eq!(
            strip_done_marks("Sortie 0: Recon [COMPLETE]"),
            ("Sortie 0: Recon".into(), true)
        );
        assert_eq!(
            strip_done_marks("✅ **PHASE 0: Name** (COMPLETE)"),
            ("**PHASE 0: Name**".into(), true)
        );
        assert_eq!(
            strip_done_marks("Sprint 2: Parser — DONE"),
            ("Sprint 2: Parser".into(), true)
        );
        assert_eq!(
            strip_done_marks("Sprint 1: Complete the parser"),
            ("Sprint 1: Complete the parser".into(), false)
        );
        assert_eq!(
            strip_done_marks("Phase 1 Complete"),
            ("Phase 1 Complete".into(), false)
        );
    }
}
