//! How important a destination is, from what the crawl already knows: Search Console clicks
//! (else Google Analytics sessions, else views) and the "striking distance" of pages Google
//! shows often but ranks low. The weight is a factor in `[0.5, 1]` that the Queue's priority
//! multiplies in; without any of these signals there is no weight (every page counts 1).
//!
//! `demand = ln(1 + d) / ln(1 + max d)` over the pages, `d` the page's clicks (sessions,
//! views); `striking = ln(1 + i) / ln(1 + max i)` for a page whose average position is worse
//! than 4 and no worse than 20, `i` its impressions, else 0; `weight = 0.5 + 0.5 × max(demand,
//! striking)`. A blank cell counts as 0.

use std::collections::HashMap;

use crate::input::internal::{CrawledUrl, Signal};

/// The demand signals, in the order they are preferred.
const DEMAND: [Signal; 3] = [Signal::Clicks, Signal::Sessions, Signal::Views];

/// Average positions (1 = top) of "striking distance": below the top results, within two
/// result pages.
pub const STRIKING_POSITIONS: (f64, f64) = (4.0, 20.0);

/// Destination weights from crawl signals, and which signals they rest on.
#[derive(Debug, Clone, Default)]
pub struct CrawlImportance {
    weights: HashMap<u32, f64>,
    /// The demand signal used (clicks, else sessions, else views), if any has a value.
    pub demand: Option<Signal>,
    /// Whether impressions and position raised striking-distance pages.
    pub striking: bool,
    /// Signals shown next to each destination in the Queue, in order.
    pub shown: Vec<Signal>,
}

impl CrawlImportance {
    /// Weights for `pages` (page id and its Internal: All row); `None` when no page has a
    /// demand or striking-distance signal, so priority stays as it was.
    pub fn from_pages<'a, I>(pages: &I) -> Option<CrawlImportance>
    where
        I: Iterator<Item = (u32, &'a CrawledUrl)> + Clone,
    {
        let max_of = |signal: Signal| {
            pages
                .clone()
                .filter_map(|(_, u)| u.signal(signal))
                .fold(0.0_f64, f64::max)
        };
        let demand = DEMAND.into_iter().find(|&s| max_of(s) > 0.0);
        let present = |signal: Signal| pages.clone().any(|(_, u)| u.signal(signal).is_some());
        let striking = max_of(Signal::Impressions) > 0.0 && present(Signal::Position);
        if demand.is_none() && !striking {
            return None;
        }
        let demand_max = demand.map_or(0.0, max_of);
        let impressions_max = max_of(Signal::Impressions);
        let scaled = |v: Option<f64>, max: f64| {
            if max > 0.0 {
                v.unwrap_or(0.0).ln_1p() / max.ln_1p()
            } else {
                0.0
            }
        };
        let weights = pages
            .clone()
            .map(|(id, u)| {
                let d = demand.map_or(0.0, |s| scaled(u.signal(s), demand_max));
                let s = if striking && in_striking_distance(u.signal(Signal::Position)) {
                    scaled(u.signal(Signal::Impressions), impressions_max)
                } else {
                    0.0
                };
                (id, weight(d, s))
            })
            .collect();
        let mut shown: Vec<Signal> = demand.into_iter().collect();
        if striking {
            shown.extend([Signal::Impressions, Signal::Position]);
        }
        if present(Signal::LinkScore) {
            shown.push(Signal::LinkScore);
        }
        shown.dedup();
        Some(CrawlImportance {
            weights,
            demand,
            striking,
            shown,
        })
    }

    /// The weight of page `id`, in `[0.5, 1]`; 0.5 for a page the crawl has no row for.
    pub fn weight(&self, id: u32) -> f64 {
        self.weights.get(&id).copied().unwrap_or(0.5)
    }

    /// One sentence for the Summary: the formula and the signals it used.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.demand {
            parts.push(format!(
                "demand = ln(1 + {0}) / ln(1 + the largest {0})",
                d.label()
            ));
        }
        if self.striking {
            parts.push(format!(
                "striking distance = ln(1 + Impressions) / ln(1 + the largest Impressions) for a page with Position above {} and at most {}, else 0",
                STRIKING_POSITIONS.0, STRIKING_POSITIONS.1
            ));
        }
        format!(
            "from Internal: All ({}); importance = 0.5 + 0.5 × max(demand, striking distance); Priority = 100 × Similarity × 1 / (1 + ln(1 + Destination Body Inlinks)) × importance",
            parts.join("; ")
        )
    }
}

/// Whether an average position is in striking distance.
pub fn in_striking_distance(position: Option<f64>) -> bool {
    position.is_some_and(|p| p > STRIKING_POSITIONS.0 && p <= STRIKING_POSITIONS.1)
}

/// The weight of a page with scaled demand `d` and scaled striking distance `s` (both 0–1).
pub fn weight(d: f64, s: f64) -> f64 {
    0.5 + 0.5 * d.max(s).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(clicks: f64, impressions: f64, position: f64) -> CrawledUrl {
        let mut values = [f64::NAN; Signal::COUNT];
        values[Signal::Clicks as usize] = clicks;
        values[Signal::Impressions as usize] = impressions;
        values[Signal::Position as usize] = position;
        CrawledUrl {
            signals: Some(Box::new(values)),
            ..CrawledUrl::default()
        }
    }

    #[test]
    fn clicks_weigh_and_striking_distance_lifts() {
        let urls = [
            url(1000.0, 50_000.0, 2.0),
            url(0.0, 40_000.0, 12.0),
            url(0.0, 10.0, 45.0),
            url(f64::NAN, f64::NAN, f64::NAN),
        ];
        let imp = CrawlImportance::from_pages(&urls.iter().enumerate().map(|(i, u)| (i as u32, u)))
            .unwrap();
        assert_eq!(imp.demand, Some(Signal::Clicks));
        assert!(imp.striking);
        assert!((imp.weight(0) - 1.0).abs() < 1e-9);
        assert!(imp.weight(1) > 0.95, "striking distance: {}", imp.weight(1));
        assert!((imp.weight(2) - 0.5).abs() < 1e-9, "far down, no clicks");
        assert!((imp.weight(3) - 0.5).abs() < 1e-9, "blank reads as 0");
        assert_eq!(
            imp.shown,
            vec![Signal::Clicks, Signal::Impressions, Signal::Position]
        );
    }

    #[test]
    fn no_signal_no_weights() {
        let urls = [CrawledUrl::default()];
        assert!(CrawlImportance::from_pages(&urls.iter().map(|u| (0, u))).is_none());
    }
}
