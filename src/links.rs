//! Existing links: the directed link set between resolved pages, built from All Inlinks rows,
//! telling body links from template links (Link Position, plus repeated blocks that Screaming
//! Frog labels "Content"), and noting links that reach their page only through a redirect.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::OnceLock;

use rayon::slice::ParallelSliceMut;

use crate::input::inlinks::{LinkKind, LinkRow};
use crate::normalize::identity::{UrlTable, Via};
use crate::normalize::{Rules, normalize};
use crate::report::Report;

/// The Link Position counted as body links unless `--body-positions` says otherwise.
pub const BODY_POSITION: &str = "Content";

/// Default share of linking pages on which a repeated Content link is a template block.
pub const TEMPLATE_SHARE: f64 = 0.2;

/// Default number of linking pages a template block needs at least.
pub const TEMPLATE_MIN_PAGES: u32 = 5;

/// How body and template links are told apart.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRules {
    /// Link Position names counted as body links (case-insensitive). Default: Content.
    pub body_positions: Vec<String>,
    /// A (Link Path, Destination) pair on at least this share of linking pages is a template
    /// block even when labelled Content. 0 turns detection off.
    pub template_share: f64,
    /// ...and on at least this many pages.
    pub template_min_pages: u32,
    /// Keep the anchor texts of body links (they name their destination for passage
    /// suggestions); off when no page text is read, to save the memory.
    pub keep_anchors: bool,
}

impl Default for LinkRules {
    fn default() -> Self {
        LinkRules {
            body_positions: vec![BODY_POSITION.into()],
            template_share: TEMPLATE_SHARE,
            template_min_pages: TEMPLATE_MIN_PAGES,
            keep_anchors: false,
        }
    }
}

impl LinkRules {
    fn is_body_position(&self, position: &str) -> bool {
        self.body_positions
            .iter()
            .any(|p| p.eq_ignore_ascii_case(position))
    }
}

/// A hyperlink row kept for resolution: ids of the written URLs and the path block.
#[derive(Debug, Clone, Copy)]
struct RawLink {
    source: u32,
    destination: u32,
    path: u32,
    body_position: bool,
    nofollow: bool,
}

const NO_PATH: u32 = u32::MAX;

/// Collects links while All Inlinks streams past.
#[derive(Debug, Default)]
pub struct LinkCollector {
    raw_ids: FastMap<String, Option<u32>>,
    /// The last Source and the last Destination as written, with their ids: an export lists
    /// a page's links together (by source or by destination), so one of the two usually
    /// repeats the row before and needs no hashing.
    last: [(String, Option<u32>); 2],
    paths: FastMap<String, u32>,
    links: Vec<RawLink>,
    /// Redirect rows (written source → written destination), by URL id.
    pub redirects: Vec<(u32, u32)>,
    /// Anchor texts of body-position hyperlinks, on their way to be counted, when kept.
    anchors: Option<AnchorFeed>,
}

/// Maps and sets filled on every All Inlinks row: foldhash (hashbrown's own hasher, already in
/// the tree) instead of `SipHash`, which was a tenth of reading the crawl. Like std's, it is
/// seeded per process, so nothing may depend on the order of iterating one.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

/// Anchor texts with how many links use each, by written destination URL id.
type AnchorCounts = FastMap<u32, Vec<KnownAnchor>>;

/// One distinct anchor text of a destination. The hash is compared before the text: a
/// destination's row is scanned on every body link to it, and comparing up to
/// [`MAX_ANCHORS`] strings each time was most of what keeping anchors cost the crawl read.
#[derive(Debug)]
struct KnownAnchor {
    hash: u64,
    text: Box<str>,
    links: u32,
}

/// Distinct anchor texts kept per destination: the words other pages use for a page repeat,
/// so a few dozen say it all, and a million-page site's memory stays bounded.
const MAX_ANCHORS: usize = 32;

/// Anchors a batch holds before it goes to the counting thread, and the text it may hold.
const ANCHOR_BATCH_ROWS: usize = 1 << 14;
const ANCHOR_BATCH_BYTES: usize = 1 << 20;

