//! A real git server for tests: `git daemon` on 127.0.0.1 with pushes
//! enabled.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

/// A `git daemon` serving `base` (push enabled), ended with its children
/// when dropped; stopped and started again on its port for an outage.
pub struct Daemon {
    child: Option<Child>,
    base: PathBuf,
    port: u16,
}

impl Daemon {
    pub fn start(base: &Path) -> Daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut daemon = Daemon {
            child: None,
            base: base.to_path_buf(),
            port,
        };
        daemon.start_again();
        daemon
    }

    /// Serve again, on the same port, after [`Daemon::stop`].
    pub fn start_again(&mut self) {
        if self.child.is_some() {
            return;
        }
        let child = std::process::Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={}", self.port),
                &format!("--base-path={}", self.base.display()),
                &self.base.display().to_string(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            // `git daemon` runs `git-daemon` as its child: a group of their
            // own lets the drop end both.
            .process_group(0)
            .spawn()
            .expect("git daemon starts");
        self.child = Some(child);
        let since = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "git daemon listens"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stop serving (the daemon and the connections it is serving end).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: signalling the process group this value started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
        }
    }

    pub fn url(&self, repo: &str) -> String {
        format!("git://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}
