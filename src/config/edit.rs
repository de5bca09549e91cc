//! One value set in `.workflow/config.toml` as text, keeping every other
//! line, comment and blank as written: what `evaluate --max-turns` writes
//! for the run to read. Pure over the file's text.

/// `text` with `key = value` (a TOML literal) in `[table]`: the key's line
/// replaced when the table has it (a commented `# key =` example too), else
/// added under the table's header; the table is added at the end when the
/// file has none.
pub fn set_value(text: &str, table: &str, key: &str, value: &str) -> String {
    let header = format!("[{table}]");
    let line = format!("{key} = {value}\n");
    let is_key = |t: &str| {
        t.strip_prefix(key)
            .is_some_and(|r| r.trim_start().starts_with('='))
    };
    let mut out = String::new();
    let mut inside = false;
    let mut done = false;
    let mut example: Option<usize> = None;
    let mut header_end: Option<usize> = None;
    for l in text.split_inclusive('\n') {
        let t = l.trim();
        if t.starts_with('[') {
            inside = t == header;
            out.push_str(l);
            if inside {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                header_end = Some(out.len());
            }
            continue;
        }
        if inside && !done && is_key(t) {
            out.push_str(&line);
            done = true;
            continue;
        }
        if inside && !done && example.is_none() {
            if let Some(c) = t.strip_prefix('#') {
                if is_key(c.trim_start()) {
                    example = Some(out.len());
                }
            }
        }
        out.push_str(l);
    }
    if done {
        return out;
    }
    if let Some(at) = example.or(header_end) {
        out.insert_str(at, &line);
        return out;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&header);
    out.push('\n');
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::set_value;

    #[test]
    fn replaces_adds_under_the_header_or_adds_the_table() {
        let t = "[agent]\ncommand = [\"x\"]\nmax_turns = 50 # per sprint\n\n[run]\nmax_turns = 7\n";
        assert_eq!(
            set_value(t, "agent", "max_turns", "20"),
            "[agent]\ncommand = [\"x\"]\nmax_turns = 20\n\n[run]\nmax_turns = 7\n"
        );
        let t = "# top\n[agent]\n# max_turns = 50\ncommand = [\"x\"]\n";
        assert_eq!(
            set_value(t, "agent", "max_turns", "20"),
            "# top\n[agent]\nmax_turns = 20\n# max_turns = 50\ncommand = [\"x\"]\n"
        );
        assert_eq!(
            set_value("[agent]\ncommand = [\"x\"]", "agent", "max_turns", "20"),
            "[agent]\nmax_turns = 20\ncommand = [\"x\"]"
        );
        assert_eq!(
            set_value("[run]\nx = 1\n", "agent", "max_turns", "20"),
            "[run]\nx = 1\n\n[agent]\nmax_turns = 20\n"
        );
        assert_eq!(
            set_value("", "agent", "max_turns", "20"),
            "[agent]\nmax_turns = 20\n"
        );
    }
}
