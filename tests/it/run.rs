//! `linkgap run`: statuses, rejections, the brute-force reference, folder mode, CSV output.

use std::collections::HashMap;

use crate::util::*;

const O: &str = "https://www.example.com";

fn u(path: &str) -> String {
    format!("{O}{path}")
}

/// `v` as a unit vector, padded with zeros to linkgap's smallest accepted dimension (8):
/// the padding changes no cosine.
fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let mut out: Vec<f32> = v.iter().map(|x| x / n).collect();
    out.resize(out.len().max(8), 0.0);
    out
}

/// A small site whose every link status is known.
fn small_site(w: &Workdir) {
    let vectors: Vec<(&str, Vec<f32>)> = vec![
        ("/a", unit(&[1.0, 0.0, 0.0])),
        ("/b", unit(&[0.8, 0.5, 0.1])),
        ("/c", unit(&[0.7, 0.2, 0.6])),
        ("/d", unit(&[0.0, 1.0, 0.0])),
        ("/e", unit(&[0.2, 0.8, 0.4])),
    ];
    let mut rows: Vec<Vec<String>> = vectors
        .iter()
        .map(|(p, v)| emb_row(&u(p), &vector_text(v)))
        .collect();
    rows.push(emb_row(
        &u("/f"),
        "No data returned. Ensure you call 'return seoSpider.data(your_data)'",
    ));
    rows.push(emb_row(&u("/g"), "0.5,0.5"));
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    let links = vec![
        link_row(
            "Hyperlink",
            &u("/b"),
            &u("/a"),
            "Content",
            "//body/main/p[1]/a",
            true,
        ),
        link_row(
            "Hyperlink",
            &u("/c"),
            &u("/a"),
            "Navigation",
            "//body/nav/a[1]",
            true,
        ),
        link_row(
            "Hyperlink",
            &u("/a"),
            &u("/c"),
            "Content",
            "//body/main/p[2]/a",
            true,
        ),
        link_row(
            "Hyperlink",
            &u("/a"),
            &u("/a"),
            "Content",
            "//body/main/p[3]/a",
            true,
        ),
        link_row(
            "Hyperlink",
            &u("/e"),
            &format!("{}?utm_source=newsletter#part", u("/d")),
            "Content",
            "//body/main/p[1]/a",
            true,
        ),
        link_row(
            "Image",
            &u("/d"),
            &u("/logo.png"),
            "Header",
            "//body/header/img",
            true,
        ),
    ];
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &links);
}

fn opportunities_by_target(path: &std::path::Path) -> HashMap<String, HashMap<String, String>> {
    records(path, "Opportunities")
        .into_iter()
        .map(|r| (r["Target URL"].clone(), r))
        .collect()
}

/// The status of neighbour `related` in `target`'s row.
fn status_of(
    rows: &HashMap<String, HashMap<String, String>>,
    target: &str,
    related: &str,
) -> Option<String> {
    let row = &rows[target];
    (1..=5)
        .find(|i| {
            row.get(&format!("Related URL {i}"))
                .is_some_and(|r| r == related)
        })
        .map(|i| row[&format!("Link Status {i}")].clone())
}

