//! The passage stage as the run needs it: once the Queue's pool is decided, stream the page
//! text (Custom Extraction), build the site's statistics from every page (a fixed sample of
//! them on a large site), keep the blocks of the pool's source pages only, and suggest for
//! each row the block and the words of its source where the link fits ([`crate::passage`]).
//! The first pass keeps the sample's source pages split, so the second splits only the
//! pages outside the sample, and a site within the sample is read once.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::input::Table;
use crate::input::page_text;
use crate::normalize::normalize;
use crate::passage::{self, Block, Prepared, Query, Sample, StatsBuilder, TemplateRules};
use crate::progress::Progress;
use crate::report::Report;
use crate::review::{PassageBlock, Placement, Pooled, SuggestedPassage};

/// What the passage stage did, for the Summary and Run sheets.
pub(super) struct PassageReport {
    /// The page text file and extractor ("from …"), or why there was none.
    pub(super) source: String,
    /// Whether page text was read: only then are the Queue's passages counted.
    pub(super) read: bool,
    /// Queue rows with a suggested passage.
    pub(super) found: usize,
    /// Of those, the rows with a suggested anchor too.
    pub(super) anchored: usize,
    /// Queue rows looked at.
    pub(super) rows: usize,
}

impl PassageReport {
    /// Count the rows of the final Queue that have a passage.
    pub(super) fn count(&mut self, queue: &[Pooled]) {
        if self.read {
            self.rows = queue.len();
            let passages = || {
                queue.iter().filter_map(|c| match &c.placement {
                    Placement::Found(p) => Some(p),
                    _ => None,
                })
            };
            self.found = passages().count();
            self.anchored = passages().filter(|p| p.anchor.is_some()).count();
        }
    }

    /// One sentence.
    pub(super) fn describe(&self) -> String {
        if !self.read {
            return self.source.clone();
        }
        format!(
            "{} of {} Queue rows have a suggested passage ({:.0}%), {} of them a suggested anchor; {}",
            self.found,
            self.rows,
            if self.rows > 0 {
                100.0 * self.found as f64 / self.rows as f64
            } else {
                0.0
            },
            self.anchored,
            self.source
        )
    }
}

/// The page a written URL is, if it is one the run knows. Screaming Frog writes most URLs
/// already in their normal form: one found as written is its own normal form (normalizing
/// is idempotent, tests/it/props.rs), so it skips the parse, which had been 6% of the
/// passage stage (every page text row, in both passes).
fn page_of(crawl: &Crawl, config: &RunConfig, written: &str) -> Option<u32> {
    let id = match crawl.urls.get(written) {
        Some(id) => id,
        None => crawl
            .urls
            .get(&normalize(written, &config.url_rules).ok()?)?,
    };
    Some(crawl.resolved[id as usize].0)
}

/// The page an href written on the page at `base` points at, if it is one the run knows.
/// An href that names, as written, a URL of the crawl's table (absolute, or root-relative
/// on the page's origin) is that page: a key of the table is a normalized URL, which a
/// parse gives back unchanged, so resolving the href would give that key and the slow
/// path's first lookup would find it. Only other hrefs are resolved and normalized:
/// parsing every link of a block about to win a row had been a tenth of pass 2.
fn link_target(crawl: &Crawl, config: &RunConfig, base: &url::Url, href: &str) -> Option<u32> {
    let written = if href.starts_with("https://") || href.starts_with("http://") {
        crawl.urls.get(href)
    } else if href.starts_with('/') && !href.starts_with("//") {
        let origin = &base[..url::Position::BeforePath];
        crawl.urls.get(&[origin, href].concat())
    } else {
        None
    };
    match written {
        Some(id) => Some(crawl.resolved[id as usize].0),
        None => passage::resolve_href(base, href).and_then(|u| page_of(crawl, config, u.as_str())),
    }
}

