//! Property tests: URL normalization is idempotent and total; the readers survive any bytes
//! (truncation, random bytes, stray quotes, huge cells) without panicking, and account for
//! every row they read; any page text, however broken its HTML, gets a passage inside the
//! page and an anchor inside the passage that no existing link already covers, or a reason.

use proptest::prelude::*;

use linkgap::input::page_text::{self, TextFormat};
use linkgap::input::{Table, embeddings, inlinks, internal};
use linkgap::normalize::{Rules, SlashPolicy, WwwPolicy, normalize};
use linkgap::passage::text::words;
use linkgap::passage::{FLOOR, NoPlace, StatsBuilder, Target, TemplateRules, split, suggest};
use linkgap::report::Report;

use crate::util::*;

fn rules() -> impl Strategy<Value = Rules> {
    (0..3u8, 0..3u8, any::<bool>(), any::<bool>()).prop_map(
        |(slash, www, strip_index, sort_query)| Rules {
            trailing_slash: [SlashPolicy::Keep, SlashPolicy::Strip, SlashPolicy::Add]
                [slash as usize],
            www: [WwwPolicy::Keep, WwwPolicy::Strip, WwwPolicy::Add][www as usize],
            strip_index,
            sort_query,
            ..Rules::default()
        },
    )
}

fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("http://"),
        Just("https://"),
        Just("HTTPS://"),
        Just(""),
        Just("mailto:")
    ];
    let host = prop_oneof![
        Just("Example.COM"),
        Just("www.example.com"),
        Just("example.com."),
        Just("[::1]"),
        Just("127.0.0.1:8080"),
        Just("xn--bcher-kva.example"),
        Just("bücher.example")
    ];
    let path = proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("%7e"),
            Just("%2F"),
            Just("%zz"),
            Just(".."),
            Just("."),
            Just("index.html"),
            Just("é"),
            Just(" "),
            Just(""),
            Just("%41")
        ],
        0..5,
    );
    let query = proptest::collection::vec(
        prop_oneof![
            Just("utm_source=x"),
            Just("b=2"),
            Just("a=1"),
            Just("gclid=9"),
            Just(""),
            Just("x"),
            Just("=y"),
            // Names written with escapes: filtered and sorted as decoded.
            Just("utm%5Fmedium=z"),
            Just("%7A=3"),
            Just("%61=0")
        ],
        0..4,
    );
    (
        scheme,
        host,
        path,
        query,
        proptest::option::of("[a-z#?/]{0,6}"),
    )
        .prop_map(|(s, h, p, q, frag)| {
            let mut u = format!("{s}{h}/{}", p.join("/"));
            if !q.is_empty() {
                u.push('?');
                u.push_str(&q.join("&"));
            }
            if let Some(f) = frag {
                u.push('#');
                u.push_str(&f);
            }
            u
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn normalization_is_idempotent(url in url_like(), rules in rules()) {
        if let Ok(once) = normalize(&url, &rules) {
            let twice = normalize(&once, &rules);
            prop_assert_eq!(twice.as_ref(), Ok(&once), "{} -> {}", url, once);
        }
    }

    #[test]
    fn normalization_never_panics(s in "\\PC*", rules in rules()) {
        let _ = normalize(&s, &rules);
    }
}

/// A valid small export of each role, to mutate.
fn seeds() -> Vec<Vec<u8>> {
    let emb = sf_csv(
        EMB_HEADER,
        &[
            emb_row("https://a.example/x", "0.1,0.2,0.3"),
            emb_row("https://a.example/y", "0.3,-2.5E-4,1e-7"),
        ],
    );
    let inl = sf_csv(
        INLINKS_HEADER,
        &[link_row(
            "Hyperlink",
            "https://a.example/x",
            "https://a.example/y",
            "Content",
            "//a",
            true,
        )],
    );
    let int = sf_csv(
        &[
            "Address",
            "Content Type",
            "Status Code",
            "Indexability",
            "Word Count",
            "Canonical Link Element 1",
        ],
        &[vec![
            "https://a.example/x".into(),
            "text/html".into(),
            "200".into(),
            "Indexable".into(),
            "12".into(),
            "https://a.example/x".into(),
        ]],
    );
    // A Custom Extraction export: inner HTML with quotes, newlines and a second match
    // column, and a plain-text cell, so mutations reach the page text reader's rows.
    let text = sf_csv(
        &[
            "Address",
            "Status Code",
            "Status",
            "Main Content 1",
            "Main Content 2",
        ],
        &[
            vec![
                "https://a.example/x".into(),
                "200".into(),
                "OK".into(),
                "<p>See the <a href=\"/y\">install guide</a>\nfirst.</p><ul><li>one<li>two</ul>"
                    .into(),
                "<table><tr><td>GIN &amp; index</td></tr></table>".into(),
            ],
            vec![
                "https://a.example/y".into(),
                "200".into(),
                "OK".into(),
                "The replication guide.\n\nA second paragraph.".into(),
                String::new(),
            ],
        ],
    );
    vec![emb, inl, int, text]
}

/// The page-text seed is read as page text, row by row (else its mutations would test
/// only the header check).
#[test]
fn the_page_text_seed_reaches_the_row_visitor() {
    let w = Workdir::new("seed");
    let path = w.dir.join("custom_extraction_all.csv");
    std::fs::write(&path, &seeds()[3]).unwrap();
    let table = Table::open(&path).unwrap();
    let mut report = Report::new();
    let mut pages = Vec::new();
    page_text::read(&table, None, &mut report, &mut |_, _, page| {
        pages.push((
            page.address.to_string(),
            split(page.text, page.format).len(),
        ));
    })
    .unwrap();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages.iter().all(|(_, blocks)| *blocks >= 2), "{pages:?}");
}

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    Byte(usize, u8),
    Insert(usize, Vec<u8>),
    HugeCell(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        (
            any::<usize>(),
            prop_oneof![
                Just(b"\"".to_vec()),
                Just(b"\n".to_vec()),
                Just(b",".to_vec()),
                Just(b"\r".to_vec()),
                Just(vec![0xFF, 0xFE]),
                Just(b"\xEF\xBB\xBF".to_vec()),
                proptest::collection::vec(any::<u8>(), 0..16)
            ]
        )
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::HugeCell),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Truncate(i) => bytes.truncate(i % len),
            Mutation::Byte(i, b) => {
                if !bytes.is_empty() {
                    let i = i % bytes.len();
                    bytes[i] = *b;
                }
            }
            Mutation::Insert(i, b) => {
                let i = i % (bytes.len() + 1);
                bytes.splice(i..i, b.iter().copied());
            }
            Mutation::HugeCell(i) => {
                let i = i % (bytes.len() + 1);
                let huge = "9,".repeat(40_000);
                bytes.splice(i..i, huge.bytes());
            }
        }
    }
    bytes
}

