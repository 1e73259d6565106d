//! Assembling the analysis's pages: which URLs are one page, which export row supplies each
//! page's vector, its facts and its eligibility, and the Pages sheet's inventory of every URL
//! as written.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::eligibility::{self, Decision, PageFacts};
use crate::input::Table;
use crate::input::embeddings::Embeddings;
use crate::normalize::identity::Via;
use crate::report::Report;

/// Where a page's vector came from, closest first. The order is the precedence: a page's own
/// row beats a spelling variant's, which beats a redirect's or a canonicalised duplicate's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum VectorFrom {
    /// No row has supplied a vector yet.
    Nothing,
    /// A URL that redirects or is canonicalised to the page.
    Redirect,
    /// Another spelling of the page's own URL (e.g. an upper-case host).
    Variant,
    /// The row spelled exactly as the page's URL.
    Own,
}

impl VectorFrom {
    /// How close export row `row` is to page `page`: `url` is the row's normalized URL and
    /// `primary` whether the row is the one that speaks for that URL.
    pub(super) fn of(url: u32, page: u32, primary: bool) -> VectorFrom {
        match (url == page, primary) {
            (true, true) => VectorFrom::Own,
            (true, false) => VectorFrom::Variant,
            (false, _) => VectorFrom::Redirect,
        }
    }
}

/// A page of the analysis: a resolved URL that the embeddings export or Internal: All names.
#[derive(Debug, Clone)]
pub(super) struct Page {
    /// Row of the embeddings matrix.
    pub(super) vector: Option<u32>,
    /// How close the row that supplied the vector is to the page.
    pub(super) vector_from: VectorFrom,
    pub(super) facts: PageFacts,
    pub(super) decision: Decision,
}

impl Page {
    fn new() -> Page {
        Page {
            vector: None,
            vector_from: VectorFrom::Nothing,
            facts: PageFacts::default(),
            decision: Decision {
                source: Ok(()),
                destination: Ok(()),
            },
        }
    }

    /// Whether the page can carry or receive a link.
    pub(super) fn analysed(&self) -> bool {
        self.decision.source.is_ok() || self.decision.destination.is_ok()
    }
}

/// One row of the Pages sheet: a URL as written in an export.
#[derive(Debug)]
pub(super) struct InventoryRow {
    pub(super) written: String,
    pub(super) id: Option<u32>,
    pub(super) note: Option<String>,
}

/// The pages, keyed by resolved URL id, and the inventory of every URL as written.
pub(super) struct PageSet {
    pub(super) pages: BTreeMap<u32, Page>,
    pub(super) inventory: Vec<InventoryRow>,
}

/// For each normalized URL, the export row that speaks for it: the one spelled exactly as
/// the normalized URL (so the upper-case-host variant of a page never stands in for it), else
/// the first.
fn speaking_rows(emb: &Embeddings, emb_ids: &[Option<u32>], crawl: &Crawl) -> HashMap<u32, usize> {
    let mut first_row_of: HashMap<u32, usize> = HashMap::new();
    for (i, (p, id)) in emb.pages.iter().zip(emb_ids).enumerate() {
        if let Some(u) = *id {
            let exact = p.url.trim() == crawl.urls.url(u);
            match first_row_of.get(&u) {
                Some(&j) if exact && emb.pages[j].url.trim() != crawl.urls.url(u) => {
                    first_row_of.insert(u, i);
                }
                None => {
                    first_row_of.insert(u, i);
                }
                _ => {}
            }
        }
    }
    first_row_of
}

