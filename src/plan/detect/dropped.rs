//! Headings that say their work was dropped (`Phase 3 — CANCELLED`,
//! `~~Phase 0~~ ✂️ SKIPPED`, `阶段三：APK 打包（已取消）`), and list lines
//! struck through and so marked (`~~**Phase 3.4**~~ - ABANDONED`): not
//! work to send.

/// Words saying the plan dropped a piece of work.
const DROPPED: &[&str] = &[
    "skipped",
    "cancelled",
    "canceled",
    "dropped",
    "abandoned",
    "obsolete",
    "wontfix",
    "verworfen",
    "annulé",
    "cancelado",
    "descartado",
    "отменено",
    "пропущено",
];

/// Whether a heading says its work was dropped: `~~Phase 0: Alignment~~
/// ✂️ SKIPPED`, `Phase 3 — CANCELLED`, `Step 2 (skipped)`. A word in the
/// name (`Handle dropped connections`) is no such mark: it must be struck
/// through with the heading, written in capitals, or set apart in
/// parentheses.
pub(crate) fn dropped(text: &str) -> bool {
    // `阶段三：APK 打包（已取消）`: a closing aside that is only the word.
    let t = text.trim_end();
    let aside = t
        .strip_suffix('）')
        .and_then(|h| h.rsplit_once('（'))
        .or_else(|| t.strip_suffix(')').and_then(|h| h.rsplit_once('(')))
        .map(|(_, inside)| inside.trim());
    if aside.is_some_and(|a| {
        [
            "已取消",
            "取消",
            "已放弃",
            "放弃",
            "已废弃",
            "中止",
            "キャンセル",
            "廃止",
            "취소",
        ]
        .contains(&a)
    }) {
        return true;
    }
    let struck = text
        .trim_start_matches(|c: char| c == '#' || c.is_whitespace())
        .starts_with("~~");
    text.split_whitespace().any(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        // Every word of the list is six bytes or more.
        if bare.len() < 6 {
            return false;
        }
        let said = if bare.is_ascii() {
            DROPPED.iter().any(|d| d.eq_ignore_ascii_case(bare))
        } else {
            DROPPED.contains(&bare.to_lowercase().as_str())
        };
        said && (struck
            || (bare.chars().any(char::is_alphabetic) && bare == bare.to_uppercase())
            || (w.starts_with('(') && w.ends_with(')')))
    })
}

/// Whether a list line is struck through and marked dropped right after
/// the struck part (`~~**Phase 3.4: DSL**~~ - ABANDONED`): a line naming a
/// state in capitals (`Add CANCELLED state`) or striking an old choice
/// beside its replacement (`~~Cookies~~ Use JWT; cookies dropped`) is not.
pub(crate) fn struck_dropped(text: &str) -> bool {
    let t = text.trim_start();
    let Some(rest) = t.strip_prefix("~~") else {
        return false;
    };
    let Some(end) = rest.find("~~") else {
        return false;
    };
    let after = rest[end + 2..].trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '(' | '*' | '_')
    });
    let word = after
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default();
    word.len() >= 6
        && (DROPPED.iter().any(|d| d.eq_ignore_ascii_case(word))
            || DROPPED.contains(&word.to_lowercase().as_str()))
}
