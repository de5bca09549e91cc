//! Markdown → a flat list of spanned blocks.
//!
//! The plan heuristics only care about a handful of block kinds (headings,
//! paragraphs, list items, fenced code, tables). Flattening pulldown-cmark's
//! event stream into these, each with the byte range it came from, keeps the
//! detection code simple and lets every diagnostic point into the user's file.

use std::ops::Range;

use pulldown_cmark::CodeBlockKind;
use pulldown_cmark::Event;
use pulldown_cmark::Options;
use pulldown_cmark::Parser;
use pulldown_cmark::Tag;
use pulldown_cmark::TagEnd;

/// A byte range into the plan source.
pub type Span = Range<usize>;

/// One table cell: its rendered text and where it sits in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub span: Span,
}

/// One body row of a table. `source_cells` is the number of cells written in
/// the source line, which the parser pads or truncates silently: comparing it
/// with the header width is how malformed rows are caught.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub span: Span,
    pub source_cells: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Heading {
        level: u8,
        text: String,
        span: Span,
    },
    /// Paragraph text keeps its soft line breaks as `\n` so that
    /// `**Layer**: 1` / `**Directory**: x` lines can be read one by one.
    Paragraph {
        text: String,
        span: Span,
    },
    /// A list item's own text (nested items are separate blocks, one level
    /// deeper). `checked` is `Some` for task-list items (`- [ ]`, `- [x]`).
    Item {
        text: String,
        checked: Option<bool>,
        depth: usize,
        code: Vec<String>,
        span: Span,
    },
    Code {
        info: String,
        text: String,
        span: Span,
    },
    Table {
        header: Vec<Cell>,
        rows: Vec<Row>,
        span: Span,
    },
}

impl Block {
    pub fn span(&self) -> Span {
        match self {
            Block::Heading { span, .. }
            | Block::Paragraph { span, .. }
            | Block::Item { span, .. }
            | Block::Code { span, .. }
            | Block::Table { span, .. } => span.clone(),
        }
    }
}

/// An item being collected; emitted when its first nested list starts or when
/// it ends, so that parents always precede their children.
struct OpenItem {
    text: String,
    checked: Option<bool>,
    code: Vec<String>,
    span: Span,
    emitted: bool,
}

#[derive(Default)]
struct TableBuilder {
    header: Vec<Cell>,
    rows: Vec<Row>,
    span: Span,
    in_head: bool,
    row_cells: Vec<Cell>,
    row_span: Span,
    cell: Option<Cell>,
}

/// Boxes ticked with a check mark rather than an `x`.
const TICKED_BOXES: &[&str] = &["[✓]", "[✔]", "[✔️]", "[√]", "[☑]", "[✅]"];

