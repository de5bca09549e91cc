//! The processes a background sprint's agent leaves running: found when the
//! agent exits, checked for liveness, and ended.
//!
//! Found: the wrapper is the agent's child subreaper ([`super::reap`]), so
//! whatever the agent started and left behind (`nohup server &`, a daemon
//! that forked twice, one that moved to a session of its own with `setsid`)
//! is still the wrapper's descendant when the agent exits. Those processes
//! are recorded by pid and start time and left out of the tree the wrapper
//! ends; when the wrapper exits they are re-parented to init, outside any
//! agent's tree, each in the process group it had (the agent's own group,
//! which no one signals once the agent is gone, or one it made itself).
//!
//! Checked: a pid whose `/proc` start time differs is another process; a
//! zombie has exited.
//!
//! Ended: every recorded process still running and every descendant it has
//! now, plus any process whose environment still carries the dispatch's
//! `SUPERVISOR_RESULT_FILE` (an absolute path under this repository's git
//! directory, named after unit, sprint and dispatch, so no other run's or
//! repository's process matches it) (a child the
//! server started that outlived its parent) outside a live agent wrapper's
//! tree — never a running agent: SIGTERM, the grace, SIGKILL.

use std::collections::BTreeSet;
use std::time::Duration;
use std::time::Instant;

use super::reap;
use crate::machine::BackgroundProcess;

/// At most this many processes are recorded for one sprint (the first
/// ones, parents before children).
const MAX_RECORDED: usize = 32;

/// The processes of the wrapper's tree still running once the agent has
/// exited (the agent's own zombie and other agents' wrappers left out),
/// parents first.
pub fn survivors(wrapper: u32, agent: u32) -> Vec<BackgroundProcess> {
    let procs = reap::processes();
    reap::descendants(wrapper, &procs, &|pid| is_supervisor(pid))
        .into_iter()
        .filter(|p| p.state != 'Z' && p.pid != agent)
        .take(MAX_RECORDED)
        .map(|p| BackgroundProcess {
            pid: p.pid,
            start: p.start,
            command: command_of(p.pid),
            host: None,
        })
        .collect()
}

/// A process's command line as recorded: one read while it is in the
/// middle of `exec` finds none, so it is read again a few times, and its
/// name stands in if it stays empty (a line of ``` `` ``` said nothing).
fn command_of(pid: u32) -> String {
    for _ in 0..5 {
        let line = reap::cmdline(pid).trim().to_string();
        if !line.is_empty() {
            return line;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|c| c.trim().to_string())
        .unwrap_or_default()
}

/// Whether the recorded process is still the one that runs under its pid.
pub fn running(p: &BackgroundProcess) -> bool {
    let Ok(text) = std::fs::read_to_string(format!("/proc/{}/stat", p.pid)) else {
        return false;
    };
    reap::parse_stat(&text).is_some_and(|s| s.start == p.start && s.state != 'Z')
}

/// Which sprint's processes to end: its recorded processes, and the
/// result file its dispatch's environment names.
pub struct Sprint<'a> {
    pub result_file: &'a std::path::Path,
    pub processes: &'a [BackgroundProcess],
}

/// What ending background processes did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Processes that got SIGTERM.
    pub termed: usize,
    /// Of those, the ones that needed SIGKILL.
    pub killed: usize,
    /// Still there after SIGKILL (uninterruptible sleep).
    pub survivors: Vec<u32>,
}

/// End the processes of `sprints`: SIGTERM, up to `grace`, SIGKILL, until
/// none is left (or a stuck one is reported).
pub fn end(sprints: &[Sprint], grace: Duration) -> Ended {
    let started = Instant::now();
    let give_up = grace.saturating_add(Duration::from_secs(30));
    let mut termed: BTreeSet<(u32, u64)> = BTreeSet::new();
    let mut killed: BTreeSet<(u32, u64)> = BTreeSet::new();
    loop {
        let live = targets(sprints);
        if live.is_empty() {
            break;
        }
        if started.elapsed() >= give_up {
            return Ended {
                termed: termed.len(),
                killed: killed.len(),
                survivors: live.iter().map(|p| p.0).collect(),
            };
        }
        let late = started.elapsed() >= grace;
        for (pid, start) in live {
            if late {
                if killed.insert((pid, start)) || started.elapsed() >= grace.saturating_mul(2) {
                    reap::signal(pid, libc::SIGKILL);
                }
            } else if termed.insert((pid, start)) {
                reap::signal(pid, libc::SIGTERM);
                reap::signal(pid, libc::SIGCONT);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ended {
        termed: termed.len(),
        killed: killed.len(),
        survivors: Vec::new(),
    }
}

/// The live processes `end` signals now, as `(pid, start)`.
fn targets(sprints: &[Sprint]) -> Vec<(u32, u64)> {
    let procs = reap::processes();
    let me = std::process::id();
    let alive = |p: &reap::Proc| p.state != 'Z' && p.pid != me;
    // Agents at work are never touched: a wrapper's whole tree is its own.
    let mut agents: BTreeSet<u32> = BTreeSet::new();
    for w in procs.iter().filter(|p| is_supervisor(p.pid)) {
        agents.insert(w.pid);
        agents.extend(
            reap::descendants(w.pid, &procs, &|_| false)
                .iter()
                .map(|p| p.pid),
        );
    }
    let mut roots: BTreeSet<u32> = BTreeSet::new();
    for s in sprints {
        for r in s.processes {
            if procs
                .iter()
                .any(|p| p.pid == r.pid && p.start == r.start && alive(p))
            {
                roots.insert(r.pid);
            }
        }
        for p in procs
            .iter()
            .filter(|p| alive(p) && !agents.contains(&p.pid))
        {
            if carries(p.pid, s) {
                roots.insert(p.pid);
            }
        }
    }
    let mut out: BTreeSet<(u32, u64)> = BTreeSet::new();
    for root in &roots {
        if let Some(p) = procs.iter().find(|p| p.pid == *root) {
            out.insert((p.pid, p.start));
        }
        for d in reap::descendants(*root, &procs, &|pid| is_supervisor(pid)) {
            if alive(&d) {
                out.insert((d.pid, d.start));
            }
        }
    }
    out.into_iter().collect()
}

/// Whether `pid` is git supervisor itself (an agent's wrapper, or a tick a
/// hook started inside an agent, which inherits the agent's environment):
/// never a sprint's background process, and its tree is an agent's.
fn is_supervisor(pid: u32) -> bool {
    reap::cmdline(pid)
        .split(' ')
        .next()
        .is_some_and(|exe| exe.ends_with("git-supervisor"))
}

/// Whether `pid`'s environment names the sprint (only our own processes'
/// environments can be read, which are the only ones we could end).
fn carries(pid: u32, s: &Sprint) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("SUPERVISOR_RESULT_FILE={}", s.result_file.display());
    env.split(|b| *b == 0).any(|v| v == wanted.as_bytes())
}
