//! Sprint headings: which headings start a unit of agent work.
//!
//! Shapes recognised (any heading level, any case, after emoji, bold and a
//! section number such as `6.` or `4.1`): `Sprint 2a: Name`, `SPRINT 2:
//! Name (Weeks 3-4)`, `Sprint 1 — Name`, `Sprint 1 - Name`, `Sprint 1.5
//! tickets`; the other words for a sprint: Sortie, Phase, Stage, Step,
//! Milestone (also `M1`), Week, Iteration, Patch (`PATCH-01`) and `Task N`;
//! ids `3`, `2a`, `1a.1`, `3a2.1`, `2-3`, `01`, and letters (`Phase A`,
//! `Phase A0`); `Phase 1: Name (Sprint 1)` is sprint 1. Completion marks on
//! the heading (`✅`, `(COMPLETE)`, `[DONE]`, `(Completed)`) are read by
//! [`completion`](super::completion).
//!
//! Headings *about* a sprint are not new sprints: `Sprint 1 Success`,
//! `Sprint 1 Summary`, `Sprint 1 Retrospective`, `Phase 1 Complete`,
//! `Sprint 1 Testing Requirements` attach to sprint 1 (success, done and
//! testing subsections are its exit criteria).
//!
//! One plan uses one word for its sprints: Sprint, else Sortie; else among
//! the other words the one nested inside another (Steps inside Phases), else
//! the outermost and most frequent. A plan that numbers none may hold its
//! sprints as the subsections of a `## Milestones` (Phases, Sprints, Stages)
//! heading: `### MVP — Compile`, `### V1 — Ranking` are milestones 1 and 2.

use super::completion::strip_done_marks;

/// The words a plan uses for a unit of agent work, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Word {
    Sprint,
    Sortie,
    Phase,
    Stage,
    Milestone,
    Week,
    Iteration,
    Step,
    Patch,
    Task,
    /// `Priority 1: Critical issues`: groups worked in order.
    Priority,
}

impl Word {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Word::Sprint => "Sprint",
            Word::Sortie => "Sortie",
            Word::Phase => "Phase",
            Word::Stage => "Stage",
            Word::Milestone => "Milestone",
            Word::Week => "Week",
            Word::Iteration => "Iteration",
            Word::Step => "Step",
            Word::Patch => "Patch",
            Word::Task => "Task",
            Word::Priority => "Priority",
        }
    }

    /// Numbered phases, weeks and milestones follow one another.
    pub(crate) fn is_sequential(self) -> bool {
        matches!(
            self,
            Word::Phase
                | Word::Stage
                | Word::Milestone
                | Word::Week
                | Word::Iteration
                | Word::Step
                | Word::Priority
        )
    }

    pub(super) fn parse(lower: &str) -> Option<(Word, usize)> {
        const WORDS: &[(&str, Word)] = &[
            ("sprint", Word::Sprint),
            ("sortie", Word::Sortie),
            ("phase", Word::Phase),
            ("stage", Word::Stage),
            ("milestone", Word::Milestone),
            ("week", Word::Week),
            ("iteration", Word::Iteration),
            ("step", Word::Step),
            ("patch", Word::Patch),
            ("task", Word::Task),
            // A tracker's work items: `### Issue 4: Parser tests`, `Story 2`,
            // `### PR 3: Target rename`.
            ("issue", Word::Task),
            ("story", Word::Task),
            ("ticket", Word::Task),
            ("priority", Word::Priority),
            // A roadmap's versions are its milestones: `## Version 0.2`,
            // `## Release 3`.
            ("version", Word::Milestone),
            ("release", Word::Milestone),
            ("pr", Word::Task),
        ];
        WORDS
            .iter()
            .find(|(w, _)| lower.starts_with(w))
            .map(|(w, word)| (*word, w.len()))
    }
}

