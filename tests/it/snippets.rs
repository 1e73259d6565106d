//! The Screaming Frog snippets in templates/screaming-frog/: their Node test suite runs them
//! against a fake embeddings API and writes Custom JavaScript exports, which linkgap must
//! read without options, recording the model and reporting the error row. The page-text
//! snippet's export must read as page text (not embeddings), split into blocks that keep
//! the links, alone or next to an embedding snippet's column.

use std::path::Path;
use std::process::Command;

use linkgap::input::{Table, page_text};
use linkgap::passage::{BlockKind, split};
use linkgap::report::{Report, Role};

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
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with("page-text-") && !name.starts_with("combined-")
        })
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        3,
        "one export per embedding snippet: {files:?}"
    );
    page_text_exports(&w);
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

/// The exports of tests/js/page-text.test.mjs: `page-text.js` alone (four pages, one of them
/// long enough for several cells) and next to the OpenAI snippet in the same crawl.
fn page_text_exports(w: &Workdir) {
    let alone = w.path("page-text-custom_javascript_all.csv");
    let inspect = w.run(&["inspect", "page-text-custom_javascript_all.csv"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert_eq!(inspect.status.code(), Some(0), "{text}");
    assert!(text.contains("role: page text"), "{text}");
    assert!(
        !text.contains("embeddings"),
        "not read as embeddings: {text}"
    );
    let table = Table::open(&alone).unwrap();
    assert_eq!(table.roles().unwrap(), vec![Role::PageText]);
    let header = table.header();
    assert_eq!(header.name(4), "linkgap page text 1");
    assert!(
        header.find("linkgap page text 2").is_some(),
        "a long page fills several cells"
    );
    let pages = read_pages(&table);
    assert_eq!(pages.len(), 4, "{:?}", pages.keys());

    let docs = &pages["https://docs.example.com/guide/partitioning.html"];
    assert_eq!(docs[0].kind, BlockKind::Heading(1));
    assert!(
        docs[0]
            .text
            .contains("MAIN-CONTENT-SENTINEL Table partitioning")
    );
    let lead = docs
        .iter()
        .find(|b| b.text.starts_with("Partitioning splits"))
        .unwrap();
    assert_eq!(lead.kind, BlockKind::Paragraph);
    let links: Vec<(&str, &str)> = lead
        .links
        .iter()
        .map(|l| (l.href.as_str(), lead.link_text(l)))
        .collect();
    assert_eq!(
        links,
        vec![
            (
                "https://docs.example.com/guide/indexes.html#btree",
                "the index chapter"
            ),
            (
                "https://docs.example.com/reference/create-table/",
                "CREATE TABLE"
            ),
            ("https://other.example.org/blog/", "an outside post"),
        ]
    );
    for kind in [
        BlockKind::ListItem,
        BlockKind::Term,
        BlockKind::Definition,
        BlockKind::Cell,
        BlockKind::Code,
    ] {
        assert!(docs.iter().any(|b| b.kind == kind), "a {kind} block");
    }
    for block in pages.values().flatten() {
        assert!(
            !block.text.contains("SENTINEL") || block.text.contains("MAIN-CONTENT-SENTINEL"),
            "{block:?}"
        );
    }

    // The long page came in several cells; joined again, every paragraph is one block.
    let long = &pages["https://www.example.com/guides/companion-planting-complete/"];
    let paragraphs: Vec<_> = long
        .iter()
        .filter(|b| b.text.starts_with("Paragraph "))
        .collect();
    assert_eq!(paragraphs.len(), 1000);
    for (i, p) in paragraphs.iter().enumerate() {
        assert!(p.text.ends_with(&format!("(para-{i}-end).")), "{}", p.text);
        assert_eq!(p.links.len(), 1);
        assert_eq!(p.links[0].href, format!("/p/{i}"));
    }

    // Both snippets in one crawl: the vectors are read as before, and the page text is
    // there for `--page-text` (the extractor skips the embedding column).
    let both = w.path("combined-custom_javascript_all.csv");
    let inspect = w.run(&["inspect", "combined-custom_javascript_all.csv"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert_eq!(inspect.status.code(), Some(0), "{text}");
    assert!(text.contains("role: embeddings"), "{text}");
    assert!(text.contains("vectors: 4 valid"), "{text}");
    let table = Table::open(&both).unwrap();
    let chosen = page_text::choose_extractor(table.header(), None).unwrap();
    assert_eq!(chosen.name, "linkgap page text");
    let combined = read_pages(&table);
    assert_eq!(combined.len(), 4);
    assert_eq!(
        combined, pages,
        "the same blocks as the page-text export alone"
    );
}

/// Every page of a page-text table, split into blocks.
fn read_pages(table: &Table) -> std::collections::BTreeMap<String, Vec<linkgap::passage::Block>> {
    let mut pages = std::collections::BTreeMap::new();
    let mut report = Report::new();
    let read = page_text::read(table, None, &mut report, &mut |report, stats, page| {
        report.stats(stats).used += 1;
        pages.insert(page.address.to_string(), split(page.text, page.format));
    })
    .unwrap();
    assert_eq!(read.extractor, "linkgap page text");
    assert_eq!((read.empty, read.truncated), (0, 0));
    assert!(report.rejections().is_empty(), "{:?}", report.rejections());
    pages
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
