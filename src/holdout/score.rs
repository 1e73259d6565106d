//! `linkgap-eval score`: how many hidden links a linkgap run proposes, against similarity alone
//! at the same number of proposals, and whether its passages and anchors are where the links
//! were.
//!
//! - Similarity-only baseline: every `Related URL i` of the Opportunities sheet whose
//!   `Link Status i` is `Not found`, as the pair related URL → target (the Moz-style method's
//!   proposals); N is their number (distinct pairs).
//! - Queue at N: the Queue's first N rows by Priority (highest first; file order breaks ties).
//! - Passages and anchors are measured on the hidden pairs found anywhere in the Queue whose
//!   link was found in the page text, with [`passage_matches`](super::passage_matches) and
//!   [`anchor_matches`](super::anchor_matches); columns the Queue does not have yet are "not
//!   measured".
//! - Ineligible: Queue rows whose source or destination Internal: All marks non-200,
//!   Non-Indexable or `noindex` (Meta Robots 1).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::baseline::{Choice, choices};
use super::hide::{Hidden, read_hidden};
use super::{anchor_matches, column, find_files, headers, open_csv, passage_matches, url_key};

/// A Queue row, as the scorer reads it.
#[derive(Debug, Clone, Default)]
pub struct QueueRow {
    /// Source URL key.
    pub source: String,
    /// Destination URL key.
    pub destination: String,
    /// Priority (higher first), `-inf` when blank.
    pub priority: f64,
    /// Suggested Passage, when the column exists.
    pub passage: Option<String>,
    /// Suggested Anchor, when the column exists.
    pub anchor: Option<String>,
}

/// The figures of one scored run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    /// Hidden pairs.
    pub hidden: usize,
    /// Hidden pairs whose link was found in the page text (where passages can be judged).
    pub hidden_in_text: usize,
    /// N: the similarity-only method's proposals.
    pub similarity_n: usize,
    /// Hidden pairs among them.
    pub similarity_hits: usize,
    /// Queue rows.
    pub queue_rows: usize,
    /// Hidden pairs among the Queue's first N rows.
    pub queue_hits_at_n: usize,
    /// Hidden pairs anywhere in the Queue.
    pub queue_hits: usize,
    /// `queue_hits_at_n / similarity_hits` (`None` when the baseline found none).
    pub ratio: Option<f64>,
    /// Hidden pairs in the Queue with a known truth block (the passage denominator).
    pub passage_pairs: usize,
    /// Of them, with Suggested Passage matching (`None`: column absent, not measured).
    pub passage_hits: Option<usize>,
    /// Of them, with any Suggested Passage.
    pub passage_given: Option<usize>,
    /// Hidden pairs in the Queue with a known real anchor (the anchor denominator).
    pub anchor_pairs: usize,
    /// Of them, with Suggested Anchor overlapping the real one (`None`: not measured).
    pub anchor_hits: Option<usize>,
    /// Of the passage pairs, those where the baseline (best BM25 against title and
    /// H1, [`baseline`](super::baseline)) finds the block (`None`: no page text to run it on).
    pub base_passage_hits: Option<usize>,
    /// Of the anchor pairs, those where the baseline's anchor overlaps a real one.
    pub base_anchor_hits: Option<usize>,
    /// Queue rows with a Suggested Passage (`None`: not measured).
    pub passage_rows: Option<usize>,
    /// Queue rows touching a page the crawl marks ineligible (`None`: no Internal: All).
    pub ineligible_rows: Option<usize>,
    /// Of them, rows whose destination is ineligible.
    pub ineligible_destinations: Option<usize>,
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// A `--csv-dir` cell back to its text: linkgap prefixes text starting with `=`, `+`, `-` or
/// `@` with an apostrophe.
fn unescape(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@']) => rest,
        _ => cell,
    }
}

