//! Synthetic Screaming Frog exports for the demo in `samples/`, the tests and the benchmarks:
//! a site of topic clusters (pages of one topic have similar vectors and link to each other
//! in the body), template links on every page, and, when `messy`, the problems real exports
//! have (error cells, a wrong-length vector, redirects, a canonicalised duplicate, tracking
//! parameters, a noindex page, a thin page, a 404, nofollow and image links).

pub mod site;
pub mod vectors;

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Content pages (hubs and the home page come on top).
    pub pages: usize,
    /// Vector dimension.
    pub dim: usize,
    /// Topic clusters.
    pub topics: usize,
    /// Body links per page, within its topic.
    pub body_links: usize,
    /// Random seed.
    pub seed: u64,
    /// Add the problems of real exports.
    pub messy: bool,
    /// Site origin, e.g. `https://www.example.com`.
    pub origin: String,
    /// Also write page text (`custom_extraction_all.csv`), with a richer link graph, anchors
    /// and headings ([`site`]); off, the outputs are those of earlier versions, byte for byte.
    pub page_text: bool,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            pages: 36,
            dim: 64,
            topics: 4,
            body_links: 2,
            seed: 7,
            messy: true,
            origin: "https://www.example.com".into(),
            page_text: false,
        }
    }
}

/// Paths of the files written.
#[derive(Debug, Clone)]
pub struct Exports {
    /// Custom JavaScript export with the embedding column.
    pub embeddings: PathBuf,
    /// All Inlinks.
    pub inlinks: PathBuf,
    /// Internal: All.
    pub internal: PathBuf,
}

/// The `k`-th kind (of four, in turn) of bad vector cell real exports carry, in place of
/// the vector `cell`: the snippet's no-data message, an API error, a vector one value short,
/// an empty cell.
pub(crate) fn planted_problem(k: usize, cell: &str) -> String {
    match k % 4 {
        0 => "No data returned. Ensure you call 'return seoSpider.data(your_data)'".to_string(),
        1 => "{\n    \"error\": {\n        \"message\": \"Rate limit reached for text-embedding-3-small\",\n        \"type\": \"requests\"\n    }\n}".to_string(),
        2 => cell.rsplit_once(',').map(|(a, _)| a.to_string()).unwrap_or_default(),
        _ => String::new(),
    }
}

/// The Custom JavaScript column header Screaming Frog writes for its embeddings snippet.
pub const EMBEDDING_HEADER: &str = "(ChatGPT) Extract embeddings from page content 1";

/// The 15-column All Inlinks header of 2022–2024 exports.
pub const INLINKS_HEADER: [&str; 15] = [
    "Type",
    "Source",
    "Destination",
    "Size (Bytes)",
    "Alt Text",
    "Anchor",
    "Status Code",
    "Status",
    "Follow",
    "Target",
    "Rel",
    "Path Type",
    "Link Path",
    "Link Position",
    "Link Origin",
];

/// The 74-column Internal: All header of current exports.
pub const INTERNAL_HEADER: [&str; 74] = [
    "Address",
    "Content Type",
    "Status Code",
    "Status",
    "Indexability",
    "Indexability Status",
    "Title 1",
    "Title 1 Length",
    "Title 1 Pixel Width",
    "Meta Description 1",
    "Meta Description 1 Length",
    "Meta Description 1 Pixel Width",
    "Meta Keywords 1",
    "Meta Keywords 1 Length",
    "H1-1",
    "H1-1 Length",
    "H1-2",
    "H1-2 Length",
    "H2-1",
    "H2-1 Length",
    "H2-2",
    "H2-2 Length",
    "Meta Robots 1",
    "X-Robots-Tag 1",
    "Meta Refresh 1",
    "Canonical Link Element 1",
    "rel=\"next\" 1",
    "rel=\"prev\" 1",
    "HTTP rel=\"next\" 1",
    "HTTP rel=\"prev\" 1",
    "amphtml Link Element",
    "Size (bytes)",
    "Transferred (bytes)",
    "Total Transferred (bytes)",
    "CO2 (mg)",
    "Carbon Rating",
    "Word Count",
    "Sentence Count",
    "Average Words Per Sentence",
    "Flesch Reading Ease Score",
    "Readability",
    "Text Ratio",
    "Crawl Depth",
    "Folder Depth",
    "Link Score",
    "Inlinks",
    "Unique Inlinks",
    "Unique JS Inlinks",
    "% of Total",
    "Outlinks",
    "Unique Outlinks",
    "Unique JS Outlinks",
    "External Outlinks",
    "Unique External Outlinks",
    "Unique External JS Outlinks",
    "Closest Near Duplicate Match",
    "No. Near Duplicates",
    "Spelling Errors",
    "Grammar Errors",
    "Hash",
    "Response Time",
    "Last Modified",
    "Redirect URL",
    "Redirect Type",
    "Cookies",
    "Language",
    "HTTP Version",
    "Mobile Alternate Link",
    "Closest Semantically Similar Address",
    "Semantic Similarity Score",
    "No. Semantically Similar",
    "Semantic Relevance Score",
    "URL Encoded Address",
    "Crawl Timestamp",
];

