//! The analysis once the neighbours are known: each neighbour pair's link status (body link,
//! template only, not found, near-duplicate) and the counts the Summary and Run sheets give.

use std::collections::{BTreeMap, HashSet};

use crate::config::RunConfig;
use crate::links::{LinkSet, LinkStatus};
use crate::neighbors::Neighbor;
use crate::normalize::identity::UrlTable;

/// Neighbour pairs by status, and the opportunities among them.
pub(super) struct Counts {
    pub(super) opportunities: usize,
    pub(super) near_duplicates: usize,
    pub(super) by_status: BTreeMap<LinkStatus, usize>,
}

/// The neighbour lists with what the run needs to read them: URLs, link statuses.
pub(super) struct Analysis<'a> {
    pub(super) config: &'a RunConfig,
    pub(super) urls: &'a UrlTable,
    /// Page ids in matrix order: a neighbour's id is a position here.
    pub(super) order: &'a [u32],
    pub(super) targets: &'a [u32],
    /// Inbound neighbours of each target, in `targets` order.
    pub(super) found: &'a [Vec<Neighbor>],
    pub(super) outbound: &'a [(u32, Vec<Neighbor>)],
    pub(super) links: &'a LinkSet,
}

impl Analysis<'_> {
    /// The URL of the page at matrix row `rank`.
    pub(super) fn url(&self, rank: u32) -> &str {
        self.urls.url(self.order[rank as usize])
    }

    /// The page id at matrix row `rank`.
    pub(super) fn page_id(&self, rank: u32) -> u32 {
        self.order[rank as usize]
    }

    /// A pair's status: near-duplicates first, else what the crawl's links say.
    pub(super) fn status(&self, source: u32, destination: u32, score: f32) -> LinkStatus {
        if score >= self.config.near_duplicate {
            LinkStatus::NearDuplicate
        } else {
            self.links.status(source, destination)
        }
    }

    pub(super) fn counts(&self) -> Counts {
        let mut by_status = BTreeMap::new();
        let mut near = HashSet::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours {
                let status = self.status(self.page_id(n.id), *t, n.score);
                *by_status.entry(status).or_insert(0) += 1;
                if status == LinkStatus::NearDuplicate {
                    let s = self.page_id(n.id);
                    near.insert(if s < *t { (s, *t) } else { (*t, s) });
                }
            }
        }
        let opportunities = by_status
            .iter()
            .filter(|(s, _)| s.is_opportunity())
            .map(|(_, n)| n)
            .sum();
        Counts {
            opportunities,
            near_duplicates: near.len(),
            by_status,
        }
    }
}