/// Read the page text and fill each candidate's [`Placement`]; `pages` is how many pages
/// have a vector (the HTML pages, the ones with text: it sizes the statistics' sample).
pub(super) fn suggest(
    config: &RunConfig,
    crawl: &Crawl,
    pages: usize,
    candidates: &mut [Pooled],
    progress: Progress,
    report: &mut Report,
) -> Result<(PassageReport, Option<Anchoring>)> {
    let Some(path) = &config.inputs.page_text else {
        let none = PassageReport {
            source: "no page text given (--page-text, a Custom Extraction export of the main content): the Suggested Passage column is empty".into(),
            read: false,
            found: 0,
            anchored: 0,
            rows: 0,
        };
        return Ok((none, None));
    };
    let table = Table::open(path)
        .with_context(|| format!("reading the page text export {}", path.display()))?;
    // Pass 1: the site's statistics from every page, or from a fixed sample of a large
    // site's pages (keyed by the page's URL). The sampled pages' blocks are kept for pass 2
    // when the pool has rows from them (a fixed number of pages, however large the site),
    // and every row's page is noted, so pass 2 splits no page twice and looks up no URL again.
    let sample = Sample::new(config.text_stats_pages, pages);
    let destinations = Destinations::of(candidates, crawl.urls.len());
    // Each source page's rows together, each with its destination's query (every
    // destination of `candidates` has one): which pages pass 1 keeps, and what pass 2 scores.
    let by_source = BySource::of_pool(candidates, &destinations, crawl.urls.len());
    let is_source = |f: u32| !by_source.of(f as usize).is_empty();
    let phrases = Arc::new(naming_phrases(crawl, &destinations.pages));
    // Every title counts (Internal: All, no text to split), on both cores: the counts add
    // up the same in any order.
    let mut builder = crawl
        .internal
        .as_ref()
        .map_or_else(StatsBuilder::new, |internal| {
            internal
                .urls
                .par_chunks(4096)
                .map(|chunk| {
                    let mut part = StatsBuilder::new();
                    for u in chunk.iter().filter(|u| !u.title.is_empty()) {
                        part.add_title(&u.title);
                    }
                    part
                })
                .reduce(StatsBuilder::new, |mut all, part| {
                    all.merge(part);
                    all
                })
        });
    report.set_ticker(Some(progress.rows("Reading page text")));
    let (mut rows, mut kept_blocks) = (Vec::new(), HashMap::default());
    let (mut kept_bytes, mut dropped) = (0usize, false);
    // Pages are split in parallel, a batch at a time, while the next batch is read; the
    // counts add up the same in any order.
    let read = pipelined(
        |push| {
            page_text::read(&table, None, report, &mut |report, stats, page| {
                let Some(f) = page_of(crawl, config, page.address) else {
                    report.skip(stats, "not a page of the analysis");
                    return;
                };
                rows.push((page.row, address_key(page.address), f));
                // Used either way: an unsampled page's text is read again to be scored.
                report.stats(stats).used += 1;
                if sample.keeps(crawl.urls.url(f)) {
                    let address = if is_source(f) {
                        page.address.to_string()
                    } else {
                        String::new()
                    };
                    push(
                        (f, address, page.text.to_string(), page.format),
                        page.text.len(),
                    );
                }
            })
            .with_context(|| format!("reading {}", table.name()))
        },
        |batch: Vec<(u32, String, String, page_text::TextFormat)>| {
            let parts: Vec<(StatsBuilder, Vec<KeptPage>)> = batch
                .into_par_iter()
                .chunks(64)
                .map(|chunk| {
                    let mut part = StatsBuilder::counting(phrases.clone());
                    let mut kept = Vec::new();
                    for (f, address, text, format) in chunk {
                        let blocks = passage::split(&text, format);
                        part.add_page(&blocks);
                        if is_source(f) {
                            kept.push((f, address, blocks));
                        }
                    }
                    (part, kept)
                })
                .collect();
            for (part, kept) in parts {
                builder.merge(part);
                for (f, address, blocks) in kept {
                    // Within a bound: a site within the sample may still be gigabytes.
                    if kept_bytes >= KEPT_BYTES {
                        dropped = true;
                        continue;
                    }
                    kept_bytes += held_bytes(&blocks);
                    // A page's first row, as pass 2 takes it.
                    kept_blocks.entry(f).or_insert((address, blocks));
                }
            }
        },
    )?;
    let known = Known {
        rows,
        blocks: kept_blocks,
        complete: !sample.is_partial() && !dropped,
    };
    report.set_ticker(None);
    let stats = builder.finish(&sample.template_rules(TemplateRules {
        share: config.link_rules.template_share,
        min_pages: config.link_rules.template_min_pages,
    }));
    // Pass 2: each source page's rows are scored as its text streams by, so only a batch of
    // pages is ever held, and each page is split into words once for all its rows.
    let queries = Queries::build(crawl, destinations, &stats);
    let (found, queries) = place_all(
        config,
        crawl,
        (&table, known, &by_source),
        candidates,
        queries,
        &stats,
        progress,
    )?;
    let statistics = if sample.is_partial() {
        format!(
            "word and template statistics from a fixed sample of {} pages",
            stats.pages
        )
    } else {
        "word and template statistics from every page".to_string()
    };
    let passages = PassageReport {
        source: format!(
            "from {} (extractor \"{}\", {} pages with text, {statistics}, {} template blocks)",
            table.name(),
            read.extractor,
            read.pages,
            stats.template_blocks()
        ),
        read: true,
        found,
        // Counted on the final Queue, once the anchors are chosen (`count`).
        anchored: 0,
        rows: candidates.len(),
    };
    Ok((passages, Some(Anchoring { queries, stats })))
}