/// Read `Queue.csv`, sorted by Priority (highest first, stable).
pub fn read_queue(path: &Path) -> io::Result<Vec<QueueRow>> {
    let (mut rdr, _) = open_csv(path)?;
    let h = headers(&mut rdr)?;
    let (Some(s), Some(d)) = (column(&h, "Source URL"), column(&h, "Destination URL")) else {
        return Err(bad(format!(
            "{}: no Source URL / Destination URL columns",
            path.display()
        )));
    };
    let (p, passage, anchor) = (
        column(&h, "Priority"),
        column(&h, "Suggested Passage"),
        column(&h, "Suggested Anchor"),
    );
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let get = |c: usize| unescape(rec.get(c).unwrap_or("")).trim().to_string();
        let (Some(source), Some(destination)) = (url_key(&get(s), None), url_key(&get(d), None))
        else {
            continue;
        };
        rows.push(QueueRow {
            source,
            destination,
            priority: p
                .and_then(|c| get(c).parse().ok())
                .unwrap_or(f64::NEG_INFINITY),
            passage: passage.map(get),
            anchor: anchor.map(get),
        });
    }
    rows.sort_by(|a, b| b.priority.total_cmp(&a.priority));
    Ok(rows)
}

/// Read the similarity-only proposals from `Opportunities.csv`: (related URL, target) for every
/// `Link Status i` of `Not found`, distinct, in sheet order.
pub fn read_similarity(path: &Path) -> io::Result<Vec<(String, String)>> {
    let (mut rdr, _) = open_csv(path)?;
    let h = headers(&mut rdr)?;
    let target = column(&h, "Target URL")
        .ok_or_else(|| bad(format!("{}: no Target URL column", path.display())))?;
    let mut slots = Vec::new();
    for i in 1.. {
        match (
            column(&h, &format!("Related URL {i}")),
            column(&h, &format!("Link Status {i}")),
        ) {
            (Some(u), Some(s)) => slots.push((u, s)),
            _ => break,
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let Some(t) = url_key(unescape(rec.get(target).unwrap_or("")), None) else {
            continue;
        };
        for &(u, s) in &slots {
            if !rec
                .get(s)
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("Not found")
            {
                continue;
            }
            if let Some(r) = url_key(unescape(rec.get(u).unwrap_or("")), None)
                && seen.insert((r.clone(), t.clone()))
            {
                out.push((r, t.clone()));
            }
        }
    }
    Ok(out)
}

/// Pages Internal: All marks ineligible: status not 200, Non-Indexable, or `noindex`, unless
/// another row with the same [`url_key`] is a 200 indexable page.
pub fn read_ineligible(path: &Path) -> io::Result<HashSet<String>> {
    let (mut rdr, _) = open_csv(path)?;
    let h = headers(&mut rdr)?;
    let addr = column(&h, "Address")
        .ok_or_else(|| bad(format!("{}: no Address column", path.display())))?;
    let (status, index, robots) = (
        column(&h, "Status Code"),
        column(&h, "Indexability"),
        column(&h, "Meta Robots 1"),
    );
    let mut out = HashSet::new();
    let mut fine = HashSet::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or("").trim();
        let ineligible = (!get(status).is_empty() && get(status) != "200")
            || get(index).eq_ignore_ascii_case("Non-Indexable")
            || get(robots).to_lowercase().contains("noindex");
        if let Some(k) = url_key(get(Some(addr)), None) {
            if ineligible {
                out.insert(k);
            } else {
                fine.insert(k);
            }
        }
    }
    // `HTTPS://WWW.Example.com/a` (a 301 variant) and `https://www.example.com/a` (the page)
    // share a key: the page decides.
    out.retain(|k| !fine.contains(k));
    Ok(out)
}

