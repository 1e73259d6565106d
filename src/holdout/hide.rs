//! `linkgap-eval hide`: remove a seeded share of a crawl's body links.
//!
//! A body link is an All Inlinks row of Type `Hyperlink` with Link Position `Content`, whose
//! destination answered 200 (when the row says) and is not its source (fragments dropped). They
//! are counted per distinct (source, destination) pair; a seeded share of the pairs is picked,
//! and every All Inlinks row of a picked pair is removed (any type or position: the pair is not
//! linked at all in what is left). In the page text (Custom Extraction) every `<a>` of the source
//! whose href resolves to the destination is unwrapped; its words stay. `hidden.csv` keeps the
//! truth: source, destination, the real anchor and the text of the block that held the link.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use url::Url;

use super::html::unwrap_links;
use super::{column, create_csv, find_files, headers, open_csv, url_key};

/// A (source, destination) pair of URL keys.
type Pair = (String, String);

/// The columns of `hidden.csv`. Not "Source"/"Destination": linkgap, run on the same folder,
/// would take the file for a second All Inlinks export.
pub const HIDDEN_HEADER: [&str; 9] = [
    "Hidden Source",
    "Hidden Destination",
    "Real Anchor",
    "Link Text",
    "Block",
    "Other Blocks",
    "Rows Removed",
    "Links Unwrapped",
    "Other Anchors",
];

/// What to hide.
#[derive(Debug, Clone)]
pub struct HideOptions {
    /// The crawl folder (All Inlinks, optionally page text and the other exports).
    pub crawl: PathBuf,
    /// Where the reduced crawl and `hidden.csv` go.
    pub out: PathBuf,
    /// Share of body-link pairs hidden, 0–1.
    pub share: f64,
    /// Seed of the choice.
    pub seed: u64,
}

/// What [`hide`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HideSummary {
    /// Distinct body-link pairs in the crawl.
    pub body_pairs: usize,
    /// Pairs hidden.
    pub hidden: usize,
    /// All Inlinks rows removed.
    pub rows_removed: usize,
    /// `<a>` elements unwrapped in the page text.
    pub links_unwrapped: usize,
    /// Hidden pairs whose link was found in the page text.
    pub found_in_text: usize,
    /// Whether the crawl had page text.
    pub page_text: bool,
    /// Files copied unchanged.
    pub copied: Vec<String>,
    /// Files left out (another copy of All Inlinks or page text the harness cannot rewrite).
    pub left_out: Vec<String>,
}

/// One hidden pair, as `hidden.csv` has it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Source URL as written in All Inlinks.
    pub source: String,
    /// Destination URL as written, fragment dropped.
    pub destination: String,
    /// The All Inlinks Anchor of its first body row.
    pub anchor: String,
    /// The text of the first unwrapped `<a>`.
    pub link_text: String,
    /// The block of the first unwrapped `<a>`.
    pub block: String,
    /// Blocks of the other unwrapped `<a>`s of the pair.
    pub other_blocks: Vec<String>,
    /// The pair's other link texts (All Inlinks anchors of its other body rows, texts of its
    /// other unwrapped `<a>`s), each once: a page that linked D twice, as "environment
    /// variable" in one block and "the reference" in another, had both as real anchors.
    pub other_anchors: Vec<String>,
    /// All Inlinks rows removed for it.
    pub rows_removed: usize,
    /// `<a>` elements unwrapped for it.
    pub links_unwrapped: usize,
}

impl Hidden {
    /// Note one more real link text of the pair, unless empty or already known.
    /// Runs of white space become one space: `hidden.csv` keeps them one to a line.
    fn add_other_anchor(&mut self, text: &str) {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty()
            && text != self.anchor.trim()
            && text != self.link_text.trim()
            && !self.other_anchors.contains(&text)
        {
            self.other_anchors.push(text);
        }
    }
}

