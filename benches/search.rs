//! Search bench: exact against approximate top-k in one process, on generated vectors.
//!
//! usage: `cargo bench --bench search -- [--pages N] [--dim D] [--data site|realistic]
//!         [--legacy] [--nprobe 2,4,8] [--no-exact] [--k K] [--topics T] [--rerank 0,10,20]`
//!
//! `site` mirrors `linkgap-gen`'s vectors (`--topics` centres, 200 by default, with N(0, 1)
//! coordinates, pages at spread 0.9 around their topic, i % topics; issue 15's million-page
//! site has 10, whose k-means lists are uneven), `realistic` is
//! `synthetic::vectors::SynthParams::realistic` (overlapping sibling topics, mixed pages). The
//! host is shared and noisy: read the ratios printed within one run, not absolute times.
//! `--exact-queries Q` times exact search for Q sampled queries only (the rectangular path,
//! against all pages) and extrapolates the all-pairs time as `t × n / 2Q` (the symmetric path
//! forms each pair once); recall is then measured on those Q queries. For a contended host.
//! `--legacy` also runs the exact search before issue 15 (blocked, with a 16 MiB score buffer;
//! kept as the exact kernel's oracle in its tests) and checks the output is identical. The
//! grouped IVF search the inverted one replaced is gone: docs/performance.md keeps its figures.
//! `--rerank A,B` runs the inverted search with f32 scoring, then with the 8-bit first pass
//! keeping `k + A`, `k + B` … candidates for the exact re-scoring: time, recall against exact
//! search, and how many of the f32 search's lists the 8-bit one reproduces.
//! `--embeddings FILE` searches a real embeddings export instead of generated vectors (read
//! as `linkgap run` reads it); `--nlist L` fixes the number of lists of the `--rerank` rows,
//! which also keeps a small site (under 16,384 pages a run searches exactly) on the inverted
//! index, so that the 8-bit pass can be measured on real vectors (the default "approx" line
//! searches such a site exactly): `--embeddings ../shared/corpora/postgres15/
//! custom_javascript_all.csv --nlist 34 --k 20 --rerank 0,4,8`.
#![allow(clippy::print_stdout)] // a bench prints its table

use linkgap::neighbors::{self, Matrix, Method, Neighbor, exact, ivf, recall};
use rayon::prelude::*;
use std::time::Instant;

struct Args {
    pages: usize,
    dim: usize,
    data: String,
    legacy: bool,
    nprobe: Vec<usize>,
    exact: bool,
    exact_queries: usize,
    k: usize,
    topics: usize,
    rerank: Vec<usize>,
    embeddings: Option<String>,
    nlist: Option<usize>,
}

fn args() -> Args {
    let mut a = Args {
        pages: 200_000,
        dim: 384,
        data: "site".into(),
        legacy: false,
        nprobe: Vec::new(),
        exact: true,
        exact_queries: 0,
        k: 5,
        topics: 200,
        rerank: Vec::new(),
        embeddings: None,
        nlist: None,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < v.len() {
        let next = |i: usize| v.get(i + 1).cloned().unwrap_or_default();
        match v[i].as_str() {
            "--pages" => a.pages = next(i).parse().expect("--pages N"),
            "--dim" => a.dim = next(i).parse().expect("--dim D"),
            "--data" => a.data = next(i),
            "--embeddings" => a.embeddings = Some(next(i)),
            "--nlist" => a.nlist = Some(next(i).parse().expect("--nlist L")),
            "--k" => a.k = next(i).parse().expect("--k K"),
            "--topics" => a.topics = next(i).parse().expect("--topics T"),
            "--exact-queries" => a.exact_queries = next(i).parse().expect("--exact-queries Q"),
            "--rerank" => {
                a.rerank = next(i)
                    .split(',')
                    .map(|s| s.parse().expect("--rerank 10,20"))
                    .collect();
            }
            "--nprobe" => {
                a.nprobe = next(i)
                    .split(',')
                    .map(|s| s.parse().expect("--nprobe 2,4"))
                    .collect();
            }
            "--legacy" => {
                a.legacy = true;
                i += 1;
                continue;
            }
            "--no-exact" => {
                a.exact = false;
                i += 1;
                continue;
            }
            _ => {
                i += 1; // cargo bench passes --bench
                continue;
            }
        }
        i += 2;
    }
    assert!(a.topics > 0, "--topics T needs T >= 1");
    a
}

/// `linkgap-gen`'s page vectors: topic centres with N(0, 1) coordinates, pages around them.
fn site_vectors(n: usize, d: usize, topics: usize) -> Vec<f32> {
    let mut rng = linkgap::rng::Rng::new(42);
    let centres: Vec<Vec<f64>> = (0..topics)
        .map(|_| (0..d).map(|_| rng.normal()).collect())
        .collect();
    let mut out = vec![0f32; n * d];
    out.par_chunks_mut(d).enumerate().for_each(|(i, row)| {
        let mut r = linkgap::rng::Rng::new(0x51DE ^ (i as u64).wrapping_mul(0x9E37_79B9));
        let v = linkgap::synthetic::vector_near(&mut r, &centres[i % topics], 0.9);
        row.copy_from_slice(&v);
    });
    out
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// `found` restricted to the rows `sample` (all rows without a sample).
fn rows_of(found: &[Vec<Neighbor>], sample: Option<&[usize]>) -> Vec<Vec<Neighbor>> {
    match sample {
        Some(idx) => idx.iter().map(|&i| found[i].clone()).collect(),
        None => found.to_vec(),
    }
}

/// Mean over queries of how much less similar the approximate top-k is than the exact one
/// (mean score of each list): where many candidates are about equally similar (a site of ten
/// topics) recall is low whatever the index does, and this says what that costs.
fn similarity_gap(exact: &[Vec<Neighbor>], approx: &[Vec<Neighbor>]) -> f64 {
    // Both sums over the exact list's length: a shorter approximate list counts its missing
    // places as 0, not as the average of the ones it found.
    let sum = |l: &[Neighbor]| l.iter().map(|x| f64::from(x.score)).sum::<f64>();
    let gaps: Vec<f64> = exact
        .iter()
        .zip(approx)
        .filter(|(e, _)| !e.is_empty())
        .map(|(e, a)| (sum(e) - sum(&a[..a.len().min(e.len())])) / e.len() as f64)
        .collect();
    gaps.iter().sum::<f64>() / gaps.len().max(1) as f64
}

fn identical(a: &[Vec<Neighbor>], b: &[Vec<Neighbor>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p.id == q.id && p.score.to_bits() == q.score.to_bits())
        })
}

