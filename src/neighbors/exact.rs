//! Exact top-k search. Placeholder scalar kernel; see the performance work in issue 5.

/// Row-major f32 matrix; rows are expected L2-normalised (zero rows allowed).
#[derive(Debug, Clone, Copy)]
pub struct Matrix<'a> {
    /// `rows * dim` floats.
    pub data: &'a [f32],
    /// Number of rows.
    pub rows: usize,
    /// Floats per row.
    pub dim: usize,
}

impl<'a> Matrix<'a> {
    fn row(&self, i: usize) -> &'a [f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}

/// One neighbour: candidate id and cosine similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    /// Candidate id.
    pub id: u32,
    /// Cosine similarity.
    pub score: f32,
}

fn better(a: Neighbor, b: Neighbor) -> bool {
    a.score.total_cmp(&b.score).then(b.id.cmp(&a.id)).is_gt()
}

/// For each query row, the `k` candidate rows with the highest dot product, excluding the
/// candidate with the query's own id. Sorted by score descending, ties by id ascending.
pub fn top_k(
    queries: Matrix<'_>,
    query_ids: &[u32],
    candidates: Matrix<'_>,
    cand_ids: &[u32],
    k: usize,
) -> Vec<Vec<Neighbor>> {
    (0..queries.rows)
        .map(|q| {
            let qv = queries.row(q);
            let mut best: Vec<Neighbor> = Vec::with_capacity(k + 1);
            for (c, &cand_id) in cand_ids.iter().enumerate().take(candidates.rows) {
                if cand_id == query_ids[q] {
                    continue;
                }
                let mut score: f32 = qv.iter().zip(candidates.row(c)).map(|(a, b)| a * b).sum();
                if score.is_nan() {
                    score = f32::NEG_INFINITY;
                }
                let n = Neighbor { id: cand_id, score };
                if best.len() < k || best.last().is_some_and(|w| better(n, *w)) {
                    let pos = best
                        .iter()
                        .position(|b| better(n, *b))
                        .unwrap_or(best.len());
                    best.insert(pos, n);
                    best.truncate(k);
                }
            }
            best
        })
        .collect()
}
