//! Every process of an agent's tree ends with the agent.
//!
//! Coding agents start their tools in sessions of their own (`setsid`), so
//! signalling the agent's process group misses them, and once their parent
//! exits they are re-parented away from the wrapper. On Linux the wrapper
//! makes itself a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`): an
//! orphan anywhere below it is re-parented to the wrapper instead of to
//! init, so the wrapper's descendants, read from `/proc`, are exactly the
//! agent's tree. Ending the tree sends SIGTERM to every descendant, waits
//! the grace, sends SIGKILL to what is left, and returns only when nothing
//! is left (zombies of our own are reaped on the way).
//!
//! Other wrappers the wrapper's own engine tick started (a tick dispatches
//! whatever is eligible) are descendants too; they and their trees are
//! pruned by their command line, so ending one agent never touches another.
//!
//! Where there is no subreaper or no `/proc` (not Linux), only the agent's
//! own process group is signalled: a tool that moved to a session of its own
//! and whose parent exited is not guaranteed to be found.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::time::Duration;
use std::time::Instant;

/// Become a child subreaper. `false` where the platform has none.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer
        // argument and touches no memory of ours.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// One process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    /// `Z` for a zombie (it has exited; only its status is left).
    pub state: char,
    /// User plus system CPU time, in clock ticks.
    pub cpu: u64,
    /// Start time in clock ticks since boot: with the pid, it names one
    /// process even when pids are reused.
    pub start: u64,
}

pub fn parse_stat(text: &str) -> Option<Proc> {
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so
    // the fields are read after the last `)`.
    let (head, rest) = text.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?.parse().ok()?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state); utime is field 14, stime 15, starttime 22.
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
    Some(Proc {
        pid,
        state: f.first()?.chars().next()?,
        ppid: num(1)? as u32,
        cpu: num(11)? + num(12)?,
        start: num(19)?,
    })
}

/// Every process visible in `/proc` (empty where there is none).
pub fn processes() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(&text)
        })
        .collect()
}

