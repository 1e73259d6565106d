//! The inverted search's 8-bit first pass: rows quantized to signed bytes, scored with
//! AVX-512 VNNI (`vpdpbusd`, 64 byte products an instruction: four times the f32 kernel's
//! multiply-adds on this machine, measured in `benches/search.rs`), and a portable scalar
//! kernel that gives the very same numbers where VNNI is absent (tests, other CPUs).
//!
//! Quantization: each row is scaled by `127 / max|x|` and rounded, so a coordinate's error is
//! at most half a step of its own row's scale; non-finite coordinates count as 0 (exact
//! re-scoring of the kept candidates restores their f32 meaning). `vpdpbusd` multiplies an
//! unsigned byte by a signed one, so query bytes are stored offset by 128 and the score
//! subtracts `128 × Σ member bytes`: integer arithmetic, exact, independent of order.
//! The score a pair gets is `(Σ q·m) × member step × query step` in f32: an estimate of the
//! dot product within ~1e-3 for unit rows of 384 dimensions, used only to choose which
//! candidates are re-scored exactly ([`super::ivf`]).

/// Query rows a micro-kernel holds (accumulators: 2 × this, of the 32 registers).
const MR: usize = 12;
/// Member rows a panel holds: two 16-lane registers.
pub(crate) const NR: usize = 32;

/// Whether this CPU runs the VNNI kernel (else [`scores`] uses the scalar kernel).
pub(crate) fn vnni_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One row's bytes and the step that maps them back: `x ≈ byte × step`.
fn quantize_into(row: &[f32], out: &mut [i8]) -> f32 {
    let max = row
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f32, |m, &x| m.max(x.abs()));
    if max == 0.0 {
        out.fill(0);
        return 0.0;
    }
    // `127 / max` overflows to infinity for rows below ~3.7e-37: scale down first then.
    let scale = 127.0 / max;
    let tiny = !scale.is_finite();
    for (o, &x) in out.iter_mut().zip(row) {
        // Rounded half away from zero by truncating `y ± 0.5` (no libm call, so the loop
        // vectorises); |y| ≤ 127 for finite x, and `as` maps NaN and infinities' NaN to 0.
        let y = match (x.is_finite(), tiny) {
            (false, _) => 0.0,
            (true, false) => x * scale,
            (true, true) => x / max * 127.0,
        };
        *o = (y + 0.5f32.copysign(y)) as i8;
    }
    max / 127.0
}

/// A matrix quantized once, row by row: `words` words a row, each four consecutive signed
/// bytes (`i32` little-endian, pad coordinates 0), the step of each row, and `128 × Σ bytes`
/// (what a query's +128 offset adds to a product with this row).
pub(crate) struct Quantized {
    words: usize,
    data: Vec<i32>,
    step: Vec<f32>,
    offset: Vec<i32>,
}

impl Quantized {
    /// Every row of `x` (`rows × dim`, row-major), on all threads.
    pub(crate) fn new(x: &[f32], rows: usize, dim: usize) -> Self {
        use rayon::prelude::*;
        let words = dim.div_ceil(4);
        let mut data = vec![0i32; rows * words];
        let mut step = vec![0f32; rows];
        let mut offset = vec![0i32; rows];
        if words > 0 {
            data.par_chunks_mut(words)
                .zip(step.par_iter_mut().zip(offset.par_iter_mut()))
                .enumerate()
                .for_each_init(
                    || vec![0i8; words * 4],
                    |tmp, (r, (out, (st, off)))| {
                        *st = quantize_into(&x[r * dim..(r + 1) * dim], &mut tmp[..dim]);
                        *off = 128 * tmp.iter().map(|&b| i32::from(b)).sum::<i32>();
                        for (w, q) in out.iter_mut().zip(tmp.as_chunks::<4>().0) {
                            *w = word(q.map(|b| b as u8));
                        }
                    },
                );
        }
        Quantized {
            words,
            data,
            step,
            offset,
        }
    }

    fn row(&self, r: usize) -> &[i32] {
        &self.data[r * self.words..(r + 1) * self.words]
    }
}

