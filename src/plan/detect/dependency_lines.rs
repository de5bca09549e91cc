//! Steps that each say what they wait for, on a line of their own:
//! `**Dependencies:** Task Group 1`, `- **Blocked by:** Tasks 01 and 02.`,
//! `_Depends: 2, 3_`, `Dependencies: None`. When the steps of a one-unit
//! plan write such lines, and every step they name is an earlier step of
//! the plan (by its number, `T3`, `Task 03`, a range `1-8`), the lines are
//! the plan's order: each step runs as a unit of its own, waiting for what
//! its line names. A step without a line waits for the one before it. A
//! line naming anything else (`Foundational phase completion`) keeps its
//! step after every step before it; a line naming a later step leaves the
//! plan one sequence, and so does a graph that is one chain anyway.

use super::RawSprint;

/// Keys of a dependency line, lower-cased.
const KEYS: &[&str] = &[
    "dep",
    "deps",
    "dependencies",
    "dependency",
    "depends on",
    "depends",
    "blocked by",
    "requires",
];

/// What each step waits for (indices of earlier steps), when the steps'
/// own lines give the order and some steps may run at once.
pub(super) fn waits(sprints: &[RawSprint]) -> Option<Vec<Vec<usize>>> {
    // Whole numbers, or numbers under a number (`Phase 1.1` inserted after
    // `Phase 1`); a letter suffix (`2a`) names nothing a line can.
    let dotted = |s: &RawSprint| {
        s.id.suffix.is_empty()
            || s.id
                .suffix
                .strip_prefix('.')
                .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit()))
    };
    if sprints.len() < 3 || !sprints.iter().all(dotted) {
        return None;
    }
    // Steps named by their own codes (`T004: …`) are named by those in the
    // lines: a code must be its step's number, or a line would name
    // another step.
    let own_number = |s: &RawSprint| {
        let name = s.sprint.name.trim_start();
        let letters = name.chars().take_while(char::is_ascii_alphabetic).count();
        let digits: String = name[letters..]
            .trim_start_matches(['-', '_'])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (letters <= 6 && !digits.is_empty()).then(|| digits.parse::<u32>().ok())?
    };
    if sprints
        .iter()
        .any(|s| own_number(s).is_some_and(|n| s.id.suffix.is_empty() && n != s.id.number))
    {
        return None;
    }
    let ids: Vec<String> = sprints.iter().map(|s| s.id.to_string()).collect();
    // Steps numbered by their place (`1.3`) but named by a code (`C-003:
    // Core module`) are named by that code's number in the lines, when no
    // two codes share it.
    let codes: Vec<Option<u32>> = sprints.iter().map(own_number).collect();
    let position = |id: &str| {
        ids.iter().position(|i| i == id).or_else(|| {
            let n: u32 = id.parse().ok()?;
            let mut named = codes.iter().enumerate().filter(|(_, c)| **c == Some(n));
            let (at, _) = named.next()?;
            named.next().is_none().then_some(at)
        })
    };
    let named_codes: Vec<Option<String>> =
        sprints.iter().map(|s| name_code(&s.sprint.name)).collect();
    // Steps naming their waits in asides closing their names (`(dep:
    // 1)`): one without an aside waits for every step before it, as an
    // aside can name any of them.
    let asides = sprints
        .iter()
        .any(|s| name_dependency(&s.sprint.name).is_some());
    let mut waits = Vec::with_capacity(sprints.len());
    let mut written = 0;
    for (me, s) in sprints.iter().enumerate() {
        let (in_body, several) = dependency_lines(&s.sprint.body);
        let aside = in_body.is_none();
        let line = in_body.or_else(|| name_dependency(&s.sprint.name));
        let Some(value) = line else {
            waits.push(match asides || several {
                true => (0..me).collect(),
                false => me.checked_sub(1).into_iter().collect(),
            });
            continue;
        };
        written += 1;
        let mut on = Vec::new();
        if let Some(coded) = by_code(&value, &named_codes, me) {
            on = coded;
        } else if let Some(ids) = referenced_ids(&value) {
            for id in ids {
                match position(&id) {
                    Some(p) if p < me => on.push(p),
                    _ => return None,
                }
            }
        } else if aside && !names_all(&value) {
            // An aside naming something else (`(dep: legal, ~1 week)`):
            // a wait the steps cannot keep, so they keep their order.
            return None;
        } else {
            // A line naming something no step answers to (`阶段一完成`,
            // `the API is stable`): the step waits for every step before
            // it, and the other lines still say what runs at once.
            on.extend(0..me);
        }
        on.sort_unstable();
        on.dedup();
        waits.push(on);
    }
    // Two lines at least, and some steps at once: otherwise the sequence
    // as written says the same.
    let chain = waits
        .iter()
        .enumerate()
        .all(|(i, w)| w.as_slice() == i.checked_sub(1).as_slice() || i == 0 && w.is_empty());
    (written >= 2 && !chain && at_once(&waits)).then_some(waits)
}

