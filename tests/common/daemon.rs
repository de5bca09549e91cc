//! A real git server for tests: `git daemon` on 127.0.0.1 with pushes
//! enabled.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

/// A `git daemon` serving `base` (push enabled), ended with its children
/// when dropped.
pub struct Daemon {
    child: Child,
    port: u16,
}

impl Daemon {
    pub fn start(base: &Path) -> Daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = std::process::Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
                &base.display().to_string(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            // `git daemon` runs `git-daemon` as its child: a group of their
            // own lets the drop end both.
            .process_group(0)
            .spawn()
            .expect("git daemon starts");
        let since = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "git daemon listens"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Daemon { child, port }
    }

    pub fn url(&self, repo: &str) -> String {
        format!("git://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // SAFETY: signalling the process group this value started.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}
