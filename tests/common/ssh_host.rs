//! A real ssh git host for tests: OpenSSH's `sshd` on 127.0.0.1 with its
//! own host key and one authorized user key, reached with
//! `core.sshCommand` (the key, no known-hosts file, batch mode).

use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;

/// `sshd -D` on a free port, ended when dropped.
pub struct SshHost {
    child: Child,
    port: u16,
    user: String,
    dir: tempfile::TempDir,
}

impl SshHost {
    pub fn start() -> SshHost {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let port = super::free_port();
        for key in ["host_key", "user_key"] {
            super::tool(
                d,
                "ssh-keygen",
                &["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", key],
            );
        }
        std::fs::copy(d.join("user_key.pub"), d.join("authorized_keys")).expect("authorize");
        // sshd wants its privilege separation directory; a fresh machine
        // whose sshd was never started as a service has none.
        let _ = std::fs::create_dir_all("/run/sshd");
        // Workers open many connections at once: sshd's default start-up
        // limit (10) would drop some, which is not what the tests are about.
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
             PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPidFile none\n\
             MaxStartups 200\nMaxSessions 200\nLogLevel ERROR\n",
            d = d.display()
        );
        std::fs::write(d.join("sshd_config"), config).expect("config");
        let child = Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(d.join("sshd.log"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .spawn()
            .expect("sshd starts (apt-get install openssh-server)");
        let user = super::tool(d, "id", &["-un"]).trim().to_string();
        let mut host = SshHost {
            child,
            port,
            user,
            dir,
        };
        super::wait_until("sshd listens", 20, || {
            assert!(
                host.child.try_wait().expect("wait").is_none(),
                "sshd left: {}",
                std::fs::read_to_string(host.dir.path().join("sshd.log")).unwrap_or_default()
            );
            std::net::TcpStream::connect(("127.0.0.1", host.port)).is_ok()
        });
        host
    }

    /// The URL of the bare repository at `path`.
    pub fn url(&self, path: &Path) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            self.user,
            self.port,
            path.display()
        )
    }

    /// The git configuration a clone needs to reach the host.
    pub fn client_config(&self) -> Vec<(String, String)> {
        vec![("core.sshCommand".into(), self.ssh_command(&self.key()))]
    }

    /// The same, with a key the host does not know.
    pub fn stranger_config(&self) -> Vec<(String, String)> {
        let stranger = self.dir.path().join("stranger_key");
        if !stranger.exists() {
            super::tool(
                self.dir.path(),
                "ssh-keygen",
                &["-q", "-t", "ed25519", "-N", "", "-f", "stranger_key"],
            );
        }
        vec![("core.sshCommand".into(), self.ssh_command(&stranger))]
    }

    fn key(&self) -> std::path::PathBuf {
        self.dir.path().join("user_key")
    }

    fn ssh_command(&self, key: &Path) -> String {
        format!(
            "ssh -F /dev/null -i {} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
            key.display()
        )
    }
}

impl Drop for SshHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
