//! Filling `{model} {max_turns} {prompt_file} {unit} {sprint}` into the
//! agent's argv template.
//!
//! Unit names are free text from the plan, so a value must never become code:
//! in the command string of a shell invocation (`sh -c STRING`, `bash -lc
//! STRING`, …) every value is substituted single-quoted for the shell. Other
//! arguments reach the program verbatim, so values go in unchanged there.

/// Shells whose `-c` argument is a script.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];

/// The argv with every placeholder filled; `values` pairs a placeholder
/// (`{unit}`) with its value.
pub fn fill(template: &[String], values: &[(&str, &str)]) -> Vec<String> {
    let script = script_index(template);
    template
        .iter()
        .enumerate()
        .map(|(i, arg)| {
            let quote = Some(i) == script;
            values.iter().fold(arg.clone(), |acc, (key, value)| {
                if quote {
                    acc.replace(key, &shell_quote(value))
                } else {
                    acc.replace(key, value)
                }
            })
        })
        .collect()
}

/// The index of the script argument when `template` runs a shell with `-c`
/// (also in a flag cluster like `-ec`): the first operand after that flag.
fn script_index(template: &[String]) -> Option<usize> {
    let program = template.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if !SHELLS.contains(&base) {
        return None;
    }
    let mut seen_c = false;
    for (i, arg) in template.iter().enumerate().skip(1) {
        if arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1 {
            seen_c |= arg[1..].contains('c');
            continue;
        }
        if seen_c {
            return Some(i);
        }
        // `busybox sh -c …`: the applet name is not the script.
        if base == "busybox" && i == 1 {
            continue;
        }
        return None;
    }
    None
}

/// `value` as one single-quoted shell word: `'` becomes `'\''`.
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_are_quoted_only_inside_a_shell_script() {
        let v = [("{unit}", "$(touch PWNED) it's")];
        assert_eq!(
            fill(&argv(&["sh", "-c", "run {unit}", "{unit}"]), &v),
            argv(&[
                "sh",
                "-c",
                r"run '$(touch PWNED) it'\''s'",
                "$(touch PWNED) it's"
            ])
        );
        assert_eq!(
            fill(&argv(&["/bin/bash", "-lc", "x {unit}"]), &v)[2],
            r"x '$(touch PWNED) it'\''s'"
        );
        assert_eq!(
            fill(&argv(&["agent", "--unit", "{unit}"]), &v)[2],
            "$(touch PWNED) it's"
        );
        assert_eq!(
            fill(&argv(&["sh", "script.sh", "{unit}"]), &v)[2],
            "$(touch PWNED) it's"
        );
    }
}
