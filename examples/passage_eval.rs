//! Held-out measure of passage and anchor suggestions on a crawl folder (issue 16):
//!
//!     cargo run --release --example passage_eval -- FOLDER [SEED]
//!
//! FOLDER holds `custom_extraction_all.csv` (inner HTML), `all_inlinks.csv` and
//! `internal_all.csv`. A seeded 10% of the source → destination pairs with a Content link are
//! removed: their `<a>` elements are unwrapped in the source's blocks (their words stay) and
//! their anchors are not evidence. For each, `suggest` must find the block that held the link
//! (passage hit: the chosen block sits in the same element, the text the Queue shows) and an
//! anchor sharing a word with the real one (anchor overlap). The baseline is the block with
//! the best plain BM25 against the destination's title and H1, counted the same way.
//! Nothing here runs in the test suite: it reads a real crawl. `SHOW_MISSES=1` prints the
//! passage misses, `SHOW_ANCHOR_MISSES=1` the anchor misses on the right passage, `SHOW_ANCHORS=1`
//! every anchor suggested on the right passage, `SHOW_BASE_WINS=1` the pairs only the
//! baseline places right (the last line counts the pairs each finds).
//!
//! FOLDER can be a generated site (`linkgap-gen … --page-text`, as benches/quality.sh makes).

// A measuring tool: it reports on stdout.
#![allow(clippy::print_stdout)]

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use linkgap::holdout::baseline::best_block;
use linkgap::input::columns::Col;
use linkgap::input::{Table, cell, inlinks, page_text};
use linkgap::normalize::{Rules, normalize};
use linkgap::passage::text::{title_parts, words};
use linkgap::passage::{
    Block, Phrases, Query, SiteStats, StatsBuilder, Target, TemplateRules, resolve_href, split,
};
use linkgap::report::Report;
use url::Url;

struct Link {
    source: String,
    destination: String,
    anchor: String,
    content: bool,
}

fn norm(u: &str) -> String {
    normalize(u, &Rules::default()).unwrap_or_else(|_| u.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).expect("usage: passage_eval FOLDER [SEED]"));
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut report = Report::new();

    // Titles and H1s.
    let internal = Table::open(&dir.join("internal_all.csv")).unwrap();
    let h = internal.header();
    let (addr, title, h1) = (h.get(Col::Address), h.get(Col::Title), h.find("H1-1"));
    let stats_i = report.file("internal", linkgap::report::Role::Internal);
    let mut pages: HashMap<String, (String, String)> = HashMap::new();
    internal
        .rows(&mut report, stats_i, &mut |_, _, r| {
            pages.insert(
                norm(cell(r, addr)),
                (cell(r, title).to_string(), cell(r, h1).to_string()),
            );
        })
        .unwrap();

    // Hyperlinks.
    let mut links: Vec<Link> = Vec::new();
    let table = Table::open(&dir.join("all_inlinks.csv")).unwrap();
    inlinks::read(&table, &mut report, &mut |_, _, l| {
        if l.kind == inlinks::LinkKind::Hyperlink {
            links.push(Link {
                source: norm(l.source),
                destination: norm(l.destination),
                anchor: l.anchor.to_string(),
                content: l.position == "Content",
            });
        }
    })
    .unwrap();
    let removed: HashSet<(String, String)> = links
        .iter()
        .filter(|l| l.content && l.source != l.destination)
        .map(|l| (l.source.clone(), l.destination.clone()))
        .collect::<HashSet<_>>()
        .into_iter()
        .filter(|p| {
            let mut hasher = DefaultHasher::new();
            (seed, p).hash(&mut hasher);
            hasher.finish().is_multiple_of(10)
        })
        .collect();
    let mut anchors: HashMap<String, HashMap<String, u32>> = HashMap::new();
    for l in &links {
        let pair = (l.source.clone(), l.destination.clone());
        if l.source != l.destination && !removed.contains(&pair) && !l.anchor.is_empty() {
            *anchors
                .entry(l.destination.clone())
                .or_default()
                .entry(l.anchor.clone())
                .or_default() += 1;
        }
    }

    // Page text: blocks and site statistics in one pass, timed.
    // The statistics count how often each phrase naming a page is written and linked: the
    // crawl's anchors (the removed ones left out), titles and H1s.
    let mut phrases = Phrases::new(anchors.values().flat_map(|m| m.keys().map(String::as_str)));
    for (t, h) in pages.values() {
        for text in [t, h] {
            phrases.add(text);
            for part in title_parts(text) {
                phrases.add(&part);
            }
        }
    }
    let table = Table::open(&dir.join("custom_extraction_all.csv")).unwrap();
    let mut blocks_of: HashMap<String, Vec<Block>> = HashMap::new();
    let mut builder = StatsBuilder::counting(Arc::new(phrases));
    // The baseline's statistics count no link rates: its anchor is title and H1 overlap alone.
    let mut plain_builder = StatsBuilder::new();
    let mut bytes = 0usize;
    let started = Instant::now();
    page_text::read(&table, None, &mut report, &mut |_, _, p| {
        bytes += p.text.len();
        let blocks = split(p.text, p.format);
        // The statistics see the page as the hidden test would give it: the removed links
        // unwrapped (their words stay).
        let source = norm(p.address);
        let base_url = Url::parse(&source).ok();
        let mut seen = blocks.clone();
        for b in &mut seen {
            b.links.retain(|l| {
                let d = base_url
                    .as_ref()
                    .and_then(|u| resolve_href(u, &l.href))
                    .map(|u| norm(u.as_str()));
                !d.is_some_and(|d| removed.contains(&(source.clone(), d)))
            });
        }
        builder.add_page(&seen);
        plain_builder.add_page(&seen);
        blocks_of.insert(source, blocks);
    })
    .unwrap();
    for (t, _) in pages.values() {
        builder.add_title(t);
        plain_builder.add_title(t);
    }
    let stats = builder.finish(&TemplateRules::default());
    let plain_stats = plain_builder.finish(&TemplateRules::default());
    let secs = started.elapsed().as_secs_f64();
    println!(
        "page text: {} pages, {:.1} MB, read + split + stats {:.2} s = {:.0} MB/s; {} blocks, {} template texts",
        blocks_of.len(),
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs,
        stats.blocks,
        stats.template_blocks()
    );

    evaluate(
        &removed,
        &pages,
        &anchors,
        &blocks_of,
        (&stats, &plain_stats),
    );
}

