//! Sprints: the units of agent work inside a work unit.
//!
//! Shapes recognised: sprint headings (see [`headings`](super::headings)); a
//! sprint table (`| Sprint | Name | Exit criteria |`); `### Task N.M:` groups
//! (one sprint per N); checklist groups (any heading whose own text holds
//! `- [ ]` items). A sprint's body gives its tasks, entry and exit criteria
//! (see [`criteria`](super::criteria)), task type and the files it names.

use super::*;

/// `Sprint 2a: Name` (also `—`, `-`, `.` as the separator, or none).
pub(super) fn sprint_heading(text: &str) -> Option<(String, String)> {
    let rest = text
        .trim()
        .strip_prefix("Sprint ")
        .or_else(|| text.trim().strip_prefix("sprint "))?;
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let name = rest[id.len()..]
        .trim_start()
        .trim_start_matches([':', '—', '–', '-', '.'])
        .trim();
    Some((id, name.to_string()))
}

/// `Task 3.2: Name` → (3, "Name").
pub(super) fn task_heading(text: &str) -> Option<(u32, String)> {
    let rest = text.trim().strip_prefix("Task ")?;
    let (num, name) = rest.split_once(':')?;
    let (major, minor) = num.trim().split_once('.')?;
    if minor.is_empty() || !minor.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((major.parse().ok()?, name.trim().to_string()))
}

pub(super) fn is_sprint_table(header: &[Cell]) -> bool {
    column(header, &["sprint", "sprint id", "id", "#"]).is_some()
        && column(
            header,
            &[
                "name",
                "description",
                "goal",
                "title",
                "sprint name",
                "deliverable",
            ],
        )
        .is_some()
        && column(header, UNIT_COLUMNS).is_none()
}

pub(super) fn detect_sprints(
    doc: &Doc,
    scope: std::ops::Range<usize>,
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

    // 1. Sprint headers.
    let mut sprints = Vec::new();
    for i in scope.clone() {
        let Some((_, text, span)) = doc.heading(i) else {
            continue;
        };
        let Some((id, name)) = sprint_heading(text) else {
            continue;
        };
        match id.parse::<SprintId>() {
            Ok(id) => {
                let sprint = read_sprint(doc, i, id.clone(), name);
                sprints.push(RawSprint {
                    id,
                    span: span.clone(),
                    sprint,
                });
            }
            Err(_) => id_problem(span.clone(), &id, problems),
        }
    }
    if !sprints.is_empty() {
        return (sprints, Some(SprintSource::Headers));
    }

    // 2. A sprint table.
    for i in scope.clone() {
        let Block::Table { header, rows, .. } = &doc.blocks[i] else {
            continue;
        };
        if !is_sprint_table(header) {
            continue;
        }
        let id_col = column(header, &["sprint", "sprint id", "id", "#"])
            .expect("checked by is_sprint_table");
        let name_col = column(
            header,
            &["name", "title", "sprint name", "goal", "deliverable"],
        );
        let desc_col = column(header, &["description", "tasks", "scope", "deliverables"]);
        let exit_col = column_where(header, |h| {
            h.contains("exit")
                || h.contains("validation")
                || h.contains("done when")
                || h.contains("acceptance")
        });
        let type_col = column(header, &["type", "task type"]);
        for row in rows {
            let Some(id_cell) = row.cells.get(id_col) else {
                continue;
            };
            let raw_id = id_cell
                .text
                .trim()
                .trim_start_matches("Sprint")
                .trim()
                .trim_matches('`');
            let Ok(id) = raw_id.parse::<SprintId>() else {
                id_problem(id_cell.span.clone(), raw_id, problems);
                continue;
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
            let exit: Vec<Criterion> = split_criteria(&cell(exit_col))
                .iter()
                .map(|t| classify_criterion(t, &inline_code(t), false))
                .collect();
            let task_type = parse_task_type(&cell(type_col))
                .unwrap_or_else(|| classify_task_type(&name, &tasks));
            let body = doc.source[row.span.clone()].to_string();
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
                },
            });
        }
        if !sprints.is_empty() {
            return (sprints, Some(SprintSource::Table));
        }
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
    if !groups.is_empty() {
        for (major, headings) in groups {
            let id = SprintId {
                number: major,
                suffix: String::new(),
            };
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
            sprints.push(RawSprint { id, span, sprint });
        }
        return (sprints, Some(SprintSource::TaskGroups));
    }

    // 4. Checklist groups: every heading whose own text holds `- [ ]` items.
    let mut n = 0;
    for i in scope {
        let Some((level, text, span)) = doc.heading(i) else {
            continue;
        };
        if level < 2 || criteria_label(text).is_some() || is_template_heading(text) {
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
        if !has_checks {
            continue;
        }
        n += 1;
        let id = SprintId {
            number: n,
            suffix: String::new(),
        };
        let sprint = read_sprint(doc, i, id.clone(), clean_name(text));
        sprints.push(RawSprint {
            id,
            span: span.clone(),
            sprint,
        });
    }
    if sprints.is_empty() {
        (sprints, None)
    } else {
        (sprints, Some(SprintSource::Checklists))
    }
}