/// The code a step's name opens with (`ENV-01: Project Structure` →
/// `env-01`), lower-cased.
fn name_code(name: &str) -> Option<String> {
    let t = name.trim_start();
    let letters = t.chars().take_while(char::is_ascii_alphabetic).count();
    let rest = t[letters..].trim_start_matches(['-', '_']);
    let digits = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .count();
    let end = t.len() - rest.len() + digits;
    let code = t[..end].trim_end_matches('.');
    (letters > 0 && letters <= 8 && digits > 0).then(|| code.to_lowercase())
}

/// The earlier steps a line names by their codes (`env-01, core-02`,
/// `all previous tasks`), when every code it names opens exactly one
/// earlier step's name; None when it names anything else.
fn by_code(value: &str, codes: &[Option<String>], me: usize) -> Option<Vec<usize>> {
    let v = super::dependencies::strip_parentheticals(value);
    let v = v.trim().trim_end_matches('.');
    if super::dependencies::names_all_earlier(v) {
        return Some((0..me).collect());
    }
    let mut on = Vec::new();
    for token in v.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        let token = token.trim_matches(['(', ')', '[', ']', '*', '`', '.']);
        if token.is_empty() || matches!(token, "and" | "&" | "+") {
            continue;
        }
        let mut named = codes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.as_deref() == Some(token));
        let (p, _) = named.next()?;
        if named.next().is_some() || p >= me {
            return None;
        }
        on.push(p);
    }
    on.sort_unstable();
    on.dedup();
    (!on.is_empty()).then_some(on)
}

/// The positions of the steps `named` (by number), each before step `me`,
/// sorted; None when one is not an earlier step.
pub(super) fn earlier(
    named: &[u32],
    me: usize,
    position: impl Fn(u32) -> Option<usize>,
) -> Option<Vec<usize>> {
    let mut on = Vec::with_capacity(named.len());
    for &n in named {
        match position(n) {
            Some(p) if p < me => on.push(p),
            _ => return None,
        }
    }
    on.sort_unstable();
    on.dedup();
    Some(on)
}