/// Four bytes as one little-endian `i32`, the unit `vpdpbusd` multiplies.
fn word(b: [u8; 4]) -> i32 {
    i32::from_le_bytes(b)
}

/// A block of query rows for the kernel: `rows` (a multiple of [`MR`]) × `words` words, each
/// byte offset by 128 into 1..=255 (`vpdpbusd`'s unsigned operand); pad rows are 128 (zero).
#[derive(Default)]
pub(crate) struct Queries {
    words: usize,
    rows: usize,
    data: Vec<i32>,
    step: Vec<f32>,
}

impl Queries {
    /// Rows `rows` of `q`, into this reused buffer.
    pub(crate) fn gather(&mut self, q: &Quantized, rows: impl ExactSizeIterator<Item = usize>) {
        // Signed byte b + 128 is b's bits with the top bit flipped.
        const FLIP: i32 = 0x8080_8080_u32 as i32;
        self.words = q.words;
        self.rows = rows.len().div_ceil(MR) * MR;
        self.data.clear();
        self.step.clear();
        for r in rows {
            self.data.extend(q.row(r).iter().map(|&w| w ^ FLIP));
            self.step.push(q.step[r]);
        }
        self.data.resize(self.rows * self.words, FLIP);
        self.step.resize(self.rows, 0.0);
    }
}

/// A tile of member rows in panels of [`NR`]: panel `p` holds, for each word `t`, the word of
/// its 32 members side by side (`data[(p × words + t) × 32 + c]`), so one load feeds 16 lanes.
/// Pad members are zero.
#[derive(Default)]
pub(crate) struct Members {
    words: usize,
    rows: usize,
    data: Vec<i32>,
    step: Vec<f32>,
    offset: Vec<i32>,
}

impl Members {
    /// Rows `rows` of `c`, into this reused buffer.
    pub(crate) fn gather(&mut self, c: &Quantized, rows: impl ExactSizeIterator<Item = usize>) {
        let n = rows.len();
        self.words = c.words;
        self.rows = n;
        let panels = n.div_ceil(NR);
        self.data.clear();
        self.data.resize(panels * self.words * NR, 0);
        self.step.clear();
        self.step.resize(panels * NR, 0.0);
        self.offset.clear();
        self.offset.resize(panels * NR, 0);
        for (i, r) in rows.enumerate() {
            self.step[i] = c.step[r];
            self.offset[i] = c.offset[r];
            let base = (i / NR) * self.words * NR + i % NR;
            for (t, &w) in c.row(r).iter().enumerate() {
                self.data[base + t * NR] = w;
            }
        }
    }
}

/// `out[i × ldo + j]` = the 8-bit estimate of `<query i, member j>`, for the real query rows
/// (`queries` filled with `q_rows` rows) and every member.
///
/// # Panics
/// If the two were filled with different dimensions or `out` is too short.
pub(crate) fn scores(q: &Queries, q_rows: usize, m: &Members, out: &mut [f32], ldo: usize) {
    assert_eq!(q.words, m.words, "quantized scores: dims differ");
    assert!(q_rows <= q.rows && ldo >= m.rows);
    assert!(q_rows == 0 || m.rows == 0 || out.len() >= (q_rows - 1) * ldo + m.rows);
    if q_rows == 0 || m.rows == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if vnni_available() {
        // SAFETY: the features are present (checked above); the shapes are checked above and
        // the buffers were sized by `gather` (rows a multiple of MR, panels of NR).
        #[allow(unsafe_code)]
        unsafe {
            vnni::scores(q, q_rows, m, out, ldo);
        }
        return;
    }
    scores_scalar(q, q_rows, m, out, ldo);
}

