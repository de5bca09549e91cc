//! The tick itself (lock → load → reconcile → apply → write → act), the
//! wake-up marker a busy engine honours, and `wait` with what it announces.

use std::time::Duration;
use std::time::Instant;

use crate::base::runtime;
use crate::dispatch;
use crate::machine::State;

use super::io;
use super::Engine;
use super::EngineError;
use super::LockMode;
use super::TickReport;
use super::BUSY_NOTICE_AFTER;

impl Engine {
    /// When a tick holds the engine lock, leave it a wake-up marker and say
    /// so: that tick runs again before it lets go, so the caller need not
    /// start one. False when no tick runs (or the marker cannot be left).
    pub fn wake_running_tick(&self) -> bool {
        let lock = self.runtime(runtime::ENGINE_LOCK);
        if !crate::base::lock::is_held(&lock) {
            return false;
        }
        if std::fs::write(self.runtime(runtime::WAKE), b"").is_err() {
            return false;
        }
        // The holder may have let go between the two looks, before it could
        // see the marker: then the caller must tick after all.
        crate::base::lock::is_held(&lock)
    }

    /// Run the engine once (and again while wake-ups arrive meanwhile).
    pub fn tick(&self, mode: LockMode) -> Result<TickReport, EngineError> {
        let lock = self.runtime(runtime::ENGINE_LOCK);
        let marker = self.runtime(runtime::WAKE);
        let wait = match mode {
            LockMode::Wait(d) | LockMode::Once(d) => d,
            LockMode::MarkerOnly => Duration::ZERO,
        };
        let mut total = TickReport::default();
        loop {
            let _ = std::fs::remove_file(&marker);
            let ran = crate::base::lock::with_lock(&lock, wait, || self.tick_locked())
                .map_err(io("cannot take the engine lock"))?;
            match ran {
                None => {
                    // The holder sees the marker before (or just after) it
                    // lets go, and runs again.
                    std::fs::create_dir_all(self.store.runtime_dir())
                        .map_err(io("cannot create the runtime directory"))?;
                    std::fs::write(&marker, b"").map_err(io("cannot leave a wake-up marker"))?;
                    if crate::base::lock::is_held(&lock) {
                        total.deferred = true;
                        return Ok(total);
                    }
                }
                Some(result) => {
                    let r = result?;
                    total.steps += r.steps;
                    total.dispatched.extend(r.dispatched);
                    if !marker.exists() || matches!(mode, LockMode::Once(_)) {
                        return Ok(total);
                    }
                }
            }
        }
    }

    pub(super) fn tick_locked(&self) -> Result<TickReport, EngineError> {
        if let Some(remote) = self.store.remote() {
            remote.fetch()?;
            return self.tick_on_remote();
        }
        let mut report = TickReport::default();
        let mut refused = 0;
        loop {
            let Some(tip) = self.store.tip()? else {
                return Ok(report);
            };
            // One event at a time, in a fixed order: the needs registry, work
            // the plan marks done, history observed since the last
            // reconciliation, agent reports.
            // After repeated refusals the events wait for the next tick, but
            // builds and dispatches still go on.
            let next = if refused > 3 {
                None
            } else {
                match self.needs_changed(&tip) {
                    Some(kind) => Some(kind),
                    None => match self.next_plan_done(&tip)? {
                        Some(kind) => Some(kind),
                        None => match self.next_observation(&tip)? {
                            Some(kind) => Some(kind),
                            None => match self.next_agent_event(&tip)? {
                                Some(kind) => Some(kind),
                                None => self
                                    .next_limit_end(&tip)
                                    .or_else(|| self.next_overlap_notice(&tip)),
                            },
                        },
                    },
                }
            };
            if let Some(kind) = next {
                match self.publish(kind) {
                    Ok(steps) => report.steps += steps.len(),
                    // The state moved under us (another writer already
                    // recorded it): look again — but never loop on an event
                    // the machine keeps refusing.
                    Err(EngineError::Refused(_)) => refused += 1,
                    Err(e) => return Err(e),
                }
                continue;
            }
            // Before any dispatch: a failed background sprint's process
            // is gone before its retry starts another.
            if !self.end_background(&tip, false)?.is_empty() {
                continue;
            }
            self.remove_integrated_worktrees(&tip)?;
            self.land_when_configured(&tip)?;
            if let Some(units) = self.build_to_run(&tip.state) {
                if self.run_gate(&tip, &units)? {
                    continue;
                }
            }
            match self.dispatch_next(&tip)? {
                Some((unit, steps)) => {
                    report.steps += steps;
                    report.dispatched.push(unit);
                }
                None => return Ok(report),
            }
        }
    }

