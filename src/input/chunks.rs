//! A CSV file's rows, tokenized on every core and handed over in file order.
//!
//! The reading thread cuts the decoded bytes into chunks of about [`CHUNK_BYTES`], each ending
//! just after a line end with an even number of quotes before it in the chunk: where a
//! record ends when every quote belongs to a quoted field, as in an export that quotes its
//! fields. Workers split the chunks with the one grammar ([`Tokenizer`]) into the bounds of
//! each cell in the chunk's own bytes (only a cell with `""` is copied, unquoted) and check
//! the chunk's UTF-8 once; the visitor gets the rows one by one as [`Row`]s borrowing the
//! chunk, in order, numbered across chunks.
//!
//! A cut is checked, not trusted. A quote inside an unquoted field (`5" screen`) is literal
//! text, so the parity can put a cut inside a quoted field; the chunk's worker then finds
//! its last record still open at the chunk's end. From that chunk on, the rest of the file
//! goes through the sequential tokenizer on the visitor's thread, so every file is split
//! exactly as [`Tokenizer`] splits it, only more slowly after such a quote. The differential
//! test below holds the two to that.

use std::io::{self, Read};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use csv::{ByteRecord, StringRecord};

use super::InputError;
use super::row::Row;
use super::tokenizer::{Fields, MAX_RECORD_BYTES, Tokenizer};

/// Bytes a chunk is read up to before it is cut: small enough that the first rows reach the
/// visitor at once and the chunks in flight stay a few MiB, large enough that a chunk's
/// hand-offs cost nothing per row (a 60 KB row of a 3,072-dimension vector still leaves 17).
const CHUNK_BYTES: usize = 1 << 20;

/// Chunks read ahead of the visitor, per worker.
const AHEAD_PER_WORKER: usize = 4;

/// The problem given for a last row that ends inside an open quote.
const CUT_IN_QUOTES: &str = "it ends inside a quoted field at the end of the file, so it was cut off (an interrupted export or copy); export the file again";

/// One record of a chunk.
enum Item {
    /// A row: its cells are the chunk's bounds `start..end`.
    Row { start: u32, end: u32 },
    /// A row the grammar refused, with why.
    Bad(&'static str),
}

/// Bytes that end at a cut (or at the end of the file).
struct Chunk {
    bytes: Vec<u8>,
    /// The file ends with this chunk: whatever it ends with is the last record.
    last: bool,
    /// Not cut: the bytes before a read error, or after a wrong cut. They go to the
    /// sequential tokenizer as they are.
    uncut: bool,
}

/// A chunk's text once its worker is done with it.
enum Text {
    /// Not split (or split wrongly): the bytes as read, for the sequential tokenizer.
    Raw(Vec<u8>),
    /// The chunk's `own` bytes, then the fields unquoted while splitting: valid UTF-8.
    Valid { text: String, own: usize },
    /// Not UTF-8 everywhere: the bytes as read, and the text the cells were decoded into.
    Lossy { bytes: Vec<u8>, text: String },
}

impl Text {
    /// The chunk's bytes as they were read.
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Text::Raw(bytes) | Text::Lossy { bytes, .. } => bytes,
            Text::Valid { text, own } => {
                let mut bytes = text.into_bytes();
                bytes.truncate(own);
                bytes
            }
        }
    }

    /// The text the bounds point into.
    fn text(&self) -> &str {
        match self {
            Text::Raw(_) => "",
            Text::Valid { text, .. } | Text::Lossy { text, .. } => text,
        }
    }
}

/// The vectors a chunk's split fills, passed back for the next chunk.
#[derive(Default)]
struct Spare {
    bounds: Vec<(u32, u32)>,
    items: Vec<Item>,
    /// [`Cells::unquoted`]: grown afresh for each chunk, its doublings (a copy and newly
    /// faulted pages each) showed in perf over a page text export, where nearly every cell
    /// is HTML with its quotes doubled.
    unquoted: Vec<u8>,
}

