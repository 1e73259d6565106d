//! Synthetic sites with page text (`Spec::page_text`): the four exports of a crawl whose Custom
//! Extraction holds each page's main content as HTML, so the hold-out harness
//! (`linkgap-eval`) can hide links and judge passages on a site of any size.
//!
//! The site: a home page, one hub per topic (it lists every page of the topic, by sub-topic),
//! and content pages in topics and sub-topics. Vectors follow the sub-topics. The first page of
//! each sub-topic is a series index listing its sub-topic. Every content page links in its text
//! to about `body_links` pages: mostly its own sub-topic (popular pages more often), some its
//! topic, a few other topics, and a share of those links are returned (reciprocal). Each body
//! link sits in a paragraph or list item whose words come from the destination's title and
//! vocabulary; All Inlinks has the same anchor text. Pages also carry headings, a breadcrumb, a
//! repeated promotional block and sometimes a code block. Nothing here knows how linkgap ranks.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{
    EMBEDDING_HEADER, Exports, INLINKS_HEADER, INTERNAL_HEADER, Rng, Spec, TOPIC_NAMES, js_float,
    row, vector_near,
};

/// The Custom Extraction header of a main-content extractor named "Main Content".
pub const PAGE_TEXT_HEADER: [&str; 4] = ["Address", "Status Code", "Status", "Main Content 1"];

/// Words for topic, sub-topic and filler vocabularies (pseudo-words follow when they run out).
const WORDS: &[&str] = &[
    "soil",
    "mulch",
    "seedling",
    "border",
    "trellis",
    "greenhouse",
    "frost",
    "drainage",
    "fertiliser",
    "blossom",
    "cutting",
    "root",
    "hedge",
    "shade",
    "container",
    "raised",
    "bed",
    "harvest",
    "pest",
    "aphid",
    "fungus",
    "blight",
    "leaf",
    "stem",
    "bulb",
    "perennial",
    "annual",
    "climber",
    "shrub",
    "meadow",
    "pond",
    "clay",
    "sandy",
    "loam",
    "acidic",
    "alkaline",
    "nitrogen",
    "potash",
    "watering",
    "sprinkler",
    "drip",
    "hose",
    "barrow",
    "spade",
    "shears",
    "secateurs",
    "graft",
    "layering",
    "division",
    "sowing",
    "germination",
    "propagator",
    "cloche",
    "tunnel",
    "netting",
    "slug",
    "snail",
    "beetle",
    "ladybird",
    "pollinator",
    "bee",
    "butterfly",
    "compost",
    "worm",
    "leafmould",
    "manure",
    "straw",
    "bark",
    "gravel",
    "paving",
    "path",
    "lawn",
    "moss",
    "scarifying",
    "aeration",
    "edging",
    "topdressing",
    "seed",
    "turf",
    "mowing",
    "winter",
    "spring",
    "summer",
    "autumn",
    "sunlight",
    "humidity",
    "wind",
    "rain",
    "drought",
    "variety",
    "cultivar",
    "hybrid",
    "heirloom",
    "scent",
    "colour",
    "height",
    "spacing",
    "yield",
    "flavour",
    "ripening",
    "staking",
    "pinching",
    "deadheading",
    "thinning",
    "training",
    "espalier",
    "orchard",
    "vine",
    "berry",
    "citrus",
    "pot",
    "repotting",
    "orchid",
    "basil",
    "thyme",
    "rosemary",
    "mint",
    "parsley",
    "chive",
    "lavender",
    "sage",
];

const FILLER: &[&str] = &[
    "the",
    "a",
    "and",
    "with",
    "for",
    "in",
    "your",
    "when",
    "most",
    "gardeners",
    "often",
    "after",
    "before",
    "each",
    "every",
    "this",
    "that",
    "keep",
    "use",
    "try",
    "plants",
    "garden",
    "time",
    "well",
    "good",
    "early",
    "late",
    "small",
    "large",
    "simple",
    "best",
    "common",
    "usually",
];

const CONNECTORS: &[&str] = &[
    "see",
    "read about",
    "our notes on",
    "compare",
    "learn about",
    "as explained in",
    "more on",
];

const GENERIC_ANCHORS: &[&str] = &["this guide", "read more", "here", "this article"];

