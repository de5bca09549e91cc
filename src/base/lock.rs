//! `fd-lock` (flock) locks under the runtime directory. The kernel releases a
//! lock when its process dies, so there is never a stale lock to clean up;
//! correctness comes from the ref CAS, the locks only avoid duplicate work.

use std::fs::File;
use std::fs::OpenOptions;
use std::io;
use std::path::Path;
use std::time::Duration;
use std::time::Instant;

fn open(path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .read(true)
        .open(path)
}

/// Run `f` while holding the exclusive lock at `path`, waiting at most
/// `wait` for it. `Ok(None)` when the lock stayed busy.
pub fn with_lock<T>(path: &Path, wait: Duration, f: impl FnOnce() -> T) -> io::Result<Option<T>> {
    with_lock_fd(path, wait, |_| f())
}

/// [`with_lock`], giving `f` the locked file's descriptor: a child process
/// that inherits it holds the lock for as long as it lives, even past us.
pub fn with_lock_fd<T>(
    path: &Path,
    wait: Duration,
    f: impl FnOnce(std::os::fd::RawFd) -> T,
) -> io::Result<Option<T>> {
    use std::os::fd::AsRawFd;
    let mut lock = fd_lock::RwLock::new(open(path)?);
    let deadline = Instant::now() + wait;
    loop {
        match lock.try_write() {
            Ok(guard) => return Ok(Some(f(guard.as_raw_fd()))),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Ok(None);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether some process holds the lock at `path` right now.
pub fn is_held(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    let Ok(file) = open(path) else {
        return false;
    };
    let mut lock = fd_lock::RwLock::new(file);
    let held = matches!(lock.try_write(), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    held
}

/// The process holding the flock at `path`, from `/proc/locks` (Linux):
/// what a message names when the lock stays busy. `None` elsewhere, or
/// when no process holds it.
pub fn holder(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(path).ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (pid, device_inode) = match fields.get(1) {
            Some(&"FLOCK") => (fields.get(4)?, fields.get(5)?),
            _ => return None,
        };
        let lock_inode: u64 = device_inode.rsplit(':').next()?.parse().ok()?;
        (lock_inode == inode).then(|| pid.parse().ok()).flatten()
    })
}
