//! Sprint headings written in other languages and scripts, read as their
//! English equivalents before the heading grammar sees them:
//! `فاز ۱: Session Grazer` is `Phase 1: Session Grazer`, `第二阶段：补文档`
//! is `Stage 2: 补文档`, `Fase 3 — API` is `Phase 3 — API`, `2단계: 배포` is
//! `Stage 2: 배포`.
//!
//! Digits of other scripts (Arabic-Indic, Persian, Devanagari, Bengali,
//! full-width) become ASCII digits, Chinese numerals up to 99 become
//! numbers, and full-width punctuation becomes its ASCII form. A word is
//! only taken as a sprint word when a number follows it (or, in the CJK
//! `第N…` and Korean `N단계` forms, surrounds it), so prose is left alone.

use std::borrow::Cow;

/// Words for a unit of agent work in other languages, lowercase, and the
/// English word the heading grammar knows. Longer words first where one
/// begins another.
const WORDS: &[(&str, &str)] = &[
    // Spanish, Portuguese, Italian, Catalan
    ("fase", "Phase"),
    ("etapa", "Stage"),
    ("paso", "Step"),
    ("passo", "Step"),
    ("semana", "Week"),
    ("settimana", "Week"),
    ("hito", "Milestone"),
    ("marco", "Milestone"),
    ("tappa", "Stage"),
    ("iteración", "Iteration"),
    ("iteração", "Iteration"),
    ("iterazione", "Iteration"),
    // French
    ("étape", "Step"),
    ("etape", "Step"),
    ("semaine", "Week"),
    ("jalon", "Milestone"),
    ("itération", "Iteration"),
    // German, Dutch
    ("meilenstein", "Milestone"),
    ("schritt", "Step"),
    ("etappe", "Stage"),
    ("woche", "Week"),
    // A wave of work packages is a stage of the plan.
    ("welle", "Stage"),
    ("stap", "Step"),
    ("mijlpaal", "Milestone"),
    // Polish, Czech, Slovak, Turkish, Indonesian, Vietnamese
    ("fáze", "Phase"),
    ("faze", "Phase"),
    ("fáza", "Phase"),
    ("milník", "Milestone"),
    ("týden", "Week"),
    ("týždeň", "Week"),
    ("faza", "Phase"),
    ("etap", "Stage"),
    ("krok", "Step"),
    ("tydzień", "Week"),
    ("aşama", "Stage"),
    ("faz", "Phase"),
    ("adım", "Step"),
    ("adım", "Step"),
    ("hafta", "Week"),
    ("tahap", "Stage"),
    ("tahapan", "Stage"),
    ("minggu", "Week"),
    ("giai đoạn", "Stage"),
    ("bước", "Step"),
    // Swedish, Norwegian, Danish, Finnish (`fase` is above)
    ("fas", "Phase"),
    ("etapp", "Stage"),
    ("steg", "Step"),
    ("trinn", "Step"),
    ("trin", "Step"),
    ("vecka", "Week"),
    ("uke", "Week"),
    ("uge", "Week"),
    ("milstolpe", "Milestone"),
    ("milepæl", "Milestone"),
    ("vaihe", "Phase"),
    ("viikko", "Week"),
    ("virstanpylväs", "Milestone"),
    // Russian, Ukrainian
    ("спринт", "Sprint"),
    ("фаза", "Phase"),
    ("этап", "Stage"),
    ("етап", "Stage"),
    ("шаг", "Step"),
    ("крок", "Step"),
    ("неделя", "Week"),
    ("тиждень", "Week"),
    ("итерация", "Iteration"),
    ("веха", "Milestone"),
    // Persian, Arabic
    ("اسپرینت", "Sprint"),
    ("فاز", "Phase"),
    ("مرحله", "Stage"),
    ("گام", "Step"),
    ("هفته", "Week"),
    ("المرحلة", "Stage"),
    ("مرحلة", "Stage"),
    ("الأسبوع", "Week"),
    ("أسبوع", "Week"),
    ("الخطوة", "Step"),
    ("خطوة", "Step"),
    // Japanese, Chinese, Korean written before the number
    ("スプリント", "Sprint"),
    ("フェーズ", "Phase"),
    ("ステップ", "Step"),
    ("マイルストーン", "Milestone"),
    ("イテレーション", "Iteration"),
    ("冲刺", "Sprint"),
    ("衝刺", "Sprint"),
    ("阶段", "Stage"),
    ("階段", "Stage"),
    ("里程碑", "Milestone"),
    ("迭代", "Iteration"),
    ("步骤", "Step"),
    ("步驟", "Step"),
    ("스프린트", "Sprint"),
    ("페이즈", "Phase"),
    ("단계", "Stage"),
    ("마일스톤", "Milestone"),
    // A task, the finest step word, in each of the plans' languages.
    ("tarea", "Task"),
    ("tarefa", "Task"),
    ("tâche", "Task"),
    ("aufgabe", "Task"),
    ("zadanie", "Task"),
    ("úkol", "Task"),
    ("görev", "Task"),
    ("задача", "Task"),
    ("завдання", "Task"),
    ("nhiệm vụ", "Task"),
    ("タスク", "Task"),
    ("任务", "Task"),
    ("任務", "Task"),
    ("태스크", "Task"),
    ("작업", "Task"),
];