pub use crate::rng::Rng;

/// A unit vector near `centre`, `spread` controlling how near.
pub fn vector_near(rng: &mut Rng, centre: &[f64], spread: f64) -> Vec<f32> {
    let v: Vec<f64> = centre.iter().map(|c| c + spread * rng.normal()).collect();
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| (x / norm) as f32).collect()
}

/// A float as JavaScript's `Number.prototype.toString()` writes it: plain decimals, an `e`
/// exponent below 1e-6.
pub fn js_float(x: f32, out: &mut String) {
    if x != 0.0 && x.abs() < 1e-6 {
        let _ = write!(out, "{x:e}");
    } else {
        let _ = write!(out, "{x}");
    }
}

/// A float as Java's `Float.toString()` writes it: an `E` exponent below 1e-3.
pub fn java_float(x: f32, out: &mut String) {
    if x != 0.0 && x.abs() < 1e-3 {
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.0")
        };
        let _ = write!(out, "{m}E{e}");
    } else {
        let _ = write!(out, "{x}");
    }
}

/// Quote a field the way Screaming Frog does: always, with `""` for a quote.
fn q(field: &str) -> String {
    format!("\"{}\"", field.replace('"', "\"\""))
}

fn row<W: Write>(w: &mut W, fields: &[&str]) -> io::Result<()> {
    let line: Vec<String> = fields.iter().map(|f| q(f)).collect();
    w.write_all(line.join(",").as_bytes())?;
    w.write_all(b"\n")
}

struct Page {
    url: String,
    topic: Option<usize>,
    title: String,
    words: u32,
}

const TOPIC_NAMES: &[&str] = &[
    "roses",
    "tomatoes",
    "composting",
    "lawn-care",
    "orchids",
    "herbs",
    "pruning",
    "irrigation",
];
/// A topic's name: its slug in the URLs and its breadcrumb anchor.
fn topic_name(t: usize) -> String {
    if t < TOPIC_NAMES.len() {
        TOPIC_NAMES[t].to_string()
    } else {
        format!("topic-{t}")
    }
}

/// A messy extra: (url, status, redirect, canonical, robots, words).
type Extra = (String, u16, String, String, String, u32);

/// What the stages of [`write_exports`] share.
struct Site<'a> {
    spec: &'a Spec,
    /// The origin without its trailing slash.
    o: &'a str,
    /// Topic clusters, at least one.
    topics: usize,
    /// The home page and the topic hubs: the first `hubs` pages.
    hubs: usize,
    /// Home, hubs, then the content pages.
    pages: Vec<Page>,
    /// The messy extras (none when clean).
    extras: Vec<Extra>,
}

/// Timestamp of every Internal: All row.
const STAMP: &str = "2026-11-20 09:30:00";

