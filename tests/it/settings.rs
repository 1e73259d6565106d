//! `linkgap run --config FILE`: a linkgap.toml's keys over the defaults, the command line
//! over the file, unknown keys named.

use std::path::Path;

use crate::util::*;

fn run_value(workbook: &Path, key: &str) -> String {
    records(workbook, "Run")
        .into_iter()
        .find(|r| r["Key"] == key)
        .unwrap_or_else(|| panic!("no {key} in the Run sheet"))["Value"]
        .clone()
}

fn exports(w: &Workdir) {
    linkgap::synthetic::write_exports(&w.path("exports"), &linkgap::synthetic::Spec::default())
        .unwrap();
}

#[test]
fn file_beats_defaults_and_command_line_beats_file() {
    let w = Workdir::new("config-merge");
    exports(&w);
    w.write(
        "linkgap.toml",
        "client = \"Acme Ltd\"\ntop_k = 2\nnear_duplicate = 0.9\n",
    );
    let out = w.run(&[
        "run",
        "exports",
        "-o",
        "a.xlsx",
        "--config",
        "linkgap.toml",
        "-q",
    ]);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    assert_eq!(run_value(&w.path("a.xlsx"), "Top k"), "2");
    assert_eq!(run_value(&w.path("a.xlsx"), "Client"), "Acme Ltd");
    assert_eq!(
        run_value(&w.path("a.xlsx"), "Near-duplicate threshold"),
        "0.90"
    );

    let out = w.run(&[
        "run",
        "exports",
        "-o",
        "b.xlsx",
        "--config",
        "linkgap.toml",
        "-k",
        "4",
        "-q",
    ]);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    assert_eq!(run_value(&w.path("b.xlsx"), "Top k"), "4", "the flag wins");
    assert_eq!(run_value(&w.path("b.xlsx"), "Client"), "Acme Ltd");
}

#[test]
fn unknown_keys_and_bad_values_are_named_with_the_file() {
    let w = Workdir::new("config-errors");
    exports(&w);
    w.write("linkgap.toml", "top_k = 3\ntopk = 4\n");
    let out = w.run(&["run", "exports", "-o", "a.xlsx", "--config", "linkgap.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("linkgap.toml") && err.contains("topk"),
        "{err}"
    );
    assert!(!w.path("a.xlsx").exists());

    w.write("linkgap.toml", "www = \"remove\"\n");
    let out = w.run(&["run", "exports", "-o", "a.xlsx", "--config", "linkgap.toml"]);
    let err = stderr(&out);
    assert!(
        err.contains("www") && err.contains("\"keep\", \"strip\" or \"add\""),
        "{err}"
    );

    w.write("linkgap.toml", "top_k = 0\n");
    let out = w.run(&["run", "exports", "-o", "a.xlsx", "--config", "linkgap.toml"]);
    assert!(
        stderr(&out).contains("--top-k must be between 1 and 100"),
        "{}",
        stderr(&out)
    );
}

/// `--sort-query` merges query spellings that differ only in parameter order, and the Run
/// sheet says the rule was on.
#[test]
fn sort_query_merges_parameter_orders() {
    let w = Workdir::new("sort-query");
    let v = |i: usize| {
        let mut x = vec![0.0f32; 8];
        x[i % 8] = 1.0;
        x[(i + 1) % 8] = 0.3;
        vector_text(&x)
    };
    let o = "https://www.example.com";
    let rows = vec![
        emb_row(&format!("{o}/list?a=1&b=2"), &v(0)),
        emb_row(&format!("{o}/other"), &v(1)),
        emb_row(&format!("{o}/third"), &v(2)),
    ];
    w.write_sf_csv("embeddings.csv", EMB_HEADER, &rows);
    let links = vec![link_row(
        "Hyperlink",
        &format!("{o}/other"),
        &format!("{o}/list?b=2&a=1"),
        "Content",
        "//body/main/p[1]/a",
        true,
    )];
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &links);
    let run = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "run",
            "--embeddings",
            "embeddings.csv",
            "--inlinks",
            "inlinks.csv",
            "--out",
            out,
        ];
        a.extend_from_slice(extra);
        let r = w.run(&a);
        assert!(r.status.code().is_some_and(|c| c <= 1), "{}", stderr(&r));
        records(&w.path(out), "Run")
    };
    let value = |run: &[std::collections::HashMap<String, String>], key: &str| {
        run.iter()
            .find(|r| r["Key"] == key)
            .map(|r| r["Value"].clone())
            .unwrap()
    };
    let plain = run("a.xlsx", &[]);
    assert_eq!(value(&plain, "URL rule: sort query parameters"), "no");
    let sorted = run("b.xlsx", &["--sort-query"]);
    assert_eq!(value(&sorted, "URL rule: sort query parameters"), "yes");
    let body = |out: &str| {
        records(&w.path(out), "Pages")
            .into_iter()
            .find(|r| r["URL"].contains("/list?"))
            .map(|r| r["Body Inlinks"].clone())
            .unwrap()
    };
    assert_eq!(body("a.xlsx"), "0", "another spelling: another URL");
    assert_eq!(body("b.xlsx"), "1", "one page once sorted");
}
