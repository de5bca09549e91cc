//! Which word names the plan's sprints (`Sprint`, `Phase`, `Step`, …)
//! when several are used: the rule that picks one.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use super::headings::Heading;
use super::headings::Word;
use super::is_task_group_id;
use super::Block;

/// The plan's sprint word: Sprint, else Sortie (whichever has more
/// headings); else a word whose headings sit inside another word's (Steps
/// inside Phases); else the outermost of the words written twice or more,
/// then the most frequent.
pub(super) fn choose_word(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &[Option<Heading>],
    seen: &BTreeMap<Word, usize>,
) -> Option<Word> {
    choose_word_among(blocks, parent, parsed, seen)
}

/// The plan's longest series of coded headings (`TODO-001`, `FEAT-12`),
/// no sprint word of their own, when it is at least three times the
/// word's distinct headings and lies mostly outside them: nineteen `### TODO-001:
/// …` across the plan's sections and one `## WEEK 1-2 ACTIONS` among
/// them. The series is the work; the word names a section of it. Each
/// heading (by index) with its number.
pub(super) fn coded_series(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &[Option<Heading>],
    word: Word,
) -> Option<Vec<(usize, u32)>> {
    let mut series: BTreeMap<String, Vec<(usize, u32)>> = BTreeMap::new();
    for (i, b) in blocks.iter().enumerate() {
        let Block::Heading { text, .. } = b else {
            continue;
        };
        if matches!(parsed[i], Some(Heading::Sprint(_))) {
            continue;
        }
        if let Some((code, n)) = heading_code(text) {
            series.entry(code).or_default().push((i, n));
        }
    }
    let longest = series.into_values().max_by_key(Vec::len)?;
    let numbers: BTreeSet<u32> = longest.iter().map(|(_, n)| *n).collect();
    let word_headings: Vec<usize> = parsed
        .iter()
        .enumerate()
        .filter_map(|(i, h)| match h {
            Some(Heading::Sprint(h)) if h.word == word && !is_task_group_id(h.word, &h.id) => {
                Some(i)
            }
            _ => None,
        })
        .collect();
    // `### Week 1-2 (HIGH)` in a priority matrix restates the section.
    let word_ids: BTreeSet<String> = word_headings
        .iter()
        .filter_map(|&i| match &parsed[i] {
            Some(Heading::Sprint(h)) => Some(h.id.to_lowercase()),
            _ => None,
        })
        .collect();
    let inside = longest
        .iter()
        .filter(|(i, _)| {
            let mut up = parent[*i];
            while let Some(p) = up {
                if word_headings.contains(&p) {
                    return true;
                }
                up = parent[p];
            }
            false
        })
        .count();
    // `## FIX-001 …` holding `### Sprint 1: …`: the codes name units of
    // the word's steps, not steps beside them.
    let holding = word_headings.iter().any(|&w| {
        let mut up = parent[w];
        while let Some(p) = up {
            if longest.iter().any(|(i, _)| *i == p) {
                return true;
            }
            up = parent[p];
        }
        false
    });
    let outweighs = !holding
        && numbers.len() >= 3
        && numbers.len() == longest.len()
        && numbers.len() >= 3 * word_ids.len()
        && inside * 2 < longest.len();
    outweighs.then_some(longest)
}

/// `TODO-001` of `TODO-001: Set up the environment ⚡`: a code the
/// numbered-heading reader reads, of capitals, a dash and a number.
fn heading_code(text: &str) -> Option<(String, u32)> {
    let (code, _) = super::numbered::numbered_heading(text)?;
    let (letters, number) = code.split_once('-')?;
    let shaped = (1..=8).contains(&letters.len())
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && number.chars().all(|c| c.is_ascii_digit());
    shaped.then(|| Some((letters.to_string(), number.parse().ok()?)))?
}