/// What names each of the pool's destinations (its title and H1, whole and in parts, and the
/// anchors other pages use for it): the phrases whose link rate the statistics count, for
/// the anchor choice ([`passage::Phrases`]).
fn naming_phrases(crawl: &Crawl, destinations: &[u32]) -> passage::Phrases {
    // Each destination's phrases are worked out on both cores (a large pool has a hundred
    // thousand destinations, each with its anchors), then gathered into one set.
    let keys: Vec<passage::PhraseKey> = destinations
        .par_iter()
        .flat_map_iter(|&d| {
            let mut keys = Vec::new();
            for text in internal_row(crawl, d)
                .into_iter()
                .flat_map(|u| [&u.title, &u.h1])
            {
                keys.extend(passage::PhraseKey::of(text));
                for part in passage::text::title_parts(text) {
                    keys.extend(passage::PhraseKey::of(&part));
                }
            }
            for (anchor, _) in crawl.links.anchors.get(&d).into_iter().flatten() {
                keys.extend(passage::PhraseKey::of(anchor));
            }
            keys
        })
        .collect();
    let mut phrases = passage::Phrases::default();
    for key in keys {
        phrases.insert(key);
    }
    phrases
}

/// What the passage stage keeps for the anchors: each destination's query and the site's
/// statistics. The anchor does not count in the priority, so it is chosen only for the rows
/// the budget keeps (a quarter of the pool, or less).
pub(super) struct Anchoring {
    queries: Queries,
    stats: passage::SiteStats,
}

impl Anchoring {
    /// Choose the suggested anchor in the passage of each of `kept`, on every core. Chosen
    /// one row at a time as the Queue was written, on the thread building its rows, the
    /// anchors had sat on the write stage's longest path (4–8 s of the 100,000-page run).
    pub(super) fn choose_all(self, kept: &mut [Pooled]) {
        kept.par_iter_mut()
            .for_each_init(passage::AnchorScratch::default, |scratch, c| {
                if let (Placement::Found(p), Some(query)) =
                    (&mut c.placement, self.queries.get(c.pages.1))
                {
                    p.anchor = query.anchor_in(scratch, &p.block.text, &p.block.links, &self.stats);
                }
            });
    }
}

