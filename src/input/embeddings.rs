//! The embeddings export: one vector per page from the Custom JavaScript tab, the AI tab,
//! Internal: All with an embedding column, or any URL + vector table. Vectors are parsed
//! straight into one contiguous f32 matrix; a cell that is not a vector (an error message, an
//! empty cell, a wrong length, a vector cut by XLSX's cell limit) is reported with its row.

use std::collections::BTreeMap;
use std::ops::{ControlFlow, Range};

use super::columns::{self, Col};
use super::decimal;
use super::{InputError, Row, Table, cell};
use crate::report::{Report, Role};

/// XLSX (and Excel) cap a cell at this many characters; a vector cell this long was cut.
pub const XLSX_CELL_LIMIT: usize = 32_767;
/// Data rows sampled when the vector column must be found from its content.
const CONTENT_SCAN_ROWS: u64 = 200;

/// How the vector column was chosen, for the Run sheet and `inspect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnChoice {
    /// Named on the command line.
    Named,
    /// A header Screaming Frog writes for embeddings, or one mentioning embeddings/vectors.
    ByName,
    /// The only column whose cells hold comma-separated numbers.
    ByContent,
}

impl ColumnChoice {
    /// Words for the Run sheet.
    pub fn describe(self) -> &'static str {
        match self {
            ColumnChoice::Named => "named with --embedding-column",
            ColumnChoice::ByName => "found by its header",
            ColumnChoice::ByContent => "detected from its content",
        }
    }
}

/// One row of the embeddings export.
#[derive(Debug, Clone)]
pub struct EmbeddedPage {
    /// The URL as exported.
    pub url: String,
    /// Spreadsheet row.
    pub row: u64,
    /// Row of the vector matrix, when the cell held a valid vector.
    pub vector: Option<u32>,
    /// Why there is no vector.
    pub problem: Option<String>,
    /// Status code, when the export carries one.
    pub status_code: Option<u16>,
    /// Content type, when the export carries one.
    pub content_type: Option<String>,
    /// Indexability, when the export carries one (AI tab, Internal: All).
    pub indexability: Option<String>,
}

/// A parsed embeddings export.
#[derive(Debug, Clone, Default)]
pub struct Embeddings {
    /// File name.
    pub file: String,
    /// Header of the vector column.
    pub column: String,
    /// How the column was chosen.
    pub choice: Option<ColumnChoice>,
    /// The vector dimension in force (the most common one).
    pub dim: usize,
    /// Model tag carried by linkgap's snippets (`model=...;dims=...;` prefix).
    pub model: Option<String>,
    /// Every row, in file order.
    pub pages: Vec<EmbeddedPage>,
    /// `vectors * dim` floats, L2-normalised, one row per page with a vector.
    pub data: Vec<f32>,
    /// Latest crawl timestamp found, as written.
    pub crawl_timestamp: Option<String>,
}

impl Embeddings {
    /// Number of valid vectors.
    pub fn vectors(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    /// The vector in row `i` of the matrix.
    pub fn vector(&self, i: u32) -> &[f32] {
        let start = i as usize * self.dim;
        &self.data[start..start + self.dim]
    }
}

/// A vector column: index and how it was chosen.
#[derive(Debug, Clone, Copy)]
pub struct VectorColumn {
    /// Column index.
    pub index: usize,
    /// How it was chosen.
    pub choice: ColumnChoice,
}

/// Find the vector column: by the name given, else by known header names, else by content.
pub fn find_vector_column(
    table: &Table,
    named: Option<&str>,
) -> Result<Option<VectorColumn>, InputError> {
    let header = table.header();
    if let Some(name) = named {
        return Ok(header.find(name).map(|index| VectorColumn {
            index,
            choice: ColumnChoice::Named,
        }));
    }
    if header.is_inlinks() {
        return Ok(None);
    }
    if let Some(index) = header.embedding_column_by_name() {
        return Ok(Some(VectorColumn {
            index,
            choice: ColumnChoice::ByName,
        }));
    }
    let mut hits: BTreeMap<usize, u64> = BTreeMap::new();
    let header_row = header.row;
    table.source().for_each_row(
        &mut |row, record| {
            if row <= header_row {
                return ControlFlow::Continue(());
            }
            for (i, field) in record.iter().enumerate() {
                if columns::looks_like_vector(field) {
                    *hits.entry(i).or_default() += 1;
                }
            }
            if row > header_row + CONTENT_SCAN_ROWS {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
        &mut |_, _| {},
    )?;
    Ok(hits
        .into_iter()
        .max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))
        .map(|(index, _)| VectorColumn {
            index,
            choice: ColumnChoice::ByContent,
        }))
}

/// Why a cell is not a usable vector.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorProblem {
    /// Nothing in the cell.
    Empty,
    /// Text that is not a list of numbers, e.g. an API error passed through `seoSpider.error`.
    NotAVector(String),
    /// A token that is not a number.
    BadNumber {
        /// 1-based position in the list.
        position: usize,
        /// The token.
        token: String,
    },
    /// NaN or infinity.
    NotFinite {
        /// 1-based position in the list.
        position: usize,
    },
    /// Every component is zero: cosine similarity is undefined.
    Zero,
}

