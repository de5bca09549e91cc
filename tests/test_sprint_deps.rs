//! A unit that depends on one sprint of another (`Depends on: core sprint
//! 2`) waits for that sprint only: the plan records it as an entry
//! criterion of the unit's first sprint, and the run starts the unit as
//! soon as that sprint is COMPLETED. Real git, the fake agent, the real
//! binary.

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::scripts;
use crate::test_run::history;
use crate::test_run::sv;

const PLAN: &str = "# Shop\n\n## core\n\n### Sprint 1: Types\n\n- Write `core/types.txt`\n\n**Exit Criteria**:\n- [ ] `core/types.txt` exists\n\n### Sprint 2: Store\n\n- Write `core/store.txt`\n\n**Exit Criteria**:\n- [ ] `core/store.txt` exists\n\n### Sprint 3: Cache\n\n- Write `core/cache.txt`\n\n**Exit Criteria**:\n- [ ] `core/cache.txt` exists\n\n## api\n\nDepends on: core sprint 2\n\n### Sprint 1: Routes\n\n- Write `api/routes.txt`\n\n**Exit Criteria**:\n- [ ] `api/routes.txt` exists\n";

#[test]
fn a_unit_that_waits_for_one_sprint_starts_once_that_sprint_is_done() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).expect("plan written");
    git(dir, &["commit", "-qam", "A unit waiting for one sprint"]);

    // Recorded: the unit depends on core, its first sprint's entry
    // criterion names the sprint.
    let plan = run(dir, &["plan", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&plan.stdout).expect("plan JSON");
    let api = &v["units"][1];
    assert_eq!(api["deps"], serde_json::json!(["core"]), "{}", plan.stdout);
    let entry = &api["sprints"][0]["entry"];
    assert!(
        entry
            .as_array()
            .expect("entry criteria")
            .iter()
            .any(|c| c["kind"] == "after" && c["text"] == "core sprint 2 COMPLETED"),
        "{entry}"
    );

    // Obeyed: api starts right after core's sprint 2, before core's sprint 3.
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT}/${SUPERVISOR_SPRINT}.txt done\nwrite core/types.txt t\nwrite core/store.txt s\nwrite core/cache.txt c\nwrite api/routes.txt r\ncommit ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}\nresult complete\n",
    )]);
    let out = sv(dir, s.path(), &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let steps: Vec<String> = history(dir)
        .into_iter()
        .map(|r| {
            format!(
                "{} {} {} -> {}",
                r.unit.unwrap_or_default(),
                r.sprint.unwrap_or_default(),
                r.from.unwrap_or_default(),
                r.to.unwrap_or_default()
            )
        })
        .collect();
    let at = |step: &str| {
        steps
            .iter()
            .position(|s| s == step)
            .unwrap_or_else(|| panic!("{step}: {steps:#?}"))
    };
    let api_starts = at("api  NOT_STARTED -> RUNNING");
    assert!(at("core 2 RUNNING -> COMPLETED") < api_starts, "{steps:#?}");
    assert!(
        api_starts < at("core 3 RUNNING -> COMPLETED"),
        "api waited for the whole of core: {steps:#?}"
    );
    let log = run(dir, &["log"]).stdout;
    assert!(
        log.contains("its dependencies (core sprint 2) are COMPLETED"),
        "{log}"
    );
}
