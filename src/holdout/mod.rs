//! The hidden-truth quality harness (`linkgap-eval`): hide a seeded share of a crawl's body
//! links ([`hide`]), run linkgap on what is left, and count how many of the hidden links the
//! Queue proposes and whether its passages and anchors are where the links were ([`score`]).
//!
//! Not part of the pipeline: nothing in `run` imports it. It reads Screaming Frog exports with
//! the `csv` crate directly (UTF-8 CSV, as Screaming Frog writes them), so it works on any crawl
//! folder: the postgres15 corpus, a generated site, a client's export.

pub mod baseline;
pub mod hide;
pub mod html;
pub mod score;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use url::Url;

/// A URL as the harness compares it: parsed (against `base` when relative) by the `url` crate,
/// which lower-cases scheme and host, drops default ports and resolves dot segments; the
/// fragment dropped. `None` for what is not an http(s) URL.
pub fn url_key(s: &str, base: Option<&Url>) -> Option<String> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut u = match base {
        Some(b) => b.join(s).ok()?,
        None => Url::parse(s).ok()?,
    };
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

/// Lower-cased runs of letters and digits.
pub fn tokens(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whitespace collapsed, lower-cased.
pub fn normalize_text(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Shared tokens (as multisets) over the longer token count: 1 for the same words, 0 for none.
pub fn token_overlap(a: &[String], b: &[String]) -> f64 {
    let longer = a.len().max(b.len());
    if longer == 0 {
        return 0.0;
    }
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for t in a {
        *counts.entry(t.as_str()).or_default() += 1;
    }
    let mut shared = 0usize;
    for t in b {
        if let Some(c) = counts.get_mut(t.as_str())
            && *c > 0
        {
            *c -= 1;
            shared += 1;
        }
    }
    shared as f64 / longer as f64
}

/// The passage rule: a suggested passage is the block where the link was when both are equal
/// after collapsing whitespace and case, or when their token overlap ([`token_overlap`]) is at
/// least 0.8. An empty suggestion or an empty truth never matches.
pub fn passage_matches(suggested: &str, truth: &str) -> bool {
    let (s, t) = (normalize_text(suggested), normalize_text(truth));
    if s.is_empty() || t.is_empty() {
        return false;
    }
    s == t || token_overlap(&tokens(&s), &tokens(&t)) >= 0.8
}

/// The anchor rule: a suggested anchor overlaps the real one when one's token sequence occurs in
/// the other's (a word sequence shared whole), or when their token overlap ([`token_overlap`])
/// is at least 0.5. Empty anchors never match.
pub fn anchor_matches(suggested: &str, real: &str) -> bool {
    let (s, r) = (tokens(suggested), tokens(real));
    if s.is_empty() || r.is_empty() {
        return false;
    }
    let contains =
        |long: &[String], short: &[String]| long.windows(short.len()).any(|w| w == short);
    contains(&s, &r) || contains(&r, &s) || token_overlap(&s, &r) >= 0.5
}

/// The header row of a CSV reader ([`open_csv`]), as strings.
pub fn headers(rdr: &mut csv::Reader<Box<dyn Read>>) -> io::Result<Vec<String>> {
    Ok(rdr
        .headers()
        .map_err(io::Error::other)?
        .iter()
        .map(String::from)
        .collect())
}

/// The roles the harness needs from a crawl folder, found by header (not by name).
#[derive(Debug, Clone, Default)]
pub struct CrawlFiles {
    /// All Inlinks (a CSV with Type, Source and Destination columns).
    pub inlinks: Option<PathBuf>,
    /// Custom Extraction (Address, Status Code, Status, then extractor columns).
    pub page_text: Option<PathBuf>,
    /// Internal: All (Address, Status Code, Indexability).
    pub internal: Option<PathBuf>,
}

/// The header row of a CSV file, BOM dropped.
pub fn csv_header(path: &Path) -> io::Result<Vec<String>> {
    let mut head = Vec::new();
    File::open(path)?.take(64 * 1024).read_to_end(&mut head)?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(strip_bom(&head));
    let mut rec = csv::StringRecord::new();
    match rdr.read_record(&mut rec) {
        Ok(true) => Ok(rec.iter().map(|s| s.trim().to_string()).collect()),
        _ => Ok(Vec::new()),
    }
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A CSV reader over `path` with the BOM dropped; also says whether there was one.
pub fn open_csv(path: &Path) -> io::Result<(csv::Reader<Box<dyn Read>>, bool)> {
    let mut file = BufReader::new(File::open(path)?);
    let mut first = [0u8; 3];
    let mut n = 0;
    while n < 3 {
        let got = file.read(&mut first[n..])?;
        if got == 0 {
            break;
        }
        n += got;
    }
    let bom = n == 3 && first == *b"\xEF\xBB\xBF";
    let prefix: Vec<u8> = if bom { Vec::new() } else { first[..n].to_vec() };
    let reader: Box<dyn Read> = Box::new(io::Cursor::new(prefix).chain(file));
    let rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(reader);
    Ok((rdr, bom))
}

/// A CSV writer as Screaming Frog writes: every field quoted, LF, a BOM when `bom`.
pub fn create_csv(path: &Path, bom: bool) -> io::Result<csv::Writer<io::BufWriter<File>>> {
    use std::io::Write as _;
    let mut file = io::BufWriter::new(File::create(path)?);
    if bom {
        file.write_all(b"\xEF\xBB\xBF")?;
    }
    Ok(csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(file))
}

/// The position of `name` in `header`, ignoring case and surrounding spaces.
pub fn column(header: &[String], name: &str) -> Option<usize> {
    header
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case(name))
}

/// Find the All Inlinks, Custom Extraction and Internal: All CSVs of a crawl folder by their
/// headers. When a role has two files, the one named like Screaming Frog's export wins.
pub fn find_files(dir: &Path) -> io::Result<CrawlFiles> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")))
        .collect();
    entries.sort();
    let mut found = CrawlFiles::default();
    let prefer = |slot: &mut Option<PathBuf>, p: &Path, name: &str| {
        let named = p.file_name().is_some_and(|f| f.to_string_lossy() == name);
        if slot.is_none() || named {
            *slot = Some(p.to_path_buf());
        }
    };
    for p in &entries {
        let h = csv_header(p)?;
        let has = |n: &str| column(&h, n).is_some();
        if has("Type") && has("Source") && has("Destination") {
            prefer(&mut found.inlinks, p, "all_inlinks.csv");
        } else if h.len() >= 4
            && h[0].eq_ignore_ascii_case("Address")
            && h[1].eq_ignore_ascii_case("Status Code")
            && h[2].eq_ignore_ascii_case("Status")
        {
            prefer(&mut found.page_text, p, "custom_extraction_all.csv");
        } else if has("Address") && has("Indexability") && has("Status Code") {
            prefer(&mut found.internal, p, "internal_all.csv");
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_key_resolves_and_drops_fragments() {
        let base = Url::parse("https://Example.com:443/docs/a.html").unwrap();
        assert_eq!(
            url_key("b.html#frag", Some(&base)).as_deref(),
            Some("https://example.com/docs/b.html")
        );
        assert_eq!(
            url_key("HTTPS://EXAMPLE.COM/x/../docs/b.html", None).as_deref(),
            Some("https://example.com/docs/b.html")
        );
        assert_eq!(url_key("mailto:a@b.c", None), None);
        assert_eq!(url_key("", Some(&base)), None);
    }

    #[test]
    fn passage_rule() {
        assert!(passage_matches("  See the B   page. ", "see the b page."));
        // 9 of 10 words shared: over 0.8.
        assert!(passage_matches(
            "one two three four five six seven eight nine ten",
            "one two three four five six seven eight nine"
        ));
        assert!(!passage_matches("one two three four five", "one two three"));
        assert!(!passage_matches("", ""));
    }

    #[test]
    fn anchor_rule() {
        assert!(anchor_matches("parallel query", "Parallel Query"));
        assert!(anchor_matches("the SELECT command", "SELECT"));
        assert!(anchor_matches("pruning roses", "roses pruning"));
        assert!(!anchor_matches("click here", "pruning roses in winter"));
        assert!(!anchor_matches("", "x"));
    }

    #[test]
    fn overlap_counts_multisets_over_the_longer() {
        let t = |s: &str| tokens(s);
        assert!((token_overlap(&t("a a b"), &t("a b c d")) - 0.5).abs() < 1e-9);
        assert!((token_overlap(&t("a a"), &t("a")) - 0.5).abs() < 1e-9);
    }
}
