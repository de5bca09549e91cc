//! The project's own build and test commands, read from the files at the
//! repository's root. Recognised: `Cargo.toml` (cargo), `package.json`
//! scripts (npm, or pnpm/yarn by their lock file), `go.mod` (go),
//! `pyproject.toml`/`pytest.ini`/`setup.cfg`/`tox.ini` (pytest),
//! `Package.swift` (swift), a `Makefile` with `test`/`check`/`build` targets
//! and `CMakeLists.txt` (cmake + ctest). The first match in that order wins.
//! Besides build and test, the project-wide checkers the prompts' syntax
//! table prefers over single-file checks: `cargo check` for a crate, `tsc
//! --noEmit` with a `tsconfig.json`.
//!
//! Pure: [`detect`] takes a reader of root files, so tests hand it a map;
//! `config::project_commands` reads the directory. An explicit `[build] command` in the
//! configuration wins over anything found here.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectCommands {
    /// What was recognised: "cargo", "npm", "pnpm", "yarn", "go", "pytest",
    /// "swift", "make", "cmake".
    pub ecosystem: &'static str,
    pub build: Option<String>,
    pub test: Option<String>,
    /// Project-wide checks that stop short of a build, by language: a
    /// single-file check cannot resolve a crate's modules or a
    /// `tsconfig.json`'s settings, the project's own checker can.
    pub syntax: Vec<(&'static str, String)>,
}

impl ProjectCommands {
    fn new(ecosystem: &'static str, build: Option<&str>, test: Option<&str>) -> Self {
        ProjectCommands {
            ecosystem,
            build: build.map(str::to_string),
            test: test.map(str::to_string),
            syntax: Vec::new(),
        }
    }

    fn with_syntax(mut self, lang: &'static str, cmd: &str) -> Self {
        self.syntax.push((lang, cmd.to_string()));
        self
    }

    /// The project's check for files of `lang`, if it has one.
    pub fn syntax_for(&self, lang: &str) -> Option<&str> {
        self.syntax
            .iter()
            .find(|(l, _)| *l == lang)
            .map(|(_, c)| c.as_str())
    }
}

/// Targets a Makefile defines (`name:` at the start of a line, not `.PHONY`
/// and not a variable assignment `name := …`).
fn make_targets(makefile: &str) -> Vec<String> {
    makefile
        .lines()
        .filter(|l| !l.starts_with(['\t', ' ', '#', '.']))
        .filter_map(|l| {
            let (names, rest) = l.split_once(':')?;
            (!rest.starts_with('=')).then_some(names)
        })
        .flat_map(|names| names.split_whitespace().map(str::to_string))
        .collect()
}

