//! Status lines and the words they are written in: `Status: ✅ Done`,
//! `**状态**: ⏳ 待开始`, a value wrapped over lines, and which values say
//! the work is done, open, or left out. Shared by the readers of done marks
//! ([`completion`](super::completion)) and of status tables.

use super::completion::{strip_done_marks, MARK_EMOJI};
use super::*;
/// A status value that says done: a done mark (`✅ Done`) or a first word
/// of complete, completed, done, finished, shipped or merged.
pub(crate) fn status_says_done(value: &str) -> bool {
    // Done is read on the value's first line; the lines it wraps onto may
    // only say what is left (`…; radio scenarios pending`).
    let first = value.lines().next().unwrap_or_default();
    let v = first.trim().trim_matches(['*', '`']).trim();
    let lower = v.to_lowercase();
    (v.starts_with(MARK_EMOJI) || strip_done_marks(v).1 || opens_with_done_word(&lower))
        && !still_open(&value.to_lowercase())
}

/// A step's own status line that says its work will not be done
/// (`SKIPPED (not needed after all)`, `CANCELLED`, `中止`): nothing is left
/// to send an agent, as for work done. (A row of a table of tasks so
/// marked stays as it is: the table is an index, not the step.)
pub(super) fn left_out(value: &str) -> bool {
    let lower = value.to_lowercase();
    const WORDS: &[&str] = &[
        "skipped",
        "cancelled",
        "canceled",
        "obsolete",
        "superseded",
        "wontfix",
    ];
    const PHRASES: &[&str] = &[
        "won't do",
        "not needed",
        "no longer needed",
        "中止",
        "スキップ",
        "已取消",
        "取消",
    ];
    let words = lower
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(|c: char| !c.is_alphanumeric() && c != ')' && c != '）');
    let said = WORDS
        .iter()
        .chain(PHRASES)
        .find_map(|w| words.strip_prefix(w));
    // The word alone or with its reason set apart (`SKIPPED (not needed)`,
    // `Cancelled — retired first`); not the opening of a sentence
    // (`Obsolete API calls must go`, `スキップ不可`), and not a deferral
    // (`Skipped for now — revisit before GA`).
    let Some(after) = said else {
        return false;
    };
    let reason = after.trim_start();
    let set_apart = after.is_empty()
        || reason.starts_with(['(', '（', '—', '–', '-', ':', '：', ';', ',', '，', '。', '.'])
        // `Superseded by Step 4`: another step does the work.
        || reason.starts_with("by ");
    set_apart && !still_open(&lower) && !put_off(&lower)
}

/// Lower-cased text that puts work off to later (`Skipped for now —
/// revisit`, `### Deferred to Phase 4`, `延期`): the work is still to come,
/// elsewhere or later.
pub(super) fn put_off(lower: &str) -> bool {
    const LATER: &[&str] = &[
        "for now",
        "revisit",
        "later",
        "until",
        "defer",
        "postpone",
        "planned for",
        "moved",
        "next release",
        "暂",
        "後で",
        "後回し",
        "延期",
        "推迟",
    ];
    LATER.iter().any(|w| lower.contains(w))
}

/// A done word that goes on to name work left (`Implemented, needs
/// hardening`, `Done except the docs`): the item is still open.
pub(super) fn still_open(lower: &str) -> bool {
    const LEFT: &[&str] = &[
        "needs ",
        "need ",
        "partial",
        "partly",
        "remaining",
        "except",
        " but ",
        "in progress",
        "not yet",
        "blocked",
        // `Implemented — host validated; radio scenarios pending.`
        "pending",
        "remains",
        "remain open",
        "still open",
        "still required",
        "still needed",
        "outstanding",
        // The same in the plans' other languages (`Implementado
        // parcialmente (faltan índices)`, `Implementiert, aber noch nicht
        // getestet`).
        "parcial",
        "parziale",
        "teilweise",
        "falta",
        "manca",
        " aber ",
        "noch nicht",
        " pero ",
        "todavía no",
        "ainda não",
        "pas encore",
        " mais ",
        "sauf",
        "excepto",
    ];
    // `Done — nothing pending`, `Complete (0 outstanding issues)`: a word
    // of work left, said to be none.
    let denied = |at: usize| {
        let before = lower[..at].trim_end();
        ["no", "nothing", "none", "0", "zero", "without"]
            .iter()
            .any(|n| before.ends_with(n))
    };
    LEFT.iter()
        .any(|w| lower.match_indices(w).any(|(at, _)| !denied(at)))
}