/// What a heading about a sprint says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum About {
    /// Success, done, acceptance, testing: the sprint's exit criteria.
    Criteria,
    /// Summary, retrospective, notes: kept with the sprint, not criteria.
    Notes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SprintHeading {
    pub word: Word,
    /// The id as written (`1a.1`, `A`, `01`).
    pub id: String,
    pub name: String,
    /// A completion mark on the heading itself.
    pub done: bool,
    /// Named without a separator (`M3 remaining work`, not `M3: Web UI`).
    pub bare: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Heading {
    Sprint(SprintHeading),
    About {
        word: Word,
        id: String,
        about: About,
    },
}

const ABOUT_CRITERIA: &[&str] = &[
    "success",
    "complete",
    "completed",
    "done",
    "exit",
    "acceptance",
    "criteria",
    "checklist",
    "definition",
    "validation",
    "verification",
    "testing",
    "tests",
    "test",
    "gate",
    "deliverables",
];
const ABOUT_NOTES: &[&str] = &[
    "summary",
    "retrospective",
    "retro",
    "review",
    "results",
    "notes",
    "recap",
    "status",
    "report",
    "outcome",
    "outcomes",
    "metrics",
    "goals",
    "goal",
    "overview",
    "demo",
    "risks",
    "handoff",
];

/// Emoji, bullets, emphasis and a leading section number (`6.`, `4.1`,
/// `2)`) before the sprint word.
pub(super) fn strip_lead(text: &str) -> &str {
    let mut t = super::locale::after_decoration(text);
    // A section number directly followed by a word: `6. Sprint 1`, `4.1 Phase A0`.
    let num_end = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == ')'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    if num_end > 0 && t[num_end..].starts_with(' ') {
        let rest = t[num_end..].trim_start_matches(|c: char| !c.is_alphanumeric());
        if Word::parse(&rest.to_lowercase()).is_some() || rest.starts_with('M') {
            t = rest;
        }
    }
    unit_before_sprint(t).unwrap_or(t)
}

/// A unit's name before the sprint: `SwiftBruja — Sprint 1: Ship` → the
/// text from `Sprint`.
fn unit_before_sprint(t: &str) -> Option<&str> {
    for sep in [" — ", " – ", " - ", ": "] {
        if let Some((unit, rest)) = super::short_find::split_once(t, sep) {
            let lower = rest.to_lowercase();
            if unit.split_whitespace().count() <= 4
                && !unit.is_empty()
                && matches!(Word::parse(&lower), Some((Word::Sprint | Word::Sortie, _)))
                && Word::parse(&unit.to_lowercase()).is_none()
            {
                return Some(rest);
            }
        }
    }
    None
}

/// A done mark qualified by what is left: `(except …)`, `(hors …)`,
/// `(sauf …)`, `(excepto …)`, `(salvo …)`, `(außer …)`, `(bis auf …)`,
/// `(кроме …)`, `（除…）`; or done in part (`✅ 一部完了`, `PARTIALLY COMPLETE`).
pub(crate) fn done_but_for(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "(except",
        "(hors ",
        "(sauf ",
        "(excepto",
        "(salvo ",
        "(außer",
        "(bis auf",
        "(кроме",
        "（除",
        "(but ",
    ]
    .iter()
    .any(|w| lower.contains(w))
        || partly_done(&lower)
}

/// The name after a done status that opens it: `COMPLETE 2025-10-02 -
/// Hello` → `Hello`, `**Done** Camera` → `Camera`, `DONE — Intent` →
/// `Intent`. The word must be in capitals, bold, set off by a dash or
/// colon, or be `Done`, so a name that starts with a verb (`Complete the
/// migration`) keeps it.
fn leading_status(name: &str) -> Option<&str> {
    let bold = name.starts_with("**");
    let t = name.trim_start_matches(['*', '_']);
    let word: &str = t.split(|c: char| !c.is_alphabetic()).next()?;
    if !["done", "complete", "completed", "finished", "shipped"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
    {
        return None;
    }
    let mut rest = t[word.len()..].trim_start_matches(['*', '_']);
    let capitals = word.chars().all(|c| c.is_uppercase());
    // A date the status was reached on (`2025-10-02`).
    let date = rest.trim_start();
    if date.len() >= 10
        && date.as_bytes()[..10]
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'-')
    {
        rest = &date[10..];
    }
    let set_off = rest.trim_start().starts_with(['—', '–', '-', ':', '|']);
    let rest = rest
        .trim_start()
        .trim_start_matches(['—', '–', '-', ':', '|'])
        .trim();
    // `M5: **Done** Camera` reaches here without its stars: `Done` alone
    // of the words is read so in title case (`Complete the migration` is
    // work to do).
    let title_done = word == "Done";
    ((bold || capitals || set_off || title_done) && !rest.is_empty()).then_some(rest)
}

