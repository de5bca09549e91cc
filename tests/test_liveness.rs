//! The agent wrapper with real processes and signals: liveness by activity
//! in wall-clock time (issue 14 item 2), every descendant ending with the
//! agent (item 3), rate limits that cost no attempt (item 4), stop and
//! killall recording what they did (issue 15 items 4–6), and git locks
//! left by a dead agent (issue 19 item 8).

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use git_supervisor::dispatch::liveness::Liveness;
use git_supervisor::dispatch::liveness::Sampler;
use git_supervisor::dispatch::liveness::Timing;
use git_supervisor::dispatch::liveness::Verdict;
use git_supervisor::dispatch::ratelimit;
use git_supervisor::dispatch::reap;

use crate::common::git;
use crate::common::run;
use crate::common::wait_until;

/// A repository with one plan, and an agent that is `sh AGENT_SCRIPT`.
struct Repo {
    dir: tempfile::TempDir,
    _scripts: tempfile::TempDir,
}

impl Repo {
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Units `alpha` (and `beta` when `two`), each with `sprints` sprints whose
/// exit criterion is `<unit>/<n>.txt`.
fn plan(units: &[&str], sprints: u32) -> String {
    let mut p = String::from(
        "# Liveness\n\n| Unit | Directory | Layer | Sprints |\n|------|-----------|-------|---------|\n",
    );
    for u in units {
        p.push_str(&format!("| {u} | {u} | 0 | {sprints} |\n"));
    }
    p.push('\n');
    for u in units {
        p.push_str(&format!("## {u}\n\n"));
        for n in 1..=sprints {
            p.push_str(&format!(
                "### Sprint {n}: Step {n}\n\n**Exit Criteria**:\n- [ ] `{u}/{n}.txt` exists\n\n"
            ));
        }
    }
    p
}

fn repo(plan: &str, agent: &str, agent_extra: &str, run_extra: &str) -> Repo {
    let dir = tempfile::tempdir().expect("tempdir");
    let scripts = tempfile::tempdir().expect("tempdir");
    let script = scripts.path().join("agent.sh");
    std::fs::write(&script, agent).expect("agent script");
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.name", "Test User"]);
    git(d, &["config", "user.email", "user@example.com"]);
    git(d, &["config", "commit.gpgsign", "false"]);
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    for u in ["alpha", "beta"] {
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), format!("# {u}\n")).expect("progress");
    }
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        format!(
            "[agent]\ncommand = [\"sh\", \"{}\"]\nprompt = \"stdin\"\nkill_grace = \"2s\"\n{agent_extra}\n\n[run]\npoll_interval = \"200ms\"\n{run_extra}\n",
            script.display()
        ),
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    Repo {
        dir,
        _scripts: scripts,
    }
}

/// Shell that does sprint `$SUPERVISOR_SPRINT`'s work and commits it with
/// the sprint's trailers.
const WORK: &str = r#"n=$SUPERVISOR_SPRINT
u=$SUPERVISOR_UNIT
echo done > "$u/$n.txt"
git add -A "$u"
git commit -qm "$u: sprint $n" -m "Supervisor-Sprint: $u/$n
Supervisor-Status: complete"
"#;

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

/// Every live process (not a zombie) whose working directory is under
/// `dir`, with its command line.
fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.canonicalize().expect("dir");
    reap::processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.pid != std::process::id())
        .filter(|p| {
            std::fs::read_link(format!("/proc/{}/cwd", p.pid)).is_ok_and(|c| c.starts_with(&dir))
        })
        .map(|p| format!("{} {}", p.pid, reap::cmdline(p.pid)))
        .collect()
}

fn log(dir: &Path) -> String {
    run(dir, &["log"]).stdout
}

fn agent_logs(dir: &Path) -> String {
    let agents = dir.join(".git/supervisor/agents");
    let mut out = String::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&agents)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    names.sort();
    for p in names {
        out.push_str(&format!(
            "== {}\n{}\n",
            p.display(),
            std::fs::read_to_string(&p).unwrap_or_default()
        ));
    }
    out
}

