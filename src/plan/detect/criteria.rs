//! Entry and exit criteria, plan-wide checks and rules.
//!
//! Shapes recognised: `Entry Criteria` / `Exit Criteria` headings, bold
//! labels and `Label:` lines (also *Exit Checklist*, *Definition of Done*,
//! `DoD:`, *Acceptance Criteria*, *Success Criteria*, *Done when*,
//! *Validation*), nested `* **Exit Criteria:**` items, fenced command blocks
//! under such a label, `Expected:` output blocks; plan-level `Entry Checks`,
//! `Exit Checks`, `Rules` and `Constraints` sections. Inline code is a
//! command only when it reads as one (an executable or a path first).

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
    Entry,
    Exit,
    Rules,
    Expected,
    Tasks,
}

/// `Note: to change fonts later, …`: an item that is a remark on the
/// work, in the plans' languages, not work left open.
pub(super) fn note_line(text: &str) -> bool {
    // No colon near the start, no label: most items end here.
    let head = &text.as_bytes()[..text.len().min(28)];
    if !head.iter().any(|&b| b == b':' || b == 0xEF) {
        return false;
    }
    let t = text.trim_start_matches(['*', '_', ' ']);
    // A label is short: a colon far into the line ends no label. (Every
    // plain item beside ticked ones is asked: compared in place, no copy.)
    let mut cut = t.len().min(24);
    while !t.is_char_boundary(cut) {
        cut -= 1;
    }
    let Some(end) = t[..cut].find([':', '：']) else {
        return false;
    };
    let label = t[..end].trim_end_matches(['*', '_', ' ']);
    [
        "note",
        "notes",
        "nb",
        "n.b.",
        "hinweis",
        "anmerkung",
        "nota",
        "remarque",
        "注",
        "注意",
        "备注",
        "참고",
        "примечание",
        "Примечание",
    ]
    .iter()
    .any(|n| label.eq_ignore_ascii_case(n))
}

pub(super) use super::criteria_label::criteria_label;

/// A table of criteria: each row is one criterion, its text the column
/// headed Criterion, Check, Requirement, Condition, Description, Test, Gate,
/// Metric or Item, ticked when a Status or Done column says so.
pub(super) fn criteria_table(header: &[Cell], rows: &[Row]) -> Vec<(String, bool)> {
    // Only a table that says it holds criteria: any other table under an
    // exit label (a file list, a package table) is context.
    let Some(text_col) = column_where(header, |h| {
        h.starts_with("criteri")
            || h.starts_with("check")
            || h.starts_with("requirement")
            || h.starts_with("condition")
            || matches!(h, "description" | "test" | "gate" | "metric" | "item")
    }) else {
        return Vec::new();
    };
    let cmd_col = column_where(header, |h| {
        h.contains("command") || h.contains("verify") || h.contains("how")
    });
    let status_col = column_where(header, |h| h == "status" || h == "done" || h == "met");
    rows.iter()
        .filter_map(|r| {
            let text = r.cells.get(text_col)?.text.clone();
            if text.is_empty() || criteria_label(&text).is_some() {
                return None;
            }
            let text = match cmd_col
                .and_then(|c| r.cells.get(c))
                .filter(|c| c.text.contains('`'))
            {
                Some(c) if c.text != text => format!("{text} — {}", c.text),
                _ => text,
            };
            let checked = status_col.and_then(|c| r.cells.get(c)).is_some_and(|c| {
                strip_done_marks(&c.text).1
                    || matches!(
                        norm(&c.text).as_str(),
                        "done" | "yes" | "met" | "complete" | "[x]"
                    )
            });
            Some((text, checked))
        })
        .collect()
}

/// A paragraph line `Label: rest` whose label is a known one.
pub(super) fn label_line(line: &str) -> Option<(Label, &str)> {
    let (head, rest) = line.split_once(':')?;
    criteria_label(head).map(|l| (l, rest.trim()))
}

