//! A sprint's own text read from its section: its tasks (list items,
//! the task column of a table, titled rows with a status, bare numbered
//! sub-headings), its entry and exit criteria (labelled lists, paragraphs
//! and tables, `Run:` / `Expected:` pairs), the files it names and its task
//! type. Which blocks are a sprint is decided elsewhere (`sprints.rs`).

use super::*;

/// A sprint with its id, name and text, and nothing read from it yet.
pub(super) fn blank_sprint(id: SprintId, name: &str, body: String) -> Sprint {
    Sprint {
        id,
        name: clean_name(name),
        task_type: TaskType::Code,
        tasks: Vec::new(),
        entry: Vec::new(),
        exit: Vec::new(),
        files: Vec::new(),
        body,
        done: None,
        origin: Origin::default(),
    }
}

pub(super) fn read_sprint(doc: &Doc, heading: usize, id: SprintId, name: String) -> Sprint {
    read_sprint_until(doc, heading, id, name, |j| doc.is_sprint(j))
}

/// [`read_sprint`], the sprint's text ending at the first heading inside
/// it that `nested` says is a sprint of its own.
pub(super) fn read_sprint_until(
    doc: &Doc,
    heading: usize,
    id: SprintId,
    name: String,
    nested: impl Fn(usize) -> bool,
) -> Sprint {
    // A sprint's text ends where a sprint nested in it begins: that one's
    // tasks are its own.
    let end = doc
        .section(heading)
        .find(|&j| nested(j))
        .unwrap_or(doc.section_end[heading]);
    let text = if doc.section(heading).contains(&end) {
        &doc.source[doc.blocks[heading].span().start..doc.blocks[end].span().start]
    } else {
        doc.section_text(heading)
    };
    let mut sprint = blank_sprint(id, &name, text.to_string());
    let mut explicit_type = None;
    let mut label = Label::Tasks;
    let mut unlabelled_code = Vec::new();
    // A list item that is itself a label (`* **Exit Criteria:**`) labels the
    // items nested under it: (label, its depth).
    let mut item_label: Option<(Label, usize)> = None;
    for j in doc.section(heading).take_while(|&j| j < end) {
        match &doc.blocks[j] {
            Block::Heading { text, .. } => {
                item_label = None;
                label = criteria_label(text).unwrap_or(match &doc.about_at[j] {
                    Some((_, About::Criteria)) => Label::Exit,
                    _ => Label::Tasks,
                });
                // A numbered step with nothing under it (`### 4-1. Release`
                // under `## Phase 4`) is a task line of the sprint.
                let bare = j != heading && doc.section(j).next().is_none();
                if bare
                    && label == Label::Tasks
                    && text.trim_start().starts_with(|c: char| c.is_ascii_digit())
                {
                    sprint.tasks.push(clean_name(text));
                }
            }
            Block::Paragraph { text, span } => {
                // `Run: `cmd`` then `Expected: PASS` (a superpowers step):
                // the command is an exit criterion; expecting a failure, a
                // TDD step's note.
                let mut run: Option<String> = None;
                for line in text.lines() {
                    if let Some((key, value)) = line.split_once(':') {
                        if matches!(norm(key).as_str(), "type" | "task type") {
                            explicit_type = parse_task_type(value).or(explicit_type);
                            continue;
                        }
                        if norm(key) == "run" {
                            run = inline_code(value).into_iter().next();
                            continue;
                        }
                    }
                    // A bold label of another kind alone in its paragraph
                    // (`**Prompt**:`) ends the criteria before it.
                    if text.lines().count() == 1
                        && doc.source[span.clone()].trim_start().starts_with("**")
                        && line.trim_end().ends_with(':')
                        && line.split_whitespace().count() <= 3
                        && label_line(line).is_none()
                    {
                        label = Label::Tasks;
                        continue;
                    }
                    if let Some((l, rest)) = label_line(line) {
                        if let Some(cmd) = run.take().filter(|_| l == Label::Expected) {
                            let known = sprint
                                .exit
                                .iter()
                                .any(|c| c.command.as_deref() == Some(&cmd));
                            if !expects_failure(rest) && !known {
                                sprint.exit.push(command_criterion(cmd));
                            }
                        }
                        // `Expected: PASS` says all it expects; only a bare
                        // `Expected:` labels the block after it.
                        if l != Label::Expected || rest.is_empty() {
                            label = l;
                        }
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
                depth,
                ..
            } => {
                // `* **Exit Criteria:**` labels what is nested under it; a
                // plain item "Validate" is a task.
                if let Some(l) = criteria_label(text).filter(|_| text.trim_end().ends_with(':')) {
                    item_label = Some((l, *depth));
                    continue;
                }
                if let Some((l, rest)) = label_line(text) {
                    if !rest.is_empty() && l != Label::Tasks {
                        push_criterion(
                            &mut sprint,
                            l,
                            rest,
                            &inline_code(rest),
                            checked.unwrap_or(false),
                        );
                        continue;
                    }
                }
                let l = match item_label {
                    Some((l, d)) if *depth > d => l,
                    _ => {
                        item_label = None;
                        label
                    }
                };
                match l {
                    Label::Tasks => sprint.tasks.push(text.clone()),
                    l => push_criterion(&mut sprint, l, text, code, checked.unwrap_or(false)),
                }
            }
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
                    // A fenced list of checks (`[ ] parser handles empty
                    // input`) is read, not run: each line a checklist item.
                    // A block marked as shell (```sh) is a command as written.
                    Label::Entry | Label::Exit
                        if !matches!(info.trim(), "sh" | "bash" | "shell" | "zsh" | "console")
                            && !super::levels::fenced_commands(&command) =>
                    {
                        for (item, ticked) in super::levels::fenced_checks(&command) {
                            push_criterion(&mut sprint, label, item, &[], ticked);
                        }
                    }
                    Label::Entry => sprint.entry.push(command_criterion(command)),
                    Label::Exit => sprint.exit.push(command_criterion(command)),
                    Label::Tasks => unlabelled_code.push(command),
                    Label::Rules => {}
                }
            }
            Block::Table { header, rows, .. } => {
                if matches!(label, Label::Exit | Label::Entry) {
                    for (text, checked) in criteria_table(header, rows) {
                        push_criterion(&mut sprint, label, &text, &inline_code(&text), checked);
                    }
                } else if label == Label::Tasks {
                    // A task table (`| Task | Status | Notes |`): its task
                    // column lists the sprint's tasks.
                    // A table of work items with a status each (`| PRD |
                    // Title | Effort | Status |`): its titles are the tasks.
                    let titled = || {
                        column_where(header, super::completion::is_status_key).and(column(
                            header,
                            &["title", "name", "feature", "story", "deliverable"],
                        ))
                    };
                    if let Some(col) = column(header, &["task", "tasks", "work item"])
                        .or_else(titled)
                        .or_else(|| super::work_table::item_column(header, rows))
                    {
                        // A line of one cell under a wider table is a
                        // paragraph Markdown took into it (`DoD: …`).
                        sprint.tasks.extend(
                            rows.iter()
                                .filter(|r| r.source_cells >= 2 || header.len() < 2)
                                .filter_map(|r| r.cells.get(col))
                                .map(|c| c.text.trim().to_string())
                                .filter(|t| !t.is_empty()),
                        );
                    }
                }
            }
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
