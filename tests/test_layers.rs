//! The house rules, read from the source: every `crate::…` path (and every
//! `super::` that climbs out of its module) points down the layers that
//! ARCHITECTURE.md draws, and no source file grows past the size a reader
//! takes in at once. The picture in ARCHITECTURE.md is the test's input, so
//! the two cannot drift apart.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

/// No source file over this many lines.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layers as ARCHITECTURE.md draws them, from the ground up: the first
/// word of each line of the first fenced block under `## Layers`, which
/// lists them top-down.
fn layers() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split("\n## Layers")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the Layers section draws the layers in a fenced block");
    let mut names: Vec<String> = block
        .lines()
        .skip(1) // the fence's info string
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .map(str::to_string)
        .collect();
    names.reverse();
    names
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
}

/// `text` with comments, string and character literals blanked out (newlines
/// kept, so line numbers stay), leaving only code to search for paths.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = i + 2 + hashes;
            let end = b[start..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| start + p + close.len());
            for &c in &b[i..end] {
                blank(&mut out, c);
            }
            i = end;
        } else if rest[0] == b'"' {
            blank(&mut out, b'"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                blank(&mut out, b[i]);
                i += 1;
            }
            if i < b.len() {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime.
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                let ch = std::str::from_utf8(&rest[1..rest.len().min(6)])
                    .ok()
                    .or_else(|| {
                        (2..6)
                            .rev()
                            .find_map(|n| std::str::from_utf8(rest.get(1..n)?).ok())
                    })
                    .and_then(|s| s.chars().next());
                ch.filter(|c| rest.get(1 + c.len_utf8()) == Some(&b'\''))
                    .map(|c| c.len_utf8() + 2)
            };
            match len {
                Some(n) => {
                    for &c in &rest[..n] {
                        blank(&mut out, c);
                    }
                    i += n;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segment of each path a `crate::` at `at` names: one for
/// `crate::store::Store`, several for `crate::{plan::Plan, store::Store}`.
fn first_segments(code: &str) -> Vec<String> {
    let code = code.trim_start();
    if let Some(group) = code.strip_prefix('{') {
        let mut depth = 1;
        let mut items = vec![String::new()];
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => {
                    items.push(String::new());
                    continue;
                }
                _ => {}
            }
            if depth >= 1 {
                items.last_mut().expect("an item").push(c);
            }
        }
        items
            .iter()
            .map(|i| ident(i.trim()).to_string())
            .filter(|i| !i.is_empty())
            .collect()
    } else {
        vec![ident(code).to_string()]
    }
}

struct Import {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// Every reference from one top-level module to another, with where it is.
fn imports() -> Vec<Import> {
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        // The binaries and the crate root sit above every layer.
        if parts.len() == 1 || parts[0] == "bin" {
            continue;
        }
        let module = parts[0].clone();
        // The module path of the file: `engine/mod.rs` is `engine`.
        let mut own: Vec<&str> = parts.iter().map(String::as_str).collect();
        if own.last() == Some(&"mod") {
            own.pop();
        }
        let code = code_only(&std::fs::read_to_string(&path).expect("source"));
        let line_of = |at: usize| code[..at].matches('\n').count() + 1;
        let bytes = code.as_bytes();
        let boundary = |at: usize| {
            at == 0
                || !(bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
        };
        for (at, _) in code.match_indices("crate::") {
            if !boundary(at) {
                continue;
            }
            for to in first_segments(&code[at + "crate::".len()..]) {
                found.push(Import {
                    file: format!("src/{}", rel.display()),
                    line: line_of(at),
                    from: module.clone(),
                    to,
                });
            }
        }
        for (at, _) in code.match_indices("super::") {
            if !boundary(at) {
                continue;
            }
            let mut climbs = 1;
            let mut rest = &code[at + "super::".len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                climbs += 1;
                rest = r;
            }
            // Still inside its own top-level module: not an import.
            if climbs < own.len() {
                continue;
            }
            for to in first_segments(rest) {
                found.push(Import {
                    file: format!("src/{}", rel.display()),
                    line: line_of(at),
                    from: module.clone(),
                    to,
                });
            }
        }
    }
    found
}

#[test]
fn architecture_md_draws_every_module_of_the_crate() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("lib.rs");
    let mut declared: Vec<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    declared.sort();
    let mut drawn = layers();
    drawn.sort();
    assert_eq!(
        drawn, declared,
        "the layers in ARCHITECTURE.md (`## Layers`) and the modules in src/lib.rs differ"
    );
}

#[test]
fn no_import_runs_up_a_layer() {
    let order: BTreeMap<String, usize> = layers()
        .into_iter()
        .enumerate()
        .map(|(n, m)| (m, n))
        .collect();
    let all = imports();
    assert!(
        all.iter().any(|i| i.from == "engine" && i.to == "store"),
        "the reader found no import at all: it is broken"
    );
    let mut wrong = Vec::new();
    for i in &all {
        let (Some(from), Some(to)) = (order.get(&i.from), order.get(&i.to)) else {
            // Paths into the crate root's own items (none today) or names
            // the picture does not know are caught by the test above.
            continue;
        };
        if to > from {
            wrong.push(format!(
                "{}:{}: `{}` (layer {}) imports `{}` (layer {}), which is above it",
                i.file, i.line, i.from, from, i.to, to
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up the layers drawn in ARCHITECTURE.md:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_source_file_is_over_the_size_a_reader_takes_in() {
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).expect("source").lines().count();
            (n > MAX_LINES).then(|| {
                format!(
                    "{} has {n} lines",
                    f.strip_prefix(root()).unwrap_or(f).display()
                )
            })
        })
        .collect();
    assert!(
        long.is_empty(),
        "source files over {MAX_LINES} lines (split them by what they do):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_reader_sees_paths_in_code_only() {
    let code = code_only(
        "use crate::{plan::Plan, store::{Store, Tip}};\n// crate::cli\nlet s = \"crate::engine\";\nlet r = r#\"crate::hooks\"#;\nlet c = '\"'; crate::report::x();\n",
    );
    let mut seen = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        seen.extend(first_segments(&code[at + 7..]));
    }
    assert_eq!(seen, ["plan", "store", "report"]);
}
