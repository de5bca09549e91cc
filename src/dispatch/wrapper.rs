//! The detached `agent-run` wrapper: it takes the unit's liveness lock,
//! runs `[workspace] setup` and then the agent under a process group, logs
//! its output, polls while it is deferred, ends it when asked (SIGTERM,
//! SIGINT, SIGHUP) or no longer wanted, and writes the report the engine
//! reads, waking the engine through its host.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use crate::config::PromptDelivery;
use crate::plan::TaskType;

use super::liveness;
use super::ratelimit;
use super::reap;
use super::signal_group;
use super::stale;
use super::usage_limit;
use super::Job;
use super::Report;
use super::Setup;
use super::DEFERRED_NOTICE;

/// What happened while the wrapper ran, for the engine's notices.
pub enum WrapperEvent {
    /// No activity at all (output, CPU, files) for this long.
    Unresponsive {
        silent: Duration,
    },
    DeferredWaiting {
        polls: u32,
        condition: String,
    },
    /// The agent failed on a rate limit or overload; it runs again after
    /// `wait`, and no attempt is counted.
    RateLimited {
        limited: ratelimit::Limited,
        wait: Duration,
    },
    /// A git lock file left by a process of the agent's tree that no longer
    /// exists was removed.
    StaleLockRemoved {
        path: PathBuf,
    },
}

/// What the wrapper asks the engine while its agent runs.
pub trait WrapperHost {
    /// Record a notice (failures to record are not fatal).
    fn event(&mut self, event: WrapperEvent);
    /// Run the engine.
    fn wake(&mut self);
    /// Whether the run still waits for this dispatch's result. `false` once
    /// its sprint was recorded otherwise (completed by the agent's commit
    /// while it kept running, stopped, killed): the agent is ended then.
    fn still_wanted(&mut self) -> bool;
    /// After the agent's verdict: how long until its sprint's retry (or a
    /// deferred condition's next check) may be dispatched, when it waits.
    fn retry_wait(&mut self) -> Option<Duration>;
    /// The agent exited after its sprint was recorded without it: record
    /// the usage it reported (turns, dollars, session) for that sprint, when
    /// the sprint is COMPLETED and this is its latest dispatch.
    fn record_usage(&mut self);
}

/// Set by SIGTERM, SIGINT or SIGHUP: `stop`, `killall` or the terminal asks
/// the wrapper to end its agent.
pub(super) static TERMINATE: AtomicBool = AtomicBool::new(false);

extern "C" fn on_terminate(_: libc::c_int) {
    TERMINATE.store(true, Ordering::SeqCst);
}