/// `Expected: PASS`, `exit 0`, `All tests pass (3 tests)`: a verdict, not
/// text the output must hold.
pub(super) fn verdict_only(text: &str) -> bool {
    let l = text.trim().to_lowercase();
    let first = l.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    [
        "pass", "passes", "passed", "passing", "success", "succeeds", "ok", "green",
    ]
    .contains(&first)
        || [
            "exit 0",
            "exit code 0",
            "exits 0",
            "all tests pass",
            "all checks pass",
            "tests pass",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// `Expected: FAIL - …`: a TDD step's expectation that a command fails.
pub(super) fn expects_failure(text: &str) -> bool {
    let l = text.trim_start().to_lowercase();
    ["fail", "error", "an error", "exception", "panic"]
        .iter()
        .any(|w| l.starts_with(w))
}

pub(super) fn push_criterion(
    sprint: &mut Sprint,
    label: Label,
    text: &str,
    code: &[String],
    checked: bool,
) {
    // `Expected: PASS` annotates the command before it; on its own, or
    // expecting a failure (a TDD step's `Expected: FAIL`), it is a note on
    // the step, never a criterion.
    if label == Label::Expected {
        let failing = expects_failure(text);
        let last = sprint
            .exit
            .iter_mut()
            .rev()
            .find(|c| c.kind == CriterionKind::Command && c.expected.is_none());
        match last {
            // `Expected: PASS`, `exit 0`: the exit status says it all.
            Some(_) if !failing && verdict_only(text) => {}
            Some(command) if !failing => command.expected = Some(text.trim().to_string()),
            _ => sprint.tasks.push(format!("Expected: {}", text.trim())),
        }
        return;
    }
    let c = classify_criterion(text, code, checked);
    match label {
        Label::Entry | Label::Rules => sprint.entry.push(c),
        Label::Exit | Label::Expected => sprint.exit.push(c),
        Label::Tasks => sprint.tasks.push(text.to_string()),
    }
}

pub(super) fn command_criterion(command: String) -> Criterion {
    Criterion {
        kind: CriterionKind::Command,
        text: command.clone(),
        command: Some(command),
        expected: None,
        checked: false,
    }
}

/// Drop `$ ` prompts and blank lines from a fenced command block.
pub(super) fn strip_prompts(text: &str) -> String {
    text.lines()
        .map(|l| l.strip_prefix("$ ").unwrap_or(l).trim_end())
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Inline code spans written as `` `x` `` in already-rendered text.
pub(crate) fn inline_code(text: &str) -> Vec<String> {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd part is code only when a closing backtick follows it.
    parts
        .iter()
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && i + 1 < parts.len() && !s.is_empty())
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Programs a criterion's inline code may start with and still be a
/// command on its own (`make`, `pytest`).
const SINGLE_WORD_COMMANDS: &[&str] = &[
    "make", "pytest", "tox", "just", "ninja", "true", "false", "nox",
];

/// Programs that make inline code a command whatever follows them.
const KNOWN_PROGRAMS: &[&str] = &[
    "cargo",
    "make",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "bun",
    "deno",
    "node",
    "swift",
    "xcodebuild",
    "xcrun",
    "go",
    "python",
    "python3",
    "pip",
    "uv",
    "poetry",
    "pytest",
    "tox",
    "nox",
    "just",
    "ninja",
    "bazel",
    "gradle",
    "mvn",
    "dotnet",
    "ruby",
    "bundle",
    "rake",
    "git",
    "test",
    "grep",
    "rg",
    "ls",
    "cat",
    "diff",
    "cmp",
    "sh",
    "bash",
    "zsh",
    "true",
    "false",
    "curl",
    "wget",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "ruff",
    "mypy",
    "eslint",
    "tsc",
    "jest",
    "vitest",
    "cmake",
    "ctest",
    "meson",
    "php",
    "composer",
    "mix",
    "rustc",
    "clang",
    "gcc",
    "jq",
    "find",
    "wc",
    "head",
    "tail",
    "stat",
    "file",
    "echo",
    "sed",
    "awk",
    "sort",
    "env",
    "timeout",
    "flutter",
    "dart",
    "gh",
    "shellcheck",
    "black",
    "flake8",
    "pylint",
    "golangci-lint",
    "clippy-driver",
    "rustfmt",
    "xcodegen",
    "pod",
    "fastlane",
    "sqlite3",
    "psql",
    "redis-cli",
    "hyperfine",
];

/// Words that start code, not commands (`let x = 1`, `func run()`).
const CODE_WORDS: &[&str] = &[
    "let",
    "var",
    "func",
    "fn",
    "def",
    "class",
    "struct",
    "enum",
    "import",
    "return",
    "if",
    "for",
    "while",
    "public",
    "private",
    "static",
    "const",
    "type",
    "interface",
    "await",
    "try",
    "case",
    "pub",
    "use",
    "mod",
    "impl",
    "async",
    "final",
    "override",
    "protocol",
    "extension",
    "guard",
    "switch",
    "new",
    "select",
    "from",
    "where",
    "and",
    "or",
    "not",
    "the",
    "a",
    "an",
    "is",
    "are",
    "no",
    "all",
];

/// Inline code reads as a command when an executable or a path comes first:
/// `cargo test`, `make check`, `./scripts/x`, `test -f a`. Code fragments
/// (`#available(macOS 27, *)`), placeholders (`proyecto generate <path>`)
/// and identifiers are statements, never run.
pub(crate) fn looks_like_command(code: &str) -> bool {
    let code = code.trim();
    let Some(first) = code.split_whitespace().next() else {
        return false;
    };
    if SINGLE_WORD_COMMANDS.contains(&code) {
        return true;
    }
    if !code.contains(' ') {
        // A script on its own: `./scripts/verify.sh`, `bin/check`.
        return (code.starts_with("./") || code.starts_with("../"))
            && code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'));
    }
    // Placeholders and code punctuation make it a statement.
    let placeholder =
        code.contains('<') && code.contains('>') && !code.contains(" > ") && !code.contains(" < ");
    if placeholder || code.contains("{{") {
        return false;
    }
    if !first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '~' | '$' | '='))
    {
        return false;
    }
    let is_path = first.starts_with("./")
        || first.starts_with('/')
        || first.starts_with("~/")
        || (first.contains('/') && !first.starts_with('/'));
    let program = first.rsplit('/').next().unwrap_or(first);
    if KNOWN_PROGRAMS.contains(&program) || is_path {
        return true;
    }
    // `FOO=1 cargo test`: an environment assignment, then a program.
    if first.contains('=') {
        return code
            .split_whitespace()
            .nth(1)
            .is_some_and(|p| KNOWN_PROGRAMS.contains(&p.rsplit('/').next().unwrap_or(p)));
    }
    // Any other lower-case program with arguments, unless it reads as code.
    first
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && !CODE_WORDS.contains(&first)
        && !code.contains(['(', ')', '{', '}', ';', '=', '"'])
}

/// Type a criterion (spec §E-25): a statement about a file or the state is an
/// assertion, an inline command is a command, anything else a checklist item.
pub(crate) fn classify_criterion(text: &str, code: &[String], checked: bool) -> Criterion {
    let lower = text.to_lowercase();
    let stated = [
        "exists",
        "is present",
        "contains",
        "shows",
        "equals",
        "is set",
        "is marked",
    ];
    let base = Criterion {
        kind: CriterionKind::Checklist,
        text: text.to_string(),
        command: None,
        expected: None,
        checked,
    };
    if let Some(first) = code.first() {
        if stated.iter().any(|w| lower.contains(w)) && !looks_like_command(first) {
            let command = lower
                .contains("exists")
                .then(|| format!("test -e '{}'", first.replace('\'', "'\\''")));
            return Criterion {
                kind: CriterionKind::Assertion,
                command,
                ..base
            };
        }
        if looks_like_command(first) {
            return Criterion {
                kind: CriterionKind::Command,
                command: Some(first.clone()),
                ..base
            };
        }
    }
    if stated.iter().any(|w| lower.contains(w)) {
        return Criterion {
            kind: CriterionKind::Assertion,
            ..base
        };
    }
    base
}

/// Entry Checks / Exit Checks / Rules / Constraints sections that are not
/// inside a sprint apply to every sprint.
pub(super) fn plan_checks(doc: &Doc) -> (Vec<Criterion>, Vec<Criterion>, Vec<String>) {
    let (mut entry, mut exit, mut rules) = (Vec::new(), Vec::new(), Vec::new());
    let mut inside_sprint_until = 0usize;
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if doc.is_sprint(i) || task_heading(text).is_some() {
            inside_sprint_until = inside_sprint_until.max(doc.section_end[i]);
            continue;
        }
        if i < inside_sprint_until {
            continue;
        }
        let l = norm(text);
        let which = if l.ends_with("entry checks") {
            1
        } else if l.ends_with("exit checks") {
            2
        } else if l.ends_with("rules")
            || l.ends_with("constraints")
            || l.ends_with("guardrails")
            || l.contains("must not")
            || l.contains("do not")
            || l.contains("don'ts")
            || l.contains("non-negotiable")
        {
            3
        } else {
            continue;
        };
        for j in doc.own_blocks(i) {
            match &doc.blocks[j] {
                Block::Item {
                    text,
                    code,
                    checked,
                    ..
                } => {
                    let c = classify_criterion(text, code, checked.unwrap_or(false));
                    match which {
                        1 => entry.push(c),
                        2 => exit.push(c),
                        _ => rules.push(text.clone()),
                    }
                }
                Block::Code { text, info, .. } if which != 3 && info.trim() != "mermaid" => {
                    let c = command_criterion(strip_prompts(text));
                    if which == 1 {
                        entry.push(c)
                    } else {
                        exit.push(c)
                    }
                }
                _ => {}
            }
        }
    }
    (entry, exit, rules)
}

