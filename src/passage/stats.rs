//! Site statistics, built in one streaming pass over the pages (every page, or on a large
//! site a fixed sample of them, see [`Sample`]): BM25 document frequencies over blocks, the
//! average block length, template blocks (a block text repeated on many pages is site
//! furniture, not editorial context; the rule mirrors the links module's repeated-block rule),
//! and, for the phrases that name pages ([`Phrases`]), how often the site writes each and how
//! often it links it (their link rate, [`SiteStats::link_rate`]). Memory is bounded by the
//! site's vocabulary, its distinct blocks and the phrases counted, kept as 64-bit hashes,
//! never as strings.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::blocks::Block;
use super::text::{SEQUENCE_SEED, for_each_hash, sequence_hash, sequence_step, text_hash};

/// Keys are already hashes: use them as they are.
#[derive(Default, Clone, Copy)]
pub struct PreHashed(u64);

impl Hasher for PreHashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type HashMap64<V> = HashMap<u64, V, BuildHasherDefault<PreHashed>>;
type HashSet64 = HashSet<u64, BuildHasherDefault<PreHashed>>;

/// Share of titles a title part must appear in to be furniture.
const TITLE_PART_SHARE: f64 = 0.05;

/// When a repeated block counts as template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TemplateRules {
    /// A block text on at least this share of pages is template.
    pub share: f64,
    /// … and on at least this many pages.
    pub min_pages: u32,
}

impl Default for TemplateRules {
    fn default() -> Self {
        // The same defaults as `LinkRules` (--template-share, --template-min-pages).
        TemplateRules {
            share: 0.2,
            min_pages: 5,
        }
    }
}

/// Pages the statistics are built from when a site has more (`--text-stats-pages`).
///
/// The block statistics are shares (a word's share of blocks, a block's share of pages, the
/// mean block length; titles are always all counted), and a share is measured as well on
/// 10,000 pages as on a million: a word on 0.1% of blocks is seen ~200 times in the sample
/// (±7% on its frequency, ±0.07 on its idf). Held out, samples of 200 to 1,000 pages moved
/// no figure by more than a point (docs/passage.md). Splitting every page twice (once for
/// the statistics, once to score) was the largest part of the passage stage on large sites;
/// at 20,000 pages the first pass still took 0.9 s of a 100,041-page site's run, at 10,000
/// half that.
pub const SAMPLE_PAGES: usize = 10_000;

/// Which pages the statistics are built from: all of them, or a fixed share chosen by a hash
/// of the page's URL, so the same site gives the same sample on every run and every machine,
/// and a sample is spread over the site rather than taken from the top of the crawl order.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// A page is kept when its key hash is below this; `None` keeps every page.
    below: Option<u64>,
    /// The share of pages kept (1 for every page).
    share: f64,
}

impl Sample {
    /// About `max_pages` of a site's `pages` (every page when `max_pages` is `None`, 0 or at
    /// least `pages`).
    pub fn new(max_pages: Option<usize>, pages: usize) -> Self {
        match max_pages {
            Some(max) if max > 0 && max < pages => {
                let share = max as f64 / pages as f64;
                // The share of the 64-bit hash space, rounded down (exact enough: 2^-53).
                Sample {
                    below: Some((share * 2f64.powi(64)) as u64),
                    share,
                }
            }
            _ => Sample {
                below: None,
                share: 1.0,
            },
        }
    }

    /// `rules` for the sample's pages: a block on `min_pages` of the site's pages is on
    /// about `min_pages × share` of the sample's (the share of pages scales by itself).
    pub fn template_rules(&self, rules: TemplateRules) -> TemplateRules {
        TemplateRules {
            share: rules.share,
            min_pages: ((f64::from(rules.min_pages) * self.share).ceil() as u32).max(1),
        }
    }

    /// Whether the page named by `key` (its URL) is in the sample.
    pub fn keeps(&self, key: &str) -> bool {
        self.below.is_none_or(|below| key_hash(key) < below)
    }

    /// Whether this is a sample rather than every page.
    pub fn is_partial(&self) -> bool {
        self.below.is_some()
    }
}