impl PageSet {
    /// Pages and their vectors from the embeddings export (`emb_ids`: each row's normalized
    /// URL id) and the crawl; every vector row is counted used or skipped in `report`.
    pub(super) fn build(
        config: &RunConfig,
        table: &Table,
        emb: &Embeddings,
        emb_ids: &[Option<u32>],
        emb_stats: usize,
        crawl: &Crawl,
        report: &mut Report,
    ) -> PageSet {
        let first_row_of = speaking_rows(emb, emb_ids, crawl);
        let (mut pages, row_notes) =
            assign_vectors(table, emb, emb_ids, emb_stats, crawl, &first_row_of, report);
        // Internal: All URLs that the embeddings export lacks are pages too, without a
        // vector, so the inventory gives them their real reason (a 404 is a 404, not a
        // missing vector).
        for &id in crawl.crawled.keys() {
            let (f, via) = crawl.resolved[id as usize];
            if via == Via::Itself {
                pages.entry(f).or_insert_with(Page::new);
            }
        }
        // Each page's facts and decision are its own, so they are found on both cores (the
        // eligibility stage 3.9 -> 3.5 s at 1,000,011 pages).
        pages.par_iter_mut().for_each(|(&f, page)| {
            page.facts = facts(f, emb, crawl, &first_row_of);
            if page.vector.is_none() {
                let why = first_row_of
                    .get(&f)
                    .and_then(|&i| emb.pages[i].problem.clone())
                    .unwrap_or_else(|| "no vector (no row in the embeddings export)".into());
                page.facts.no_vector = Some(why);
            }
            page.decision =
                eligibility::decide(crawl.urls.url(f), &page.facts, &config.eligibility);
        });
        let inventory = inventory(emb, emb_ids, crawl, &first_row_of, row_notes);
        PageSet { pages, inventory }
    }
}

/// Each page's vector: the canonical page's own row wins over a variant's, which wins over a
/// redirect's or a canonicalised duplicate's; among equals, the first. Returns the pages and
/// each export row's note for the Pages sheet.
fn assign_vectors(
    table: &Table,
    emb: &Embeddings,
    emb_ids: &[Option<u32>],
    emb_stats: usize,
    crawl: &Crawl,
    first_row_of: &HashMap<u32, usize>,
    report: &mut Report,
) -> (BTreeMap<u32, Page>, Vec<Option<String>>) {
    let mut pages: BTreeMap<u32, Page> = BTreeMap::new();
    let mut row_notes: Vec<Option<String>> = vec![None; emb.pages.len()];
    for (i, (p, id)) in emb.pages.iter().zip(emb_ids).enumerate() {
        let Some(u) = *id else {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL cannot be normalized");
            }
            continue;
        };
        let (f, via) = crawl.resolved[u as usize];
        let primary = first_row_of[&u];
        if primary != i {
            row_notes[i] = Some(format!(
                "same page as row {} ({}): a spelling variant",
                emb.pages[primary].row,
                crawl.urls.url(u)
            ));
        }
        if matches!(via, Via::Loop | Via::TooLong) {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL's redirects or canonicals loop");
            }
            continue;
        }
        let page = pages.entry(f).or_insert_with(Page::new);
        if let Some(v) = p.vector {
            let closeness = VectorFrom::of(u, f, primary == i);
            if closeness > page.vector_from {
                page.vector = Some(v);
                page.vector_from = closeness;
            }
        }
    }
    // Count vector rows once the winners are known. A URL written twice with two different
    // vectors is conflicting data, not a spelling variant: the later row is rejected.
    for (i, (p, id)) in emb.pages.iter().zip(emb_ids).enumerate() {
        let (Some(v), Some(u)) = (p.vector, *id) else {
            continue;
        };
        let f = crawl.resolved[u as usize].0;
        let first = &emb.pages[first_row_of[&u]];
        if pages.get(&f).is_some_and(|pg| pg.vector == Some(v)) {
            report.stats(emb_stats).used += 1;
        } else if first.vector.is_some_and(|w| {
            first.url.trim() == p.url.trim() && !same_vector(emb.vector(w), emb.vector(v))
        }) {
            row_notes[i] = Some(format!(
                "same URL as row {} with a different vector: this row is rejected",
                first.row
            ));
            let mut rejection = table.rejection(
                p.row,
                &emb.column,
                format!(
                    "the URL {} is also on row {} with a different vector; row {}'s vector is used. Remove one of the two rows",
                    p.url.trim(),
                    first.row,
                    first.row
                ),
                "",
            );
            rejection.url = p.url.trim().to_string();
            report.reject(emb_stats, rejection);
        } else if pages.contains_key(&f) {
            report.skip(emb_stats, "another row's vector stands for the same page");
        }
    }
    (pages, row_notes)
}