/// Body links' anchor texts on their way to a thread of their own that counts them, a batch
/// at a time, in file order. Counting probes a table of every destination (and the
/// destination's anchors) for each of millions of rows: on the thread that takes the rows,
/// which the whole crawl read waits on, it was a quarter of the read of the 100,041-page
/// site (0.7-0.9 s) while the second core sat mostly idle.
#[derive(Debug)]
struct AnchorFeed {
    batch: AnchorBatch,
    counting: Counting,
}

/// Where a full batch goes: to the counting thread, or (if the system would not start a
/// thread) counted where it is read, as before.
#[derive(Debug)]
enum Counting {
    Beside {
        send: std::sync::mpsc::SyncSender<AnchorBatch>,
        counter: std::thread::JoinHandle<AnchorCounts>,
    },
    Here(AnchorCounts),
}

/// Anchors in file order: their texts one after another, and each one's written destination
/// and where its text ends.
#[derive(Debug, Default)]
struct AnchorBatch {
    text: String,
    rows: Vec<(u32, usize)>,
}

impl AnchorFeed {
    fn start() -> Self {
        let (send, batches) = std::sync::mpsc::sync_channel::<AnchorBatch>(4);
        let counter = std::thread::Builder::new()
            .name("anchor counts".into())
            .spawn(move || {
                let mut counts = AnchorCounts::default();
                for batch in batches {
                    batch.count_into(&mut counts);
                }
                counts
            });
        AnchorFeed {
            batch: AnchorBatch::default(),
            counting: match counter {
                Ok(counter) => Counting::Beside { send, counter },
                Err(_) => Counting::Here(AnchorCounts::default()),
            },
        }
    }

    fn push(&mut self, destination: u32, anchor: &str) {
        self.batch.text.push_str(anchor);
        self.batch.rows.push((destination, self.batch.text.len()));
        if self.batch.rows.len() >= ANCHOR_BATCH_ROWS || self.batch.text.len() >= ANCHOR_BATCH_BYTES
        {
            self.send_batch();
        }
    }

    fn send_batch(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        match &mut self.counting {
            // Fails only if the counter panicked; `finish` re-raises that.
            Counting::Beside { send, .. } => {
                let _ = send.send(batch);
            }
            Counting::Here(counts) => batch.count_into(counts),
        }
    }

    /// Every anchor counted.
    fn finish(mut self) -> AnchorCounts {
        self.send_batch();
        match self.counting {
            Counting::Beside { send, counter } => {
                drop(send);
                counter
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            Counting::Here(counts) => counts,
        }
    }
}

impl AnchorBatch {
    /// Count each anchor for its destination; past [`MAX_ANCHORS`] distinct texts a
    /// destination's new ones are dropped, so the first ones in file order stay.
    fn count_into(&self, counts: &mut AnchorCounts) {
        let mut start = 0;
        for &(destination, end) in &self.rows {
            let anchor = &self.text[start..end];
            start = end;
            let hash = foldhash::fast::FixedState::default().hash_one(anchor);
            let known = counts.entry(destination).or_default();
            if let Some(k) = known
                .iter_mut()
                .find(|k| k.hash == hash && &*k.text == anchor)
            {
                k.links += 1;
            } else if known.len() < MAX_ANCHORS {
                known.push(KnownAnchor {
                    hash,
                    text: anchor.into(),
                    links: 1,
                });
            }
        }
    }
}

impl LinkCollector {
    /// A collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also keep the anchor texts of body links (for passage suggestions).
    pub fn keep_anchors(&mut self) {
        self.anchors = Some(AnchorFeed::start());
    }

    /// The id of a written URL; `column` is 0 for Source, 1 for Destination.
    fn id(&mut self, column: usize, raw: &str, urls: &mut UrlTable, rules: &Rules) -> Option<u32> {
        let last = &mut self.last[column];
        if last.0 == raw && !raw.is_empty() {
            return last.1;
        }
        // URLs repeat on every row of a page: look the written form up before normalizing.
        let id = if let Some(id) = self.raw_ids.get(raw) {
            *id
        } else {
            let id = normalize(raw, rules).ok().map(|u| urls.intern(&u));
            self.raw_ids.insert(raw.to_string(), id);
            id
        };
        last.0.clear();
        last.0.push_str(raw);
        last.1 = id;
        id
    }