/// A pronounceable word for `n`, unique per `n`.
fn pseudo(mut n: usize) -> String {
    const SYL: &[&str] = &[
        "ba", "ke", "lo", "mi", "nu", "ra", "si", "to", "ve", "zu", "da", "fe", "go", "hi", "ju",
        "pa",
    ];
    let mut w = String::new();
    loop {
        w.push_str(SYL[n % SYL.len()]);
        n /= SYL.len();
        if n == 0 {
            break;
        }
    }
    w.push('n');
    w
}

struct Vocab {
    pool: Vec<String>,
    next: usize,
}

impl Vocab {
    fn take(&mut self, k: usize) -> Vec<String> {
        (0..k)
            .map(|_| {
                let w = self
                    .pool
                    .get(self.next)
                    .cloned()
                    .unwrap_or_else(|| pseudo(1_000_000 + self.next));
                self.next += 1;
                w
            })
            .collect()
    }
}

struct SitePage {
    url: String,
    kind: Kind,
    topic: usize,
    sub: usize,
    h1: String,
    /// Title words: the destination words a link to this page uses.
    words: Vec<String>,
    status: u16,
    robots: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Home,
    Hub,
    Content,
    Tag,
    Missing,
}

struct Site {
    origin: String,
    pages: Vec<SitePage>,
    topic_words: Vec<Vec<String>>,
    sub_words: Vec<Vec<Vec<String>>>,
    /// Members of each (topic, sub), page indices.
    members: Vec<Vec<Vec<usize>>>,
    /// Editorial body links of each page (content pages only), destination indices.
    out: Vec<Vec<usize>>,
    hubs: usize,
}

fn cap(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn topic_name(t: usize) -> String {
    TOPIC_NAMES
        .get(t)
        .map_or_else(|| format!("topic-{t}"), |s| (*s).to_string())
}

fn plan(spec: &Spec) -> Site {
    let mut rng = Rng::new(spec.seed ^ 0x51_7E_7E_57);
    let o = spec.origin.trim_end_matches('/').to_string();
    let topics = spec.topics.max(1);
    let mut pool: Vec<String> = WORDS.iter().map(|w| (*w).to_string()).collect();
    for i in (1..pool.len()).rev() {
        pool.swap(i, rng.below(i + 1));
    }
    let mut vocab = Vocab { pool, next: 0 };
    let subs_per_topic = (spec.pages / topics / 12).clamp(2, 5);
    let topic_words: Vec<Vec<String>> = (0..topics).map(|_| vocab.take(6)).collect();
    let sub_words: Vec<Vec<Vec<String>>> = (0..topics)
        .map(|_| (0..subs_per_topic).map(|_| vocab.take(6)).collect())
        .collect();
    let mut pages = vec![SitePage {
        url: format!("{o}/"),
        kind: Kind::Home,
        topic: 0,
        sub: 0,
        h1: "Example Garden".into(),
        words: vec!["garden".into()],
        status: 200,
        robots: "",
    }];
    for t in 0..topics {
        let name = topic_name(t);
        pages.push(SitePage {
            url: format!("{o}/{name}/"),
            kind: Kind::Hub,
            topic: t,
            sub: 0,
            h1: format!("All about {}", name.replace('-', " ")),
            words: vec![name.replace('-', " ")],
            status: 200,
            robots: "",
        });
    }
    let hubs = pages.len();
    let mut members = vec![vec![Vec::new(); subs_per_topic]; topics];
    for i in 0..spec.pages {
        let t = i % topics;
        // Sub-topics of uneven size.
        let s = (rng.unit().powf(1.4) * subs_per_topic as f64) as usize % subs_per_topic;
        let sw = &sub_words[t][s];
        let (a, b) = (rng.below(sw.len()), rng.below(sw.len()));
        let own = pseudo(i);
        let mut words = vec![sw[a].clone()];
        if b != a {
            words.push(sw[b].clone());
        }
        words.push(own.clone());
        let h1 = format!(
            "{} {}",
            cap(&words.join(" ")),
            topic_name(t).replace('-', " ")
        );
        members[t][s].push(pages.len());
        pages.push(SitePage {
            url: format!("{o}/{}/{own}-{}", topic_name(t), i / topics + 1),
            kind: Kind::Content,
            topic: t,
            sub: s,
            h1,
            words,
            status: 200,
            robots: "",
        });
    }
    if spec.messy {
        for (url, kind, status, robots) in [
            (format!("{o}/tag/misc"), Kind::Tag, 200, "noindex, follow"),
            (format!("{o}/missing-page"), Kind::Missing, 404, ""),
        ] {
            pages.push(SitePage {
                url,
                kind,
                topic: 0,
                sub: 0,
                h1: "Miscellaneous".into(),
                words: vec!["misc".into()],
                status,
                robots,
            });
        }
    }
    let out = links(spec, &pages, &members, &mut rng);
    Site {
        origin: o,
        pages,
        topic_words,
        sub_words,
        members,
        out,
        hubs,
    }
}

/// The editorial link graph (see the module doc).
fn links(
    spec: &Spec,
    pages: &[SitePage],
    members: &[Vec<Vec<usize>>],
    rng: &mut Rng,
) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); pages.len()];
    let content: Vec<usize> = (0..pages.len())
        .filter(|&i| pages[i].kind == Kind::Content)
        .collect();
    if content.len() < 2 {
        return out;
    }
    // Popular pages get linked more: index drawn as n * u^2 over a fixed order.
    let skewed = |list: &[usize], rng: &mut Rng| {
        list[(rng.unit().powi(2) * list.len() as f64) as usize % list.len()]
    };
    for &i in &content {
        let p = &pages[i];
        let want = 1 + rng.below(2 * spec.body_links.max(1));
        let mut chosen: Vec<usize> = Vec::new();
        for _ in 0..want * 3 {
            if chosen.len() >= want {
                break;
            }
            let u = rng.unit();
            let d = if u < 0.55 {
                skewed(&members[p.topic][p.sub], rng)
            } else if u < 0.85 {
                let s = rng.below(members[p.topic].len());
                if members[p.topic][s].is_empty() {
                    continue;
                }
                skewed(&members[p.topic][s], rng)
            } else {
                content[rng.below(content.len())]
            };
            if d != i && !chosen.contains(&d) {
                chosen.push(d);
            }
        }
        out[i] = chosen;
    }
    // Reciprocal links: a quarter of links are returned.
    let mut have: HashSet<(usize, usize)> = HashSet::new();
    for (s, ds) in out.iter().enumerate() {
        for &d in ds {
            have.insert((s, d));
        }
    }
    let edges: Vec<(usize, usize)> = out
        .iter()
        .enumerate()
        .flat_map(|(s, ds)| ds.iter().map(move |&d| (s, d)))
        .collect();
    for (s, d) in edges {
        if rng.unit() < 0.25 && have.insert((d, s)) {
            out[d].push(s);
        }
    }
    if spec.messy && content.len() > 6 {
        let tag = pages.iter().position(|p| p.kind == Kind::Tag);
        let missing = pages.iter().position(|p| p.kind == Kind::Missing);
        for &i in content.iter().step_by(17) {
            out[i].extend(tag);
        }
        out[content[4]].extend(missing);
    }
    out
}