// ---------------------------------------------------------------- liveness

/// The rule over a fake clock: nothing but the instants it is given.
#[test]
fn liveness_rule_notices_once_kills_on_silence_and_times_out() {
    let timing = Timing {
        silence_notice_ms: 600_000,
        silence_kill_ms: Some(1_800_000),
        timeout_ms: 7_200_000,
        ..Timing::default()
    };
    let t0 = Instant::now();
    let at = |s: u64| t0 + Duration::from_secs(s);
    let mut l = Liveness::new(&timing, t0);
    assert_eq!(l.observe(at(5), false), Verdict::Alive);
    assert_eq!(l.observe(at(599), false), Verdict::Alive);
    assert_eq!(
        l.observe(at(600), false),
        Verdict::Notice(Duration::from_secs(600))
    );
    assert_eq!(l.observe(at(605), false), Verdict::Alive, "noticed once");
    // Activity (output, CPU, a file) restarts the silence.
    assert_eq!(l.observe(at(1700), true), Verdict::Alive);
    assert_eq!(l.observe(at(2299), false), Verdict::Alive);
    assert_eq!(
        l.observe(at(2300), false),
        Verdict::Notice(Duration::from_secs(600)),
        "a new silence, a new notice"
    );
    assert_eq!(
        l.observe(at(3500), false),
        Verdict::Silent(Duration::from_secs(1800))
    );

    // A busy agent is ended only by the timeout.
    let mut busy = Liveness::new(&timing, t0);
    for s in (0..7200).step_by(300) {
        assert_eq!(busy.observe(at(s), true), Verdict::Alive, "at {s}s");
    }
    assert_eq!(
        busy.observe(at(7200), true),
        Verdict::Timeout(Duration::from_secs(7200))
    );

    // silence_kill = "off": a quiet agent is noticed, never killed for it.
    let off = Timing {
        silence_kill_ms: None,
        ..timing
    };
    let mut quiet = Liveness::new(&off, t0);
    assert!(matches!(quiet.observe(at(600), false), Verdict::Notice(_)));
    assert_eq!(quiet.observe(at(7199), false), Verdict::Alive);
    assert!(matches!(
        quiet.observe(at(7200), false),
        Verdict::Timeout(_)
    ));
}

/// The defaults map the spec's 5/10 empty polls onto wall-clock silences.
#[test]
fn liveness_defaults_are_minutes_not_polls() {
    let c = git_supervisor::config::Config::parse("", "c.toml").expect("empty config");
    let t = Timing::from_config(&c);
    assert_eq!(t.silence_notice_ms, 10 * 60_000);
    assert_eq!(t.silence_kill_ms, Some(30 * 60_000));
    assert_eq!(t.timeout_ms, 2 * 3_600_000);
    assert_eq!(t.retry_delay_ms, 30_000);
    assert_eq!(t.rate_limit_wait_ms, 3_600_000);
}