/// Write the three exports of a synthetic site into `dir` (four with `spec.page_text`: see
/// [`site`]).
///
/// The stages run in this order, which is also the order of their random draws: the pages
/// plan, the vectors, the messy extras, the Custom JavaScript export, Internal: All, All
/// Inlinks.
pub fn write_exports(dir: &Path, spec: &Spec) -> io::Result<Exports> {
    if spec.page_text {
        return site::write_site(dir, spec);
    }
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng::new(spec.seed);
    let o = spec.origin.trim_end_matches('/');
    let topics = spec.topics.max(1);
    let pages = plan_pages(spec, o, topics);
    let hubs = topics + 1;
    let (vectors, mean) = plan_vectors(&mut rng, spec, &pages, topics);

    let files = Exports {
        embeddings: dir.join("custom_javascript_all.csv"),
        inlinks: dir.join("all_inlinks.csv"),
        internal: dir.join("internal_all.csv"),
    };
    let extras = messy_extras(spec, o, &pages, hubs);
    let site = Site {
        spec,
        o,
        topics,
        hubs,
        pages,
        extras,
    };
    write_embeddings(&files.embeddings, &site, &vectors, &mean, &mut rng)?;
    write_internal(&files.internal, &site)?;
    write_inlinks(&files.inlinks, &site)?;
    Ok(files)
}

/// The pages plan: the home page, one hub per topic, then `spec.pages` content pages dealt
/// to the topics in turn.
fn plan_pages(spec: &Spec, o: &str, topics: usize) -> Vec<Page> {
    let mut pages = vec![Page {
        url: format!("{o}/"),
        topic: None,
        title: "Home".into(),
        words: 400,
    }];
    for t in 0..topics {
        pages.push(Page {
            url: format!("{o}/{}/", topic_name(t)),
            topic: Some(t),
            title: format!("All about {}", topic_name(t)),
            words: 300,
        });
    }
    for i in 0..spec.pages {
        let t = i % topics;
        pages.push(Page {
            url: format!("{o}/{}/guide-{}", topic_name(t), i / topics + 1),
            topic: Some(t),
            title: format!("{} guide {}", topic_name(t), i / topics + 1),
            words: 600 + (i as u32 % 7) * 90,
        });
    }
    pages
}

/// Vectors: topic centres, pages scattered around them, hubs close to their centre. Returns
/// the pages' vectors and the mean of the centres (where the home page's vector lies near).
fn plan_vectors(
    rng: &mut Rng,
    spec: &Spec,
    pages: &[Page],
    topics: usize,
) -> (Vec<Vec<f32>>, Vec<f64>) {
    let centres: Vec<Vec<f64>> = (0..topics)
        .map(|_| (0..spec.dim).map(|_| rng.normal()).collect())
        .collect();
    let mean: Vec<f64> = (0..spec.dim)
        .map(|j| centres.iter().map(|c| c[j]).sum::<f64>() / topics as f64)
        .collect();
    let vectors: Vec<Vec<f32>> = pages
        .iter()
        .map(|p| match p.topic {
            Some(t) => vector_near(
                rng,
                &centres[t],
                if p.url.ends_with('/') { 0.5 } else { 0.9 },
            ),
            None => vector_near(rng, &mean, 0.9),
        })
        .collect();
    (vectors, mean)
}

/// Messy extras (none when clean), in this order: a 301 to the first content page, its print
/// duplicate canonicalised to it, a noindex tag page, a thin contact page, a 404.
fn messy_extras(spec: &Spec, o: &str, pages: &[Page], hubs: usize) -> Vec<Extra> {
    let mut extras: Vec<Extra> = Vec::new();
    let dup_of = pages.get(hubs).map(|p| p.url.clone()).unwrap_or_default();
    if spec.messy {
        extras.push((
            format!("{o}/old-roses-page"),
            301,
            dup_of.clone(),
            String::new(),
            String::new(),
            0,
        ));
        extras.push((
            format!("{dup_of}?print=1"),
            200,
            String::new(),
            dup_of.clone(),
            String::new(),
            610,
        ));
        extras.push((
            format!("{o}/tag/misc"),
            200,
            String::new(),
            String::new(),
            "noindex, follow".into(),
            300,
        ));
        extras.push((
            format!("{o}/contact"),
            200,
            String::new(),
            String::new(),
            String::new(),
            18,
        ));
        extras.push((
            format!("{o}/missing-page"),
            404,
            String::new(),
            String::new(),
            String::new(),
            0,
        ));
    }
    extras
}

/// `v` into `cell` as the embeddings snippet writes it: comma-separated JavaScript floats.
fn js_cell(v: &[f32], cell: &mut String) {
    cell.clear();
    for (j, x) in v.iter().enumerate() {
        if j > 0 {
            cell.push(',');
        }
        js_float(*x, cell);
    }
}