impl std::fmt::Display for VectorProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VectorProblem::Empty => {
                f.write_str("empty cell: expected a comma-separated list of numbers")
            }
            VectorProblem::NotAVector(text) => {
                write!(
                    f,
                    "the cell holds a message, not a vector: \"{}\"",
                    crate::report::preview(text.trim())
                )
            }
            VectorProblem::BadNumber { position, token } => {
                write!(
                    f,
                    "value {position} is not a number: \"{}\"",
                    crate::report::preview(token)
                )
            }
            VectorProblem::NotFinite { position } => {
                write!(f, "value {position} is not finite (NaN or infinity)")
            }
            VectorProblem::Zero => f.write_str("all values are zero, so similarity is undefined"),
        }
    }
}

/// Parse a vector cell into `out` (appended). Accepts JS (`1.2e-7`) and Java (`-8.9E-4`)
/// number styles, optional brackets and spaces, and linkgap's `model=…;dims=…;` prefix,
/// whose model name is returned.
pub fn parse_vector<'c>(
    text: &'c str,
    out: &mut Vec<f32>,
) -> Result<Option<&'c str>, VectorProblem> {
    let mut body = text.trim();
    if body.is_empty() {
        return Err(VectorProblem::Empty);
    }
    let mut model = None;
    if body.starts_with("model=")
        && let Some(end) = body.rfind(';')
    {
        for part in body[..end].split(';') {
            if let Some(m) = part.trim().strip_prefix("model=") {
                model = Some(m.trim());
            }
        }
        body = body[end + 1..].trim();
    }
    let body = body.strip_prefix('[').unwrap_or(body);
    let body = body.strip_suffix(']').unwrap_or(body).trim();
    let starts_numeric = body
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'));
    if !starts_numeric {
        return Err(if body.is_empty() {
            VectorProblem::Empty
        } else {
            VectorProblem::NotAVector(text.to_string())
        });
    }
    let start = out.len();
    // Each number is parsed where it stands and must be followed by a comma or the end;
    // splitting the cell into trimmed tokens first cost a third of the parse. A token that
    // is not a number is cut out only to be reported.
    let bytes = body.as_bytes();
    let mut at = 0;
    loop {
        // Nearly every coordinate has one shape, read here without a branch on its digits;
        // the general path below takes any other (fast_float2, the parser calamine already
        // brings: correctly rounded like `str::parse`, so the same values).
        match decimal::point_decimals(bytes, at, out) {
            Some(stop) => at = stop,
            None => return finish(out, start, model),
        }
        let position = out.len() - start + 1;
        let t = trim_start(&body[at..]);
        let parsed = decimal::short_decimal(t.as_bytes())
            .or_else(|| fast_float2::parse_partial::<f32, _>(t).ok())
            .and_then(|(value, n)| {
                let after = trim_start(&t[n..]);
                if after.is_empty() {
                    Some((value, None))
                } else {
                    after
                        .strip_prefix(',')
                        .map(|next| (value, Some(bytes.len() - next.len())))
                }
            });
        let Some((value, next)) = parsed else {
            out.truncate(start);
            return Err(if position == 1 {
                VectorProblem::NotAVector(text.to_string())
            } else {
                VectorProblem::BadNumber {
                    position,
                    token: t[..t.find(',').unwrap_or(t.len())].trim().to_string(),
                }
            });
        };
        if !value.is_finite() {
            out.truncate(start);
            return Err(VectorProblem::NotFinite { position });
        }
        out.push(value);
        match next {
            Some(next) => at = next,
            None => return finish(out, start, model),
        }
    }
}

