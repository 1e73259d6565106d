//! Ranking candidate links with link-graph evidence, a budget, and a self-measurement.
//!
//! This module owns the order of the Queue: which source → destination pairs are proposed,
//! their score, the evidence a client reads ("3 pages the source links to link here"), the
//! budget (at most so many new links per destination and per source), and the per-run check
//! of that order against similarity alone ([`holdout`]). It works on dense page ids `0..n`;
//! the caller maps pages to ids, decides eligibility and finds each page's most similar
//! pages. Nothing here reads files or knows URLs.
//!
//! For a destination `t` and a candidate source `r`, over the body-link [`Graph`]:
//! - `cos(r, t)`, the cosine similarity of their vectors;
//! - `[t → r]`: `t` already links to `r` (a link back);
//! - `p2[r]`: non-hub pages `x` with `r → x → t` (pages the source links to that link here);
//! - `kn[r]`: non-hub pages among `t`'s [`SIMILAR_PAGES`] most similar pages that `r` links to.
//!
//! `score = cos + 0.5·[t→r] + 0.25·ln(1+p2) + 0.25·ln(1+kn)`: with no graph evidence it is
//! cosine alone, and scores are comparable across destinations. Measured on real sites in
//! `docs/method.md` (and by every run's [`holdout::self_check`]).

pub mod graph;
pub mod holdout;

use std::fmt;

use rayon::prelude::*;

pub use graph::{Graph, HUB_LINKS};
pub use holdout::{SelfCheck, self_check};

use crate::neighbors::{Neighbor, dot, dots};

/// How many of each destination's most similar pages are candidates: the caller runs the
/// neighbour search with this k. On postgres15 (5 seeds) every k from 10 to 50 recovers
/// exactly the same hidden links and k = 5 loses 4–8%; 20 keeps a margin over 10 (it must be
/// at least [`SIMILAR_PAGES`]) at 40% of the list memory of 50.
pub const CANDIDATE_NEIGHBORS: usize = 20;

/// How many of a destination's most similar pages count for `kn`.
pub const SIMILAR_PAGES: usize = 10;

/// Default similarity (0–1) from which a pair is a near-duplicate: listed for review, never
/// proposed.
pub const NEAR_DUPLICATE: f64 = 0.95;

/// Default budget: new links proposed per destination.
pub const PER_DESTINATION: usize = 5;

/// Default budget: new links proposed per source page: about what one person adds to one
/// page in one edit. Measured on postgres15 (hidden 10%, 5 seeds, 5 per destination), the
/// first N proposals recover 1.31× / 1.70× / 2.09× / 2.25× / 2.36× / 2.61× the hidden links
/// similarity alone does with a source cap of 3 / 5 / 10 / 15 / 20 / none (`docs/ranking.md`).
pub const PER_SOURCE: usize = 15;

/// Weight of a link back (`t → r`) in the score.
pub const W_LINK_BACK: f32 = 0.5;
/// Weight of `ln(1 + p2)`.
pub const W_VIA_PAGES: f32 = 0.25;
/// Weight of `ln(1 + kn)`.
pub const W_LIKE_PAGES: f32 = 0.25;

/// What the ranking sees of the site besides the link graph.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// For every page id, its most similar source pages, most similar first, ids being page
    /// ids, at least [`CANDIDATE_NEIGHBORS`] long where the site allows (shorter lists just
    /// propose fewer pairs); empty for pages that are not destinations.
    pub neighbors: &'a [Vec<Neighbor>],
    /// Cosine similarity of two pages (a dot product of L2-normalised rows), for candidates
    /// found through the graph rather than the neighbour list. See [`dot_rows`].
    pub cosine: &'a dyn Cosine,
    /// Whether each page may carry a new link.
    pub source_ok: &'a [bool],
    /// Whether each page may receive one.
    pub destination_ok: &'a [bool],
}

/// The cosine similarity of two pages, by page id.
pub trait Cosine: Sync {
    /// The cosine of `a` and `b`.
    fn cosine(&self, a: u32, b: u32) -> f32;

    /// The cosine of `t` with each of `rs`, into `out` (cleared first), in order; each the
    /// same bits as [`Cosine::cosine`] gives.
    fn cosines(&self, t: u32, rs: &[u32], out: &mut Vec<f32>) {
        out.clear();
        out.extend(rs.iter().map(|&r| self.cosine(r, t)));
    }
}