fn shares_word(a: &str, b: &str) -> bool {
    let aw: HashSet<u64> = words(a)
        .iter()
        .filter(|w| !w.stop)
        .map(|w| w.hash)
        .collect();
    words(b).iter().any(|w| !w.stop && aw.contains(&w.hash))
}

#[derive(Default)]
struct Tally {
    suggested: u32,
    hit: u32,
    anchor: u32,
    anchor_exact: u32,
}

fn evaluate(
    removed: &HashSet<(String, String)>,
    pages: &HashMap<String, (String, String)>,
    anchors: &HashMap<String, HashMap<String, u32>>,
    blocks_of: &HashMap<String, Vec<Block>>,
    (stats, plain_stats): (&SiteStats, &SiteStats),
) {
    let (mut pairs, mut no_block) = (0u32, 0u32);
    let (mut ours, mut base) = (Tally::default(), Tally::default());
    let mut reasons: HashMap<String, u32> = HashMap::new();
    let mut both: HashMap<(bool, bool), u32> = HashMap::new();
    let mut sorted: Vec<&(String, String)> = removed.iter().collect();
    sorted.sort();
    for (s, d) in sorted {
        let (Some(blocks), Some((title, h1))) = (blocks_of.get(s), pages.get(d)) else {
            continue;
        };
        let base_url = Url::parse(s).unwrap();
        let to_d =
            |href: &str| resolve_href(&base_url, href).is_some_and(|u| norm(u.as_str()) == *d);
        // Unwrap the links to D: same text, the links gone; remember where they were.
        let mut truth = Vec::new();
        let mut real_anchor = String::new();
        // Each link's own text: an exact anchor equals one of them.
        let mut real_texts: Vec<String> = Vec::new();
        let mut unwrapped = blocks.clone();
        for (i, b) in unwrapped.iter_mut().enumerate() {
            let before = b.links.len();
            for l in b.links.iter().filter(|l| to_d(&l.href)) {
                real_anchor.push_str(&b.text[l.range.clone()]);
                real_anchor.push(' ');
                real_texts.push(b.text[l.range.clone()].trim().to_string());
            }
            b.links.retain(|l| !to_d(&l.href));
            if b.links.len() != before {
                truth.push(i);
            }
        }
        if truth.is_empty() {
            no_block += 1;
            continue;
        }
        pairs += 1;
        let target = Target {
            title: title.clone(),
            h1: h1.clone(),
            anchors: anchors
                .get(d)
                .map(|m| m.iter().map(|(a, n)| (a.clone(), *n)).collect())
                .unwrap_or_default(),
        };
        let tally = |t: &mut Tally, block: usize, anchor: Option<&str>| {
            t.suggested += 1;
            // The place is the element the block sits in (what the Queue shows): a hit when
            // the chosen block's element is a true block's, as the hold-out harness counts.
            let chosen = unwrapped[block].element_text();
            t.hit += u32::from(truth.iter().any(|&i| unwrapped[i].element_text() == chosen));
            if let Some(a) = anchor {
                t.anchor += u32::from(shares_word(a, &real_anchor));
                t.anchor_exact += u32::from(real_texts.iter().any(|r| a.eq_ignore_ascii_case(r)));
            }
        };
        // Whether linkgap and the baseline each found the block, counted together: the pairs
        // only the baseline finds are where the scoring loses to plain BM25.
        let is_hit = |block: usize| {
            let chosen = unwrapped[block].element_text();
            truth.iter().any(|&i| unwrapped[i].element_text() == chosen)
        };
        let suggested = Query::new(&target, stats).suggest(&unwrapped, stats, &to_d);
        // Baseline: plain BM25 against title + H1, no phrases, no kinds, no exclusions.
        let base_choice = best_block(&unwrapped, title, h1, plain_stats);
        let ours_hit = suggested.as_ref().is_ok_and(|s| is_hit(s.block));
        let base_hit = base_choice.as_ref().is_some_and(|(b, _)| is_hit(*b));
        *both.entry((ours_hit, base_hit)).or_insert(0) += 1;
        if base_hit && !ours_hit && std::env::var_os("SHOW_BASE_WINS").is_some() {
            show_base_win(
                (s, d),
                &target,
                &unwrapped,
                (&suggested, base_choice.as_ref().map(|c| c.0)),
                (stats, &to_d),
            );
        }
        match suggested {
            Ok(sug) => {
                if !truth.contains(&sug.block) && std::env::var_os("SHOW_MISSES").is_some() {
                    let cut = |t: &str| t.chars().take(160).collect::<String>();
                    println!(
                        "MISS {d}\n  title {title:?} anchors {:?}\n  chose #{} {:?} {:.3}: {}\n  truth #{:?} {:?}: {}",
                        target.anchors.iter().take(4).collect::<Vec<_>>(),
                        sug.block,
                        sug.kind,
                        sug.score,
                        cut(&sug.text),
                        truth,
                        unwrapped[truth[0]].kind,
                        cut(&unwrapped[truth[0]].text)
                    );
                }
                if std::env::var_os("SHOW_ANCHORS").is_some() && truth.contains(&sug.block) {
                    println!(
                        "ANCHOR {s} -> {d}: {:?} real {:?}",
                        sug.anchor.as_ref().map(|a| a.1.as_str()),
                        real_anchor.trim()
                    );
                }
                if std::env::var_os("SHOW_ANCHOR_MISSES").is_some()
                    && truth.contains(&sug.block)
                    && !sug
                        .anchor
                        .as_ref()
                        .is_some_and(|a| shares_word(&a.1, &real_anchor))
                {
                    println!(
                        "ANCHOR MISS {d}\n  title {title:?} h1 {h1:?} anchors {:?}\n  suggested {:?} real {:?}\n  block: {}",
                        target.anchors.iter().take(6).collect::<Vec<_>>(),
                        sug.anchor.as_ref().map(|a| a.1.as_str()),
                        real_anchor.trim(),
                        sug.text.chars().take(200).collect::<String>()
                    );
                }
                tally(
                    &mut ours,
                    sug.block,
                    sug.anchor.as_ref().map(|a| a.1.as_str()),
                );
            }
            Err(e) => {
                *reasons
                    .entry(format!("{e:?}").split(' ').next().unwrap_or("").to_string())
                    .or_default() += 1;
            }
        }
        if let Some((block, anchor)) = base_choice {
            tally(&mut base, block, anchor.as_deref());
        }
    }
    let pct = |n: u32| 100.0 * f64::from(n) / f64::from(pairs.max(1));
    println!("removed pairs: {pairs} scored ({no_block} with no link in the extracted text)");
    for (name, t) in [("linkgap", &ours), ("baseline BM25 title+H1", &base)] {
        println!(
            "{name:>24}: coverage {:.1}%  passage hit {:.1}%  anchor overlap {:.1}%  anchor exact {:.1}%",
            pct(t.suggested),
            pct(t.hit),
            pct(t.anchor),
            pct(t.anchor_exact)
        );
    }
    println!("no suggestion: {reasons:?}");
    let count = |o: bool, b: bool| both.get(&(o, b)).copied().unwrap_or(0);
    println!(
        "passage hits: both {}, linkgap only {}, baseline only {}, neither {}",
        count(true, true),
        count(true, false),
        count(false, true),
        count(false, false)
    );
}

