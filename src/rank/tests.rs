use super::holdout::{BASELINE_NEIGHBORS, mix, split};
use super::*;

fn nb(id: u32, score: f32) -> Neighbor {
    Neighbor { id, score }
}

/// `n` pages, all eligible, no neighbours, cosine 0.1 everywhere.
struct Site {
    neighbors: Vec<Vec<Neighbor>>,
    source_ok: Vec<bool>,
    destination_ok: Vec<bool>,
}

impl Site {
    fn new(n: usize) -> Site {
        Site {
            neighbors: vec![Vec::new(); n],
            source_ok: vec![true; n],
            destination_ok: vec![true; n],
        }
    }

    fn rank(&self, graph: &Graph, options: &Options) -> Ranking {
        rank(graph, &self.inputs(&|_, _| 0.1), options)
    }

    fn inputs<'a>(&'a self, cosine: &'a dyn Cosine) -> Inputs<'a> {
        Inputs {
            neighbors: &self.neighbors,
            cosine,
            source_ok: &self.source_ok,
            destination_ok: &self.destination_ok,
        }
    }
}

fn unlimited() -> Options {
    Options {
        budget: Budget::UNLIMITED,
        ..Options::default()
    }
}

fn find(r: &Ranking, s: u32, d: u32) -> Option<Proposal> {
    r.kept
        .iter()
        .find(|p| p.source == s && p.destination == d)
        .copied()
}

#[test]
fn p2_counts_two_step_paths_through_non_hub_pages_only() {
    // 0 → 1 → 9 and 0 → 2 → 9: p2[0] = 2 for destination 9. Page 3 is a hub (it links to
    // more than HUB_LINKS pages), so 0 → 3 → 9 does not count.
    let n = HUB_LINKS + 20;
    let mut edges = vec![(0, 1), (1, 9), (0, 2), (2, 9), (0, 3), (3, 9)];
    edges.extend((10..=10 + HUB_LINKS as u32).map(|d| (3, d)));
    let g = Graph::new(n, &edges);
    assert!(g.is_hub(3));
    let r = Site::new(n).rank(&g, &unlimited());
    let p = find(&r, 0, 9).expect("0 -> 9 proposed");
    assert_eq!(p.features.via_pages, 2);
    assert_eq!(p.features.like_pages, 0);
    assert!(!p.features.links_back);
    let expected = 0.1 + 0.25 * 3f32.ln();
    assert!((p.score - expected).abs() < 1e-6, "{}", p.score);
    // 1 and 2 already link to 9: never proposed; 3 links to 9 too.
    for s in [1, 2, 3] {
        assert!(find(&r, s, 9).is_none());
    }
}

#[test]
fn kn_counts_links_to_the_destinations_most_similar_non_hub_pages() {
    let n = HUB_LINKS + 40;
    let mut site = Site::new(n);
    // Destination 0's most similar pages: 1, 2, 3 (a hub) and, beyond SIMILAR_PAGES, 20.
    site.neighbors[0] = (1..=SIMILAR_PAGES as u32 + 1)
        .map(|i| nb(if i == SIMILAR_PAGES as u32 + 1 { 20 } else { i }, 0.5))
        .collect();
    let mut edges = vec![(7, 1), (7, 2), (7, 3), (7, 20)];
    edges.extend((30..=30 + HUB_LINKS as u32).map(|s| (s, 3)));
    let g = Graph::new(n, &edges);
    assert!(g.is_hub(3));
    let r = site.rank(&g, &unlimited());
    let p = find(&r, 7, 0).expect("7 -> 0 proposed");
    assert_eq!(
        p.features.like_pages, 2,
        "1 and 2 count; the hub and page 20 do not"
    );
    assert_eq!(p.features.via_pages, 0);
}

