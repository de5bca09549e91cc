//! Property tests over hostile names and configs: any unit name becomes a
//! runtime file name that stays in its directory, and any config text either
//! loads with every duration bounded or is refused, never a panic. One real
//! run over generated names checks the whole path end to end.

use std::time::Duration;
use std::time::Instant;

use git_supervisor::config::Config;
use git_supervisor::config::MAX_DURATION;
use git_supervisor::dispatch::runtime_name;
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
