//! Property tests over hostile names and configs: any unit name becomes a
//! runtime file name that stays in its directory, and any config text either
//! loads with every duration bounded or is refused, never a panic. Real
//! runs over generated names and configs check the whole path end to end.

use std::time::Duration;
use std::time::Instant;

use git_supervisor::base::runtime_name;
use git_supervisor::config::Config;
use git_supervisor::config::MAX_DURATION;
use proptest::prelude::*;

/// Names a plan can give a unit: path-like, shell-like, control characters,
/// any Unicode, very long.
fn unit_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[./]{0,8}[a-z]{0,6}(/\\.\\.){0,4}",
        "\\PC{0,40}",
        ".{0,300}",
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        "[$`;|&(){}<>*?~ ]{1,20}",
        "(\\.\\./){1,10}(index|HEAD|refs/heads/main|config)",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_unit_name_is_one_safe_file_name(name in unit_name(), sprint in "\\PC{0,12}", n in 1u32..1000) {
        for file in [runtime_name::component(&name), runtime_name::lock(&name), runtime_name::stem(&name, &sprint, n)] {
            prop_assert!(!file.is_empty());
            prop_assert!(file.len() <= 100, "{file}");
            prop_assert!(file != "." && file != "..");
            prop_assert!(!file.contains('/') && !file.contains('\0'), "{file}");
            prop_assert!(
                file.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
                "{file}"
            );
            // Never a name git itself uses in a directory it owns.
            prop_assert!(!["index", "HEAD", "config", "index.lock", "HEAD.lock"].contains(&file.as_str()));
        }
    }

    #[test]
    fn distinct_names_get_distinct_files(a in unit_name(), b in unit_name()) {
        prop_assume!(a != b);
        prop_assert_ne!(runtime_name::component(&a), runtime_name::component(&b));
    }
}

/// Values a config key can be given, well-formed or not.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "\"[0-9]{1,20}(ns|ms|s|m|h|d|y|w)\"",
        "\"[0-9]{1,3}(s|m) [0-9]{1,3}(s|m)\"",
        Just("\"off\"".to_string()),
        Just("\"\"".to_string()),
        "-?[0-9]{1,25}",
        "-?[0-9]{1,6}\\.[0-9]{1,6}(e[0-9]{1,3})?",
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("true".to_string()),
        "\\[(\"\\PC{0,8}\", ?){0,3}\\]",
        "\"\\PC{0,20}\"",
    ]
}

