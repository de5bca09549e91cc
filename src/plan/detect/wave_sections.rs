//! Plans that hand sections to agents in waves: `## Wave 1: Parallel
//! Creation Phase` holding `### Subagent 1: Python Scripts`, `### Subagent
//! 2: Bash Scripts`, then `## Wave 2: Sequential Execution Phase` holding
//! `### Step 1 …`. A wave that says its work runs at once ("Launch these 4
//! subagents concurrently", `(parallel)`) makes each of its sections a unit
//! of its own; any other wave is one unit whose sections are its steps, in
//! order. Each wave waits for the whole wave before it.
//!
//! The sections of a wave are its child headings, less those about it
//! (`### Timing`, `### Success Criteria`). The reading applies only when
//! every step read so far lies in a wave: a plan whose steps lie elsewhere
//! uses waves for something else.

use std::collections::HashSet;

use super::completion::strip_done_marks;
use super::sprints::read_sprint;
use super::*;

/// The plan's units, one per section of a parallel wave and one per other
/// wave, when its work sits in wave sections.
///
/// With `phased`, the steps read as phase headings stand for the waves
/// (`## Phase 1: Parallel Implementation` holding `### Agent 1: …`): asked
/// last, after every reader of a stated order, which it must not override.
pub(super) fn wave_section_units(
    doc: &Doc,
    units: &[RawUnit],
    phased: bool,
) -> Option<Vec<RawUnit>> {
    let waves = match phased {
        false => wave_headings(doc)?,
        true => phase_headings(doc, units)?,
    };
    // A phase runs its sections at once only where they are agents' or
    // tracks' (`### Agent 1: Core`): `Parallel processing` may name a
    // feature.
    // `This document breaks the roadmap into tasks for AI agents to
    // execute in parallel.` before the first phase: the plan's own word,
    // for every phase whose sections are all agents' (and that has no
    // word of its own against it).
    let plan_at_once = phased && preamble_says_agents_at_once(doc, waves.first()?.1);
    let done_at = super::guesses::done_in_place(units);
    let at_once_wave = |h: usize| {
        let sections = wave_sections(doc, h);
        let words = if phased {
            (phase_at_once(doc, h, &done_at) || plan_at_once && phase_open(doc, h, &done_at))
                && sections.iter().all(|&j| names_a_worker(doc, j))
        } else {
            super::waves::says_at_once(doc, h)
        };
        words && sections.len() >= 2 && section_waits(doc, h).is_some()
    };
    let in_wave = |at: usize| {
        waves
            .iter()
            .any(|&(_, h)| doc.blocks[h].span().start <= at && at < doc.section_end_offset(h))
    };
    // Phases are the steps read, each in its own wave by construction.
    if !phased
        && !units
            .iter()
            .flat_map(|u| &u.sprints)
            .all(|s| in_wave(s.span.start))
    {
        return None;
    }
    // Waves that all run their sections in order are the sequence read
    // already.
    if !waves.iter().any(|&(_, h)| at_once_wave(h)) {
        return None;
    }
    let mut out: Vec<RawUnit> = Vec::new();
    let mut before: Vec<String> = Vec::new();
    for &(n, h) in &waves {
        let sections = wave_sections(doc, h);
        let waits = section_waits(doc, h).unwrap_or_default();
        let (_, wave_text, wave_span) = doc.heading(h)?;
        let wave_name = clean_name(&strip_done_marks(wave_text).0);
        let at_once = at_once_wave(h);
        // A phase of one step (`## Phase 0: Foundation`) stays that step.
        if phased && !at_once {
            let step = units
                .iter()
                .flat_map(|u| &u.sprints)
                .find(|s| s.span.start == wave_span.start)?;
            // Named by the phase itself (`Phase 0: Foundation`), not its place.
            let rule = format!("`{wave_name}`, a phase of one step");
            out.push(whole_unit(
                doc,
                h,
                &wave_name,
                &before,
                rule,
                vec![step.clone()],
            ));
            before = vec![wave_name];
            continue;
        }
        if sections.is_empty() {
            return None;
        }
        let mut names = Vec::new();
        let mut steps = Vec::new();
        for (k, &j) in sections.iter().enumerate() {
            let (_, text, span) = doc.heading(j)?;
            let (name, marked) = strip_done_marks(text);
            // `### Step 1: Update dependencies` is named as its step is.
            let name = match &doc.sprint_at[j] {
                Some(h) if !h.name.is_empty() => h.name.clone(),
                _ => clean_name(&name),
            };
            // A section read as a step already keeps that reading.
            let read = units
                .iter()
                .flat_map(|u| &u.sprints)
                .find(|s| s.span.start == span.start);
            let step = match read {
                Some(read) if !at_once => read.clone(),
                _ => {
                    let id = SprintId::whole(if at_once { 1 } else { k as u32 + 1 });
                    let mut sprint = read_sprint(doc, j, id.clone(), name.clone());
                    sprint.done = done_evidence(doc, j, marked);
                    sprint.origin =
                        Origin::new(doc.line(span.start), format!("a section of wave {n}"));
                    RawSprint {
                        id,
                        span: span.clone(),
                        sprint,
                    }
                }
            };
            if at_once {
                let mut unit = RawUnit::new(name.clone(), span.clone(), doc.section(j));
                unit.rule = match waits.get(k).is_some_and(|w| !w.is_empty()) {
                    false => format!("a section of wave {n}, which runs its sections at once"),
                    true => format!(
                        "a section of wave {n}, which runs its sections at once; it waits for the sections it names"
                    ),
                };
                unit.origin = Origin::new(doc.line(span.start), unit.rule.clone());
                unit.deps = before.iter().map(|d| (d.clone(), span.clone())).collect();
                unit.deps
                    .extend(waits.get(k).into_iter().flatten().filter_map(|&o| {
                        let (_, text, _) = doc.heading(sections[o])?;
                        let name = match &doc.sprint_at[sections[o]] {
                            Some(h) if !h.name.is_empty() => h.name.clone(),
                            _ => clean_name(&strip_done_marks(text).0),
                        };
                        Some((name, span.clone()))
                    }));
                unit.sprints = vec![step];
                names.push(name);
                out.push(unit);
            } else {
                steps.push(step);
            }
        }
        if !at_once {
            let rule = format!("wave {n}, its sections one after another");
            out.push(whole_unit(doc, h, &wave_name, &before, rule, steps));
            names.push(wave_name);
        }
        before = names;
    }
    let dir = units.first().map(|u| u.dir.clone()).unwrap_or_default();
    for unit in &mut out {
        unit.dir = dir.clone();
    }
    // Names must tell the units apart, as dependencies name them.
    let mut seen = std::collections::HashSet::new();
    out.iter()
        .all(|u| seen.insert(u.name.to_lowercase()))
        .then_some(out)
}

