//! One page, one identity: redirects (chains, loops), canonicals (to redirects, to
//! themselves), URL variants, nofollow, repeated template blocks and eligibility rules.

use std::collections::HashMap;

use crate::util::*;

const O: &str = "https://www.example.org";

fn u(p: &str) -> String {
    format!("{O}{p}")
}

const INTERNAL: &[&str] = &[
    "Address",
    "Content Type",
    "Status Code",
    "Status",
    "Indexability",
    "Indexability Status",
    "Meta Robots 1",
    "Canonical Link Element 1",
    "Word Count",
    "Redirect URL",
];

/// (path, status, indexability status, robots, canonical, words, redirect)
fn internal_row(
    path: &str,
    status: u16,
    idx_status: &str,
    robots: &str,
    canonical: &str,
    words: u32,
    redirect: &str,
) -> Vec<String> {
    let indexable = status == 200 && idx_status.is_empty();
    vec![
        u(path),
        "text/html; charset=UTF-8".into(),
        status.to_string(),
        if status == 200 {
            "OK".into()
        } else {
            "Moved Permanently".into()
        },
        if indexable {
            "Indexable".into()
        } else {
            "Non-Indexable".into()
        },
        idx_status.into(),
        robots.into(),
        if canonical.is_empty() {
            String::new()
        } else {
            u(canonical)
        },
        words.to_string(),
        if redirect.is_empty() {
            String::new()
        } else {
            u(redirect)
        },
    ]
}

fn vec_for(i: usize) -> String {
    // Distinct directions, none a near-duplicate of another, except where a test wants one.
    let mut v = vec![0.05f32; 8];
    v[i % 8] = 1.0;
    v[(i + 1) % 8] = 0.6;
    vector_text(&v)
}

fn site(w: &Workdir) {
    let internal = vec![
        internal_row("/a", 200, "", "", "/a", 500, ""), // self-canonical
        internal_row("/b", 200, "", "", "", 500, ""),
        internal_row("/c", 200, "", "", "", 500, ""),
        internal_row("/old-a", 301, "Redirected", "", "", 0, "/older-a"), // chain: old-a → older-a → a
        internal_row("/older-a", 301, "Redirected", "", "", 0, "/a"),
        internal_row("/loop1", 301, "Redirected", "", "", 0, "/loop2"),
        internal_row("/loop2", 301, "Redirected", "", "", 0, "/loop1"),
        internal_row("/b-print", 200, "Canonicalised", "", "/b-moved", 500, ""), // canonical to a redirect
        internal_row("/b-moved", 301, "Redirected", "", "", 0, "/b"),
        internal_row("/noindex", 200, "noindex", "noindex, follow", "", 500, ""),
        internal_row("/thin", 200, "", "", "", 10, ""),
        internal_row("/gone", 404, "Client Error", "", "", 0, ""),
        internal_row("/d", 200, "", "", "", 500, ""),
        internal_row("/blog/x", 200, "", "", "", 500, ""),
    ];
    w.write_sf_csv("internal.csv", INTERNAL, &internal);
    let mut emb = vec![];
    for (i, p) in ["/a", "/b", "/c", "/noindex", "/thin", "/d", "/blog/x"]
        .iter()
        .enumerate()
    {
        emb.push(emb_row(&u(p), &vec_for(i)));
    }
    // Variants of /a and /b with their own vectors: the canonical page's own vector must win.
    emb.push(emb_row(&u("/old-a"), &vec_for(20)));
    emb.push(emb_row(&u("/b-print"), &vec_for(1)));
    emb.push(emb_row(&u("/loop1"), &vec_for(30)));
    emb.push(emb_row("HTTPS://WWW.EXAMPLE.ORG:443/c#top", &vec_for(2)));
    w.write_sf_csv("emb.csv", EMB_HEADER, &emb);

    let mut links = vec![
        // /c links to /a only through the redirect chain: "Link via redirect".
        link_row(
            "Hyperlink",
            &u("/c"),
            &u("/old-a"),
            "Content",
            "//body/main/p[1]/a",
            true,
        ),
        // /d links to /b through the canonicalised print URL: a canonicalised duplicate is the page.
        link_row(
            "Hyperlink",
            &u("/d"),
            &u("/b-print"),
            "Content",
            "//body/main/p[1]/a",
            true,
        ),
        // nofollow body link /a → /c.
        link_row(
            "Hyperlink",
            &u("/a"),
            &u("/c"),
            "Content",
            "//body/main/p[1]/a",
            false,
        ),
        // A link into a loop is no link.
        link_row(
            "Hyperlink",
            &u("/b"),
            &u("/loop1"),
            "Content",
            "//body/main/p[2]/a",
            true,
        ),
    ];
    // A "related posts" block labelled Content, repeated on every page, pointing at /blog/x.
    for p in ["/a", "/b", "/c", "/d", "/noindex", "/thin"] {
        links.push(link_row(
            "Hyperlink",
            &u(p),
            &u("/blog/x"),
            "Content",
            "//body/aside[@class='related']/ul/li[1]/a",
            true,
        ));
    }
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &links);
}