#[test]
fn candidates_skip_existing_links_ineligible_pages_and_near_duplicates() {
    let mut site = Site::new(6);
    site.neighbors[0] = vec![nb(1, 0.9), nb(2, 0.8), nb(3, 0.7), nb(4, 0.97), nb(5, 0.6)];
    site.source_ok[3] = false;
    site.destination_ok[5] = false;
    // 1 already links to 0; 0 links to 5 (a link back for 5 → 0).
    let g = Graph::new(6, &[(1, 0), (0, 5)]);
    let r = site.rank(&g, &unlimited());
    let to_0: Vec<u32> = r
        .kept
        .iter()
        .filter(|p| p.destination == 0)
        .map(|p| p.source)
        .collect();
    assert_eq!(
        to_0,
        vec![5, 2],
        "5 links back, then 2; not 1 (linked), 3, 4 (near-dup)"
    );
    assert!(find(&r, 5, 0).unwrap().is_reverse());
    // Destination 5 is not eligible: nothing proposed to it, even though 0 links... to it.
    assert!(r.kept.iter().all(|p| p.destination != 5));
    assert!(
        r.kept
            .iter()
            .all(|p| p.source != 3 && p.destination != p.source)
    );
}

#[test]
fn cosine_outside_the_neighbour_list_comes_from_the_caller() {
    let site = Site::new(3);
    let g = Graph::new(3, &[(0, 1), (1, 2)]);
    let cosine = |a: u32, b: u32| if (a, b) == (0, 2) { 0.42 } else { 0.0 };
    let r = rank(&g, &site.inputs(&cosine), &unlimited());
    let p = find(&r, 0, 2).unwrap();
    assert!((p.features.similarity - 0.42).abs() < 1e-6);
    let data = [1.0, 0.0, 0.6, 0.8];
    assert!((dot_rows(&data, 2).cosine(0, 1) - 0.6).abs() < 1e-6);
    // Lanes and the tail: 37 values (two chunks of 16 and 5 more) against an f64 sum.
    let x: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
    let y: Vec<f32> = (0..37).map(|i| (i as f32 * 0.11).cos()).collect();
    let exact: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| f64::from(*a) * f64::from(*b))
        .sum();
    let both: Vec<f32> = x.iter().chain(&y).copied().collect();
    assert!((f64::from(dot_rows(&both, 37).cosine(0, 1)) - exact).abs() < 1e-5);
}

#[test]
fn batched_cosines_are_the_single_cosines_bit_for_bit_in_order() {
    // 11 rows of 37: batches of 0 to 10 rows cover the fours and every remainder.
    let data: Vec<f32> = (0..11 * 37).map(|i| (i as f32 * 0.173).sin()).collect();
    let rows = dot_rows(&data, 37);
    let mut out = vec![f32::NAN; 3];
    for len in 0..=10u32 {
        let rs: Vec<u32> = (0..len).map(|i| (i * 7 + 3) % 11).collect();
        rows.cosines(10, &rs, &mut out);
        let one: Vec<u32> = rs.iter().map(|&r| rows.cosine(r, 10).to_bits()).collect();
        assert_eq!(out.iter().map(|c| c.to_bits()).collect::<Vec<_>>(), one);
    }
}

