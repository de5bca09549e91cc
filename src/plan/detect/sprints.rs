//! Sprints: the units of agent work inside a work unit.
//!
//! Shapes recognised: sprint headings (see [`headings`](super::headings)); a
//! sprint table (`| Sprint | Name | Exit criteria |`); `### Task N.M:` groups
//! (one sprint per N); a document titled as one sprint (`# Sprint: Name`,
//! the whole plan is that sprint); checklist groups (any heading whose own
//! text holds `- [ ]` items). A sprint's body gives its tasks (list items and
//! the Task column of a task table), entry and exit criteria
//! (see [`criteria`](super::criteria)), task type and the files it names.

use super::sprint_table::id_column;
pub(super) use super::sprint_table::is_sprint_table;
pub(super) use super::sprint_table::step_code;
use super::sprint_table::table_row_done;
use super::sprint_table::table_sprint_id;
pub(super) use super::sprint_table::SPRINT_NAME_COLUMNS;
pub(super) use super::sprint_text::{blank_sprint, code_paths, read_sprint, read_sprint_until};
use super::*;

/// `Task 3.2: Name` → (3, "Name").
pub(super) fn task_heading(text: &str) -> Option<(u32, String)> {
    let rest = text.trim().strip_prefix("Task ")?;
    let (num, name) = rest.split_once(':')?;
    let (major, minor) = num.trim().split_once('.')?;
    // `Task 7.3.1` is part of task 7.3, in group 7.
    if minor.is_empty() || !minor.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    Some((major.parse().ok()?, name.trim().to_string()))
}

/// `Task 3.2: Name ✅`, `Task 7.3.1: Name` → ("3.2", "Name").
fn task_heading_id(text: &str) -> Option<(String, String)> {
    let rest = text.trim().strip_prefix("Task ")?;
    let (num, name) = rest.split_once(':')?;
    let (name, _) = strip_done_marks(name.trim());
    Some((num.trim().to_string(), name.trim().to_string()))
}

/// A sprint id as written → the model's id. Letters count from A (`Phase
/// A` is 1, `A0` is 1.0); everything else must be a valid [`SprintId`].
pub(super) fn model_id(raw: &str) -> Option<SprintId> {
    if let Ok(id) = raw.parse::<SprintId>() {
        return Some(id);
    }
    let first = raw.chars().next()?;
    if first.is_ascii_uppercase() {
        // `UX1`: two or three capitals count in base 27 (`A` 1 … `Z` 26,
        // `UX` 591), so each code keeps a number of its own.
        let capitals = raw.bytes().take_while(u8::is_ascii_uppercase).count();
        let digits = &raw[capitals..];
        if !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        // `R.0` as `R0`: the letter's number, then the one under it.
        let digits = digits.strip_prefix('.').unwrap_or(digits).to_string();
        let number = raw[..capitals]
            .bytes()
            .fold(0u32, |n, c| n * 27 + u32::from(c - b'A') + 1);
        let suffix = if digits.is_empty() {
            String::new()
        } else {
            format!(".{digits}")
        };
        return Some(SprintId { number, suffix });
    }
    // `01` → 1; `1A` → 1a; `2.x` (phase 2's follow-ups), `1.A` → 2x, 1a: a
    // letter after a separator is the number's own.
    let lower = raw.to_ascii_lowercase();
    let lower = lower.trim_start_matches('0');
    lower.parse::<SprintId>().ok().or_else(|| {
        let mut joined = String::with_capacity(lower.len());
        let mut chars = lower.chars().peekable();
        while let Some(c) = chars.next() {
            let before_letter = chars.peek().is_some_and(char::is_ascii_lowercase);
            if !(matches!(c, '.' | '-') && before_letter) {
                joined.push(c);
            }
        }
        joined.parse::<SprintId>().ok()
    })
}

