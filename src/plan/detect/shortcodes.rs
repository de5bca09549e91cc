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
    ("hourglass", "⏳"),
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

/// Whether the code at `start..end` stands where a mark does: first in its
/// line or table cell (after a list marker, a box or a heading's `#`s), or
/// last in it. Inside words (`Implement: :x: failures`) it is text.
fn stands_as_mark(text: &str, start: usize, end: usize) -> bool {
    let line_start = text[..start].rfind(['\n', '|']).map_or(0, |p| p + 1);
    let before = &text[line_start..start];
    // A box drawn at a line's start with no list marker
    // (`:ballot_box_with_check:Order the PCB`) is read as a box already.
    let own_line = line_start == 0 || text.as_bytes()[line_start - 1] == b'\n';
    if own_line && before.trim().is_empty() && super::bare_boxes::drawn_box(&text[start..end]) {
        return false;
    }
    let first = before
        .chars()
        .all(|c| c.is_whitespace() || c.is_ascii_digit() || "#-*+>[]xX.)".contains(c));
    let rest = &text[end..];
    let line_end = rest.find(['\n', '|']).unwrap_or(rest.len());
    let last = rest[..line_end]
        .chars()
        .all(|c| c.is_whitespace() || "*_)".contains(c));
    first || last
}

/// Draws every state shortcode in `masked` as its emoji, in place.
pub(super) fn draw_state_shortcodes(masked: &mut String) {
    // Most plans write none: one pass over the colons, a look at the
    // letters after each.
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    let bytes = masked.as_bytes();
    let mut closed = 0;
    for (start, _) in masked.match_indices(':') {
        if start < closed || !bytes.get(start + 1).is_some_and(u8::is_ascii_lowercase) {
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
        let end = start + code_len + 2;
        if let Some((_, emoji)) = STATE_CODES
            .iter()
            .find(|(c, _)| *c == code)
            .filter(|_| stands_as_mark(masked, start, end))
        {
            found.push((start, code_len + 2, emoji));
            closed = end;
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
        let mut text = "**Status**: done at 10:30 :smile: :rocket:\nImplement: :x: handling here\n"
            .to_string();
        let before = text.clone();
        draw_state_shortcodes(&mut text);
        assert_eq!(text, before);
    }
}
