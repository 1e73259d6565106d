//! The ranking stage as the run needs it: the compared pages as dense ids (matrix rows), their
//! roles, the body-link graph between them and each destination's neighbour list, handed to
//! [`crate::rank`]; then the run's own self-check of that ranking.

use std::collections::BTreeMap;

use crate::config::RunConfig;
use crate::crawl::Crawl;
use crate::neighbors::Neighbor;
use crate::rank::{self, Graph, Inputs, Ranking, SelfCheck};

use super::pages::Page;
use super::search::{Compared, Found};

/// The ranking's result and its self-measurement.
pub(super) struct Ranked {
    pub(super) ranking: Ranking,
    /// Hidden-link recovery, unless switched off.
    pub(super) check: Option<SelfCheck>,
}

/// Body links between compared pages, as matrix rows (direct, nofollow or via a redirect:
/// every link a reader can follow in the text).
fn body_edges(crawl: &Crawl, compared: &Compared) -> Vec<(u32, u32)> {
    let mut edges = Vec::new();
    for (d, sources) in crawl.links.body_sources() {
        let Some(&t) = compared.rank.get(&d) else {
            continue;
        };
        edges.extend(
            sources
                .iter()
                .filter_map(|s| compared.rank.get(s))
                .map(|&r| (r, t)),
        );
    }
    edges
}

/// Rank the candidate links of every destination with the site's link graph.
pub(super) fn rank(
    config: &RunConfig,
    compared: &Compared,
    pages: &BTreeMap<u32, Page>,
    crawl: &Crawl,
    found: &Found,
    matrix: &[f32],
    dim: usize,
) -> Ranked {
    let n = compared.order.len();
    let mut neighbors: Vec<Vec<Neighbor>> = vec![Vec::new(); n];
    for (t, list) in compared.targets.iter().zip(&found.inbound) {
        neighbors[compared.rank[t] as usize].clone_from(list);
    }
    let role = |ok: fn(&Page) -> bool| -> Vec<bool> {
        compared.order.iter().map(|f| ok(&pages[f])).collect()
    };
    let source_ok = role(|p| p.decision.source.is_ok());
    let destination_ok = role(|p| p.decision.destination.is_ok());
    let cosine = rank::dot_rows(matrix, dim);
    let inputs = Inputs {
        neighbors: &neighbors,
        cosine: &cosine,
        source_ok: &source_ok,
        destination_ok: &destination_ok,
    };
    let graph = Graph::new(n, &body_edges(crawl, compared));
    let options = config.ranking;
    let check = config.self_check.then(|| {
        rank::self_check(
            &graph,
            &inputs,
            &options,
            rank::holdout::SEED,
            rank::holdout::HIDDEN_SHARE,
        )
    });
    let ranking = rank::rank(&graph, &inputs, &options);
    Ranked { ranking, check }
}
