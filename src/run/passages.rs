//! The passage stage as the run needs it: once the Queue's pool is decided, stream the page
//! text (Custom Extraction), build the site's statistics from every page (a fixed sample of
//! them on a large site), keep the blocks of the pool's source pages only, and suggest for
//! each row the block and the words of its source where the link fits ([`crate::passage`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::input::Table;
use crate::input::page_text;
use crate::normalize::normalize;
use crate::passage::{self, Block, Prepared, Query, Sample, StatsBuilder, Target, TemplateRules};
use crate::progress::Progress;
use crate::report::Report;
use crate::review::{Candidate, PassageBlock, Placement, SuggestedPassage};

/// Maps and sets keyed by page id, probed once or more for each of the pool's millions of
/// rows: foldhash (already in the tree, as in the links module), not the standard
/// library's default hasher.
type PageMap<V> = HashMap<u32, V, foldhash::fast::RandomState>;
type PageSet = HashSet<u32, foldhash::fast::RandomState>;

/// What the passage stage did, for the Summary and Run sheets.
pub(super) struct PassageReport {
    /// The page text file and extractor ("from …"), or why there was none.
    pub(super) source: String,
    /// Whether page text was read: only then are the Queue's passages counted.
    pub(super) read: bool,
    /// Queue rows with a suggested passage.
    pub(super) found: usize,
    /// Queue rows looked at.
    pub(super) rows: usize,
}

impl PassageReport {
    /// Count the rows of the final Queue that have a passage.
    pub(super) fn count(&mut self, queue: &[Candidate]) {
        if self.read {
            self.rows = queue.len();
            self.found = queue
                .iter()
                .filter(|c| matches!(c.placement, Placement::Found(_)))
                .count();
        }
    }