/// A URL's sample key: FNV-1a over its bytes, then a 64-bit finalizer (FNV's high bits alone
/// are not uniform enough to compare with a threshold).
fn key_hash(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // splitmix64's finalizer.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Phrases that name pages (the crawl's anchor texts, titles, H1s), as word sequences: the
/// statistics count how often each is written on the site and how often it is the whole
/// text of a link ([`SiteStats::link_rate`]).
#[derive(Debug, Default)]
pub struct Phrases {
    /// Each phrase's [`sequence_hash`].
    sequences: HashSet64,
    /// The hash of each phrase's first word: a block word that starts no phrase is passed
    /// over at once.
    first: HashSet64,
    /// The longest phrase, in words.
    longest: usize,
}

/// What [`Phrases`] keeps of a phrase; worked out apart from the set, so many can be on
/// both cores.
#[derive(Debug, Clone, Copy)]
pub struct PhraseKey {
    sequence: u64,
    first: u64,
    words: usize,
}

impl PhraseKey {
    /// The key of `text`, if it has 1–[`MAX_COUNTED_WORDS`] words.
    pub fn of(text: &str) -> Option<PhraseKey> {
        let mut h = SEQUENCE_SEED;
        let (mut first, mut n) = (None, 0);
        for_each_hash(text, |w| {
            h = sequence_step(h, w);
            first.get_or_insert(w);
            n += 1;
        });
        first
            .filter(|_| n <= MAX_COUNTED_WORDS)
            .map(|first| PhraseKey {
                sequence: h,
                first,
                words: n,
            })
    }
}

/// Phrases longer than this are not counted: a link text that long is a sentence, and
/// counting costs a probe per word for each length.
pub const MAX_COUNTED_WORDS: usize = 8;

impl Phrases {
    /// The phrases among `texts`.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Phrases::default();
        for text in texts {
            out.add(text);
        }
        out
    }

    /// Count `text` too, if it has 1–[`MAX_COUNTED_WORDS`] words.
    pub fn add(&mut self, text: &str) {
        if let Some(key) = PhraseKey::of(text) {
            self.insert(key);
        }
    }

    /// Count the phrase `key` stands for.
    pub fn insert(&mut self, key: PhraseKey) {
        self.sequences.insert(key.sequence);
        self.first.insert(key.first);
        self.longest = self.longest.max(key.words);
    }

    /// No phrases.
    pub fn is_empty(&self) -> bool {
        self.sequences.is_empty()
    }
}

/// The link rate of a phrase with no occurrences counted. The held-out anchor figures moved
/// by at most a point for priors of 0.1–0.6 (`examples/passage_eval.rs` on postgres15).
pub const LINK_RATE_PRIOR: f64 = 0.3;
/// How many occurrences the prior counts for.
pub const LINK_RATE_PRIOR_WEIGHT: f64 = 2.0;

/// How often a phrase is written in the blocks read, and how often as a link's whole text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Mentions {
    /// Occurrences as a word sequence (linked or not).
    pub written: u32,
    /// Occurrences that are the whole text of a link.
    pub linked: u32,
}

/// Collects the statistics page by page. Builders of disjoint page sets can be merged, so the
/// pass can run in parallel.
#[derive(Debug, Default, Clone)]
pub struct StatsBuilder {
    phrases: Option<Arc<Phrases>>,
    mentions: HashMap64<Mentions>,
    df: HashMap64<u32>,
    block_pages: HashMap64<u32>,
    blocks: u64,
    words: u64,
    pages: u32,
    title_parts: HashMap64<u32>,
    titles: u32,
    scratch: Vec<u64>,
}

