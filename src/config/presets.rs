//! Agent presets: the commented blocks of `.workflow-template/config.toml`
//! and how one of them is switched on.
//!
//! The template is the single source of the presets. A block runs from a
//! `# preset: <name> (...)` line to `# end preset: <name>`; switching a
//! preset on removes one leading `# ` (or a lone `#`) from every line in
//! between, exactly what a person uncommenting it by hand does. So
//! `init --agent NAME` and a hand edit give the same file, and the template
//! test that loads each uncommented block covers both.

use std::path::PathBuf;

/// An agent the template has a preset for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    Claude,
    Codex,
    Aider,
    Script,
}

impl Preset {
    pub const ALL: [Preset; 4] = [Preset::Claude, Preset::Codex, Preset::Aider, Preset::Script];
    /// The CLIs `init` looks for on `PATH`, in order of preference.
    pub const DETECTED: [Preset; 3] = [Preset::Claude, Preset::Codex, Preset::Aider];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Claude => "claude",
            Preset::Codex => "codex",
            Preset::Aider => "aider",
            Preset::Script => "script",
        }
    }

    /// The program the preset runs (for the CLIs, what is looked up on
    /// `PATH`).
    pub fn program(self) -> &'static str {
        match self {
            Preset::Claude => "claude",
            Preset::Codex => "codex",
            Preset::Aider => "aider",
            Preset::Script => ".workflow/agent.sh",
        }
    }
}

/// Why a preset could not be switched on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PresetError {
    #[error("the template has no block `# preset: {0}` … `# end preset: {0}`")]
    Missing(&'static str),
}

/// The template text with the block of `preset` uncommented; every other
/// line is kept byte for byte.
pub fn enable(template: &str, preset: Preset) -> Result<String, PresetError> {
    let start = format!("# preset: {} ", preset.name());
    let end = format!("# end preset: {}", preset.name());
    let mut out = String::with_capacity(template.len());
    let mut inside = false;
    let mut found = false;
    for line in template.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !inside && bare.starts_with(&start) {
            inside = true;
            out.push_str(line);
            continue;
        }
        if inside && bare == end {
            inside = false;
            found = true;
            out.push_str(line);
            continue;
        }
        if inside {
            let uncommented = line
                .strip_prefix("# ")
                .or_else(|| line.strip_prefix('#'))
                .unwrap_or(line);
            out.push_str(uncommented);
        } else {
            out.push_str(line);
        }
    }
    if found {
        Ok(out)
    } else {
        Err(PresetError::Missing(preset.name()))
    }
}

/// Where `program` is found on `path` (a `PATH`-style list), if anywhere.
pub fn find_on_path(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

/// Whether `path` is a regular file someone may execute.
pub fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first agent CLI of [`Preset::DETECTED`] found on `path`, with where.
pub fn detect(path: &std::ffi::OsStr) -> Option<(Preset, PathBuf)> {
    Preset::DETECTED
        .iter()
        .find_map(|p| find_on_path(p.program(), path).map(|found| (*p, found)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "[run]\nx = 1\n\n# preset: a (one)\n# [agent]\n# command = [\"a\"]\n#\n# end preset: a\n";

    #[test]
    fn enabling_removes_one_comment_marker_inside_the_block_only() {
        let text = TEXT.replace("preset: a", "preset: claude");
        let on = enable(&text, Preset::Claude).expect("block present");
        assert_eq!(
            on,
            "[run]\nx = 1\n\n# preset: claude (one)\n[agent]\ncommand = [\"a\"]\n\n# end preset: claude\n"
        );
        assert_eq!(
            enable(&text, Preset::Codex),
            Err(PresetError::Missing("codex"))
        );
    }

    #[test]
    fn detection_takes_the_first_cli_in_order() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["aider", "codex"] {
            let p = dir.path().join(name);
            std::fs::write(&p, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // Not executable: not found.
        std::fs::write(dir.path().join("claude"), "").expect("write");
        let (preset, at) = detect(dir.path().as_os_str()).expect("found");
        assert_eq!((preset, at), (Preset::Codex, dir.path().join("codex")));
        assert!(detect(std::ffi::OsStr::new("")).is_none());
    }
}