    /// One sentence.
    pub(super) fn describe(&self) -> String {
        if !self.read {
            return self.source.clone();
        }
        format!(
            "{} of {} Queue rows have a suggested passage ({:.0}%); {}",
            self.found,
            self.rows,
            if self.rows > 0 {
                100.0 * self.found as f64 / self.rows as f64
            } else {
                0.0
            },
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

/// Read the page text and fill each candidate's [`Placement`]; `pages` is how many pages
/// have a vector (the HTML pages, the ones with text: it sizes the statistics' sample).
pub(super) fn suggest(
    config: &RunConfig,
    crawl: &Crawl,
    pages: usize,
    candidates: &mut [Candidate],
    progress: Progress,
    report: &mut Report,
) -> Result<(PassageReport, Option<Anchoring>)> {
    let Some(path) = &config.inputs.page_text else {
        let none = PassageReport {
            source: "no page text given (--page-text, a Custom Extraction export of the main content): the Suggested Passage column is empty".into(),
            read: false,
            found: 0,
            rows: 0,
        };
        return Ok((none, None));
    };
    let table = Table::open(path)
        .with_context(|| format!("reading the page text export {}", path.display()))?;
    // Pass 1: the site's statistics from every page, or from a fixed sample of a large
    // site's pages (keyed by the page's URL); no page's blocks are kept.
    let sample = Sample::new(config.text_stats_pages, pages);
    let phrases = Arc::new(naming_phrases(crawl, candidates));
    let mut builder = StatsBuilder::new();
    if let Some(internal) = &crawl.internal {
        for u in &internal.urls {
            if !u.title.is_empty() {
                builder.add_title(&u.title);
            }
        }
    }
    report.set_ticker(Some(progress.rows("Reading page text")));
    // Pages are split in parallel, a batch at a time, while the next batch is read; the
    // counts add up the same in any order.
    let read = pipelined(
        |push| {
            page_text::read(&table, None, report, &mut |report, stats, page| {
                let Some(f) = page_of(crawl, config, page.address) else {
                    report.skip(stats, "not a page of the analysis");
                    return;
                };
                // Used either way: an unsampled page's text is read again to be scored.
                report.stats(stats).used += 1;
                if sample.keeps(crawl.urls.url(f)) {
                    push((page.text.to_string(), page.format), page.text.len());
                }
            })
            .with_context(|| format!("reading {}", table.name()))
        },
        |batch: Vec<(String, page_text::TextFormat)>| {
            let parts: Vec<StatsBuilder> = batch
                .par_chunks(64)
                .map(|chunk| {
                    let mut part = StatsBuilder::counting(phrases.clone());
                    for (text, format) in chunk {
                        part.add_page(&passage::split(text, *format));
                    }
                    part
                })
                .collect();
            for part in parts {
                builder.merge(part);
            }
        },
    )?;
    report.set_ticker(None);
    let stats = builder.finish(&sample.template_rules(TemplateRules {
        share: config.link_rules.template_share,
        min_pages: config.link_rules.template_min_pages,
    }));
    // Pass 2: each source page's rows are scored as its text streams by, so only a batch of
    // pages is ever held, and each page is split into words once for all its rows.
    let (found, queries) = place_all(config, crawl, &table, candidates, &stats, progress)?;
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
        rows: candidates.len(),
    };
    Ok((passages, Some(Anchoring { queries, stats })))
}

/// What names each of the pool's destinations (its title and H1, whole and in parts, and the
/// anchors other pages use for it): the phrases whose link rate the statistics count, for
/// the anchor choice ([`passage::Phrases`]).
fn naming_phrases(crawl: &Crawl, candidates: &[Candidate]) -> passage::Phrases {
    let destinations: PageSet = candidates.iter().map(|c| c.pages.1).collect();
    // Each destination's phrases are worked out on both cores (a large pool has a hundred
    // thousand destinations, each with its anchors), then gathered into one set.
    let keys: Vec<passage::PhraseKey> = destinations
        .into_par_iter()
        .flat_map_iter(|d| {
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
    queries: PageMap<Query>,
    stats: passage::SiteStats,
}

impl Anchoring {
    /// Choose the suggested anchor in the passage of each of `kept`, on every core. Chosen
    /// one row at a time as the Queue was written, on the thread building its rows, the
    /// anchors had sat on the write stage's longest path (4–8 s of the 100,000-page run).
    pub(super) fn choose_all(self, kept: &mut [Candidate]) {
        kept.par_iter_mut()
            .for_each_init(passage::AnchorScratch::default, |scratch, c| {
                if let (Placement::Found(p), Some(query)) =
                    (&mut c.placement, self.queries.get(&c.pages.1))
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

/// What the crawl says names a destination: its title, H1 and the anchors other pages use.
fn target(crawl: &Crawl, d: u32) -> Target {
    let row = internal_row(crawl, d);
    Target {
        title: row.map(|u| u.title.clone()).unwrap_or_default(),
        h1: row.map(|u| u.h1.clone()).unwrap_or_default(),
        anchors: crawl.links.anchors.get(&d).cloned().unwrap_or_default(),
    }
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

/// Suggest a place for every candidate, reading the page text a second time; returns how
/// many got one.
fn place_all(
    config: &RunConfig,
    crawl: &Crawl,
    table: &Table,
    candidates: &mut [Candidate],
    stats: &passage::SiteStats,
    progress: Progress,
) -> Result<(usize, PageMap<Query>)> {
    // One query per destination, shared by its rows (built on both cores: a destination's
    // title and anchors are split into phrases); each source page's rows by index.
    let mut rows_of: PageMap<Vec<(usize, u32)>> = PageMap::default();
    let mut destinations: PageSet = PageSet::default();
    for (i, c) in candidates.iter().enumerate() {
        let (s, d) = c.pages;
        destinations.insert(d);
        rows_of.entry(s).or_default().push((i, d));
    }
    let queries: PageMap<Query> = destinations
        .into_par_iter()
        .map(|d| (d, Query::new(&target(crawl, d), stats)))
        .collect();
    let mut placed: Vec<(usize, Placement)> = Vec::new();
    // Pages are split into blocks on the workers, with their scoring, while the reading
    // thread tokenizes the next batch of the CSV.
    // A second read of the same file: its rows were accounted for in pass 1.
    let mut scratch = Report::new();
    scratch.set_ticker(Some(progress.rows("Suggesting passages")));
    let mut done: PageSet = PageSet::default();
    pipelined(
        |push| {
            page_text::read(table, None, &mut scratch, &mut |_, _, page| {
                let Some(f) = page_of(crawl, config, page.address) else {
                    return;
                };
                if !rows_of.contains_key(&f) || !done.insert(f) {
                    return;
                }
                let item = (
                    f,
                    page.address.to_string(),
                    page.text.to_string(),
                    page.format,
                );
                push(item, page.text.len());
            })
            .with_context(|| format!("reading {}", table.name()))
        },
        |batch: Vec<(u32, String, String, page_text::TextFormat)>| {
            let scored: Vec<Vec<(usize, Placement)>> = batch
                .par_iter()
                .map(|(s, address, text, format)| {
                    let blocks = passage::split(text, *format);
                    place_page(
                        config,
                        crawl,
                        &queries,
                        stats,
                        address,
                        &blocks,
                        &rows_of[s],
                    )
                })
                .collect();
            placed.extend(scored.into_iter().flatten());
        },
    )?;
    scratch.set_ticker(None);
    for (s, rows) in &rows_of {
        if !done.contains(s) {
            for &(i, _) in rows {
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

/// The placements of one source page's rows (`rows`: candidate index and destination).
fn place_page(
    config: &RunConfig,
    crawl: &Crawl,
    queries: &PageMap<Query>,
    stats: &passage::SiteStats,
    address: &str,
    blocks: &[Block],
    rows: &[(usize, u32)],
) -> Vec<(usize, Placement)> {
    let page = Prepared::new(blocks, stats);
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
                        .and_then(|u| passage::resolve_href(u, &l.href))
                        .and_then(|u| page_of(crawl, config, u.as_str()))
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
            if let Some(&(_, next)) = rows.get(k + 1) {
                queries[&next].touch();
            }
            let links_to = |b: usize| targets_of(b).contains(&d);
            let placement = match queries[&d].place(&page, &links_to) {
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