/// Each activity signal, read from real processes and files.
#[test]
fn sampler_sees_output_cpu_and_file_changes() {
    let work = tempfile::tempdir().expect("tempdir");
    let logs = tempfile::tempdir().expect("tempdir");
    let logf = logs.path().join("agent.log");
    std::fs::write(&logf, "").expect("log");
    let tree_of = |pid: u32| -> Vec<reap::Proc> {
        reap::processes()
            .into_iter()
            .filter(|p| p.pid == pid)
            .collect()
    };
    let mut s = Sampler::new(&logf, work.path(), Duration::ZERO);
    assert!(!s.active(&[]), "nothing happened yet");
    std::fs::write(&logf, "output\n").expect("log");
    assert!(s.active(&[]), "new output bytes");
    assert!(!s.active(&[]));

    // A process that only sleeps: new once, then idle.
    let mut idle = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep");
    // Past its exec, whose few milliseconds of CPU could land in a tick.
    std::thread::sleep(Duration::from_millis(100));
    assert!(s.active(&tree_of(idle.id())), "a new process");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!s.active(&tree_of(idle.id())), "sleeping uses no CPU");

    // A process that computes silently.
    let mut busy = std::process::Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .expect("sh");
    let both = |s: &mut Sampler| {
        let mut t = tree_of(idle.id());
        t.extend(tree_of(busy.id()));
        s.active(&t)
    };
    assert!(both(&mut s));
    std::thread::sleep(Duration::from_millis(300));
    assert!(both(&mut s), "CPU time used since the last look");
    let _ = busy.kill();
    let _ = busy.wait();
    assert!(!s.active(&tree_of(idle.id())));

    // A file changed in the workdir.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(work.path().join("notes.md"), "x").expect("file");
    assert!(s.active(&tree_of(idle.id())), "a file changed");
    assert!(!s.active(&tree_of(idle.id())));
    let _ = idle.kill();
    let _ = idle.wait();
}

#[test]
fn a_silent_idle_agent_is_ended_after_silence_kill() {
    let r = repo(
        &plan(&["alpha"], 1),
        "sleep 30\n",
        "silence_notice = \"600ms\"\nsilence_kill = \"1500ms\"",
        "max_retries = 1\n",
    );
    let dir = r.path();
    let start = Instant::now();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 3, "{}\n{}", out.stdout, out.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "ended by silence, not by the agent's own end: {:?}",
        start.elapsed()
    );
    let l = log(dir);
    assert!(l.contains("may be unresponsive"), "{l}");
    assert!(l.contains("no activity for"), "{l}");
    assert!(processes_in(dir).is_empty(), "{:?}", processes_in(dir));
}

#[test]
fn a_silent_agent_whose_tool_computes_is_not_ended() {
    // No output and no file for longer than silence_kill, but CPU time in a
    // tool of its own session.
    let agent = format!(
        "setsid sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done' </dev/null >/dev/null 2>&1\n{WORK}"
    );
    let r = repo(
        &plan(&["alpha"], 1),
        &agent,
        "silence_notice = \"500ms\"\nsilence_kill = \"1s\"",
        "max_retries = 1\n",
    );
    let dir = r.path();
    let start = Instant::now();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status,
        0,
        "{}\n{}\n{}",
        out.stdout,
        log(dir),
        agent_logs(dir)
    );
    assert!(
        start.elapsed() > Duration::from_secs(2),
        "the tool ran well past silence_kill: {:?}",
        start.elapsed()
    );
    let st = status(dir);
    assert_eq!(st["overall"], "completed");
    assert!(!log(dir).contains("no activity for"));
}

// ------------------------------------------------------ the agent's tree

#[test]
fn a_tool_left_running_by_a_finished_agent_ends_with_it() {
    // The agent starts a tool in its own session and exits; the tool would
    // commit two seconds later, after the verdict.
    let agent = format!(
        "setsid sh -c 'sleep 2; echo late > alpha/late.txt; git add -A alpha; git commit -qm late' </dev/null >/dev/null 2>&1 &\n{WORK}"
    );
    let r = repo(&plan(&["alpha"], 1), &agent, "", "max_retries = 2");
    let dir = r.path();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, agent_logs(dir));
    assert!(
        processes_in(dir).is_empty(),
        "nothing of the agent's tree outlives it: {:?}",
        processes_in(dir)
    );
    let head = git(dir, &["rev-parse", "HEAD"]);
    std::thread::sleep(Duration::from_secs(3));
    assert!(!dir.join("alpha/late.txt").exists());
    assert_eq!(
        git(dir, &["rev-parse", "HEAD"]),
        head,
        "no commit appeared later"
    );
    assert!(
        agent_logs(dir).contains("ended 1 process(es) of the agent's tree")
            || agent_logs(dir).contains("process(es) of the agent's tree"),
        "{}",
        agent_logs(dir)
    );
}