/// The command line of `pid`, arguments separated by spaces.
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Whether `pid` is an agent wrapper (another agent's) or a notification
/// drainer: detached processes of the supervisor that a hook inside an
/// agent's tree may start, to be left alone when that tree ends.
pub fn is_wrapper(pid: u32) -> bool {
    let cmd = cmdline(pid);
    let mut args = cmd.split(' ');
    args.next()
        .is_some_and(|exe| exe.ends_with("git-supervisor"))
        && matches!(args.next(), Some("agent-run") | Some("notify-run"))
}

/// The descendants of `root` (not `root` itself), parents before children.
/// A process for which `prune` says yes is left out with its whole subtree.
pub fn descendants(root: u32, procs: &[Proc], prune: &dyn Fn(u32) -> bool) -> Vec<Proc> {
    let mut children: BTreeMap<u32, Vec<&Proc>> = BTreeMap::new();
    for p in procs {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let mut queue = vec![root];
    let mut seen = BTreeSet::from([root]);
    while let Some(pid) = queue.pop() {
        for c in children.get(&pid).into_iter().flatten() {
            if !seen.insert(c.pid) || prune(c.pid) {
                continue;
            }
            out.push((*c).clone());
            queue.push(c.pid);
        }
    }
    out
}

/// What ending a tree did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TreeEnd {
    /// Processes that got SIGTERM.
    pub termed: usize,
    /// Processes still alive after the grace, which got SIGKILL.
    pub killed: usize,
    /// Processes still there when we gave up (uninterruptible sleep).
    pub survivors: Vec<u32>,
}

/// End every descendant of `root` (and `root` too when `include_root`):
/// SIGTERM, up to `grace`, SIGKILL, until none is left. Processes `prune`
/// names are left alone with their subtrees. Zombies that are our own
/// children (orphans re-parented to us) are reaped, except `keep` (a child
/// another thread is waiting for).
pub fn end_tree(
    root: u32,
    include_root: bool,
    grace: Duration,
    prune: &dyn Fn(u32) -> bool,
    keep: Option<u32>,
) -> TreeEnd {
    let me = std::process::id();
    let started = Instant::now();
    // A process stuck in the kernel may take a while to die after SIGKILL;
    // past this we report it rather than hang.
    let give_up = grace.saturating_add(Duration::from_secs(30));
    let mut termed: BTreeSet<(u32, u64)> = BTreeSet::new();
    let mut killed: BTreeSet<(u32, u64)> = BTreeSet::new();
    loop {
        let procs = processes();
        reap_zombies(me, &procs, keep, prune);
        let mut live: Vec<Proc> = descendants(root, &procs, prune);
        if include_root {
            if let Some(r) = procs.iter().find(|p| p.pid == root) {
                live.push(r.clone());
            }
        }
        live.retain(|p| p.state != 'Z' && p.pid != me);
        if live.is_empty() {
            break;
        }
        let late = started.elapsed() >= grace;
        if started.elapsed() >= give_up {
            return TreeEnd {
                termed: termed.len(),
                killed: killed.len(),
                survivors: live.iter().map(|p| p.pid).collect(),
            };
        }
        for p in &live {
            let key = (p.pid, p.start);
            if late {
                if killed.insert(key) || started.elapsed() >= grace.saturating_mul(2) {
                    signal(p.pid, libc::SIGKILL);
                }
            } else if termed.insert(key) {
                signal(p.pid, libc::SIGTERM);
                // A stopped process acts on SIGTERM only once continued.
                signal(p.pid, libc::SIGCONT);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    TreeEnd {
        termed: termed.len(),
        killed: killed.len(),
        survivors: Vec::new(),
    }
}

/// Send `sig` to `pid`; a process already gone is no error.
pub fn signal(pid: u32, sig: i32) {
    // SAFETY: kill(2) with a pid and a signal number; an error only means
    // the process is already gone.
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

/// Reap zombie children of `me` (orphans re-parented to a subreaper),
/// leaving `keep` and pruned processes to whoever waits for them.
fn reap_zombies(me: u32, procs: &[Proc], keep: Option<u32>, prune: &dyn Fn(u32) -> bool) {
    for p in procs {
        if p.ppid == me && p.state == 'Z' && Some(p.pid) != keep && !prune(p.pid) {
            let mut status = 0;
            // SAFETY: waitpid on one of our own children, non-blocking.
            unsafe {
                libc::waitpid(p.pid as libc::pid_t, &mut status, libc::WNOHANG);
            }
        }
    }
}

/// Reap every zombie child of ours except `keep` (called while the agent
/// runs, so exited orphans do not pile up).
pub fn reap_orphans(keep: Option<u32>) {
    let me = std::process::id();
    reap_zombies(me, &processes(), keep, &|pid| is_wrapper(pid));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 5555 1000 10 18446744073709551615";
        let p = parse_stat(line).expect("parses");
        assert_eq!(
            p,
            Proc {
                pid: 4242,
                ppid: 17,
                state: 'S',
                cpu: 10,
                start: 5555
            }
        );
    }

    #[test]
    fn descendants_prune_whole_subtrees() {
        let p = |pid, ppid| Proc {
            pid,
            ppid,
            state: 'S',
            cpu: 0,
            start: pid as u64,
        };
        let procs = [p(1, 0), p(10, 1), p(11, 10), p(12, 10), p(13, 12), p(20, 1)];
        let all: Vec<u32> = descendants(10, &procs, &|_| false)
            .iter()
            .map(|p| p.pid)
            .collect();
        assert_eq!(
            all.iter().copied().collect::<BTreeSet<_>>(),
            BTreeSet::from([11, 12, 13])
        );
        let pruned: Vec<u32> = descendants(10, &procs, &|pid| pid == 12)
            .iter()
            .map(|p| p.pid)
            .collect();
        assert_eq!(pruned, [11]);
    }
}
