//! The ranking stage as the run needs it: the compared pages as dense ids (matrix rows), their
//! roles, the body-link graph between them and each destination's neighbour list, handed to
//! [`crate::rank`]; then the run's own self-check of that ranking.

use std::collections::BTreeMap;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::neighbors::Neighbor;
use crate::rank::{self, Graph, Inputs, Ranking, SelfCheck};

use super::pages::Page;
use super::search::Compared;

/// The ranking's result and its self-measurement.
pub(super) struct Ranked {
    pub(super) ranking: Ranking,
    /// Hidden-link recovery, unless switched off.
    pub(super) check: Option<SelfCheck>,
    /// Eligible destinations.
    pub(super) destinations: usize,
    /// With page text, the candidates pooled per destination for the passages to reorder.
    pub(super) pooled: Option<usize>,
}

/// Body links between compared pages, as matrix rows (direct, nofollow or via a redirect:
/// every link a reader can follow in the text).
fn body_edges(crawl: &Crawl, compared: &Compared) -> Vec<(u32, u32)> {
    let mut edges = Vec::new();
    for (d, sources) in crawl.links.body_sources().iter() {
        let Some(t) = compared.row(d) else {
            continue;
        };
        edges.extend(
            sources
                .iter()
                .filter_map(|&s| compared.row(s))
                .map(|r| (r, t)),
        );
    }
    edges
}

/// Rank the candidate links of every destination with the site's link graph. `neighbors`
/// are the destinations' lists by matrix row; `floor` the similarity of unrelated pages.
pub(super) fn rank(
    config: &RunConfig,
    compared: &Compared,
    pages: &BTreeMap<u32, Page>,
    crawl: &Crawl,
    neighbors: &[Vec<Neighbor>],
    (matrix, dim): (&[f32], usize),
    floor: f32,
) -> Ranked {
    let n = compared.order.len();
    let role = |ok: fn(&Page) -> bool| -> Vec<bool> {
        compared.order.iter().map(|f| ok(&pages[f])).collect()
    };
    let source_ok = role(|p| p.decision.source.is_ok());
    let destination_ok = role(|p| p.decision.destination.is_ok());
    let cosine = rank::dot_rows(matrix, dim);
    let inputs = Inputs {
        neighbors,
        cosine: &cosine,
        source_ok: &source_ok,
        destination_ok: &destination_ok,
    };
    let graph = Graph::new(n, &body_edges(crawl, compared));
    let options = rank::Options {
        min_similarity: floor,
        ..config.ranking
    };
    let check = config.self_check.then(|| {
        let sampled = rank::holdout::sample_destinations(
            &destination_ok,
            rank::holdout::MAX_CHECKED_DESTINATIONS,
            rank::holdout::SEED,
        );
        let checked = Inputs {
            destination_ok: &sampled,
            ..inputs
        };
        rank::self_check(
            &graph,
            &checked,
            &options,
            rank::holdout::SEED,
            rank::holdout::HIDDEN_SHARE,
        )
    });
    // The Queue's pool: several times the destination cap per destination and no source
    // cap yet, so the passage found in the page text can still reorder the pool before the
    // budget (see `queue::apply_budget`).
    // Without page text nothing can reorder the pool: the budget applies at once.
    let destinations = destination_ok.iter().filter(|&&ok| ok).count();
    let pooled = config.inputs.page_text.as_ref().and_then(|_| {
        options
            .budget
            .per_destination
            .map(|c| c.saturating_mul(pool_depth(destinations, c)))
    });
    let pool = if config.inputs.page_text.is_some() {
        rank::Options {
            budget: rank::Budget {
                per_destination: pooled,
                per_source: None,
            },
            ..options
        }
    } else {
        options
    };
    let ranking = rank::rank(&graph, &inputs, &pool);
    Ranked {
        ranking,
        check,
        destinations,
        pooled,
    }
}

/// Pooled rows the passage stage scores and holds until the budget, at most, unless four
/// times the cap is more: a site of up to 6,250 destinations pools 16× the cap of 5, one of
/// 25,000 or more 4×.
const POOL_ROWS: usize = 500_000;