fn config_text() -> impl Strategy<Value = String> {
    let keys = prop_oneof![
        Just(("agent", "command")),
        Just(("agent", "resume_command")),
        Just(("agent", "silence_notice")),
        Just(("agent", "silence_kill")),
        Just(("agent", "timeout")),
        Just(("agent", "kill_grace")),
        Just(("agent", "max_turns")),
        Just(("agent", "prompt")),
        Just(("run", "max_retries")),
        Just(("run", "poll_interval")),
        Just(("run", "retry_delay")),
        Just(("run", "rate_limit_wait")),
        Just(("run", "budget_usd")),
        Just(("run", "max_continuations")),
        Just(("build", "command")),
        Just(("build", "timeout")),
        Just(("hooks", "guard")),
        Just(("nonsense", "key")),
    ];
    proptest::collection::vec((keys, value()), 0..10).prop_map(|entries| {
        let mut sections: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        for ((section, key), v) in entries {
            sections
                .entry(section)
                .or_default()
                .push(format!("{key} = {v}"));
        }
        let mut text = String::new();
        for (section, lines) in sections {
            text.push_str(&format!("[{section}]\n{}\n", lines.join("\n")));
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_config_loads_bounded_or_is_refused(text in config_text()) {
        let Ok(config) = Config::parse(&text, "config.toml") else {
            return Ok(());
        };
        let durations = [
            config.agent.silence_notice,
            config.agent.silence_kill.unwrap_or(Duration::ZERO),
            config.agent.timeout,
            config.agent.kill_grace,
            config.run.poll_interval,
            config.run.retry_delay,
            config.run.rate_limit_wait,
            config.build.timeout,
        ];
        let now = Instant::now();
        for d in durations {
            prop_assert!(d <= MAX_DURATION, "{d:?} from\n{text}");
            // What every deadline computes: must never overflow.
            prop_assert!(now.checked_add(d).is_some());
        }
        if let Some(b) = config.run.budget_usd {
            prop_assert!(b.is_finite() && b >= 0.0, "{b} from\n{text}");
        }
        let _ = git_supervisor::dispatch::liveness::Timing::from_config(&config);
    }
}

/// The generator reaches configs that load, not only refusals.
#[test]
fn the_config_generator_yields_loadable_configs() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = config_text();
    let loaded = (0..500)
        .filter(|_| {
            let text = strategy.new_tree(&mut runner).expect("tree").current();
            Config::parse(&text, "config.toml").is_ok()
        })
        .count();
    assert!(loaded > 20, "only {loaded} of 500 generated configs loaded");
}

/// A name as a plan can carry it in a table cell and a heading: one line,
/// no cell bar, not blank.
fn plan_name() -> impl Strategy<Value = String> {
    unit_name()
        .prop_map(|n| {
            // A backtick opens a code span that swallows the cell's bar.
            n.replace(
                ['\n', '\r', '|', '`', '\u{85}', '\u{2028}', '\u{2029}'],
                " ",
            )
            .trim()
            .to_string()
        })
        // A name of punctuation alone is refused ("has no sprints": its
        // heading cannot be told from prose); one letter makes it a name.
        .prop_map(|n| {
            if n.chars().any(char::is_alphanumeric) {
                n
            } else {
                format!("u{n}")
            }
        })
}

/// A config for the fake agent whose values may be anything from sensible
/// to refused; the ones that load keep a run short.
fn run_config() -> impl Strategy<Value = String> {
    let short = prop_oneof![
        12 => prop_oneof![Just("\"10ms\""), Just("\"200ms\""), Just("\"1s\"")],
        1 => prop_oneof![
            Just("\"0s\""),
            Just("\"500000000000y\""),
            Just("\"-1s\""),
            Just("\"\u{1b}[2J\""),
            Just("7"),
        ],
    ];
    let retries = prop_oneof![
        6 => prop_oneof![Just("1"), Just("3")],
        1 => prop_oneof![Just("0"), Just("-1"), Just("1e99")],
    ];
    (
        short.clone(),
        short.clone(),
        short.clone(),
        short,
        retries,
        proptest::bool::weighted(0.15),
    )
        .prop_map(|(poll, notice, grace, delay, retries, junk)| {
            format!(
                "[agent]\ncommand = [\"fake-agent\"]\nprompt = \"stdin\"\nsilence_notice = {notice}\nsilence_kill = \"3s\"\nkill_grace = {grace}\n\n[run]\nmax_retries = {retries}\npoll_interval = {poll}\nretry_delay = {delay}\n{}",
                if junk { "\n[nonsense]\nkey = \"../../x\"\n" } else { "" }
            )
        })
}

/// Every path under `dir`, relative to it.
fn listing(dir: &std::path::Path) -> std::collections::BTreeSet<std::path::PathBuf> {
    let mut files = Vec::new();
    crate::test_hostile::every_file(dir, &mut files);
    files
        .into_iter()
        .map(|f| f.strip_prefix(dir).expect("under dir").to_path_buf())
        .collect()
}

/// Real runs over generated names and configs: whatever `start --wait`
/// makes of them, it does not panic, writes nothing beside the repository
/// and nothing in `.git` but git's own records and `.git/supervisor`, and
/// leaves no git lock; a refused start records no run.
#[test]
fn generated_names_and_configs_run_without_escape_lock_or_panic() {
    use crate::common::git;
    use proptest::strategy::ValueTree;
    const CASES: usize = 24;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (proptest::collection::vec(plan_name(), 1..4), run_config());
    let script = crate::common::scripts(&[("default.txt", crate::common::SUCCEED)]);
    let (mut ran, mut refused) = (0, 0);
    for case in 0..CASES {
        let (mut names, config) = strategy.new_tree(&mut runner).expect("tree").current();
        names.sort();
        names.dedup();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let outer = tempfile::tempdir().expect("tempdir");
        let dir = crate::test_hostile::repo_with(
            outer.path(),
            &crate::test_hostile::table_plan(&names),
            None,
        );
        std::fs::write(dir.join(".workflow/config.toml"), &config).expect("config");
        git(&dir, &["commit", "-qam", "generated config"]);
        let before = listing(&dir.join(".git"));
        let tree_before = listing(&dir);

        let mut child = crate::common::command(crate::common::bin(), &dir)
            .args(["start", "--yes", "--wait"])
            .env("FAKE_AGENT_SCRIPT", script.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let started = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed() > Duration::from_secs(90) {
                let _ = child.kill();
                let _ = crate::common::run(&dir, &["killall"]);
                panic!("case {case}: start --wait hung on {names:?} with\n{config}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let context = format!("case {case}: {names:?} with\n{config}\n{stdout}\n{stderr}");
        assert_ne!(out.status.code(), Some(101), "{context}");
        assert!(!stderr.contains("panicked"), "{context}");
        let state = git(&dir, &["for-each-ref", "refs/supervisor/state"]);
        if out.status.success() {
            ran += 1;
        } else if state.trim().is_empty() {
            refused += 1;
            eprintln!(
                "case {case} refused: {names:?} {}",
                stderr
                    .lines()
                    .filter(|l| l.contains("×"))
                    .collect::<Vec<_>>()
                    .join(" / ")
            );
            assert!(
                stderr.contains("config.toml") || stderr.contains("EXECUTION_PLAN.md"),
                "a refusal names the file at fault: {context}"
            );
        } else {
            // Recorded, then failed (agents ended for silence, retries
            // spent): the run is over, its agents gone.
            let _ = crate::common::run(&dir, &["killall"]);
        }

        // Beside the repository: at most the units' worktrees (the plans
        // have parallel units, so runs use worktrees by default).
        let mut beside: Vec<_> = std::fs::read_dir(outer.path())
            .expect("outer")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        beside.sort();
        beside.retain(|n| n != "repo.supervisor");
        assert_eq!(beside, vec![std::ffi::OsString::from("repo")], "{context}");
        // In the working tree only the agents' own files are new.
        for new in listing(&dir).difference(&tree_before) {
            assert!(
                new.starts_with(".git") || ["d1", "d2", "d3"].iter().any(|d| new.starts_with(d)),
                "{new:?} appeared in the working tree: {context}"
            );
        }
        for new in listing(&dir.join(".git")).difference(&before) {
            let top = new.components().next().expect("a path");
            let top = top.as_os_str().to_string_lossy();
            assert!(
                [
                    "supervisor",
                    "objects",
                    "refs",
                    "logs",
                    "hooks",
                    "worktrees"
                ]
                .contains(&top.as_ref())
                    || ["index", "packed-refs", "COMMIT_EDITMSG", "ORIG_HEAD"]
                        .contains(&top.as_ref()),
                "{new:?} appeared in .git: {context}"
            );
            let name = new.file_name().expect("name").to_string_lossy();
            assert!(
                !name.ends_with(".lock") || top == "supervisor",
                "{new:?} left in .git: {context}"
            );
        }
        let fsck = crate::common::command("git", &dir)
            .args(["fsck"])
            .output()
            .expect("fsck");
        assert!(fsck.status.success(), "{context}");
    }
    eprintln!("generated runs: {ran} completed, {refused} refused, of {CASES}");
    assert!(ran >= 6 && refused >= 1, "{ran} ran, {refused} refused");
}