/// Words saying a piece of work is done in part.
const PARTLY: &[&str] = &[
    "partially",
    "partly",
    "partial",
    "in part",
    "一部",
    "部分",
    "일부",
    "부분",
    "teilweise",
    "parcialmente",
    "parcial",
    "partiellement",
    "parzialmente",
    "częściowo",
    "частично",
];

/// `✅ **一部完了**`, `✅ Partially`, `PARTIALLY COMPLETE`: a done mark
/// that says only part is done (lower-cased text).
fn partly_done(lower: &str) -> bool {
    PARTLY.iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let before = lower[..at].trim_end_matches([' ', '*', '_', '(', '（']);
            let after = lower[at + w.len()..].trim_start_matches([' ', '*', '_', ')']);
            // The done word after the qualifier, as a status value reads one.
            before.ends_with(['✅', '✔', '☑', '✓'])
                || super::completion::opens_with_done_word(after)
        })
    })
}

/// Whether a sprint heading names something before its sprint word
/// (`Parser — Sprint 1`, `Next week - Sprint 3`).
pub(crate) fn names_unit_first(text: &str) -> bool {
    unit_before_sprint(text.trim_start_matches(|c: char| !c.is_alphanumeric())).is_some()
}

/// Read a sprint-like id: digits first (`1a.1`, `3a2.1`, `2-3`), or a capital
/// letter with optional digits (`A`, `A0`). Returns (id, rest).
fn read_id(s: &str) -> Option<(String, &str)> {
    let bytes = s.as_bytes();
    let first = *bytes.first()?;
    let mut end;
    if first.is_ascii_digit() {
        end = 0;
        while end < bytes.len() {
            let c = bytes[end];
            let next_alnum = bytes
                .get(end + 1)
                .is_some_and(|n| n.is_ascii_alphanumeric());
            // Letters and digits; `.` or `-` only between id parts (`1a.1`,
            // `2-3`), never trailing.
            let joins = (c == b'.' || c == b'-') && next_alnum && bytes[end + 1].is_ascii_digit()
                || c == b'.' && next_alnum && end > 0;
            if c.is_ascii_alphanumeric() || joins {
                end += 1;
            } else {
                break;
            }
        }
        // `1–2` (en dash) ranges.
        if s[end..].starts_with('–')
            && s[end + '–'.len_utf8()..].starts_with(|c: char| c.is_ascii_digit())
        {
            let tail = &s[end + '–'.len_utf8()..];
            let digits = tail.chars().take_while(|c| c.is_ascii_digit()).count();
            let id = format!("{}-{}", &s[..end], &tail[..digits]);
            return Some((id, &tail[digits..]));
        }
    } else if first.is_ascii_uppercase() {
        end = 1;
        // `Phase UX1`, `Phase QA2`: two or three capitals are an id only
        // with a number after them (`Phase API` is a name).
        let capitals = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
        if (2..=3).contains(&capitals) && bytes.get(capitals).is_some_and(u8::is_ascii_digit) {
            end = capitals;
        }
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        // `Phase A`, `Phase A0`, but not `Phase Alpha` (nor `Sprint
        // Sıralaması`, a word in any script).
        if s[end..].starts_with(char::is_alphabetic) {
            return None;
        }
        // `Story R.0`, `Story R.1`: a letter and a number under it.
        if end == 1 && bytes.get(1) == Some(&b'.') && bytes.get(2).is_some_and(u8::is_ascii_digit) {
            end = 2;
            while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
    } else {
        return None;
    }
    let id = &s[..end];
    // `Sprint 2AB`-style words are names, not ids, unless they are short.
    if id.chars().filter(|c| c.is_ascii_alphabetic()).count() > 3 {
        return None;
    }
    Some((id.to_string(), &s[end..]))
}

/// Classify one heading's text.
pub(crate) fn parse_heading(text: &str) -> Option<Heading> {
    parse_heading_as(text, true)
}

/// Classify one heading's text; `Phase 1: Name (Sprint 1)` is sprint 1
/// only when `read_aside`.
pub(crate) fn parse_heading_as(text: &str, read_aside: bool) -> Option<Heading> {
    let localized = super::locale::localize(text);
    let (text, done) = strip_done_marks(&localized);
    // `✅ FAIT (hors déploiement final)`, `Done (except deploy)`: done but
    // for something, which is not done.
    let done = done && !done_but_for(&localized);
    let t = strip_lead(&text);
    let lower = t.to_lowercase();
    let (word, rest) = if let Some((word, len)) = Word::parse(&lower) {
        let rest = &t[len..];
        // `Weeks 1-4: Core engine`, `Sprints 4-6: Medium priority`: a
        // span, one step named as each of its parts is.
        let rest = match rest.strip_prefix("s ") {
            Some(span) if is_span(span) => &rest[1..],
            _ => rest,
        };
        // `Sprint 1`, `PATCH-01`, `Phase0`; not `Sprints`, `Phases`,
        // `Stepping`.
        let rest = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('-'))
            .or_else(|| rest.strip_prefix('_'))
            .or_else(|| {
                rest.starts_with(|c: char| c.is_ascii_digit())
                    .then_some(rest)
            })?;
        (word, rest.trim_start_matches([' ', '#']))
    } else if let Some(rest) = t.strip_prefix('M') {
        // `M0 — Launch week`, `M2: Prove it`.
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        (Word::Milestone, rest)
    } else {
        return None;
    };
    let (id, after) = read_id(rest.trim_start_matches('*'))?;
    if word == Word::Milestone
        && t.starts_with('M')
        && !after.is_empty()
        && !after.starts_with([' ', ':', '.'])
    {
        return None;
    }
    // `M0 → M3 里程碑`, `Phase 1 to Phase 4`: a span of steps, read as
    // `Weeks 1-4` is.
    // Three steps or more, and not a count (`M1 – M365 integration`,
    // `Phase 1 → Phase 2 handoff` stay steps).
    let short_m = word == Word::Milestone
        && t.starts_with('M')
        && t[1..].starts_with(|c: char| c.is_ascii_digit());
    let (id, after) = match span_to(after, word, short_m) {
        Some((last, rest))
            if id
                .parse::<u32>()
                .ok()
                .zip(last.parse::<u32>().ok())
                .is_some_and(|(a, b)| b >= a + 2 && b <= a + 20) =>
        {
            (format!("{id}-{last}"), rest)
        }
        _ => (id, after),
    };
    let after = after.trim_start_matches(['*', '_']);
    let trimmed = after.trim_start();
    // `## M0 · POC`: a middle dot sets the name apart too, but not one
    // between numbers (`Sprint 1·2`, `1・2단계`: two steps named together).
    let dots = !trimmed
        .strip_prefix(['·', '・'])
        .is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    let sep =
        |c: char| matches!(c, '.' | ':' | '—' | '–' | '-' | ')' | '|') || dots && "·・".contains(c);
    let (name, separated) = if let Some(stripped) = trimmed.strip_prefix(sep) {
        (stripped.trim_start_matches(sep).trim(), true)
    } else {
        (trimmed.trim(), false)
    };
    // `M0: COMPLETE 2025-10-02 - Hello`, `M5: **Done** Camera`: a status
    // before the name.
    let (name, done) = match leading_status(name).filter(|_| separated) {
        Some(rest) => (rest, !done_but_for(name)),
        None => (name, done),
    };
    if !separated && !name.is_empty() && !name.starts_with('(') {
        let first: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        let about = if ABOUT_CRITERIA.contains(&first.as_str()) {
            Some(About::Criteria)
        } else if ABOUT_NOTES.contains(&first.as_str()) {
            Some(About::Notes)
        } else {
            None
        };
        if let Some(about) = about {
            return Some(Heading::About { word, id, about });
        }
        // `Phase B coverage requirements`, `Step 3 is optional`: prose about
        // a phase, not a heading of one (`Sprint 1.5 tickets` still is).
        if word != Word::Sprint && word != Word::Sortie && name.starts_with(char::is_lowercase) {
            return None;
        }
    }
    let mut name = name
        .replace('`', "")
        .trim_matches(|c: char| c == '*' || c.is_whitespace())
        .to_string();
    let mut heading = SprintHeading {
        word,
        id,
        name: String::new(),
        done,
        bare: !separated && !name.is_empty(),
    };
    // `Phase 1: Name (Sprint 1)`: the sprint is named in parentheses.
    if word != Word::Sprint && read_aside {
        if let Some(open) = name.rfind("(Sprint ") {
            let inner = name[open + 8..].trim_end_matches(')');
            // (`Phase 2 — Pro Features (Sprint 5–8)` spans four sprints: it
            // is no one of them.)
            if let Some((sid, tail)) = read_id(inner) {
                if tail.trim().is_empty() && !sid.contains('-') {
                    heading.word = Word::Sprint;
                    heading.id = sid;
                    name = name[..open].trim().to_string();
                }
            }
        }
    }
    heading.name = tidy_name(&name);
    Some(Heading::Sprint(heading))
}