/// An agent that keeps working (and talking) with a tool in a session of
/// its own.
fn slow_agent() -> String {
    "setsid sh -c 'sleep 30; echo late > late.txt' </dev/null >/dev/null 2>&1 &\nwhile :; do echo working; sleep 0.1; done\n".into()
}

#[test]
fn killall_ends_every_process_of_the_tree_and_counts_it() {
    let r = repo(&plan(&["alpha"], 1), &slow_agent(), "", "max_retries = 2");
    let dir = r.path();
    assert_eq!(run(dir, &["start", "--yes"]).status, 0);
    wait_until("the agent to run", 20, || {
        unit(&status(dir), "alpha")["current"]["state"] == "RUNNING"
    });
    wait_until("the tool to start", 20, || {
        processes_in(dir).iter().any(|p| p.contains("sleep 30"))
    });
    let out = run(dir, &["killall"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("Agents terminated: 1"),
        "{}",
        out.stdout
    );
    // killall returns only when nothing is left.
    assert!(processes_in(dir).is_empty(), "{:?}", processes_in(dir));
    assert_eq!(status(dir)["overall"], "killed");
}

#[test]
fn stop_force_terminates_a_slow_agent_as_the_spec_says() {
    let r = repo(&plan(&["alpha"], 1), &slow_agent(), "", "max_retries = 2");
    let dir = r.path();
    assert_eq!(run(dir, &["start", "--yes"]).status, 0);
    wait_until("the agent to run", 20, || {
        unit(&status(dir), "alpha")["current"]["state"] == "RUNNING"
    });
    let out = run(dir, &["stop"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("## Stop Complete"), "{}", out.stdout);
    assert!(
        out.stdout.contains("Agents terminated: 1"),
        "{}",
        out.stdout
    );
    assert!(processes_in(dir).is_empty(), "{:?}", processes_in(dir));
    let st = status(dir);
    let a = unit(&st, "alpha");
    assert_eq!(a["state"], "KILLED", "{a}");
    assert_eq!(a["current"]["state"], "BACKOFF", "{a}");
    assert_eq!(a["current"]["attempt"], 1, "the attempt is kept: {a}");
    let l = log(dir);
    assert!(
        l.contains("Sprint 1 force-terminated during graceful shutdown"),
        "{l}"
    );
    assert!(!l.contains("Attempt 1/2 failed"), "no attempt charged: {l}");
}

// ------------------------------------------------------------ the races

#[test]
fn completing_by_trailer_while_the_agent_runs_costs_the_next_sprint_nothing() {
    // The agent commits the sprint complete, then keeps tidying up for 30 s.
    let agent =
        format!("{WORK}i=0\nwhile [ $i -lt 300 ]; do echo tidying; sleep 0.1; i=$((i+1)); done\n");
    let r = repo(&plan(&["alpha"], 2), &agent, "", "max_retries = 2");
    let dir = r.path();
    let start = Instant::now();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status,
        0,
        "{}\n{}\n{}",
        out.stdout,
        log(dir),
        agent_logs(dir)
    );
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "finished agents were ended, not waited for: {:?}",
        start.elapsed()
    );
    let l = log(dir);
    assert!(!l.contains("BACKOFF"), "no attempt was charged: {l}");
    assert!(
        !l.contains("attempt 2/"),
        "every sprint done at its first attempt: {l}"
    );
    assert!(processes_in(dir).is_empty(), "{:?}", processes_in(dir));
}

// ---------------------------------------------------------- rate limits

