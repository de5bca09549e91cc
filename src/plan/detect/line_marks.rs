//! What a task line's own end says of it: a done mark (`… ✅`) or an aside
//! that it is still to do (`Deploy via Caddy (pendiente config)`). The
//! tally reads a trailing mark as a tick where the plan has no boxes, and
//! a pending aside as open on any line, boxed and ticked or not; a bold
//! label opening a line says whether it is work or a field of its step.

/// Marks that open a line of work still to do or under way, or fill its
/// box (`- ⏳ Deploy`, `- [⌛] Deploy`).
pub(super) const PENDING: &[char] = &['⏳', '⌛', '🔄', '🚧', '⬜', '🔲', '☐', '🕐'];

/// Whether an item ends with a done mark (`… docs/CAPTURE.md. ✅`).
pub(super) fn ends_marked(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches('\u{fe0f}')
        .ends_with(super::completion::MARK_EMOJI)
}

/// Whether an item ends with an aside saying it is still to do (`Deploy
/// via Caddy (pendiente config)`, `Docs (TODO)`, `Export (in progress)`).
pub(super) fn ends_pending(text: &str) -> bool {
    let Some(aside) = text
        .trim_end()
        .strip_suffix(')')
        .and_then(|t| t.rsplit_once('('))
        .map(|(_, a)| a.trim().to_lowercase())
    else {
        return false;
    };
    // `(Pending, Running, Failed)` lists states; it marks nothing.
    !aside.contains([',', '、', '/'])
        && super::completion::OPEN_WORDS.iter().any(|w| {
            aside
                .strip_prefix(w)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']))
        })
}

/// Whether an item ends with an aside saying its work was put off or left
/// out of this step (`Review stats (deferred — needs storage)`, `Dark
/// mode (moved to v2)`, `导出（延期）`): no open work of the step it sits
/// in.
pub(super) fn ends_deferred(text: &str) -> bool {
    let t = text.trim_end();
    let Some(aside) = t
        .strip_suffix(')')
        .and_then(|h| h.rsplit_once('('))
        .or_else(|| t.strip_suffix('）').and_then(|h| h.rsplit_once('（')))
        .map(|(_, a)| a.trim().to_lowercase())
    else {
        return false;
    };
    const PUT_OFF: &[&str] = &[
        "deferred",
        "postponed",
        "descoped",
        "moved to",
        "out of scope",
        "punted",
        "future",
        "延期",
        "推迟",
        "延後",
        "先送り",
        "보류",
    ];
    // `(postponed from kickoff, must land before Phase 2)`, `(skipped —
    // must redo before GA)`: moved into this step, or taken back.
    const TAKEN_BACK: &[&str] = &[
        "from",
        "must",
        "redo",
        "do first",
        "do it",
        "finish",
        "this phase",
        "this sprint",
        "this step",
        "this stage",
        "here",
        "but",
        "?",
        "rewrite",
        "本阶段",
        "本期",
        "今回",
    ];
    if TAKEN_BACK.iter().any(|w| aside.contains(w)) {
        return false;
    }
    // `(optional, future)`: each part of an aside said on its own.
    aside.split([',', ';']).map(str::trim).any(|part| {
        PUT_OFF.iter().any(|w| {
            part.strip_prefix(w).is_some_and(|rest| {
                rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_alphanumeric())
            })
        })
    }) || super::status_words::left_out(&aside)
}

/// An item's opening bold label and what follows it (`- **Goal**: …` →
/// `Goal`, `: …`).
fn bold_label(raw: &str) -> Option<(&str, &str)> {
    let t = raw.trim_start_matches(['-', '*', '+']).trim_start();
    let (label, after) = t.strip_prefix("**")?.split_once("**")?;
    Some((label.trim(), after.trim_start()))
}

/// Whether an item opens with a bold field label that records what was
/// done or made (`- **Blocker Resolved:** …`, `- **Deliverable:** …`),
/// not a line of work (`- **Billing:** Stripe`, `- **TODO:** …`).
#[inline]
pub(super) fn bold_label_says_done(raw: &str) -> bool {
    const RECORDS: &[&str] = &[
        "deliverable",
        "deliverables",
        "output",
        "outputs",
        "result",
        "results",
        "outcome",
        "artifact",
        "artefact",
        "evidence",
        "commit",
        "note",
        "notes",
    ];
    let Some((label, after)) = bold_label(raw) else {
        return false;
    };
    let field = label.ends_with(':') || after.starts_with(':');
    let lower = label.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    field
        && (words
            .iter()
            .any(|w| super::status_words::DONE_WORDS.contains(w))
            || words.first().is_some_and(|w| RECORDS.contains(w)))
}

/// Whether a bold name opens a top-level item as its work (`- **UI-kit
/// integration** → popup.gd`), not as a field (`- **Goal**: …`, `-
/// **描述**：…`).
#[inline]
pub(super) fn bold_work_label(raw: &str) -> bool {
    const COLONS: [char; 2] = [':', '：'];
    bold_label(raw).is_some_and(|(label, after)| {
        !label.is_empty() && !label.ends_with(COLONS) && !after.starts_with(COLONS)
    })
}

/// A done mark that counts the work complete: `3/3`.
pub(super) fn full_count(done: &str) -> bool {
    done.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit() && c != '/');
        w.split_once('/')
            .is_some_and(|(a, b)| !a.is_empty() && a == b && a.chars().all(|c| c.is_ascii_digit()))
    })
}

/// A done mark with its completion date (`completed 2026-02-22`).
pub(super) fn dated(done: &str) -> bool {
    let lower = done.to_lowercase();
    ["completed 2", "complete 2", "done 2", "shipped 2"]
        .iter()
        .any(|m| lower.contains(m))
}

/// How many of a step's task lines are its roadmap's plan boxes.
pub(super) fn plan_boxes(tasks: &[String]) -> usize {
    tasks.iter().filter(|t| plan_file(t)).count()
}

/// A roadmap's plan line (`22-01-PLAN.md — Common library`, `07-01: TBD`),
/// not its count of plans (`2 plans`, `1/2 plans executed`).
pub(super) fn plan_file(task: &str) -> bool {
    let t = task.trim_start();
    if t.contains("-PLAN.md") {
        return true;
    }
    // `07-01: TBD`, `01.1-02 …`: a phase of one to three digits, then the
    // plan's two (`2-tier cache`, `2026-03-18 patch` are no plans).
    let phase = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let whole = t[..phase].split('.').next().unwrap_or_default().len();
    let plan = t[phase..].strip_prefix('-').is_some_and(|r| {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        d == 2 && !r[d..].starts_with(|c: char| c.is_alphanumeric() || c == '-')
    });
    (1..=3).contains(&whole) && plan
}