/// The last step of a span written out after a step's id (` → M3`, ` to
/// Phase 4`, ` – Phase 4`) and the text after it. The word is written
/// again: `Phase 1 – 2 weeks` and `Phase 1 → 100 users` name phase 1.
fn span_to(after: &str, word: Word, short_m: bool) -> Option<(String, &str)> {
    let t = after.trim_start();
    // Every heading is asked: one look at the first byte (`→`, `—` and
    // `–` all open with 0xE2).
    if !matches!(t.as_bytes().first(), Some(b'-' | b'~' | b't' | 0xE2)) {
        return None;
    }
    let rest = ["→", "->", "~", "to ", "—", "–", "-"]
        .iter()
        .find_map(|a| t.strip_prefix(a))?
        .trim_start();
    let lower = rest.to_lowercase();
    let digits_at = if short_m {
        rest.strip_prefix('M')
    } else {
        Word::parse(&lower)
            .filter(|(w, _)| *w == word)
            .map(|(_, len)| rest[len..].trim_start())
    }?;
    // Whole numbers only: `Phase 1~2c` names phases 1 to 2c as one.
    let n = digits_at.chars().take_while(char::is_ascii_digit).count();
    let end = digits_at[n..].chars().next();
    (n > 0 && end.is_none_or(|c| !c.is_alphanumeric() && c != '.'))
        .then(|| (digits_at[..n].to_string(), &digits_at[n..]))
}