impl<F: Fn(u32, u32) -> f32 + Sync> Cosine for F {
    fn cosine(&self, a: u32, b: u32) -> f32 {
        self(a, b)
    }
}

/// Row-major, L2-normalised rows of `dim` floats: a page's row is its id.
pub struct DotRows<'a> {
    data: &'a [f32],
    dim: usize,
}

/// [`Cosine`] over row-major, L2-normalised rows of `dim` floats.
pub fn dot_rows(data: &[f32], dim: usize) -> DotRows<'_> {
    DotRows { data, dim }
}

impl DotRows<'_> {
    fn row(&self, a: u32) -> &[f32] {
        let a = a as usize * self.dim;
        &self.data[a..a + self.dim]
    }
}

impl Cosine for DotRows<'_> {
    fn cosine(&self, a: u32, b: u32) -> f32 {
        dot(self.row(a), self.row(b))
    }

    /// Four rows at a time: the rows are read at random (a destination's candidates through
    /// the graph), and four reads wait on memory together ([`crate::neighbors::dots`]).
    fn cosines(&self, t: u32, rs: &[u32], out: &mut Vec<f32>) {
        const WAY: usize = 4;
        out.clear();
        let x = self.row(t);
        let (fours, rest) = rs.as_chunks::<WAY>();
        for four in fours {
            out.extend(dots(x, four.map(|r| self.row(r))));
        }
        out.extend(rest.iter().map(|&r| dot(self.row(r), x)));
    }
}

/// At most so many new links per destination and per source; `None` is unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// New links proposed to one destination.
    pub per_destination: Option<usize>,
    /// New links proposed on one source page.
    pub per_source: Option<usize>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            per_destination: Some(PER_DESTINATION),
            per_source: Some(PER_SOURCE),
        }
    }
}

impl Budget {
    /// No caps (`--queue all`).
    pub const UNLIMITED: Budget = Budget {
        per_destination: None,
        per_source: None,
    };
}

/// Settings of one ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The caps.
    pub budget: Budget,
    /// How many of each neighbour list are candidates (the lists may be longer).
    pub neighbors: usize,
    /// Pairs at least this similar are near-duplicates and never proposed.
    pub near_duplicate: f32,
    /// Pairs no more similar than this (the site's unrelated pages) are never proposed,
    /// whatever the graph says.
    pub min_similarity: f32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: Budget::default(),
            neighbors: CANDIDATE_NEIGHBORS,
            near_duplicate: NEAR_DUPLICATE as f32,
            min_similarity: f32::NEG_INFINITY,
        }
    }
}

/// The evidence for one proposal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    /// Cosine similarity of source and destination.
    pub similarity: f32,
    /// The destination already links to the source.
    pub links_back: bool,
    /// `p2`: non-hub pages the source links to that link to the destination (saturating).
    pub via_pages: u16,
    /// `kn`: non-hub pages among the destination's most similar that the source links to.
    pub like_pages: u8,
}

impl Features {
    /// The fixed formula (see the module documentation).
    pub fn score(&self) -> f32 {
        self.similarity
            + if self.links_back { W_LINK_BACK } else { 0.0 }
            + W_VIA_PAGES * f32::from(self.via_pages).ln_1p()
            + W_LIKE_PAGES * f32::from(self.like_pages).ln_1p()
    }
}

/// A proposed new body link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proposal {
    /// Page that would carry the link.
    pub source: u32,
    /// Page it would link to.
    pub destination: u32,
    /// [`Features::score`]; higher first.
    pub score: f32,
    /// Why.
    pub features: Features,
}

impl Proposal {
    /// The evidence in words.
    pub fn evidence(&self) -> Evidence {
        Evidence(self.features)
    }

    /// Whether the link would only add the reverse of an existing one (the destination
    /// already links to the source), so a user can filter these.
    pub fn is_reverse(&self) -> bool {
        self.features.links_back
    }
}

/// Client-readable evidence, e.g. "links back to the source page; 3 pages the source links
/// to link here; similar: 0.81".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence(pub Features);