/// Read `bytes` in every role; the counts must add up whatever happens.
fn read_all_roles(dir: &std::path::Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let Ok(table) = Table::open(&path) else {
        return;
    };
    let _ = table.roles();
    let mut report = Report::new();
    let _ = embeddings::read(&table, None, &mut report);
    let _ = inlinks::read(&table, &mut report, &mut |report, stats, _| {
        report.stats(stats).used += 1;
    });
    let _ = internal::read(&table, &mut report);
    let _ = page_text::read(&table, None, &mut report, &mut |report, stats, page| {
        report.stats(stats).used += 1;
        let _ = split(page.text, page.format);
    });
    for s in report.files() {
        // The internal and embeddings readers leave "used" to the pipeline, so only the
        // All Inlinks reader's books can be checked exactly here.
        assert!(s.skipped_total() + s.rejected <= s.read + 1, "{s:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn readers_survive_mutated_exports(seed in 0..4usize, mutations in proptest::collection::vec(mutation(), 1..4)) {
        let w = Workdir::new("fuzz");
        let bytes = apply(seeds()[seed].clone(), &mutations);
        read_all_roles(&w.dir, "mutated.csv", &bytes);
    }

    #[test]
    fn readers_survive_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let w = Workdir::new("random");
        read_all_roles(&w.dir, "random.csv", &bytes);
        // The same bytes behind an XLSX or gzip signature must fail cleanly too.
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend_from_slice(&bytes);
        read_all_roles(&w.dir, "random.xlsx", &zip);
        let mut gz = vec![0x1F, 0x8B];
        gz.extend_from_slice(&bytes);
        read_all_roles(&w.dir, "random.csv.gz", &gz);
    }
}

