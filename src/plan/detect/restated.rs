//! Headings that restate a sprint rather than name a new one: the same id
//! at a shallower level, a dotted prefix at another level, a bare repeat of
//! a named id. They become headings about that sprint (criteria or notes).

use super::*;

/// Sprint headings that restate or subdivide a sprint written at another
/// heading level are about that sprint, not new sprints: `### Phase 1
/// (Foundation)` under `## Success Criteria` when `## Phase 1: Foundation`
/// exists (the shallower heading is the sprint), `#### M2.7 Checks` inside
/// `## M2: Server`, an appendix `# Milestone 5.1 — alternative` to `##
/// Milestone 5`. Under a success/exit heading they are the sprint's exit
/// criteria, elsewhere notes. Ids at the same level (`## M2`, `## M2.5`)
/// stay sprints. A repeat at the same level named without a separator
/// (`## M3 remaining priorities` after `## M3: Web UI`) is about the sprint;
/// two named repeats stay "defined twice".
///
/// Returns the headings demoted as notes, each with the id it restates
/// (lower-cased): a restating heading's done mark may speak for its
/// sprint (`restated_done`).
pub(super) fn demote_restated(
    blocks: &[Block],
    parent: &[Option<usize>],
    sprint_at: &mut [Option<SprintHeading>],
    about_at: &mut [Option<(String, About)>],
) -> Vec<(String, usize)> {
    let level = |i: usize| match &blocks[i] {
        Block::Heading { level, .. } => (*level).min(7),
        _ => 0,
    };
    // (ASCII lower-casing keeps byte offsets, so prefixes of an id are
    // prefixes of the id as written.)
    let ids: Vec<Option<String>> = sprint_at
        .iter()
        .map(|h| h.as_ref().map(|h| h.id.to_ascii_lowercase()))
        .collect();
    // Headings holding other sprint headings: containers or unit sections
    // (`## Sprint 1: core` holding `### Sprint 1: x`), never restated.
    let mut holds = vec![false; blocks.len()];
    for i in (0..blocks.len()).filter(|&i| ids[i].is_some()) {
        let mut up = parent[i];
        while let Some(p) = up {
            holds[p] = true;
            up = parent[p];
        }
    }
    // Per id: the heading levels it is written at (a bit per level), all
    // and those of headings holding no sprint heading; ids written with a
    // name after a separator (`M3: Web UI`); ids of holding headings.
    let mut levels: HashMap<&str, u8> = HashMap::new();
    let mut leaf_levels: HashMap<&str, u8> = HashMap::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let mut holders: BTreeSet<&str> = BTreeSet::new();
    for (i, id) in ids.iter().enumerate() {
        let (Some(id), Some(h)) = (id, &sprint_at[i]) else {
            continue;
        };
        *levels.entry(id).or_default() |= 1 << level(i);
        if holds[i] {
            holders.insert(id);
        } else {
            *leaf_levels.entry(id).or_default() |= 1 << level(i);
        }
        if !h.bare && !h.name.is_empty() {
            named.insert(id);
        }
    }
    // Whether heading `j`'s section holds list items.
    let holds_items = |j: usize| {
        blocks[j + 1..]
            .iter()
            .take_while(
                |b| !matches!(b, Block::Heading { level: l, .. } if (*l).min(7) <= level(j)),
            )
            .any(|b| matches!(b, Block::Item { .. }))
    };
    // Dotted ids side by side, per (parent, level, prefix): made when a
    // dotted id is first met at another level than its prefix.
    let parts = std::cell::OnceCell::new();
    let mut demoted = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let (Some(id), Some(h)) = (id, &sprint_at[i]) else {
            continue;
        };
        let l = level(i);
        let mut ancestors = Vec::new();
        let mut up = parent[i];
        while let Some(p) = up {
            if let Some(a) = &ids[p] {
                ancestors.push(a.as_str());
            }
            up = parent[p];
        }
        let direct = parent[i].and_then(|p| ids[p].as_deref());
        // The same id at a shallower level (a heading holding no sprints).
        let about = if leaf_levels
            .get(id.as_str())
            .is_some_and(|m| m & ((1 << l) - 1) != 0)
            && !ancestors.contains(&id.as_str())
        {
            Some(h.id.clone())
        } else {
            // A dotted prefix (`5` of `5.1`) at another level: an appendix
            // to a plain sprint, or a subsection somewhere inside it. Not
            // one of a series of its parts side by side (`### Phase 9.0`
            // … `### Phase 9.5` under `## Timeline` in `# Phase 9`): those
            // divide the step, and are its sprints.
            let series = |p: &str| {
                let parts = parts.get_or_init(|| {
                    let mut n: HashMap<(Option<usize>, u8, &str), usize> = HashMap::new();
                    for (j, id) in ids.iter().enumerate() {
                        // Parts with work of their own (`- [ ] …`), not
                        // design notes numbered alike.
                        let Some(id) = id.as_ref().filter(|id| id.contains('.') && holds_items(j))
                        else {
                            continue;
                        };
                        for (k, _) in id.match_indices('.') {
                            *n.entry((parent[j], level(j), &id[..k])).or_default() += 1;
                        }
                    }
                    n
                });
                parts.get(&(parent[i], l, p)).is_some_and(|&n| n >= 3)
            };
            id.match_indices('.')
                .map(|(k, _)| &id[..k])
                .find(|p| {
                    levels.get(p).is_some_and(|m| m & !(1 << l) != 0)
                        && direct != Some(*p)
                        && (!holders.contains(p) || ancestors.contains(p))
                        && !(ancestors.contains(p) && series(p))
                })
                .map(|p| h.id[..p.len()].to_string())
        }
        // A bare repeat of a named sprint's id, or the id alone (`### Этап
        // 1 (реализован)` over a table of pages, before `### Этап 1:
        // Авторизация`).
        .or_else(|| {
            ((h.bare || h.name.is_empty()) && named.contains(id.as_str())).then(|| h.id.clone())
        })
        // A span of sprints written elsewhere (`### Phase 9.3-9.5` under
        // `## Success Metrics`, beside `### Phase 9.3` … `### Phase 9.5`):
        // about them, not a step of its own.
        // `0-1` may as well be part 1 of step 0: a span's ends are dotted,
        // or lie two or more apart.
        .or_else(|| {
            let (from, to) = id.split_once('-')?;
            let apart = match (from.parse::<u32>(), to.parse::<u32>()) {
                (Ok(a), Ok(b)) => b >= a + 2,
                _ => from.contains('.') && to.contains('.') && from != to,
            };
            if !(apart && levels.contains_key(from) && levels.contains_key(to)) {
                return None;
            }
            // Under a section about the plan (`## Success Metrics`): a
            // span elsewhere is a step of its own (`## Week 3-5 — Beta`).
            std::iter::successors(parent[i], |&p| parent[p])
                .any(|p| {
                    matches!(&blocks[p], Block::Heading { text, level, .. } if *level >= 2
                    && (super::about_plan::describes_plan(text) || criteria_label(text).is_some()))
                })
                .then(|| h.id.clone())
        });
        let Some(about) = about else { continue };
        let mut criteria = false;
        let mut up = parent[i];
        while let Some(p) = up {
            if let Block::Heading { text, .. } = &blocks[p] {
                criteria |= criteria_label(text) == Some(Label::Exit);
            }
            up = parent[p];
        }
        let kind = if criteria {
            About::Criteria
        } else {
            About::Notes
        };
        demoted.push((i, about, kind));
    }
    // A later heading that names a sprint after words of its own (`###
    // Next week - Sprint 3` after `### Sprint 3: Performance`) mentions
    // that sprint; it is not the same work again. Plans that name a unit
    // before each sprint (`Parser — Sprint 1`) name every one so.
    let mut plain: BTreeSet<(Word, &str)> = BTreeSet::new();
    for (i, id) in ids.iter().enumerate() {
        let (Some(id), Some(h), Block::Heading { text, .. }) = (id, &sprint_at[i], &blocks[i])
        else {
            continue;
        };
        if !super::headings::names_unit_first(text) {
            plain.insert((h.word, id.as_str()));
        } else if plain.contains(&(h.word, id.as_str())) && !demoted.iter().any(|(d, _, _)| *d == i)
        {
            demoted.push((i, h.id.clone(), About::Notes));
        }
    }
    for i in restating_sections(blocks, parent, sprint_at, &ids, &demoted) {
        let id = sprint_at[i]
            .as_ref()
            .map_or_else(String::new, |h| h.id.clone());
        demoted.push((i, id, About::Notes));
    }
    let mut restating = Vec::new();
    for (i, about, kind) in demoted {
        if kind == About::Notes {
            restating.push((about.to_ascii_lowercase(), i));
        }
        sprint_at[i] = None;
        about_at[i] = Some((about, kind));
    }
    restating
}

