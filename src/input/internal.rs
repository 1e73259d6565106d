//! Internal: All / Internal: HTML of every era (64 to 74+ columns, columns come and go): the
//! per-URL facts eligibility and identity rest on (status, content type, indexability,
//! canonical, redirect target, word count, title), and, when the crawl had them connected,
//! the search, analytics and link-analysis numbers and the page's language.

use super::columns::Col;
use super::{InputError, Row, Table, cell};
use crate::report::{Report, Role};

/// One crawled URL.
#[derive(Debug, Clone, Default)]
pub struct CrawledUrl {
    /// Address as exported.
    pub url: String,
    /// Spreadsheet row.
    pub row: u64,
    /// HTTP status code (0 for no response).
    pub status_code: Option<u16>,
    /// Status text.
    pub status: String,
    /// Content Type.
    pub content_type: String,
    /// Indexable / Non-Indexable.
    pub indexability: String,
    /// Why not indexable (noindex, Canonicalised, Redirected, Client Error...).
    pub indexability_status: String,
    /// Canonical Link Element 1.
    pub canonical: String,
    /// Redirect URL for 3xx rows.
    pub redirect: String,
    /// Word Count, when present.
    pub word_count: Option<u32>,
    /// Title 1.
    pub title: String,
    /// H1-1.
    pub h1: String,
    /// Meta Robots 1.
    pub meta_robots: String,
    /// Segments, when configured.
    pub segment: String,
    /// Content hash, when present.
    pub hash: String,
    /// The html `lang` attribute (`Language`), as written; empty when not known.
    pub language: String,
    /// Search, analytics and link-analysis numbers, one per [`Signal::ALL`] (NaN: blank);
    /// `None` when the export has none of those columns.
    pub signals: Option<Box<[f64; Signal::COUNT]>>,
}

impl CrawledUrl {
    /// One signal's value, `None` when the column is absent or the cell blank.
    pub fn signal(&self, signal: Signal) -> Option<f64> {
        self.signals
            .as_ref()
            .map(|s| s[signal as usize])
            .filter(|v| !v.is_nan())
    }
}

/// A signal cell that holds neither a number nor a blank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotANumber;

/// A per-URL number Internal: All carries when Search Console, Google Analytics or Crawl
/// Analysis (Link Score) fed the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// Search Console clicks.
    Clicks,
    /// Search Console impressions.
    Impressions,
    /// Search Console click-through rate, a fraction (`0.011`; `1.1%` is read as 0.011).
    Ctr,
    /// Search Console average position (1 = top).
    Position,
    /// Google Analytics sessions (GA4 or Universal Analytics).
    Sessions,
    /// Google Analytics views / pageviews.
    Views,
    /// Screaming Frog's Link Score (0–100, after Crawl Analysis).
    LinkScore,
    /// Unique Inlinks: pages linking to the URL, navigation included.
    UniqueInlinks,
}

impl Signal {
    /// How many signals there are.
    pub const COUNT: usize = 8;
    /// Every signal, in column order.
    pub const ALL: [Signal; Signal::COUNT] = [
        Signal::Clicks,
        Signal::Impressions,
        Signal::Ctr,
        Signal::Position,
        Signal::Sessions,
        Signal::Views,
        Signal::LinkScore,
        Signal::UniqueInlinks,
    ];

    /// The column it is read from.
    pub fn col(self) -> Col {
        match self {
            Signal::Clicks => Col::Clicks,
            Signal::Impressions => Col::Impressions,
            Signal::Ctr => Col::Ctr,
            Signal::Position => Col::Position,
            Signal::Sessions => Col::Sessions,
            Signal::Views => Col::Views,
            Signal::LinkScore => Col::LinkScore,
            Signal::UniqueInlinks => Col::UniqueInlinks,
        }
    }

