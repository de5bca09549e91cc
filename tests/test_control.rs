//! Stop, killall, resume, phase gates, the push guard and crash safety, end
//! to end with real processes and signals.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::command;
use crate::common::fixture_repo;
use crate::common::git;
use crate::common::run;
use crate::common::run_env;
use crate::common::scripts;
use crate::common::wait_until;
use crate::common::SUCCEED;

fn status(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&run(dir, &["status", "--format", "json"]).stdout).expect("status JSON")
}

fn unit(st: &serde_json::Value, name: &str) -> serde_json::Value {
    st["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == name)
        .cloned()
        .expect("unit")
}

/// Live agent or wrapper processes whose working directory is `dir`.
fn processes_working_in(dir: &Path) -> Vec<String> {
    let fake = crate::common::fake_agent();
    let bin = crate::common::bin();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        if !cwd.starts_with(dir) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&bytes).replace('\0', " ");
            // The config names the agent by PATH lookup: `fake-agent`.
            let agent = cmd.starts_with(fake) || cmd.starts_with("fake-agent ");
            if agent || (cmd.starts_with(bin) && cmd.contains(" agent-run ")) {
                found.push(cmd);
            }
        }
    }
    found
}

#[test]
fn stop_drains_then_kills_a_slow_agent_and_resume_completes() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    // profiles finishes in time; parser's agent is far too slow (but keeps
    // talking, so it is not unresponsive).
    // (Only the first time: the resumed run re-dispatches attempt 1.)
    let slow = format!(
        "?${{FAKE_AGENT_SCRIPT}}/parser-ran write parser/1.txt done
?${{FAKE_AGENT_SCRIPT}}/parser-ran commit parser: sprint 1
?${{FAKE_AGENT_SCRIPT}}/parser-ran result complete
?${{FAKE_AGENT_SCRIPT}}/parser-ran exit 0
write ${{FAKE_AGENT_SCRIPT}}/parser-ran yes
{}",
        "print still working\nsleep 50\n".repeat(600)
    );
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("parser-1-1.txt", &slow),
        ("algs.txt", &format!("sleep 300\n{SUCCEED}")),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("parser's agent to run", 20, || {
        unit(&status(dir), "parser")["current"]["state"] == "RUNNING"
    });
    let out = run_env(dir, &["stop"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("Supervisor entering graceful shutdown. Waiting for"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("## Stop Complete"), "{}", out.stdout);
    let st = status(dir);
    assert_eq!(unit(&st, "parser")["state"], "KILLED");
    assert_eq!(unit(&st, "parser")["current"]["state"], "BACKOFF");
    assert_eq!(
        unit(&st, "parser")["current"]["attempt"],
        1,
        "the attempt is kept"
    );
    // Agents that finish in time have their work recorded; their units end
    // STOPPED, or COMPLETED when they finished before the stop arrived.
    for name in ["algs", "profiles"] {
        let u = unit(&st, name);
        assert_eq!(u["sprint_completed"], 1, "{name}: {u}");
        assert!(
            u["state"] == "STOPPED" || u["state"] == "COMPLETED",
            "{name}: {u}"
        );
    }
    // No process of this run is left: agents and wrappers work in the
    // repository (other tests' processes work elsewhere).
    wait_until("no agent or wrapper left", 10, || {
        processes_working_in(dir).is_empty()
    });

    let out = run_env(dir, &["resume", "--wait"], &env);
    // parser-1-2 uses default.txt: the resumed run completes.
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(status(dir)["overall"], "completed");
}

#[test]
fn killall_keeps_uncommitted_work_on_disk_and_reports_it() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("algs-1-1.txt", "write algs/half.txt half done\nhang\n"),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("the hung agent's file", 20, || {
        dir.join("algs/half.txt").exists()
    });
    let out = run_env(dir, &["killall"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("## Kill All Complete"),
        "{}",
        out.stdout
    );
    // Other units killed mid-sprint may have left files too; algs must be
    // among them.
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Work units with uncommitted work:"))
        .unwrap_or_default();
    assert!(line.contains("algs"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "git stash push --include-untracked -m 'git supervisor: algs' -- algs/half.txt"
        ),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("algs/half.txt")).expect("kept"),
        "half done\n"
    );
    assert!(
        git(dir, &["status", "--porcelain", "--", "algs"]).contains("half.txt"),
        "still uncommitted"
    );
    let st = status(dir);
    assert_eq!(st["overall"], "killed");
    let md = run(dir, &["status", "--format", "markdown"]).stdout;
    assert!(
        md.contains("Status: killed") && md.contains("Kill reason: user invoked killall"),
        "{md}"
    );
    assert!(md.contains("(none — all agents terminated)"), "{md}");
    assert!(crate::common::processes_mentioning("hang")
        .iter()
        .all(|p| !p.contains(&dir.display().to_string())));

    let out = run_env(dir, &["resume", "--wait"], &env);
    let agent_logs: Vec<String> = std::fs::read_dir(dir.join(".git/supervisor/agents"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .map(|e| {
                    format!(
                        "{:?}: {}",
                        e.file_name(),
                        std::fs::read_to_string(e.path()).unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        out.status,
        0,
        "{}\n{}\n{}\n{}",
        out.stdout,
        out.stderr,
        run(dir, &["log"]).stdout,
        agent_logs.join("\n")
    );
    assert_eq!(status(dir)["overall"], "completed");
}

#[test]
fn a_failing_phase_build_is_attributed_fixed_and_rebuilt() {
    let repo = fixture_repo("gated");
    let dir = repo.path();
    let s = scripts(&[
        (
            "lib-1-1.txt",
            "write lib/lib.txt bug\ncommit lib: first try\nresult complete\n",
        ),
        (
            "lib-1-2.txt",
            "write lib/lib.txt fixed\ncommit lib: fix\nresult complete\n",
        ),
        (
            "app-1-1.txt",
            "write app/app.txt app\ncommit app\nresult complete\n",
        ),
    ]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let log = run(dir, &["log"]).stdout;
    assert!(log.contains("phase 0 build failed"), "{log}");
    assert!(log.contains("Attributed to: lib Sprint 1"), "{log}");
    assert!(log.contains("COMPLETED → BACKOFF"), "{log}");
    assert!(log.contains("phase 0 gate passed"), "{log}");
    assert!(log.contains("phase 1 gate passed"), "{log}");
    // The retry prompt carried the build output.
    let prompt = std::fs::read_to_string(dir.join(format!(
        ".git/supervisor/prompts/{}.md",
        git_supervisor::base::runtime_name::stem("lib", "1", 2)
    )))
    .expect("retry prompt");
    assert!(prompt.contains("the library has a bug"), "{prompt}");
    // Checkpoints are in the state tree: block, then pass, pass.
    let names = git(
        dir,
        &[
            "ls-tree",
            "--name-only",
            "refs/supervisor/state:checkpoints",
        ],
    );
    assert_eq!(
        names.lines().collect::<Vec<_>>(),
        [
            "CHECKPOINT-001.md",
            "CHECKPOINT-002.md",
            "CHECKPOINT-003.md"
        ]
    );
    let first = git(
        dir,
        &[
            "show",
            "refs/supervisor/state:checkpoints/CHECKPOINT-001.md",
        ],
    );
    assert!(
        first.contains("- Verdict: block") && first.contains("the library has a bug"),
        "{first}"
    );
    // 002's sections: the decision, the risks logged, the quality trend.
    for said in [
        "- Decision: Block: the build failed (attributed to lib Sprint 1)",
        "- Risks: 1 logged",
        "- Quality trend: stable",
    ] {
        assert!(first.contains(said), "{said}: {first}");
    }
    let second = git(
        dir,
        &[
            "show",
            "refs/supervisor/state:checkpoints/CHECKPOINT-002.md",
        ],
    );
    assert!(
        second.contains("- Verdict: pass") && second.contains("Score: 1.00"),
        "{second}"
    );
    for said in [
        "- Decision: Proceed",
        "- Risks: 0 logged",
        "- Quality trend: improving",
    ] {
        assert!(second.contains(said), "{said}: {second}");
    }
    // app started only after phase 0's gate passed.
    let h = git(
        dir,
        &["log", "--reverse", "--format=%s", "refs/supervisor/state"],
    );
    let gate = h
        .lines()
        .position(|l| l.contains("phase 0 gate passed"))
        .expect("gate");
    let app = h
        .lines()
        .position(|l| l == "app: NOT_STARTED -> RUNNING")
        .expect("app started");
    assert!(app > gate, "{h}");
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    assert_eq!(
        builds.lines().count(),
        3,
        "one build per gate run: {builds}"
    );
}

#[test]
fn concurrent_ticks_at_a_gate_run_one_build() {
    let repo = fixture_repo("gated");
    let dir = repo.path();
    let s = scripts(&[(
        "default.txt",
        "write ${SUPERVISOR_UNIT_DIR}/${SUPERVISOR_UNIT}.txt ok\ncommit work\nresult complete\n",
    )]);
    let env = [
        ("FAKE_AGENT_SCRIPT", s.path()),
        ("BUILD_SLOW", Path::new("1")),
    ];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("the first build to start", 20, || {
        dir.join("build.log").exists()
    });
    // Several ticks arrive while the build runs.
    let ticks: Vec<_> = (0..3)
        .map(|_| {
            let mut c = command(crate::common::bin(), dir);
            c.arg("tick")
                .env("BUILD_SLOW", "1")
                .env("FAKE_AGENT_SCRIPT", s.path())
                .stdout(std::process::Stdio::null());
            c.spawn().expect("tick")
        })
        .collect();
    for mut t in ticks {
        assert!(t.wait().expect("tick ends").success());
    }
    let out = run_env(dir, &["wait", "--timeout", "60s"], &env);
    assert_eq!(out.status, 0, "{}", out.stdout);
    let builds = std::fs::read_to_string(dir.join("build.log")).expect("builds");
    assert_eq!(
        builds.lines().count(),
        2,
        "one build per phase, however many ticks: {builds}"
    );
}

#[test]
fn the_push_guard_refuses_while_the_checkpoint_blocks() {
    let repo = fixture_repo("gated");
    let dir = repo.path();
    crate::common::edit_config(dir, |config| {
        format!("{config}\n[hooks]\nguard = [\"main\"]\n")
    });
    git(dir, &["commit", "-qam", "guard main"]);
    let remote = tempfile::tempdir().expect("remote");
    git(remote.path(), &["init", "-q", "--bare", "."]);
    git(
        dir,
        &[
            "remote",
            "add",
            "origin",
            remote.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(run(dir, &["hooks", "install"]).status, 0);
    // lib's build keeps failing: every attempt writes the bug.
    let s = scripts(&[(
        "lib.txt",
        "write lib/lib.txt bug\ncommit lib\nresult complete\n",
    )]);
    let out = run_env(
        dir,
        &["start", "--yes", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 3, "{}", out.stdout);
    let push = command("git", dir)
        .args(["push", "-q", "origin", "main"])
        .output()
        .expect("push");
    assert!(!push.status.success(), "the guard refuses the push");
    let err = String::from_utf8_lossy(&push.stderr);
    assert!(
        err.contains("push refused") && err.contains("`block`"),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains("git-supervisor")).count(),
        1,
        "one line: {err}"
    );
    // Other branches are not guarded.
    git(dir, &["branch", "side"]);
    let side = command("git", dir)
        .args(["push", "-q", "origin", "side"])
        .output()
        .expect("push");
    assert!(
        side.status.success(),
        "{}",
        String::from_utf8_lossy(&side.stderr)
    );
    // Fix it: resume with a good agent; the gate passes and main may be pushed.
    std::fs::write(
        s.path().join("lib.txt"),
        "write lib/lib.txt fixed\ncommit lib\nresult complete\n",
    )
    .expect("fix");
    std::fs::write(
        s.path().join("app.txt"),
        "write app/app.txt app\ncommit app\nresult complete\n",
    )
    .expect("app");
    let out = run_env(
        dir,
        &["resume", "--wait"],
        &[("FAKE_AGENT_SCRIPT", s.path())],
    );
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let push = command("git", dir)
        .args(["push", "-q", "origin", "main"])
        .output()
        .expect("push");
    assert!(
        push.status.success(),
        "{}",
        String::from_utf8_lossy(&push.stderr)
    );
}

/// Sprint transitions of the history, oldest first: (unit, sprint, from, to).
fn sprint_transitions(dir: &Path) -> Vec<(String, String, String, String)> {
    let out = run(dir, &["log", "--format", "json"]);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("log");
    v.iter()
        .rev()
        .filter(|r| !r["sprint"].is_null() && !r["from"].is_null())
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (s("unit"), s("sprint"), s("from"), s("to"))
        })
        .collect()
}

#[test]
fn a_crash_at_any_write_boundary_is_recovered_by_resume() {
    let mut boundary = 1;
    loop {
        assert!(
            boundary < 60,
            "the run has fewer write boundaries than this"
        );
        let repo = fixture_repo("gated");
        let dir = repo.path();
        let s = scripts(&[("default.txt", "write ${SUPERVISOR_UNIT_DIR}/${SUPERVISOR_UNIT}.txt ok\ncommit work\nresult complete\n")]);
        let counter = dir.join(".git/fault-counter");
        let n = boundary.to_string();
        let crashed = command(crate::common::bin(), dir)
            .args(["start", "--yes", "--wait"])
            .env("FAKE_AGENT_SCRIPT", s.path())
            .env("GIT_SUPERVISOR_FAULT_AT", &n)
            .env("GIT_SUPERVISOR_FAULT_COUNTER", &counter)
            .output()
            .expect("start");
        // Let whatever survived the crash finish.
        wait_until("surviving wrappers", 30, || {
            crate::common::processes_mentioning(&dir.display().to_string())
                .iter()
                .all(|p| !p.contains("agent-run"))
        });
        let reached: u64 = std::fs::read_to_string(&counter)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        if reached < boundary && crashed.status.success() {
            // Every boundary of the run has been crashed at once.
            assert!(boundary > 5, "a run has several write boundaries");
            break;
        }
        let no_run = status(dir)["overall"] == "not_started";
        let out = if no_run {
            run_env(
                dir,
                &["start", "--yes", "--wait"],
                &[("FAKE_AGENT_SCRIPT", s.path())],
            )
        } else {
            run_env(
                dir,
                &["resume", "--wait"],
                &[("FAKE_AGENT_SCRIPT", s.path())],
            )
        };
        assert_eq!(
            out.status, 0,
            "boundary {boundary}: {}\n{}",
            out.stdout, out.stderr
        );
        assert_eq!(status(dir)["overall"], "completed", "boundary {boundary}");
        let t = sprint_transitions(dir);
        for u in ["lib", "app"] {
            let done = t.iter().filter(|x| x.0 == u && x.3 == "COMPLETED").count();
            assert_eq!(done, 1, "boundary {boundary}: {u} completed once: {t:?}");
            // Never two live agents: every DISPATCHED is followed by that
            // dispatch's outcome before the next DISPATCHED.
            let mut live = false;
            for x in t.iter().filter(|x| x.0 == u) {
                if x.3 == "DISPATCHED" {
                    assert!(
                        !live,
                        "boundary {boundary}: {u} dispatched twice at once: {t:?}"
                    );
                    live = true;
                } else if x.2 == "RUNNING" || x.2 == "DISPATCHED" && x.3 != "RUNNING" {
                    live = false;
                }
            }
        }
        let fsck = command("git", dir).args(["fsck"]).output().expect("fsck");
        assert!(fsck.status.success(), "boundary {boundary}");
        boundary += 1;
    }
}

/// Issue 15 item 5: a unit with no agent (a manual sprint waiting for
/// `confirm`) does not keep a killed run "running".
#[test]
fn killall_with_agentless_units_leaves_the_run_killed_and_wait_returns() {
    let repo = fixture_repo("kinds");
    let dir = repo.path();
    let s = scripts(&[
        ("default.txt", "hang\n"),
        ("manual.txt", "print looked at the widgets\n"),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("the manual sprint to wait for confirm", 30, || {
        run_env(dir, &["tick"], &env);
        unit(&status(dir), "manual")["current"]["state"] == "PARTIAL"
    });
    let out = run_env(dir, &["killall"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    let st = status(dir);
    assert_eq!(st["overall"], "killed", "{st}");
    assert_eq!(unit(&st, "manual")["state"], "KILLED", "{st}");
    let start = Instant::now();
    let out = run_env(dir, &["wait", "--timeout", "30s"], &env);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "wait returns at once on a killed run: {:?}",
        start.elapsed()
    );
    assert!(processes_working_in(dir).is_empty());
}

#[test]
fn stop_timeout_cuts_the_graceful_wait_short() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    // An agent that keeps talking and never finishes: only the timeout ends
    // the graceful phase early.
    let s = scripts(&[(
        "default.txt",
        &"print still working\nsleep 50\n".repeat(2000),
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("parser's agent to run", 20, || {
        unit(&status(dir), "parser")["current"]["state"] == "RUNNING"
    });
    let bad = run_env(dir, &["stop", "--timeout", "soon"], &env);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("is not a duration"), "{}", bad.stderr);
    assert_eq!(unit(&status(dir), "parser")["state"], "RUNNING");

    let out = run_env(dir, &["stop", "--timeout", "1s"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("Stop timeout reached; terminating"),
        "{}",
        out.stderr
    );
    let st = status(dir);
    assert_eq!(unit(&st, "parser")["state"], "KILLED");
    assert_eq!(unit(&st, "parser")["current"]["attempt"], 1, "attempt kept");
    // Starting anew archives the stopped run, and says what would have
    // continued it.
    let out = run_env(dir, &["start", "--yes"], &env);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("is archived as refs/supervisor/runs/")
            && out
                .stdout
                .contains("`git supervisor resume` continues such a run"),
        "{}",
        out.stdout
    );
    assert_eq!(run_env(dir, &["killall"], &env).status, 0);
}

/// Live fake agents working in `dir`, by the unit in their environment.
fn agents_by_unit(dir: &Path) -> std::collections::BTreeMap<String, Vec<u32>> {
    let fake = crate::common::fake_agent();
    let mut by_unit: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        if !cwd.starts_with(dir) {
            continue;
        }
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let program = cmd.split(|b| *b == 0).next().unwrap_or_default();
        let program = String::from_utf8_lossy(program);
        if program != fake && !program.ends_with("/fake-agent") && program != "fake-agent" {
            continue;
        }
        // A zombie has no environment left: it works on nothing.
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        if status.contains("State:\tZ") {
            continue;
        }
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if let Some(unit) = env
            .split(|b| *b == 0)
            .find_map(|kv| kv.strip_prefix(b"SUPERVISOR_UNIT="))
        {
            by_unit
                .entry(String::from_utf8_lossy(unit).into_owned())
                .or_default()
                .push(pid);
        }
    }
    by_unit
}

/// Wrapper processes of the run in `dir` (their job files live in its
/// `.git/supervisor`).
fn wrappers_of(dir: &Path) -> Vec<i32> {
    let needle = dir.join(".git").display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&bytes).replace('\0', " ");
            if cmd.contains(" agent-run ") && cmd.contains(&needle) {
                found.push(pid);
            }
        }
    }
    found
}

#[test]
fn chaos_kills_of_wrappers_and_engines_never_double_an_agent_or_a_sprint() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    // Retries come at once, so a sprint whose wrapper was killed is
    // dispatched again while its orphaned agent would still be working.
    let config = dir.join(".workflow/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("retry_delay = \"50ms\"\nmax_retries = 50\n");
    std::fs::write(&config, text.replace("max_retries = 3\n", "")).expect("config");
    git(dir, &["commit", "-qam", "fast retries"]);
    let s = scripts(&[(
        "default.txt",
        &format!("{}{SUCCEED}", "print working\nsleep 300\n".repeat(8)),
    )]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    // A fixed seed: the same kills at the same moments on every run.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut kills = 0;
    let mut wrapper_kills = 0;
    let mut max_agents = 0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(12) {
        for (unit, pids) in agents_by_unit(dir) {
            max_agents = max_agents.max(pids.len());
            assert!(
                pids.len() <= 1,
                "two live agents for {unit}: {pids:?} after {kills} kills"
            );
        }
        match next() % 3 {
            0 => {
                let wrappers = wrappers_of(dir);
                if !wrappers.is_empty() {
                    let victim = wrappers[(next() as usize) % wrappers.len()];
                    // SAFETY: plain kill(2) of a process this test's run started.
                    unsafe { libc::kill(victim, libc::SIGKILL) };
                    kills += 1;
                    wrapper_kills += 1;
                }
            }
            1 => {
                // An engine killed mid-tick.
                let mut tick = command(crate::common::bin(), dir)
                    .arg("tick")
                    .env("FAKE_AGENT_SCRIPT", s.path())
                    .spawn()
                    .expect("tick");
                std::thread::sleep(Duration::from_millis(next() % 60));
                let _ = tick.kill();
                let _ = tick.wait();
                kills += 1;
            }
            _ => {
                // The engine noticing what the kills did, as a hook would.
                let _ = run_env(dir, &["tick"], &env);
            }
        }
        std::thread::sleep(Duration::from_millis(50 + next() % 150));
    }
    assert!(kills > 5, "only {kills} kills");
    eprintln!(
        "chaos: {kills} kills, {wrapper_kills} of wrappers; at most {max_agents} agents per unit"
    );
    // The run is recovered from whatever the kills left (a unit the kills
    // drove to BLOCKED gets a fresh round from `resume`).
    let mut rounds = 0;
    while status(dir)["overall"] != "completed" {
        rounds += 1;
        assert!(rounds <= 4, "not completed: {}", status(dir));
        // A wrapper the kills left may be publishing at the same moment:
        // a resume that loses that race is run again.
        let r = run_env(dir, &["resume"], &env);
        if r.status != 0 {
            let again = run_env(dir, &["resume"], &env);
            assert_eq!(
                again.status, 0,
                "{}{}\n{}{}",
                r.stdout, r.stderr, again.stdout, again.stderr
            );
        }
        let _ = run_env(dir, &["wait", "--timeout", "90s"], &env);
    }
    let t = sprint_transitions(dir);
    for (unit, sprints) in [
        ("parser", 2),
        ("profiles", 1),
        ("algs", 1),
        ("validation", 2),
        ("biblioteca", 1),
    ] {
        for sprint in 1..=sprints {
            let done = t
                .iter()
                .filter(|x| x.0 == unit && x.1 == sprint.to_string() && x.3 == "COMPLETED")
                .count();
            assert_eq!(done, 1, "{unit}/{sprint} completed once: {t:?}");
        }
    }
    wait_until("every agent of the run to end", 30, || {
        agents_by_unit(dir).is_empty()
    });
}
