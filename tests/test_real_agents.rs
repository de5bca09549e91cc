//! The real agent CLIs — Claude Code and Codex from
//! npm, aider from PyPI — driven by git supervisor against a stub model on
//! 127.0.0.1 (`common::stub_model`), each with its preset exactly as
//! `git supervisor init --agent NAME` writes it. The only thing a test
//! changes is where the CLI's model provider is (its base URL), through the
//! environment the agent inherits, plus a HOME of its own.
//!
//! One test runs every scenario for the three CLIs at once (threads, each
//! with its own project and stub), so it takes as long as the slowest: the
//! 90-second silent tool.
//!
//! A CLI that is not installed is skipped with a message, except when `CI`
//! or `GIT_SUPERVISOR_REQUIRE_AGENTS` is set (`.ci/run` installs them with
//! `scripts/install-agent-clis.sh`).

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use crate::common::real_agents::*;
use crate::common::stub_model::Failure;
use crate::common::stub_model::Script;
use crate::common::stub_model::StubModel;

/// Run the given (scenario, CLI) pairs at once, each in its own thread and
/// project, for the CLIs installed; fail with every problem found. Narrow a
/// local run with `GIT_SUPERVISOR_AGENTS=claude,codex` and
/// `GIT_SUPERVISOR_SCENARIOS=plan,stop`.
fn run_scenarios(pairs: &[(&str, Cli)]) {
    let listed = |var: &str, name: &str| {
        std::env::var(var)
            .ok()
            .is_none_or(|o| o.split(',').any(|n| n.trim() == name))
    };
    let clis: Vec<Cli> = CLIS
        .into_iter()
        .filter(|c| listed("GIT_SUPERVISOR_AGENTS", c.name()))
        .filter(|c| pairs.iter().any(|(_, p)| p == c))
        .filter(|c| c.available())
        .collect();
    let pairs: Vec<(&str, Scenario, Cli)> = pairs
        .iter()
        .filter(|(name, cli)| listed("GIT_SUPERVISOR_SCENARIOS", name) && clis.contains(cli))
        .map(|&(n, cli)| {
            let scenario = *SCENARIOS
                .iter()
                .find(|(name, _)| *name == n)
                .expect("a known scenario");
            (n, scenario, cli)
        })
        .collect();
    let started = Instant::now();
    let failures: Vec<String> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for &(name, (_, scenario), cli) in &pairs {
            handles.push(s.spawn(move || {
                let result = std::panic::catch_unwind(|| scenario(cli)).unwrap_or_else(|p| {
                    Err(p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default())
                });
                eprintln!(
                    "real agents: {name} with {}: {} after {:.0?}",
                    cli.name(),
                    if result.is_ok() { "ok" } else { "FAILED" },
                    started.elapsed()
                );
                result.map_err(|e| format!("[{name} / {}] {e}", cli.name()))
            }));
        }
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("joined").err())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn a_two_unit_two_sprint_plan_completes(cli: Cli) -> Result<(), String> {
    // Each agent's tool says the unit's slot and port it was given.
    let said = "echo \"slot=$SUPERVISOR_SLOT port=$SUPERVISOR_PORT\"";
    let p = Project::new(cli, PLAN_2X2, StubModel::start(work(cli, said)));
    // aider runs no shell command of the model's; its test command, which
    // it runs after its edits, says what it was given instead.
    let heard = p.home.path().join("aider-env.txt");
    if cli == Cli::Aider {
        let config = p.dir().join(".workflow/config.toml");
        let text = std::fs::read_to_string(&config).expect("config");
        let test_cmd = format!(
            "\"--auto-test\", \"--test-cmd\", \"sh -c 'echo slot=$SUPERVISOR_SLOT port=$SUPERVISOR_PORT >> {}'\"]",
            heard.display()
        );
        let text = text.replacen("\"/dev/null\"]", &format!("\"/dev/null\", {test_cmd}"), 1);
        std::fs::write(&config, text).expect("config");
        p.git(&["commit", "-qam", "aider says its environment"]);
    }
    p.start();
    let code = p.wait("5m");
    check(
        code == 0 && p.status()["overall"] == "completed",
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    // Two units at once: each agent worked in a worktree of its own and
    // the run integrated their work; the user's branch did not move.
    let integration = p.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/heads/supervisor/*/integration",
    ]);
    let integration = integration.trim();
    check(
        !integration.is_empty(),
        "the run has no integration branch",
        &p,
    )?;
    for f in ["alpha/1.txt", "alpha/2.txt", "beta/1.txt", "beta/2.txt"] {
        let merged = p.git(&["ls-tree", "-r", "--name-only", integration, "--", f]);
        check(
            !merged.trim().is_empty(),
            &format!("{f} is not on {integration}"),
            &p,
        )?;
        check(
            p.git(&["ls-files", f]).trim().is_empty(),
            &format!("{f} reached the user's branch before `land`"),
            &p,
        )?;
    }
    let used = p.models_used();
    let served = p.preset_models();
    check(
        !used.is_empty()
            && used.iter().all(|m| {
                served
                    .iter()
                    .any(|s| m.contains(s.as_str()) || s.contains(m.as_str()))
            }),
        &format!("models asked for {used:?} are not the preset's {served:?}"),
        &p,
    )?;
    let left = p.processes_left();
    check(left.is_empty(), &format!("processes left: {left:?}"), &p)?;
    {
        let mut outputs: Vec<String> = p
            .stub
            .seen()
            .into_iter()
            .filter_map(|r| r.tool_output)
            .collect();
        outputs.extend(std::fs::read_to_string(&heard).ok());
        for (slot, port) in [(1, 4010), (2, 4020)] {
            let line = format!("slot={slot} port={port}");
            check(
                outputs.iter().any(|o| o.contains(&line)),
                &format!("no agent's tool printed `{line}`: {outputs:?}"),
                &p,
            )?;
        }
    }
    Ok(())
}

/// What the agent reported (turns; dollars where the CLI prints them)
/// reaches the report, also when its trailer commit completed the sprint
/// before the agent exited, as the prompt asks it to.
fn cost_and_turns_appear_in_the_report(cli: Cli) -> Result<(), String> {
    let p = Project::new(cli, PLAN_1X1, StubModel::start(work(cli, "")));
    p.start();
    let code = p.wait("5m");
    check(
        code == 0,
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    // A sprint its trailer commit completed is recorded before its agent
    // exits; the agent's turns are recorded when it does, so the report
    // may be asked a little before they reach it.
    let turned = |s: &serde_json::Value| s["turns"].as_u64().is_some_and(|t| t >= 1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let (out, report, sprints) = loop {
        let (code, out, err) = p.sv(&["report", "--format", "json"]);
        check(code == 0, &format!("report failed: {err}"), &p)?;
        let report: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
        let sprints = report["sprints"].as_array().cloned().unwrap_or_default();
        if sprints.iter().all(turned) || std::time::Instant::now() > deadline {
            break (out, report, sprints);
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    };
    check(sprints.len() == 1, &format!("one sprint entry: {out}"), &p)?;
    check(
        sprints.iter().all(turned),
        &format!("turns missing in the report: {out}"),
        &p,
    )?;
    if cli != Cli::Codex {
        // Codex reports tokens, not dollars.
        let mut costs = Vec::new();
        find_costs(&report, &mut costs);
        check(
            costs.iter().any(|c| *c > 0.0),
            &format!("no cost in dollars in the report: {out}"),
            &p,
        )?;
    }
    Ok(())
}

fn an_api_error_backs_off_waits_and_then_completes(cli: Cli) -> Result<(), String> {
    let mut script = work(cli, "");
    // A 400 is not retried by any of the CLIs.
    script.failures = vec![Failure::api_error()];
    let p = Project::new(cli, PLAN_1X1, StubModel::start(script));
    p.start();
    let code = p.wait("5m");
    check(
        code == 0,
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    let t = p.transitions();
    let backoff = t
        .iter()
        .position(|(_, m)| m.starts_with("alpha: sprint 1 RUNNING -> BACKOFF"));
    check(
        backoff.is_some(),
        "no RUNNING -> BACKOFF after the API error",
        &p,
    )?;
    let backoff = backoff.unwrap_or_default();
    // The retry's agent starts (DISPATCHED -> RUNNING) only after the
    // retry delay (30 s by default, with jitter).
    let restart = t[backoff..]
        .iter()
        .find(|(_, m)| m.starts_with("alpha: sprint 1 DISPATCHED -> RUNNING"));
    let waited = restart.map(|(at, _)| at - t[backoff].0);
    check(
        waited.is_some_and(|w| w >= 10),
        &format!("the retry's agent started {waited:?} s after BACKOFF; a delay was expected"),
        &p,
    )?;
    check(
        completed_attempt(&p, "alpha", "1").is_some_and(|a| a.starts_with("2/")),
        "sprint 1 was not COMPLETED by attempt 2",
        &p,
    )?;
    Ok(())
}

fn a_tool_silent_for_90_seconds_is_not_killed(cli: Cli) -> Result<(), String> {
    let mut script = work(cli, "sleep 90");
    if cli == Cli::Aider {
        // aider runs no tools: its model is what keeps it silent.
        script.reply_delay = Duration::from_secs(90);
    }
    let p = Project::new(cli, PLAN_1X1, StubModel::start(script));
    let started = Instant::now();
    p.start();
    let code = p.wait("6m");
    check(
        code == 0,
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    check(
        started.elapsed() >= Duration::from_secs(90),
        "finished before the silent step could have",
        &p,
    )?;
    check(
        completed_attempt(&p, "alpha", "1").is_some_and(|a| a.starts_with("1/")),
        "the silent agent was not completed by its first attempt",
        &p,
    )?;
    Ok(())
}

fn a_rate_limit_consumes_no_attempt(cli: Cli) -> Result<(), String> {
    let mut script = work(cli, "");
    // Each CLI first retries a 429 itself; the stub answers 429 until it
    // gives up. Claude Code keeps retrying for minutes with its
    // defaults, so its own retry count is lowered here. Codex tries six
    // times; aider (three HTTP requests a try) gives up after a minute.
    let n = match cli {
        Cli::Claude => 1,
        Cli::Codex => 6,
        Cli::Aider => 40,
    };
    script.failures = vec![Failure::rate_limit(); n];
    let mut p = Project::new(cli, PLAN_1X1, StubModel::start(script));
    if cli == Cli::Claude {
        p.extra_env
            .push(("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()));
    }
    p.start();
    let code = p.wait("6m");
    check(
        code == 0,
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    let hit = p.stub.seen().iter().filter(|r| r.status == 429).count();
    check(
        hit == n,
        &format!("the stub answered {hit} of {n} rate limits"),
        &p,
    )?;
    check(
        completed_attempt(&p, "alpha", "1").is_some_and(|a| a.starts_with("1/")),
        "the rate-limited sprint was not completed as attempt 1",
        &p,
    )?;
    let said = p.transitions().iter().any(|(_, m)| {
        let m = m.to_ascii_lowercase();
        m.contains("rate limit") || m.contains("rate-limit") || m.contains("429")
    });
    check(said, "no notice of the rate limit in the history", &p)?;
    Ok(())
}

/// The subscription's usage limit, as the service answers it (a reset on
/// a whole minute, at least 40 s ahead: the CLIs print the minute):
/// no attempt is charged, the pause is recorded, and the run completes by
/// itself after the reset. Claude Code says it only to a subscription
/// (an OAuth token, no API key).
fn a_usage_limit_pauses_the_run_until_its_reset(cli: Cli) -> Result<(), String> {
    if cli == Cli::Aider {
        // aider's quota errors name no reset; the table test reads them.
        return Ok(());
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    // Far enough ahead that the project is set up and the agents ask
    // before it (a loaded machine takes seconds).
    let mut reset = (now / 60 + 1) * 60;
    if reset - now < 40 {
        reset += 60;
    }
    let mut script = work(cli, "");
    script.limit_until = Some(reset);
    let mut p = Project::new(cli, PLAN_2X2, StubModel::start(script));
    if cli == Cli::Claude {
        p.removed_env.push("ANTHROPIC_API_KEY");
        p.extra_env
            .push(("CLAUDE_CODE_OAUTH_TOKEN".into(), "sk-ant-oat01-stub".into()));
    }
    p.extra_env.push(("TZ".into(), "Asia/Tokyo".into()));
    p.start();
    let code = p.wait("6m");
    check(
        code == 0,
        &format!("the run did not complete (wait exited {code})"),
        &p,
    )?;
    let limited: Vec<String> = p
        .transitions()
        .into_iter()
        .map(|(_, m)| m)
        .filter(|m| m.contains("Supervisor-Event: usage-limit"))
        .collect();
    check(!limited.is_empty(), "no usage-limit pause was recorded", &p)?;
    let said = match cli {
        Cli::Claude => "You've hit your session limit",
        _ => "hit your usage limit",
    };
    check(
        limited
            .iter()
            .all(|m| m.contains(said) && m.contains("No attempt is counted")),
        &format!("the pause does not quote the agent ({said})"),
        &p,
    )?;
    let ended = p
        .transitions()
        .iter()
        .any(|(t, m)| m.contains("Supervisor-Event: limit-ended") && *t as u64 >= reset);
    check(ended, "the pause did not end at the reset", &p)?;
    for (unit, sprint) in [("alpha", "1"), ("alpha", "2"), ("beta", "1"), ("beta", "2")] {
        check(
            completed_attempt(&p, unit, sprint).is_some_and(|a| a.starts_with("1/")),
            &format!("{unit} sprint {sprint} was not completed as attempt 1"),
            &p,
        )?;
    }
    Ok(())
}

/// The agent starts a `setsid` grandchild that would commit later, then
/// keeps its tool busy; `end` ends the run. Nothing of it may survive, and
/// no commit may appear afterwards. `stop` lets agents finish for ten poll
/// intervals (50 s) before it ends them, so its grandchild waits longer.
fn nothing_survives(cli: Cli, end: &'static str) -> Result<(), String> {
    let later: u64 = if end == "stop" { 70 } else { 20 };
    let marker = "{unit}/started.txt";
    let mut script = Script {
        final_text: "done".into(),
        ..Script::default()
    };
    if cli == Cli::Aider {
        script.edits = vec![(marker.into(), "started".into())];
        script.reply_delay = Duration::from_secs(300);
    } else {
        script.commands = vec![format!(
                "mkdir -p {{unit}} && echo started > {marker} && \
                 (setsid sh -c 'sleep {later}; echo late > {{unit}}/late.txt; git add {{unit}}/late.txt; git commit -q -m late' >/dev/null 2>&1 </dev/null &) ; sleep 300"
            )];
    }
    let p = Project::new(cli, PLAN_1X1, StubModel::start(script));
    p.start();
    let begun = Instant::now();
    // Wait until the agent is at work (aider: until its model is asked).
    // Aider, a Python program, takes a minute and more to start on a
    // machine busy with every other scenario at once.
    let patience = Duration::from_secs(240);
    while begun.elapsed() < patience {
        let busy = match cli {
            Cli::Aider => p.stub.seen().iter().any(|r| r.main),
            _ => p.dir().join("alpha/started.txt").exists(),
        };
        if busy {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let busy_at = Instant::now();
    check(
        begun.elapsed() < patience,
        "the agent never got to work",
        &p,
    )?;
    std::thread::sleep(Duration::from_secs(1));
    let (code, out, err) = p.sv(&[end]);
    check(
        code == 0 || code == 3,
        &format!("{end} failed: {out}{err}"),
        &p,
    )?;
    let head = p.git(&["rev-parse", "HEAD"]);
    let late_before = p.dir().join("alpha/late.txt").exists();
    let left = p.processes_left();
    check(
        left.is_empty(),
        &format!("after {end}, still running: {left:?}"),
        &p,
    )?;
    // Past the moment the grandchild would have committed.
    let due = busy_at + Duration::from_secs(later + 5);
    if let Some(rest) = due.checked_duration_since(Instant::now()) {
        std::thread::sleep(rest);
    }
    check(
        p.git(&["rev-parse", "HEAD"]) == head
            && !late_before
            && !p.dir().join("alpha/late.txt").exists(),
        &format!("something of the run committed or wrote after {end}"),
        &p,
    )?;
    let left = p.processes_inside();
    check(
        left.is_empty(),
        &format!("later, still running: {left:?}"),
        &p,
    )?;
    Ok(())
}

fn nothing_survives_stop(cli: Cli) -> Result<(), String> {
    nothing_survives(cli, "stop")
}

fn nothing_survives_killall(cli: Cli) -> Result<(), String> {
    nothing_survives(cli, "killall")
}

/// The 2x2 plan started on a git remote and worked by two workers, each in
/// a clone of its own with the real CLI: every sprint completes once, the
/// remote's integration branch holds the work, no agent is left.
fn a_plan_on_a_remote_completes_with_two_workers(cli: Cli) -> Result<(), String> {
    let p = Project::new(cli, PLAN_2X2, StubModel::start(work(cli, "")));
    let bare = p.home.path().join("remote.git");
    let bare_s = bare.display().to_string();
    p.git(&["clone", "-q", "--bare", ".", &bare_s]);
    p.git(&["remote", "add", "origin", &bare_s]);
    let (code, out, err) = p.sv(&["start", "--yes", "--remote", "origin"]);
    check(code == 0, &format!("start --remote: {out}{err}"), &p)?;
    let mut workers = Vec::new();
    for i in 0..2 {
        let clone = p.home.path().join(format!("machine{i}"));
        let clone_s = clone.display().to_string();
        p.git(&["clone", "-q", &bare_s, &clone_s]);
        crate::common::git(&clone, &["config", "user.name", "Worker"]);
        crate::common::git(&clone, &["config", "user.email", "worker@example.com"]);
        let mut cmd = p.command(crate::common::bin());
        cmd.current_dir(&clone)
            .args([
                "worker",
                "--poll",
                "200ms",
                "--poll-max",
                "1s",
                "--format",
                "json",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        workers.push(cmd.spawn().expect("the worker starts"));
    }
    let until = Instant::now() + Duration::from_secs(300);
    let mut said = String::new();
    for mut w in workers {
        while w.try_wait().expect("wait").is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = w.kill();
        let out = w.wait_with_output().expect("output");
        said.push_str(&String::from_utf8_lossy(&out.stdout));
        said.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    check(
        p.status()["overall"] == "completed",
        &format!("the remote run did not complete; the workers said: {said}"),
        &p,
    )?;
    let subjects = crate::common::git(&bare, &["log", "--format=%s", "refs/supervisor/state"]);
    for u in ["alpha", "beta"] {
        for n in ["1", "2"] {
            let done = format!("{u}: sprint {n} RUNNING -> COMPLETED");
            check(
                subjects.lines().filter(|l| *l == done).count() == 1,
                &format!("{done} is not in the remote's history once: {subjects}"),
                &p,
            )?;
            let f = format!("{u}/{n}.txt");
            let on = crate::common::git(
                &bare,
                &[
                    "ls-tree",
                    "-r",
                    "--name-only",
                    &integration_of(&bare),
                    "--",
                    &f,
                ],
            );
            check(
                !on.trim().is_empty(),
                &format!("{f} is not on the remote's integration branch"),
                &p,
            )?;
        }
    }
    let left = p.processes_under(p.home.path());
    check(left.is_empty(), &format!("processes left: {left:?}"), &p)?;
    Ok(())
}

/// The run's integration branch in the repository at `dir`.
fn integration_of(dir: &Path) -> String {
    crate::common::git(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/*/integration",
        ],
    )
    .trim()
    .to_string()
}