/// Words that follow `第N` in Chinese and Japanese (`第二阶段`, `第3週`).
const ORDINAL_WORDS: &[(&str, &str)] = &[
    ("阶段", "Stage"),
    ("階段", "Stage"),
    ("段階", "Stage"),
    ("期", "Phase"),
    ("周", "Week"),
    ("週", "Week"),
    ("步", "Step"),
    ("轮", "Iteration"),
    ("輪", "Iteration"),
    ("次迭代", "Iteration"),
    ("个里程碑", "Milestone"),
    ("個里程碑", "Milestone"),
    ("冲刺", "Sprint"),
];

/// Words that follow the number in Korean (`2단계`, `3주차`).
const SUFFIX_WORDS: &[(&str, &str)] = &[
    ("단계", "Stage"),
    ("주차", "Week"),
    ("차 스프린트", "Sprint"),
];

/// A digit of another script as its ASCII digit.
fn ascii_digit(c: char) -> Option<char> {
    let zero = match c as u32 {
        0x0660..=0x0669 => 0x0660,
        0x06F0..=0x06F9 => 0x06F0,
        0x0966..=0x096F => 0x0966,
        0x09E6..=0x09EF => 0x09E6,
        0xFF10..=0xFF19 => 0xFF10,
        _ => return None,
    };
    char::from_digit(c as u32 - zero, 10)
}

/// Other scripts' digits and full-width punctuation in their ASCII form.
fn ascii_forms(text: &str) -> Cow<'_, str> {
    let plain = |c: char| ascii_digit(c).is_none() && !matches!(c, '：' | '．' | '、' | '\u{3000}');
    if text.chars().all(plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '：' => out.push_str(": "),
            '．' => out.push('.'),
            '、' => out.push_str(", "),
            '\u{3000}' => out.push(' '),
            c => out.push(ascii_digit(c).unwrap_or(c)),
        }
    }
    Cow::Owned(out)
}

fn cjk_digit(c: char) -> Option<u32> {
    Some(match c {
        '〇' | '零' => 0,
        '一' => 1,
        '二' | '两' | '兩' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

/// A number at the start of `s`: ASCII digits, or Chinese numerals up to 99
/// (`二`, `十`, `十二`, `二十三`). Returns the number as text and the rest.
fn leading_number(s: &str) -> Option<(String, &str)> {
    let digits: usize = s
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit())
        .map(|(i, c)| i + c.len_utf8())
        .last()
        .unwrap_or(0);
    if digits > 0 {
        return Some((s[..digits].to_string(), &s[digits..]));
    }
    let mut value: Option<u32> = None;
    let mut tens: Option<u32> = None;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        if c == '十' && tens.is_none() {
            tens = Some(value.take().unwrap_or(1) * 10);
        } else if let Some(d) = cjk_digit(c) {
            if value.is_some() {
                break;
            }
            value = Some(d);
        } else {
            break;
        }
        end = i + c.len_utf8();
    }
    let n = match (tens, value) {
        (None, None) => return None,
        (t, v) => t.unwrap_or(0) + v.unwrap_or(0),
    };
    Some((n.to_string(), &s[end..]))
}

/// The rest of a heading after its number, with a separator kept or a
/// space put in: `Stage 2: rest`.
fn english(word: &str, number: &str, rest: &str) -> String {
    let trimmed = rest.trim_start();
    if trimmed.is_empty() {
        format!("{word} {number}")
    } else if trimmed.starts_with([':', '.', '—', '–', '-', ')', '|']) {
        format!("{word} {number}{rest}")
    } else {
        format!("{word} {number}: {trimmed}")
    }
}

/// The heading text with a sprint word of another language read as its
/// English word (see the module header); the text itself otherwise.
pub(crate) fn localize(text: &str) -> Cow<'_, str> {
    // Digits of other scripts count in the word and number before the
    // name; the name after its separator keeps its own (`Sprint 1: tests
    // pass ۰` stays so, or a rewrite would change its name).
    let cut = text
        .char_indices()
        .find(|&(i, c)| c == ':' || c == '：' || (c == '—' || c == '–') && i > 0)
        .map_or(text.len(), |(i, c)| i + c.len_utf8());
    let forms = match ascii_forms(&text[..cut]) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(head) => Cow::Owned(head + &text[cut..]),
    };
    let lead_len = forms.len() - after_decoration(&forms).len();
    let (lead, body) = forms.split_at(lead_len);
    // `3. Fase 0 — …`: a section number before the word stays as it is.
    let translated = translate(body)
        .or_else(|| {
            let (number, rest) = section_number(body)?;
            translate(rest).map(|t| format!("{number}{t}"))
        })
        .map(|t| format!("{lead}{t}"));
    match (translated, forms) {
        (Some(t), _) => Cow::Owned(t),
        (None, Cow::Owned(f)) => Cow::Owned(f),
        (None, Cow::Borrowed(_)) => Cow::Borrowed(text),
    }
}

