//! git-supervisor: a git-native workflow engine.
//!
//! A plan (`EXECUTION_PLAN.md`) is parsed by [`plan`] into work units and
//! sprints; [`config`] says how agents are run. The [`cli`] module is the
//! imperative shell over them.

pub mod base;
pub mod cli;
pub mod config;
pub mod dispatch;
pub mod engine;
pub mod hooks;
pub mod machine;
pub mod plan;
pub mod plan_tools;
pub mod report;
pub mod store;
pub mod workspace;