/// Page `d`'s Internal: All row, if it was crawled.
fn internal_row(crawl: &Crawl, d: u32) -> Option<&crate::input::internal::CrawledUrl> {
    crawl
        .internal
        .as_ref()
        .and_then(|i| crawl.crawled.get(&d).map(|&r| &i.urls[r]))
}

/// The query for destination `d`, from what the crawl says names it: its title, H1 and
/// the anchors other pages use.
fn query(crawl: &Crawl, d: u32, stats: &passage::SiteStats) -> Query {
    let row = internal_row(crawl, d);
    Query::of(
        row.map_or("", |u| u.title.as_str()),
        row.map_or("", |u| u.h1.as_str()),
        crawl.links.anchors.get(&d).map_or(&[], Vec::as_slice),
        stats,
    )
}

/// What pass 1 learnt that pass 2 needs again: each row's page, and the blocks of the
/// sampled pages the pool has rows from.
struct Known {
    /// (spreadsheet row, [`address_key`] of its Address, page), for the rows of pages of
    /// the analysis, in file order.
    rows: Vec<(u64, u64, u32)>,
    /// The Address and blocks of the sampled source pages (each page's first row).
    blocks: HashMap<u32, (String, Vec<Block>), foldhash::fast::RandomState>,
    /// Every page was sampled: a source page without kept blocks has no text.
    complete: bool,
}

impl Known {
    /// The page of row `row` (its Address `address`) as pass 1 found it; `cursor` walks
    /// `rows` as the same file is read again in the same order. `None` when pass 1 noted
    /// no page for that row, or the row is not the one it read (the file changed since).
    fn page(&self, cursor: &mut usize, row: u64, address: &str) -> Option<u32> {
        while self.rows.get(*cursor).is_some_and(|r| r.0 < row) {
            *cursor += 1;
        }
        let &(at, key, f) = self.rows.get(*cursor)?;
        (at == row && key == address_key(address)).then_some(f)
    }
}

/// A row's Address as pass 2 checks it against pass 1: a hash (the same in both passes of
/// a run), so the check reads no URL of the crawl's table (a cache miss per row).
fn address_key(address: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(address)
}

/// Text pass 1 keeps for pass 2 at most, in bytes of block text: the sample is a fixed
/// number of pages, but pages can be long. Past it, pass 2 reads the rest again.
const KEPT_BYTES: usize = 256 << 20;

/// The bytes of text `blocks` hold (their own, and their context's).
fn held_bytes(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .map(|b| b.text.len() + b.context.as_ref().map_or(0, |c| c.text.len()))
        .sum()
}

/// A sampled source page as pass 1 keeps it: its page id, Address and blocks.
type KeptPage = (u32, String, Vec<Block>);

/// A source page's blocks for pass 2: still to split, or kept from pass 1.
enum PageBlocks {
    Text(String, page_text::TextFormat),
    Kept(Vec<Block>),
}

/// A batch of pages worked on in parallel: at most so many pages, or so many bytes of text.
const BATCH_PAGES: usize = 2048;
/// See [`BATCH_PAGES`]; three batches are held at once (one read, one waiting, one worked).
const BATCH_BYTES: usize = 32 << 20;