/// `3. ` of `3. Fase 0 — …`, or an outline's `2.1. ` or `2.1 ` (parts
/// of up to three digits, closed by a `.` or `)` unless dotted, then a
/// space) and what follows it.
fn section_number(body: &str) -> Option<(&str, &str)> {
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let number = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let dotted = body[..number].trim_end_matches('.');
    let parts = dotted.split('.').count();
    let closed = body[number..].starts_with(')') || body[..number].ends_with('.');
    let rest = body[number..].strip_prefix(')').unwrap_or(&body[number..]);
    let words = rest.trim_start();
    (parts <= 3
        && dotted.split('.').all(|p| (1..=3).contains(&p.len()))
        && (closed || parts > 1)
        && words.len() < rest.len())
    .then(|| (&body[..body.len() - words.len()], words))
}

/// The English step word a table column's heading opens with, in any of
/// the plans' languages (`Fase Proyek` → `Phase`, `Giai đoạn` → `Stage`,
/// `Iteração` → `Iteration`, `Epic`); none for other headings.
pub(crate) fn column_step_word(header: &str) -> Option<&'static str> {
    const ENGLISH: &[(&str, &str)] = &[
        ("phase", "Phase"),
        ("stage", "Stage"),
        ("step", "Step"),
        ("week", "Week"),
        ("iteration", "Iteration"),
        ("milestone", "Milestone"),
        ("sprint", "Sprint"),
        ("epic", "Epic"),
        ("wave", "Wave"),
        ("track", "Track"),
        // A table's work named by its item (`| Task | Owner | Status |`).
        ("task", "Task"),
        ("story", "Story"),
        ("ticket", "Ticket"),
        ("issue", "Issue"),
    ];
    // Words that make the column a count of the work (`Task count`,
    // `Görev Sayısı`), not the work.
    const COUNTS: &[&str] = &[
        "count",
        "total",
        "sayısı",
        "anzahl",
        "数",
        "개수",
        "количество",
        "jumlah",
    ];
    let lower = header.trim().trim_matches(['*', '`']).trim().to_lowercase();
    ENGLISH.iter().chain(WORDS).find_map(|(word, english)| {
        let rest = lower.strip_prefix(word)?;
        // The whole word: `Fase Proyek`, not `Fases` or `Phaseout`.
        let counted = || {
            let rest = rest.trim_start_matches([' ', '(', '#']);
            COUNTS.iter().any(|c| rest.starts_with(c))
        };
        (!rest.starts_with(char::is_alphanumeric) && !counted()).then_some(*english)
    })
}