/// Print a pair only the baseline placed right: what linkgap chose, and the baseline's block
/// with the score linkgap gives it alone (`SHOW_BASE_WINS=1`).
fn show_base_win(
    (source, destination): (&str, &str),
    target: &Target,
    blocks: &[Block],
    (suggested, base): (
        &Result<linkgap::passage::Suggestion, linkgap::passage::NoPlace>,
        Option<usize>,
    ),
    (stats, to_d): (&SiteStats, &dyn Fn(&str) -> bool),
) {
    let cut = |t: &str| t.chars().take(150).collect::<String>();
    let Some(b) = base else { return };
    let alone = Query::new(target, stats)
        .suggest(&blocks[b..=b], stats, to_d)
        .map(|x| x.score);
    println!(
        "BASE WIN {source} -> {destination}\n  title {:?} h1 {:?} anchors {:?}\n  chose {:?}\n  baseline #{b} {:?} with {} links, linkgap's score alone {alone:?}: {}",
        target.title,
        target.h1,
        target.anchors.iter().take(5).collect::<Vec<_>>(),
        suggested
            .as_ref()
            .map(|o| (o.block, o.kind, o.score, cut(&o.text))),
        blocks[b].kind,
        blocks[b].links.len(),
        cut(&blocks[b].text)
    );
}