/// The Custom JavaScript export: every page's vector (JavaScript and Java float formats in
/// turn, planted bad cells when messy), then, when messy, the extras: the print duplicate
/// with nearly its canonical page's vector, the tag and thin pages, the 301 and the 404
/// without one. Draws the extras' vectors from `rng`.
fn write_embeddings(
    path: &Path,
    site: &Site,
    vectors: &[Vec<f32>],
    mean: &[f64],
    rng: &mut Rng,
) -> io::Result<()> {
    let (spec, hubs, extras) = (site.spec, site.hubs, &site.extras);
    let mut w = BufWriter::new(File::create(path)?);
    w.write_all(b"\xEF\xBB\xBF")?;
    row(
        &mut w,
        &[
            "Address",
            "Content Type",
            "Status Code",
            "Status",
            EMBEDDING_HEADER,
        ],
    )?;
    let mut cell = String::new();
    for (i, (p, v)) in site.pages.iter().zip(vectors).enumerate() {
        cell.clear();
        for (j, x) in v.iter().enumerate() {
            if j > 0 {
                cell.push(',');
            }
            if i % 2 == 0 {
                js_float(*x, &mut cell);
            } else {
                java_float(*x, &mut cell);
            }
        }
        let bad = spec.messy && i >= hubs && (i - hubs) % 9 == 4;
        let value = if bad {
            planted_problem((i - hubs) / 9, &cell)
        } else {
            cell.clone()
        };
        row(
            &mut w,
            &[&p.url, "text/html; charset=utf-8", "200", "OK", &value],
        )?;
    }
    if spec.messy {
        // The print duplicate: nearly the same vector as its canonical page.
        let near = vector_near(
            rng,
            &vectors[hubs]
                .iter()
                .map(|&x| f64::from(x))
                .collect::<Vec<_>>(),
            0.002,
        );
        js_cell(&near, &mut cell);
        row(
            &mut w,
            &[&extras[1].0, "text/html; charset=utf-8", "200", "OK", &cell],
        )?;
        let tag = vector_near(rng, mean, 1.0);
        let thin = vector_near(rng, mean, 1.0);
        for (url, v) in [(&extras[2].0, tag), (&extras[3].0, thin)] {
            js_cell(&v, &mut cell);
            row(
                &mut w,
                &[url, "text/html; charset=utf-8", "200", "OK", &cell],
            )?;
        }
        row(
            &mut w,
            &[
                &extras[0].0,
                "text/html; charset=utf-8",
                "301",
                "Moved Permanently",
                "",
            ],
        )?;
        row(
            &mut w,
            &[
                &extras[4].0,
                "text/html; charset=utf-8",
                "404",
                "Not Found",
                "",
            ],
        )?;
    }
    w.flush()
}

/// Internal: All: a row per page, then one per messy extra, with status, indexability,
/// title, robots, canonical, word count and redirect filled in.
fn write_internal(path: &Path, site: &Site) -> io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    w.write_all(b"\xEF\xBB\xBF")?;
    row(&mut w, &INTERNAL_HEADER)?;
    let col = |name: &str| {
        INTERNAL_HEADER
            .iter()
            .position(|h| *h == name)
            .expect("known column")
    };
    let write_page = |w: &mut BufWriter<File>,
                      url: &str,
                      status: u16,
                      title: &str,
                      words: u32,
                      redirect: &str,
                      canonical: &str,
                      robots: &str|
     -> io::Result<()> {
        let mut cells = vec![String::new(); INTERNAL_HEADER.len()];
        let indexable = status == 200 && canonical.is_empty() && !robots.contains("noindex");
        cells[col("Address")] = url.into();
        cells[col("Content Type")] = "text/html; charset=utf-8".into();
        cells[col("Status Code")] = status.to_string();
        cells[col("Status")] = match status {
            200 => "OK",
            301 => "Moved Permanently",
            _ => "Not Found",
        }
        .into();
        cells[col("Indexability")] = if indexable {
            "Indexable"
        } else {
            "Non-Indexable"
        }
        .into();
        cells[col("Indexability Status")] = if indexable {
            String::new()
        } else if status == 301 {
            "Redirected".into()
        } else if status == 404 {
            "Client Error".into()
        } else if !canonical.is_empty() {
            "Canonicalised".into()
        } else {
            "noindex".into()
        };
        cells[col("Title 1")] = title.into();
        cells[col("Meta Robots 1")] = robots.into();
        cells[col("Canonical Link Element 1")] = if status == 200 {
            if canonical.is_empty() {
                url.into()
            } else {
                canonical.into()
            }
        } else {
            String::new()
        };
        cells[col("Word Count")] = if status == 200 {
            words.to_string()
        } else {
            "0".into()
        };
        cells[col("Redirect URL")] = redirect.into();
        cells[col("Redirect Type")] = if redirect.is_empty() {
            String::new()
        } else {
            "HTTP Redirect".into()
        };
        cells[col("URL Encoded Address")] = url.into();
        cells[col("Crawl Timestamp")] = STAMP.into();
        let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
        row(w, &refs)
    };
    for p in &site.pages {
        write_page(&mut w, &p.url, 200, &p.title, p.words, "", "", "")?;
    }
    for (url, status, redirect, canonical, robots, words) in &site.extras {
        write_page(
            &mut w, url, *status, "Extra", *words, redirect, canonical, robots,
        )?;
    }
    w.flush()
}

