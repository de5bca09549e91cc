//! `git supervisor import FILE`: the configured agent (here the scripted
//! `fake-agent`, a real program) rewrites a plan; a rewrite the parser reads
//! is written and reported, anything else writes nothing. The source file
//! and `refs/supervisor/state` never change.

use std::path::Path;

use crate::common::git;
use crate::common::run;
use crate::common::seed;

/// The source: a plan no parser reads as it is.
const MESSY: &str = "Widget roadmap -- notes from the kickoff (owner: Sam, ETA Q3)

DONE: cargo project, clap
NEXT: widget list + widget add, cargo test must pass
THEN: docs (README usage), Sam reviews it
";

/// What a good agent writes: the canonical form.
const CANONICAL: &str = "# Widget roadmap

## Work Units

| Work Unit | Directory | Sprints | Layer | Dependencies |
|-----------|-----------|---------|-------|--------------|
| core | core | 2 | 0 | — |
| docs | docs | 2 | 1 | — |

## core

### Sprint 1: Set up the project ✅

**Tasks**:

1. Set up the cargo project
2. Add clap

### Sprint 2: Add the commands

**Tasks**:

1. Add `widget list`
2. Add `widget add`

**Exit criteria**:

- [ ] `cargo test` passes

## docs

### Sprint 1: Write the usage section

**Tasks**:

1. Write the README usage section

**Exit criteria**:

- [ ] `README.md` exists

### Sprint 2: Review the README

Type: manual

**Tasks**:

1. Sam reviews the README
";

/// A plan the project already runs, so a run exists beside the import.
const RUNNING: &str = "# Running

## Sprint 1: Something

- [ ] `true`
";

/// A repository whose `.workflow/config.toml` runs `fake-agent` with the
/// script `agent`, holding `roadmap.md`; and the directory of the script
/// (where it may save what it was given).
struct Project {
    repo: tempfile::TempDir,
    scripts: tempfile::TempDir,
}

impl Project {
    fn new(agent: &str) -> Project {
        let repo = tempfile::tempdir().expect("tempdir");
        let scripts = tempfile::tempdir().expect("tempdir");
        let p = Project { repo, scripts };
        let dir = p.dir();
        git(dir, &["init", "-q", "-b", "main"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        std::fs::create_dir_all(dir.join(".workflow")).expect("config dir");
        p.agent(agent);
        std::fs::write(dir.join("roadmap.md"), MESSY).expect("source");
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "Initial"]);
        p
    }

    fn dir(&self) -> &Path {
        self.repo.path()
    }

    /// Replace the agent's script.
    fn agent(&self, script: &str) {
        let path = self.scripts.path().join("agent.txt");
        std::fs::write(&path, script).expect("script");
        std::fs::write(
            self.dir().join(".workflow/config.toml"),
            format!(
                "[agent]\ncommand = [\"fake-agent\", \"{}\"]\nprompt = \"stdin\"\n",
                path.display()
            ),
        )
        .expect("config");
    }

    /// Where the agent saved its prompt, when its script says so.
    fn prompt(&self) -> Option<String> {
        std::fs::read_to_string(self.scripts.path().join("prompt.txt")).ok()
    }

    fn save_prompt(&self) -> String {
        format!(
            "save-prompt {}\n",
            self.scripts.path().join("prompt.txt").display()
        )
    }

    fn state(&self) -> String {
        git(
            self.dir(),
            &["for-each-ref", "--format=%(objectname)", "refs/supervisor/"],
        )
    }

    fn source_untouched(&self) {
        assert_eq!(
            std::fs::read_to_string(self.dir().join("roadmap.md")).expect("source"),
            MESSY
        );
    }
}

/// A fake-agent line that writes `text` to `path` (relative to where the
/// agent works).
fn write(path: &str, text: &str) -> String {
    format!("write {path} {}\n", text.trim_end().replace('\n', "\\n"))
}

