//! Synthetic "topic-structured" embeddings for tests and benchmarks (not needed at run time).
//!
//! A mixture of `clusters` Gaussian topics with Zipf-like sizes in a `latent`-dimensional space,
//! mapped to `dim` dimensions by a fixed random linear map, plus isotropic noise, L2-normalised.
//! Deterministic for a given seed (each row has its own RNG stream, so generation is parallel).

use crate::synthetic::Rng;
use rayon::prelude::*;

/// What to generate.
#[derive(Clone, Debug)]
pub struct SynthParams {
    /// Rows.
    pub n: usize,
    /// Dimension.
    pub dim: usize,
    /// Dimension of the latent topic space.
    pub latent: usize,
    /// Topics.
    pub clusters: usize,
    /// within-topic spread relative to the spread of topic centres
    pub spread: f32,
    /// norm of the isotropic full-dimensional noise relative to the signal
    pub noise: f32,
    /// fraction of rows that are exact copies of an earlier row (duplicate pages)
    pub dup_frac: f32,
    /// Random seed.
    pub seed: u64,
    /// Zipf exponent of the cluster sizes
    pub zipf: f64,
    /// log-normal sigma of a per-cluster multiplier on `spread` (0 = all clusters equally wide)
    pub spread_var: f32,
    /// topics are grouped under this many super-topics (0 = independent topic centres); centres
    /// of sibling topics are `sub_spread` apart (relative), so sibling topics overlap
    pub super_clusters: usize,
    /// Distance between sibling topics, relative.
    pub sub_spread: f32,
    /// fraction of rows mixing two topics (pages about two things: fill the gaps between topics)
    pub mix_frac: f32,
}

impl SynthParams {
    /// Simple topic-structured data.
    pub fn new(n: usize, dim: usize, seed: u64) -> Self {
        SynthParams {
            n,
            dim,
            latent: 48,
            clusters: (n / 100).clamp(1, 1000),
            spread: 0.5,
            noise: 0.5,
            dup_frac: 0.0,
            seed,
            zipf: 0.8,
            spread_var: 0.0,
            super_clusters: 0,
            sub_spread: 0.6,
            mix_frac: 0.0,
        }
    }

    /// Harder, more realistic structure (used by the IVF benches): many topics (n/50, up to
    /// 5000) with Zipf(1.0) sizes, grouped under super-topics so sibling topics overlap,
    /// per-topic widths varying ×/÷ ~1.5, 15 % of rows mixing two topics, 0.5 % duplicates,
    /// 64 latent dimensions. Topic count does not track any IVF `nlist` on purpose.
    pub fn realistic(n: usize, dim: usize, seed: u64) -> Self {
        let clusters = (n / 50).clamp(1, 5000);
        SynthParams {
            latent: 64,
            clusters,
            spread: 0.5,
            noise: 0.5,
            dup_frac: 0.005,
            zipf: 1.0,
            spread_var: 0.4,
            super_clusters: (clusters / 20).max(1),
            sub_spread: 0.6,
            mix_frac: 0.15,
            ..SynthParams::new(n, dim, seed)
        }
    }
}

fn gauss(r: &mut Rng) -> f32 {
    // Box-Muller
    let u1 = r.unit().max(1e-300);
    let u2 = r.unit();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

/// Generate `p.n × p.dim` row-major normalised rows.
pub fn clustered(p: &SynthParams) -> Vec<f32> {
    let (n, d, l, c) = (p.n, p.dim, p.latent.max(1), p.clusters.max(1));
    let mut r = Rng::new(p.seed ^ 0x5EED);
    // projection l × d, scaled so a unit-variance latent vector maps to norm ~1
    let proj: Vec<f32> = (0..l * d)
        .map(|_| gauss(&mut r) / ((l * d) as f32).sqrt())
        .collect();
    let centres: Vec<f32> = if p.super_clusters == 0 {
        (0..c * l).map(|_| gauss(&mut r)).collect()
    } else {
        let sc = p.super_clusters;
        let sup: Vec<f32> = (0..sc * l).map(|_| gauss(&mut r)).collect();
        (0..c)
            .flat_map(|_| {
                let s = (r.next_u64() % sc as u64) as usize;
                (0..l)
                    .map(|t| sup[s * l + t] + p.sub_spread * gauss(&mut r))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let widths: Vec<f32> = (0..c)
        .map(|_| p.spread * (p.spread_var * gauss(&mut r)).exp())
        .collect();
    // Zipf-like cluster weights -> cumulative distribution
    let w: Vec<f64> = (0..c)
        .map(|i| 1.0 / (i as f64 + 1.0).powf(p.zipf))
        .collect();
    let tot: f64 = w.iter().sum();
    let mut cdf = Vec::with_capacity(c);
    let mut acc = 0.0;
    for x in &w {
        acc += x / tot;
        cdf.push(acc);
    }
    let mut out = vec![0f32; n * d];
    let noise_scale = p.noise / (d as f32).sqrt();
    out.par_chunks_mut(d.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            let mut r = Rng::new(
                p.seed
                    .wrapping_mul(0x9E37_79B9)
                    .wrapping_add(i as u64 * 7919 + 1),
            );
            let u = r.unit();
            let ci = cdf.partition_point(|&x| x < u).min(c - 1);
            let mut z: Vec<f32> = (0..l)
                .map(|t| centres[ci * l + t] + widths[ci] * gauss(&mut r))
                .collect();
            if p.mix_frac > 0.0 && (r.unit() as f32) < p.mix_frac {
                let u2 = r.unit();
                let cj = cdf.partition_point(|&x| x < u2).min(c - 1);
                let a = 0.3 + 0.4 * r.unit() as f32;
                for (t, zt) in z.iter_mut().enumerate() {
                    *zt = a * *zt + (1.0 - a) * (centres[cj * l + t] + widths[cj] * gauss(&mut r));
                }
            }
            row.fill(0.0);
            for (t, &zt) in z.iter().enumerate() {
                let pr = &proj[t * d..(t + 1) * d];
                for (o, &pv) in row.iter_mut().zip(pr) {
                    *o += zt * pv;
                }
            }
            for o in row.iter_mut() {
                *o += noise_scale * gauss(&mut r);
            }
            let nrm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            if nrm > 0.0 {
                row.iter_mut().for_each(|x| *x /= nrm);
            }
        });
    if p.dup_frac > 0.0 && n > 1 {
        let mut r = Rng::new(p.seed ^ 0xD00D);
        for i in 1..n {
            if (r.unit() as f32) < p.dup_frac {
                let src = (r.next_u64() % i as u64) as usize;
                out.copy_within(src * d..(src + 1) * d, i * d);
            }
        }
    }
    out
}

/// Uniform random rows in [-1, 1]^d, normalised (no structure).
pub fn uniform(n: usize, d: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    let mut v: Vec<f32> = (0..n * d).map(|_| (r.unit() * 2.0 - 1.0) as f32).collect();
    if d > 0 {
        for row in v.chunks_mut(d) {
            let nrm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            if nrm > 0.0 {
                row.iter_mut().for_each(|x| *x /= nrm);
            }
        }
    }
    v
}