/// `1-4`, `13–14`: a span of numbers opening `text`.
fn is_span(text: &str) -> bool {
    let first = text.chars().take_while(char::is_ascii_digit).count();
    let rest = &text[first..];
    let Some(second) = rest.strip_prefix(['-', '–']) else {
        return false;
    };
    first > 0 && second.starts_with(|c: char| c.is_ascii_digit())
}

/// Asides around a sprint's name are not its name: `(Week 1): Core DX` is
/// "Core DX", `(Planning)` is "Planning", and a trailing `[checkpoint:
/// f33]` or an aside set off by spaces (`Foundation   *~half a day*`) is
/// dropped.
pub(crate) fn tidy_name(name: &str) -> String {
    let mut t = name.trim();
    if let Some(inner) = t.strip_prefix('(') {
        if let Some(close) = inner.find(')') {
            let rest = inner[close + 1..].trim_start();
            let aside = inner[..close].trim();
            if rest
                .trim_start_matches([':', '—', '–', '-'])
                .trim()
                .is_empty()
            {
                // `(Foundation)` names the sprint; `(3/3):`, a date, does
                // not (the sprint is then named by its word and id).
                t = if aside.chars().any(char::is_alphabetic) {
                    aside
                } else {
                    ""
                };
            } else if let Some(r) = rest.strip_prefix([':', '—', '–', '-']) {
                if !r.trim().is_empty() {
                    t = r.trim();
                }
            }
        }
    }
    // A status that is not done (`⏳ IN PROGRESS`, `🔄 进行中`) ends the name.
    if let Some(k) = t.find(['⏳', '🔄', '🚧', '🟡', '⬜', '❌', '🔲']) {
        if !t[..k].trim().is_empty() {
            t = t[..k].trim_end();
            // `Editing [Status: 🔄 In Progress]`: the bracket it opened goes.
            if let Some(open) = t.rfind(['[', '(']) {
                if !t[open..].contains([']', ')']) && !t[..open].trim().is_empty() {
                    t = t[..open].trim_end();
                }
            }
        }
    }
    loop {
        let before = t;
        if t.ends_with(']') && !t.starts_with('[') {
            if let Some(open) = t.rfind('[') {
                t = t[..open].trim_end();
            }
        }
        // A strikethrough's closing tildes (`~~Phase 4: Assets~~ — DONE`,
        // its opening ones gone with the lead).
        if let Some(head) = t.strip_suffix("~~") {
            t = head.trim_end();
        }
        // An aside set off by a run of spaces (`Foundation   *~half a
        // day*`, emphasis already gone): an estimate or a gate.
        if let Some(k) = t.find("  ") {
            if !t[..k].trim().is_empty() {
                t = t[..k].trim_end();
            }
        }
        if t == before {
            break;
        }
    }
    t.to_string()
}

