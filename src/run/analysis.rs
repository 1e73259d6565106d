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

/// Random pairs sampled to measure how similar unrelated pages are.
const UNRELATED_SAMPLE: usize = 2_000;

/// How similar two unrelated pages of this site are: the median cosine of a fixed sample of
/// pairs (`matrix` holds `dim`-wide unit rows). Models differ a lot here — some put unrelated
/// text near 0, others near 0.7 — so a fixed floor would be wrong for one or the other. A
/// pair no more similar than this is not a link candidate, and never below 0.
pub(super) fn unrelated_similarity(matrix: &[f32], dim: usize) -> f32 {
    let n = matrix.len() / dim.max(1);
    if n < 3 {
        return 0.0;
    }
    // A fixed sequence (Weyl increments, then a multiplicative mix), so runs are reproducible
    // without a random generator.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    let row = |i: usize| &matrix[i * dim..(i + 1) * dim];
    let mut scores: Vec<f32> = (0..UNRELATED_SAMPLE)
        .filter_map(|_| {
            let (a, b) = (next(), next());
            (a != b).then(|| row(a).iter().zip(row(b)).map(|(x, y)| x * y).sum())
        })
        .collect();
    if scores.is_empty() {
        return 0.0;
    }
    let mid = scores.len() / 2;
    let (_, median, _) = scores.select_nth_unstable_by(mid, f32::total_cmp);
    median.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::unrelated_similarity;

    #[test]
    fn unrelated_level_is_the_typical_random_pair() {
        // Orthogonal unit rows: unrelated pages score 0.
        let dim = 8;
        let mut m = vec![0.0f32; 8 * dim];
        for i in 0..8 {
            m[i * dim + i] = 1.0;
        }
        assert!(unrelated_similarity(&m, dim).abs() < 1e-6);
        // Every row the same direction plus a little of its own: random pairs score high.
        let mut m = vec![0.0f32; 8 * dim];
        for i in 0..8 {
            m[i * dim] = 0.9;
            m[i * dim + 1 + (i % 7)] = (1.0f32 - 0.81).sqrt();
        }
        let level = unrelated_similarity(&m, dim);
        assert!(level > 0.8, "{level}");
        // Anti-correlated halves never give a negative floor.
        let m = vec![1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0];
        assert!(unrelated_similarity(&m, 2) >= 0.0);
    }
}
