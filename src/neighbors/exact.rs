//! Exact top-k nearest neighbours by dot product (cosine on L2-normalised rows).
//!
//! Tiled matrix products with the `gemm` crate (AVX-512 via its `x86-v4` feature, picked at run
//! time): each thread multiplies a tile of [`TILE_ROWS`] queries by [`TILE_COLS`] candidates
//! with a single-threaded GEMM and scans the 1 MiB score tile at once, while it is still in its
//! cache, with a bounded top-k per row (a 16-wide threshold test against the row's current k-th
//! best, then sorted insertion for the few scores that pass). Vectors wider than
//! [`TILED_MAX_DIM`] keep the earlier blocked kernel. Memory is bounded by the tiles (or the
//! 16 MiB block), never N×N.
//!
//! When the query set *is* the candidate set (same slice, same ids, the usual "every page against
//! every page" case), only the tiles on and above the diagonal are formed and each score
//! updates both rows, which halves the arithmetic.

// `!(s < thr)` is deliberate: NaN must pass the filter (and then rank as -inf), and the
// bitwise `|` keeps the 16-wide threshold test branch-free so it vectorises.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::needless_bitwise_bool,
    clippy::float_cmp
)]

use rayon::prelude::*;

/// Row-major f32 matrix; rows are expected L2-normalised (zero rows allowed).
#[derive(Clone, Copy, Debug)]
pub struct Matrix<'a> {
    /// `rows * dim` floats.
    pub data: &'a [f32],
    /// Number of rows.
    pub rows: usize,
    /// Floats per row.
    pub dim: usize,
}

impl<'a> Matrix<'a> {
    /// # Panics
    /// If `data.len() != rows * dim`.
    pub fn new(data: &'a [f32], rows: usize, dim: usize) -> Self {
        let m = Matrix { data, rows, dim };
        m.check("matrix");
        m
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// Rows `start..end` as a matrix.
    #[must_use]
    pub fn slice_rows(&self, start: usize, end: usize) -> Matrix<'a> {
        Matrix {
            data: &self.data[start * self.dim..end * self.dim],
            rows: end - start,
            dim: self.dim,
        }
    }

    fn check(&self, what: &str) {
        assert_eq!(
            Some(self.data.len()),
            self.rows.checked_mul(self.dim),
            "{what}: data.len() must equal rows * dim"
        );
    }
}

/// One neighbour of a query row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// Candidate id.
    pub id: u32,
    /// Dot product (cosine similarity for unit vectors).
    pub score: f32,
}

/// Rows per query block (GEMM `m`).
pub const BLOCK_ROWS: usize = 1024;
/// Candidate columns per GEMM call (GEMM `n`). Score buffer = `BLOCK_ROWS` × `CHUNK_COLS` × 4 B = 16 MiB.
pub const CHUNK_COLS: usize = 4096;

/// For each query row i, the k candidate rows with the highest dot product, excluding candidates
/// whose id equals the query's id (a page is never its own neighbour).
/// Sorted by score descending, ties by id ascending. NaN scores count as `-inf`.
///
/// # Panics
/// If a matrix's `data.len() != rows * dim`, if the id slices' lengths differ from the row counts,
/// or if the two matrices have different `dim`.
pub fn top_k(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
) -> Vec<Vec<Neighbor>> {
    top_k_with_progress(queries, query_ids, candidates, cand_ids, k, &|_| {})
}

