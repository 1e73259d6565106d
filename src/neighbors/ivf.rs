//! Approximate top-k by dot product (cosine on L2-normalised rows) with an IVF index:
//! a spherical k-means coarse quantizer, inverted lists, and a search inside the probed lists:
//! an 8-bit first pass re-scored exactly ([`Scoring::Int8`], where AVX-512 VNNI runs it) or
//! the f32 GEMM kernel and bounded top-k scan of [`super::exact`] ([`Scoring::F32`]).
//!
//! Method
//! 1. Train `nlist` centroids with spherical k-means (unit-norm centroids, assignment by max dot
//!    product computed with GEMM) on a random sample of the candidates (zero and non-finite rows
//!    are left out of training).
//! 2. Assign every candidate to its nearest centroid (its inverted list).
//! 3. For every query compute its `nprobe` nearest centroids (GEMM queries × centroids, bounded
//!    top-`nprobe` per row).
//! 4. Inverted search, as batched IVF search does (faiss's `search_preassigned` over lists): for
//!    each list, gather the queries that probe it (blocks of at most [`QUERY_BLOCK`] rows) and
//!    multiply them by the list's members (tiles of at most [`CAND_TILE`] rows), offering every
//!    score to its query's bounded top-k. Each query sees exactly its `nprobe` lists, so the
//!    work is queries × probed rows, in blocks of a few hundred rows a side. The queries are
//!    cut into parts (four a thread); a part's blocks run one after another on one top-k
//!    state for its queries, the parts in parallel.
//! 5. With 8-bit scoring, step 4 multiplies rows quantized once ([`super::quantized`]: a
//!    step per row, bytes, four times the f32 kernel's rate) and keeps each query's best
//!    `k + rerank + 1` candidates by that estimate; those are then scored exactly
//!    ([`exact::dot`]) and the best `k` kept. At 1M × 384 this halves the search
//!    (docs/performance.md) and reproduces 99.96–100% of the f32 search's neighbours.
//!
//! Output contract (same as [`super::exact::top_k`]): a candidate whose id equals the query's id is
//! never returned; lists are sorted by score descending, ties by id ascending; NaN scores count as
//! `-inf`; scores are f32 dot products (with f32 scoring the GEMM's, the same numbers exact
//! search computes; with 8-bit scoring [`exact::dot`]'s, which may differ in the last bits,
//! except for a query re-run exactly, below, whose scores are the GEMM's).
//! A query whose probed lists hold fewer than `min(k, #other candidates)` rows is re-run exactly,
//! so list lengths always equal exact search's. Deterministic for a given input and seed,
//! whatever the thread count (the blocks are cut by the number of queries alone, no block is
//! split across threads, the 8-bit sums are integers; every pair reaches its query once, in
//! a fixed order).
//!
//! Memory: the input is borrowed, never copied or permuted. Extra memory is the centroids
//! (`nlist × dim`), the inverted lists (4 B per candidate), the query probe lists and their
//! inverse (`8 × nprobe` B per query), the output, one top-k state entry per query
//! (`8k + 8` B, `k + rerank + 1` entries with 8-bit scoring), and per running part a
//! gathered query block, a candidate tile and a `QUERY_BLOCK × CAND_TILE` score tile
//! (~2.5 MiB at d = 384). 8-bit scoring adds the quantized rows, a quarter of the input
//! (and as much again for queries that are not the candidates), freed when the search ends.

use super::exact::{self, Matrix, Neighbor, State, dot_block_par};
use super::kmeans::{CAND_CHUNK, SampleRows, counting_sort, kmeans, norm};
use super::quantized;
use super::recall::sample_indices;
use rayon::prelude::*;
use std::fmt;
use std::sync::Mutex;

/// IVF parameters. `Default` gives the documented automatic rules.
#[derive(Clone, Debug, PartialEq)]
pub struct IvfParams {
    /// Number of k-means lists. `None` = [`default_nlist`]. An explicit value also disables the
    /// small-input exact fallback (useful for tests and tiny real data sets).
    pub nlist: Option<usize>,
    /// Lists probed per query (at least; see [`default_nprobe`]). `None` = [`default_nprobe`].
    /// Clamped to `1..=nlist`.
    pub nprobe: Option<usize>,
    /// Maximum number of rows k-means is trained on (raised to at least `nlist`).
    pub train_sample: usize,
    /// k-means iterations (0 = centroids are the initial random sample rows).
    pub iterations: usize,
    /// Seed for the training sample and the initial centroids.
    pub seed: u64,
    /// How the probed lists are scored (see [`Scoring`]).
    pub scoring: Scoring,
    /// With 8-bit scoring: candidates kept per query beyond `k` for the exact re-scoring.
    pub rerank: usize,
}

/// How the inverted search scores a query against its probed lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// f32 GEMM: every probed pair scored exactly.
    F32,
    /// An 8-bit first pass (4× the f32 kernel's rate with AVX-512 VNNI) keeps each query's
    /// best `k + rerank + 1` candidates (the one more: the query itself may be among them), which are then scored exactly in f32: the lists and
    /// their scores are exact search's over what the first pass kept.
    Int8,
    /// `Int8` where the CPU has AVX-512 VNNI, else `F32` (the scalar 8-bit kernel is slower
    /// than the f32 GEMM).
    Auto,
}

/// Candidates the 8-bit first pass keeps per query beyond `k`. Measured with
/// `benches/search.rs --rerank` at k = 20 (docs/performance.md): the share of the f32
/// search's neighbours the 8-bit search returns is 0.9992 at 3, 0.9999 at 5 and 1.0000 at 10 on
/// 200,000 × 384; 0.9995 at 4 and 1.0000 at 8 on 100,000 × 1,536; 0.9996 at 5 on
/// 1,000,000 × 384. Each extra costs one exact dot product per query.
pub const DEFAULT_RERANK: usize = 8;

/// Rows sampled to train the k-means centroids.
pub const DEFAULT_TRAIN_SAMPLE: usize = 65_536;
/// k-means iterations.
pub const DEFAULT_ITERATIONS: usize = 8;
/// k-means seed: the same input gives the same index and the same output.
pub const DEFAULT_SEED: u64 = 0x001F_5EED;

impl Default for IvfParams {
    fn default() -> Self {
        IvfParams {
            nlist: None,
            nprobe: None,
            train_sample: DEFAULT_TRAIN_SAMPLE,
            iterations: DEFAULT_ITERATIONS,
            seed: DEFAULT_SEED,
            scoring: Scoring::Auto,
            rerank: DEFAULT_RERANK,
        }
    }
}

