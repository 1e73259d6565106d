//! What the crawl already knows: Search Console columns weigh the Queue, `--priority-urls`
//! reads a Search Console export, a bilingual site is compared within each language, and
//! page text is found wherever the crawl put it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::util::{Workdir, records, sf_csv, stderr};

const ORIGIN: &str = "https://www.example.com";

/// A CSV as header and rows (BOM stripped).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let mut header = rows.remove(0);
    header[0] = header[0].trim_start_matches('\u{FEFF}').to_string();
    (header, rows)
}

fn write(path: &Path, header: &[String], rows: &[Vec<String>]) {
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    std::fs::write(path, sf_csv(&h, rows)).unwrap();
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// The French copy of a URL of the site.
fn fr(url: &str) -> String {
    url.strip_prefix(ORIGIN)
        .map_or_else(|| url.to_string(), |rest| format!("{ORIGIN}/fr{rest}"))
}

fn is_fr(url: &str) -> bool {
    url.starts_with(&format!("{ORIGIN}/fr/"))
}

/// A synthetic site written into `dir`.
fn site(dir: &Path) -> linkgap::synthetic::Exports {
    let spec = linkgap::synthetic::Spec {
        messy: false,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(dir, &spec).unwrap()
}

/// A synthetic site of `pages` pages with page text (Custom Extraction), written into `dir`.
fn text_site(dir: &Path, pages: usize) -> linkgap::synthetic::Exports {
    let spec = linkgap::synthetic::Spec {
        pages,
        messy: false,
        page_text: true,
        ..linkgap::synthetic::Spec::default()
    };
    linkgap::synthetic::write_exports(dir, &spec).unwrap()
}

/// The synthetic site, every page also under /fr/ with a close vector (as a multilingual
/// model gives a translation), Language filled in Internal: All (with `languages`),
/// hreflang rows both ways (no language code in them).
fn bilingual(dir: &Path, languages: bool) {
    let files = site(dir);
    // Embeddings: a French row per row, its vector nudged.
    let (header, mut rows) = read_csv(&files.embeddings);
    let (url_col, vec_col) = (col(&header, "Address"), header.len() - 1);
    let french: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r[url_col] = fr(&r[url_col]);
            if !r[vec_col].is_empty() {
                let nudged: Vec<String> = r[vec_col]
                    .split(',')
                    .enumerate()
                    .map(|(i, x)| {
                        let v: f64 = x.trim().parse().unwrap();
                        format!("{}", v + 0.01 * ((i as f64) * 1.7).sin())
                    })
                    .collect();
                r[vec_col] = nudged.join(",");
            }
            r
        })
        .collect();
    rows.extend(french);
    write(&files.embeddings, &header, &rows);
    // Internal: All: Language, and the French rows.
    let (header, mut rows) = read_csv(&files.internal);
    let (url_col, lang_col) = (col(&header, "Address"), col(&header, "Language"));
    let canonical_col = col(&header, "Canonical Link Element 1");
    let mut french = Vec::new();
    let (en, fr_fr) = if languages { ("en", "fr-FR") } else { ("", "") };
    for r in &mut rows {
        r[lang_col] = en.into();
        let mut f = r.clone();
        f[url_col] = fr(&f[url_col]);
        f[canonical_col] = if f[canonical_col].is_empty() {
            String::new()
        } else {
            fr(&f[canonical_col])
        };
        f[lang_col] = fr_fr.into();
        french.push(f);
    }
    let html: Vec<String> = rows
        .iter()
        .filter(|r| r[col(&header, "Content Type")].starts_with("text/html"))
        .map(|r| r[url_col].clone())
        .collect();
    rows.extend(french);
    write(&files.internal, &header, &rows);
    // All Inlinks: the French site links like the English one; hreflang both ways.
    let (header, mut rows) = read_csv(&files.inlinks);
    let (s, d) = (col(&header, "Source"), col(&header, "Destination"));
    let (t, p) = (col(&header, "Type"), col(&header, "Link Position"));
    let french: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r[s] = fr(&r[s]);
            r[d] = fr(&r[d]);
            r
        })
        .collect();
    rows.extend(french);
    for url in html {
        for (a, b) in [(url.clone(), fr(&url)), (fr(&url), url.clone())] {
            let mut r = vec![String::new(); header.len()];
            r[t] = "HTML Hreflang".into();
            r[s] = a;
            r[d] = b;
            r[p] = "Head".into();
            rows.push(r);
        }
    }
    write(&files.inlinks, &header, &rows);
}