/// The anchor of the link `s` → `d`: a deterministic choice among the destination's H1, two
/// of its title words, its own word, or a generic phrase.
fn anchor(seed: u64, s: usize, d: &SitePage, di: usize) -> String {
    let mut r =
        Rng::new(seed ^ (s as u64).wrapping_mul(0x2545_F491_4F6C_DD1D) ^ ((di as u64) << 20));
    let u = r.unit();
    let w = &d.words;
    if u < 0.4 || w.len() < 2 {
        d.h1.to_lowercase()
    } else if u < 0.7 {
        w[..2].join(" ")
    } else if u < 0.9 {
        w[w.len() - 2..].join(" ")
    } else {
        GENERIC_ANCHORS[r.below(GENERIC_ANCHORS.len())].to_string()
    }
}

/// A sentence of `min + below(spread)` words from `own` vocabularies and filler words.
fn sentence(r: &mut Rng, own: &[&[String]], min: usize, spread: usize, out: &mut String) -> usize {
    let n = min + r.below(spread);
    for k in 0..n {
        if k > 0 {
            out.push(' ');
        }
        let u = r.unit();
        let w = if u < 0.35 {
            FILLER[r.below(FILLER.len())]
        } else {
            let v = own[r.below(own.len())];
            v[r.below(v.len())].as_str()
        };
        if k == 0 {
            out.push_str(&cap(w));
        } else {
            out.push_str(w);
        }
    }
    out.push('.');
    n
}

