//! Cross-package needs under the plan's Allowed Imports (spec §M): a need
//! the unit may import becomes a hand-off to its next sprint; one it may
//! not, or one two units each define, is a conflict in the decisions log.

use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;

const PLAN: &str = "\
# Imports

| Package | Directory | Depends on |
|---------|-----------|------------|
| lib | lib | — |
| app | app | lib |
| cli | cli | lib |

## Allowed Imports

| Package | May Import |
|---------|------------|
| lib | none |
| app | lib |
| cli | none |

## lib

### Sprint 1: Create the library

**Exit Criteria**:
- [ ] `lib/lib.txt` exists

## app

### Sprint 1: Create the app

**Exit Criteria**:
- [ ] `app/app.txt` exists

### Sprint 2: Use the library

**Exit Criteria**:
- [ ] `app/use.txt` exists

## cli

### Sprint 1: Create the cli

**Exit Criteria**:
- [ ] `cli/cli.txt` exists
";

#[test]
fn needs_become_hand_offs_and_conflicts() {
    let repo = fixture_repo("chain");
    let dir = repo.path();
    std::fs::write(dir.join("EXECUTION_PLAN.md"), PLAN).expect("plan");
    std::fs::create_dir_all(dir.join("cli")).expect("cli dir");
    std::fs::write(dir.join("cli/PROGRESS.md"), "# cli progress\n").expect("progress");
    // No coordinated build here: only the needs matter.
    crate::common::edit_config(dir, |config| {
        config
            .split("\n[build]")
            .next()
            .unwrap_or(&config)
            .to_string()
    });
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "A plan with Allowed Imports"]);
    let prompts = tempfile::tempdir().expect("tempdir");
    let need = |unit: &str, file: &str| {
        format!(
            "save-prompt {p}/{unit}-1.txt\nwrite {unit}/{file} done\nappend {unit}/PROGRESS.md ## Cross-Package Needs\nappend {unit}/PROGRESS.md - `Token` from lib\ncommit {unit}: sprint 1\nresult complete\n",
            p = prompts.path().display()
        )
    };
    let s = scripts(&[
        (
            "lib.txt",
            "write lib/lib.txt v1\ncommit lib: v1\nresult complete\n",
        ),
        ("app-1.txt", &need("app", "app.txt")),
        ("cli-1.txt", &need("cli", "cli.txt")),
        (
            "app-2.txt",
            &format!(
                "save-prompt {}/app-2.txt\nwrite app/use.txt done\ncommit app: sprint 2\nresult complete\n",
                prompts.path().display()
            ),
        ),
    ]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    let log = run(dir, &["log"]).stdout;
    assert_eq!(out.status, 0, "{}\n{}\n{log}", out.stdout, out.stderr);
    let read = |name: &str| {
        std::fs::read_to_string(prompts.path().join(name)).unwrap_or_else(|_| panic!("{name}"))
    };
    // Every agent is told what its unit may import.
    assert!(
        read("app-1.txt").contains("- app may import from: lib.\n- Do NOT import from cli."),
        "{}",
        read("app-1.txt")
    );
    assert!(
        read("cli-1.txt").contains("- cli may import from no other unit of this plan."),
        "{}",
        read("cli-1.txt")
    );
    // The decisions log holds the hand-off and the conflict.
    assert!(
        log.contains("Hand-off: app's next sprint should import `Token` from lib (the plan's Allowed Imports allow it)."),
        "{log}"
    );
    assert!(
        log.contains("Conflict: cli needs `Token` from lib, which the plan's Allowed Imports do not let cli import; it keeps a local definition"),
        "{log}"
    );
    // app's next sprint carries the hand-off.
    let next = read("app-2.txt");
    assert!(
        next.contains(
            "HAND-OFF (the run's Cross-Package Needs Registry):\n- Import `Token` from lib"
        ),
        "{next}"
    );
}
