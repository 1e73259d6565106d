//! A crawl as linkgap sees it: the URL table, where every URL resolves (redirects and
//! canonicals from Internal: All and All Inlinks), the Internal: All facts per URL, and the
//! existing links. Shared by `run` and `verify`.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::input::inlinks::LinkKind;
use crate::input::internal::{self, Internal};
use crate::input::{Table, inlinks};
use crate::links::{LinkCollector, LinkRules, LinkSet};
use crate::normalize::identity::{Edges, UrlTable, Via, resolve_all};
use crate::normalize::{Rules, normalize};
use crate::progress::Progress;
use crate::report::{Report, Role};

/// What a crawl's exports say.
#[derive(Debug)]
pub struct Crawl {
    /// Every URL seen, normalized and interned.
    pub urls: UrlTable,
    /// Where each URL id leads: `(page id, first hop)`.
    pub resolved: Vec<(u32, Via)>,
    /// Existing links between resolved pages.
    pub links: LinkSet,
    /// Internal: All, when given.
    pub internal: Option<Internal>,
    /// URL id → the Internal: All row that speaks for it.
    pub crawled: HashMap<u32, usize>,
    /// The URL id of every row of `internal`, in its order (`None`: the URL could not be
    /// normalized; empty without Internal: All), so nothing downstream normalizes a million
    /// URLs a second time.
    pub internal_ids: Vec<Option<u32>>,
    /// Hreflang annotations of All Inlinks: (declaring URL id, alternate URL id, the language
    /// code when the row carries one in Anchor or Alt Text).
    pub hreflang: Vec<(u32, u32, Option<String>)>,
}

impl Crawl {
    /// The page a written URL stands for, if the crawl knows the URL.
    pub fn page_of(&self, url: &str, rules: &Rules) -> Option<u32> {
        let id = self.urls.get(&normalize(url, rules).ok()?)?;
        let (page, via) = self.resolved[id as usize];
        (!matches!(via, Via::Loop | Via::TooLong)).then_some(page)
    }
}

/// Read Internal: All (optional) and All Inlinks into a [`Crawl`]. `urls` may already hold
/// URLs (the embeddings export's), so they are resolved too.
pub fn load(
    mut urls: UrlTable,
    inlinks_table: &Table,
    internal_table: Option<&Table>,
    rules: &Rules,
    link_rules: &LinkRules,
    progress: Progress,
    report: &mut Report,
) -> Result<Crawl> {
    let mut edges = Edges::default();
    let mut crawled: HashMap<u32, usize> = HashMap::new();
    let mut internal_ids = Vec::new();
    let internal = match internal_table {
        Some(t) => {
            report.set_ticker(Some(progress.rows("Reading Internal: All")));
            let internal =
                internal::read(t, report).with_context(|| format!("reading {}", t.name()))?;
            let stats = report.file(t.name(), Role::Internal);
            internal_ids.reserve_exact(internal.urls.len());
            for (i, u) in internal.urls.iter().enumerate() {
                let Ok(norm) = normalize(&u.url, rules) else {
                    report.skip(stats, "URL cannot be normalized");
                    internal_ids.push(None);
                    continue;
                };
                report.stats(stats).used += 1;
                let id = urls.intern(&norm);
                internal_ids.push(Some(id));
                // Spellings that normalize alike (an upper-case host that 301s to the lower-case
                // one) are one URL: the row that served the page (200) speaks for it.
                match crawled.get(&id) {
                    Some(&j)
                        if internal.urls[j].status_code == Some(200)
                            || u.status_code != Some(200) => {}
                    _ => {
                        crawled.insert(id, i);
                    }
                }
                if u.status_code.is_some_and(|c| (300..400).contains(&c))
                    && let Some(to) = absolute(&u.url, &u.redirect, rules)
                {
                    let to = urls.intern(&to);
                    if to != id {
                        edges.redirect.insert(id, to);
                    }
                }
                if let Some(canonical) = absolute(&u.url, &u.canonical, rules) {
                    let c = urls.intern(&canonical);
                    if c != id {
                        edges.canonical.insert(id, c);
                    }
                }
            }
            Some(internal)
        }
        None => None,
    };

    report.set_ticker(Some(progress.rows("Reading All Inlinks")));
    let mut collector = LinkCollector::new();
    if link_rules.keep_anchors {
        collector.keep_anchors();
    }
    let mut hreflang = Vec::new();
    inlinks::read(inlinks_table, report, &mut |report, stats, link| {
        if link.kind == LinkKind::Other
            && inlinks::is_hreflang(link.type_text)
            && let (Ok(from), Ok(to)) = (
                normalize(link.source, rules),
                normalize(link.destination, rules),
            )
        {
            let code = [link.anchor, link.alt_text]
                .into_iter()
                .find_map(language_tag);
            hreflang.push((urls.intern(&from), urls.intern(&to), code));
        }
        collector.add(link, &mut urls, rules, link_rules, report, stats);
    })
    .with_context(|| format!("reading {}", inlinks_table.name()))?;
    report.set_ticker(None);
    for &(from, to) in &collector.redirects {
        // Internal: All is the better witness of where a URL redirects; inlinks only fill gaps.
        edges.redirect.entry(from).or_insert(to);
    }
    let resolved = resolve_all(urls.len(), &edges);
    let links = collector.finish(&resolved, link_rules);
    Ok(Crawl {
        urls,
        resolved,
        links,
        internal,
        crawled,
        internal_ids,
        hreflang,
    })
}