/// The reference kernel: the same integer sums and the same two f32 products as the VNNI one,
/// so both give identical numbers.
pub(crate) fn scores_scalar(q: &Queries, q_rows: usize, m: &Members, out: &mut [f32], ldo: usize) {
    let w = q.words;
    for i in 0..q_rows {
        let qrow = &q.data[i * w..(i + 1) * w];
        for j in 0..m.rows {
            let (p, c) = (j / NR, j % NR);
            let base = p * w * NR + c;
            let mut acc = 0i32;
            for (t, &qw) in qrow.iter().enumerate() {
                let (a, b) = (qw.to_le_bytes(), m.data[base + t * NR].to_le_bytes());
                for l in 0..4 {
                    acc = acc.wrapping_add(i32::from(a[l]) * i32::from(b[l] as i8));
                }
            }
            // Beyond 2^24 the conversion rounds, the same way in both kernels.
            #[allow(clippy::cast_precision_loss)]
            let v = acc.wrapping_sub(m.offset[j]) as f32;
            out[i * ldo + j] = v * m.step[j] * q.step[i];
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vnni {
    use super::{MR, Members, NR, Queries};
    use std::arch::x86_64::{
        _mm512_cvtepi32_ps, _mm512_dpbusd_epi32, _mm512_loadu_epi32, _mm512_loadu_ps,
        _mm512_mask_storeu_ps, _mm512_mul_ps, _mm512_set1_epi32, _mm512_set1_ps,
        _mm512_setzero_si512, _mm512_storeu_ps, _mm512_sub_epi32,
    };

    /// Panel by panel (32 members, in L1/L2), 12 query rows at a time: 24 accumulators, two
    /// member loads and 12 broadcasts per word.
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn scores(
        q: &Queries,
        q_rows: usize,
        m: &Members,
        out: &mut [f32],
        ldo: usize,
    ) {
        // SAFETY: see `super::scores`: every pointer stays within the buffers `gather` sized
        // (the output's only through the masks: a pointer past it is formed with
        // `wrapping_add` and never written).
        unsafe {
            let w = q.words;
            let panels = m.rows.div_ceil(NR);
            for p in 0..panels {
                let pan = m.data.as_ptr().add(p * w * NR);
                let off0 = _mm512_loadu_epi32(m.offset.as_ptr().add(p * NR));
                let off1 = _mm512_loadu_epi32(m.offset.as_ptr().add(p * NR + 16));
                let st0 = _mm512_loadu_ps(m.step.as_ptr().add(p * NR));
                let st1 = _mm512_loadu_ps(m.step.as_ptr().add(p * NR + 16));
                let valid = (m.rows - p * NR).min(NR);
                let (mask0, mask1) = lane_masks(valid);
                let mut i0 = 0;
                while i0 < q_rows {
                    let qp = q.data.as_ptr().add(i0 * w);
                    let mut acc = [[_mm512_setzero_si512(); 2]; MR];
                    for t in 0..w {
                        let b0 = _mm512_loadu_epi32(pan.add(t * NR));
                        let b1 = _mm512_loadu_epi32(pan.add(t * NR + 16));
                        for (r, a) in acc.iter_mut().enumerate() {
                            let x = _mm512_set1_epi32(*qp.add(r * w + t));
                            a[0] = _mm512_dpbusd_epi32(a[0], x, b0);
                            a[1] = _mm512_dpbusd_epi32(a[1], x, b1);
                        }
                    }
                    for (r, a) in acc.iter().enumerate().take(q_rows - i0) {
                        let qs = _mm512_set1_ps(*q.step.get_unchecked(i0 + r));
                        let v0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(a[0], off0));
                        let v1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(a[1], off1));
                        let s0 = _mm512_mul_ps(_mm512_mul_ps(v0, st0), qs);
                        let s1 = _mm512_mul_ps(_mm512_mul_ps(v1, st1), qs);
                        let o = out.as_mut_ptr().add((i0 + r) * ldo + p * NR);
                        if valid == NR {
                            _mm512_storeu_ps(o, s0);
                            _mm512_storeu_ps(o.add(16), s1);
                        } else {
                            _mm512_mask_storeu_ps(o, mask0, s0);
                            if valid > 16 {
                                _mm512_mask_storeu_ps(o.wrapping_add(16), mask1, s1);
                            }
                        }
                    }
                    i0 += MR;
                }
            }
        }
    }

    /// Store masks for the first `valid` of a panel's 32 lanes.
    fn lane_masks(valid: usize) -> (u16, u16) {
        let bits = if valid >= 32 {
            u32::MAX
        } else {
            (1u32 << valid) - 1
        };
        ((bits & 0xFFFF) as u16, (bits >> 16) as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, d: usize, seed: u64) -> Vec<f32> {
        let mut s = seed | 1;
        (0..n * d)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect()
    }

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// Every shape edge (rows not a multiple of 12 or 32, dims not a multiple of 4), the
    /// scalar and the VNNI kernels agree bit for bit, and both are close to the f32 dot.
    #[test]
    fn kernels_agree_and_estimate_the_dot() {
        for &(nq, nm, d) in &[
            (1, 1, 1),
            (13, 33, 7),
            (12, 32, 384),
            (25, 70, 130),
            (5, 64, 3),
        ] {
            let (qd, md) = (rows(nq, d, 1 + d as u64), rows(nm, d, 99 + nq as u64));
            let mut q = Queries::default();
            q.gather(&Quantized::new(&qd, nq, d), 0..nq);
            let mut m = Members::default();
            m.gather(&Quantized::new(&md, nm, d), 0..nm);
            let ldo = nm + 3;
            let mut a = vec![f32::NAN; nq * ldo];
            let mut b = a.clone();
            scores(&q, nq, &m, &mut a, ldo);
            scores_scalar(&q, nq, &m, &mut b, ldo);
            for i in 0..nq {
                for j in 0..nm {
                    let (x, y) = (a[i * ldo + j], b[i * ldo + j]);
                    assert_eq!(x.to_bits(), y.to_bits(), "{nq}x{nm}x{d} ({i},{j})");
                    let exact = dot(&qd[i * d..(i + 1) * d], &md[j * d..(j + 1) * d]);
                    // Each coordinate is off by at most half a step (≤ 0.5/127 × 0.5 here).
                    let bound = d as f32 * 0.5 * (0.5 / 127.0) * 1.01 + 1e-6;
                    assert!((x - exact).abs() <= bound, "{x} vs {exact} (bound {bound})");
                }
                // Columns past the members are untouched (the padding is never stored).
                for j in nm..ldo {
                    assert!(a[i * ldo + j].is_nan() && b[i * ldo + j].is_nan());
                }
            }
        }
    }

    #[test]
    fn zero_and_non_finite_rows_score_zero_not_nan() {
        let d = 8;
        let qd = [vec![0.0f32; d], vec![f32::NAN; d], {
            let mut r = vec![0.25f32; d];
            r[3] = f32::INFINITY;
            r
        }]
        .concat();
        let md = [vec![0.5f32; d], vec![-0.5f32; d]].concat();
        let mut q = Queries::default();
        q.gather(&Quantized::new(&qd, 3, d), 0..3);
        let mut m = Members::default();
        m.gather(&Quantized::new(&md, 2, d), 0..2);
        let mut out = vec![f32::NAN; 3 * 2];
        scores(&q, 3, &m, &mut out, 2);
        assert_eq!(&out[..4], &[0.0, 0.0, 0.0, 0.0]);
        // The infinite coordinate counts as 0; the others are exact at this scale.
        assert!((out[4] - 0.25 * 0.5 * 7.0).abs() < 1e-6, "{}", out[4]);
        assert!((out[5] + 0.25 * 0.5 * 7.0).abs() < 1e-6, "{}", out[5]);
    }

    #[test]
    fn rows_too_small_to_scale_still_round_to_within_127() {
        // 127 / 1e-38 is infinite in f32: such a row is scaled by division instead.
        let mut out = [0i8; 4];
        let step = quantize_into(&[1e-38, -1e-38, 0.0, 5e-39], &mut out);
        assert_eq!(out, [127, -127, 0, 64]);
        assert!(step > 0.0 && step.is_finite());
        // A normal row, for contrast: the largest coordinate is ±127 and the step max / 127.
        let step = quantize_into(&[0.5, -0.25, 0.0, 0.125], &mut out);
        assert_eq!(out, [127, -64, 0, 32]);
        assert!((step - 0.5 / 127.0).abs() < 1e-9);
    }
}