/// Words the pages, titles and anchors share, so that a place is often found.
const VOCABULARY: [&str; 8] = [
    "guide",
    "install",
    "the",
    "GIN",
    "index",
    "replication",
    "caf\u{e9}",
    "\u{65e5}\u{672c}",
];

fn phrase(words: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::sample::select(VOCABULARY.to_vec()), words)
        .prop_map(|w| w.join(" "))
}

/// Pieces of page text: tags that open and close blocks and links (unbalanced as often as
/// not), character references, comments, scripts, and text in several scripts.
fn html_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => phrase(1..4).prop_map(|p| format!(" {p} ")),
        2 => prop::sample::select(vec![
            "<p>", "</p>", "<li>", "</li>", "<h2>", "</h2>", "<td>", "<table><tr><td>",
            "<pre><code>", "</code></pre>", "<a href=\"/guide\">", "<a href=\"/other\">",
            "<a>", "</a>", "<br>", "<div>", "</div>", "<dt>", "<dd>", "&amp;", "&#x1F600;",
            "&nbsp;", "&bogus;", "<script>", "</script>", "<!--", "-->", "<", ">", "\n\n",
        ])
        .prop_map(str::to_string),
        1 => "[a-zA-Z \u{e9}\u{65e5}()\\[\\].,-]{0,14}",
        1 => "\\PC{0,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_page_text_gets_a_place_within_it_or_a_reason(
        pieces in proptest::collection::vec(html_piece(), 0..40),
        title in phrase(0..4),
        anchor in phrase(0..3),
        plain in any::<bool>(),
    ) {
        let text: String = pieces.concat();
        let format = if plain { TextFormat::Plain } else { TextFormat::Html };
        let blocks = split(&text, format);
        let mut builder = StatsBuilder::new();
        builder.add_title(&title);
        builder.add_page(&blocks);
        let stats = builder.finish(&TemplateRules::default());
        let target = Target {
            title: title.clone(),
            h1: String::new(),
            anchors: vec![(anchor.clone(), 2)],
        };
        let links_here = |href: &str| href == "/guide";
        let result = suggest(&blocks, &target, &stats, &links_here);
        // Each reason is the true one: no text exactly when there are no blocks; nothing
        // names the target exactly when neither the title nor the anchor has a word that is
        // not a stop word; no free block only when every block with words links here
        // already (one page: no template blocks); below the floor only under it.
        prop_assert_eq!(blocks.is_empty(), matches!(result, Err(NoPlace::NoText)));
        let named = words(&title).iter().chain(&words(&anchor)).any(|w| !w.stop);
        if !blocks.is_empty() {
            prop_assert_eq!(named, !matches!(result, Err(NoPlace::NothingNamesTarget)));
        }
        match &result {
            Err(NoPlace::NoFreeBlock) => prop_assert!(
                blocks.iter().all(|b| words(&b.text).is_empty()
                    || b.links.iter().any(|l| links_here(&l.href))),
                "a free block was passed over: {:?}", blocks
            ),
            Err(NoPlace::BelowFloor { best }) => {
                prop_assert!((0.0..FLOOR).contains(best), "best {}", best);
            }
            _ => {}
        }
        if let Ok(s) = result {
            prop_assert!(s.block < blocks.len());
            let block = &blocks[s.block];
            prop_assert_eq!(&s.text, &block.text);
            prop_assert!((0.0..=1.0).contains(&s.score), "score {}", s.score);
            // A block that already links to the destination is not a place.
            prop_assert!(block.links.iter().all(|l| !links_here(&l.href)));
            if let Some((range, words)) = &s.anchor {
                prop_assert!(range.start < range.end && range.end <= s.text.len());
                prop_assert!(s.text.is_char_boundary(range.start) && s.text.is_char_boundary(range.end));
                prop_assert_eq!(&s.text[range.clone()], words.as_str());
                // Never text already linked to another page.
                for l in &block.links {
                    prop_assert!(l.range.end <= range.start || range.end <= l.range.start,
                        "anchor {:?} overlaps link {:?} in {:?}", range, l.range, s.text);
                }
            }
        }
    }
}