/// A chunk as its worker split it.
struct Done {
    text: Text,
    /// Each cell's place in the text, row after row.
    bounds: Vec<(u32, u32)>,
    /// Its records, in order.
    items: Vec<Item>,
    /// [`Spare::unquoted`], to go back.
    unquoted: Vec<u8>,
    /// The records are the file's: the chunk's last record ended at its end (or the file
    /// ends here), and splitting did not fail.
    clean: bool,
}

/// What the reading thread hands the visitor, in file order.
enum Msg {
    /// A chunk, split by a worker once it is done.
    Chunk(mpsc::Receiver<Done>),
    /// The file ended.
    End,
    /// Reading failed here; the reading thread's result says why.
    Failed,
}

/// The sequential tokenizer met the end of what the reading thread read: a read error, or
/// a thread that stopped (its panic is raised when it is joined).
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file could not be read to its end")
    }
}

impl std::error::Error for Stopped {}

fn stopped() -> io::Error {
    io::Error::other(Stopped)
}

fn is_stopped(e: &io::Error) -> bool {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Stopped>())
        .is_some()
}

/// How many workers tokenize: every core, up to four. The visitor and the float parser
/// share the same cores; the scheduler balances them (on two cores, two workers measured
/// level with one on the embeddings and on the crawl, and tokenize alone 1.6-1.8x as fast).
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

/// Call `visit` with every record of the decoded text `open` returns, numbered from 1,
/// until it breaks; a last row cut off inside quotes goes to `bad` instead. A read error
/// ends the file: the rows before it are visited, and `io_error` turns it into the error.
pub(super) fn for_each_record(
    open: impl FnOnce() -> Result<Box<dyn Read>, InputError> + Send,
    delimiter: u8,
    io_error: &(dyn Fn(io::Error) -> InputError + Sync),
    visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
    bad: &mut dyn FnMut(u64, String),
) -> Result<(), InputError> {
    in_chunks(open, delimiter, CHUNK_BYTES, io_error, visit, bad)
}

/// How the visitor's side ended.
enum Visited {
    /// Every row was visited (or the reading thread's error was reached).
    All,
    /// The visitor broke: what the reading thread met after that does not count.
    Broke,
    /// The sequential tokenizer's own error (a record too long), met first in the file.
    Failed(io::Error),
}

/// [`for_each_record`] with chunks of `chunk_bytes` (small ones in tests).
fn in_chunks(
    open: impl FnOnce() -> Result<Box<dyn Read>, InputError> + Send,
    delimiter: u8,
    chunk_bytes: usize,
    io_error: &(dyn Fn(io::Error) -> InputError + Sync),
    visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
    bad: &mut dyn FnMut(u64, String),
) -> Result<(), InputError> {
    let workers = workers();
    let (order_tx, order_rx) = mpsc::sync_channel::<Msg>(workers * AHEAD_PER_WORKER);
    let (job_tx, job_rx) = mpsc::sync_channel::<(Chunk, mpsc::SyncSender<Done>)>(workers);
    let (spare_tx, spare_rx) = mpsc::channel::<Vec<u8>>();
    // The workers own the job queue: should they all stop (a panic), the reader's next send
    // fails instead of waiting for ever.
    let jobs = Arc::new(Mutex::new(job_rx));
    let spares: Mutex<Vec<Spare>> = Mutex::new(Vec::new());
    // Set once a cut was wrong: the reader stops cutting, and what it reads from then on
    // goes to the sequential tokenizer uncut.
    let sequential = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sequential_ref = &sequential;
        let reader = scope.spawn(move || -> Result<(), InputError> {
            let mut input = open()?;
            let mut send = |chunk| {
                let (done_tx, done_rx) = mpsc::sync_channel(1);
                if order_tx.send(Msg::Chunk(done_rx)).is_err()
                    || job_tx.send((chunk, done_tx)).is_err()
                {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            };
            let result = cut_chunks(
                &mut *input,
                chunk_bytes,
                &spare_rx,
                sequential_ref,
                &mut send,
            );
            let _ = order_tx.send(if result.is_ok() {
                Msg::End
            } else {
                Msg::Failed
            });
            result.map_err(io_error)
        });
        let pool: Vec<_> = (0..workers)
            .map(|_| {
                let jobs = Arc::clone(&jobs);
                let spares = &spares;
                scope.spawn(move || {
                    loop {
                        let job = jobs.lock().map_or(None, |rx| rx.recv().ok());
                        let Some((chunk, done)) = job else { return };
                        let spare = spares.lock().map_or(None, |mut r| r.pop());
                        let _ = done.send(split(chunk, delimiter, spare.unwrap_or_default()));
                    }
                })
            })
            .collect();
        drop(jobs);
        let order = Order {
            rx: order_rx,
            sequential: &sequential,
            spares: &spares,
            spare: spare_tx,
        };
        let visited = order.visit(delimiter, visit, bad);
        // `order` is gone: a reader still going (after a `Break`) stops at its next chunk.
        let read = match reader.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        for worker in pool {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        // As the sequential reader: after a `Break` nothing further counts, and of two
        // errors the one met first in the file is given.
        match visited {
            Visited::Broke => Ok(()),
            Visited::All => read,
            Visited::Failed(e) => Err(io_error(e)),
        }
    })
}