/// Steps whose lines name a later step (a board listing its backlog above
/// what is done) run after it: the steps are put in an order that obeys
/// every line, otherwise as written. Whether they were moved.
pub(super) fn reorder(sprints: &mut Vec<RawSprint>) -> bool {
    // Whole numbers, or numbers under a number (`1.3` after `1.4`).
    let dotted = |s: &RawSprint| {
        s.id.suffix.is_empty()
            || s.id
                .suffix
                .strip_prefix('.')
                .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
    };
    if sprints.len() < 2 || !sprints.iter().all(dotted) {
        return false;
    }
    // Whole ids by number; dotted ones (rarer) by their text.
    let mut whole: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    let mut parts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, s) in sprints.iter().enumerate() {
        if s.id.suffix.is_empty() {
            whole.entry(s.id.number).or_insert(i);
        } else {
            parts.entry(s.id.to_string()).or_insert(i);
        }
    }
    // `tasks 01 and 02` name steps 1 and 2.
    let position = |id: String| {
        if let Ok(n) = id.parse::<u32>() {
            return whole.get(&n).copied();
        }
        let canonical: Vec<String> = id
            .split('.')
            .map(|part| {
                part.parse::<u32>()
                    .map_or(part.to_string(), |n| n.to_string())
            })
            .collect();
        parts.get(&canonical.join(".")).copied()
    };
    let mut waits: Vec<Vec<usize>> = Vec::with_capacity(sprints.len());
    let mut later = false;
    for (me, s) in sprints.iter().enumerate() {
        let on: Vec<usize> = dependency_lines(&s.sprint.body)
            .0
            .and_then(|v| referenced_ids(&v))
            .unwrap_or_default()
            .into_iter()
            .filter_map(position)
            .filter(|&p| p != me)
            .collect();
        later |= on.iter().any(|&p| p > me);
        waits.push(on);
    }
    if !later {
        return false;
    }
    // Each round places the first step written whose waits are placed.
    let mut left: Vec<usize> = waits.iter().map(Vec::len).collect();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); sprints.len()];
    for (i, w) in waits.iter().enumerate() {
        for &d in w {
            after[d].push(i);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..sprints.len()).filter(|&i| left[i] == 0).collect();
    let mut order = Vec::with_capacity(sprints.len());
    while let Some(next) = ready.pop_first() {
        order.push(next);
        for &i in &after[next] {
            left[i] -= 1;
            if left[i] == 0 {
                ready.insert(i);
            }
        }
    }
    if order.len() < sprints.len() {
        return false; // a cycle: the lines contradict each other
    }
    let mut taken: Vec<Option<RawSprint>> = sprints.drain(..).map(Some).collect();
    sprints.extend(order.into_iter().filter_map(|i| taken[i].take()));
    true
}

/// Whether some two steps wait for neither of the other (every step
/// waits only for earlier ones).
pub(super) fn at_once(waits: &[Vec<usize>]) -> bool {
    let mut before: Vec<std::collections::BTreeSet<usize>> = Vec::with_capacity(waits.len());
    for w in waits {
        let mut all: std::collections::BTreeSet<usize> = w.iter().copied().collect();
        for &d in w {
            all.extend(before[d].iter().copied());
        }
        before.push(all);
    }
    before.iter().enumerate().any(|(i, b)| b.len() < i)
}

/// The step's own dependency line: the one its text holds; and whether it
/// holds two or more. A step whose tasks each say what they wait for
/// (`**Blocked By**: Task 3` under each of `- [x] 4. Monorepo Setup`, `- [
/// ] 5. Electron shell`) names tasks by their numbers, not steps: it has
/// no line of its own, and waits for every step before it.
fn dependency_lines(body: &str) -> (Option<String>, bool) {
    let mut lines = body.lines().filter_map(dependency_value);
    let Some(first) = lines.next() else {
        return (None, false);
    };
    match lines.next() {
        None => (Some(first), false),
        Some(_) => (None, true),
    }
}

/// The value of a dependency line (`- **Blocked by:** Task 03.` →
/// `Task 03.`), lower-cased.
fn dependency_value(line: &str) -> Option<String> {
    // Every key is followed by a colon: most lines are no dependency line,
    // and every step's every line is asked (`reorder`).
    if !line.contains(':') {
        return None;
    }
    // `**Priority:** HIGH | **Effort:** 6 hours | **Dependencies:** C-003`,
    // `**Status:** [x] · **Depends on:** T001`: fields on one line, each
    // read as a line of its own.
    match FIELD_SEPARATORS.iter().find(|s| line.contains(*s)) {
        Some(separator) => line.split(separator).find_map(dependency_field),
        None => dependency_field(line),
    }
}

/// The value of a dependency aside closing a step's own name: `**2.
/// Persistence** (dep: 1)`, `Reports (deps: 11, 13)`.
fn name_dependency(name: &str) -> Option<String> {
    let inner = name.trim_end().strip_suffix(')')?;
    let (_, inner) = inner.rsplit_once('(')?;
    dependency_field(inner)
}