fn run(w: &Workdir, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec![
        "run",
        "--embeddings",
        "emb.csv",
        "--inlinks",
        "inlinks.csv",
        "--internal",
        "internal.csv",
        "--out",
        "r.xlsx",
        "-k",
        "8",
        "--template-min-pages",
        "3",
    ];
    args.extend_from_slice(extra);
    let out = w.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    w.path("r.xlsx")
}

fn status(report: &std::path::Path, target: &str, related: &str) -> Option<String> {
    let rows = records(report, "Opportunities");
    let row = rows.iter().find(|r| r["Target URL"] == u(target))?;
    (1..=8)
        .find(|i| {
            row.get(&format!("Related URL {i}"))
                .is_some_and(|r| *r == u(related))
        })
        .map(|i| row[&format!("Link Status {i}")].clone())
}

#[test]
fn redirects_canonicals_and_variants_resolve_to_one_page() {
    let w = Workdir::new("identity");
    site(&w);
    let report = run(&w, &[]);
    let pages: HashMap<String, HashMap<String, String>> = records(&report, "Pages")
        .into_iter()
        .map(|r| (r["URL"].clone(), r))
        .collect();
    assert_eq!(
        pages[&u("/old-a")]["Reason"],
        format!("redirects to {}", u("/a")),
        "chain followed to its end"
    );
    assert_eq!(pages[&u("/loop1")]["Reason"], "redirect or canonical loop");
    assert_eq!(
        pages[&u("/b-print")]["Reason"],
        format!("canonicalised to {}", u("/b")),
        "canonical to a redirect ends at the final page"
    );
    assert_eq!(
        pages[&u("/a")]["Eligible"],
        "yes",
        "a self-canonical page is itself"
    );
    assert_eq!(pages[&u("/noindex")]["Destination Eligible"], "no");
    assert_eq!(
        pages[&u("/noindex")]["Source Eligible"],
        "no",
        "noindex pages carry no new links by default (--noindex-sources allows it)"
    );
    assert!(
        pages[&u("/thin")]["Reason"].starts_with("thin: 10 words"),
        "{:?}",
        pages[&u("/thin")]
    );
    assert_eq!(pages[&u("/gone")]["Reason"], "status 404");
    assert!(
        pages["HTTPS://WWW.EXAMPLE.ORG:443/c#top"]["Reason"].starts_with("same page as row"),
        "variant collision reported"
    );

    // No variant ever appears as a target or a neighbour.
    for row in records(&report, "Opportunities") {
        for (k, v) in &row {
            if k.starts_with("Related URL") || k == "Target URL" {
                for bad in [
                    "/old-a",
                    "/older-a",
                    "/loop",
                    "/b-print",
                    "/b-moved",
                    "EXAMPLE.ORG",
                    "/gone",
                    "/thin",
                ] {
                    assert!(!v.contains(bad), "{k} = {v}");
                }
            }
        }
    }
    // The canonical page's own vector wins: /a's nearest neighbour is /b (vectors 0 and 1 are
    // adjacent), not the direction of /old-a's vector.
    assert_eq!(
        status(&report, "/a", "/c").as_deref(),
        Some("Link via redirect"),
        "/c → /old-a → /older-a → /a"
    );
    assert_eq!(
        status(&report, "/b", "/d").as_deref(),
        Some("Body link"),
        "a link to the canonicalised duplicate is a link to the page"
    );
    assert_eq!(
        status(&report, "/c", "/a").as_deref(),
        Some("Body link (nofollow)")
    );
    assert_eq!(
        status(&report, "/blog/x", "/a").as_deref(),
        Some("Template link only"),
        "repeated related-posts block"
    );
    assert!(
        status(&report, "/a", "/noindex").is_none(),
        "noindex page is no source by default"
    );
    assert!(
        status(&report, "/noindex", "/a").is_none(),
        "noindex page is not a target"
    );
    let run: HashMap<String, String> = sheet(&report, "Run")
        .into_iter()
        .skip(1)
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert!(
        run["Template blocks"].contains("6 links in 1 blocks reclassified"),
        "{}",
        run["Template blocks"]
    );
    let emb_rows = &run["Rows: emb.csv (embeddings)"];
    assert!(
        emb_rows.starts_with("read 11, used 7, skipped 4"),
        "{emb_rows}"
    );
}

