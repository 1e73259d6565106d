//! Offline measurement of `linkgap::rank` on a prepared crawl (not part of the test suite).
//!
//! `DIR` holds `pages.tsv` (url, source ok 0/1, destination ok 0/1, folder), `edges.tsv`
//! (source id, destination id: body links between pages) and `vectors.f32` (row-major,
//! L2-normalised, `pages × dim` little-endian floats; empty for a graph-only site).
//!
//!     cargo run --release --example rank_eval -- DIR [--dump OUT]
//!
//! Prints the self-measurement for several neighbour counts, budgets and seeds; with
//! `--dump`, writes candidate features and labels for fitting a per-site model offline.
#![allow(clippy::print_stdout)]

use std::fmt::Write as _;
use std::fs;

use linkgap::neighbors::{Matrix, Neighbor, top_k};
use linkgap::rank::holdout::{BASELINE_NEIGHBORS, HIDDEN_SHARE, split};
use linkgap::rank::{Budget, Graph, Inputs, Options, rank, self_check};

struct Site {
    pages: usize,
    source_ok: Vec<bool>,
    destination_ok: Vec<bool>,
    edges: Vec<(u32, u32)>,
    vectors: Vec<f32>,
    dim: usize,
}

fn load(dir: &str) -> Site {
    let pages = fs::read_to_string(format!("{dir}/pages.tsv")).unwrap();
    let (mut source_ok, mut destination_ok) = (Vec::new(), Vec::new());
    for line in pages.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        source_ok.push(f[1] == "1");
        destination_ok.push(f[2] == "1");
    }
    let edges = fs::read_to_string(format!("{dir}/edges.tsv"))
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    let bytes = fs::read(format!("{dir}/vectors.f32")).unwrap();
    let vectors: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let n = source_ok.len();
    let dim = vectors.len() / n;
    Site {
        pages: n,
        source_ok,
        destination_ok,
        edges,
        vectors,
        dim,
    }
}

/// Every page's `k` most similar source-eligible pages (page ids).
fn neighbours(site: &Site, k: usize) -> Vec<Vec<Neighbor>> {
    if site.dim == 0 {
        return vec![Vec::new(); site.pages];
    }
    let ids: Vec<u32> = (0..site.pages as u32).collect();
    let sources: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| site.source_ok[i as usize])
        .collect();
    let mut rows = Vec::with_capacity(sources.len() * site.dim);
    for &s in &sources {
        let s = s as usize;
        rows.extend_from_slice(&site.vectors[s * site.dim..(s + 1) * site.dim]);
    }
    let q = Matrix::new(&site.vectors, site.pages, site.dim);
    let c = Matrix::new(&rows, sources.len(), site.dim);
    top_k(q, &ids, c, &sources, k)
}

/// `--synthetic N`: time the ranking on N pages with 16 random links and 20 random
/// neighbours each (no vectors), and print the peak memory.
fn synthetic(n: u32) {
    use linkgap::rank::holdout::{SEED, mix};
    use std::time::Instant;
    let rnd = |i: u64| (mix(i) % u64::from(n)) as u32;
    let edges: Vec<(u32, u32)> = (0..u64::from(n) * 16)
        .map(|i| ((i / 16) as u32, rnd(i)))
        .collect();
    let neighbors: Vec<Vec<Neighbor>> = (0..n)
        .map(|t| {
            (0..20u32)
                .map(|k| Neighbor {
                    id: rnd(u64::from(t) << 8 | u64::from(k) | 1 << 60),
                    score: 0.9 - 0.01 * k as f32,
                })
                .collect()
        })
        .collect();
    let ok = vec![true; n as usize];
    let zero = |_: u32, _: u32| 0.0;
    let inputs = Inputs {
        neighbors: &neighbors,
        cosine: &zero,
        source_ok: &ok,
        destination_ok: &ok,
    };
    let hwm = || {
        fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find(|l| l.starts_with("VmHWM"))
            .unwrap_or("")
            .to_string()
    };
    println!("inputs built: {}", hwm());
    let t = Instant::now();
    let graph = Graph::new(n as usize, &edges);
    println!("graph {} links {:?} {}", graph.links(), t.elapsed(), hwm());
    let t = Instant::now();
    let r = rank(&graph, &inputs, &Options::default());
    println!(
        "rank: {} candidates, {} kept {:?} {}",
        r.candidates,
        r.kept.len(),
        t.elapsed(),
        hwm()
    );
    let t = Instant::now();
    let c = self_check(&graph, &inputs, &Options::default(), SEED, HIDDEN_SHARE);
    println!("self check {c:?} {:?} {}", t.elapsed(), hwm());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "--synthetic" {
        synthetic(args[2].parse().unwrap());
        return;
    }
    let site = load(&args[1]);
    let dump = args
        .iter()
        .position(|a| a == "--dump")
        .map(|i| args[i + 1].clone());
    let graph = Graph::new(site.pages, &site.edges);
    let hubs = (0..site.pages as u32).filter(|&u| graph.is_hub(u)).count();
    println!(
        "pages {} links {} hubs {} dim {} sources {} destinations {}",
        site.pages,
        graph.links(),
        hubs,
        site.dim,
        site.source_ok.iter().filter(|&&b| b).count(),
        site.destination_ok.iter().filter(|&&b| b).count()
    );
    let zero = |_: u32, _: u32| 0.0;
    let dot = linkgap::rank::dot_rows(&site.vectors, site.dim);
    let cosine: &dyn linkgap::rank::Cosine = if site.dim == 0 { &zero } else { &dot };
    let seeds = [1u64, 2, 3, 4, 5];
    let budgets: Vec<(&str, Budget)> = vec![
        ("unlimited", Budget::UNLIMITED),
        ("dest 5", budget(Some(5), None)),
        ("dest 5, src 3", budget(Some(5), Some(3))),
        ("dest 5, src 5", budget(Some(5), Some(5))),
        ("dest 5, src 8", budget(Some(5), Some(8))),
        ("dest 5, src 10", budget(Some(5), Some(10))),
        ("dest 5, src 15", budget(Some(5), Some(15))),
        ("dest 5, src 20", budget(Some(5), Some(20))),
        ("dest 3, src 10", budget(Some(3), Some(10))),
    ];
    for k in [5, 10, 20, 30, 50] {
        let lists = neighbours(&site, k.max(BASELINE_NEIGHBORS));
        let inputs = Inputs {
            neighbors: &lists,
            cosine,
            source_ok: &site.source_ok,
            destination_ok: &site.destination_ok,
        };
        for (name, b) in &budgets {
            if k != 50 && !matches!(*name, "unlimited" | "dest 5, src 10") {
                continue;
            }
            let options = Options {
                budget: *b,
                neighbors: k,
                ..Options::default()
            };
            let mut line = format!("K {k:>2} {name:<15}");
            let (mut rh, mut sh) = (0, 0);
            for &seed in &seeds {
                let c = self_check(&graph, &inputs, &options, seed, HIDDEN_SHARE);
                rh += c.ranked_hits;
                sh += c.similarity_hits;
                write!(
                    line,
                    " | s{seed} hid {} N {} rank {} sim {}",
                    c.hidden, c.proposals, c.ranked_hits, c.similarity_hits
                )
                .unwrap();
            }
            println!("{line} | total ratio {:.2}", rh as f64 / sh.max(1) as f64);
        }
        if k == 50 {
            loads(&graph, &inputs);
            if let Some(out) = &dump {
                dump_features(&graph, &inputs, &seeds, out);
            }
        }
    }
}

