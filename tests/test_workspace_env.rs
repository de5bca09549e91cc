//! Each unit its own environment: two agents in worktrees start a server
//! each on `$SUPERVISOR_PORT` at once and both answer; criteria commands
//! get the same variables; `[workspace] teardown` removes a per-unit
//! database file `setup` made when each unit's worktree goes.

use crate::common::git;

use crate::common::run_unpinned as sv;

/// A free port range for this test: the OS's choice of one free port,
/// rounded down to a multiple of 100 (slots 1 and 2 at +10 and +20).
fn port_base() -> u16 {
    // A base whose two unit ports are free now (other tests hold ports of
    // their own on a busy machine).
    let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
    for _ in 0..50 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let p = l.local_addr().expect("addr").port();
        let base = (p / 100 * 100).clamp(20000, 60000);
        if free(base + 10) && free(base + 20) {
            return base;
        }
    }
    panic!("no free pair of ports");
}

#[test]
fn two_agents_serve_on_their_own_ports_and_teardown_drops_their_databases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shared = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    crate::common::init_repo(d);
    let s = shared.path().display();
    let agent = format!(
        r#"#!/bin/sh
# Serve on this unit's port, wait until the other unit's server answers
# too (both run at once), note what answered, then do the work.
python3 -m http.server "$SUPERVISOR_PORT" --bind 127.0.0.1 >/dev/null 2>&1 &
server=$!
for i in $(seq 1 300); do
  if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$SUPERVISOR_PORT/', timeout=1)" 2>/dev/null; then break; fi
  sleep 0.1
done
echo "$SUPERVISOR_UNIT $SUPERVISOR_SLOT $SUPERVISOR_PORT" > "{s}/served-$SUPERVISOR_UNIT"
for i in $(seq 1 300); do
  [ "$(ls {s}/served-* 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.1
done
for f in {s}/served-*; do
  port=$(cut -d' ' -f3 "$f")
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=2)" && echo "$SUPERVISOR_UNIT reached $port" >> "{s}/answers"
done
touch "{s}/checked-$SUPERVISOR_UNIT"
for i in $(seq 1 300); do
  [ "$(ls {s}/checked-* 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.1
done
kill $server
echo done > "$SUPERVISOR_UNIT/1.txt"
git add "$SUPERVISOR_UNIT/1.txt"
git commit -qm "$SUPERVISOR_UNIT: sprint 1" -m "Supervisor-Sprint: $SUPERVISOR_UNIT/1
Supervisor-Status: complete" -- "$SUPERVISOR_UNIT/1.txt"
"#
    );
    std::fs::write(d.join("agent.sh"), agent).expect("agent");
    let mut plan = String::from("# Ports\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n| api | api | 0 | 1 |\n| web | web | 0 | 1 |\n");
    for u in ["api", "web"] {
        plan.push_str(&format!(
            "\n## {u}\n\n### Sprint 1: Serve\n\n**Exit Criteria**:\n- [ ] `{u}/1.txt` exists\n- [ ] `test \"$SUPERVISOR_UNIT\" = {u} && test \"$SUPERVISOR_SLOT\" -ge 1`\n"
        ));
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), format!("# {u}\n")).expect("progress");
    }
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    let base = port_base();
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        format!(
            "[agent]\ncommand = [\"sh\", \"agent.sh\"]\nprompt = \"stdin\"\n\n[run]\npoll_interval = \"200ms\"\nworkspace = \"worktree\"\nmax_retries = 1\n\n[workspace]\nport_base = {base}\nport_stride = 10\nsetup = \"touch {s}/db-$SUPERVISOR_UNIT.sqlite\"\nteardown = \"rm {s}/db-$SUPERVISOR_UNIT.sqlite && echo $SUPERVISOR_UNIT $SUPERVISOR_SLOT $SUPERVISOR_PORT >> {s}/torn-down\"\n"
        ),
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    let out = sv(d, &["start", "--yes", "--wait"]);
    let read = |name: &str| std::fs::read_to_string(shared.path().join(name)).unwrap_or_default();
    assert_eq!(
        out.status,
        0,
        "{}{}\n{}\nanswers: {}",
        out.stdout,
        out.stderr,
        sv(d, &["log"]).stdout,
        read("answers")
    );
    let (api, web) = (u32::from(base) + 10, u32::from(base) + 20);
    assert_eq!(read("served-api").trim(), format!("api 1 {api}"));
    assert_eq!(read("served-web").trim(), format!("web 2 {web}"));
    // Both servers were up at once: each answered the other unit's agent.
    let answers = read("answers");
    for line in [format!("api reached {web}"), format!("web reached {api}")] {
        assert!(answers.lines().any(|l| l == line), "{line}: {answers}");
    }
    // Each unit's worktree went once it was integrated: its teardown ran
    // there with its slot and port, and its database is gone.
    crate::common::wait_until("both teardowns", 30, || {
        read("torn-down").lines().count() == 2
    });
    let mut torn: Vec<String> = read("torn-down").lines().map(str::to_string).collect();
    torn.sort();
    assert_eq!(torn, [format!("api 1 {api}"), format!("web 2 {web}")]);
    assert!(!shared.path().join("db-api.sqlite").exists());
    assert!(!shared.path().join("db-web.sqlite").exists());
}

