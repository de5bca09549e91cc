//! Git hook shims: install, uninstall, status, and the fast "is there a run
//! at all?" check the hook entry point makes before anything else.
//!
//! A shim is a small `sh` script between `# START git-supervisor` and
//! `# END git-supervisor` markers that calls `git-supervisor hook <name>`. An
//! existing hook is kept byte for byte as `<name>.pre-git-supervisor` and
//! runs first, with its exit status preserved (it is what decides a
//! pre-push). Uninstall renames it back, so the hooks directory is restored
//! exactly. The hooks directory comes from `git rev-parse --git-path hooks`,
//! which honours `core.hooksPath`, linked worktrees and submodules.

use crate::base::runtime;

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use serde::Serialize;

use crate::base::runtime::REPOSITORY_LOCATION;

pub const HOOKS: [&str; 3] = ["post-commit", "post-merge", "pre-push"];

/// The rest of what git sets for a hook about the operation at hand: the
/// commit's dates would pin every commit an agent started from the hook
/// makes to the user's commit time.
const HOOK_OPERATION: [&str; 4] = [
    "GIT_QUARANTINE_PATH",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_DATE",
    "GIT_REFLOG_ACTION",
];

/// Forget the hook's repository and operation, so the engine a hook wakes
/// behaves as one started from the user's shell in that directory (hooks
/// run at the top of the worktree, where discovery finds the same
/// repository). Call before any thread starts: it edits the process
/// environment.
pub fn leave_hook_context() {
    for var in REPOSITORY_LOCATION.iter().chain(HOOK_OPERATION.iter()) {
        std::env::remove_var(var);
    }
}
pub const START: &str = "# START git-supervisor";
pub const END: &str = "# END git-supervisor";
const CHAINED_SUFFIX: &str = ".pre-git-supervisor";

const SHIM: &str = include_str!("../../hooks/shim.sh");
const SHIM_STDIN: &str = include_str!("../../hooks/shim-stdin.sh");

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum HooksError {
    #[error("cannot find the hooks directory: {0}")]
    #[diagnostic(code(hooks::no_repository), help("run this inside a git repository"))]
    NoHooksDir(String),
    #[error("core.hooksPath points at {manager}'s hooks ({dir}); git supervisor will not write over them")]
    #[diagnostic(code(hooks::managed), help("{help}"))]
    Managed {
        manager: &'static str,
        dir: String,
        help: String,
    },
    #[error("hooks are turned off here: git runs them from {dir}, which is not a directory")]
    #[diagnostic(
        code(hooks::disabled),
        help("core.hooksPath points at {dir} (often set to /dev/null to disable hooks); `git config --unset core.hooksPath` turns hooks back on; without them, agents' wrappers still wake the engine")
    )]
    NotADirectory { dir: String },
    #[error("{what}: {source}")]
    #[diagnostic(code(hooks::io))]
    Io {
        what: String,
        source: std::io::Error,
    },
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> HooksError {
    move |source| HooksError::Io { what, source }
}

/// The shim for one hook.
pub fn shim(name: &str) -> String {
    let template = if name == "pre-push" { SHIM_STDIN } else { SHIM };
    template.replace("@HOOK@", name)
}

