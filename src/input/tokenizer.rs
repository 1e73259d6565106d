//! The CSV grammar, read straight from the decoded bytes. It is the csv crate's grammar with the
//! settings every export needs (quotes on, `""` for a quote, no escape or comment character,
//! `\r`, `\n` or `\r\n` ending a record, blank lines skipped, rows of any length), so it splits
//! every file exactly as `csv::Reader` did; the differential test below holds it to that. It
//! exists for speed: the byte-at-a-time state machine was the slowest part of reading a
//! crawl, and a field here costs one `memchr` (a quoted field: its closing quote; an unquoted
//! one: the next delimiter or line end), so gigabytes of All Inlinks split at memory speed.
//!
//! It also knows what the csv crate could not say: whether the file ended inside an open
//! quote (the last row was cut off), and when a record grows past [`MAX_RECORD_BYTES`] with no
//! end (a file with no line ends, or a quote that never closes), which is refused before the
//! buffer grows to the size of the file.

use std::io::{self, Read};
use std::ops::Range;

use csv::ByteRecord;

/// Longest record read, in bytes: a 3,072-dimension vector is about 60 KB and a whole
/// Internal: All row a few hundred KB, so a longer one is not an export row.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// The buffer a file is read through; it grows for a record longer than half of it.
const BUFFER_BYTES: usize = 1 << 20;

/// Splits a stream of UTF-8 (or any ASCII-compatible) bytes into records.
pub struct Tokenizer<R> {
    inner: R,
    delimiter: u8,
    buf: Vec<u8>,
    /// Unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// The last record read ended the file inside a quoted field.
    cut: bool,
    /// A field that needs unquoting (`""`, or text after the closing quote) is built here.
    scratch: Vec<u8>,
}

/// Where a record's fields go as they are split: a [`ByteRecord`], or bounds into the
/// tokenizer's own buffer so that a field standing as written is never copied.
pub trait Fields {
    /// A record begins (again, when it is rescanned after a refill).
    fn clear(&mut self);
    /// A field as written: `data[range]`, where `data` starts `base` bytes into the
    /// tokenizer's buffer.
    fn written(&mut self, data: &[u8], base: usize, range: Range<usize>);
    /// A field unquoted into new bytes (`""` made one quote, or text after a closing quote).
    fn unquoted(&mut self, bytes: &[u8]);
}

impl Fields for ByteRecord {
    fn clear(&mut self) {
        ByteRecord::clear(self);
    }

    fn written(&mut self, data: &[u8], _base: usize, range: Range<usize>) {
        self.push_field(&data[range]);
    }

    fn unquoted(&mut self, bytes: &[u8]) {
        self.push_field(bytes);
    }
}

/// What scanning the unread bytes for one record found.
enum Scan {
    /// A record, using this many bytes (its line end included).
    Done { used: usize, cut: bool },
    /// The record goes on past the bytes read so far.
    More,
}

impl Tokenizer<io::Empty> {
    /// A tokenizer over bytes already read: the whole of them is the file.
    pub fn from_bytes(bytes: Vec<u8>, delimiter: u8) -> Self {
        Tokenizer {
            inner: io::empty(),
            delimiter,
            start: 0,
            end: bytes.len(),
            buf: bytes,
            eof: true,
            cut: false,
            scratch: Vec::new(),
        }
    }
}

impl<R: Read> Tokenizer<R> {
    /// A tokenizer over `inner`.
    pub fn new(inner: R, delimiter: u8) -> Self {
        Self::with_buffer(inner, delimiter, BUFFER_BYTES)
    }

    fn with_buffer(inner: R, delimiter: u8, bytes: usize) -> Self {
        Tokenizer {
            inner,
            delimiter,
            buf: vec![0; bytes.max(1)],
            start: 0,
            end: 0,
            eof: false,
            cut: false,
            scratch: Vec::new(),
        }
    }

    /// Give back the bytes a tokenizer [`from_bytes`](Tokenizer::from_bytes) was made over.
    pub fn into_bytes(mut self) -> Vec<u8> {
        self.buf.truncate(self.end);
        self.buf
    }

