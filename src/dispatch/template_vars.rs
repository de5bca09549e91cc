//! What a v1 dispatch template (Approach A) writes for one project but
//! means for every unit (spec §I-44, §I-45): `<8|9|10|11|12>`, the number of
//! the section holding this unit's sprints, and hard-coded absolute paths,
//! which become `$PROJECT_ROOT`-relative so that they name the tree the
//! agent works in (its own worktree, another machine's checkout).

use crate::plan::Plan;
use crate::plan::Unit;

/// `<8|9|10|11|12>` (alternatives that are all section numbers) filled with
/// the number of the section holding `unit`'s sprints: the enclosing
/// numbered heading that is one of the alternatives, else the innermost;
/// with no numbered heading, the unit's place among the plan's units when
/// there are as many alternatives as units.
pub fn fill_sections(template: &str, plan: &Plan, unit: &Unit) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let alternatives = after
            .find('>')
            .map(|close| &after[..close])
            .filter(|v| v.contains('|'))
            .map(|v| v.split('|').map(str::trim).collect::<Vec<_>>())
            .filter(|alts| alts.iter().all(|a| is_section_number(a)));
        match alternatives {
            Some(alts) => {
                out.push_str(&section_for(&alts, plan, unit));
                rest = &after[after.find('>').map_or(0, |c| c + 1)..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_section_number(a: &str) -> bool {
    !a.is_empty()
        && a.starts_with(|c: char| c.is_ascii_digit())
        && a.chars().all(|c| c.is_ascii_digit() || c == '.')
}

fn section_for(alts: &[&str], plan: &Plan, unit: &Unit) -> String {
    if let Some(numbers) = plan.unit_sections.get(&unit.name) {
        if let Some(n) = numbers.iter().find(|n| alts.contains(&n.as_str())) {
            return n.clone();
        }
        if let Some(n) = numbers.first() {
            return n.clone();
        }
    }
    let place = plan.units.iter().position(|u| u.name == unit.name);
    match place {
        Some(i) if alts.len() == plan.units.len() => alts[i].to_string(),
        _ => format!("(the one holding {}'s sprints)", unit.name),
    }
}

/// Every hard-coded absolute (or `~/`) path in `template` that points into
/// the project rewritten as `$PROJECT_ROOT/…`: one under `project_root`, one
/// whose components from some point name a unit's directory,
/// `EXECUTION_PLAN.md` or a file the plan refers to, one under a directory
/// such a path showed to be the author's project root, and one whose
/// components name the project's directory. Other paths (`/usr/bin/env`,
/// `/tmp`) are left alone.
pub fn relative_paths(template: &str, plan: &Plan, project_root: &str) -> String {
    let project = project_root.trim_end_matches('/');
    let project_name = project.rsplit('/').next().unwrap_or("");
    let mut anchors: Vec<&str> = plan
        .units
        .iter()
        .filter_map(|u| u.dir.as_deref())
        .filter(|d| *d != ".")
        .filter_map(|d| d.split('/').next())
        .chain(
            plan.referenced_files
                .iter()
                .filter_map(|f| f.split('/').next()),
        )
        .chain(["EXECUTION_PLAN.md"])
        .collect();
    anchors.retain(|a| !a.is_empty());
    let paths = paths_in(template);
    // The author's project root, shown by the paths that name something of
    // the project under it.
    let mut roots: Vec<Vec<&str>> = Vec::new();
    for &(start, end) in &paths {
        let parts = components(&template[start..end]);
        if let Some(i) = parts.iter().position(|p| anchors.contains(p)) {
            if i > 0 && !roots.contains(&parts[..i].to_vec()) {
                roots.push(parts[..i].to_vec());
            }
        }
    }
    let mut out = String::with_capacity(template.len());
    let mut at = 0;
    for (start, end) in paths {
        out.push_str(&template[at..start]);
        let path = &template[start..end];
        let tail = rewrite(path, project, project_name, &anchors, &roots);
        match &tail {
            Some(rel) if rel.is_empty() => out.push_str("$PROJECT_ROOT"),
            Some(rel) => out.push_str(&format!("$PROJECT_ROOT/{rel}")),
            None => out.push_str(path),
        }
        if tail.is_some() && path.ends_with('/') {
            out.push('/');
        }
        at = end;
    }
    out.push_str(&template[at..]);
    out
}

/// The byte ranges of the absolute and `~/` paths in `text` (not URLs, not
/// a trailing `.` or `:` of the sentence).
fn paths_in(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let starts_path =
            (c == '/' && !rest.starts_with("//")) || (c == '~' && rest.starts_with("~/"));
        let boundary = prev.is_none_or(|p| p.is_whitespace() || "`\"'([=".contains(p));
        if starts_path && boundary {
            let len = rest
                .find(|ch: char| ch.is_whitespace() || "`\"')],;<>".contains(ch))
                .unwrap_or(rest.len());
            let path = rest[..len].trim_end_matches(['.', ':']);
            out.push((i, i + path.len()));
            prev = rest[..len].chars().next_back();
            i += len;
            continue;
        }
        prev = Some(c);
        i += c.len_utf8();
    }
    out
}

fn components(path: &str) -> Vec<&str> {
    path.trim_start_matches('~')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect()
}

/// The path relative to the project root, when it points into the project.
fn rewrite(
    path: &str,
    project: &str,
    project_name: &str,
    anchors: &[&str],
    roots: &[Vec<&str>],
) -> Option<String> {
    if !project.is_empty() {
        if path.trim_end_matches('/') == project {
            return Some(String::new());
        }
        if let Some(rel) = path.strip_prefix(project).and_then(|r| r.strip_prefix('/')) {
            return Some(rel.trim_end_matches('/').to_string());
        }
    }
    let parts = components(path);
    if let Some(root) = roots.iter().find(|r| parts.starts_with(r)) {
        return Some(parts[root.len()..].join("/"));
    }
    if let Some(i) = parts.iter().position(|p| anchors.contains(p)) {
        return Some(parts[i..].join("/"));
    }
    let i = parts
        .iter()
        .position(|p| !project_name.is_empty() && *p == project_name)?;
    Some(parts[i + 1..].join("/"))
}
