//! A BMAD story (`# Story 2.7: …` with `## Tasks / Subtasks`): the story
//! is one ticket, and its top-level tasks, each with its subtasks and the
//! acceptance criteria it serves (`(AC: #1)`), are what an agent does one
//! at a time. Each such task becomes a `Task N` heading one level below its
//! section (its box kept as `[x]` or `[ ]`), so the heading readers take
//! the tasks as the sprints and their subtasks as task lines.

use super::norm;
use super::Block;

/// Whether a heading is a story's task section.
fn task_section(text: &str) -> bool {
    // Every heading passes here: a look before any copy.
    if !text
        .as_bytes()
        .windows(8)
        .any(|w| w.eq_ignore_ascii_case(b"subtasks"))
    {
        return false;
    }
    let t: String = norm(text).chars().filter(|c| !c.is_whitespace()).collect();
    matches!(
        t.as_str(),
        "tasks/subtasks" | "tasks&subtasks" | "tasksandsubtasks"
    )
}

/// The story's top-level tasks as headings.
pub(super) fn promote_story_tasks(source: &str, mut blocks: Vec<Block>) -> Vec<Block> {
    let Some((at, level)) = blocks.iter().enumerate().find_map(|(i, b)| match b {
        Block::Heading { level, text, .. } if task_section(text) => Some((i, *level)),
        _ => None,
    }) else {
        return blocks;
    };
    let mut tasks: Vec<(usize, bool)> = Vec::new();
    for (i, b) in blocks.iter().enumerate().skip(at + 1) {
        match b {
            Block::Heading { level: l, .. } if *l <= level => break,
            Block::Item {
                depth: 0,
                checked: Some(done),
                ..
            } => tasks.push((i, *done)),
            _ => {}
        }
    }
    if tasks.len() < 2 {
        return blocks;
    }
    for (n, (i, done)) in tasks.into_iter().enumerate() {
        let first = source[blocks[i].span()].lines().next().unwrap_or_default();
        let label = super::outline::item_label(first).trim();
        // `Task 3: Configure ports (AC: 3)` keeps its own number.
        let numbered = label
            .strip_prefix("Task ")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        let text = if numbered {
            label.to_string()
        } else {
            format!("Task {}: {label}", n + 1)
        };
        let mark = if done { "[x]" } else { "[ ]" };
        super::outline::into_heading(&mut blocks, i, level + 1, format!("{mark} {text}"));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_sections() {
        assert!(task_section("Tasks / Subtasks"));
        assert!(task_section("Tasks/Subtasks"));
        assert!(!task_section("Tasks"));
    }
}
