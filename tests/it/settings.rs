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
