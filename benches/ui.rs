//! The `ui` page on a large run: 200 sprints (20 units of 10 over four
//! layers) and 10,000 transitions, in a real headless Chromium.
//!
//! 1. first paint: from navigation start to the overview grid drawn, in a
//!    fresh browser each time (the page's own `performance.now()`);
//! 2. update latency: from a transition published by the store to the page
//!    having drawn that tip (the store's clock against the page's
//!    `Date.now()`, one machine);
//! 3. the history view: drawing all 10,000 transitions after a hash change.
//!
//! Run: `cargo bench --bench ui` or `scripts/bench-ui.sh` (prints Markdown).

use std::path::Path;
use std::time::Duration;
use std::time::SystemTime;

use git_supervisor::store::Store;

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;
use common::git;
use common::notes;
use common::repo_with_plan;
use common::start;
use common::start_ui;

#[path = "../tests/common/browser.rs"]
#[allow(dead_code)]
mod browser;

const UNITS: usize = 20;
const SPRINTS: usize = 10;
const TRANSITIONS: usize = 10_000;

fn plan() -> String {
    let mut s = String::from(
        "# Large Run\n\n| Work Unit | Directory | Layer | Sprints |\n|---|---|---|---|\n",
    );
    for u in 0..UNITS {
        s.push_str(&format!(
            "| unit{u:02} | unit{u:02} | {} | {SPRINTS} |\n",
            u / 5
        ));
    }
    for u in 0..UNITS {
        s.push_str(&format!("\n## unit{u:02}\n"));
        for n in 1..=SPRINTS {
            s.push_str(&format!(
                "\n### Sprint {n}: Build part {n}\n\n**Exit Criteria**:\n- [ ] `unit{u:02}/{n}.txt` exists\n"
            ));
        }
    }
    s
}

fn large_run(dir: &Path) -> Store {
    repo_with_plan(dir, &plan());
    let store = start(dir);
    let mut written = store.tip().expect("tip").expect("run").state.seq as usize;
    while written < TRANSITIONS {
        let n = (TRANSITIONS - written).min(2_000);
        notes(&store, n);
        written += n;
    }
    git(dir, &["gc", "-q"]);
    store
}

fn ms_since_epoch() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        * 1e3
}

fn stats(mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.total_cmp(b));
    format!(
        "{:.0} ms (n={}, min {:.0}, max {:.0})",
        v[v.len() / 2],
        v.len(),
        v[0],
        v[v.len() - 1]
    )
}

fn main() {
    let Some(program) = browser::chromium() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let store = large_run(dir.path());
    let (mut ui, url) = start_ui(Path::new(env!("CARGO_BIN_EXE_git-supervisor")), dir.path());

    let mut first = Vec::new();
    for _ in 0..5 {
        let mut page = browser::Browser::open(&program, &url, 1400, 900);
        let ms = page.wait_for("the first drawing", 60, "window.firstDraw");
        assert_eq!(
            page.eval("document.querySelectorAll('td.cell').length"),
            (UNITS * SPRINTS) as u64
        );
        first.push(ms.as_f64().expect("ms"));
    }

    let mut page = browser::Browser::open(&program, &url, 1400, 900);
    page.wait_for("the first drawing", 60, "window.firstDraw");
    let mut latency = Vec::new();
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(300));
        notes(&store, 1);
        let published = ms_since_epoch();
        let tip = git(dir.path(), &["rev-parse", "refs/supervisor/state"]);
        let drawn = page.wait_for(
            "the new tip drawn",
            30,
            &format!("window.drawn && window.drawn['{}']", tip.trim()),
        );
        latency.push(drawn.as_f64().expect("ms") - published);
    }

    let mut history = Vec::new();
    for _ in 0..5 {
        page.eval("window.lastDraw = null; location.hash = '#/history'");
        let ms = page.wait_for(
            "the history drawn",
            60,
            "window.lastDraw && window.lastDraw.view === 'history' && window.lastDraw.ms",
        );
        history.push(ms.as_f64().expect("ms"));
        page.eval("location.hash = '#/'");
        page.wait_for(
            "the overview again",
            60,
            "window.lastDraw && window.lastDraw.view === 'overview'",
        );
    }
    let _ = ui.kill();
    let _ = ui.wait();

    println!(
        "| measure ({} sprints, {TRANSITIONS} transitions) | median |",
        UNITS * SPRINTS
    );
    println!("|---|---|");
    println!(
        "| first paint: navigation → overview grid drawn | {} |",
        stats(first)
    );
    println!(
        "| update latency: transition published → page drawn | {} |",
        stats(latency)
    );
    println!(
        "| history view: {TRANSITIONS} transitions drawn | {} |",
        stats(history)
    );
}