/// A teardown that fails is logged and the run goes on.
#[test]
fn a_failing_teardown_is_logged_and_blocks_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    crate::common::init_repo(d);
    let agent = "echo done > \"$SUPERVISOR_UNIT/1.txt\"\ngit add \"$SUPERVISOR_UNIT/1.txt\"\ngit commit -qm w -m \"Supervisor-Sprint: $SUPERVISOR_UNIT/1\nSupervisor-Status: complete\" -- \"$SUPERVISOR_UNIT/1.txt\"\n";
    std::fs::write(d.join("agent.sh"), agent).expect("agent");
    let mut plan = String::from("# Teardown\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n| a | a | 0 | 1 |\n| b | b | 0 | 1 |\n");
    for u in ["a", "b"] {
        plan.push_str(&format!(
            "\n## {u}\n\n### Sprint 1: Work\n\n**Exit Criteria**:\n- [ ] `{u}/1.txt` exists\n"
        ));
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), "# p\n").expect("progress");
    }
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"sh\", \"agent.sh\"]\nprompt = \"stdin\"\n\n[run]\npoll_interval = \"200ms\"\nworkspace = \"worktree\"\n\n[workspace]\nteardown = \"exit 7\"\n",
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    let out = sv(d, &["start", "--yes", "--wait"]);
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    crate::common::wait_until("the failures logged", 30, || {
        std::fs::read_to_string(d.join(".git/supervisor/teardown.log"))
            .is_ok_and(|t| t.lines().count() == 2)
    });
    let log = std::fs::read_to_string(d.join(".git/supervisor/teardown.log")).expect("log");
    assert!(log.contains("teardown `exit 7` failed"), "{log}");
}

/// Checked as they go: a unit whose agent leaves a Rust, a TypeScript or a
/// Python file that does not parse fails its attempt with the checker's
/// message and never reaches the integration branch; the retry fixes it
/// and the run completes.
#[test]
fn a_file_that_does_not_parse_never_reaches_the_integration_branch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    crate::common::init_repo(d);
    // Attempt 1 writes a broken file, attempt 2 a good one.
    let agent = r#"#!/bin/sh
case "$SUPERVISOR_UNIT" in
  rs) f=rs/lib.rs; bad='pub fn broken( {'; good='pub fn fine() {}';;
  ts) f=ts/main.ts; bad='let x: = ;'; good='export const x: number = 1;';;
  py) f=py/tool.py; bad='def broken(:'; good='def fine():\n    return 1';;
