//! The coarse quantizer of the inverted-file index ([`super::ivf`]): spherical k-means over a
//! sample of the candidates, the nearest centroid of each training row, and the counting sort
//! that groups rows by their list. Centroids are unit vectors and rows are compared by dot
//! product with the same GEMM kernel as the search ([`super::exact::dot_block_par`]).

use rayon::prelude::*;

use super::exact::{Matrix, dot_block_par};
use crate::rng::Rng;

/// Rows (centroids, or candidates) gathered per GEMM call (GEMM `n`).
pub(super) const CAND_CHUNK: usize = 4096;

pub(super) fn norm(r: &[f32]) -> f32 {
    r.iter().map(|x| x * x).sum::<f32>().sqrt()
}

/// Stable counting sort of `keys` (each < `buckets`): returns (offsets[buckets+1], items).
pub(super) fn counting_sort(
    keys: impl Iterator<Item = usize> + Clone,
    buckets: usize,
    n: usize,
) -> (Vec<usize>, Vec<u32>) {
    let mut off = vec![0usize; buckets + 1];
    for kx in keys.clone() {
        off[kx + 1] += 1;
    }
    for c in 0..buckets {
        off[c + 1] += off[c];
    }
    let mut pos = off.clone();
    let mut items = vec![0u32; n];
    for (i, kx) in keys.enumerate() {
        items[pos[kx]] = i as u32;
        pos[kx] += 1;
    }
    (off, items)
}

/// Spherical k-means on unit rows `x` (all finite, non-zero). Returns `nlist × dim` unit centroids.
/// Empty (or cancelled) clusters are re-seeded with the worst-fitting training rows.
pub(super) fn kmeans(x: &SampleRows, nlist: usize, iterations: usize, seed: u64) -> Vec<f32> {
    let (s, d) = (x.idx.len(), x.x.dim);
    // Initial centroids: nlist distinct rows, chosen by a seeded partial Fisher-Yates shuffle.
    let mut perm: Vec<usize> = (0..s).collect();
    let mut rng = Rng::new(seed ^ 0xC3A5_C85C_97CB_3127);
    for i in 0..nlist {
        let j = i + (rng.next_u64() % (s - i) as u64) as usize;
        perm.swap(i, j);
    }
    let mut cent: Vec<f32> = vec![0f32; nlist * d];
    for (c, &i) in perm[..nlist].iter().enumerate() {
        x.row_into(i, &mut cent[c * d..(c + 1) * d]);
    }
    for _ in 0..iterations {
        let (assign, score) = nearest(
            x,
            Matrix {
                data: &cent,
                rows: nlist,
                dim: d,
            },
        );
        let (off, members) = counting_sort(assign.iter().map(|&a| a as usize), nlist, s);
        let mut next = vec![0f32; nlist * d];
        next.par_chunks_mut(d).enumerate().for_each(|(c, out)| {
            for &i in &members[off[c]..off[c + 1]] {
                let (r, w) = (x.x.row(x.idx[i as usize]), x.inv[i as usize]);
                for (o, &v) in out.iter_mut().zip(r) {
                    *o += v * w;
                }
            }
        });
        // normalise; collect clusters that need re-seeding
        let bad: Vec<usize> = next
            .par_chunks_mut(d)
            .enumerate()
            .filter_map(|(c, out)| {
                let nr = norm(out);
                if off[c + 1] > off[c] && nr > 0.0 && nr.is_finite() {
                    out.iter_mut().for_each(|v| *v /= nr);
                    None
                } else {
                    Some(c)
                }
            })
            .collect();
        if !bad.is_empty() {
            // worst-fitting rows (lowest score to their centroid), ties by row index
            let mut worst: Vec<usize> = (0..s).collect();
            let key = |i: usize| {
                if score[i].is_nan() {
                    f32::NEG_INFINITY
                } else {
                    score[i]
                }
            };
            let t = bad.len().min(s);
            if t < s {
                worst.select_nth_unstable_by(t, |&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
            }
            worst.truncate(t);
            worst.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
            for (t, &c) in bad.iter().enumerate() {
                let src = worst[t % worst.len()];
                x.row_into(src, &mut next[c * d..(c + 1) * d]);
            }
        }
        cent = next;
    }
    cent
}

/// Training rows: rows `idx` of `x`, each scaled by `inv` (1 / its norm).
pub(super) struct SampleRows<'a> {
    pub(super) x: Matrix<'a>,
    pub(super) idx: &'a [usize],
    pub(super) inv: &'a [f32],
}

impl SampleRows<'_> {
    fn row_into(&self, i: usize, out: &mut [f32]) {
        let w = self.inv[i];
        for (o, &v) in out.iter_mut().zip(self.x.row(self.idx[i])) {
            *o = v * w;
        }
    }
}

/// Nearest centroid (index, score) of every training row (blocked GEMM, parallel over row
/// blocks gathered into a small buffer).
fn nearest(x: &SampleRows, c: Matrix) -> (Vec<u32>, Vec<f32>) {
    const R: usize = 256;
    let (s, d) = (x.idx.len(), x.x.dim);
    let mut assign = vec![0u32; s];
    let mut score = vec![f32::NEG_INFINITY; s];
    assign
        .par_chunks_mut(R)
        .zip(score.par_chunks_mut(R))
        .enumerate()
        .for_each(|(b, (a, sc))| {
            let i0 = b * R;
            let rows = a.len();
            let mut xb = vec![0f32; rows * d];
            for r in 0..rows {
                x.row_into(i0 + r, &mut xb[r * d..(r + 1) * d]);
            }
            let xb = Matrix {
                data: &xb,
                rows,
                dim: d,
            };
            let w = CAND_CHUNK.min(c.rows);
            let mut sbuf = vec![0f32; rows * w];
            let mut j0 = 0;
            while j0 < c.rows {
                let j1 = (j0 + w).min(c.rows);
                let cw = j1 - j0;
                dot_block_par(xb, c.slice_rows(j0, j1), &mut sbuf, cw, false);
                for r in 0..rows {
                    for (t, &v) in sbuf[r * cw..(r + 1) * cw].iter().enumerate() {
                        if v > sc[r] {
                            sc[r] = v;
                            a[r] = (j0 + t) as u32;
                        }
                    }
                }
                j0 = j1;
            }
        });
    (assign, score)
}
