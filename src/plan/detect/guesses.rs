//! Readings that rest on a guess at what the author meant, said so that
//! `start` asks before the first run: done marks kept away from the sprint
//! itself (a progress list, a roadmap index, frontmatter, a graph's node),
//! which skip work, and units run at once because a graph, a wave list or
//! a sentence says so, which a misreading would run out of order. Rules
//! that read the sprint's own heading or a unit table guess nothing.

use std::collections::HashMap;
use std::collections::HashSet;

use super::*;

/// The sprints (by where they start) that their own text marks done.
pub(super) fn done_in_place(units: &[RawUnit]) -> HashSet<usize> {
    units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| s.sprint.done.is_some())
        .map(|s| s.span.start)
        .collect()
}

/// A section that keeps a record of the work (`## Progress Log`, `##
/// History`), not work of its own.
fn keeps_a_record(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| ["progress", "log", "logs", "history", "changelog", "journal"].contains(&w))
        || ["进度", "記録", "履歴"].iter().any(|w| lower.contains(w))
}

/// Where the sprints are the headings that hold boxes (a weak reading),
/// numbered sections with work of their own that the reading left out: a
/// guess at which level holds the work.
pub(super) fn numbered_left_out(doc: &Doc, units: &[RawUnit]) -> Option<Warning> {
    let (first, n) = numbered_outside(doc, units)?;
    let name = doc.heading(first).map_or("", |(_, t, _)| t);
    Some(Warning {
        code: "reading::numbered_outside".into(),
        message: format!(
            "{n} numbered sections with work of their own lie outside every sprint (first: `{name}`): their work would not run"
        ),
        help: "check the reading with `git supervisor plan`, or have your agent rewrite the plan with `git supervisor import`".into(),
        line: doc.line(doc.blocks[first].span().start),
    })
}

