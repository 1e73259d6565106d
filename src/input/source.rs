//! Raw row access to one export file, whatever its container: CSV (UTF-8 with or without BOM,
//! UTF-16 "Unicode text", Windows-1252 from old Excel re-saves, comma/semicolon/tab delimited,
//! optionally gzip-compressed) or XLSX (first sheet, streamed cell by cell). Rows come out as
//! [`Row`]s with their spreadsheet row number; nothing here knows what the columns mean.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use calamine::{DataRef, Reader, Xlsx};
use csv::StringRecord;
use encoding_rs_io::DecodeReaderBytesBuilder;

use super::InputError;
use super::row::Row;
pub use super::tokenizer::MAX_RECORD_BYTES;

/// The container a file turned out to be, sniffed from its first bytes, not its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Delimited text.
    Csv {
        /// The field delimiter found.
        delimiter: u8,
        /// The text's encoding, decoded to UTF-8 as it is read.
        encoding: TextEncoding,
        /// Whether the file was gzip-compressed.
        gzip: bool,
    },
    /// An Office Open XML workbook.
    Xlsx,
}

impl Container {
    /// A short human description, for `inspect` and the Run sheet.
    pub fn describe(self) -> String {
        match self {
            Container::Xlsx => "XLSX".to_string(),
            Container::Csv {
                delimiter,
                encoding,
                gzip,
            } => {
                let delim = match delimiter {
                    b',' => "comma",
                    b';' => "semicolon",
                    b'\t' => "tab",
                    _ => "other",
                };
                // UTF-8, the usual case, goes unnamed.
                let encoding = match encoding {
                    TextEncoding::Utf8 => "",
                    TextEncoding::Utf16Le | TextEncoding::Utf16Be => ", UTF-16",
                    TextEncoding::Windows1252 => ", Windows-1252",
                };
                format!(
                    "CSV ({delim}{encoding}{})",
                    if gzip { ", gzip" } else { "" }
                )
            }
        }
    }
}

/// How a CSV file's text is encoded, sniffed once per file from its first [`SNIFF_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8, with or without a byte-order mark (what Screaming Frog writes).
    Utf8,
    /// UTF-16 little-endian with a byte-order mark (Excel's "Unicode text").
    Utf16Le,
    /// UTF-16 big-endian with a byte-order mark.
    Utf16Be,
    /// No byte-order mark and not valid UTF-8: an old Excel re-save in the Western Windows code
    /// page, where é is the byte 0xE9 and ’ is 0x92.
    Windows1252,
}

impl TextEncoding {
    /// The encoding of a file starting with `head`: the one its byte-order mark names; else
    /// UTF-8 when `head` is valid UTF-8 (a character cut off at its end counts as valid); else
    /// Windows-1252, which gives every byte a character.
    pub fn sniff(head: &[u8]) -> TextEncoding {
        match head {
            [0xEF, 0xBB, 0xBF, ..] => TextEncoding::Utf8,
            [0xFF, 0xFE, ..] => TextEncoding::Utf16Le,
            [0xFE, 0xFF, ..] => TextEncoding::Utf16Be,
            _ => match std::str::from_utf8(head) {
                Err(e) if e.error_len().is_some() => TextEncoding::Windows1252,
                _ => TextEncoding::Utf8,
            },
        }
    }

    /// Its name, for `inspect`.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Windows1252 => "Windows-1252",
        }
    }

    /// A reader of `raw` giving UTF-8: UTF-16 and Windows-1252 are decoded (what cannot be
    /// decoded becomes U+FFFD), UTF-8 passes through as it is, and a byte-order mark is dropped.
    fn decode(self, raw: Box<dyn Read>) -> Box<dyn Read> {
        let explicit = match self {
            // UTF-16 is found by its byte-order mark, as the sniffing found it.
            TextEncoding::Utf8 | TextEncoding::Utf16Le | TextEncoding::Utf16Be => None,
            TextEncoding::Windows1252 => Some(encoding_rs::WINDOWS_1252),
        };
        Box::new(
            DecodeReaderBytesBuilder::new()
                .encoding(explicit)
                .utf8_passthru(true)
                .strip_bom(true)
                .build_with_buffer(raw, vec![0; 1 << 16])
                .expect("a 64 KiB buffer holds any character"),
        )
    }
}