/// Normalize `href` as written on page `base` (Screaming Frog writes absolute URLs; a
/// relative one is resolved the way a browser would).
fn absolute(base: &str, href: &str, rules: &Rules) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    normalize(href, rules).ok().or_else(|| {
        let joined = url::Url::parse(base.trim()).ok()?.join(href).ok()?;
        normalize(joined.as_str(), rules).ok()
    })
}

/// The comparison key of a language tag: its primary subtag, lower-case (`en-US` → `en`,
/// `fr_CA` → `fr`); `None` for `x-default`, a blank or anything that is not a tag.
pub fn language_tag(text: &str) -> Option<String> {
    let t = text.trim().to_ascii_lowercase();
    let mut parts = t.split(['-', '_']);
    let primary = parts.next()?;
    let primary_ok =
        (2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_lowercase());
    let rest_ok =
        parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
    (primary_ok && rest_ok).then(|| primary.to_string())
}

/// When a crawl ran, as its exports (or the person) say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrawlDate {
    /// Given on the command line (`linkgap verify --crawl-date`).
    Given(String),
    /// The latest Crawl Timestamp of the exports, first ten characters.
    Exported(String),
    /// No timestamp: the All Inlinks file's modification date, when it has one.
    FileDate(Option<String>),
}

impl CrawlDate {
    /// The first timestamp given (callers list Internal: All's before the embeddings
    /// export's), else the modification date of the All Inlinks file `inlinks`.
    pub fn of<'a>(
        timestamps: impl IntoIterator<Item = Option<&'a str>>,
        inlinks: &Path,
    ) -> CrawlDate {
        timestamps.into_iter().flatten().next().map_or_else(
            || CrawlDate::FileDate(file_date(inlinks)),
            |t| CrawlDate::Exported(t.chars().take(10).collect()),
        )
    }

    /// The date the exports carry, if it reads as `YYYY-MM-DD` (what `linkgap watch`
    /// names a workbook by).
    pub fn exported(&self) -> Option<&str> {
        match self {
            CrawlDate::Exported(d) if is_date(d) => Some(d),
            _ => None,
        }
    }

    /// The date alone, without saying where it came from; `None` when no date is known.
    pub fn date(&self) -> Option<&str> {
        match self {
            CrawlDate::Given(d) | CrawlDate::Exported(d) | CrawlDate::FileDate(Some(d)) => Some(d),
            CrawlDate::FileDate(None) => None,
        }
    }
}

impl std::fmt::Display for CrawlDate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrawlDate::Given(d) | CrawlDate::Exported(d) => f.write_str(d),
            CrawlDate::FileDate(d) => write!(
                f,
                "{} (file date of the All Inlinks export)",
                d.as_deref().unwrap_or("unknown")
            ),
        }
    }
}

