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
