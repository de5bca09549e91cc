//! killall in a unit that works in the project root (a one-unit plan, a
//! shared workspace): what its agent left uncommitted is recorded, what was
//! dirty before the dispatch is not.

use std::path::Path;

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::wait_until;

fn status(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("status JSON")
}

#[test]
fn killall_reports_what_a_root_units_agent_left_and_not_what_was_dirty_before() {
    let repo = fixture_repo("single");
    let dir = repo.path();
    std::fs::create_dir_all(dir.join(".workflow")).expect("workflow dir");
    std::fs::write(
        dir.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"fake-agent\"]\nprompt = \"stdin\"\nkill_grace = \"2s\"\n\n[run]\nmax_retries = 3\npoll_interval = \"100ms\"\nworkspace = \"shared\"\n",
    )
    .expect("config");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "Config"]);
    // Dirty before the dispatch: a person's edit and a person's new file.
    std::fs::write(dir.join("src/main.rs"), "fn main() { todo!() }\n").expect("edit");
    std::fs::write(dir.join("notes.txt"), "mine\n").expect("notes");
    let s = scripts(&[("default.txt", "write wip.txt half done\nhang\n")]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    let out = run_env(dir, &["start", "--yes"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    wait_until("the hung agent's file", 20, || dir.join("wip.txt").exists());
    let unit = status(dir)["units"][0]["name"]
        .as_str()
        .expect("one unit")
        .to_string();

    let out = run_env(dir, &["killall"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Work units with uncommitted work:"))
        .unwrap_or_default();
    assert_eq!(
        line,
        format!("Work units with uncommitted work: {unit}"),
        "{}",
        out.stdout
    );
    // Exactly the agent's file is set aside, never the person's.
    let stash = out
        .stdout
        .lines()
        .find(|l| l.contains("git stash push"))
        .unwrap_or_else(|| panic!("no stash line: {}", out.stdout));
    assert!(stash.ends_with("' -- wip.txt"), "{}", out.stdout);
    // Work was done: the unit is KILLED with its sprint to restart, not
    // back to NOT_STARTED as if nothing happened.
    let st = status(dir);
    let u = &st["units"][0];
    assert_eq!(u["state"], "KILLED", "{st}");
    // Nothing was committed or discarded.
    assert_eq!(
        std::fs::read_to_string(dir.join("wip.txt")).expect("kept"),
        "half done\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).expect("kept"),
        "mine\n"
    );
    let porcelain = git(dir, &["status", "--porcelain"]);
    for f in ["wip.txt", "notes.txt", "src/main.rs"] {
        assert!(porcelain.contains(f), "{f} not left as it was: {porcelain}");
    }
}