    /// Read the next record into `record`: `Ok(false)` at the end of the file.
    pub fn read(&mut self, record: &mut impl Fields) -> io::Result<bool> {
        loop {
            // Line ends between records are blank lines: skipped, like the csv crate does.
            while self.start < self.end && matches!(self.buf[self.start], b'\r' | b'\n') {
                self.start += 1;
            }
            if self.start == self.end {
                if self.eof {
                    return Ok(false);
                }
                self.refill()?;
                continue;
            }
            let data = &self.buf[self.start..self.end];
            let base = self.start;
            match scan(
                data,
                base,
                self.delimiter,
                self.eof,
                record,
                &mut self.scratch,
            ) {
                // A record longer than the limit is refused whether or not its end was read
                // yet: the same file gives the same answer however its reads fall.
                Scan::Done { used, .. } if used > MAX_RECORD_BYTES => return Err(too_long()),
                Scan::Done { used, cut } => {
                    self.start += used;
                    self.cut = cut;
                    return Ok(true);
                }
                Scan::More => {
                    if self.end - self.start > MAX_RECORD_BYTES {
                        return Err(too_long());
                    }
                    self.refill()?;
                }
            }
        }
    }

    /// Whether the buffer holds the whole input, so a record's bytes never move: what
    /// bounds into it (the chunks' `Cells`) rely on.
    pub fn never_refills(&self) -> bool {
        self.eof
    }

    /// Whether the last record read ended the file inside an open quote.
    pub fn ended_in_quotes(&self) -> bool {
        self.cut
    }

    /// Read more bytes after the unread ones, moving them to the front and growing the buffer
    /// when a record fills more than half of it. A record is rescanned from its start after a
    /// refill; the growth keeps that rescanning a small share of the bytes.
    fn refill(&mut self) -> io::Result<()> {
        let pending = self.end - self.start;
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = pending;
        }
        if pending * 2 > self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The error for a record longer than [`MAX_RECORD_BYTES`].
fn too_long() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "a row longer than {} MB with no line end (or an open quote that never closes): not an export row; refused",
            MAX_RECORD_BYTES >> 20
        ),
    )
}

/// One record from the front of `data` (which does not start with a line end and starts
/// `base` bytes into the buffer). At the end of the file (`at_eof`) whatever is left is the
/// record, as the csv crate ends one.
fn scan(
    data: &[u8],
    base: usize,
    delimiter: u8,
    at_eof: bool,
    record: &mut impl Fields,
    scratch: &mut Vec<u8>,
) -> Scan {
    record.clear();
    let mut i = 0;
    loop {
        // At the start of a field.
        if i == data.len() {
            // Only after a delimiter: the record's last field is empty.
            if !at_eof {
                return Scan::More;
            }
            record.written(data, base, i..i);
            return Scan::Done {
                used: i,
                cut: false,
            };
        }
        if data[i] != b'"' {
            let Some(j) = memchr::memchr3(delimiter, b'\n', b'\r', &data[i..]) else {
                if !at_eof {
                    return Scan::More;
                }
                record.written(data, base, i..data.len());
                return Scan::Done {
                    used: data.len(),
                    cut: false,
                };
            };
            record.written(data, base, i..i + j);
            i += j;
            if data[i] == delimiter {
                i += 1;
                continue;
            }
            return Scan::Done {
                used: i + 1,
                cut: false,
            };
        }
        // A quoted field: up to the closing quote, `""` standing for one quote.
        i += 1;
        let mut segment = i;
        scratch.clear();
        let mut escaped = false;
        let field_end = loop {
            let Some(j) = memchr::memchr(b'"', &data[i..]) else {
                if !at_eof {
                    return Scan::More;
                }
                if escaped {
                    scratch.extend_from_slice(&data[segment..]);
                }
                push_field(record, data, base, escaped, scratch, segment..data.len());
                return Scan::Done {
                    used: data.len(),
                    cut: true,
                };
            };
            let close = i + j;
            i = close + 1;
            if i == data.len() && !at_eof {
                // The byte after the quote says whether it closes the field.
                return Scan::More;
            }
            if data.get(i) == Some(&b'"') {
                scratch.extend_from_slice(&data[segment..i]);
                escaped = true;
                i += 1;
                segment = i;
                continue;
            }
            break close;
        };
        if escaped {
            scratch.extend_from_slice(&data[segment..field_end]);
        }
        match data.get(i) {
            None => {
                push_field(record, data, base, escaped, scratch, segment..field_end);
                return Scan::Done {
                    used: i,
                    cut: false,
                };
            }
            Some(&b) if b == delimiter => {
                push_field(record, data, base, escaped, scratch, segment..field_end);
                i += 1;
            }
            Some(b'\n' | b'\r') => {
                push_field(record, data, base, escaped, scratch, segment..field_end);
                return Scan::Done {
                    used: i + 1,
                    cut: false,
                };
            }
            Some(_) => {
                // Text after the closing quote joins the field as written, up to the next
                // delimiter or line end (quotes included).
                let rest = memchr::memchr3(delimiter, b'\n', b'\r', &data[i..]);
                if rest.is_none() && !at_eof {
                    return Scan::More;
                }
                let end = rest.map_or(data.len(), |k| i + k);
                if !escaped {
                    scratch.extend_from_slice(&data[segment..field_end]);
                }
                scratch.extend_from_slice(&data[i..end]);
                record.unquoted(scratch);
                i = end;
                if i == data.len() {
                    return Scan::Done {
                        used: i,
                        cut: false,
                    };
                }
                if data[i] == delimiter {
                    i += 1;
                } else {
                    return Scan::Done {
                        used: i + 1,
                        cut: false,
                    };
                }
            }
        }
    }
}

