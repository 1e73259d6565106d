//! Input: reading Screaming Frog exports of every era into typed rows. This module owns file
//! containers and encodings (`source`), header rows and column aliases (`columns`), and one
//! reader per role (`embeddings`, `inlinks`, `internal`, `page_text`). Readers report bad rows to the
//! [`Report`](crate::report::Report) and go on; only an unreadable file is an error.

mod chunks;
pub mod columns;
mod decimal;
pub mod embeddings;
pub mod inlinks;
pub mod internal;
pub mod list;
pub mod page_text;
mod row;
pub mod source;
mod tokenizer;

use std::fmt;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

pub use columns::{Col, Header};
pub use row::Row;
pub use source::{Container, Source, TextEncoding};

use crate::report::{Rejection, Report, Role};

/// Rows scanned for the header: old exports put one title row first, re-saved files a few.
const HEADER_SCAN_ROWS: u64 = 10;

/// A file-level failure: the file cannot be read at all.
#[derive(Debug)]
pub enum InputError {
    /// The operating system refused.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The XLSX container is damaged or unreadable.
    Xlsx {
        /// The file.
        path: PathBuf,
        /// calamine's message.
        message: String,
    },
    /// A format linkgap does not read, with the fix.
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What it is and what to do.
        message: String,
    },
    /// No header row was found, with the reason.
    NoHeader {
        /// The file.
        path: PathBuf,
        /// What was expected.
        message: String,
    },
    /// The file is readable but cannot play the role it was given.
    Role {
        /// The file.
        path: PathBuf,
        /// What is missing.
        message: String,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            InputError::Xlsx { path, message } => {
                write!(f, "{}: unreadable XLSX: {message}", path.display())
            }
            InputError::Unsupported { path, message }
            | InputError::NoHeader { path, message }
            | InputError::Role { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// An export file with its header located.
#[derive(Debug)]
pub struct Table {
    source: Source,
    header: Header,
    name: String,
    /// The page URL (Address or Source cell) of the row being visited, for rejections.
    current_url: std::cell::RefCell<String>,
}

impl Table {
    /// Open `path`, sniff its container and find its header row.
    pub fn open(path: &Path) -> Result<Table, InputError> {
        Table::from_source(Source::open(path)?)
    }

    /// Open one sheet of a workbook by name and find its header row.
    pub fn open_sheet(path: &Path, sheet: &str) -> Result<Table, InputError> {
        Table::from_source(Source::open_sheet(path, sheet)?)
    }

    fn from_source(source: Source) -> Result<Table, InputError> {
        let path = source.path().to_path_buf();
        let path = path.as_path();
        let mut header = None;
        let mut first_rows = Vec::new();
        source.for_each_row(
            &mut |row, record| {
                let record = record.to_record();
                if let Some(h) = Header::from_record(row, &record) {
                    header = Some(h);
                    return ControlFlow::Break(());
                }
                first_rows.push(record);
                if row >= HEADER_SCAN_ROWS {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            &mut |_, _| {},
        )?;
        let header = header.ok_or_else(|| InputError::NoHeader {
            path: path.to_path_buf(),
            message: columns::explain_missing_header(&first_rows),
        })?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Table {
            source,
            header,
            name,
            current_url: std::cell::RefCell::default(),
        })
    }

    /// The located header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The underlying file.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The file name used in messages and the Run sheet.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Roles this table can play, from its header (and, for embeddings, a look at its cells).
    pub fn roles(&self) -> Result<Vec<Role>, InputError> {
        let mut roles = Vec::new();
        if self.header.is_inlinks() {
            roles.push(Role::Inlinks);
            return Ok(roles);
        }
        let vector = embeddings::find_vector_column(self, None)?;
        if vector.is_some() {
            roles.push(Role::Embeddings);
        }
        if self.header.is_internal() {
            roles.push(Role::Internal);
        }
        // A Custom JavaScript export has the same numbered columns: vectors win, unless
        // another of its snippets says it holds the page's content (linkgap's page-text
        // snippet writes next to the embedding snippet, into the same export).
        let text = match (&vector, roles.is_empty()) {
            (_, true) => page_text::is_page_text(&self.header),
            (Some(v), false) if !self.header.is_internal() => {
                page_text::has_content_extractor(&self.header, v.index)
            }
            _ => false,
        };
        if text {
            roles.push(Role::PageText);
        }
        Ok(roles)
    }

    /// Visit every data row after the header. Blank rows are counted as skipped; rows the
    /// CSV parser cannot split are rejected. `stats` is the file's entry in `report`.
    pub fn rows(
        &self,
        report: &mut Report,
        stats: usize,
        visit: &mut dyn FnMut(&mut Report, u64, &Row<'_>),
    ) -> Result<(), InputError> {
        let header_row = self.header.row;
        let url_col = self
            .header
            .get(Col::Address)
            .or_else(|| self.header.get(Col::Source));
        let mut bad_rows = Vec::new();
        let result = self.source.for_each_row(
            &mut |row, record| {
                if row <= header_row {
                    return ControlFlow::Continue(());
                }
                report.stats(stats).read += 1;
                report.tick();
                if is_blank(record) {
                    report.skip(stats, "blank row");
                } else {
                    if let Some(i) = url_col {
                        let mut url = self.current_url.borrow_mut();
                        url.clear();
                        url.push_str(cell(record, Some(i)));
                    }
                    visit(report, row, record);
                }
                ControlFlow::Continue(())
            },
            &mut |row, message| bad_rows.push((row, message)),
        );
        self.current_url.borrow_mut().clear();
        for (row, message) in bad_rows {
            report.stats(stats).read += 1;
            report.reject(
                stats,
                self.rejection(
                    row,
                    "",
                    format!("the row could not be parsed as CSV: {message}"),
                    "",
                ),
            );
        }
        result
    }

    /// A rejection for a row of this table.
    pub fn rejection(
        &self,
        row: u64,
        column: &str,
        problem: impl Into<String>,
        value: &str,
    ) -> Rejection {
        Rejection {
            file: self.name.clone(),
            sheet: self.source.sheet().map(str::to_string),
            row,
            url: self.current_url.borrow().clone(),
            column: column.to_string(),
            problem: problem.into(),
            value: value.to_string(),
        }
    }
}

/// A cell by column index, trimmed; empty when the row is short (ragged legacy rows).
pub fn cell<'a>(record: &Row<'a>, index: Option<usize>) -> &'a str {
    index.and_then(|i| record.get(i)).map_or("", trim)
}

/// `str::trim`, with the usual cell (a visible ASCII character at each end) settled by its
/// two end bytes: ten cells of every All Inlinks row are read through here.
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Whether every cell of a row is empty or white space. Nearly every row starts with a visible
/// ASCII character, which settles it without trimming each cell.
fn is_blank(record: &Row<'_>) -> bool {
    match record
        .iter()
        .flat_map(str::bytes)
        .find(|b| !b.is_ascii_whitespace())
    {
        Some(b) if b.is_ascii_graphic() => false,
        // A control or non-ASCII character (perhaps a no-break space, which `trim` removes):
        // ask each cell.
        _ => record.iter().all(|f| f.trim().is_empty()),
    }
}

/// Whether a file name is hidden (a leading dot) or an Excel lock file (`~$…`): never an
/// export, and never part of a watched set.
pub fn is_hidden_name(name: &str) -> bool {
    name.starts_with('.') || name.starts_with("~$")
}

/// Whether a name could be an export: the extensions a folder's roles are detected among.
pub fn is_export_name(name: &str) -> bool {
    let ext = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    matches!(ext.as_str(), "csv" | "gz" | "xlsx" | "tsv" | "txt")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use csv::StringRecord;

    use super::*;

    #[test]
    fn a_blank_row_is_one_whose_every_cell_trims_to_nothing() {
        let row = |cells: &[&str]| StringRecord::from(cells.to_vec());
        for blank in [&["", " "][..], &["\u{a0}", "\t"], &["\u{b}"], &[]] {
            assert!(is_blank(&Row::from(&row(blank))), "{blank:?}");
        }
        for text in [&["", "x"][..], &["\u{a0}é"], &["\u{1}"], &[" ", "\u{b}-"]] {
            assert!(!is_blank(&Row::from(&row(text))), "{text:?}");
        }
    }

    const EMBEDDINGS: &str = "\u{FEFF}\"Address\",\"Content Type\",\"Status Code\",\"Status\",\"(ChatGPT) Extract embeddings from page content 1\"\n\
        \"https://e.com/\",\"text/html\",\"200\",\"OK\",\"0.1,0.2,0.3\"\n\
        \"https://e.com/a\",\"text/html\",\"200\",\"OK\",\"0.3,0.2,0.1\"\n";

    const INLINKS: &str = "\"Type\",\"Source\",\"Destination\",\"Anchor\",\"Status Code\",\"Follow\",\"Link Position\"\n\
        \"Hyperlink\",\"https://e.com/\",\"https://e.com/a\",\"A\",\"200\",\"true\",\"Content\"\n";

    const INTERNAL: &str = "\"Address\",\"Content Type\",\"Status Code\",\"Status\",\"Indexability\",\"Indexability Status\",\"Word Count\"\n\
        \"https://e.com/\",\"text/html\",\"200\",\"OK\",\"Indexable\",\"\",\"420\"\n";

    const EXTRACTION: &str = "\"Address\",\"Status Code\",\"Status\",\"Main Content 1\"\n\
        \"https://e.com/\",\"200\",\"OK\",\"<p>Hello</p>\"\n";

    /// linkgap's two snippets in one Custom JavaScript export: the vectors and the page text.
    const BOTH: &str = "\"Address\",\"Status Code\",\"Status\",\"(ChatGPT) Extract embeddings from page content 1\",\"linkgap page text 1\"\n\
        \"https://e.com/\",\"200\",\"OK\",\"0.1,0.2,0.3\",\"<p>Hello</p>\"\n\
        \"https://e.com/a\",\"200\",\"OK\",\"0.3,0.2,0.1\",\"<p>World</p>\"\n";

    /// The roles of a CSV file named `name` holding `text`, in a folder of its own (the
    /// tests run in parallel).
    fn roles_of(name: &str, text: &str) -> Vec<Role> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("linkgap-roles-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let roles = Table::open(&path).unwrap().roles().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        roles
    }

    #[test]
    fn an_embeddings_export_is_embeddings() {
        assert_eq!(
            roles_of("custom_javascript_all.csv", EMBEDDINGS),
            vec![Role::Embeddings]
        );
    }

    #[test]
    fn all_inlinks_is_inlinks_only() {
        assert_eq!(roles_of("all_inlinks.csv", INLINKS), vec![Role::Inlinks]);
    }

    #[test]
    fn internal_all_is_internal() {
        assert_eq!(roles_of("internal_all.csv", INTERNAL), vec![Role::Internal]);
    }

    #[test]
    fn a_custom_extraction_is_page_text() {
        assert_eq!(
            roles_of("custom_extraction_all.csv", EXTRACTION),
            vec![Role::PageText]
        );
    }

    #[test]
    fn custom_javascript_with_page_text_is_both() {
        assert_eq!(
            roles_of("custom_javascript_all.csv", BOTH),
            vec![Role::Embeddings, Role::PageText]
        );
    }

    #[test]
    fn a_url_list_has_no_role() {
        let roles = roles_of("urls.csv", "URL\nhttps://e.com/\nhttps://e.com/a\n");
        assert!(roles.is_empty(), "{roles:?}");
    }
}
