//! Reading `plan --format json` of a fixture plan under `tests/plans/`:
//! its units, sprints, dependencies, exit criteria and done marks.

use serde_json::Value;

use crate::common::plans_dir;
use crate::common::run;

/// One test per fixture: its `plan --format json` output matches the
/// snapshot named `<prefix><test name>`.
macro_rules! json_snapshots {
    ($prefix:literal: $($name:ident => $dir:literal),* $(,)?) => {$(
        #[test]
        fn $name() {
            let (_, _, out) = $crate::common::plan_json::json($dir);
            insta::assert_snapshot!(concat!($prefix, stringify!($name)), out);
        }
    )*};
}
pub(crate) use json_snapshots;

pub(crate) fn json(fixture: &str) -> (i32, Value, String) {
    let out = run(&plans_dir().join(fixture), &["plan", "--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{fixture}: not JSON ({e}): {}{}", out.stdout, out.stderr));
    (out.status, v, out.stdout)
}

pub(crate) fn units(v: &Value) -> Vec<String> {
    v["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["name"].as_str().expect("name").to_string())
        .collect()
}

pub(crate) fn sprint_ids(v: &Value, unit: usize) -> Vec<String> {
    v["units"][unit]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_string())
        .collect()
}

pub(crate) fn deps(v: &Value, unit: usize) -> Vec<String> {
    v["units"][unit]["deps"]
        .as_array()
        .expect("deps")
        .iter()
        .map(|d| d.as_str().expect("dep").to_string())
        .collect()
}

pub(crate) fn sprint(v: &Value, unit: usize, k: usize) -> &Value {
    &v["units"][unit]["sprints"][k]
}

pub(crate) fn exit_texts(s: &Value) -> Vec<(String, String)> {
    s["exit"]
        .as_array()
        .expect("exit")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().expect("kind").to_string(),
                c["text"].as_str().expect("text").to_string(),
            )
        })
        .collect()
}

/// How many sprints the plan holds, over every unit.
pub(crate) fn sprint_total(v: &Value) -> usize {
    v["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["sprints"].as_array().map_or(0, Vec::len))
        .sum()
}

pub(crate) fn sprint_names(v: &Value, unit: usize) -> Vec<String> {
    v["units"][unit]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_string())
        .collect()
}

/// Which sprints of unit `unit` the plan marks done, in order.
pub(crate) fn sprints_done(v: &Value, unit: usize) -> Vec<bool> {
    v["units"][unit]["sprints"]
        .as_array()
        .expect("sprints")
        .iter()
        .map(|s| s["done"].is_string())
        .collect()
}

/// The codes of a plan's `warnings` or `guesses`.
pub(crate) fn codes(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|w| w["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}