impl StatsBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder that also counts how often each of `phrases` is written and linked.
    pub fn counting(phrases: Arc<Phrases>) -> Self {
        StatsBuilder {
            phrases: (!phrases.is_empty()).then_some(phrases),
            ..Self::default()
        }
    }

    /// Add one page's blocks.
    pub fn add_page(&mut self, blocks: &[Block]) {
        self.pages += 1;
        let mut seen: Vec<u64> = Vec::with_capacity(blocks.len());
        for block in blocks {
            self.scratch.clear();
            for_each_hash(&block.text, |h| self.scratch.push(h));
            if self.scratch.is_empty() {
                continue;
            }
            self.blocks += 1;
            self.words += self.scratch.len() as u64;
            seen.push(sequence_hash(&self.scratch));
            if let Some(phrases) = &self.phrases {
                count_mentions(phrases, &self.scratch, block, &mut self.mentions);
            }
            self.scratch.sort_unstable();
            self.scratch.dedup();
            for &h in &self.scratch {
                *self.df.entry(h).or_insert(0) += 1;
            }
        }
        seen.sort_unstable();
        seen.dedup();
        for h in seen {
            *self.block_pages.entry(h).or_insert(0) += 1;
        }
    }

    /// Add one page's title (Internal: All `Title 1`), so that title parts most pages share
    /// (the site name) are known as furniture and never taken for the page's topic.
    pub fn add_title(&mut self, title: &str) {
        let parts = super::text::title_parts(title);
        if parts.len() < 2 {
            return;
        }
        self.titles += 1;
        let mut hashes: Vec<u64> = parts.iter().map(|p| text_hash(p)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        for h in hashes {
            *self.title_parts.entry(h).or_insert(0) += 1;
        }
    }

    /// Fold in a builder of other pages.
    pub fn merge(&mut self, other: StatsBuilder) {
        for (h, m) in other.mentions {
            let mine = self.mentions.entry(h).or_default();
            mine.written += m.written;
            mine.linked += m.linked;
        }
        for (h, n) in other.df {
            *self.df.entry(h).or_insert(0) += n;
        }
        for (h, n) in other.block_pages {
            *self.block_pages.entry(h).or_insert(0) += n;
        }
        for (h, n) in other.title_parts {
            *self.title_parts.entry(h).or_insert(0) += n;
        }
        self.titles += other.titles;
        self.blocks += other.blocks;
        self.words += other.words;
        self.pages += other.pages;
    }

    /// The statistics, with template blocks decided by `rules`.
    pub fn finish(self, rules: &TemplateRules) -> SiteStats {
        let floor = (rules.share * f64::from(self.pages))
            .ceil()
            .max(f64::from(rules.min_pages)) as u32;
        let template: HashSet64 = if rules.share > 0.0 {
            self.block_pages
                .iter()
                .filter(|&(_, &n)| n >= floor)
                .map(|(&h, _)| h)
                .collect()
        } else {
            HashSet64::default()
        };
        // A title part on this many titles is furniture: a lower share than for blocks, since a
        // site name or a section name is spread over the titles of many page types.
        let title_floor = (TITLE_PART_SHARE * f64::from(self.titles))
            .ceil()
            .max(f64::from(rules.min_pages)) as u32;
        let common_title_parts = self
            .title_parts
            .iter()
            .filter(|&(_, &n)| n >= title_floor)
            .map(|(&h, _)| h)
            .collect();
        SiteStats {
            mentions: self.mentions,
            df: self.df,
            template,
            common_title_parts,
            blocks: self.blocks,
            avg_len: if self.blocks == 0 {
                1.0
            } else {
                self.words as f64 / self.blocks as f64
            },
            pages: self.pages,
            template_floor: floor,
        }
    }
}

/// Count in `mentions` each of `phrases` written in a block (its word hashes `words`, in
/// order) and each that is a link's whole text.
fn count_mentions(
    phrases: &Phrases,
    words: &[u64],
    block: &Block,
    mentions: &mut HashMap64<Mentions>,
) {
    for i in 0..words.len() {
        if !phrases.first.contains(&words[i]) {
            continue;
        }
        let mut h = SEQUENCE_SEED;
        for &w in &words[i..(i + phrases.longest).min(words.len())] {
            h = sequence_step(h, w);
            if phrases.sequences.contains(&h) {
                mentions.entry(h).or_default().written += 1;
            }
        }
    }
    for link in &block.links {
        let Some(text) = block.text.get(link.range.clone()) else {
            continue;
        };
        let mut h = SEQUENCE_SEED;
        let mut n = 0;
        for_each_hash(text, |w| {
            h = sequence_step(h, w);
            n += 1;
        });
        if n > 0 && phrases.sequences.contains(&h) {
            mentions.entry(h).or_default().linked += 1;
        }
    }
}

/// What the scoring needs to know about the whole site.
#[derive(Debug, Clone, Default)]
pub struct SiteStats {
    mentions: HashMap64<Mentions>,
    df: HashMap64<u32>,
    template: HashSet64,
    common_title_parts: HashSet64,
    /// Blocks with at least one word.
    pub blocks: u64,
    /// Average words per block.
    pub avg_len: f64,
    /// Pages read.
    pub pages: u32,
    /// Pages a block text must appear on to be template.
    pub template_floor: u32,
}

impl SiteStats {
    /// BM25's inverse document frequency of a word (by hash), never negative.
    pub fn idf(&self, word: u64) -> f64 {
        let n = self.blocks as f64;
        let df = f64::from(self.df.get(&word).copied().unwrap_or(0));
        ((n - df + 0.5) / (df + 0.5)).ln_1p()
    }