#[test]
fn rate_limit_shapes_are_recognised_and_ordinary_failures_are_not() {
    let claude = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"API Error: 429"}"#;
    assert_eq!(
        ratelimit::classify(claude).map(|l| l.kind),
        Some("rate limit (HTTP 429)")
    );
    let claude_overloaded = r#"{"type":"result","is_error":true,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}"#;
    assert_eq!(
        ratelimit::classify(claude_overloaded).map(|l| l.kind),
        Some("overloaded (HTTP 529)")
    );
    let anthropic = r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
    assert!(ratelimit::classify(anthropic).is_some());
    let codex = r#"{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#;
    assert_eq!(
        ratelimit::classify(codex).map(|l| l.kind),
        Some("rate limit (HTTP 429)")
    );
    let codex_error =
        r#"{"type":"error","message":"stream error: rate limit reached, retry-after: 7"}"#;
    let l = ratelimit::classify(codex_error).expect("codex error event");
    assert_eq!(l.retry_after, Some(Duration::from_secs(7)));
    let aider = "litellm.RateLimitError: AnthropicException - rate limited\nTokens: 1k sent";
    assert!(ratelimit::classify(aider).is_some());

    // Not rate limits: a successful result, a number that is not a status,
    // an error about something else, a rate limit long before the end.
    let ok = r#"{"type":"result","subtype":"success","is_error":false,"result":"fixed the 429 handler"}"#;
    assert_eq!(ratelimit::classify(ok), None);
    assert_eq!(
        ratelimit::classify("error: tests failed at line 4291\nerror: 1 failure"),
        None
    );
    let long_ago = format!("HTTP 429 Too Many Requests\n{}", "working\n".repeat(100));
    assert_eq!(ratelimit::classify(&long_ago), None);

    // An exit 0 counts only a limit that is the last thing it said: aider
    // giving up, not an error it recovered from and worked on after.
    let gave_up = "Applied edit\nlitellm.RateLimitError: AnthropicException - rate limited\n\nTokens: 1k sent, 0 received.\n";
    assert!(ratelimit::classify_final(gave_up).is_some());
    let recovered = format!(
        "litellm.RateLimitError: AnthropicException - rate limited\n{}",
        "Applied edit to alpha/1.txt\n".repeat(8)
    );
    assert!(ratelimit::classify(&recovered).is_some());
    assert_eq!(ratelimit::classify_final(&recovered), None);
    assert_eq!(ratelimit::classify_final(ok), None);
}

#[test]
fn a_rate_limited_agent_waits_and_runs_again_without_an_attempt() {
    // The first run fails like Claude Code on a 429; the second works.
    let agent = format!(
        "if [ ! -f \"$SUPERVISOR_RESULT_FILE.limited\" ]; then\n  touch \"$SUPERVISOR_RESULT_FILE.limited\"\n  echo '{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"api_error_status\":429,\"result\":\"API Error: 429 rate_limit_error\"}}'\n  exit 1\nfi\n{WORK}"
    );
    let r = repo(
        &plan(&["alpha"], 1),
        &agent,
        "",
        "max_retries = 1\nretry_delay = \"1s\"\nrate_limit_wait = \"1m\"\n",
    );
    let dir = r.path();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status,
        0,
        "a rate limit is not a failure: {}\n{}\n{}",
        out.stdout,
        log(dir),
        agent_logs(dir)
    );
    let l = log(dir);
    assert!(
        l.contains("rate limit (HTTP 429)"),
        "recorded as a notice: {l}"
    );
    assert!(l.contains("no attempt is counted"), "{l}");
    assert!(!l.contains("BACKOFF"), "{l}");
}

#[test]
fn an_agent_that_exits_0_after_giving_up_on_a_rate_limit_waits_without_an_attempt() {
    // Like aider: litellm's RateLimitError, then exit 0 with nothing done.
    let agent = format!(
        "if [ ! -f \"$SUPERVISOR_RESULT_FILE.limited\" ]; then\n  touch \"$SUPERVISOR_RESULT_FILE.limited\"\n  echo 'litellm.RateLimitError: AnthropicException - {{\"type\":\"error\",\"error\":{{\"type\":\"rate_limit_error\",\"message\":\"Number of requests has exceeded your rate limit\"}}}}'\n  echo 'Retrying in 0.2 seconds...'\n  exit 0\nfi\n{WORK}"
    );
    let r = repo(
        &plan(&["alpha"], 1),
        &agent,
        "",
        "max_retries = 0\nretry_delay = \"1s\"\nrate_limit_wait = \"1m\"\n",
    );
    let dir = r.path();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(
        out.status,
        0,
        "a rate limit is not a failure, even after exit 0: {}\n{}\n{}",
        out.stdout,
        log(dir),
        agent_logs(dir)
    );
    let l = log(dir);
    assert!(l.contains("rate limit (HTTP 429)"), "{l}");
    assert!(l.contains("no attempt is counted"), "{l}");
    assert!(!l.contains("BACKOFF"), "{l}");
    assert!(!l.contains("attempt 2/"), "{l}");
}