pub(super) fn detect_sprints(
    doc: &Doc,
    scope: std::ops::Range<usize>,
    heads: Option<&[usize]>,
    problems: &mut Vec<Problem>,
) -> (Vec<RawSprint>, Option<SprintSource>) {
    let whole = scope == (0..doc.blocks.len());
    let (sprints, source) = in_scope(doc, scope, heads, problems);
    if !whole {
        return (sprints, source);
    }
    // A plan read as one unit may keep its steps outside its body: a Cursor
    // plan's frontmatter `todos:` (when the body shows fewer, or only
    // numbered sections that are a guess), an ExecPlan's milestones named
    // only in its progress list.
    let todos = todo_sprints(doc);
    if todos.len() >= 2 && (todos.len() > sprints.len() || source == Some(SprintSource::Numbered)) {
        return (todos, Some(SprintSource::Todos));
    }
    // An epic's created tickets are its work, over any checklist beside
    // them (a preview of the same tickets).
    let weak = matches!(
        source,
        None | Some(SprintSource::Checklists) | Some(SprintSource::Numbered)
    );
    if weak {
        let tickets = super::tickets::created_tickets(doc);
        if !tickets.is_empty() {
            return (
                tickets.into_iter().map(|t| t.sprint).collect(),
                Some(SprintSource::Tickets),
            );
        }
    }
    if sprints.len() <= 1 {
        let milestones = super::done_elsewhere::progress_milestones(doc);
        if milestones.len() > sprints.len() {
            return (milestones, Some(SprintSource::Progress));
        }
    }
    (sprints, source)
}