/// `# Sprint: crawl-sim v1.5.0`, `# Sortie — Cache`: a document titled as
/// one sprint, without an id → its name.
pub(crate) fn titled_sprint(text: &str) -> Option<String> {
    let (text, _) = strip_done_marks(text);
    let t = strip_lead(&text);
    let (word, len) = Word::parse(&t.to_lowercase())?;
    if !matches!(word, Word::Sprint | Word::Sortie) {
        return None;
    }
    let name = t[len..]
        .trim_start()
        .strip_prefix([':', '—', '–', '-'])?
        .trim()
        .replace('`', "");
    (!name.is_empty()).then(|| tidy_name(&name))
}

/// `## Phase: MVP`, `## Stage — Hardening`: a sprint word, a separator and a
/// name, no number (used only when the plan numbers no sprint).
pub(crate) fn unnumbered(text: &str) -> Option<(Word, String, bool)> {
    let (text, done) = strip_done_marks(text);
    let t = strip_lead(&text);
    let (word, len) = Word::parse(&t.to_lowercase())?;
    if matches!(word, Word::Task | Word::Patch | Word::Step) {
        return None;
    }
    let rest = t.get(len..)?;
    let name = rest
        .trim_start()
        .strip_prefix([':', '—', '–'])?
        .trim()
        .replace('`', "");
    (!name.is_empty() && name.len() <= 120).then_some((word, name, done))
}

/// `## Milestones`, `## 4. Phases — recut`, `## Sprints`: a heading that
/// holds one subsection per sprint when the plan numbers none.
pub(crate) fn plural_word(text: &str) -> Option<Word> {
    let (text, _) = strip_done_marks(text);
    let lower = strip_lead(&text).to_lowercase();
    const PLURALS: &[(&str, Word)] = &[
        ("sprints", Word::Sprint),
        ("sorties", Word::Sortie),
        ("milestones", Word::Milestone),
        ("phases", Word::Phase),
        ("stages", Word::Stage),
        ("iterations", Word::Iteration),
    ];
    PLURALS.iter().find_map(|(p, w)| {
        let rest = lower.strip_prefix(p)?;
        (!rest.starts_with(|c: char| c.is_alphanumeric())).then_some(*w)
    })
}