impl Evidence {
    /// "reverse of an existing link" or "new link", for a filterable column.
    pub fn kind(&self) -> &'static str {
        if self.0.links_back {
            "reverse of an existing link"
        } else {
            "new link"
        }
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        if e.links_back {
            f.write_str("links back to the source page; ")?;
        }
        match e.via_pages {
            0 => {}
            1 => f.write_str("1 page the source links to links here; ")?,
            n => write!(f, "{n} pages the source links to link here; ")?,
        }
        match e.like_pages {
            0 => {}
            1 => f.write_str("the source links to 1 page like this one; ")?,
            n => write!(f, "the source links to {n} pages like this one; ")?,
        }
        write!(f, "similar: {:.2}", e.similarity)
    }
}

/// What a ranking kept and cut.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ranking {
    /// Kept proposals, best first (score, then destination, then source).
    pub kept: Vec<Proposal>,
    /// Candidate pairs before the budget.
    pub candidates: usize,
    /// Candidates cut because their destination already had its share.
    pub cut_by_destination: usize,
    /// Candidates cut because their source already had its share.
    pub cut_by_source: usize,
}

/// Rank every destination's candidates and apply the budget.
///
/// Candidates for a destination `t` (destination-eligible): the first `options.neighbors` of
/// its neighbour list, the pages it links to, and every page with `p2` or `kn` above zero;
/// never `t` itself, a page that is not source-eligible, a page that already has a body link
/// to `t`, or a near-duplicate. The budget is applied greedily in score order over the whole
/// site, so a source's share goes to its strongest proposals.
///
/// Memory: per thread, 8 bytes per page of scratch; then 20 bytes per candidate kept for the
/// budget pass (with a per-destination cap `c`, at most `4c` per destination are kept for it:
/// a lower one could only survive if three of the four above were cut by the source cap; the
/// rest count as cut by the destination cap).
pub fn rank(graph: &Graph, inputs: &Inputs<'_>, options: &Options) -> Ranking {
    let n = graph.pages();
    assert!(
        inputs.neighbors.len() == n
            && inputs.source_ok.len() == n
            && inputs.destination_ok.len() == n,
        "inputs must cover every page"
    );
    // Without a source cap a destination keeps exactly its best `c`: nothing past them can
    // survive the budget, so only they are sorted with the rest of the site (a page-text
    // run's pool is 20 a destination: four times as many would be 8 M rows to sort at 100k).
    let pool = match options.budget {
        Budget {
            per_destination: Some(c),
            per_source: None,
        } => Some(c),
        Budget {
            per_destination, ..
        } => per_destination.map(|c| c.saturating_mul(4)),
    };
    let per_destination: Vec<(Vec<Proposal>, usize)> = (0..n as u32)
        .into_par_iter()
        .map_init(
            || Scratch::new(n),
            |scratch, t| {
                let mut found = scratch.candidates(graph, inputs, options, t);
                let total = found.len();
                found.sort_unstable_by(best_first);
                if let Some(pool) = pool {
                    found.truncate(pool);
                    // Give back the rest: hundreds of candidates a page on a dense graph.
                    found.shrink_to_fit();
                }
                (found, total)
            },
        )
        .collect();
    let candidates = per_destination.iter().map(|(_, total)| total).sum();
    let pooled: usize = per_destination.iter().map(|(p, _)| p.len()).sum();
    let mut all: Vec<Proposal> = Vec::with_capacity(pooled);
    for (p, _) in per_destination {
        all.extend(p);
    }
    all.par_sort_unstable_by(best_first);
    let mut ranking = apply_budget(all, n, options.budget);
    ranking.candidates = candidates;
    ranking.cut_by_destination += candidates - pooled;
    ranking
}

fn best_first(a: &Proposal, b: &Proposal) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.destination.cmp(&b.destination))
        .then(a.source.cmp(&b.source))
}

/// Keep proposals in order while both their destination and source have room.
fn apply_budget(sorted: Vec<Proposal>, pages: usize, budget: Budget) -> Ranking {
    let (cap_d, cap_s) = (
        budget.per_destination.unwrap_or(usize::MAX),
        budget.per_source.unwrap_or(usize::MAX),
    );
    let mut to = vec![0u32; pages];
    let mut from = vec![0u32; pages];
    let mut ranking = Ranking {
        candidates: sorted.len(),
        ..Ranking::default()
    };
    for p in sorted {
        let (d, s) = (p.destination as usize, p.source as usize);
        if to[d] as usize >= cap_d {
            ranking.cut_by_destination += 1;
        } else if from[s] as usize >= cap_s {
            ranking.cut_by_source += 1;
        } else {
            to[d] += 1;
            from[s] += 1;
            ranking.kept.push(p);
        }
    }
    ranking
}

