//! The start use-case, everything `git supervisor start` does between
//! reading the plan and printing: the ritual that names an unnamed plan, the
//! config and its snapshot, the checks of a run on a remote (the remote
//! exists, the agent program is committed), recording where the run lives,
//! the first transitions, the named plan's commit, and the layout the run's
//! worktrees take. The CLI parses the arguments and prints a [`Started`].

use std::path::Path;
use std::path::PathBuf;

use crate::config::Config;
use crate::config::CONFIG_DIR;
use crate::config::CONFIG_FILE;
use crate::machine::Overall;
use crate::machine::State;
use crate::plan::Plan;
use crate::plan_tools::name_feature::set_feature_name;
use crate::report::criteria::Unchecked;
use crate::store::remote;
use crate::store::worktree;
use crate::store::Store;

use super::io;
use super::naming::operation_name;
use super::Engine;
use super::EngineError;

/// A plan to start, as the CLI found and parsed it.
pub struct StartRequest {
    pub plan: Plan,
    /// The plan file's text.
    pub source: String,
    /// The plan file.
    pub path: PathBuf,
    /// The directory that holds it (the project root).
    pub root: PathBuf,
    /// `--remote`: run on this git remote (default: `[run] remote`).
    pub remote: Option<String>,
}

/// What a start did, for the CLI to tell.
pub struct Started {
    pub engine: Engine,
    pub config: Config,
    /// The run's first state.
    pub state: State,
    /// The remote the run lives on.
    pub remote: Option<String>,
    /// The plan had no name and got one now.
    pub christened: Option<Christening>,
    /// A finished run that did not complete, archived by this start.
    pub archived: Option<State>,
    /// With worktrees: where the units work.
    pub layout: Option<Layout>,
    /// The sprints no exit-criterion command can check: each completes on
    /// its agent's word.
    pub unchecked: Vec<Unchecked>,
}

/// The name a start gave the plan, and where it is kept.
pub struct Christening {
    pub name: String,
    pub kept: NameKept,
}

pub enum NameKept {
    /// Written into the plan and committed on its own, on this branch
    /// (`None`: a detached HEAD). The one commit `start` makes on the
    /// user's branch, in either workspace mode: the CLI says so.
    Committed { branch: Option<String> },
    /// The plan has uncommitted edits: the name is in the run only.
    PlanHasEdits,
    /// Committing the named plan failed (why): the plan was put back and
    /// the name is in the run only.
    CommitFailed(String),
}

/// Where a run with worktrees does its work.
pub struct Layout {
    /// The directory of the units' worktrees.
    pub dir: PathBuf,
    pub integration_branch: String,
    /// Files with uncommitted changes in the user's tree, which the
    /// worktrees (started from HEAD) do not have.
    pub uncommitted: usize,
}