/// Score the Queue and Opportunities of a run against the hidden pairs.
#[allow(clippy::implicit_hasher)] // one caller, std's hasher
pub fn figures(
    hidden: &[Hidden],
    queue: &[QueueRow],
    similarity: &[(String, String)],
    ineligible: Option<&HashSet<String>>,
    base: Option<&HashMap<(String, String), Choice>>,
) -> Figures {
    let truth: HashMap<(String, String), &Hidden> = hidden
        .iter()
        .filter_map(|h| {
            Some((
                (url_key(&h.source, None)?, url_key(&h.destination, None)?),
                h,
            ))
        })
        .collect();
    let is_hidden = |s: &str, d: &str| truth.contains_key(&(s.to_string(), d.to_string()));
    let n = similarity.len();
    let similarity_hits = similarity.iter().filter(|(s, d)| is_hidden(s, d)).count();
    // Distinct pairs: a Queue has one row per pair, but count each once regardless.
    let mut seen = HashSet::new();
    let mut queue_hits_at_n = 0;
    let mut in_queue: Vec<(&QueueRow, &Hidden)> = Vec::new();
    for (i, row) in queue.iter().enumerate() {
        let key = (row.source.clone(), row.destination.clone());
        if !seen.insert(key.clone()) {
            continue;
        }
        if let Some(h) = truth.get(&key) {
            if i < n {
                queue_hits_at_n += 1;
            }
            in_queue.push((row, h));
        }
    }
    let with_block: Vec<_> = in_queue
        .iter()
        .filter(|(_, h)| !h.block.is_empty())
        .collect();
    let measured = queue.first().is_some_and(|r| r.passage.is_some());
    let anchor_measured = queue.first().is_some_and(|r| r.anchor.is_some());
    let real_anchor = |h: &Hidden| {
        if h.anchor.is_empty() {
            h.link_text.clone()
        } else {
            h.anchor.clone()
        }
    };
    let with_anchor: Vec<_> = in_queue
        .iter()
        .filter(|(_, h)| !real_anchor(h).is_empty())
        .collect();
    let passage = |r: &QueueRow| r.passage.clone().unwrap_or_default();
    // Whether a suggested passage is a block of the pair, and a suggested anchor one of its
    // link texts: the Queue's and the baseline's are judged alike.
    let passage_hit = |p: &str, h: &Hidden| {
        passage_matches(p, &h.block) || h.other_blocks.iter().any(|b| passage_matches(p, b))
    };
    let anchor_hit = |a: &str, h: &Hidden| {
        anchor_matches(a, &real_anchor(h)) || h.other_anchors.iter().any(|r| anchor_matches(a, r))
    };
    let base_of =
        |r: &QueueRow| base.and_then(|b| b.get(&(r.source.clone(), r.destination.clone())));
    Figures {
        hidden: hidden.len(),
        hidden_in_text: hidden.iter().filter(|h| h.links_unwrapped > 0).count(),
        similarity_n: n,
        similarity_hits,
        queue_rows: queue.len(),
        queue_hits_at_n,
        queue_hits: in_queue.len(),
        ratio: (similarity_hits > 0).then(|| queue_hits_at_n as f64 / similarity_hits as f64),
        passage_pairs: with_block.len(),
        passage_hits: measured.then(|| {
            with_block
                .iter()
                .filter(|(r, h)| passage_hit(&passage(r), h))
                .count()
        }),
        passage_given: measured.then(|| {
            with_block
                .iter()
                .filter(|(r, _)| !passage(r).is_empty())
                .count()
        }),
        anchor_pairs: with_anchor.len(),
        anchor_hits: anchor_measured.then(|| {
            with_anchor
                .iter()
                .filter(|(r, h)| anchor_hit(r.anchor.as_deref().unwrap_or(""), h))
                .count()
        }),
        base_passage_hits: base.map(|_| {
            with_block
                .iter()
                .filter(|(r, h)| base_of(r).is_some_and(|c| passage_hit(&c.passage, h)))
                .count()
        }),
        base_anchor_hits: base.map(|_| {
            with_anchor
                .iter()
                .filter(|(r, h)| {
                    base_of(r).is_some_and(|c| anchor_hit(c.anchor.as_deref().unwrap_or(""), h))
                })
                .count()
        }),
        passage_rows: measured.then(|| queue.iter().filter(|r| !passage(r).is_empty()).count()),
        ineligible_rows: ineligible.map(|set| {
            queue
                .iter()
                .filter(|r| set.contains(&r.source) || set.contains(&r.destination))
                .count()
        }),
        ineligible_destinations: ineligible.map(|set| {
            queue
                .iter()
                .filter(|r| set.contains(&r.destination))
                .count()
        }),
    }
}