    /// Take one All Inlinks row: used, or skipped with a reason.
    pub fn add(
        &mut self,
        link: &LinkRow<'_>,
        urls: &mut UrlTable,
        url_rules: &Rules,
        link_rules: &LinkRules,
        report: &mut Report,
        stats: usize,
    ) {
        if link.kind == LinkKind::Other {
            let reason = if link.type_text.is_empty() {
                "not a hyperlink (no Type)".to_string()
            } else {
                format!("not a hyperlink ({})", link.type_text)
            };
            report.skip(stats, &reason);
            return;
        }
        let (Some(source), Some(destination)) = (
            self.id(0, link.source, urls, url_rules),
            self.id(1, link.destination, urls, url_rules),
        ) else {
            report.skip(stats, "not an http(s) URL (mailto:, tel:, javascript: ...)");
            return;
        };
        report.stats(stats).used += 1;
        if link.kind == LinkKind::Redirect {
            if source != destination {
                self.redirects.push((source, destination));
            }
            return;
        }
        let path = if link.path.is_empty() {
            NO_PATH
        } else if let Some(&p) = self.paths.get(link.path) {
            p
        } else {
            let p = self.paths.len() as u32;
            self.paths.insert(link.path.to_string(), p);
            p
        };
        let body_position = link_rules.is_body_position(link.position);
        let anchor = link.anchor.trim();
        if let Some(anchors) = self.anchors.as_mut()
            && body_position
            && !anchor.is_empty()
            && source != destination
        {
            anchors.push(destination, anchor);
        }
        self.links.push(RawLink {
            source,
            destination,
            path,
            body_position,
            nofollow: link.nofollow(),
        });
    }

    /// Resolve every link to its pages and classify it. `resolved[id]` is where URL `id` leads.
    pub fn finish(self, resolved: &[(u32, Via)], rules: &LinkRules) -> LinkSet {
        let page = |id: u32| resolved[id as usize];
        // Repeated blocks: the same Link Path to the same page on many linking pages. Sorting
        // (path, destination, source) triples counts distinct pages per block in 12 bytes a link,
        // where hash sets would take several times that on a file of millions of rows.
        let mut linking = vec![false; resolved.len()];
        let mut triples: Vec<(u32, u32, u32)> = Vec::new();
        for l in &self.links {
            let (s, d) = (page(l.source).0, page(l.destination).0);
            linking[s as usize] = true;
            if l.body_position && l.path != NO_PATH {
                triples.push((l.path, d, s));
            }
        }
        let linking_pages = linking.iter().filter(|&&l| l).count();
        drop(linking);
        triples.par_sort_unstable();
        triples.dedup();
        let floor = (rules.template_share * linking_pages as f64)
            .ceil()
            .max(f64::from(rules.template_min_pages)) as u32;
        let mut blocks: FastSet<(u32, u32)> = FastSet::default();
        if rules.template_share > 0.0 {
            for run in triples.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
                if run.len() as u64 >= u64::from(floor) {
                    blocks.insert((run[0].0, run[0].1));
                }
            }
        }
        drop(triples);
        let is_block = |path: u32, d: u32| blocks.contains(&(path, d));