/// Query × candidate pairs the inverted search scores at `nprobe` (what IVF's GFLOP/s counts).
fn ivf_pairs(x: Matrix, ids: &[u32], nprobe: Option<usize>) -> (usize, usize, usize) {
    let p = ivf::IvfParams {
        nprobe,
        ..ivf::IvfParams::default()
    };
    let mut index = ivf::IvfIndex::train(x, ids, &p).expect("train");
    let np = index.nprobe(&p);
    let probes = index.probe(x, np);
    index.assign_from(&probes);
    (index.nlist(), np, index.scan_stats(&probes, np).1)
}

/// The vectors of a real embeddings export, unit length, as a run reads them.
fn real_vectors(path: &str) -> (Vec<f32>, usize, usize) {
    let table = linkgap::input::Table::open(std::path::Path::new(path)).expect("open --embeddings");
    let mut report = linkgap::report::Report::new();
    let e = linkgap::input::embeddings::read(&table, None, &mut report).expect("read --embeddings");
    let (n, d) = (e.vectors(), e.dim);
    (e.data, n, d)
}

fn generated(a: &Args) -> Vec<f32> {
    if a.data == "site" {
        site_vectors(a.pages, a.dim, a.topics)
    } else {
        linkgap::synthetic::vectors::clustered(
            &linkgap::synthetic::vectors::SynthParams::realistic(a.pages, a.dim, 42),
        )
    }
}