/// The plan's wave headings, (number, block): two or more, siblings at
/// one level, numbered in rising order, no number twice. Headings about
/// a wave (`### Wave 1 Risks`) are none.
fn wave_headings(doc: &Doc) -> Option<Vec<(u32, usize)>> {
    let waves: Vec<(u32, usize)> = (0..doc.blocks.len())
        .filter_map(|i| {
            let (_, text, _) = doc.heading(i)?;
            let n = super::waves::wave_number(text)?;
            // `### Wave 1 Risks` is about a wave, not one.
            (!super::about_plan::describes_plan(text)).then_some((n, i))
        })
        .collect();
    let &(_, first) = waves.first()?;
    let level = doc.heading(first)?.0;
    let siblings = waves.iter().all(|&(_, i)| {
        doc.heading(i).is_some_and(|(l, _, _)| l == level) && doc.parent[i] == doc.parent[first]
    });
    let rising = waves.windows(2).all(|w| w[0].0 < w[1].0);
    (waves.len() >= 2 && siblings && rising).then_some(waves)
}

/// One unit for the whole of wave or phase `h`, holding `sprints`, waiting
/// for every unit named in `before`.
fn whole_unit(
    doc: &Doc,
    h: usize,
    name: &str,
    before: &[String],
    rule: String,
    sprints: Vec<RawSprint>,
) -> RawUnit {
    let span = doc.blocks[h].span();
    let mut unit = RawUnit::new(name.to_string(), span.clone(), doc.section(h));
    unit.origin = Origin::new(doc.line(span.start), rule.clone());
    unit.rule = rule;
    unit.deps = before.iter().map(|d| (d.clone(), span.clone())).collect();
    unit.sprints = sprints;
    unit
}