fn choose_word_among(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &[Option<Heading>],
    seen: &BTreeMap<Word, usize>,
) -> Option<Word> {
    // `### M1 — …` among `### B1 — …` and `### I1 — …`: codes of a task
    // list, not milestones.
    if count_letter_codes(blocks) >= 2 {
        let mut seen = seen.clone();
        seen.remove(&Word::Milestone);
        let parsed: Vec<Option<Heading>> = parsed
            .iter()
            .zip(blocks)
            .map(|(h, b)| match (h, b) {
                (Some(Heading::Sprint(s)), Block::Heading { text, .. })
                    if s.word == Word::Milestone && letter_code(text) == Some("M") =>
                {
                    None
                }
                (h, _) => h.clone(),
            })
            .collect();
        if seen.values().sum::<usize>() == 0 {
            return None;
        }
        return choose_word_of(blocks, parent, &parsed, &seen);
    }
    choose_word_of(blocks, parent, parsed, seen)
}

/// `B1 — Fix the IPs` → `B`: a heading opened by capitals and a number
/// and a separator.
fn letter_code(text: &str) -> Option<&str> {
    let t = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let letters = t.chars().take_while(char::is_ascii_uppercase).count();
    let digits = t[letters..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count();
    let after = &t[letters + digits..];
    (letters > 0 && letters <= 3 && digits > 0 && after.starts_with([' ', ':', '.']))
        .then(|| &t[..letters])
}

/// How many letter codes other than `M` open headings of the plan.
fn count_letter_codes(blocks: &[Block]) -> usize {
    let codes: BTreeSet<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { text, .. } => letter_code(text),
            _ => None,
        })
        .filter(|c| *c != "M")
        .collect();
    codes.len()
}