/// A quoted field's text: unquoted in `scratch` when it held `""`, else as written.
fn push_field(
    record: &mut impl Fields,
    data: &[u8],
    base: usize,
    escaped: bool,
    scratch: &[u8],
    written: Range<usize>,
) {
    if escaped {
        record.unquoted(scratch);
    } else {
        record.written(data, base, written);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn ours(bytes: &[u8], buffer: usize) -> (Vec<Vec<Vec<u8>>>, bool) {
        let mut t = Tokenizer::with_buffer(bytes, b',', buffer);
        let mut record = ByteRecord::new();
        let mut out = Vec::new();
        while t.read(&mut record).unwrap() {
            out.push(record.iter().map(<[u8]>::to_vec).collect());
        }
        (out, t.ended_in_quotes())
    }

    fn csv_crate(bytes: &[u8]) -> Vec<Vec<Vec<u8>>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut record = ByteRecord::new();
        let mut out = Vec::new();
        while r.read_byte_record(&mut record).unwrap() {
            out.push(record.iter().map(<[u8]>::to_vec).collect());
        }
        out
    }

    #[test]
    fn splits_every_file_as_the_csv_crate_does() {
        // Random files over the bytes the grammar cares about, read through buffers from one
        // byte (every record crosses a refill) to larger than the file.
        let alphabet = b"ab,,\"\"\"\n\r ;";
        let mut rng = Rng::new(7);
        for case in 0..20_000 {
            let len = rng.below(40);
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let expected = csv_crate(&bytes);
            for buffer in [1, 3, 64] {
                let (got, _) = ours(&bytes, buffer);
                assert_eq!(
                    got,
                    expected,
                    "case {case}, buffer {buffer}: {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
    }

    #[test]
    fn export_rows_split_into_fields() {
        let file = b"\"Type\",\"Source\",\"Anchor\"\r\n\"Hyperlink\",\"https://a/\",\"say \"\"hi\"\"\"\r\n\r\n\"Hyperlink\",\"https://b/\",\"two\nlines\"\n";
        let (rows, cut) = ours(file, 1 << 10);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1][2], b"say \"hi\"");
        assert_eq!(rows[2][2], b"two\nlines");
        assert!(!cut);
    }

    #[test]
    fn an_open_quote_at_the_end_of_the_file_is_known() {
        assert!(ours(b"a,b\n\"c,d", 4).1);
        assert!(ours(b"a,\"b\"\"", 4).1);
        assert!(!ours(b"a,\"b\"", 4).1);
        assert!(!ours(b"a,b\n", 4).1);
    }

    #[test]
    fn a_record_without_end_is_refused_before_the_buffer_grows_without_bound() {
        struct Endless;
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                buf.fill(b'x');
                Ok(buf.len())
            }
        }
        let mut t = Tokenizer::new(Endless, b',');
        let err = t.read(&mut ByteRecord::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(t.buf.len() <= 4 * MAX_RECORD_BYTES);
    }
}
