//! The baseline for passages, run on the pairs the Queue proposes: the block of the
//! source page (as the hidden crawl gives it, the removed links unwrapped) with the best plain
//! BM25 against the destination's title and H1, over statistics from every page of the
//! crawl; its anchor is the span linkgap's chooser picks from title and H1 alone. It is what
//! issue 16 measures linkgap against ("at least 20 points on passages and 25 on anchors"),
//! so [`score`](super::score) counts it on the same pairs as the Queue's own suggestions.
//!
//! The page text is read with linkgap's own reader and block splitter, so the baseline and
//! linkgap see the same blocks.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;

use super::{column, find_files, headers, open_csv, url_key};
use crate::input::{Table, page_text};
use crate::passage::text::words;
use crate::passage::{Block, Query, SiteStats, StatsBuilder, Target, TemplateRules, split};
use crate::report::Report;

/// The baseline's suggestion for one pair: the block's text as the Queue would show it (the
/// element the block sits in) and its anchor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    /// The chosen block's element text.
    pub passage: String,
    /// The anchor chosen in it from title and H1 alone, if any.
    pub anchor: Option<String>,
}

/// The block of `blocks` with the best BM25 of the title and H1 words (each distinct word
/// once, k1 1.2, b 0.75), and the anchor linkgap's chooser picks in it from title and H1
/// alone; `None` when no block holds one of those words.
pub fn best_block(
    blocks: &[Block],
    title: &str,
    h1: &str,
    stats: &SiteStats,
) -> Option<(usize, Option<String>)> {
    let query: HashSet<u64> = words(&format!("{title} {h1}"))
        .iter()
        .map(|w| w.hash)
        .collect();
    let mut best: Option<(f64, usize)> = None;
    for (i, b) in blocks.iter().enumerate() {
        let ws = words(&b.text);
        let norm = 1.2 * (0.25 + 0.75 * ws.len() as f64 / stats.avg_len);
        let score: f64 = query
            .iter()
            .map(|h| {
                let tf = ws.iter().filter(|w| w.hash == *h).count() as f64;
                stats.idf(*h) * tf * 2.2 / (tf + norm)
            })
            .sum();
        if score > 0.0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, i));
        }
    }
    let (_, i) = best?;
    let plain = Target {
        title: title.to_string(),
        h1: h1.to_string(),
        anchors: Vec::new(),
    };
    let links: Vec<_> = blocks[i].links.iter().map(|l| l.range.clone()).collect();
    let anchor = Query::new(&plain, stats).anchor(&blocks[i].text, &links, stats);
    Some((i, anchor.map(|a| a.1)))
}

/// The baseline's choice for each of `pairs` (source, destination [`url_key`]s) on the crawl
/// folder `dir`; empty when the folder has no page text or no Internal: All (titles).
#[allow(clippy::implicit_hasher)] // one caller, std's hasher
pub fn choices(
    dir: &Path,
    pairs: &HashSet<(String, String)>,
) -> io::Result<HashMap<(String, String), Choice>> {
    let files = find_files(dir)?;
    let (Some(text_path), Some(internal_path)) = (files.page_text, files.internal) else {
        return Ok(HashMap::new());
    };
    let titles = read_titles(&internal_path)?;
    let sources: HashSet<&str> = pairs.iter().map(|(s, _)| s.as_str()).collect();
    let mut builder = StatsBuilder::new();
    for (title, _) in titles.values() {
        builder.add_title(title);
    }
    let mut kept: HashMap<String, Vec<Block>> = HashMap::new();
    let table = Table::open(&text_path).map_err(io::Error::other)?;
    let mut report = Report::new();
    page_text::read(&table, None, &mut report, &mut |_, _, page| {
        let blocks = split(page.text, page.format);
        builder.add_page(&blocks);
        if let Some(key) = url_key(page.address, None)
            && sources.contains(key.as_str())
        {
            kept.entry(key).or_insert(blocks);
        }
    })
    .map_err(io::Error::other)?;
    let stats = builder.finish(&TemplateRules::default());
    let mut out = HashMap::new();
    for (s, d) in pairs {
        let (Some(blocks), Some((title, h1))) = (kept.get(s), titles.get(d)) else {
            continue;
        };
        if let Some((i, anchor)) = best_block(blocks, title, h1, &stats) {
            let passage = blocks[i].element_text().to_string();
            out.insert((s.clone(), d.clone()), Choice { passage, anchor });
        }
    }
    Ok(out)
}

/// Each page's title and first H1, by [`url_key`].
fn read_titles(path: &Path) -> io::Result<HashMap<String, (String, String)>> {
    let (mut rdr, _) = open_csv(path)?;
    let header = headers(&mut rdr)?;
    let (address, title, h1) = (
        column(&header, "Address"),
        column(&header, "Title 1"),
        column(&header, "H1-1"),
    );
    let Some(address) = address else {
        return Ok(HashMap::new());
    };
    let mut out = HashMap::new();
    for rec in rdr.records() {
        let rec = rec.map_err(io::Error::other)?;
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or("").trim().to_string();
        if let Some(key) = url_key(&get(Some(address)), None) {
            out.entry(key).or_insert((get(title), get(h1)));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::page_text::TextFormat;

    #[test]
    fn the_baseline_takes_the_block_with_the_title_words() {
        let page = "<p>Nothing to see.</p><p>Tune the vacuum cost limit for large tables.</p>\
                    <p>Vacuum is mentioned once here, among many other words of a long text.</p>";
        let blocks = split(page, TextFormat::Html);
        let mut site = StatsBuilder::new();
        site.add_page(&blocks);
        site.add_page(&split("<p>Other page about indexes.</p>", TextFormat::Html));
        let stats = site.finish(&TemplateRules::default());
        let (i, anchor) = best_block(&blocks, "Vacuum Cost Limit", "", &stats).unwrap();
        assert_eq!(
            blocks[i].text,
            "Tune the vacuum cost limit for large tables."
        );
        assert_eq!(anchor.as_deref(), Some("vacuum cost limit"));
        assert!(best_block(&blocks, "Replication", "", &stats).is_none());
    }
}