/// Score the run whose `--csv-dir` is `csv_dir` on the reduced crawl `dir` (with `hidden.csv`).
pub fn score(dir: &Path, csv_dir: &Path) -> io::Result<Figures> {
    let hidden = read_hidden(&dir.join("hidden.csv"))?;
    let queue = read_queue(&csv_dir.join("Queue.csv"))?;
    let similarity = read_similarity(&csv_dir.join("Opportunities.csv"))?;
    let files = find_files(dir)?;
    let ineligible = match files.internal {
        Some(p) => Some(read_ineligible(&p)?),
        None => None,
    };
    // The baseline runs on the hidden pairs the Queue proposes, when there is page text.
    let base = if files.page_text.is_some() {
        let hidden_keys: HashSet<(String, String)> = hidden
            .iter()
            .filter_map(|h| Some((url_key(&h.source, None)?, url_key(&h.destination, None)?)))
            .collect();
        let pairs: HashSet<(String, String)> = queue
            .iter()
            .map(|r| (r.source.clone(), r.destination.clone()))
            .filter(|k| hidden_keys.contains(k))
            .collect();
        Some(choices(dir, &pairs)?)
    } else {
        None
    };
    Ok(figures(
        &hidden,
        &queue,
        &similarity,
        ineligible.as_ref(),
        base.as_ref(),
    ))
}

fn pct(part: Option<usize>, whole: usize) -> String {
    match part {
        None => "not measured".into(),
        Some(_) if whole == 0 => "n/a".into(),
        Some(p) => format!("{:.1}% ({p}/{whole})", 100.0 * p as f64 / whole as f64),
    }
}

