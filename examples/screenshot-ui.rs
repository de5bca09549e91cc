//! Photographs `git supervisor ui` in headless Chromium: the page of the
//! run in a repository, at a fixed size, written as a PNG. What
//! `scripts/screenshot-ui.sh` runs on the scripted demo to make the
//! README's `docs/ui.png`.
//!
//! Usage: `screenshot-ui GIT-SUPERVISOR REPO OUT.png [PAGE] [WIDTH HEIGHT]`
//! (`PAGE` is the page's hash, such as `#/sprint/api/1`; the overview by
//! default; 1000×560 by default).

use std::path::Path;

#[path = "../benches/common/mod.rs"]
#[allow(dead_code)]
mod common;

#[path = "../tests/common/browser.rs"]
#[allow(dead_code)]
mod browser;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [program, repo, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: screenshot-ui GIT-SUPERVISOR REPO OUT.png [PAGE] [WIDTH HEIGHT]");
        std::process::exit(2);
    };
    let page_hash = rest.first().map(String::as_str).unwrap_or("");
    let size = |i: usize, default: u32| {
        rest.get(i)
            .map(|v| v.parse().expect("a size in pixels"))
            .unwrap_or(default)
    };
    let (width, height) = (size(1, 1000), size(2, 560));
    let Some(chromium) = browser::chromium() else {
        eprintln!("Chromium is not installed (apt-get install chromium)");
        std::process::exit(1);
    };
    let (mut ui, url) = common::start_ui(Path::new(program), Path::new(repo));
    let mut page = browser::Browser::open(&chromium, &format!("{url}{page_hash}"), width, height);
    // Drawn, live, and the clocks ticked once: what a person sees.
    page.wait_for(
        "the page drawn",
        60,
        "window.uiUpdates > 0 && document.getElementById('live').classList.contains('off') === false",
    );
    std::thread::sleep(std::time::Duration::from_millis(1200));
    std::fs::write(out, page.screenshot()).expect("the PNG is written");
    drop(page);
    let _ = ui.kill();
    let _ = ui.wait();
    println!(
        "wrote {out} ({width}×{height}, {})",
        if page_hash.is_empty() {
            "#/"
        } else {
            page_hash
        }
    );
}
