//! Site statistics, built in one streaming pass over the pages (every page, or on a large
//! site a fixed sample of them, see [`Sample`]): BM25 document frequencies over blocks, the
//! average block length, and template blocks (a block text repeated on many pages is site
//! furniture, not editorial context; the rule mirrors the links module's repeated-block rule).
//! Memory is bounded by the site's vocabulary and its distinct blocks, kept as 64-bit hashes,
//! never as strings.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::blocks::Block;
use super::text::{for_each_hash, sequence_hash, text_hash};

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
/// 20,000 pages as on a million: a word on
/// 0.1% of blocks is seen ~400 times in the sample (±5% on its frequency, ±0.05 on its idf).
/// Splitting every page twice (once for the statistics, once to score) was the largest part
/// of the passage stage on large sites.
pub const SAMPLE_PAGES: usize = 20_000;

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

/// Collects the statistics page by page. Builders of disjoint page sets can be merged, so the
/// pass can run in parallel.
#[derive(Debug, Default, Clone)]
pub struct StatsBuilder {
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

/// What the scoring needs to know about the whole site.
#[derive(Debug, Clone, Default)]
pub struct SiteStats {
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
