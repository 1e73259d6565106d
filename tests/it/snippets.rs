//! The Screaming Frog snippets in templates/screaming-frog/: their Node test suite runs them
//! against a fake embeddings API and writes Custom JavaScript exports, which linkgap must
//! read without options, recording the model and reporting the error row.

use std::path::Path;
use std::process::Command;

use crate::util::*;

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn snippet_output_is_read_without_options() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ci = std::env::var_os("CI").is_some();
    if !node_available() {
        assert!(!ci, "CI must have Node.js for the snippet tests");
        eprintln!("skipped: Node.js is not installed");
        return;
    }
    let js = repo.join("tests/js");
    if !js.join("node_modules/linkedom").exists() {
        let npm = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&js)
            .output();
        let ok = npm.as_ref().is_ok_and(|o| o.status.success());
        assert!(
            ok || !ci,
            "npm ci --prefix tests/js failed: {:?}",
            npm.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        );
        if !ok {
            eprintln!("skipped: npm ci --prefix tests/js failed (offline?)");
            return;
        }
    }
    let w = Workdir::new("snippets");
    let out = Command::new("node")
        .arg("--test")
        .arg("tests/js/")
        .env("LINKGAP_SNIPPET_OUT_DIR", &w.dir)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "node --test tests/js/ failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let mut files: Vec<_> = std::fs::read_dir(&w.dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("custom_javascript_all.csv"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "one export per snippet: {files:?}");
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let inspect = w.run(&["inspect", &name]);
        let text = String::from_utf8_lossy(&inspect.stdout);
        assert_eq!(
            inspect.status.code(),
            Some(1),
            "the error row is rejected: {text}"
        );
        assert!(text.contains("role: embeddings"), "{text}");
        assert!(text.contains("vectors: 3 valid"), "{text}");
        assert!(text.contains(", model "), "the model tag is read: {text}");
        assert!(
            text.contains("linkgap-embed error") || text.contains("not a vector"),
            "{text}"
        );

        // A full run records the model in the Run sheet.
        let rows: Vec<Vec<String>> = Vec::new();
        w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &rows);
        let out_name = format!("{name}.xlsx");
        let run = w.run(&[
            "run",
            "--embeddings",
            &name,
            "--inlinks",
            "inlinks.csv",
            "--out",
            &out_name,
        ]);
        assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
        let sheet_rows = sheet(&w.path(&out_name), "Run");
        let model = sheet_rows
            .iter()
            .find(|r| r[0] == "Embedding model")
            .unwrap();
        assert!(!model[1].contains("not recorded"), "{model:?}");
        let rejected = records(&w.path(&out_name), "Rejected Rows");
        assert!(
            rejected
                .iter()
                .any(|r| r["Problem"].contains("linkgap-embed error")),
            "{rejected:?}"
        );
    }
}

#[test]
fn two_models_in_one_export_are_refused() {
    let w = Workdir::new("models");
    let rows = vec![
        emb_row(
            "https://a.example/1",
            "model=text-embedding-3-small;dims=3;0.1,0.2,0.3",
        ),
        emb_row(
            "https://a.example/2",
            "model=nomic-embed-text;dims=3;0.3,0.2,0.1",
        ),
    ];
    w.write_sf_csv("e.csv", EMB_HEADER, &rows);
    w.write_sf_csv("i.csv", INLINKS_HEADER, &[]);
    let out = w.run(&[
        "run",
        "--embeddings",
        "e.csv",
        "--inlinks",
        "i.csv",
        "--out",
        "r.xlsx",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("more than one model") && err.contains("nomic-embed-text"),
        "{err}"
    );
}