fn budget(d: Option<usize>, s: Option<usize>) -> Budget {
    Budget {
        per_destination: d,
        per_source: s,
    }
}

/// How many links the full-graph ranking asks of its busiest sources, per budget.
fn loads(graph: &Graph, inputs: &Inputs<'_>) {
    for b in [Budget::UNLIMITED, budget(Some(5), None), Budget::default()] {
        let r = rank(
            graph,
            inputs,
            &Options {
                budget: b,
                ..Options::default()
            },
        );
        let mut per = vec![0usize; graph.pages()];
        for p in &r.kept {
            per[p.source as usize] += 1;
        }
        per.sort_unstable_by(|a, b| b.cmp(a));
        let reverse = r.kept.iter().filter(|p| p.is_reverse()).count();
        println!(
            "full graph {b:?}: candidates {} kept {} (reverse {reverse}) cut dest {} cut src {}; busiest sources {:?}",
            r.candidates,
            r.kept.len(),
            r.cut_by_destination,
            r.cut_by_source,
            &per[..10]
        );
    }
}

/// For each seed: the outer level (features on the graph minus the hidden 10%, labels = the
/// hidden links) and an inner level (the same again inside the remaining graph, for fitting).
fn dump_features(graph: &Graph, inputs: &Inputs<'_>, seeds: &[u64], out: &str) {
    fs::create_dir_all(out).unwrap();
    let unlimited = Options {
        budget: Budget::UNLIMITED,
        ..Options::default()
    };
    for &seed in seeds {
        let (outer_hidden, outer_kept) = split(graph, inputs, seed, HIDDEN_SHARE);
        let outer = Graph::new(graph.pages(), &outer_kept);
        let (inner_hidden, inner_kept) = split(&outer, inputs, seed + 1000, HIDDEN_SHARE);
        let inner = Graph::new(graph.pages(), &inner_kept);
        let n = self_check(graph, inputs, &Options::default(), seed, HIDDEN_SHARE).proposals;
        for (level, g, hidden) in [
            ("outer", &outer, &outer_hidden),
            ("inner", &inner, &inner_hidden),
        ] {
            let r = rank(g, inputs, &unlimited);
            let mut text = format!("# N {n}\nsource\tdestination\tcos\tback\tp2\tkn\tlabel\n");
            for p in &r.kept {
                let f = p.features;
                let label = hidden.binary_search(&(p.source, p.destination)).is_ok();
                writeln!(
                    text,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    p.source,
                    p.destination,
                    f.similarity,
                    u8::from(f.links_back),
                    f.via_pages,
                    f.like_pages,
                    u8::from(label)
                )
                .unwrap();
            }
            fs::write(format!("{out}/{level}_{seed}.tsv"), text).unwrap();
            let mut edges = String::new();
            for (s, d) in g.edges() {
                writeln!(edges, "{s}\t{d}").unwrap();
            }
            fs::write(format!("{out}/{level}_{seed}_edges.tsv"), edges).unwrap();
        }
    }
}
