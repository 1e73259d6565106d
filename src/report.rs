//! Row accounting: every input row ends up used, skipped by a documented rule, or rejected
//! with the file, sheet, row, column and problem named. The counts decide the exit code.

use std::collections::BTreeMap;
use std::fmt;

/// What a file is used for in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// One embedding vector per page (Custom JavaScript, AI tab, or any URL + vector table).
    Embeddings,
    /// Bulk Export > Links > All Inlinks (or All Outlinks: same columns).
    Inlinks,
    /// Internal: All / Internal: HTML.
    Internal,
    /// An earlier linkgap workbook's Queue or History.
    Review,
    /// Custom Extraction: each page's main content as inner HTML or text.
    PageText,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Embeddings => "embeddings",
            Role::Inlinks => "All Inlinks",
            Role::Internal => "Internal: All",
            Role::Review => "earlier review",
            Role::PageText => "page text",
        })
    }
}

/// One input row that could not be used, named precisely enough to find it in Excel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// File name as given on the command line.
    pub file: String,
    /// Sheet name for XLSX input.
    pub sheet: Option<String>,
    /// Spreadsheet row number (1-based, title and header rows counted).
    pub row: u64,
    /// The page the row is about (its Address or Source cell), so a person can act on it
    /// without the input open; empty when the row has none.
    pub url: String,
    /// Column header the problem is in (empty when the whole row is at fault).
    pub column: String,
    /// What was wrong and what was expected.
    pub problem: String,
    /// The raw value, cut to a readable length.
    pub value: String,
}

/// Longest raw value kept in a rejection: enough to recognise an error message, not a vector.
const VALUE_PREVIEW_CHARS: usize = 120;

/// Per-file counts; `read == used + skipped + rejected` always holds.
#[derive(Debug, Clone, Default)]
pub struct FileStats {
    /// File name as given.
    pub file: String,
    /// Roles the file played.
    pub roles: Vec<Role>,
    /// Data rows read (title and header rows excluded).
    pub read: u64,
    /// Rows that contributed to the analysis.
    pub used: u64,
    /// Rows left out by a rule (for example non-hyperlink link types), by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Rows rejected as malformed.
    pub rejected: u64,
}

impl FileStats {
    /// Total of skipped rows over all reasons.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Rows read between two updates of the progress display.
const TICK_EVERY: u64 = 1024;

/// Collects rejections, per-file counts and run notes.
#[derive(Debug, Default)]
pub struct Report {
    ticker: Option<indicatif::ProgressBar>,
    /// Rows counted since the ticker was last told.
    unticked: std::sync::atomic::AtomicU64,
    rejections: Vec<Rejection>,
    files: Vec<FileStats>,
    notes: Vec<String>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Index of the stats entry for `file`, created on first use.
    pub fn file(&mut self, file: &str, role: Role) -> usize {
        if let Some(i) = self.files.iter().position(|s| s.file == file) {
            if !self.files[i].roles.contains(&role) {
                self.files[i].roles.push(role);
            }
            return i;
        }
        self.files.push(FileStats {
            file: file.to_string(),
            roles: vec![role],
            ..FileStats::default()
        });
        self.files.len() - 1
    }

    /// Show rows read on `bar` until the next call (`None` stops).
    pub fn set_ticker(&mut self, bar: Option<indicatif::ProgressBar>) {
        if let Some(old) = self.ticker.take() {
            old.finish_and_clear();
        }
        *self.unticked.get_mut() = 0;
        self.ticker = bar;
    }

    /// Count one row read for progress display. The bar is told every [`TICK_EVERY`] rows:
    /// telling it each row read the clock each row (6% of reading All Inlinks).
    pub fn tick(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some(bar) = &self.ticker
            && self.unticked.fetch_add(1, Relaxed) + 1 >= TICK_EVERY
        {
            bar.inc(self.unticked.swap(0, Relaxed));
        }
    }

    /// Mutable access to one file's counts.
    pub fn stats(&mut self, index: usize) -> &mut FileStats {
        &mut self.files[index]
    }

    /// Record a rejected row and count it against its file.
    pub fn reject(&mut self, file_index: usize, mut rejection: Rejection) {
        self.files[file_index].rejected += 1;
        // Every rejection is kept and listed (the promise is that every row is used or
        // listed): about 300 bytes each with the value cut to a preview.
        rejection.value = preview(&rejection.value);
        self.rejections.push(rejection);
    }

    /// Count a row skipped by a rule.
    pub fn skip(&mut self, file_index: usize, reason: &str) {
        *self.files[file_index]
            .skipped
            .entry(reason.to_string())
            .or_insert(0) += 1;
    }

    /// A sentence for the Run sheet and stderr.
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Rejections kept in detail.
    pub fn rejections(&self) -> &[Rejection] {
        &self.rejections
    }

    /// Per-file counts.
    pub fn files(&self) -> &[FileStats] {
        &self.files
    }

    /// Notes in the order they were made.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Total rejected rows over all files.
    pub fn rejected_total(&self) -> u64 {
        self.files.iter().map(|f| f.rejected).sum()
    }
}

/// Cut a raw value to a readable length on a character boundary, newlines shown as `⏎`.
pub fn preview(value: &str) -> String {
    let mut out: String = value
        .chars()
        .take(VALUE_PREVIEW_CHARS)
        .map(|c| if c == '\n' || c == '\r' { '⏎' } else { c })
        .collect();
    if value.chars().count() > VALUE_PREVIEW_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_and_values_are_cut() {
        let mut report = Report::new();
        let f = report.file("a.csv", Role::Inlinks);
        report.stats(f).read = 3;
        report.stats(f).used = 1;
        report.skip(f, "not a hyperlink");
        report.reject(
            f,
            Rejection {
                file: "a.csv".into(),
                sheet: None,
                row: 4,
                url: "https://a/".into(),
                column: "Source".into(),
                problem: "empty".into(),
                value: "x".repeat(500),
            },
        );
        let s = &report.files()[0];
        assert_eq!(s.read, s.used + s.skipped_total() + s.rejected);
        assert!(report.rejections()[0].value.chars().count() <= VALUE_PREVIEW_CHARS + 1);
        assert_eq!(report.file("a.csv", Role::Embeddings), f);
        assert_eq!(
            report.files()[0].roles,
            vec![Role::Inlinks, Role::Embeddings]
        );
    }
}