/// Start a run of the plan in `request`. A refused start leaves the clone
/// as it was: no state, no recorded remote, the plan file untouched.
pub fn start_run(request: StartRequest) -> Result<Started, EngineError> {
    let StartRequest {
        mut plan,
        mut source,
        path,
        root,
        remote,
    } = request;
    // The ritual (spec §X-134): a plan without a name gets one, in the run's
    // snapshot now and in the working tree once the run has started. The
    // supervisor leaves no uncommitted edit of its own: a clean plan gets its
    // name in a commit of its own; a plan with uncommitted edits is left
    // alone and the name lives in the run's state only.
    let unnamed = match plan.feature_name {
        Some(_) => None,
        None => {
            let name = operation_name(&plan);
            let clean = worktree::is_clean(&path);
            if clean {
                source = set_feature_name(&source, &name);
            }
            plan.feature_name = Some(name.clone());
            Some((name, clean))
        }
    };
    let config = Config::load(&root).map_err(|e| EngineError::Config(Box::new(e)))?;
    // `[run] require_criteria`: refused before anything is written.
    let unchecked = crate::report::criteria::unchecked(&plan);
    if config.run.require_criteria && !unchecked.is_empty() {
        return Err(EngineError::CriteriaRequired {
            count: unchecked.len(),
            list: crate::report::criteria::list(&unchecked),
        });
    }
    let config_text =
        crate::config::read_regular(&root.join(CONFIG_DIR).join(CONFIG_FILE)).unwrap_or_default();
    // The clone remembers where its run lives, so every later command
    // (status, wait, resume, hooks) publishes there too.
    let remote = remote.or_else(|| config.run.remote.clone());
    if let Some(r) = remote.as_deref() {
        check_remote(&root, r, &config)?;
    }
    let store = Store::open(&root)?;
    let recorded = remote::recorded(&store.runtime_dir());
    remote::record(&store.runtime_dir(), remote.as_deref())
        .map_err(io("cannot record the run's remote"))?;
    // A refused start leaves the clone as it was: the remote it recorded
    // is put back.
    let put_back = |e: EngineError| {
        let _ = remote::record(&store.runtime_dir(), recorded.as_deref());
        e
    };
    let engine = Engine::open(&root).map_err(put_back)?;
    // A run that ended without completing is archived by a new start: say
    // so, since `resume` would have continued it.
    let previous = engine
        .store
        .tip()
        .ok()
        .flatten()
        .map(|t| t.state)
        .filter(|s| s.is_finished() && s.overall() != Overall::Completed);
    let state = engine
        .start(&plan, &source, &config_text, &config, &root)
        .map_err(put_back)?;
    let christened = match unnamed {
        None => None,
        Some((name, false)) => Some(Christening {
            name,
            kept: NameKept::PlanHasEdits,
        }),
        Some((name, true)) => {
            let kept = commit_name(&engine, &state, &config, &path, &source, &name)?;
            Some(Christening { name, kept })
        }
    };
    let layout = engine.workspaces(&state, &config).map(|ws| Layout {
        uncommitted: crate::workspace::git(
            &ws.repo,
            &["status", "--porcelain", "--untracked-files=no"],
        )
        .map(|r| r.stdout.lines().count())
        .unwrap_or(0),
        integration_branch: ws.integration_branch(),
        dir: ws.dir,
    });
    Ok(Started {
        engine,
        config,
        archived: previous.filter(|p| p.run_id != state.run_id),
        state,
        remote,
        christened,
        layout,
        unchecked,
    })
}

/// A run on `remote` needs the remote, and an agent program workers can
/// run from their own clones: one that lives in this repository must be
/// committed, or every attempt fails there.
fn check_remote(root: &Path, remote: &str, config: &Config) -> Result<(), EngineError> {
    if !remote::known(root, remote) {
        let names = remote::names(root);
        return Err(EngineError::NoRemote {
            remote: remote.to_string(),
            known: if names.is_empty() {
                "this clone has none".to_string()
            } else {
                format!("this clone's remotes: {}", names.join(", "))
            },
        });
    }
    let Some(program) = config.agent_command().and_then(|c| c.first()) else {
        return Ok(());
    };
    let relative = program.contains('/') && !Path::new(program).is_absolute();
    if relative {
        let committed = crate::workspace::git(
            root,
            &["rev-parse", "--verify", "-q", &format!("HEAD:./{program}")],
        )
        .is_ok_and(|r| r.code == 0);
        if !committed {
            return Err(EngineError::AgentNotCommitted {
                program: program.clone(),
                remote: remote.to_string(),
            });
        }
    }
    Ok(())
}

/// Write the name into the clean plan and commit it on its own, before any
/// agent is dispatched so no agent's scope holds it. A failed commit puts
/// the plan back: the name then lives in the run only.
fn commit_name(
    engine: &Engine,
    state: &State,
    config: &Config,
    path: &Path,
    named: &str,
    name: &str,
) -> Result<NameKept, EngineError> {
    let before = crate::config::read_regular(path).map_err(io("cannot read the plan"))?;
    worktree::write_file(path, named).map_err(io("cannot write the plan"))?;
    match worktree::commit_file(path, &format!("Name the plan: {name}")) {
        Ok(()) => {
            engine.integration_follows_head(state, config)?;
            let branch =
                crate::workspace::git(path_dir(path), &["symbolic-ref", "--short", "-q", "HEAD"])
                    .ok()
                    .filter(|r| r.code == 0)
                    .map(|r| r.stdout.trim().to_string())
                    .filter(|b| !b.is_empty());
            Ok(NameKept::Committed { branch })
        }
        Err(why) => {
            worktree::write_file(path, &before).map_err(io("cannot restore the plan"))?;
            Ok(NameKept::CommitFailed(why))
        }
    }
}

/// The directory a file is in, for running git there.
fn path_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}
