//! The workbook: a plain table model of sheets ([`Sheet`], [`Cell`]) that the pipeline fills,
//! written to XLSX (frozen header, autofilter, widths, wrapped text, hyperlinks, percentages,
//! status colours, Excel's limits respected) and, on request, to one CSV per sheet.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What writing the workbook can fail with.
pub use rust_xlsxwriter::XlsxError;
use rust_xlsxwriter::{
    Color, DataValidation, Format, FormatAlign, FormatBorder, Workbook, Worksheet,
};

use crate::links::LinkStatus;

mod beside;
mod files;
mod package;
mod rows;
mod stream;

use beside::{Target, beside, jobs};
pub use files::clean_up_on_signals;
use files::{CsvSheet, Temporary, temp_path, untrack};

/// Excel's cell text limit.
pub const MAX_CELL_CHARS: usize = 32_767;
/// Excel's URL length limit for hyperlinks.
pub const MAX_URL_CHARS: usize = 2_079;
/// Excel keeps at most this many hyperlinks per worksheet; the rest are written as text.
pub const MAX_LINKS_PER_SHEET: usize = 65_530;
/// Data rows per worksheet (Excel's 1,048,576 rows less the header).
pub const MAX_DATA_ROWS: usize = 1_048_575;

/// One cell value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Nothing.
    Empty,
    /// Text.
    Text(String),
    /// A URL, written as a clickable hyperlink where Excel allows.
    Url(String),
    /// A whole number.
    Int(i64),
    /// A decimal number.
    Number(f64),
    /// A number shown as a percentage (0.923 → 92.3%).
    Percent(f64),
    /// A link status, coloured.
    Status(LinkStatus),
    /// Text with one span (a byte range on character boundaries) in bold: a passage with the
    /// words to link. CSV gets the plain text.
    Marked(String, std::ops::Range<usize>),
}

impl Cell {
    /// Text, or `Empty` for an empty string.
    pub fn text(s: impl Into<String>) -> Cell {
        let s = s.into();
        if s.is_empty() {
            Cell::Empty
        } else {
            Cell::Text(s)
        }
    }

    /// The cell as CSV text.
    pub fn csv_text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Text(s) | Cell::Marked(s, _) => guard_formula(s),
            Cell::Url(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Number(f) => f.to_string(),
            Cell::Percent(f) => format!("{f:.4}"),
            Cell::Status(s) => s.label().to_string(),
        }
    }
}

/// A spreadsheet program runs CSV text starting with = + - @ as a formula; a leading
/// apostrophe keeps it text (the OWASP CSV-injection advice).
fn guard_formula(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

/// A column's own format: its cells of the matching kind are written without one of their
/// own and take the column's. `rust_xlsxwriter` hashes a cell's whole Format to find its
/// style number, once per formatted cell: on a large Queue that was a sixth of the filling
/// thread, the write stage's longest path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnStyle {
    /// No format of its own.
    Plain,
    /// Long text wraps.
    Wrap,
    /// Numbers to one decimal ([`Cell::Number`]); whole numbers ([`Cell::Int`]) do not go
    /// here, they would show a decimal.
    Decimal,
    /// Percentages ([`Cell::Percent`]).
    Percent,
}

/// A column: header and display width (in characters).
#[derive(Debug, Clone)]
pub struct Column {
    /// Header text (a contract: later tools read columns by these names).
    pub name: String,
    /// Width in characters.
    pub width: f64,
    /// The column's own format.
    pub style: ColumnStyle,
}

impl Column {
    /// A column.
    pub fn new(name: impl Into<String>, width: f64) -> Column {
        Column::styled(name, width, ColumnStyle::Plain)
    }

    /// A column whose text wraps.
    pub fn wrapped(name: impl Into<String>, width: f64) -> Column {
        Column::styled(name, width, ColumnStyle::Wrap)
    }

    /// A column with a format of its own.
    pub fn styled(name: impl Into<String>, width: f64, style: ColumnStyle) -> Column {
        Column {
            name: name.into(),
            width,
            style,
        }
    }
}

/// One sheet of the workbook.
#[derive(Debug, Clone)]
pub struct Sheet {
    /// Sheet name (a contract, like the column names).
    pub name: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows of cells, as many as columns.
    pub rows: Vec<Vec<Cell>>,
    /// Drop-down lists: (column index, allowed values).
    pub dropdowns: Vec<(usize, Vec<String>)>,
    /// Key/value sheets have no autofilter.
    pub key_value: bool,
}

impl Sheet {
    /// An empty sheet.
    pub fn new(name: impl Into<String>, columns: Vec<Column>) -> Sheet {
        Sheet {
            name: name.into(),
            columns,
            rows: Vec::new(),
            dropdowns: Vec::new(),
            key_value: false,
        }
    }
}

/// Fill colours of the status cells (Excel's Good / Neutral / Bad palette).
pub fn status_fill(status: LinkStatus) -> u32 {
    match status {
        LinkStatus::Body | LinkStatus::BodyNofollow => 0x00C6_EFCE,
        LinkStatus::TemplateOnly | LinkStatus::ViaRedirect => 0x00FF_EB9C,
        LinkStatus::NotFound => 0x00FF_C7CE,
        LinkStatus::NearDuplicate => 0x00D9_D9D9,
    }
}

#[derive(Clone)]
struct Formats {
    header: Format,
    wrap: Format,
    percent: Format,
    decimal: Format,
    url: Format,
    bold: Format,
    /// The text after a bold span: a rich string's runs after the first carry their font.
    after_bold: Format,
    statuses: Vec<(LinkStatus, Format)>,
}

impl Formats {
    fn new() -> Formats {
        let statuses = [
            LinkStatus::Body,
            LinkStatus::BodyNofollow,
            LinkStatus::ViaRedirect,
            LinkStatus::TemplateOnly,
            LinkStatus::NotFound,
            LinkStatus::NearDuplicate,
        ]
        .into_iter()
        .map(|s| {
            (
                s,
                Format::new()
                    .set_background_color(Color::RGB(status_fill(s)))
                    .set_border(FormatBorder::Thin)
                    .set_border_color(Color::RGB(0x00BF_BFBF)),
            )
        })
        .collect();
        Formats {
            header: Format::new()
                .set_bold()
                .set_font_color(Color::White)
                .set_background_color(Color::RGB(0x0030_5496))
                .set_text_wrap()
                .set_align(FormatAlign::Top),
            wrap: Format::new().set_text_wrap().set_align(FormatAlign::Top),
            percent: Format::new().set_num_format("0.0%"),
            decimal: Format::new().set_num_format("0.0"),
            bold: rich_run().set_bold(),
            after_bold: rich_run(),
            url: Format::new()
                .set_font_color(Color::RGB(0x0005_63C1))
                .set_underline(rust_xlsxwriter::FormatUnderline::Single),
            statuses,
        }
    }

    /// Every format, in a fixed order. The fields are named exhaustively, so a format added
    /// to the struct and not here does not compile (it would be numbered by first use again).
    fn all(&self) -> impl Iterator<Item = &Format> {
        let Formats {
            header,
            wrap,
            percent,
            decimal,
            url,
            bold,
            after_bold,
            statuses,
        } = self;
        // A format added later goes last, so that the styles before it keep their numbers.
        [header, wrap, percent, decimal, url, bold]
            .into_iter()
            .chain(statuses.iter().map(|(_, f)| f))
            .chain([after_bold])
    }