    /// Its name in the workbook and in messages.
    pub fn label(self) -> &'static str {
        match self {
            Signal::Clicks => "Clicks",
            Signal::Impressions => "Impressions",
            Signal::Ctr => "CTR",
            Signal::Position => "Position",
            Signal::Sessions => "Sessions",
            Signal::Views => "Views",
            Signal::LinkScore => "Link Score",
            Signal::UniqueInlinks => "Unique Inlinks",
        }
    }

    /// Counts are whole numbers: a comma in them is a thousands separator.
    fn whole(self) -> bool {
        matches!(
            self,
            Signal::Clicks
                | Signal::Impressions
                | Signal::Sessions
                | Signal::Views
                | Signal::UniqueInlinks
        )
    }

    /// Read a cell: blank (or `-`) is `Ok(None)`; a number (thousands separators, a decimal
    /// comma in a decimal column, a trailing `%`) is `Ok(Some)`; anything else, or a
    /// negative number, is `Err`.
    pub fn parse(self, text: &str) -> Result<Option<f64>, NotANumber> {
        let t = text.trim();
        if t.is_empty() || t == "-" {
            return Ok(None);
        }
        let (t, percent) = match t.strip_suffix('%') {
            Some(rest) => (rest.trim(), true),
            None => (t, false),
        };
        let t = if self.whole() || t.contains('.') {
            t.replace(',', "")
        } else {
            t.replace(',', ".")
        };
        let v = t.parse::<f64>().map_err(|_| NotANumber)?;
        if !v.is_finite() || v < 0.0 {
            return Err(NotANumber);
        }
        Ok(Some(if percent { v / 100.0 } else { v }))
    }
}

/// A parsed Internal: All export.
#[derive(Debug, Clone, Default)]
pub struct Internal {
    /// File name.
    pub file: String,
    /// Every URL row.
    pub urls: Vec<CrawledUrl>,
    /// Latest Crawl Timestamp, as written.
    pub crawl_timestamp: Option<String>,
    /// Whether the export has a Word Count column.
    pub has_word_count: bool,
    /// The signal columns the export has.
    pub signal_columns: Vec<Signal>,
    /// Whether the export has a Language column.
    pub has_language: bool,
}

/// Parse a count cell that may carry a thousands separator or POI's `200.0`.
fn parse_count(text: &str) -> Option<u32> {
    // Counts are whole numbers: a comma can only be a thousands separator of a re-saved file.
    let t = text.trim().replace(',', "");
    t.parse::<f64>()
        .ok()
        .filter(|v| *v >= 0.0 && v.is_finite())
        .map(|v| v as u32)
}

