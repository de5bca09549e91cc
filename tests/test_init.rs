//! `git supervisor init`: copies the template, never overwrites without
//! `--force`, and the copied config and example plan are valid.

use crate::common::run;

#[test]
fn init_copies_the_template_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["init"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let config = dir.path().join(".workflow/config.toml");
    assert!(config.is_file());
    assert!(dir
        .path()
        .join(".workflow/EXECUTION_PLAN.example.md")
        .is_file());

    std::fs::write(&config, "# mine\n").expect("write");
    let again = run(dir.path(), &["init"]);
    assert_eq!(again.status, 1);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(&config).expect("read"),
        "# mine\n",
        "init overwrote a file"
    );

    let forced = run(dir.path(), &["init", "--force"]);
    assert_eq!(forced.status, 0, "{}", forced.stderr);
    assert_ne!(std::fs::read_to_string(&config).expect("read"), "# mine\n");
}

#[test]
fn the_template_is_a_valid_config_and_plan() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(run(dir.path(), &["init"]).status, 0);
    std::fs::copy(
        dir.path().join(".workflow/EXECUTION_PLAN.example.md"),
        dir.path().join("EXECUTION_PLAN.md"),
    )
    .expect("copy");
    let out = run(dir.path(), &["plan"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Work units: 3"), "{}", out.stdout);
    // Each preset in the template parses when uncommented.
    let text = std::fs::read_to_string(dir.path().join(".workflow/config.toml")).expect("read");
    let presets: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("# command = ["))
        .collect();
    assert_eq!(presets.len(), 4, "claude, codex, aider and a script");
    for preset in presets {
        let config = format!("[agent]\n{}\n", preset.trim_start_matches("# "));
        git_supervisor::config::Config::parse(&config, "preset").expect("preset parses");
    }
}
