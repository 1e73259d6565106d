//! Recall of an approximate search against exact search, measured on a sample of queries
//! (the Run sheet reports it every run the approximate index is used).

use super::exact::{self, Matrix, Neighbor};
use crate::rng::Rng;

/// Tie-aware recall: an approximate neighbour counts as a hit if its id is in the exact list, or if
/// its score is at least the exact list's last score (another page tied with the k-th; relative
/// tolerance 1e-6). Result = hits / total exact entries (1.0 when there is nothing to find).
pub fn recall_at_k(exact: &[Vec<Neighbor>], approx: &[Vec<Neighbor>]) -> f64 {
    let mut hits = 0usize;
    let mut total = 0usize;
    for (e, a) in exact.iter().zip(approx) {
        total += e.len();
        let Some(last) = e.last() else { continue };
        let tol = 1e-6 * last.score.abs().max(1.0);
        hits += a
            .iter()
            .take(e.len())
            .filter(|x| e.iter().any(|y| y.id == x.id) || x.score >= last.score - tol)
            .count();
    }
    if total == 0 {
        1.0
    } else {
        hits as f64 / total as f64
    }
}

/// Recall of `approx` (results for every query) measured on `sample` queries drawn without
/// replacement with `seed`, running exact search for those queries only.
#[allow(clippy::too_many_arguments)]
pub fn sampled_recall(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
    approx: &[Vec<Neighbor>],
    sample: usize,
    seed: u64,
) -> f64 {
    let idx = sample_indices(queries.rows, sample, seed);
    let mut buf = Vec::with_capacity(idx.len() * queries.dim);
    let mut ids = Vec::with_capacity(idx.len());
    for &i in &idx {
        buf.extend_from_slice(queries.row(i));
        ids.push(query_ids[i]);
    }
    let sub = Matrix {
        data: &buf,
        rows: idx.len(),
        dim: queries.dim,
    };
    let ex = exact::top_k(sub, &ids, candidates, cand_ids, k);
    let ap: Vec<Vec<Neighbor>> = idx.iter().map(|&i| approx[i].clone()).collect();
    recall_at_k(&ex, &ap)
}

/// `min(sample, n)` distinct indices in `0..n`, sorted, reproducible from `seed`.
pub fn sample_indices(n: usize, sample: usize, seed: u64) -> Vec<usize> {
    let s = sample.min(n);
    let mut rng = Rng::new(seed);
    // Floyd's algorithm: O(s) memory.
    let mut chosen = std::collections::HashSet::with_capacity(s);
    for j in (n - s)..n {
        let t = (rng.next_u64() % (j as u64 + 1)) as usize;
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut v: Vec<usize> = chosen.into_iter().collect();
    v.sort_unstable();
    v
}
