//! The passage stage as the run needs it: once the Queue is decided, stream the page text
//! (Custom Extraction), build the site's statistics from every page, keep the blocks of the
//! Queue's source pages only, and suggest for each Queue row the block and the words of its
//! source where the link fits ([`crate::passage`]).

use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::input::Table;
use crate::input::page_text;
use crate::normalize::normalize;
use crate::passage::{self, Block, Prepared, Query, StatsBuilder, Target, TemplateRules};
use crate::progress::Progress;
use crate::report::Report;
use crate::review::{Candidate, Placement, SuggestedPassage};

/// What the passage stage did, for the Summary and Run sheets.
pub(super) struct PassageReport {
    /// The page text file and extractor, or why there was none.
    pub(super) source: String,
    /// Queue rows with a suggested passage.
    pub(super) found: usize,
    /// Queue rows looked at.
    pub(super) rows: usize,
}

impl PassageReport {
    /// Count the rows of the final Queue that have a passage.
    pub(super) fn count(&mut self, queue: &[Candidate]) {
        if self.source.starts_with("from ") {
            self.rows = queue.len();
            self.found = queue
                .iter()
                .filter(|c| matches!(c.placement, Placement::Found(_)))
                .count();
        }
    }

    /// One sentence.
    pub(super) fn describe(&self) -> String {
        if self.rows == 0 && self.found == 0 && !self.source.starts_with("from ") {
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

/// The page a written URL is, if it is one the run knows.
fn page_of(crawl: &Crawl, config: &RunConfig, written: &str) -> Option<u32> {
    let n = normalize(written, &config.url_rules).ok()?;
    crawl.urls.get(&n).map(|id| crawl.resolved[id as usize].0)
}

/// Read the page text and fill each candidate's [`Placement`].
pub(super) fn suggest(
    config: &RunConfig,
    crawl: &Crawl,
    candidates: &mut [Candidate],
    progress: Progress,
    report: &mut Report,
) -> Result<PassageReport> {
    let Some(path) = &config.inputs.page_text else {
        return Ok(PassageReport {
            source: "no page text given (--page-text, a Custom Extraction export of the main content): the Suggested Passage column is empty".into(),
            found: 0,
            rows: 0,
        });
    };
    let table = Table::open(path)
        .with_context(|| format!("reading the page text export {}", path.display()))?;
    // Pass 1: the site's statistics from every page; no page's blocks are kept.
    let mut builder = StatsBuilder::new();
    if let Some(internal) = &crawl.internal {
        for u in &internal.urls {
            if !u.title.is_empty() {
                builder.add_title(&u.title);
            }
        }
    }
    report.set_ticker(Some(progress.rows("Reading page text")));
    // Pages are split in parallel, a batch at a time; the counts add up the same in any order.
    let mut batch: Vec<(String, page_text::TextFormat)> = Vec::new();
    let add_batch = |builder: &mut StatsBuilder,
                     batch: &mut Vec<(String, page_text::TextFormat)>| {
        let parts: Vec<StatsBuilder> = batch
            .par_chunks(64)
            .map(|chunk| {
                let mut part = StatsBuilder::new();
                for (text, format) in chunk {
                    part.add_page(&passage::split(text, *format));
                }
                part
            })
            .collect();
        for part in parts {
            builder.merge(part);
        }
        batch.clear();
    };
    let read = page_text::read(&table, None, report, &mut |report, stats, page| {
        if page_of(crawl, config, page.address).is_none() {
            report.skip(stats, "not a page of the analysis");
            return;
        }
        report.stats(stats).used += 1;
        batch.push((page.text.to_string(), page.format));
        if batch.len() >= BATCH_PAGES {
            add_batch(&mut builder, &mut batch);
        }
    })
    .with_context(|| format!("reading {}", table.name()))?;
    add_batch(&mut builder, &mut batch);
    report.set_ticker(None);
    let stats = builder.finish(&TemplateRules {
        share: config.link_rules.template_share,
        min_pages: config.link_rules.template_min_pages,
    });
    // Pass 2: each source page's rows are scored as its text streams by, so only a batch of
    // pages is ever held, and each page is split into words once for all its rows.
    let found = place_all(config, crawl, &table, candidates, &stats, progress)?;
    Ok(PassageReport {
        source: format!(
            "from {} (extractor \"{}\", {} pages with text, {} template blocks)",
            table.name(),
            read.extractor,
            read.pages,
            stats.template_blocks()
        ),
        found,
        rows: candidates.len(),
    })
}

/// What the crawl says names a destination: its title, H1 and the anchors other pages use.
fn target(crawl: &Crawl, d: u32) -> Target {
    let row = crawl
        .internal
        .as_ref()
        .and_then(|i| crawl.crawled.get(&d).map(|&r| &i.urls[r]));
    Target {
        title: row.map(|u| u.title.clone()).unwrap_or_default(),
        h1: row.map(|u| u.h1.clone()).unwrap_or_default(),
        anchors: crawl.links.anchors.get(&d).cloned().unwrap_or_default(),
    }
}

/// Pages of text held at once in pass 2, scored in parallel.
const BATCH_PAGES: usize = 2048;

/// Suggest a place for every candidate, reading the page text a second time; returns how
/// many got one.
fn place_all(
    config: &RunConfig,
    crawl: &Crawl,
    table: &Table,
    candidates: &mut [Candidate],
    stats: &passage::SiteStats,
    progress: Progress,
) -> Result<usize> {
    // One query per destination, shared by its rows; each source page's rows by index.
    let mut queries: HashMap<u32, Query> = HashMap::new();
    let mut rows_of: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, c) in candidates.iter().enumerate() {
        let (Some(s), Some(d)) = (
            page_of(crawl, config, &c.source),
            page_of(crawl, config, &c.destination),
        ) else {
            continue;
        };
        queries
            .entry(d)
            .or_insert_with(|| Query::new(&target(crawl, d), stats));
        rows_of.entry(s).or_default().push((i, d));
    }
    let mut placed: Vec<(usize, Placement)> = Vec::new();
    let mut batch: Vec<(u32, String, Vec<Block>)> = Vec::new();
    let score_batch = |batch: &mut Vec<(u32, String, Vec<Block>)>,
                       placed: &mut Vec<(usize, Placement)>| {
        let scored: Vec<Vec<(usize, Placement)>> = batch
            .par_iter()
            .map(|(s, address, blocks)| {
                place_page(config, crawl, &queries, stats, address, blocks, &rows_of[s])
            })
            .collect();
        placed.extend(scored.into_iter().flatten());
        batch.clear();
    };
    // A second read of the same file: its rows were accounted for in pass 1.
    let mut scratch = Report::new();
    scratch.set_ticker(Some(progress.rows("Suggesting passages")));
    let mut done: HashSet<u32> = HashSet::new();
    page_text::read(table, None, &mut scratch, &mut |_, _, page| {
        let Some(f) = page_of(crawl, config, page.address) else {
            return;
        };
        if !rows_of.contains_key(&f) || !done.insert(f) {
            return;
        }
        batch.push((
            f,
            page.address.to_string(),
            passage::split(page.text, page.format),
        ));
        if batch.len() >= BATCH_PAGES {
            score_batch(&mut batch, &mut placed);
        }
    })
    .with_context(|| format!("reading {}", table.name()))?;
    score_batch(&mut batch, &mut placed);
    scratch.set_ticker(None);
    let no_text = passage::NoPlace::NoText.to_string();
    for (s, rows) in &rows_of {
        if !done.contains(s) {
            for &(i, _) in rows {
                candidates[i].placement = Placement::NoText(no_text.clone());
            }
        }
    }
    let mut found = 0;
    for (i, p) in placed {
        found += usize::from(matches!(p, Placement::Found(_)));
        candidates[i].placement = p;
    }
    Ok(found)
}

/// The placements of one source page's rows (`rows`: candidate index and destination).
fn place_page(
    config: &RunConfig,
    crawl: &Crawl,
    queries: &HashMap<u32, Query>,
    stats: &passage::SiteStats,
    address: &str,
    blocks: &[Block],
    rows: &[(usize, u32)],
) -> Vec<(usize, Placement)> {
    let page = Prepared::new(blocks, stats);
    // Where each block's links point, resolved once for all the page's rows.
    let base = url::Url::parse(address).ok();
    let targets: Vec<Vec<u32>> = blocks
        .iter()
        .map(|b| {
            b.links
                .iter()
                .filter_map(|l| {
                    base.as_ref()
                        .and_then(|u| passage::resolve_href(u, &l.href))
                        .and_then(|u| page_of(crawl, config, u.as_str()))
                })
                .collect()
        })
        .collect();
    rows.iter()
        .map(|&(i, d)| {
            let links_to = |b: usize| targets[b].contains(&d);
            let placement = match queries[&d].suggest_prepared(&page, &links_to, stats) {
                Ok(found) => Placement::Found(Box::new(SuggestedPassage {
                    text: found.text,
                    anchor: found.anchor.map(|(range, _)| range),
                    strength: found.score,
                })),
                Err(why @ passage::NoPlace::NoText) => Placement::NoText(why.to_string()),
                Err(why) => Placement::NoPlace(why.to_string()),
            };
            (i, placement)
        })
        .collect()
}