#[test]
fn an_agent_that_committed_before_exiting_still_reports_its_turns_and_cost() {
    // The trailer commit completes the sprint by a hook tick; the agent
    // prints Claude Code's result (turns, dollars) only when it exits.
    let agent = format!(
        "{WORK}sleep 1\necho '{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":7,\"result\":\"done\",\"session_id\":\"sess-42\",\"total_cost_usd\":0.125}}'\n"
    );
    let r = repo(&plan(&["alpha"], 1), &agent, "", "max_retries = 1");
    let dir = r.path();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, log(dir));
    let l = log(dir);
    assert!(
        l.contains("the agent's commit marked it complete"),
        "completed by the commit before the agent exited: {l}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&run(dir, &["report", "--format", "json"]).stdout)
            .expect("report JSON");
    let sprint = &report["sprints"][0];
    assert_eq!(sprint["turns"], 7, "{report}");
    assert_eq!(sprint["cost_usd"].as_f64(), Some(0.125), "{report}");
    let st = status(dir);
    assert_eq!(st["cost_usd"].as_f64(), Some(0.125), "{st}");
    // Recorded once, as usage, with its session.
    assert_eq!(l.matches("session sess-42").count(), 1, "{l}");
}

#[test]
fn retry_delays_double_are_capped_and_jittered() {
    use git_supervisor::machine::retry::delay as retry_delay;
    let base = Duration::from_secs(30);
    // Seed 20 is no jitter (20 % 41 - 20 = 0).
    assert_eq!(retry_delay(base, 0, 20), Duration::from_secs(30));
    assert_eq!(retry_delay(base, 1, 20), Duration::from_secs(60));
    assert_eq!(retry_delay(base, 3, 20), Duration::from_secs(240));
    assert_eq!(retry_delay(base, 5, 20), Duration::from_secs(600), "capped");
    assert_eq!(retry_delay(base, 40, 20), Duration::from_secs(600));
    for seed in 0..200 {
        let d = retry_delay(base, 1, seed);
        assert!(
            d >= Duration::from_secs(48) && d <= Duration::from_secs(72),
            "±20%: {d:?}"
        );
    }
    let spread: std::collections::BTreeSet<_> = (0..200).map(|s| retry_delay(base, 1, s)).collect();
    assert!(spread.len() > 10, "jitter spreads retries");
}

// ------------------------------------------------------------- git locks

#[test]
fn a_git_lock_left_by_a_dead_process_of_the_agent_is_removed_and_recorded() {
    // The agent's git dies mid-commit (SIGKILL): index.lock stays behind.
    let agent =
        format!("{WORK}sh -c 'exec 3>\"$(git rev-parse --git-dir)/index.lock\"; kill -9 $$'\n");
    let r = repo(&plan(&["alpha"], 1), &agent, "", "max_retries = 2");
    let dir = r.path();
    let out = run(dir, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, agent_logs(dir));
    assert!(!dir.join(".git/index.lock").exists());
    let l = log(dir);
    assert!(l.contains("index.lock"), "recorded: {l}");
    // The repository works for the user.
    std::fs::write(dir.join("mine.txt"), "x").expect("file");
    git(dir, &["add", "mine.txt"]);
}

// ---------------------------------------------------------- retry delays