/// Facts: Internal: All for the resolved page, else the embeddings export's own columns.
fn facts(f: u32, emb: &Embeddings, crawl: &Crawl, first_row_of: &HashMap<u32, usize>) -> PageFacts {
    if let (Some(internal), Some(&i)) = (&crawl.internal, crawl.crawled.get(&f)) {
        let u = &internal.urls[i];
        PageFacts {
            status_code: u.status_code,
            content_type: Some(u.content_type.clone()).filter(|s| !s.is_empty()),
            indexability: Some(u.indexability.clone()).filter(|s| !s.is_empty()),
            indexability_status: u.indexability_status.clone(),
            meta_robots: u.meta_robots.clone(),
            word_count: u.word_count,
            no_vector: None,
        }
    } else if let Some(&i) = first_row_of.get(&f) {
        let p = &emb.pages[i];
        PageFacts {
            status_code: p.status_code,
            content_type: p.content_type.clone(),
            indexability: p.indexability.clone(),
            ..PageFacts::default()
        }
    } else {
        PageFacts::default()
    }
}

/// Inventory rows: every URL of the embeddings export, then Internal: All URLs not in it.
fn inventory(
    emb: &Embeddings,
    emb_ids: &[Option<u32>],
    crawl: &Crawl,
    first_row_of: &HashMap<u32, usize>,
    row_notes: Vec<Option<String>>,
) -> Vec<InventoryRow> {
    let mut inventory = Vec::new();
    for ((p, id), note) in emb.pages.iter().zip(emb_ids).zip(row_notes) {
        inventory.push(InventoryRow {
            written: p.url.clone(),
            id: *id,
            note,
        });
    }
    if let Some(internal) = &crawl.internal {
        debug_assert_eq!(internal.urls.len(), crawl.internal_ids.len());
        for (u, &id) in internal.urls.iter().zip(&crawl.internal_ids) {
            if id.is_some_and(|id| first_row_of.contains_key(&id)) {
                continue;
            }
            inventory.push(InventoryRow {
                written: u.url.clone(),
                id,
                note: None,
            });
        }
    }
    inventory
}

/// Two export rows' vectors are the same when every component agrees to within rounding of
/// the exported text (Screaming Frog writes what the snippet returned, so a re-export of the
/// same page repeats the same digits).
fn same_vector(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6)
}

#[cfg(test)]
mod tests {
    use super::{VectorFrom, same_vector};

    #[test]
    fn vectors_differ_beyond_rounding() {
        assert!(same_vector(&[0.1, 0.2], &[0.1, 0.200_000_1]));
        assert!(!same_vector(&[0.1, 0.2], &[0.1, 0.3]));
        assert!(!same_vector(&[0.1, 0.2], &[0.1]));
    }

    #[test]
    fn own_row_beats_variant_beats_redirect() {
        // Page 7; URL 7 is its own spelling, URL 9 redirects to it.
        assert_eq!(VectorFrom::of(7, 7, true), VectorFrom::Own);
        assert_eq!(VectorFrom::of(7, 7, false), VectorFrom::Variant);
        assert_eq!(VectorFrom::of(9, 7, true), VectorFrom::Redirect);
        assert!(VectorFrom::Own > VectorFrom::Variant);
        assert!(VectorFrom::Variant > VectorFrom::Redirect);
        assert!(VectorFrom::Redirect > VectorFrom::Nothing);
    }
}