#[test]
fn a_good_rewrite_is_written_and_reported() {
    let p = Project::new("");
    // The agent works in a scratch directory: a file it writes beside the
    // plan never reaches the repository.
    p.agent(&format!(
        "{}{}{}print rewritten\n",
        p.save_prompt(),
        write("EXECUTION_PLAN.md", CANONICAL),
        write("stray.txt", "left in the scratch directory"),
    ));
    let out = run(p.dir(), &["import", "roadmap.md"]);
    insta::assert_snapshot!("import_good", out.snapshot());
    assert_eq!(out.status, 0);
    let written = std::fs::read_to_string(p.dir().join("EXECUTION_PLAN.md")).expect("written");
    assert_eq!(written.trim_end(), CANONICAL.trim_end());
    p.source_untouched();
    assert!(!p.dir().join("stray.txt").exists());
    assert_eq!(
        git(p.dir(), &["status", "--porcelain"]),
        "?? EXECUTION_PLAN.md\n"
    );
    assert_eq!(p.state(), "", "no run was recorded");
    // The prompt holds the source's text and the canonical form.
    let prompt = p.prompt().expect("the agent got a prompt on stdin");
    assert!(prompt.contains(MESSY.trim_end()), "{prompt}");
    assert!(prompt.contains("## The canonical format"), "{prompt}");
    assert!(prompt.contains("### Sprint 1: Create the greeting module"));
    // And what import wrote is what `plan` reads.
    let plan = run(p.dir(), &["plan", "--format", "json"]);
    assert_eq!(plan.status, 0, "{}", plan.stderr);
}

#[test]
fn the_example_in_the_prompt_reads_back_as_a_plan() {
    let example = git_supervisor::engine::import::canonical_example();
    let plan = git_supervisor::plan::parse(
        &example,
        &git_supervisor::plan::ParseContext {
            dir_name: "example".into(),
        },
    )
    .expect("the example parses");
    assert_eq!(plan.units.len(), 3);
    assert_eq!(plan.sprint_total(), 4);
    assert!(example.contains("| Work Unit | Directory | Sprints | Layer |"));
}

#[test]
fn a_rewrite_that_does_not_parse_writes_nothing() {
    let p = Project::new("");
    std::fs::write(p.dir().join("EXECUTION_PLAN.md"), RUNNING).expect("plan");
    git(p.dir(), &["add", "-A"]);
    git(p.dir(), &["commit", "-q", "-m", "A plan"]);
    seed::start(p.dir());
    let state = p.state();
    assert!(!state.is_empty(), "a run exists");
    p.agent(&write(
        "EXECUTION_PLAN.md",
        "# Widget\n\nSome prose about widgets, and no work in it.",
    ));
    let out = run(p.dir(), &["import", "roadmap.md", "-o", "imported.md"]);
    assert_eq!(out.status, 1, "{}", out.snapshot());
    assert!(out.stderr.contains("import::invalid"), "{}", out.stderr);
    assert!(
        out.stderr.contains("nothing was written") && out.stderr.contains("has no sprints"),
        "{}",
        out.stderr
    );
    assert!(!p.dir().join("imported.md").exists());
    assert_eq!(
        std::fs::read_to_string(p.dir().join("EXECUTION_PLAN.md")).expect("plan"),
        RUNNING
    );
    p.source_untouched();
    assert_eq!(p.state(), state, "the run's state did not move");
    assert_eq!(git(p.dir(), &["status", "--porcelain"]), "");
}

#[test]
fn an_agent_that_writes_nothing_is_a_clear_error() {
    let p = Project::new("print I could not find anything to rewrite\n");
    let out = run(p.dir(), &["import", "roadmap.md"]);
    insta::assert_snapshot!("import_no_rewrite", out.snapshot());
    assert_eq!(out.status, 1);
    assert!(!p.dir().join("EXECUTION_PLAN.md").exists());
    p.source_untouched();
}

#[test]
fn an_agent_that_fails_writes_nothing_even_with_a_plan() {
    let p = Project::new(&format!(
        "{}eprint out of credits\nexit 2\n",
        write("EXECUTION_PLAN.md", CANONICAL)
    ));
    let out = run(p.dir(), &["import", "roadmap.md"]);
    assert_eq!(out.status, 1);
    assert!(
        out.stderr.contains("exited with status 2") && out.stderr.contains("out of credits"),
        "{}",
        out.stderr
    );
    assert!(!p.dir().join("EXECUTION_PLAN.md").exists());
}

