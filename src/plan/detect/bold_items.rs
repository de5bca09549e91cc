//! Numbered list items read as step headings, byte for byte: items that
//! open with a bold label (`1. **Step 1**: Upgrade …`, `2. **Migrate the
//! store**` with a `Status:` sub-bullet), two or more in one list, or
//! under a heading that names their order (`## Implementation order`);
//! in the last reading before a refusal any numbered bold item, and
//! plain numbered items under such a heading (`## Execution Order` over
//! `1. phase-01-inspection.md`).

use super::outline::into_heading;
use super::outline::starts_with_step_word;
use super::Block;

type Candidate = (usize, String, bool);

/// Numbered list items that open with a bold label, two or more in one
/// list, each with a `Status:` line or a step word in its label, become
/// headings one level below their section.
/// With `any`, the last reading before a refusal: every numbered bold item
/// is a step, one to a section too, when there are two or more; with
/// `plain` too, plain numbered items under a heading naming their order,
/// and with `plain_anywhere` under any heading not about the plan (the
/// very last reading).
pub(super) fn promote_bold_items(
    source: &str,
    mut blocks: Vec<Block>,
    any: bool,
    plain: bool,
    plain_anywhere: bool,
    by_order: &mut Option<(usize, usize)>,
) -> Vec<Block> {
    // Only where no heading is a work item already: elsewhere such lists
    // are read by the readers of their sections (waves, a suggested order).
    let headed = blocks.iter().any(|b| {
        matches!(b, Block::Heading { text, .. }
            if matches!(super::headings::parse_heading(text), Some(super::headings::Heading::Sprint(_))))
    });
    if headed || super::task_list::holds_task_list(&blocks) {
        return blocks;
    }
    let mut section_level = 1u8;
    // Runs of candidate items: (block index, heading text, written with a
    // step word).
    let mut run: Vec<Candidate> = Vec::new();
    // (level, items, under a heading naming their order, with a status
    // line or a step word)
    let mut runs: Vec<(u8, Vec<Candidate>, bool, bool)> = Vec::new();
    let mut has_status = false;
    // Whether the section's heading names an order of steps (`## 5.
    // Umsetzungsreihenfolge (Phasen)`, `## Implementation order`): its
    // numbered bold items are those steps, unless they name sections the
    // plan details elsewhere (then the list is an index of them).
    let mut ordered = false;
    // Whether it says the order to do them in, in so many words (`Ticket
    // Files (Execute in Order)`): only then is a bulleted list the steps.
    let mut execution_order = false;
    // Whether the section is about the plan (`## Vision`, `## Goals`).
    let mut about = false;
    // Made when a run under such a heading is first met: most plans have
    // none.
    let headings: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let restates = |run: &[Candidate]| {
        let headings = headings.get_or_init(|| {
            blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Heading { text, .. } => Some(text.to_lowercase()),
                    _ => None,
                })
                .collect()
        });
        let named = run
            .iter()
            .filter(|(_, text, _)| {
                let label = text
                    .split_once(": ")
                    .map_or(text.as_str(), |(_, l)| l)
                    .split(" — ")
                    .next()
                    .unwrap_or_default()
                    .to_lowercase();
                // `T.1-T.3 — Tests` names the headings `### T.1 — …` to
                // `### T.3 — …` by a span of their codes: an index of
                // steps the plan heads, not steps.
                let word = label
                    .split(' ')
                    .next()
                    .unwrap_or_default()
                    .trim_matches('*');
                let code = match word.split_once(['-', '–']) {
                    Some((from, to)) if to.chars().any(|c| c.is_ascii_digit()) => from,
                    _ => "",
                };
                let opens = |h: &str| {
                    let h = h.trim_start_matches(|c: char| !c.is_alphanumeric());
                    h.strip_prefix(code)
                        .is_some_and(|rest| rest.starts_with(|c: char| !c.is_alphanumeric()))
                };
                headings.iter().any(|h| h.contains(&label))
                    || (code.chars().any(|c| c.is_ascii_digit())
                        && headings.iter().any(|h| opens(h)))
            })
            .count();
        named * 2 >= run.len()
    };
    let mut flush = |run: &mut Vec<Candidate>, level: u8, status: bool, ordered: bool| {
        let stepped = run.iter().all(|(_, _, stepped)| *stepped);
        let ordered = ordered && !restates(run);
        if (run.len() >= 2 && (status || stepped || ordered)) || (any && !run.is_empty()) {
            if ordered && !status && !stepped && by_order.is_none() {
                *by_order = run.first().map(|(i, _, _)| (*i, run.len()));
            }
            runs.push((level, std::mem::take(run), ordered, status || stepped));
        }
        run.clear();
    };
    for (i, block) in blocks.iter().enumerate() {
        match block {
            Block::Heading { level, text, .. } => {
                flush(&mut run, section_level, has_status, ordered);
                has_status = false;
                ordered = names_an_order(text);
                execution_order = names_an_execution_order(text);
                // `## 1.2.0 - 2024-03-01`: a release's entries, done.
                about = super::about_plan::describes_plan(text)
                    || plain_anywhere
                        && text
                            .trim_start_matches(['v', 'V'])
                            .starts_with(|c: char| c.is_ascii_digit());
                section_level = *level;
            }
            // `## Vision` over `1. **Deepen the quality** …`: the plan's
            // aims, not its steps.
            Block::Item { depth: 0, .. } if about => {}
            Block::Item {
                depth: 0,
                span,
                checked: None,
                ..
            } => match bold_item(&source[span.clone()])
                .or_else(|| {
                    (plain && (ordered || plain_anywhere))
                        .then(|| plain_numbered_item(&source[span.clone()]))?
                })
                .or_else(|| {
                    (plain && execution_order)
                        .then(|| bulleted_item(&source[span.clone()], run.len() + 1))?
                }) {
                Some((text, stepped)) => run.push((i, text, stepped)),
                None => {
                    flush(&mut run, section_level, has_status, ordered);
                    has_status = false;
                }
            },
            Block::Item { text, depth, .. } if *depth > 0 && !run.is_empty() => {
                let l = text.trim_start_matches(['*', '_']).to_ascii_lowercase();
                has_status |= l.starts_with("status");
            }
            Block::Item { .. } => {}
            _ if run.is_empty() => {}
            _ => {
                flush(&mut run, section_level, has_status, ordered);
                has_status = false;
            }
        }
    }
    flush(&mut run, section_level, has_status, ordered);
    // `## Порядок выполнения` (order of execution) over a plain list, and
    // `## Подход` (approach) over bold items saying how: the ordered list
    // is the steps, the other describes them.
    if runs.iter().any(|(_, _, ordered, _)| *ordered) {
        runs.retain(|(_, _, ordered, strong)| *ordered || *strong);
    }
    if any && runs.iter().map(|(_, r, _, _)| r.len()).sum::<usize>() < 2 {
        return blocks;
    }
    // `In short: 1. Add a /healthz endpoint. 2. Cover it with a test.`,
    // then `In detail:` the same steps at length: a list whose items open
    // as another's do, item by item, restates it; the longer is kept.
    if plain_anywhere {
        let opening = |t: &str| -> String {
            let label = t.split_once(": ").map_or(t, |(_, l)| l);
            label
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let length = |items: &[Candidate]| items.iter().map(|(_, t, _)| t.len()).sum::<usize>();
        let mut k = 0;
        while k < runs.len() {
            let twin = (0..runs.len()).find(|&j| {
                j != k
                    && runs[j].1.len() == runs[k].1.len()
                    && runs[j]
                        .1
                        .iter()
                        .zip(&runs[k].1)
                        .all(|(a, b)| opening(&a.1) == opening(&b.1))
                    && (length(&runs[j].1), j) > (length(&runs[k].1), k)
            });
            if twin.is_some() {
                runs.remove(k);
            } else {
                k += 1;
            }
        }
    }
    // Numbered instructions in several lists (`1) … 3)` under one heading,
    // `1. … 8.` under the next) are one series of steps, counted on across
    // the lists at the outermost list's level: each list numbered from 1
    // would read as the same steps twice.
    let series_level = plain_anywhere
        .then(|| runs.iter().map(|(level, ..)| *level).min())
        .flatten();
    let mut counted = 0;
    for (level, items, _, _) in runs {
        for (i, text, _) in items {
            let (level, text) = match series_level {
                Some(outer) => {
                    counted += 1;
                    let label = text
                        .strip_prefix("Step ")
                        .and_then(|t| t.split_once(": "))
                        .map_or(text.as_str(), |(_, label)| label);
                    (outer, format!("Step {counted}: {label}"))
                }
                None => (level, text),
            };
            into_heading(&mut blocks, i, level + 1, text);
        }
    }
    blocks
}

