//! The ground floor every layer may use: the names of the files a run keeps
//! under `.git/supervisor/` (`runtime`, `runtime_name`), the file locks on
//! them (`lock`), the one stable hash (`hash`) and the escaping of names for
//! terminals and commit subjects (`escape`). Nothing here imports any other
//! module of the crate.

pub mod escape;
pub mod hash;
pub mod lock;
pub mod runtime;
pub mod runtime_name;