    /// Each format's style number: its place among the registered formats, after the
    /// default format (0); a format equal to an earlier one (the statuses share colours)
    /// has the earlier one's number, as `rust_xlsxwriter` numbers them.
    fn numbers(&self) -> rows::StyleNumbers {
        let all: Vec<&Format> = self.all().collect();
        let mut numbers: Vec<u32> = Vec::with_capacity(all.len());
        let mut next = 0;
        for (i, f) in all.iter().enumerate() {
            if let Some(j) = all[..i].iter().position(|e| e == f) {
                numbers.push(numbers[j]);
            } else {
                next += 1;
                numbers.push(next);
            }
        }
        let number = |format: &Format| {
            all.iter()
                .position(|f| std::ptr::eq(*f, format))
                .map_or(0, |i| numbers[i])
        };
        rows::StyleNumbers {
            wrap: number(&self.wrap),
            percent: number(&self.percent),
            decimal: number(&self.decimal),
            url: number(&self.url),
            statuses: self.statuses.iter().map(|(s, f)| (*s, number(f))).collect(),
        }
    }

    fn status(&self, s: LinkStatus) -> &Format {
        &self
            .statuses
            .iter()
            .find(|(k, _)| *k == s)
            .expect("every status has a format")
            .1
    }
}

/// Whether `s` is at most `max` long as Excel counts a cell's text (UTF-16 units: a
/// character past U+FFFF counts two). A text of at most `max` bytes is, and needs no count:
/// counting every cell's characters had been a twentieth of the Queue's writing thread, the
/// write stage's longest path.
fn fits(s: &str, max: usize) -> bool {
    s.len() <= max || s.encode_utf16().count() <= max
}