/// Whether a heading of the text names it work to do: a task, a plan, a
/// to-do list or instructions, in the plans' languages.
pub(super) fn headings_name_work(source: &str) -> bool {
    const WORK: &[&str] = &[
        "task",
        "plan",
        "todo",
        "to-do",
        "to do",
        "instruction",
        "checklist",
        "tarea",
        "instrucci",
        "tarefa",
        "instruç",
        "aufgabe",
        "anleitung",
        "tâche",
        "consigne",
        "задач",
        "план",
        "инструкци",
        "任务",
        "计划",
        "待办",
        "指示",
        "タスク",
        "計画",
        "手順",
        "작업",
        "계획",
        "할 일",
    ];
    source.lines().filter(|l| l.starts_with('#')).any(|l| {
        let lower = l.to_lowercase();
        WORK.iter().any(|w| lower.contains(w))
    })
}

/// `3. phase-03-emergency.md` under `## Execution Order`: a plain
/// numbered item, a step in the last reading before a refusal when its
/// heading names the order of the steps (elsewhere such a list restates
/// work the plan details, or marks done, in another form).
fn plain_numbered_item(raw: &str) -> Option<(String, bool)> {
    let (number, label) = numbered_line(raw)?;
    let label = label.trim_end();
    if label.is_empty() || label.starts_with("**") {
        return None;
    }
    Some((format!("Step {number}: {label}"), false))
}