/// Criteria written outside any sprint: a plan-level `## Exit Criteria`
/// (or Success Criteria, Definition of Done) belongs to the final sprint of
/// the unit it sits in, or of the plan; `### Sprint 1 Success` under it
/// belongs to sprint 1. Returns (heading block, sprint id named, criteria).
pub(super) fn loose_criteria(doc: &Doc) -> Vec<(usize, Option<String>, Vec<Criterion>)> {
    let mut out = Vec::new();
    let mut inside_sprint_until = 0usize;
    for i in 0..doc.blocks.len() {
        let Some((_, text, _)) = doc.heading(i) else {
            continue;
        };
        if doc.is_sprint(i) || task_heading(text).is_some() {
            inside_sprint_until = inside_sprint_until.max(doc.section_end[i]);
            continue;
        }
        if i < inside_sprint_until {
            continue;
        }
        let about = match &doc.about_at[i] {
            Some((id, About::Criteria)) => Some(id.clone()),
            Some((_, About::Notes)) => continue,
            None => {
                if criteria_label(text) != Some(Label::Exit) || norm(text).ends_with("exit checks")
                {
                    continue;
                }
                None
            }
        };
        let mut found = Vec::new();
        for j in doc.own_blocks(i) {
            match &doc.blocks[j] {
                Block::Item {
                    text,
                    code,
                    checked,
                    ..
                } if !(text.trim_end().ends_with(':') && criteria_label(text).is_some()) => {
                    found.push(classify_criterion(text, code, checked.unwrap_or(false)));
                }
                Block::Code { text, info, .. } if info.trim() != "mermaid" => {
                    let command = strip_prompts(text);
                    if !command.is_empty() {
                        found.push(command_criterion(command));
                    }
                }
                Block::Table { header, rows, .. } => {
                    for (t, checked) in criteria_table(header, rows) {
                        found.push(classify_criterion(&t, &inline_code(&t), checked));
                    }
                }
                _ => {}
            }
        }
        if !found.is_empty() {
            out.push((i, about, found));
        }
    }
    out
}