/// Like [`top_k`], calling `progress(rows_done)` with the number of query rows done, or, where
/// no row is final before the end (all pairs), the work done scaled to rows (monotone, ends at
/// `queries.rows`). Called under a lock, possibly from rayon's worker threads.
pub fn top_k_with_progress(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<Vec<Neighbor>> {
    queries.check("queries");
    candidates.check("candidates");
    assert_eq!(
        query_ids.len(),
        queries.rows,
        "query_ids.len() must equal queries.rows"
    );
    assert_eq!(
        cand_ids.len(),
        candidates.rows,
        "cand_ids.len() must equal candidates.rows"
    );
    assert_eq!(
        queries.dim, candidates.dim,
        "queries and candidates must have the same dim"
    );

    let m = queries.rows;
    let n = candidates.rows;
    if k == 0 || m == 0 || n == 0 {
        progress(m);
        return vec![Vec::new(); m];
    }
    let k = k.min(n);
    let same = m == n
        && std::ptr::eq(queries.data.as_ptr(), candidates.data.as_ptr())
        && (std::ptr::eq(query_ids.as_ptr(), cand_ids.as_ptr()) || query_ids == cand_ids);
    let state = match (same, queries.dim <= TILED_MAX_DIM) {
        (true, true) => symmetric(queries, query_ids, k, progress),
        (false, true) => rectangular(queries, query_ids, candidates, cand_ids, k, progress),
        (true, false) => legacy_symmetric(queries, query_ids, k, progress),
        (false, false) => legacy_rectangular(queries, query_ids, candidates, cand_ids, k, progress),
    };
    state.into_lists()
}

/// Widest vectors searched by the tiled kernel; wider ones keep the blocked kernel (a 16 MiB
/// score block filled by a two-thread GEMM, then scanned). Both return the same lists; in
/// the one contended run of 2026-12-01 (docs/performance.md) the tiled kernel matched the
/// blocked one at d = 384 and ran 0.62× as fast at d = 1,536, so it is not used there until
/// measured on a quiet host.
pub const TILED_MAX_DIM: usize = 512;

/// The search before issue 15 (blocks of [`BLOCK_ROWS`] × [`CHUNK_COLS`], a 16 MiB score
/// buffer filled by a two-thread GEMM, then scanned), kept only so benches and tests can check
/// in one run that the tiled search is faster and returns identical lists.
#[doc(hidden)]
pub fn top_k_blocked_legacy(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
) -> Vec<Vec<Neighbor>> {
    let (m, n) = (queries.rows, candidates.rows);
    if k == 0 || m == 0 || n == 0 {
        return vec![Vec::new(); m];
    }
    let k = k.min(n);
    let same = m == n
        && std::ptr::eq(queries.data.as_ptr(), candidates.data.as_ptr())
        && (std::ptr::eq(query_ids.as_ptr(), cand_ids.as_ptr()) || query_ids == cand_ids);
    let state = if same {
        legacy_symmetric(queries, query_ids, k, &|_| {})
    } else {
        legacy_rectangular(queries, query_ids, candidates, cand_ids, k, &|_| {})
    };
    state.into_lists()
}

/// `out[i*ldo + j] = <a_i, b_j>` with both threads, for benches (the GEMM ceiling probe).
#[doc(hidden)]
pub fn dot_block_for_bench(a: Matrix, b: Matrix, out: &mut [f32], ldo: usize) {
    dot_block(a, b, out, ldo);
}

/// Dot product of two equal-length slices in 16 independent lanes. A single running sum
/// is one dependent add per element, which the compiler may not reorder: at 1,536
/// dimensions that made the ranking's cosines (for pairs the graph finds outside the
/// neighbour lists) the run's costliest loop. The lanes vectorise, and summing in 16 parts
/// is also closer to the exact value than one long running sum.
pub fn dot(x: &[f32], y: &[f32]) -> f32 {
    dots(x, [y])[0]
}

/// [`dot`] of `x` with each of `ys`, bit for bit, in one pass over `x`: rows read at random
/// (the re-scoring of [`super::ivf`]) wait on memory, and `N` rows read side by side wait
/// together.
///
/// On a CPU with AVX2 the lanes are summed two 8-lane registers a row
/// ([`dots_avx2`]): left to the auto-vectoriser, the loop had come out scalar, with the sums
/// on the stack, in some builds and not others, which doubled the ranking stage. Products
/// and sums are not fused, so every lane adds the same products in the same order either
/// way, and the results are the same to the bit (test
/// `dots_on_avx2_equal_the_portable_loop_bit_for_bit`).
pub fn dots<const N: usize>(x: &[f32], ys: [&[f32]; N]) -> [f32; N] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        #[allow(unsafe_code)]
        return unsafe { dots_avx2(x, ys) };
    }
    dots_portable(x, ys)
}

/// Lanes [`dots`] sums in: each row's products are added to 16 running sums, one per lane.
const LANES: usize = 16;

/// [`dots`] in AVX2 registers: the 16 lanes of a row's sums are two registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
fn dots_avx2<const N: usize>(x: &[f32], ys: [&[f32]; N]) -> [f32; N] {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    // A block's two halves. SAFETY: both loads read 8 floats inside the 16-float block.
    let halves = |b: &[f32; LANES]| unsafe {
        (
            _mm256_loadu_ps(b.as_ptr()),
            _mm256_loadu_ps(b.as_ptr().add(8)),
        )
    };
    let (xs, rest) = x.as_chunks::<LANES>();
    let cut = xs.len() * LANES;
    let blocks: [&[[f32; LANES]]; N] = std::array::from_fn(|r| ys[r][..cut].as_chunks().0);
    let mut acc: [[__m256; 2]; N] = [[_mm256_setzero_ps(); 2]; N];
    for (c, cx) in xs.iter().enumerate() {
        let (x0, x1) = halves(cx);
        for (a, y) in acc.iter_mut().zip(&blocks) {
            let (y0, y1) = halves(&y[c]);
            a[0] = _mm256_add_ps(a[0], _mm256_mul_ps(x0, y0));
            a[1] = _mm256_add_ps(a[1], _mm256_mul_ps(x1, y1));
        }
    }
    std::array::from_fn(|r| {
        let mut lanes = [0.0f32; LANES];
        // SAFETY: both stores write 8 floats inside the 16-float array.
        unsafe {
            _mm256_storeu_ps(lanes.as_mut_ptr(), acc[r][0]);
            _mm256_storeu_ps(lanes.as_mut_ptr().add(8), acc[r][1]);
        }
        let tail: f32 = rest.iter().zip(&ys[r][cut..]).map(|(a, b)| a * b).sum();
        lanes.iter().sum::<f32>() + tail
    })
}

/// [`dots`] for any CPU.
fn dots_portable<const N: usize>(x: &[f32], ys: [&[f32]; N]) -> [f32; N] {
    let mut acc = [[0.0f32; LANES]; N];
    let (xs, rest) = x.as_chunks::<LANES>();
    let cut = xs.len() * LANES;
    for (c, cx) in xs.iter().enumerate() {
        for (a, y) in acc.iter_mut().zip(&ys) {
            let cy = &y[c * LANES..(c + 1) * LANES];
            for l in 0..LANES {
                a[l] += cx[l] * cy[l];
            }
        }
    }
    std::array::from_fn(|r| {
        let tail: f32 = rest.iter().zip(&ys[r][cut..]).map(|(a, b)| a * b).sum();
        acc[r].iter().sum::<f32>() + tail
    })
}