    /// Block until every unit is terminal (or `timeout`), ticking each poll
    /// interval so that crashed agents are noticed. `on_poll` sees the state
    /// and the lines to print since the last poll: the phase-boundary lines
    /// of the coordinated builds and the FATAL message of a unit that
    /// blocked.
    pub fn wait(
        &self,
        timeout: Option<Duration>,
        mut on_poll: impl FnMut(&State, &[String]),
    ) -> Result<State, EngineError> {
        let start = Instant::now();
        let mut seen = match self.announced.get() {
            Some(seq) => seq,
            None => self.store.tip()?.map(|t| t.state.seq).unwrap_or(0),
        };
        let mut busy_since: Option<Instant> = None;
        let mut busy_told = false;
        loop {
            dispatch::reap();
            let ticked = self.tick(LockMode::Wait(Duration::from_millis(200)))?;
            let tip = self.store.tip()?.ok_or(EngineError::NoRun)?;
            let mut lines = self.announcements(seen, &tip.state)?;
            seen = tip.state.seq;
            if ticked.deferred {
                let since = *busy_since.get_or_insert_with(Instant::now);
                if !busy_told && since.elapsed() >= BUSY_NOTICE_AFTER {
                    busy_told = true;
                    lines.push(self.busy_notice(since.elapsed()));
                }
            } else {
                busy_since = None;
                busy_told = false;
            }
            on_poll(&tip.state, &lines);
            if tip.state.is_finished() {
                // The process that recorded the end ends the background
                // processes after it: the run is over once they are gone.
                return self.background_ended(tip);
            }
            if timeout.is_some_and(|t| start.elapsed() >= t) {
                return Ok(tip.state);
            }
            let poll = self
                .snapshot(&tip)
                .map(|(_, c)| c.run.poll_interval)
                .unwrap_or(Duration::from_secs(5));
            std::thread::sleep(poll.min(Duration::from_millis(500)));
        }
    }

    /// Why a waiting command sees no progress: the process that has held
    /// the engine lock all this time, so agents' results stay unrecorded.
    pub(super) fn busy_notice(&self, busy: Duration) -> String {
        let lock = self.runtime(runtime::ENGINE_LOCK);
        let holder = crate::base::lock::holder(&lock);
        let who = match holder {
            Some(pid) => {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|b| {
                        b.split(|c| *c == 0)
                            .filter(|a| !a.is_empty())
                            .map(|a| String::from_utf8_lossy(a).into_owned())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                format!("process {pid} ({cmd})")
            }
            None => "another process".to_string(),
        };
        let fix = match holder {
            Some(pid) => format!(
                " If it hung, `kill {pid}`: nothing is lost, the next tick records what it missed."
            ),
            None => String::new(),
        };
        format!(
            "The engine has been busy for {}s: {who} holds {}. Agents that ended meanwhile are recorded once it lets go (a phase build holds it while it runs).{fix}",
            busy.as_secs(),
            lock.display()
        )
    }

    /// What a waiting command prints about the transitions after `since`
    /// (oldest first): the spec's phase-boundary lines and the four-line
    /// FATAL message of each unit that blocked.
    pub fn announcements(&self, since: u64, state: &State) -> Result<Vec<String>, EngineError> {
        self.announced.set(Some(state.seq.max(since)));
        if state.seq <= since {
            return Ok(Vec::new());
        }
        let limit = usize::try_from(state.seq - since).unwrap_or(usize::MAX);
        let mut records = self.store.history(Some(limit))?;
        records.reverse();
        let mut lines = Vec::new();
        for r in records {
            match r.event.as_deref() {
                Some("build-started" | "build-failed")
                    if r.unit.is_none() && (r.why.starts_with('🏗') || r.why.starts_with('❌')) =>
                {
                    lines.push(r.why.lines().next().unwrap_or_default().to_string());
                }
                // Observed work the merge queue refused, and where to
                // commit it instead (`observed_queue.rs`).
                Some("notice") if r.why.starts_with("Not credited:") => {
                    lines.push(r.why.clone());
                }
                Some("gate-passed") => {
                    if let Some(i) = r.why.find('✅').or_else(|| r.why.find('⚠')) {
                        lines.push(r.why[i..].lines().next().unwrap_or_default().to_string());
                    }
                }
                _ => {}
            }
            if r.to.as_deref() == Some("BLOCKED") && r.sprint.is_none() {
                if let Some(m) = r
                    .unit
                    .as_deref()
                    .and_then(|u| crate::report::status::fatal_message(state, u))
                {
                    lines.push(m);
                }
            }
        }
        Ok(lines)
    }
}