/// `- 02_STAGING_INDEXES.md - Deploy indexes` under `### Ticket Files
/// (Execute in Order)`: a bulleted item is the `number`th step only where
/// its heading names the order of the steps.
fn bulleted_item(raw: &str, number: usize) -> Option<(String, bool)> {
    let first = raw.lines().next()?.trim();
    let label = first.strip_prefix(['-', '*', '+'])?.trim();
    if label.is_empty() || label.starts_with("**") || label.starts_with('[') {
        return None;
    }
    Some((format!("Step {number}: {label}"), false))
}

/// `(3, rest)` of an item's first line `3. rest` or `3) rest`.
fn numbered_line(raw: &str) -> Option<(&str, &str)> {
    let first = raw.lines().next()?.trim();
    let digits = first.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = first[digits..].strip_prefix(['.', ')'])?.trim_start();
    Some((&first[..digits], rest))
}

/// `1. **Step 1**: Upgrade the framework` → `Step 1: Upgrade the
/// framework`; `2. **Migrate the store**` → `2. Migrate the store`.
fn bold_item(raw: &str) -> Option<(String, bool)> {
    let (number, rest) = numbered_line(raw)?;
    let inner = rest.strip_prefix("**")?;
    let close = inner.find("**")?;
    let label = inner[..close].trim().trim_end_matches(':');
    let after = inner[close + 2..]
        .trim_start_matches([':', ' ', '—', '–', '-'])
        .trim();
    if label.is_empty() {
        return None;
    }
    let stepped = starts_with_step_word(label);
    let text = if stepped {
        if after.is_empty() {
            label.to_string()
        } else {
            format!("{label}: {after}")
        }
    } else if after.is_empty() {
        format!("Step {number}: {label}")
    } else {
        format!("Step {number}: {label} — {after}")
    };
    Some((text, stepped))
}

/// A heading that says, in so many words, the order to do its items in
/// (`Ticket Files (Execute in Order)`, `Execution order`,
/// `Reihenfolge`): not a noun (`Order service`), a list of dates
/// (`Milestones`) or a recipe (`Steps to reproduce`).
fn names_an_execution_order(heading: &str) -> bool {
    let lower = heading.to_lowercase();
    const PHRASES: &[&str] = &[
        "execute in order",
        "execution order",
        "order of execution",
        "order of work",
        "run in order",
        "implementation order",
        "reihenfolge",
        "порядок выполнения",
        "orden de ejecución",
        "ordem de execução",
        "実行順",
        "执行顺序",
    ];
    PHRASES
        .iter()
        .chain(super::order_prose::IN_ORDER)
        .any(|p| lower.contains(p))
}

/// A heading that names an order of steps: `Implementation order`,
/// `Rollout phases`, `Umsetzungsreihenfolge (Phasen)`, `Orden de las
/// fases`.
pub(super) fn names_an_order(heading: &str) -> bool {
    const WORDS: &[&str] = &[
        "order",
        "sequence",
        "phases",
        "stages",
        "steps",
        "milestones",
        "reihenfolge",
        "phasen",
        "schritte",
        "meilensteine",
        "orden",
        "ordem",
        "ordine",
        "ordre",
        "fases",
        "fasi",
        "étapes",
        "etapas",
        "hitos",
        // Cyrillic is compared as written: both cases.
        "порядок",
        "Порядок",
        "этапы",
        "Этапы",
        "очерёдность",
        "Очерёдность",
    ];
    // Every heading passes here: compared in place, never copied.
    let ends_with = |w: &str, k: &str| {
        w.len() > k.len()
            && w.is_char_boundary(w.len() - k.len())
            && w[w.len() - k.len()..].eq_ignore_ascii_case(k)
    };
    heading.split(|c: char| !c.is_alphanumeric()).any(|w| {
        WORDS
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k) || (k.len() > 7 && ends_with(w, k)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bold_items_read_as_steps() {
        assert_eq!(
            bold_item("1. **Step 1**: Upgrade v5"),
            Some(("Step 1: Upgrade v5".into(), true))
        );
        assert_eq!(
            bold_item("2. **Migrate the store**"),
            Some(("Step 2: Migrate the store".into(), false))
        );
        assert_eq!(bold_item("- **Step 1**: x"), None);
        assert_eq!(bold_item("1. plain"), None);
    }
}