/// Bytes read up front to sniff encoding and delimiter.
const SNIFF_BYTES: usize = 64 * 1024;

/// An export file opened for reading.
#[derive(Debug)]
pub struct Source {
    path: PathBuf,
    container: Container,
    sheet: Option<String>,
}

impl Source {
    /// Open `path` and sniff its container.
    pub fn open(path: &Path) -> Result<Source, InputError> {
        Source::open_with(path, sniff_delimiter)
    }

    /// Open a list a person saved (`--source-list`, `--priority-urls`): like [`Source::open`],
    /// but with [`sniff_list_delimiter`].
    pub fn open_list(path: &Path) -> Result<Source, InputError> {
        Source::open_with(path, sniff_list_delimiter)
    }

    fn open_with(path: &Path, sniff: fn(&str) -> u8) -> Result<Source, InputError> {
        let io_err = |e: io::Error| InputError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let mut file = File::open(path).map_err(io_err)?;
        let mut magic = [0u8; 4];
        let n = read_up_to(&mut file, &mut magic).map_err(io_err)?;
        let magic = &magic[..n];
        if magic.starts_with(b"PK\x03\x04") {
            let workbook: Xlsx<_> =
                calamine::open_workbook(path).map_err(|e: calamine::XlsxError| {
                    InputError::Xlsx {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    }
                })?;
            let sheet =
                workbook
                    .sheet_names()
                    .first()
                    .cloned()
                    .ok_or_else(|| InputError::Xlsx {
                        path: path.to_path_buf(),
                        message: "the workbook has no sheets".into(),
                    })?;
            return Ok(Source {
                path: path.to_path_buf(),
                container: Container::Xlsx,
                sheet: Some(sheet),
            });
        }
        if magic.starts_with(b"\xD0\xCF\x11\xE0") {
            return Err(InputError::Unsupported {
                path: path.to_path_buf(),
                message: "this is a legacy Excel 97-2003 .xls file; save it as .xlsx or export CSV from Screaming Frog".into(),
            });
        }
        let gzip = magic.starts_with(&[0x1F, 0x8B]);
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        raw_reader(path, gzip)?
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(io_err)?;
        let encoding = TextEncoding::sniff(&head);
        let mut text = Vec::with_capacity(head.len());
        encoding
            .decode(Box::new(io::Cursor::new(head)))
            .read_to_end(&mut text)
            .map_err(io_err)?;
        let delimiter = sniff(&String::from_utf8_lossy(&text));
        Ok(Source {
            path: path.to_path_buf(),
            container: Container::Csv {
                delimiter,
                encoding,
                gzip,
            },
            sheet: None,
        })
    }

    /// Open a named sheet of an XLSX workbook (a CSV file is its own single sheet). Used for
    /// linkgap's own workbooks, whose first sheet is the Summary.
    pub fn open_sheet(path: &Path, name: &str) -> Result<Source, InputError> {
        let mut source = Source::open(path)?;
        if source.container == Container::Xlsx {
            let workbook: Xlsx<_> =
                calamine::open_workbook(path).map_err(|e: calamine::XlsxError| {
                    InputError::Xlsx {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    }
                })?;
            let names = workbook.sheet_names();
            let found = names
                .iter()
                .find(|n| n.eq_ignore_ascii_case(name))
                .cloned()
                .ok_or_else(|| InputError::Role {
                    path: path.to_path_buf(),
                    message: format!("no sheet named \"{name}\" (sheets: {})", names.join(", ")),
                })?;
            source.sheet = Some(found);
        }
        Ok(source)
    }