        // Each link's flags (or none, for a loop), then the pairs grouped by source with a
        // counting sort, then each source's pairs sorted and merged on both cores. A hash map
        // of pairs grown one link at a time took one core for 6 s on 42 M links, half of it
        // the kernel zeroing the pages of each larger table.
        let mut set = LinkSet::default();
        let mut counts = vec![0usize; resolved.len() + 1];
        let flags: Vec<Option<LinkFlags>> = self
            .links
            .iter()
            .map(|l| {
                let (s, via_s) = page(l.source);
                let (d, via_d) = page(l.destination);
                if matches!(via_s, Via::Loop | Via::TooLong)
                    || matches!(via_d, Via::Loop | Via::TooLong)
                    || s == d
                {
                    return None;
                }
                counts[s as usize + 1] += 1;
                let template = !l.body_position || is_block(l.path, d);
                if l.body_position && template {
                    set.reclassified += 1;
                }
                let through_redirect = via_d == Via::Redirect;
                let mut flags = LinkFlags::default();
                match (template, through_redirect) {
                    (false, false) if l.nofollow => flags.body_nofollow = true,
                    (false, false) => flags.body = true,
                    (false, true) => flags.body_via_redirect = true,
                    (true, _) => flags.template = true,
                }
                Some(flags)
            })
            .collect();
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut to = vec![(0u32, LinkFlags::default()); counts[counts.len() - 1]];
        let mut next = counts.clone();
        for (l, f) in self.links.iter().zip(&flags) {
            if let Some(f) = f {
                let s = page(l.source).0 as usize;
                to[next[s]] = (page(l.destination).0, *f);
                next[s] += 1;
            }
        }
        drop((flags, next));
        set.pairs = Pairs::from_grouped(&counts, to);
        set.template_floor = floor;
        set.reclassified_blocks = blocks.len();
        // Anchors belong to the page a URL resolves to: a link to an old URL names the page
        // it redirects to.
        // In URL id order (the order URLs were first seen), so a page reached by several
        // written URLs lists its anchors the same way on every run.
        let mut written: Vec<(u32, Vec<KnownAnchor>)> = self
            .anchors
            .map(AnchorFeed::finish)
            .into_iter()
            .flatten()
            .collect();
        written.sort_unstable_by_key(|w| w.0);
        for (written, anchors) in written {
            let (d, via) = page(written);
            if matches!(via, Via::Loop | Via::TooLong) {
                continue;
            }
            let known = set.anchors.entry(d).or_default();
            for anchor in anchors {
                match known.iter_mut().find(|(a, _)| **a == *anchor.text) {
                    Some((_, m)) => *m += anchor.links,
                    None => known.push((anchor.text.into_string(), anchor.links)),
                }
            }
        }
        set
    }
}

/// What links exist from one page to another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkFlags {
    /// A followed body link straight to the page.
    pub body: bool,
    /// A nofollow body link straight to the page.
    pub body_nofollow: bool,
    /// A body link that reaches the page through a redirect.
    pub body_via_redirect: bool,
    /// A navigation/header/footer/sidebar or repeated-block link.
    pub template: bool,
}

/// The status of a directed pair, as shown in the workbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkStatus {
    /// A body link exists.
    Body,
    /// Only nofollow body links exist.
    BodyNofollow,
    /// A body link exists but points at a redirecting URL.
    ViaRedirect,
    /// Only template links exist.
    TemplateOnly,
    /// No link at all.
    NotFound,
    /// The pages are near-duplicates: not a link opportunity.
    NearDuplicate,
}

impl LinkStatus {
    /// The workbook text.
    pub fn label(self) -> &'static str {
        match self {
            LinkStatus::Body => "Body link",
            LinkStatus::BodyNofollow => "Body link (nofollow)",
            LinkStatus::ViaRedirect => "Link via redirect",
            LinkStatus::TemplateOnly => "Template link only",
            LinkStatus::NotFound => "Not found",
            LinkStatus::NearDuplicate => "Near duplicate",
        }
    }

    /// Whether the pair is a candidate for a new body link.
    pub fn is_opportunity(self) -> bool {
        matches!(self, LinkStatus::NotFound | LinkStatus::TemplateOnly)
    }
}

/// Each source page's links, by page id: the pages `s` links to are
/// `to[starts[s]..starts[s + 1]]`, sorted, each with the flags of all its links. Tens of
/// millions of pairs take 8 bytes each, and a lookup searches one page's row.
#[derive(Debug, Default)]
struct Pairs {
    starts: Vec<usize>,
    to: Vec<(u32, LinkFlags)>,
}

