//! Block-splitting bench: `passage::split_html` (its fast scanner, html5ever for the pages the
//! scanner declines) against html5ever alone over every HTML page of a page text export (a
//! Custom Extraction CSV or XLSX), one core, the texts read into memory first. It also checks
//! that both give the same blocks on every page, and counts the pages the scanner declined.
//!
//! Then the words of every block are found and hashed (`passage::text::for_each_hash`, what
//! the statistics and the scoring do with each block), and every page is prepared for scoring
//! (`passage::Prepared::new`: its words, inverted index and template flags, against the
//! statistics of all pages), one core.
//!
//! usage: `cargo bench --bench split -- FILE [--rounds N]`
//!
//! The host is shared and noisy: each figure is the best of `--rounds` (default 3); read the
//! ratio printed within one run, not absolute times.
#![allow(clippy::print_stdout)] // a bench prints its table

mod common;

use std::path::PathBuf;

use common::best_of;

use linkgap::input::{Table, page_text};
use linkgap::passage::{Prepared, StatsBuilder, TemplateRules, blocks, text};
use linkgap::report::Report;

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut file = None;
    let mut rounds = 3;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N");
            }
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let file = file.expect("usage: split FILE [--rounds N]");
    let table = Table::open(&file).expect("a page text export");
    let mut report = Report::new();
    let mut pages: Vec<String> = Vec::new();
    page_text::read(&table, None, &mut report, &mut |_, _, page| {
        if page.format == page_text::TextFormat::Html {
            pages.push(page.text.to_string());
        }
    })
    .expect("a readable page text export");
    let bytes: usize = pages.iter().map(String::len).sum();
    let declined = pages.iter().filter(|p| !blocks::scanner_takes(p)).count();
    let differ = pages
        .iter()
        .filter(|p| blocks::split_html(p) != blocks::split_html_by_html5ever(p))
        .count();
    println!(
        "{} HTML pages, {:.1} MB; the scanner declined {declined}; blocks differ on {differ}; best of {rounds}",
        pages.len(),
        bytes as f64 / 1e6
    );
    let mb = bytes as f64 / 1e6;
    let (fast, blocks_fast) = best_of(rounds, || {
        pages.iter().map(|p| blocks::split_html(p).len()).sum()
    });
    let (reference, blocks_reference) = best_of(rounds, || {
        pages
            .iter()
            .map(|p| blocks::split_html_by_html5ever(p).len())
            .sum()
    });
    assert_eq!(blocks_fast, blocks_reference);
    println!(
        "split_html {fast:.3} s ({:.0} MB/s), html5ever alone {reference:.3} s ({:.0} MB/s): {:.2}x, {blocks_fast} blocks",
        mb / fast,
        mb / reference,
        reference / fast
    );
    let split: Vec<Vec<blocks::Block>> = pages.iter().map(|p| blocks::split_html(p)).collect();
    let text_mb = split.iter().flatten().map(|b| b.text.len()).sum::<usize>() as f64 / 1e6;
    let (hashing, words) = best_of(rounds, || {
        let mut words = 0usize;
        let mut mix = 0u64;
        for block in split.iter().flatten() {
            text::for_each_hash(&block.text, |h| {
                words += 1;
                mix ^= h;
            });
        }
        std::hint::black_box(mix);
        words
    });
    println!(
        "words: {words} in {text_mb:.1} MB of block text, {hashing:.3} s ({:.0} MB/s, {:.1} ns a word)",
        text_mb / hashing,
        hashing * 1e9 / words as f64
    );
    let mut builder = StatsBuilder::new();
    for page in &split {
        builder.add_page(page);
    }
    let stats = builder.finish(&TemplateRules::default());
    let (preparing, prepared) = best_of(rounds, || {
        split
            .iter()
            .map(|page| {
                std::hint::black_box(Prepared::new(page, &stats))
                    .blocks
                    .len()
            })
            .sum()
    });
    println!(
        "Prepared::new: {} pages ({prepared} blocks), {preparing:.3} s ({:.1} µs a page)",
        split.len(),
        preparing * 1e6 / split.len() as f64
    );
}
