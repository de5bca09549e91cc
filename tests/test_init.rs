//! `git supervisor init`: copies the template, never overwrites without
//! `--force`, and the copied config and example plan are valid.

use crate::common::run;

#[test]
fn init_copies_the_template_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["init"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("write EXECUTION_PLAN.md"),
        "{}",
        out.stdout
    );
    let config = dir.path().join(".workflow/config.toml");
    assert!(config.is_file());
    assert!(dir
        .path()
        .join(".workflow/EXECUTION_PLAN.example.md")
        .is_file());

    std::fs::write(&config, "# mine\n").expect("write");
    let again = run(dir.path(), &["init"]);
    assert_eq!(again.status, 1);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(&config).expect("read"),
        "# mine\n",
        "init overwrote a file"
    );

    // With a plan already written, the next step is to check it.
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), "# Mine\n").expect("plan");
    let forced = run(dir.path(), &["init", "--force"]);
    assert_eq!(forced.status, 0, "{}", forced.stderr);
    assert!(
        forced
            .stdout
            .contains("run `git supervisor plan` to check EXECUTION_PLAN.md")
            && !forced.stdout.contains("write EXECUTION_PLAN.md"),
        "{}",
        forced.stdout
    );
    assert_ne!(std::fs::read_to_string(&config).expect("read"), "# mine\n");
}