fn choose_word_of(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &[Option<Heading>],
    seen: &BTreeMap<Word, usize>,
) -> Option<Word> {
    let count = |w: Word| seen.get(&w).copied().unwrap_or(0);
    let sprint_word = (count(Word::Sprint) > 0 || count(Word::Sortie) > 0).then(|| {
        if count(Word::Sortie) > count(Word::Sprint) {
            Word::Sortie
        } else {
            Word::Sprint
        }
    });
    // Per word: (min level, count, headings nested in another word's).
    let mut stats: BTreeMap<Word, (u8, usize, usize)> = BTreeMap::new();
    // Per word: the other word's headings its nested headings sit in.
    let mut outers: BTreeMap<Word, (Word, BTreeSet<usize>)> = BTreeMap::new();
    // Per word: its distinct ids (`### Phase 0 deliverables` restates
    // `## Phase 0`; it is no other phase).
    let mut ids: BTreeMap<Word, BTreeSet<String>> = BTreeMap::new();
    // Per word: every distinct id, task groups too (`Task 1.1`), for how
    // far an inner word's headings spread over them.
    let mut all_ids: BTreeMap<Word, BTreeSet<String>> = BTreeMap::new();
    // Per word: its headings, to ask whether every one sits in a section
    // naming a routine (`## 5. Незмінний цикл роботи агента`, `## Daily
    // workflow`).
    let mut headings_of: BTreeMap<Word, Vec<usize>> = BTreeMap::new();
    for (i, h) in parsed.iter().enumerate() {
        let Some(Heading::Sprint(h)) = h else {
            continue;
        };
        all_ids
            .entry(h.word)
            .or_default()
            .insert(h.id.to_ascii_lowercase());
        if is_task_group_id(h.word, &h.id) {
            continue;
        }
        ids.entry(h.word)
            .or_default()
            .insert(h.id.to_ascii_lowercase());
        let Block::Heading { level, .. } = &blocks[i] else {
            continue;
        };
        let mut nested = false;
        let mut up = parent[i];
        while let Some(p) = up {
            if let Some(Heading::Sprint(o)) = &parsed[p] {
                if o.word != h.word {
                    nested = true;
                    let e = outers.entry(h.word).or_insert((o.word, BTreeSet::new()));
                    e.1.insert(p);
                    break;
                }
            }
            up = parent[p];
        }
        headings_of.entry(h.word).or_default().push(i);
        let e = stats.entry(h.word).or_insert((u8::MAX, 0, 0));
        e.0 = e.0.min(*level);
        e.1 += 1;
        e.2 += usize::from(nested);
    }
    // A routine the plan repeats for each piece of work (`### Крок 1 —
    // SYNC` … `### Крок 11` of the agent's cycle) is how each step is
    // done, not the steps, when another word names them.
    if stats.len() > 1 {
        let in_routine = |i: usize| {
            std::iter::successors(parent[i], |&p| parent[p]).any(|p| {
                matches!(&blocks[p], Block::Heading { text, .. } if super::about_plan::names_routine(text))
            })
        };
        let routine = |w: &Word| {
            headings_of
                .get(w)
                .is_some_and(|hs| hs.iter().all(|&i| in_routine(i)))
        };
        if stats.keys().any(|w| !routine(w)) {
            stats.retain(|w, _| !routine(w));
        }
    }
    // Steps inside Phases are the sprints only when most phases hold steps:
    // `### Step N` inside one `## Task 5` of six are that task's parts.
    let spread = |w: &Word| {
        outers.get(w).is_some_and(|(outer, within)| {
            within.len() * 2 >= all_ids.get(outer).map_or(0, BTreeSet::len)
        })
    };
    // `Sprint` names the sprints, unless every Sprint heading sits inside
    // a few of another word's headings (`#### Sprint 1` … `4` under one
    // `### Phase 0.4` of ten phases): those are that phase's parts, and
    // choosing them would drop every other phase.
    if let Some(w) = sprint_word {
        let parts = stats
            .get(&w)
            .is_some_and(|&(_, n, nested)| n > 0 && nested == n && !spread(&w));
        if !parts && !schedules_others(blocks, parent, parsed, w, &ids) {
            return Some(w);
        }
        stats.remove(&Word::Sprint);
        stats.remove(&Word::Sortie);
    }
    let pick = |stats: &BTreeMap<Word, (u8, usize, usize)>| {
        let inner = stats
            .iter()
            .filter(|(w, &(_, n, nested))| nested * 2 >= n && n >= 2 && spread(w))
            .max_by_key(|(w, &(_, n, _))| (n, std::cmp::Reverse(**w)))
            .map(|(w, _)| *w);
        // `### M0：仓库冻结` … `### M7` listed after eight `### 4.1
        // 第一阶段` … at their level: milestones summing up the stages
        // before them, checkpoints of that work rather than the work.
        // The stages must hold more list items than the milestones: three
        // `### Phase N` summaries over milestones holding every box leave
        // the milestones the work.
        // Items under a word's headings; with `boxes`, boxed ones only.
        let under_word = |word: &Word, boxes: bool| {
            let heads: BTreeSet<usize> = headings_of
                .get(word)
                .map(|hs| hs.iter().copied().collect())
                .unwrap_or_default();
            // Items belong to the heading above them (only headings have
            // parents).
            let mut under = None;
            let mut count = 0;
            for (b, block) in blocks.iter().enumerate() {
                match block {
                    Block::Heading { .. } => under = Some(b),
                    Block::Item { checked, .. } if !boxes || checked.is_some() => {
                        count += usize::from(
                            std::iter::successors(under, |&p| parent[p])
                                .any(|p| heads.contains(&p)),
                        );
                    }
                    _ => {}
                }
            }
            count
        };
        let items_under = |word: &Word| under_word(word, false);
        // Whether every box under a word's headings is ticked.
        let all_ticked = |word: &Word| {
            let heads: BTreeSet<usize> = headings_of
                .get(word)
                .map(|hs| hs.iter().copied().collect())
                .unwrap_or_default();
            let mut under = None;
            blocks.iter().enumerate().all(|(b, block)| match block {
                Block::Heading { .. } => {
                    under = Some(b);
                    true
                }
                Block::Item {
                    checked: Some(false),
                    ..
                } => !std::iter::successors(under, |&p| parent[p]).any(|p| heads.contains(&p)),
                _ => true,
            })
        };
        // Two series at one level, one holding the boxes the author ticks
        // (`### ✅ Phase 1` over `- [x] …`) and one plain lists (`### Week
        // 1` over `1. Set up …`, a schedule of the same work): the ticked
        // one is the work.
        // Only where the schedule restates work the boxes hold as much of:
        // a plain series holding no list of its own (steps written as
        // prose), or more items than the boxed one (weeks of work beside
        // one-box phase summaries), is the work; so is an open plain series
        // beside a boxed one all ticked (its history).
        let boxed_words: Vec<Word> = stats
            .keys()
            .copied()
            .filter(|w| under_word(w, true) > 0)
            .collect();
        let restates = |w: &Word| {
            let plain = items_under(w);
            plain > 0
                && boxed_words
                    .iter()
                    .any(|b| items_under(b) >= plain && !all_ticked(b))
        };
        let unboxed = |w: &Word| {
            stats.len() > 1 && !boxed_words.is_empty() && under_word(w, true) == 0 && restates(w)
        };
        let checkpoints = |w: &Word, level: u8| {
            *w == Word::Milestone
                && stats.iter().any(|(o, &(l, n, _))| {
                    o != w
                        && l == level
                        && n >= 3
                        && headings_of.get(o).and_then(|hs| hs.last())
                            < headings_of.get(w).and_then(|hs| hs.first())
                        && items_under(o) > items_under(w)
                })
        };
        let outermost = stats
            .iter()
            // A word written once (`## Milestone 1: v1 Launch` above seven
            // `### Phase N`) names the whole, not its steps.
            .min_by_key(|(w, &(level, n, _))| {
                (
                    n < 2,
                    level,
                    checkpoints(w, level),
                    unboxed(w),
                    std::cmp::Reverse(n),
                    **w,
                )
            })
            .map(|(w, _)| *w);
        // Three `### Phase N` summaries under `## Implementation Plan`, then
        // twenty-six `#### Step A.1` under `## Step by Step Tasks`: two series
        // apart, neither inside the other, and the far longer one details the
        // work the short one sums up.
        let detailed = outermost.and_then(|o| {
            let (_, few, _) = stats[&o];
            stats
                .iter()
                .filter(|(w, &(_, n, nested))| **w != o && nested == 0 && n >= 6 && n >= 3 * few)
                .filter(|(w, _)| !outers.contains_key(w) && !outers.contains_key(&o))
                .max_by_key(|(w, &(_, n, _))| (n, std::cmp::Reverse(**w)))
                .map(|(w, _)| *w)
        });
        inner.or(detailed).or(outermost)
    };
    let chosen = pick(&stats)?;
    // `### Phase 1（即座に実施）✅` over `1. タスク1.1: …`, `2. タスク2.1: …`
    // beside `### タスク1` holding `- [x] 1.1 …`: a priority schedule
    // of the work another word heads, not the work.
    if stats.len() > 1
        && schedules_others(blocks, parent, parsed, chosen, &ids)
        && plain_schedule(blocks, parsed, chosen)
    {
        stats.remove(&chosen);
        return pick(&stats).or(Some(chosen));
    }
    Some(chosen)
}

