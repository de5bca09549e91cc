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

/// How a heading that sets work outside what this plan builds opens (or
/// what its closing aside says: `(명시적 제외)`).
const LEFT_OUT: &[&str] = &[
    "out of scope",
    "not in scope",
    "won't do",
    "will not do",
    "not doing",
    "not building",
    "excluded",
    "explicitly excluded",
    "exclusions",
    "지금 만들지 않는",
    "만들지 않는",
    "하지 않는",
    "제외",
    "명시적 제외",
    "対象外",
    "スコープ外",
    "やらないこと",
    "作らないもの",
    "不做",
    "本期不做",
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
/// 지금 만들지 않는 것 (명시적 제외)`): it opens with such words, past its
/// number, or closes with them in parentheses. `## CSP exclusions` does not.
pub(crate) fn leaves_out(heading: &str) -> bool {
    let t = heading
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .to_lowercase();
    let aside = t
        .trim_end()
        .strip_suffix(')')
        .and_then(|h| h.rsplit_once('('))
        .map(|(_, inside)| inside.trim().to_string());
    LEFT_OUT
        .iter()
        .any(|w| t.starts_with(w) || aside.as_deref() == Some(*w))
}

/// The label a line or heading opens with, as a step is named: a code of
/// letters and digits (`M5`, `T-12`), or a word and a number (`Phase 5`),
/// lower-cased, with the rest of the text after it; None for anything else.
pub(crate) fn opening_label(text: &str) -> Option<(String, String)> {
    let t = text.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '#' | '*' | '_' | '~' | '`' | '|' | '-' | '+' | '>')
    });
    let tail = |rest: &str| {
        rest.trim_matches(|c: char| {
            c.is_whitespace() || matches!(c, '*' | '_' | '`' | '.' | ':' | '-' | '—' | '–' | '|')
        })
        .to_lowercase()
    };
    let first_end = t
        .find(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '|'))
        .unwrap_or(t.len());
    let first = t[..first_end]
        .trim_end_matches(['.', ':', ',', ')', '）', '：'])
        .to_lowercase();
    let letters = first.chars().any(char::is_alphabetic);
    let digits = first.chars().any(|c| c.is_ascii_digit());
    if letters && digits && first.chars().count() <= 8 {
        return Some((first, tail(&t[first_end..])));
    }
    let after = t[first_end..].trim_start();
    let second_end = after
        .find(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '|'))
        .unwrap_or(after.len());
    let second = after[..second_end].trim_end_matches(['.', ':', ',', ')', '）', '：']);
    (letters && !second.is_empty() && second.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .then(|| (format!("{first} {second}"), tail(&after[second_end..])))
}