fn main() {
    let a = args();
    let t = Instant::now();
    let (data, n, d) = match &a.embeddings {
        Some(path) => real_vectors(path),
        None => (generated(&a), a.pages, a.dim),
    };
    let k = a.k;
    println!(
        "search bench: {n} x {d}, data {}, k {k}, {} threads, read or generated in {:.1} s",
        a.embeddings.as_deref().unwrap_or(&a.data),
        rayon::current_num_threads(),
        secs(t)
    );
    let x = Matrix::new(&data, n, d);
    let ids: Vec<u32> = (0..n as u32).collect();

    // GEMM ceiling probe: 4096 x 4096 x d, no scan.
    let pm = 4096.min(n);
    let mut buf = vec![0f32; pm * pm];
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        exact::dot_block_for_bench(x.slice_rows(0, pm), x.slice_rows(n - pm, n), &mut buf, pm);
        best = best.min(secs(t));
    }
    let gemm_rate = 2.0 * (pm * pm * d) as f64 / best / 1e9;
    println!("gemm probe {pm}x{pm}x{d}: {gemm_rate:.0} GFLOP/s (best of 3)");
    drop(buf);

    let useful_exact = (n as f64) * (n as f64) * d as f64; // n²/2 pairs × 2d FLOP
    let mut ex = None;
    let mut t_exact = f64::NAN;
    let mut sample: Option<Vec<usize>> = None;
    if a.exact && a.exact_queries > 0 {
        let idx = recall::sample_indices(n, a.exact_queries, 7);
        let mut qd = Vec::with_capacity(idx.len() * d);
        idx.iter().for_each(|&i| qd.extend_from_slice(x.row(i)));
        let q = Matrix::new(&qd, idx.len(), d);
        let qi: Vec<u32> = idx.iter().map(|&i| ids[i]).collect();
        let scale = n as f64 / (2.0 * idx.len() as f64);
        let t = Instant::now();
        let e = neighbors::top_k(q, &qi, x, &ids, k);
        t_exact = secs(t) * scale;
        println!(
            "exact (default kernel, {} queries): {:.2} s, all pairs extrapolated {t_exact:8.2} s  {:6.0} GFLOP/s useful",
            idx.len(),
            t_exact / scale,
            useful_exact / t_exact / 1e9
        );
        if a.legacy {
            let t = Instant::now();
            let old = exact::top_k_blocked_legacy(q, &qi, x, &ids, k);
            let tl = secs(t) * scale;
            println!(
                "exact (legacy, same queries): {:.2} s, extrapolated {tl:8.2} s  {:6.0} GFLOP/s useful; default/legacy speed-up {:.2}x; output identical (ids and score bits): {}",
                tl / scale,
                useful_exact / tl / 1e9,
                tl / t_exact,
                identical(&e, &old)
            );
        }
        ex = Some(e);
        sample = Some(idx);
    } else if a.exact {
        let t = Instant::now();
        let e = neighbors::top_k(x, &ids, x, &ids, k);
        t_exact = secs(t);
        println!(
            "exact (default):{t_exact:8.2} s  {:6.0} GFLOP/s useful",
            useful_exact / t_exact / 1e9
        );
        if a.legacy {
            let t = Instant::now();
            let old = exact::top_k_blocked_legacy(x, &ids, x, &ids, k);
            let tl = secs(t);
            println!(
                "exact (legacy): {tl:8.2} s  {:6.0} GFLOP/s useful; default/legacy speed-up {:.2}x; output identical (ids and score bits): {}",
                useful_exact / tl / 1e9,
                tl / t_exact,
                identical(&e, &old)
            );
        }
        ex = Some(e);
    }

    let t = Instant::now();
    let (found, report) = neighbors::search(x, &ids, x, &ids, k, Method::Ivf, 1000, &|_| {});
    let t_approx = secs(t);
    let (nlist, np, pairs) = ivf_pairs(x, &ids, None);
    // Against the exact lists, when they were searched: recall and the similarity gap.
    let quality = |got: &[Vec<Neighbor>]| {
        ex.as_ref().map_or_else(
            || "-".to_string(),
            |e| {
                let got = rows_of(got, sample.as_deref());
                format!(
                    "{:.4}, similarity gap {:.4}",
                    recall::recall_at_k(e, &got),
                    similarity_gap(e, &got)
                )
            },
        )
    };
    println!(
        "approx (default nlist {nlist}, nprobe {np}): {t_approx:8.2} s incl. recall sample; recall@{k} sampled {:.4} ({} queries), exact-checked queries {}; {:.2}% of pairs; {:.0} GFLOP/s useful; exact/approx {:.1}x",
        report.recall.unwrap_or(f64::NAN),
        report.sample,
        quality(&found),
        100.0 * pairs as f64 / (n as f64 * n as f64),
        2.0 * pairs as f64 * d as f64 / t_approx / 1e9,
        t_exact / t_approx
    );
    for &p in &a.nprobe {
        let params = ivf::IvfParams {
            nprobe: Some(p),
            ..ivf::IvfParams::default()
        };
        let t = Instant::now();
        let got = ivf::top_k_ivf(x, &ids, x, &ids, k, &params, &|_| {}).expect("ivf");
        let tp = secs(t);
        let (_, _, pairs) = ivf_pairs(x, &ids, Some(p));
        println!(
            "  nprobe {p:3}: {tp:7.2} s (no recall sample), recall@{k} {}, {:.2}% of pairs, {:.0} GFLOP/s useful, exact/approx {:.1}x",
            quality(&got),
            100.0 * pairs as f64 / (n as f64 * n as f64),
            2.0 * pairs as f64 * d as f64 / tp / 1e9,
            t_exact / tp
        );
    }
    if !a.rerank.is_empty() {
        scorings(x, &ids, k, a.nlist, &a.rerank, &quality);
    }
}

/// The f32 inverted search, then the 8-bit first pass at each `rerank`.
fn scorings(
    x: Matrix,
    ids: &[u32],
    k: usize,
    nlist: Option<usize>,
    rerank: &[usize],
    quality: &dyn Fn(&[Vec<Neighbor>]) -> String,
) {
    let run = |scoring, rerank| {
        let params = ivf::IvfParams {
            nlist,
            scoring,
            rerank,
            ..ivf::IvfParams::default()
        };
        let t = Instant::now();
        let got = ivf::top_k_ivf(x, ids, x, ids, k, &params, &|_| {}).expect("ivf");
        (secs(t), got)
    };
    let (tf, f32_lists) = run(ivf::Scoring::F32, 0);
    println!(
        "  scoring f32: {tf:7.2} s (no recall sample), recall@{k} {}",
        quality(&f32_lists)
    );
    for &r in rerank {
        let (t8, got) = run(ivf::Scoring::Int8, r);
        println!(
            "  scoring int8, rerank {r:3}: {t8:7.2} s, recall@{k} {}, f32 search's neighbours kept {:.4}, time f32/int8 {:.2}x",
            quality(&got),
            recall::recall_at_k(&f32_lists, &got),
            tf / t8
        );
    }
}