/// `s` as written into a cell of at most `max` UTF-16 units ([`fits`]): cut, with "…" as its
/// last character.
pub fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if fits(s, max) {
        return s.into();
    }
    let mut out = String::new();
    let mut units = 0;
    for c in s.chars() {
        units += c.len_utf16();
        if units > max - 1 {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out.into()
}

/// Writes a workbook one sheet at a time, so only one sheet's rows are in memory: each
/// sheet is streamed to the XLSX (and its CSV, with a CSV folder) as it is added and then
/// dropped. The workbook appears under its name only when [`finish`](Self::finish) renames it.
pub struct WorkbookWriter {
    progress: Option<indicatif::ProgressBar>,
    workbook: Workbook,
    formats: Formats,
    path: PathBuf,
    csv_dir: Option<PathBuf>,
    /// Finished CSVs under their temporary names, published with the workbook.
    csvs: Vec<(PathBuf, PathBuf)>,
    /// Data rows per worksheet: Excel's limit ([`MAX_DATA_ROWS`]); smaller in tests.
    rows_per_sheet: usize,
    /// Large sheet parts written in packages of their own as they are filled
    /// ([`package`]).
    parts: Vec<stream::Part>,
    /// The main workbook once [`save_main`](Self::save_main) saved it.
    main: Option<Temporary>,
    /// Whether a large part of [`add_rows_beside_then`](Self::add_rows_beside_then)'s second sheet goes
    /// to a package of its own (always, but in the test that compares both ways).
    separate_parts: bool,
}

/// The deflate level of every part of the package (see [`new_workbook`]).
const COMPRESSION_LEVEL: u8 = 2;

/// A workbook with the run's settings and its formats registered, in a fixed order.
fn new_workbook(formats: &Formats) -> Workbook {
    let mut workbook = Workbook::new();
    // Saving a large Queue is mostly deflate. Level 2 is zlib-rs's
    // deflate_fast (no lazy matching): on the 100,000-page run's sheets (183–692 MB of XML)
    // it deflates 1.5–1.9× as fast as level 3 for a file 4–5% larger; level 3 had taken
    // about 40% off the default level 6 (a 200,000-page run) for a file ~15% larger.
    // Level 1 (static trees) is faster again but ~35% larger than 3.
    workbook.set_zip_compression_level(COMPRESSION_LEVEL);
    // A format gets its style number when first used; two sheets filled at once
    // (add_rows_beside_then) would number them in whichever order the threads reach them, and
    // the same workbook would differ from run to run. Registering every format first
    // fixes the numbering (rust_xlsxwriter's own advice for threaded writing), and gives a
    // part saved in a workbook of its own the same style numbers ([`package`]).
    for format in formats.all() {
        workbook.register_format(format);
    }
    workbook
}

impl WorkbookWriter {
    /// A writer for `path`, also writing `<csv_dir>/<sheet>.csv` when given.
    pub fn new(path: &Path, csv_dir: Option<&Path>) -> io::Result<WorkbookWriter> {
        if let Some(dir) = csv_dir {
            fs::create_dir_all(dir)?;
        }
        let formats = Formats::new();
        let workbook = new_workbook(&formats);
        Ok(WorkbookWriter {
            progress: None,
            workbook,
            formats,
            path: path.to_path_buf(),
            csv_dir: csv_dir.map(Path::to_path_buf),
            csvs: Vec::new(),
            rows_per_sheet: MAX_DATA_ROWS,
            parts: Vec::new(),
            main: None,
            separate_parts: true,
        })
    }

    /// Split a sheet's rows into the parts its worksheets hold (one per Excel row limit;
    /// always at least one, maybe empty), for [`add_rows_beside_then`](Self::add_rows_beside_then).
    pub fn parts<T>(&self, mut rows: Vec<T>) -> Vec<Vec<T>> {
        let mut parts = Vec::new();
        // From the end, so each row moves once.
        while rows.len() > self.rows_per_sheet {
            let last = (rows.len() - 1) / self.rows_per_sheet * self.rows_per_sheet;
            parts.push(rows.split_off(last));
        }
        parts.push(rows);
        parts.reverse();
        parts
    }

    /// Count written rows on `bar` (a spinner on stderr).
    pub fn set_progress(&mut self, bar: indicatif::ProgressBar) {
        self.progress = Some(bar);
    }

    /// Write one sheet (split at Excel's row limit) and its CSV.
    pub fn add(&mut self, mut sheet: Sheet) -> Result<(), XlsxError> {
        let rows = std::mem::take(&mut sheet.rows);
        let len = rows.len();
        self.add_rows(&sheet, len, rows.into_iter())
    }

    /// Write a sheet whose `len` rows come from `rows`, each written and dropped in turn, so a
    /// sheet of millions of rows never exists in memory (`sheet.rows` is ignored).
    pub fn add_rows(
        &mut self,
        sheet: &Sheet,
        len: usize,
        rows: impl Iterator<Item = Vec<Cell>>,
    ) -> Result<(), XlsxError> {
        let mut part = self.reserve(sheet, len)?;
        let worksheets = &mut self.workbook.worksheets_mut()[part.worksheets.clone()];
        let to = Fill {
            formats: &self.formats,
            progress: self.progress.as_ref(),
            rows_per_sheet: self.rows_per_sheet,
        };
        without_write_panics(|| to.fill(worksheets, sheet, rows, &mut part.csv))?;
        self.publish_later(part.csv)
    }

    /// [`add_rows`](Self::add_rows) for two sheets at once, on two threads: writing a large
    /// workbook is one core's work otherwise (each row's cells are formatted and escaped into
    /// XML on the thread that writes it). `second` comes as its [`parts`](Self::parts), one
    /// row source per worksheet: this thread fills `first`, a second thread the parts of
    /// `second`, and whichever is free takes the next part, so a Queue of millions of rows
    /// (five worksheets at a million pages) is filled on both cores. The sheets keep their
    /// order; the CSV of `second` is one file in row order.
    ///
    /// Then `then` runs on this thread as soon as `first` is filled, while `second`'s parts
    /// may still be filling in packages of their own: `then` writes the workbook's other
    /// sheets and [saves](Self::save_main) it, and the save, one core's work, overlaps the
    /// filling of a long second sheet (the Queue with its passages) instead of waiting for
    /// it. When `second` sits in the main workbook (a small sheet), `then` waits for it.
    pub fn add_rows_beside_then<A, B>(
        &mut self,
        first: (&Sheet, usize, A),
        second: (&Sheet, usize, Vec<B>),
        then: impl FnOnce(&mut Self) -> Result<(), XlsxError>,
    ) -> Result<(), XlsxError>
    where
        A: Iterator<Item = Vec<Cell>>,
        B: Iterator<Item = Vec<Cell>> + Send,
    {
        let mut a = self.reserve(first.0, first.1)?;
        let parts = second.2.len().max(1);
        // A large second sheet's parts are filled into packages of their own, compressed as
        // they are filled, on whichever core fills them ([`package`], [`stream`]).
        let separate = self.separate_parts && second.1 > CONSTANT_MEMORY_ROWS;
        let first_part = self.parts.len();
        let b = self.reserve_parts(second.0, second.1, parts, separate)?;
        // Parts after the first write their CSV rows to files of their own, appended to the
        // sheet's CSV in order once every part is written.
        let mut csvs: Vec<Option<CsvSheet>> = vec![b.csv];
        for k in 1..parts {
            csvs.push(match &self.csv_dir {
                Some(dir) => {
                    Some(CsvSheet::continuation(dir, second.0, k).map_err(XlsxError::IoError)?)
                }
                None => None,
            });
        }
        // The parts leave the writer while they fill, so `then` may use it meanwhile. What
        // the workbook says about each (its autofilter and printed header row, as defined
        // names) comes from its placeholder, written now for the rows it will hold (a part
        // given other rows is an error).
        let mut moving = if separate {
            self.parts.split_off(first_part)
        } else {
            Vec::new()
        };
        for (ws, part) in self.workbook.worksheets_mut()[b.worksheets.clone()]
            .iter_mut()
            .zip(&moving)
        {
            write_footer(ws, second.0, u32::try_from(part.rows).unwrap_or(u32::MAX))?;
        }
        // The threads' own copies: `then` borrows the writer while they fill.
        let formats = self.formats.clone();
        let progress = self.progress.clone();
        let to = Fill {
            formats: &formats,
            progress: progress.as_ref(),
            rows_per_sheet: self.rows_per_sheet,
        };
        let sheet_b = second.0;
        let rows_b = second.2;
        if separate {
            let jobs = jobs(
                moving.iter_mut().map(Target::Part).collect(),
                rows_b,
                &mut csvs,
            );
            let done = beside(to, sheet_b, &jobs, || {
                let worksheets = &mut self.workbook.worksheets_mut()[a.worksheets.clone()];
                without_write_panics(|| to.fill(worksheets, first.0, first.2, &mut a.csv))?;
                then(self)
            });
            self.parts.extend(moving);
            // On an error the CSVs are dropped, which removes their files.
            done?;
            self.publish_later(a.csv)?;
            return self.publish_csv_parts(csvs);
        }
        // A small second sheet's worksheets are the main workbook's own: `then` waits.
        let (head, tail) = self
            .workbook
            .worksheets_mut()
            .split_at_mut(b.worksheets.start);
        let jobs = jobs(
            tail[..parts].iter_mut().map(Target::Worksheet).collect(),
            rows_b,
            &mut csvs,
        );
        beside(to, sheet_b, &jobs, || {
            let worksheets = &mut head[a.worksheets.clone()];
            without_write_panics(|| to.fill(worksheets, first.0, first.2, &mut a.csv)).map(|_| ())
        })?;
        drop(jobs);
        self.publish_later(a.csv)?;
        self.publish_csv_parts(csvs)?;
        then(self)
    }

    /// Append a sheet's CSV parts, in order, to its first and keep it for publishing.
    fn publish_csv_parts(&mut self, csvs: Vec<Option<CsvSheet>>) -> Result<(), XlsxError> {
        let mut csvs = csvs.into_iter();
        let mut whole = csvs.next().flatten();
        for part in csvs.flatten() {
            if let Some(whole) = &mut whole {
                whole.append(part).map_err(XlsxError::IoError)?;
            }
        }
        self.publish_later(whole)
    }

    /// Add the worksheets a sheet of `len` rows needs (one per Excel row limit), with their
    /// headers, and open its CSV.
    fn reserve(&mut self, sheet: &Sheet, len: usize) -> Result<Reserved, XlsxError> {
        self.reserve_parts(sheet, len, len.div_ceil(self.rows_per_sheet).max(1), false)
    }

    /// [`reserve`](Self::reserve) by the number of worksheets; with `separate`, each
    /// worksheet in a package of its own (a [`stream::Part`]), for a sheet of constant-memory size.
    fn reserve_parts(
        &mut self,
        sheet: &Sheet,
        len: usize,
        parts: usize,
        separate: bool,
    ) -> Result<Reserved, XlsxError> {
        if self.main.is_some() {
            return package::internal("a sheet added after the main workbook was saved");
        }
        let csv = match &self.csv_dir {
            Some(dir) => Some(CsvSheet::create(dir, sheet).map_err(XlsxError::IoError)?),
            None => None,
        };
        let first = self.workbook.worksheets_mut().len();
        for part in 0..parts {
            let name = if parts > 1 {
                format!("{} ({})", sheet.name, part + 1)
            } else {
                sheet.name.clone()
            };
            if separate {
                // An empty placeholder here; the rows go to the part's own package.
                self.workbook.add_worksheet().set_name(&name)?;
                // Named by its placeholder's index (the main workbook is part 0): while a
                // sheet's parts fill outside `self.parts` (`add_rows_beside_then`), their
                // count would name a later sheet's parts after theirs.
                let file = part_path(&temp_path(&self.path), first + part + 1);
                self.parts.push(stream::Part {
                    workbook: stream::part_workbook(&self.formats, sheet, &name)?,
                    index: first + part,
                    file: Temporary::new(file),
                    rows: len
                        .saturating_sub(part * self.rows_per_sheet)
                        .min(self.rows_per_sheet),
                });
                continue;
            }
            // Large sheets stream to a temporary file row by row; small ones keep Excel's
            // shared strings.
            let ws = if len > CONSTANT_MEMORY_ROWS {
                self.workbook.add_worksheet_with_constant_memory()?
            } else {
                self.workbook.add_worksheet()
            };
            ws.set_name(&name)?;
            write_header(ws, sheet, &self.formats)?;
        }
        Ok(Reserved {
            worksheets: first..first + parts,
            csv,
        })
    }

    /// Save the main workbook now, to a temporary file, and nothing else: the sheets still
    /// filling into packages of their own ([`add_rows_beside_then`](Self::add_rows_beside_then))
    /// are joined to it by [`finish`](Self::finish). No sheet may be added after.
    pub fn save_main(&mut self) -> Result<(), XlsxError> {
        // A second save would go to the same temporary file, which the first one's
        // `Temporary`, dropped on assignment, would then remove.
        if self.main.is_some() {
            return package::internal("the main workbook saved twice");
        }
        self.main = Some(self.saved_main()?);
        Ok(())
    }

    /// The main workbook saved to its temporary file (removed when dropped).
    fn saved_main(&mut self) -> Result<Temporary, XlsxError> {
        // No "Compressing" message here: saved early, the Queue is still being written.
        let main = Temporary::new(part_path(&temp_path(&self.path), 0));
        without_write_panics(|| self.workbook.save(main.path()))?;
        Ok(main)
    }

    /// Join the main workbook, saved now unless [`save_main`](Self::save_main) saved it,
    /// and the [`stream::Part`]s, already written, into one package at `tmp` ([`package`]).
    /// The temporary files are removed whatever happens.
    fn save_in_parts(&mut self, tmp: &Path) -> Result<(), XlsxError> {
        let main = match self.main.take() {
            Some(main) => main,
            None => self.saved_main()?,
        };
        let parts: Vec<(usize, &Path)> = self
            .parts
            .iter()
            .map(|p| (p.index, p.file.path()))
            .collect();
        package::join(main.path(), &parts, tmp)
    }

    /// Keep a written CSV under its temporary name until [`finish`](Self::finish).
    fn publish_later(&mut self, csv: Option<CsvSheet>) -> Result<(), XlsxError> {
        if let Some(csv) = csv {
            self.csvs.push(csv.finish().map_err(XlsxError::IoError)?);
        }
        Ok(())
    }

    /// Save to a temporary file in the same folder, then rename, so a half-written workbook
    /// never appears under the final name. With large parts, already written into packages
    /// of their own, the main workbook is saved and one package joined from them all.
    pub fn finish(mut self) -> Result<(), XlsxError> {
        if let Some(bar) = &self.progress {
            bar.set_message("Compressing the workbook");
        }
        // Removed on an error (or once renamed, a no-op).
        let tmp = Temporary::new(temp_path(&self.path));
        if self.parts.is_empty() && self.main.is_none() {
            without_write_panics(|| self.workbook.save(tmp.path()))?;
        } else {
            self.save_in_parts(tmp.path())?;
        }
        // The workbook and its CSVs are published together, once everything is written, so
        // an interrupted run never leaves CSVs next to an older workbook they do not match.
        fs::rename(tmp.path(), &self.path).map_err(XlsxError::IoError)?;
        drop(tmp);
        for (tmp, path) in self.csvs.drain(..) {
            fs::rename(&tmp, &path).map_err(XlsxError::IoError)?;
            untrack(&tmp);
        }
        if let Some(bar) = self.progress.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}

impl Drop for WorkbookWriter {
    /// A writer dropped before [`WorkbookWriter::finish`] (an error on the way) leaves no
    /// temporary CSV behind.
    fn drop(&mut self) {
        for (tmp, _) in self.csvs.drain(..) {
            let _ = fs::remove_file(&tmp);
            untrack(&tmp);
        }
    }
}

/// The worksheets and the CSV one sheet is written to.
struct Reserved {
    worksheets: std::ops::Range<usize>,
    csv: Option<CsvSheet>,
}

/// Rows above which a sheet streams to a temporary file row by row (a constant-memory
/// worksheet, with inline strings); smaller ones keep Excel's shared strings.
const CONSTANT_MEMORY_ROWS: usize = 1_000;

/// The temporary file part `k` of the workbook saving to `tmp` is saved to (0: the main one):
/// `.<name>.<pid>.part<k>.tmp`, still ending in `.tmp`, so `linkgap watch` removes it after a
/// killed run like the workbook's own temporary file.
fn part_path(tmp: &Path, k: usize) -> PathBuf {
    tmp.with_extension(format!("part{k}.tmp"))
}

/// What filling a worksheet needs besides the worksheet: shared by the threads that fill.
#[derive(Clone, Copy)]
struct Fill<'a> {
    formats: &'a Formats,
    progress: Option<&'a indicatif::ProgressBar>,
    rows_per_sheet: usize,
}

impl Fill<'_> {
    /// Stream `rows` into a sheet's worksheets, each up to the row limit, and its CSV.
    fn fill(
        self,
        worksheets: &mut [Worksheet],
        sheet: &Sheet,
        mut rows: impl Iterator<Item = Vec<Cell>>,
        csv: &mut Option<CsvSheet>,
    ) -> Result<Vec<u32>, XlsxError> {
        let mut counts = Vec::with_capacity(worksheets.len());
        for ws in worksheets {
            let mut links = 0usize;
            let mut written = 0u32;
            while (written as usize) < self.rows_per_sheet {
                let Some(row) = rows.next() else { break };
                written += 1;
                write_row(
                    ws,
                    written,
                    (&row, &sheet.columns),
                    self.formats,
                    &mut links,
                )?;
                if let Some(bar) = self.progress {
                    bar.inc(1);
                }
                if let Some(csv) = csv {
                    csv.write(&row).map_err(XlsxError::IoError)?;
                }
            }
            write_footer(ws, sheet, written)?;
            counts.push(written);
        }
        Ok(counts)
    }
}

