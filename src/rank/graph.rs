//! The body-link graph in compressed sparse rows: every page's outgoing and incoming body
//! links, sorted, deduplicated, without self-links.
//!
//! Memory: 16 bytes per page (two `u32` offset arrays of `pages + 1` entries, plus a hub flag
//! byte rounded up) and 8 bytes per distinct link (one `u32` in each direction). Building it
//! sorts a copy of the edge list (8 bytes per link, freed on return). At 1 M pages and 16 M
//! links that is about 140 MB kept and 128 MB while building.

/// A page with more than this many body links in or out is a hub (an index, a sitemap-like
/// table of contents): it links to or is linked from so much that passing through it says
/// nothing about two particular pages, so it is never the middle page of the graph evidence.
pub const HUB_LINKS: usize = 200;

/// Directed body links between pages `0..pages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    out_start: Vec<u32>,
    out: Vec<u32>,
    in_start: Vec<u32>,
    inn: Vec<u32>,
    hub: Vec<bool>,
}

impl Graph {
    /// The graph of `edges` (source, destination) over `pages` pages. Repeated pairs count
    /// once; self-links are dropped.
    ///
    /// # Panics
    /// If an end is not below `pages`, or there are 2³² links or more.
    pub fn new(pages: usize, edges: &[(u32, u32)]) -> Graph {
        let mut sorted: Vec<(u32, u32)> = edges.iter().copied().filter(|(s, d)| s != d).collect();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(u32::try_from(sorted.len()).is_ok(), "too many links");
        if let Some(&(s, d)) = sorted.iter().find(|&&(s, d)| s.max(d) as usize >= pages) {
            panic!("link {s} -> {d} outside 0..{pages}");
        }
        let out_start = offsets(pages, sorted.iter().map(|&(s, _)| s));
        let out: Vec<u32> = sorted.iter().map(|&(_, d)| d).collect();
        // Incoming lists by counting sort; sources come out ascending because `sorted` is.
        let in_start = offsets(pages, sorted.iter().map(|&(_, d)| d));
        let mut fill: Vec<u32> = in_start[..pages].to_vec();
        let mut inn = vec![0u32; sorted.len()];
        for &(s, d) in &sorted {
            inn[fill[d as usize] as usize] = s;
            fill[d as usize] += 1;
        }
        let degree = |start: &[u32], u: usize| (start[u + 1] - start[u]) as usize;
        let hub = (0..pages)
            .map(|u| degree(&out_start, u) > HUB_LINKS || degree(&in_start, u) > HUB_LINKS)
            .collect();
        Graph {
            out_start,
            out,
            in_start,
            inn,
            hub,
        }
    }

    /// Number of pages.
    pub fn pages(&self) -> usize {
        self.hub.len()
    }

    /// Number of distinct links.
    pub fn links(&self) -> usize {
        self.out.len()
    }

    /// Pages `u` links to, ascending.
    pub fn links_out(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.out[self.out_start[u] as usize..self.out_start[u + 1] as usize]
    }

    /// Pages that link to `u`, ascending.
    pub fn links_in(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.inn[self.in_start[u] as usize..self.in_start[u + 1] as usize]
    }

    /// Whether the body link `source → destination` exists.
    pub fn has_link(&self, source: u32, destination: u32) -> bool {
        self.links_in(destination).binary_search(&source).is_ok()
    }

    /// Whether `u` has more than [`HUB_LINKS`] body links in or out.
    pub fn is_hub(&self, u: u32) -> bool {
        self.hub[u as usize]
    }

    /// Every link (source, destination), by source then destination.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.pages() as u32).flat_map(move |s| self.links_out(s).iter().map(move |&d| (s, d)))
    }
}

/// Start offsets (`pages + 1` of them) of ascending keys.
fn offsets(pages: usize, keys: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut start = vec![0u32; pages + 1];
    for k in keys {
        start[k as usize + 1] += 1;
    }
    for u in 0..pages {
        start[u + 1] += start[u];
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedupes_drops_self_links_and_indexes_both_ways() {
        let g = Graph::new(4, &[(0, 1), (0, 1), (2, 1), (1, 1), (1, 3), (0, 3)]);
        assert_eq!(g.links(), 4);
        assert_eq!(g.links_out(0), &[1, 3]);
        assert_eq!(g.links_in(1), &[0, 2]);
        assert_eq!(g.links_in(3), &[0, 1]);
        assert!(g.links_out(3).is_empty());
        assert!(g.has_link(2, 1) && !g.has_link(1, 2) && !g.has_link(1, 1));
        assert_eq!(
            g.edges().collect::<Vec<_>>(),
            vec![(0, 1), (0, 3), (1, 3), (2, 1)]
        );
    }

    #[test]
    fn hubs_have_more_than_the_limit_in_or_out() {
        let n = HUB_LINKS as u32 + 3;
        // Page 0 links to HUB_LINKS + 1 pages; page 1 receives exactly HUB_LINKS links.
        let mut edges: Vec<(u32, u32)> = (2..n).map(|d| (0, d)).collect();
        edges.extend((3..=HUB_LINKS as u32 + 2).map(|s| (s, 1)));
        let g = Graph::new(n as usize, &edges);
        assert_eq!(g.links_out(0).len(), HUB_LINKS + 1);
        assert!(g.is_hub(0));
        assert_eq!(g.links_in(1).len(), HUB_LINKS);
        assert!(!g.is_hub(1));
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn rejects_ids_out_of_range() {
        let _ = Graph::new(2, &[(0, 2)]);
    }
}
