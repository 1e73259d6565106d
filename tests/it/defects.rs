//! Defects found by trying to break `linkgap run` (issue 12), each pinned by a test.

use crate::util::*;

const O: &str = "https://www.example.com";

fn u(path: &str) -> String {
    format!("{O}{path}")
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// Eight-dimensional vectors: a basis direction `i`, tilted by `tilt` towards direction 7.
fn axis(i: usize, tilt: f32) -> Vec<f32> {
    let mut v = vec![0.0; 8];
    v[i] = 1.0;
    v[7] += tilt;
    unit(&v)
}

fn no_links(w: &Workdir) {
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &[]);
}

#[test]
fn a_repeated_url_with_another_vector_is_rejected_not_dropped() {
    let w = Workdir::new("repeated-url");
    let rows = vec![
        emb_row(&u("/a"), &vector_text(&axis(0, 0.3))),
        emb_row(&u("/b"), &vector_text(&axis(1, 0.3))),
        emb_row(&u("/c"), &vector_text(&axis(2, 0.3))),
        // The same URL again with a different vector: conflicting data.
        emb_row(&u("/a"), &vector_text(&axis(3, 0.3))),
        // The same URL again with the same vector: a harmless repeat.
        emb_row(&u("/b"), &vector_text(&axis(1, 0.3))),
    ];
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    no_links(&w);
    let out = w.run(&[
        "run",
        "--embeddings",
        w.path("embeddings.csv").to_str().unwrap(),
        "--inlinks",
        w.path("inlinks.csv").to_str().unwrap(),
        "--out",
        w.path("o.xlsx").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejected = records(&w.path("o.xlsx"), "Rejected Rows");
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0]["Row"], "5");
    assert!(rejected[0]["Problem"].contains("also on row 2 with a different vector"));
    let pages = records(&w.path("o.xlsx"), "Pages");
    let notes: Vec<&str> = pages.iter().map(|p| p["Reason"].as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("same URL as row 2 with a different vector"))
    );
}

#[test]
fn pairs_less_similar_than_unrelated_pages_are_not_candidates() {
    let w = Workdir::new("negative-pairs");
    // Four pages: two close pairs pointing in opposite directions, so each page's third and
    // fourth neighbours are anti-similar.
    let rows = vec![
        emb_row(
            &u("/a"),
            &vector_text(&unit(&[1.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
        ),
        emb_row(
            &u("/b"),
            &vector_text(&unit(&[1.0, -0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
        ),
        emb_row(
            &u("/c"),
            &vector_text(&unit(&[-1.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0])),
        ),
        emb_row(
            &u("/d"),
            &vector_text(&unit(&[-1.0, 0.0, -0.1, 0.0, 0.0, 0.0, 0.0, 0.0])),
        ),
    ];
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    no_links(&w);
    let out = w.run(&[
        "run",
        "--embeddings",
        w.path("embeddings.csv").to_str().unwrap(),
        "--inlinks",
        w.path("inlinks.csv").to_str().unwrap(),
        "--out",
        w.path("o.xlsx").to_str().unwrap(),
        "--near-duplicate",
        "0.999",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let queue = records(&w.path("o.xlsx"), "Queue");
    assert!(!queue.is_empty());
    for row in &queue {
        let similar = row["Similarity"].parse::<f64>().unwrap();
        assert!(similar > 0.0, "a negative pair was queued: {row:?}");
    }
    // a↔b and c↔d, both directions: the anti-similar pairs are cut.
    assert_eq!(queue.len(), 4, "{queue:?}");
}

#[test]
fn every_rejected_row_is_listed_with_its_page() {
    let w = Workdir::new("many-rejections");
    // More rejections than the old 100,000-row cap, each naming its page.
    let bad = 100_005;
    let mut rows: Vec<Vec<String>> = (0..bad)
        .map(|i| emb_row(&u(&format!("/bad/{i}")), "No data returned."))
        .collect();
    for i in 0..4 {
        rows.push(emb_row(
            &u(&format!("/ok/{i}")),
            &vector_text(&axis(i, 0.3)),
        ));
    }
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    no_links(&w);
    let out = w.run(&[
        "run",
        "--embeddings",
        w.path("embeddings.csv").to_str().unwrap(),
        "--inlinks",
        w.path("inlinks.csv").to_str().unwrap(),
        "--out",
        w.path("o.xlsx").to_str().unwrap(),
        "--csv-dir",
        w.path("csv").to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let mut reader = csv::Reader::from_path(w.path("csv").join("Rejected Rows.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let url = header
        .iter()
        .position(|h| h == "URL")
        .expect("a URL column");
    let listed: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(listed.len(), bad);
    assert_eq!(&listed[0][url], u("/bad/0"));
    assert!(listed.iter().all(|r| r[url].starts_with(O)));
}

#[test]
fn an_interrupted_run_leaves_no_temporary_or_mismatched_files() {
    let w = Workdir::new("interrupted");
    let spec = linkgap::synthetic::Spec {
        pages: 6000,
        dim: 64,
        topics: 20,
        body_links: 4,
        messy: false,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(&w.path("site"), &spec).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_linkgap"))
        .current_dir(&w.dir)
        .args(["run", "site", "--out", "o.xlsx", "--csv-dir", "csv", "-q"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let temporary = |dir: &std::path::Path| {
        std::fs::read_dir(dir).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        })
    };
    // Wait until the sheets are being written (their temporary CSVs exist), then SIGTERM.
    let started = std::time::Instant::now();
    while !temporary(&w.path("csv")) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was interrupted"
        );
        assert!(started.elapsed().as_secs() < 120);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert!(!temporary(&w.path("csv")) && !temporary(&w.dir));
    assert!(!w.path("o.xlsx").exists());
    let published = std::fs::read_dir(w.path("csv")).unwrap().count();
    assert_eq!(published, 0, "CSVs are published only with the workbook");
}

#[test]
fn vectors_of_a_few_numbers_are_refused() {
    let w = Workdir::new("tiny-vectors");
    // One number per page (a score column taken for the embedding) would make every page a
    // near-duplicate of every other.
    let rows: Vec<Vec<String>> = ["/a", "/b", "/c"]
        .iter()
        .enumerate()
        .map(|(i, p)| emb_row(&u(p), &format!("0.{}", i + 1)))
        .collect();
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    no_links(&w);
    let out = w.run(&[
        "run",
        "--embeddings",
        w.path("embeddings.csv").to_str().unwrap(),
        "--inlinks",
        w.path("inlinks.csv").to_str().unwrap(),
        "--out",
        w.path("o.xlsx").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("at least 8") && err.contains("1 number(s)"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!w.path("o.xlsx").exists());
}