/// A parsed vector's last check: not all zeros (the fast path makes only finite values).
fn finish<'c>(
    out: &mut Vec<f32>,
    start: usize,
    model: Option<&'c str>,
) -> Result<Option<&'c str>, VectorProblem> {
    if out[start..].iter().all(|&x| x == 0.0) {
        out.truncate(start);
        return Err(VectorProblem::Zero);
    }
    Ok(model)
}

/// `str::trim_start`, answered from the first byte when it is a visible ASCII character (a
/// digit, a sign or the comma: nearly always), since the Unicode-aware trim was 6% of
/// parsing a vector.
fn trim_start(s: &str) -> &str {
    match s.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => s,
        _ => s.trim_start(),
    }
}

/// Scale a vector to unit length in f64 so near-duplicates compare exactly.
pub fn normalize_in_place(v: &mut [f32]) {
    let norm = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if norm > 0.0 {
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// Rows parsed per parallel batch, and the text a batch may hold.
const BATCH_ROWS: usize = 2048;
const BATCH_BYTES: usize = 32 << 20;

/// Vectors parsed so far. Vectors of any length are kept as (page, offset, len) until the file
/// is read; then the most common length wins, since the first row is not trusted to be right.
#[derive(Default)]
struct Parsed {
    pages: Vec<EmbeddedPage>,
    data: Vec<f32>,
    spans: Vec<(usize, usize, usize)>,
    cell_chars: Vec<usize>,
    models: BTreeMap<String, u64>,
}

/// A parsed cell: the model tag it carried, or why it is not a vector.
type ParseResult = Result<Option<String>, VectorProblem>;

/// Rows waiting to be parsed: float parsing is most of the reading time, so it runs on all
/// cores a batch at a time while the CSV tokenizer stays sequential. The cells' text is held
/// in one buffer per batch, and each core parses its share of the batch into one buffer of
/// floats: with a string and a growing vector per row, allocated on one thread and freed on
/// another, the threads spent a sixth of the reading waiting for the allocator's locks.
#[derive(Default)]
struct Pending {
    rows: Vec<(EmbeddedPage, Range<usize>)>,
    text: String,
}

/// One core's share of a parsed batch: its rows' floats, one after another, and for each
/// row where its floats end and what the cell said besides.
struct ParsedChunk {
    floats: Vec<f32>,
    rows: Vec<(usize, ParseResult)>,
}

/// A batch's rows with their parsed cells, in row order.
struct ParsedBatch {
    pending: Pending,
    chunks: Vec<ParsedChunk>,
}

/// Rows per parsing task: a few tasks per core and batch.
const CHUNK_ROWS: usize = 256;

/// Parse a batch's vector cells on the pool.
fn parse_batch(pending: Pending) -> ParsedBatch {
    use rayon::prelude::*;
    let chunks = pending
        .rows
        .par_chunks(CHUNK_ROWS)
        .map(|rows| {
            let mut chunk = ParsedChunk {
                floats: Vec::new(),
                rows: Vec::with_capacity(rows.len()),
            };
            for (i, (_, range)) in rows.iter().enumerate() {
                let r = parse_vector(&pending.text[range.clone()], &mut chunk.floats)
                    .map(|m| m.map(str::to_string));
                chunk.rows.push((chunk.floats.len(), r));
                if i == 0 {
                    // Vectors share a length: one allocation for the chunk, not a doubling
                    // buffer copied as it grows.
                    chunk
                        .floats
                        .reserve_exact(chunk.floats.len() * (rows.len() - 1));
                }
            }
            chunk
        })
        .collect();
    ParsedBatch { pending, chunks }
}

impl Pending {
    /// Hold a row and its vector cell until its batch is parsed.
    fn push(&mut self, page: EmbeddedPage, raw: &str) {
        let start = self.text.len();
        self.text.push_str(raw);
        self.rows.push((page, start..self.text.len()));
    }

    /// Whether the batch is full.
    fn is_full(&self) -> bool {
        self.rows.len() >= BATCH_ROWS || self.text.len() >= BATCH_BYTES
    }

    /// Parse the rows waiting and add them, here and now.
    fn flush(
        &mut self,
        parsed: &mut Parsed,
        report: &mut Report,
        stats: usize,
        table: &Table,
        column: &str,
    ) {
        let batch = parse_batch(std::mem::take(self));
        *self = commit(batch, parsed, report, stats, table, column);
    }
}

/// Add a parsed batch's vectors, or report its rows' problems, in row order; the batch's
/// buffers come back emptied, for the next batch.
fn commit(
    ParsedBatch {
        pending: Pending { mut rows, mut text },
        chunks,
    }: ParsedBatch,
    parsed: &mut Parsed,
    report: &mut Report,
    stats: usize,
    table: &Table,
    column: &str,
) -> Pending {
    let results = chunks.iter().flat_map(|chunk| {
        let mut start = 0;
        chunk.rows.iter().map(move |(end, result)| {
            let floats = &chunk.floats[start..*end];
            start = *end;
            (floats, result)
        })
    });
    for ((mut page, range), (vector, result)) in rows.drain(..).zip(results) {
        let raw = &text[range];
        match result {
            Ok(model) => {
                if let Some(m) = model {
                    *parsed.models.entry(m.clone()).or_default() += 1;
                }
                if parsed.data.capacity() == 0 {
                    // One allocation for the whole matrix: the file size over this row's
                    // bytes per value estimates the count, so the buffer never doubles.
                    let file_bytes =
                        std::fs::metadata(table.source().path()).map_or(0, |m| m.len()) as usize;
                    let per_value = (raw.len() / vector.len().max(1)).max(1);
                    parsed
                        .data
                        .reserve_exact(file_bytes / per_value + vector.len());
                }
                parsed
                    .spans
                    .push((parsed.pages.len(), parsed.data.len(), vector.len()));
                parsed.cell_chars.push(raw.len());
                parsed.data.extend_from_slice(vector);
            }
            Err(VectorProblem::Empty)
                if page.status_code.is_some_and(|c| c != 200)
                    || page.content_type.as_deref().is_some_and(|t| !is_html(t)) =>
            {
                // Screaming Frog runs snippets only on 200 HTML pages; an empty cell elsewhere is expected.
                page.problem = Some("no vector (not a 200 HTML page)".into());
                report.skip(stats, "no vector expected: not a 200 HTML page");
            }
            Err(problem) => {
                page.problem = Some(format!("no vector: {problem}"));
                // Parsed a batch later: the table's current row is another page.
                let mut rejection = table.rejection(page.row, column, problem.to_string(), raw);
                rejection.url.clone_from(&page.url);
                report.reject(stats, rejection);
            }
        }
        parsed.pages.push(page);
    }
    text.clear();
    Pending { rows, text }
}

/// Why a table has no vector column, naming the columns when one was asked for by name.
fn no_vector_column(table: &Table, named: Option<&str>) -> InputError {
    let message = match named {
        Some(name) => format!(
            "no column named \"{name}\"; the columns are: {}",
            table.header().names.join(", ")
        ),
        None => "no embedding column: no header mentions embeddings and no column holds comma-separated numbers; name it with --embedding-column".to_string(),
    };
    InputError::Role {
        path: table.source().path().to_path_buf(),
        message,
    }
}

/// Read an embeddings table. `named` is `--embedding-column`, if given.
pub fn read(
    table: &Table,
    named: Option<&str>,
    report: &mut Report,
) -> Result<Embeddings, InputError> {
    let Some(column) = find_vector_column(table, named)? else {
        return Err(no_vector_column(table, named));
    };
    let header = table.header();
    let url_col = header
        .get(Col::Address)
        .or_else(|| (column.index != 0).then_some(0));
    let status_col = header.get(Col::StatusCode);
    let type_col = header.get(Col::ContentType);
    let index_col = header.get(Col::Indexability);
    let time_col = header.get(Col::CrawlTimestamp);
    let is_xlsx = table.source().sheet().is_some();
    let column_name = header.name(column.index).to_string();
    let stats = report.file(table.name(), Role::Embeddings);

    let mut out = Embeddings {
        file: table.name().to_string(),
        column: column_name.clone(),
        choice: Some(column.choice),
        ..Embeddings::default()
    };
    let mut parsed = Parsed::default();
    let mut pending = Pending::default();
    let mut latest_time: Option<String> = None;

    // The cells of one batch are parsed on the pool while this thread tokenizes the next;
    // batches are added in row order, each before the next is sent.
    std::thread::scope(|scope| -> Result<(), InputError> {
        let mut inflight: Option<std::thread::ScopedJoinHandle<'_, ParsedBatch>> = None;
        let land = |inflight: &mut Option<std::thread::ScopedJoinHandle<'_, ParsedBatch>>,
                    parsed: &mut Parsed,
                    report: &mut Report|
         -> Option<Pending> {
            let handle = inflight.take()?;
            let batch = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            Some(commit(batch, parsed, report, stats, table, &column_name))
        };
        table.rows(report, stats, &mut |report, row, record: &Row<'_>| {
            let url = cell(record, url_col);
            if url.is_empty() {
                report.reject(
                    stats,
                    table.rejection(
                        row,
                        url_col.map_or("", |i| header.name(i)),
                        "no URL in this row",
                        "",
                    ),
                );
                return;
            }
            if let Err(issue) =
                crate::normalize::normalize(url, &crate::normalize::Rules::default())
            {
                report.reject(
                    stats,
                    table.rejection(
                        row,
                        url_col.map_or("", |i| header.name(i)),
                        issue.to_string(),
                        url,
                    ),
                );
                return;
            }
            let raw = record.get(column.index).unwrap_or("");
            if is_xlsx && raw.chars().count() >= XLSX_CELL_LIMIT {
                let problem = format!(
                    "the vector fills all {XLSX_CELL_LIMIT} characters XLSX allows in a cell, \
                 so it was cut; export the embeddings as CSV"
                );
                report.reject(stats, table.rejection(row, &column_name, problem, raw));
                land(&mut inflight, &mut parsed, report);
                pending.flush(&mut parsed, report, stats, table, &column_name);
                parsed.pages.push(EmbeddedPage {
                    url: url.to_string(),
                    row,
                    vector: None,
                    problem: Some("no vector: cut by the XLSX cell limit".into()),
                    status_code: None,
                    content_type: None,
                    indexability: None,
                });
                return;
            }
            let status_code = cell(record, status_col)
                .split('.')
                .next()
                .and_then(|s| s.parse::<u16>().ok());
            let content_type = Some(cell(record, type_col).to_string()).filter(|s| !s.is_empty());
            let indexability = Some(cell(record, index_col).to_string()).filter(|s| !s.is_empty());
            let time = cell(record, time_col);
            if !time.is_empty() && latest_time.as_deref().is_none_or(|t| t < time) {
                latest_time = Some(time.to_string());
            }
            let page = EmbeddedPage {
                url: url.to_string(),
                row,
                vector: None,
                problem: None,
                status_code,
                content_type,
                indexability,
            };
            pending.push(page, raw);
            if pending.is_full() {
                // The landed batch's emptied buffers hold the next one, so a batch's tens of
                // megabytes are allocated once, not grown again for each batch.
                let spare = land(&mut inflight, &mut parsed, report).unwrap_or_default();
                let rows = std::mem::replace(&mut pending, spare);
                inflight = Some(scope.spawn(move || parse_batch(rows)));
            }
        })?;
        land(&mut inflight, &mut parsed, report);
        Ok(())
    })?;
    pending.flush(&mut parsed, report, stats, table, &column_name);
    out.crawl_timestamp = latest_time;
    assemble(table, &column_name, out, parsed, report, stats)
}

/// The matrix from the parsed rows: one model, the most common length, every vector of
/// another length reported, the rest unit length and packed in row order.
fn assemble(
    table: &Table,
    column_name: &str,
    mut out: Embeddings,
    parsed: Parsed,
    report: &mut Report,
    stats: usize,
) -> Result<Embeddings, InputError> {
    let is_xlsx = table.source().sheet().is_some();
    let Parsed {
        spans,
        cell_chars,
        models,
        ..
    } = parsed;
    out.data = parsed.data;
    out.pages.extend(parsed.pages);

    if models.len() > 1 {
        let list: Vec<String> = models
            .iter()
            .map(|(m, n)| format!("{m} ({n} rows)"))
            .collect();
        return Err(InputError::Role {
            path: table.source().path().to_path_buf(),
            message: format!(
                "vectors from more than one model cannot be compared: {}; re-crawl with one model",
                list.join(", ")
            ),
        });
    }
    out.model = models.into_keys().next();

    let mut by_len: BTreeMap<usize, usize> = BTreeMap::new();
    for &(_, _, len) in &spans {
        *by_len.entry(len).or_default() += 1;
    }
    // Most rows wins; on a tie the longer vector, since truncation only ever shortens.
    out.dim = by_len
        .iter()
        .max_by_key(|&(len, n)| (*n, *len))
        .map_or(0, |(len, _)| *len);
    let dim = out.dim;
    check_dimension(table, column_name, dim)?;
    let mut write = 0usize;
    let mut next_vector = 0u32;
    for (&(page, offset, len), &chars) in spans.iter().zip(&cell_chars) {
        if len == dim {
            out.data.copy_within(offset..offset + len, write);
            normalize_in_place(&mut out.data[write..write + len]);
            out.pages[page].vector = Some(next_vector);
            next_vector += 1;
            write += len;
        } else {
            let truncated = is_xlsx && (chars >= XLSX_CELL_LIMIT || len < dim);
            let problem = if truncated {
                format!(
                    "the vector has {len} values instead of {dim}: cut by the XLSX limit of {XLSX_CELL_LIMIT} characters per cell; export the embeddings as CSV"
                )
            } else {
                format!("the vector has {len} values; the other rows have {dim}")
            };
            let p = &mut out.pages[page];
            p.problem = Some(format!("no vector: {problem}"));
            let mut rejection =
                table.rejection(p.row, column_name, problem, &format!("{len} values"));
            rejection.url.clone_from(&p.url);
            report.reject(stats, rejection);
        }
    }
    out.data.truncate(write);
    out.data.shrink_to_fit();
    Ok(out)
}

/// Refuse vectors too short to be embeddings: one or two numbers per page make every page a
/// near-duplicate of every other (a wrong column, a score or a count, not an embedding).
fn check_dimension(table: &Table, column_name: &str, dim: usize) -> Result<(), InputError> {
    if dim > 0 && dim < MIN_DIMENSION {
        return Err(InputError::Role {
            path: table.source().path().to_path_buf(),
            message: format!(
                "column \"{column_name}\" holds {dim} number(s) per page; an embedding has hundreds (linkgap needs at least {MIN_DIMENSION}). Is it the embedding column?"
            ),
        });
    }
    Ok(())
}

/// Fewer values than this per page is not an embedding (real models give 256–3,072).
pub const MIN_DIMENSION: usize = 8;

/// Move the rows of a `dim`-wide matrix in place so that row `i` holds old row `rows[i]`,
/// dropping rows not listed. One row of scratch memory, never a second matrix.
pub fn reorder(mut data: Vec<f32>, dim: usize, rows: &[u32]) -> Vec<f32> {
    if dim == 0 {
        return Vec::new();
    }
    let total = data.len() / dim;
    // Full permutation: listed rows first, then the rest (to be cut off).
    let mut listed = vec![false; total];
    let mut src_of: Vec<usize> = rows.iter().map(|&r| r as usize).collect();
    for &r in &src_of {
        listed[r] = true;
    }
    src_of.extend((0..total).filter(|&r| !listed[r]));
    let mut done = vec![false; total];
    let mut tmp = vec![0f32; dim];
    for start in 0..total {
        if done[start] || src_of[start] == start {
            done[start] = true;
            continue;
        }
        tmp.copy_from_slice(&data[start * dim..(start + 1) * dim]);
        let mut at = start;
        loop {
            done[at] = true;
            let from = src_of[at];
            if from == start {
                data[at * dim..(at + 1) * dim].copy_from_slice(&tmp);
                break;
            }
            data.copy_within(from * dim..(from + 1) * dim, at * dim);
            at = from;
        }
    }
    data.truncate(rows.len() * dim);
    data
}

/// Whether a Content Type is an HTML page.
pub fn is_html(content_type: &str) -> bool {
    let t = content_type.trim().to_ascii_lowercase();
    t.is_empty() || t.starts_with("text/html") || t.starts_with("application/xhtml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_js_java_bracketed_and_prefixed_cells() {
        let mut v = Vec::new();
        assert_eq!(parse_vector("-8.9827215E-4,1.2e-7,0.5", &mut v), Ok(None));
        assert_eq!(v, vec![-8.982_721_5e-4, 1.2e-7, 0.5]);
        v.clear();
        assert_eq!(parse_vector(" [0.1, 0.2 ,0.3] ", &mut v), Ok(None));
        assert_eq!(v.len(), 3);
        v.clear();
        assert_eq!(
            parse_vector("model=text-embedding-3-small;dims=2;0.1,0.2", &mut v),
            Ok(Some("text-embedding-3-small"))
        );
        assert_eq!(v, vec![0.1, 0.2]);
    }

    #[test]
    fn reorder_moves_rows_in_place() {
        let data: Vec<f32> = (0..12).map(|x| x as f32).collect(); // 6 rows of 2
        let out = reorder(data, 2, &[4, 0, 5, 2]);
        assert_eq!(out, vec![8.0, 9.0, 0.0, 1.0, 10.0, 11.0, 4.0, 5.0]);
        assert_eq!(reorder(vec![1.0, 2.0], 2, &[0]), vec![1.0, 2.0]);
        assert!(reorder(vec![1.0, 2.0], 2, &[]).is_empty());
    }

    #[test]
    fn numbers_parse_as_str_parse_reads_them() {
        // Every way a snippet or a spreadsheet writes a float, against `str::parse`: the
        // in-place parser must give the same bits.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut cell = String::new();
        let mut expected = Vec::new();
        for i in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f32::from_bits((state >> 32) as u32);
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            let token = match i % 6 {
                0 => format!("{x}"),
                1 => format!("{x:e}"),
                2 => format!("{x:E}"),
                3 => format!(" {x:.9} "),
                4 => format!("{:+e}", f64::from(x)),
                _ => format!("{}", f64::from(x)),
            };
            expected.push(token.trim().parse::<f32>().unwrap());
            if !cell.is_empty() {
                cell.push(',');
            }
            cell.push_str(&token);
        }
        let mut v = Vec::new();
        parse_vector(&cell, &mut v).unwrap();
        assert_eq!(v.len(), expected.len());
        assert!(
            v.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        for (cell, position, token) in [
            ("1,,2", 2, ""),
            ("1, x ,2", 2, "x"),
            ("1,2 3", 2, "2 3"),
            ("1,2.5e", 2, "2.5e"),
            ("1,0x10", 2, "0x10"),
        ] {
            assert_eq!(
                parse_vector(cell, &mut v),
                Err(VectorProblem::BadNumber {
                    position,
                    token: token.into()
                }),
                "{cell}"
            );
        }
        v.clear();
        assert_eq!(parse_vector("+.5, 5., 1E5,\u{a0}2\u{a0}", &mut v), Ok(None));
        assert_eq!(v, [0.5, 5.0, 1e5, 2.0]);
    }

    #[test]
    fn numbers_across_the_comma_windows_parse_as_str_parse() {
        // Point-shaped numbers of every length (1 to 16 places), so the commas fall at every
        // place of the 64-byte windows the fast path scans, then each token in turn replaced
        // by one of another shape (read by the general path) or by a bad one.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let tokens: Vec<String> = (0..120)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let x = ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 19.9;
                let places = 1 + i % 16;
                format!("{x:.places$}")
            })
            .collect();
        let expect = |tokens: &[String]| -> Vec<u32> {
            tokens
                .iter()
                .map(|t| t.trim().parse::<f32>().unwrap().to_bits())
                .collect()
        };
        let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|x| x.to_bits()).collect() };
        let mut v = Vec::new();
        parse_vector(&tokens.join(","), &mut v).unwrap();
        assert_eq!(bits(&v), expect(&tokens));
        for k in 0..tokens.len() {
            for other in ["1e-3", " 0.25", "12.5", "0.1234567890123456789"] {
                let mut changed = tokens.clone();
                changed[k] = other.into();
                v.clear();
                parse_vector(&changed.join(","), &mut v).unwrap();
                assert_eq!(bits(&v), expect(&changed), "{other} at {k}");
            }
            let mut bad = tokens.clone();
            bad[k] = "0.5x".into();
            v.clear();
            let cell = bad.join(",");
            // A cell that starts with no number is no vector at all.
            let want = if k == 0 {
                VectorProblem::NotAVector(cell.clone())
            } else {
                VectorProblem::BadNumber {
                    position: k + 1,
                    token: "0.5x".into(),
                }
            };
            assert_eq!(parse_vector(&cell, &mut v), Err(want));
        }
        v.clear();
        assert_eq!(
            parse_vector(&format!("{},", tokens.join(",")), &mut v),
            Err(VectorProblem::BadNumber {
                position: tokens.len() + 1,
                token: String::new()
            })
        );
    }

    /// Rows over several batches (whose buffers are reused) come back in file order, each
    /// vector the one its row wrote, every bad row reported with its own row number.
    #[test]
    fn rows_across_batches_keep_their_order_and_values() {
        use std::fmt::Write as _;
        let dir = std::env::temp_dir().join(format!("linkgap-batches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("custom_javascript_all.csv");
        let bad = [BATCH_ROWS - 1, BATCH_ROWS, 2 * BATCH_ROWS + 7];
        // Cells of different lengths, so each batch's text differs in size.
        let cell_of = |i: usize| {
            format!(
                "{i}.5,{},-0.00{},0.25,0.5,0.75,1,2,3,4",
                "1".repeat(1 + i % 7),
                i % 5 + 1
            )
        };
        let mut csv = String::from("Address,Status Code,Embeddings 1\n");
        for i in 0..3 * BATCH_ROWS + 11 {
            let cell = if bad.contains(&i) {
                "0.1,oops,0.3,4,5,6,7,8,9,10".to_string()
            } else {
                cell_of(i)
            };
            writeln!(csv, "https://ex.com/p{i},200,\"{cell}\"").unwrap();
        }
        std::fs::write(&path, csv).unwrap();
        let table = Table::open(&path).unwrap();
        let mut report = Report::new();
        let e = read(&table, None, &mut report).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(e.pages.len(), 3 * BATCH_ROWS + 11);
        let rejected: Vec<u64> = report.rejections().iter().map(|r| r.row).collect();
        assert_eq!(rejected, bad.map(|i| i as u64 + 2));
        for (i, page) in e.pages.iter().enumerate() {
            assert_eq!(page.url, format!("https://ex.com/p{i}"));
            assert_eq!(page.row, i as u64 + 2);
            let Some(at) = page.vector else {
                assert!(bad.contains(&i), "row {i} lost its vector");
                continue;
            };
            let mut want: Vec<f32> = cell_of(i).split(',').map(|x| x.parse().unwrap()).collect();
            normalize_in_place(&mut want);
            assert_eq!(e.vector(at), want.as_slice(), "row {i}");
        }
    }

    #[test]
    fn reports_error_cells_precisely() {
        let mut v = vec![9.0];
        assert_eq!(parse_vector("", &mut v), Err(VectorProblem::Empty));
        assert!(matches!(
            parse_vector(
                "No data returned. Ensure you call 'return seoSpider.data(your_data)'",
                &mut v
            ),
            Err(VectorProblem::NotAVector(_))
        ));
        assert!(matches!(
            parse_vector("{\"error\": {\"message\": \"Rate limit\"}}", &mut v),
            Err(VectorProblem::NotAVector(_))
        ));
        assert_eq!(
            parse_vector("0.1,abc,0.3", &mut v),
            Err(VectorProblem::BadNumber {
                position: 2,
                token: "abc".into()
            })
        );
        assert_eq!(
            parse_vector("0.1,0.2,", &mut v),
            Err(VectorProblem::BadNumber {
                position: 3,
                token: String::new()
            })
        );
        assert_eq!(parse_vector("0,0,0", &mut v), Err(VectorProblem::Zero));
        assert_eq!(
            parse_vector("0.1,NaN", &mut v),
            Err(VectorProblem::NotFinite { position: 2 })
        );
        assert_eq!(v, vec![9.0], "a failed parse leaves the buffer as it was");
    }
}