/// Read an Internal: All table.
pub fn read(table: &Table, report: &mut Report) -> Result<Internal, InputError> {
    let h = table.header();
    if h.get(Col::Address).is_none() {
        return Err(InputError::Role {
            path: table.source().path().to_path_buf(),
            message: "not an Internal export: no \"Address\" column".into(),
        });
    }
    let stats = report.file(table.name(), Role::Internal);
    let cols = [
        h.get(Col::Address),
        h.get(Col::StatusCode),
        h.get(Col::Status),
        h.get(Col::ContentType),
        h.get(Col::Indexability),
        h.get(Col::IndexabilityStatus),
        h.get(Col::Canonical),
        h.get(Col::RedirectUrl),
        h.get(Col::WordCount),
        h.get(Col::Title),
        h.get(Col::MetaRobots),
        h.get(Col::Segments),
        h.get(Col::Hash),
        h.get(Col::CrawlTimestamp),
        h.get(Col::H1),
        h.get(Col::Language),
    ];
    let signal_cols: Vec<(Signal, usize)> = Signal::ALL
        .iter()
        .filter_map(|&s| h.get(s.col()).map(|i| (s, i)))
        .collect();
    let mut out = Internal {
        file: table.name().to_string(),
        has_word_count: cols[8].is_some(),
        signal_columns: signal_cols.iter().map(|(s, _)| *s).collect(),
        has_language: cols[15].is_some(),
        ..Internal::default()
    };
    table.rows(report, stats, &mut |report, row, r: &Row<'_>| {
        let url = cell(r, cols[0]);
        if url.is_empty() {
            report.reject(
                stats,
                table.rejection(row, "Address", "no URL in this row", ""),
            );
            return;
        }
        if let Err(issue) = crate::normalize::normalize(url, &crate::normalize::Rules::default()) {
            report.reject(
                stats,
                table.rejection(row, "Address", issue.to_string(), url),
            );
            return;
        }
        let code_text = cell(r, cols[1]);
        let status_code = code_text
            .split('.')
            .next()
            .and_then(|s| s.parse::<u16>().ok());
        if status_code.is_none() && !code_text.is_empty() {
            report.reject(
                stats,
                table.rejection(
                    row,
                    "Status Code",
                    "expected a number such as 200",
                    code_text,
                ),
            );
            return;
        }
        let signals = match read_signals(&signal_cols, r) {
            Ok(signals) => signals,
            Err((signal, text)) => {
                report.reject(
                    stats,
                    table.rejection(
                        row,
                        h.name(h.get(signal.col()).unwrap_or(usize::MAX)),
                        format!("expected a number (or a blank cell) in {}", signal.label()),
                        text,
                    ),
                );
                return;
            }
        };
        let time = cell(r, cols[13]);
        if !time.is_empty() && out.crawl_timestamp.as_deref().is_none_or(|t| t < time) {
            out.crawl_timestamp = Some(time.to_string());
        }
        out.urls.push(CrawledUrl {
            url: url.to_string(),
            row,
            status_code,
            status: cell(r, cols[2]).to_string(),
            content_type: cell(r, cols[3]).to_string(),
            indexability: cell(r, cols[4]).to_string(),
            indexability_status: cell(r, cols[5]).to_string(),
            canonical: cell(r, cols[6]).to_string(),
            redirect: cell(r, cols[7]).to_string(),
            word_count: parse_count(cell(r, cols[8])),
            title: cell(r, cols[9]).to_string(),
            h1: cell(r, cols[14]).to_string(),
            meta_robots: cell(r, cols[10]).to_string(),
            segment: cell(r, cols[11]).to_string(),
            hash: cell(r, cols[12]).to_string(),
            language: cell(r, cols[15]).to_string(),
            signals,
        });
    })?;
    Ok(out)
}

/// The row's signal cells, or the first one that is not a number.
fn read_signals<'r>(
    cols: &[(Signal, usize)],
    r: &Row<'r>,
) -> Result<Option<Box<[f64; Signal::COUNT]>>, (Signal, &'r str)> {
    if cols.is_empty() {
        return Ok(None);
    }
    let mut values = [f64::NAN; Signal::COUNT];
    for &(signal, i) in cols {
        let text = cell(r, Some(i));
        match signal.parse(text) {
            Ok(Some(v)) => values[signal as usize] = v,
            Ok(None) => {}
            Err(NotANumber) => return Err((signal, text)),
        }
    }
    Ok(Some(Box::new(values)))
}

#[cfg(test)]
mod tests {
    use super::Signal;

    #[test]
    fn signal_cells() {
        assert_eq!(Signal::Clicks.parse(""), Ok(None));
        assert_eq!(Signal::Clicks.parse(" - "), Ok(None));
        assert_eq!(Signal::Clicks.parse("1,234"), Ok(Some(1234.0)));
        assert_eq!(Signal::Impressions.parse("11906.0"), Ok(Some(11906.0)));
        assert_eq!(Signal::Position.parse("33,710"), Ok(Some(33.71)));
        assert_eq!(Signal::Position.parse("1,033.5"), Ok(Some(1033.5)));
        assert_eq!(Signal::Ctr.parse("1.5%"), Ok(Some(0.015)));
        assert_eq!(Signal::Ctr.parse("0.011"), Ok(Some(0.011)));
        assert!(Signal::Clicks.parse("n/a").is_err());
        assert!(Signal::Clicks.parse("-3").is_err());
        assert!(Signal::LinkScore.parse("NaN").is_err());
    }
}
