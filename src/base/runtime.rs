//! The run's disposable files under the git common dir (`.git/supervisor/`):
//! one name for each, so every layer that reads or writes one agrees on it,
//! and the variables that point git at a repository, which nothing the
//! engine starts may inherit.

/// The directory under the git common dir that holds them all.
pub const DIR: &str = "supervisor";
/// The engine lock: one tick at a time.
pub const ENGINE_LOCK: &str = "engine.lock";
/// The build lock: one coordinated build at a time.
pub const BUILD_LOCK: &str = "build.lock";
/// A wake-up marker a busy engine's holder honours before letting go.
pub const WAKE: &str = "wake";
/// Present while a run exists (the hook shims test for it with builtins,
/// because the state ref may be packed).
pub const ACTIVE: &str = "active";
/// The directory the run's working tree was recorded in at `start`.
pub const WORKDIR: &str = "workdir";
/// The remote this clone's run lives on (`start --remote`, `worker`).
pub const REMOTE: &str = "remote";
/// When this clone first saw each lease it judges (its own clock).
pub const LEASES_SEEN: &str = "leases-seen";
/// One fetch or push at a time per clone.
pub const REMOTE_LOCK: &str = "remote.lock";
/// Liveness locks, logs, reports and results of agents.
pub const AGENTS: &str = "agents";
/// Job files handed to the wrappers.
pub const JOBS: &str = "jobs";
/// The prompts agents were given.
pub const PROMPTS: &str = "prompts";
/// Sprints the plan marks done whose criteria failed in this run.
pub const UNTRUSTED_MARKS: &str = "untrusted-marks";
/// The run's worktrees and what `land` leaves.
pub const WORKSPACES: &str = "workspaces";
/// The log of the phase builds' output.
pub const GATES_LOG: &str = "gates.log";
/// Which agent reports the engine has already taken in.
pub const RECONCILED: &str = "reconciled";

/// Where git finds the repository, index and objects it works on. Git sets
/// some of these for a hook (`GIT_INDEX_FILE` for a commit's hooks, even as
/// a relative `.git/index`; `GIT_DIR` in a linked worktree). Whatever
/// inherits them works on the hook's worktree, whichever directory it runs
/// in: an agent, or the engine's git commands in a unit's worktree.
pub const REPOSITORY_LOCATION: [&str; 7] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
];
