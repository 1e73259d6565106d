//! Internal: All / Internal: HTML of every era (64 to 74+ columns, columns come and go): the
//! per-URL facts eligibility and identity rest on (status, content type, indexability,
//! canonical, redirect target, word count, title).

use csv::StringRecord;

use super::columns::Col;
use super::{InputError, Table, cell};
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
    ];
    let mut out = Internal {
        file: table.name().to_string(),
        has_word_count: cols[8].is_some(),
        ..Internal::default()
    };
    table.rows(report, stats, &mut |report, row, r: &StringRecord| {
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
        });
    })?;
    Ok(out)
}
