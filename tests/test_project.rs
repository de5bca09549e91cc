//! The project's own commands, detected from real directories of each
//! ecosystem: what `evaluate` writes into criteria, `breakdown` into exit
//! criteria, and the prompts use as syntax checks.

use std::path::Path;

use git_supervisor::config::project_commands;

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        let p = dir.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        if name.ends_with('/') {
            std::fs::create_dir_all(&p).expect("mkdir");
        } else {
            std::fs::write(&p, text).expect("write");
        }
    }
    dir
}

fn found(dir: &Path) -> (String, Option<String>, Option<String>) {
    let p = project_commands(dir).expect("detected");
    (p.ecosystem.to_string(), p.build, p.test)
}

/// Root files of a project, and what should be found in it.
type Files = Vec<(&'static str, &'static str)>;
type Found = (&'static str, Option<String>, Option<String>);

fn s(x: &str) -> Option<String> {
    Some(x.to_string())
}

#[test]
fn each_ecosystem_is_detected_from_its_files() {
    let cases: Vec<(Files, Found)> = vec![
        (
            vec![
                ("Cargo.toml", "[package]\nname = \"x\"\n"),
                ("src/lib.rs", ""),
            ],
            ("cargo", s("cargo build"), s("cargo test")),
        ),
        (
            vec![(
                "package.json",
                r#"{"scripts": {"build": "tsc", "test": "vitest"}}"#,
            )],
            ("npm", s("npm run build"), s("npm test")),
        ),
        (
            vec![
                ("package.json", r#"{"scripts": {"test": "jest"}}"#),
                ("pnpm-lock.yaml", "lockfileVersion: 9\n"),
            ],
            ("pnpm", None, s("pnpm test")),
        ),
        (
            vec![
                ("package.json", r#"{"scripts": {"build": "vite build"}}"#),
                ("yarn.lock", ""),
            ],
            ("yarn", s("yarn build"), None),
        ),
        (
            vec![("go.mod", "module example.com/x\n\ngo 1.22\n")],
            ("go", s("go build ./..."), s("go test ./...")),
        ),
        (
            vec![
                ("pyproject.toml", "[project]\nname = \"x\"\n"),
                ("tests/", ""),
            ],
            ("pytest", None, s("pytest")),
        ),
        (
            vec![("pytest.ini", "[pytest]\n")],
            ("pytest", None, s("pytest")),
        ),
        (
            vec![("setup.cfg", "[tool:pytest]\naddopts = -q\n")],
            ("pytest", None, s("pytest")),
        ),
        (
            vec![("Package.swift", "// swift-tools-version:5.9\n")],
            ("swift", s("swift build"), s("swift test")),
        ),
        (
            vec![(
                "Makefile",
                "all:\n\tcc -o x x.c\ncheck: all\n\t./x --self-test\n",
            )],
            ("make", s("make"), s("make check")),
        ),
        (
            vec![(
                "CMakeLists.txt",
                "cmake_minimum_required(VERSION 3.20)\nproject(x C)\n",
            )],
            (
                "cmake",
                s("cmake -S . -B build && cmake --build build"),
                s("ctest --test-dir build"),
            ),
        ),
    ];
    for (files, (eco, build, test)) in cases {
        let dir = repo(&files);
        assert_eq!(
            found(dir.path()),
            (eco.to_string(), build, test),
            "{files:?}"
        );
    }
    // Nothing recognised: nothing invented.
    let none = repo(&[("README.md", "# x\n"), ("pyproject.toml", "[project]\n")]);
    assert_eq!(project_commands(none.path()), None);
}

#[test]
fn checkers_are_the_projects_own() {
    let cargo = repo(&[("Cargo.toml", "[package]\n")]);
    let p = project_commands(cargo.path()).expect("cargo");
    assert_eq!(p.syntax_for("Rust"), Some("cargo check --quiet"));
    let ts = repo(&[
        ("package.json", r#"{"scripts": {"test": "vitest"}}"#),
        ("tsconfig.json", "{}"),
    ]);
    let p = project_commands(ts.path()).expect("npm");
    assert_eq!(
        p.syntax_for("TypeScript"),
        Some("npx --no-install tsc --noEmit")
    );
    let plain = repo(&[("package.json", r#"{"scripts": {"test": "node t.js"}}"#)]);
    assert_eq!(
        project_commands(plain.path())
            .expect("npm")
            .syntax_for("TypeScript"),
        None
    );
}

#[test]
fn a_fifo_named_like_a_project_file_is_not_read() {
    let dir = repo(&[]);
    let fifo = dir.path().join("package.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    // Reading it would block forever; it is skipped instead.
    assert_eq!(project_commands(dir.path()), None);
}

#[test]
fn evaluate_and_breakdown_use_the_detected_commands() {
    let dir = repo(&[
        ("Package.swift", "// swift-tools-version:5.9\n"),
        (
            "EXECUTION_PLAN.md",
            "# X\n\n## Sprint 1: Port\n\n- Create `Sources/Port/Port.swift`\n- Create `Tests/PortTests/PortTests.swift`\n\n**Exit Criteria**:\n- [ ] The port works correctly\n",
        ),
        ("REQUIREMENTS.md", "# Y\n\n## Requirements\n\n- Record a book\n"),
    ]);
    let out = crate::common::run(dir.path(), &["evaluate"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let plan = std::fs::read_to_string(dir.path().join("EXECUTION_PLAN.md")).expect("plan");
    assert!(plan.contains("`swift test`"), "{plan}\n{}", out.stdout);
    assert!(
        !out.stdout.contains("split by concern"),
        "Sources/Port and Tests/PortTests are one concern: {}",
        out.stdout
    );
    std::fs::remove_file(dir.path().join("EXECUTION_PLAN.md")).expect("rm");
    let out = crate::common::run(dir.path(), &["breakdown", "REQUIREMENTS.md"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let plan = std::fs::read_to_string(dir.path().join("EXECUTION_PLAN.md")).expect("plan");
    assert!(plan.contains("build passes: `swift test`"), "{plan}");
}