/// The hooks directory git uses for the repository at `cwd`.
pub fn hooks_dir(cwd: &Path) -> Result<PathBuf, HooksError> {
    let out = Command::new("git")
        .args(["rev-parse", "--git-path", "hooks"])
        .current_dir(cwd)
        .env("GIT_SUPERVISOR_INTERNAL", "1")
        .output()
        .map_err(|e| HooksError::NoHooksDir(e.to_string()))?;
    if !out.status.success() {
        return Err(HooksError::NoHooksDir(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(if p.is_absolute() { p } else { cwd.join(p) })
}

/// Another hook manager owns this directory: say how to chain us instead.
fn managed(dir: &Path) -> Option<(&'static str, String)> {
    let text = dir.display().to_string();
    let lines = HOOKS
        .iter()
        .map(|h| format!("git supervisor hook {h} \"$@\" || true   # in {h}"))
        .collect::<Vec<_>>()
        .join("\n");
    if text.contains(".husky") {
        return Some((
            "husky",
            format!("add one line to each of .husky/post-commit, .husky/post-merge and .husky/pre-push:\n{lines}"),
        ));
    }
    let lefthook = HOOKS
        .iter()
        .any(|h| std::fs::read_to_string(dir.join(h)).is_ok_and(|t| t.contains("lefthook")));
    if lefthook {
        return Some((
            "lefthook",
            "add to lefthook.yml, for each of post-commit, post-merge and pre-push:\n  commands:\n    git-supervisor:\n      run: git supervisor hook {hook} || true"
                .replace("{hook}", "<hook name>"),
        ));
    }
    None
}

fn is_ours(text: &str) -> bool {
    text.contains(START) && text.contains(END)
}

/// What `install` did to one hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Installed {
    Written,
    /// An existing hook was kept and is chained.
    Chained,
    AlreadyInstalled,
}

pub fn install(cwd: &Path) -> Result<Vec<(String, Installed)>, HooksError> {
    let dir = hooks_dir(cwd)?;
    if let Some((manager, help)) = managed(&dir) {
        return Err(HooksError::Managed {
            manager,
            dir: dir.display().to_string(),
            help,
        });
    }
    if dir.exists() && !dir.is_dir() {
        return Err(HooksError::NotADirectory {
            dir: dir.display().to_string(),
        });
    }
    std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let mut done = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let existing = std::fs::read_to_string(&path).ok();
        let outcome = match existing {
            Some(t) if is_ours(&t) => Installed::AlreadyInstalled,
            Some(_) => {
                let kept = dir.join(format!("{name}{CHAINED_SUFFIX}"));
                std::fs::rename(&path, &kept)
                    .map_err(io(format!("cannot keep {}", path.display())))?;
                write_executable(&path, &shim(name))?;
                Installed::Chained
            }
            None => {
                write_executable(&path, &shim(name))?;
                Installed::Written
            }
        };
        done.push((name.to_string(), outcome));
    }
    Ok(done)
}

fn write_executable(path: &Path, text: &str) -> Result<(), HooksError> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = path.with_extension("git-supervisor-tmp");
    std::fs::write(&tmp, text).map_err(io(format!("cannot write {}", tmp.display())))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
        .map_err(io(format!("cannot make {} executable", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(io(format!("cannot write {}", path.display())))
}

/// Remove our shims and put back what was there.
pub fn uninstall(cwd: &Path) -> Result<Vec<(String, &'static str)>, HooksError> {
    let dir = hooks_dir(cwd)?;
    let mut done = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let kept = dir.join(format!("{name}{CHAINED_SUFFIX}"));
        let ours = std::fs::read_to_string(&path).is_ok_and(|t| is_ours(&t));
        if !ours {
            done.push((name.to_string(), "not installed"));
            continue;
        }
        if kept.exists() {
            std::fs::rename(&kept, &path)
                .map_err(io(format!("cannot restore {}", path.display())))?;
            done.push((name.to_string(), "restored the previous hook"));
        } else {
            std::fs::remove_file(&path).map_err(io(format!("cannot remove {}", path.display())))?;
            done.push((name.to_string(), "removed"));
        }
    }
    Ok(done)
}

#[derive(Debug, Clone, Serialize)]
pub struct HookStatus {
    pub hook: String,
    /// `installed`, `chained`, `drifted` (ours, but not what this binary
    /// writes), `foreign` (someone else's hook) or `missing`.
    pub state: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub dir: String,
    pub hooks: Vec<HookStatus>,
    /// The `git-supervisor` the shims will run (first on PATH).
    pub on_path: Option<String>,
    /// Whether that is this binary.
    pub on_path_is_this: bool,
    pub manager: Option<&'static str>,
}

pub fn status(cwd: &Path) -> Result<Status, HooksError> {
    let dir = hooks_dir(cwd)?;
    let hooks = HOOKS
        .iter()
        .map(|name| {
            let path = dir.join(name);
            let state = match std::fs::read_to_string(&path) {
                Err(_) => "missing",
                Ok(t)
                    if t == shim(name) && dir.join(format!("{name}{CHAINED_SUFFIX}")).exists() =>
                {
                    "chained"
                }
                Ok(t) if t == shim(name) => "installed",
                Ok(t) if is_ours(&t) => "drifted",
                Ok(_) => "foreign",
            };
            HookStatus {
                hook: name.to_string(),
                state,
            }
        })
        .collect();
    let on_path = std::env::var_os("PATH")
        .and_then(|p| crate::config::presets::find_on_path("git-supervisor", &p));
    let this = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path_is_this = on_path
        .as_ref()
        .and_then(|p| p.canonicalize().ok())
        .is_some_and(|p| Some(p) == this);
    Ok(Status {
        dir: dir.display().to_string(),
        hooks,
        on_path: on_path.map(|p| p.display().to_string()),
        on_path_is_this,
        manager: managed(&dir).map(|(m, _)| m),
    })
}

/// Whether a run exists, answered from the files alone (no git library, no
/// subprocess): hooks run on every commit and must cost next to nothing when
/// there is nothing to do.
pub fn run_exists_fast(cwd: &Path) -> bool {
    let Some(common) = common_dir(cwd) else {
        // Unsure: let the slow path decide.
        return true;
    };
    if common.join("refs/supervisor/state").is_file() {
        return true;
    }
    std::fs::read_to_string(common.join("packed-refs"))
        .is_ok_and(|t| t.lines().any(|l| l.ends_with(" refs/supervisor/state")))
}

/// Whether this clone's run lives on a remote (`start --remote`, `worker`):
/// then a commit here is not the run's business (workers publish what their
/// agents did), and a tick would fetch over the network on every commit.
pub fn run_lives_on_remote(cwd: &Path) -> bool {
    common_dir(cwd).is_some_and(|c| c.join(runtime::DIR).join(runtime::REMOTE).is_file())
}

/// Whether a hook firing in the worktree at `cwd` is the run's business:
/// the run's own working tree, or a worktree on one of the run's
/// `supervisor/` branches. A commit on another branch in a linked worktree
/// never moves the run.
pub fn acts_here(cwd: &Path) -> bool {
    let Some(common) = common_dir(cwd) else {
        return true;
    };
    let Ok(recorded) = std::fs::read_to_string(common.join(runtime::DIR).join(runtime::WORKDIR))
    else {
        return true;
    };
    let run_tree = Path::new(recorded.trim_end_matches('\n'))
        .canonicalize()
        .ok();
    let here = cwd
        .ancestors()
        .find(|a| a.join(".git").exists())
        .and_then(|a| a.canonicalize().ok());
    if run_tree.is_none() || here == run_tree {
        return true;
    }
    // A linked worktree's HEAD is in its own git directory.
    let head = here
        .map(|h| h.join(".git"))
        .and_then(|dot| {
            if dot.is_dir() {
                Some(dot)
            } else {
                let text = std::fs::read_to_string(&dot).ok()?;
                let target = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
                Some(if target.is_absolute() {
                    target
                } else {
                    dot.parent()?.join(target)
                })
            }
        })
        .and_then(|g| std::fs::read_to_string(g.join("HEAD")).ok())
        .unwrap_or_default();
    head.trim().starts_with("ref: refs/heads/supervisor/")
}

fn common_dir(cwd: &Path) -> Option<PathBuf> {
    let git_dir = match std::env::var_os("GIT_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                cwd.join(d)
            }
        }
        None => {
            let dot = cwd
                .ancestors()
                .map(|a| a.join(".git"))
                .find(|p| p.exists())?;
            if dot.is_dir() {
                dot
            } else {
                // A linked worktree or submodule: `.git` is a file naming the
                // real directory.
                let text = std::fs::read_to_string(&dot).ok()?;
                let target = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
                if target.is_absolute() {
                    target
                } else {
                    dot.parent()?.join(target)
                }
            }
        }
    };
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(c) => {
            let c = PathBuf::from(c.trim());
            Some(if c.is_absolute() { c } else { git_dir.join(c) })
        }
        Err(_) => Some(git_dir),
    }
}
