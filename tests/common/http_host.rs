//! A real HTTPS git host for tests: Debian's lighttpd on 127.0.0.1 serving
//! git's own `git http-backend` as CGI, behind basic authentication (an
//! htpasswd file) and TLS with a self-signed certificate the clients trust
//! through `http.sslCAInfo`. A gate in front of the backend answers the
//! next N requests with an HTTP status of the test's choosing (`throttle`),
//! as a host that rate-limits does.

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;

/// The user and password the host accepts.
pub const USER: &str = "worker";
pub const PASSWORD: &str = "s3cret-pass";

/// lighttpd serving the bare repositories under `base`, ended when dropped.
pub struct HttpHost {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl HttpHost {
    pub fn start(base: &Path) -> HttpHost {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let port = super::free_port();
        let hashed = super::tool(d, "openssl", &["passwd", "-apr1", PASSWORD]);
        std::fs::write(d.join("htpasswd"), format!("{USER}:{}\n", hashed.trim())).expect("users");
        super::tool(
            d,
            "openssl",
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "key.pem",
                "-out",
                "cert.pem",
                "-days",
                "2",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
            ],
        );
        let backend = git_exec_path().join("git-http-backend");
        // The gate: while `throttle` holds a count above zero, one request
        // takes one off it and gets the status in `throttle-status`.
        let gate = d.join("gate.cgi");
        std::fs::write(
            &gate,
            format!(
                "#!/bin/sh
n=$(cat '{d}/throttle' 2>/dev/null || echo 0)
if [ \"$n\" -gt 0 ] 2>/dev/null; then
  echo $((n - 1)) > '{d}/throttle'
  echo \"$REQUEST_METHOD $PATH_INFO\" >> '{d}/throttled.log'
  printf 'Status: %s\\r\\nContent-Type: text/plain\\r\\nRetry-After: 1\\r\\n\\r\\nslow down\\n' \"$(cat '{d}/throttle-status')\"
  exit 0
fi
exec '{backend}'
",
                d = d.display(),
                backend = backend.display()
            ),
        )
        .expect("gate");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&gate, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let config = format!(
            r#"server.document-root = "{d}"
server.port = {port}
server.bind = "127.0.0.1"
server.errorlog = "{d}/error.log"
server.upload-dirs = ("{d}")
server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv", "mod_openssl")
ssl.engine = "enable"
ssl.pemfile = "{d}/cert.pem"
ssl.privkey = "{d}/key.pem"
auth.backend = "htpasswd"
auth.backend.htpasswd.userfile = "{d}/htpasswd"
alias.url = ("/git/" => "{gate}/")
$HTTP["url"] =~ "^/git/" {{
  cgi.assign = ("" => "")
  setenv.set-environment = ("GIT_PROJECT_ROOT" => "{base}", "GIT_HTTP_EXPORT_ALL" => "")
  auth.require = ("" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))
}}
"#,
            d = d.display(),
            base = base.display(),
            gate = gate.display(),
        );
        std::fs::write(d.join("lighttpd.conf"), config).expect("config");
        let child = Command::new(lighttpd())
            .args(["-D", "-f"])
            .arg(d.join("lighttpd.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("lighttpd starts (apt-get install lighttpd)");
        let mut host = HttpHost { child, port, dir };
        super::wait_until("lighttpd listens", 20, || {
            assert!(
                host.child.try_wait().expect("wait").is_none(),
                "lighttpd left: {}",
                std::fs::read_to_string(host.dir.path().join("error.log")).unwrap_or_default()
            );
            std::net::TcpStream::connect(("127.0.0.1", host.port)).is_ok()
        });
        host
    }

    /// Answer the next `requests` requests with `status` (`429 Too Many
    /// Requests`, `503 Service Unavailable`) instead of serving them.
    pub fn throttle(&self, requests: u32, status: &str) {
        let d = self.dir.path();
        std::fs::write(d.join("throttle-status"), status).expect("status");
        std::fs::write(d.join("throttle"), format!("{requests}\n")).expect("throttle");
    }

    /// The requests the gate answered with its status so far.
    pub fn throttled(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("throttled.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    pub fn url(&self, repo: &str) -> String {
        format!("https://127.0.0.1:{}/git/{repo}", self.port)
    }

    /// The git configuration a clone needs to reach the host: the
    /// certificate to trust and a credential store holding `password`.
    pub fn client_config(&self, password: &str) -> Vec<(String, String)> {
        let store = self.dir.path().join(format!("credentials-{password}"));
        std::fs::write(
            &store,
            format!("https://{USER}:{password}@127.0.0.1:{}\n", self.port),
        )
        .expect("credentials");
        vec![
            (
                "http.sslCAInfo".into(),
                self.dir.path().join("cert.pem").display().to_string(),
            ),
            (
                "credential.helper".into(),
                format!("store --file={}", store.display()),
            ),
        ]
    }
}

impl Drop for HttpHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lighttpd() -> PathBuf {
    ["/usr/sbin/lighttpd", "/usr/bin/lighttpd"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("lighttpd"))
}

fn git_exec_path() -> PathBuf {
    let out = Command::new("git")
        .arg("--exec-path")
        .output()
        .expect("git runs");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