/// List items outside every sprint that name further members of the
/// sprints' own series (`- FE — Phase 3`, `- BE — Phase 4` under `###
/// 📋 PHASES SUIVANTES` beside `### PHASE 1`, `### PHASE 2`), two numbers
/// or more that no sprint has, with lines of their own below them: work
/// the reading left out. Items in a section about the plan, or put off,
/// are not.
pub(super) fn series_left_out(doc: &Doc, units: &[RawUnit]) -> Option<Warning> {
    let word = doc.word?.as_str().to_lowercase();
    // Items with lines of their own below them and a number on their first
    // line, found first: most plans have none, and need nothing more.
    let candidates: Vec<usize> = (0..doc.blocks.len())
        .filter(|&j| match &doc.blocks[j] {
            Block::Item { text, depth, .. } => {
                matches!(doc.blocks.get(j + 1), Some(Block::Item { depth: d, .. }) if d > depth)
                    && text
                        .lines()
                        .next()
                        .is_some_and(|l| l.bytes().any(|b| b.is_ascii_digit()))
            }
            _ => false,
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    // The series' numbers as its headings give them: units split one
    // step each number their sprints anew.
    let numbers: HashSet<u32> = doc
        .sprint_at
        .iter()
        .flatten()
        .filter_map(|h| {
            let digits = h.id.chars().take_while(char::is_ascii_digit).count();
            h.id[..digits].parse().ok()
        })
        .chain(units.iter().flat_map(|u| &u.sprints).map(|s| s.id.number))
        .collect();
    let last = numbers.iter().max().copied().unwrap_or(0);
    let heading_at = doc.headings_by_start();
    let mut covered = vec![false; doc.blocks.len()];
    for s in units.iter().flat_map(|u| &u.sprints) {
        if let Some(&i) = heading_at.get(&s.span.start) {
            covered[i..doc.section_end[i]].fill(true);
        }
    }
    let headings: Vec<usize> = (0..doc.blocks.len())
        .filter(|&h| doc.heading(h).is_some())
        .collect();
    let owner = |j: usize| {
        let k = headings.partition_point(|&h| h < j).checked_sub(1)?;
        doc.heading(headings[k]).map(|(_, text, _)| text)
    };
    let mut named: Vec<(usize, u32)> = Vec::new();
    for j in candidates {
        let Block::Item { text, .. } = &doc.blocks[j] else {
            continue;
        };
        if covered[j]
            || owner(j).is_some_and(|t| {
                super::about_plan::describes_plan(t) || super::about_plan::names_later_ideas(t)
            })
        {
            continue;
        }
        let lower = text.lines().next().unwrap_or_default().to_lowercase();
        if super::status_words::put_off(&lower) {
            continue;
        }
        let n = lower
            .match_indices(&word)
            .filter_map(|(at, _)| {
                let rest = lower[at + word.len()..].strip_prefix(' ')?;
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                let after = rest[digits..].chars().next();
                (digits > 0 && after.is_none_or(|c| !c.is_alphanumeric() && c != '.'))
                    .then(|| rest[..digits].parse::<u32>().ok())
                    .flatten()
            })
            .next();
        if let Some(n) = n.filter(|&n| n > last) {
            named.push((j, n));
        }
    }
    let distinct: HashSet<u32> = named.iter().map(|(_, n)| *n).collect();
    if distinct.len() < 2 {
        return None;
    }
    let (first, _) = named[0];
    let name = match &doc.blocks[first] {
        Block::Item { text, .. } => text.lines().next().unwrap_or_default(),
        _ => "",
    };
    Some(Warning {
        code: "reading::series_outside".into(),
        message: format!(
            "list items outside every sprint name {} more of the plan's {word}s (first: `{name}`): their work would not run",
            distinct.len()
        ),
        help: "give each its own heading, or have your agent rewrite the plan with `git supervisor import`".into(),
        line: doc.line(doc.blocks[first].span().start),
    })
}

/// Headings outside every sprint that carry on the sprints' own series
/// (`### Wave 4: …` and `### Wave 5: …` under `## Future Feature Ideas
/// (Backlog)`, after sprints `Wave 1` to `Wave 3`), two or more, each
/// holding task lines and some of them ticked: the plan's work ran on
/// into a section the reading left out as no work.
fn series_headings_left_out(doc: &Doc, units: &[RawUnit]) -> Option<Warning> {
    let lead = super::names::word_and_number;
    let sprints: Vec<&RawSprint> = units.iter().flat_map(|u| &u.sprints).collect();
    let mut last: HashMap<String, u32> = HashMap::new();
    for s in &sprints {
        if let Some((word, n)) = lead(&s.sprint.name) {
            let at = last.entry(word).or_insert(n);
            *at = (*at).max(n);
        }
    }
    if last.is_empty() {
        return None;
    }
    let inside = |at: usize| sprints.iter().any(|s| s.span.contains(&at));
    let mut found: Vec<(usize, u32)> = Vec::new();
    let mut ticked = false;
    for i in 0..doc.blocks.len() {
        let Some((_, text, span)) = doc.heading(i) else {
            continue;
        };
        let Some((word, n)) = lead(&clean_name(text)) else {
            continue;
        };
        if last.get(&word).is_none_or(|&l| n <= l) || inside(span.start) {
            continue;
        }
        let boxes: Vec<bool> = doc.blocks[i + 1..doc.section_end[i]]
            .iter()
            .filter_map(|b| match b {
                Block::Item {
                    checked: Some(c), ..
                } => Some(*c),
                _ => None,
            })
            .collect();
        if boxes.is_empty() {
            continue;
        }
        ticked |= boxes.iter().any(|c| *c);
        if !found.iter().any(|(_, m)| *m == n) {
            found.push((i, n));
        }
    }
    if found.len() < 2 || !ticked {
        return None;
    }
    let (first, _) = found[0];
    let name = doc
        .heading(first)
        .map(|(_, t, _)| clean_name(t))
        .unwrap_or_default();
    Some(Warning {
        code: "reading::series_outside".into(),
        message: format!(
            "{} headings outside every sprint carry on the sprints' series (first: `{name}`), with task lines of their own, some ticked: their work would not run",
            found.len()
        ),
        help: "move them out of the section that sets them aside, or have your agent rewrite the plan with `git supervisor import`".into(),
        line: doc.line(doc.blocks[first].span().start),
    })
}

/// Sibling sections numbered 1, 2, 3 … (three or more), each with work
/// of its own (a list or code, under no name about the plan), none of them a sprint, inside one or holding one: the
/// reading chose other sections and left these out. (first heading, how
/// many)
fn numbered_outside(doc: &Doc, units: &[RawUnit]) -> Option<(usize, usize)> {
    let heading_at = doc.headings_by_start();
    let mut covered = vec![false; doc.blocks.len()];
    let mut holds = vec![false; doc.blocks.len()];
    for s in units.iter().flat_map(|u| &u.sprints) {
        let Some(&i) = heading_at.get(&s.span.start) else {
            continue;
        };
        covered[i..doc.section_end[i]].fill(true);
        let mut up = doc.parent[i];
        while let Some(p) = up {
            holds[p] = true;
            up = doc.parent[p];
        }
    }
    // (parent, level) → the run being counted: (first heading, next number, length).
    let mut runs: std::collections::HashMap<(Option<usize>, u8), (usize, u32, usize)> =
        std::collections::HashMap::new();
    let mut best: Option<(usize, usize)> = None;
    for i in 0..doc.blocks.len() {
        let Some((level, text, _)) = doc.heading(i) else {
            continue;
        };
        let key = (doc.parent[i], level);
        let Some((n, _)) = super::steps::series_number(text) else {
            runs.remove(&key);
            continue;
        };
        let work = !super::about_plan::describes_plan(text)
            && doc
                .section(i)
                .any(|j| matches!(doc.blocks[j], Block::Item { .. } | Block::Code { .. }));
        let left_out = !covered[i] && !holds[i] && work;
        let run = match runs.get(&key) {
            Some(&(first, next, len)) if next == n && left_out => (first, n + 1, len + 1),
            _ if n == 1 && left_out => (i, 2, 1),
            _ => {
                runs.remove(&key);
                continue;
            }
        };
        runs.insert(key, run);
        if run.2 >= 3 && best.is_none_or(|(_, b)| run.2 > b) {
            best = Some((run.0, run.2));
        }
    }
    best
}

/// What the reading guessed, each with the line it rests on.
pub(super) fn guesses(
    doc: &Doc,
    units: &[RawUnit],
    in_place: &HashSet<usize>,
    unit_source: &UnitSource,
    dependencies: DependencyStructure,
) -> Vec<Warning> {
    let mut out: Vec<Warning> = series_left_out(doc, units)
        .into_iter()
        .chain(series_headings_left_out(doc, units))
        .collect();
    let elsewhere: Vec<&RawSprint> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .filter(|s| s.sprint.done.is_some() && !in_place.contains(&s.span.start))
        .collect();
    if let Some(first) = elsewhere.first() {
        let n = elsewhere.len();
        out.push(Warning {
            code: "reading::done_elsewhere".into(),
            message: format!(
                "{n} sprint{} count{} as done from marks outside {} own section{} (first: {}): {} not run",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "its" } else { "their" },
                if n == 1 { "" } else { "s" },
                first.sprint.done.as_deref().unwrap_or_default(),
                if n == 1 { "it is" } else { "they are" },
            ),
            help: "check the done marks with `git supervisor plan`".into(),
            line: doc.line(first.span.start),
        });
    }
    // The whole plan read as one sprint though it has sections of its own:
    // no plan of the corpora that reads so was meant as one step.
    if let [unit] = units {
        // A plan titled as one sprint (`# Sprint: cache v2.1`) says so.
        if let [one] = unit.sprints.as_slice() {
            let titled = one.sprint.origin.rule.contains("`Sprint:` title");
            // Sections with list items of their own, other than the
            // sprint's heading, its criteria and notes about the plan.
            let sections = (0..doc.blocks.len())
                .filter(|&i| {
                    doc.heading(i).is_some_and(|(_, text, span)| {
                        span.start != one.span.start
                            && criteria_label(text).is_none()
                            && !super::about_plan::describes_plan(text)
                            && !keeps_a_record(text)
                    }) && doc
                        .own_blocks(i)
                        .any(|j| matches!(doc.blocks[j], Block::Item { .. }))
                })
                .count();
            if sections >= 3 && !titled {
                out.push(Warning {
                    code: "reading::one_sprint".into(),
                    message: format!(
                        "the whole plan is read as one sprint (`{}`), though {sections} sections list work of their own",
                        one.sprint.name
                    ),
                    help: "check the reading with `git supervisor plan`, or have your agent rewrite the plan with `git supervisor import`".into(),
                    line: doc.line(one.span.start),
                });
            }
        }
    }
    // Phases that frame steps beside phases read whole: two levels.
    for unit in units {
        let steps = unit
            .sprints
            .iter()
            .filter(|s| s.sprint.origin.rule.starts_with("step "))
            .count();
        let Some(whole) = unit
            .sprints
            .iter()
            .find(|s| !s.sprint.origin.rule.starts_with("step "))
            .filter(|_| steps > 0)
        else {
            continue;
        };
        out.push(Warning {
            code: "reading::mixed_levels".into(),
            message: format!(
                "{steps} sprints are steps of their phase and {} whole phase{} without steps (first: `{}`): the plan is read at two levels",
                unit.sprints.len() - steps,
                if unit.sprints.len() - steps == 1 { "" } else { "s" },
                whole.sprint.name
            ),
            help: "check the reading with `git supervisor plan`, or have your agent rewrite the plan with `git supervisor import`".into(),
            line: doc.line(whole.span.start),
        });
        break;
    }
    let stated_order = matches!(
        unit_source,
        UnitSource::Steps | UnitSource::Waves | UnitSource::PhaseSections
    );
    if stated_order && dependencies != DependencyStructure::Sequential {
        if let Some(first) = units.first() {
            // Phases of agents mix two kinds of unit: the reading as a whole.
            let each = match unit_source {
                UnitSource::PhaseSections => {
                    "an agent's section of a phase whose heading, opening words or the plan's opening say its agents run at once, or a phase of its own".to_string()
                }
                _ => first.rule.clone(),
            };
            out.push(Warning {
                code: "reading::order_stated".into(),
                message: format!(
                    "{} units, some at once, in the order the plan's own words give: each is {each}",
                    units.len(),
                ),
                help: "check the order with `git supervisor plan`".into(),
                line: first.origin.line,
            });
        }
    }
    // A drawn graph the reading did not use: the sprints run one after
    // another, which is safe, but the plan may allow more at once.
    if dependencies == DependencyStructure::Sequential
        && units.iter().map(|u| u.sprints.len()).sum::<usize>() > 1
    {
        if let Some(line) = drawn_graph(doc) {
            out.push(Warning {
                code: "reading::graph_unread".into(),
                message: format!(
                    "the plan draws an order at line {line} that could not be tied to its sprints: they run one after another"
                ),
                help: "if some sprints may run at once, name each sprint's dependencies (`Depends on: …`), or have your agent rewrite the plan with `git supervisor import`".into(),
                line,
            });
        } else if let Some(line) = dependency_table(doc, units) {
            out.push(Warning {
                code: "reading::order_unread".into(),
                message: format!(
                    "the table at line {line} says what its rows wait for, and its rows could not be tied to the sprints: they run one after another"
                ),
                help: "if some sprints may run at once, name each sprint's dependencies (`Depends on: …`), or have your agent rewrite the plan with `git supervisor import`".into(),
                line,
            });
        } else if let Some(line) = parallel_said(doc) {
            out.push(Warning {
                code: "reading::parallel_unread".into(),
                message: format!(
                    "the plan says at line {line} that some of its work may run at once, and names no order that could be tied to its sprints: they run one after another"
                ),
                help: "if some sprints may run at once, name each sprint's dependencies (`Depends on: …`) or put them in layers, or have your agent rewrite the plan with `git supervisor import`".into(),
                line,
            });
        }
    }
    out
}

/// The line of a table with a dependency column (`| M2 | … | M1 |`,
/// `Depende de`, `依存`) naming something on two rows or more: an order
/// the plan states.
fn dependency_table(doc: &Doc, units: &[RawUnit]) -> Option<usize> {
    doc.blocks.iter().find_map(|b| {
        let Block::Table { header, rows, span } = b else {
            return None;
        };
        // A table whose rows are the sprints was read with its column: a
        // chain it states is the sequence read.
        let rows_are_steps = units
            .iter()
            .flat_map(|u| &u.sprints)
            .any(|s| rows.iter().any(|r| r.span.start == s.span.start));
        if rows_are_steps {
            return None;
        }
        let col = super::column(header, super::dependencies::DEPENDENCY_COLUMNS)?;
        let naming = rows
            .iter()
            .filter(|r| {
                r.cells.get(col).is_some_and(|c| {
                    let t = c.text.trim();
                    !super::dependency_lines::names_nothing(t)
                        && t.chars().any(char::is_alphanumeric)
                })
            })
            .count();
        (naming >= 2).then(|| doc.line(span.start))
    })
}

/// The line of a sentence outside code that says work may run at once
/// (`7 concurrent tracks`, `Tracks 1, 3 and 5 can run in parallel`,
/// `병렬 작업 트랙`, `可并行`): a phrase of parallel work beside a word of
/// the plan's work or of running it. A feature (`parallel fetching`,
/// players acting `simultaneously`) says nothing of the plan's order, nor
/// does a legend of marks (`[P]: can run in parallel`). Wider than
/// `parallel::AT_ONCE` in languages, narrower in English: `simultaneously`
/// and `at the same time` describe features too often to ask about.
pub(super) fn parallel_said(doc: &Doc) -> Option<usize> {
    const PARALLEL: &[&str] = &[
        "in parallel",
        "parallel to",
        "parallel with",
        "parallelizable",
        "parallelisable",
        "parallel track",
        "parallel stream",
        "parallel work",
        "parallel lane",
        "parallel session",
        "concurrent track",
        "concurrent stream",
        "concurrently",
        "並行",
        "並列",
        "并行",
        "병렬",
        "동시 진행",
        "parallèle",
        "paralelo",
        "paralelamente",
        "in parallelo",
        "równoleg",
        "paralel",
        "параллельн",
        "song song",
        "gleichzeitig",
        "parallel lauf",
        "parallel bearbeit",
        "同時に",
    ];
    const WORK: &[&str] = &[
        "can ",
        "may ",
        "run",
        "work",
        "track",
        "stream",
        "task",
        "phase",
        "milestone",
        "step",
        "sprint",
        "agent",
        "team",
        "lane",
        "wave",
        "session",
        "트랙",
        "작업",
        "任务",
        "轨",
        "阶段",
        "可并行",
        "可以并行",
        "タスク",
        "トラック",
        "フェーズ",
        "段階",
        "並列で",
        "단계",
        "pode",
        "puede",
        "peut",
        "kann",
        "może",
    ];
    doc.blocks.iter().find_map(|b| {
        let (text, span) = match b {
            Block::Paragraph { text, span } | Block::Item { text, span, .. } => (text, span),
            Block::Heading { text, span, .. } => (text, span),
            _ => return None,
        };
        // Most blocks say nothing of parallel work: one look at the whole
        // block first, then its lines.
        let lower = text.to_lowercase();
        if !PARALLEL.iter().any(|p| lower.contains(p)) {
            return None;
        }
        lower
            .lines()
            .zip(text.lines())
            .enumerate()
            .find_map(|(k, (l, written))| {
                let said = !written.contains("[P]")
                    && PARALLEL.iter().any(|p| l.contains(p))
                    && WORK.iter().any(|w| l.contains(w));
                said.then(|| doc.line(span.start) + k)
            })
    })
}

/// The line of a graph of steps drawn in the plan: a Mermaid `graph` or
/// `flowchart`, or a code block drawn with arrows (`──►`, `-->`, `▼`),
/// that names steps (`Phase 2`, `M1`, `T3`, `US2`) twice or more; a
/// drawing of the system's parts is no order of work.
fn drawn_graph(doc: &Doc) -> Option<usize> {
    doc.blocks.iter().find_map(|b| {
        let Block::Code { info, text, span } = b else {
            return None;
        };
        let mermaid = super::dependencies::is_mermaid_graph(info, text);
        let arrows = text
            .lines()
            .filter(|l| {
                l.contains("──►")
                    || l.contains("─►")
                    || (l.contains("-->") && !l.contains("<!--"))
                    || l.trim() == "▼"
                    || l.trim() == "↓"
            })
            .count();
        ((mermaid || arrows >= 2) && names_steps(text) >= 2).then(|| doc.line(span.start))
    })
}

/// How many step names (`Phase 2`, `M1`, `T3`, `US2`, `TASK-A1`) a
/// drawing holds.
fn names_steps(text: &str) -> usize {
    const WORDS: &[&str] = &[
        "phase",
        "sprint",
        "step",
        "task",
        "milestone",
        "wave",
        "stage",
        "week",
    ];
    const CODES: &[&str] = &["m", "p", "t", "s", "w", "us", "task", "phase", "step"];
    let tokens: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .filter(|t| !t.is_empty())
        .collect();
    let mut n = 0;
    for (k, t) in tokens.iter().enumerate() {
        let lower = t.to_ascii_lowercase();
        let letters = lower.chars().take_while(char::is_ascii_alphabetic).count();
        let coded = letters > 0
            && letters < lower.len()
            && CODES.contains(&&lower[..letters])
            && lower[letters..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.');
        let worded = WORDS.contains(&lower.as_str())
            && tokens
                .get(k + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
        if coded || worded {
            n += 1;
        }
    }
    n
}

/// The guesses of levels read from an outline's shape alone: numbered
/// bold items read as steps because their heading names an order (a level
/// chosen on one heading's word), and label lines over checklists read as
/// the sections of a plan without headings. Each is (first block, count).
pub(super) fn outline_levels(
    doc: &Doc,
    by_order: Option<(usize, usize)>,
    labels_read: Option<(usize, usize)>,
) -> Vec<Warning> {
    let warning = |code: &str, block: usize, message: String| Warning {
        code: code.into(),
        message,
        help: "check the reading with `git supervisor plan`, or give each step a heading".into(),
        line: doc.line(doc.blocks[block].span().start),
    };
    let mut out = Vec::new();
    if let Some((block, n)) = by_order {
        out.push(warning(
            "reading::bold_items",
            block,
            format!("{n} numbered bold items under a heading that names their order are read as the steps, in the order written"),
        ));
    }
    if let Some((block, n)) = labels_read {
        out.push(warning(
            "reading::label_lines",
            block,
            format!("no heading names a step: {n} lines standing alone over checklists are read as the steps' names, each over its list"),
        ));
    }
    out
}