/// How `rust_xlsxwriter`'s panic on a failed write starts: constant-memory worksheets write
/// their rows to temporary files and `expect` every write, so a full disk panics there.
const WRITE_PANIC: &str = "Couldn't write to";

/// Run `work`, turning `rust_xlsxwriter`'s panic on a failed write into the I/O error it was,
/// with where the temporary files go. Any other panic goes on as it was.
fn without_write_panics<T>(work: impl FnOnce() -> Result<T, XlsxError>) -> Result<T, XlsxError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        let message = panic_text(&*payload);
        if !message.starts_with(WRITE_PANIC) {
            std::panic::resume_unwind(payload);
        }
        Err(XlsxError::IoError(io::Error::other(format!(
            "{message} (the sheets are written to temporary files under {} first: is the disk full?)",
            std::env::temp_dir().display()
        ))))
    })
}

/// A panic's message, when it has one.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("")
}

/// Keep `rust_xlsxwriter`'s write panics off stderr: [`without_write_panics`] reports them as
/// errors, with the cause, and the run exits 2 like any other failure to write. Every other
/// panic is printed as before.
pub fn quiet_write_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = panic_text(info.payload());
        let from_writer = info
            .location()
            .is_some_and(|l| l.file().contains("rust_xlsxwriter"));
        if !(from_writer && message.starts_with(WRITE_PANIC)) {
            previous(info);
        }
    }));
}

/// Write `sheets` to `path` atomically (see [`WorkbookWriter`]).
pub fn write_xlsx(path: &Path, sheets: Vec<Sheet>) -> Result<(), XlsxError> {
    let mut writer = WorkbookWriter::new(path, None).map_err(XlsxError::IoError)?;
    for sheet in sheets {
        writer.add(sheet)?;
    }
    writer.finish()
}

fn write_header(ws: &mut Worksheet, sheet: &Sheet, f: &Formats) -> Result<(), XlsxError> {
    for (c, col) in sheet.columns.iter().enumerate() {
        ws.set_column_width(c as u16, col.width)?;
        // The column's cells of its kind are written without a format and take the
        // column's ([`ColumnStyle`]).
        let format = match col.style {
            ColumnStyle::Plain => None,
            ColumnStyle::Wrap => Some(&f.wrap),
            ColumnStyle::Decimal => Some(&f.decimal),
            ColumnStyle::Percent => Some(&f.percent),
        };
        if let Some(format) = format {
            ws.set_column_format(c as u16, format)?;
        }
        ws.write_string_with_format(0, c as u16, &col.name, &f.header)?;
    }
    Ok(())
}