/// How many times the destination cap the pool holds per destination with page text: as deep
/// as [`POOL_ROWS`] allows, 4 to 16. Deeper finds more: the passage is evidence a link
/// belongs, and a candidate further down the similarity order with a natural place beats one
/// without. Held out (benches/quality.sh, postgres15, git's manual pages and two generated
/// sites, two seeds each; docs/quality.md), queue@N against 4×: 2× lost 8–13%, 8× gained 2–13%,
/// 16× 5–22%. Every pooled row is scored and held until the budget, so the depth is bounded by
/// rows: at 100,000 pages 8× took the peak memory from 1.35 to 1.91 GB (1.8× the run without
/// page text, over issue 16's 1.5×), and at 20,000 pages 16× from 367 to 697 MB (2.6×).
fn pool_depth(destinations: usize, cap: usize) -> usize {
    (POOL_ROWS / destinations.saturating_mul(cap).max(1)).clamp(4, 16)
}

/// The budget in words, for the Summary and Run sheets: what the ranking's pool cut, then
/// what the final budget kept and cut.
pub(super) fn budget_text(
    ranked: &Ranked,
    budget: rank::Budget,
    budgeted: &super::queue::Budgeted,
) -> String {
    let (kept, cut_d, cut_s, no_place) = (
        budgeted.kept.len(),
        budgeted.cut_by_destination,
        budgeted.cut_by_source,
        budgeted.cut_no_place,
    );
    let r = &ranked.ranking;
    let caps = match (budget.per_destination, budget.per_source) {
        (None, None) => "no budget (--queue all): every candidate is kept".to_string(),
        (d, s) => {
            let cap = |c: Option<usize>, what: &str| {
                c.map_or_else(
                    || format!("no cap per {what}"),
                    |c| format!("at most {c} per {what}"),
                )
            };
            format!(
                "new links {}, {}",
                cap(d, "destination"),
                cap(s, "source page")
            )
        }
    };
    let no_place = if no_place > 0 {
        format!(", {no_place} because the source's text has no natural place for the link")
    } else {
        String::new()
    };
    let pooled = ranked.pooled.map_or_else(String::new, |p| {
        format!(" (the best {p} per destination scored for a passage first)")
    });
    format!(
        "{caps}; {} candidates ranked{pooled}, {} kept, {} cut by the destination cap, {} by the source cap{no_place} (every target's neighbours stay in Opportunities)",
        r.candidates,
        kept,
        r.cut_by_destination + cut_d,
        r.cut_by_source + cut_s
    )
}

/// The self-check in words: the evidence that the Queue's order means something.
pub(super) fn check_text(ranked: &Ranked) -> String {
    let Some(c) = ranked.check else {
        return "not measured (--no-self-check)".into();
    };
    if c.hidden == 0 {
        return "not measured: the site has no body links between eligible pages to hide".into();
    }
    let sample = if c.destinations < ranked.destinations {
        format!(" into a sample of {} destinations", c.destinations)
    } else {
        String::new()
    };
    format!(
        "with {} of this site's body links{sample} hidden (10%, seed {:#x}), the ranking's first {} proposals find {} of them again ({:.0}%); similarity alone, with the same number of proposals, finds {} ({:.0}%)",
        c.hidden,
        c.seed,
        c.proposals,
        c.ranked_hits,
        100.0 * c.ranked_share(),
        c.similarity_hits,
        100.0 * c.similarity_share()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_is_as_deep_as_its_row_budget_allows() {
        // Large sites keep the depth they always had; small sites go deeper.
        assert_eq!(pool_depth(100_000, 5), 4);
        assert_eq!(pool_depth(1_000_000, 5), 4);
        assert_eq!(pool_depth(25_000, 5), 4);
        assert_eq!(pool_depth(12_500, 5), 8);
        assert_eq!(pool_depth(6_250, 5), 16);
        assert_eq!(pool_depth(1_200, 5), 16);
        assert_eq!(pool_depth(0, 5), 16);
        assert!(pool_depth(10_000, 5) * 10_000 * 5 <= POOL_ROWS);
    }
}