    /// The sheets holding `name` and its continuations past Excel's row limit ("Queue",
    /// "Queue (2)", ...), in order. A CSV file is its own single sheet: `[name]`. When no sheet
    /// matches, `[name]`, so opening it gives the usual "no sheet named" error.
    pub fn sheet_parts(path: &Path, name: &str) -> Result<Vec<String>, InputError> {
        let source = Source::open(path)?;
        if source.container != Container::Xlsx {
            return Ok(vec![name.to_string()]);
        }
        let workbook: Xlsx<_> =
            calamine::open_workbook(path).map_err(|e: calamine::XlsxError| InputError::Xlsx {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let mut parts: Vec<(u32, String)> = workbook
            .sheet_names()
            .into_iter()
            .filter_map(|n| {
                if n.eq_ignore_ascii_case(name) {
                    return Some((1, n));
                }
                let rest = n.get(name.len()..)?;
                let part = rest.strip_prefix(" (")?.strip_suffix(')')?.parse().ok()?;
                n[..name.len()]
                    .eq_ignore_ascii_case(name)
                    .then_some((part, n))
            })
            .collect();
        parts.sort();
        if parts.is_empty() {
            return Ok(vec![name.to_string()]);
        }
        Ok(parts.into_iter().map(|(_, n)| n).collect())
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The container that was sniffed.
    pub fn container(&self) -> Container {
        self.container
    }

    /// The sheet read, for XLSX input.
    pub fn sheet(&self) -> Option<&str> {
        self.sheet.as_deref()
    }

    /// Call `visit` with every row and its 1-based spreadsheet row number, until it breaks.
    /// A row that cannot be decoded is passed to `bad` instead and reading goes on.
    pub fn for_each_row(
        &self,
        visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
        bad: &mut dyn FnMut(u64, String),
    ) -> Result<(), InputError> {
        match self.container {
            Container::Xlsx => self.xlsx_rows(visit),
            Container::Csv {
                delimiter,
                encoding,
                gzip,
            } => self.csv_rows(delimiter, encoding, gzip, visit, bad),
        }
    }

    /// Tokenizing runs on worker threads, chunks of the file ahead of `visit`
    /// ([`chunks`](super::chunks)): on an export of gigabytes the CSV grammar and the UTF-8
    /// check are most of the reading, and the visitor (URL interning, the report) the rest.
    /// Rows still reach `visit` one by one, in file order, on the calling thread.
    fn csv_rows(
        &self,
        delimiter: u8,
        encoding: TextEncoding,
        gzip: bool,
        visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
        bad: &mut dyn FnMut(u64, String),
    ) -> Result<(), InputError> {
        let path = &self.path;
        super::chunks::for_each_record(
            || Ok(encoding.decode(raw_reader(path, gzip)?)),
            delimiter,
            &|source| InputError::Io {
                path: path.clone(),
                source,
            },
            visit,
            bad,
        )
    }

    fn xlsx_rows(
        &self,
        visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
    ) -> Result<(), InputError> {
        let xlsx_err = |e: calamine::XlsxError| InputError::Xlsx {
            path: self.path.clone(),
            message: e.to_string(),
        };
        let mut workbook: Xlsx<_> = calamine::open_workbook(&self.path).map_err(xlsx_err)?;
        // The date system of the workbook, which calamine gives every date cell it reads.
        let is_1904 = workbook.has_1904_epoch();
        let sheet = self.sheet.clone().unwrap_or_default();
        let mut cells = workbook.worksheet_cells_reader(&sheet).map_err(xlsx_err)?;
        let mut record = StringRecord::new();
        let empty = StringRecord::new();
        let mut current: Option<u32> = None;
        let mut value = String::new();
        // Cells stream in row order; a row is complete when the next row's first cell arrives.
        // Blank rows in between are reported as empty rows so row numbers stay Excel's.
        while let Some(cell) = cells.next_cell().map_err(xlsx_err)? {
            let (r, c) = cell.get_position();
            if current != Some(r) {
                if let Some(prev) = current {
                    if visit(u64::from(prev) + 1, &Row::from(&record)).is_break() {
                        return Ok(());
                    }
                    for blank in prev + 1..r {
                        if visit(u64::from(blank) + 1, &Row::from(&empty)).is_break() {
                            return Ok(());
                        }
                    }
                } else {
                    for blank in 0..r {
                        if visit(u64::from(blank) + 1, &Row::from(&empty)).is_break() {
                            return Ok(());
                        }
                    }
                }
                record.clear();
                current = Some(r);
            }
            while record.len() < c as usize {
                record.push_field("");
            }
            value.clear();
            cell_text(cell.get_value(), is_1904, &mut value);
            record.push_field(&value);
        }
        if let Some(prev) = current {
            let _ = visit(u64::from(prev) + 1, &Row::from(&record));
        }
        Ok(())
    }
}

/// Text of an XLSX cell as Screaming Frog would have written it to CSV; `is_1904` when the
/// workbook counts its dates from 1904 (old Mac Excel files).
fn cell_text(value: &DataRef<'_>, is_1904: bool, out: &mut String) {
    use std::fmt::Write;
    match value {
        DataRef::Empty => {}
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => out.push_str(s),
        DataRef::SharedString(s) => out.push_str(s),
        // Apache POI writes integers as 200.0; a status code must read back as "200".
        DataRef::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
            let _ = write!(out, "{}", *f as i64);
        }
        DataRef::Float(f) => {
            let _ = write!(out, "{f}");
        }
        DataRef::Int(i) => {
            let _ = write!(out, "{i}");
        }
        DataRef::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // A reviewer's typed date: show it as a date, not Excel's day number.
        DataRef::DateTime(d) => out.push_str(&crate::dates::excel_serial(d.as_f64(), is_1904)),
        DataRef::Error(e) => {
            let _ = write!(out, "{e}");
        }
    }
}

/// The file's bytes, gunzipped when `gzip`.
fn raw_reader(path: &Path, gzip: bool) -> Result<Box<dyn Read>, InputError> {
    let file = File::open(path).map_err(|e| InputError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let buffered = BufReader::with_capacity(1 << 16, file);
    Ok(if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(buffered))
    } else {
        Box::new(buffered)
    })
}

fn read_up_to(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Pick the delimiter that splits the first lines most consistently. Screaming Frog writes
/// commas; Excel re-saves in some locales with semicolons, and "Unicode text" uses tabs.
pub(crate) fn sniff_delimiter(text: &str) -> u8 {
    let mut best = (b',', (0usize, 0usize));
    for delim in [b',', b';', b'\t'] {
        let mut counts = Vec::new();
        let mut in_quotes = false;
        let mut count = 0usize;
        for b in text.bytes() {
            match b {
                b'"' => in_quotes = !in_quotes,
                b'\n' if !in_quotes => {
                    counts.push(count);
                    count = 0;
                    if counts.len() >= 20 {
                        break;
                    }
                }
                _ if b == delim && !in_quotes => count += 1,
                _ => {}
            }
        }
        if count > 0 {
            counts.push(count);
        }
        // The right delimiter splits most lines into the same number of fields; title rows
        // (no delimiter at all) and decimal commas in a few cells do not.
        let mut freq: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
        for &c in counts.iter().filter(|&&c| c > 0) {
            *freq.entry(c).or_default() += 1;
        }
        let score = freq
            .iter()
            .map(|(&c, &lines)| (lines, c))
            .max()
            .unwrap_or((0, 0));
        if score > best.1 {
            best = (delim, score);
        }
    }
    best.0
}

/// A list's delimiter: [`sniff_delimiter`]'s, except that a tab or a semicolon on every line
/// beats the comma. A list saved where `1,5` is 1.5 (`url;1,5`) splits as evenly on commas
/// as on semicolons, and that tie goes to the comma in an export.
pub(crate) fn sniff_list_delimiter(text: &str) -> u8 {
    let general = sniff_delimiter(text);
    if general != b',' {
        return general;
    }
    [b'\t', b';']
        .into_iter()
        .find(|&d| on_every_line(text, d))
        .unwrap_or(general)
}

/// Whether `delim` is outside quotes on every non-blank line of the first 20.
fn on_every_line(text: &str, delim: u8) -> bool {
    let mut lines = 0;
    let (mut in_quotes, mut blank, mut found) = (false, true, false);
    for b in text.bytes().chain([b'\n']) {
        match b {
            b'"' => {
                in_quotes = !in_quotes;
                blank = false;
            }
            b'\n' if !in_quotes => {
                if !blank {
                    if !found {
                        return false;
                    }
                    lines += 1;
                    if lines >= 20 {
                        break;
                    }
                }
                (blank, found) = (true, false);
            }
            _ if b == delim && !in_quotes => (blank, found) = (false, true),
            b'\r' | b' ' => {}
            _ => blank = false,
        }
    }
    lines > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_delimiters_take_decimal_commas_into_account() {
        assert_eq!(
            sniff_list_delimiter("https://a/;1,5\nhttps://b/;2,5\n"),
            b';'
        );
        assert_eq!(
            sniff_list_delimiter("URL\tClicks\nhttps://a/\t1,5\n"),
            b'\t'
        );
        assert_eq!(sniff_list_delimiter("https://a/,1.5\nhttps://b/,2\n"), b',');
        assert_eq!(
            sniff_list_delimiter("\"https://a/?x=1;y=2\",3\nhttps://b/,2\n"),
            b',',
            "a semicolon in quotes is not a delimiter"
        );
        assert_eq!(sniff_list_delimiter("https://a/\n\nhttps://b/\n"), b',');
        // The general sniffer gives the comma for the first; exports keep that.
        assert_eq!(sniff_delimiter("https://a/;1,5\nhttps://b/;2,5\n"), b',');
    }

    #[test]
    fn delimiter_sniffing_prefers_the_header_split() {
        assert_eq!(
            sniff_delimiter("\"Address\",\"Status Code\"\n\"a\",\"1\"\n"),
            b','
        );
        assert_eq!(sniff_delimiter("Address;Score\nhttps://a/;0,5\n"), b';');
        assert_eq!(sniff_delimiter("Address\tScore\nx\t1,2\n"), b'\t');
        assert_eq!(
            sniff_delimiter("\"All Inlinks\"\n\"Type\",\"Source\",\"Destination\"\n"),
            b','
        );
    }

    /// Every row of a CSV file holding `bytes`.
    fn csv_of(name: &str, bytes: &[u8]) -> (Container, Vec<(u64, Vec<String>)>) {
        let dir =
            std::env::temp_dir().join(format!("linkgap-source-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let source = Source::open(&path).unwrap();
        let mut rows = Vec::new();
        source
            .for_each_row(
                &mut |n, r| {
                    rows.push((n, r.iter().map(str::to_string).collect()));
                    ControlFlow::Continue(())
                },
                &mut |n, e| panic!("row {n}: {e}"),
            )
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (source.container(), rows)
    }

    fn row(n: u64, cells: &[&str]) -> (u64, Vec<String>) {
        (n, cells.iter().map(|c| (*c).to_string()).collect())
    }

    #[test]
    fn windows_1252_files_decode_instead_of_becoming_replacement_characters() {
        // An old Excel re-save: é is 0xE9, ’ is 0x92, semicolons in a French locale.
        let bytes = b"Address;Title 1\r\nhttps://e.com/caf\xE9;L\x92\xE9t\xE9\r\n";
        let (container, rows) = csv_of("cp1252.csv", bytes);
        assert_eq!(
            rows,
            [
                row(1, &["Address", "Title 1"]),
                row(2, &["https://e.com/café", "L’été"])
            ]
        );
        assert_eq!(container.describe(), "CSV (semicolon, Windows-1252)");
    }

    #[test]
    fn rows_arrive_in_order_across_batches_and_a_break_stops_the_reader() {
        let file: String = std::iter::once("Address,Score\n".to_string())
            .chain((0..5_000).map(|i| format!("https://a/{i},\"{i}\"\n")))
            .collect();
        let (_, rows) = csv_of("many.csv", file.as_bytes());
        assert_eq!(rows.len(), 5_001);
        assert!(
            rows.iter()
                .enumerate()
                .all(|(i, (n, _))| *n == i as u64 + 1)
        );
        assert_eq!(rows[4_000].1, ["https://a/3999", "3999"]);

        let dir = std::env::temp_dir().join(format!("linkgap-break-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("many.csv");
        std::fs::write(&path, &file).unwrap();
        let mut seen = Vec::new();
        Source::open(&path)
            .unwrap()
            .for_each_row(
                &mut |n, _| {
                    seen.push(n);
                    if n == 3_000 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
                &mut |n, e| panic!("row {n}: {e}"),
            )
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(seen, (1..=3_000).collect::<Vec<u64>>());
    }

    #[test]
    fn utf8_with_or_without_a_bom_reads_alike() {
        let plain = "Address,Title 1\nhttps://e.com/café,\"L’été, \"\"chaud\"\"\"\n";
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), plain.as_bytes()].concat();
        let expected = [
            row(1, &["Address", "Title 1"]),
            row(2, &["https://e.com/café", "L’été, \"chaud\""]),
        ];
        for (name, bytes) in [("plain.csv", plain.as_bytes()), ("bom.csv", &with_bom)] {
            let (container, rows) = csv_of(name, bytes);
            assert_eq!(rows, expected, "{name}");
            assert_eq!(container.describe(), "CSV (comma)", "{name}");
        }
    }

    #[test]
    fn utf16_reads_in_both_byte_orders() {
        let text = "Address\tTitle 1\r\nhttps://e.com/caf\u{e9}\ta\u{1F600}b\r\n";
        let le = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect::<Vec<u8>>();
        let be = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect::<Vec<u8>>();
        for (name, bytes) in [("le.txt", le), ("be.txt", be)] {
            let (container, rows) = csv_of(name, &bytes);
            assert_eq!(
                rows,
                [
                    row(1, &["Address", "Title 1"]),
                    row(2, &["https://e.com/café", "a😀b"])
                ],
                "{name}"
            );
            assert_eq!(container.describe(), "CSV (tab, UTF-16)", "{name}");
        }
    }

    #[test]
    fn encoding_is_sniffed_from_the_first_bytes() {
        assert_eq!(TextEncoding::sniff(b"a,b\n"), TextEncoding::Utf8);
        assert_eq!(
            TextEncoding::sniff(b"\xEF\xBB\xBFa,b\n"),
            TextEncoding::Utf8
        );
        // A UTF-8 byte-order mark wins over a stray invalid byte.
        assert_eq!(
            TextEncoding::sniff(b"\xEF\xBB\xBFcaf\xE9\n"),
            TextEncoding::Utf8
        );
        assert_eq!(TextEncoding::sniff(b"\xFF\xFEa\x00"), TextEncoding::Utf16Le);
        assert_eq!(TextEncoding::sniff(b"\xFE\xFF\x00a"), TextEncoding::Utf16Be);
        assert_eq!(TextEncoding::sniff(b"caf\xE9\n"), TextEncoding::Windows1252);
        // The sniffed bytes end inside a character: still UTF-8.
        assert_eq!(TextEncoding::sniff(b"caf\xC3"), TextEncoding::Utf8);
        assert_eq!(TextEncoding::sniff(b""), TextEncoding::Utf8);
    }

    #[test]
    fn utf16_decoding_handles_surrogates_split_across_reads() {
        struct Chunked(Vec<u8>, usize, usize);
        impl Read for Chunked {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.2.min(buf.len()).min(self.0.len() - self.1);
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let text = "a😀b,c\n";
        let mut bytes = vec![0xFF, 0xFE];
        for unit in text.encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        for chunk in 1..bytes.len() {
            let mut out = String::new();
            TextEncoding::Utf16Le
                .decode(Box::new(Chunked(bytes.clone(), 0, chunk)))
                .read_to_string(&mut out)
                .unwrap();
            assert_eq!(out, text, "chunk {chunk}");
        }
    }

    /// The rows of an XLSX file's first sheet.
    fn xlsx_rows_of(path: &Path) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        Source::open(path)
            .unwrap()
            .for_each_row(
                &mut |_, r| {
                    rows.push(r.iter().map(str::to_string).collect());
                    ControlFlow::Continue(())
                },
                &mut |n, e| panic!("row {n}: {e}"),
            )
            .unwrap();
        rows
    }

    /// A workbook whose first sheet holds, under a header, the date 2026-12-01 written as a date
    /// and the day number `serial` in a date format.
    fn dated_workbook(path: &Path, serial: f64) {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        let sheet = workbook.add_worksheet();
        let date = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
        sheet.write_string(0, 0, "Reviewed on").unwrap();
        let day = rust_xlsxwriter::ExcelDateTime::from_ymd(2026, 12, 1).unwrap();
        sheet.write_datetime_with_format(1, 0, &day, &date).unwrap();
        sheet.write_number_with_format(2, 0, serial, &date).unwrap();
        workbook.save(path).unwrap();
    }

    #[test]
    fn xlsx_dates_read_as_calendar_dates() {
        let dir = std::env::temp_dir().join(format!("linkgap-dates-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("1900.xlsx");
        dated_workbook(&path, 46_357.5);
        assert_eq!(
            xlsx_rows_of(&path),
            [["Reviewed on"], ["2026-12-01"], ["2026-12-01 12:00"]]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn xlsx_dates_in_a_1904_workbook_count_from_1904() {
        let dir = std::env::temp_dir().join(format!("linkgap-1904-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 2026-12-01 is day 44,895 from 1904-01-01 (46,357 from 1899-12-30).
        let plain = dir.join("plain.xlsx");
        dated_workbook(&plain, 44_895.0);
        // rust_xlsxwriter writes only 1900 workbooks: set old Mac Excel's flag in workbook.xml.
        let mut archive = zip::ZipArchive::new(File::open(&plain).unwrap()).unwrap();
        let mac = dir.join("1904.xlsx");
        let mut out = zip::ZipWriter::new(File::create(&mac).unwrap());
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).unwrap();
            let name = entry.name().unwrap().into_owned();
            if name != "xl/workbook.xml" {
                out.raw_copy_file(entry).unwrap();
                continue;
            }
            let mut xml = String::new();
            entry.read_to_string(&mut xml).unwrap();
            assert!(xml.contains("<workbookPr"), "{xml}");
            let xml = xml.replacen("<workbookPr", "<workbookPr date1904=\"1\"", 1);
            out.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            io::Write::write_all(&mut out, xml.as_bytes()).unwrap();
        }
        out.finish().unwrap();
        let rows = xlsx_rows_of(&mac);
        // The cell written as 2026-12-01 holds 1900's day number, which is four years and a
        // day later from 1904; the day number written for 1904 reads as 2026-12-01.
        assert_eq!(rows, [["Reviewed on"], ["2030-12-02"], ["2026-12-01"]]);
        assert_eq!(
            xlsx_rows_of(&plain)[2],
            ["2022-11-30"],
            "the same serial from 1900"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