#[test]
fn the_template_is_a_valid_config_and_plan() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(run(dir.path(), &["init"]).status, 0);
    std::fs::copy(
        dir.path().join(".workflow/EXECUTION_PLAN.example.md"),
        dir.path().join("EXECUTION_PLAN.md"),
    )
    .expect("copy");
    let out = run(dir.path(), &["plan"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Work units: 3"), "{}", out.stdout);
}

/// Issue 14: each commented preset of the template uncomments cleanly into a
/// config that loads, names its CLI, asks for machine-readable output and
/// maps every model tier to a model of its own provider.
#[test]
fn each_preset_of_the_template_uncomments_into_a_config_that_loads() {
    use git_supervisor::config::presets::enable;
    use git_supervisor::config::presets::Preset;
    use git_supervisor::config::Config;
    use git_supervisor::config::PromptDelivery;

    let template = std::fs::read_to_string(
        crate::common::manifest_dir().join(".workflow-template/config.toml"),
    )
    .expect("template");
    // As shipped, no preset is on and the rest loads.
    let plain = Config::parse(&template, "template").expect("template loads");
    assert!(plain.agent_command().is_none());
    let mut tiers = Vec::new();
    for preset in Preset::ALL {
        let text = enable(&template, preset).expect("block present");
        // Uncommenting by hand is the same edit: only lines of the block change.
        let changed: Vec<(&str, &str)> = template
            .lines()
            .zip(text.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert!(changed.iter().all(|(a, b)| a.starts_with('#')
            && (a.strip_prefix("# ") == Some(b) || a.strip_prefix('#') == Some(b))));
        let config = Config::parse(&text, preset.name())
            .unwrap_or_else(|e| panic!("preset {} does not load: {e:?}", preset.name()));
        let argv = config.agent_command().expect("command set");
        assert_eq!(argv[0], preset.program());
        let joined = argv.join(" ");
        match preset {
            Preset::Claude => {
                assert!(joined.contains("--output-format json"), "{joined}");
                // Works as root: no --dangerously-skip-permissions.
                assert!(joined.contains("--permission-mode acceptEdits"), "{joined}");
                assert!(joined.contains("--allowedTools Bash"), "{joined}");
                assert!(!joined.contains("dangerously"), "{joined}");
                let resume = config.resume_command().expect("resume_command").join(" ");
                assert!(resume.contains("--resume {session_id}"), "{resume}");
                assert!(resume.contains("--permission-mode acceptEdits"), "{resume}");
                assert_eq!(config.agent.prompt, PromptDelivery::Stdin);
            }
            Preset::Codex => {
                assert!(joined.contains("exec --json"), "{joined}");
                assert!(joined.contains("--sandbox danger-full-access"), "{joined}");
                let resume = config.resume_command().expect("resume_command").join(" ");
                assert!(resume.contains("exec resume"), "{resume}");
                assert!(
                    resume.contains("sandbox_mode=danger-full-access"),
                    "{resume}"
                );
                assert_eq!(config.agent.prompt, PromptDelivery::Stdin);
                assert!(
                    config.models.haiku.starts_with("gpt-"),
                    "{:?}",
                    config.models
                );
            }
            Preset::Aider => {
                assert!(joined.contains("--message-file {prompt_file}"), "{joined}");
                assert!(joined.contains("--yes-always"), "{joined}");
                assert!(joined.contains("--no-check-update"), "{joined}");
                assert!(joined.contains("--analytics-disable"), "{joined}");
                assert_eq!(config.agent.prompt, PromptDelivery::File);
                assert!(
                    config.models.opus.starts_with("gpt-"),
                    "{:?}",
                    config.models
                );
            }
            Preset::Script => assert_eq!(config.agent.prompt, PromptDelivery::File),
        }
        tiers.push(config.models);
    }
    // Codex and aider do not serve Claude's tier names.
    assert_ne!(tiers[0], tiers[1]);
    assert_ne!(tiers[0], tiers[2]);
}

#[test]
fn init_agent_writes_the_preset_uncommented_and_a_runnable_example_script() {
    for agent in ["claude", "codex", "aider", "script"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = run(dir.path(), &["init", "--agent", agent]);
        assert_eq!(out.status, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains(&format!("agent: {agent}\n")),
            "{}",
            out.stdout
        );
        let text =
            std::fs::read_to_string(dir.path().join(".workflow/config.toml")).expect("config");
        let config = git_supervisor::config::Config::parse(&text, "config").expect("loads");
        let argv = config.agent_command().expect("agent.command is set");
        if agent == "script" {
            let script = dir.path().join(&argv[0]);
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&script)
                .expect("script written")
                .permissions()
                .mode();
            assert_ne!(mode & 0o111, 0, "the example script is executable");
        } else {
            assert_eq!(argv[0], agent);
        }
    }
}

#[test]
fn init_without_agent_picks_the_first_cli_on_path_and_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().expect("tempdir");
    for name in ["aider", "codex", "notify-send"] {
        let p = bin.path().join(name);
        std::fs::write(&p, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let init = |path: &std::path::Path| {
        let out = crate::common::command(crate::common::bin(), dir.path())
            .env("PATH", path)
            .args(["init", "--force"])
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stdout = init(bin.path());
    assert!(
        stdout.contains(&format!(
            "agent: codex (found {} on PATH",
            bin.path().join("codex").display()
        )),
        "{stdout}"
    );
    let text = std::fs::read_to_string(dir.path().join(".workflow/config.toml")).expect("config");
    let config = git_supervisor::config::Config::parse(&text, "config").expect("loads");
    assert_eq!(config.agent_command().expect("set")[0], "codex");
    // A desktop with notify-send is told when the run needs the user.
    assert!(stdout.contains("notify: notify-send (found"), "{stdout}");
    let notify = config.notify.command.expect("notify-send offered");
    assert!(notify[2].starts_with("notify-send "), "{notify:?}");

    let empty = tempfile::tempdir().expect("tempdir");
    let stdout = init(empty.path());
    assert!(
        stdout.contains("agent: none of claude, codex, aider"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(dir.path().join(".workflow/config.toml")).expect("config");
    let config = git_supervisor::config::Config::parse(&text, "config").expect("loads");
    assert!(config.agent_command().is_none());
    assert!(config.notify.command.is_none());
    assert!(stdout.contains("notify: off"), "{stdout}");
}

#[test]
fn init_fills_the_build_command_from_the_projects_own_files() {
    type Case = (
        &'static str,
        &'static [(&'static str, &'static str)],
        Option<&'static str>,
    );
    let cases: [Case; 3] = [
        (
            "cargo",
            &[(
                "Cargo.toml",
                "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
            )],
            Some("cargo build && cargo test"),
        ),
        (
            "go",
            &[("go.mod", "module example.com/x\n\ngo 1.22\n")],
            Some("go build ./... && go test ./..."),
        ),
        ("nothing", &[("README.md", "# x\n")], None),
    ];
    for (name, files, want) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        crate::common::git(dir.path(), &["init", "-q"]);
        for (f, text) in files {
            std::fs::write(dir.path().join(f), text).expect("file");
        }
        let out = run(dir.path(), &["init", "--agent", "script"]);
        assert_eq!(out.status, 0, "{name}: {}", out.stderr);
        let config =
            git_supervisor::config::Config::load(dir.path()).expect("the written config loads");
        assert_eq!(config.build.command.as_deref(), want, "{name}");
        match want {
            Some(cmd) => assert!(
                out.stdout.contains(&format!("build: `{cmd}`")),
                "{name}: {}",
                out.stdout
            ),
            None => assert!(
                out.stdout.contains("no build or test command recognised"),
                "{name}: {}",
                out.stdout
            ),
        }
    }
}

/// A project with a `.env` gets it copied into each unit's worktree, said
/// in the config and in what `init` prints.
#[test]
fn init_proposes_copying_the_projects_env_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(".env"), "API_KEY=x\n").expect("env");
    let out = crate::common::run(dir.path(), &["init", "--agent", "script"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("workspace: copy = [\".env\"]"),
        "{}",
        out.stdout
    );
    let text = std::fs::read_to_string(dir.path().join(".workflow/config.toml")).expect("config");
    let config = git_supervisor::config::Config::parse(&text, "config").expect("loads");
    assert_eq!(config.workspace.copy, [".env"]);
    assert!(
        text.contains("copy = [\".env\"]                  # this project's .env"),
        "{text}"
    );
}
