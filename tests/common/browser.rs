//! A headless Chromium driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: fd 3 in, fd 4 out, messages ended by NUL),
//! so tests can load a page, run JavaScript in it and read its DOM while it
//! lives, with no WebSocket client and no driver program.

use std::io::Read;
use std::io::Write;
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;
use std::time::Instant;

use serde_json::json;
use serde_json::Value;

/// Debian's Chromium, or `GIT_SUPERVISOR_CHROMIUM`; `None` (the test skips)
/// when absent, unless `GIT_SUPERVISOR_REQUIRE_BROWSER` makes that a failure.
pub fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("GIT_SUPERVISOR_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.exists())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("GIT_SUPERVISOR_REQUIRE_BROWSER").is_none(),
            "GIT_SUPERVISOR_REQUIRE_BROWSER is set but Chromium is not installed (apt-get install chromium)"
        );
        eprintln!("skipped: Chromium is not installed");
    }
    found
}

pub struct Browser {
    child: std::process::Child,
    to: std::fs::File,
    from: mpsc::Receiver<Value>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

fn pipe() -> (i32, i32) {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid two-element array for pipe2(2) to fill. Close
    // on exec, so no other test's child inherits an end.
    assert_eq!(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        0,
        "pipe"
    );
    (fds[0], fds[1])
}

impl Browser {
    /// Start Chromium with one page open at `url`.
    pub fn open(program: &std::path::Path, url: &str, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        let (child_in, ours_out) = pipe();
        let (ours_in, child_out) = pipe();
        let mut cmd = std::process::Command::new(program);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-extensions",
            "--no-first-run",
            "--hide-scrollbars",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .env("HOME", profile.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
        // SAFETY: only async-signal-safe fcntl/dup2 between fork and exec.
        // Both ends move above 3 and 4 first, so placing one cannot
        // overwrite the other; dup2 leaves 3 and 4 open across exec.
        unsafe {
            cmd.pre_exec(move || {
                let high_in = libc::fcntl(child_in, libc::F_DUPFD_CLOEXEC, 10);
                let high_out = libc::fcntl(child_out, libc::F_DUPFD_CLOEXEC, 10);
                if high_in < 0
                    || high_out < 0
                    || libc::dup2(high_in, 3) < 0
                    || libc::dup2(high_out, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("chromium starts");
        // SAFETY: these descriptors came from pipe() above and are owned here.
        let (to, mut reader) = unsafe {
            libc::close(child_in);
            libc::close(child_out);
            (
                std::fs::File::from_raw_fd(ours_out),
                std::fs::File::from_raw_fd(ours_in),
            )
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 65536];
            while let Ok(n) = reader.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                while let Some(end) = buf.iter().position(|b| *b == 0) {
                    let message: Vec<u8> = buf.drain(..=end).collect();
                    if let Ok(v) = serde_json::from_slice(&message[..end]) {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut b = Browser {
            child,
            to,
            from: rx,
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({ "url": "about:blank" }), None);
        let target_id = target["targetId"].as_str().expect("a target").to_string();
        let attached = b.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
            None,
        );
        b.session = attached["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        b.page("Page.enable", json!({}));
        b.page("Page.navigate", json!({ "url": url }));
        b
    }

    fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("json");
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = self
                .from
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("chromium did not answer {method}"));
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    fn page(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.call(method, params, Some(&session))
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.page(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expression}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Wait until `expression` is truthy in the page; fail naming `what`.
    pub fn wait_for(&mut self, what: &str, secs: u64, expression: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.eval(expression);
            if !(v.is_null() || v == json!(false) || v == json!("") || v == json!(0)) {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A PNG of the page as it is now.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let r = self.page("Page.captureScreenshot", json!({ "format": "png" }));
        decode_base64(r["data"].as_str().expect("png data"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|c| u32::from(value(*c))).collect();
        let n = v
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, x)| n | (x << (18 - 6 * i)));
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}