/// With `nlist: None` and fewer candidates than this, [`top_k_ivf`] runs exact search.
pub const EXACT_BELOW: usize = 16_384;
/// Max queries multiplied at once by a list's members in the inverted search (GEMM `m`).
pub const QUERY_BLOCK: usize = 512;
/// Max list members per GEMM call in the inverted search (GEMM `n`); with [`QUERY_BLOCK`] a
/// 1 MiB score tile, scanned while it is still in cache.
pub const CAND_TILE: usize = 512;

/// One running task's buffers and top-k state (all queries), reused from task to task.
struct Worker {
    state: State,
    qbuf: Vec<f32>,
    qids: Vec<u32>,
    cbuf: Vec<f32>,
    cids: Vec<u32>,
    sbuf: Vec<f32>,
    /// The 8-bit first pass's quantized query block and member tile.
    q8: quantized::Queries,
    m8: quantized::Members,
}

impl Worker {
    fn new(m: usize, k: usize) -> Self {
        Worker {
            state: State::new(m, k),
            qbuf: Vec::new(),
            qids: Vec::new(),
            cbuf: Vec::new(),
            cids: Vec::new(),
            sbuf: Vec::new(),
            q8: quantized::Queries::default(),
            m8: quantized::Members::default(),
        }
    }
}

/// `nlist` default: `√n`, clamped to `16..=16384`, and at most `n / 16` (lists of ≥ 16 rows).
/// √n (not the usual 4·√n) because a query group is one list's queries: √n lists keep groups at
/// ~√n rows, large enough for an efficient GEMM (see README for the measurements).
pub fn default_nlist(n: usize) -> usize {
    let l = (n as f64).sqrt().round() as usize;
    l.clamp(16, 16_384).min((n / 16).max(1))
}

/// `nprobe` default for `n` candidates in `nlist` lists: `nlist / 100`, at least 4 and at
/// most 64 (and at most `nlist`).
///
/// The inverted search scores each query against exactly its `nprobe` lists (the grouped
/// search before it saw the union of its whole group's lists, ~15–25× more), so the recall
/// comes from `nprobe` alone. Measured recall@5 against exact search on linkgap-gen's vectors
/// (2026-12-01, `benches/search.rs`): 200,000 × 384 (nlist 447): nprobe 2 → 0.956, 3 → 0.994,
/// 4 → 0.9993; 50,000 × 384 (nlist 224): 2 → 0.9988, 4 → 1.0. Larger sites have longer lists
/// but also more of them per topic, hence the growth with `nlist` (1M × 384: 10, not measured
/// with the inverted search yet).
pub fn default_nprobe(n: usize, nlist: usize) -> usize {
    let _ = n;
    (nlist / 100).clamp(4, 64).min(nlist.max(1))
}

/// Why an IVF search could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum IvfError {
    /// A parameter is out of its documented range.
    InvalidParam {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: usize,
        /// The range allowed.
        allowed: &'static str,
    },
    /// Matrix shape or id count inconsistent.
    Shape(String),
    /// More rows than u32 ids can address.
    TooLarge(usize),
}

impl fmt::Display for IvfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IvfError::InvalidParam {
                name,
                value,
                allowed,
            } => {
                write!(
                    f,
                    "invalid IVF parameter {name} = {value} (allowed: {allowed})"
                )
            }
            IvfError::Shape(s) => write!(f, "invalid input shape: {s}"),
            IvfError::TooLarge(n) => write!(f, "too many rows for the IVF index: {n}"),
        }
    }
}

impl std::error::Error for IvfError {}

/// Which engine to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Every pair.
    Exact,
    /// The inverted-file index.
    Ivf,
}

/// Cost model (2-vCPU AVX-512 box, k = 5, clustered data; see README for the measurements):
/// * exact: `nq·nc·d / EXACT_RATE` seconds, halved for all-pairs (`nq == nc`, symmetric path);
/// * IVF: training + probing + scanning ≈
///   `IVF_FIXED + nq·nc·d·IVF_SCAN_FRAC / EXACT_RATE + (nq + nc)·d·IVF_PER_ROW`.
///
/// Exact is chosen below [`EXACT_BELOW`] candidates and whenever the model says it is not
/// slower (it is exact).
pub fn auto_choose(n_queries: usize, n_candidates: usize, dim: usize) -> Choice {
    if n_candidates < EXACT_BELOW || n_queries == 0 {
        return Choice::Exact;
    }
    let (q, c, d) = (n_queries as f64, n_candidates as f64, dim.max(1) as f64);
    let pair = q * c * d / EXACT_RATE;
    let exact_s = if n_queries == n_candidates {
        pair / 2.0
    } else {
        pair
    };
    let ivf_s = IVF_FIXED + pair * IVF_SCAN_FRAC + (q + c) * d * IVF_PER_ROW;
    if exact_s <= ivf_s {
        Choice::Exact
    } else {
        Choice::Ivf
    }
}
/// Effective dot-product rate of the GEMM kernel, multiply-adds per second (2 FLOP each).
pub const EXACT_RATE: f64 = 1.9e11;
/// Fraction of all query × candidate pairs the IVF search costs, relative to exact search's rate.
/// Measured for the grouped search (0.2, unions included); the inverted search scores
/// `nprobe / nlist` of the pairs (1–2 % by default) plus training and gathering. Left at the
/// old, conservative value until the crossover is re-measured, so `--index auto` picks exact
/// search at least as often as before.
pub const IVF_SCAN_FRAC: f64 = 0.2;
/// Fixed cost of an IVF search (training, setup), seconds.
pub const IVF_FIXED: f64 = 0.5;
/// Training + probing per row and dimension, seconds.
pub const IVF_PER_ROW: f64 = 1.0e-8;

// ---------------------------------------------------------------------------------------------