esac
if [ "$SUPERVISOR_ATTEMPT" = 1 ]; then printf '%s\n' "$bad" > "$f"; else printf "$good\n" > "$f"; fi
git add "$f"
git commit -qm "$SUPERVISOR_UNIT: sprint 1" -m "Supervisor-Sprint: $SUPERVISOR_UNIT/1
Supervisor-Status: complete" -- "$f"
"#;
    std::fs::write(d.join("agent.sh"), agent).expect("agent");
    let mut plan = String::from("# Checks\n\n| Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n| rs | rs | 0 | 1 |\n| ts | ts | 0 | 1 |\n| py | py | 0 | 1 |\n");
    for (u, f) in [("rs", "lib.rs"), ("ts", "main.ts"), ("py", "tool.py")] {
        plan.push_str(&format!(
            "\n## {u}\n\n### Sprint 1: Write it\n\n**Exit Criteria**:\n- [ ] `{u}/{f}` exists\n"
        ));
        std::fs::create_dir_all(d.join(u)).expect("unit dir");
        std::fs::write(d.join(u).join("PROGRESS.md"), "# p\n").expect("progress");
    }
    std::fs::write(d.join("EXECUTION_PLAN.md"), plan).expect("plan");
    std::fs::create_dir_all(d.join(".workflow")).expect("config dir");
    std::fs::write(
        d.join(".workflow/config.toml"),
        "[agent]\ncommand = [\"sh\", \"agent.sh\"]\nprompt = \"stdin\"\n\n[run]\npoll_interval = \"200ms\"\nworkspace = \"worktree\"\nretry_delay = \"1s\"\n",
    )
    .expect("config");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "plan"]);
    // rustc through rustup needs the user's toolchains (the tests' HOME is
    // a scratch directory).
    let rustup_home = std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| {
        std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".rustup")
            .into_os_string()
    });
    let out = crate::common::command(crate::common::bin(), d)
        .env_remove("GIT_SUPERVISOR_TIMESTAMP")
        .env("RUSTUP_HOME", &rustup_home)
        .args(["start", "--yes", "--wait"])
        .output()
        .expect("runs");
    let out = crate::common::Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    };
    let log = sv(d, &["log"]).stdout;
    assert_eq!(out.status, 0, "{}{}\n{log}", out.stdout, out.stderr);
    for (u, checker) in [("rs", "rustc"), ("ts", "tsc"), ("py", "py_compile")] {
        let failed = log
            .lines()
            .find(|l| {
                l.contains(&format!("{u}    sprint 1  RUNNING → BACKOFF"))
                    || (l.contains(u) && l.contains("RUNNING → BACKOFF"))
            })
            .unwrap_or_else(|| panic!("{u} failed its first attempt: {log}"));
        assert!(
            failed.contains("The quick check `") && failed.contains(checker),
            "{u}: {failed}"
        );
    }
    // No state of the integration branch ever held a broken file (the
    // unit branch keeps the failed attempt's commit under its fix).
    let branches = git(
        d,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/supervisor/",
        ],
    );
    let integration = branches
        .lines()
        .find(|b| b.ends_with("/integration"))
        .expect("an integration branch");
    let history = git(
        d,
        &[
            "log",
            "--first-parent",
            "-p",
            "--diff-merges=first-parent",
            integration,
        ],
    );
    for bad in ["pub fn broken( {", "let x: = ;", "def broken(:"] {
        // (The agent script names them too: only a file line counts.)
        assert!(
            !history.lines().any(|l| l == format!("+{bad}")),
            "{bad} reached {integration}"
        );
    }
}

/// `doctor` warns when `[workspace] setup` reads a file git does not track
/// and `copy` does not bring into a worktree; copying it quiets it.
#[test]
fn doctor_warns_of_a_setup_that_reads_an_uncopied_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    crate::common::init_repo(d);
    std::fs::write(d.join(".env.local"), "KEY=1\n").expect("env");
    std::fs::write(d.join(".gitignore"), ".env.local\n").expect("ignore");
    assert_eq!(sv(d, &["init", "--agent", "script"]).status, 0);
    let config = d.join(".workflow/config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    let text = text.replacen(
        "[workspace]\n",
        "[workspace]\nsetup = \"cp .env.local .env && npm ci\"\n",
        1,
    );
    std::fs::write(&config, &text).expect("config");
    let out = sv(d, &["doctor", "--format", "json"]);
    assert!(
        out.stdout.contains("[workspace] setup reads .env.local"),
        "{}",
        out.stdout
    );
    let fixed = text.replacen("copy = []", "copy = [\".env.local\"]", 1);
    std::fs::write(&config, fixed).expect("config");
    let out = sv(d, &["doctor", "--format", "json"]);
    assert!(!out.stdout.contains("setup reads"), "{}", out.stdout);
}