    /// How often a phrase (its word hashes, in order) is written in the blocks read and how
    /// often it is a link's whole text; zero for a phrase not counted ([`Phrases`]).
    pub fn mentions(&self, word_hashes: &[u64]) -> Mentions {
        self.mentions
            .get(&sequence_hash(word_hashes))
            .copied()
            .unwrap_or_default()
    }

    /// The share of a phrase's written occurrences that are a link's whole text, smoothed
    /// toward [`LINK_RATE_PRIOR`] as if [`LINK_RATE_PRIOR_WEIGHT`] more occurrences had been
    /// seen: a phrase seen once, linked, is not certain to be linked; one never written in the
    /// blocks read (or not counted) gets the prior.
    pub fn link_rate(&self, word_hashes: &[u64]) -> f64 {
        let m = self.mentions(word_hashes);
        // A link's text cut inside a word can count as linked without being written.
        let written = m.written.max(m.linked);
        (f64::from(m.linked) + LINK_RATE_PRIOR_WEIGHT * LINK_RATE_PRIOR)
            / (f64::from(written) + LINK_RATE_PRIOR_WEIGHT)
    }

    /// Blocks containing a word (by hash).
    pub fn df(&self, word: u64) -> u32 {
        self.df.get(&word).copied().unwrap_or(0)
    }

    /// Whether a block's text repeats on enough pages to be template.
    pub fn is_template(&self, block: &Block) -> bool {
        self.template.contains(&text_hash(&block.text))
    }

    /// [`is_template`](Self::is_template) of a block whose word hashes are known.
    pub fn is_template_words(&self, word_hashes: &[u64]) -> bool {
        self.template.contains(&sequence_hash(word_hashes))
    }

    /// Whether a title part is shared by many titles (the site name, a section name).
    pub fn is_common_title_part(&self, part: &str) -> bool {
        self.common_title_parts.contains(&text_hash(part))
    }