/// One All Inlinks row, less the columns alike in all of ours.
struct Link<'a> {
    kind: &'a str,
    src: &'a str,
    dst: &'a str,
    anchor: &'a str,
    follow: bool,
    rel: &'a str,
    path: &'a str,
    position: &'a str,
}

/// Write `l` as an All Inlinks row, its status read off the destination.
fn link<W: Write>(w: &mut W, l: &Link) -> io::Result<()> {
    let status = if l.dst.contains("missing-page") {
        ("404", "Not Found")
    } else if l.dst.contains("old-roses") || l.dst.starts_with("http://") {
        ("301", "Moved Permanently")
    } else {
        ("200", "OK")
    };
    row(
        w,
        &[
            l.kind,
            l.src,
            l.dst,
            "0",
            "",
            l.anchor,
            status.0,
            status.1,
            if l.follow { "true" } else { "false" },
            "",
            l.rel,
            "Absolute",
            l.path,
            l.position,
            "HTML",
        ],
    )
}

/// A followed hyperlink without `rel`, the most common row.
fn hyperlink<W: Write>(
    w: &mut W,
    src: &str,
    dst: &str,
    anchor: &str,
    path: &str,
    position: &str,
) -> io::Result<()> {
    link(
        w,
        &Link {
            kind: "Hyperlink",
            src,
            dst,
            anchor,
            follow: true,
            rel: "",
            path,
            position,
        },
    )
}

/// All Inlinks: per page its template links, then its topic links; then, when messy and
/// there are pages enough, the planted problem links.
fn write_inlinks(path: &Path, site: &Site) -> io::Result<()> {
    let pages = &site.pages;
    let mut w = BufWriter::new(File::create(path)?);
    w.write_all(b"\xEF\xBB\xBF")?;
    row(&mut w, &INLINKS_HEADER)?;
    let per_topic: Vec<Vec<usize>> = (0..site.topics)
        .map(|t| {
            (site.hubs..pages.len())
                .filter(|&i| pages[i].topic == Some(t))
                .collect()
        })
        .collect();
    for (i, p) in pages.iter().enumerate() {
        template_links(&mut w, site, p)?;
        topic_links(&mut w, site, &per_topic, i)?;
    }
    if site.spec.messy && pages.len() > site.hubs + 6 {
        problem_links(&mut w, site)?;
    }
    w.flush()
}