/// An aside naming every step before (`(dep: all)`, `(deps: todas)`).
fn names_all(value: &str) -> bool {
    matches!(
        value.trim(),
        "all" | "todas" | "todos" | "tous" | "alle" | "tutte" | "tutti"
    ) || super::dependencies::names_all_earlier(value)
}

/// A step's name without the dependency aside closing it (`Reports (dep:
/// 11, 13)` → `Reports`).
pub(super) fn without_dependency_aside(name: &str) -> &str {
    match name_dependency(name) {
        Some(_) => name
            .trim_end()
            .rsplit_once('(')
            .map_or(name, |(n, _)| n.trim_end()),
        None => name,
    }
}

/// What divides the fields written on one line.
const FIELD_SEPARATORS: [&str; 3] = [" | ", " · ", " • "];

/// The value of a line that opens with a dependency key, up to the next
/// field on the line.
fn dependency_field(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches(['-', '*', '+', ' ', '_']);
    // Every key opens with one of these, or is written in another script
    // (`**依赖**: 1.3, 1.4`): most lines are no dependency line.
    let first = t.as_bytes().first()?.to_ascii_lowercase();
    if !matches!(first, b'd' | b'b' | b'r') && first.is_ascii() {
        return None;
    }
    let (key, value) = super::completion::split_label(t)?;
    let key = key.trim().trim_matches(['*', '_', ' ']);
    let value = FIELD_SEPARATORS
        .iter()
        .fold(value, |v, s| v.split_once(s).map_or(v, |(first, _)| first));
    let known = if first.is_ascii() {
        KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
    } else {
        let key = key.to_lowercase();
        super::dependencies::DEPENDENCY_COLUMNS.contains(&key.as_str())
    };
    known.then(|| value.trim().trim_matches(['*', '_', ' ']).to_lowercase())
}

/// The step numbers a dependency value names, or None when it names
/// something else (a step numbered under another, too).
pub(super) fn referenced_numbers(value: &str) -> Option<Vec<u32>> {
    referenced_ids(value)?
        .iter()
        .map(|id| id.parse().ok())
        .collect()
}

/// A dependency value that names nothing: empty, `None`, `n/a`, a dash,
/// in the plans' languages.
pub(super) fn names_nothing(value: &str) -> bool {
    const NONE: &[&str] = &[
        "none", "n/a", "-", "—", "–", "nothing", "nada", "ninguna", "ninguno", "keine", "kein",
        "aucune", "aucun", "nenhuma", "nenhum", "nessuna", "nessuno", "нет", "无", "無", "なし",
        "없음",
    ];
    let v = value.trim().trim_matches(['*', '`']).trim();
    // Every line of every step is asked (`reorder`): compared in place,
    // without a lower-cased copy.
    v.is_empty()
        || NONE.iter().any(|w| {
            v.get(..w.len()).is_some_and(|head| {
                head.chars().flat_map(char::to_lowercase).eq(w.chars())
                    && matches!(v[w.len()..].chars().next(), None | Some(' ' | ','))
            })
        })
}

