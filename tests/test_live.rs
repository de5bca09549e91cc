//! The live view in a real terminal: `git supervisor run` inside tmux, the
//! pane captured while agents work and after the run ends.

use std::path::Path;
use std::process::Command;
use std::time::Duration;
use std::time::Instant;

use crate::common::fixture_repo;
use crate::common::scripts;
use crate::common::SUCCEED;

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c
    }

    /// The pane's whole history, as text.
    fn capture(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-J", "-S", "-", "-t", "live"])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, what: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let pane = self.capture();
            if done(&pane) {
                return pane;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "timed out waiting for {what}:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

fn start_in_tmux(dir: &Path, scripts: &Path, command: &str) -> Tmux {
    let tmux = Tmux {
        socket: format!("gs-live-{}", std::process::id()),
    };
    let bins = Path::new(crate::common::bin()).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bins.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = tmux
        .cmd()
        .env_clear()
        .env("PATH", &path)
        .env("TERM", "xterm-256color")
        .env("HOME", dir)
        .args([
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "live",
            "-x",
            "110",
            "-y",
            "40",
        ])
        .args(["-e", &format!("PATH={path}")])
        .args(["-e", &format!("FAKE_AGENT_SCRIPT={}", scripts.display())])
        .args([
            "-e",
            "GIT_CONFIG_NOSYSTEM=1",
            "-e",
            "GIT_CONFIG_GLOBAL=/dev/null",
        ])
        .args([
            "-e",
            &format!("HOME={}", dir.display()),
            "-e",
            "LC_ALL=C.UTF-8",
        ])
        .arg("-c")
        .arg(dir)
        .arg(format!("{command}; echo LIVE-EXITED $?; sleep 120"))
        .status()
        .expect("tmux");
    assert!(status.success());
    tmux
}

#[test]
fn run_redraws_one_screen_in_a_terminal_and_ends_with_the_final_table() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is required in CI for the live view test"
        );
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[(
        "default.txt",
        &format!(
            "print reading the plan\nsleep 700\nprint writing the code now\nsleep 700\n{SUCCEED}"
        ),
    )]);
    let tmux = start_in_tmux(dir, s.path(), "git-supervisor run");

    // While agents work: a row per unit with its bar, its sprint's state,
    // the agent's last line, and the footer.
    let during = tmux.wait_for("a unit running with its agent's last line", 60, |p| {
        p.lines()
            .any(|l| l.starts_with("parser ") && l.contains("RUNNING") && l.contains("│ "))
            && p.contains("Next:")
    });
    for unit in ["parser", "profiles", "algs", "validation", "biblioteca"] {
        assert!(
            during
                .lines()
                .any(|l| l.starts_with(unit) && l.contains('[')),
            "no row for {unit}:\n{during}"
        );
    }
    assert!(
        during.contains("writing the code now") || during.contains("reading the plan"),
        "{during}"
    );

    // After the run: the final table below one live screen, not a scroll of
    // screens.
    let after = tmux.wait_for("the run to end", 120, |p| p.contains("LIVE-EXITED"));
    assert!(after.contains("LIVE-EXITED 0"), "{after}");
    assert!(after.contains("overall: completed"), "{after}");
    assert!(
        after
            .lines()
            .any(|l| l.starts_with("biblioteca") && l.contains("[##########] 1/1")),
        "{after}"
    );
    let headers = after.matches("git supervisor: ").count();
    assert_eq!(headers, 1, "the screen was redrawn in place:\n{after}");
}

#[test]
fn status_watch_off_a_terminal_prints_each_change_and_returns_when_the_run_ends() {
    let repo = fixture_repo("five");
    let dir = repo.path();
    let s = scripts(&[("default.txt", SUCCEED)]);
    let env = [("FAKE_AGENT_SCRIPT", s.path())];
    assert_eq!(
        crate::common::run_env(dir, &["start", "--yes"], &env).status,
        0
    );
    let out = crate::common::run_env(dir, &["status", "--watch"], &env);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("overall: completed"), "{}", out.stdout);
    // Plain tables, no cursor movement.
    assert!(!out.stdout.contains('\u{1b}'), "{}", out.stdout);
    let bad = crate::common::run(dir, &["status", "--watch", "--diff"]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
}
