//! `git supervisor ui`: the live page in a real headless Chromium during a
//! run of the scripted agent (the grid is `status --format json`, it moves
//! without a reload, a sprint's evidence and its agent's live output, stop
//! from the page), and the token every request needs, over plain HTTP.

use std::io::BufRead;
use std::io::Read;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::common::browser::chromium;
use crate::common::browser::Browser;
use crate::common::*;

/// A running `git supervisor ui`, ended when dropped.
struct Ui {
    child: std::process::Child,
    url: String,
}

impl Ui {
    fn start(dir: &Path, scripts: &Path) -> Ui {
        let mut cmd = command(bin(), dir);
        cmd.args(["ui", "--format", "json"])
            .env("FAKE_AGENT_SCRIPT", scripts)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut child = cmd.spawn().expect("ui starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("ui prints its address");
        let v: Value = serde_json::from_str(&line).expect("one JSON line");
        Ui {
            child,
            url: v["url"].as_str().expect("url").to_string(),
        }
    }

    fn addr(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .expect("host:port")
            .to_string()
    }

    fn token(&self) -> String {
        self.url.split("token=").nth(1).expect("token").to_string()
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The status code of one raw HTTP/1.1 request.
fn http(addr: &str, request: &str) -> u16 {
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.write_all(request.as_bytes()).expect("send");
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {reply:?}"))
}

#[test]
fn ui_refuses_every_request_without_its_token() {
    let repo = fixture_repo("five");
    let s = scripts(&[("default.txt", SUCCEED)]);
    let ui = Ui::start(repo.path(), s.path());
    assert!(ui.url.starts_with("http://127.0.0.1:"), "{}", ui.url);
    let (addr, token) = (ui.addr(), ui.token());
    assert_eq!(token.len(), 32, "128 random bits");
    let get = |path: &str, extra: &str| {
        http(
            &addr,
            &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n"),
        )
    };
    let post = |path: &str, extra: &str| {
        http(
            &addr,
            &format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n"),
        )
    };
    assert_eq!(get("/", ""), 403);
    assert_eq!(get("/api/status", ""), 403);
    assert_eq!(get("/api/events", ""), 403);
    assert_eq!(get("/?token=0123456789abcdef0123456789abcdef", ""), 403);
    assert_eq!(post("/api/action/killall", ""), 403);
    // An action's token is only taken from its header, never from an
    // address another page could link to.
    assert_eq!(post(&format!("/api/action/killall?token={token}"), ""), 403);
    assert_eq!(get(&format!("/?token={token}"), ""), 200);
    assert_eq!(
        get("/api/status", &format!("x-supervisor-token: {token}\r\n")),
        200
    );
    assert_eq!(
        post(
            "/api/action/nonsense",
            &format!("x-supervisor-token: {token}\r\n")
        ),
        404
    );
}

fn status(dir: &Path) -> Value {
    let out = run(dir, &["status", "--format", "json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).expect("status json")
}

fn tip(dir: &Path) -> String {
    git(dir, &["rev-parse", "refs/supervisor/state"])
        .trim()
        .to_string()
}

fn unit<'a>(st: &'a Value, name: &str) -> &'a Value {
    st["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["name"] == name)
        .unwrap_or_else(|| panic!("no unit {name}"))
}

/// The page's grid at a state the status JSON was read at: each unit's
/// state and its current sprint's state, as the page shows them and as
/// `status --format json` says.
fn grid_matches_status(page: &mut Browser, dir: &Path) {
    for _ in 0..50 {
        let before = tip(dir);
        let st = status(dir);
        if tip(dir) != before {
            continue;
        }
        page.wait_for(
            "the page to show the latest state",
            10,
            "document.body.dataset.tip",
        );
        let shown = page.eval("document.body.dataset.tip");
        if shown != before.as_str() {
            std::thread::sleep(std::time::Duration::from_millis(100));
            continue;
        }
        let cells = page.eval(
            "JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-unit-row]')].map(r => [r.dataset.unitRow, {state: r.querySelector('[data-unit-state]').dataset.unitState, sprints: Object.fromEntries([...r.querySelectorAll('td.cell')].map(c => [c.dataset.sprint, c.dataset.state]))}])))",
        );
        let cells: Value = serde_json::from_str(cells.as_str().expect("json")).expect("grid");
        let units = st["units"].as_array().expect("units");
        assert_eq!(cells.as_object().expect("rows").len(), units.len());
        for u in units {
            let name = u["name"].as_str().expect("name");
            let row = &cells[name];
            assert_eq!(row["state"], u["state"], "{name}: {row} vs {u}");
            let completed = row["sprints"]
                .as_object()
                .expect("cells")
                .values()
                .filter(|s| *s == "COMPLETED")
                .count();
            assert_eq!(u["sprint_completed"], completed, "{name}: {row} vs {u}");
            assert_eq!(
                row["sprints"].as_object().expect("cells").len(),
                u["sprint_total"].as_u64().expect("total") as usize
            );
            if let Some(current) = u["current"].as_object() {
                let id = current["id"].as_str().expect("sprint id");
                assert_eq!(row["sprints"][id], current["state"], "{name}: {row} vs {u}");
            }
        }
        return;
    }
    panic!("the run never held still long enough to compare");
}

#[test]
fn ui_follows_a_run_live_and_stops_it_in_a_headless_browser() {
    let Some(program) = chromium() else {
        return;
    };
    let repo = fixture_repo("five");
    let dir = repo.path();
    let waiting =
        "!${FAKE_AGENT_SCRIPT}/go print still working\n!${FAKE_AGENT_SCRIPT}/go sleep 300\n"
            .repeat(200);
    let forever = "print sprint two at work\nsleep 300\n".repeat(400);
    let s = scripts(&[
        ("default.txt", SUCCEED),
        ("parser-1.txt", &format!("{waiting}{SUCCEED}")),
        ("parser-2.txt", &forever),
    ]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    let ui = Ui::start(dir, s.path());
    let mut page = Browser::open(&program, &ui.url, 1200, 800);
    page.wait_for(
        "the grid",
        20,
        "document.querySelector('[data-testid=grid]')",
    );
    wait_until("parser's agent to run and the others to finish", 30, || {
        let st = status(dir);
        unit(&st, "parser")["current"]["state"] == "RUNNING"
            && unit(&st, "algs")["state"] == "COMPLETED"
            && unit(&st, "profiles")["state"] == "COMPLETED"
    });
    grid_matches_status(&mut page, dir);
    page.wait_for(
        "a running agent's clock",
        10,
        "/\\d+:\\d\\d/.test(document.querySelector('[data-unit=parser][data-sprint=\"1\"] .clock').textContent)",
    );

    // Nothing below reloads the page: the marker would be gone.
    page.eval("window.noReload = 42");
    page.eval("location.hash = '#/sprint/parser/1'");
    page.wait_for(
        "the agent's output on the sprint page",
        20,
        "(document.querySelector('[data-testid=agent-log]') || {}).textContent?.includes('still working')",
    );
    let lines = page
        .eval("document.querySelector('[data-testid=agent-log]').textContent.split('\\n').length")
        .as_u64()
        .expect("count");
    page.wait_for(
        "a new line of output while the page is open",
        20,
        &format!("document.querySelector('[data-testid=agent-log]').textContent.split('\\n').length > {lines}"),
    );
    let prompt = page.eval("document.querySelector('details pre').textContent");
    assert!(
        prompt.as_str().expect("prompt").contains("parser"),
        "the prompt is shown: {prompt}"
    );

    page.eval("location.hash = '#/'");
    page.wait_for(
        "the overview",
        10,
        "document.querySelector('[data-unit=parser][data-sprint=\"1\"]')",
    );
    std::fs::write(s.path().join("go"), "").expect("go");
    page.wait_for(
        "parser's first sprint shown completed",
        30,
        "document.querySelector('[data-unit=parser][data-sprint=\"1\"]')?.dataset.state === 'COMPLETED'",
    );
    assert_eq!(page.eval("window.noReload"), 42, "updated without a reload");

    page.eval("location.hash = '#/sprint/parser/1'");
    page.wait_for(
        "the verdict's evidence",
        20,
        "document.querySelector('[data-testid=evidence]')?.textContent.includes('Verified')",
    );
    let criteria = page.eval("document.querySelector('[data-testid=criteria]').textContent");
    assert!(
        criteria.as_str().expect("text").contains("parser/1.txt"),
        "{criteria}"
    );
    // Its file-exists criterion ran: the page calls it verified by a command.
    let verified = page.eval("document.querySelector('[data-testid=verified-by]')?.textContent");
    assert_eq!(
        verified.as_str(),
        Some("Verified by an exit-criterion command."),
        "{verified}"
    );
    let commits = page.eval("document.querySelectorAll('[data-testid=commits] code').length");
    assert!(
        commits.as_u64().expect("n") >= 1,
        "commits in scope: {commits}"
    );

    // The history filtered to one unit: every entry is parser's, each with
    // its state commit.
    page.eval("location.hash = '#/history/parser'");
    page.wait_for(
        "parser's history",
        20,
        "document.querySelectorAll('[data-testid=history] tr').length > 3",
    );
    let subjects = page.eval(
        "[...document.querySelectorAll('[data-testid=history] tr')].map(r => r.dataset.commit.length + ' ' + r.children[2].textContent)",
    );
    for s in subjects.as_array().expect("rows") {
        let s = s.as_str().expect("row");
        assert!(s.starts_with("40 parser"), "{s}");
    }

    page.eval("location.hash = '#/'");
    page.wait_for(
        "parser's second sprint running",
        30,
        "document.querySelector('[data-unit=parser][data-sprint=\"2\"]')?.dataset.state === 'RUNNING'",
    );
    page.eval("document.querySelector('button[data-action=stop]').click()");
    page.wait_for(
        "the confirmation dialog",
        5,
        "document.getElementById('confirm').open",
    );
    page.eval("document.getElementById('confirm-ok').click()");
    wait_until("the run to stop", 60, || {
        let st = status(dir);
        st["overall"] != "running" && unit(&st, "parser")["state"] != "RUNNING"
    });
    let st = status(dir);
    assert!(
        ["KILLED", "STOPPED"].contains(&unit(&st, "parser")["state"].as_str().expect("state")),
        "{st}"
    );
    page.wait_for(
        "the page to show the stopped run",
        10,
        &format!(
            "document.getElementById('overall').dataset.overall === {}",
            st["overall"]
        ),
    );
    page.wait_for(
        "stop's report",
        20,
        "document.getElementById('result-text').textContent.includes('Stop Complete')",
    );
    assert_eq!(page.eval("window.noReload"), 42);
}

/// Click an action's button and accept its confirmation dialog.
fn act(page: &mut Browser, selector: &str) {
    page.wait_for(
        "the action's button",
        20,
        &format!("document.querySelector({selector:?})"),
    );
    page.eval(&format!("document.querySelector({selector:?}).click()"));
    page.wait_for(
        "the confirmation dialog",
        5,
        "document.getElementById('confirm').open",
    );
    page.eval("document.getElementById('confirm-ok').click()");
}

#[test]
fn ui_confirms_a_manual_sprint_and_kills_the_run_from_the_page() {
    let Some(program) = chromium() else {
        return;
    };
    let repo = fixture_repo("kinds");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("the manual sprint to wait for a person", 30, || {
        unit(&status(dir), "manual")["current"]["state"] == "PARTIAL"
    });
    let ui = Ui::start(dir, s.path());
    let mut page = Browser::open(&program, &format!("{}#/sprint/manual/1", ui.url), 1200, 800);
    act(&mut page, "button[data-action=confirm]");
    wait_until("manual to be confirmed", 30, || {
        unit(&status(dir), "manual")["state"] == "COMPLETED"
    });
    let confirmed = git(
        dir,
        &["log", "--format=%s", "-n", "20", "refs/supervisor/state"],
    );
    assert!(
        confirmed.contains("manual: sprint 1 PARTIAL -> COMPLETED"),
        "{confirmed}"
    );
    act(&mut page, "button[data-action=killall]");
    wait_until("the run to be killed", 60, || {
        status(dir)["overall"] == "killed"
    });
    // The report comes once killall has waited for every agent and
    // background process to end (each up to its kill grace, then SIGKILL),
    // which a loaded machine stretches well past a minute; wait for any
    // answer, and name what the page showed if none comes.
    let started = std::time::Instant::now();
    let report = loop {
        let shown = page.eval("document.getElementById('result-text').textContent");
        let shown = shown.as_str().unwrap_or_default().to_string();
        if ["Kill All", "error", "Nothing to kill"]
            .iter()
            .any(|w| shown.contains(w))
        {
            break shown;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(240),
            "no answer from killall on the page after 240 s; it shows: {shown:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(report.contains("Kill All Complete"), "{report}");
}

/// A one-unit plan whose exit criterion prints a known line and passes
/// only once `lib/ready.txt` exists, on a copy of the `chain` fixture.
fn criterion_repo() -> tempfile::TempDir {
    let repo = fixture_repo("chain");
    let plan = "# Criterion Output\n\n| Package | Directory | Depends on |\n|---|---|---|\n| lib | lib | — |\n\n## lib\n\n### Sprint 1: Create the library\n\n**Exit Criteria**:\n- [ ] `echo criterion-says-hello; test -e lib/ready.txt`\n";
    std::fs::write(repo.path().join("EXECUTION_PLAN.md"), plan).expect("plan");
    git(repo.path(), &["commit", "-qam", "One unit"]);
    repo
}

/// For [`criterion_repo`]: the first dispatch leaves half the work (the
/// criterion fails), the continuation the rest.
const HALF_THEN_REST: &str =
    "?lib/half.txt write lib/ready.txt ready\nwrite lib/half.txt half\ncommit lib: work\nresult complete\n";

/// A finished run of [`criterion_repo`]: lib completed on its second
/// dispatch. The repository and the agent's scripts.
fn criterion_run() -> (tempfile::TempDir, tempfile::TempDir) {
    let repo = criterion_repo();
    let dir = repo.path();
    let s = scripts(&[("default.txt", HALF_THEN_REST)]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(run_env(dir, &["start", "--yes"], &env).status, 0);
    wait_until("the run to finish", 60, || {
        status(dir)["overall"] == "completed"
    });
    (repo, s)
}

#[test]
fn ui_shows_each_attempts_exit_criteria_with_their_output() {
    let Some(program) = chromium() else {
        return;
    };
    let (repo, s) = criterion_run();
    let dir = repo.path();
    let ui = Ui::start(dir, s.path());
    let mut page = Browser::open(&program, &format!("{}#/sprint/lib/1", ui.url), 1200, 800);
    page.wait_for(
        "both attempts' criteria",
        20,
        "document.querySelectorAll('[data-testid=checks] .verdict').length === 2",
    );
    let shown = page.eval(
        "[...document.querySelectorAll('[data-testid=checks] .verdict')].map(v => ({attempt: v.dataset.attempt, outcome: v.dataset.outcome, checks: [...v.querySelectorAll('li.check')].map(c => ({passed: c.dataset.passed, command: c.querySelector('code').textContent, output: c.querySelector('pre')?.textContent}))}))",
    );
    let verdicts = shown.as_array().expect("verdicts");
    assert_eq!(verdicts[0]["outcome"], "partial", "{shown}");
    assert_eq!(verdicts[1]["outcome"], "completed", "{shown}");
    for (v, passed) in verdicts.iter().zip(["false", "true"]) {
        let check = &v["checks"][0];
        assert_eq!(check["passed"], passed, "{shown}");
        assert_eq!(
            check["command"],
            "echo criterion-says-hello; test -e lib/ready.txt"
        );
        assert_eq!(check["output"], "criterion-says-hello\n", "{shown}");
    }
    assert_eq!(verdicts[0]["attempt"], "1", "{shown}");
    assert_eq!(verdicts[1]["attempt"], "2", "{shown}");
}

#[test]
fn ui_history_entries_open_their_state_commits() {
    let Some(program) = chromium() else {
        return;
    };
    let (repo, s) = criterion_run();
    let dir = repo.path();
    let ui = Ui::start(dir, s.path());
    let mut page = Browser::open(&program, &format!("{}#/history", ui.url), 1200, 800);
    page.wait_for(
        "the history",
        20,
        "document.querySelectorAll('[data-testid=history] tr a[href^=\"#/commit/\"]').length > 3",
    );
    // The third newest transition: a commit with a parent and a change.
    let third = git(dir, &["rev-parse", "refs/supervisor/state~2"]);
    let third = third.trim();
    let subject = git(dir, &["log", "-1", "--format=%s", third]);
    page.eval(&format!(
        "document.querySelector('[data-testid=history] tr[data-commit=\"{third}\"] a').click()"
    ));
    page.wait_for(
        "the commit's page",
        20,
        "document.querySelector('[data-testid=commit-message]')",
    );
    assert_eq!(
        page.eval("location.hash"),
        format!("#/commit/{third}").as_str()
    );
    let message = page.eval("document.querySelector('[data-testid=commit-message]').textContent");
    assert!(
        message.as_str().expect("text").starts_with(subject.trim()),
        "{message} vs {subject}"
    );
    let trailers = page.eval("document.querySelector('[data-testid=commit-trailers]').textContent");
    assert!(
        trailers.as_str().expect("text").contains("Supervisor-Seq"),
        "{trailers}"
    );
    let files = page.eval("document.querySelector('[data-testid=commit-files]').textContent");
    assert!(
        files.as_str().expect("text").contains("M state.toml"),
        "{files}"
    );
    let diff = page.eval("document.querySelector('[data-testid=commit-diff]').textContent");
    assert!(
        diff.as_str().expect("text").contains("+++ b/state.toml"),
        "{diff}"
    );

    // Only the run's own history: a commit of the user's branch is not
    // served, nor anything that is not a commit id.
    let (addr, token) = (ui.addr(), ui.token());
    let get = |path: &str| {
        http(
            &addr,
            &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nx-supervisor-token: {token}\r\nConnection: close\r\n\r\n"),
        )
    };
    let head = git(dir, &["rev-parse", "HEAD"]);
    assert_eq!(get(&format!("/api/commit?id={}", head.trim())), 404);
    assert_eq!(get("/api/commit?id=--all"), 400);
    assert_eq!(get(&format!("/api/commit?id={third}")), 200);
}

#[test]
fn ui_says_when_the_run_moves_from_another_clone_and_follows_it() {
    let Some(program) = chromium() else {
        return;
    };
    let (repo, s) = criterion_run();
    let a = repo.path();
    let server = tempfile::tempdir().expect("tempdir");
    let bare = bare_copy(a, server.path()).display().to_string();
    git(a, &["remote", "add", "origin", &bare]);
    assert_eq!(run(a, &["sync", "origin"]).status, 0);
    let ui = Ui::start(a, s.path());
    let mut page = Browser::open(&program, &ui.url, 1200, 800);
    page.wait_for(
        "the overview",
        20,
        "document.querySelector('[data-testid=grid]')",
    );
    let own = page.eval("document.querySelector('[data-testid=where]')?.textContent || ''");
    assert!(
        !own.as_str().expect("text").contains("elsewhere"),
        "every transition so far is this clone's: {own}"
    );

    // Another clone takes the run, notes something in it and pushes.
    let (_elsewhere, b) = clone_elsewhere(&bare);
    assert_eq!(run(&b, &["sync", "origin"]).status, 0);
    assert_eq!(run(&b, &["note", "from the other clone"]).status, 0);
    assert_eq!(run(&b, &["sync", "origin"]).status, 0);
    let theirs = tip(&b);

    // This clone fetches it: the open page follows and says where it
    // came from.
    page.eval("window.noReload = 7");
    assert_eq!(run(a, &["sync", "origin"]).status, 0);
    assert_eq!(tip(a), theirs);
    page.wait_for(
        "the other clone's transition",
        10,
        &format!("document.body.dataset.tip === {theirs:?}"),
    );
    page.wait_for(
        "the note that the run moved elsewhere",
        10,
        "(document.querySelector('[data-testid=where]')?.textContent || '').includes('Last update from elsewhere')",
    );
    let said = page.eval("document.querySelector('[data-testid=where]').textContent");
    assert!(said.as_str().expect("text").contains("origin"), "{said}");
    page.eval("location.hash = '#/history'");
    page.wait_for(
        "the new transition in the history",
        10,
        &format!("document.querySelector('[data-testid=history] tr[data-commit={theirs:?}]')?.textContent.includes('from the other clone')"),
    );
    assert_eq!(page.eval("window.noReload"), 7);
}

#[test]
fn ui_names_the_workers_that_drive_a_run_on_a_remote_and_follows_them() {
    use crate::common::on_remote::*;
    let Some(program) = chromium() else {
        return;
    };
    // One section: one unit of one sprint.
    let remote = OnRemote::with_plan(&plan(&["alpha"], 1));
    let waits =
        "!${FAKE_AGENT_SCRIPT}/go print still working\n!${FAKE_AGENT_SCRIPT}/go sleep 300\n"
            .repeat(300);
    let s = scripts(&[("default.txt", &format!("{waits}{WRITES_AND_COMMITS}"))]);
    remote.start(s.path());
    let src = remote.src.path();
    let ui = Ui::start(src, s.path());
    let mut page = Browser::open(&program, &ui.url, 1200, 800);
    let clone = remote.clone("one");
    let mut w = worker(&clone, s.path(), &["--poll", "100ms"]);
    page.wait_for(
        "the worker named on the page",
        60,
        "(document.querySelector('[data-testid=where]')?.textContent || '').includes('by workers ')",
    );
    let said = page.eval("document.querySelector('[data-testid=where]').textContent");
    let said = said.as_str().expect("text");
    assert!(said.contains("Driven from the remote `origin`"), "{said}");
    let workers = git(
        &remote.bare(),
        &[
            "log",
            "--format=%(trailers:key=Supervisor-Worker,valueonly)",
            "refs/supervisor/state",
        ],
    );
    let holder = workers
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("a claim names its worker; the page: {said}"))
        .trim();
    assert!(said.contains(holder), "{said} names {holder}");

    // The worker's verdict reaches the page by the page's own fetch.
    page.eval("window.noReload = 9");
    std::fs::write(s.path().join("go"), "").expect("go");
    let since = std::time::Instant::now();
    while !remote
        .subjects()
        .iter()
        .any(|l| l.contains("sprint 1 RUNNING -> COMPLETED"))
    {
        assert!(
            since.elapsed().as_secs() < 60,
            "the worker's verdict: {:#?}",
            remote.subjects()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    page.wait_for(
        "the sprint shown completed",
        30,
        "document.querySelector('td.cell')?.dataset.state === 'COMPLETED'",
    );
    page.wait_for(
        "the note that the state came from elsewhere",
        10,
        "(document.querySelector('[data-testid=where]')?.textContent || '').includes('Last update from elsewhere')",
    );
    assert_eq!(page.eval("window.noReload"), 9);
    let _ = w.kill();
    let _ = w.wait();
}

/// A usage-limit pause is the first thing the page shows, with the command
/// that ends it; a running sprint's row shows what the terminal's live view
/// does; and the page asks for notification permission only after a click.
#[test]
fn ui_shows_a_usage_limit_pause_and_asks_to_notify_only_on_a_click() {
    let Some(program) = chromium() else {
        return;
    };
    let agent = r#"if [ "$SUPERVISOR_UNIT" = b ]; then echo "still compiling the widgets"; sleep 120; exit 1; fi
sleep 1
echo "You've hit your session limit · resets $(TZ=Asia/Tokyo date -d @$(( $(date +%s) + 3600 )) +%-I:%M%P) (Asia/Tokyo)"
exit 1
"#;
    let (r, scripts) = crate::test_usage_limit_run::repo(2, agent, "");
    let dir = r.path();
    assert_eq!(
        crate::test_usage_limit_run::sv(dir, &["start", "--yes"]).status,
        0
    );
    wait_until("the pause to be recorded", 30, || {
        crate::test_usage_limit_run::status(dir)["usage_limits"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    });
    let ui = Ui::start(dir, scripts.path());
    let mut page = Browser::open(&program, &ui.url, 1200, 800);
    let text = page.wait_for(
        "the pause among what needs the user",
        30,
        "(document.querySelector('[data-testid=needs-you] li[data-kind=usage_limit]') || {}).textContent",
    );
    let text = text.as_str().unwrap_or_default().to_string();
    assert!(
        text.contains("waiting for the usage limit of `sh` — resets ")
            && text.contains("git supervisor resume"),
        "{text}"
    );
    let now = page.wait_for(
        "b's running sprint in its row",
        30,
        "(document.querySelector('[data-testid=now-b]') || {}).textContent",
    );
    let now = now.as_str().unwrap_or_default().to_string();
    assert!(
        now.contains("S1 Step")
            && now.contains("try 1/1")
            && now.contains("still compiling the widgets"),
        "{now}"
    );
    // Nothing asked while the page loaded and refreshed.
    assert_eq!(page.eval("Notification.permission"), "default");
    page.eval(
        "window.asked = 0; const ask = Notification.requestPermission.bind(Notification); Notification.requestPermission = () => { window.asked++; return ask(); }; true",
    );
    page.eval("document.getElementById('notify').click()");
    page.wait_for("the permission to be asked", 10, "window.asked === 1");
    let _ = crate::test_usage_limit_run::sv(dir, &["killall"]);
}