/// A plan as people jot it down, for `import`.
const ROADMAP: &str = "Stub roadmap (owner: Sam)

DONE: the first alpha file
NEXT: the second alpha file
";

/// The canonical plan the stub has each CLI write for `import`.
const IMPORTED: &str = "# Stub roadmap

## Work Units

| Work Unit | Directory | Sprints |
|-----------|-----------|---------|
| alpha | alpha | 2 |

## alpha

### Sprint 1: First alpha file ✅

**Tasks**:

1. Write `alpha/1.txt`

### Sprint 2: Second alpha file

**Tasks**:

1. Write `alpha/2.txt`

**Exit criteria**:

- [ ] `alpha/2.txt` exists
";

/// `import` with the CLI's preset: the stub has the agent write the
/// canonical plan (a shell command for Claude Code and Codex, a file edit
/// for aider) in its scratch repository; import reads it back, writes it,
/// and leaves the source and the repository's run alone.
fn import_rewrites_a_plan(cli: Cli) -> Result<(), String> {
    let mut script = Script {
        final_text: "EXECUTION_PLAN.md is written.".into(),
        ..Script::default()
    };
    if cli == Cli::Aider {
        script.edits = vec![("EXECUTION_PLAN.md".into(), IMPORTED.into())];
    } else {
        script.commands = vec![format!(
            "cat > EXECUTION_PLAN.md <<'PLAN'\n{}PLAN\necho written",
            IMPORTED
        )];
    }
    let p = Project::new(cli, PLAN_1X1, StubModel::start(script));
    std::fs::write(p.dir().join("roadmap.md"), ROADMAP).expect("source");
    let head = p.git(&["rev-parse", "HEAD"]);
    let (code, out, err) = p.sv(&["import", "roadmap.md", "--output", "imported.md"]);
    check(code == 0, &format!("import failed: {out}{err}"), &p)?;
    let written = std::fs::read_to_string(p.dir().join("imported.md")).unwrap_or_default();
    check(
        written.trim_end() == IMPORTED.trim_end(),
        &format!("imported.md is not the agent's plan:\n{written}"),
        &p,
    )?;
    check(
        out.contains("| Sprints | 2 |") && out.contains("| Marked done | 1 |"),
        &format!("the summary does not show the plan: {out}"),
        &p,
    )?;
    let (code, plan, err) = p.sv(&["plan", "imported.md", "--format", "json"]);
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap_or_default();
    check(
        code == 0 && plan["units"][0]["sprints"].as_array().map(Vec::len) == Some(2),
        &format!("`plan imported.md` does not read two sprints: {plan}{err}"),
        &p,
    )?;
    check(
        std::fs::read_to_string(p.dir().join("roadmap.md"))
            .ok()
            .as_deref()
            == Some(ROADMAP),
        "the source changed",
        &p,
    )?;
    check(
        p.git(&["rev-parse", "HEAD"]) == head
            && p.git(&["for-each-ref", "refs/supervisor/"]).is_empty()
            && p.git(&["status", "--porcelain"]) == "?? imported.md\n?? roadmap.md\n",
        "import committed, recorded a run or left other files",
        &p,
    )?;
    let used = p.models_used();
    let sonnet = p.preset_models()[1].clone();
    check(
        !used.is_empty()
            && used
                .iter()
                .all(|m| m.contains(sonnet.as_str()) || sonnet.contains(m.as_str())),
        &format!("models asked for {used:?} are not the preset's {sonnet:?}"),
        &p,
    )?;
    Ok(())
}