pub(super) fn install_terminate_handler() {
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe.
        unsafe {
            libc::signal(
                sig,
                on_terminate as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Whether SIGTERM, SIGINT or SIGHUP asked this process to end its agent
/// (after [`run_wrapper`] installed the handler).
pub fn terminating() -> bool {
    TERMINATE.load(Ordering::SeqCst)
}

/// Sleep `d`, or less when asked to terminate. `true` if it slept it all.
pub(super) fn sleep_unless_terminated(d: Duration) -> bool {
    let until = Instant::now() + d.min(Duration::from_secs(24 * 3600));
    while Instant::now() < until {
        if terminating() {
            return false;
        }
        std::thread::sleep((until - Instant::now()).min(Duration::from_millis(50)));
    }
    true
}

/// How long a new wrapper waits for the unit's previous agent to let go of
/// the liveness lock, beyond the kill grace: that agent is being ended
/// (its sprint is already recorded) and this is the supervisor's own race,
/// never a reason to fail an attempt.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(120);

/// The wrapper's main loop; `host` records notices and runs the engine.
/// Returns the agent's exit code.
pub fn run_wrapper(job: &Job, host: &mut dyn WrapperHost) -> std::io::Result<i32> {
    install_terminate_handler();
    let subreaper = reap::become_subreaper();
    let mut report = Report::read(&job.report_file).unwrap_or_default();
    report.wrapper_pid = Some(std::process::id());
    report.write(&job.report_file)?;
    let grace = Duration::from_millis(job.timing.kill_grace_ms);
    let deadline = Instant::now()
        + LOCK_WAIT
            .saturating_add(grace)
            .min(Duration::from_secs(3600));
    let outcome = loop {
        let attempt =
            crate::base::lock::with_lock_fd(&job.lock_file, Duration::from_millis(200), |fd| {
                supervise(job, &mut report, host, subreaper, fd)
            })?;
        match attempt {
            Some(result) => break Some(result?),
            None if terminating() || Instant::now() >= deadline => break None,
            None => continue,
        }
    };
    let Some(code) = outcome else {
        return Err(std::io::Error::other(format!(
            "another agent holds {}; not starting a second one",
            job.lock_file.display()
        )));
    };
    // The liveness lock is released: wake the engine to verify and go on.
    host.wake();
    // Ended by `stop` or `killall`: they record the outcome, holding the
    // engine lock while they wait for this process to exit, so there is
    // no retry to wait for here.
    if terminating() {
        return Ok(code);
    }
    // A failure waits in BACKOFF for its retry time, a deferred condition
    // not met yet for its next check; this process is what wakes the engine
    // then, so no daemon has to stay alive for it.
    if let Some(wait) = host.retry_wait() {
        if sleep_unless_terminated(wait) {
            host.wake();
        }
    }
    Ok(code)
}

/// Run the worktree's setup command in the agent's working directory, its
/// output into the agent log; 0 when it passed (then it is not run again
/// in this worktree). It gets the agent's timeout and ends on `stop`.
pub(super) fn run_setup(job: &Job, setup: &Setup) -> std::io::Result<i32> {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&job.log_file)?;
    writeln!(log, "git-supervisor: worktree setup: {}", setup.command)?;
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&setup.command)
        .process_group(0)
        .current_dir(&job.workdir)
        .envs(job.env())
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?)
        .spawn()?;
    let deadline = Instant::now() + Duration::from_millis(job.timing.timeout_ms.max(1000));
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if terminating() || Instant::now() >= deadline {
            let _ = signal_group(child.id(), libc::SIGKILL);
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let code = match status {
        Some(s) if s.success() => {
            if let Some(dir) = setup.done_marker.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&setup.done_marker, &setup.command)?;
            return Ok(0);
        }
        Some(s) => s.code().unwrap_or(1),
        None => 124,
    };
    writeln!(
        log,
        "git-supervisor: the worktree setup `{}` failed (exit {code}); the agent was not started",
        setup.command
    )?;
    Ok(if code == 0 { 1 } else { code })
}

/// Write the final report.
pub(super) fn finish(report: &mut Report, job: &Job, code: i32) -> std::io::Result<i32> {
    report.finished = true;
    report.exit_code = Some(code);
    report.write(&job.report_file)?;
    Ok(code)
}

