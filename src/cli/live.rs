//! The live view on a terminal: the screen of `report::live` redrawn in
//! place (crossterm moves the cursor back over what was drawn and clears
//! it), so `run` and `status --watch` show one screen that changes, not a
//! scroll of tables. Off a terminal, or with `NO_COLOR` or `TERM=dumb`, the
//! callers print plain lines instead.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::io::Write;

use crate::machine::State;
use crate::store::Store;

/// Whether a live view can be drawn on stderr (for `run`) or stdout.
pub fn available(stream_is_terminal: bool) -> bool {
    stream_is_terminal
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

pub fn stderr_available() -> bool {
    available(std::io::stderr().is_terminal())
}

pub fn stdout_available() -> bool {
    available(std::io::stdout().is_terminal())
}

/// A screen being redrawn: how many lines the last drawing took.
#[derive(Default)]
pub struct Screen {
    drawn: u16,
}

impl Screen {
    /// Draw `state` over the previous drawing.
    pub fn draw<W: Write>(
        &mut self,
        w: &mut W,
        store: &Store,
        state: &State,
    ) -> std::io::Result<()> {
        use crossterm::cursor::MoveToPreviousLine;
        use crossterm::terminal::Clear;
        use crossterm::terminal::ClearType;
        let (cols, rows) = crossterm::terminal::size().unwrap_or((100, 40));
        let clock = store.clock();
        let now = if clock.is_pinned() {
            clock.at_seq(state.seq)
        } else {
            time::OffsetDateTime::now_utc()
        };
        let mut lines =
            crate::report::live::screen(state, &last_lines(store, state), now, cols as usize);
        // Units that edit the same files, found while both work.
        for o in crate::engine::overlap::live(&store.runtime_dir(), state) {
            let line = crate::base::escape::visible(&o.sentence()).into_owned();
            lines.push(line.chars().take(cols as usize).collect());
        }
        lines.truncate(rows.saturating_sub(1).max(1) as usize);
        if self.drawn > 0 {
            crossterm::queue!(
                w,
                MoveToPreviousLine(self.drawn),
                Clear(ClearType::FromCursorDown)
            )?;
        }
        for line in &lines {
            write!(w, "{line}\r\n")?;
        }
        w.flush()?;
        self.drawn = lines.len() as u16;
        Ok(())
    }
}

/// The last line each running agent printed, from the tail of its log.
pub(crate) fn last_lines(store: &Store, state: &State) -> BTreeMap<String, String> {
    use std::io::Read;
    use std::io::Seek;
    let Some(common) = store
        .runtime_dir()
        .parent()
        .map(std::path::Path::to_path_buf)
    else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for u in &state.units {
        let Some(agent) = u.active_sprint().and_then(|sp| sp.agent.as_ref()) else {
            continue;
        };
        let Ok(mut f) = std::fs::File::open(common.join(&agent.log)) else {
            continue;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = f.seek(std::io::SeekFrom::Start(len.saturating_sub(4096)));
        let mut tail = Vec::new();
        let _ = f.read_to_end(&mut tail);
        if let Some(line) = crate::report::live::last_line(&String::from_utf8_lossy(&tail)) {
            out.insert(u.name.clone(), line);
        }
    }
    out
}
