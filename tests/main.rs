//! One integration-test binary; every `tests/test_*.rs` is a module here.

mod common;
mod test_agent_output;
mod test_agent_word;
mod test_background;
mod test_breakdown;
mod test_build_blame;
mod test_ci;
mod test_control;
mod test_deferred;
mod test_docs;
mod test_evidence;
mod test_fake_agent;
mod test_gating;
mod test_handoff;
mod test_hooks;
mod test_hostile;
mod test_hostile_props;
mod test_hosts;
mod test_import;
mod test_init;
mod test_killall_root;
mod test_layers;
mod test_live;
mod test_liveness;
mod test_machine;
mod test_machine_builds;
mod test_machine_props;
mod test_model_usage;
mod test_observed_merge;
mod test_observed_props;
mod test_overlap;
mod test_plan;
mod test_plan_checks;
mod test_plan_done;
mod test_plan_edits;
mod test_plan_first_sight;
mod test_plan_first_sight_props;
mod test_plan_fuzz;
mod test_plan_judgement;
mod test_plan_levels;
mod test_plan_marks;
mod test_plan_props;
mod test_plan_sections;
mod test_plan_shapes;
mod test_plan_shapes_order;
mod test_plan_tool_props;
mod test_project;
mod test_prompt;
mod test_real_agents;
mod test_regressions;
mod test_remote;
mod test_remote_pushes;
mod test_report;
mod test_rewrite;
mod test_ritual;
mod test_run;
mod test_small_truths;
mod test_sprint_deps;
mod test_start_checks;
mod test_store;
mod test_sync;
mod test_ui;
mod test_usage_limit;
mod test_usage_limit_run;
mod test_waits;
mod test_worker_life;
mod test_worker_outage;
mod test_worker_props;
mod test_worker_scale;
mod test_workspace;
mod test_workspace_env;
mod test_workspace_setup;

/// A test file that is not listed above would silently never run.
#[test]
fn every_test_file_is_listed() {
    let listed = include_str!("main.rs");
    for entry in std::fs::read_dir(common::manifest_dir().join("tests")).expect("tests dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(module) = name
            .strip_prefix("test_")
            .and_then(|n| n.strip_suffix(".rs"))
        {
            assert!(
                listed.contains(&format!("mod test_{module};")),
                "tests/{name} is not listed in tests/main.rs"
            );
        }
    }
}