/// One link row of All Inlinks.
fn link_row<W: Write>(
    w: &mut W,
    src: &str,
    dst: &SitePage,
    anchor: &str,
    path: &str,
    position: &str,
) -> io::Result<()> {
    let (code, status) = match dst.status {
        200 => ("200", "OK"),
        _ => ("404", "Not Found"),
    };
    row(
        w,
        &[
            "Hyperlink",
            src,
            &dst.url,
            "0",
            "",
            anchor,
            code,
            status,
            "true",
            "",
            "",
            "Absolute",
            path,
            position,
            "HTML",
        ],
    )
}

struct Writers {
    inlinks: BufWriter<File>,
    text: BufWriter<File>,
    internal: BufWriter<File>,
}

/// Write one content page's text and its links; returns its word count.
fn content_page(
    site: &Site,
    i: usize,
    seed: u64,
    w: &mut Writers,
    html: &mut String,
) -> io::Result<usize> {
    let p = &site.pages[i];
    let mut r = Rng::new(seed ^ 0xC0FF_EE00 ^ (i as u64).wrapping_mul(0x9E37_79B9));
    let tw = &site.topic_words[p.topic];
    let sw = &site.sub_words[p.topic][p.sub];
    let own: [&[String]; 3] = [sw, tw, &p.words];
    let hub = &site.pages[1 + p.topic];
    let mut words = 0;
    html.clear();
    let _ = write!(
        html,
        "<div class=\"breadcrumb\"><a href=\"{}/\">Home</a> › <a href=\"{}\">{}</a></div><h1>{}</h1>",
        site.origin, hub.url, hub.h1, p.h1
    );
    let home = &site.pages[0];
    link_row(
        &mut w.inlinks,
        &p.url,
        home,
        "Home",
        "//body/main/div[@class='breadcrumb']/a[1]",
        "Content",
    )?;
    link_row(
        &mut w.inlinks,
        &p.url,
        hub,
        &hub.h1,
        "//body/main/div[@class='breadcrumb']/a[2]",
        "Content",
    )?;
    html.push_str("<p>");
    words += sentence(&mut r, &own, 12, 10, html);
    html.push(' ');
    words += sentence(&mut r, &own, 10, 10, html);
    html.push_str("</p>");
    let mut para = 1;
    let links = &site.out[i];
    let sections = 2 + r.below(2);
    let mut next = 0;
    let mut see_also = Vec::new();
    for s in 0..sections {
        html.push_str("<h2>");
        sentence(&mut r, &own, 3, 3, html);
        html.pop();
        html.push_str("</h2>");
        let share = (links.len() - next).div_ceil(sections - s);
        for _ in 0..=r.below(2) {
            html.push_str("<p>");
            words += sentence(&mut r, &own, 14, 16, html);
            html.push_str("</p>");
            para += 1;
        }
        if s == 1 && r.unit() < 0.25 {
            html.push_str("<pre><code>");
            for _ in 0..3 {
                let v = &sw[r.below(sw.len())];
                let _ = writeln!(html, "{v} = {}", r.below(100));
            }
            html.push_str("</code></pre>");
        }
        for &d in &links[next..next + share] {
            let dp = &site.pages[d];
            let a = anchor(seed, i, dp, d);
            if r.unit() < 0.15 {
                see_also.push((d, a));
                continue;
            }
            para += 1;
            let dw: Vec<String> = match dp.kind {
                Kind::Content => {
                    let mut v = dp.words.clone();
                    v.extend(site.sub_words[dp.topic][dp.sub].iter().cloned());
                    v
                }
                _ => dp.words.clone(),
            };
            html.push_str("<p>");
            words += sentence(&mut r, &own, 6, 8, html);
            let c = CONNECTORS[r.below(CONNECTORS.len())];
            let _ = write!(
                html,
                " For {} {c} <a href=\"{}\">{a}</a>. ",
                dw[r.below(dw.len())],
                dp.url
            );
            words += 4 + a.split_whitespace().count();
            words += sentence(&mut r, &[&dw, &dw, own[0]], 4, 6, html);
            html.push_str("</p>");
            link_row(
                &mut w.inlinks,
                &p.url,
                dp,
                &a,
                &format!("//body/main/article/p[{para}]/a"),
                "Content",
            )?;
        }
        next += share;
    }
    if !see_also.is_empty() {
        html.push_str("<h3>See also</h3><ul>");
        for (k, (d, a)) in see_also.iter().enumerate() {
            let dp = &site.pages[*d];
            let _ = write!(html, "<li><a href=\"{}\">{a}</a></li>", dp.url);
            words += a.split_whitespace().count();
            link_row(
                &mut w.inlinks,
                &p.url,
                dp,
                a,
                &format!("//body/main/article/ul/li[{}]/a", k + 1),
                "Content",
            )?;
        }
        html.push_str("</ul>");
    }
    // The series index: the first page of each sub-topic lists the sub-topic.
    let series = &site.members[p.topic][p.sub];
    if series.first() == Some(&i) {
        html.push_str("<h2>In this series</h2><ul>");
        for (k, &m) in series.iter().enumerate().filter(|&(_, &m)| m != i) {
            let mp = &site.pages[m];
            let _ = write!(html, "<li><a href=\"{}\">{}</a></li>", mp.url, mp.h1);
            link_row(
                &mut w.inlinks,
                &p.url,
                mp,
                &mp.h1,
                &format!("//body/main/article/ul[2]/li[{}]/a", k + 1),
                "Content",
            )?;
        }
        html.push_str("</ul>");
    }
    html.push_str(PROMO);
    Ok(words)
}