    /// Distinct template block texts.
    pub fn template_blocks(&self) -> usize {
        self.template.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passage::blocks::split_html;
    use crate::passage::text::word_hash;

    #[test]
    fn phrases_are_counted_where_written_and_where_linked() {
        let phrases = Arc::new(Phrases::new([
            "Section 34.15",
            "environment variables",
            "never written",
            "one two three four five six seven eight nine",
        ]));
        let pages = [
            "<p>Uses the environment variables of libpq (see <a href=x>Section 34.15</a>).</p>",
            "<p>Set the <a href=y>Environment Variables</a>; environment variables matter.</p>",
            "<p>More environment variables, and Section 34.15 unlinked.</p>",
            "<p>one two three four five six seven eight nine</p>",
        ];
        // Two builders merged count what one builder counts.
        let mut whole = StatsBuilder::counting(phrases.clone());
        let (mut left, mut right) = (
            StatsBuilder::counting(phrases.clone()),
            StatsBuilder::counting(phrases),
        );
        for (i, html) in pages.iter().enumerate() {
            let blocks = split_html(html);
            whole.add_page(&blocks);
            if i % 2 == 0 { &mut left } else { &mut right }.add_page(&blocks);
        }
        left.merge(right);
        let (stats, merged) = (
            whole.finish(&TemplateRules::default()),
            left.finish(&TemplateRules::default()),
        );
        let hashes = |t: &str| {
            crate::passage::text::words(t)
                .iter()
                .map(|w| w.hash)
                .collect::<Vec<_>>()
        };
        for s in [&stats, &merged] {
            let section = s.mentions(&hashes("section 34.15"));
            assert_eq!((section.written, section.linked), (2, 1));
            let env = s.mentions(&hashes("Environment variables"));
            assert_eq!((env.written, env.linked), (4, 1));
            assert_eq!(s.mentions(&hashes("never written")), Mentions::default());
            // Longer than MAX_COUNTED_WORDS: not a phrase, not counted.
            assert_eq!(
                s.mentions(&hashes("one two three four five six seven eight nine")),
                Mentions::default()
            );
        }
        // (1 + 2 × 0.3) / (2 + 2) and (1 + 0.6) / (4 + 2); unseen: the prior.
        assert!((stats.link_rate(&hashes("Section 34.15")) - 0.4).abs() < 1e-12);
        assert!((stats.link_rate(&hashes("environment variables")) - 1.6 / 6.0).abs() < 1e-12);
        assert!((stats.link_rate(&hashes("never written")) - LINK_RATE_PRIOR).abs() < 1e-12);
    }

    #[test]
    fn repeated_blocks_are_template_above_share_and_floor() {
        let mut b = StatsBuilder::new();
        for i in 0..10 {
            let extra = if i < 2 { "<p>Rare aside</p>" } else { "" };
            let html = format!(
                "<p>Page {i} talks about topic {i}.</p><p>Subscribe to our newsletter!</p>{extra}"
            );
            b.add_page(&split_html(&html));
        }
        let stats = b.finish(&TemplateRules::default());
        assert_eq!(stats.template_floor, 5);
        let blocks = split_html("<p>subscribe to our NEWSLETTER</p><p>Rare aside</p>");
        assert!(stats.is_template(&blocks[0]));
        assert!(!stats.is_template(&blocks[1]));
        assert_eq!(stats.template_blocks(), 1);
        assert!(stats.idf(word_hash("rare")) > stats.idf(word_hash("page")));
        assert_eq!(stats.df(word_hash("topic")), 10);
    }

    #[test]
    fn a_block_repeated_within_one_page_is_not_template() {
        let mut b = StatsBuilder::new();
        b.add_page(&split_html(&"<p>Note</p>".repeat(20)));
        for _ in 0..9 {
            b.add_page(&split_html("<p>Other</p>"));
        }
        let stats = b.finish(&TemplateRules::default());
        assert!(!stats.is_template(&split_html("<p>Note</p>")[0]));
        assert!(stats.is_template(&split_html("<p>Other</p>")[0]));
    }

    #[test]
    fn a_sample_keeps_about_its_share_and_the_same_pages_every_time() {
        let urls: Vec<String> = (0..100_000)
            .map(|i| format!("https://example.com/docs/page-{i}.html"))
            .collect();
        let all = Sample::new(None, urls.len());
        assert!(!all.is_partial());
        assert!(urls.iter().all(|u| all.keeps(u)));
        assert!(!Sample::new(Some(100_000), urls.len()).is_partial());
        assert!(
            !Sample::new(Some(0), urls.len()).is_partial(),
            "0 is every page"
        );
        assert!(!Sample::new(Some(10), 0).is_partial());
        let sample = Sample::new(Some(20_000), urls.len());
        assert!(sample.is_partial());
        let kept: Vec<&String> = urls.iter().filter(|u| sample.keeps(u)).collect();
        // Binomial(100,000, 0.2): sd ~126, so 20,000 ± 800 is over six sd.
        assert!((19_200..=20_800).contains(&kept.len()), "{}", kept.len());
        // Spread over the crawl order, not its top: each tenth of the URLs gives its share.
        for tenth in urls.chunks(10_000) {
            let n = tenth.iter().filter(|u| sample.keeps(u)).count();
            assert!((1_700..=2_300).contains(&n), "{n}");
        }
        let again = Sample::new(Some(20_000), urls.len());
        assert!(urls.iter().all(|u| sample.keeps(u) == again.keeps(u)));
        // The template floor's page count scales with the sample; its share needs not.
        let rules = TemplateRules {
            share: 0.2,
            min_pages: 5,
        };
        assert_eq!(
            sample.template_rules(rules),
            TemplateRules {
                share: 0.2,
                min_pages: 1
            }
        );
        let rules = TemplateRules {
            share: 0.0,
            min_pages: 50,
        };
        assert_eq!(sample.template_rules(rules).min_pages, 10);
        assert_eq!(all.template_rules(rules), rules);
    }

    #[test]
    fn merged_builders_equal_one_pass() {
        let pages = ["<p>a b</p>", "<p>b c</p>", "<p>c d</p>"];
        let mut one = StatsBuilder::new();
        let (mut x, mut y) = (StatsBuilder::new(), StatsBuilder::new());
        for (i, p) in pages.iter().enumerate() {
            one.add_page(&split_html(p));
            if i % 2 == 0 { &mut x } else { &mut y }.add_page(&split_html(p));
        }
        x.merge(y);
        let (a, b) = (
            one.finish(&TemplateRules::default()),
            x.finish(&TemplateRules::default()),
        );
        assert_eq!((a.blocks, a.pages), (b.blocks, b.pages));
        assert_eq!(a.df(word_hash("b")), b.df(word_hash("b")));
    }
}