/// Parse `source` into blocks in document order.
pub fn blocks(source: &str) -> Vec<Block> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    let mut out = Vec::new();
    let mut items: Vec<OpenItem> = Vec::new();
    let mut list_depth = 0usize;
    let mut heading: Option<(u8, String, Span)> = None;
    let mut paragraph: Option<(String, Span)> = None;
    let mut code: Option<(String, String, Span)> = None;
    let mut table: Option<TableBuilder> = None;

    let flush_item = |item: &mut OpenItem, depth: usize, out: &mut Vec<Block>| {
        if !item.emitted {
            item.emitted = true;
            let mut text = item.text.trim();
            // `- [✓] Done`: a box ticked with a check mark, which Markdown
            // reads as text.
            if item.checked.is_none() {
                if let Some(rest) = TICKED_BOXES.iter().find_map(|b| text.strip_prefix(b)) {
                    item.checked = Some(true);
                    text = rest.trim_start();
                }
            }
            out.push(Block::Item {
                text: text.to_string(),
                checked: item.checked,
                depth,
                code: std::mem::take(&mut item.code),
                span: item.span.clone(),
            });
        }
    };

    for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level as u8, String::new(), range));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, span)) = heading.take() {
                    out.push(Block::Heading {
                        level,
                        text: text.trim().to_string(),
                        span,
                    });
                }
            }
            Event::Start(Tag::Paragraph) if items.is_empty() && table.is_none() => {
                paragraph = Some((String::new(), range));
            }
            Event::End(TagEnd::Paragraph) => {
                if let Some((text, span)) = paragraph.take() {
                    out.push(Block::Paragraph {
                        text: text.trim().to_string(),
                        span,
                    });
                } else if let Some(item) = items.last_mut() {
                    item.text.push(' ');
                }
            }
            Event::Start(Tag::List(_)) => {
                if let Some(parent) = items.last_mut() {
                    flush_item(parent, list_depth - 1, &mut out);
                }
                list_depth += 1;
            }
            Event::End(TagEnd::List(_)) => {
                list_depth = list_depth.saturating_sub(1);
            }
            Event::Start(Tag::Item) => items.push(OpenItem {
                text: String::new(),
                checked: None,
                code: Vec::new(),
                span: range,
                emitted: false,
            }),
            Event::End(TagEnd::Item) => {
                if let Some(mut item) = items.pop() {
                    flush_item(&mut item, list_depth.saturating_sub(1), &mut out);
                }
            }
            Event::TaskListMarker(done) => {
                if let Some(item) = items.last_mut() {
                    item.checked = Some(done);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((info, String::new(), range));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((info, text, span)) = code.take() {
                    out.push(Block::Code { info, text, span });
                }
            }
            Event::Start(Tag::Table(_)) => {
                table = Some(TableBuilder {
                    span: range,
                    ..TableBuilder::default()
                });
            }
            Event::End(TagEnd::Table) => {
                if let Some(t) = table.take() {
                    out.push(Block::Table {
                        header: t.header,
                        rows: t.rows,
                        span: t.span,
                    });
                }
            }
            Event::Start(Tag::TableHead) => {
                if let Some(t) = table.as_mut() {
                    t.in_head = true;
                }
            }
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = table.as_mut() {
                    t.in_head = false;
                    t.header = std::mem::take(&mut t.row_cells);
                }
            }
            Event::Start(Tag::TableRow) => {
                if let Some(t) = table.as_mut() {
                    t.row_span = range;
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = table.as_mut() {
                    let span = t.row_span.clone();
                    let source_cells = count_source_cells(&source[span.clone()]);
                    let mut cells = std::mem::take(&mut t.row_cells);
                    // A `|` inside a code span splits the cell in GFM, though
                    // the author wrote one (`--fields=a:b[:x|y]`): the cells
                    // are read again as written.
                    let line = &source[span.clone()];
                    if line.contains('`') && source_cells < split_cells(line) {
                        let written = cells_as_written(source, span.clone());
                        if written.len() == source_cells {
                            cells = written;
                        }
                    }
                    t.rows.push(Row {
                        cells,
                        span,
                        source_cells,
                    });
                }
            }
            Event::Start(Tag::TableCell) => {
                if let Some(t) = table.as_mut() {
                    t.cell = Some(Cell {
                        text: String::new(),
                        span: range,
                    });
                }
            }
            Event::End(TagEnd::TableCell) => {
                if let Some(t) = table.as_mut() {
                    if let Some(mut cell) = t.cell.take() {
                        cell.text = cell.text.trim().to_string();
                        t.row_cells.push(cell);
                    }
                }
            }
            Event::Text(text) => push_inline(
                &text,
                false,
                &mut heading,
                &mut paragraph,
                &mut code,
                &mut table,
                &mut items,
            ),
            Event::Code(text) => {
                if let Some(item) = items.last_mut() {
                    if heading.is_none() && table.is_none() {
                        item.code.push(text.to_string());
                    }
                }
                push_inline(
                    &text,
                    true,
                    &mut heading,
                    &mut paragraph,
                    &mut code,
                    &mut table,
                    &mut items,
                );
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, text, _)) = heading.as_mut() {
                    text.push(' ');
                } else if let Some((text, _)) = paragraph.as_mut() {
                    text.push('\n');
                } else if let Some(item) = items.last_mut() {
                    item.text.push(' ');
                }
            }
            _ => {}
        }
    }
    out
}

