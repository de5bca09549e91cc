//! GitHub's emoji shortcodes for states (`:white_check_mark:`,
//! `:white_large_square:`, `:construction:`): GitHub draws them as the
//! emoji, and a person reads `| 021 | … | :white_check_mark: |` as done,
//! so the reader sees the emoji too. Each code becomes its emoji padded
//! with spaces to the code's length, so every later span still points at
//! the plan's own bytes.

/// The codes that say a state, with the emoji GitHub draws for each.
const STATE_CODES: &[(&str, &str)] = &[
    ("white_check_mark", "✅"),
    ("heavy_check_mark", "✔"),
    ("ballot_box_with_check", "☑"),
    ("white_large_square", "⬜"),
    ("black_large_square", "⬛"),
    ("white_square_button", "🔳"),
    ("x", "❌"),
    ("heavy_multiplication_x", "✖"),
    ("negative_squared_cross_mark", "❎"),
    ("construction", "🚧"),
    ("hourglass", "⌛"),
    ("hourglass_flowing_sand", "⏳"),
    ("arrows_counterclockwise", "🔄"),
    ("repeat", "🔁"),
    ("no_entry", "⛔"),
    ("no_entry_sign", "🚫"),
    ("stop_sign", "🛑"),
    ("pause_button", "⏸"),
    ("soon", "🔜"),
    ("warning", "⚠"),
    ("red_circle", "🔴"),
    ("orange_circle", "🟠"),
    ("yellow_circle", "🟡"),
    ("green_circle", "🟢"),
    ("large_blue_circle", "🔵"),
    ("blue_circle", "🔵"),
    ("white_circle", "⚪"),
    ("radio_button", "🔘"),
];

/// Draws every state shortcode in `masked` as its emoji, in place.
pub(super) fn draw_state_shortcodes(masked: &mut String) {
    // Most plans write none: one search for the colon-letter pairs that
    // open them, then a look at each.
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    let bytes = masked.as_bytes();
    let mut at = 0;
    while let Some(p) = masked[at..].find(':') {
        let start = at + p;
        at = start + 1;
        let Some(first) = bytes.get(start + 1) else {
            break;
        };
        if !first.is_ascii_lowercase() {
            continue;
        }
        let code_len = bytes[start + 1..]
            .iter()
            .take(32)
            .take_while(|b| b.is_ascii_lowercase() || **b == b'_')
            .count();
        if bytes.get(start + 1 + code_len) != Some(&b':') {
            continue;
        }
        let code = &masked[start + 1..start + 1 + code_len];
        if let Some((_, emoji)) = STATE_CODES.iter().find(|(c, _)| *c == code) {
            found.push((start, code_len + 2, emoji));
            at = start + code_len + 2;
        }
    }
    for (start, len, emoji) in found {
        let padded = format!("{emoji}{}", " ".repeat(len - emoji.len()));
        masked.replace_range(start..start + len, &padded);
    }
}

#[cfg(test)]
mod tests {
    use super::draw_state_shortcodes;

    #[test]
    fn codes_become_emoji_of_the_same_length() {
        let mut text = "| 021 | Widgets | :white_check_mark: | 003 |\n- :x: failed\n".to_string();
        let len = text.len();
        draw_state_shortcodes(&mut text);
        assert_eq!(text.len(), len);
        assert!(text.starts_with("| 021 | Widgets | ✅"));
        assert!(text.contains("- ❌ failed"));
    }

    #[test]
    fn other_colons_are_left_alone() {
        let mut text = "**Status**: done at 10:30 :smile: :rocket:\n".to_string();
        let before = text.clone();
        draw_state_shortcodes(&mut text);
        assert_eq!(text, before);
    }
}