/// The visitor's end: the chunks in file order, and what goes back for reuse.
struct Order<'a> {
    rx: mpsc::Receiver<Msg>,
    sequential: &'a AtomicBool,
    spares: &'a Mutex<Vec<Spare>>,
    spare: mpsc::Sender<Vec<u8>>,
}

impl Order<'_> {
    /// Each chunk's rows in order; after a wrong cut, the rest of the file through the
    /// sequential tokenizer.
    fn visit(
        self,
        delimiter: u8,
        visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
        bad: &mut dyn FnMut(u64, String),
    ) -> Visited {
        let mut rows = 0u64;
        loop {
            // End, a read error (the reader's result says which), or a thread that stopped
            // (its panic is raised when it is joined).
            let Ok(Msg::Chunk(done)) = self.rx.recv() else {
                return Visited::All;
            };
            let Ok(done) = done.recv() else {
                return Visited::All;
            };
            let Done {
                text,
                mut bounds,
                mut items,
                mut unquoted,
                clean,
            } = done;
            if !clean {
                self.sequential.store(true, Ordering::Relaxed);
                let rest = Rest {
                    rx: &self.rx,
                    current: io::Cursor::new(text.into_bytes()),
                };
                let mut broke = false;
                let mut visit = |n, r: &Row<'_>| {
                    let flow = visit(n, r);
                    broke |= flow.is_break();
                    flow
                };
                return match read_sequentially(rest, delimiter, rows, &mut visit, bad) {
                    _ if broke => Visited::Broke,
                    Ok(()) => Visited::All,
                    Err(e) if is_stopped(&e) => Visited::All,
                    Err(e) => Visited::Failed(e),
                };
            }
            let chunk_text = text.text();
            for item in &items {
                rows += 1;
                match *item {
                    Item::Row { start, end } => {
                        let row = Row::flat(chunk_text, &bounds[start as usize..end as usize]);
                        if visit(rows, &row).is_break() {
                            return Visited::Broke;
                        }
                    }
                    Item::Bad(message) => bad(rows, message.to_string()),
                }
            }
            bounds.clear();
            items.clear();
            unquoted.clear();
            if let Ok(mut spares) = self.spares.lock() {
                spares.push(Spare {
                    bounds,
                    items,
                    unquoted,
                });
            }
            let _ = self.spare.send(text.into_bytes());
        }
    }
}