/// All-in-one: train, assign, probe, search. See the module docs.
pub fn top_k_ivf(
    queries: Matrix,
    query_ids: &[u32],
    candidates: Matrix,
    cand_ids: &[u32],
    k: usize,
    params: &IvfParams,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Vec<Neighbor>>, IvfError> {
    check_shape(&queries, query_ids, "queries")?;
    check_shape(&candidates, cand_ids, "candidates")?;
    if queries.dim != candidates.dim {
        return Err(IvfError::Shape(format!(
            "queries have dim {} but candidates have dim {}",
            queries.dim, candidates.dim
        )));
    }
    validate(params)?;
    let (m, n) = (queries.rows, candidates.rows);
    if n > u32::MAX as usize {
        return Err(IvfError::TooLarge(n));
    }
    if k == 0 || m == 0 || n == 0 {
        progress(m);
        return Ok(vec![Vec::new(); m]);
    }
    let index = IvfIndex::train(candidates, cand_ids, params)?;
    let nprobe = index.nprobe(params);
    if index.use_exact(k, nprobe) {
        return Ok(exact::top_k_with_progress(
            queries, query_ids, candidates, cand_ids, k, progress,
        ));
    }
    let same = std::ptr::eq(queries.data, candidates.data) && query_ids == cand_ids;
    let probes = index.probe(queries, nprobe);
    let mut index = index;
    if same {
        index.assign_from(&probes);
    } else {
        index.assign();
    }
    Ok(index.search(queries, query_ids, k, &probes, nprobe, progress))
}

/// The inverted search's query parts: each is searched by one thread at a time, on one
/// top-k state, so a query's lists all meet one bounded list. With a state per thread (as
/// before), each query's lists were split between the states, and each state filled its own
/// top-k from scratch: twice the insertions on two threads. The number of parts depends on
/// the queries only, never on the thread count: the parts cut each list's queries into
/// blocks, and the f32 GEMM's summation order depends on a block's shape, so a cut that
/// followed the thread count changed the scores' last bits with it. [`QUERY_PARTS`] parts
/// keep that many threads busy (and two cores busy when one of them is slowed); at least
/// [`QUERY_BLOCK`] queries a part keep the blocks full.
fn query_parts(m: usize) -> Vec<(usize, usize)> {
    exact::even_cuts(m, QUERY_PARTS.min(m / QUERY_BLOCK))
}

/// See [`query_parts`].
const QUERY_PARTS: usize = 8;

fn validate(p: &IvfParams) -> Result<(), IvfError> {
    if p.nlist == Some(0) {
        return Err(IvfError::InvalidParam {
            name: "nlist",
            value: 0,
            allowed: "1..=16777216",
        });
    }
    if let Some(l) = p.nlist
        && l > 1 << 24
    {
        return Err(IvfError::InvalidParam {
            name: "nlist",
            value: l,
            allowed: "1..=16777216",
        });
    }
    if p.nprobe == Some(0) {
        return Err(IvfError::InvalidParam {
            name: "nprobe",
            value: 0,
            allowed: "1..=nlist",
        });
    }
    if p.iterations > 1000 {
        return Err(IvfError::InvalidParam {
            name: "iterations",
            value: p.iterations,
            allowed: "0..=1000",
        });
    }
    Ok(())
}

fn check_shape(mat: &Matrix, ids: &[u32], which: &str) -> Result<(), IvfError> {
    if Some(mat.data.len()) != mat.rows.checked_mul(mat.dim) {
        return Err(IvfError::Shape(format!(
            "{which}: data.len() = {} but rows × dim = {} × {}",
            mat.data.len(),
            mat.rows,
            mat.dim
        )));
    }
    if ids.len() != mat.rows {
        return Err(IvfError::Shape(format!(
            "{which}: {} ids for {} rows",
            ids.len(),
            mat.rows
        )));
    }
    Ok(())
}

/// Per query row, its `p` nearest centroids (best first), stored flat (`rows × p`).
pub struct Probes {
    /// Centroids per row.
    pub p: usize,
    /// `rows × p` list numbers.
    pub lists: Vec<u32>,
}

impl Probes {
    /// The probe lists of row `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.lists[i * self.p..(i + 1) * self.p]
    }
}

/// A trained coarse quantizer over borrowed candidates, plus (after `assign*`) inverted lists.
pub struct IvfIndex<'a> {
    candidates: Matrix<'a>,
    cand_ids: &'a [u32],
    /// 0 when the index is in exact mode (too few rows / no trainable rows).
    nlist: usize,
    explicit_nlist: bool,
    /// `Some(extra)`: the 8-bit first pass keeps `k + extra + 1` candidates per query.
    int8_rerank: Option<usize>,
    centroids: Vec<f32>,
    /// list `c` holds candidate rows `list_rows[list_off[c]..list_off[c+1]]` (ascending).
    list_off: Vec<usize>,
    list_rows: Vec<u32>,
}

impl<'a> IvfIndex<'a> {
    /// Train the quantizer (no assignment yet). Never fails on finite or non-finite data; errors
    /// only for shapes and parameters.
    pub fn train(
        candidates: Matrix<'a>,
        cand_ids: &'a [u32],
        params: &IvfParams,
    ) -> Result<Self, IvfError> {
        check_shape(&candidates, cand_ids, "candidates")?;
        validate(params)?;
        let n = candidates.rows;
        let d = candidates.dim;
        let mut idx = IvfIndex {
            candidates,
            cand_ids,
            nlist: 0,
            explicit_nlist: params.nlist.is_some(),
            int8_rerank: match params.scoring {
                Scoring::F32 => None,
                Scoring::Int8 => Some(params.rerank),
                Scoring::Auto => quantized::vnni_available().then_some(params.rerank),
            },
            centroids: Vec::new(),
            list_off: Vec::new(),
            list_rows: Vec::new(),
        };
        let want = params.nlist.unwrap_or_else(|| default_nlist(n)).min(n);
        if d == 0 || want <= 1 || (params.nlist.is_none() && n < EXACT_BELOW) {
            return Ok(idx);
        }
        // Training sample: random rows, minus zero and non-finite ones.
        let s = params.train_sample.max(want).min(n);
        let sample: Vec<usize> = sample_indices(n, s, params.seed)
            .into_iter()
            .filter(|&i| {
                let r = candidates.row(i);
                r.iter().all(|x| x.is_finite()) && r.iter().any(|&x| x != 0.0)
            })
            .collect();
        let nlist = want.min(sample.len());
        if nlist <= 1 {
            return Ok(idx);
        }
        // The sample is not copied (it could be 40 % of the input at 100k × 1536): k-means reads
        // it through row indices, gathering one block at a time.
        let inv: Vec<f32> = sample
            .iter()
            .map(|&i| 1.0 / norm(candidates.row(i)))
            .collect();
        let train = SampleRows {
            x: candidates,
            idx: &sample,
            inv: &inv,
        };
        idx.centroids = kmeans(&train, nlist, params.iterations, params.seed);
        idx.nlist = nlist;
        Ok(idx)
    }

    /// Number of lists (0 = exact mode).
    pub fn nlist(&self) -> usize {
        self.nlist
    }