#[test]
fn eligibility_options_apply_per_role() {
    let w = Workdir::new("eligibility");
    site(&w);
    w.write("dests.txt", format!("{}\n{}\n", u("/a"), u("/blog/x")));
    let report = run(
        &w,
        &[
            "--exclude-source",
            "/blog/",
            "--destination-list",
            "dests.txt",
            "--min-words",
            "0",
        ],
    );
    let pages: HashMap<String, HashMap<String, String>> = records(&report, "Pages")
        .into_iter()
        .map(|r| (r["URL"].clone(), r))
        .collect();
    assert_eq!(
        pages[&u("/blog/x")]["Source Reason"],
        "matched by --exclude-source"
    );
    assert_eq!(pages[&u("/blog/x")]["Destination Eligible"], "yes");
    assert_eq!(
        pages[&u("/c")]["Destination Reason"],
        "not in the destination URL list"
    );
    assert_eq!(
        pages[&u("/thin")]["Source Eligible"],
        "yes",
        "--min-words 0 turns the thin rule off"
    );
    let targets: Vec<String> = records(&report, "Opportunities")
        .into_iter()
        .map(|r| r["Target URL"].clone())
        .collect();
    assert_eq!(targets, vec![u("/a"), u("/blog/x")]);
    let run = sheet(&report, "Run");
    assert!(
        run.iter()
            .any(|r| r[0] == "Eligibility: source exclude regex" && r[1] == "/blog/"),
        "rules in force are recorded"
    );
}

#[test]
fn near_duplicates_are_flagged_not_suggested() {
    let w = Workdir::new("neardup");
    let mut v = vec![0.1f32; 8];
    v[0] = 1.0;
    let mut twin = v.clone();
    twin[1] = 0.12;
    let mut other = vec![0.1f32; 8];
    other[3] = 1.0;
    w.write_sf_csv(
        "emb.csv",
        EMB_HEADER,
        &[
            emb_row(&u("/x"), &vector_text(&v)),
            emb_row(&u("/x-copy"), &vector_text(&twin)),
            emb_row(&u("/y"), &vector_text(&other)),
        ],
    );
    w.write_sf_csv("inlinks.csv", INLINKS_HEADER, &[]);
    let out = w.run(&[
        "run",
        "--embeddings",
        "emb.csv",
        "--inlinks",
        "inlinks.csv",
        "--out",
        "r.xlsx",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = w.path("r.xlsx");
    assert_eq!(
        status(&report, "/x", "/x-copy").as_deref(),
        Some("Near duplicate")
    );
    let near = records(&report, "Near Duplicates");
    assert_eq!(near.len(), 1);
    assert_eq!(
        (near[0]["URL A"].as_str(), near[0]["URL B"].as_str()),
        (u("/x").as_str(), u("/x-copy").as_str())
    );
    let queue = records(&report, "Queue");
    assert!(
        queue
            .iter()
            .all(|r| !(r["Source URL"].contains("/x") && r["Destination URL"].contains("/x"))),
        "{queue:?}"
    );
}

#[test]
fn groups_keep_suggestions_within_a_page_type() {
    let w = Workdir::new("groups");
    site(&w);
    let report = run(&w, &["--group-by", "folder:1", "--min-words", "0"]);
    let pages: HashMap<String, HashMap<String, String>> = records(&report, "Pages")
        .into_iter()
        .map(|r| (r["URL"].clone(), r))
        .collect();
    assert_eq!(pages[&u("/blog/x")]["Group"], "/blog/");
    assert_eq!(pages[&u("/a")]["Group"], "/");
    for row in records(&report, "Opportunities") {
        let in_blog = row["Target URL"].contains("/blog/");
        for i in 1..=8 {
            let related = &row[&format!("Related URL {i}")];
            if !related.is_empty() {
                assert_eq!(
                    related.contains("/blog/"),
                    in_blog,
                    "{} ← {related}",
                    row["Target URL"]
                );
            }
        }
    }
    let blog = records(&report, "Opportunities")
        .into_iter()
        .find(|r| r["Target URL"] == u("/blog/x"))
        .unwrap();
    assert_eq!(
        blog["Related URL 1"], "",
        "the only /blog/ page has no same-group neighbour"
    );
    let all = run(
        &w,
        &[
            "--group-by",
            "folder:1",
            "--group-scope",
            "all",
            "--min-words",
            "0",
        ],
    );
    let blog = records(&all, "Opportunities")
        .into_iter()
        .find(|r| r["Target URL"] == u("/blog/x"))
        .unwrap();
    assert_ne!(
        blog["Related URL 1"], "",
        "scope all compares across groups"
    );
}