#[test]
fn statuses_are_directed_and_bad_rows_are_reported() {
    let w = Workdir::new("small");
    small_site(&w);
    let out = w.run(&[
        "run",
        "--embeddings",
        "embeddings.csv",
        "--inlinks",
        "inlinks.csv",
        "--out",
        "report.xlsx",
        "--min-words",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "rows were rejected: {}",
        stderr(&out)
    );
    let report = w.path("report.xlsx");
    let names = sheet_names(&report);
    for want in ["Opportunities", "Queue", "Pages", "Run", "Rejected Rows"] {
        assert!(names.iter().any(|n| n == want), "sheet {want} in {names:?}");
    }
    let opp = opportunities_by_target(&report);
    assert_eq!(opp.len(), 5, "one row per page with a vector");
    // Body link B→A; template-only C→A; and the reverse direction A→C is a separate check.
    assert_eq!(
        status_of(&opp, &u("/a"), &u("/b")).as_deref(),
        Some("Body link")
    );
    assert_eq!(
        status_of(&opp, &u("/a"), &u("/c")).as_deref(),
        Some("Template link only")
    );
    assert_eq!(
        status_of(&opp, &u("/c"), &u("/a")).as_deref(),
        Some("Body link")
    );
    assert_eq!(
        status_of(&opp, &u("/b"), &u("/a")).as_deref(),
        Some("Not found"),
        "A→B does not exist although B→A does"
    );
    // A URL variant (tracking parameter, fragment) is the same page.
    assert_eq!(
        status_of(&opp, &u("/d"), &u("/e")).as_deref(),
        Some("Body link")
    );
    // A page is never its own neighbour, even with a self link.
    for (target, row) in &opp {
        for i in 1..=4 {
            assert_ne!(&row[&format!("Related URL {i}")], target);
        }
    }
    assert_eq!(opp[&u("/a")]["Links to Target URL"], u("/b"));
    assert_eq!(
        opp[&u("/a")]["Related URL 1"],
        u("/b"),
        "most similar first"
    );
    // Queue: Not found and Template link only pairs, with the source → destination direction.
    let queue = records(&report, "Queue");
    let pair = |s: &str, d: &str| {
        queue
            .iter()
            .find(|r| r["Source URL"] == u(s) && r["Destination URL"] == u(d))
            .cloned()
    };
    assert_eq!(
        pair("/c", "/a").expect("C→A is template only")["Existing Link"],
        "template only"
    );
    assert_eq!(
        pair("/a", "/b").expect("A→B is missing")["Existing Link"],
        "none"
    );
    assert!(pair("/b", "/a").is_none(), "B→A exists as a body link");
    // Rejected rows name the file, row and column.
    let rejected = records(&report, "Rejected Rows");
    assert_eq!(rejected.len(), 2);
    let f = rejected
        .iter()
        .find(|r| r["Row"] == "7")
        .expect("row 7 (/f) rejected");
    assert_eq!(f["File"], "embeddings.csv");
    assert_eq!(
        f["Column"],
        "(ChatGPT) Extract embeddings from page content 1"
    );
    assert!(f["Problem"].contains("not a vector"), "{f:?}");
    let g = rejected
        .iter()
        .find(|r| r["Row"] == "8")
        .expect("row 8 (/g) rejected");
    assert!(g["Problem"].contains("2 values"), "{g:?}");
    let pages = records(&report, "Pages");
    let page = |p: &str| pages.iter().find(|r| r["URL"] == u(p)).unwrap().clone();
    assert_eq!(page("/f")["Eligible"], "no");
    assert!(
        page("/f")["Reason"].starts_with("no vector"),
        "{:?}",
        page("/f")
    );
    assert_eq!(page("/a")["Eligible"], "yes");
    // Run sheet: counts add up per file.
    let run: HashMap<String, String> = sheet(&report, "Run")
        .into_iter()
        .skip(1)
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(run["Embedding dimension"], "8");
    assert!(
        run["Rows: embeddings.csv (embeddings)"]
            .starts_with("read 7, used 5, skipped 0, rejected 2"),
        "{run:?}"
    );
    assert!(
        run["Rows: inlinks.csv (All Inlinks)"].starts_with("read 6, used 5, skipped 1"),
        "{run:?}"
    );
    assert!(run["Input: embeddings"].contains("SHA-256"));
}

fn parse_vectors(path: &std::path::Path) -> HashMap<String, Vec<f64>> {
    let mut rdr = csv::ReaderBuilder::new().from_path(path).unwrap();
    let mut out = HashMap::new();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let v: Result<Vec<f64>, _> = rec[4].split(',').map(|t| t.trim().parse::<f64>()).collect();
        if let Ok(v) = v {
            out.insert(rec[0].to_string(), v);
        }
    }
    out
}