/// The plan's steps read as phase headings (`## Phase 0: Foundation`,
/// `## Phase 1: Parallel Implementation`), (place, block), where every
/// step read is one: two or more, siblings at one level.
fn phase_headings(doc: &Doc, units: &[RawUnit]) -> Option<Vec<(u32, usize)>> {
    // Phases stand for waves only in a plan read as one sequence, and most
    // plans say nothing of work at once: one look at the whole text, then
    // at the sprint headings.
    if units.len() != 1 || !super::waves::may_say_at_once(doc.source) {
        return None;
    }
    let done_at = super::guesses::done_in_place(units);
    let at_once = (0..doc.blocks.len())
        .any(|i| doc.is_sprint(i) && phase_at_once(doc, i, &done_at))
        || (0..doc.blocks.len())
            .find(|&i| doc.is_sprint(i))
            .is_some_and(|first| preamble_says_agents_at_once(doc, first));
    if !at_once {
        return None;
    }
    let heading_at: std::collections::HashMap<usize, usize> = (0..doc.blocks.len())
        .filter(|&i| doc.is_sprint(i))
        .map(|i| (doc.blocks[i].span().start, i))
        .collect();
    let mut out = Vec::new();
    for s in units.iter().flat_map(|u| &u.sprints) {
        let h = *heading_at.get(&s.span.start)?;
        out.push((out.len() as u32 + 1, h));
    }
    let &(_, first) = out.first()?;
    let level = doc.heading(first)?.0;
    let siblings = out.iter().all(|&(_, i)| {
        doc.heading(i).is_some_and(|(l, _, _)| l == level) && doc.parent[i] == doc.parent[first]
    });
    (out.len() >= 2 && siblings).then_some(out)
}

/// A phase that says in its own heading that its sections run at once
/// (`## Phase 1: Parallel implementation (3 agents)`), with no word
/// denying it (`not`, `nicht`, `non`, `no`), no work of its own beside its
/// sections, and not already done: its text below may qualify the order
/// (`Agent 3 starts after both`), its heading states it.
///
/// Its own opening words count too (`並列で実装できる。` over `#### Agent1:
/// …`), where a sentence says who may work at once and they name no order
/// of their own (`after`, `waits`). A section that names another
/// (`**Depends on:** Agent 1`) still waits for it (`section_waits`).
fn phase_at_once(doc: &Doc, h: usize, done_at: &HashSet<usize>) -> bool {
    let heading = doc
        .heading(h)
        .is_some_and(|(_, text, _)| super::waves::text_says_at_once(&text.to_lowercase()));
    // Words that make a sentence about who may work at once: a modal
    // (`These can be built in parallel.`, `並列で実装できる。`) or the
    // workers themselves. `The uploader sends chunks in parallel` is about
    // the product.
    const WHO: &[&str] = &[
        "can ",
        "may ",
        "agents",
        "these",
        "できる",
        "可以",
        "可并行",
        "kann",
        "puede",
        "pode",
        "peut",
        "エージェント",
        "担当",
    ];
    let own_text = || {
        let paragraphs: Vec<String> = doc
            .own_blocks(h)
            .filter_map(|b| match &doc.blocks[b] {
                Block::Paragraph { text, .. } => Some(text.to_lowercase()),
                _ => None,
            })
            .collect();
        paragraphs.iter().any(|t| {
            t.split(['.', '!', '?', '。', '！']).any(|sentence| {
                super::waves::text_says_at_once(sentence)
                    && WHO.iter().any(|w| sentence.contains(w))
                    && !["parallel with", "parallel to", "concurrent with"]
                        .iter()
                        .any(|w| sentence.contains(w))
            })
        }) && !paragraphs.iter().any(|t| names_an_order(t))
    };
    (heading || own_text()) && phase_free(doc, h, done_at)
}