/// `package.json` script names, without a JSON parser's strictness about
/// the rest of the file.
fn scripts(package_json: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(package_json) else {
        return Vec::new();
    };
    v.get("scripts")
        .and_then(|s| s.as_object())
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// Detect the commands from the root files `read` returns.
pub fn detect(read: impl Fn(&str) -> Option<String>) -> Option<ProjectCommands> {
    let has = |f: &str| read(f).is_some();
    if has("Cargo.toml") {
        return Some(
            ProjectCommands::new("cargo", Some("cargo build"), Some("cargo test"))
                .with_syntax("Rust", "cargo check --quiet"),
        );
    }
    if let Some(pkg) = read("package.json") {
        let tool = if has("pnpm-lock.yaml") {
            "pnpm"
        } else if has("yarn.lock") {
            "yarn"
        } else {
            "npm"
        };
        let names = scripts(&pkg);
        let run = |script: &str| {
            names
                .iter()
                .any(|n| n == script)
                .then(|| match (tool, script) {
                    ("npm", "test") => "npm test".to_string(),
                    ("npm", s) => format!("npm run {s}"),
                    (t, s) => format!("{t} {s}"),
                })
        };
        let mut found = ProjectCommands {
            ecosystem: tool,
            build: run("build"),
            test: run("test"),
            syntax: Vec::new(),
        };
        // TypeScript checks with the project's tsconfig, not file by file.
        if has("tsconfig.json") {
            let exec = match tool {
                "pnpm" => "pnpm exec",
                "yarn" => "yarn exec",
                _ => "npx --no-install",
            };
            found = found.with_syntax("TypeScript", &format!("{exec} tsc --noEmit"));
        }
        return Some(found);
    }
    if has("go.mod") {
        return Some(ProjectCommands::new(
            "go",
            Some("go build ./..."),
            Some("go test ./..."),
        ));
    }
    let pytest_cfg = |f: &str| read(f).is_some_and(|t| t.contains("[tool:pytest]"));
    if has("pytest.ini")
        || read("pyproject.toml").is_some_and(|t| t.contains("pytest") || has("tests"))
        || pytest_cfg("setup.cfg")
        || read("tox.ini").is_some_and(|t| t.contains("[pytest]"))
    {
        return Some(ProjectCommands::new("pytest", None, Some("pytest")));
    }
    if has("Package.swift") {
        return Some(ProjectCommands::new(
            "swift",
            Some("swift build"),
            Some("swift test"),
        ));
    }
    if let Some(makefile) = read("Makefile").or_else(|| read("makefile")) {
        let targets = make_targets(&makefile);
        let target = |t: &str| targets.iter().any(|x| x == t).then(|| format!("make {t}"));
        let test = target("test").or_else(|| target("check"));
        let build = target("build").or_else(|| Some("make".to_string()));
        return Some(ProjectCommands {
            ecosystem: "make",
            build,
            test,
            syntax: Vec::new(),
        });
    }
    if has("CMakeLists.txt") {
        return Some(ProjectCommands::new(
            "cmake",
            Some("cmake -S . -B build && cmake --build build"),
            Some("ctest --test-dir build"),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn on(files: &[(&str, &str)]) -> Option<ProjectCommands> {
        let m: BTreeMap<String, String> = files
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect(|f| m.get(f).cloned())
    }

    fn pair(p: Option<ProjectCommands>) -> (Option<String>, Option<String>) {
        let p = p.expect("detected");
        (p.build, p.test)
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn each_ecosystem_gives_its_commands() {
        assert_eq!(
            pair(on(&[("Cargo.toml", "[package]")])),
            (s("cargo build"), s("cargo test"))
        );
        let pkg = r#"{"scripts": {"build": "tsc", "test": "vitest"}}"#;
        assert_eq!(
            pair(on(&[("package.json", pkg)])),
            (s("npm run build"), s("npm test"))
        );
        assert_eq!(
            pair(on(&[("package.json", pkg), ("pnpm-lock.yaml", "")])),
            (s("pnpm build"), s("pnpm test"))
        );
        assert_eq!(
            pair(on(&[("package.json", pkg), ("yarn.lock", "")])),
            (s("yarn build"), s("yarn test"))
        );
        assert_eq!(
            pair(on(&[("package.json", r#"{"scripts": {"lint": "x"}}"#)])),
            (None, None),
            "no build or test script: nothing invented"
        );
        assert_eq!(
            pair(on(&[("go.mod", "module x")])),
            (s("go build ./..."), s("go test ./..."))
        );
        assert_eq!(
            pair(on(&[("pyproject.toml", "[tool.pytest.ini_options]")])),
            (None, s("pytest"))
        );
        assert_eq!(pair(on(&[("pytest.ini", "[pytest]")])), (None, s("pytest")));
        assert_eq!(
            pair(on(&[("Package.swift", "// swift-tools-version")])),
            (s("swift build"), s("swift test"))
        );
        assert_eq!(
            pair(on(&[(
                "Makefile",
                ".PHONY: check\nall:\n\tcc x.c\ncheck: all\n\t./t\nCC := cc\n"
            )])),
            (s("make"), s("make check"))
        );
        assert_eq!(
            pair(on(&[("Makefile", "build:\n\tcc\ntest: build\n\t./t\n")])),
            (s("make build"), s("make test"))
        );
        assert_eq!(
            on(&[("CMakeLists.txt", "project(x)")]).map(|p| p.test),
            Some(s("ctest --test-dir build"))
        );
        assert_eq!(on(&[("README.md", "# hi")]), None);
    }

    #[test]
    fn a_pyproject_without_pytest_is_not_a_pytest_project() {
        assert_eq!(on(&[("pyproject.toml", "[project]\nname = \"x\"")]), None);
    }
}
