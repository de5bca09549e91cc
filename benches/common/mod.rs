//! What the benchmarks (and `examples/screenshot-ui.rs`) share: running
//! `git` that must succeed, a repository holding a plan, a run started on
//! it by the store with a pinned clock, notice transitions in bulk, and a
//! `git supervisor ui` process with its address.

use std::io::BufRead;
use std::path::Path;
use std::process::Command;

use git_supervisor::machine::apply;
use git_supervisor::machine::Event;
use git_supervisor::machine::EventKind;
use git_supervisor::machine::State;
use git_supervisor::machine::Step;
use git_supervisor::plan::parse;
use git_supervisor::plan::ParseContext;
use git_supervisor::store::Clock;
use git_supervisor::store::Snapshot;
use git_supervisor::store::Store;
use git_supervisor::store::Update;

/// `git args` in `dir`; its stdout. Panics with git's stderr on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A new repository in `dir` whose one commit is `plan` as
/// `EXECUTION_PLAN.md`.
pub fn repo_with_plan(dir: &Path, plan: &str) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Bench"]);
    git(dir, &["config", "user.email", "bench@example.com"]);
    std::fs::write(dir.join("EXECUTION_PLAN.md"), plan).expect("plan");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "plan"]);
}

/// One event's update: its steps with `SUPERVISOR_STATE.md` for each.
fn update(steps: Vec<Step>, snapshot: Option<Snapshot>, event: Option<Event>) -> Update {
    Update {
        state_md: steps
            .iter()
            .map(|s| git_supervisor::report::state_md::render(&s.state))
            .collect(),
        steps,
        snapshot,
        checkpoints: vec![],
        also: Vec::new(),
        event,
    }
}

/// The run started on the plan in `dir`, by the store with a pinned clock.
pub fn start(dir: &Path) -> Store {
    let store = Store::open(dir)
        .expect("repo")
        .with_clock(Clock::pinned("2026-01-01T00:00:00Z").expect("time"));
    let text = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
    let plan = parse(&text, &ParseContext::default()).expect("plan parses");
    let state = State::new(&plan, "bench", "Operation Bench", 3, 5);
    store
        .update(|_| -> Result<Option<Update>, String> {
            let start = Event {
                at: "t".into(),
                kind: EventKind::Start,
            };
            let steps = apply(&state, &start).map_err(|e| e.to_string())?;
            let snapshot = Snapshot {
                plan: text.clone(),
                config: String::new(),
            };
            Ok(Some(update(steps, Some(snapshot), None)))
        })
        .expect("started");
    store
}

/// One event of `n` notice transitions, recorded as a real event is
/// (`event.toml`).
pub fn notes(store: &Store, n: usize) {
    store
        .update(|tip| -> Result<Option<Update>, String> {
            let mut state = tip.expect("run").state.clone();
            let mut steps = Vec::with_capacity(n);
            let mut first = None;
            for i in 0..n {
                let e = Event {
                    at: "t".into(),
                    kind: EventKind::Notice {
                        unit: None,
                        sprint: None,
                        text: format!("note {i}"),
                    },
                };
                let mut s = apply(&state, &e).map_err(|e| e.to_string())?;
                state = s.last().expect("one step").state.clone();
                steps.append(&mut s);
                first.get_or_insert(e);
            }
            Ok(Some(update(steps, None, first)))
        })
        .expect("notes written");
}

/// `git supervisor ui` (the binary at `program`) serving the run in `dir`,
/// and the address it printed.
pub fn start_ui(program: &Path, dir: &Path) -> (std::process::Child, String) {
    let mut ui = Command::new(program)
        .current_dir(dir)
        .args(["ui", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("ui");
    let mut line = String::new();
    std::io::BufReader::new(ui.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("address");
    let url = serde_json::from_str::<serde_json::Value>(&line).expect("json")["url"]
        .as_str()
        .expect("url")
        .to_string();
    (ui, url)
}
