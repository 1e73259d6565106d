//! Wall time and peak memory per pipeline stage, for the Run sheet and stderr.

use std::time::Instant;

/// Wall time per stage, for the Run sheet (the workbook's own writing is reported on stderr).
pub(super) struct Stages {
    last: Instant,
    pub(super) laps: Vec<(&'static str, f64)>,
    /// Peak resident memory (MiB) after each stage, where the OS tells (Linux).
    pub(super) peaks: Vec<Option<u64>>,
}

impl Stages {
    pub(super) fn new() -> Stages {
        Stages {
            last: Instant::now(),
            laps: Vec::new(),
            peaks: Vec::new(),
        }
    }

    pub(super) fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.laps.push((stage, (now - self.last).as_secs_f64()));
        self.peaks.push(peak_rss_mib());
        self.last = now;
    }

    pub(super) fn describe(&self) -> String {
        self.laps
            .iter()
            .zip(&self.peaks)
            .map(|((stage, t), peak)| match peak {
                Some(mib) => format!("{stage} {t:.2} s (peak {mib} MiB)"),
                None => format!("{stage} {t:.2} s"),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The process's peak resident set so far, from /proc (Linux); `None` elsewhere.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kib| kib / 1024)
}