#[test]
fn an_existing_output_is_kept_without_force() {
    let p = Project::new("");
    p.agent(&format!(
        "{}{}",
        p.save_prompt(),
        write("EXECUTION_PLAN.md", CANONICAL)
    ));
    std::fs::write(p.dir().join("EXECUTION_PLAN.md"), RUNNING).expect("plan");
    let out = run(p.dir(), &["import", "roadmap.md"]);
    insta::assert_snapshot!("import_exists", out.snapshot());
    assert_eq!(out.status, 1);
    assert!(p.prompt().is_none(), "the agent was not asked");
    assert_eq!(
        std::fs::read_to_string(p.dir().join("EXECUTION_PLAN.md")).expect("plan"),
        RUNNING
    );
    // The source itself is never the output, --force or not.
    let out = run(
        p.dir(),
        &["import", "roadmap.md", "-o", "roadmap.md", "--force"],
    );
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("import::same_file"), "{}", out.stderr);
    p.source_untouched();
    // A directory that does not exist is found before the agent is asked.
    let out = run(
        p.dir(),
        &["import", "roadmap.md", "-o", "no/such/dir/PLAN.md"],
    );
    assert_eq!(out.status, 1);
    assert!(
        out.stderr.contains("import::no_output_dir"),
        "{}",
        out.stderr
    );
    assert!(p.prompt().is_none(), "the agent was not asked");
    // --force replaces it.
    let out = run(p.dir(), &["import", "roadmap.md", "--force"]);
    assert_eq!(out.status, 0, "{}", out.snapshot());
    assert!(out.stdout.contains("Output: EXECUTION_PLAN.md (replaced)"));
    let written = std::fs::read_to_string(p.dir().join("EXECUTION_PLAN.md")).expect("plan");
    assert_eq!(written.trim_end(), CANONICAL.trim_end());
}

#[test]
fn json_reports_the_import_and_its_errors() {
    let p = Project::new("");
    p.agent(&write("EXECUTION_PLAN.md", CANONICAL));
    std::fs::create_dir_all(p.dir().join("plans")).expect("dir");
    let out = run(
        p.dir(),
        &[
            "import",
            "roadmap.md",
            "--output",
            "plans/PLAN.md",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status, 0, "{}", out.snapshot());
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["ok"], true);
    assert_eq!(v["source"], "roadmap.md");
    assert_eq!(v["output"], "plans/PLAN.md");
    assert_eq!(v["replaced"], false);
    assert_eq!(v["source_lines"], 5);
    assert_eq!(v["work_units"], 2);
    assert_eq!(v["sprints"], 4);
    assert_eq!(v["done"], 1);
    assert_eq!(v["agent"]["program"], "fake-agent");
    assert_eq!(v["agent"]["exit_code"], 0);
    assert_eq!(v["plan"]["units"][1]["deps"][0], "core");
    assert!(p.dir().join("plans/PLAN.md").is_file());

    // A rewrite that does not parse: the error and the parser's problems.
    p.agent(&write("EXECUTION_PLAN.md", "# Nothing to do"));
    let out = run(
        p.dir(),
        &["import", "roadmap.md", "-o", "other.md", "--format", "json"],
    );
    assert_eq!(out.status, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "import::invalid");
    assert_eq!(v["problems"][0]["code"], "plan::no_sprints");
    assert!(!p.dir().join("other.md").exists());

    // Any other error is the usual JSON error object.
    let out = run(
        p.dir(),
        &[
            "import",
            "roadmap.md",
            "-o",
            "plans/PLAN.md",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "import::exists");
    assert!(v["error"]["help"]
        .as_str()
        .is_some_and(|h| h.contains("--force")));
}

#[test]
fn import_needs_an_agent_command() {
    let p = Project::new("");
    std::fs::write(
        p.dir().join(".workflow/config.toml"),
        "[run]\nmax_retries = 2\n",
    )
    .expect("config");
    let out = run(p.dir(), &["import", "roadmap.md"]);
    assert_eq!(out.status, 1);
    assert!(
        out.stderr.contains("agent.command is not set") && out.stderr.contains("init --agent"),
        "{}",
        out.stderr
    );
    let out = run(p.dir(), &["import"]);
    assert_eq!(out.status, 2, "a usage error");
}