/// A table's column of each row's status (`Status`, `Estado`, `状態`,
/// `Done`).
pub(super) fn status_column(header: &[Cell]) -> Option<usize> {
    column_where(header, |h| h == "done" || is_status_key(h))
}

/// Whether lower-cased text opens with a done word or phrase of the
/// plans' languages (`complete`, `erledigt`, `完了`).
pub(crate) fn opens_with_done_word(lower: &str) -> bool {
    let first = lower.split(|c: char| !c.is_alphanumeric()).next();
    DONE_WORDS.iter().any(|w| first == Some(w))
        || DONE_PHRASES.iter().any(|p| lower.starts_with(p))
        || first.is_some_and(settled)
}

/// `（リリース済）`, `（実装済み）`: an aside of work done, then 済 (done).
/// Only the work words: 決済 (payment), 経済 or 返済 end in 済 too, and
/// レビュー済 (reviewed) is not built.
pub(crate) fn settled_aside(inner: &str) -> bool {
    const DONE_WORK: &[&str] = &[
        "実装",
        "リリース",
        "完了",
        "対応",
        "確認",
        "検証",
        "修正",
        "導入",
        "公開",
        "移行",
        "統合",
        "実施",
        "適用",
        "解決",
        "作成",
        "構築",
        "反映",
        "出荷",
        "納品",
    ];
    let work = inner
        .strip_suffix("済み")
        .or_else(|| inner.strip_suffix('済'));
    work.is_some_and(|w| DONE_WORK.contains(&w))
}

/// `リリース済み`, `実装済`: what was done, then 済 (done). (`未済`, not
/// yet settled, is open.)
pub(crate) fn settled(word: &str) -> bool {
    (word.ends_with("済み") || word.ends_with('済'))
        && word.chars().nth(1).is_some()
        && !word.starts_with('未')
}

/// A status value's first word that says done, in the languages plans are
/// written in.
pub(super) const DONE_WORDS: &[&str] = &[
    "complete",
    "completed",
    "done",
    "finished",
    "shipped",
    "merged",
    "implemented",
    "released",
    "delivered",
    "resolved",
    "fixed",
    // A packet's last state: done and checked (`**State:** Verified`).
    "verified",
    // Spanish, Portuguese, Italian, French, German
    "completado",
    "completada",
    "terminado",
    "terminada",
    "finalizado",
    "finalizada",
    "hecho",
    "concluído",
    "concluida",
    "concluída",
    "feito",
    "completo",
    "completato",
    "completata",
    "completati",
    "completate",
    "completadas",
    "completados",
    "concluso",
    "fatto",
    "terminato",
    "terminé",
    "terminée",
    "terminés",
    "terminées",
    // Shouted without its accent (`PHASE A — … — TERMINEE`).
    "terminee",
    "terminees",
    "achevé",
    "achevée",
    "fait",
    "erledigt",
    "fertig",
    "abgeschlossen",
    "implementiert",
    "implementado",
    "implementada",
    "implementato",
    "implémenté",
    "implémentée",
    "umgesetzt",
    // Polish, Czech, Turkish, Russian, Ukrainian, Vietnamese
    "zrealizowane",
    "zrealizowany",
    "zakończone",
    "ukończone",
    "gotowe",
    "zrobione",
    "hotovo",
    "dokončeno",
    "tamamlandı",
    "tamamlanan",
    "bitti",
    "готово",
    "готов",
    "выполнено",
    "выполнен",
    "выполнена",
    "завершено",
    "завершен",
    "завершён",
    "завершена",
    // Arabic
    "مكتملة",
    "مكتمل",
    "реализован",
    "реализовано",
    "реализована",
    "сделано",
    "виконано",
    "завершено",
    "xong",
    // Indonesian, Dutch, Swedish, Persian, Arabic, Hebrew, Hindi
    "selesai",
    "voltooid",
    "klaar",
    "مكتمل",
    "منجز",
    "تم",
    "הושלם",
    "בוצע",
    "पूर्ण",
];

/// Done said in scripts without spaces between words, or in two words.
pub(super) const DONE_PHRASES: &[&str] = &[
    "已完成",
    "完成",
    "完了",
    "済",
    "완료",
    "hoàn thành",
    "đã xong",
    "تکمیل شده",
    "انجام شده",
    "पूरा हुआ",
];