/// Run `read`, which hands pages to its `push` (with their bytes of text), on this thread, while a second thread hands
/// the batches already read to `work` (which spreads each over the rayon pool): with two
/// cores, tokenizing the CSV and splitting the HTML overlap instead of taking turns.
/// Batches reach `work` in the order they were read.
fn pipelined<T: Send, R>(
    read: impl FnOnce(&mut dyn FnMut(T, usize)) -> Result<R>,
    mut work: impl FnMut(Vec<T>) + Send,
) -> Result<R> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<T>>(1);
        let worker = scope.spawn(move || {
            for batch in rx {
                work(batch);
            }
        });
        let mut batch = Vec::new();
        let mut bytes = 0;
        let result = read(&mut |item: T, size: usize| {
            bytes += size;
            batch.push(item);
            if batch.len() >= BATCH_PAGES || bytes >= BATCH_BYTES {
                bytes = 0;
                // Sending fails only if the worker panicked; the join below re-raises that.
                let _ = tx.send(std::mem::take(&mut batch));
            }
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

/// The pool's destination pages, each once, in the order the candidates first reach them,
/// with a page id → index array: millions of pooled rows each reach a destination's query,
/// and a hash probe per row (two with the look-ahead of [`Query::touch`]) missed the cache
/// at every row.
struct Destinations {
    /// Page id → index into `pages` ([`Queries::NONE`] for a page no row reaches).
    index_of: Vec<u32>,
    /// The destination pages.
    pages: Vec<u32>,
}

impl Destinations {
    /// The destinations of `candidates`, whose page ids are below `pages`.
    fn of(candidates: &[Pooled], pages: usize) -> Self {
        let (index_of, pages) = first_seen(candidates.iter().map(|c| c.pages.1), pages);
        Destinations { index_of, pages }
    }

    /// Destination `d`'s index, if a row reaches it.
    fn index(&self, d: u32) -> Option<usize> {
        self.index_of
            .get(d as usize)
            .filter(|&&k| k != Queries::NONE)
            .map(|&k| k as usize)
    }
}

/// Each pooled destination's query, by the destination's index in [`Destinations`].
pub(super) struct Queries {
    destinations: Destinations,
    built: Vec<Query>,
}

impl Queries {
    const NONE: u32 = u32::MAX;

    /// One query per destination (built on both cores: a destination's title and anchors
    /// are split into phrases).
    fn build(crawl: &Crawl, destinations: Destinations, stats: &passage::SiteStats) -> Self {
        let built = destinations
            .pages
            .par_iter()
            .map(|&d| query(crawl, d, stats))
            .collect();
        Queries {
            destinations,
            built,
        }
    }

    /// Destination `d`'s query, if a row reaches it.
    fn get(&self, d: u32) -> Option<&Query> {
        self.destinations.index(d).map(|k| &self.built[k])
    }
}

/// A dense index of the ids (all below `pages`) in the order they are first seen: id →
/// index ([`Queries::NONE`] for an id never seen), and the ids by index.
fn first_seen(ids: impl Iterator<Item = u32>, pages: usize) -> (Vec<u32>, Vec<u32>) {
    let mut index_of = vec![Queries::NONE; pages];
    let mut seen: Vec<u32> = Vec::new();
    for id in ids {
        let k = &mut index_of[id as usize];
        if *k == Queries::NONE {
            *k = u32::try_from(seen.len()).unwrap_or(Queries::NONE);
            seen.push(id);
        }
    }
    (index_of, seen)
}

/// The pooled rows grouped by source page (a counting sort by page id, candidate order kept
/// within a page), each with its destination's dense index in [`Queries`].
struct BySource {
    /// Page id → where its rows start in `rows` (and, last, where they end).
    starts: Vec<usize>,
    /// (candidate index, destination's query index).
    rows: Vec<(usize, usize)>,
}

impl BySource {
    /// The pool's rows by source page (ids below `pages`), each with its destination's index.
    fn of_pool(candidates: &[Pooled], destinations: &Destinations, pages: usize) -> Self {
        let rows: Vec<(u32, usize)> = candidates
            .iter()
            .map(|c| (c.pages.0, destinations.index(c.pages.1).unwrap_or(0)))
            .collect();
        BySource::build(&rows, pages)
    }

    /// Group `rows` (each a source page id below `pages` and what to keep for the row), row
    /// `i` of the input kept as candidate index `i`.
    fn build(rows: &[(u32, usize)], pages: usize) -> Self {
        let mut starts = vec![0usize; pages + 1];
        for &(s, _) in rows {
            starts[s as usize + 1] += 1;
        }
        for p in 0..pages {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        let mut grouped = vec![(0, 0); rows.len()];
        for (i, &(s, kept)) in rows.iter().enumerate() {
            let at = &mut next[s as usize];
            grouped[*at] = (i, kept);
            *at += 1;
        }
        BySource {
            starts,
            rows: grouped,
        }
    }

    /// Page `s`'s rows (none for a page id out of range).
    fn of(&self, s: usize) -> &[(usize, usize)] {
        match (self.starts.get(s), self.starts.get(s + 1)) {
            (Some(&a), Some(&b)) => &self.rows[a..b],
            _ => &[],
        }
    }
}

/// Suggest a place for every candidate, reading the page text a second time; returns how
/// many got one.
fn place_all(
    config: &RunConfig,
    crawl: &Crawl,
    (table, mut known, by_source): (&Table, Known, &BySource),
    candidates: &mut [Pooled],
    queries: Queries,
    stats: &passage::SiteStats,
    progress: Progress,
) -> Result<(usize, Queries)> {
    let pages = crawl.urls.len();
    let mut placed: Vec<(usize, Placement)> = Vec::new();
    // Pages are split into blocks on the workers, with their scoring, while the reading
    // thread tokenizes the next batch of the CSV.
    // A second read of the same file: its rows were accounted for in pass 1.
    let mut scratch = Report::new();
    scratch.set_ticker(Some(progress.rows("Suggesting passages")));
    let mut done = vec![false; pages];
    let work = |batch: Vec<(u32, String, PageBlocks)>| -> Vec<(usize, Placement)> {
        let scored: Vec<Vec<(usize, Placement)>> = batch
            .into_par_iter()
            .map(|(s, address, page)| {
                let blocks = match page {
                    PageBlocks::Text(text, format) => passage::split(&text, format),
                    PageBlocks::Kept(blocks) => blocks,
                };
                place_page(
                    config,
                    crawl,
                    &queries,
                    stats,
                    &address,
                    &blocks,
                    by_source.of(s as usize),
                )
            })
            .collect();
        scored.into_iter().flatten().collect()
    };
    let mut kept = std::mem::take(&mut known.blocks);
    if known.complete {
        // Pass 1 split every page: the file need not be read again.
        let batch: Vec<(u32, String, PageBlocks)> = kept
            .drain()
            .filter(|(f, _)| !by_source.of(*f as usize).is_empty())
            .map(|(f, (address, blocks))| {
                done[f as usize] = true;
                (f, address, PageBlocks::Kept(blocks))
            })
            .collect();
        placed = work(batch);
    } else {
        let mut cursor = 0;
        pipelined(
            |push| {
                page_text::read(table, None, &mut scratch, &mut |_, _, page| {
                    let Some(f) = known
                        .page(&mut cursor, page.row, page.address)
                        .or_else(|| page_of(crawl, config, page.address))
                    else {
                        return;
                    };
                    if by_source.of(f as usize).is_empty()
                        || std::mem::replace(&mut done[f as usize], true)
                    {
                        return;
                    }
                    let item = match kept.remove(&f) {
                        Some((address, blocks)) => (f, address, PageBlocks::Kept(blocks)),
                        None => (
                            f,
                            page.address.to_string(),
                            PageBlocks::Text(page.text.to_string(), page.format),
                        ),
                    };
                    push(item, page.text.len());
                })
                .with_context(|| format!("reading {}", table.name()))
            },
            |batch| placed.extend(work(batch)),
        )?;
    }
    scratch.set_ticker(None);
    for (s, &read) in done.iter().enumerate() {
        if !read {
            for &(i, _) in by_source.of(s) {
                candidates[i].placement = Placement::NoText;
            }
        }
    }
    let mut found = 0;
    for (i, p) in placed {
        found += usize::from(matches!(p, Placement::Found(_)));
        candidates[i].placement = p;
    }
    Ok((found, queries))
}

/// The placements of one source page's rows (`rows`: candidate index and the index of its
/// destination's query in `queries`).
fn place_page(
    config: &RunConfig,
    crawl: &Crawl,
    queries: &Queries,
    stats: &passage::SiteStats,
    address: &str,
    blocks: &[Block],
    rows: &[(usize, usize)],
) -> Vec<(usize, Placement)> {
    // Only the words the page's rows look up are indexed.
    let wanted = passage::Wanted::of(rows.iter().map(|&(_, d)| &queries.built[d]));
    let page = Prepared::for_queries(blocks, stats, &wanted);
    // Where each block's links point, resolved once for all the page's rows, and only for a
    // block that would win a row (resolving every link of a hub page was a tenth of the
    // stage). A template block is a place only where it lacks a link the site's other copies
    // carry (`passage::Query::place`), so its links are seldom resolved.
    let base = url::Url::parse(address).ok();
    let targets: Vec<std::cell::OnceCell<Vec<u32>>> =
        vec![std::cell::OnceCell::new(); blocks.len()];
    let targets_of = |b: usize| {
        targets[b].get_or_init(|| {
            blocks[b]
                .links
                .iter()
                .filter_map(|l| {
                    base.as_ref()
                        .and_then(|u| link_target(crawl, config, u, &l.href))
                })
                .collect()
        })
    };
    // A page's rows often choose the same block: its text is held once for all of them
    // (the pool is 4 to 16 times the Queue, so this is most of the stage's memory).
    let mut shared: Vec<Option<Arc<PassageBlock>>> = vec![None; blocks.len()];
    rows.iter()
        .enumerate()
        .map(|(k, &(i, d))| {
            if let Some(&(_, next)) = rows.get(k + 2) {
                queries.built[next].touch_fields();
            }
            if let Some(&(_, next)) = rows.get(k + 1) {
                queries.built[next].touch();
            }
            let destination = queries.destinations.pages[d];
            let links_to = |b: usize| targets_of(b).contains(&destination);
            let placement = match queries.built[d].place(&page, &links_to) {
                Ok((b, strength)) => {
                    let block = shared[b]
                        .get_or_insert_with(|| {
                            let block = &blocks[b];
                            Arc::new(PassageBlock {
                                text: block.text.as_str().into(),
                                links: block.links.iter().map(|l| l.range.clone()).collect(),
                                context: block.context.clone(),
                            })
                        })
                        .clone();
                    Placement::Found(Box::new(SuggestedPassage {
                        block,
                        anchor: None,
                        strength,
                    }))
                }
                Err(passage::NoPlace::NoText) => Placement::NoText,
                Err(why) => Placement::NoPlace(why),
            };
            (i, placement)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_the_passages_and_their_anchors_on_the_final_queue() {
        let row = |placement| Pooled {
            pages: (1, 2),
            proposal: 0,
            score: 0.5,
            destination_inlinks: 0,
            importance: 1.0,
            placement,
        };
        let found = |anchor| {
            Placement::Found(Box::new(SuggestedPassage {
                block: Arc::new(PassageBlock {
                    text: "see the index".into(),
                    links: Box::new([]),
                    context: None,
                }),
                anchor,
                strength: 0.8,
            }))
        };
        let queue = [
            row(found(Some(8..13))),
            row(found(None)),
            row(Placement::NoText),
            row(found(Some(0..3))),
        ];
        let mut report = PassageReport {
            source: "from page text".into(),
            read: true,
            found: 0,
            anchored: 0,
            rows: 0,
        };
        report.count(&queue);
        assert_eq!((report.rows, report.found, report.anchored), (4, 3, 2));
        assert_eq!(
            report.describe(),
            "3 of 4 Queue rows have a suggested passage (75%), 2 of them a suggested anchor; from page text"
        );
    }

    #[test]
    fn ids_are_indexed_in_the_order_first_seen() {
        let (index_of, seen) = first_seen([5, 2, 5, 0, 2].into_iter(), 7);
        assert_eq!(seen, [5, 2, 0]);
        assert_eq!(
            index_of,
            [
                2,
                Queries::NONE,
                1,
                Queries::NONE,
                Queries::NONE,
                0,
                Queries::NONE
            ]
        );
    }

    #[test]
    fn pass_two_finds_each_rows_page_as_pass_one_noted_it() {
        // Rows 2, 3 and 5 were pages 7, 8 and 9 in pass 1; row 4 was no page of the analysis.
        let known = Known {
            rows: vec![
                (2, address_key("https://a/"), 7),
                (3, address_key("https://b/"), 8),
                (5, address_key("https://c/"), 9),
            ],
            blocks: HashMap::default(),
            complete: false,
        };
        let mut cursor = 0;
        assert_eq!(known.page(&mut cursor, 2, "https://a/"), Some(7));
        assert_eq!(known.page(&mut cursor, 3, "https://b/"), Some(8));
        // A row pass 1 noted no page for, then a row whose Address changed since pass 1:
        // neither is taken from the notes (the caller looks the URL up).
        assert_eq!(known.page(&mut cursor, 4, "https://x/"), None);
        assert_eq!(known.page(&mut cursor, 5, "https://changed/"), None);
        // Past the notes: nothing, and no panic.
        assert_eq!(known.page(&mut cursor, 6, "https://d/"), None);
        assert_eq!(known.page(&mut cursor, 7, "https://d/"), None);
        // A fresh cursor may skip rows (a page pass 2 has no use for is never asked about).
        let mut cursor = 0;
        assert_eq!(known.page(&mut cursor, 5, "https://c/"), Some(9));
    }

    #[test]
    fn rows_are_grouped_by_source_in_input_order() {
        // (source page, destination's query) for rows 0..6.
        let rows = [(3, 10), (1, 11), (3, 12), (0, 13), (1, 14), (3, 15)];
        let by = BySource::build(&rows, 5);
        assert_eq!(by.of(0), [(3, 13)]);
        assert_eq!(by.of(1), [(1, 11), (4, 14)]);
        assert!(by.of(2).is_empty());
        assert_eq!(by.of(3), [(0, 10), (2, 12), (5, 15)]);
        assert!(by.of(4).is_empty());
        // Out of range: no rows, no panic.
        assert!(by.of(5).is_empty());
        assert!(by.of(u32::MAX as usize).is_empty());
    }

    #[test]
    fn pipelined_batches_arrive_whole_and_in_order() {
        // 5,000 pages of 10 KiB: batches close at 2,048 pages or at 32 MiB, whichever first.
        let text = "x".repeat(10 << 10);
        let mut seen: Vec<(String, page_text::TextFormat)> = Vec::new();
        let mut sizes = Vec::new();
        let pages = pipelined(
            |push| {
                for i in 0..5_000 {
                    let page = format!("{i}{text}");
                    let size = page.len();
                    push((page, page_text::TextFormat::Plain), size);
                }
                Ok(5_000)
            },
            |batch| {
                sizes.push(batch.len());
                seen.extend(batch);
            },
        )
        .unwrap();
        assert_eq!(pages, 5_000);
        assert_eq!(sizes, [2048, 2048, 904]);
        assert!(
            seen.iter()
                .enumerate()
                .all(|(i, (t, _))| t.starts_with(&format!("{i}x")))
        );
        // Large pages close a batch by bytes: 1 MiB each, 32 to a batch.
        let big = "y".repeat(1 << 20);
        let mut sizes = Vec::new();
        pipelined(
            |push| {
                for _ in 0..40 {
                    push((big.clone(), page_text::TextFormat::Plain), big.len());
                }
                Ok(())
            },
            |batch| sizes.push(batch.len()),
        )
        .unwrap();
        assert_eq!(sizes, [32, 8]);
    }

    #[test]
    fn a_read_error_comes_back_after_the_batches_before_it() {
        let mut got = 0;
        let result: Result<()> = pipelined(
            |push| {
                push((String::from("a"), page_text::TextFormat::Plain), 1);
                anyhow::bail!("row 2: bad")
            },
            |batch: Vec<(String, page_text::TextFormat)>| got += batch.len(),
        );
        assert_eq!(result.unwrap_err().to_string(), "row 2: bad");
        assert_eq!(got, 1);
    }
}