/// The real binary with the wall clock (no pinned timestamp).
fn run_unpinned(dir: &Path, args: &[&str]) -> crate::common::Output {
    let out = crate::common::command(crate::common::bin(), dir)
        .env_remove("GIT_SUPERVISOR_TIMESTAMP")
        .args(args)
        .output()
        .expect("runs");
    crate::common::Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn a_failed_sprint_waits_its_retry_delay_held_by_its_wrapper() {
    // Attempt 1 fails having done nothing; attempt 2 does the work.
    let agent =
        format!("if [ \"$SUPERVISOR_ATTEMPT\" = 1 ]; then echo no luck; exit 1; fi\n{WORK}");
    let r = repo(
        &plan(&["alpha"], 1),
        &agent,
        "",
        "max_retries = 2\nretry_delay = \"3s\"\n",
    );
    let dir = r.path();
    assert_eq!(run_unpinned(dir, &["start", "--yes"]).status, 0);
    // Nothing but `status` (which writes nothing) runs from here on: the
    // failed attempt's wrapper wakes the engine when the delay is over.
    let mut backoff_seen: Option<Instant> = None;
    let mut retry_at = String::new();
    let mut text = String::new();
    wait_until("the retry to complete the sprint", 40, || {
        let st: serde_json::Value =
            serde_json::from_str(&run_unpinned(dir, &["status", "--format", "json"]).stdout)
                .expect("status");
        let cur = unit(&st, "alpha")["current"].clone();
        if cur["state"] == "BACKOFF" && backoff_seen.is_none() {
            backoff_seen = Some(Instant::now());
            retry_at = cur["retry_at"].as_str().unwrap_or_default().to_string();
            text = run_unpinned(dir, &["status"]).stdout;
        }
        st["overall"] == "completed"
    });
    let waited = backoff_seen.expect("BACKOFF was seen").elapsed();
    assert!(!retry_at.is_empty(), "status shows when the retry starts");
    assert!(
        text.contains("alpha: sprint 1 retries (attempt 2/")
            && text.contains(&format!(") at {retry_at}.")),
        "{text}"
    );
    // 3 s ± 20% jitter, less the time it took to notice the BACKOFF.
    assert!(
        waited >= Duration::from_millis(1800),
        "the retry waited: {waited:?}"
    );
    let l = run_unpinned(dir, &["log"]).stdout;
    assert!(l.contains("it will be retried at"), "{l}");
}

#[test]
fn a_retry_starts_when_the_directory_its_engine_ran_from_is_gone() {
    // The engine that holds a failed attempt's retry delay may have been
    // started from a directory removed since (a hook in a worktree the run
    // already integrated and removed): the retry's agent still starts.
    let r = repo(
        &plan(&["alpha"], 1),
        "",
        "",
        "max_retries = 2\nretry_delay = \"1s\"\n",
    );
    let dir = r.path();
    let doomed = dir.join("sub");
    std::fs::create_dir_all(&doomed).expect("sub");
    let agent = format!(
        "if [ \"$SUPERVISOR_ATTEMPT\" = 1 ]; then rm -rf '{}'; echo no luck; exit 1; fi\n{WORK}",
        doomed.display()
    );
    std::fs::write(r._scripts.path().join("agent.sh"), agent).expect("agent script");
    assert_eq!(run_unpinned(&doomed, &["start", "--yes"]).status, 0);
    wait_until("the retry to complete the sprint", 40, || {
        let st: serde_json::Value =
            serde_json::from_str(&run_unpinned(dir, &["status", "--format", "json"]).stdout)
                .expect("status");
        st["overall"] == "completed" || unit(&st, "alpha")["state"] == "BLOCKED"
    });
    assert!(!doomed.exists(), "the first attempt removed the directory");
    let l = run_unpinned(dir, &["log"]).stdout;
    assert!(l.contains("Attempt 1/2 failed"), "{l}");
    assert!(l.contains("sprint 1  RUNNING → COMPLETED"), "{l}");
    assert!(!l.contains("Attempt 2/2 failed"), "{l}");
}
