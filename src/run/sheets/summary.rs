//! Summary: the first sheet, what a client reads in a minute — pages analysed and excluded
//! (by reason), the Queue's size and top destinations, what changed since the last review,
//! and how to read the colours.

use std::collections::{BTreeMap, HashMap};

use crate::config::RunConfig;
use crate::importance::CrawlImportance;
use crate::languages::Languages;
use crate::links::LinkStatus;
use crate::review::{self, HistoryRow, QueueRow};
use crate::workbook::{Cell, Column, Sheet};

use super::super::analysis::Counts;
use super::super::pages::Page;
use super::now_utc;
use crate::crawl::CrawlDate;

/// What the Summary reports.
pub(in crate::run) struct SummaryInput<'a> {
    pub(in crate::run) config: &'a RunConfig,
    pub(in crate::run) crawl_date: &'a CrawlDate,
    pub(in crate::run) pages: &'a BTreeMap<u32, Page>,
    pub(in crate::run) counts: &'a Counts,
    pub(in crate::run) queue: &'a [QueueRow],
    pub(in crate::run) history: &'a [HistoryRow],
    /// The Queue's budget, in words.
    pub(in crate::run) budget: &'a str,
    /// The ranking's self-check, in words.
    pub(in crate::run) check: &'a str,
    /// How many Queue rows have a suggested passage, or why none.
    pub(in crate::run) passages: &'a str,
    /// Destination importance from the crawl's signals, when it has any.
    pub(in crate::run) importance: Option<&'a CrawlImportance>,
    pub(in crate::run) languages: &'a Languages,
}

const HOW_TO_READ: &str = "Similarity finds pages about the same thing; it is not a promise of rankings. Each suggestion needs a person to find the passage where a link helps the reader, and to accept, revise or reject it in the Queue.";
/// With page text the passage is suggested: the reviewer checks it rather than hunts for it.
const HOW_TO_READ_WITH_PASSAGES: &str = "Similarity finds pages about the same thing; it is not a promise of rankings. Each suggestion needs a person to check the suggested passage and anchor (or find a better place, in the Passage column) and to accept, revise or reject it in the Queue.";

const COLOURS: [(LinkStatus, &str); 6] = [
    (
        LinkStatus::Body,
        "the related page already links to the target in its body",
    ),
    (
        LinkStatus::BodyNofollow,
        "a body link exists but is nofollow",
    ),
    (
        LinkStatus::ViaRedirect,
        "a body link exists but goes through a redirect: point it at the final URL",
    ),
    (
        LinkStatus::TemplateOnly,
        "only navigation, header, footer, sidebar or repeated-block links exist",
    ),
    (
        LinkStatus::NotFound,
        "no link: a candidate for a new body link",
    ),
    (
        LinkStatus::NearDuplicate,
        "the two pages are near-duplicates: review them, do not link them",
    ),
];

fn kv(rows: &mut Vec<Vec<Cell>>, k: &str, v: Cell) {
    rows.push(vec![Cell::text(k), v]);
}

/// Pages analysed and excluded, the excluded ones counted by the kind of reason.
fn pages(rows: &mut Vec<Vec<Cell>>, pages: &BTreeMap<u32, Page>) {
    let analysed = pages.values().filter(|p| p.analysed()).count();
    kv(
        rows,
        "Pages analysed (can carry or receive a link)",
        Cell::Int(analysed as i64),
    );
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    for p in pages.values() {
        if let (Err(reason), Err(_)) = (&p.decision.source, &p.decision.destination) {
            *excluded.entry(reason.kind()).or_default() += 1;
        }
    }
    kv(
        rows,
        "Pages excluded",
        Cell::Int(excluded.values().sum::<usize>() as i64),
    );
    let mut by_count: Vec<(String, usize)> = excluded.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (reason, n) in by_count {
        kv(
            rows,
            &format!("    excluded: {reason}"),
            Cell::Int(n as i64),
        );
    }
}