fn translate(body: &str) -> Option<String> {
    // `第二阶段：…`, `第3週 …`
    if let Some(after) = body.strip_prefix('第') {
        let (number, rest) = leading_number(after)?;
        let (word, english_word) = ORDINAL_WORDS.iter().find(|(w, _)| rest.starts_with(w))?;
        return Some(english(english_word, &number, &rest[word.len()..]));
    }
    // `2단계: …`
    if let Some((number, rest)) = leading_number(body).filter(|(n, _)| n.len() <= 3) {
        let rest = rest.trim_start();
        if let Some((word, english_word)) = SUFFIX_WORDS.iter().find(|(w, _)| rest.starts_with(w)) {
            return Some(english(english_word, &number, &rest[word.len()..]));
        }
    }
    // `Fase 3 — …`, `فاز 1: …`, `阶段 2 …`, `フェーズ1：…`
    // Only the opening letters are lowercased (every word is shorter): a
    // letter later in the heading may change its length when lowercased
    // (`METİN`).
    let head_end = body.char_indices().nth(16).map_or(body.len(), |(i, _)| i);
    let head = body[..head_end].to_lowercase();
    let lead = head.as_bytes().first();
    for (word, english_word) in WORDS {
        // One byte first: most headings open with none of these words.
        if word.as_bytes().first() != lead || !head.starts_with(word) {
            continue;
        }
        let n = word.chars().count();
        let end = body.char_indices().nth(n).map_or(body.len(), |(i, _)| i);
        if body[..end].to_lowercase() != *word {
            continue;
        }
        let rest = &body[end..];
        let spaced = rest.trim_start();
        if spaced.len() == rest.len()
            && word.is_ascii()
            && !spaced.starts_with(|c: char| c.is_ascii_digit())
        {
            continue; // `Fases`, `Etapas`: a longer word, not this one.
        }
        // `Этап A — чистый UI`, `Fase B: API`: a capital letter alone is an
        // id too, as in `Stage A`.
        let lettered = || {
            let mut chars = spaced.chars();
            let letter = chars.next().filter(char::is_ascii_uppercase)?;
            let after = chars.as_str();
            // Words of scripts without capitals may run into the letter
            // (`任务A: 删除旧代码`).
            ((spaced.len() < rest.len()
                || word
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphabetic() && !c.is_lowercase() && !c.is_uppercase()))
                && (after.is_empty() || after.starts_with([' ', ':', '.', ')', '—', '–', '-'])))
            .then(|| (letter.to_string(), after))
        };
        let Some((number, rest)) = leading_number(spaced).or_else(lettered) else {
            continue;
        };
        // `フェーズ一覧` (the list of phases): a numeral written as a
        // character and run into the next word is part of that word.
        if !spaced.starts_with(|c: char| c.is_ascii_digit())
            && rest.starts_with(char::is_alphabetic)
        {
            continue;
        }
        return Some(english(english_word, &number, rest));
    }
    None
}

/// Text after the decoration a heading opens with: marks, emoji, and a
/// letter drawn as an emoji (`ℹ️ Fase 4`, the letter and its emoji
/// selector).
pub(crate) fn after_decoration(text: &str) -> &str {
    let mut t = text;
    loop {
        t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        let mut chars = t.chars();
        match (chars.next(), chars.next()) {
            (Some(_), Some('\u{fe0f}')) => t = chars.as_str(),
            _ => return t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprint_words_of_other_languages_read_as_english() {
        let cases = [
            ("فاز ۱: Session Grazer 🔍", "Phase 1: Session Grazer 🔍"),
            (
                "فاز ۰: پاکسازی و آماده‌سازی (تسک ۱-۸)",
                "Phase 0: پاکسازی و آماده‌سازی (تسک ۱-۸)",
            ),
            (
                "第一阶段：补浏览器级 QA / E2E",
                "Stage 1: 补浏览器级 QA / E2E",
            ),
            ("第十二阶段 收尾", "Stage 12: 收尾"),
            ("第二十三周", "Week 23"),
            ("フェーズ２：設計", "Phase 2: 設計"),
            ("2단계: 배포", "Stage 2: 배포"),
            ("Fase 3 — API", "Phase 3 — API"),
            ("✅ Étape 2 : Tests", "✅ Step 2 : Tests"),
            ("Fase 1: Fundamentos", "Phase 1: Fundamentos"),
            ("Этап 4. Релиз", "Stage 4. Релиз"),
            ("Semana 1", "Week 1"),
            ("任务A: 删除旧代码", "Task A: 删除旧代码"),
            // A dotted capital I later in the heading is longer lowercased.
            (
                "AŞAMA 6: METİN DÜZENLEMELERİ",
                "Stage 6: METİN DÜZENLEMELERİ",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(localize(text), want, "{text}");
        }
    }

    #[test]
    fn column_headings_name_their_step_word() {
        assert_eq!(column_step_word("Fase Proyek"), Some("Phase"));
        assert_eq!(column_step_word("Giai đoạn"), Some("Stage"));
        assert_eq!(column_step_word("Iteração"), Some("Iteration"));
        assert_eq!(column_step_word("**Epic**"), Some("Epic"));
        assert_eq!(column_step_word("Fases"), None);
        assert_eq!(column_step_word("Status"), None);
    }

    #[test]
    fn prose_and_english_are_left_alone() {
        for text in [
            "Phase 1: Parser",
            "Fases del proyecto",
            "第一部分",
            "阶段目标",
            "フェーズ一覧",
            "Etapa final",
            "فاز بعدی",
            "Overview",
        ] {
            assert_eq!(localize(text), text, "{text}");
        }
    }
}
