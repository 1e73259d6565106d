//! Vector-cell parsing bench: `input::embeddings::parse_vector` against `str::parse` over
//! the same cells, in one process, single-threaded.
//!
//! usage: `cargo bench --bench parse -- [--rows N] [--dim D] [--file CSV]`
//!
//! Cells are generated like `linkgap-gen`'s (f32 coordinates of unit vectors, written in
//! their shortest round-trip form, as JavaScript writes them) or, with `--file`, taken from
//! the last column of an embeddings export. The host is shared and noisy: read the ratios
//! printed within one run, not absolute times; each figure is the best of five rounds.
#![allow(clippy::print_stdout)] // a bench prints its table

mod common;

use common::best_of;

use linkgap::input::embeddings::parse_vector;

fn cells(rows: usize, dim: usize) -> Vec<String> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        // xorshift*, mapped to a roughly normal coordinate (sum of four uniforms).
        let mut s = 0.0f64;
        for _ in 0..4 {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            s += (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        }
        s - 2.0
    };
    (0..rows)
        .map(|_| {
            let v: Vec<f64> = (0..dim).map(|_| next()).collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            v.iter()
                .map(|x| format!("{}", (x / norm) as f32))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

fn from_file(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("--file: a readable CSV");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            l.rsplit_once(",\"")
                .map(|(_, c)| c.trim_end_matches('"').to_string())
        })
        .collect()
}

fn main() {
    let v: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        v.iter()
            .position(|a| a == name)
            .and_then(|i| v.get(i + 1).cloned())
    };
    let rows: usize = arg("--rows").map_or(20_000, |s| s.parse().expect("--rows N"));
    let dim: usize = arg("--dim").map_or(384, |s| s.parse().expect("--dim D"));
    let cells = match arg("--file") {
        Some(path) => from_file(&path),
        None => cells(rows, dim),
    };
    let bytes: usize = cells.iter().map(String::len).sum();
    let mut out = Vec::new();
    let (ours, floats) = best_of(5, || {
        let mut n = 0;
        for c in &cells {
            out.clear();
            parse_vector(c, &mut out).expect("a vector");
            n += out.len();
        }
        n
    });
    let (by_std, std_floats) = best_of(5, || {
        let mut n = 0;
        for c in &cells {
            out.clear();
            out.extend(c.split(',').map(|t| t.parse::<f32>().expect("a number")));
            n += out.len();
        }
        n
    });
    assert_eq!(floats, std_floats);
    let ns = |t: f64| t * 1e9 / floats as f64;
    println!(
        "{} cells, {floats} numbers, {:.1} MB",
        cells.len(),
        bytes as f64 / 1e6
    );
    println!(
        "{:>28} {:>10} {:>8} {:>8}",
        "", "ns/number", "MB/s", "ratio"
    );
    for (name, t) in [
        ("parse_vector", ours),
        ("split + str::parse::<f32>", by_std),
    ] {
        println!(
            "{name:>28} {:>10.2} {:>8.0} {:>8.2}",
            ns(t),
            bytes as f64 / t / 1e6,
            t / ours
        );
    }
}