/// Languages and analysed pages per language, when any page's language is known.
fn languages(
    rows: &mut Vec<Vec<Cell>>,
    config: &RunConfig,
    languages: &Languages,
    pages: &BTreeMap<u32, Page>,
) {
    if languages.of.is_empty() {
        return;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (&f, _) in pages.iter().filter(|(_, p)| p.analysed()) {
        *counts.entry(languages.language(f)).or_default() += 1;
    }
    let unknown = counts.remove("").unwrap_or(0);
    kv(rows, "Languages", Cell::Int(counts.len() as i64));
    for (language, n) in &counts {
        kv(
            rows,
            &format!("    pages analysed in {language}"),
            Cell::Int(*n as i64),
        );
    }
    if unknown > 0 {
        kv(
            rows,
            "    pages analysed of unknown language",
            Cell::Int(unknown as i64),
        );
    }
    let how = if !languages.is_multilingual() {
        "one language: every page compared with every other"
    } else if config.cross_language {
        "compared across languages (--cross-language); translations (hreflang alternates) are never suggested"
    } else {
        "compared only within their language (--cross-language compares across); translations (hreflang alternates) are never suggested"
    };
    kv(rows, "Pages of different languages", Cell::text(how));
    if languages.from_urls > 0 {
        kv(
            rows,
            "Languages from URLs",
            Cell::text(format!(
                "the crawl names no language (no Language values, no hreflang codes): {} pages were grouped by the URL part that tells hreflang alternates apart (\"{}\" for the group without one)",
                languages.from_urls,
                crate::languages::UNMARKED
            )),
        );
    }
}

/// Which signal weighs destinations in the Queue's Priority. Said only when the crawl or a
/// list gives one, so a run without either reads as before.
fn importance(rows: &mut Vec<Vec<Cell>>, config: &RunConfig, crawl: Option<&CrawlImportance>) {
    let text = if !config.importance.is_empty() {
        let mut t = format!(
            "from --priority-urls ({} URLs): 0.5 + 0.5 × weight / the largest weight; unlisted pages 0.5",
            config.importance.len()
        );
        if crawl.is_some() {
            t.push_str(" (it wins over the crawl's Search Console / Analytics columns, which the Queue still shows)");
        }
        t
    } else if let Some(c) = crawl {
        c.describe()
    } else {
        return;
    };
    kv(rows, "Destination importance in Priority", Cell::text(text));
}

/// The Queue's size, the neighbour pairs by status and the ten destinations with the most
/// opportunities.
fn queue(rows: &mut Vec<Vec<Cell>>, counts: &Counts, queue: &[QueueRow]) {
    kv(
        rows,
        "Link opportunities in the Queue",
        Cell::Int(queue.len() as i64),
    );
    for (status, n) in &counts.by_status {
        kv(
            rows,
            &format!("    neighbour pairs: {}", status.label()),
            Cell::Int(*n as i64),
        );
    }
    kv(rows, "Top destinations by opportunity count", Cell::Empty);
    for (url, n) in top_destinations(queue, TOP_DESTINATIONS) {
        rows.push(vec![Cell::Url(url.to_string()), Cell::Int(n as i64)]);
    }
}

/// How many destinations the Summary names.
const TOP_DESTINATIONS: usize = 10;

/// The `top` destinations with the most Queue rows, most first, ties by URL.
///
/// Rows are counted by destination page id and the best are kept `top` at a time: a hash
/// probe a row, and a URL compared only against an equal count at the edge of the kept
/// ones. A map keyed by URL and a sort of every destination had taken 7 s on one core for
/// the 5 million rows of a million-page Queue.
fn top_destinations(queue: &[QueueRow], top: usize) -> Vec<(&str, usize)> {
    let mut counts: HashMap<u32, (&str, usize), foldhash::fast::RandomState> = HashMap::default();
    for r in queue {
        let c = &r.candidate;
        counts.entry(c.pages.1).or_insert((&*c.destination, 0)).1 += 1;
    }
    // `Less` when `a` is listed before `b`.
    let before = |a: &(&str, usize), b: &(&str, usize)| b.1.cmp(&a.1).then(a.0.cmp(b.0));
    let mut best: Vec<(&str, usize)> = Vec::with_capacity(top + 1);
    for entry in counts.into_values() {
        if best.len() == top && best.last().is_none_or(|last| before(&entry, last).is_ge()) {
            continue;
        }
        let at = best.partition_point(|kept| before(kept, &entry).is_lt());
        best.insert(at, entry);
        best.truncate(top);
    }
    best
}

pub(in crate::run) fn sheet(s: &SummaryInput<'_>) -> Sheet {
    let config = s.config;
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let title = if config.client.is_empty() {
        "Internal link opportunities".to_string()
    } else {
        format!("Internal link opportunities: {}", config.client)
    };
    kv(&mut rows, &title, Cell::Empty);
    kv(
        &mut rows,
        "Crawl date",
        Cell::text(s.crawl_date.to_string()),
    );
    kv(&mut rows, "Run date", Cell::text(now_utc()));
    pages(&mut rows, s.pages);
    languages(&mut rows, config, s.languages, s.pages);
    queue(&mut rows, s.counts, s.queue);
    kv(&mut rows, "Queue budget", Cell::text(s.budget));
    kv(
        &mut rows,
        "How well the order finds real links",
        Cell::text(s.check),
    );
    kv(&mut rows, "Suggested passages", Cell::text(s.passages));
    importance(&mut rows, config, s.importance);
    if config.previous.is_some() {
        for (k, n) in review::carry_counts(s.queue, s.history) {
            rows.push(vec![Cell::text(k), Cell::Int(n as i64)]);
        }
    }
    kv(&mut rows, "Colours in the Opportunities sheet", Cell::Empty);
    for (status, meaning) in COLOURS {
        rows.push(vec![Cell::Status(status), Cell::text(meaning)]);
    }
    let how_to_read = if s.config.inputs.page_text.is_some() {
        HOW_TO_READ_WITH_PASSAGES
    } else {
        HOW_TO_READ
    };
    kv(&mut rows, "How to read this", Cell::text(how_to_read));
    let mut sheet = Sheet::new(
        "Summary",
        vec![
            Column::wrapped("Item", 55.0),
            Column::wrapped("Value", 90.0),
        ],
    );
    sheet.key_value = true;
    sheet.rows = rows;
    sheet
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::Candidate;

    fn row(destination: u32, url: &str) -> QueueRow {
        let mut candidate = Candidate::example("https://example.com/s", url);
        candidate.pages = (0, destination);
        QueueRow {
            candidate,
            review: None,
        }
    }

    #[test]
    fn top_destinations_are_the_most_proposed_with_ties_by_url() {
        // Page 7 has three rows, pages 1..=5 two each (their URLs out of id order), page 9 one.
        let mut queue = vec![row(7, "https://example.com/g"); 3];
        for (id, url) in [(1, "e"), (2, "c"), (3, "a"), (4, "d"), (5, "b")] {
            queue.extend(vec![row(id, &format!("https://example.com/{url}")); 2]);
        }
        queue.push(row(9, "https://example.com/0"));
        let top = top_destinations(&queue, 4);
        assert_eq!(
            top,
            [
                ("https://example.com/g", 3),
                ("https://example.com/a", 2),
                ("https://example.com/b", 2),
                ("https://example.com/c", 2),
            ]
        );
        // Fewer destinations than asked: all of them, in order.
        assert_eq!(
            top_destinations(&queue[..4], 10),
            [("https://example.com/g", 3), ("https://example.com/e", 1)]
        );
        assert!(top_destinations(&[], 10).is_empty());
    }

    /// The same list as sorting every destination (the rule the Summary had before).
    #[test]
    fn top_destinations_agree_with_a_full_sort() {
        let mut rng = crate::rng::Rng::new(7);
        let queue: Vec<QueueRow> = (0..2_000)
            .map(|_| {
                let d = (rng.next_u64() % 150) as u32;
                // URLs in a different order than ids, so ties are decided by the URL.
                row(d, &format!("https://example.com/{}", (d * 37) % 151))
            })
            .collect();
        let mut all: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &queue {
            *all.entry(&*r.candidate.destination).or_default() += 1;
        }
        let mut sorted: Vec<(&str, usize)> = all.into_iter().collect();
        sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for top in [1, 10, 149, 150, 200] {
            assert_eq!(
                top_destinations(&queue, top),
                sorted[..top.min(sorted.len())]
            );
        }
    }
}