fn csv_sheet(dir: &Path, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    read_csv(&dir.join(format!("{name}.csv")))
}

fn summary(dir: &Path) -> HashMap<String, String> {
    let (_, rows) = csv_sheet(dir, "Summary");
    rows.into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

fn run_bilingual(w: &Workdir, extra: &[&str]) -> PathBuf {
    run_bilingual_with(w, true, extra)
}

fn run_bilingual_with(w: &Workdir, languages: bool, extra: &[&str]) -> PathBuf {
    bilingual(&w.path("exports"), languages);
    let mut args = vec![
        "run",
        "exports",
        "--out",
        "r.xlsx",
        "--csv-dir",
        "csv",
        "-q",
    ];
    args.extend_from_slice(extra);
    let out = w.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    w.path("csv")
}

#[test]
fn a_bilingual_site_is_compared_within_each_language() {
    let w = Workdir::new("bilingual");
    let csv = run_bilingual(&w, &[]);
    let (h, queue) = csv_sheet(&csv, "Queue");
    let (src, dst) = (col(&h, "Source URL"), col(&h, "Destination URL"));
    assert!(queue.len() > 20, "{}", queue.len());
    for r in &queue {
        assert_eq!(is_fr(&r[src]), is_fr(&r[dst]), "crosses languages: {r:?}");
    }
    let (h, opportunities) = csv_sheet(&csv, "Opportunities");
    let target = col(&h, "Target URL");
    for r in &opportunities {
        for i in 1..=5 {
            let related = &r[col(&h, &format!("Related URL {i}"))];
            assert!(!related.is_empty(), "slot {i} of {} left empty", r[target]);
            assert_eq!(is_fr(related), is_fr(&r[target]), "{r:?}");
        }
    }
    let (_, near) = csv_sheet(&csv, "Near Duplicates");
    for r in &near {
        assert_ne!(
            fr(&r[0]),
            r[1],
            "a translation reported as a near-duplicate"
        );
    }
    let (h, pages) = csv_sheet(&csv, "Pages");
    let (url, lang) = (col(&h, "URL"), col(&h, "Language"));
    let guide = pages
        .iter()
        .find(|r| r[url] == format!("{ORIGIN}/fr/roses/guide-1"))
        .expect("the French guide in Pages");
    assert_eq!(guide[lang], "fr");
    let s = summary(&csv);
    assert_eq!(s["Languages"], "2", "{s:?}");
    assert_eq!(s["    pages analysed in en"], s["    pages analysed in fr"]);
    assert!(s["Pages of different languages"].contains("only within their language"));
}

/// With no Language values and no codes in the hreflang rows, the alternates' URLs tell the
/// languages apart (`/fr/` against nothing), and no pair crosses them.
#[test]
fn a_bilingual_site_without_language_values_is_split_by_its_urls() {
    let w = Workdir::new("bilingual-urls");
    let csv = run_bilingual_with(&w, false, &[]);
    let (h, queue) = csv_sheet(&csv, "Queue");
    let (src, dst) = (col(&h, "Source URL"), col(&h, "Destination URL"));
    assert!(queue.len() > 20, "{}", queue.len());
    for r in &queue {
        assert_eq!(is_fr(&r[src]), is_fr(&r[dst]), "crosses languages: {r:?}");
    }
    let (h, pages) = csv_sheet(&csv, "Pages");
    let (url, lang) = (col(&h, "URL"), col(&h, "Language"));
    let language = |u: &str| {
        pages
            .iter()
            .find(|r| r[url] == u)
            .map_or_else(|| panic!("{u} in Pages"), |r| r[lang].clone())
    };
    assert_eq!(language(&format!("{ORIGIN}/fr/roses/guide-1")), "fr");
    assert_eq!(language(&format!("{ORIGIN}/roses/guide-1")), "unmarked");
    let s = summary(&csv);
    assert_eq!(s["Languages"], "2", "{s:?}");
    assert!(
        s["Languages from URLs"].contains("hreflang alternates"),
        "{s:?}"
    );
}

#[test]
fn across_languages_translations_are_still_never_suggested() {
    let w = Workdir::new("cross-language");
    let csv = run_bilingual(&w, &["--cross-language"]);
    let (h, queue) = csv_sheet(&csv, "Queue");
    let (src, dst) = (col(&h, "Source URL"), col(&h, "Destination URL"));
    let crossing = queue
        .iter()
        .filter(|r| is_fr(&r[src]) != is_fr(&r[dst]))
        .count();
    assert!(crossing > 0, "--cross-language lets pairs cross");
    for r in &queue {
        assert!(
            fr(&r[src]) != r[dst] && fr(&r[dst]) != r[src],
            "translations suggested: {r:?}"
        );
    }
    let (_, near) = csv_sheet(&csv, "Near Duplicates");
    for r in &near {
        assert_ne!(
            fr(&r[0]),
            r[1],
            "a translation reported as a near-duplicate"
        );
    }
    let (h, opportunities) = csv_sheet(&csv, "Opportunities");
    let target = col(&h, "Target URL");
    for r in &opportunities {
        let related = &r[col(&h, "Related URL 1")];
        assert_ne!(related, &fr(&r[target]), "its translation takes a slot");
        assert!(!r[col(&h, "Related URL 5")].is_empty());
    }
}

/// The synthetic site with Search Console columns; `clicks` per URL, the rest blank.
fn with_search_console(dir: &Path, cells: &[(&str, [&str; 4])]) {
    let files = site(dir);
    let (mut header, mut rows) = read_csv(&files.internal);
    let url_col = col(&header, "Address");
    let at = col(&header, "URL Encoded Address");
    for (i, name) in ["Clicks", "Impressions", "CTR", "Position"]
        .iter()
        .enumerate()
    {
        header.insert(at + i, (*name).to_string());
    }
    for r in &mut rows {
        let values = cells
            .iter()
            .find(|(u, _)| format!("{ORIGIN}{u}") == r[url_col])
            .map_or([""; 4], |(_, v)| *v);
        for (i, v) in values.iter().enumerate() {
            r.insert(at + i, (*v).to_string());
        }
    }
    write(&files.internal, &header, &rows);
}

#[test]
fn search_console_clicks_weigh_the_queue() {
    let w = Workdir::new("gsc");
    with_search_console(
        &w.path("exports"),
        &[
            ("/roses/guide-2", ["1,200", "40000", "0.03", "3.2"]),
            ("/roses/guide-3", ["2", "9000", "0.0002", "11.5"]),
            ("/tulips/guide-1", ["0", "15", "0", "48.0"]),
        ],
    );
    let out = w.run(&[
        "run",
        "exports",
        "--out",
        "r.xlsx",
        "--csv-dir",
        "csv",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let queue = records(&w.path("r.xlsx"), "Queue");
    let clicks_max = 1200.0_f64;
    let impressions_max = 40000.0_f64;
    let mut seen = 0;
    for r in &queue {
        let weight = match r["Destination URL"].trim_start_matches(ORIGIN) {
            "/roses/guide-2" => 1.0,
            "/roses/guide-3" => {
                let d = 2.0_f64.ln_1p() / clicks_max.ln_1p();
                let s = 9000.0_f64.ln_1p() / impressions_max.ln_1p();
                0.5 + 0.5 * d.max(s)
            }
            _ => 0.5,
        };
        let expected = (unweighted_priority(r) * weight * 10.0).round() / 10.0;
        let priority: f64 = r["Priority"].parse().unwrap();
        assert!((priority - expected).abs() <= 0.11, "{r:?}: {expected}");
        if r["Destination URL"].ends_with("/roses/guide-2") {
            assert_eq!(r["Destination Clicks"], "1200");
            assert_eq!(r["Destination Position"], "3.2");
            seen += 1;
        }
    }
    assert!(seen > 0, "the clicked page is a destination in the Queue");
    let s = summary(&w.path("csv"));
    let line = &s["Destination importance in Priority"];
    assert!(
        line.contains("Clicks") && line.contains("striking distance"),
        "{line}"
    );
}

#[test]
fn a_bad_search_console_cell_is_reported() {
    let w = Workdir::new("gsc-bad");
    with_search_console(
        &w.path("exports"),
        &[("/roses/guide-2", ["n/a", "40", "0.1", "3"])],
    );
    let out = w.run(&["run", "exports", "--out", "r.xlsx", "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejected = records(&w.path("r.xlsx"), "Rejected Rows");
    assert!(
        rejected
            .iter()
            .any(|r| r["Column"] == "Clicks" && r["Value"] == "n/a"),
        "{rejected:?}"
    );
}

#[test]
fn priority_urls_reads_a_search_console_pages_export() {
    let w = Workdir::new("gsc-pages");
    site(&w.path("exports"));
    w.write(
        "Pages.csv",
        format!(
            "Top pages,Clicks,Impressions,CTR,Position\n\"{ORIGIN}/roses/guide-2\",\"1,200\",40000,3%,3.2\n{ORIGIN}/tulips/guide-1,5,900,0.56%,12.1\n"
        ),
    );
    let out = w.run(&[
        "run",
        "exports",
        "--out",
        "r.xlsx",
        "--csv-dir",
        "csv",
        "-q",
        "--priority-urls",
        "Pages.csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s = summary(&w.path("csv"));
    assert!(
        s["Destination importance in Priority"].contains("--priority-urls (2 URLs)"),
        "{s:?}"
    );
    let queue = records(&w.path("r.xlsx"), "Queue");
    let top = queue
        .iter()
        .find(|r| r["Destination URL"].ends_with("/roses/guide-2"))
        .unwrap();
    let other = queue
        .iter()
        .find(|r| r["Destination URL"].ends_with("/roses/guide-3"))
        .unwrap();
    let ratio = |r: &HashMap<String, String>| {
        r["Priority"].parse::<f64>().unwrap() / unweighted_priority(r)
    };
    assert!((ratio(top) - 1.0).abs() < 0.02, "{}", ratio(top));
    assert!((ratio(other) - 0.5).abs() < 0.02, "{}", ratio(other));
}

/// A Queue row's Priority before importance, recomputed from its columns (docs/method.md):
/// the evidence score from Similarity and the counts the Evidence column states, no page
/// text, and how underlinked the destination is.
fn unweighted_priority(r: &HashMap<String, String>) -> f64 {
    let similarity: f64 = r["Similarity"].parse().unwrap();
    let inlinks: f64 = r["Destination Body Inlinks"].parse().unwrap();
    let evidence = &r["Evidence"];
    let count = |after: &str| -> f64 {
        evidence
            .split("; ")
            .find(|part| part.contains(after))
            .and_then(|part| part.split(' ').find_map(|w| w.parse::<f64>().ok()))
            .unwrap_or(0.0)
    };
    let via = count("the source links to link here").max(count("links here"));
    let like = count("pages like this one").max(count("page like this one"));
    let back = if evidence.contains("links back to the source page") {
        0.5
    } else {
        0.0
    };
    let score = similarity + back + 0.25 * via.ln_1p() + 0.25 * like.ln_1p();
    let underlinked = 1.0 / (1.0 + inlinks.ln_1p());
    100.0 * (1.0 - (-score).exp()) * (0.8 + 0.2 * underlinked)
}

/// linkgap's page-text snippet writes next to the embedding snippet, into the same Custom
/// JavaScript export: in a folder that one file gives the vectors and the page text.
#[test]
fn page_text_in_the_embeddings_export_is_found_in_a_folder() {
    let w = Workdir::new("combined-page-text");
    let dir = w.path("exports");
    let files = text_site(&dir, 60);
    let text_path = dir.join("custom_extraction_all.csv");
    let (th, trows) = read_csv(&text_path);
    let (ta, tc) = (col(&th, "Address"), col(&th, "Main Content 1"));
    let text: HashMap<String, String> = trows
        .iter()
        .map(|r| (r[ta].clone(), r[tc].clone()))
        .collect();
    let (mut header, mut rows) = read_csv(&files.embeddings);
    let address = col(&header, "Address");
    header.push("linkgap page text 1".into());
    for r in &mut rows {
        let t = text.get(&r[address]).cloned().unwrap_or_default();
        r.push(t);
    }
    write(&files.embeddings, &header, &rows);
    std::fs::remove_file(&text_path).unwrap();

    let out = w.run(&[
        "run",
        "exports",
        "--out",
        "r.xlsx",
        "--csv-dir",
        "csv",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (h, queue) = csv_sheet(&w.path("csv"), "Queue");
    let passage = col(&h, "Suggested Passage");
    let placed = queue.iter().filter(|r| !r[passage].is_empty()).count();
    assert!(!queue.is_empty());
    assert!(
        placed * 10 >= queue.len() * 8,
        "{placed} of {} rows have a passage",
        queue.len()
    );
    let run: HashMap<String, String> = records(&w.path("r.xlsx"), "Run")
        .into_iter()
        .map(|r| (r["Key"].clone(), r["Value"].clone()))
        .collect();
    let inputs: Vec<&String> = run
        .values()
        .filter(|v| v.contains("custom_javascript_all.csv"))
        .collect();
    assert!(
        inputs.len() >= 2,
        "embeddings and page text from one file: {run:?}"
    );
}

/// The Summary's reading advice follows what the run gives: with page text the reviewer
/// checks a suggested passage; without it, finds one.
#[test]
fn the_summary_says_whether_the_passage_is_suggested_or_to_be_found() {
    let w = Workdir::new("how-to-read");
    text_site(&w.path("exports"), 60);
    let advice = |out: &str| {
        let done = w.run(&["run", "exports", "--out", out, "-q"]);
        assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        records(&w.path(out), "Summary")
            .into_iter()
            .find(|r| r["Item"] == "How to read this")
            .map(|r| r["Value"].clone())
            .expect("the Summary's reading advice")
    };
    let with_text = advice("with.xlsx");
    assert!(
        with_text.contains("check the suggested passage"),
        "{with_text}"
    );
    std::fs::remove_file(w.path("exports/custom_extraction_all.csv")).unwrap();
    let without = advice("without.xlsx");
    assert!(without.contains("to find the passage"), "{without}");
    assert!(
        with_text.contains("not a promise of rankings")
            && without.contains("not a promise of rankings")
    );
}

/// On a site larger than `--text-stats-pages`, the statistics come from a fixed sample of the
/// pages: the Summary says so, every page-text row is still used (scored in the second
/// pass), and the passages are still found.
#[test]
fn page_text_statistics_from_a_sample_of_a_large_site() {
    let w = Workdir::new("text-stats-sample");
    text_site(&w.path("exports"), 300);
    let run_sheet = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", "exports", "--out", out, "-q"];
        args.extend_from_slice(extra);
        let done = w.run(&args);
        assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        let run: HashMap<String, String> = records(&w.path(out), "Run")
            .into_iter()
            .map(|r| (r["Key"].clone(), r["Value"].clone()))
            .collect();
        run
    };
    let every = run_sheet("every.xlsx", &[]);
    let sampled = run_sheet("sampled.xlsx", &["--text-stats-pages", "60"]);
    assert!(
        every["Suggested passages"].contains("statistics from every page"),
        "{every:?}"
    );
    let sentence = &sampled["Suggested passages"];
    let n: usize = sentence
        .split("from a fixed sample of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no sample size in {sentence:?}"));
    // Binomial(300, 0.2): sd ~7; 30–95 is over four sd either side.
    assert!((30..=95).contains(&n), "{sentence}");
    let rows = |run: &HashMap<String, String>| {
        run.iter()
            .find(|(k, _)| k.starts_with("Rows: custom_extraction_all.csv"))
            .map(|(_, v)| v.clone())
            .expect("the page text's row accounting")
    };
    assert_eq!(rows(&every), rows(&sampled), "every row is used either way");
    let placed = |run: &HashMap<String, String>| -> (usize, usize) {
        let s = &run["Suggested passages"];
        let mut words = s.split(' ');
        let found = words.next().unwrap().parse().unwrap();
        let of = words.nth(1).unwrap().parse().unwrap();
        (found, of)
    };
    let (found, of) = placed(&sampled);
    assert!(of > 0 && found * 10 >= of * 9, "{sentence}");
    // The sample's statistics place about as many rows as every page's.
    let (all_found, all_of) = placed(&every);
    assert!(
        found.abs_diff(all_found) * 20 <= all_of && of.abs_diff(all_of) * 20 <= all_of,
        "{sentence} / {}",
        every["Suggested passages"]
    );
}

/// The href a test writes on a source page for a link to a page, with the word it links.
type WrittenLink<'a> = dyn Fn(&str, &str) -> (String, &'static str) + 'a;

/// A block that already links to the destination is no place for the link, however the
/// href is written: absolute, root-relative, or relative to the source page (a file in its
/// folder, or up a folder with `../`). Four Queue rows of a first run each get, at the
/// start of their passage in the source's page text, a link to their destination in one of
/// those forms; the second run places none of them in that block. A fifth row's passage
/// gets a link to another page (the home page), and stays its place: it is the link to the
/// destination that rules a block out, not a link.
#[test]
fn a_block_that_links_to_the_destination_in_any_written_form_is_no_place() {
    let w = Workdir::new("linked-passage");
    text_site(&w.path("exports"), 80);
    let queue = |csv: &str| {
        let done = w.run(&["run", "exports", "--out", "r.xlsx", "--csv-dir", csv, "-q"]);
        assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        csv_sheet(&w.path(csv), "Queue")
    };
    let (h, rows) = queue("before");
    let (source, destination, passage) = (
        col(&h, "Source URL"),
        col(&h, "Destination URL"),
        col(&h, "Suggested Passage"),
    );
    let text_path = w.path("exports").join("custom_extraction_all.csv");
    let (th, mut trows) = read_csv(&text_path);
    let (ta, tc) = (col(&th, "Address"), col(&th, "Main Content 1"));
    let home = format!("{ORIGIN}/");
    let path_of = |to: &str| to.strip_prefix(ORIGIN).unwrap().to_string();
    // The href written on `from` for each row, and the word it links: the destination in
    // each form, then the control's link to the home page.
    let hrefs: [&WrittenLink<'_>; 5] = [
        &|_, to| (to.to_string(), "zqxlinked"),
        &|_, to| (path_of(to), "zqxlinked"),
        &|from, to| {
            let (dir, _) = from.rsplit_once('/').unwrap();
            let name = to.strip_prefix(&format!("{dir}/")).unwrap_or_default();
            // A page of another folder has no same-folder form: `../` then.
            if name.is_empty() {
                (format!("..{}", path_of(to)), "zqxlinked")
            } else {
                (name.to_string(), "zqxlinked")
            }
        },
        &|_, to| (format!("..{}", path_of(to)), "zqxlinked"),
        &|_, _| (home.clone(), "zqxother"),
    ];
    let mut edited = Vec::new();
    let mut used_sources = std::collections::HashSet::new();
    for r in &rows {
        if edited.len() == hrefs.len() {
            break;
        }
        let (from, to) = (&r[source], &r[destination]);
        // The passage's first words, written as they are in the HTML (no tag among them).
        let head: String = r[passage].chars().take(24).collect();
        if head.chars().count() < 24 || to == &home || !used_sources.insert(from.clone()) {
            continue;
        }
        let Some(page) = trows.iter_mut().find(|t| &t[ta] == from) else {
            continue;
        };
        let Some(at) = page[tc].find(&head) else {
            continue;
        };
        let (href, word) = hrefs[edited.len()](from, to);
        page[tc].insert_str(at, &format!("<a href=\"{href}\">{word}</a> "));
        edited.push((from.clone(), to.clone(), href, word));
    }
    assert_eq!(
        edited.len(),
        hrefs.len(),
        "five rows with a passage to edit"
    );
    write(&text_path, &th, &trows);
    let (h, rows) = queue("after");
    let (source, destination, passage) = (
        col(&h, "Source URL"),
        col(&h, "Destination URL"),
        col(&h, "Suggested Passage"),
    );
    for (from, to, href, word) in &edited {
        let pair: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| &r[source] == from && &r[destination] == to)
            .collect();
        assert_eq!(pair.len(), 1, "{from} → {to} is still proposed");
        let shown = &pair[0][passage];
        if *word == "zqxlinked" {
            assert!(
                !shown.contains(word),
                "{from} → {to}: the block linking it as {href} was suggested: {shown}"
            );
        } else {
            assert!(
                shown.contains(word),
                "{from} → {to}: a link to {href} ruled its block out: {shown}"
            );
        }
    }
}
