//! A worksheet's rows as XML, written by linkgap itself for a large sheet part
//! ([`super::stream`]): the bytes `rust_xlsxwriter`'s constant-memory worksheet writes for
//! the same cells (inline strings, the same style numbers, escapes and number text), which
//! the tests hold it to. Why: `rust_xlsxwriter` keeps each row in ordered maps, formats
//! every cell through `write!` into a temporary file and reads that file back to compress
//! it; on the 100,041-page Queue with page text that was 7 core-seconds of the write stage.
//! Here a row is appended to a buffer with plain byte copies.

use std::io::Write;

use super::{Cell, Column, ColumnStyle, MAX_CELL_CHARS, boldable, cut};
use crate::links::LinkStatus;

/// The style numbers (`s="…"`) of the workbook's formats, as registered
/// ([`super::Formats::all`]).
#[derive(Debug, Clone)]
pub(super) struct StyleNumbers {
    pub(super) wrap: u32,
    pub(super) percent: u32,
    pub(super) decimal: u32,
    pub(super) url: u32,
    pub(super) statuses: Vec<(LinkStatus, u32)>,
}

/// The font of a rich string's bold run and of the run after it ([`super::rich_run`]), as
/// `rust_xlsxwriter` writes them.
const BOLD_RUN: &[u8] = b"<rPr><b/><sz val=\"11\"/><rFont val=\"Calibri\"/></rPr>";
const AFTER_BOLD_RUN: &[u8] = b"<rPr><sz val=\"11\"/><rFont val=\"Calibri\"/></rPr>";

/// Writes the rows of one sheet.
pub(super) struct RowXml<'a> {
    columns: &'a [Column],
    styles: &'a StyleNumbers,
    /// Each column's letters.
    names: Vec<String>,
}

impl<'a> RowXml<'a> {
    pub(super) fn new(columns: &'a [Column], styles: &'a StyleNumbers) -> RowXml<'a> {
        let names = (0..columns.len()).map(column_name).collect();
        RowXml {
            columns,
            styles,
            names,
        }
    }

    /// Append row `r` (0-based: the header is row 0) to `out`. Like `rust_xlsxwriter`, an
    /// empty text is no cell, and a row of none is not written. `linked(c, url)` says whether
    /// the URL in column `c` is written as a hyperlink (its relationship is the caller's),
    /// and is asked in column order.
    pub(super) fn push(
        &self,
        out: &mut Vec<u8>,
        r: u32,
        row: &[Cell],
        linked: &mut dyn FnMut(u16, &str) -> bool,
    ) {
        if row.iter().all(is_blank) {
            return;
        }
        let number = r + 1;
        let _ = write!(out, "<row r=\"{number}\">");
        for (c, cell) in row.iter().enumerate() {
            let column = self.column_style(c);
            let at = CellAt {
                name: self.names.get(c).map_or("", String::as_str),
                row: number,
            };
            if is_blank(cell) {
                continue;
            }
            match cell {
                Cell::Empty => {}
                Cell::Text(s) => at.string(out, column, &cut(s, MAX_CELL_CHARS)),
                Cell::Url(u) => {
                    if linked(c as u16, u) {
                        at.string(out, self.styles.url, u);
                    } else {
                        at.string(out, column, &cut(u, MAX_CELL_CHARS));
                    }
                }
                Cell::Int(i) => at.number(out, column, *i as f64),
                Cell::Number(n) => at.number(out, self.styles.decimal, *n),
                Cell::Percent(p) => at.number(out, self.styles.percent, *p),
                Cell::Status(s) => {
                    let style = self
                        .styles
                        .statuses
                        .iter()
                        .find(|(k, _)| k == s)
                        .map_or(0, |(_, n)| *n);
                    at.string(out, style, s.label());
                }
                Cell::Marked(s, span) => at.marked(out, column, s, span.clone()),
            }
        }
        out.extend_from_slice(b"</row>");
    }

    /// The style number a column gives its cells without one of their own.
    fn column_style(&self, c: usize) -> u32 {
        match self
            .columns
            .get(c)
            .map_or(ColumnStyle::Plain, |col| col.style)
        {
            ColumnStyle::Plain => 0,
            ColumnStyle::Wrap => self.styles.wrap,
            ColumnStyle::Decimal => self.styles.decimal,
            ColumnStyle::Percent => self.styles.percent,
        }
    }
}

/// Whether a cell writes nothing: `rust_xlsxwriter` writes no cell for an empty text
/// without a format of its own.
fn is_blank(cell: &Cell) -> bool {
    match cell {
        Cell::Empty => true,
        Cell::Text(s) | Cell::Url(s) | Cell::Marked(s, _) => s.is_empty(),
        Cell::Int(_) | Cell::Number(_) | Cell::Percent(_) | Cell::Status(_) => false,
    }
}

/// A cell's reference: column letters and 1-based row number.
struct CellAt<'a> {
    name: &'a str,
    row: u32,
}

