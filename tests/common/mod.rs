//! Shared test support: running the real binaries with a pinned environment,
//! and fixture repositories built by `testrepos/*.sh`, cached by script hash.

#![allow(dead_code)]

pub mod browser;
pub mod daemon;
pub mod http_host;
pub mod machine;
pub mod on_remote;
pub mod plan_json;
pub mod real_agents;
pub mod remote_scenarios;
pub mod ssh_host;
pub mod stub_model;
pub mod worktrees;

use std::collections::hash_map::DefaultHasher;
use std::hash::Hash;
use std::hash::Hasher;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_git-supervisor")
}

pub fn fake_agent() -> &'static str {
    env!("CARGO_BIN_EXE_fake-agent")
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn plans_dir() -> PathBuf {
    manifest_dir().join("tests/plans")
}

/// A command with the environment every test pins: no user or system git
/// config, no colour, UTC, a fixed clock, and PATH with the test binaries.
pub fn command(program: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", path_with_bins())
        .env("HOME", cwd)
        .env("NO_COLOR", "1")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_SUPERVISOR_TIMESTAMP", "2026-01-01T00:00:00Z")
        .stdin(Stdio::null());
    cmd
}

fn path_with_bins() -> String {
    let bins = Path::new(bin()).parent().expect("binary has a directory");
    format!(
        "{}:{}",
        bins.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// stdout, stderr and the exit status in one snapshot-friendly string.
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

impl Output {
    pub fn snapshot(&self) -> String {
        let mut s = self.stdout.clone();
        if !self.stderr.is_empty() {
            s.push_str("------- stderr -------\n");
            s.push_str(&self.stderr);
        }
        s.push_str(&format!("[exit status: {}]\n", self.status));
        s
    }
}

pub fn run(cwd: &Path, args: &[&str]) -> Output {
    run_env(cwd, args, &[])
}

/// The binary on the wall clock (no pinned timestamp): retries, usage-limit
/// resets and waits are measured in real time.
pub fn run_unpinned(cwd: &Path, args: &[&str]) -> Output {
    let out = command(bin(), cwd)
        .env_remove("GIT_SUPERVISOR_TIMESTAMP")
        .args(args)
        .output()
        .expect("the git-supervisor binary runs");
    Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

/// A new repository in `dir` with a user to commit as.
pub fn init_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test User"]);
    git(dir, &["config", "user.email", "user@example.com"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
}

pub fn run_env(cwd: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = command(bin(), cwd);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the git-supervisor binary runs");
    Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

/// A fresh copy of the repository built by `testrepos/<name>.sh`. The script
/// runs once per content hash into `target/testrepos/`, then each test gets
/// its own copy in a temporary directory.
pub fn fixture_repo(name: &str) -> tempfile::TempDir {
    let script = manifest_dir().join("testrepos").join(format!("{name}.sh"));
    let mut hasher = DefaultHasher::new();
    for file in [script.clone(), manifest_dir().join("testrepos/lib.sh")] {
        std::fs::read(&file)
            .expect("fixture script exists")
            .hash(&mut hasher);
    }
    plan_fixture_bytes().hash(&mut hasher);
    let cache_root = manifest_dir().join("target/testrepos");
    let cached = cache_root.join(format!("{name}-{:016x}", hasher.finish()));
    if !cached.join(".git").exists() {
        std::fs::create_dir_all(&cache_root).expect("cache dir");
        // Build beside and rename, so concurrent tests never see half a repo.
        let building = tempfile::tempdir_in(&cache_root).expect("build dir");
        let dest = building.path().join("repo");
        let status = Command::new("bash")
            .arg(&script)
            .arg(&dest)
            .arg(plans_dir())
            .env("HOME", building.path())
            .status()
            .expect("bash runs");
        assert!(status.success(), "testrepos/{name}.sh failed");
        if std::fs::rename(&dest, &cached).is_err() {
            assert!(
                cached.join(".git").exists(),
                "fixture {name} could not be cached"
            );
        }
    }
    let copy = tempfile::tempdir().expect("tempdir");
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", cached.display()))
        .arg(copy.path())
        .status()
        .expect("cp runs");
    assert!(status.success());
    copy
}

fn plan_fixture_bytes() -> Vec<u8> {
    let mut files: Vec<PathBuf> = walk(&plans_dir());
    files.sort();
    files
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap_or_default())
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A fake-agent script that does a sprint's work: writes
/// `<unit dir>/<sprint>.txt`, notes progress, commits with the sprint
/// trailer, reports complete.
pub const SUCCEED: &str = "write ${SUPERVISOR_UNIT_DIR}/${SUPERVISOR_SPRINT}.txt done
append ${SUPERVISOR_UNIT_DIR}/PROGRESS.md - Sprint ${SUPERVISOR_SPRINT}: complete
commit ${SUPERVISOR_UNIT}: sprint ${SUPERVISOR_SPRINT}
result complete
";

/// A directory of fake-agent scripts (see src/bin/fake-agent.rs).
pub fn scripts(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("script");
    }
    dir
}

pub fn git(cwd: &Path, args: &[&str]) -> String {
    let out = command("git", cwd).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare copy of `repo` at `<server>/plan.git`; its path.
pub fn bare_copy(repo: &Path, server: &Path) -> PathBuf {
    git(
        server,
        &[
            "clone",
            "-q",
            "--bare",
            &repo.display().to_string(),
            "plan.git",
        ],
    );
    server.join("plan.git")
}

/// Another clone of `url`, with its own identity: (its parent directory,
/// the clone).
pub fn clone_elsewhere(url: &str) -> (tempfile::TempDir, PathBuf) {
    let elsewhere = tempfile::tempdir().expect("tempdir");
    git(elsewhere.path(), &["clone", "-q", url, "b"]);
    let b = elsewhere.path().join("b");
    git(&b, &["config", "user.name", "B"]);
    git(&b, &["config", "user.email", "b@example.com"]);
    (elsewhere, b)
}

/// Another machine's transition, made by hand: a commit of `tree` on
/// `parent` that `refs/supervisor/state` in `repo` moves to (compare-and-
/// swap from `parent`). Returns its id.
pub fn transition_elsewhere(repo: &Path, tree: &str, parent: &str, subject: &str) -> String {
    let id = git(
        repo,
        &[
            "-c",
            "user.name=Other",
            "-c",
            "user.email=other@example.com",
            "commit-tree",
            tree.trim(),
            "-p",
            parent.trim(),
            "-m",
            subject,
        ],
    );
    let id = id.trim().to_string();
    git(
        repo,
        &["update-ref", "refs/supervisor/state", &id, parent.trim()],
    );
    id
}

/// Helpers that drive the library directly, for tests of the store and the
/// reports before any command writes a run.
pub mod seed {
    use std::path::Path;

    use git_supervisor::machine::apply;
    use git_supervisor::machine::Agent;
    use git_supervisor::machine::Event;
    use git_supervisor::machine::EventKind;
    use git_supervisor::machine::Model;
    use git_supervisor::machine::Outcome;
    use git_supervisor::machine::State;
    use git_supervisor::plan::parse;
    use git_supervisor::plan::ParseContext;
    use git_supervisor::store::Clock;
    use git_supervisor::store::Snapshot;
    use git_supervisor::store::Store;
    use git_supervisor::store::Update;

    pub fn store(dir: &Path) -> Store {
        Store::open(dir)
            .expect("a git repository")
            .with_clock(Clock::pinned("2026-01-01T00:00:00Z").expect("valid time"))
    }

    /// Start a run of the repository's EXECUTION_PLAN.md.
    pub fn start(dir: &Path) -> Store {
        start_with(store(dir), dir, false)
    }

    /// Start a run through `store` (its clock stamps the transitions), with
    /// phase gates when `gates`.
    pub fn start_with(store: Store, dir: &Path, gates: bool) -> Store {
        let plan_text = std::fs::read_to_string(dir.join("EXECUTION_PLAN.md")).expect("plan");
        let config = std::fs::read_to_string(dir.join(".workflow/config.toml")).unwrap_or_default();
        let plan = parse(
            &plan_text,
            &ParseContext {
                dir_name: "repo".into(),
            },
        )
        .expect("valid plan");
        let mut state = State::new(&plan, "run-test", "Operation Steady Badger", 3, 5);
        if gates {
            state = state.with_gates();
        }
        let at = store.clock().iso_at_seq(1);
        store
            .update(|tip| -> Result<Option<Update>, String> {
                assert!(tip.is_none(), "no run yet");
                let steps = apply(
                    &state,
                    &Event {
                        at: at.clone(),
                        kind: EventKind::Start,
                    },
                )
                .map_err(|e| e.to_string())?;
                Ok(Some(Update {
                    state_md: steps
                        .iter()
                        .map(|s| git_supervisor::report::state_md::render(&s.state))
                        .collect(),
                    steps,
                    snapshot: Some(Snapshot {
                        plan: plan_text.clone(),
                        config: config.clone(),
                    }),
                    checkpoints: Vec::new(),
                    also: Vec::new(),
                    event: None,
                }))
            })
            .expect("run started");
        store
    }

    pub fn event(store: &Store, kind: EventKind) {
        let clock = store.clock();
        store
            .update(|tip| -> Result<Option<Update>, String> {
                let tip = tip.expect("a run exists");
                let event = Event {
                    at: clock.iso_at_seq(tip.state.seq + 1),
                    kind: kind.clone(),
                };
                let steps = apply(&tip.state, &event).map_err(|e| e.to_string())?;
                Ok(Some(Update {
                    state_md: steps
                        .iter()
                        .map(|s| git_supervisor::report::state_md::render(&s.state))
                        .collect(),
                    steps,
                    snapshot: None,
                    checkpoints: Vec::new(),
                    also: Vec::new(),
                    event: Some(event),
                }))
            })
            .expect("event applies");
    }

    pub fn dispatch(store: &Store, unit: &str, model: Model) {
        event(
            store,
            EventKind::Dispatch {
                unit: unit.into(),
                model,
                score: 7,
                rationale: "seeded".into(),
                agent: Agent {
                    pid: None,
                    log: format!("supervisor/agents/{unit}.log"),
                    dispatched_at: "2026-01-01T00:00:02Z".into(),
                    base_commit: None,
                    dirty: vec![],
                    files: vec![],
                    continuation: false,
                    retry_of: None,
                    worker: None,
                    host: None,
                },
            },
        );
        event(
            store,
            EventKind::AgentStarted {
                unit: unit.into(),
                pid: Some(4242),
                worker: None,
            },
        );
    }

    pub fn verdict(store: &Store, unit: &str, outcome: Outcome) {
        event(
            store,
            EventKind::Verdict {
                unit: unit.into(),
                outcome,
                evidence: "seeded evidence.".into(),
                remaining: vec![],
                commits: vec![],
                turns: None,
                cost: None,
                checks: Vec::new(),
            },
        );
    }
}

/// Poll `f` every 50 ms until it holds; fail after `secs` seconds naming
/// `what` was awaited.
/// Rewrite the repository's `.workflow/config.toml` with `edit`.
pub fn edit_config(dir: &Path, edit: impl FnOnce(String) -> String) {
    let path = dir.join(".workflow/config.toml");
    let text = std::fs::read_to_string(&path).expect("config");
    std::fs::write(&path, edit(text)).expect("config");
}

/// Make `.workflow/agent.sh`, holding `script`, the run's agent program
/// (executable, named in the config in place of `fake-agent`). Nothing is
/// committed.
pub fn agent_script(dir: &Path, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let agent = dir.join(".workflow/agent.sh");
    std::fs::write(&agent, script).expect("agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    edit_config(dir, |c| {
        c.replace(
            "command = [\"fake-agent\"]",
            "command = [\".workflow/agent.sh\"]",
        )
    });
    agent
}

pub fn wait_until(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Run a system tool in `cwd`; its stdout, or a failure naming it.
pub fn tool(cwd: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Live processes whose command line mentions `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&bytes).replace('\0', " ");
            if cmd.contains(needle) {
                found.push(cmd);
            }
        }
    }
    found
}