/// The sprints in a unit's own blocks, by the first shape that finds any.
fn in_scope(
    doc: &Doc,
    scope: std::ops::Range<usize>,
    heads: Option<&[usize]>,
    problems: &mut Vec<Problem>,
) -> (Vec<RawSprint>, Option<SprintSource>) {
    let id_problem = |span: Span, id: &str, problems: &mut Vec<Problem>| {
        problems.push(
            Problem::new(
                ProblemCode::BadSprintId,
                format!("`{id}` is not a sprint id"),
            )
            .label(span, "here")
            .help("sprint ids are a number with an optional lower-case letter: 3, 2a, 2b"),
        );
    };

    // 1. Sprint headings (in the unit's section, or assigned to it).
    let mut sprints = Vec::new();
    // The done mark of each heading holding sprints, asked once.
    let mut marks = Vec::new();
    // Each sprint's heading block, beside it.
    let mut at: Vec<usize> = Vec::new();
    let listed: Vec<usize> = match heads {
        Some(h) => h.to_vec(),
        None => scope.clone().filter(|&i| doc.is_sprint(i)).collect(),
    };
    for i in listed {
        let (Some(h), Some((_, _, span))) = (&doc.sprint_at[i], doc.heading(i)) else {
            continue;
        };
        match model_id(&h.id) {
            Some(id) => {
                // The word as the plan writes it (`Story R.0`, not `Task R.0`).
                let word = doc
                    .heading(i)
                    .and_then(|(_, t, _)| before_token(t, &h.id))
                    .and_then(|before| before.split_whitespace().last())
                    .filter(|w| w.chars().all(char::is_alphabetic))
                    .map_or_else(|| h.word.as_str().to_string(), str::to_string);
                let name = if h.id.parse::<SprintId>().is_ok() && !h.name.is_empty() {
                    h.name.clone()
                } else if h.name.is_empty() {
                    format!("{word} {}", h.id)
                } else {
                    format!("{word} {}: {}", h.id, h.name)
                };
                let mut sprint = read_sprint(doc, i, id.clone(), name);
                sprint.done = done_evidence(doc, i, h.done)
                    .or_else(|| super::done_above::done_above(doc, i, &mut marks))
                    .or_else(|| super::restated::restated_done(doc, i, &h.id));
                let written = doc.heading(i).is_some_and(|(_, t, _)| {
                    // The word's names are ASCII: a window compared
                    // without case, no lower-cased copies.
                    t.as_bytes()
                        .windows(h.word.as_str().len())
                        .any(|w| w.eq_ignore_ascii_case(h.word.as_str().as_bytes()))
                        || t.contains(&format!("{word} {}", h.id))
                        || h.word == Word::Milestone && t.trim_start().starts_with('M')
                });
                let rule = if written {
                    format!("`{word} {}` heading", h.id)
                } else {
                    format!("subsection {} of a `{}s` heading", h.id, h.word.as_str())
                };
                sprint.origin = Origin::new(doc.line(span.start), rule);
                sprints.push(RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                });
                at.push(i);
            }
            None => id_problem(span.clone(), &h.id, problems),
        }
    }
    // A sprint placed earlier by a heading restating it runs there.
    if heads.is_none() {
        if let Some(order) = super::restated::restated_order(doc, &at) {
            let (old_sprints, old_at) = (std::mem::take(&mut sprints), std::mem::take(&mut at));
            let mut slots: Vec<Option<RawSprint>> = old_sprints.into_iter().map(Some).collect();
            for k in order {
                if let Some(s) = slots[k].take() {
                    sprints.push(s);
                    at.push(old_at[k]);
                }
            }
        }
    }
    // The plan's title read as its one sprint (`# Release 2.0`) over a
    // sprint table: the table's rows are the sprints.
    let title_over_table = heads.is_none()
        && at.len() == 1
        && doc.heading(at[0]).is_some_and(|(l, _, _)| l == 1)
        && scope.clone().any(|i| {
            matches!(&doc.blocks[i], Block::Table { header, rows, .. }
                if rows.len() >= 2 && is_sprint_table(header, rows))
        });
    // Phases over one task list counted on across them: the list's items
    // are the steps, each phase's own (its criteria and notes below stay
    // out), its exit criteria met with its last item.
    if heads.is_none() && at.len() >= 2 && super::task_list::runs_across(doc, &at) {
        if let Some(items) = super::task_list::items_of_phases(doc, &sprints, &at) {
            return (items, Some(SprintSource::TaskList));
        }
    }
    if (!sprints.is_empty() || heads.is_some()) && !title_over_table {
        return (
            super::steps::subdivided(doc, sprints, &at),
            Some(SprintSource::Headers),
        );
    }
    sprints.clear();

    // 2. A sprint table, and the tables after it written with its columns
    // right under headings numbered in one series with its own (`## Category
    // 2` after `## Category 1`, each over `| ID | Task | Status |`): one list
    // of steps. A `## Backlog`, `## Done` or `## Won't do` table, or one
    // after a label line, is no more of them.
    let mut series = super::sprint_table::TableSeries::default();
    let mut counter = 0u32;
    for i in scope.clone() {
        let Block::Table { header, rows, .. } = &doc.blocks[i] else {
            continue;
        };
        if !is_sprint_table(header, rows) {
            continue;
        }
        let joining = series.started();
        if !series.admits(doc, i, header, rows) {
            continue;
        }
        let id_col = id_column(header, rows).expect("checked by is_sprint_table");
        // A row with nothing but its first cell (`| **T001: Setup** | | |`)
        // heads a group of the rows below it: a divider, not a step.
        let rows: Vec<Row> = rows
            .iter()
            .filter(|r| {
                r.cells
                    .iter()
                    .enumerate()
                    .any(|(c, cell)| c != id_col && !cell.text.trim().is_empty())
            })
            .cloned()
            .collect();
        let rows = rows.as_slice();
        // Rows named by codes (`SEC-01`, `1.2`) are numbered in order, the
        // code kept in front of the name; a `Sprint` column must hold ids.
        let sprint_column = column(header, &["sprint", "sprint id"]) == Some(id_col);
        let coded = !sprint_column
            && rows.iter().any(|r| {
                r.cells
                    .get(id_col)
                    .is_some_and(|c| table_sprint_id(&c.text).parse::<SprintId>().is_err())
            })
            && rows.iter().all(|r| {
                r.cells
                    .get(id_col)
                    .is_some_and(|c| step_code(&c.text).is_some())
            });
        let ids_read = coded
            || rows.iter().all(|r| {
                r.cells
                    .get(id_col)
                    .is_some_and(|c| table_sprint_id(&c.text).parse::<SprintId>().is_ok())
            });
        if !series.keep(joining, ids_read, coded, id_col, rows) {
            continue;
        }
        let name_col = column(header, SPRINT_NAME_COLUMNS).or_else(|| {
            column(header, &["stage", "step", "phase", "milestone", "task"])
                .filter(|&c| c != id_col)
        });
        let desc_col = column(
            header,
            &[
                "description",
                "tasks",
                "scope",
                "deliverables",
                "primary output",
                "output",
                "outputs",
            ],
        );
        // `Status`, `状态`, `Estado`: the column's name in the plan's language.
        let status_col = column_where(header, super::completion::is_status_key);
        let exit_col = column_where(header, |h| {
            h.contains("exit")
                || h.contains("validation")
                || h.contains("done when")
                || h.contains("acceptance")
        });
        let type_col = column(header, &["type", "task type"]);
        let sections = if coded {
            super::sprint_table::sections_by_code(doc, scope.clone())
        } else {
            Default::default()
        };
        for row in rows {
            let Some(id_cell) = row.cells.get(id_col) else {
                continue;
            };
            counter += 1;
            let raw_id = table_sprint_id(&id_cell.text);
            let (id, code) = if coded {
                let id = SprintId::whole(counter);
                (id, step_code(&id_cell.text))
            } else {
                let Ok(id) = raw_id.parse::<SprintId>() else {
                    // `| **R11** | … | 19 (deps R04) |`: a column that says
                    // when each task is scheduled reads as the sprint's id.
                    problems.push(
                        Problem::new(
                            ProblemCode::BadSprintId,
                            format!("`{raw_id}` is not a sprint id"),
                        )
                        .label(id_cell.span.clone(), "in the table's sprint column")
                        .help("sprint ids are a number with an optional lower-case letter (3, 2a); a column that says when a task is scheduled is read as its sprint's id: rename it (`Target sprint`) or write ids only"),
                    );
                    continue;
                };
                (id, None)
            };
            let cell = |c: Option<usize>| {
                c.and_then(|c| row.cells.get(c))
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            };
            let description = cell(desc_col);
            let name = Some(cell(name_col))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| description.clone());
            let tasks: Vec<String> = Some(description)
                .filter(|d| !d.is_empty() && *d != name)
                .into_iter()
                .collect();
            // A heading's name has no inline code; the same step in a
            // table reads the same.
            let name = clean_name(&name.replace('`', ""));
            let name = match code {
                Some(code) => format!("{code}: {name}"),
                None => name,
            };
            let exit: Vec<Criterion> = split_criteria(&cell(exit_col))
                .iter()
                .map(|t| classify_criterion(t, &inline_code(t), false))
                .collect();
            let task_type = parse_task_type(&cell(type_col))
                .unwrap_or_else(|| classify_task_type(&name, &tasks));
            let mut body = doc.source[row.span.clone()].to_string();
            let mut tasks = tasks;
            let mut exit = exit;
            let mut done = table_row_done(&cell(status_col));
            // No status column: a cell opening with a done word and its
            // date (`**DONE 2026-05-08**` under `Risk`) says it.
            if status_col.is_none() {
                done = super::work_table::row_dated_done(header, row)
                    .map(|m| format!("marked complete in the plan (`{m}` on its table row)"));
            }
            // The row's step written out in a section of its own: its text
            // is the step's, the row its index entry.
            if let Some(h) = code.and_then(|c| sections.get(c).copied().flatten()) {
                let own = read_sprint(doc, h, id.clone(), name.clone());
                tasks.extend(own.tasks);
                if exit.is_empty() {
                    exit = own.exit;
                }
                body.push_str(&own.body);
                done = done.or_else(|| done_evidence(doc, h, false));
            }
            sprints.push(RawSprint {
                id: id.clone(),
                span: row.span.clone(),
                sprint: Sprint {
                    id,
                    name,
                    task_type,
                    tasks,
                    entry: Vec::new(),
                    exit,
                    files: code_paths(&body),
                    body,
                    done,
                    origin: Origin::new(doc.line(row.span.start), "sprint table row"),
                },
            });
        }
        // A first table that gave no step leaves the next to be the first.
        if sprints.is_empty() {
            series = Default::default();
            counter = 0;
        }
    }
    if !sprints.is_empty() {
        return (
            super::levels::fold_sub_rows(sprints),
            Some(SprintSource::Table),
        );
    }

    // 2b. A sprint table with one column per agent.
    if let Some(sprints) = super::agent_columns::sprints(doc, scope.clone()) {
        return (sprints, Some(SprintSource::Table));
    }

    // 3. `### Task N.M:` groups.
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for i in scope.clone() {
        if let Some((_, text, _)) = doc.heading(i) {
            if let Some((major, _)) = task_heading(text) {
                groups.entry(major).or_default().push(i);
            }
        }
    }
    // Headings that carry a mark of their own (`### Task 1.2: Name ✅`, a
    // status line) are tracked one by one: each is a sprint, `N.M`.
    let tracked = groups.values().flatten().any(|&h| {
        doc.heading(h)
            .is_some_and(|(_, t, _)| strip_done_marks(t).1)
            || done_evidence(doc, h, false).is_some()
    });
    // One major number alone (`#### Task 1.1` … `1.3` under `### Fase 1`):
    // its section is the group; the tasks are the steps.
    let one_group = groups.len() == 1 && groups.values().all(|h| h.len() >= 2);
    if tracked || one_group {
        for &h in groups.values().flatten() {
            let Some((_, text, span)) = doc.heading(h) else {
                continue;
            };
            let Some((id, name)) = task_heading_id(text) else {
                continue;
            };
            let Some(id) = model_id(&id) else { continue };
            let heading_done = strip_done_marks(text).1;
            let mut sprint = read_sprint(doc, h, id.clone(), name);
            sprint.done = done_evidence(doc, h, heading_done);
            sprint.origin = Origin::new(
                doc.line(span.start),
                "`Task N.M` heading with a mark of its own",
            );
            sprints.push(RawSprint {
                id,
                span: span.clone(),
                sprint,
            });
        }
        return (sprints, Some(SprintSource::TaskGroups));
    }
    if !groups.is_empty() {
        for (major, headings) in groups {
            let id = SprintId::whole(major);
            let first = headings[0];
            let name = task_heading(doc.heading(first).map(|h| h.1).unwrap_or_default())
                .map(|(_, n)| n)
                .unwrap_or_default();
            let mut sprint = read_sprint(doc, first, id.clone(), name);
            for &h in &headings[1..] {
                let more = read_sprint(doc, h, id.clone(), String::new());
                if let Some((_, t, _)) = doc.heading(h) {
                    sprint.tasks.push(t.to_string());
                }
                sprint.tasks.extend(more.tasks);
                sprint.entry.extend(more.entry);
                sprint.exit.extend(more.exit);
                sprint.files.extend(more.files);
                sprint.body.push_str(&more.body);
            }
            sprint.files.sort();
            sprint.files.dedup();
            let span = doc.blocks[first].span();
            sprint.origin = Origin::new(
                doc.line(span.start),
                format!("`Task {major}.N` headings grouped into sprint {major}"),
            );
            sprints.push(RawSprint { id, span, sprint });
        }
        return (sprints, Some(SprintSource::TaskGroups));
    }

    // 4. A numbered task list (Kiro's `tasks.md`): each top-level
    // `- [ ] N. …` item is a sprint.
    let listed = super::task_list::task_list_sprints(doc, scope.clone());
    if !listed.is_empty() {
        return (listed, Some(SprintSource::TaskList));
    }

    // 4b. A document titled as one sprint (`# Sprint: crawl-sim v1.5.0`): the
    // whole plan is that sprint.
    if let Some(i) = scope
        .clone()
        .find(|&i| matches!(doc.heading(i), Some((1, _, _))))
    {
        if let Some((_, text, span)) = doc.heading(i) {
            if let Some(name) = titled_sprint(text) {
                let id = SprintId::whole(1);
                let mut sprint = read_sprint(doc, i, id.clone(), name);
                sprint.done = done_evidence(doc, i, false);
                sprint.origin = Origin::new(doc.line(span.start), "the document's `Sprint:` title");
                let span = span.clone();
                return (
                    vec![RawSprint { id, span, sprint }],
                    Some(SprintSource::Headers),
                );
            }
        }
    }

    // 5. A board written as sections (`## In Progress`, `## Done`): its
    // cards.
    if let Some(cards) = super::section_board::board_sprints(doc, scope.clone()) {
        return (cards, Some(SprintSource::Checklists));
    }

    // 6. Checklist groups: every heading whose own text holds `- [ ]` items.
    let scope_all = scope.clone();
    let mut n = 0;
    let mut groups: Vec<(usize, String)> = Vec::new();
    // Two or more `#` headings are the plan's sections, not its title
    // (`# Crystal 0.1.0`, `# Crystal 0.2.0`).
    let titles = scope
        .clone()
        .filter(|&i| matches!(doc.heading(i), Some((1, _, _))))
        .count();
    let top = if titles >= 2 { 1 } else { 2 };
    for i in scope {
        let Some((level, text, _)) = doc.heading(i) else {
            continue;
        };
        // `# Future Versions`: a section about the plan holds no sprint.
        if level < 2 && super::about_plan::describes_plan(text) {
            continue;
        }
        // `## QA Criteria` after `### Group 6`: the criteria the whole is
        // checked by, at any level, not a group of work.
        if super::about_plan::describes_plan(text)
            && clean_name(text)
                .to_lowercase()
                .trim_end_matches(|c: char| !c.is_alphanumeric())
                .ends_with("criteria")
        {
            continue;
        }
        // `### Performance` under `## Future Enhancements (Post-MVP)`: a
        // section about the plan holds no work, whatever its parts hold.
        if under_a_section_about_the_plan(doc, i) {
            continue;
        }
        // `## 💡 Backlog (Idee Future)` after the releases: ideas kept for
        // some later day, not steps.
        if super::about_plan::names_later_ideas(text)
            || super::legend::legend_of_marks(doc, i, text)
        {
            continue;
        }
        // `## 3. Verification` numbered among the steps names a step (its
        // open lines are work), not the criteria of the step before; `## 4.
        // Acceptance Criteria` still names a list of criteria.
        let numbered_step = text.trim_start().starts_with(|c: char| c.is_ascii_digit())
            && !super::about_plan::describes_plan(text);
        // A checklist item read as a heading carries its box (`Prompt-Template
        // in separater Datei erstellen [ ]`): a task that makes a template,
        // not a template section.
        let item = [" [ ]", " [x]", " [X]"]
            .iter()
            .any(|m| text.trim_end().ends_with(m));
        if level < top
            || (criteria_label(text).is_some() && !numbered_step)
            || (is_template_heading(text) && !item)
            || in_entry_template(doc, i)
        {
            continue;
        }
        let has_checks = doc.own_blocks(i).any(|j| {
            matches!(
                doc.blocks[j],
                Block::Item {
                    checked: Some(_),
                    ..
                }
            )
        });
        // `### 10. Cross-Platform Sharing [ ]`: a heading that ends with a
        // box of its own is a work item, with or without items under it (a
        // box in front, `### [x] 1.1 …`, is read with the numbered headings).
        let boxed = ["[ ]", "[x]", "[X]", "[~]"]
            .iter()
            .find(|m| text.trim_end().ends_with(*m));
        if !has_checks && boxed.is_none() {
            continue;
        }
        let name = match boxed {
            Some(m) => text.trim().trim_end_matches(m).trim(),
            None => text,
        };
        groups.push((i, clean_name(name)));
    }
    // Groups of no number of their own under numbered headings (`### Models:`
    // under `## Chat 1: Database`) are parts of those items: the numbered
    // headings are the sprints.
    let groups = super::numbered::numbered_parents(doc, &groups).unwrap_or(groups);
    let groups = super::levels::status_buckets_lifted(doc, groups, top);
    let groups = super::levels::nested_groups_lifted(doc, groups);
    let groups = super::levels::groups_in_groups_folded(doc, groups);
    let groups = super::levels::series_gaps_filled(doc, groups, scope_all.clone());
    let groups = super::levels::with_unboxed_siblings(doc, groups, scope_all.clone());
    let groups = super::levels::worded_siblings_added(doc, groups, scope_all.clone());
    // A group's text ends where a group nested in it begins: its items are
    // that group's own, not the same work twice.
    let heads: BTreeSet<usize> = groups.iter().map(|(i, _)| *i).collect();
    let own_numbers = own_numbers(&groups);
    for (k, (i, name)) in groups.into_iter().enumerate() {
        n += 1;
        let (id, name) = match &own_numbers {
            Some(numbered) => numbered[k].clone(),
            None => (SprintId::whole(n), name),
        };
        let mut sprint = read_sprint_until(doc, i, id.clone(), name, |j| {
            doc.is_sprint(j) || heads.contains(&j)
        });
        // A mark on the heading (`Ship [x]`, `Design ✅`) counts while no
        // item in its section is open, a group nested in it included (the
        // heading marks all it holds).
        let open_item = doc.holds_open_box(i);
        let marked = doc
            .heading(i)
            .is_some_and(|(_, t, _)| strip_done_marks(t).1 && !open_item);
        sprint.done = done_evidence(doc, i, marked);
        let span = doc.blocks[i].span();
        sprint.origin = Origin::new(doc.line(span.start), "heading holding `- [ ]` items");
        sprints.push(RawSprint { id, span, sprint });
    }
    // 7. Numbered headings without a sprint word (a guess); also over a lone
    // checklist, which says less of the plan's steps than three or more
    // numbered headings do (`### T.1 — Backend tests ✅` beside one box),
    // unless the checklist is the plan's only mark of finished work (a
    // ticked `### To-dos` restating the steps).
    if sprints.len() > 1 {
        return (sprints, Some(SprintSource::Checklists));
    }
    let numbered = super::numbered::numbered_sprints(doc, scope_all.clone());
    let only_done_mark = || {
        sprints.iter().any(|s| s.sprint.done.is_some())
            && numbered.iter().all(|s| s.sprint.done.is_none())
    };
    if !sprints.is_empty() && (numbered.len() < 3 || only_done_mark()) {
        return (sprints, Some(SprintSource::Checklists));
    }
    if !numbered.is_empty() {
        return (numbered, Some(SprintSource::Numbered));
    }
    // 8. The task rows of a Mermaid Gantt chart.
    let rows = super::gantt::gantt_sprints(doc, scope_all);
    let source = (!rows.is_empty()).then_some(SprintSource::Gantt);
    (rows, source)
}