/// A `Task N.M` heading, grouped into sprint N (the task-groups form).
pub(crate) fn is_task_group_id(word: Word, id: &str) -> bool {
    word == Word::Task && id.contains('.') && id.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprint(text: &str) -> Option<(Word, String, String, bool)> {
        match parse_heading(text)? {
            Heading::Sprint(h) => Some((h.word, h.id, h.name, h.done)),
            Heading::About { .. } => None,
        }
    }

    #[test]
    fn sprint_heading_grammar() {
        let s = |w: Word, id: &str, name: &str| Some((w, id.to_string(), name.to_string(), false));
        assert_eq!(sprint("Sprint 2a: Lexer"), s(Word::Sprint, "2a", "Lexer"));
        assert_eq!(
            sprint("SPRINT 2: Core UI (Weeks 3-4)"),
            s(Word::Sprint, "2", "Core UI (Weeks 3-4)")
        );
        assert_eq!(sprint("Sprint 1 — Name"), s(Word::Sprint, "1", "Name"));
        assert_eq!(sprint("Sprint 1 - Name"), s(Word::Sprint, "1", "Name"));
        assert_eq!(sprint("Milestone 0 · POC"), s(Word::Milestone, "0", "POC"));
        assert_eq!(sprint("6. Sprint 1 — Name"), s(Word::Sprint, "1", "Name"));
        assert_eq!(
            sprint("Phase 1: Name (Sprint 1)"),
            s(Word::Sprint, "1", "Name")
        );
        assert_eq!(sprint("Sprint 1a.1: Data"), s(Word::Sprint, "1a.1", "Data"));
        assert_eq!(
            sprint("Sprint 3a2.1: Data"),
            s(Word::Sprint, "3a2.1", "Data")
        );
        assert_eq!(sprint("Sprint 2-3: Both"), s(Word::Sprint, "2-3", "Both"));
        assert_eq!(
            sprint("Sprint 1.5 tickets"),
            s(Word::Sprint, "1.5", "tickets")
        );
        assert_eq!(sprint("Sortie 3: Wire it"), s(Word::Sortie, "3", "Wire it"));
        assert_eq!(
            sprint("PATCH-01: Fix costs"),
            s(Word::Patch, "01", "Fix costs")
        );
        assert_eq!(
            sprint("PHASE A: Infra (Tasks 1-6)"),
            s(Word::Phase, "A", "Infra (Tasks 1-6)")
        );
        assert_eq!(
            sprint("4.1 Phase A0 — Refactor"),
            s(Word::Phase, "A0", "Refactor")
        );
        assert_eq!(
            sprint("M0 — Launch week"),
            s(Word::Milestone, "0", "Launch week")
        );
        assert_eq!(
            sprint("WEEK 1 — Core capture"),
            s(Word::Week, "1", "Core capture")
        );
        assert_eq!(
            sprint("✅ **PHASE 0: Name** (COMPLETE)"),
            Some((Word::Phase, "0".into(), "Name".into(), true))
        );
        assert_eq!(
            sprint("Sprint 1 (Week 1): Core DX"),
            s(Word::Sprint, "1", "Core DX")
        );
        assert_eq!(
            sprint("Sprint 0 (Planning)"),
            s(Word::Sprint, "0", "Planning")
        );
        assert_eq!(
            sprint("Phase 1: Sprint API [checkpoint: f332976]"),
            s(Word::Phase, "1", "Sprint API")
        );
        assert_eq!(
            sprint("Phase 0 — Foundation (git)   ~half a day"),
            s(Word::Phase, "0", "Foundation (git)")
        );
        assert_eq!(
            sprint("Sprint 9 — Tutorial Writer ⏳ IN PROGRESS"),
            s(Word::Sprint, "9", "Tutorial Writer")
        );
        assert_eq!(
            titled_sprint("Sprint: crawl-sim v1.5.0"),
            Some("crawl-sim v1.5.0".into())
        );
        assert_eq!(titled_sprint("Sprint Plan: Production"), None);
        assert_eq!(titled_sprint("Sprint 4: Graph"), None);
        assert_eq!(sprint("Sprints overview"), None);
        assert_eq!(sprint("Sprint planning"), None);
        assert_eq!(sprint("Phase Breakdown"), None);
        assert_eq!(sprint("Stepping stones"), None);
        assert_eq!(sprint("Mission Overview"), None);
    }

    #[test]
    fn headings_about_a_sprint_are_not_sprints() {
        for (text, about) in [
            ("Sprint 1 Success", About::Criteria),
            ("Sprint 1 Testing Requirements", About::Criteria),
            ("Phase 1 Complete (85% Ready)", About::Criteria),
            ("Sprint 1 Summary", About::Notes),
            ("Sprint 1 Retrospective", About::Notes),
        ] {
            assert_eq!(
                parse_heading(text),
                Some(Heading::About {
                    word: Word::parse(&text.to_lowercase()).expect("word").0,
                    id: "1".into(),
                    about
                }),
                "{text}"
            );
        }
    }
}