// ---------------------------------------------------------------------------------------------
// Per-row bounded top-k state, stored flat: row r owns scores[r*k..(r+1)*k], ids[...], len[r],
// and thr[r] = the filter threshold (-inf while the list is not full, else the k-th best score).

pub(crate) struct State {
    k: usize,
    scores: Vec<f32>,
    ids: Vec<u32>,
    len: Vec<u32>,
    thr: Vec<f32>,
}

impl State {
    pub(crate) fn new(rows: usize, k: usize) -> Self {
        State {
            k,
            scores: vec![f32::NEG_INFINITY; rows * k],
            ids: vec![0; rows * k],
            len: vec![0; rows],
            thr: vec![f32::NEG_INFINITY; rows],
        }
    }

    fn rows(&self) -> usize {
        self.len.len()
    }

    pub(crate) fn view(&mut self) -> StateMut<'_> {
        StateMut {
            k: self.k,
            scores: &mut self.scores,
            ids: &mut self.ids,
            len: &mut self.len,
            thr: &mut self.thr,
        }
    }

    /// Merge `other` (same shape) into `self`: afterwards each row holds the best k of both
    /// rows' entries (score descending, ties by id). The result does not depend on how the
    /// offers were split between the two states, provided no candidate was offered to a row in
    /// both.
    pub(crate) fn merge_from(&mut self, other: &State) {
        assert_eq!(self.k, other.k, "merge_from: k differs");
        assert_eq!(self.rows(), other.rows(), "merge_from: rows differ");
        let k = self.k;
        let mut v = self.view();
        for r in 0..other.rows() {
            for t in 0..other.len[r] as usize {
                let (s, id) = (other.scores[r * k + t], other.ids[r * k + t]);
                if !(s < v.thr[r]) {
                    v.insert(r, s, id);
                }
            }
        }
    }

    pub(crate) fn into_lists(self) -> Vec<Vec<Neighbor>> {
        let k = self.k;
        (0..self.rows())
            .map(|r| {
                let l = self.len[r] as usize;
                (0..l)
                    .map(|t| Neighbor {
                        id: self.ids[r * k + t],
                        score: self.scores[r * k + t],
                    })
                    .collect()
            })
            .collect()
    }
}

/// Mutable view of a contiguous range of rows of a [`State`].
pub(crate) struct StateMut<'a> {
    k: usize,
    scores: &'a mut [f32],
    ids: &'a mut [u32],
    len: &'a mut [u32],
    thr: &'a mut [f32],
}

impl<'a> StateMut<'a> {
    fn rows(&self) -> usize {
        self.len.len()
    }

    fn split_at(self, r: usize) -> (StateMut<'a>, StateMut<'a>) {
        let k = self.k;
        let (s0, s1) = self.scores.split_at_mut(r * k);
        let (i0, i1) = self.ids.split_at_mut(r * k);
        let (l0, l1) = self.len.split_at_mut(r);
        let (t0, t1) = self.thr.split_at_mut(r);
        (
            StateMut {
                k,
                scores: s0,
                ids: i0,
                len: l0,
                thr: t0,
            },
            StateMut {
                k,
                scores: s1,
                ids: i1,
                len: l1,
                thr: t1,
            },
        )
    }

