//! What the single-threaded benches share (each bench includes this file as `mod common`).

use std::time::Instant;

/// The best time of `rounds` runs of `f` in seconds, with what its last run returned (a
/// count the bench prints and checks, so the work cannot be optimized away).
pub fn best_of(rounds: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut n = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, n)
}