/// How many `Status:` lines in `body` say the work is not done (`Status:
/// Not started`, `**状态**: ⏳ 待开始`, `Stato: in corso`).
pub(crate) fn open_status_lines(body: &str) -> usize {
    body.lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches(['-', '*', '+', ' ']);
            split_label(l)
        })
        .filter(|(k, _)| is_status_key(k))
        .filter(|(_, v)| status_says_open(v))
        .count()
}

/// A status value that says the work is still to do or under way.
pub(crate) fn status_says_open(value: &str) -> bool {
    let v = value.trim().trim_matches(['*', '`', ' ']);
    let lower = v.to_lowercase();
    ['⏳', '🚧', '🔄', '⬜', '🔲', '🟡', '❌']
        .iter()
        .any(|c| v.starts_with(*c))
        || OPEN_WORDS.iter().any(|w| lower.starts_with(w))
}

/// [`status_says_open`], read after any mark of the writer's own (`📋
/// 待实现`, `🔜 Planned`) and after a status struck out (`~~Planned~~
/// Shipped` is shipped).
pub(crate) fn status_says_open_after_marks(value: &str) -> bool {
    let v = value.trim().trim_matches(['*', '`', ' ']);
    let v = v.rsplit_once("~~").map_or(v, |(_, now)| now.trim());
    let words = v.trim_start_matches(|c: char| !c.is_alphanumeric());
    status_says_open(v) || status_says_open(words)
}

/// Words that open a status of work not done yet, in the plans' languages.
pub(super) const OPEN_WORDS: &[&str] = &[
    // Waiting to be done, not yet (`📋 待实现`, `未実装`).
    "待实现",
    "待實現",
    "待办",
    "待开发",
    "待開發",
    "待处理",
    "未実装",
    "未实现",
    "未開始",
    "not started",
    "not yet started",
    "pending",
    "in progress",
    "todo",
    "to do",
    "planned",
    "wip",
    "blocked",
    "待开始",
    "未开始",
    "进行中",
    "未着手",
    "進行中",
    "w toku",
    "pendiente",
    "en curso",
    "en cours",
    "in bearbeitung",
    "в процессе",
    "진행 중",
    "진행중",
    "đang thực hiện",
    "en progreso",
    "in corso",
    "da fare",
    "em andamento",
    "pendente",
    "в работе",
    "не начато",
    "bekliyor",
    "devam ediyor",
    "offen",
    "ausstehend",
    "à faire",
    "en attente",
    "未完成",
    "待定",
    "未対応",
];

/// A `Status:` key, in any of the plans' languages: `Status`, `Status M1`
/// (a milestone's own), `Estado`, `Stato`, `Statut`, `Stan`, `Durum`,
/// `Статус`, `状态`, `状態`, `상태`.
pub(crate) fn is_status_key(key: &str) -> bool {
    let k = norm(key);
    let first = k.split_whitespace().next().unwrap_or_default();
    [
        "status",
        "state",
        "estado",
        "stato",
        "statut",
        "état",
        "etat",
        "zustand",
        "stan",
        "durum",
        "статус",
        "состояние",
        "状态",
        "狀態",
        "状態",
        "상태",
        "ステータス",
        "stav",
        "стан",
        "وضعیت",
        "الحالة",
        "حالة",
        "סטטוס",
        "מצב",
        "स्थिति",
        "κατάσταση",
    ]
    .contains(&first)
        && k.split_whitespace().count() <= 2
        || k == TRANG_THAI
}

/// Vietnamese writes its one word for status in two syllables.
const TRANG_THAI: &str = "trạng thái";

/// A status key alone, with no word of its own after it (`Status`, not
/// `Status page` or `Status M1`).
pub(super) fn is_bare_status_key(key: &str) -> bool {
    let k = norm(key);
    k == TRANG_THAI || !k.contains(' ') && is_status_key(&k)
}