/// Criteria outside any sprint go to the sprint they name, or the final
/// sprint of the unit they sit in (of the plan, outside every unit).
pub(super) fn attach_loose_criteria(doc: &Doc, units: &mut [RawUnit]) {
    // A criteria-named heading read as a sprint (`## 3. Verification`
    // among the steps) holds work, not the criteria of another sprint.
    let sprint_heads: HashSet<usize> = units
        .iter()
        .flat_map(|u| &u.sprints)
        .map(|s| s.span.start)
        .collect();
    // Each sprint id's first sprint, so a criterion finds its sprint by
    // one look (a plan of thousands of `Sortie N Success` sections).
    let mut by_id: HashMap<SprintId, (usize, usize)> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        for (k, s) in unit.sprints.iter().enumerate() {
            by_id.entry(s.id.clone()).or_insert((u, k));
        }
    }
    for (at, about, criteria) in loose_criteria(doc) {
        if sprint_heads.contains(&doc.blocks[at].span().start) {
            continue;
        }
        let target = match about {
            Some(id) => model_id(&id).and_then(|id| by_id.get(&id).copied()),
            None => {
                let unit = units
                    .iter()
                    .rposition(|u| {
                        u.scope.contains(&at)
                            && u.heads.is_none()
                            && u.scope.len() < doc.blocks.len()
                    })
                    .or_else(|| units.iter().rposition(|u| !u.sprints.is_empty()));
                unit.and_then(|u| units[u].sprints.len().checked_sub(1).map(|k| (u, k)))
            }
        };
        if let Some((u, k)) = target {
            let exit = &mut units[u].sprints[k].sprint.exit;
            for c in criteria {
                if !exit.contains(&c) {
                    exit.push(c);
                }
            }
        }
    }
}