type Scenario = (&'static str, fn(Cli) -> Result<(), String>);

/// Every scenario, by name.
const SCENARIOS: &[Scenario] = &[
    ("plan", a_two_unit_two_sprint_plan_completes),
    ("remote", a_plan_on_a_remote_completes_with_two_workers),
    ("report", cost_and_turns_appear_in_the_report),
    ("api-error", an_api_error_backs_off_waits_and_then_completes),
    ("silent-90s", a_tool_silent_for_90_seconds_is_not_killed),
    ("rate-limit", a_rate_limit_consumes_no_attempt),
    ("usage-limit", a_usage_limit_pauses_the_run_until_its_reset),
    ("stop", nothing_survives_stop),
    ("killall", nothing_survives_killall),
    ("import", import_rewrites_a_plan),
];

/// Every scenario for every installed CLI at once: the test takes as long
/// as the slowest (the 90-second silent tool), not their sum.
#[test]
fn real_agents_end_to_end() {
    let pairs: Vec<(&str, Cli)> = SCENARIOS
        .iter()
        .filter(|(name, _)| *name != "import")
        .flat_map(|(name, _)| CLIS.into_iter().map(move |cli| (*name, cli)))
        .collect();
    run_scenarios(&pairs);
}

/// `import` with every installed CLI at once: no run, so a test of its own
/// (`cargo test --test main real_agents_import`).
#[test]
fn real_agents_import() {
    let pairs: Vec<(&str, Cli)> = CLIS.into_iter().map(|cli| ("import", cli)).collect();
    run_scenarios(&pairs);
}

/// The stub itself, without any CLI: each protocol gets the scripted tool
/// call, then the final message; failures come first; `{unit}`/`{sprint}`
/// are taken from the prompt.
#[test]
fn the_stub_model_answers_each_protocol_as_scripted() {
    use std::io::Read;
    use std::io::Write;
    let stub = StubModel::start(Script {
        commands: vec!["touch {unit}/{sprint}.txt".into()],
        edits: vec![("{unit}/{sprint}.txt".into(), "done".into())],
        final_text: "finished".into(),
        failures: vec![Failure::api_error()],
        reply_delay: Duration::ZERO,
        limit_until: None,
    });
    let post = |path: &str, body: serde_json::Value| -> (u16, String) {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", stub.port)).expect("connect");
        let body = body.to_string();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut out = String::new();
        s.read_to_string(&mut out).expect("read");
        let status = out[9..12].parse().expect("status");
        (status, out)
    };
    let prompt = "Commit with the trailer `Supervisor-Sprint: alpha/2a` please";
    let tools = serde_json::json!([{"name": "Bash"}]);
    let first = serde_json::json!({"model": "m", "stream": true, "tools": tools,
        "messages": [{"role": "user", "content": prompt}]});
    assert_eq!(
        post("/v1/messages", first.clone()).0,
        400,
        "the scripted failure first"
    );
    let (status, sse) = post("/v1/messages", first);
    assert_eq!(status, 200);
    assert!(
        sse.contains(r#"\"command\":\"touch alpha/2a.txt\""#),
        "{sse}"
    );
    let second = serde_json::json!({"model": "m", "stream": true, "tools": tools, "messages": [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]});
    assert!(post("/v1/messages", second).1.contains("finished"));
    // A continuation: the conversation so far, a reminder the CLI adds,
    // then a new prompt starts the script again; after its tool result, a
    // reminder between turns does not.
    let done = serde_json::json!([
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "finished"}]},
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>a file changed</system-reminder>"}]},
        {"role": "user", "content": [{"type": "text", "text": format!("CONTINUATION: {prompt}")}]}]);
    let continued =
        serde_json::json!({"model": "m", "stream": true, "tools": tools, "messages": done});
    assert!(post("/v1/messages", continued)
        .1
        .contains(r#"\"command\":\"touch alpha/2a.txt\""#));
    let mut after = done.as_array().expect("messages").clone();
    after.extend(serde_json::json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u", "content": "ok"}]},
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>a file changed</system-reminder>"}]}])
        .as_array()
        .expect("messages")
        .iter()
        .cloned());
    let after =
        serde_json::json!({"model": "m", "stream": true, "tools": tools, "messages": after});
    assert!(post("/v1/messages", after).1.contains("finished"));

    let codex = serde_json::json!({"model": "gpt", "stream": true, "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}]});
    let (_, sse) = post("/v1/responses", codex);
    assert!(
        sse.contains("custom_tool_call") && sse.contains("tools.exec_command"),
        "{sse}"
    );
    assert!(sse.contains("touch alpha/2a.txt") && sse.contains("response.completed"));

    let aider = serde_json::json!({"model": "gpt-5-mini", "stream": false,
        "messages": [{"role": "user", "content": prompt}]});
    let (_, json) = post("/v1/chat/completions", aider);
    assert!(
        json.contains(r"alpha/2a.txt\n```\n<<<<<<< SEARCH\n=======\ndone\n>>>>>>> REPLACE"),
        "{json}"
    );
    let commit_message = serde_json::json!({"model": "gpt-5-nano", "messages": [
        {"role": "system", "content": "Write a one-line commit message."},
        {"role": "user", "content": prompt}]});
    assert!(post("/v1/chat/completions", commit_message)
        .1
        .contains("alpha: sprint 2a"));
    let seen = stub.seen();
    assert_eq!(seen.iter().filter(|r| r.main).count(), 7, "{seen:?}");
}