/// Whether the schedule `word`'s headings make says nothing the steps it
/// names do not: no heading of it marked done (`### Phase 1 ✅`), and its
/// items name the steps in their own order. A schedule that marks work
/// done or runs it in another order (`Task 3.1` first: it blocks the
/// release) is read as the plan's steps.
fn plain_schedule(blocks: &[Block], parsed: &[Option<Heading>], word: Word) -> bool {
    let mut last: Vec<u32> = Vec::new();
    for (i, h) in parsed.iter().enumerate() {
        let Some(Heading::Sprint(h)) = h else {
            continue;
        };
        if h.word != word {
            continue;
        }
        if h.done {
            return false;
        }
        for text in top_items(blocks, i) {
            // `タスク1.1: …` → [1, 1]: the first number the item names.
            let from = text.trim_start_matches(|c: char| !c.is_ascii_digit());
            let key: Vec<u32> = from
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()
                .unwrap_or_default()
                .split('.')
                .filter_map(|p| p.parse().ok())
                .collect();
            if key < last {
                return false;
            }
            last = key;
        }
    }
    true
}

/// The top-level list items right under heading `i`, before the next
/// heading: a schedule heading's entries.
fn top_items(blocks: &[Block], i: usize) -> impl Iterator<Item = &str> {
    blocks[i + 1..]
        .iter()
        .take_while(|b| !matches!(b, Block::Heading { .. }))
        .filter_map(|b| match b {
            Block::Item { text, depth: 0, .. } => Some(text.as_str()),
            _ => None,
        })
}