impl Pairs {
    /// The pairs from links grouped by source (`starts[s]..starts[s + 1]` of `to`, in any
    /// order within a source, a pair maybe more than once): each source's sorted, and each
    /// pair's flags merged, on both cores.
    fn from_grouped(starts: &[usize], mut to: Vec<(u32, LinkFlags)>) -> Pairs {
        use rayon::prelude::*;
        let mut rows: Vec<&mut [(u32, LinkFlags)]> = Vec::with_capacity(starts.len());
        let mut rest = to.as_mut_slice();
        for w in starts.windows(2) {
            let (row, tail) = rest.split_at_mut(w[1] - w[0]);
            rows.push(row);
            rest = tail;
        }
        let kept: Vec<usize> = rows
            .into_par_iter()
            .map(|row| {
                row.sort_unstable_by_key(|e| e.0);
                let mut n = 0;
                for i in 0..row.len() {
                    if n > 0 && row[n - 1].0 == row[i].0 {
                        row[n - 1].1 = row[n - 1].1.or(row[i].1);
                    } else {
                        row[n] = row[i];
                        n += 1;
                    }
                }
                n
            })
            .collect();
        // Each row's merged pairs moved down to close the gaps.
        let mut out_starts = Vec::with_capacity(starts.len());
        out_starts.push(0);
        let mut end = 0;
        for (w, &n) in starts.windows(2).zip(&kept) {
            to.copy_within(w[0]..w[0] + n, end);
            end += n;
            out_starts.push(end);
        }
        to.truncate(end);
        to.shrink_to_fit();
        Pairs {
            starts: out_starts,
            to,
        }
    }

    /// The pages `s` links to.
    fn row(&self, s: u32) -> &[(u32, LinkFlags)] {
        let s = s as usize;
        match (self.starts.get(s), self.starts.get(s + 1)) {
            (Some(&from), Some(&to)) => &self.to[from..to],
            _ => &[],
        }
    }

    /// Every pair with its flags, by source then destination.
    fn iter(&self) -> impl Iterator<Item = (u32, u32, LinkFlags)> + '_ {
        self.starts.windows(2).enumerate().flat_map(|(s, w)| {
            self.to[w[0]..w[1]]
                .iter()
                .map(move |&(d, f)| (s as u32, d, f))
        })
    }
}

impl LinkFlags {
    /// Both sets of flags.
    fn or(self, other: LinkFlags) -> LinkFlags {
        LinkFlags {
            body: self.body || other.body,
            body_nofollow: self.body_nofollow || other.body_nofollow,
            body_via_redirect: self.body_via_redirect || other.body_via_redirect,
            template: self.template || other.template,
        }
    }
}

/// The pages with a body link to each destination ([`LinkSet::body_sources`]), sources
/// ascending: grouped by a counting sort over the pairs, with no hashing and no vector per
/// destination (a million-page site has 16 million body links).
#[derive(Debug, Default)]
pub struct BodyInlinks {
    /// Destination `d`'s sources are `sources[start[d]..start[d + 1]]`.
    start: Vec<usize>,
    sources: Vec<u32>,
}

impl BodyInlinks {
    /// Group the `(source, destination)` pairs `pairs()` yields (three times, alike) by
    /// destination, keeping their order within one.
    fn new<I: Iterator<Item = (u32, u32)>>(pairs: impl Fn() -> I) -> BodyInlinks {
        let pages = pairs().map(|(_, d)| d as usize + 1).max().unwrap_or(0);
        let mut start = vec![0usize; pages + 1];
        for (_, d) in pairs() {
            start[d as usize + 1] += 1;
        }
        for d in 0..pages {
            start[d + 1] += start[d];
        }
        let mut fill = start.clone();
        let mut sources = vec![0u32; start[pages]];
        for (s, d) in pairs() {
            sources[fill[d as usize]] = s;
            fill[d as usize] += 1;
        }
        BodyInlinks { start, sources }
    }

    /// The pages linking to `destination` in the body (none for an id past the table).
    pub fn of(&self, destination: u32) -> &[u32] {
        let d = destination as usize;
        match (self.start.get(d), self.start.get(d + 1)) {
            (Some(&a), Some(&b)) => &self.sources[a..b],
            _ => &[],
        }
    }

    /// Every destination with at least one body link, ascending, with its sources.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        self.start
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[1] > w[0])
            .map(|(d, w)| (d as u32, &self.sources[w[0]..w[1]]))
    }
}

/// Directed links between resolved pages.
#[derive(Debug, Default)]
pub struct LinkSet {
    pairs: Pairs,
    /// Links labelled with a body position that were reclassified as template blocks.
    pub reclassified: u64,
    /// Distinct (Link Path, Destination) blocks reclassified.
    pub reclassified_blocks: usize,
    /// Linking pages a block must appear on to be a template.
    pub template_floor: u32,
    /// Anchor texts of body links to each page, with how many links use each (when kept).
    pub anchors: HashMap<u32, Vec<(String, u32)>>,
    /// [`LinkSet::body_sources`], grouped the first time a stage asks (four do).
    body: OnceLock<BodyInlinks>,
}

