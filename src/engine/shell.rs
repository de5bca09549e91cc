//! One `sh -c` command in a directory, bounded in time: what exit criteria
//! and phase builds run. Its output is read as it is written (a command
//! that prints more than a pipe holds never blocks on it), and only a
//! finished command's output is waited for (a grandchild that keeps a pipe
//! open after a timeout would hold the reader).

use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::process::ExitStatus;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

/// What one command came to.
pub(super) struct Shell {
    /// Its exit status, or why it has none (cannot start, timed out).
    pub(super) status: Result<ExitStatus, String>,
    /// What it printed, stdout then stderr (empty when it did not finish).
    pub(super) output: String,
}

/// Run `command` under `sh -c` in `root`, for at most `timeout`.
pub(super) fn run(
    root: &Path,
    command: &str,
    timeout: Duration,
    env: &[(String, String)],
) -> Shell {
    let mut child = match Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Shell {
                status: Err(format!("cannot run: {e}")),
                output: String::new(),
            }
        }
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("timed out after {}s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => break Err(e.to_string()),
        }
    };
    let output = if status.is_ok() {
        let out = stdout.join().unwrap_or_default();
        let err = stderr.join().unwrap_or_default();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&err)
        )
    } else {
        String::new()
    };
    Shell { status, output }
}

/// Read a pipe to its end on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        bytes
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_past_its_time_is_ended_and_a_long_output_read_whole() {
        let dir = tempfile::tempdir().expect("dir");
        let slow = run(dir.path(), "sleep 5", Duration::from_millis(100), &[]);
        assert_eq!(slow.status.err().as_deref(), Some("timed out after 0s"));
        let long = run(
            dir.path(),
            "seq 1 100000; echo done >&2",
            Duration::from_secs(60),
            &[],
        );
        assert!(long.status.is_ok_and(|s| s.success()));
        assert!(
            long.output.ends_with("100000\ndone\n"),
            "{}",
            &long.output[long.output.len() - 20..]
        );
    }
}