/// A 64-bit FNV-1a hash of `parts` mixed with `seed`: the order in which pairs are picked,
/// independent of file order and platform.
pub fn pair_rank(seed: u64, source: &str, destination: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in source.bytes().chain([0u8]).chain(destination.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    // A final avalanche so nearby seeds give unrelated orders.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// Pick `round(share × n)` of `pairs` (keys), the ones with the lowest [`pair_rank`]; sorted.
pub fn pick_pairs(pairs: &[(String, String)], share: f64, seed: u64) -> Vec<(String, String)> {
    let want = ((pairs.len() as f64) * share.clamp(0.0, 1.0)).round() as usize;
    let mut ranked: Vec<(u64, &(String, String))> = pairs
        .iter()
        .map(|p| (pair_rank(seed, &p.0, &p.1), p))
        .collect();
    ranked.sort();
    let mut chosen: Vec<(String, String)> = ranked
        .into_iter()
        .take(want)
        .map(|(_, p)| p.clone())
        .collect();
    chosen.sort();
    chosen
}

struct Inlinks {
    header: Vec<String>,
    type_col: usize,
    source: usize,
    destination: usize,
    position: Option<usize>,
    status: Option<usize>,
    anchor: Option<usize>,
}

impl Inlinks {
    fn new(header: Vec<String>) -> io::Result<Inlinks> {
        let need = |n: &str| {
            column(&header, n).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("All Inlinks has no {n} column"),
                )
            })
        };
        Ok(Inlinks {
            type_col: need("Type")?,
            source: need("Source")?,
            destination: need("Destination")?,
            position: column(&header, "Link Position"),
            status: column(&header, "Status Code"),
            anchor: column(&header, "Anchor"),
            header,
        })
    }

    /// The pair key of a row: (source key, destination key), or `None` for an unusable URL.
    fn key(&self, rec: &csv::StringRecord) -> Option<(String, String)> {
        Some((
            url_key(rec.get(self.source)?, None)?,
            url_key(rec.get(self.destination)?, None)?,
        ))
    }

    fn is_body_link(&self, rec: &csv::StringRecord) -> bool {
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or("").trim();
        get(Some(self.type_col)).eq_ignore_ascii_case("Hyperlink")
            && self
                .position
                .is_none_or(|_| get(self.position).eq_ignore_ascii_case("Content"))
            && (get(self.status).is_empty() || get(self.status) == "200")
    }
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// First pass over All Inlinks: every distinct body pair, in first-seen order, with its first
/// anchor and its URLs as written.
fn body_pairs(path: &Path) -> io::Result<(Vec<Pair>, HashMap<Pair, Hidden>)> {
    let (mut rdr, _) = open_csv(path)?;
    let cols = Inlinks::new(
        rdr.headers()
            .map_err(io::Error::other)?
            .iter()
            .map(String::from)
            .collect(),
    )?;
    let mut order = Vec::new();
    let mut info: HashMap<(String, String), Hidden> = HashMap::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        if !cols.is_body_link(&rec) {
            continue;
        }
        let Some(key) = cols.key(&rec) else { continue };
        if key.0 == key.1 {
            continue;
        }
        let anchor = cols
            .anchor
            .and_then(|c| rec.get(c))
            .unwrap_or("")
            .trim()
            .to_string();
        match info.entry(key.clone()) {
            Entry::Occupied(mut h) => h.get_mut().add_other_anchor(&anchor),
            Entry::Vacant(v) => {
                order.push(key.clone());
                v.insert(Hidden {
                    source: rec[cols.source].trim().to_string(),
                    destination: key.1.clone(),
                    anchor,
                    ..Hidden::default()
                });
            }
        }
    }
    Ok((order, info))
}

/// Second pass: write All Inlinks without the rows of the picked pairs; count them per pair.
fn write_inlinks(
    path: &Path,
    out: &Path,
    picked: &mut HashMap<(String, String), Hidden>,
) -> io::Result<usize> {
    let (mut rdr, bom) = open_csv(path)?;
    let header = headers(&mut rdr)?;
    let cols = Inlinks::new(header)?;
    let mut w = create_csv(out, bom)?;
    w.write_record(&cols.header)?;
    let mut removed = 0;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        if let Some(key) = cols.key(&rec)
            && let Some(h) = picked.get_mut(&key)
        {
            h.rows_removed += 1;
            removed += 1;
            continue;
        }
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(removed)
}