/// Whether every heading of `word` lists only other headings of the plan
/// (`### Sprint 1 (Current): Foundation` holding `- [ ] Phase 1.5: Quick
/// validation` and `- [ ] Phase 2: Backtest`, or `1. ENV-01: Project
/// Structure Creation` restating that heading): a schedule of the work
/// those headings hold, not work of its own.
fn schedules_others(
    blocks: &[Block],
    parent: &[Option<usize>],
    parsed: &[Option<Heading>],
    word: Word,
    ids: &BTreeMap<Word, BTreeSet<String>>,
) -> bool {
    let names_other = |text: &str| {
        // The word and the id open the line: the first words are enough.
        let t = super::locale::localize(text.trim());
        let t: String = t.chars().take(24).collect::<String>().to_lowercase();
        let Some((other, len)) = Word::parse(&t) else {
            return false;
        };
        let id: String = t[len..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '-')
            .collect();
        // `Task 1.1` names a part of `### Task 1`.
        let whole = id.split('.').next().unwrap_or_default();
        other != word
            && ids
                .get(&other)
                .is_some_and(|known| known.contains(&id) || known.contains(whole))
    };
    // `1. ENV-01: Project Structure Creation`, written out under `###
    // ENV-01: Project Structure Creation`: a heading's whole text.
    let norm = |t: &str| {
        t.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ')' | ' '))
            .trim()
            .to_lowercase()
    };
    // Made when an item names no step by its word: most plans' sprints
    // hold tasks, and the first says so.
    let headed = std::cell::OnceCell::new();
    let headed = || {
        headed.get_or_init(|| {
            let mut by_text: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (j, b) in blocks.iter().enumerate() {
                if let Block::Heading { text, .. } = b {
                    by_text.entry(norm(text)).or_default().push(j);
                }
            }
            by_text
        })
    };
    // Not the heading itself or one it sits in (a unit's one step named
    // after it, its one task the same name).
    let elsewhere = |text: &str, i: usize| {
        headed().get(&norm(text)).is_some_and(|js| {
            js.iter().any(|&j| {
                j != i && !std::iter::successors(parent[i], |&p| parent[p]).any(|p| p == j)
            })
        })
    };
    // Only an item opening with a code (`ENV-01:`) is looked up among the
    // headings: most sprints list their own tasks.
    let coded = |t: &str| {
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ')' | ' '));
        let letters = t.chars().take_while(char::is_ascii_alphabetic).count();
        let rest = t[letters..].trim_start_matches(['-', '_']);
        (1..=8).contains(&letters) && rest.starts_with(|c: char| c.is_ascii_digit())
    };
    let mut headings = 0;
    for (i, h) in parsed.iter().enumerate() {
        let Some(Heading::Sprint(h)) = h else {
            continue;
        };
        if h.word != word {
            continue;
        }
        headings += 1;
        let mut items = top_items(blocks, i).peekable();
        if items.peek().is_none() || !items.all(|t| names_other(t) || coded(t) && elsewhere(t, i)) {
            return false;
        }
    }
    headings >= 2
}