fn write_row(
    ws: &mut Worksheet,
    r: u32,
    (row, columns): (&[Cell], &[Column]),
    f: &Formats,
    links: &mut usize,
) -> Result<(), XlsxError> {
    for (c, cell) in row.iter().enumerate() {
        let style = columns.get(c).map_or(ColumnStyle::Plain, |col| col.style);
        let c = c as u16;
        match cell {
            Cell::Empty => {}
            Cell::Text(s) => {
                // A wrapped column's format (write_header) applies.
                ws.write_string(r, c, cut(s, MAX_CELL_CHARS).as_ref())?;
            }
            Cell::Url(u) => {
                if !link(ws, (r, c), u, &f.url, links) {
                    ws.write_string(r, c, cut(u, MAX_CELL_CHARS).as_ref())?;
                }
            }
            Cell::Int(i) => {
                debug_assert!(
                    matches!(style, ColumnStyle::Plain | ColumnStyle::Wrap),
                    "a whole number in a {style:?} column would show its format"
                );
                ws.write_number(r, c, *i as f64)?;
            }
            // The column's format applies (write_header).
            Cell::Number(n) if style == ColumnStyle::Decimal => {
                ws.write_number(r, c, *n)?;
            }
            Cell::Percent(p) if style == ColumnStyle::Percent => {
                ws.write_number(r, c, *p)?;
            }
            Cell::Number(n) => {
                ws.write_number_with_format(r, c, *n, &f.decimal)?;
            }
            Cell::Percent(p) => {
                ws.write_number_with_format(r, c, *p, &f.percent)?;
            }
            Cell::Status(s) => {
                ws.write_string_with_format(r, c, s.label(), f.status(*s))?;
            }
            Cell::Marked(s, span) => write_marked(ws, (r, c), s, span.clone(), f)?,
        }
    }
    Ok(())
}

/// Whether `span` of `s` can be a rich string's bold run: not empty, on character
/// boundaries, in a text whose rich string fits Excel's limit. `rust_xlsxwriter` holds the
/// rich string's XML to the limit (its runs' fonts and the text's entities with it), so a
/// text near the limit is written plain, whichever writer writes it.
fn boldable(s: &str, span: &std::ops::Range<usize>) -> bool {
    /// More than the XML of three runs and two fonts adds to the text.
    const RUNS: usize = 256;
    /// The most a byte of text grows by as XML: a control character is `_x001F_`.
    const GROWTH: usize = 7;
    let fits_rich = || {
        s.len() * GROWTH + RUNS <= MAX_CELL_CHARS
            || s.chars()
                .map(|c| match c {
                    '&' => 5,
                    '<' | '>' => 4,
                    '\t' | '\n' => 1,
                    '\u{0}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => 7,
                    c => c.len_utf16(),
                })
                .sum::<usize>()
                + RUNS
                <= MAX_CELL_CHARS
    };
    !span.is_empty()
        && span.end <= s.len()
        && s.is_char_boundary(span.start)
        && s.is_char_boundary(span.end)
        && fits_rich()
}

/// Write `url` at `(r, c)` as a hyperlink if Excel can take one more (`links` so far) and
/// it is one; whether it was.
fn link(
    ws: &mut Worksheet,
    (r, c): (u32, u16),
    url: &str,
    format: &Format,
    links: &mut usize,
) -> bool {
    let linked = *links < MAX_LINKS_PER_SHEET
        && url.len() <= MAX_URL_CHARS
        && (url.starts_with("http://") || url.starts_with("https://"))
        && ws.write_url_with_format(r, c, url, format).is_ok();
    if linked {
        *links += 1;
    }
    linked
}

/// A text with its span in bold, as a rich string; plain text when the span is empty, out of
/// range or the text had to be cut. Written without a cell format: a wrapped column's
/// applies ([`write_header`]).
fn write_marked(
    ws: &mut Worksheet,
    (r, c): (u32, u16),
    s: &str,
    span: std::ops::Range<usize>,
    f: &Formats,
) -> Result<(), XlsxError> {
    let plain = Format::new();
    if !boldable(s, &span) {
        ws.write_string(r, c, cut(s, MAX_CELL_CHARS).as_ref())?;
        return Ok(());
    }
    let parts: Vec<(&Format, &str)> = [
        (&plain, &s[..span.start]),
        (&f.bold, &s[span.clone()]),
        (&f.after_bold, &s[span.end..]),
    ]
    .into_iter()
    .filter(|(_, t)| !t.is_empty())
    .collect();
    ws.write_rich_string(r, c, &parts)?;
    Ok(())
}

/// The font of a rich string's run, as little of it as `rust_xlsxwriter` writes (bold, size and
/// font name): each run after the first carries its font in every cell, and with the default
/// one's theme colour, family and scheme the 100,041-page Queue's XML with page text had been
/// 692 MB instead of 641. LibreOffice reads the runs back whole (tests/it/libreoffice.rs).
fn rich_run() -> Format {
    Format::new()
        .set_font_color(Color::Automatic)
        .set_font_family(0)
        .set_font_scheme(rust_xlsxwriter::FontScheme::None)
}