/// Groups that each open with a whole number of their own, all distinct
/// (`### 5. Feed`, `### 1. Setup [x]` written below the open ones), keep
/// those numbers as their ids: a board grouped by state lists its steps out
/// of order, and its `Dependencies: 4` lines name them by number.
fn own_numbers(groups: &[(usize, String)]) -> Option<Vec<(SprintId, String)>> {
    let numbered: Vec<(SprintId, String)> = groups
        .iter()
        .map(|(_, name)| {
            let (id, rest) = super::numbered::numbered_heading(name)?;
            let n: u32 = id.parse().ok()?;
            Some((SprintId::whole(n), rest))
        })
        .collect::<Option<_>>()?;
    let mut seen: Vec<u32> = numbered.iter().map(|(id, _)| id.number).collect();
    seen.sort_unstable();
    seen.dedup();
    (groups.len() >= 2 && seen.len() == numbered.len()).then_some(numbered)
}

/// Sprints from the frontmatter's `todos:` (a Cursor plan): one per todo, in
/// order, its text the sprint's name and task, its status the done mark.
fn todo_sprints(doc: &Doc) -> Vec<RawSprint> {
    super::done_elsewhere::todos(doc.source)
        .into_iter()
        .enumerate()
        .map(|(n, todo)| {
            let id = SprintId::whole(n as u32 + 1);
            let text = if todo.content.is_empty() {
                todo.id.clone()
            } else {
                todo.content.clone()
            };
            // The name is a heading's text when the plan is written out:
            // no inline code (the task keeps it).
            let plain = text.replace('`', "");
            let name: String = plain
                .split(". ")
                .next()
                .unwrap_or_default()
                .split(';')
                .next()
                .unwrap_or_default()
                .trim_end_matches('.')
                .chars()
                .take(80)
                .collect();
            let span = todo.at..todo.at + 1;
            let sprint = Sprint {
                tasks: vec![text.clone()],
                files: code_paths(&text),
                done: status_says_done(&todo.status).then(|| {
                    format!(
                        "marked complete in the plan (frontmatter todo `{}`: {})",
                        todo.id, todo.status
                    )
                }),
                origin: Origin::new(
                    doc.line(todo.at),
                    "a frontmatter todo (`todos:` in a Cursor plan)",
                ),
                ..blank_sprint(id.clone(), &name, text)
            };
            RawSprint { id, span, sprint }
        })
        .collect()
}