/// The `Key: value` pairs of the paragraph and list-item lines in `blocks`.
pub(super) fn labelled_lines<'d>(
    doc: &'d Doc,
    blocks: impl Iterator<Item = usize> + 'd,
) -> impl Iterator<Item = (&'d str, &'d str)> + 'd {
    blocks
        .filter_map(|j| match &doc.blocks[j] {
            Block::Paragraph { text, .. } | Block::Item { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .flat_map(labels_in)
}

/// The `Key: value` pairs of `text`, a value going on over the lines after
/// its own that carry no label of their own: a status hard-wrapped over
/// two lines (`Status: **Implemented — host validated;` / `radio scenarios
/// pending.**`) says on its second what is left.
fn labels_in(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        rest = after;
        let Some((key, value)) = split_label(line) else {
            continue;
        };
        let start = value.as_ptr() as usize - text.as_ptr() as usize;
        let mut end = start + value.len();
        while !rest.is_empty() && unfinished(value, rest) {
            let (next, after) = rest.split_once('\n').unwrap_or((rest, ""));
            let item = next.trim_start().starts_with(['-', '*', '+', '|', '#']);
            if next.trim().is_empty() || (item && !next.trim_start().starts_with("**")) {
                break;
            }
            if split_label(next).is_some() {
                break;
            }
            end = next.as_ptr() as usize - text.as_ptr() as usize + next.len();
            rest = after;
        }
        return Some((key, &text[start..end]));
    })
}

/// Whether a label's value `first` goes on onto the next of the `rest`
/// lines: its bold is left open (`**Implemented — host validated;`), it
/// ends on a comma, semicolon or dash, or it ends with no stop and the next
/// line opens in lower case. A line after a finished value (`Status:
/// Complete` / `The remaining phases build on it.`) is prose of its own.
fn unfinished(first: &str, rest: &str) -> bool {
    let t = first.trim_end();
    if t.matches("**").count() % 2 == 1 || t.ends_with([',', ';', '—', '–', '、', '，', '；'])
    {
        return true;
    }
    // A status of a word or two (`Complete`, `Next up`) is whole.
    let short = t.split_whitespace().count() < 3;
    let stopped = t.ends_with(['.', '!', '?', '。', ')', '）', '*', '`']);
    !stopped && !short && rest.trim_start().starts_with(|c: char| c.is_lowercase())
}

/// `Status: Done`, and `状態：リリース済み` with the full-width colon of
/// CJK text after a key in CJK.
pub(super) fn split_label(line: &str) -> Option<(&str, &str)> {
    // Every line of every step is asked: the full-width colon is looked
    // for only after a key written in another script (`**状態**：…`).
    let key = line.trim_start_matches([' ', '-', '*', '+', '_']);
    if key.as_bytes().first().is_some_and(|b| !b.is_ascii()) {
        line.split_once([':', '：'])
    } else {
        line.split_once(':')
    }
}

/// The values of the `Status:` lines (`- **Status**: ✅ Done`) in `blocks`.
pub(super) fn status_values<'d>(
    doc: &'d Doc,
    blocks: impl Iterator<Item = usize> + 'd,
) -> impl Iterator<Item = &'d str> + 'd {
    labelled_lines(doc, blocks)
        .filter(|(key, _)| is_status_key(key))
        .map(|(_, value)| value.trim().trim_matches(['*', '`', '.', ' ']))
}

/// A ticked item that says only that its section is done (`- [x] **已完成**
/// 2026-04-21`, `- [x] Done`, `- [x] Completed (2025-03-02)`): the
/// section's done mark, not a task of it.
pub(crate) fn done_item(text: &str) -> bool {
    let first = text.lines().next().unwrap_or_default();
    // A word, a day and some marks: a longer line is a task.
    if first.len() > 64 {
        return false;
    }
    // Only a word that says done and nothing else: `Merged`, `Released`,
    // `Fixed` are as often steps of a checklist.
    const GENERIC: &[&str] = &[
        "done",
        "complete",
        "completed",
        "finished",
        "erledigt",
        "fertig",
        "hecho",
        "terminado",
        "terminada",
        "completado",
        "completada",
        "fait",
        "terminé",
        "fatto",
        "completato",
        "concluído",
        "feito",
        "готово",
        "выполнено",
        "tamamlandı",
    ];
    let t = first
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    let rest = if let Some(p) = DONE_PHRASES.iter().find(|p| t.starts_with(*p)) {
        &t[p.len()..]
    } else {
        let end = t.find(|c: char| !c.is_alphanumeric()).unwrap_or(t.len());
        let word = &t[..end];
        let generic = if word.is_ascii() {
            GENERIC.iter().any(|g| word.eq_ignore_ascii_case(g))
        } else {
            GENERIC.contains(&word.to_lowercase().as_str())
        };
        if !generic {
            return false;
        }
        &t[end..]
    };
    // What may follow the word: a day, and marks around it.
    rest.chars()
        .all(|c| c.is_ascii_digit() || " -/.:()（）:：✅✔*_".contains(c))
}