#[test]
fn budget_caps_destinations_and_sources_and_counts_the_cuts() {
    // Sources 0..4, destinations 10..14; every source similar to every destination, the
    // score falling with the source id.
    let mut site = Site::new(15);
    for t in 10..15 {
        site.neighbors[t] = (0..5).map(|s| nb(s, 0.5 - 0.01 * s as f32)).collect();
    }
    for s in 0..10 {
        site.destination_ok[s] = false;
    }
    let g = Graph::new(15, &[]);
    let all = site.rank(&g, &unlimited());
    assert_eq!((all.candidates, all.kept.len()), (25, 25));
    assert_eq!((all.cut_by_destination, all.cut_by_source), (0, 0));
    let capped = |d, s| Options {
        budget: Budget {
            per_destination: d,
            per_source: s,
        },
        ..Options::default()
    };
    let r = site.rank(&g, &capped(Some(2), None));
    assert_eq!(
        (r.kept.len(), r.cut_by_destination, r.cut_by_source),
        (10, 15, 0)
    );
    assert!(r.kept.iter().all(|p| p.source < 2));
    let r = site.rank(&g, &capped(Some(2), Some(3)));
    // Source 0 and 1 take three destinations each, then 2 fills the rest.
    assert_eq!(r.kept.len(), 10);
    assert_eq!(r.candidates, 25);
    assert_eq!(r.cut_by_destination + r.cut_by_source + r.kept.len(), 25);
    assert!(r.cut_by_source > 0);
    for s in 0..5 {
        assert!(r.kept.iter().filter(|p| p.source == s).count() <= 3);
    }
    for t in 10..15 {
        assert_eq!(r.kept.iter().filter(|p| p.destination == t).count(), 2);
    }
    // Best first.
    assert!(r.kept.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn evidence_reads_as_sentences() {
    let f = Features {
        similarity: 0.812,
        links_back: true,
        via_pages: 3,
        like_pages: 2,
    };
    assert_eq!(
        Evidence(f).to_string(),
        "links back to the source page; 3 pages the source links to link here; \
         the source links to 2 pages like this one; similar: 0.81"
    );
    assert_eq!(Evidence(f).kind(), "reverse of an existing link");
    let one = Features {
        similarity: 0.5,
        links_back: false,
        via_pages: 1,
        like_pages: 1,
    };
    assert_eq!(
        Evidence(one).to_string(),
        "1 page the source links to links here; the source links to 1 page like this one; \
         similar: 0.50"
    );
    assert_eq!(Evidence(one).kind(), "new link");
    let plain = Features {
        like_pages: 0,
        via_pages: 0,
        ..one
    };
    assert_eq!(Evidence(plain).to_string(), "similar: 0.50");
}

/// A site where page `i` links to `i+1`, `i+2` and `i-3`, and similarity knows nothing of it
/// (each page's neighbours are weakly similar pages far away in the ring).
fn ring(n: u32) -> (Site, Vec<(u32, u32)>) {
    let mut site = Site::new(n as usize);
    for t in 0..n {
        site.neighbors[t as usize] = (1..=8)
            .map(|k| nb((t + n / 2 + 7 * k) % n, 0.1 - 0.01 * k as f32))
            .collect();
    }
    let edges = (0..n)
        .flat_map(|i| [(i, (i + 1) % n), (i, (i + 2) % n), ((i + 3) % n, i)])
        .collect();
    (site, edges)
}

#[test]
fn holdout_is_deterministic_and_hides_about_the_share() {
    let (site, edges) = ring(500);
    let g = Graph::new(500, &edges);
    let cos = |_: u32, _: u32| 0.0;
    let inputs = site.inputs(&cos);
    let (h1, k1) = split(&g, &inputs, 7, 0.1);
    let (h2, _) = split(&g, &inputs, 7, 0.1);
    let (h3, _) = split(&g, &inputs, 8, 0.1);
    assert_eq!(h1, h2);
    assert_ne!(h1, h3);
    assert_eq!(h1.len() + k1.len(), g.links());
    assert!((100..200).contains(&h1.len()), "{} of 1500", h1.len());
    assert_ne!(mix(1), mix(2));
    let a = self_check(&g, &inputs, &Options::default(), 7, 0.1);
    assert_eq!(a, self_check(&g, &inputs, &Options::default(), 7, 0.1));
    assert_eq!(a.hidden, h1.len());
}

#[test]
fn holdout_recovers_links_the_graph_implies_and_ignores_ineligible_ones() {
    let (mut site, edges) = ring(400);
    let g = Graph::new(400, &edges);
    let cos = |_: u32, _: u32| 0.0;
    let check = self_check(&g, &site.inputs(&cos), &Options::default(), 3, 0.1);
    assert!(check.proposals > 0 && check.proposals <= 400 * BASELINE_NEIGHBORS);
    assert!(check.ranked_hits > check.similarity_hits, "{check:?}");
    assert!(check.ranked_share() > check.similarity_share());
    site.destination_ok.iter_mut().for_each(|d| *d = false);
    let none = self_check(&g, &site.inputs(&cos), &Options::default(), 3, 0.1);
    assert_eq!((none.hidden, none.proposals, none.ranked_hits), (0, 0, 0));
    assert_eq!(none.ratio(), None);
}