/// Whether a heading sits in a section about the plan (`## Future
/// Enhancements`, `## Appendix`), below the title; a group of finished
/// work (`## Completed`) is no such section.
pub(super) fn under_a_section_about_the_plan(doc: &Doc, i: usize) -> bool {
    let mut up = doc.parent[i];
    while let Some(p) = up {
        if let Some((level, text, _)) = doc.heading(p) {
            if level >= 2
                && super::about_plan::describes_plan(text)
                && !super::units::sections::is_status_group(text)
            {
                return true;
            }
            // `### Aprovação da Fase 1` under `## Critérios de aprovação
            // por fase`: each phase's criteria, not work.
            if matches!(criteria_label(text), Some(Label::Exit | Label::Entry)) {
                return true;
            }
        }
        up = doc.parent[p];
    }
    false
}

/// The text before `id` written as a word of its own (`PHASE ` of `PHASE A
/// — Docs`, not `PH` of the `A` inside `PHASE`).
fn before_token<'t>(text: &'t str, id: &str) -> Option<&'t str> {
    text.match_indices(id).map(|(at, _)| at).find_map(|at| {
        let before = &text[..at];
        let after = &text[at + id.len()..];
        let starts = before.is_empty() || before.ends_with(|c: char| !c.is_alphanumeric());
        let ends = !after.starts_with(|c: char| c.is_alphanumeric());
        (starts && ends).then_some(before)
    })
}