impl LinkSet {
    /// Flags of the directed pair `source → destination`.
    pub fn flags(&self, source: u32, destination: u32) -> LinkFlags {
        let row = self.pairs.row(source);
        row.binary_search_by_key(&destination, |e| e.0)
            .map_or(LinkFlags::default(), |i| row[i].1)
    }

    /// Status of `source → destination`.
    pub fn status(&self, source: u32, destination: u32) -> LinkStatus {
        let f = self.flags(source, destination);
        if f.body {
            LinkStatus::Body
        } else if f.body_nofollow {
            LinkStatus::BodyNofollow
        } else if f.body_via_redirect {
            LinkStatus::ViaRedirect
        } else if f.template {
            LinkStatus::TemplateOnly
        } else {
            LinkStatus::NotFound
        }
    }

    /// Pages with a body link (direct, nofollow or via redirect) to each destination: grouped
    /// once, on the first call, and shared by the stages after it.
    pub fn body_sources(&self) -> &BodyInlinks {
        self.body.get_or_init(|| {
            BodyInlinks::new(|| {
                self.pairs.iter().filter_map(|(s, d, f)| {
                    (f.body || f.body_nofollow || f.body_via_redirect).then_some((s, d))
                })
            })
        })
    }

    /// Pages that link to at least one other page.
    pub fn sources(&self) -> BTreeSet<u32> {
        self.pairs
            .starts
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[1] > w[0])
            .map(|(s, _)| s as u32)
            .collect()
    }

    /// Number of distinct directed pairs.
    pub fn len(&self) -> usize {
        self.pairs.to.len()
    }

    /// Whether there are no links.
    pub fn is_empty(&self) -> bool {
        self.pairs.to.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(body: bool, template: bool) -> LinkFlags {
        LinkFlags {
            body,
            template,
            ..LinkFlags::default()
        }
    }

    #[test]
    fn pairs_grouped_by_source_are_sorted_and_merged() {
        // Page 0 links to 5 (body), 2, then 5 again (template); page 1 none; page 2 to 0.
        let starts = vec![0, 3, 3, 4];
        let to = vec![
            (5, flags(true, false)),
            (2, flags(false, true)),
            (5, flags(false, true)),
            (0, flags(true, false)),
        ];
        let set = LinkSet {
            pairs: Pairs::from_grouped(&starts, to),
            ..LinkSet::default()
        };
        assert_eq!(set.len(), 3);
        assert_eq!(set.flags(0, 5), flags(true, true));
        assert_eq!(set.status(0, 5), LinkStatus::Body);
        assert_eq!(set.status(0, 2), LinkStatus::TemplateOnly);
        assert_eq!(set.status(2, 0), LinkStatus::Body);
        // Absent pairs and ids past the table are "not found", never a panic.
        assert_eq!(set.status(1, 0), LinkStatus::NotFound);
        assert_eq!(set.status(0, 3), LinkStatus::NotFound);
        assert_eq!(set.status(99, 0), LinkStatus::NotFound);
        assert_eq!(set.sources().into_iter().collect::<Vec<_>>(), [0, 2]);
        let body = set.body_sources();
        assert_eq!(body.of(5), [0]);
        assert_eq!(body.of(0), [2]);
        assert!(body.of(2).is_empty());
        assert!(body.of(99).is_empty());
        assert_eq!(body.iter().map(|(d, _)| d).collect::<Vec<_>>(), [0, 5]);
        assert!(LinkSet::default().is_empty());
        assert_eq!(LinkSet::default().status(0, 1), LinkStatus::NotFound);
        assert_eq!(LinkSet::default().body_sources().iter().count(), 0);
        assert!(LinkSet::default().body_sources().of(0).is_empty());
    }

    #[test]
    fn body_sources_group_every_body_kind_by_destination_sources_ascending() {
        let link = |body, body_nofollow, body_via_redirect, template| LinkFlags {
            body,
            body_nofollow,
            body_via_redirect,
            template,
        };
        // Page 0 links to 5 and 4 in the body (4 in the template too), 1 to 5 nofollow, 2 to
        // 5 in the template only, 3 to 2, and 4 to 5 through a redirect.
        let starts = vec![0, 2, 3, 4, 5, 6];
        let to = vec![
            (5, link(true, false, false, false)),
            (4, link(true, false, false, true)),
            (5, link(false, true, false, false)),
            (5, link(false, false, false, true)),
            (2, link(true, false, false, false)),
            (5, link(false, false, true, false)),
        ];
        let set = LinkSet {
            pairs: Pairs::from_grouped(&starts, to),
            ..LinkSet::default()
        };
        let body = set.body_sources();
        assert_eq!(body.of(5), [0, 1, 4]);
        assert_eq!(body.of(4), [0]);
        assert_eq!(body.of(2), [3]);
        assert!(body.of(3).is_empty());
        assert_eq!(
            body.iter().collect::<Vec<_>>(),
            [(2, &[3][..]), (4, &[0][..]), (5, &[0, 1, 4][..])]
        );
    }

    #[test]
    fn anchors_are_counted_in_file_order_across_batches_the_first_ones_kept() {
        // Page a links b under 40 distinct anchors, each used by (i % 3 + 1) links: the first
        // 20 before two batches of other links, the last 20 after them, so b's anchors span
        // batches and counting them out of order would keep others first. Page c links b
        // "home" in the navigation (not counted), and d links itself. Only b's first
        // MAX_ANCHORS distinct texts in file order stay.
        let rules = Rules::default();
        let link_rules = LinkRules {
            keep_anchors: true,
            ..LinkRules::default()
        };
        let mut urls = UrlTable::default();
        let mut report = Report::new();
        let stats = report.file("all_inlinks.csv", crate::report::Role::Inlinks);
        let mut collector = LinkCollector::new();
        collector.keep_anchors();
        let row = |source, destination, position, anchor| LinkRow {
            row: 2,
            kind: LinkKind::Hyperlink,
            type_text: "Hyperlink",
            source,
            destination,
            position,
            path: "",
            follow: Some(true),
            rel: "",
            anchor,
            alt_text: "",
        };
        let texts: Vec<String> = (0..40).map(|i| format!("anchor {i}")).collect();
        let filler: Vec<String> = (0..2 * ANCHOR_BATCH_ROWS)
            .map(|i| format!("https://e.com/f{i}"))
            .collect();
        let mut rows = Vec::new();
        for half in [0..20, 20..40] {
            if half.start > 0 {
                for f in &filler {
                    rows.push(row("https://e.com/a", f, "Content", " filler "));
                }
            }
            for round in 0..3 {
                for i in half.clone() {
                    if round <= i % 3 {
                        rows.push(row(
                            "https://e.com/a",
                            "https://e.com/b",
                            "Content",
                            texts[i].as_str(),
                        ));
                    }
                }
            }
        }
        rows.push(row(
            "https://e.com/c",
            "https://e.com/b",
            "Navigation",
            "home",
        ));
        rows.push(row("https://e.com/d", "https://e.com/d", "Content", "self"));
        rows.push(row(
            "https://e.com/c",
            "https://e.com/b",
            "Content",
            "anchor 0",
        ));
        for r in &rows {
            collector.add(r, &mut urls, &rules, &link_rules, &mut report, stats);
        }
        let resolved = crate::normalize::identity::resolve_all(
            urls.len(),
            &crate::normalize::identity::Edges::default(),
        );
        let set = collector.finish(&resolved, &link_rules);
        let b = urls.get("https://e.com/b").unwrap();
        let known = &set.anchors[&b];
        assert_eq!(known.len(), MAX_ANCHORS);
        for (i, (text, links)) in known.iter().enumerate() {
            assert_eq!(text, &texts[i]);
            // "anchor 0" once from a, once from c at the very end.
            assert_eq!(*links, (i % 3 + 1) as u32 + u32::from(i == 0), "{text}");
        }
        let f = urls.get(&filler[ANCHOR_BATCH_ROWS]).unwrap();
        assert_eq!(set.anchors[&f], [("filler".to_string(), 1)]);
        assert!(
            !set.anchors
                .contains_key(&urls.get("https://e.com/d").unwrap())
        );
    }
}