    /// The trained centroids (`nlist × dim`).
    pub fn centroids(&self) -> Matrix<'_> {
        Matrix {
            data: &self.centroids,
            rows: self.nlist,
            dim: self.candidates.dim,
        }
    }

    /// Effective nprobe for these parameters.
    pub fn nprobe(&self, params: &IvfParams) -> usize {
        params
            .nprobe
            .unwrap_or_else(|| default_nprobe(self.candidates.rows, self.nlist))
            .clamp(1, self.nlist.max(1))
    }

    /// Whether searching with (k, nprobe) should just run exact search: exact mode, probing
    /// everything, or so few rows per probe set that lists would often be short.
    pub fn use_exact(&self, k: usize, nprobe: usize) -> bool {
        let n = self.candidates.rows;
        self.nlist <= 1
            || nprobe >= self.nlist
            || (!self.explicit_nlist
                && k.saturating_mul(self.nlist) >= n.saturating_mul(nprobe) / 4)
    }

    /// Top-`p` centroids for each row of `x` (GEMM x × centroidsᵀ, bounded top-p scan).
    pub fn probe(&self, x: Matrix, p: usize) -> Probes {
        let p = p.clamp(1, self.nlist.max(1));
        if self.nlist == 0 {
            return Probes {
                p,
                lists: vec![0; x.rows * p],
            };
        }
        #[allow(clippy::items_after_statements)]
        const R: usize = 256;
        let c = self.centroids();
        let mut lists = vec![0u32; x.rows * p];
        let cids: Vec<u32> = (0..self.nlist as u32).collect();
        lists
            .par_chunks_mut(R * p)
            .enumerate()
            .for_each(|(b, out)| {
                let i0 = b * R;
                let rows = out.len() / p;
                let xb = x.slice_rows(i0, i0 + rows);
                let w = CAND_CHUNK.min(self.nlist);
                let mut sbuf = vec![0f32; rows * w];
                let mut st = State::new(rows, p);
                let mut j0 = 0;
                while j0 < self.nlist {
                    let j1 = (j0 + w).min(self.nlist);
                    let cw = j1 - j0;
                    dot_block_par(xb, c.slice_rows(j0, j1), &mut sbuf, cw, false);
                    let mut v = st.view();
                    for r in 0..rows {
                        v.scan_row(r, &sbuf[r * cw..(r + 1) * cw], &cids[j0..j1], u32::MAX);
                    }
                    j0 = j1;
                }
                for (r, l) in st.into_lists().into_iter().enumerate() {
                    // l.len() == p always (p <= nlist, every score is offered).
                    for (t, nb) in l.iter().enumerate() {
                        out[r * p + t] = nb.id;
                    }
                }
            });
        Probes { p, lists }
    }

    /// Build the inverted lists by assigning every candidate to its nearest centroid.
    pub fn assign(&mut self) {
        let pr = self.probe(self.candidates, 1);
        self.assign_from(&pr);
    }

    /// Build the inverted lists from probes computed on the candidate rows themselves
    /// (the all-pairs case: the queries' probes, column 0 = nearest centroid).
    pub fn assign_from(&mut self, probes: &Probes) {
        assert_eq!(
            probes.lists.len() / probes.p.max(1),
            self.candidates.rows,
            "probes must cover the candidates"
        );
        let n = self.candidates.rows;
        let (off, rows) = counting_sort(
            (0..n).map(|i| probes.lists[i * probes.p] as usize),
            self.nlist.max(1),
            n,
        );
        self.list_off = off;
        self.list_rows = rows;
    }

    /// Sizes of the inverted lists.
    pub fn list_sizes(&self) -> Vec<usize> {
        self.list_off.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// Search with the first `nprobe` columns of `probes` (computed by [`Self::probe`] on
    /// `queries`). Requires `assign*` first (or exact mode). Shapes must be valid (checked by
    /// [`top_k_ivf`]; this panics on mismatch).
    ///
    /// Inverted, as batched IVF search does: for each list, the queries probing it are
    /// gathered (blocks of at most [`QUERY_BLOCK`] rows) and multiplied by the list's members
    /// (chunks of at most [`CAND_TILE`] rows), and every score is offered to its query's
    /// bounded top-k. Each query sees exactly its `nprobe` lists, so the arithmetic is queries ×
    /// probed rows. The queries are cut into parts ([`query_parts`]); a part's blocks run one
    /// after another on its own top-k state, the parts in parallel. Since a candidate belongs
    /// to one list and a query probes distinct lists, every pair is offered once, and the
    /// lists (best k by score, ties by id) do not depend on the thread count.
    pub fn search(
        &self,
        queries: Matrix,
        query_ids: &[u32],
        k: usize,
        probes: &Probes,
        nprobe: usize,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Vec<Neighbor>> {
        let (m, n, d) = (queries.rows, self.candidates.rows, queries.dim);
        assert_eq!(query_ids.len(), m);
        assert_eq!(d, self.candidates.dim);
        if k == 0 || m == 0 || n == 0 || self.nlist == 0 {
            return exact::top_k_with_progress(
                queries,
                query_ids,
                self.candidates,
                self.cand_ids,
                k,
                progress,
            );
        }
        assert!(!self.list_off.is_empty(), "IvfIndex::search before assign");
        assert_eq!(probes.lists.len(), m * probes.p);
        // No list is longer than the candidates (and a k beyond them must not size the states).
        let k = k.min(n);
        let np = nprobe.clamp(1, probes.p);

        // Queries per list: entry t of the counting sort is (query t / np, probe t % np);
        // a list's entries are in query order.
        let (poff, pent) = counting_sort(
            (0..m * np).map(|t| probes.lists[(t / np) * probes.p + t % np] as usize),
            self.nlist,
            m * np,
        );
        // The 8-bit pass keeps candidate rows, not ids, and one more than it needs (the query
        // itself may be among them): the re-scoring maps rows to ids and drops the query.
        let kept = self
            .int8_rerank
            .map_or(k, |extra| k.saturating_add(extra).saturating_add(1).min(n));
        let int8 = self.int8_rerank.map(|_| {
            let c = quantized::Quantized::new(self.candidates.data, n, d);
            let same = std::ptr::eq(queries.data, self.candidates.data) && m == n;
            let q = (!same).then(|| quantized::Quantized::new(queries.data, m, d));
            (c, q)
        });
        let parts = query_parts(m);
        let part_tasks: Vec<_> = parts
            .iter()
            .map(|&(q0, q1)| self.inverted_tasks(&poff, &pent, np, q0, q1))
            .collect();
        let total: u128 = part_tasks
            .iter()
            .flatten()
            .map(|t| t.3 as u128)
            .sum::<u128>()
            .max(1);
        let done = Mutex::new(0u128);
        let lists: Vec<Vec<Vec<Neighbor>>> = parts
            .par_iter()
            .zip(&part_tasks)
            .with_max_len(1)
            .map(|(&(q0, q1), tasks)| {
                let mut w = Worker::new(q1 - q0, kept);
                for &(c, s, e, work) in tasks {
                    let rows: Vec<usize> = pent[s..e].iter().map(|&t| t as usize / np).collect();
                    match &int8 {
                        Some((cq, qq)) => {
                            let q8 = qq.as_ref().unwrap_or(cq);
                            self.scan_list_int8(q8, cq, &rows, q0, c, &mut w);
                        }
                        None => self.scan_list(queries, query_ids, &rows, q0, c, &mut w),
                    }
                    let mut dn = done.lock().unwrap();
                    *dn += work as u128;
                    // Work done, scaled to query rows (no row is final before the last list).
                    progress(((*dn * m as u128) / total).min(m as u128 - 1) as usize);
                }
                w.state.into_lists()
            })
            .collect();
        let mut out: Vec<Vec<Neighbor>> = lists.into_iter().flatten().collect();
        if self.int8_rerank.is_some() {
            self.rescore(queries, query_ids, k, probes, &mut out);
        }
        self.redo_short(queries, query_ids, k, &mut out);
        progress(m);
        out
    }

    /// One part's tasks in the inverted search: (list, start, end into the sorted probe
    /// entries, work) for the queries `q0..q1`, a list's probing queries in blocks of at
    /// most [`QUERY_BLOCK`], largest work first (ties by position, so the order is fixed).
    fn inverted_tasks(
        &self,
        poff: &[usize],
        pent: &[u32],
        np: usize,
        q0: usize,
        q1: usize,
    ) -> Vec<(usize, usize, usize, usize)> {
        let mut tasks = Vec::new();
        for c in 0..self.nlist {
            let size = self.list_off[c + 1] - self.list_off[c];
            let entries = &pent[poff[c]..poff[c + 1]];
            let a = poff[c] + entries.partition_point(|&t| (t as usize / np) < q0);
            let b = poff[c] + entries.partition_point(|&t| (t as usize / np) < q1);
            if size == 0 || a == b {
                continue;
            }
            let pieces = (b - a).div_ceil(QUERY_BLOCK);
            for t in 0..pieces {
                let s = a + (b - a) * t / pieces;
                let e = a + (b - a) * (t + 1) / pieces;
                tasks.push((c, s, e, (e - s) * size));
            }
        }
        tasks.sort_by_key(|&(c, s, _, w)| (std::cmp::Reverse(w), c, s));
        tasks
    }

    /// The 8-bit pass's lists (candidate rows by estimated score) become the query's best `k`
    /// by the exact f32 dot product ([`exact::dot`]), ids for rows, the query itself left
    /// out; ties by id.
    ///
    /// The rows are read at random, and a million-page site's rows are 1.5 GB: queries are
    /// taken list by list (by their nearest list), so that one list's queries, whose
    /// candidates lie in the same few lists, find most rows still in cache; and four rows are
    /// read side by side.
    fn rescore(
        &self,
        queries: Matrix,
        query_ids: &[u32],
        k: usize,
        probes: &Probes,
        lists: &mut [Vec<Neighbor>],
    ) {
        const WAY: usize = 4;
        let m = lists.len();
        let (_, order) = counting_sort(
            (0..m).map(|i| probes.lists[i * probes.p] as usize),
            self.nlist.max(1),
            m,
        );
        let mut ordered: Vec<(u32, Vec<Neighbor>)> = order
            .iter()
            .map(|&i| (i, std::mem::take(&mut lists[i as usize])))
            .collect();
        ordered.par_iter_mut().for_each(|(i, list)| {
            let q = queries.row(*i as usize);
            for nbs in list.chunks_mut(WAY) {
                let row = |t: usize| self.candidates.row(nbs[t.min(nbs.len() - 1)].id as usize);
                let scores = exact::dots(q, std::array::from_fn::<_, WAY, _>(row));
                for (nb, score) in nbs.iter_mut().zip(scores) {
                    *nb = Neighbor {
                        id: self.cand_ids[nb.id as usize],
                        score: if score.is_nan() {
                            f32::NEG_INFINITY
                        } else {
                            score
                        },
                    };
                }
            }
            list.retain(|nb| nb.id != query_ids[*i as usize]);
            list.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
            list.truncate(k);
            list.shrink_to_fit();
        });
        for (i, list) in ordered {
            lists[i as usize] = list;
        }
    }

    /// Query rows `rows` (indices into `queries`) against the members of list `c`, into the
    /// worker's top-k state (whose row 0 is query `q0`).
    fn scan_list(
        &self,
        queries: Matrix,
        query_ids: &[u32],
        rows: &[usize],
        q0: usize,
        c: usize,
        w: &mut Worker,
    ) {
        let d = queries.dim;
        let members = &self.list_rows[self.list_off[c]..self.list_off[c + 1]];
        w.qbuf.clear();
        w.qids.clear();
        for &i in rows {
            w.qbuf.extend_from_slice(queries.row(i));
            w.qids.push(query_ids[i]);
        }
        let qm = Matrix {
            data: &w.qbuf,
            rows: rows.len(),
            dim: d,
        };
        for chunk in members.chunks(CAND_TILE) {
            w.cbuf.clear();
            w.cids.clear();
            for &j in chunk {
                w.cbuf.extend_from_slice(self.candidates.row(j as usize));
                w.cids.push(self.cand_ids[j as usize]);
            }
            let cw = chunk.len();
            w.sbuf.resize(rows.len() * cw, 0.0);
            dot_block_par(
                qm,
                Matrix {
                    data: &w.cbuf,
                    rows: cw,
                    dim: d,
                },
                &mut w.sbuf,
                cw,
                false,
            );
            let mut v = w.state.view();
            for (r, &i) in rows.iter().enumerate() {
                v.scan_row(i - q0, &w.sbuf[r * cw..(r + 1) * cw], &w.cids, w.qids[r]);
            }
        }
    }

    /// [`Self::scan_list`] with the 8-bit first pass: `queries` and `cands` are the quantized
    /// matrices. Candidate rows stand for ids in the state (see [`Self::search`]); the query
    /// itself is left out by the re-scoring.
    fn scan_list_int8(
        &self,
        queries: &quantized::Quantized,
        cands: &quantized::Quantized,
        rows: &[usize],
        q0: usize,
        c: usize,
        w: &mut Worker,
    ) {
        let members = &self.list_rows[self.list_off[c]..self.list_off[c + 1]];
        w.q8.gather(queries, rows.iter().copied());
        for chunk in members.chunks(CAND_TILE) {
            w.m8.gather(cands, chunk.iter().map(|&j| j as usize));
            let cw = chunk.len();
            w.sbuf.resize(rows.len() * cw, 0.0);
            quantized::scores(&w.q8, rows.len(), &w.m8, &mut w.sbuf, cw);
            let mut v = w.state.view();
            for (r, &i) in rows.iter().enumerate() {
                v.scan_row(i - q0, &w.sbuf[r * cw..(r + 1) * cw], chunk, u32::MAX);
            }
        }
    }

    /// Safety net: lists shorter than exact search's are recomputed exactly.
    fn redo_short(&self, queries: Matrix, query_ids: &[u32], k: usize, out: &mut [Vec<Neighbor>]) {
        let (m, n, d) = (queries.rows, self.candidates.rows, queries.dim);
        let want_k = k.min(n);
        let short: Vec<usize> = (0..m).filter(|&i| out[i].len() < want_k).collect();
        if short.is_empty() {
            return;
        }
        let mut sorted_ids = self.cand_ids.to_vec();
        sorted_ids.sort_unstable();
        let count = |id: u32| {
            sorted_ids.partition_point(|&x| x <= id) - sorted_ids.partition_point(|&x| x < id)
        };
        let redo: Vec<usize> = short
            .into_iter()
            .filter(|&i| out[i].len() < k.min(n - count(query_ids[i])))
            .collect();
        if redo.is_empty() {
            return;
        }
        let mut qb = Vec::with_capacity(redo.len() * d);
        redo.iter()
            .for_each(|&i| qb.extend_from_slice(queries.row(i)));
        let qi: Vec<u32> = redo.iter().map(|&i| query_ids[i]).collect();
        let ex = exact::top_k(
            Matrix {
                data: &qb,
                rows: redo.len(),
                dim: d,
            },
            &qi,
            self.candidates,
            self.cand_ids,
            k,
        );
        for (&i, l) in redo.iter().zip(ex) {
            out[i] = l;
        }
    }

    /// (number of probed lists, query × candidate pairs scored) for a search with these probes;
    /// pairs / (queries × candidates) is the fraction of the exact work done.
    pub fn scan_stats(&self, probes: &Probes, nprobe: usize) -> (usize, usize) {
        if self.nlist == 0 || self.list_off.is_empty() {
            return (0, 0);
        }
        let m = probes.lists.len() / probes.p;
        let np = nprobe.clamp(1, probes.p);
        let mut probed = vec![false; self.nlist];
        let mut pairs = 0;
        for i in 0..m {
            for &c in &probes.row(i)[..np] {
                probed[c as usize] = true;
                pairs += self.list_off[c as usize + 1] - self.list_off[c as usize];
            }
        }
        (probed.iter().filter(|&&p| p).count(), pairs)
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp, clippy::cast_lossless)]
mod tests {
    use super::super::recall::{recall_at_k, sampled_recall};
    use super::*;
    use crate::synthetic::vectors as synth;
    use proptest::prelude::*;

    fn random_rows(n: usize, d: usize, seed: u64, zero_every: usize) -> Vec<f32> {
        let mut v = synth::uniform(n, d, seed);
        if zero_every > 0 && d > 0 {
            for i in (0..n).step_by(zero_every) {
                v[i * d..(i + 1) * d].fill(0.0);
            }
        }
        v
    }

    fn ids(n: usize) -> Vec<u32> {
        (0..n as u32).collect()
    }

    fn ivf_p(nlist: usize, nprobe: usize) -> IvfParams {
        IvfParams {
            nlist: Some(nlist),
            nprobe: Some(nprobe),
            ..IvfParams::default()
        }
    }

    /// Well-formed lists: same lengths as exact, <= k, no self, sorted (score desc, id asc), and
    /// every returned score is the true dot product of that pair (within f32 tolerance).
    fn assert_well_formed(
        q: Matrix,
        qi: &[u32],
        c: Matrix,
        ci: &[u32],
        k: usize,
        got: &[Vec<Neighbor>],
        ex: &[Vec<Neighbor>],
    ) {
        assert_eq!(got.len(), q.rows);
        let pos: std::collections::HashMap<u32, usize> =
            ci.iter().enumerate().map(|(j, &id)| (id, j)).collect();
        for (i, v) in got.iter().enumerate() {
            assert!(v.len() <= k);
            assert_eq!(v.len(), ex[i].len(), "row {i}: length");
            for (t, nb) in v.iter().enumerate() {
                assert_ne!(nb.id, qi[i], "row {i}: self");
                if t > 0 {
                    let a = v[t - 1];
                    assert!(
                        a.score > nb.score || (a.score == nb.score && a.id < nb.id),
                        "row {i}: order at {t}"
                    );
                }
                let s: f64 = q
                    .row(i)
                    .iter()
                    .zip(c.row(pos[&nb.id]))
                    .map(|(&a, &b)| a as f64 * b as f64)
                    .sum();
                if s.is_finite() {
                    assert!(
                        (s - nb.score as f64).abs() <= 1e-4,
                        "row {i}: score {} vs true {s}",
                        nb.score
                    );
                } else {
                    assert_eq!(nb.score, f32::NEG_INFINITY);
                }
            }
        }
    }

    #[test]
    fn ivf_agrees_with_exact_on_clustered_data() {
        let (n, d, k) = (6000, 64, 5);
        // 300 extra rows from the same distribution serve as foreign queries below
        let all = synth::clustered(&synth::SynthParams::realistic(n + 300, d, 42));
        let (xd, qd) = all.split_at(n * d);
        let x = Matrix::new(xd, n, d);
        let xi = ids(n);
        let ex = exact::top_k(x, &xi, x, &xi, k);
        let p = ivf_p(64, 4);
        let iv = top_k_ivf(x, &xi, x, &xi, k, &p, &|_| {}).unwrap();
        assert_well_formed(x, &xi, x, &xi, k, &iv, &ex);
        let rec = recall_at_k(&ex, &iv);
        assert!(rec >= 0.95, "recall {rec}");
        let sampled = sampled_recall(x, &xi, x, &xi, k, &iv, 500, 7);
        assert!(sampled >= 0.95, "sampled recall {sampled}");
        // deterministic for a seed
        let again = top_k_ivf(x, &xi, x, &xi, k, &p, &|_| {}).unwrap();
        assert_eq!(iv, again);
        // rectangular: foreign queries (fresh ids) against the same candidates
        let q = Matrix::new(qd, 300, d);
        let qi: Vec<u32> = (0..300).map(|i| 1_000_000 + i).collect();
        let exq = exact::top_k(q, &qi, x, &xi, k);
        let ivq = top_k_ivf(q, &qi, x, &xi, k, &p, &|_| {}).unwrap();
        assert_well_formed(q, &qi, x, &xi, k, &ivq, &exq);
        assert!(recall_at_k(&exq, &ivq) >= 0.9);
        // progress ends at the number of queries
        let last = std::sync::atomic::AtomicUsize::new(0);
        top_k_ivf(x, &xi, x, &xi, k, &p, &|d| {
            assert!(d >= last.swap(d, std::sync::atomic::Ordering::SeqCst));
        })
        .unwrap();
        assert_eq!(last.into_inner(), n);
    }

    /// The lists and their score bits do not depend on the thread count, with either
    /// scoring: the query parts are cut by the number of queries alone (`query_parts`). At
    /// d > 512 the GEMM sums in a block-shape-dependent order, so a cut that followed the
    /// thread count (as it once did) changed most lists' last bits.
    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let (n, d, k) = (6_000, 640, 5);
        let x = synth::clustered(&synth::SynthParams::realistic(n, d, 11));
        let x = Matrix::new(&x, n, d);
        let xi = ids(n);
        for scoring in [Scoring::F32, Scoring::Int8] {
            let p = IvfParams {
                scoring,
                ..ivf_p(16, 3)
            };
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| top_k_ivf(x, &xi, x, &xi, k, &p, &|_| {}).unwrap())
            };
            let bits = |lists: &[Vec<Neighbor>]| -> Vec<(u32, u32)> {
                lists
                    .iter()
                    .flatten()
                    .map(|nb| (nb.id, nb.score.to_bits()))
                    .collect()
            };
            let (one, five) = (bits(&run(1)), bits(&run(5)));
            assert_eq!(one.len(), five.len(), "{scoring:?}");
            let differ = one.iter().zip(&five).filter(|(a, b)| a != b).count();
            assert_eq!(
                differ,
                0,
                "{scoring:?}: {differ} of {} neighbours",
                one.len()
            );
        }
    }

    /// The inverted search is exact within each query's probed lists: every query gets the
    /// top-k of exactly the members of its `nprobe` lists (self excluded), for the all-pairs
    /// and the foreign-query paths.
    #[test]
    fn inverted_search_is_exact_within_probed_lists() {
        let (n, d, k) = (5000, 32, 5);
        let all = synth::clustered(&synth::SynthParams::realistic(n + 200, d, 3));
        let (xd, qd) = all.split_at(n * d);
        let x = Matrix::new(xd, n, d);
        let xi = ids(n);
        // Both scorings: the 8-bit pass keeps k + 8 candidates, far more than its error can
        // reorder on these clustered rows, so its re-scored lists are the exact ones too.
        for scoring in [Scoring::F32, Scoring::Int8] {
            let p = IvfParams {
                scoring,
                ..ivf_p(40, 3)
            };
            let mut index = IvfIndex::train(x, &xi, &p).unwrap();
            let np = index.nprobe(&p);
            let probes = index.probe(x, np);
            index.assign_from(&probes);
            let got = index.search(x, &xi, k, &probes, np, &|_| {});
            let q = Matrix::new(qd, 200, d);
            let qi: Vec<u32> = (0..200).map(|i| 100_000 + i).collect();
            let qprobes = index.probe(q, np);
            let qgot = index.search(q, &qi, k, &qprobes, np, &|_| {});
            let list_of: Vec<u32> = (0..n).map(|i| probes.row(i)[0]).collect();
            let check = |row: &[f32], id: u32, lists: &[u32], got: &[Neighbor]| {
                let cand: Vec<usize> = (0..n).filter(|&j| lists.contains(&list_of[j])).collect();
                let mut cd = Vec::new();
                cand.iter().for_each(|&j| cd.extend_from_slice(x.row(j)));
                let cids: Vec<u32> = cand.iter().map(|&j| xi[j]).collect();
                let want = exact::top_k(
                    Matrix::new(row, 1, d),
                    &[id],
                    Matrix::new(&cd, cand.len(), d),
                    &cids,
                    k,
                );
                let g: Vec<u32> = got.iter().map(|nb| nb.id).collect();
                let w: Vec<u32> = want[0].iter().map(|nb| nb.id).collect();
                assert_eq!(g, w, "query {id}");
                for (a, b) in got.iter().zip(&want[0]) {
                    assert!((a.score - b.score).abs() <= 1e-5);
                }
            };
            for i in (0..n).step_by(13) {
                check(x.row(i), xi[i], &probes.row(i)[..np], &got[i]);
            }
            for i in 0..200 {
                check(q.row(i), qi[i], &qprobes.row(i)[..np], &qgot[i]);
            }
            // The same data in another buffer takes the rectangular path: the same lists.
            let copy = xd.to_vec();
            let y = Matrix::new(&copy, n, d);
            assert_eq!(top_k_ivf(x, &xi, y, &xi, k, &p, &|_| {}).unwrap(), got);
        }
    }

    #[test]
    fn ivf_default_params_small_input_is_exact() {
        let (n, d, k) = (3000, 32, 5);
        let xd = synth::clustered(&synth::SynthParams::realistic(n, d, 5));
        let x = Matrix::new(&xd, n, d);
        let xi = ids(n);
        let iv = top_k_ivf(x, &xi, x, &xi, k, &IvfParams::default(), &|_| {}).unwrap();
        assert_eq!(iv, exact::top_k(x, &xi, x, &xi, k));
        assert_eq!(auto_choose(n, n, d), Choice::Exact);
    }

    #[test]
    fn ivf_degenerate_inputs() {
        let (n, d) = (200, 16);
        let mut xd = random_rows(n, d, 3, 7); // every 7th row zero
        let xi = ids(n);
        let x = Matrix::new(&xd, n, d);
        let ex = exact::top_k(x, &xi, x, &xi, 5);
        let nb = top_k_ivf(x, &xi, x, &xi, 5, &ivf_p(8, 2), &|_| {}).unwrap();
        assert_well_formed(x, &xi, x, &xi, 5, &nb, &ex);
        // k >= n: every other row comes back (the short-list safety net kicks in), exactly as exact
        let big = top_k_ivf(x, &xi, x, &xi, n + 5, &ivf_p(8, 1), &|_| {}).unwrap();
        assert_eq!(big, exact::top_k(x, &xi, x, &xi, n + 5));
        // empty inputs and k = 0
        let e = Matrix::new(&[], 0, d);
        assert_eq!(
            top_k_ivf(e, &[], x, &xi, 5, &ivf_p(8, 2), &|_| {})
                .unwrap()
                .len(),
            0
        );
        assert_eq!(
            top_k_ivf(x, &xi, e, &[], 5, &ivf_p(8, 2), &|_| {}).unwrap(),
            vec![Vec::new(); n]
        );
        assert_eq!(
            top_k_ivf(x, &xi, x, &xi, 0, &ivf_p(8, 2), &|_| {}).unwrap(),
            vec![Vec::new(); n]
        );
        // nlist larger than n, nprobe larger than nlist
        let r = top_k_ivf(x, &xi, x, &xi, 3, &ivf_p(10_000, 50_000), &|_| {}).unwrap();
        assert_eq!(r, exact::top_k(x, &xi, x, &xi, 3));
        // all-zero data: nothing to train on -> exact (k smallest other ids, score 0)
        let z = vec![0f32; n * d];
        let zm = Matrix::new(&z, n, d);
        let r = top_k_ivf(zm, &xi, zm, &xi, 3, &ivf_p(8, 2), &|_| {}).unwrap();
        assert_eq!(r, exact::top_k(zm, &xi, zm, &xi, 3));
        // dim 0
        let d0 = Matrix::new(&[], n, 0);
        let r = top_k_ivf(d0, &xi, d0, &xi, 3, &ivf_p(8, 2), &|_| {}).unwrap();
        assert_eq!(r, exact::top_k(d0, &xi, d0, &xi, 3));
        // NaN / inf rows: no panic, same lengths as exact, NaN scores reported as -inf
        xd[3 * d] = f32::NAN;
        xd[10 * d + 1] = f32::INFINITY;
        let x = Matrix::new(&xd, n, d);
        let ex = exact::top_k(x, &xi, x, &xi, 5);
        let r = top_k_ivf(x, &xi, x, &xi, 5, &ivf_p(8, 2), &|_| {}).unwrap();
        for (a, b) in r.iter().zip(&ex) {
            assert_eq!(a.len(), b.len());
            assert!(a.iter().all(|nb| !nb.score.is_nan()));
        }
        // errors
        let bad = |p: IvfParams| top_k_ivf(x, &xi, x, &xi, 5, &p, &|_| {}).unwrap_err();
        assert!(matches!(
            bad(ivf_p(0, 2)),
            IvfError::InvalidParam { name: "nlist", .. }
        ));
        assert!(matches!(
            bad(ivf_p(8, 0)),
            IvfError::InvalidParam { name: "nprobe", .. }
        ));
        let short = Matrix {
            data: &xd[..10],
            rows: n,
            dim: d,
        };
        assert!(matches!(
            top_k_ivf(short, &xi, x, &xi, 5, &ivf_p(8, 2), &|_| {}).unwrap_err(),
            IvfError::Shape(_)
        ));
        assert!(matches!(
            top_k_ivf(x, &xi[1..], x, &xi, 5, &ivf_p(8, 2), &|_| {}).unwrap_err(),
            IvfError::Shape(_)
        ));
        let other = Matrix::new(&xd[..n * 8], n, 8);
        assert!(matches!(
            top_k_ivf(other, &xi, x, &xi, 5, &ivf_p(8, 2), &|_| {}).unwrap_err(),
            IvfError::Shape(_)
        ));
    }

    #[test]
    fn ivf_defaults_and_auto_choose() {
        assert_eq!(default_nlist(100_000), 316);
        assert_eq!(default_nlist(1_000_000), 1000);
        assert_eq!(default_nprobe(100_000, 316), 4);
        assert_eq!(default_nprobe(1_000_000, 1000), 10);
        assert_eq!(default_nprobe(100, 2), 2);
        assert_eq!(auto_choose(20_000, 20_000, 1536), Choice::Exact);
        assert_eq!(auto_choose(100_000, 100_000, 1536), Choice::Ivf);
        assert_eq!(auto_choose(1_000_000, 1_000_000, 384), Choice::Ivf);
        assert_eq!(auto_choose(10, 1_000_000, 384), Choice::Exact);
        assert_eq!(auto_choose(0, 0, 0), Choice::Exact);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// IVF never panics on small random inputs with any parameters, and returns well-formed
        /// lists of exactly exact search's lengths with true scores.
        #[test]
        fn ivf_never_panics(
            n in 0usize..300,
            m_extra in 0usize..30,
            d in 0usize..24,
            k in 0usize..9,
            seed in any::<u64>(),
            zero_every in 0usize..10,
            nlist in 1usize..60,
            nprobe in 1usize..70,
            iterations in 0usize..5,
            train_sample in 0usize..400,
            nan_row in proptest::option::of(0usize..300),
            int8 in any::<bool>(),
            rerank in 0usize..30,
        ) {
            let scoring = if int8 { Scoring::Int8 } else { Scoring::F32 };
            let mut cd = random_rows(n, d, seed, zero_every);
            if let Some(r) = nan_row
                && r < n && d > 0 { cd[r * d] = f32::NAN; }
            let c = Matrix::new(&cd, n, d);
            let ci = ids(n);
            let mut qd = cd.clone();
            qd.extend(random_rows(m_extra, d, seed ^ 1, 0));
            let q = Matrix::new(&qd, n + m_extra, d);
            let qi: Vec<u32> = (0..(n + m_extra) as u32).map(|i| if (i as usize) < n { i } else { 1_000_000 + i }).collect();
            let p = IvfParams { nlist: Some(nlist), nprobe: Some(nprobe), iterations, train_sample, seed, scoring, rerank };
            let iv = top_k_ivf(q, &qi, c, &ci, k, &p, &|_| {}).unwrap();
            let ex = exact::top_k(q, &qi, c, &ci, k);
            prop_assert_eq!(iv.len(), ex.len());
            for (i, v) in iv.iter().enumerate() {
                prop_assert_eq!(v.len(), ex[i].len());
                prop_assert!(v.iter().all(|x| x.id != qi[i] && !x.score.is_nan()));
                prop_assert!(v.windows(2).all(|w| w[0].score > w[1].score || (w[0].score == w[1].score && w[0].id < w[1].id)));
            }
            if nan_row.is_none() {
                assert_well_formed(q, &qi, c, &ci, k, &iv, &ex);
            }
            // Probing every list with f32 scoring is exact search: the same scores, position
            // by position (the 8-bit pass may keep other candidates: checked well formed above).
            let all = IvfParams { nlist: Some(nlist), nprobe: Some(nlist.max(1)), iterations, train_sample, seed, scoring: Scoring::F32, rerank };
            let full = top_k_ivf(q, &qi, c, &ci, k, &all, &|_| {}).unwrap();
            if nan_row.is_none() {
                for (a, b) in full.iter().zip(&ex) {
                    prop_assert_eq!(a.len(), b.len());
                    for (x, y) in a.iter().zip(b) {
                        prop_assert!((x.score - y.score).abs() <= 1e-5, "{} vs {}", x.score, y.score);
                    }
                }
            }
            // self-join too (the assign_from path)
            let s = top_k_ivf(c, &ci, c, &ci, k, &p, &|_| {}).unwrap();
            let se = exact::top_k(c, &ci, c, &ci, k);
            prop_assert_eq!(s.len(), se.len());
            for (a, b) in s.iter().zip(&se) { prop_assert_eq!(a.len(), b.len()); }
        }
    }
}