/// Template links of page `p`: header navigation to home and hubs; when messy, the footer
/// link to contact, the logo image and the stylesheet.
fn template_links<W: Write>(w: &mut W, site: &Site, p: &Page) -> io::Result<()> {
    let (o, pages) = (site.o, &site.pages);
    hyperlink(
        w,
        &p.url,
        &pages[0].url,
        "Home",
        "//body/header/nav/ul/li[1]/a",
        "Navigation",
    )?;
    for (h, hub) in pages.iter().enumerate().take(site.hubs).skip(1) {
        hyperlink(
            w,
            &p.url,
            &hub.url,
            &hub.title,
            &format!("//body/header/nav/ul/li[{}]/a", h + 1),
            "Navigation",
        )?;
    }
    if site.spec.messy {
        hyperlink(
            w,
            &p.url,
            &format!("{o}/contact"),
            "Contact",
            "//body/footer/div/a[1]",
            "Footer",
        )?;
        link(
            w,
            &Link {
                kind: "Image",
                src: &p.url,
                dst: &format!("{o}/logo.png"),
                anchor: "",
                follow: true,
                rel: "",
                path: "//body/header/a/img",
                position: "Header",
            },
        )?;
        link(
            w,
            &Link {
                kind: "CSS",
                src: &p.url,
                dst: &format!("{o}/site.css"),
                anchor: "",
                follow: true,
                rel: "",
                path: "//head/link[2]",
                position: "Head",
            },
        )?;
    }
    Ok(())
}

/// Topic links of page `i` (none from the home page): a content page's breadcrumb to its hub
/// and `spec.body_links` body links within its topic; a hub's links to its first three pages.
fn topic_links<W: Write>(
    w: &mut W,
    site: &Site,
    per_topic: &[Vec<usize>],
    i: usize,
) -> io::Result<()> {
    let pages = &site.pages;
    let p = &pages[i];
    let Some(t) = p.topic else { return Ok(()) };
    if i >= site.hubs {
        // Breadcrumb to the hub: labelled Content by Screaming Frog, a template block in fact.
        hyperlink(
            w,
            &p.url,
            &pages[1 + t].url,
            &topic_name(t),
            "//body/main/div[@class='breadcrumb']/a[2]",
            "Content",
        )?;
        let members = &per_topic[t];
        let me = members.iter().position(|&m| m == i).unwrap_or(0);
        for step in 1..=site.spec.body_links.min(members.len().saturating_sub(1)) {
            let target = members[(me + step * 3) % members.len()];
            if target == i {
                continue;
            }
            hyperlink(
                w,
                &p.url,
                &pages[target].url,
                &pages[target].title,
                &format!("//body/main/article/p[{}]/a", step + 1),
                "Content",
            )?;
        }
    } else {
        for &m in per_topic[t].iter().take(3) {
            hyperlink(
                w,
                &p.url,
                &pages[m].url,
                &pages[m].title,
                "//body/main/ul/li/a",
                "Content",
            )?;
        }
    }
    Ok(())
}

/// The planted problem links (messy, with more than six content pages): a body link through
/// an old redirecting URL and its redirect, a tracking-parameter variant, a nofollow link, a
/// link to the 404 and one to the noindex tag page.
fn problem_links<W: Write>(w: &mut W, site: &Site) -> io::Result<()> {
    let (o, pages, hubs) = (site.o, &site.pages, site.hubs);
    let (a, b, c) = (&pages[hubs].url, &pages[hubs + 1].url, &pages[hubs + 2].url);
    // A body link through an old redirecting URL, a nofollow link, tracking and http variants.
    hyperlink(
        w,
        b,
        &format!("{o}/old-roses-page"),
        "old roses",
        "//body/main/article/p[5]/a",
        "Content",
    )?;
    link(
        w,
        &Link {
            kind: "HTTP Redirect",
            src: &format!("{o}/old-roses-page"),
            dst: a,
            anchor: "",
            follow: true,
            rel: "",
            path: "",
            position: "",
        },
    )?;
    hyperlink(
        w,
        c,
        &format!("{a}?utm_source=newsletter"),
        "roses",
        "//body/main/article/p[6]/a",
        "Content",
    )?;
    link(
        w,
        &Link {
            kind: "Hyperlink",
            src: &pages[hubs + 3].url,
            dst: &pages[hubs + 5].url,
            anchor: "sponsored",
            follow: false,
            rel: "nofollow",
            path: "//body/main/article/p[7]/a",
            position: "Content",
        },
    )?;
    hyperlink(
        w,
        &pages[hubs + 4].url,
        &format!("{o}/missing-page"),
        "gone",
        "//body/main/article/p[8]/a",
        "Content",
    )?;
    hyperlink(
        w,
        &pages[hubs + 6].url,
        &format!("{o}/tag/misc"),
        "misc",
        "//body/main/article/p[9]/a",
        "Content",
    )
}