/// The file from a chunk on, as bytes again, for the sequential tokenizer.
struct Rest<'a> {
    rx: &'a mpsc::Receiver<Msg>,
    current: io::Cursor<Vec<u8>>,
}

impl Read for Rest<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            match self.rx.recv() {
                Ok(Msg::Chunk(done)) => match done.recv() {
                    Ok(done) => self.current = io::Cursor::new(done.text.into_bytes()),
                    Err(_) => return Err(stopped()),
                },
                Ok(Msg::End) => return Ok(0),
                Ok(Msg::Failed) | Err(_) => return Err(stopped()),
            }
        }
    }
}

/// Cut the text into chunks and `send` them, until the end of the file or a `Break`. Once
/// `sequential` is set the cuts no longer matter: the bytes go on in chunks as read.
fn cut_chunks(
    input: &mut dyn Read,
    chunk_bytes: usize,
    spare: &mpsc::Receiver<Vec<u8>>,
    sequential: &AtomicBool,
    send: &mut dyn FnMut(Chunk) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut carry: Vec<u8> = Vec::new();
    let mut want = chunk_bytes;
    loop {
        // A spare comes back as long as the chunk it held, every byte of it initialized:
        // the file is read over those bytes. Cleared and filled by `read_to_end`, each chunk's
        // megabyte was zeroed first (a reader behind `dyn Read` gets its buffer initialized):
        // 0.3-0.5 of the 9.3 core-seconds `inspect` takes over 42 M All Inlinks rows.
        let mut bytes = spare.try_recv().unwrap_or_default();
        let target = want.max(carry.len());
        if bytes.len() < target {
            bytes.resize(target, 0);
        }
        bytes[..carry.len()].copy_from_slice(&carry);
        let mut filled = carry.len();
        carry.clear();
        let read = loop {
            if filled == target {
                break Ok(false);
            }
            match input.read(&mut bytes[filled..target]) {
                Ok(0) => break Ok(true),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        bytes.truncate(filled);
        let eof = match read {
            Ok(eof) => eof,
            Err(e) => {
                // Everything read before the error goes to the sequential tokenizer, which
                // visits the complete rows in it and then meets the error, as it would have.
                if !bytes.is_empty() {
                    let _ = send(Chunk {
                        bytes,
                        last: false,
                        uncut: true,
                    });
                }
                return Err(e);
            }
        };
        want = chunk_bytes;
        let uncut = sequential.load(Ordering::Relaxed);
        if eof || uncut {
            let flow = send(Chunk {
                bytes,
                last: eof,
                uncut,
            });
            if eof || flow.is_break() {
                return Ok(());
            }
            continue;
        }
        match cut_point(&bytes) {
            Some(cut) => {
                carry.extend_from_slice(&bytes[cut..]);
                bytes.truncate(cut);
            }
            // A record longer than the chunk: read on until it ends.
            None if bytes.len() <= MAX_RECORD_BYTES => {
                want = bytes.len() * 2;
                carry = bytes;
                continue;
            }
            // Longer than any export row: sent as it is; its worker finds it too long and
            // the sequential tokenizer refuses it.
            None => {}
        }
        let chunk = Chunk {
            bytes,
            last: false,
            uncut: false,
        };
        if send(chunk).is_break() {
            return Ok(());
        }
    }
}

/// Where a chunk of `bytes` can end: just after the last line end with an even number of
/// quotes before it.
fn cut_point(bytes: &[u8]) -> Option<usize> {
    // The scan back is short: it stops at the last row's end.
    let mut odd = odd_quotes(bytes);
    let mut end = bytes.len();
    loop {
        let at = memchr::memrchr3(b'"', b'\n', b'\r', &bytes[..end])?;
        if bytes[at] == b'"' {
            odd = !odd;
        } else if !odd {
            return Some(at + 1);
        }
        end = at;
    }
}

/// Whether `bytes` hold an odd number of quotes. Only the parity counts, so it is an XOR of
/// 64 lanes of bytes, which vectorises (a count of matches into a `usize` ran at a tenth
/// of the speed and was the reading thread's largest cost).
fn odd_quotes(bytes: &[u8]) -> bool {
    const LANES: usize = 64;
    let mut lanes = [0u8; LANES];
    let blocks = bytes.chunks_exact(LANES);
    let tail = blocks
        .remainder()
        .iter()
        .fold(0u8, |acc, &b| acc ^ u8::from(b == b'"'));
    for block in blocks {
        for (lane, &b) in lanes.iter_mut().zip(block) {
            *lane ^= u8::from(b == b'"');
        }
    }
    lanes.iter().fold(tail, |acc, &l| acc ^ l) == 1
}

/// A worker's part: the chunk's records as bounds into its bytes, UTF-8 checked.
fn split(chunk: Chunk, delimiter: u8, spare: Spare) -> Done {
    // The spare's vectors come back emptied (`Order::visit`).
    let Spare {
        bounds,
        mut items,
        unquoted,
    } = spare;
    // Bytes for the sequential tokenizer as they are, and a chunk longer than any record may
    // be (the sequential tokenizer refuses what is too long).
    if chunk.uncut || chunk.bytes.len() > MAX_RECORD_BYTES {
        return Done {
            text: Text::Raw(chunk.bytes),
            bounds,
            items,
            unquoted,
            clean: false,
        };
    }
    let ends_line = matches!(chunk.bytes.last(), Some(b'\n' | b'\r'));
    let mut csv = Tokenizer::from_bytes(chunk.bytes, delimiter);
    let mut cells = Cells {
        bounds,
        unquoted,
        row_start: 0,
        unquoted_start: 0,
    };
    debug_assert!(csv.never_refills());
    let failed = loop {
        match csv.read(&mut cells) {
            Ok(true) => {
                let (start, end) = cells.end_row();
                items.push(Item::Row { start, end });
            }
            Ok(false) => break false,
            Err(_) => break true,
        }
    };
    let cut = csv.ended_in_quotes();
    if chunk.last
        && cut
        && let Some(last) = items.last_mut()
    {
        *last = Item::Bad(CUT_IN_QUOTES);
    }
    let clean = !failed && (chunk.last || (ends_line && !cut));
    let bytes = csv.into_bytes();
    if !clean {
        return Done {
            text: Text::Raw(bytes),
            bounds: cells.bounds,
            items,
            unquoted: cells.unquoted,
            clean,
        };
    }
    let (text, bounds, unquoted) = decode_chunk(bytes, cells);
    Done {
        text,
        bounds,
        items,
        unquoted,
        clean,
    }
}

/// Marks a bound into [`Cells::unquoted`] rather than the chunk's bytes: a chunk is at most
/// [`MAX_RECORD_BYTES`], far below this bit.
const UNQUOTED: u32 = 1 << 31;

/// A chunk's cells as the tokenizer finds them: a cell as written is its place in the
/// chunk, and only a cell that had to be unquoted is copied (into `unquoted`). Copying each
/// cell into a record of its own was a sixth of reading a crawl.
struct Cells {
    bounds: Vec<(u32, u32)>,
    unquoted: Vec<u8>,
    /// Where the record being split began, in `bounds` and `unquoted`.
    row_start: usize,
    unquoted_start: usize,
}

impl Cells {
    /// The record just split ends here: its bounds' range.
    fn end_row(&mut self) -> (u32, u32) {
        let range = (self.row_start as u32, self.bounds.len() as u32);
        self.row_start = self.bounds.len();
        self.unquoted_start = self.unquoted.len();
        range
    }
}

// Bounds are offsets into the tokenizer's buffer, so they hold only for a tokenizer that never
// refills it (moving or overwriting bytes): `Tokenizer::from_bytes`, which has the whole chunk
// and is at the end of its input from the start, as `split` uses it.
impl Fields for Cells {
    fn clear(&mut self) {
        self.bounds.truncate(self.row_start);
        self.unquoted.truncate(self.unquoted_start);
    }

    fn written(&mut self, _data: &[u8], base: usize, range: std::ops::Range<usize>) {
        self.bounds
            .push(((base + range.start) as u32, (base + range.end) as u32));
    }

    fn unquoted(&mut self, bytes: &[u8]) {
        let start = self.unquoted.len() as u32;
        self.unquoted.extend_from_slice(bytes);
        self.bounds
            .push((start | UNQUOTED, self.unquoted.len() as u32 | UNQUOTED));
    }
}

/// The chunk's text: its bytes with the unquoted cells after them, checked as UTF-8 once. A
/// chunk that is not UTF-8 everywhere has each cell decoded lossily, as a record's cells
/// were: URLs and floats are ASCII, so the replacement characters cannot change a match.
/// The unquoted cells' buffer comes back, for the next chunk.
fn decode_chunk(mut bytes: Vec<u8>, cells: Cells) -> (Text, Vec<(u32, u32)>, Vec<u8>) {
    let own = bytes.len();
    let Cells {
        mut bounds,
        unquoted,
        ..
    } = cells;
    if !unquoted.is_empty() {
        bytes.extend_from_slice(&unquoted);
        let own = own as u32;
        for bound in bounds.iter_mut().filter(|b| b.0 & UNQUOTED != 0) {
            *bound = ((bound.0 & !UNQUOTED) + own, (bound.1 & !UNQUOTED) + own);
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => (Text::Valid { text, own }, bounds, unquoted),
        Err(e) => {
            let mut bytes = e.into_bytes();
            let mut text = String::with_capacity(bytes.len());
            for bound in &mut bounds {
                let start = text.len();
                text.push_str(&String::from_utf8_lossy(
                    &bytes[bound.0 as usize..bound.1 as usize],
                ));
                *bound = (start as u32, text.len() as u32);
            }
            bytes.truncate(own);
            (Text::Lossy { bytes, text }, bounds, unquoted)
        }
    }
}

/// The records of `reader` one at a time, numbered on from `rows`: each is visited once the
/// next is read, so the file's last record is known, and reported when it ends inside
/// quotes. A read error ends the file: the rows before it are visited, then the error.
fn read_sequentially(
    reader: impl Read,
    delimiter: u8,
    mut rows: u64,
    visit: &mut dyn FnMut(u64, &Row<'_>) -> ControlFlow<()>,
    bad: &mut dyn FnMut(u64, String),
) -> io::Result<()> {
    let mut csv = Tokenizer::new(reader, delimiter);
    let mut bytes = ByteRecord::new();
    let mut held: Option<StringRecord> = None;
    loop {
        match csv.read(&mut bytes) {
            Ok(false) => {
                if let Some(last) = held.take() {
                    if csv.ended_in_quotes() {
                        bad(rows, CUT_IN_QUOTES.to_string());
                    } else {
                        let _ = visit(rows, &Row::from(&last));
                    }
                }
                return Ok(());
            }
            Ok(true) => {
                rows += 1;
                let previous = held.replace(decode(std::mem::take(&mut bytes)));
                if let Some(previous) = previous
                    && visit(rows - 1, &Row::from(&previous)).is_break()
                {
                    return Ok(());
                }
            }
            Err(e) => {
                if let Some(previous) = held.take() {
                    let _ = visit(rows, &Row::from(&previous));
                }
                return Err(e);
            }
        }
    }
}

/// A CSV row as text. A file whose first 64 KiB are UTF-8 but a later row is not (a row pasted
/// from elsewhere) keeps the row, lossily: URLs and floats are ASCII, so the replacement
/// characters cannot change a match.
fn decode(bytes: ByteRecord) -> StringRecord {
    match StringRecord::from_byte_record(bytes) {
        Ok(r) => r,
        Err(e) => StringRecord::from_byte_record_lossy(e.into_byte_record()),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::rng::Rng;

    /// What a file gives: visited rows and bad rows with their numbers, and the error.
    type Outcome = (Vec<(u64, Result<Vec<String>, String>)>, Option<String>);

    fn error(e: io::Error) -> InputError {
        InputError::Io {
            path: "t.csv".into(),
            source: e,
        }
    }

    fn chunked(open: impl FnOnce() -> Box<dyn Read> + Send, chunk_bytes: usize) -> Outcome {
        let mut out = Vec::new();
        let bad = std::cell::RefCell::new(Vec::new());
        let result = in_chunks(
            || Ok(open()),
            b',',
            chunk_bytes,
            &error,
            &mut |n, r| {
                out.push((n, Ok(r.iter().map(str::to_string).collect())));
                ControlFlow::Continue(())
            },
            &mut |n, m| bad.borrow_mut().push((n, Err(m))),
        );
        out.extend(bad.into_inner());
        out.sort_by_key(|r| r.0);
        (out, result.err().map(|e| e.to_string()))
    }

    fn sequential(reader: impl Read) -> Outcome {
        let out = std::cell::RefCell::new(Vec::new());
        let result = read_sequentially(
            reader,
            b',',
            0,
            &mut |n, r| {
                let row = r.iter().map(str::to_string).collect();
                out.borrow_mut().push((n, Ok(row)));
                ControlFlow::Continue(())
            },
            &mut |n, m| out.borrow_mut().push((n, Err(m))),
        );
        (out.into_inner(), result.err().map(|e| error(e).to_string()))
    }

    #[test]
    fn chunks_split_every_file_as_the_sequential_tokenizer_does() {
        // Stray quotes (`a"b`, text after a closing quote) make the quote parity lie: those
        // files must still split alike, through the fallback. Bytes of UTF-8 (é) and not
        // (a lone continuation byte, 0xff) are decoded cell by cell, lossily, either way.
        let alphabet = b"ab,,\"\"\"\n\n\r x\xc3\xa9\xff";
        let mut rng = Rng::new(11);
        let mut fell_back = 0;
        for case in 0..1_000 {
            let len = rng.below(60);
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let expected = sequential(&bytes[..]);
            for chunk in [1, 5, 1 << 10] {
                let b = bytes.clone();
                let got = chunked(move || Box::new(io::Cursor::new(b)), chunk);
                assert_eq!(
                    got,
                    expected,
                    "case {case}, chunks of {chunk}: {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
            let mut rows = Vec::new();
            let _ = cut_chunks(
                &mut &bytes[..],
                5,
                &mpsc::channel().1,
                &AtomicBool::new(false),
                &mut |c| {
                    rows.push(split(c, b',', Spare::default()).clean);
                    ControlFlow::Continue(())
                },
            );
            fell_back += usize::from(rows.contains(&false));
        }
        // The random files do exercise the fallback.
        assert!(fell_back > 30, "{fell_back}");
    }

    #[test]
    fn an_export_reads_in_many_chunks_with_rows_numbered_across_them() {
        let mut file = String::from("\"Source\",\"Anchor\"\r\n");
        for i in 0..500 {
            let _ = write!(file, "\"https://a/{i}\",\"say \"\"{i}\"\"\nagain\"\r\n");
        }
        let expected = sequential(file.as_bytes());
        assert_eq!(expected.0.len(), 501);
        let got = chunked(move || Box::new(io::Cursor::new(file.into_bytes())), 64);
        assert_eq!(got, expected);
        assert_eq!(got.0[500].1.as_ref().unwrap()[1], "say \"499\"\nagain");
    }

    #[test]
    fn a_record_without_end_is_refused_as_the_sequential_tokenizer_refuses_it() {
        let mut file = b"a,b\n".to_vec();
        file.resize(MAX_RECORD_BYTES + 4096, b'x');
        let expected = sequential(&file[..]);
        assert!(expected.1.as_deref().unwrap().contains("no line end"));
        let got = chunked(move || Box::new(io::Cursor::new(file)), CHUNK_BYTES);
        assert_eq!(got, expected);
    }

    /// Gives `bytes`, then fails.
    struct Failing(io::Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("disk gone")),
                n => Ok(n),
            }
        }
    }

    /// Gives `bytes` at most 64 KiB a read (as a decoder does), then fails or ends.
    struct Short(io::Cursor<Vec<u8>>, bool);

    impl Read for Short {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(64 << 10);
            match self.0.read(&mut buf[..n])? {
                0 if self.1 => Err(io::Error::other("disk gone")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn a_read_error_after_a_stray_quote_keeps_every_complete_row() {
        let file = b"x\n5\"\ny\nz".to_vec();
        let expected = sequential(Failing(io::Cursor::new(file.clone())));
        assert_eq!(expected.0.len(), 3);
        for chunk in [1, 4, 64] {
            let f = file.clone();
            let got = chunked(move || Box::new(Failing(io::Cursor::new(f))), chunk);
            assert_eq!(got, expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn after_a_break_a_later_read_error_does_not_count() {
        for chunk in [1, 64] {
            let open = || -> Result<Box<dyn Read>, InputError> {
                Ok(Box::new(Failing(io::Cursor::new(b"a\nb\nc\n".to_vec()))))
            };
            let mut seen = 0;
            let result = in_chunks(
                open,
                b',',
                chunk,
                &error,
                &mut |_, _| {
                    seen += 1;
                    ControlFlow::Break(())
                },
                &mut |_, _| {},
            );
            assert!(result.is_ok(), "chunks of {chunk}: {result:?}");
            assert_eq!(seen, 1);
        }
    }

    #[test]
    fn a_too_long_record_is_refused_however_the_reads_fall_and_before_a_later_error() {
        let mut long = b"a,b\n".to_vec();
        long.resize(MAX_RECORD_BYTES + (1 << 20), b'x');
        long.extend_from_slice(b"\nb\n");
        for fails in [false, true] {
            let expected = sequential(Short(io::Cursor::new(long.clone()), fails));
            assert_eq!(expected.0.len(), 1);
            assert!(expected.1.as_deref().unwrap().contains("no line end"));
            let file = long.clone();
            let got = chunked(
                move || Box::new(Short(io::Cursor::new(file), fails)),
                CHUNK_BYTES,
            );
            assert_eq!(got, expected, "then fails: {fails}");
        }
    }

    #[test]
    fn a_read_error_keeps_the_rows_before_it_and_is_reported() {
        let file = b"a,b\nc,d\ne,\"f\ng\"\nh,i\nj".to_vec();
        for cut in [0, 3, 5, 9, 14, 18, file.len()] {
            let part = file[..cut].to_vec();
            let expected = sequential(Failing(io::Cursor::new(part.clone())));
            assert!(expected.1.as_deref().unwrap().contains("disk gone"));
            for chunk in [1, 4, 64] {
                let p = part.clone();
                let got = chunked(move || Box::new(Failing(io::Cursor::new(p))), chunk);
                assert_eq!(got, expected, "cut {cut}, chunks of {chunk}");
            }
        }
    }

    #[test]
    fn a_break_stops_the_reading() {
        let file: Vec<u8> = (0..10_000)
            .flat_map(|i| format!("{i},x\n").into_bytes())
            .collect();
        let mut seen = 0;
        let result = in_chunks(
            || Ok(Box::new(io::Cursor::new(file))),
            b',',
            64,
            &error,
            &mut |_, _| {
                seen += 1;
                if seen == 100 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            &mut |_, _| {},
        );
        assert!(result.is_ok());
        assert_eq!(seen, 100);
    }
}