/// Rewrite the page text: unwrap each picked pair's `<a>`s in its source's row, in every
/// extractor column, and record the blocks.
fn write_page_text(
    path: &Path,
    out: &Path,
    picked: &mut HashMap<(String, String), Hidden>,
) -> io::Result<usize> {
    let mut by_source: HashMap<String, HashSet<String>> = HashMap::new();
    for (s, d) in picked.keys() {
        by_source.entry(s.clone()).or_default().insert(d.clone());
    }
    let (mut rdr, bom) = open_csv(path)?;
    let header = headers(&mut rdr)?;
    let mut w = create_csv(out, bom)?;
    w.write_record(&header)?;
    let mut unwrapped = 0;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let address = rec.get(0).unwrap_or("");
        let targets = url_key(address, None).and_then(|k| by_source.get(&k).map(|t| (k, t)));
        let Some((source, targets)) = targets else {
            w.write_record(&rec)?;
            continue;
        };
        let base = Url::parse(&source).map_err(|e| bad(format!("{address}: {e}")))?;
        let mut cells: Vec<String> = rec.iter().map(String::from).collect();
        for cell in cells.iter_mut().skip(3) {
            if cell.is_empty() {
                continue;
            }
            let done = unwrap_links(cell, &base, targets)
                .map_err(|e| bad(format!("{address}: page text: {e}")))?;
            for link in done.links {
                unwrapped += 1;
                let Some(h) = picked.get_mut(&(source.clone(), link.target)) else {
                    continue;
                };
                if h.links_unwrapped == 0 {
                    h.link_text = link.text;
                    h.block = link.block;
                } else {
                    h.add_other_anchor(&link.text);
                    if link.block != h.block && !h.other_blocks.contains(&link.block) {
                        h.other_blocks.push(link.block);
                    }
                }
                h.links_unwrapped += 1;
            }
            *cell = done.html;
        }
        w.write_record(&cells)?;
    }
    w.flush()?;
    Ok(unwrapped)
}

/// Write `hidden.csv` (header [`HIDDEN_HEADER`]), rows sorted by source then destination.
pub fn write_hidden(path: &Path, rows: &[Hidden]) -> io::Result<()> {
    let mut w = create_csv(path, true)?;
    w.write_record(HIDDEN_HEADER)?;
    for h in rows {
        let rows_removed = h.rows_removed.to_string();
        let links = h.links_unwrapped.to_string();
        w.write_record([
            h.source.as_str(),
            &h.destination,
            &h.anchor,
            &h.link_text,
            &h.block,
            &h.other_blocks.join("\n"),
            &rows_removed,
            &links,
            &h.other_anchors.join("\n"),
        ])?;
    }
    w.flush()
}

/// Read `hidden.csv`.
pub fn read_hidden(path: &Path) -> io::Result<Vec<Hidden>> {
    let (mut rdr, _) = open_csv(path)?;
    let header = headers(&mut rdr)?;
    let col = |n: &str| column(&header, n);
    let (Some(s), Some(d)) = (col("Hidden Source"), col("Hidden Destination")) else {
        return Err(bad(format!("{}: not a hidden.csv", path.display())));
    };
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or("").to_string();
        out.push(Hidden {
            source: get(Some(s)),
            destination: get(Some(d)),
            anchor: get(col("Real Anchor")),
            link_text: get(col("Link Text")),
            block: get(col("Block")),
            other_blocks: get(col("Other Blocks"))
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
            rows_removed: get(col("Rows Removed")).parse().unwrap_or(0),
            links_unwrapped: get(col("Links Unwrapped")).parse().unwrap_or(0),
            other_anchors: get(col("Other Anchors"))
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
        });
    }
    Ok(out)
}