impl Figures {
    /// A small table for people.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let ratio = self
            .ratio
            .map_or_else(|| "n/a".into(), |r| format!("{r:.2}x"));
        let rows: Vec<(&str, String)> = vec![
            ("hidden links", self.hidden.to_string()),
            ("  found in page text", self.hidden_in_text.to_string()),
            (
                "N (similarity-only proposals)",
                self.similarity_n.to_string(),
            ),
            (
                "similarity-only hits at N",
                pct(Some(self.similarity_hits), self.hidden),
            ),
            (
                "Queue hits at N",
                pct(Some(self.queue_hits_at_n), self.hidden),
            ),
            ("ratio Queue / similarity at N", ratio),
            ("Queue rows", self.queue_rows.to_string()),
            (
                "Queue hits (whole Queue)",
                pct(Some(self.queue_hits), self.hidden),
            ),
            (
                "passage hit rate",
                pct(self.passage_hits, self.passage_pairs),
            ),
            (
                "passage given (hidden pairs)",
                pct(self.passage_given, self.passage_pairs),
            ),
            (
                "anchor overlap rate",
                pct(self.anchor_hits, self.anchor_pairs),
            ),
            (
                "baseline passage hit rate",
                pct(self.base_passage_hits, self.passage_pairs),
            ),
            (
                "baseline anchor overlap rate",
                pct(self.base_anchor_hits, self.anchor_pairs),
            ),
            (
                "passage coverage (Queue rows)",
                pct(self.passage_rows, self.queue_rows),
            ),
            (
                "Queue rows touching ineligible pages",
                match (self.ineligible_rows, self.ineligible_destinations) {
                    (Some(n), Some(d)) => format!("{n} ({d} as destination)"),
                    _ => "not measured".into(),
                },
            ),
        ];
        let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in rows {
            let _ = writeln!(t, "{k:<w$}  {v}");
        }
        t
    }

    /// One JSON object; absent figures are `null`.
    pub fn json(&self) -> String {
        let opt = |v: Option<usize>| v.map_or_else(|| "null".into(), |v| v.to_string());
        let ratio = self
            .ratio
            .map_or_else(|| "null".into(), |r| format!("{r:.4}"));
        format!(
            "{{\"hidden\":{},\"hidden_in_text\":{},\"similarity_n\":{},\"similarity_hits\":{},\
             \"queue_rows\":{},\"queue_hits_at_n\":{},\"queue_hits\":{},\"ratio\":{ratio},\
             \"passage_pairs\":{},\"passage_hits\":{},\"passage_given\":{},\"anchor_pairs\":{},\
             \"anchor_hits\":{},\"base_passage_hits\":{},\"base_anchor_hits\":{},\
             \"passage_rows\":{},\"ineligible_rows\":{},\"ineligible_destinations\":{}}}",
            self.hidden,
            self.hidden_in_text,
            self.similarity_n,
            self.similarity_hits,
            self.queue_rows,
            self.queue_hits_at_n,
            self.queue_hits,
            self.passage_pairs,
            opt(self.passage_hits),
            opt(self.passage_given),
            self.anchor_pairs,
            opt(self.anchor_hits),
            opt(self.base_passage_hits),
            opt(self.base_anchor_hits),
            opt(self.passage_rows),
            opt(self.ineligible_rows),
            opt(self.ineligible_destinations),
        )
    }

    /// One row of the benchmark table (see [`Figures::row_header`]).
    pub fn row(&self, label: &str) -> String {
        let ratio = self
            .ratio
            .map_or_else(|| "n/a".into(), |r| format!("{r:.2}"));
        let rate = |p: Option<usize>, w: usize| match p {
            None => "-".to_string(),
            Some(_) if w == 0 => "n/a".to_string(),
            Some(p) => format!("{:.0}%", 100.0 * p as f64 / w as f64),
        };
        format!(
            "{label:<28} {:>7} {:>7} {:>8} {:>8} {:>6} {:>8} {:>8} {:>8} {:>7} {:>9} {:>5} {:>9} {:>9}",
            self.hidden,
            self.similarity_n,
            self.similarity_hits,
            self.queue_hits_at_n,
            ratio,
            self.queue_hits,
            self.queue_rows,
            rate(self.passage_hits, self.passage_pairs),
            rate(self.anchor_hits, self.anchor_pairs),
            rate(self.passage_rows, self.queue_rows),
            self.ineligible_rows
                .map_or_else(|| "-".into(), |n| n.to_string()),
            rate(self.base_passage_hits, self.passage_pairs),
            rate(self.base_anchor_hits, self.anchor_pairs),
        )
    }

    /// The header of [`Figures::row`].
    pub fn row_header() -> String {
        format!(
            "{:<28} {:>7} {:>7} {:>8} {:>8} {:>6} {:>8} {:>8} {:>8} {:>7} {:>9} {:>5} {:>9} {:>9}",
            "site",
            "hidden",
            "N",
            "sim@N",
            "queue@N",
            "ratio",
            "queue",
            "rows",
            "passage",
            "anchor",
            "coverage",
            "inel.",
            "bm25 psg",
            "bm25 anc"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(s: &str, d: &str, block: &str, anchor: &str) -> Hidden {
        Hidden {
            source: s.into(),
            destination: d.into(),
            anchor: anchor.into(),
            block: block.into(),
            links_unwrapped: usize::from(!block.is_empty()),
            ..Hidden::default()
        }
    }

    fn row(s: &str, d: &str, p: f64, passage: Option<&str>) -> QueueRow {
        QueueRow {
            source: url_key(s, None).unwrap(),
            destination: url_key(d, None).unwrap(),
            priority: p,
            passage: passage.map(String::from),
            anchor: passage.map(|_| "rose pruning".to_string()),
        }
    }

    #[test]
    fn counts_add_up() {
        let u = |x: &str| format!("https://e.com/{x}");
        let h = vec![
            hidden(&u("a"), &u("b"), "Prune roses in March.", "rose pruning"),
            hidden(&u("c"), &u("d"), "", ""),
            hidden(&u("e"), &u("f"), "Water deeply.", "watering"),
        ];
        let q = vec![
            row(&u("a"), &u("b"), 50.0, Some("prune  ROSES in march.")),
            row(&u("x"), &u("y"), 40.0, Some("")),
            row(&u("e"), &u("f"), 10.0, Some("Something else entirely here")),
        ];
        let sim = vec![(u("c"), u("d")), (u("x"), u("y"))];
        let bad: HashSet<String> = [u("y")].into_iter().collect();
        let f = figures(&h, &q, &sim, Some(&bad), None);
        assert_eq!(f.hidden, 3);
        assert_eq!(f.hidden_in_text, 2);
        assert_eq!(f.similarity_n, 2);
        assert_eq!(f.similarity_hits, 1);
        assert_eq!(f.queue_hits_at_n, 1);
        assert_eq!(f.queue_hits, 2);
        assert!((f.ratio.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(f.passage_pairs, 2);
        assert_eq!(f.passage_hits, Some(1));
        assert_eq!(f.passage_given, Some(2));
        assert_eq!(f.anchor_pairs, 2);
        assert_eq!(f.anchor_hits, Some(1));
        assert_eq!(f.passage_rows, Some(2));
        assert_eq!(f.ineligible_rows, Some(1));
        assert_eq!(f.ineligible_destinations, Some(1));
        assert!(f.json().contains("\"ratio\":1.0000"));
    }

    #[test]
    fn an_anchor_hits_when_it_overlaps_any_link_text_of_the_pair() {
        // The page linked D twice, as "environment variable" in one block and "the
        // reference" in another: the Queue's anchor in the second block is a real one.
        let u = |x: &str| format!("https://e.com/{x}");
        let mut twice = hidden(&u("a"), &u("b"), "First block.", "environment variable");
        twice.other_anchors = vec!["the reference".into()];
        let once = hidden(&u("c"), &u("b"), "Other block.", "environment variable");
        let mut q = vec![
            row(&u("a"), &u("b"), 2.0, Some("x")),
            row(&u("c"), &u("b"), 1.0, Some("x")),
        ];
        for r in &mut q {
            r.anchor = Some("the reference".into());
        }
        let f = figures(&[twice, once], &q, &[], None, None);
        assert_eq!(f.anchor_pairs, 2);
        assert_eq!(f.anchor_hits, Some(1));
    }

    #[test]
    fn the_baseline_is_judged_on_the_queues_pairs_as_the_queue_is() {
        let u = |x: &str| format!("https://e.com/{x}");
        let h = vec![
            hidden(&u("a"), &u("b"), "Prune roses in March.", "rose pruning"),
            hidden(&u("c"), &u("d"), "Water deeply.", "watering"),
            hidden(&u("e"), &u("f"), "Mulch in May.", "mulch"),
        ];
        let q = vec![
            row(&u("a"), &u("b"), 3.0, Some("Prune roses in March.")),
            row(&u("c"), &u("d"), 2.0, Some("Water deeply.")),
        ];
        let key = |s: &str, d: &str| (url_key(&u(s), None).unwrap(), url_key(&u(d), None).unwrap());
        // Right block and anchor for the first pair, wrong block for the second; the third
        // pair is not in the Queue, so the baseline's choice there counts for nothing.
        let base: HashMap<(String, String), Choice> = [
            (
                key("a", "b"),
                Choice {
                    passage: "prune roses in march.".into(),
                    anchor: Some("rose".into()),
                },
            ),
            (
                key("c", "d"),
                Choice {
                    passage: "Something else.".into(),
                    anchor: None,
                },
            ),
            (
                key("e", "f"),
                Choice {
                    passage: "Mulch in May.".into(),
                    anchor: Some("mulch".into()),
                },
            ),
        ]
        .into_iter()
        .collect();
        let f = figures(&h, &q, &[], None, Some(&base));
        assert_eq!((f.passage_pairs, f.base_passage_hits), (2, Some(1)));
        assert_eq!((f.anchor_pairs, f.base_anchor_hits), (2, Some(1)));
        assert_eq!(f.passage_hits, Some(2));
        assert!(f.row("x").ends_with("50%       50%"), "{}", f.row("x"));
        assert_eq!(figures(&h, &q, &[], None, None).base_passage_hits, None);
    }

    #[test]
    fn missing_columns_are_not_measured() {
        let u = |x: &str| format!("https://e.com/{x}");
        let h = vec![hidden(&u("a"), &u("b"), "block", "a")];
        let q = vec![row(&u("a"), &u("b"), 1.0, None)];
        let f = figures(&h, &q, &[], None, None);
        assert_eq!(f.passage_hits, None);
        assert_eq!(f.anchor_hits, None);
        assert_eq!(f.ratio, None);
        assert_eq!(f.ineligible_rows, None);
        assert!(f.table().contains("not measured"));
    }

    #[test]
    fn csv_escapes_are_undone() {
        assert_eq!(unescape("'=SUM(A1)"), "=SUM(A1)");
        assert_eq!(unescape("'plain"), "'plain");
        assert_eq!(unescape("- item"), "- item");
    }
}
