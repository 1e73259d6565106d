//! A large sheet part written straight into a package of its own as its rows are filled
//! ([`super::rows`]), instead of through a `rust_xlsxwriter` worksheet saved afterwards: the
//! part's XML is made and deflated on the thread that fills it, with no temporary file of
//! XML in between, so a Queue's parts are also compressed on both cores.
//!
//! `rust_xlsxwriter` still writes everything around the rows (the frame): the XML before
//! them (sheet settings, columns, frozen pane, the header row) from a workbook of the same
//! header and footer and no rows, and the XML after them (autofilter, validations,
//! hyperlinks) and the hyperlinks' relationships from the part's own workbook, which is
//! given each hyperlink as its row goes by. The package also holds that workbook's other
//! files, so [`super::package::join`] takes it like a part `rust_xlsxwriter` saved.

use std::fs::File;
use std::io::{BufWriter, Cursor, Write};

use rust_xlsxwriter::{Workbook, Worksheet, XlsxError};
use zip::write::SimpleFileOptions;
use zip::{DateTime, ZipArchive, ZipWriter};

use super::files::{CsvSheet, Temporary};
use super::package::{PART_SHEET, entry_text, internal, sheet_name};
use super::rows::{RowXml, column_name};
use super::{Cell, Fill, Formats, Sheet, write_footer};

/// Bytes of row XML gathered before they go to the compressor.
const CHUNK: usize = 1 << 20;

/// A sheet part in a package of its own ([`super::package`]).
pub(super) struct Part {
    /// The workbook that writes the frame and the hyperlinks.
    pub(super) workbook: Workbook,
    /// Its placeholder's index among the main workbook's worksheets.
    pub(super) index: usize,
    /// The package, once filled.
    pub(super) file: Temporary,
    /// The rows it will hold: its dimension is written before them, so a part filled with
    /// fewer is an error. (A last row with no cell would make the dimension one row
    /// longer than `rust_xlsxwriter`'s, which Excel takes as it is.)
    pub(super) rows: usize,
}

impl Part {
    /// Stream `rows` (up to the worksheet's row limit) into the part's package, and each
    /// into the CSV; the rows written.
    pub(super) fn fill(
        &mut self,
        to: Fill<'_>,
        sheet: &Sheet,
        rows: &mut dyn Iterator<Item = Vec<Cell>>,
        csv: &mut Option<CsvSheet>,
    ) -> Result<u32, XlsxError> {
        let empty = frame(to.formats, sheet, self.rows)?;
        let head = with_dimension(split_rows(&empty)?.0, sheet.columns.len(), self.rows)?;
        let mut zip = ZipWriter::new(BufWriter::new(File::create(self.file.path())?));
        zip.start_file(sheet_name(PART_SHEET), options())?;
        zip.write_all(head.as_bytes())?;
        let styles = to.formats.numbers();
        let xml = RowXml::new(&sheet.columns, &styles);
        let ws = &mut self.workbook.worksheets_mut()[PART_SHEET];
        let (mut buffer, mut written, mut links) = (Vec::with_capacity(CHUNK * 2), 0u32, 0usize);
        while (written as usize) < to.rows_per_sheet {
            let Some(row) = rows.next() else { break };
            written += 1;
            xml.push(&mut buffer, written, &row, &mut |c, url| {
                super::link(ws, (written, c), url, &to.formats.url, &mut links)
            });
            if buffer.len() >= CHUNK {
                zip.write_all(&buffer)?;
                buffer.clear();
            }
            if let Some(bar) = to.progress {
                bar.inc(1);
            }
            if let Some(csv) = csv {
                csv.write(&row).map_err(XlsxError::IoError)?;
            }
        }
        zip.write_all(&buffer)?;
        if written as usize != self.rows {
            return internal(&format!(
                "a part of {} was given {written} rows, not the {} its dimension says",
                sheet.name, self.rows
            ));
        }
        write_footer(ws, sheet, written)?;
        let mut package = ZipArchive::new(Cursor::new(self.workbook.save_to_buffer()?))?;
        let whole = entry_text(&mut package, &sheet_name(PART_SHEET))?;
        let (_, tail) = split_rows(&whole)?;
        let own = with_dimension(&whole, sheet.columns.len(), self.rows)?;
        if before_rows(&own) != before_rows(&head) {
            return internal("the part's frame differs from its own workbook's");
        }
        zip.write_all(tail.as_bytes())?;
        for i in 0..package.len() {
            let entry = package.by_index_raw(i)?;
            if entry.name()? != sheet_name(PART_SHEET) {
                zip.raw_copy_file(entry)?;
            }
        }
        zip.finish()?.flush()?;
        Ok(written)
    }
}

/// A workbook for a part of `sheet` named `name`: an empty first sheet (which takes the
/// selected tab) and the part's constant-memory worksheet with its header.
pub(super) fn part_workbook(
    formats: &Formats,
    sheet: &Sheet,
    name: &str,
) -> Result<Workbook, XlsxError> {
    let mut workbook = super::new_workbook(formats);
    workbook.add_worksheet();
    let ws = workbook.add_worksheet_with_constant_memory()?;
    ws.set_name(name)?;
    super::write_header(ws, sheet, formats)?;
    Ok(workbook)
}

/// The worksheet XML `rust_xlsxwriter` writes for a part of `sheet` with its header and
/// the footer of `rows` rows, but no rows: what goes before them. (The worksheet's name is
/// not in its XML, so the sheet's own name serves for every part.)
fn frame(formats: &Formats, sheet: &Sheet, rows: usize) -> Result<String, XlsxError> {
    let mut workbook = part_workbook(formats, sheet, &sheet.name)?;
    let ws: &mut Worksheet = &mut workbook.worksheets_mut()[PART_SHEET];
    write_footer(ws, sheet, rows as u32)?;
    let mut package = ZipArchive::new(Cursor::new(workbook.save_to_buffer()?))?;
    entry_text(&mut package, &sheet_name(PART_SHEET))
}

/// A worksheet's XML up to its last row, and from there on (`</sheetData>` and after).
fn split_rows(xml: &str) -> Result<(&str, &str), XlsxError> {
    match xml.find("</sheetData>") {
        Some(at) => Ok(xml.split_at(at)),
        None => internal("a part's worksheet has no rows element"),
    }
}

/// `xml` with the dimension of a sheet of `columns` columns and `rows` rows under its
/// header.
fn with_dimension(xml: &str, columns: usize, rows: usize) -> Result<String, XlsxError> {
    const OPEN: &str = "<dimension ref=\"";
    let found = xml
        .find(OPEN)
        .map(|s| s + OPEN.len())
        .and_then(|start| Some((start, xml[start..].find('"')?)));
    let Some((start, len)) = found else {
        return internal("a part's worksheet has no dimension");
    };
    let dimension = if columns <= 1 && rows == 0 {
        "A1".to_string()
    } else {
        format!("A1:{}{}", column_name(columns.saturating_sub(1)), rows + 1)
    };
    Ok(format!(
        "{}{dimension}{}",
        &xml[..start],
        &xml[start + len..]
    ))
}

/// A worksheet's XML before its rows: what two frames are compared by.
fn before_rows(xml: &str) -> &str {
    &xml[..xml.find("<sheetData>").unwrap_or(xml.len())]
}

/// The options `rust_xlsxwriter` writes its package's entries with.
fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(i64::from(super::COMPRESSION_LEVEL)))
        .unix_permissions(0o600)
        .last_modified_time(DateTime::default())
        .large_file(false)
}