/// The repeated promotional block at the end of every page's main content.
const PROMO: &str = "<div class=\"promo\"><p>Get seasonal tips from Example Garden every month: sign up for the newsletter.</p></div>";

fn hub_page(site: &Site, i: usize, w: &mut Writers, html: &mut String) -> io::Result<usize> {
    let p = &site.pages[i];
    html.clear();
    let _ = write!(
        html,
        "<h1>{}</h1><p>Everything we know about {} in one place: guides by theme.</p>",
        p.h1, p.words[0]
    );
    let mut words = 12;
    if p.kind == Kind::Home {
        html.push_str("<ul>");
        for (k, hub) in site.pages[1..site.hubs].iter().enumerate() {
            let _ = write!(html, "<li><a href=\"{}\">{}</a></li>", hub.url, hub.h1);
            link_row(
                &mut w.inlinks,
                &p.url,
                hub,
                &hub.h1,
                &format!("//body/main/ul/li[{}]/a", k + 1),
                "Content",
            )?;
            words += 3;
        }
        html.push_str("</ul>");
    } else if p.kind == Kind::Hub {
        for (s, list) in site.members[p.topic].iter().enumerate() {
            let _ = write!(
                html,
                "<h2>{}</h2><ul>",
                cap(&site.sub_words[p.topic][s][..2].join(" and "))
            );
            for (k, &m) in list.iter().enumerate() {
                let mp = &site.pages[m];
                let _ = write!(html, "<li><a href=\"{}\">{}</a></li>", mp.url, mp.h1);
                link_row(
                    &mut w.inlinks,
                    &p.url,
                    mp,
                    &mp.h1,
                    &format!("//body/main/ul[{}]/li[{}]/a", s + 1, k + 1),
                    "Content",
                )?;
                words += mp.h1.split_whitespace().count();
            }
            html.push_str("</ul>");
        }
    } else {
        html.push_str("<p>Pages filed under miscellaneous, from every part of the garden and every season of the year, gathered here.</p>");
        words += 20;
    }
    html.push_str(PROMO);
    Ok(words.max(60))
}

fn internal_row<W: Write>(w: &mut W, p: &SitePage, words: usize) -> io::Result<()> {
    let col = |name: &str| {
        INTERNAL_HEADER
            .iter()
            .position(|h| *h == name)
            .expect("known column")
    };
    let mut cells = vec![String::new(); INTERNAL_HEADER.len()];
    let indexable = p.status == 200 && !p.robots.contains("noindex");
    cells[col("Address")].clone_from(&p.url);
    cells[col("Content Type")] = "text/html; charset=utf-8".into();
    cells[col("Status Code")] = p.status.to_string();
    cells[col("Status")] = if p.status == 200 { "OK" } else { "Not Found" }.into();
    cells[col("Indexability")] = if indexable {
        "Indexable"
    } else {
        "Non-Indexable"
    }
    .into();
    cells[col("Indexability Status")] = match (indexable, p.status) {
        (true, _) => String::new(),
        (false, 200) => "noindex".into(),
        _ => "Client Error".into(),
    };
    if p.status == 200 {
        cells[col("Title 1")] = format!("{} | Example Garden", p.h1);
        cells[col("H1-1")].clone_from(&p.h1);
        cells[col("Canonical Link Element 1")].clone_from(&p.url);
        cells[col("Word Count")] = words.to_string();
    } else {
        cells[col("Word Count")] = "0".into();
    }
    cells[col("Meta Robots 1")] = p.robots.into();
    cells[col("URL Encoded Address")].clone_from(&p.url);
    cells[col("Crawl Timestamp")] = "2026-11-20 09:30:00".into();
    let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
    row(w, &refs)
}

