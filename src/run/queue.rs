//! The review queue: directed candidates from the neighbour lists, each page's fingerprint,
//! and the decisions of an earlier review carried onto them (or into History).

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::importance::CrawlImportance;
use crate::links::LinkStatus;
use crate::report::Report;
use crate::review::{self, Candidate, FoundVia, HistoryRow, QueueRow};

use super::analysis::Analysis;
use super::pages::Page;
use std::collections::BTreeMap;

/// The destinations' crawl signals (Search Console, Google Analytics, Link Score): the
/// importance they give and the values the Queue shows.
pub(super) struct DestinationSignals {
    /// Weights from the signals; used unless `--priority-urls` was given.
    pub(super) importance: CrawlImportance,
    values: HashMap<u32, Arc<[Option<f64>]>>,
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

/// Directed candidates: Not found or Template link only pairs, found inbound (the source is
/// among the destination's neighbours) or outbound (the reverse), merged.
pub(super) fn candidates(
    analysis: &Analysis<'_>,
    body: &HashMap<u32, Vec<u32>>,
    fingerprints: &HashMap<u32, Arc<str>>,
    signals: Option<&DestinationSignals>,
) -> Vec<Candidate> {
    let mut pairs: HashMap<(u32, u32), (f32, u32, FoundVia)> = HashMap::new();
    let mut add = |s: u32, d: u32, score: f32, rank: u32, via: FoundVia| {
        let e = pairs.entry((s, d)).or_insert((score, rank, via));
        if e.2 != via {
            e.2 = FoundVia::Both;
        }
        e.1 = e.1.min(rank);
    };
    for (t, neighbours) in analysis.targets.iter().zip(analysis.found) {
        for (i, n) in neighbours.iter().enumerate() {
            add(
                analysis.page_id(n.id),
                *t,
                n.score,
                i as u32 + 1,
                FoundVia::Inbound,
            );
        }
    }
    for (s, neighbours) in analysis.outbound {
        for (i, n) in neighbours.iter().enumerate() {
            add(
                *s,
                analysis.page_id(n.id),
                n.score,
                i as u32 + 1,
                FoundVia::Outbound,
            );
        }
    }
    // One shared copy of each page's URL, however many pairs it is in.
    let mut shared: HashMap<u32, Arc<str>> = HashMap::new();
    let mut url = |id: u32| {
        shared
            .entry(id)
            .or_insert_with(|| analysis.urls.url(id).into())
            .clone()
    };
    let no_fingerprint: Arc<str> = Arc::from("");
    let fingerprint = |id: u32| fingerprints.get(&id).unwrap_or(&no_fingerprint).clone();
    let config = analysis.config;
    let no_signals: Arc<[Option<f64>]> = signals.map_or_else(
        || Arc::from([]),
        |s| std::iter::repeat_n(None, s.importance.shown.len()).collect(),
    );
    // `--priority-urls` wins over the crawl's signals.
    let crawl_weight = signals
        .filter(|_| config.importance.is_empty())
        .map(|s| &s.importance);
    pairs
        .into_iter()
        .filter_map(|((s, d), (score, rank, via))| {
            let status = analysis.status(s, d, score);
            status.is_opportunity().then(|| {
                let destination = url(d);
                Candidate {
                    source: url(s),
                    importance: crawl_weight
                        .map_or_else(|| config.importance.weight(&destination), |w| w.weight(d)),
                    destination,
                    similarity: score,
                    rank,
                    found_via: via,
                    existing: if status == LinkStatus::TemplateOnly {
                        "template only"
                    } else {
                        "none"
                    },
                    destination_inlinks: body.get(&d).map_or(0, Vec::len) as u32,
                    source_fingerprint: fingerprint(s),
                    destination_fingerprint: fingerprint(d),
                    destination_signals: signals
                        .map(|s| s.values.get(&d).unwrap_or(&no_signals).clone()),
                }
            })
        })
        .collect()
}

/// Each compared page's fingerprint (its vector and title), to tell a reviewer's decision
/// apart from a page that changed since.
pub(super) fn fingerprints(
    order: &[u32],
    matrix: &[f32],
    dim: usize,
    crawl: &Crawl,
) -> HashMap<u32, Arc<str>> {
    order
        .iter()
        .enumerate()
        .map(|(r, &f)| {
            let title = crawl
                .internal
                .as_ref()
                .and_then(|i| crawl.crawled.get(&f).map(|&r| i.urls[r].title.as_str()))
                .unwrap_or("");
            (
                f,
                review::fingerprint(&matrix[r * dim..(r + 1) * dim], title).into(),
            )
        })
        .collect()
}

/// The candidates with an earlier review's decisions carried onto them; decided rows that
/// are no longer candidates go to History with why.
pub(super) fn carry_forward(
    config: &RunConfig,
    candidates: Vec<Candidate>,
    crawl: &Crawl,
    pages: &BTreeMap<u32, Page>,
    report: &mut Report,
) -> Result<(Vec<QueueRow>, Vec<HistoryRow>)> {
    let previous = match &config.previous {
        Some(path) => review::read_previous(path, &config.url_rules, report)
            .with_context(|| format!("reading the earlier review {}", path.display()))?,
        None => Vec::new(),
    };
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
                _ if pages[&s].decision.source.is_err() => format!(
                    "the source is no longer eligible: {}",
                    pages[&s].decision.source.clone().err().unwrap_or_default()
                ),
                _ if pages[&d].decision.destination.is_err() => format!(
                    "the destination is no longer eligible: {}",
                    pages[&d]
                        .decision
                        .destination
                        .clone()
                        .err()
                        .unwrap_or_default()
                ),
                _ => "no longer among the most similar pages".to_string(),
            },
            (None, _) => "the source page is not in this crawl".into(),
            (_, None) => "the destination page is not in this crawl".into(),
        }
    };
    Ok(review::carry_forward(candidates, previous, &gone, &today))
}
