//! The ranking measures itself on every run: hide a seeded share of the site's own body
//! links, rank on the links that remain, and count how many hidden links come back, against
//! similarity alone with the same number of proposals.
//!
//! Similarity alone is the Moz method: for each destination its [`BASELINE_NEIGHBORS`] most
//! similar pages, those that are eligible and have no (remaining) body link to it, every such
//! pair. N is how many pairs that is; the ranking is judged by its first N proposals after the
//! budget. Only the graph changes, so the neighbour lists are reused; the cost is one more
//! graph (see [`Graph`]) and one more [`rank`](super::rank).

use super::{Graph, Inputs, Options, Proposal, rank};

/// The share of body links hidden.
pub const HIDDEN_SHARE: f64 = 0.10;

/// Similar pages per destination in the similarity-only method (the default `--top-k`).
pub const BASELINE_NEIGHBORS: usize = 5;

/// Destinations the self-check measures at most: beyond this a seeded sample of them, which
/// estimates the same shares at a fraction of the cost on a large site (each destination's
/// candidates are ranked on their own; only the source cap couples them).
pub const MAX_CHECKED_DESTINATIONS: usize = 10_000;

/// `destination_ok` restricted to a seeded sample of about `max` destinations (all of them
/// when there are no more than `max`).
pub fn sample_destinations(destination_ok: &[bool], max: usize, seed: u64) -> Vec<bool> {
    let eligible = destination_ok.iter().filter(|&&ok| ok).count();
    if eligible <= max {
        return destination_ok.to_vec();
    }
    let threshold = (max as f64 / eligible as f64 * 2f64.powi(64)) as u64;
    let key = mix(seed ^ 0xDE57);
    destination_ok
        .iter()
        .enumerate()
        .map(|(t, &ok)| ok && mix(key ^ t as u64) < threshold)
        .collect()
}

/// The seed of the measurement every run reports.
pub const SEED: u64 = 0x1D6E_5EED;

/// What one self-measurement found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfCheck {
    /// The seed used.
    pub seed: u64,
    /// Destinations measured (a sample on large sites, see [`MAX_CHECKED_DESTINATIONS`]).
    pub destinations: usize,
    /// Body links hidden (between a source-eligible and a destination-eligible page).
    pub hidden: usize,
    /// Pairs similarity alone proposes (N).
    pub proposals: usize,
    /// Hidden links among the ranking's first N proposals.
    pub ranked_hits: usize,
    /// Hidden links among similarity alone's N.
    pub similarity_hits: usize,
}

impl SelfCheck {
    /// Share of hidden links the ranking recovers.
    pub fn ranked_share(&self) -> f64 {
        share(self.ranked_hits, self.hidden)
    }

    /// Share of hidden links similarity alone recovers.
    pub fn similarity_share(&self) -> f64 {
        share(self.similarity_hits, self.hidden)
    }

    /// How many times as many hidden links the ranking recovers (`None` if similarity alone
    /// recovers none).
    pub fn ratio(&self) -> Option<f64> {
        (self.similarity_hits > 0).then(|| self.ranked_hits as f64 / self.similarity_hits as f64)
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Hide `share` of `graph`'s links between eligible pages (chosen by a keyed hash of the
/// pair and `seed`, so the choice does not depend on edge order), rank with `options` on the
/// rest, and count recovered links.
pub fn self_check(
    graph: &Graph,
    inputs: &Inputs<'_>,
    options: &Options,
    seed: u64,
    share: f64,
) -> SelfCheck {
    let (hidden, kept) = split(graph, inputs, seed, share);
    let remaining = Graph::new(graph.pages(), &kept);
    drop(kept);
    let baseline = similarity_alone(&remaining, inputs, options);
    let ranking = rank(&remaining, inputs, options);
    let is_hidden = |s: u32, d: u32| hidden.binary_search(&(s, d)).is_ok();
    let count = |pairs: &[Proposal]| {
        pairs
            .iter()
            .filter(|p| is_hidden(p.source, p.destination))
            .count()
    };
    let n = baseline.len();
    SelfCheck {
        seed,
        destinations: inputs.destination_ok.iter().filter(|&&ok| ok).count(),
        hidden: hidden.len(),
        proposals: n,
        ranked_hits: count(&ranking.kept[..n.min(ranking.kept.len())]),
        similarity_hits: count(&baseline),
    }
}

/// Links as (source, destination) pairs.
pub type Links = Vec<(u32, u32)>;

/// (hidden links sorted, remaining links).
pub fn split(graph: &Graph, inputs: &Inputs<'_>, seed: u64, share: f64) -> (Links, Links) {
    // `share` of the u64 range; 1.0 and above hide every eligible link.
    let threshold = if share >= 1.0 {
        u64::MAX
    } else {
        (share.max(0.0) * 2f64.powi(64)) as u64
    };
    let key = mix(seed);
    let mut hidden = Vec::new();
    let mut kept = Vec::with_capacity(graph.links());
    for (s, d) in graph.edges() {
        let eligible = inputs.source_ok[s as usize] && inputs.destination_ok[d as usize];
        if eligible && mix(key ^ (u64::from(s) << 32 | u64::from(d))) < threshold {
            hidden.push((s, d));
        } else {
            kept.push((s, d));
        }
    }
    (hidden, kept)
}

/// The similarity-only proposals on `graph`.
fn similarity_alone(graph: &Graph, inputs: &Inputs<'_>, options: &Options) -> Vec<Proposal> {
    let mut pairs = Vec::new();
    for (t, list) in inputs.neighbors.iter().enumerate() {
        let t = t as u32;
        if !inputs.destination_ok[t as usize] {
            continue;
        }
        for nb in list.iter().take(BASELINE_NEIGHBORS) {
            let r = nb.id;
            if r != t
                && inputs.source_ok[r as usize]
                && nb.score < options.near_duplicate
                && !graph.has_link(r, t)
            {
                let features = super::Features {
                    similarity: nb.score,
                    links_back: false,
                    via_pages: 0,
                    like_pages: 0,
                };
                pairs.push(Proposal {
                    source: r,
                    destination: t,
                    score: nb.score,
                    features,
                });
            }
        }
    }
    pairs
}

/// The `SplitMix64` finaliser: a well-mixed 64-bit hash, the keyed choice of hidden links.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