/// The step ids a dependency value names (`1`, `1.1`), or None when it
/// names something else. `None`, `n/a` and a dash name nothing.
fn referenced_ids(value: &str) -> Option<Vec<String>> {
    // `Phase 2 (fixes code in Phase 2 handlers)`: the aside is no reference.
    let v = super::dependencies::strip_parentheticals(value);
    let v = v.trim_end_matches(['.', ' ', '✅']);
    if names_nothing(v) {
        return Some(Vec::new());
    }
    // Words that may stand before a step number; anything else is not a
    // reference to a step.
    // The same in the plans' languages (`1 y 3`, `Fase 2`, `Phase 1 und 2`).
    const WORDS: &[&str] = &[
        "task",
        "tasks",
        "group",
        "groups",
        "step",
        "steps",
        "phase",
        "phases",
        "and",
        "to",
        "t",
        "#",
        "&",
        "+",
        "y",
        "e",
        "und",
        "et",
        "fase",
        "fases",
        "phasen",
        "etapa",
        "etapas",
        "étape",
        "étapes",
        "tarea",
        "tareas",
        "paso",
        "pasos",
        "schritt",
        "schritte",
        "шаг",
        "шаги",
        "шага",
        "шагов",
        "этап",
        "этапы",
        "этапа",
        "этапов",
        "фаза",
        "фазы",
        "задача",
        "задачи",
        "и",
        "etap",
        "etapy",
        "fasi",
        "passo",
        "passi",
        "i",
    ];
    let mut out = Vec::new();
    let mut pending_range = false;
    for token in v.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        let token = token.trim_matches(['(', ')', '[', ']', '.', '*']);
        if token.is_empty() {
            continue;
        }
        // `task-201`, `story-3`: a code's number.
        let token = token
            .split_once('-')
            .filter(|(w, n)| {
                !w.is_empty()
                    && w.chars().all(char::is_alphabetic)
                    && n.chars().all(|c| c.is_ascii_digit())
            })
            .map_or(token, |(_, n)| n);
        let code = token.trim_start_matches(['t', 'T', '#']);
        if let Some((a, b)) = code.split_once(['-', '–']) {
            let (a, b): (u32, u32) = (a.parse().ok()?, b.trim_start_matches('t').parse().ok()?);
            if b < a || b - a > 200 {
                return None;
            }
            out.extend((a..=b).map(|n| n.to_string()));
        } else if let Ok(n) = code.parse::<u32>() {
            if pending_range {
                let from: u32 = out.last()?.parse().ok()?;
                out.extend((from + 1..=n).map(|n| n.to_string()));
                pending_range = false;
            } else {
                out.push(n.to_string());
            }
        } else if let Some((a, b)) = code.split_once('.').filter(|(a, b)| {
            !a.is_empty()
                && !b.is_empty()
                && (a.chars().chain(b.chars())).all(|c| c.is_ascii_digit())
        }) {
            // `Phase 1.1`: a step numbered under another.
            out.push(format!("{}.{}", a.parse::<u32>().ok()?, b));
        } else if token == "to" && !out.is_empty() {
            pending_range = true;
        } else if !WORDS.contains(&token) {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_steps_by_number() {
        assert_eq!(
            dependency_value("**Dependencies:** Task Group 1").as_deref(),
            Some("task group 1")
        );
        assert_eq!(
            dependency_value("  - **Blocked by:** Tasks 01 and 02.").as_deref(),
            Some("tasks 01 and 02.")
        );
        assert_eq!(
            dependency_value("  - _Depends: 2, 3_").as_deref(),
            Some("2, 3")
        );
        assert_eq!(dependency_value("Run: make"), None);
        // Fields that share a line.
        assert_eq!(
            dependency_value("**Priority:** HIGH | **Dependencies:** C-003").as_deref(),
            Some("c-003")
        );
        assert_eq!(
            dependency_value("- **Status:** `[x]`  · **Depends on:** T001").as_deref(),
            Some("t001")
        );
        assert_eq!(
            referenced_numbers("task groups 1-8"),
            Some((1..=8).collect())
        );
        assert_eq!(referenced_numbers("tasks 01 and 02."), Some(vec![1, 2]));
        assert_eq!(referenced_numbers("t1, t2"), Some(vec![1, 2]));
        assert_eq!(
            referenced_numbers("none — can start immediately."),
            Some(vec![])
        );
        assert_eq!(referenced_numbers("foundational phase completion"), None);
        assert_eq!(
            referenced_numbers("phase 2, phase 4 (fixes code in phase 2 handlers)"),
            Some(vec![2, 4])
        );
        assert_eq!(referenced_numbers("phase 1"), Some(vec![1]));
        assert_eq!(
            referenced_numbers("task-301, task-302"),
            Some(vec![301, 302])
        );
        // In the plans' languages.
        assert_eq!(referenced_numbers("1 y 3"), Some(vec![1, 3]));
        assert_eq!(referenced_numbers("**fase 2**"), Some(vec![2]));
        assert_eq!(referenced_numbers("nada"), Some(vec![]));
        assert_eq!(referenced_numbers("phase 1 und 2"), Some(vec![1, 2]));
    }
}