/// A file's modification date, `YYYY-MM-DD` (UTC).
pub fn file_date(path: &Path) -> Option<String> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(crate::dates::format_date)
}

/// `YYYY-MM-DD`, digits where digits go.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

#[cfg(test)]
mod crawl_date_tests {
    use super::{CrawlDate, is_date};
    use std::path::Path;

    #[test]
    fn crawl_dates_must_look_like_dates() {
        assert!(is_date("2026-11-20"));
        assert!(!is_date("20/11/2026"));
        assert!(!is_date("2026-11-2"));
    }

    #[test]
    fn the_first_timestamp_wins_then_the_file_date() {
        let missing = Path::new("/no/such/all_inlinks.csv");
        let d = CrawlDate::of(
            [None, Some("2026-11-20 09:30:00"), Some("2025-01-01")],
            missing,
        );
        assert_eq!(d, CrawlDate::Exported("2026-11-20".into()));
        assert_eq!(d.to_string(), "2026-11-20");
        assert_eq!(d.exported(), Some("2026-11-20"));
        let odd = CrawlDate::of([Some("20/11/2026 09:30")], missing);
        assert_eq!(odd.exported(), None, "not a name for a workbook");
        assert_eq!(odd.date(), Some("20/11/2026"));
        let none = CrawlDate::of([None, None], missing);
        assert_eq!(none, CrawlDate::FileDate(None));
        assert_eq!(
            none.to_string(),
            "unknown (file date of the All Inlinks export)"
        );
        assert_eq!(none.date(), None);
        let file = CrawlDate::of(
            [None],
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("Cargo.toml")
                .as_path(),
        );
        assert!(
            file.to_string()
                .ends_with(" (file date of the All Inlinks export)")
        );
        assert!(file.date().is_some_and(is_date));
    }
}

#[cfg(test)]
mod load_tests {
    use super::*;

    /// Every Internal: All row read keeps the id its URL was interned under, in row order (the
    /// Pages inventory reads them side by side with the rows); a row the reader rejects (not
    /// a web address) is in neither.
    #[test]
    fn internal_rows_keep_their_url_ids_in_row_order() {
        let dir = std::env::temp_dir().join(format!("linkgap-crawl-ids-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let internal = dir.join("internal_all.csv");
        std::fs::write(
            &internal,
            "\"Address\",\"Status Code\"\n\"https://e.com/B\",\"200\"\n\"mailto:team@e.com\",\"200\"\n\"HTTPS://E.COM/a\",\"200\"\n",
        )
        .unwrap();
        let inlinks = dir.join("all_inlinks.csv");
        std::fs::write(
            &inlinks,
            "\"Type\",\"Source\",\"Destination\",\"Link Position\"\n\"Hyperlink\",\"https://e.com/a\",\"https://e.com/B\",\"Content\"\n",
        )
        .unwrap();
        let (internal, inlinks) = (
            Table::open(&internal).unwrap(),
            Table::open(&inlinks).unwrap(),
        );
        let rules = Rules::default();
        let crawl = load(
            UrlTable::default(),
            &inlinks,
            Some(&internal),
            &rules,
            &LinkRules::default(),
            Progress::new(true),
            &mut Report::new(),
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let id = |u: &str| crawl.urls.get(&normalize(u, &rules).unwrap());
        let read: Vec<&str> = crawl
            .internal
            .as_ref()
            .unwrap()
            .urls
            .iter()
            .map(|u| u.url.as_str())
            .collect();
        assert_eq!(read, ["https://e.com/B", "HTTPS://E.COM/a"]);
        assert_eq!(
            crawl.internal_ids,
            [id("https://e.com/B"), id("https://e.com/a")]
        );
        assert_ne!(crawl.internal_ids[0], crawl.internal_ids[1]);
        assert!(crawl.internal_ids.iter().all(Option::is_some));
        assert!(
            crawl
                .internal_ids
                .iter()
                .flatten()
                .all(|&i| crawl.crawled.contains_key(&i))
        );
    }
}
