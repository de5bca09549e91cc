//! Plan rewrites: the canonical writer, `evaluate`, `prioritize` and
//! `breakdown` give plans that parse back with the same units and sprints.

use std::collections::BTreeMap;

use git_supervisor::plan::parse;
use git_supervisor::plan::write;
use git_supervisor::plan::ParseContext;
use git_supervisor::plan::Plan;

use crate::common::plans_dir;

/// Every fixture plan that parses.
pub fn good_fixtures() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(plans_dir()).expect("plans dir") {
        let dir = entry.expect("entry").path();
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if name.starts_with("bad-") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
        out.push((name, text));
    }
    out.sort();
    out
}

pub fn ctx() -> ParseContext {
    ParseContext {
        dir_name: "project".into(),
    }
}

pub fn parsed(name: &str, text: &str) -> Plan {
    parse(text, &ctx()).unwrap_or_else(|p| panic!("{name} does not parse: {p:?}\n{text}"))
}

/// What "the same plan" means: units (name, directory, layer, dependencies)
/// and, in order, each sprint's name, type, tasks and criteria. Sprint ids
/// are left out (rewrites renumber) and so are the derived file lists.
pub fn shape(p: &Plan) -> serde_json::Value {
    serde_json::json!({
        "title": p.title,
        "units": p.units.iter().map(|u| serde_json::json!({
            "name": u.name,
            "dir": u.dir_or_root(),
            "layer": u.layer,
            "deps": u.deps,
            "sprints": u.sprints.iter().map(|s| serde_json::json!({
                "name": s.name,
                "type": s.task_type,
                "tasks": s.tasks,
                "entry": s.entry,
                "exit": s.exit,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "entry_checks": p.entry_checks,
        "exit_checks": p.exit_checks,
        "rules": p.rules,
        "template": p.template.as_deref().map(str::trim_end),
    })
}

#[test]
fn the_canonical_form_of_every_fixture_parses_back_the_same() {
    for (name, text) in good_fixtures() {
        let plan = parsed(&name, &text);
        let out = write::render(&plan, &write::extras(&text, &plan), &BTreeMap::new());
        let back = parsed(&name, &out);
        assert_eq!(shape(&back), shape(&plan), "{name}:\n{out}");
        let again = write::render(&back, &write::extras(&out, &back), &BTreeMap::new());
        assert_eq!(again, out, "{name}: writing is not stable");
    }
}
