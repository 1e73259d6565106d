//! The review queue: the ranking's proposals as the Queue's pool, the budget over it, the
//! pairs it keeps as Queue candidates (URLs, link status, each page's fingerprint), and the
//! decisions of an earlier review carried onto them (or into History).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::importance::CrawlImportance;
use crate::links::LinkStatus;
use crate::neighbors::Neighbor;
use crate::rank::Proposal;
use crate::report::Report;
use crate::review::{self, Candidate, Existing, HistoryRow, Placement, Pooled, QueueRow};

use super::pages::Page;
use super::search::Compared;

/// The destinations' crawl signals (Search Console, Google Analytics, Link Score): the
/// importance they give and the values the Queue shows.
pub(super) struct DestinationSignals {
    /// Weights from the signals; used unless `--priority-urls` was given.
    pub(super) importance: CrawlImportance,
    /// By page id, looked up for each of the pool's millions of candidates: foldhash.
    values: HashMap<u32, Arc<[Option<f64>]>, foldhash::fast::RandomState>,
}

impl DestinationSignals {
    /// `None` when Internal: All carries no demand or striking-distance signal.
    pub(super) fn new(targets: &[u32], crawl: &Crawl) -> Option<DestinationSignals> {
        let internal = crawl.internal.as_ref()?;
        if internal.signal_columns.is_empty() {
            return None;
        }
        let rows = targets
            .iter()
            .filter_map(|f| crawl.crawled.get(f).map(|&r| (*f, &internal.urls[r])));
        let importance = CrawlImportance::from_pages(&rows)?;
        let values = rows
            .map(|(f, u)| {
                let v: Arc<[Option<f64>]> = importance.shown.iter().map(|s| u.signal(*s)).collect();
                (f, v)
            })
            .collect();
        Some(DestinationSignals { importance, values })
    }

    /// The Queue's extra columns, e.g. `Destination Clicks`.
    pub(super) fn columns(&self) -> Vec<String> {
        self.importance
            .shown
            .iter()
            .map(|s| format!("Destination {}", s.label()))
            .collect()
    }
}

/// The ranking's proposals (ids are matrix rows) as the Queue's pool, best first: each
/// allowed pair with what its priority needs. The pool runs to millions of pairs with page
/// text, so they are filtered and built in parallel, in their order, and the rest of each
/// row waits for the budget ([`candidates`]).
pub(super) fn pool(
    config: &RunConfig,
    compared: &Compared,
    crawl: &Crawl,
    proposals: &[Proposal],
    signals: Option<&DestinationSignals>,
) -> Vec<Pooled> {
    let body = crawl.links.body_sources();
    // `--priority-urls` wins over the crawl's signals.
    let crawl_weight = signals
        .filter(|_| config.importance.is_empty())
        .map(|s| &s.importance);
    proposals
        .par_iter()
        .enumerate()
        .filter_map(|(proposal, p)| {
            let (s, d) = (
                compared.order[p.source as usize],
                compared.order[p.destination as usize],
            );
            compared.allowed(config, s, d).then(|| Pooled {
                pages: (s, d),
                proposal,
                score: p.score,
                destination_inlinks: body.of(d).len() as u32,
                importance: crawl_weight.map_or_else(
                    || config.importance.weight(crawl.urls.url(d)),
                    |w| w.weight(d),
                ),
                placement: Placement::NotLooked,
            })
        })
        .collect()
}

/// The pairs the budget kept (`kept`) as the Queue's candidates, in their order: their URLs
/// (one shared copy per page), rank, evidence, link status, fingerprints and signals.
/// `neighbors` are the destinations' lists by matrix row, for each pair's rank in them.
pub(super) fn candidates(
    crawl: &Crawl,
    proposals: &[Proposal],
    neighbors: &[Vec<Neighbor>],
    fingerprints: &[Arc<str>],
    signals: Option<&DestinationSignals>,
    kept: Vec<Pooled>,
) -> Vec<Candidate> {
    // One shared copy of each page's URL, however many pairs it is in: by URL id, which is
    // dense (a hash map here was two lookups per pair).
    let mut shared: Vec<Option<Arc<str>>> = vec![None; crawl.urls.len()];
    for c in &kept {
        for id in [c.pages.0, c.pages.1] {
            shared[id as usize].get_or_insert_with(|| crawl.urls.url(id).into());
        }
    }
    let url = |id: u32| shared[id as usize].clone().unwrap_or_else(|| Arc::from(""));
    let no_signals: Arc<[Option<f64>]> = signals.map_or_else(
        || Arc::from([]),
        |s| std::iter::repeat_n(None, s.importance.shown.len()).collect(),
    );
    kept.into_par_iter()
        .map(|c| {
            let p = &proposals[c.proposal];
            let (s, d) = c.pages;
            let rank = neighbors[p.destination as usize]
                .iter()
                .position(|n| n.id == p.source)
                .map_or(0, |i| i as u32 + 1);
            Candidate {
                pages: c.pages,
                source: url(s),
                destination: url(d),
                importance: c.importance,
                similarity: p.features.similarity,
                rank,
                evidence: p.evidence(),
                score: c.score,
                existing: if crawl.links.status(s, d) == LinkStatus::TemplateOnly {
                    Existing::TemplateOnly
                } else {
                    Existing::Nothing
                },
                destination_inlinks: c.destination_inlinks,
                placement: c.placement,
                source_fingerprint: fingerprints[p.source as usize].clone(),
                destination_fingerprint: fingerprints[p.destination as usize].clone(),
                destination_signals: signals
                    .map(|s| s.values.get(&d).unwrap_or(&no_signals).clone()),
            }
        })
        .collect()
}