/// Sprint headings of a later section that repeat some of an earlier
/// section's steps, each by its word, id and name (`## Implementation
/// Details` holding `### Phase 2: Scheduler Separation (Recommended
/// First)` and `### Phase 3: …` after `## Phased Approach` holding `###
/// Phase 1` … `### Phase 5`): the details of those steps, not the same
/// work again beside them, unless they hold boxes of their own or a unit
/// table names their section. Only some of the steps, and not from the
/// first: sections naming every step alike, or counting theirs from the
/// first, are units with steps named alike.
fn restating_sections(
    blocks: &[Block],
    parent: &[Option<usize>],
    sprint_at: &[Option<SprintHeading>],
    ids: &[Option<String>],
    demoted: &[(usize, String, About)],
) -> Vec<usize> {
    // A step's name without its asides (`Scheduler Separation (Days of
    // Work)` is `scheduler separation`).
    let core = |name: &str| {
        super::dependencies::strip_parentheticals(name)
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let level = |i: usize| match &blocks[i] {
        Block::Heading { level, .. } => *level,
        _ => 0,
    };
    // The named step headings of each section, in order.
    let demoted: BTreeSet<usize> = demoted.iter().map(|(d, _, _)| *d).collect();
    let mut sections: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    // Each section's place in `sections`, by its heading (the title's
    // steps, with no heading, first).
    let mut section_of: Vec<usize> = vec![usize::MAX; blocks.len() + 1];
    for (i, h) in sprint_at.iter().enumerate() {
        let Some(h) = h else { continue };
        if h.bare || h.name.is_empty() || demoted.contains(&i) {
            continue;
        }
        let slot = parent[i].map_or(0, |p| p + 1);
        match section_of[slot] {
            usize::MAX => {
                section_of[slot] = sections.len();
                sections.push((parent[i], vec![i]));
            }
            k => sections[k].1.push(i),
        }
    }
    let mut out = Vec::new();
    // The most steps a section before holds: a section restating some of
    // an earlier one's holds fewer.
    let mut most_before = 0;
    for (k, (holder, steps)) in sections.iter().enumerate() {
        let most = most_before;
        most_before = most_before.max(steps.len());
        if holder.is_none() || steps.len() >= most {
            continue;
        }
        // A unit counts its steps from the first, as every unit does; a
        // section taking up some steps from the middle restates them.
        let restated = sections[..k].iter().find(|(_, earlier)| {
            earlier.len() > steps.len()
                && ids[earlier[0]] != ids[steps[0]]
                && steps.iter().all(|&i| {
                    earlier.iter().any(|&f| {
                        ids[f] == ids[i]
                            && level(f) == level(i)
                            && sprint_at[f].as_ref().map(|h| h.word)
                                == sprint_at[i].as_ref().map(|h| h.word)
                            && sprint_at[f].as_ref().map(|h| core(&h.name))
                                == sprint_at[i].as_ref().map(|h| core(&h.name))
                    })
                })
        });
        if restated.is_none() {
            continue;
        }
        // Work of their own (`- [ ] Write the rollback script`) makes
        // them steps again, run after those they repeat.
        let boxed = |i: usize| {
            blocks[i + 1..]
                .iter()
                .take_while(|b| !matches!(b, Block::Heading { level: l, .. } if *l <= level(i)))
                .any(|b| {
                    matches!(
                        b,
                        Block::Item {
                            checked: Some(_),
                            ..
                        }
                    )
                })
        };
        // A section a unit table names (`| Rollback Plan | . | 2 |`) is a
        // unit the plan declares.
        let declared = holder.and_then(|h| match &blocks[h] {
            Block::Heading { text, .. } => Some(clean_name(text).to_lowercase()),
            _ => None,
        });
        let declared = declared.is_some_and(|name| {
            blocks.iter().any(|b| match b {
                Block::Table { rows, .. } => rows.iter().any(|r| {
                    r.cells
                        .first()
                        .is_some_and(|c| clean_name(&c.text).to_lowercase() == name)
                }),
                _ => false,
            })
        });
        if !declared && !steps.iter().any(|&i| boxed(i)) {
            out.extend(steps.iter().copied());
        }
    }
    out
}

/// Sprint heading `i` (id `id`) marked done by a heading restating it
/// elsewhere: `### Phase 2 (완료): Teams 앱 ✅` in a priority list, where
/// `## Phase 2: Teams 앱 서비스 레이어 도입` details the phase with no
/// mark of its own. Neither may hold an open line.
pub(super) fn restated_done(doc: &Doc, i: usize, id: &str) -> Option<String> {
    // Most plans restate no step: nothing to look up, nothing to make.
    if doc.restating.is_empty() {
        return None;
    }
    let word = doc.sprint_at[i].as_ref()?.word.as_str().to_lowercase();
    let open = |j: usize| doc.holds_open_box(j);
    let mut marks = doc
        .restating
        .iter()
        .filter(|(about, j)| about.eq_ignore_ascii_case(id) && !(i < *j && *j < doc.section_end[i]))
        .filter_map(|&(_, j)| {
            let (_, text, _) = doc.heading(j)?;
            // A section naming what comes next (`## Next steps`) marks
            // nothing done, whatever its headings carry.
            if std::iter::successors(doc.parent[j], |&p| doc.parent[p]).any(|p| {
                doc.heading(p)
                    .is_some_and(|(_, t, _)| super::about_plan::describes_plan(t))
            }) {
                return None;
            }
            // It must open with the sprint's own word and id (`Phase 2
            // (완료): Teams`); a milestone naming it (`M2: Sprint 1完了
            // (2025-10-27)`) sets a date for it, not a mark.
            let opens_with_it = {
                let localized = super::locale::localize(text);
                let lead = localized
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                lead.strip_prefix(&word)
                    .map(str::trim_start)
                    .and_then(|rest| rest.strip_prefix(&id.to_lowercase()))
                    .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
            };
            Some((
                j,
                text,
                opens_with_it && says_done_in_words(text) && !open(j),
            ))
        })
        .peekable();
    marks.peek()?;
    // Every restating heading must mark it: one left unmarked says the
    // work was not all done when it was written.
    let marks: Vec<(usize, &str, bool)> = marks.collect();
    // Work the sprint still lists (an open box anywhere, or its own list
    // of steps, `1. Build the client`) is not done by a mark elsewhere;
    // bullets under its notes (`### Goals`) are no such list.
    let listed = open(i)
        || doc
            .own_blocks(i)
            .any(|b| matches!(doc.blocks[b], Block::Item { checked: None, .. }));
    if !marks.iter().all(|(_, _, done)| *done) || listed {
        return None;
    }
    let (j, text, _) = marks[0];
    Some(format!(
        "marked complete in the plan (line {}: `{}`, restating it)",
        doc.line(doc.blocks[j].span().start),
        text.trim()
    ))
}

/// Text compared for restating: letters and digits only, lower-cased.
fn restating_key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A later section whose sprint headings repeat the ids of earlier ones,
/// each holding only items that restate that step's parts (`##
/// Implementation log` holding `### Phase 1` and `- [ ] 1.1 Fix the
/// config`, beside `## Requirements` holding `### Phase 1: …` and `####
/// 1.1 Fix the config`): a tracking list of those steps, not a second unit
/// of the same work. Its headings become notes about the steps, so its
/// boxes are read as their marks. Two units numbering their own phases
/// alike (`## Backend`, `## Frontend`, each with `### Phase 1`) restate
/// nothing and stay.
pub(super) fn demote_tracking_repeats(
    blocks: &[Block],
    parent: &[Option<usize>],
    section_end: &[usize],
    sprint_at: &mut [Option<SprintHeading>],
    about_at: &mut [Option<(String, About)>],
) {
    // Ids as written: a repeat writes its step's id alike.
    let mut first: HashMap<&str, usize> = HashMap::new();
    // Repeats, by the section holding them: (repeat, the step it repeats).
    let mut repeats: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    // Only a step with parts of its own headed can be restated: most plans
    // have no repeats to look for.
    let headed_parts = |i: usize| {
        blocks[i + 1..section_end[i].max(i + 1)]
            .iter()
            .any(|b| matches!(b, Block::Heading { .. }))
    };
    if !(0..blocks.len()).any(|i| sprint_at[i].is_some() && headed_parts(i)) {
        return;
    }
    for j in 0..blocks.len() {
        let Some(h) = &sprint_at[j] else {
            continue;
        };
        match first.get(h.id.as_str()) {
            None => {
                first.insert(h.id.as_str(), j);
            }
            Some(&i) if section_end[i] <= j => {
                if let Some(p) = parent[j] {
                    repeats.entry(p).or_default().push((j, i));
                }
            }
            Some(_) => {}
        }
    }
    // The repeat lists the step's own parts, every one and nothing else:
    // its items are the step's sub-headings (`#### 1.1 Fix the config`).
    // Lines alike in two units' steps (`Write tests`) restate nothing.
    let restates = |j: usize, i: usize| {
        let parts: HashSet<String> = (i + 1..section_end[i])
            .filter_map(|b| match &blocks[b] {
                Block::Heading { text, .. } => Some(restating_key(text)),
                _ => None,
            })
            .collect();
        if parts.is_empty() {
            return false;
        }
        let mut items: HashSet<String> = HashSet::new();
        for block in &blocks[j + 1..section_end[j]] {
            match block {
                Block::Item { text, .. } => {
                    items.insert(restating_key(text));
                }
                Block::Heading { .. } => return false,
                _ => {}
            }
        }
        items == parts
    };
    for (p, pairs) in repeats {
        let held = (p + 1..section_end[p])
            .filter(|&j| parent[j] == Some(p) && sprint_at[j].is_some())
            .count();
        if pairs.len() < 2 || pairs.len() != held || !pairs.iter().all(|&(j, i)| restates(j, i)) {
            continue;
        }
        for (j, _) in pairs {
            if let Some(h) = sprint_at[j].take() {
                about_at[j] = Some((h.id, About::Notes));
            }
        }
    }
}

/// A heading that says done in words of the plan's language (`Phase 2
/// (완료): Teams ✅`, `Phase 1 — Done`), not by an emoji alone (`Phase 2:
/// Invoices ✅ ready to start`, `(design approved) ✅`), and says nothing
/// of work to come.
fn says_done_in_words(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || "()（）:：,，.;—–-|*[]".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let done = words
        .iter()
        .any(|w| super::status_words::DONE_WORDS.contains(w))
        || super::status_words::DONE_PHRASES
            .iter()
            .any(|p| lower.contains(p) && !lower.contains(&format!("未{p}")));
    let to_come = [
        "ready", "approved", "planned", "next", "todo", "pending", "wip", "progress", "start",
        "partial", "partly", "not",
    ];
    done && !words.iter().any(|w| to_come.contains(w))
}

/// The order of sprint headings `at` where a restating heading places one
/// earlier than it is written: a priority list `### Phase 1` … `### Phase
/// 6` before detail sections `## Phase 2`, `## Phase 3` runs Phase 2 after
/// Phase 1, not after Phase 6. Only where every sprint has a distinct id
/// and the new order is the order of their numbers, `None` otherwise (a
/// board listing its steps out of order keeps its order).
pub(super) fn restated_order(doc: &Doc, at: &[usize]) -> Option<Vec<usize>> {
    if doc.restating.is_empty() || at.len() < 2 {
        return None;
    }
    let place = |i: usize| -> (usize, Option<u32>) {
        let Some(h) = &doc.sprint_at[i] else {
            return (i, None);
        };
        let first = doc
            .restating
            .iter()
            .filter(|(about, j)| about.eq_ignore_ascii_case(&h.id) && *j < i)
            .map(|&(_, j)| j)
            .min()
            .unwrap_or(i);
        (first, h.id.parse().ok())
    };
    let places: Vec<(usize, Option<u32>)> = at.iter().map(|&i| place(i)).collect();
    if places.iter().zip(at).all(|((p, _), i)| p == i) {
        return None;
    }
    // The restating headings must stand among sprints of their own list
    // (a priority list detailing some of its phases below): an overview
    // restating every phase sums up the plan, whose written order stands
    // (`the hotfix is urgent, so it goes first`).
    let among_steps = doc.restating.iter().any(|&(_, j)| {
        at.iter()
            .any(|&i| doc.parent[i] == doc.parent[j] && place(i).0 == i)
    });
    if !among_steps {
        return None;
    }
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&k| places[k].0);
    let numbers: Vec<u32> = order.iter().map(|&k| places[k].1).collect::<Option<_>>()?;
    numbers.windows(2).all(|w| w[0] < w[1]).then_some(order)
}