/// Run the agent under the liveness lock: start it, watch it, end its
/// whole tree, run it again after a rate limit.
pub(super) fn supervise(
    job: &Job,
    report: &mut Report,
    host: &mut dyn WrapperHost,
    subreaper: bool,
    liveness_fd: std::os::fd::RawFd,
) -> std::io::Result<i32> {
    let poll = Duration::from_millis(job.poll_interval_ms.max(10));
    if let Some(setup) = job.setup.as_ref().filter(|s| !s.done_marker.exists()) {
        report.started = true;
        report.pid = Some(std::process::id());
        report.write(&job.report_file)?;
        let code = run_setup(job, setup)?;
        if code != 0 {
            return finish(report, job, code);
        }
    }
    if job.task_type == TaskType::Deferred && !job.deferred_checks.is_empty() {
        report.started = true;
        report.pid = Some(std::process::id());
        report.write(&job.report_file)?;
        host.wake();
        let code = poll_deferred(job, poll, host);
        return finish(report, job, code);
    }
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&job.log_file)?;
    if !subreaper {
        writeln!(
            log,
            "git-supervisor: this platform has no child subreaper; a tool that leaves the agent's session may outlive it"
        )?;
    }
    let grace = Duration::from_millis(job.timing.kill_grace_ms);
    let limit_wait = Duration::from_millis(job.timing.rate_limit_wait_ms);
    let mut waited = Duration::ZERO;
    let mut limited_runs = 0u32;
    loop {
        let run_start = std::fs::metadata(&job.log_file)
            .map(|m| m.len())
            .unwrap_or(0);
        let ran = run_agent(job, report, host, &mut log, poll, grace, liveness_fd)?;
        let Some(code) = ran else {
            // Could not start it at all.
            return finish(report, job, 127);
        };
        if code == 0 && report.killed.is_none() {
            // Let a commit that completed the sprint be recorded first: an
            // exit 0 is only read for a rate limit when it did not.
            host.wake();
        }
        if !host.still_wanted() {
            // Its sprint was recorded while it ran (its trailer commit
            // completed it, or it was stopped): that verdict could not carry
            // the turns and dollars the agent printed at exit.
            let code = finish(report, job, code)?;
            host.record_usage();
            return Ok(code);
        }
        if report.killed.is_some() || terminating() {
            return finish(report, job, code);
        }
        // Only this run's output: an earlier run's error is not this one's.
        let output = read_from(&job.log_file, run_start);
        // A usage limit ends the dispatch: waiting seconds would only fail
        // again; the engine pauses the agent until the reset.
        if let Some(limit) = usage_limit_of(job, code, &output) {
            writeln!(
                log,
                "git-supervisor: usage limit of `{}`{}: {}; the run pauses this agent (no attempt is counted)",
                limit.agent,
                limit
                    .resets_at
                    .as_deref()
                    .map(|r| format!(", resets at {r}"))
                    .unwrap_or_default(),
                limit.line
            )?;
            report.usage_limit = Some(limit);
            return finish(report, job, code);
        }
        // A failing exit is read for a rate limit anywhere in its tail; an
        // exit 0 (aider gives up on a rate limit and exits 0) only when the
        // limit is the last thing the agent said.
        let limited = if code == 0 {
            ratelimit::classify_final(&output)
        } else {
            ratelimit::classify(&output)
        };
        let Some(limited) = limited else {
            return finish(report, job, code);
        };
        let delay = crate::machine::retry::delay(
            Duration::from_millis(job.timing.retry_delay_ms),
            limited_runs,
            jitter_seed(),
        );
        let wait = limited
            .retry_after
            .unwrap_or(delay)
            .min(limit_wait.saturating_sub(waited));
        if wait.is_zero() {
            writeln!(
                log,
                "git-supervisor: still {} after waiting {} in total (run.rate_limit_wait); the failure counts",
                limited.kind,
                humantime::format_duration(round_secs(waited))
            )?;
            return finish(report, job, code);
        }
        writeln!(
            log,
            "git-supervisor: {}: {}; running the agent again in {} (no attempt is counted)",
            limited.kind,
            limited.line,
            humantime::format_duration(round_secs(wait))
        )?;
        host.event(WrapperEvent::RateLimited { limited, wait });
        if !sleep_unless_terminated(wait) {
            report.killed = Some("terminated while waiting out a rate limit".into());
            return finish(report, job, code);
        }
        waited += wait;
        limited_runs += 1;
    }
}

/// The usage limit the end of this run's output reports, read at the
/// wall clock in the agent's time zone (`TZ`, else the system's).
fn usage_limit_of(job: &Job, code: i32, output: &str) -> Option<super::ReportedLimit> {
    let now = jiff::Timestamp::now();
    let local = jiff::tz::TimeZone::system();
    let found = if code == 0 {
        usage_limit::classify_final(output, now, &local)
    } else {
        usage_limit::classify(output, now, &local)
    }?;
    let agent = job
        .argv
        .first()
        .map(|p| crate::config::program_name(p))
        .unwrap_or_default();
    Some(super::ReportedLimit {
        agent,
        resets_at: found.resets_at.map(|t| t.to_string()),
        met_at: now.round(jiff::Unit::Second).unwrap_or(now).to_string(),
        line: found.line,
    })
}

/// The text of `path` from byte `offset` on.
pub(super) fn read_from(path: &Path, offset: u64) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let from = (offset as usize).min(bytes.len());
    String::from_utf8_lossy(&bytes[from..]).into_owned()
}

pub(super) fn round_secs(d: Duration) -> Duration {
    Duration::from_secs(d.as_secs())
}