    /// Rows `start..end` of this view.
    fn range(self, start: usize, end: usize) -> StateMut<'a> {
        let (_, rest) = self.split_at(start);
        rest.split_at(end - start).0
    }

    /// Split into pieces of at most `rows_per_piece` rows.
    fn pieces(self, rows_per_piece: usize) -> Vec<StateMut<'a>> {
        let mut out = Vec::new();
        let mut rest = self;
        while rest.rows() > rows_per_piece {
            let (a, b) = rest.split_at(rows_per_piece);
            out.push(a);
            rest = b;
        }
        if rest.rows() > 0 {
            out.push(rest);
        }
        out
    }

    /// Offer candidate (`score`, `id`) to row `r`; `self_id` is row r's own id (excluded).
    /// Slow path, only reached for scores that pass the threshold filter.
    #[inline(never)]
    fn offer(&mut self, r: usize, score: f32, id: u32, self_id: u32) {
        if id == self_id {
            return;
        }
        self.insert(r, score, id);
    }

    /// Insert (`score`, `id`) into row `r`'s sorted list if it ranks among the best k.
    fn insert(&mut self, r: usize, score: f32, id: u32) {
        let s = if score.is_nan() {
            f32::NEG_INFINITY
        } else {
            score
        };
        let k = self.k;
        let base = r * k;
        let len = self.len[r] as usize;
        let scores = &mut self.scores[base..base + k];
        let ids = &mut self.ids[base..base + k];
        // (s, id) is better than (a, b) iff s > a, or s == a and id < b.
        let better = |a: f32, b: u32| s > a || (s == a && id < b);
        if len == k && !better(scores[k - 1], ids[k - 1]) {
            return;
        }
        let mut p = if len == k { k - 1 } else { len };
        while p > 0 && better(scores[p - 1], ids[p - 1]) {
            scores[p] = scores[p - 1];
            ids[p] = ids[p - 1];
            p -= 1;
        }
        scores[p] = s;
        ids[p] = id;
        if len < k {
            self.len[r] += 1;
        }
        if self.len[r] as usize == k {
            // NaN-free; equals -inf only when the k-th best is -inf (everything passes then).
            self.thr[r] = scores[k - 1];
        }
    }

    /// Row pass: row `r` of this view receives the scores `row[c]` for candidates `ids[c]`.
    #[inline]
    pub(crate) fn scan_row(&mut self, r: usize, row: &[f32], cand_ids: &[u32], self_id: u32) {
        const L: usize = 16;
        let mut thr = self.thr[r];
        let mut chunks = row.chunks_exact(L);
        let mut c0 = 0;
        for ch in &mut chunks {
            // Vectorisable "any score not below the threshold" test; NaN passes (it is `!(s < thr)`).
            let hit = ch.iter().fold(false, |acc, &s| acc | !(s < thr));
            if hit {
                for (c, &s) in ch.iter().enumerate() {
                    if !(s < thr) {
                        self.offer(r, s, cand_ids[c0 + c], self_id);
                        thr = self.thr[r];
                    }
                }
            }
            c0 += L;
        }
        for (c, &s) in chunks.remainder().iter().enumerate() {
            if !(s < thr) {
                self.offer(r, s, cand_ids[c0 + c], self_id);
                thr = self.thr[r];
            }
        }
    }

    /// Column pass: row `c` of this view (for c in 0..rows) receives score `block[i*stride + col0 + c]`
    /// from candidate `src_ids[i]`, for each i.
    fn scan_cols(
        &mut self,
        block: &[f32],
        stride: usize,
        col0: usize,
        src_ids: &[u32],
        own_ids: &[u32],
    ) {
        const L: usize = 16;
        let w = self.rows();
        for (i, &src) in src_ids.iter().enumerate() {
            let row = &block[i * stride + col0..i * stride + col0 + w];
            let mut c0 = 0;
            let mut chunks = row.chunks_exact(L);
            for ch in &mut chunks {
                let th = &self.thr[c0..c0 + L];
                let hit = ch
                    .iter()
                    .zip(th)
                    .fold(false, |acc, (&s, &t)| acc | !(s < t));
                if hit {
                    for (c, &s) in ch.iter().enumerate() {
                        if !(s < self.thr[c0 + c]) {
                            self.offer(c0 + c, s, src, own_ids[c0 + c]);
                        }
                    }
                }
                c0 += L;
            }
            for (c, &s) in chunks.remainder().iter().enumerate() {
                if !(s < self.thr[c0 + c]) {
                    self.offer(c0 + c, s, src, own_ids[c0 + c]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// `out[i*ldo + j] = <a_i, b_j>` for the `a.rows × b.rows` block (out row stride `ldo`),
/// using all rayon threads for large blocks.
fn dot_block(a: Matrix, b: Matrix, out: &mut [f32], ldo: usize) {
    dot_block_par(a, b, out, ldo, true);
}

/// Like [`dot_block`]; `allow_par = false` runs single-threaded (for callers that already run
/// one block per rayon task, e.g. `ivf`; also keeps the result independent of thread count).
///
/// # Panics
/// If `out` is too short or the dims differ.
pub(crate) fn dot_block_par(a: Matrix, b: Matrix, out: &mut [f32], ldo: usize, allow_par: bool) {
    assert_eq!(a.dim, b.dim, "dot_block: dims differ");
    assert!(ldo >= b.rows, "dot_block: ldo < n");
    let (m, n, d) = (a.rows, b.rows, a.dim);
    assert!(
        m == 0 || n == 0 || out.len() >= (m - 1) * ldo + n,
        "dot_block: out too short"
    );
    if m == 0 || n == 0 {
        return;
    }
    if d == 0 {
        for i in 0..m {
            out[i * ldo..i * ldo + n].fill(0.0);
        }
        return;
    }
    let threads = rayon::current_num_threads();
    let par = if !allow_par || (m * n * d) < (1 << 20) || threads <= 1 {
        gemm::Parallelism::None
    } else {
        gemm::Parallelism::Rayon(threads)
    };
    // SAFETY: out holds m rows of n elements with row stride ldo (checked above in debug, and by
    // construction in callers); lhs is m×d row-major (stride d); rhs is bᵀ, i.e. d×n with element
    // (kk, j) at b[j*d + kk]: row stride 1, column stride d. All pointers are valid for those reads.
    #[allow(unsafe_code)]
    unsafe {
        gemm::gemm(
            m,
            n,
            d,
            out.as_mut_ptr(),
            1,
            ldo as isize,
            false,
            a.data.as_ptr(),
            1,
            d as isize,
            b.data.as_ptr(),
            d as isize,
            1,
            0.0,
            1.0,
            false,
            false,
            false,
            par,
        );
    }
}

/// Query rows per tile of the tiled search (GEMM `m`).
pub const TILE_ROWS: usize = 512;
/// Candidate rows per tile (GEMM `n`): with [`TILE_ROWS`] a 1 MiB score tile, scanned by the
/// thread that computed it while it is still in its cache.
pub const TILE_COLS: usize = 512;

/// `0..n` cut into `parts` near-equal ranges (no tiny tail tile).
pub(super) fn even_cuts(n: usize, parts: usize) -> Vec<(usize, usize)> {
    let parts = parts.clamp(1, n.max(1));
    (0..parts)
        .map(|t| (n * t / parts, n * (t + 1) / parts))
        .collect()
}

/// Tiled rectangular search: the query rows are cut into blocks, one task per block (each
/// owns its rows' top-k state); a task multiplies its block by one candidate tile at a time
/// with a single-threaded GEMM and scans the tile at once.
fn rectangular(
    q: Matrix,
    q_ids: &[u32],
    c: Matrix,
    c_ids: &[u32],
    k: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> State {
    let (m, n) = (q.rows, c.rows);
    let threads = rayon::current_num_threads().max(1);
    // Enough blocks for every thread, blocks of at most TILE_ROWS and (unless m is smaller)
    // at least 16 rows.
    let blocks = m
        .div_ceil(TILE_ROWS)
        .max(threads.min(m.div_ceil(16)))
        .max(1);
    let rows = even_cuts(m, blocks);
    let cols = even_cuts(n, n.div_ceil(TILE_COLS));
    let mut state = State::new(m, k);
    let mut views = Vec::with_capacity(rows.len());
    let mut rest = state.view();
    for &(a, b) in &rows {
        let (v, r) = rest.split_at(b - a);
        views.push((a, v));
        rest = r;
    }
    let done = std::sync::Mutex::new(0usize);
    views
        .into_par_iter()
        .with_max_len(1)
        .for_each(|(a, mut st)| {
            let qb = q.slice_rows(a, a + st.rows());
            let widest = cols.iter().map(|&(j0, j1)| j1 - j0).max().unwrap_or(0);
            let mut buf = vec![0f32; st.rows() * widest];
            for &(j0, j1) in &cols {
                let cw = j1 - j0;
                dot_block_par(qb, c.slice_rows(j0, j1), &mut buf, cw, false);
                for r in 0..st.rows() {
                    st.scan_row(r, &buf[r * cw..(r + 1) * cw], &c_ids[j0..j1], q_ids[a + r]);
                }
            }
            let mut dn = done.lock().unwrap();
            *dn += st.rows();
            progress(*dn);
        });
    state
}

/// Tiled all-pairs search: the rows are cut into blocks and every tile (I, J) with J ≥ I is
/// formed once by a single-threaded GEMM; its rows update block I's lists (row pass) and its
/// columns block J's (column pass), while the tile is in cache. One task per block row I, on
/// a worker's own top-k state for all rows (at most one worker per thread); the states are
/// merged at the end. Every pair reaches each of its rows once, so the merged lists (best k by
/// score, ties by id) are the ones a single state would hold.
fn symmetric(x: Matrix, ids: &[u32], k: usize, progress: &(dyn Fn(usize) + Sync)) -> State {
    let n = x.rows;
    let blocks = even_cuts(n, n.div_ceil(TILE_ROWS));
    let pool: std::sync::Mutex<Vec<(State, Vec<f32>)>> = std::sync::Mutex::new(Vec::new());
    let nb = blocks.len();
    let total = (nb * (nb + 1) / 2).max(1);
    let done = std::sync::Mutex::new(0usize);
    (0..nb).into_par_iter().with_max_len(1).for_each(|bi| {
        let popped = pool.lock().unwrap().pop();
        let (mut state, mut buf) = popped.unwrap_or_else(|| (State::new(n, k), Vec::new()));
        let (i0, i1) = blocks[bi];
        let xb = x.slice_rows(i0, i1);
        for &(j0, j1) in &blocks[bi..] {
            let cw = j1 - j0;
            buf.resize((i1 - i0) * cw, 0.0);
            dot_block_par(xb, x.slice_rows(j0, j1), &mut buf, cw, false);
            let mut v = state.view();
            for r in 0..i1 - i0 {
                v.scan_row(
                    i0 + r,
                    &buf[r * cw..(r + 1) * cw],
                    &ids[j0..j1],
                    ids[i0 + r],
                );
            }
            if j0 >= i1 {
                let own = &ids[j0..j1];
                v.range(j0, j1).scan_cols(&buf, cw, 0, &ids[i0..i1], own);
            }
        }
        pool.lock().unwrap().push((state, buf));
        let mut dn = done.lock().unwrap();
        *dn += nb - bi;
        progress((*dn * n / total).min(n - 1));
    });
    let mut workers = pool.into_inner().unwrap();
    let mut state = workers
        .pop()
        .map_or_else(|| State::new(n, k), |(state, _)| state);
    for (w, _) in &workers {
        state.merge_from(w);
    }
    progress(n);
    state
}

fn legacy_rectangular(
    q: Matrix,
    q_ids: &[u32],
    c: Matrix,
    c_ids: &[u32],
    k: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> State {
    let (m, n) = (q.rows, c.rows);
    let bm = BLOCK_ROWS.min(m);
    let w = CHUNK_COLS.min(n);
    let mut buf = vec![0f32; bm * w];
    let mut state = State::new(m, k);
    let mut i0 = 0;
    while i0 < m {
        let i1 = (i0 + bm).min(m);
        let qb = q.slice_rows(i0, i1);
        let mut j0 = 0;
        while j0 < n {
            let j1 = (j0 + w).min(n);
            let cw = j1 - j0;
            dot_block(qb, c.slice_rows(j0, j1), &mut buf, cw);
            let buf = &buf;
            let ids = &c_ids[j0..j1];
            let rows = state.view().range(i0, i1);
            let per = rows_per_task(i1 - i0);
            rows.pieces(per)
                .into_par_iter()
                .enumerate()
                .for_each(|(p, mut st)| {
                    for r in 0..st.rows() {
                        let gi = p * per + r; // row inside the block
                        st.scan_row(r, &buf[gi * cw..(gi + 1) * cw], ids, q_ids[i0 + gi]);
                    }
                });
            j0 = j1;
        }
        i0 = i1;
        progress(i0);
    }
    state
}

fn legacy_symmetric(x: Matrix, ids: &[u32], k: usize, progress: &(dyn Fn(usize) + Sync)) -> State {
    let n = x.rows;
    let bm = BLOCK_ROWS.min(n);
    let w = CHUNK_COLS.max(bm).min(n);
    let mut buf = vec![0f32; bm * w];
    let mut state = State::new(n, k);
    let mut i0 = 0;
    while i0 < n {
        let i1 = (i0 + bm).min(n);
        let xb = x.slice_rows(i0, i1);
        // Columns from i0 (the diagonal block) to n, in chunks of w.
        let mut j0 = i0;
        while j0 < n {
            let j1 = (j0 + w).min(n);
            let cw = j1 - j0;
            dot_block(xb, x.slice_rows(j0, j1), &mut buf, cw);
            let buf = &buf;
            // Row pass: rows i0..i1 take every column of the chunk (covers the diagonal block in
            // both directions).
            {
                let cids = &ids[j0..j1];
                let per = rows_per_task(i1 - i0);
                state
                    .view()
                    .range(i0, i1)
                    .pieces(per)
                    .into_par_iter()
                    .enumerate()
                    .for_each(|(p, mut st)| {
                        for r in 0..st.rows() {
                            let gi = p * per + r;
                            st.scan_row(r, &buf[gi * cw..(gi + 1) * cw], cids, ids[i0 + gi]);
                        }
                    });
            }
            // Column pass: rows of the chunk beyond block i take the block's rows as candidates.
            let c_start = j0.max(i1);
            if c_start < j1 {
                let ncols = j1 - c_start;
                let per = cols_per_task(ncols);
                let src = &ids[i0..i1];
                state
                    .view()
                    .range(c_start, j1)
                    .pieces(per)
                    .into_par_iter()
                    .enumerate()
                    .for_each(|(p, mut st)| {
                        let col0 = c_start - j0 + p * per;
                        let own = &ids[j0 + col0..j0 + col0 + st.rows()];
                        st.scan_cols(buf, cw, col0, src, own);
                    });
            }
            j0 = j1;
        }
        i0 = i1;
        progress(i0);
    }
    state
}

fn rows_per_task(rows: usize) -> usize {
    let t = rayon::current_num_threads().max(1) * 4;
    rows.div_ceil(t).max(16)
}

fn cols_per_task(cols: usize) -> usize {
    let t = rayon::current_num_threads().max(1) * 2;
    // multiple of 16 so the vector filter runs on full chunks
    (cols.div_ceil(t).div_ceil(16) * 16).max(64)
}

/// Plain scalar reference (f64 accumulation), for tests.
#[cfg(test)]
pub(crate) fn top_k_reference(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
) -> Vec<Vec<(u32, f64)>> {
    (0..queries.rows)
        .map(|i| {
            let q = queries.row(i);
            let mut all: Vec<(u32, f64)> = (0..candidates.rows)
                .filter(|&j| cand_ids[j] != query_ids[i])
                .map(|j| {
                    let s: f64 = q
                        .iter()
                        .zip(candidates.row(j))
                        .map(|(&a, &b)| f64::from(a) * f64::from(b))
                        .sum();
                    (cand_ids[j], if s.is_nan() { f64::NEG_INFINITY } else { s })
                })
                .collect();
            all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
            all.truncate(k);
            all
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::float_cmp, clippy::cast_lossless)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<u32> {
        (0..n as u32).collect()
    }

    /// Check `got` against the f64 reference: same lengths, scores equal within `tol` position by
    /// position, ordering valid, no self, and each returned id's true score matches the reference
    /// score at its position (so only near-ties may swap).
    fn assert_matches_reference(
        q: Matrix,
        qi: &[u32],
        c: Matrix,
        ci: &[u32],
        k: usize,
        got: &[Vec<Neighbor>],
        tol: f64,
    ) {
        let want = top_k_reference(q, qi, c, ci, k);
        assert_eq!(got.len(), want.len());
        let pos: std::collections::HashMap<u32, usize> =
            ci.iter().enumerate().map(|(j, &id)| (id, j)).collect();
        for i in 0..got.len() {
            let (g, w) = (&got[i], &want[i]);
            assert_eq!(g.len(), w.len(), "row {i}: length");
            for t in 0..g.len() {
                assert_ne!(g[t].id, qi[i], "row {i}: self returned");
                let ws = w[t].1;
                let gs = g[t].score as f64;
                if ws.is_finite() {
                    assert!(
                        (gs - ws).abs() <= tol,
                        "row {i} pos {t}: score {gs} vs {ws}"
                    );
                    let j = pos[&g[t].id];
                    let true_s: f64 = q
                        .row(i)
                        .iter()
                        .zip(c.row(j))
                        .map(|(&a, &b)| a as f64 * b as f64)
                        .sum();
                    assert!(
                        (true_s - ws).abs() <= tol,
                        "row {i} pos {t}: id {} has true score {true_s}, want {ws}",
                        g[t].id
                    );
                } else {
                    assert_eq!(gs, f64::NEG_INFINITY, "row {i} pos {t}");
                }
                if t > 0 {
                    let (a, b) = (g[t - 1], g[t]);
                    assert!(
                        a.score > b.score || (a.score == b.score && a.id < b.id),
                        "row {i}: order at {t}"
                    );
                }
            }
        }
    }

    /// For data whose dot products are exact in f32 (small integers), the ids must match exactly.
    fn assert_exactly_reference(
        q: Matrix,
        qi: &[u32],
        c: Matrix,
        ci: &[u32],
        k: usize,
        got: &[Vec<Neighbor>],
    ) {
        let want = top_k_reference(q, qi, c, ci, k);
        for i in 0..got.len() {
            let g: Vec<(u32, f64)> = got[i].iter().map(|x| (x.id, x.score as f64)).collect();
            assert_eq!(g, want[i], "row {i}");
        }
    }

    fn random_rows(n: usize, d: usize, seed: u64, zero_every: usize) -> Vec<f32> {
        let mut rng = crate::rng::Rng::new(seed);
        let mut v: Vec<f32> = (0..n * d).map(|_| rng.normal() as f32).collect();
        for row in v.chunks_mut(d.max(1)) {
            crate::input::embeddings::normalize_in_place(row);
        }
        if zero_every > 0 && d > 0 {
            for i in (0..n).step_by(zero_every) {
                v[i * d..(i + 1) * d].fill(0.0);
            }
        }
        v
    }

    #[test]
    fn exact_matches_reference_rectangular_shapes() {
        // (m, n, d, k) — includes multiple query blocks and multiple candidate chunks.
        for &(m, n, d, k) in &[
            (1, 1, 1, 1),
            (3, 5, 1, 2),
            (50, 70, 7, 5),
            (200, 300, 33, 10),
            (1030, 4200, 8, 3),
            (17, 9, 1536, 5),
        ] {
            let qd = random_rows(m, d, 1 + m as u64, 7);
            let cd = random_rows(n, d, 2 + n as u64, 5);
            let q = Matrix::new(&qd, m, d);
            let c = Matrix::new(&cd, n, d);
            // query ids overlap candidate ids so self-exclusion is exercised
            let qi = ids(m);
            let ci = ids(n);
            let got = top_k(q, &qi, c, &ci, k);
            assert_matches_reference(q, &qi, c, &ci, k, &got, 1e-5);
        }
    }

    #[test]
    fn exact_matches_reference_self_join() {
        for &(n, d, k) in &[(2, 3, 5), (100, 16, 5), (1100, 16, 5), (2100, 24, 7)] {
            let xd = random_rows(n, d, 11 + n as u64, 9);
            let x = Matrix::new(&xd, n, d);
            let xi = ids(n);
            let mut calls = Vec::new();
            let cell = std::sync::Mutex::new(&mut calls);
            let got = top_k_with_progress(x, &xi, x, &xi, k, &|r| cell.lock().unwrap().push(r));
            assert_matches_reference(x, &xi, x, &xi, k, &got, 1e-5);
            assert_eq!(*calls.last().unwrap(), n);
            assert!(calls.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn exact_ties_broken_by_id_both_paths() {
        // Integer entries in {-1, 0, 1}: every dot product is exact, with lots of ties.
        for &(n, d, k) in &[(40, 3, 6), (1500, 4, 5), (1200, 2, 9)] {
            let mut r = crate::rng::Rng::new(n as u64);
            let xd: Vec<f32> = (0..n * d)
                .map(|_| (r.next_u64() % 3) as f32 - 1.0)
                .collect();
            let x = Matrix::new(&xd, n, d);
            // non-monotone ids: tie-break must use ids, not positions
            let xi: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % 100_003).collect();
            let sym = top_k(x, &xi, x, &xi, k);
            assert_exactly_reference(x, &xi, x, &xi, k, &sym);
            // same data in another buffer -> rectangular path; must give identical output
            let copy = xd.clone();
            let y = Matrix::new(&copy, n, d);
            let rect = top_k(x, &xi, y, &xi, k);
            assert_eq!(sym, rect);
        }
    }

    #[test]
    fn exact_edge_cases() {
        let d = 4;
        let xd = random_rows(10, d, 3, 0);
        let x = Matrix::new(&xd, 10, d);
        let xi = ids(10);
        // k = 0
        assert!(top_k(x, &xi, x, &xi, 0).iter().all(std::vec::Vec::is_empty));
        // k >= n: everything but self
        let all = top_k(x, &xi, x, &xi, 100);
        assert!(all.iter().all(|v| v.len() == 9));
        // empty queries / candidates
        let e = Matrix::new(&[], 0, d);
        assert!(top_k(e, &[], x, &xi, 3).is_empty());
        let r = top_k(x, &xi, e, &[], 3);
        assert_eq!(r.len(), 10);
        assert!(r.iter().all(std::vec::Vec::is_empty));
        // dim = 0: every score is 0, ties by id
        let z = Matrix::new(&[], 5, 0);
        let r = top_k(z, &ids(5), z, &ids(5), 2);
        assert_eq!(
            r[0],
            vec![
                Neighbor { id: 1, score: 0.0 },
                Neighbor { id: 2, score: 0.0 }
            ]
        );
        // dim = 1
        let v = [1.0f32, -1.0, 1.0, 0.0];
        let m1 = Matrix::new(&v, 4, 1);
        let r = top_k(m1, &ids(4), m1, &ids(4), 2);
        assert_eq!(
            r[0],
            vec![
                Neighbor { id: 2, score: 1.0 },
                Neighbor { id: 3, score: 0.0 }
            ]
        );
        // NaN rows score -inf and sort last
        let mut nd = random_rows(6, 3, 5, 0);
        nd[3..6].fill(f32::NAN);
        let nm = Matrix::new(&nd, 6, 3);
        let r = top_k(nm, &ids(6), nm, &ids(6), 5);
        assert_matches_reference(nm, &ids(6), nm, &ids(6), 5, &r, 1e-5);
        assert_eq!(
            r[0].last().unwrap(),
            &Neighbor {
                id: 1,
                score: f32::NEG_INFINITY
            }
        );
        assert!(r[1].iter().all(|x| x.score == f32::NEG_INFINITY));
    }

    /// The tiled search returns the legacy blocked search's lists bit for bit (same ids, same
    /// score bits, same order), over shapes with several tiles, uneven tails and both paths.
    #[test]
    fn tiled_is_identical_to_legacy() {
        for &(m, n, d, k) in &[
            (1300, 1300, 48, 5),
            (700, 2500, 384, 5),
            (3, 1100, 20, 4),
            (1025, 1025, 600, 3),
        ] {
            let cd = random_rows(n, d, 31 + n as u64, 0);
            let c = Matrix::new(&cd, n, d);
            let ci = ids(n);
            let bits = |v: &[Vec<Neighbor>]| -> Vec<Vec<(u32, u32)>> {
                v.iter()
                    .map(|l| l.iter().map(|x| (x.id, x.score.to_bits())).collect())
                    .collect()
            };
            if m == n {
                let got = top_k(c, &ci, c, &ci, k);
                assert_eq!(bits(&got), bits(&top_k_blocked_legacy(c, &ci, c, &ci, k)));
            }
            let qd = random_rows(m, d, 77 + m as u64, 0);
            let q = Matrix::new(&qd, m, d);
            let got = top_k(q, &ids(m), c, &ci, k);
            let old = top_k_blocked_legacy(q, &ids(m), c, &ci, k);
            // The one exception: a legacy query block of a single row (m = 1,024·j + 1) went
            // through gemm's matrix-vector path, which rounds differently; the tiled search
            // never forms a one-row tile. That row's neighbours agree within an ulp or two.
            let tail = if m % BLOCK_ROWS == 1 { m - 1 } else { m };
            assert_eq!(bits(&got[..tail]), bits(&old[..tail]), "{m} x {n} x {d}");
            for (a, b) in got[tail..].iter().zip(&old[tail..]) {
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b) {
                    assert_eq!(x.id, y.id);
                    assert!((x.score - y.score).abs() <= 1e-6);
                }
            }
        }
    }

    #[test]
    fn merge_keeps_the_best_k_of_both() {
        let (n, d, k) = (900, 12, 4);
        let xd = random_rows(n, d, 5, 0);
        let x = Matrix::new(&xd, n, d);
        let xi = ids(n);
        // Offer the two halves of the candidates to two states, merge: as one search.
        let scores: Vec<f32> = (0..n * n)
            .map(|t| {
                let (i, j) = (t / n, t % n);
                x.row(i).iter().zip(x.row(j)).map(|(a, b)| a * b).sum()
            })
            .collect();
        let mut a = State::new(n, k);
        let mut b = State::new(n, k);
        let (lo, hi) = xi.split_at(n / 3);
        for r in 0..n {
            let row = &scores[r * n..(r + 1) * n];
            a.view().scan_row(r, &row[..lo.len()], lo, xi[r]);
            b.view().scan_row(r, &row[lo.len()..], hi, xi[r]);
        }
        let mut whole = State::new(n, k);
        for r in 0..n {
            whole
                .view()
                .scan_row(r, &scores[r * n..(r + 1) * n], &xi, xi[r]);
        }
        b.merge_from(&a);
        assert_eq!(b.into_lists(), whole.into_lists());
    }

    /// `dots` gives `dot`'s numbers bit for bit, for every length (lanes and tail), so the
    /// 8-bit search's re-scored similarities equal the ranking's.
    #[test]
    fn dots_equals_dot_bit_for_bit() {
        for d in [0, 1, 15, 16, 17, 33, 384] {
            let x = random_rows(5, d, 11 + d as u64, 0);
            let ys: [&[f32]; 4] = std::array::from_fn(|r| &x[(r + 1) * d..(r + 2) * d]);
            let got = dots(&x[..d], ys);
            for (r, y) in ys.iter().enumerate() {
                let naive = x[..d].iter().zip(*y).map(|(a, b)| a * b).sum::<f32>();
                assert_eq!(got[r].to_bits(), dot(&x[..d], y).to_bits(), "d {d} row {r}");
                assert!((got[r] - naive).abs() <= 1e-4 * (1.0 + naive.abs()));
            }
        }
    }

    /// The AVX2 build of the loop sums exactly as the portable one (no fused multiply-add),
    /// so which one a CPU runs never changes a similarity.
    #[test]
    fn dots_on_avx2_equal_the_portable_loop_bit_for_bit() {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            for d in [0, 1, 15, 16, 17, 33, 384, 1_536] {
                let x = random_rows(5, d, 29 + d as u64, 0);
                let ys: [&[f32]; 4] = std::array::from_fn(|r| &x[(r + 1) * d..(r + 2) * d]);
                // SAFETY: the CPU has AVX2, checked above.
                #[allow(unsafe_code)]
                let fast = unsafe { dots_avx2(&x[..d], ys) };
                let portable = dots_portable(&x[..d], ys);
                assert_eq!(fast.map(f32::to_bits), portable.map(f32::to_bits), "d {d}");
            }
        }
    }

    #[test]
    fn exact_is_deterministic() {
        let (n, d) = (1500, 32);
        let xd = random_rows(n, d, 9, 0);
        let x = Matrix::new(&xd, n, d);
        let xi = ids(n);
        let a = top_k(x, &xi, x, &xi, 5);
        let b = top_k(x, &xi, x, &xi, 5);
        assert_eq!(a, b);
    }
}