fn write_footer(ws: &mut Worksheet, sheet: &Sheet, last_row: u32) -> Result<(), XlsxError> {
    let last_col = sheet.columns.len().saturating_sub(1) as u16;
    ws.set_freeze_panes(1, 0)?;
    // Printed or exported to PDF: landscape, the header on every page, and narrow sheets one
    // page wide (wide ones would shrink past reading, so they run across pages).
    ws.set_landscape();
    ws.set_repeat_rows(0, 0)?;
    if sheet.columns.iter().map(|c| c.width).sum::<f64>() <= 480.0 {
        ws.set_print_fit_to_pages(1, 0);
    }
    if !sheet.key_value {
        ws.autofilter(0, 0, last_row.max(1), last_col)?;
    }
    for (col, values) in &sheet.dropdowns {
        let validation = DataValidation::new()
            .allow_list_strings(values)?
            .ignore_blank(true);
        ws.add_data_validation(
            1,
            *col as u16,
            MAX_DATA_ROWS as u32,
            *col as u16,
            &validation,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    #[test]
    fn csv_text_never_starts_a_formula() {
        assert_eq!(
            Cell::text("=HYPERLINK(\"x\")").csv_text(),
            "'=HYPERLINK(\"x\")"
        );
        assert_eq!(Cell::text("-1 is text here").csv_text(), "'-1 is text here");
        assert_eq!(Cell::Int(-1).csv_text(), "-1");
        assert_eq!(Cell::text("plain").csv_text(), "plain");
    }

    #[test]
    fn sheets_written_beside_each_other_keep_their_order_and_rows() {
        beside_each_other(false);
        // The rest of the workbook written and saved while B's parts still fill.
        beside_each_other(true);
    }

    fn beside_each_other(save_early: bool) {
        use calamine::{Data, Reader, Xlsx, open_workbook};
        let dir = std::env::temp_dir().join(format!(
            "linkgap-beside-{save_early}-{}",
            std::process::id()
        ));
        fs::create_dir_all(&dir).unwrap();
        let (path, csvs) = (dir.join("w.xlsx"), dir.join("csv"));
        let sheet =
            |name: &str| Sheet::new(name, vec![Column::new("N", 8.0), Column::new("T", 8.0)]);
        let row = |tag: &str, i: i64| vec![Cell::Int(i), Cell::text(format!("{tag}{i}"))];
        // 1,000 rows to a worksheet: "A" fills two on this thread; "B"'s three parts go to
        // whichever thread is free.
        let mut w = WorkbookWriter::new(&path, Some(&csvs)).unwrap();
        w.rows_per_sheet = 1_000;
        let b_parts = w.parts((0..2_500).collect::<Vec<i64>>());
        assert_eq!(
            b_parts.iter().map(Vec::len).collect::<Vec<_>>(),
            [1_000, 1_000, 500]
        );
        w.add(sheet("Before")).unwrap();
        w.add_rows_beside_then(
            (&sheet("A"), 1_500, (0..1_500).map(|i| row("a", i))),
            (
                &sheet("B"),
                2_500,
                b_parts
                    .into_iter()
                    .map(|part| part.into_iter().map(move |i| row("b", i)))
                    .collect(),
            ),
            |w| {
                if save_early {
                    w.add(sheet("After"))?;
                    w.save_main()?;
                    // Nothing can be added to a workbook already saved.
                    assert!(w.add(sheet("Late")).is_err());
                }
                Ok(())
            },
        )
        .unwrap();
        if !save_early {
            w.add(sheet("After")).unwrap();
        }
        w.finish().unwrap();
        let mut book: Xlsx<_> = open_workbook(&path).unwrap();
        assert_eq!(
            book.sheet_names(),
            [
                "Before", "A (1)", "A (2)", "B (1)", "B (2)", "B (3)", "After"
            ]
        );
        for (name, height, last) in [
            ("A (1)", 1_001, "a999"),
            ("A (2)", 501, "a1499"),
            ("B (1)", 1_001, "b999"),
            ("B (2)", 1_001, "b1999"),
            ("B (3)", 501, "b2499"),
        ] {
            let range = book.worksheet_range(name).unwrap();
            assert_eq!(range.height(), height, "{name}");
            assert_eq!(
                range.get_value((height as u32 - 1, 1)),
                Some(&Data::String(last.into())),
                "{name}"
            );
        }
        // Each sheet's CSV is one file, its rows in order; no part file is left.
        for (name, rows) in [("A", 1_500), ("B", 2_500)] {
            let csv = fs::read_to_string(csvs.join(format!("{name}.csv"))).unwrap();
            let lines: Vec<&str> = csv.lines().collect();
            assert_eq!(lines.len(), rows + 1);
            assert_eq!(lines[0], "N,T");
            let tag = name.to_lowercase();
            assert!(
                lines[1..]
                    .iter()
                    .enumerate()
                    .all(|(i, l)| *l == format!("{i},{tag}{i}"))
            );
        }
        let mut left: Vec<String> = fs::read_dir(&csvs)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["A.csv", "After.csv", "B.csv", "Before.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_parts_temporary_file_is_named_like_the_workbooks() {
        // `linkgap watch` removes a killed run's `..linkgap-<id>.xlsx.<…>.tmp` files.
        let tmp = Path::new("/out/..linkgap-7.xlsx.123.tmp");
        assert_eq!(
            part_path(tmp, 2),
            Path::new("/out/..linkgap-7.xlsx.123.part2.tmp")
        );
        // Dropped without being renamed (an error or a panic on the way), it is removed.
        let dir = std::env::temp_dir().join(format!("linkgap-tmpfile-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.tmp");
        {
            let tmp = Temporary::new(path.clone());
            fs::write(tmp.path(), "part").unwrap();
        }
        assert!(!path.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Row `i` of the sheet [`a_sheet_saved_in_parts_is_the_sheet_saved_whole`] writes: every
    /// kind of cell in turn, with the texts Excel escapes, spans a rich string cannot take,
    /// a row of nothing and texts past Excel's limit.
    fn row_of_every_kind(i: i64) -> Vec<Cell> {
        // Texts Excel escapes or keeps the white space of, and spans a rich string cannot
        // take, in turn.
        let texts = [
            " lead and trail\t",
            "_x0041_ is escaped, _x00G1_ not",
            "bell\u{7} and \u{FFFF} and Ä",
            "",
        ];
        let marked = |i: i64| {
            let s = format!("  see the page {i} & <more> here ");
            match i % 6 {
                0 => Cell::Marked(s, 0..6),
                1 => Cell::Marked(s.clone(), s.len() - 5..s.len()),
                2 => Cell::Marked(s, 3..3),
                3 => Cell::Marked(s, 1..99),
                4 => Cell::Marked("_x0041_ in a run".into(), 8..10),
                _ => Cell::Marked(s, 6..9),
            }
        };
        let row_b_cells = |i: i64| {
            vec![
                match i % 5 {
                    0 => Cell::Url(format!("ftp://e.com/{i}")),
                    1 => Cell::Url(format!("https://e.com/{i}?a=1&b=<{i}>")),
                    _ => Cell::Url(format!("https://e.com/{i}")),
                },
                marked(i),
                match i % 4 {
                    0 => Cell::Number(f64::NAN),
                    1 => Cell::Number(-1e21 * i as f64),
                    _ => Cell::Number(i as f64 / 3.0),
                },
                Cell::Percent(1.0 / (1.0 + i as f64)),
                Cell::Status(
                    [
                        LinkStatus::TemplateOnly,
                        LinkStatus::Body,
                        LinkStatus::BodyNofollow,
                        LinkStatus::ViaRedirect,
                        LinkStatus::NotFound,
                        LinkStatus::NearDuplicate,
                    ][i as usize % 6],
                ),
                if i % 2 == 0 {
                    Cell::Empty
                } else {
                    Cell::text("a < b & \"c\"")
                },
                Cell::Int(i * 1_000_003 - 5),
                if i % 3 == 0 {
                    Cell::Number(f64::INFINITY)
                } else {
                    Cell::Number(i as f64 * 0.25)
                },
                Cell::Text(texts[i as usize % texts.len()].to_string()),
            ]
        };
        let row = |i: i64| {
            if i == 7 {
                // A row of nothing is not written; an empty text is no cell.
                let mut nothing = vec![Cell::Empty; 9];
                nothing[0] = Cell::Url(String::new());
                nothing[1] = Cell::Marked(String::new(), 0..0);
                nothing[8] = Cell::Text(String::new());
                return nothing;
            }
            if i == 11 {
                // Past Excel's limit in UTF-16 units, not in characters; and a passage
                // whose rich string would pass it.
                let mut long = row_b_cells(i);
                long[8] = Cell::Text("😀".repeat(20_000));
                long[1] = Cell::Marked("a & b ".repeat(5_400), 0..1);
                return long;
            }
            row_b_cells(i)
        };
        row(i)
    }

    #[test]
    fn a_sheet_saved_in_parts_is_the_sheet_saved_whole() {
        // Every kind of cell (with the texts Excel escapes), hyperlinks (a sheet's own
        // relationships), a wrapped column and a dropdown, in a second sheet of two
        // constant-memory parts, written once by rust_xlsxwriter into the main workbook and
        // once by linkgap's own rows into packages of their own joined after
        // ([`stream`]): the packages must hold the same files, byte for byte, but the
        // creation time.
        let dir = std::env::temp_dir().join(format!("linkgap-parts-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let mut sheet_b = Sheet::new(
            "Queue",
            vec![
                Column::new("Url", 30.0),
                Column::wrapped("Passage", 40.0),
                Column::new("Score", 8.0),
                Column::new("Share", 8.0),
                Column::new("Status", 8.0),
                Column::new("Decision", 8.0),
                Column::wrapped("Count", 8.0),
                Column::styled("Mean", 8.0, ColumnStyle::Decimal),
                Column::new("Note", 8.0),
            ],
        );
        sheet_b.dropdowns.push((5, vec!["yes".into(), "no".into()]));
        let write = |separate: bool| {
            let path = dir.join(format!("{separate}.xlsx"));
            let mut w = WorkbookWriter::new(&path, None).unwrap();
            w.rows_per_sheet = 1_200;
            w.separate_parts = separate;
            let parts = w.parts((0..2_000).collect::<Vec<i64>>());
            w.add(Sheet::new("Summary", vec![Column::new("K", 8.0)]))
                .unwrap();
            w.add_rows_beside_then(
                (
                    &Sheet::new("A", vec![Column::new("Url", 8.0)]),
                    1_100,
                    (0..1_100).map(|i| vec![Cell::Url(format!("https://e.com/a{i}"))]),
                ),
                (
                    &sheet_b,
                    2_000,
                    parts
                        .into_iter()
                        .map(|part| part.into_iter().map(row_of_every_kind))
                        .collect(),
                ),
                |_| Ok(()),
            )
            .unwrap();
            w.add(Sheet::new("After", vec![Column::new("K", 8.0)]))
                .unwrap();
            assert_eq!(w.parts.len(), if separate { 2 } else { 0 });
            w.finish().unwrap();
            path
        };
        let entries = |path: &Path| {
            let mut zip = zip::ZipArchive::new(File::open(path).unwrap()).unwrap();
            let mut entries = Vec::new();
            for i in 0..zip.len() {
                let mut entry = zip.by_index(i).unwrap();
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
                entries.push((entry.name().unwrap().into_owned(), bytes));
            }
            entries.retain(|(name, _)| name != "docProps/core.xml");
            entries.sort();
            entries
        };
        let (whole, in_parts) = (entries(&write(false)), entries(&write(true)));
        let names = |e: &[(String, Vec<u8>)]| e.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&in_parts), names(&whole));
        assert!(names(&whole).contains(&"xl/worksheets/_rels/sheet4.xml.rels".to_string()));
        for ((name, a), (_, b)) in whole.iter().zip(&in_parts) {
            if a != b {
                let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                let show = |x: &[u8]| {
                    String::from_utf8_lossy(&x[at.saturating_sub(150)..(at + 150).min(x.len())])
                        .into_owned()
                };
                panic!(
                    "{name} differs at byte {at}:\n{}\n-- in parts --\n{}",
                    show(a),
                    show(b)
                );
            }
        }
        // Only the two workbooks are left: no part's temporary file.
        let mut left: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["false.xlsx", "true.xlsx"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_part_leaves_no_csv_behind_and_loses_no_row_silently() {
        let dir = std::env::temp_dir().join(format!("linkgap-partfail-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (path, csvs) = (dir.join("w.xlsx"), dir.join("csv"));
        let sheet = |name: &str| Sheet::new(name, vec![Column::new("N", 8.0)]);
        let rows = |n: i64| (0..n).map(|i| vec![Cell::Int(i)]);
        let mut w = WorkbookWriter::new(&path, Some(&csvs)).unwrap();
        w.rows_per_sheet = 10;
        w.add(sheet("Before")).unwrap();
        // Two parts, the second longer than a worksheet holds (not what `parts` makes).
        let result = w.add_rows_beside_then(
            (&sheet("A"), 5, rows(5)),
            (&sheet("B"), 25, vec![rows(10), rows(15)]),
            |_| Ok(()),
        );
        assert!(
            matches!(result, Err(XlsxError::RowColumnLimitError)),
            "{result:?}"
        );
        drop(w);
        let left: Vec<_> = fs::read_dir(&csvs).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sheet_splits_into_parts_at_the_row_limit() {
        let dir = std::env::temp_dir();
        let mut w = WorkbookWriter::new(&dir.join("linkgap-parts-unused.xlsx"), None).unwrap();
        w.rows_per_sheet = 3;
        let sizes = |w: &WorkbookWriter, n: usize| {
            w.parts((0..n).collect::<Vec<_>>())
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(&w, 0), [0]);
        assert_eq!(sizes(&w, 3), [3]);
        assert_eq!(sizes(&w, 4), [3, 1]);
        assert_eq!(sizes(&w, 9), [3, 3, 3]);
        assert_eq!(
            w.parts((0..7).collect::<Vec<_>>()).concat(),
            (0..7).collect::<Vec<_>>()
        );
    }

    #[test]
    fn style_numbers_do_not_depend_on_which_sheet_uses_a_format_first() {
        // What add_rows_beside_then relies on: two threads reach the formats in either order.
        let dir = std::env::temp_dir().join(format!("linkgap-styles-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let styles = |name: &str, first: Cell, second: Cell| {
            let path = dir.join(name);
            let mut w = WorkbookWriter::new(&path, None).unwrap();
            for (sheet, cell) in [("One", first), ("Two", second)] {
                let mut s = Sheet::new(sheet, vec![Column::new("X", 8.0)]);
                s.rows.push(vec![cell]);
                w.add(s).unwrap();
            }
            w.finish().unwrap();
            let mut zip = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
            io::read_to_string(zip.by_name("xl/styles.xml").unwrap()).unwrap()
        };
        let url = || Cell::Url("https://e.com/".into());
        assert_eq!(
            styles("a.xlsx", url(), Cell::Percent(0.5)),
            styles("b.xlsx", Cell::Percent(0.5), url())
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A workbook of two sheets with `columns`, "Small" (3 rows, shared strings) and "Large"
    /// (1,500 rows, streamed), row `i` made by `row`: its folder (to remove) and package.
    fn small_and_large(
        tag: &str,
        columns: &[Column],
        row: impl Fn(u32) -> Vec<Cell>,
    ) -> (PathBuf, zip::ZipArchive<File>) {
        let dir = std::env::temp_dir().join(format!("linkgap-{tag}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.xlsx");
        let mut w = WorkbookWriter::new(&path, None).unwrap();
        for (name, rows) in [("Small", 3), ("Large", 1_500)] {
            let mut s = Sheet::new(name, columns.to_vec());
            s.rows = (0..rows).map(&row).collect();
            w.add(s).unwrap();
        }
        w.finish().unwrap();
        (
            dir,
            zip::ZipArchive::new(File::open(&path).unwrap()).unwrap(),
        )
    }

    /// The text between the first `open` in `s` and the next `close` ("" when absent).
    fn between(s: &str, open: &str, close: &str) -> String {
        s.split(open)
            .nth(1)
            .and_then(|rest| rest.split(close).next())
            .unwrap_or_default()
            .to_string()
    }

    /// Each sheet of [`small_and_large`] (its XML) with the rows to look at: the first two
    /// and the last.
    fn sheets_to_check(zip: &mut zip::ZipArchive<File>) -> Vec<(String, [u32; 3])> {
        [
            ("xl/worksheets/sheet1.xml", 4),
            ("xl/worksheets/sheet2.xml", 1_501),
        ]
        .into_iter()
        .map(|(sheet, last)| {
            (
                io::read_to_string(zip.by_name(sheet).unwrap()).unwrap(),
                [2, 3, last],
            )
        })
        .collect()
    }

    /// The opening tag of cell `col``row` in a sheet's XML.
    fn cell_tag(xml: &str, col: &str, row: u32) -> String {
        let start = xml.find(&format!("<c r=\"{col}{row}\"")).unwrap();
        xml[start..start + xml[start..].find('>').unwrap()].to_string()
    }

    /// The style (`cellXfs` entry) a cell's opening tag names, if any.
    fn cell_xf<'a>(styles: &'a str, tag: &str) -> Option<&'a str> {
        let n = between(tag, " s=\"", "\"").parse::<usize>().ok()?;
        let xfs = styles
            .split("<cellXfs")
            .nth(1)?
            .split("</cellXfs>")
            .next()?;
        xfs.split("<xf ").nth(n + 1)
    }

    #[test]
    fn a_wrapped_columns_cells_wrap_without_a_format_of_their_own() {
        // Text and marked passages are written without a cell format in a wrapped column
        // (the column's applies); the cells must still carry the wrap style, in a small sheet
        // and in a streamed (constant-memory) one, and a plain column's text must not.
        let columns = [Column::new("Plain", 8.0), Column::wrapped("Wrapped", 40.0)];
        let (dir, mut zip) = small_and_large("wrap", &columns, |i| {
            let wrapped = if i % 2 == 0 {
                Cell::text(format!("long text {i}"))
            } else {
                Cell::Marked(format!("a passage {i}"), 2..9)
            };
            vec![Cell::text(format!("p{i}")), wrapped]
        });
        let styles = io::read_to_string(zip.by_name("xl/styles.xml").unwrap()).unwrap();
        let wraps =
            |tag: &str| cell_xf(&styles, tag).is_some_and(|xf| xf.contains("wrapText=\"1\""));
        for (k, (xml, rows)) in sheets_to_check(&mut zip).into_iter().enumerate() {
            for row in rows {
                let (b, a) = (cell_tag(&xml, "B", row), cell_tag(&xml, "A", row));
                assert!(wraps(&b), "sheet {k} B{row}: {b}");
                assert!(!wraps(&a), "sheet {k} A{row}: {a}");
            }
            if k == 1 {
                assert!(
                    xml.contains("<b/>"),
                    "the streamed sheet's marked span is bold"
                );
            }
        }
        // The small sheet's strings are shared.
        let shared = io::read_to_string(zip.by_name("xl/sharedStrings.xml").unwrap()).unwrap();
        assert!(
            shared.contains("<b/>"),
            "the small sheet's marked span is bold"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn numbers_show_their_format_whether_the_column_or_the_cell_gives_it() {
        // Decimal and percent columns give their cells the format; a plain column's numbers
        // bring their own. Every number must show as before, in a small sheet and in a
        // streamed one.
        let columns = [
            Column::styled("Decimal", 8.0, ColumnStyle::Decimal),
            Column::styled("Percent", 8.0, ColumnStyle::Percent),
            Column::new("Plain", 8.0),
            Column::new("Plain %", 8.0),
            Column::new("Whole", 8.0),
        ];
        let (dir, mut zip) = small_and_large("numfmt", &columns, |i| {
            vec![
                Cell::Number(f64::from(i) / 4.0),
                Cell::Percent(1.0 / f64::from(i + 1)),
                Cell::Number(f64::from(i) / 8.0),
                Cell::Percent(f64::from(i) / 1_000.0),
                Cell::Int(i64::from(i)),
            ]
        });
        let styles = io::read_to_string(zip.by_name("xl/styles.xml").unwrap()).unwrap();
        // The number format a cell shows: General ("") or a custom code.
        let shown = |tag: &str| -> String {
            let id = cell_xf(&styles, tag)
                .map_or_else(String::new, |xf| between(xf, "numFmtId=\"", "\""));
            if id.is_empty() || id == "0" {
                return String::new();
            }
            between(
                &styles,
                &format!("<numFmt numFmtId=\"{id}\" formatCode=\""),
                "\"",
            )
        };
        for (k, (xml, rows)) in sheets_to_check(&mut zip).into_iter().enumerate() {
            for row in rows {
                for (col, format) in [("A", "0.0"), ("B", "0.0%"), ("C", "0.0"), ("D", "0.0%")] {
                    assert_eq!(
                        shown(&cell_tag(&xml, col, row)),
                        format,
                        "sheet {k} {col}{row}"
                    );
                }
                let e = cell_tag(&xml, "E", row);
                assert_eq!(
                    shown(&e),
                    "",
                    "sheet {k} E{row}: whole numbers stay General"
                );
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_inside_the_xlsx_writer_is_an_error_not_a_panic() {
        let full: Result<(), XlsxError> = without_write_panics(|| {
            panic!("{WRITE_PANIC} xml file: Os {{ code: 28, kind: StorageFull }}")
        });
        let Err(XlsxError::IoError(e)) = full else {
            panic!("expected an I/O error, got {full:?}")
        };
        assert!(e.to_string().contains("StorageFull") && e.to_string().contains("disk full"));
        // Any other panic is not swallowed.
        let other = std::panic::catch_unwind(|| {
            let _ = without_write_panics::<()>(|| panic!("index out of bounds"));
        });
        assert!(other.is_err());
    }

    #[test]
    fn cut_respects_the_limit() {
        let long = "é".repeat(MAX_CELL_CHARS + 10);
        assert_eq!(cut(&long, MAX_CELL_CHARS).chars().count(), MAX_CELL_CHARS);
        // Excel counts UTF-16 units: a character past U+FFFF is two.
        let emoji = "😀".repeat(20_000);
        let cut_emoji = cut(&emoji, MAX_CELL_CHARS);
        assert!(cut_emoji.encode_utf16().count() <= MAX_CELL_CHARS);
        assert!(cut_emoji.ends_with('…'));
        assert_eq!(cut("😀😀😀", 4), "😀…");
        assert_eq!(cut("short", 10), "short");
        // More bytes than the limit but not more characters: whole.
        let accented = "é".repeat(MAX_CELL_CHARS);
        assert_eq!(cut(&accented, MAX_CELL_CHARS), accented.as_str());
        assert_eq!(cut(&"a".repeat(11), 10), format!("{}…", "a".repeat(9)));
    }

    #[test]
    fn sheets_beside_each_other_within_then_keep_their_own_parts() {
        use calamine::{Reader, Xlsx, open_workbook};
        let dir = std::env::temp_dir().join(format!("linkgap-nested-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.xlsx");
        let sheet = |name: &str| Sheet::new(name, vec![Column::new("N", 8.0)]);
        let rows = |n: i64| (0..n).map(|i| vec![Cell::Int(i)]);
        let mut w = WorkbookWriter::new(&path, None).unwrap();
        w.rows_per_sheet = 1_000;
        // B's parts are out of the writer while `then` reserves D's: each needs a file of
        // its own.
        w.add_rows_beside_then(
            (&sheet("A"), 10, rows(10)),
            (&sheet("B"), 2_000, vec![rows(1_000), rows(1_000)]),
            |w| {
                w.add_rows_beside_then(
                    (&sheet("C"), 10, rows(10)),
                    (&sheet("D"), 1_500, vec![rows(1_000), rows(500)]),
                    WorkbookWriter::save_main,
                )
            },
        )
        .unwrap();
        w.finish().unwrap();
        let mut book: Xlsx<_> = open_workbook(&path).unwrap();
        let heights: Vec<usize> = book
            .sheet_names()
            .into_iter()
            .map(|n| book.worksheet_range(&n).unwrap().height())
            .collect();
        assert_eq!(heights, [11, 1_001, 1_001, 11, 1_001, 501]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_main_workbook_is_saved_once() {
        let dir = std::env::temp_dir().join(format!("linkgap-save-twice-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.xlsx");
        let mut w = WorkbookWriter::new(&path, None).unwrap();
        w.add(Sheet::new("One", vec![Column::new("N", 8.0)]))
            .unwrap();
        w.save_main().unwrap();
        // A second save is refused: it would go to the file the first one's drop removes.
        assert!(w.save_main().is_err());
        w.finish().unwrap();
        assert!(path.exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