/// A seed for jitter: the clock's nanoseconds and our pid (no randomness
/// crate for one number).
pub fn jitter_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    nanos ^ ((std::process::id() as u64) << 32)
}

/// Start the agent once and watch it until it and every process of its tree
/// are gone. `None` when it could not be started.
pub(super) fn run_agent(
    job: &Job,
    report: &mut Report,
    host: &mut dyn WrapperHost,
    log: &mut std::fs::File,
    poll: Duration,
    grace: Duration,
    liveness_fd: std::os::fd::RawFd,
) -> std::io::Result<Option<i32>> {
    let prompt_text = std::fs::read_to_string(&job.prompt_file).unwrap_or_default();
    let Some((program, args)) = job.argv.split_first() else {
        writeln!(log, "git-supervisor: the agent command is empty")?;
        return Ok(None);
    };
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(program);
    // The agent works in `job.workdir` and nowhere else: nothing may point
    // its git at another repository (the detached wrapper has none of these
    // already; `import` runs this in the command's own process).
    for var in crate::base::runtime::REPOSITORY_LOCATION {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .current_dir(&job.workdir)
        .envs(job.env())
        .env_remove("GIT_SUPERVISOR_INTERNAL")
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?)
        .process_group(0)
        .stdin(if job.prompt == PromptDelivery::Stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let wrapper = std::process::id();
    // SAFETY: fcntl, prctl and getppid are async-signal-safe and touch only
    // this child's own descriptor table and settings.
    unsafe {
        cmd.pre_exec(move || {
            // Liveness follows the agent, not only us: it keeps the unit's
            // lock open across exec, so if this wrapper dies the engine still
            // sees the unit busy and never starts a second agent beside it.
            let flags = libc::fcntl(liveness_fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(liveness_fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC);
            }
            // And it is told to end when we die (SIGKILL included).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            if libc::getppid() as u32 != wrapper {
                // We died before the line above took effect.
                return Err(std::io::Error::other("the wrapper is gone"));
            }
            Ok(())
        });
    }
    let started_at = std::time::SystemTime::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            writeln!(log, "git-supervisor: cannot start {program}: {e}")?;
            return Ok(None);
        }
    };
    let agent_pid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        // A closed pipe just means the agent did not read its prompt; a
        // large prompt must not block the wrapper on an agent that does not
        // read it, hence the thread.
        std::thread::spawn(move || {
            let _ = stdin.write_all(prompt_text.as_bytes());
        });
    }
    if !report.started {
        report.started = true;
        report.pid = Some(agent_pid);
        report.write(&job.report_file)?;
        host.wake();
    } else {
        report.pid = Some(agent_pid);
        report.write(&job.report_file)?;
    }

    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(status);
    });
    let me = std::process::id();
    let prune = |pid: u32| reap::is_wrapper(pid);
    let walk_every = job
        .timing
        .silence_kill_ms
        .unwrap_or(job.timing.silence_notice_ms)
        .min(job.timing.silence_notice_ms)
        / 4;
    let walk_every =
        Duration::from_millis(walk_every).clamp(poll, Duration::from_secs(60).max(poll));
    let mut sampler = liveness::Sampler::new(&job.log_file, &job.workdir, walk_every);
    let mut rule = liveness::Liveness::new(&job.timing, Instant::now());
    let step = poll.min(Duration::from_millis(100));
    let mut next_look = Instant::now() + poll;
    let mut next_wanted = Instant::now() + poll.max(Duration::from_millis(500));
    let mut unwanted_since: Option<Instant> = None;
    let status = loop {
        match rx.recv_timeout(step) {
            Ok(status) => break Some(status?),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if terminating() {
            report.killed = Some("terminated by git supervisor (stop or killall)".into());
            break None;
        }
        let now = Instant::now();
        if unwanted_since.is_none() && now >= next_wanted {
            next_wanted = now + poll.max(Duration::from_millis(500));
            if !host.still_wanted() {
                unwanted_since = Some(now);
            }
        }
        // Its sprint was recorded otherwise: the agent may finish what it
        // was writing for one grace period, then it is ended.
        if unwanted_since.is_some_and(|t| now.duration_since(t) >= grace) {
            report.killed = Some(
                "its sprint was already recorded (completed by its commit, stopped or killed); the agent was ended".into(),
            );
            break None;
        }
        if now < next_look {
            continue;
        }
        next_look = now + poll;
        // Exited orphans, and wrappers our own ticks started: a zombie
        // wrapper would look alive to the engine.
        reap::reap_orphans(Some(agent_pid));
        reap();
        let procs = reap::processes();
        let tree = reap::descendants(me, &procs, &prune);
        let active = sampler.active(&tree);
        let human = |d: Duration| humantime::format_duration(round_secs(d)).to_string();
        match rule.observe(now, active) {
            liveness::Verdict::Alive => {}
            liveness::Verdict::Notice(silent) => {
                host.event(WrapperEvent::Unresponsive { silent });
            }
            liveness::Verdict::Silent(silent) => {
                report.killed = Some(format!(
                    "no activity for {} (no output, no CPU time in its processes, no file changed; agent.silence_kill); the agent was ended",
                    human(silent)
                ));
                break None;
            }
            liveness::Verdict::Timeout(ran) => {
                report.killed = Some(format!(
                    "it ran for {} (agent.timeout); the agent was ended",
                    human(ran)
                ));
                break None;
            }
        }
    };
    // A background sprint's agent that exited by itself leaves its
    // processes running: that is its work (spec §2g). They are recorded
    // and kept out of the tree ended below.
    if status.is_some() && report.killed.is_none() && job.task_type == TaskType::Background {
        report.background = super::background::survivors(me, agent_pid);
        report.write(&job.report_file)?;
        if !report.background.is_empty() {
            writeln!(
                log,
                "git-supervisor: the agent left {} process(es) running for its background sprint: {}",
                report.background.len(),
                report
                    .background
                    .iter()
                    .map(|p| format!("{} ({})", p.pid, p.command))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
    }
    let kept: Vec<u32> = report.background.iter().map(|p| p.pid).collect();
    let prune = |pid: u32| reap::is_wrapper(pid) || kept.contains(&pid);
    // Whatever ended the agent, nothing else of its tree outlives it: a tool
    // it left running could still commit after the verdict.
    let ended = reap::end_tree(me, false, grace, &prune, None);
    if ended.termed > 0 {
        writeln!(
            log,
            "git-supervisor: ended {} process(es) of the agent's tree ({} needed SIGKILL)",
            ended.termed, ended.killed
        )?;
    }
    if !ended.survivors.is_empty() {
        writeln!(
            log,
            "git-supervisor: processes {:?} did not die after SIGKILL",
            ended.survivors
        )?;
    }
    // The agent's own status, collected by the waiting thread.
    let status = match status {
        Some(s) => Some(s),
        None => rx.recv().ok().and_then(Result::ok),
    };
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .map(|s| s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)))
        .unwrap_or(1);
    if let Some(path) = stale::remove_git_locks(&job.workdir, started_at) {
        for p in path {
            writeln!(
                log,
                "git-supervisor: removed {} left by a process of the agent's tree that no longer exists",
                p.display()
            )?;
            host.event(WrapperEvent::StaleLockRemoved { path: p });
        }
    }
    Ok(Some(code))
}

/// Poll a deferred sprint's checks every poll interval until they pass.
/// Waiting is not failure: polls never count attempts.
pub(super) fn poll_deferred(job: &Job, poll: Duration, host: &mut dyn WrapperHost) -> i32 {
    let mut polls = 0u32;
    let start = Instant::now();
    loop {
        let passed = job.deferred_checks.iter().all(|c| {
            Command::new("sh")
                .arg("-c")
                .arg(c)
                .current_dir(&job.workdir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        if passed {
            return 0;
        }
        polls += 1;
        if let Ok(mut log) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&job.log_file)
        {
            let _ = writeln!(
                log,
                "git-supervisor: deferred check not met yet (poll {polls}, {:.0}s)",
                start.elapsed().as_secs_f64()
            );
        }
        if polls == DEFERRED_NOTICE {
            host.event(WrapperEvent::DeferredWaiting {
                polls,
                condition: job.deferred_checks.join(" && "),
            });
        }
        if !sleep_unless_terminated(poll) || !host.still_wanted() {
            return 143;
        }
    }
}