#[test]
fn top_k_matches_a_brute_force_f64_reference() {
    let w = Workdir::new("reference");
    let spec = linkgap::synthetic::Spec {
        pages: 80,
        dim: 48,
        topics: 5,
        ..linkgap::synthetic::Spec::default()
    };
    let files = linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let out = w.run(&[
        "run",
        "--embeddings",
        "custom_javascript_all.csv",
        "--inlinks",
        "all_inlinks.csv",
        "--internal",
        "internal_all.csv",
        "--out",
        "r.xlsx",
        "-k",
        "7",
        "--near-duplicate",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = w.path("r.xlsx");
    let vectors = parse_vectors(&files.embeddings);
    let pages = records(&report, "Pages");
    let sources: Vec<&String> = pages
        .iter()
        .filter(|p| p["Source Eligible"] == "yes")
        .map(|p| &p["URL"])
        .collect();
    assert!(sources.len() > 70);
    let cos = |a: &[f64], b: &[f64]| {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        dot / (a.iter().map(|x| x * x).sum::<f64>().sqrt()
            * b.iter().map(|x| x * x).sum::<f64>().sqrt())
    };
    let opp = records(&report, "Opportunities");
    assert!(opp.len() > 70);
    for row in &opp {
        let target = &row["Target URL"];
        let tv = &vectors[target];
        let mut expected: Vec<(f64, &String)> = sources
            .iter()
            .filter(|s| *s != &target)
            .map(|s| (cos(tv, &vectors[*s]), *s))
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        for (i, (score, url)) in expected.iter().take(7).enumerate() {
            let got_url = &row[&format!("Related URL {}", i + 1)];
            let got: f64 = row[&format!("Similarity {}", i + 1)].parse().unwrap();
            assert!(
                (got - score).abs() < 1e-5,
                "{target} #{}: {got} vs {score}",
                i + 1
            );
            // Equal scores may come in either order only if they are equal to f32 precision.
            if got_url != *url {
                let other = cos(tv, &vectors[got_url]);
                assert!(
                    (other - score).abs() < 1e-6,
                    "{target} #{}: {got_url} vs {url}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn folder_mode_finds_roles_from_headers_not_names() {
    let w = Workdir::new("folder");
    let exports = w.dir.join("exports");
    let spec = linkgap::synthetic::Spec {
        messy: false,
        ..linkgap::synthetic::Spec::default()
    };
    let files = linkgap::synthetic::write_exports(&exports, &spec).unwrap();
    std::fs::rename(&files.embeddings, exports.join("b.csv")).unwrap();
    std::fs::rename(&files.inlinks, exports.join("c.csv")).unwrap();
    std::fs::rename(&files.internal, exports.join("a.csv")).unwrap();
    let out = w.run(&[
        "run",
        "exports",
        "--out",
        "r.xlsx",
        "--csv-dir",
        "csv",
        "--client",
        "Acme",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run: HashMap<String, String> = sheet(&w.path("r.xlsx"), "Run")
        .into_iter()
        .skip(1)
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert!(run["Input: embeddings"].contains("b.csv"), "{run:?}");
    assert!(run["Input: All Inlinks"].contains("c.csv"));
    assert!(run["Input: Internal: All"].contains("a.csv"));
    assert_eq!(run["Client"], "Acme");
    for name in ["Opportunities", "Queue", "Pages", "Run", "Rejected Rows"] {
        let csv_path = w.dir.join("csv").join(format!("{name}.csv"));
        let text = std::fs::read_to_string(&csv_path)
            .unwrap_or_else(|e| panic!("{}: {e}", csv_path.display()));
        let xlsx_header = &sheet(&w.path("r.xlsx"), name)[0];
        assert_eq!(
            text.lines().next().unwrap(),
            xlsx_header
                .iter()
                .map(|h| if h.contains(',') {
                    format!("\"{h}\"")
                } else {
                    h.clone()
                })
                .collect::<Vec<_>>()
                .join(",")
        );
    }
}

#[test]
fn a_missing_role_is_fatal_with_one_line() {
    let w = Workdir::new("missing");
    small_site(&w);
    std::fs::remove_file(w.path("inlinks.csv")).unwrap();
    let out = w.run(&["run", ".", "--out", "r.xlsx"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no All Inlinks export found"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!w.path("r.xlsx").exists());
}

#[test]
fn samples_are_what_the_generator_writes() {
    let w = Workdir::new("samples");
    // The demo carries page text, so its Queue shows suggested passages and anchors.
    let spec = linkgap::synthetic::Spec {
        page_text: true,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for name in [
        "custom_javascript_all.csv",
        "all_inlinks.csv",
        "internal_all.csv",
        "custom_extraction_all.csv",
    ] {
        let want = std::fs::read(w.path(name)).unwrap();
        let have = std::fs::read(repo.join(name)).unwrap();
        assert!(
            want == have,
            "samples/{name} is stale: run `cargo run --bin linkgap-gen -- samples --page-text`"
        );
    }
}

#[test]
fn help_speaks_the_users_language() {
    let w = Workdir::new("help");
    let out = w.run(&["run", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for phrase in [
        "All Inlinks",
        "Custom JavaScript",
        "Internal: All",
        "--top-k",
        "--csv-dir",
        "Exit codes",
        "near-duplicate",
    ] {
        assert!(text.contains(phrase), "--help lacks {phrase}");
    }
}

#[test]
fn the_approximate_index_reports_its_recall_every_run() {
    let w = Workdir::new("approx");
    let spec = linkgap::synthetic::Spec {
        pages: 1500,
        dim: 48,
        topics: 12,
        messy: false,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.dir, &spec).unwrap();
    let run = |index: &str, out: &str| {
        let o = w.run(&[
            "run",
            ".",
            "--out",
            out,
            "--index",
            index,
            "--recall-sample",
            "300",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let run: HashMap<String, String> = sheet(&w.path(out), "Run")
            .into_iter()
            .skip(1)
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
        (
            run["Similarity search"].clone(),
            records(&w.path(out), "Opportunities"),
        )
    };
    let (approx_text, approx) = run("approx", "a.xlsx");
    let (exact_text, exact) = run("exact", "e.xlsx");
    assert!(exact_text.contains("exact: every pair"), "{exact_text}");
    let recall: f64 = approx_text
        .split("recall@k ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{approx_text}"));
    assert!(recall >= 0.9, "{approx_text}");
    assert!(approx_text.contains("300 sampled pages"), "{approx_text}");
    // The index finds (nearly) the same neighbours as exact search.
    let firsts = |rows: &[HashMap<String, String>]| {
        rows.iter()
            .map(|r| (r["Target URL"].clone(), r["Related URL 1"].clone()))
            .collect::<std::collections::HashSet<_>>()
    };
    let same = firsts(&approx).intersection(&firsts(&exact)).count();
    assert!(
        same as f64 >= 0.9 * exact.len() as f64,
        "{same} of {}",
        exact.len()
    );
}

/// Runs that would replace an input, and inputs that are not what they are said to be, are
/// refused with one line and exit 2, and nothing is written.
#[test]
fn outputs_never_replace_an_input_and_refusals_are_one_line() {
    let w = Workdir::new("refusals");
    small_site(&w);
    let before = std::fs::read(w.path("embeddings.csv")).unwrap();
    std::fs::create_dir_all(w.path("sub")).unwrap();
    std::fs::write(w.path("plain-file"), "x").unwrap();
    std::fs::hard_link(w.path("inlinks.csv"), w.path("linked.xlsx")).unwrap();
    let base = ["run", "--embeddings", "embeddings.csv"];
    let i = "inlinks.csv";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // The same file by another spelling, and by a hard link.
        (
            vec!["--inlinks", i, "--out", "./sub/../embeddings.csv"],
            "--out",
        ),
        (
            vec!["--inlinks", "linked.xlsx", "--out", "./sub/../linked.xlsx"],
            "replace",
        ),
        (
            vec!["--inlinks", i, "--out", "r.xlsx", "--csv-dir", "."],
            "--csv-dir",
        ),
        (
            vec!["--inlinks", i, "--out", "r.xlsx", "--csv-dir", "plain-file"],
            "is a file, not a folder",
        ),
        (
            vec!["--inlinks", i, "--out", "r.xlsx", "--internal", "sub"],
            "is a folder, not a file",
        ),
        (
            vec!["--inlinks", i, "--out", "r.xlsx", "--include-source", "("],
            "not a valid regular expression",
        ),
    ];
    for (extra, want) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(&extra);
        let out = w.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{extra:?}: one line: {err}"
        );
    }
    assert_eq!(std::fs::read(w.path("embeddings.csv")).unwrap(), before);
    assert!(!w.path("r.xlsx").exists());

    // stderr a closed pipe: still exit 2, not a panic (101).
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_linkgap"))
        .args([
            "run",
            "--embeddings",
            "embeddings.csv",
            "--inlinks",
            "inlinks.csv",
        ])
        .args(["--out", "r.xlsx", "--include-source", "("])
        .current_dir(&w.dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(2));
}
