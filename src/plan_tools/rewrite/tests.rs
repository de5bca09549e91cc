//! Unit tests of evaluate's and prioritize's rewrites.

use super::*;

#[test]
fn unit_names_are_found_as_a_scan_finds_them() {
    let text = "# P\n\n## Sprint 1: A\n\n- Create `x.rs`\n";
    let mut plan = crate::plan::parse(text, &Default::default()).expect("parses");
    let template = plan.units[0].clone();
    plan.units = ["core", "unit-1", "unit-12", "web api", "(odd)", "Core-X"]
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let mut u = template.clone();
            u.name = n.to_string();
            u.dir = (k == 1).then(|| "svc/one".to_string());
            u
        })
        .collect();
    let names = UnitNames::new(&plan);
    for t in [
        "uses unit-1 and the core-x lib",
        "unit-12, web  api, web api (odd)",
        "svc/one/x.rs and xcore 1core",
        "",
    ] {
        let want: Vec<usize> = plan
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| {
                analysis::has_phrase(t, &u.name.to_lowercase())
                    || u.dir
                        .as_deref()
                        .is_some_and(|d| analysis::has_phrase(t, &d.to_lowercase()))
            })
            .map(|(k, _)| k)
            .collect();
        assert_eq!(names.named_in(t), want, "{t:?}");
    }
}

#[test]
fn references_are_retargeted_in_one_pass() {
    let map: BTreeMap<String, String> = [("2", "3"), ("3", "4"), ("2a", "2")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(
        retarget("Sprint 2 and Sprint 3 and Sprint 2a, Sprint 22", &map),
        "Sprint 3 and Sprint 4 and Sprint 2, Sprint 22"
    );
    assert_eq!(retarget("Sprint 2abc", &map), "Sprint 3abc");
}

#[test]
fn concerns_are_real_directory_names() {
    let files = vec!["(Sources)/a.swift".to_string(), "core/b.rs".to_string()];
    assert_eq!(split::concern_of("(Sources)/a.swift", &files), None);
    assert_eq!(split::concern_of("<tag/x", &files), None);
    assert_eq!(split::concern_of("core/b.rs", &files), Some("core".into()));
}

#[test]
fn a_sprint_the_plan_marks_done_is_never_reshaped() {
    let mut text = String::from("# P\n\n## Sprint 1: Everything ✅\n\n");
    for k in 0..400 {
        text.push_str(&format!("- Create `d{}/f{k}.rs`\n", k % 5));
    }
    text.push_str("\n**Exit Criteria**:\n- [ ] It works correctly\n");
    let plan = crate::plan::parse(&text, &Default::default()).expect("parses");
    assert!(plan.units[0].sprints[0].done.is_some());
    let (fixed, ev) = evaluate(&plan, 50, &Commands::default());
    assert_eq!(fixed, plan);
    assert_eq!(ev.done_left, 1);
    assert!(ev.proposals.is_empty() && ev.changes.is_empty());
}