pub(super) fn read_sprint(doc: &Doc, heading: usize, id: SprintId, name: String) -> Sprint {
    let mut sprint = Sprint {
        id,
        name: clean_name(&name),
        task_type: TaskType::Code,
        tasks: Vec::new(),
        entry: Vec::new(),
        exit: Vec::new(),
        files: Vec::new(),
        body: doc.section_text(heading).to_string(),
    };
    let mut explicit_type = None;
    let mut label = Label::Tasks;
    let mut unlabelled_code = Vec::new();
    for j in doc.section(heading) {
        match &doc.blocks[j] {
            Block::Heading { text, .. } => label = criteria_label(text).unwrap_or(Label::Tasks),
            Block::Paragraph { text, .. } => {
                for line in text.lines() {
                    if let Some((key, value)) = line.split_once(':') {
                        if matches!(norm(key).as_str(), "type" | "task type") {
                            explicit_type = parse_task_type(value).or(explicit_type);
                            continue;
                        }
                    }
                    if let Some((l, rest)) = label_line(line) {
                        label = l;
                        if !rest.is_empty() {
                            push_criterion(&mut sprint, l, rest, &inline_code(rest), false);
                        }
                    }
                }
            }
            Block::Item {
                text,
                checked,
                code,
                ..
            } => match label {
                Label::Tasks => sprint.tasks.push(text.clone()),
                l => push_criterion(&mut sprint, l, text, code, checked.unwrap_or(false)),
            },
            Block::Code { info, text, .. } => {
                if info.trim() == "mermaid" {
                    continue;
                }
                let command = strip_prompts(text);
                if command.is_empty() {
                    continue;
                }
                match label {
                    Label::Expected => {
                        if let Some(last) = sprint
                            .exit
                            .iter_mut()
                            .rev()
                            .find(|c| c.kind == CriterionKind::Command)
                        {
                            last.expected = Some(text.trim_end().to_string());
                        }
                    }
                    Label::Entry => sprint.entry.push(command_criterion(command)),
                    Label::Exit => sprint.exit.push(command_criterion(command)),
                    Label::Tasks => unlabelled_code.push(command),
                    Label::Rules => {}
                }
            }
            Block::Table { .. } => {}
        }
    }
    sprint.task_type =
        explicit_type.unwrap_or_else(|| classify_task_type(&sprint.name, &sprint.tasks));
    // A command sprint's bare code block is the command it runs, and running
    // it successfully is what "done" means.
    if sprint.task_type == TaskType::Command
        && !sprint.exit.iter().any(|c| c.kind == CriterionKind::Command)
    {
        sprint
            .exit
            .extend(unlabelled_code.into_iter().map(command_criterion));
    }
    sprint.files = code_paths(&sprint.body);
    sprint
}

/// Paths written in backticks (`src/lib.rs`, `PROGRESS.md`).
pub(super) fn code_paths(text: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for code in inline_code(text) {
        let c = code.trim();
        let is_path = !c.contains(char::is_whitespace)
            && (c.contains('/')
                || c.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && (1..=5).contains(&ext.len())
                        && ext.chars().all(|x| x.is_ascii_alphanumeric())
                        && ext.chars().any(|x| x.is_ascii_alphabetic())
                }))
            && !c.contains("://");
        if is_path {
            out.insert(c.to_string());
        }
    }
    out.into_iter().collect()
}
