//! Nearest neighbours by cosine similarity: for each destination, the k most similar
//! candidate sources, with raw scores. Vectors arrive L2-normalised, so cosine is a dot
//! product. A page is never its own neighbour; ties go to the lower id (ids are in URL order).
//! [`exact`] forms every pair with a blocked GEMM; [`ivf`] probes an inverted-file index for
//! large sites (its coarse quantizer, spherical k-means, in `kmeans`); [`recall`] measures how
//! close the index came on a sample of queries.

pub mod exact;
pub mod ivf;
mod kmeans;
mod quantized;
pub mod recall;

pub use exact::{Matrix, Neighbor, dot, dots, top_k, top_k_with_progress};

/// Similar pages listed per page unless `--top-k` says otherwise.
pub const TOP_K: usize = 5;

/// Queries checked against exact search, by default, to measure the approximate index's
/// recall.
pub const RECALL_SAMPLE: usize = 1000;

/// Which search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Every pair.
    Exact,
    /// The inverted-file index.
    Ivf,
    /// Exact or IVF, by the measured crossover ([`ivf::auto_choose`]).
    Auto,
}

/// What a search did, for the Run sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchReport {
    /// Whether the inverted-file index was used.
    pub approximate: bool,
    /// Recall@k against exact search on a sample of queries (approximate searches only).
    pub recall: Option<f64>,
    /// Queries in that sample.
    pub sample: usize,
    /// Why the index was not used when asked for.
    pub note: Option<String>,
}

/// Top-k search with the chosen method; an approximate search reports its recall@k measured
/// against exact search on `recall_sample` queries.
#[allow(clippy::too_many_arguments)] // the kernel's arguments plus the method and sample
pub fn search(
    queries: Matrix<'_>,
    query_ids: &[u32],
    candidates: Matrix<'_>,
    cand_ids: &[u32],
    k: usize,
    method: Method,
    recall_sample: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> (Vec<Vec<Neighbor>>, SearchReport) {
    let use_ivf = match method {
        Method::Exact => false,
        Method::Ivf => true,
        Method::Auto => {
            ivf::auto_choose(queries.rows, candidates.rows, queries.dim) == ivf::Choice::Ivf
        }
    };
    let exact_report = |note| SearchReport {
        approximate: false,
        recall: None,
        sample: 0,
        note,
    };
    if !use_ivf {
        return (
            top_k_with_progress(queries, query_ids, candidates, cand_ids, k, progress),
            exact_report(None),
        );
    }
    match ivf::top_k_ivf(
        queries,
        query_ids,
        candidates,
        cand_ids,
        k,
        &ivf::IvfParams::default(),
        progress,
    ) {
        Ok(found) => {
            let sample = recall_sample.min(queries.rows);
            let recall = (sample > 0).then(|| {
                recall::sampled_recall(
                    queries, query_ids, candidates, cand_ids, k, &found, sample, 0x5EED,
                )
            });
            (
                found,
                SearchReport {
                    approximate: true,
                    recall,
                    sample,
                    note: None,
                },
            )
        }
        Err(e) => (
            top_k_with_progress(queries, query_ids, candidates, cand_ids, k, progress),
            exact_report(Some(format!(
                "approximate index not used ({e}); exact search instead"
            ))),
        ),
    }
}