fn write_vectors(path: &Path, site: &Site, spec: &Spec) -> io::Result<()> {
    let mut rng = Rng::new(spec.seed);
    let topics = site.topic_words.len();
    let centres: Vec<Vec<f64>> = (0..topics)
        .map(|_| (0..spec.dim).map(|_| rng.normal()).collect())
        .collect();
    let subs: Vec<Vec<Vec<f64>>> = centres
        .iter()
        .zip(&site.sub_words)
        .map(|(c, s)| {
            s.iter()
                .map(|_| c.iter().map(|x| x + 0.6 * rng.normal()).collect())
                .collect()
        })
        .collect();
    let mean: Vec<f64> = (0..spec.dim)
        .map(|j| centres.iter().map(|c| c[j]).sum::<f64>() / topics as f64)
        .collect();
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
    let mut content = 0usize;
    for p in &site.pages {
        if p.status != 200 {
            continue;
        }
        let v = match p.kind {
            Kind::Content => vector_near(&mut rng, &subs[p.topic][p.sub], 0.8),
            Kind::Hub => vector_near(&mut rng, &centres[p.topic], 0.5),
            _ => vector_near(&mut rng, &mean, 0.9),
        };
        cell.clear();
        for (j, x) in v.iter().enumerate() {
            if j > 0 {
                cell.push(',');
            }
            js_float(*x, &mut cell);
        }
        // The demo's bad rows, four at most whatever the size: the hold-out harness measures
        // the rest.
        let bad = spec.messy && p.kind == Kind::Content && content % 9 == 4 && content / 9 < 4;
        if p.kind == Kind::Content {
            content += 1;
        }
        let value = if bad {
            super::planted_problem((content - 1) / 9, &cell)
        } else {
            cell.clone()
        };
        row(
            &mut w,
            &[&p.url, "text/html; charset=utf-8", "200", "OK", &value],
        )?;
    }
    w.flush()
}

/// Write the four exports of a site with page text into `dir` (see the module doc).
pub fn write_site(dir: &Path, spec: &Spec) -> io::Result<Exports> {
    std::fs::create_dir_all(dir)?;
    let site = plan(spec);
    let files = Exports {
        embeddings: dir.join("custom_javascript_all.csv"),
        inlinks: dir.join("all_inlinks.csv"),
        internal: dir.join("internal_all.csv"),
    };
    write_vectors(&files.embeddings, &site, spec)?;
    let open = |p: &Path, header: &[&str]| -> io::Result<BufWriter<File>> {
        let mut w = BufWriter::new(File::create(p)?);
        w.write_all(b"\xEF\xBB\xBF")?;
        row(&mut w, header)?;
        Ok(w)
    };
    let mut w = Writers {
        inlinks: open(&files.inlinks, &INLINKS_HEADER)?,
        text: open(&dir.join("custom_extraction_all.csv"), &PAGE_TEXT_HEADER)?,
        internal: open(&files.internal, &INTERNAL_HEADER)?,
    };
    let mut html = String::new();
    for (i, p) in site.pages.iter().enumerate() {
        if p.status == 200 {
            // Template: navigation to home and hubs.
            for (h, hub) in site.pages[..site.hubs].iter().enumerate() {
                link_row(
                    &mut w.inlinks,
                    &p.url,
                    hub,
                    &hub.h1,
                    &format!("//body/header/nav/ul/li[{}]/a", h + 1),
                    "Navigation",
                )?;
            }
        }
        let words = match p.kind {
            Kind::Content => content_page(&site, i, spec.seed, &mut w, &mut html)?,
            Kind::Missing => {
                html.clear();
                0
            }
            _ => hub_page(&site, i, &mut w, &mut html)?,
        };
        let (code, status) = if p.status == 200 {
            ("200", "OK")
        } else {
            ("404", "Not Found")
        };
        row(&mut w.text, &[&p.url, code, status, &html])?;
        internal_row(&mut w.internal, p, words)?;
    }
    w.inlinks.flush()?;
    w.text.flush()?;
    w.internal.flush()?;
    Ok(files)
}