/// The sections of wave or phase `h` each of its sections waits for: the
/// ones it names in a sentence that says it waits (`**Partially blocked
/// by**: Agent 1`, `uses the store Agent 1 builds`), by the place of each
/// in `wave_sections`, whatever its wave says of running at once. A
/// mention whose way this reading cannot tell (`**Unblocks**: Agent 2`,
/// `unlike Agent 1`, `Agent 3 will review this`), or names that wait in a
/// circle, say no order it can keep (None): the wave runs in order.
fn section_waits(doc: &Doc, h: usize) -> Option<Vec<Vec<usize>>> {
    let sections = wave_sections(doc, h);
    let labels: Vec<Option<String>> = sections
        .iter()
        .map(|&j| {
            let (_, text, _) = doc.heading(j)?;
            let t = text
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            let word: String = t.chars().take_while(|c| c.is_alphabetic()).collect();
            let rest = t[word.len()..].trim_start();
            let id: String = rest
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            (!word.is_empty() && !id.is_empty()).then(|| format!("{word} {id}"))
        })
        .collect();
    // Where a sentence names `label` (`agent 1`, `agent1`), if it does.
    let named_at = |t: &str, label: &str| {
        let close = label.replace(' ', "");
        [label, close.as_str()]
            .iter()
            .filter_map(|l| {
                t.match_indices(l)
                    .find(|(at, _)| {
                        !t[at + l.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
                    })
                    .map(|(at, _)| at)
            })
            .min()
    };
    // Words that make a sentence naming another section a wait for it,
    // written before the name (`blocked by Agent 1`, `when Agent 1
    // finishes`) or, in the plans' languages that put it last, after it
    // (`Agent 1 の完了後`, `Agent 1 완료 후`): `Agent 2 starts after this`
    // in Agent 1's section names Agent 2 the other way round. Words that
    // name it the other way round (`**Unblocks**: Agent 2`, `完了後、Agent
    // 2 に通知する`) or for something else (`unlike Agent 1`, `files owned
    // by Agent 2`) keep the wave in order.
    const WAIT_BEFORE: &[&str] = &[
        "depend",
        "blocked by",
        "blocked on",
        "after",
        "wait",
        "requir",
        "need",
        "once",
        "when ",
        "uses ",
        "builds on",
        "после",
        "зависит",
        "depende",
        "después",
        "após",
        "nach ",
    ];
    const WAIT_AFTER: &[&str] = &["依存", "待", "後", "의존", "후"];
    const OTHER: &[&str] = &[
        "unblock",
        "blocks:",
        "blocks ",
        "notify",
        "通知",
        "hand off",
        "handoff",
        "hands off",
        "review",
        "レビュー",
        "unlike",
        "owned by",
        "touch",
        "coordinat",
        "ping",
        "inform",
        "tell ",
        "for agent",
    ];
    let mut waits: Vec<Vec<usize>> = Vec::with_capacity(sections.len());
    for (k, &j) in sections.iter().enumerate() {
        let sentences: Vec<String> = doc
            .section(j)
            .filter_map(|b| match &doc.blocks[b] {
                Block::Paragraph { text, .. } | Block::Item { text, .. } => {
                    Some(text.to_lowercase().replace("**", ""))
                }
                _ => None,
            })
            .flat_map(|t| {
                t.split(['.', '。', '\n', ';'])
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut mine = Vec::new();
        for (o, label) in labels.iter().enumerate() {
            let Some(label) = label.as_deref().filter(|_| o != k) else {
                continue;
            };
            for sentence in &sentences {
                let Some(at) = named_at(sentence, label) else {
                    continue;
                };
                let waits = WAIT_BEFORE
                    .iter()
                    .any(|w| sentence.find(w).is_some_and(|w_at| w_at < at))
                    || WAIT_AFTER.iter().any(|w| sentence[at..].contains(w));
                let other = OTHER.iter().any(|w| sentence.contains(w));
                // A mention this reading cannot tell the way of keeps the
                // wave in order.
                if other || !waits {
                    return None;
                }
                mine.push(o);
            }
        }
        mine.sort_unstable();
        mine.dedup();
        waits.push(mine);
    }
    // Kahn's count: every section placed, or the names wait in a circle.
    let mut left: Vec<usize> = waits.iter().map(Vec::len).collect();
    let mut placed = 0;
    let mut ready: Vec<usize> = (0..waits.len()).filter(|&k| left[k] == 0).collect();
    while let Some(k) = ready.pop() {
        placed += 1;
        for (o, w) in waits.iter().enumerate() {
            if w.contains(&k) {
                left[o] -= 1;
                if left[o] == 0 {
                    ready.push(o);
                }
            }
        }
    }
    (placed == waits.len()).then_some(waits)
}

/// A phase whose heading says nothing against running its sections at
/// once (`sequential`, `in order`) nor its text (`Parallelizable: No`),
/// free to run them so (`phase_free`): the plan's opening may say its
/// agents run at once.
fn phase_open(doc: &Doc, h: usize, done_at: &HashSet<usize>) -> bool {
    let Some((_, text, _)) = doc.heading(h) else {
        return false;
    };
    let lower = text.to_lowercase();
    let denied = ["sequential", "in order", "one after another", "serial"]
        .iter()
        .any(|w| lower.contains(w));
    !denied && phase_free(doc, h, done_at) && !super::waves::says_at_once_denied(doc, h)
}

/// A phase with no work of its own beside its sections, and not already
/// done (its heading's block not among `done_at`).
fn phase_free(doc: &Doc, h: usize, done_at: &HashSet<usize>) -> bool {
    let own_work = doc
        .own_blocks(h)
        .any(|b| matches!(doc.blocks[b], Block::Item { .. }));
    !own_work && !done_at.contains(&doc.blocks[h].span().start)
}

/// Whether the plan's text before its first phase (`first`) says that its
/// agents work at once: one sentence that names agents (plural) and says
/// parallel, in a text that names no order (`waits for`, `after`, `one
/// after another`). `The agent should run the tests in parallel` is about
/// tests; `our agents ran in parallel …, so this time each agent waits`
/// orders them.
fn preamble_says_agents_at_once(doc: &Doc, first: usize) -> bool {
    const AGENTS: &[&str] = &[
        "agents",
        "subagents",
        "sub-agents",
        "agenten",
        "agentes",
        "agenti",
        "агенты",
        "агентов",
        "エージェント",
        "智能体",
        "代理",
        "에이전트",
    ];
    let text: String = doc.blocks[..first]
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph { text, .. } | Block::Item { text, .. } => Some(text.to_lowercase()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ");
    if !super::waves::may_say_at_once(&text) || names_an_order(&text) {
        return false;
    }
    text.split(['.', '!', '?', '。', '！']).any(|sentence| {
        AGENTS.iter().any(|a| sentence.contains(a)) && super::waves::text_says_at_once(sentence)
    })
}

/// Whether lower-cased `text` names an order of work (`waits for`, `after
/// X`, `one at a time`, `順番`, `依赖`): words against running at once.
fn names_an_order(text: &str) -> bool {
    const ORDER: &[&str] = &[
        "wait",
        "after ",
        "before ",
        "then ",
        "first",
        "sequential",
        "in order",
        "in turn",
        "one at a time",
        "nacheinander",
        "nach ",
        "secuencial",
        "después",
        "depois",
        "après",
        "順番",
        "後",
        "依次",
        "之后",
        "以后",
        "依赖",
        "依存",
        "순서",
    ];
    ORDER.iter().any(|w| text.contains(w))
}

/// A section named for who does its work: `Agent 1: Core`, `Track B —
/// Web`, `Subagent 3`, `Stream A`.
fn names_a_worker(doc: &Doc, j: usize) -> bool {
    const WORKERS: &[&str] = &[
        "agent ",
        "subagent ",
        "sub-agent ",
        "track ",
        "stream ",
        "workstream ",
        "worker ",
        "lane ",
        "team ",
        "agente ",
        "агент ",
    ];
    doc.heading(j).is_some_and(|(_, text, _)| {
        let t = text
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        // `Agent 1`, and `Agent1` written close.
        WORKERS.iter().any(|w| {
            t.strip_prefix(w)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_alphanumeric()))
                || t.strip_prefix(w.trim_end())
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

/// A wave's sections: its child headings, less those about the wave.
fn wave_sections(doc: &Doc, h: usize) -> Vec<usize> {
    doc.section(h)
        .filter(|&j| doc.parent[j] == Some(h))
        .filter(|&j| {
            doc.heading(j).is_some_and(|(_, text, _)| {
                let lower = clean_name(text).to_lowercase();
                criteria_label(text).is_none()
                    && !super::about_plan::describes_plan(text)
                    && ![
                        "timing",
                        "pre-flight",
                        "preflight",
                        "prerequisites",
                        "merge",
                    ]
                    .iter()
                    .any(|w| lower.starts_with(w))
            })
        })
        .collect()
}