/// Hide a seeded share of `opts.crawl`'s body links into `opts.out` (see the module doc).
pub fn hide(opts: &HideOptions) -> io::Result<HideSummary> {
    let files = find_files(&opts.crawl)?;
    let inlinks = files.inlinks.ok_or_else(|| {
        bad(format!(
            "{}: no All Inlinks CSV (a header with Type, Source, Destination)",
            opts.crawl.display()
        ))
    })?;
    std::fs::create_dir_all(&opts.out)?;
    let (order, mut info) = body_pairs(&inlinks)?;
    let chosen = pick_pairs(&order, opts.share, opts.seed);
    let mut picked: HashMap<(String, String), Hidden> =
        chosen.iter().filter_map(|k| info.remove_entry(k)).collect();
    let mut summary = HideSummary {
        body_pairs: order.len(),
        hidden: picked.len(),
        page_text: files.page_text.is_some(),
        ..HideSummary::default()
    };
    let name = |p: &Path| {
        p.file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    summary.rows_removed = write_inlinks(&inlinks, &opts.out.join(name(&inlinks)), &mut picked)?;
    if let Some(text) = &files.page_text {
        summary.links_unwrapped = write_page_text(text, &opts.out.join(name(text)), &mut picked)?;
    }
    copy_others(
        &opts.crawl,
        &opts.out,
        &[&inlinks, files.page_text.as_deref().unwrap_or(&inlinks)],
        &mut summary,
    )?;
    let mut rows: Vec<Hidden> = chosen.iter().filter_map(|k| picked.remove(k)).collect();
    rows.sort_by(|a, b| (&a.source, &a.destination).cmp(&(&b.source, &b.destination)));
    summary.found_in_text = rows.iter().filter(|h| h.links_unwrapped > 0).count();
    write_hidden(&opts.out.join("hidden.csv"), &rows)?;
    Ok(summary)
}

/// Copy every other file of the crawl; leave out other copies of All Inlinks or page text
/// (an XLSX All Inlinks would still hold the hidden links) and an earlier `hidden.csv`.
fn copy_others(
    crawl: &Path,
    out: &Path,
    rewritten: &[&Path],
    summary: &mut HideSummary,
) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(crawl)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    for p in entries {
        if rewritten.contains(&p.as_path()) {
            continue;
        }
        let name = p
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lower = name.to_lowercase();
        let is_csv = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let role_copy =
            lower.contains("inlinks") || lower.contains("outlinks") || lower.contains("extraction");
        let header_role = if is_csv {
            let h = super::csv_header(&p)?;
            column(&h, "Source").is_some() && column(&h, "Destination").is_some()
        } else {
            false
        };
        if role_copy || header_role || lower == "hidden.csv" {
            summary.left_out.push(name);
            continue;
        }
        std::fs::copy(&p, out.join(&name))?;
        summary.copied.push(name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| {
                (
                    format!("https://e.com/{i}"),
                    format!("https://e.com/{}", i + 1),
                )
            })
            .collect()
    }

    #[test]
    fn picking_is_seeded_sized_and_order_free() {
        let all = pairs(1000);
        let a = pick_pairs(&all, 0.1, 7);
        assert_eq!(a.len(), 100);
        assert_eq!(a, pick_pairs(&all, 0.1, 7));
        let mut reversed = all.clone();
        reversed.reverse();
        assert_eq!(a, pick_pairs(&reversed, 0.1, 7));
        let b = pick_pairs(&all, 0.1, 8);
        assert_ne!(a, b);
        // A larger share keeps the smaller share's picks.
        let c = pick_pairs(&all, 0.2, 7);
        assert!(a.iter().all(|p| c.contains(p)));
        assert_eq!(pick_pairs(&all, 0.0, 7).len(), 0);
        assert_eq!(pick_pairs(&pairs(3), 0.1, 7).len(), 0);
    }

    #[test]
    fn hidden_csv_round_trips() {
        let dir = std::env::temp_dir().join(format!("linkgap-hidden-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rows = vec![Hidden {
            source: "https://e.com/a".into(),
            destination: "https://e.com/b".into(),
            anchor: "B, \"quoted\"".into(),
            link_text: "B".into(),
            block: "See B here.".into(),
            other_blocks: vec!["Also B.".into(), "And B again.".into()],
            rows_removed: 2,
            links_unwrapped: 3,
            other_anchors: vec!["the reference".into(), "b page".into()],
        }];
        let p = dir.join("hidden.csv");
        write_hidden(&p, &rows).unwrap();
        assert_eq!(read_hidden(&p).unwrap(), rows);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
