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

/// Words of a heading that sets work outside what this plan builds.
const LEFT_OUT: &[&str] = &[
    "out of scope",
    "not in scope",
    "won't do",
    "will not do",
    "not doing",
    "not building",
    "excluded",
    "exclusions",
    "제외",
    "対象外",
    "スコープ外",
    "やらないこと",
    "作らないもの",
    "不做",
    "范围外",
    "不在范围",
    "fuera de alcance",
    "fuera del alcance",
    "fora do escopo",
    "hors périmètre",
    "hors scope",
    "nicht im umfang",
    "вне рамок",
    "не входит",
];

/// Whether a heading sets work outside the plan (`## Out of scope`, `## 3.
/// 지금 만들지 않는 것 (명시적 제외)`).
pub(crate) fn leaves_out(heading: &str) -> bool {
    let t = heading.to_lowercase();
    LEFT_OUT.iter().any(|w| t.contains(w))
}

/// The label a line or heading opens with, as a step is named: a code of
/// letters and digits (`M5`, `T-12`), or a word and a number (`Phase 5`),
/// lower-cased; None for anything else.
pub(crate) fn opening_label(text: &str) -> Option<String> {
    let t = text.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '#' | '*' | '_' | '~' | '`' | '|' | '-' | '+' | '>')
    });
    let mut words = t.split(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '|'));
    let first = words
        .next()?
        .trim_end_matches(['.', ':', ',', ')', '）', '：'])
        .to_lowercase();
    let letters = first.chars().any(char::is_alphabetic);
    let digits = first.chars().any(|c| c.is_ascii_digit());
    if letters && digits && first.chars().count() <= 8 {
        return Some(first);
    }
    let second = words
        .find(|w| !w.is_empty())?
        .trim_end_matches(['.', ':', ',', ')', '）', '：']);
    (letters && !second.is_empty() && second.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .then(|| format!("{first} {second}"))
}