fn push_inline(
    text: &str,
    is_code: bool,
    heading: &mut Option<(u8, String, Span)>,
    paragraph: &mut Option<(String, Span)>,
    code: &mut Option<(String, String, Span)>,
    table: &mut Option<TableBuilder>,
    items: &mut [OpenItem],
) {
    let tick = if is_code { "`" } else { "" };
    let target: Option<&mut String> = if let Some((_, t, _)) = code.as_mut() {
        t.push_str(text);
        return;
    } else if let Some((_, t, _)) = heading.as_mut() {
        Some(t)
    } else if let Some(t) = table.as_mut() {
        t.cell.as_mut().map(|c| &mut c.text)
    } else if let Some((t, _)) = paragraph.as_mut() {
        Some(t)
    } else {
        items.last_mut().map(|i| &mut i.text)
    };
    if let Some(t) = target {
        t.push_str(tick);
        t.push_str(text);
        t.push_str(tick);
    }
}

/// The cells of one table line split on the `|` outside code spans, each
/// its trimmed source text.
fn cells_as_written(source: &str, span: Span) -> Vec<Cell> {
    let line = &source[span.clone()];
    let mut cells = Vec::new();
    let mut push = |from: usize, to: usize| {
        let raw = &line[from..to];
        let lead = raw.len() - raw.trim_start().len();
        cells.push(Cell {
            text: raw.trim().to_string(),
            span: span.start + from + lead..span.start + from + lead + raw.trim().len(),
        });
    };
    let trimmed_end = line.trim_end().len();
    let body_start = line.len() - line.trim_start().len();
    let mut start = 0;
    for i in splitting_pipes(line, true) {
        if i > body_start {
            push(start, i);
        }
        start = i + 1;
    }
    if start < trimmed_end {
        push(start, trimmed_end);
    }
    cells
}

/// Count the cells written on one source table line: split on `|` that is
/// neither escaped nor inside a code span, ignoring the optional outer pipes.
fn count_source_cells(line: &str) -> usize {
    count_cells(line, true)
}

/// Count the cells of one source table line split on every unescaped `|`,
/// as GFM splits them (code spans too).
fn split_cells(line: &str) -> usize {
    count_cells(line, false)
}

/// The cells of one table line, split on the unescaped `|` (outside code
/// spans when `code_spans` holds them whole).
fn count_cells(line: &str, code_spans: bool) -> usize {
    let line = line.trim();
    let last = line.len().saturating_sub(1);
    1 + splitting_pipes(line, code_spans)
        .filter(|&i| i != 0 && i != last)
        .count()
}

/// Where the `|` that split one table line sit: unescaped, and outside
/// code spans when `code_spans` holds them whole.
fn splitting_pipes(line: &str, code_spans: bool) -> impl Iterator<Item = usize> + '_ {
    let mut escaped = false;
    let mut in_code = false;
    line.char_indices().filter_map(move |(i, c)| {
        if escaped {
            escaped = false;
            return None;
        }
        match c {
            '\\' => escaped = true,
            '`' if code_spans => in_code = !in_code,
            '|' if !in_code => return Some(i),
            _ => {}
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_items_follow_their_parent() {
        let b = blocks("- [ ] parent `cmd`\n  - child\n- [x] done\n");
        let texts: Vec<_> = b
            .iter()
            .map(|b| match b {
                Block::Item {
                    text,
                    depth,
                    checked,
                    ..
                } => (text.clone(), *depth, *checked),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                ("parent `cmd`".to_string(), 0, Some(false)),
                ("child".to_string(), 1, None),
                ("done".to_string(), 0, Some(true)),
            ]
        );
    }

    #[test]
    fn a_pipe_in_a_code_span_stays_in_its_cell() {
        let b =
            blocks("| ID | What | Status |\n|---|---|---|\n| 1 | Add `--fields=a[:x|y]` | ✅ |\n");
        let Block::Table { rows, .. } = &b[0] else {
            panic!("expected a table, got {b:?}")
        };
        let texts: Vec<&str> = rows[0].cells.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["1", "Add `--fields=a[:x|y]`", "✅"]);
    }

    #[test]
    fn table_rows_count_source_cells() {
        let b = blocks("| A | B |\n|---|---|\n| 1 | 2 |\n| 3 |\n| 4 | 5 | 6 |\n");
        let Block::Table { header, rows, .. } = &b[0] else {
            panic!("expected a table, got {b:?}")
        };
        assert_eq!(header.len(), 2);
        let counts: Vec<_> = rows.iter().map(|r| r.source_cells).collect();
        assert_eq!(counts, vec![2, 1, 3]);
        assert_eq!(rows[0].cells[1].text, "2");
    }
}