impl CellAt<'_> {
    /// `<c r="B2"` and the style, if any.
    fn open(&self, out: &mut Vec<u8>, style: u32) {
        out.extend_from_slice(b"<c r=\"");
        out.extend_from_slice(self.name.as_bytes());
        let _ = write!(out, "{}\"", self.row);
        if style > 0 {
            let _ = write!(out, " s=\"{style}\"");
        }
    }

    fn string(&self, out: &mut Vec<u8>, style: u32, s: &str) {
        self.open(out, style);
        out.extend_from_slice(b" t=\"inlineStr\"><is>");
        text_element(out, s, true);
        out.extend_from_slice(b"</is></c>");
    }

    /// A number; Excel has no NaN or infinity, so those are the text `rust_xlsxwriter` writes.
    fn number(&self, out: &mut Vec<u8>, style: u32, n: f64) {
        if !n.is_finite() {
            let text = if n.is_nan() {
                "NAN"
            } else if n > 0.0 {
                "INF"
            } else {
                "-INF"
            };
            return self.string(out, style, text);
        }
        self.open(out, style);
        let _ = write!(out, "><v>{n}</v></c>");
    }

    /// A text with its span in bold, as a rich string; plain text when the span is empty,
    /// out of range or the text had to be cut (as [`super::write_marked`]).
    fn marked(&self, out: &mut Vec<u8>, style: u32, s: &str, span: std::ops::Range<usize>) {
        if !boldable(s, &span) {
            return self.string(out, style, &cut(s, MAX_CELL_CHARS));
        }
        self.open(out, style);
        out.extend_from_slice(b" t=\"inlineStr\"><is>");
        let runs = [
            (&b""[..], &s[..span.start]),
            (BOLD_RUN, &s[span.clone()]),
            (AFTER_BOLD_RUN, &s[span.end..]),
        ];
        for (font, text) in runs.into_iter().filter(|(_, t)| !t.is_empty()) {
            out.extend_from_slice(b"<r>");
            out.extend_from_slice(font);
            // `rust_xlsxwriter` does not escape `_xHHHH_` in a rich string's runs (it does in
            // a plain string): the same bytes as before, and as its own workbooks.
            text_element(out, text, false);
            out.extend_from_slice(b"</r>");
        }
        out.extend_from_slice(b"</is></c>");
    }
}

/// `<t>` with the text escaped, keeping its leading or trailing white space.
fn text_element(out: &mut Vec<u8>, s: &str, escape_escapes: bool) {
    if s.starts_with(['\t', '\n', ' ']) || s.ends_with(['\t', '\n', ' ']) {
        out.extend_from_slice(b"<t xml:space=\"preserve\">");
    } else {
        out.extend_from_slice(b"<t>");
    }
    escape(out, s, escape_escapes);
    out.extend_from_slice(b"</t>");
}

/// Bytes that may need escaping: `&`, `<`, `>`, control characters, `_` (of a literal
/// `_xHHHH_`) and 0xEF (the first byte of U+FFFE and U+FFFF).
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b != b'\t' as usize && b != b'\n' as usize;
        b += 1;
    }
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'_' as usize] = true;
    t[0xEF] = true;
    t
};

/// `s` as XML character data the way Excel writes it: `&<>` as entities, control characters
/// (but tab and newline) and U+FFFE/U+FFFF as `_xHHHH_`, and, with `escape_escapes`, the
/// underscore of a literal `_xHHHH_` as `_x005F` so that it reads back as written.
fn escape(out: &mut Vec<u8>, s: &str, escape_escapes: bool) {
    let bytes = s.as_bytes();
    let mut done = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !SPECIAL[b as usize] {
            continue;
        }
        let replacement: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'_' if escape_escapes && is_escape_sequence(&bytes[i..]) => b"_x005F_",
            0xEF if bytes[i..].starts_with(&[0xEF, 0xBF, 0xBE]) => b"_xFFFE_",
            0xEF if bytes[i..].starts_with(&[0xEF, 0xBF, 0xBF]) => b"_xFFFF_",
            b'_' | 0xEF => continue,
            control => {
                out.extend_from_slice(&bytes[done..i]);
                let _ = write!(out, "_x{control:04X}_");
                done = i + 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[done..i]);
        out.extend_from_slice(replacement);
        done = i + if b == 0xEF { 3 } else { 1 };
    }
    out.extend_from_slice(&bytes[done..]);
}

/// Whether `s` starts with `_xHHHH_` (four hex digits).
fn is_escape_sequence(s: &[u8]) -> bool {
    s.len() >= 7 && s[1] == b'x' && s[2..6].iter().all(u8::is_ascii_hexdigit) && s[6] == b'_'
}

/// A 0-based column's letters: A, …, Z, AA, ….
pub(super) fn column_name(c: usize) -> String {
    let mut name = Vec::new();
    let mut n = c + 1;
    while n > 0 {
        let d = (n - 1) % 26;
        name.push(b'A' + d as u8);
        n = (n - 1) / 26;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str, escape_escapes: bool) -> String {
        let mut out = Vec::new();
        escape(&mut out, s, escape_escapes);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_is_escaped_as_excel_writes_it() {
        assert_eq!(escaped("a < b & c > d", true), "a &lt; b &amp; c &gt; d");
        assert_eq!(escaped("say \"hi\"\n\tnow", true), "say \"hi\"\n\tnow");
        assert_eq!(escaped("bell\u{7}\r", true), "bell_x0007__x000D_");
        assert_eq!(escaped("x\u{FFFE}y\u{FFFF}", true), "x_xFFFE_y_xFFFF_");
        // Other characters starting with 0xEF are kept.
        assert_eq!(escaped("\u{FFFD}\u{F000}", true), "\u{FFFD}\u{F000}");
        assert_eq!(
            escaped("_x0041_ and _x004_", true),
            "_x005F_x0041_ and _x004_"
        );
        assert_eq!(escaped("_x0041_", false), "_x0041_");
        assert_eq!(escaped("snake_case_x", true), "snake_case_x");
        assert_eq!(escaped("Café 東京", true), "Café 東京");
    }

    #[test]
    fn columns_are_named_like_excel() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702, 16_383]
            .into_iter()
            .map(column_name)
            .collect();
        assert_eq!(
            names,
            ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA", "XFD"]
        );
    }
}
