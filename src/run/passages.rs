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
use crate::passage::{self, Block, Query, StatsBuilder, Target, TemplateRules};
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
    // The Queue's sources: only their blocks are kept.
    let wanted: HashSet<u32> = candidates
        .iter()
        .filter_map(|c| page_of(crawl, config, &c.source))
        .collect();
    let mut builder = StatsBuilder::new();
    if let Some(internal) = &crawl.internal {
        for u in &internal.urls {
            if !u.title.is_empty() {
                builder.add_title(&u.title);
            }
        }
    }
    let mut kept: HashMap<u32, Vec<Block>> = HashMap::new();
    report.set_ticker(Some(progress.rows("Reading page text")));
    let read = page_text::read(&table, None, report, &mut |report, stats, page| {
        let Some(f) = page_of(crawl, config, page.address) else {
            report.skip(stats, "not a page of the analysis");
            return;
        };
        report.stats(stats).used += 1;
        let blocks = passage::split(page.text, page.format);
        builder.add_page(&blocks);
        if wanted.contains(&f) {
            kept.entry(f).or_insert(blocks);
        }
    })
    .with_context(|| format!("reading {}", table.name()))?;
    report.set_ticker(None);
    let stats = builder.finish(&TemplateRules {
        share: config.link_rules.template_share,
        min_pages: config.link_rules.template_min_pages,
    });
    let found = place_all(config, crawl, candidates, &kept, &stats);
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

/// Suggest a place for every candidate; returns how many got one.
fn place_all(
    config: &RunConfig,
    crawl: &Crawl,
    candidates: &mut [Candidate],
    kept: &HashMap<u32, Vec<Block>>,
    stats: &passage::SiteStats,
) -> usize {
    // One query per destination, shared by its rows.
    let mut queries: HashMap<u32, Query> = HashMap::new();
    let ids: Vec<(Option<u32>, Option<u32>)> = candidates
        .iter()
        .map(|c| {
            (
                page_of(crawl, config, &c.source),
                page_of(crawl, config, &c.destination),
            )
        })
        .collect();
    for &(_, d) in &ids {
        if let Some(d) = d {
            queries
                .entry(d)
                .or_insert_with(|| Query::new(&target(crawl, d), stats));
        }
    }
    candidates
        .par_iter_mut()
        .zip(&ids)
        .map(|(c, &(s, d))| {
            let (Some(s), Some(d)) = (s, d) else {
                return 0;
            };
            let Some(blocks) = kept.get(&s) else {
                c.placement = Placement::NoText(passage::NoPlace::NoText.to_string());
                return 0;
            };
            let base = url::Url::parse(&c.source).ok();
            let links_to_target = |href: &str| {
                base.as_ref()
                    .and_then(|b| passage::resolve_href(b, href))
                    .and_then(|u| page_of(crawl, config, u.as_str()))
                    == Some(d)
            };
            match queries[&d].suggest(blocks, stats, &links_to_target) {
                Ok(found) => {
                    c.placement = Placement::Found(Box::new(SuggestedPassage {
                        text: found.text,
                        anchor: found.anchor.map(|(range, _)| range),
                        strength: found.score,
                    }));
                    1
                }
                Err(why @ passage::NoPlace::NoText) => {
                    c.placement = Placement::NoText(why.to_string());
                    0
                }
                Err(why) => {
                    c.placement = Placement::NoPlace(why.to_string());
                    0
                }
            }
        })
        .sum()
}