/// What the budget kept, best first, and how many it cut by each cap.
pub(super) struct Budgeted {
    pub(super) kept: Vec<Pooled>,
    pub(super) cut_by_destination: usize,
    pub(super) cut_by_source: usize,
    /// Pairs whose source text has no natural place for the link (with `--queue budget`).
    pub(super) cut_no_place: usize,
}

/// Order the pool by priority (evidence, passage, importance, underlinking) and keep rows
/// while their destination and source have room. With a budget, a pair whose source text
/// was read and has no natural place for the link is not queued: the method says not to
/// force a page-level match into a paragraph that does not want it (Opportunities still
/// lists the pair).
/// Ties in priority and score go by the pair's URLs (`url` names a page id).
pub(super) fn apply_budget<'a>(
    mut pool: Vec<Pooled>,
    budget: crate::rank::Budget,
    url: &(dyn Fn(u32) -> &'a str + Sync),
) -> Budgeted {
    // The pool runs to millions with page text. The order is total (a pair is there once),
    // so sorting in parallel orders it the same. Priorities are rounded to a tenth, so most
    // comparisons go on to the score: both are packed beside the row's index, and only rows
    // equal in both are looked up in the pool (2 M rows: a comparison that reached into the
    // pool for the score missed the cache).
    let mut order: Vec<(f64, f32, usize)> = pool
        .par_iter()
        .enumerate()
        .map(|(i, c)| (c.priority(), c.score, i))
        .collect();
    order.par_sort_unstable_by(|&(pa, sa, a), &(pb, sb, b)| {
        pb.total_cmp(&pa)
            .then_with(|| sb.total_cmp(&sa))
            .then_with(|| {
                let (sa, da) = pool[a].pages;
                let (sb, db) = pool[b].pages;
                (url(da), url(sa)).cmp(&(url(db), url(sb)))
            })
    });
    let cap_d = budget.per_destination.unwrap_or(usize::MAX);
    let cap_s = budget.per_source.unwrap_or(usize::MAX);
    // Counted by page id, in a table as long as the largest id: a page's id and URL are one
    // to one, and the ids are the URL table's (dense), so a table is 4 bytes per URL the
    // crawl names, beside the URL table itself.
    let pages = pool
        .iter()
        .map(|c| c.pages.0.max(c.pages.1) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut to = vec![0u32; pages];
    let mut from = vec![0u32; pages];
    let mut keep = vec![false; pool.len()];
    let budgeted = budget.per_destination.is_some() || budget.per_source.is_some();
    let (mut cut_by_destination, mut cut_by_source, mut cut_no_place) = (0, 0, 0);
    for (_, _, i) in order {
        let c = &pool[i];
        if budgeted && matches!(c.placement, Placement::NoPlace(_)) {
            cut_no_place += 1;
            continue;
        }
        let (s, d) = (c.pages.0 as usize, c.pages.1 as usize);
        if to[d] as usize >= cap_d {
            cut_by_destination += 1;
            continue;
        }
        if from[s] as usize >= cap_s {
            cut_by_source += 1;
            continue;
        }
        to[d] += 1;
        from[s] += 1;
        keep[i] = true;
    }
    // The rows cut (three quarters of a pool with page text) let go of their passages on
    // both cores first; the passages are most of what there is to free, and a second pool
    // is never built beside the first.
    pool.par_iter_mut()
        .zip(keep.par_iter())
        .filter(|(_, k)| !**k)
        .for_each(|(c, _)| c.placement = Placement::NotLooked);
    let mut i = 0;
    pool.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    Budgeted {
        kept: pool,
        cut_by_destination,
        cut_by_source,
        cut_no_place,
    }
}

/// Each compared page's fingerprint (its vector and title), by matrix row, to tell a
/// reviewer's decision apart from a page that changed since. On both cores: the hash is a
/// byte-serial chain over every vector (1.2 s on one core at 100,000 × 1,536). By row, as the
/// proposals name their pages: a map by page id had been a fifth of building the pool's
/// millions of candidates.
pub(super) fn fingerprints(
    order: &[u32],
    matrix: &[f32],
    dim: usize,
    crawl: &Crawl,
) -> Vec<Arc<str>> {
    order
        .par_iter()
        .enumerate()
        .map(|(r, &f)| {
            let title = crawl
                .internal
                .as_ref()
                .and_then(|i| crawl.crawled.get(&f).map(|&r| i.urls[r].title.as_str()))
                .unwrap_or("");
            review::fingerprint(&matrix[r * dim..(r + 1) * dim], title).into()
        })
        .collect()
}
/// The Queue after carrying an earlier review: its rows, the History rows, and the columns
/// a person added to the earlier Queue (written last in both sheets).
pub(super) struct Carried {
    pub rows: Vec<QueueRow>,
    pub history: Vec<HistoryRow>,
    pub added_columns: Vec<String>,
}

/// The candidates with an earlier review's decisions carried onto them; decided rows that
/// are no longer candidates go to History with why.
pub(super) fn carry_forward(
    config: &RunConfig,
    candidates: Vec<Candidate>,
    crawl: &Crawl,
    pages: &BTreeMap<u32, Page>,
    report: &mut Report,
) -> Result<Carried> {
    let review::Previous {
        rows: previous,
        added_columns,
    } = match &config.previous {
        Some(path) => review::read_previous(path, &config.url_rules, report)
            .with_context(|| format!("reading the earlier review {}", path.display()))?,
        None => review::Previous::default(),
    };
    if let Some(path) = &config.previous {
        let page = |u: &str| crawl.urls.get(u).is_some();
        review::foreign_review_check(
            previous.iter().map(|p| (p.source.as_str(), p.destination.as_str())),
            &page,
        ).map_err(|(known, total)| {
            anyhow::anyhow!(
                "{}: only {known} of its {total} Queue and History rows name a page of this crawl; it looks like the review of another site (or of URLs normalized another way). Check --previous, or leave it out to start a fresh review",
                path.display()
            )
        })?;
    }
    let today = crate::dates::today();
    let gone = |source: &str, destination: &str| -> String {
        let page = |u: &str| {
            crawl
                .urls
                .get(u)
                .map(|id| crawl.resolved[id as usize].0)
                .filter(|f| pages.contains_key(f))
        };
        match (page(source), page(destination)) {
            (Some(s), Some(d)) => match crawl.links.status(s, d) {
                LinkStatus::Body | LinkStatus::BodyNofollow => {
                    format!("a body link exists in this crawl ({today})")
                }
                LinkStatus::ViaRedirect => {
                    format!("a body link exists via a redirect in this crawl ({today})")
                }
                _ => match (&pages[&s].decision.source, &pages[&d].decision.destination) {
                    (Err(why), _) => format!("the source is no longer eligible: {why}"),
                    (_, Err(why)) => format!("the destination is no longer eligible: {why}"),
                    _ => "no longer among the most similar pages".to_string(),
                },
            },
            (None, _) => "the source page is not in this crawl".into(),
            (_, None) => "the destination page is not in this crawl".into(),
        }
    };
    let (rows, history) = review::carry_forward(candidates, previous, &gone, &today);
    Ok(Carried {
        rows,
        history,
        added_columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(s: u32, d: u32, score: f32, placement: Placement) -> Pooled {
        Pooled {
            pages: (s, d),
            proposal: 0,
            score,
            destination_inlinks: 0,
            importance: 1.0,
            placement,
        }
    }

    #[test]
    fn the_budget_keeps_the_best_rows_each_cap_allows() {
        let budget = crate::rank::Budget {
            per_destination: Some(2),
            per_source: Some(2),
        };
        // Destination 9 has four candidates; source 1 proposes to three destinations. Two
        // pairs tie on priority and score: the order between them comes from their URLs.
        // Destination 5's three pairs tie on priority (rounded to a tenth) and differ in
        // score: the two best scores are kept, though the URLs would keep sources 6 and 7.
        // Compared bit for bit: a tie is exact equality.
        let priority = |score| pair(0, 0, score, Placement::NotLooked).priority().to_bits();
        assert_eq!(priority(0.4990), priority(0.4995));
        assert_eq!(priority(0.4990), priority(0.4993));
        let pool = vec![
            pair(6, 5, 0.4990, Placement::NotLooked),
            pair(8, 5, 0.4993, Placement::NotLooked),
            pair(7, 5, 0.4995, Placement::NotLooked),
            pair(1, 9, 0.9, Placement::NotLooked),
            pair(2, 9, 0.8, Placement::NotLooked),
            pair(3, 9, 0.7, Placement::NotLooked),
            pair(4, 9, 0.6, Placement::NotLooked),
            pair(1, 7, 0.5, Placement::NotLooked),
            pair(1, 8, 0.5, Placement::NotLooked),
            pair(
                5,
                6,
                2.0,
                Placement::NoPlace(crate::passage::NoPlace::BelowFloor { best: 0.01 }),
            ),
        ];
        let urls: Vec<String> = (0..10).map(|id| format!("https://e.com/{id}")).collect();
        let b = apply_budget(pool, budget, &|id| urls[id as usize].as_str());
        // Kept rows come back in the pool's order (the Queue is sorted when it is carried).
        let kept: Vec<(u32, u32)> = b.kept.iter().map(|c| c.pages).collect();
        // (1, 7) wins the tie with (1, 8) by its URL and takes source 1's second place.
        assert_eq!(kept, [(8, 5), (7, 5), (1, 9), (2, 9), (1, 7)]);
        assert_eq!(
            (b.cut_by_destination, b.cut_by_source, b.cut_no_place),
            (3, 1, 1)
        );
    }
}