/// Per-thread counters over all pages, reset after each destination by the touched list.
struct Scratch {
    via: Vec<u16>,
    like: Vec<u8>,
    /// Cosine when the page is in the destination's neighbour list, else NaN.
    cos: Vec<f32>,
    seen: Vec<bool>,
    touched: Vec<u32>,
    /// One destination's candidates before their similarity is known, those whose
    /// similarity the neighbour list lacks, and those similarities (reused buffers).
    pending: Vec<(u32, Features)>,
    unknown: Vec<u32>,
    similarities: Vec<f32>,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch {
            via: vec![0; n],
            like: vec![0; n],
            cos: vec![f32::NAN; n],
            seen: vec![false; n],
            touched: Vec::new(),
            pending: Vec::new(),
            unknown: Vec::new(),
            similarities: Vec::new(),
        }
    }

    fn touch(&mut self, r: u32) {
        if !self.seen[r as usize] {
            self.seen[r as usize] = true;
            self.touched.push(r);
        }
    }

    /// The candidates of destination `t` with their features, unsorted.
    fn candidates(
        &mut self,
        graph: &Graph,
        inputs: &Inputs<'_>,
        options: &Options,
        t: u32,
    ) -> Vec<Proposal> {
        if !inputs.destination_ok[t as usize] {
            return Vec::new();
        }
        let list = &inputs.neighbors[t as usize];
        // kn: who links to the pages most like t.
        for x in list.iter().take(SIMILAR_PAGES).map(|nb| nb.id) {
            if x != t && !graph.is_hub(x) {
                for &r in graph.links_in(x) {
                    self.like[r as usize] = self.like[r as usize].saturating_add(1);
                    self.touch(r);
                }
            }
        }
        // p2: two-step paths r → x → t through non-hub pages.
        for &x in graph.links_in(t) {
            if !graph.is_hub(x) {
                for &r in graph.links_in(x) {
                    self.via[r as usize] = self.via[r as usize].saturating_add(1);
                    self.touch(r);
                }
            }
        }
        for nb in list.iter().take(options.neighbors) {
            self.cos[nb.id as usize] = nb.score;
            self.touch(nb.id);
        }
        for &r in graph.links_out(t) {
            self.touch(r);
        }
        // The pairs that can be proposed, with their graph features; the similarities the
        // neighbour list lacks are computed together afterwards (`Cosine::cosines`).
        let mut pending = std::mem::take(&mut self.pending);
        let mut unknown = std::mem::take(&mut self.unknown);
        let mut touched = std::mem::take(&mut self.touched);
        // `has_link(r, t)` searches t's incoming list, the same one for the whole loop; the
        // link back is looked up in t's outgoing list for the same reason (`has_link(t, r)`
        // would search each touched page's incoming list, one cache miss per pair: 2% of a
        // 100,000-page run's samples).
        let links_out = graph.links_out(t);
        for &r in &touched {
            let i = r as usize;
            let (via_pages, like_pages, known) = (self.via[i], self.like[i], self.cos[i]);
            (self.via[i], self.like[i], self.cos[i], self.seen[i]) = (0, 0, f32::NAN, false);
            if r == t || !inputs.source_ok[i] || graph.has_link(r, t) {
                continue;
            }
            if known.is_nan() {
                unknown.push(r);
            }
            let features = Features {
                similarity: known,
                links_back: links_out.binary_search(&r).is_ok(),
                via_pages,
                like_pages,
            };
            pending.push((r, features));
        }
        inputs.cosine.cosines(t, &unknown, &mut self.similarities);
        let mut computed = self.similarities.iter();
        // Only the pairs kept are pushed: the lists of all destinations are held together
        // afterwards, and a list grown to every touched page would hold that much capacity.
        let mut found = Vec::new();
        for (r, mut f) in pending.drain(..) {
            if f.similarity.is_nan() {
                // One per unknown pair, in the same order.
                f.similarity = computed.next().copied().unwrap_or(f32::NAN);
            }
            if f.similarity >= options.near_duplicate || f.similarity <= options.min_similarity {
                continue;
            }
            found.push(Proposal {
                source: r,
                destination: t,
                score: f.score(),
                features: f,
            });
        }
        unknown.clear();
        self.pending = pending;
        self.unknown = unknown;
        touched.clear();
        self.touched = touched;
        found
    }
}

#[cfg(test)]
mod tests;
