//! Scoring the blocks of a source page S as places for a link to a destination D.
//!
//! D is described by its phrases: the anchor texts other pages already use for it (weighted
//! by how often), its title (whole, and split at separators such as ` | ` or `. `, leading
//! section numbers dropped) and its H1. A block scores BM25 over the site's blocks with the
//! phrases' words as the query (stop words down-weighted), plus a bonus when it contains a
//! whole phrase as a word sequence, worth the phrase's weight times the rarity of its words.
//! Words inside a block's links to other pages count for neither: they name those pages.
//! The kind of block scales the score (headings, code, other containers are weak places).
//! A block that already links to D, or a template block, is no place. The score is scaled by
//! what a block holding D's best phrase would get, so a floor means the same on every site.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;

use url::Url;

use super::anchor::{self, is_generic};
use super::blocks::{Block, BlockKind};
use super::stats::SiteStats;
use super::text::{Phrase, for_each_hash_at, title_parts, words};
use super::weight::block_weight;

/// BM25 term saturation.
const K1: f64 = 1.2;
/// BM25 length normalization.
const B: f64 = 0.75;
/// Query weight of a stop word, relative to the phrase it comes from.
const STOP_WEIGHT: f64 = 0.1;
/// Weight of a whole-phrase match against the BM25 part.
const PHRASE_BONUS: f64 = 2.0;
/// Below this passage score there is no natural place.
pub const FLOOR: f64 = 0.05;
/// A template block is a place after all when it holds a phrase of the destination that the
/// site links at least this often where it writes it: the boilerplate carries the link on
/// the other pages, and this page's copy lacks it ("Part of the git(1) suite").
const SITE_LINKED_RATE: f64 = 0.5;

/// What is known about a destination page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// Title 1.
    pub title: String,
    /// H1-1.
    pub h1: String,
    /// Anchor texts other pages use to link to it, with how many links use each.
    pub anchors: Vec<(String, u32)>,
}

/// A destination prepared for scoring: its phrases and query words. Build it once per
/// destination and score as many sources as needed.
#[derive(Debug, Clone)]
pub struct Query {
    phrases: Vec<Phrase>,
    /// (word hash, query weight × idf).
    terms: Vec<(u64, f64)>,
    /// The score of an ideal place, to scale scores to 0–1.
    ideal: f64,
    /// The phrases' [`anchor::PhraseIndex`], for the anchor choice.
    index: anchor::PhraseIndex,
    /// The phrases as [`Query::place`] reads them, one allocation for all: each phrase's
    /// words as indices into `terms` (every phrase word is a term), so the page's postings
    /// looked up for the BM25 part serve the phrase match too. Millions of pooled rows each
    /// reach a different destination's query, out of cache: with each phrase's words behind
    /// a pointer of their own, every phrase cost a cache miss and two hash probes.
    spans: Box<[PhraseSpan]>,
    /// The terms of each span, in order.
    span_terms: Box<[u32]>,
}

/// A phrase in [`Query::place`]'s form: its words are `span_terms[start..start + len]`.
#[derive(Debug, Clone, Copy)]
struct PhraseSpan {
    start: u32,
    len: u32,
    /// The phrase's bonus: its weight times its rarity.
    value: f64,
    /// Whether the site links the phrase more often than not where it writes it.
    site_linked: bool,
}

/// A suggested place for the link.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Index of the block in the source's blocks.
    pub block: usize,
    /// The block's text.
    pub text: String,
    /// The block's kind.
    pub kind: BlockKind,
    /// Passage score, 0–1.
    pub score: f64,
    /// The suggested anchor: its byte range in `text` and its words.
    pub anchor: Option<(Range<usize>, String)>,
}

/// Why no place was suggested.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoPlace {
    /// The source page has no text.
    NoText,
    /// Nothing names the destination: no title, H1 or usable anchor.
    NothingNamesTarget,
    /// Every block with text already links to the destination or is template.
    NoFreeBlock,
    /// The best block scored below the floor.
    BelowFloor {
        /// The best score found.
        best: f64,
    },
}

impl fmt::Display for NoPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoPlace::NoText => f.write_str("no page text for the source"),
            NoPlace::NothingNamesTarget => {
                f.write_str("no title, H1 or anchor text names the destination")
            }
            NoPlace::NoFreeBlock => f.write_str(
                "no natural place found: every block links to the destination already or is template",
            ),
            NoPlace::BelowFloor { best } => write!(
                f,
                "no natural place found (best passage score {best:.2}, floor {FLOOR:.2})"
            ),
        }
    }
}

/// Resolve an href as written in a page against the page's URL; `None` for a `mailto:` or
/// `javascript:` link or one that does not parse. The fragment is dropped.
pub fn resolve_href(base: &Url, href: &str) -> Option<Url> {
    let mut url = base.join(href.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// The phrases of a title or H1: the parts that are not site furniture (a part many titles
/// share, such as the site name), each, and together.
fn title_phrases(title: &str, stats: &SiteStats) -> Vec<String> {
    let kept: Vec<String> = title_parts(title)
        .into_iter()
        .filter(|p| !stats.is_common_title_part(p))
        .collect();
    let mut out = Vec::with_capacity(kept.len() + 1);
    if kept.len() > 1 {
        out.push(kept.join(" "));
    }
    out.extend(kept);
    out
}

impl Query {
    /// Prepare a destination. Generic anchors ("click here") and phrases without a word that
    /// is not a stop word or a number are left out.
    pub fn new(target: &Target, stats: &SiteStats) -> Query {
        Query::of(&target.title, &target.h1, &target.anchors, stats)
    }

    /// [`new`](Self::new) from what names the destination, borrowed from the crawl: a run
    /// prepares a hundred thousand destinations, and copying each one's anchors was a
    /// seventh of that.
    pub fn of(title: &str, h1: &str, anchors: &[(String, u32)], stats: &SiteStats) -> Query {
        let mut texts: Vec<(Cow<'_, str>, f64)> = Vec::new();
        for part in title_phrases(title, stats)
            .into_iter()
            .chain(title_phrases(h1, stats))
        {
            texts.push((Cow::Owned(part), 1.0));
        }
        let most = anchors.iter().map(|a| a.1).max().unwrap_or(1).max(1);
        for (text, count) in anchors {
            if is_generic(text) {
                continue;
            }
            let share = (f64::from(*count)).ln_1p() / f64::from(most).ln_1p();
            texts.push((Cow::Borrowed(text), 0.6 + 0.4 * share));
        }
        // Each distinct word's idf, looked up once: the phrases of a destination share most
        // of their words (title, H1, their parts, the anchors), and the site's table of
        // words is large, so each lookup missed the cache (a hundred thousand destinations).
        let mut idfs: Vec<(u64, f64)> = Vec::new();
        let mut idf = |h: u64| {
            if let Some(&(_, v)) = idfs.iter().find(|e| e.0 == h) {
                return v;
            }
            let v = stats.idf(h);
            idfs.push((h, v));
            v
        };
        let mut phrases: Vec<Phrase> = Vec::new();
        for (text, weight) in texts {
            let ws = words(&text);
            let meaningful = ws
                .iter()
                .any(|w| !w.stop && !text[w.range.clone()].bytes().all(|b| b.is_ascii_digit()));
            if !meaningful {
                continue;
            }
            let hashes: Vec<u64> = ws.iter().map(|w| w.hash).collect();
            if let Some(p) = phrases.iter_mut().find(|p| p.words == hashes) {
                p.weight = p.weight.max(weight);
                continue;
            }
            let rarity = ws.iter().filter(|w| !w.stop).map(|w| idf(w.hash)).sum();
            let link_rate = stats.link_rate(&hashes);
            phrases.push(Phrase {
                stop: ws.iter().map(|w| w.stop).collect(),
                words: hashes,
                weight,
                rarity,
                link_rate,
            });
        }
        let mut terms: Vec<(u64, f64)> = Vec::new();
        for p in &phrases {
            for (&h, &stop) in p.words.iter().zip(&p.stop) {
                let w = p.weight * if stop { STOP_WEIGHT } else { 1.0 } * idf(h);
                match terms.iter_mut().find(|t| t.0 == h) {
                    Some(t) => t.1 = t.1.max(w),
                    None => terms.push((h, w)),
                }
            }
        }
        let best_phrase = phrases
            .iter()
            .map(|p| p.weight * p.rarity)
            .fold(0.0, f64::max);
        let ideal = terms.iter().map(|t| t.1).sum::<f64>() + PHRASE_BONUS * best_phrase;
        let mut span_terms = Vec::new();
        let mut spans: Vec<PhraseSpan> = phrases
            .iter()
            .map(|p| {
                let start = span_terms.len() as u32;
                span_terms.extend(p.words.iter().map(|h| {
                    // Every phrase word was made a term just above.
                    terms.iter().position(|t| t.0 == *h).unwrap_or_default() as u32
                }));
                PhraseSpan {
                    start,
                    len: p.words.len() as u32,
                    value: p.weight * p.rarity,
                    site_linked: p.link_rate >= SITE_LINKED_RATE,
                }
            })
            .collect();
        // The most valuable phrase first: a block it is found in needs no search for the
        // others ([`Query::phrase_bonus`]). The bonus is a maximum, so the order changes no
        // score.
        spans.sort_by(|a, b| b.value.total_cmp(&a.value));
        Query {
            index: anchor::PhraseIndex::new(&phrases),
            phrases,
            terms,
            ideal,
            spans: spans.into(),
            span_terms: span_terms.into(),
        }
    }

    /// Each block's bonus for the destination phrase it contains as a word sequence (the
    /// best one's weight × rarity; 0 for none). Only blocks holding the phrase's rarest word
    /// on this page, found through the page's postings, are searched for it: a phrase word
    /// every block has (the topic's name) would send the search through the whole page.
    /// `found[t]` is term `t`'s postings on the page, as looked up for the BM25 part.
    fn phrase_bonus(
        &self,
        page: &Prepared<'_>,
        found: &[(u32, u32)],
        bonus: &mut [f64],
        (restores, row): (&mut [u32], u32),
    ) {
        let postings = |t: u32| {
            let (from, to) = found[t as usize];
            &page.postings[from as usize..to as usize]
        };
        for span in &self.spans {
            let words = &self.span_terms[span.start as usize..(span.start + span.len) as usize];
            let Some((count, pivot)) = words.iter().map(|&t| (postings(t).len(), t)).min() else {
                continue;
            };
            if count == 0 {
                continue;
            }
            let hash = |i: usize| self.terms[words[i] as usize].0;
            // The phrase is looked for where its pivot word is, not at every word.
            let at = words.iter().position(|&t| t == pivot).unwrap_or_default();
            for &(b, _) in postings(pivot) {
                let b = b as usize;
                // A more valuable phrase was found here already: this one can change nothing,
                // unless the site usually links it (then it restores a template block).
                if bonus[b] >= span.value && !span.site_linked {
                    continue;
                }
                let block = page.hashes(b);
                let holds = |j: usize| {
                    j >= at
                        && block
                            .get(j - at..j - at + words.len())
                            .is_some_and(|win| win.iter().enumerate().all(|(i, &h)| h == hash(i)))
                };
                if any_position(block, hash(at), holds) {
                    bonus[b] = f64::max(bonus[b], span.value);
                    if span.site_linked {
                        restores[b] = row;
                    }
                }
            }
        }
    }

    /// Read the first words of what [`Query::place`] reads, so they are on their way to the
    /// cache while another row is scored: a page's rows each reach a different
    /// destination's query, and its three arrays' first cache misses, one after another,
    /// were most of `place`'s time on a 100,000-page site. Call it for the next row.
    pub fn touch(&self) {
        // A prefetch, not a load: a load waited for its cache line (a tenth of the scoring
        // pass's samples sat on it), a prefetch lets the row being scored go on meanwhile.
        #[cfg(target_arch = "x86_64")]
        {
            prefetch(self.terms.as_ptr().cast());
            prefetch(self.spans.as_ptr().cast());
            prefetch(self.span_terms.as_ptr().cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let first = self.terms.first().map_or(0, |t| t.0)
                ^ self.spans.first().map_or(0, |s| u64::from(s.len))
                ^ self.span_terms.first().map_or(0, |&t| u64::from(t));
            std::hint::black_box(first);
        }
    }

    /// Start this query's own fields on their way to the cache, for the row after next:
    /// [`touch`](Self::touch) reads the arrays' addresses from them, and a page's rows
    /// reach queries spread over all the destinations, so that read had missed the cache
    /// and stalled where the prefetch was meant to let the scoring go on.
    pub fn touch_fields(&self) {
        // Every cache line the struct touches, from the one it starts in.
        #[cfg(target_arch = "x86_64")]
        {
            let at = std::ptr::from_ref(self).cast::<i8>();
            let skew = at.addr() % 64;
            let line = at.wrapping_sub(skew);
            for offset in (0..skew + size_of::<Self>()).step_by(64) {
                prefetch(line.wrapping_add(offset));
            }
        }
    }

    /// The best place in `blocks` (a source page) for a link to this destination.
    /// `links_to_target` says whether an href written in the source points at the
    /// destination (resolve it with [`resolve_href`] against the source's URL).
    pub fn suggest(
        &self,
        blocks: &[Block],
        stats: &SiteStats,
        links_to_target: &dyn Fn(&str) -> bool,
    ) -> Result<Suggestion, NoPlace> {
        let page = Prepared::new(blocks, stats);
        let links = |i: usize| blocks[i].links.iter().any(|l| links_to_target(&l.href));
        self.suggest_prepared(&page, &links, stats)
    }

    /// [`suggest`](Self::suggest) on a source page split into words once for all its
    /// destinations; `links_to_target(i)` says whether block `i` already links here.
    pub fn suggest_prepared(
        &self,
        page: &Prepared<'_>,
        links_to_target: &dyn Fn(usize) -> bool,
        stats: &SiteStats,
    ) -> Result<Suggestion, NoPlace> {
        let (i, score) = self.place(page, links_to_target)?;
        let block = &page.blocks[i];
        let links: Vec<Range<usize>> = block.links.iter().map(|l| l.range.clone()).collect();
        Ok(Suggestion {
            block: i,
            text: block.text.clone(),
            kind: block.kind,
            score,
            anchor: self.anchor(&block.text, &links, stats),
        })
    }

    /// The best block of `page` for a link here and its passage score (0–1), without the
    /// anchor: the score is what the ranking needs, and the anchor ([`Query::anchor`]) can
    /// wait until the budget has kept the pair.
    pub fn place(
        &self,
        page: &Prepared<'_>,
        links_to_target: &dyn Fn(usize) -> bool,
    ) -> Result<(usize, f64), NoPlace> {
        if page.blocks.is_empty() {
            return Err(NoPlace::NoText);
        }
        if self.phrases.is_empty() || self.ideal <= 0.0 {
            return Err(NoPlace::NothingNamesTarget);
        }
        // BM25 through the page's postings: each query term is looked up once in the page,
        // not each of the page's words among the terms. Terms are added in the query's order,
        // as the sum over a block's words always added them, so scores are the same to the bit.
        let n = page.blocks.len();
        // A page's rows reuse one set of buffers (millions of rows, a few hundred blocks).
        let mut scratch = page.scratch.borrow_mut();
        let Scratch {
            scores,
            touched,
            seen,
            restores,
            row,
            found,
        } = &mut *scratch;
        scores.clear();
        scores.resize(2 * n, 0.0);
        seen.resize(n, 0);
        restores.resize(n, 0);
        // A row number marks the blocks this row touched, so the marks are never cleared
        // (and never sorted: ties are broken by block number below).
        *row = row.wrapping_add(1);
        if *row == 0 {
            seen.fill(0);
            restores.fill(0);
            *row = 1;
        }
        touched.clear();
        found.clear();
        let (bm25, bonus) = scores.split_at_mut(n);
        for &(h, weight) in &self.terms {
            let range = page.posting_range(h);
            found.push(range);
            for &(b, tf) in &page.postings[range.0 as usize..range.1 as usize] {
                if seen[b as usize] != *row {
                    seen[b as usize] = *row;
                    touched.push(b);
                }
                let (b, tf) = (b as usize, f64::from(tf));
                bm25[b] += weight * tf * (K1 + 1.0) / (tf + page.norm[b]);
            }
        }
        self.phrase_bonus(page, found, bonus, (restores, *row));
        // Only blocks with a query word can score above 0 (a phrase's words are terms), so
        // only they are looked at, in the order reached; whether a block already links here is
        // asked only of a block that would win. When none scores above 0, every block is
        // looked at, to tell "no free block" from "below the floor".
        // A template block is no editorial place, unless this page's copy of the boilerplate
        // lacks a link the site's other copies carry.
        let free = |i: usize| page.len(i) > 0 && (!page.template[i] || restores[i] == *row);
        let score = |i: usize| (bm25[i] + PHRASE_BONUS * bonus[i]) * page.weight[i] / self.ideal;
        let mut best: Option<(f64, usize)> = None;
        for i in touched.iter().map(|&b| b as usize) {
            let s = score(i);
            // Ties go to the first block: a link belongs at the first mention.
            if free(i)
                && best.is_none_or(|(top, at)| s.total_cmp(&top).then(at.cmp(&i)).is_gt())
                && !links_to_target(i)
            {
                best = Some((s, i));
            }
        }
        if best.is_none_or(|(top, _)| top <= 0.0) {
            best = (0..n)
                .find(|&i| free(i) && !links_to_target(i))
                .map(|i| (score(i), i));
        }
        let (score, i) = best.ok_or(NoPlace::NoFreeBlock)?;
        if score < FLOOR {
            return Err(NoPlace::BelowFloor { best: score });
        }
        Ok((i, score.min(1.0)))
    }

    /// The suggested anchor in a block's `text` whose existing links sit at `links`.
    pub fn anchor(
        &self,
        text: &str,
        links: &[Range<usize>],
        stats: &SiteStats,
    ) -> Option<(Range<usize>, String)> {
        self.anchor_in(&mut anchor::Scratch::default(), text, links, stats)
            .map(|range| (range.clone(), text[range].to_string()))
    }

    /// [`anchor`](Self::anchor)'s range, with buffers kept from one block to the next.
    pub fn anchor_in(
        &self,
        scratch: &mut anchor::Scratch,
        text: &str,
        links: &[Range<usize>],
        stats: &SiteStats,
    ) -> Option<Range<usize>> {
        scratch.choose(text, links, &self.phrases, &self.index, stats)
    }
}

/// Whether `found` holds at any position of `word` in `hashes`, tried in order. The words
/// are compared eight at a time, which the compiler makes one vector comparison: looking
/// for a phrase word by word had been a seventh of [`Query::place`].
fn any_position(hashes: &[u64], word: u64, mut found: impl FnMut(usize) -> bool) -> bool {
    let mut chunks = hashes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut mask = 0u32;
        for (k, &h) in chunk.iter().enumerate() {
            mask |= u32::from(h == word) << k;
        }
        while mask != 0 {
            if found(base + mask.trailing_zeros() as usize) {
                return true;
            }
            mask &= mask - 1;
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .enumerate()
        .any(|(k, &h)| h == word && found(base + k))
}

/// Start the cache line holding `at` on its way to the cache ([`Query::touch`]).
#[cfg(target_arch = "x86_64")]
fn prefetch(at: *const i8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: SSE is part of x86_64, and a prefetch reads nothing: any address is allowed
    // (even that of an empty vector).
    #[allow(unsafe_code)]
    unsafe {
        _mm_prefetch::<_MM_HINT_T0>(at);
    }
}

/// [`Query::place`]'s buffers for one page.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// Each block's BM25 part, then each block's phrase bonus.
    scores: Vec<f64>,
    /// The blocks the row's query words reach, in the order reached.
    touched: Vec<u32>,
    /// Per block, the last row that touched it.
    seen: Vec<u32>,
    /// Per block, the last row that found in it a phrase the site usually links
    /// ([`SITE_LINKED_RATE`]).
    restores: Vec<u32>,
    /// The row being scored (a counter).
    row: u32,
    /// Each query term's postings on the page, as a range of `postings`.
    found: Vec<(u32, u32)>,
}

/// A source page's blocks with their words and template flags, worked out once and shared
/// by every destination scored against the page.
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    /// The page's blocks.
    pub blocks: &'a [Block],
    /// Every block's word hashes in order, one block after another, for the phrase match;
    /// a word inside (or partly inside) a link of its block is [`LINKED_WORD`].
    hashes: Vec<u64>,
    /// Where each block's words start in `hashes` (and, last, where they end).
    starts: Vec<usize>,
    /// (block, occurrences in the block) for each word, grouped by word and in block order
    /// within a word: the page's inverted index.
    postings: Vec<(u32, u32)>,
    /// Each word's dense id, so a query word is found in one probe.
    ids: WordIds,
    /// Where each id's postings start (and, last, where they end).
    first: Vec<usize>,
    /// [`Query::place`]'s buffers, reused by every row of the page.
    scratch: RefCell<Scratch>,
    /// Each block's BM25 length normalization.
    norm: Vec<f64>,
    template: Vec<bool>,
    /// Each block's weight as a place ([`block_weight`]).
    weight: Vec<f64>,
}

/// The words a page's queries look up ([`Prepared::for_queries`]): a 4,096-bit filter of
/// their hashes. A page's rows ask for a few hundred words; the rest of its words (most
/// of them) need no place in its inverted index, so they pass no table probe and make no
/// posting. A word the filter lets through by chance is indexed as before.
#[derive(Debug, Clone)]
pub struct Wanted {
    bits: [u64; 64],
}

impl Wanted {
    /// The terms of `queries`.
    pub fn of<'q>(queries: impl IntoIterator<Item = &'q Query>) -> Self {
        let mut bits = [0u64; 64];
        for q in queries {
            for &(h, _) in &q.terms {
                let bit = Self::bit(h);
                bits[bit / 64] |= 1 << (bit % 64);
            }
        }
        Wanted { bits }
    }

    /// The filter's bit for a word: its hash's top twelve bits (the table of
    /// [`WordIds`] takes the low ones).
    fn bit(hash: u64) -> usize {
        (hash >> 52) as usize
    }

    /// Whether `hash` may be one of the words.
    fn may_hold(&self, hash: u64) -> bool {
        let bit = Self::bit(hash);
        self.bits[bit / 64] & (1 << (bit % 64)) != 0
    }
}

impl<'a> Prepared<'a> {
    /// Split every block of `blocks` into words.
    pub fn new(blocks: &'a [Block], stats: &SiteStats) -> Prepared<'a> {
        Self::indexing(blocks, stats, None)
    }

    /// [`new`](Self::new) for the queries whose terms are `wanted`: only their words are
    /// indexed, so only those queries may be placed on it. Their postings are those `new`
    /// makes, and so are their scores, to the bit.
    pub fn for_queries(blocks: &'a [Block], stats: &SiteStats, wanted: &Wanted) -> Prepared<'a> {
        Self::indexing(blocks, stats, Some(wanted))
    }

    fn indexing(blocks: &'a [Block], stats: &SiteStats, wanted: Option<&Wanted>) -> Prepared<'a> {
        // Room for every word at once (a word and its space take two bytes at least): grown
        // by doubling, the page's vectors had been reallocated and copied a dozen times.
        let bytes: usize = blocks.iter().map(|b| b.text.len()).sum();
        let mut hashes = Vec::with_capacity(bytes / 2 + 1);
        // Where the words inside the blocks' links sit in `hashes`.
        let mut linked: Vec<usize> = Vec::new();
        let mut starts = Vec::with_capacity(blocks.len() + 1);
        // Each block's words outside its links: its length for BM25 (below).
        let mut own = Vec::with_capacity(blocks.len());
        for b in blocks {
            let (start, linked_before) = (hashes.len(), linked.len());
            starts.push(start);
            // The block's links in text order (the splitter records them as it meets them).
            let mut links = b
                .links
                .iter()
                .map(|l| &l.range)
                .filter(|r| !r.is_empty())
                .peekable();
            for_each_hash_at(&b.text, |word, h| {
                while links.peek().is_some_and(|l| l.end <= word.start) {
                    links.next();
                }
                // Partly inside counts: no anchor may touch a link either.
                if links.peek().is_some_and(|l| l.start < word.end) {
                    linked.push(hashes.len());
                }
                hashes.push(h);
            });
            own.push((hashes.len() - start) - (linked.len() - linked_before));
        }
        starts.push(hashes.len());
        // Template blocks are told by all their words, as the statistics pass counted them.
        let template = starts
            .windows(2)
            .map(|w| stats.is_template_words(&hashes[w[0]..w[1]]))
            .collect();
        // A word inside a link to another page names that page: it is no evidence that the
        // block is a place for this destination, for BM25 or a whole phrase (the words of
        // "ROLLBACK TO SAVEPOINT", a link in a "see also" list, say nothing of where
        // SAVEPOINT belongs). Held out (docs/passage.md) passages rose on most sites, and the
        // Queue proposed more hidden links on every site. Nor do they count for the block's
        // length (below).
        for &at in &linked {
            hashes[at] = LINKED_WORD;
        }
        // The page's inverted index without sorting: each distinct word gets a dense id as
        // it is first seen, a block's posting for a word is made at the word's first
        // occurrence in the block and counted up after, then the postings are grouped by word
        // (a counting sort keeps them in block order within each word).
        let indexed = |h: u64| wanted.is_none_or(|w| w.may_hold(h));
        let room = hashes.iter().filter(|&&h| indexed(h)).count();
        let mut ids = WordIds::with_room(room);
        let mut last: Vec<(usize, usize)> = Vec::with_capacity(room);
        let mut made: Vec<(u32, u32, u32)> = Vec::with_capacity(room);
        for (b, w) in starts.windows(2).enumerate() {
            for &h in hashes[w[0]..w[1]].iter().filter(|&&h| indexed(h)) {
                let id = ids.id_of(h) as usize;
                if id == last.len() {
                    last.push((usize::MAX, 0));
                }
                let (block, at) = &mut last[id];
                if *block == b {
                    made[*at].2 += 1;
                } else {
                    *block = b;
                    *at = made.len();
                    made.push((id as u32, u32::try_from(b).unwrap_or(u32::MAX), 1));
                }
            }
        }
        let mut first = vec![0usize; ids.len() + 1];
        for m in &made {
            first[m.0 as usize + 1] += 1;
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        let mut postings = vec![(0u32, 0u32); made.len()];
        let mut fill = first.clone();
        for &(id, b, tf) in &made {
            postings[fill[id as usize]] = (b, tf);
            fill[id as usize] += 1;
        }
        // BM25's length is the block's own words: in a list of links to related pages, the
        // other items name other pages, and counted they had made the list, where the
        // destination is the one item not linked yet, look long beside any sentence naming it
        // (a see-also list, a man page's SEE ALSO, a grammar rule). Held out, passages rose
        // on the Reference and Rust by Example by 1 to 3 points (docs/passage.md).
        let norm = own
            .iter()
            .map(|&n| K1 * (1.0 - B + B * n as f64 / stats.avg_len.max(1.0)))
            .collect();
        let weight = (0..blocks.len()).map(|i| block_weight(blocks, i)).collect();
        Prepared {
            weight,
            blocks,
            hashes,
            starts,
            postings,
            ids,
            first,
            scratch: RefCell::default(),
            norm,
            template,
        }
    }

    /// Block `i`'s words.
    fn len(&self, i: usize) -> usize {
        self.starts[i + 1] - self.starts[i]
    }

    /// Block `i`'s word hashes, in order.
    fn hashes(&self, i: usize) -> &[u64] {
        &self.hashes[self.starts[i]..self.starts[i + 1]]
    }

    /// Where the postings of a word are in `postings`: the blocks holding it, in block
    /// order, with its occurrences in each (an empty range for a word not on the page).
    fn posting_range(&self, hash: u64) -> (u32, u32) {
        match self.ids.get(hash) {
            Some(id) => (
                self.first[id as usize] as u32,
                self.first[id as usize + 1] as u32,
            ),
            None => (0, 0),
        }
    }
}

/// A page's distinct words, each with a dense id in the order first seen: an open-addressing
/// table (linear probing) sized at twice the page's words, so it never fills. The word
/// hashes are already mixed ([`super::text`]'s finalizer), so their low bits index it
/// directly; a general hash map hashed each again and was most of [`Prepared::new`] past the
/// words themselves.
#[derive(Debug, Clone)]
struct WordIds {
    /// (word hash, id), [`WordIds::EMPTY`] as the id of a free slot.
    slots: Vec<(u64, u32)>,
    mask: usize,
    len: u32,
}

impl WordIds {
    const EMPTY: u32 = u32::MAX;

    /// A table for up to `words` distinct words.
    fn with_room(words: usize) -> Self {
        let size = (2 * words).next_power_of_two().max(16);
        WordIds {
            slots: vec![(0, Self::EMPTY); size],
            mask: size - 1,
            len: 0,
        }
    }

    /// How many distinct words it holds.
    fn len(&self) -> usize {
        self.len as usize
    }

    /// The slot holding `hash`, or the free slot where it would go.
    fn slot(&self, hash: u64) -> usize {
        let mut at = hash as usize & self.mask;
        while self.slots[at].1 != Self::EMPTY && self.slots[at].0 != hash {
            at = (at + 1) & self.mask;
        }
        at
    }

    /// `hash`'s id, given the next one if it is new.
    fn id_of(&mut self, hash: u64) -> u32 {
        let at = self.slot(hash);
        if self.slots[at].1 == Self::EMPTY {
            self.slots[at] = (hash, self.len);
            self.len += 1;
        }
        self.slots[at].1
    }

    /// `hash`'s id, if it is a word of the page.
    fn get(&self, hash: u64) -> Option<u32> {
        let id = self.slots[self.slot(hash)].1;
        (id != Self::EMPTY).then_some(id)
    }
}

/// What a word inside a link to another page counts as: no word of any query.
const LINKED_WORD: u64 = 0x9e37_79b9_7f4a_7c15;

/// Score the blocks of a source for a destination: [`Query::new`] then [`Query::suggest`].
pub fn suggest(
    blocks: &[Block],
    target: &Target,
    stats: &SiteStats,
    links_to_target: &dyn Fn(&str) -> bool,
) -> Result<Suggestion, NoPlace> {
    Query::new(target, stats).suggest(blocks, stats, links_to_target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passage::blocks::split_html;
    use crate::passage::stats::{StatsBuilder, TemplateRules};

    #[test]
    fn word_ids_are_dense_in_first_seen_order_whatever_the_hashes_low_bits() {
        // Hashes that share their low bits probe past each other; 0 is an ordinary hash.
        let hashes = [
            7u64 << 40,
            5,
            7u64 << 40,
            0,
            (3 << 50) | 5,
            5,
            u64::MAX,
            16,
            32,
        ];
        let mut ids = WordIds::with_room(hashes.len());
        let got: Vec<u32> = hashes.iter().map(|&h| ids.id_of(h)).collect();
        assert_eq!(got, [0, 1, 0, 2, 3, 1, 4, 5, 6]);
        assert_eq!(ids.len(), 7);
        for (&h, &id) in hashes.iter().zip(&got) {
            assert_eq!(ids.get(h), Some(id));
        }
        assert_eq!(ids.get(48), None);
        assert_eq!(ids.get(1), None);
        // As many distinct words as it has room for: it never fills.
        let mut full = WordIds::with_room(100);
        for h in 0..100u64 {
            assert_eq!(full.id_of(h << 32), h as u32);
        }
        assert_eq!(full.get(100 << 32), None);
    }

    #[test]
    fn a_page_indexed_for_its_queries_places_them_as_the_whole_index_does() {
        let page = "<h2>Partitioning overview</h2>\
            <p>Rows are stored in tables and general things happen.</p>\
            <p>Large tables can use table partitioning to split rows by range.</p>\
            <p>See <a href='/vacuum'>routine vacuuming</a> for dead rows and indexes.</p>\
            <p>Indexes speed up reads; a partial index covers some rows.</p>\
            <p>Copyright Example Corp, all rights reserved.</p>";
        let stats = site(&[page]);
        let blocks = split_html(page);
        let queries: Vec<Query> = [
            target(),
            Target {
                title: "Indexes | Example Docs".into(),
                h1: "Partial Indexes".into(),
                anchors: vec![("partial index".into(), 2)],
            },
            Target {
                title: "Dead Rows".into(),
                h1: String::new(),
                anchors: vec![("routine vacuuming".into(), 1)],
            },
        ]
        .iter()
        .map(|t| Query::new(t, &stats))
        .collect();
        let whole = Prepared::new(&blocks, &stats);
        let wanted = Wanted::of(&queries);
        let indexed = Prepared::for_queries(&blocks, &stats, &wanted);
        // Words no query asks for are left out ("stored", "happen", "copyright", ...).
        assert!(
            indexed.postings.len() < whole.postings.len(),
            "{} of {}",
            indexed.postings.len(),
            whole.postings.len()
        );
        for q in &queries {
            for &(h, _) in &q.terms {
                let (a, b) = (whole.posting_range(h), indexed.posting_range(h));
                assert_eq!(
                    whole.postings[a.0 as usize..a.1 as usize],
                    indexed.postings[b.0 as usize..b.1 as usize]
                );
            }
            let free = |_: usize| false;
            let (x, y) = (q.place(&whole, &free), q.place(&indexed, &free));
            assert_eq!(format!("{x:?}"), format!("{y:?}"));
            assert!(x.is_ok(), "{x:?}");
        }
    }

    /// A small site: filler pages so that words have document frequencies, and a footer on
    /// every page.
    fn site(extra: &[&str]) -> SiteStats {
        let mut b = StatsBuilder::new();
        for i in 0..20 {
            b.add_title(&format!("Page {i} | Example Docs"));
        }
        for i in 0..20 {
            b.add_page(&split_html(&format!(
                "<p>Filler page {i} about tables and rows and general things.</p>\
                 <p>Copyright Example Corp, all rights reserved.</p>"
            )));
        }
        for page in extra {
            b.add_page(&split_html(page));
        }
        b.finish(&TemplateRules::default())
    }

    fn target() -> Target {
        Target {
            title: "Table Partitioning | Example Docs".into(),
            h1: String::new(),
            anchors: vec![("partitioning".into(), 3), ("click here".into(), 9)],
        }
    }

    const SOURCE: &str = "<h2>Partitioning overview</h2>\
        <p>Rows are stored in tables and general things happen.</p>\
        <p>Large tables can use table partitioning to split rows by range.</p>\
        <p>Copyright Example Corp, all rights reserved.</p>";

    #[test]
    fn picks_the_paragraph_that_names_the_destination_and_its_anchor() {
        let stats = site(&[SOURCE]);
        let blocks = split_html(SOURCE);
        let s = suggest(&blocks, &target(), &stats, &|_| false).unwrap();
        assert_eq!(s.block, 2);
        assert_eq!(s.kind, BlockKind::Paragraph);
        assert!(s.score > FLOOR && s.score <= 1.0, "{}", s.score);
        let (range, anchor) = s.anchor.unwrap();
        assert_eq!(anchor, "table partitioning");
        assert_eq!(&s.text[range], "table partitioning");
    }

    #[test]
    fn of_equal_places_the_first_mention_wins() {
        // Blocks 1 and 3 say the same and score the same: the link goes to the first.
        let html = "<p>Nothing here.</p>\
                    <p>Large tables can use table partitioning.</p>\
                    <p>Table sizes grow.</p>\
                    <p>Large tables can use table partitioning.</p>";
        let stats = site(&[html]);
        let s = suggest(&split_html(html), &target(), &stats, &|_| false).unwrap();
        assert_eq!(s.block, 1);
    }

    #[test]
    fn a_see_also_list_is_as_good_a_place_as_a_paragraph() {
        // The list's words sit directly in its `div` (kind Other, weight 0.8): it lost to the
        // sentence that names the destination as well, where the site had its link.
        let html = |label: &str| {
            format!(
                "<p>Large tables can use table partitioning to split rows.</p>\
                 <div><h2>{label}</h2>Table partitioning, <a href='i.html'>Indexes</a></div>"
            )
        };
        for (label, list) in [("See Also", true), ("SIEHE AUCH", true), ("Notes", false)] {
            let page = html(label);
            let stats = site(&[&page]);
            let blocks = split_html(&page);
            let s = suggest(&blocks, &target(), &stats, &|_| false).unwrap();
            assert_eq!(
                blocks[s.block].kind == BlockKind::Other,
                list,
                "{label}: {}",
                s.text
            );
        }
    }

    #[test]
    fn a_heading_that_repeats_the_title_gives_way_to_the_sentence_with_a_known_anchor() {
        // A stub page of an old edition: its own heading is the destination's title, and
        // its one sentence links the current version with the words other stubs use.
        let page = "<h1>Table Partitioning</h1>\
                    <p>If you came here via a search, you may want to check out \
                    the current version of the guide instead.</p>";
        let t = Target {
            anchors: vec![("the current version of the guide".into(), 2)],
            ..target()
        };
        // Every stub says so: the sentence's words are common on the site, the title's rare.
        let stubs: Vec<String> = (0..12)
            .map(|i| {
                format!("<h1>Chapter {i}</h1><p>Check out the current version of the guide.</p>")
            })
            .collect();
        let mut pages: Vec<&str> = stubs.iter().map(String::as_str).collect();
        pages.push(page);
        let stats = site(&pages);
        let s = suggest(&split_html(page), &t, &stats, &|_| false).unwrap();
        assert_eq!(s.kind, BlockKind::Paragraph, "{}", s.text);
        assert_eq!(s.anchor.unwrap().1, "the current version of the guide");
    }

    #[test]
    fn words_inside_a_link_to_another_page_are_no_evidence() {
        // The first paragraph writes "table partitioning" only as the text of its link to
        // another page; the second names the destination in its own words.
        let page = "<p>Large tables: see <a href='other.html'>table partitioning</a>.</p>\
                    <p>Rows can be split by range with partitioning of tables.</p>";
        let stats = site(&[page]);
        let blocks = split_html(page);
        let s = suggest(&blocks, &target(), &stats, &|_| false).unwrap();
        assert_eq!(s.block, 1, "{}", s.text);
        assert_eq!(s.anchor.unwrap().1, "partitioning");
        // A word partly inside a link (`<a>partition</a>ing`) is no evidence either.
        let page = "<p>Large tables: see table <a href='other.html'>partition</a>ing.</p>\
                    <p>Rows can be split by range with partitioning of tables.</p>";
        let s = suggest(&split_html(page), &target(), &site(&[page]), &|_| false).unwrap();
        assert_eq!(s.block, 1, "{}", s.text);
    }

    #[test]
    fn a_list_of_links_is_as_long_as_its_own_words() {
        // A list of related pages, each linked but the destination: its words inside the
        // other links name those pages, so they make the list no longer than "table
        // partitioning" either. Counted, they had made it the longest block of the page, and
        // the sentence won.
        let page = "<p>Large tables can use table partitioning to split rows by range.</p>\
                    <p><a href='a.html'>Row level security policies</a>, \
                    <a href='b.html'>Declarative constraint triggers and rules</a>, \
                    <a href='c.html'>Inheritance of tables and their columns</a>, \
                    table partitioning.</p>";
        let stats = site(&[page]);
        let blocks = split_html(page);
        let s = suggest(&blocks, &target(), &stats, &|_| false).unwrap();
        assert_eq!(s.block, 1, "{}", s.text);
        assert_eq!(s.anchor.unwrap().1, "table partitioning");
    }

    #[test]
    fn a_block_that_links_to_the_destination_is_not_a_place() {
        let html = "<p>Use <a href='part.html#x'>table partitioning</a> for big tables.</p>\
                    <p>Partitioning by range splits tables.</p>";
        let stats = site(&[html]);
        let blocks = split_html(html);
        let base = Url::parse("https://e.com/docs/a.html").unwrap();
        let to_d = |href: &str| {
            resolve_href(&base, href).is_some_and(|u| u.as_str() == "https://e.com/docs/part.html")
        };
        let s = suggest(&blocks, &target(), &stats, &to_d).unwrap();
        assert_eq!(s.block, 1);
        assert_eq!(s.anchor.unwrap().1, "Partitioning");
    }

    #[test]
    fn template_blocks_are_not_places() {
        let t = Target {
            title: "Example Corp".into(),
            ..Target::default()
        };
        let html = "<p>Copyright Example Corp, all rights reserved.</p><p>Nothing related.</p>";
        let stats = site(&[html]);
        let r = suggest(&split_html(html), &t, &stats, &|_| false);
        assert!(matches!(r, Err(NoPlace::BelowFloor { .. })), "{r:?}");
    }

    #[test]
    fn a_template_block_with_a_link_is_told_by_all_its_words() {
        // Boilerplate that names the destination beside a link, on half the pages: still
        // template (its linked words count for telling it, as the statistics pass counted
        // them), so no place.
        let boiler = "<p>Table partitioning tips from <a href='blog.html'>our blog</a>.</p>";
        let pages: Vec<String> = (0..20)
            .map(|i| format!("{boiler}<p>Page {i} text.</p>"))
            .collect();
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        let stats = site(&refs);
        let page = format!("{boiler}<p>Nothing related.</p>");
        let r = suggest(&split_html(&page), &target(), &stats, &|_| false);
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn below_the_floor_there_is_no_place() {
        let html = "<p>Cooking pasta needs salted water.</p>";
        let stats = site(&[html]);
        let r = suggest(&split_html(html), &target(), &stats, &|_| false);
        assert!(matches!(r, Err(NoPlace::BelowFloor { .. })), "{r:?}");
        assert!(
            r.unwrap_err()
                .to_string()
                .starts_with("no natural place found")
        );
        assert_eq!(
            suggest(&[], &target(), &stats, &|_| false),
            Err(NoPlace::NoText)
        );
        let nothing = Target {
            anchors: vec![("read more".into(), 4)],
            ..Target::default()
        };
        assert_eq!(
            suggest(&split_html(html), &nothing, &stats, &|_| false),
            Err(NoPlace::NothingNamesTarget)
        );
    }

    #[test]
    fn anchors_avoid_stop_words_generic_text_and_other_links() {
        let mut t = Target {
            title: "A Guide to Vacuum".into(),
            h1: String::new(),
            anchors: vec![("vacuum guide".into(), 2)],
        };
        let html = "<p>Read <a href='other.html'>the vacuum docs</a> or click here: \
                    the guide to vacuum explains it.</p>";
        let stats = site(&[html]);
        let s = suggest(&split_html(html), &t, &stats, &|_| false).unwrap();
        let (range, anchor) = s.anchor.unwrap();
        assert_eq!(anchor, "guide to vacuum");
        assert!(range.start > s.text.find("click").unwrap());
        // The title written whole keeps its article.
        t.title = "The Guide to Vacuum".into();
        let s = suggest(&split_html(html), &t, &stats, &|_| false).unwrap();
        assert_eq!(s.anchor.unwrap().1, "the guide to vacuum");
    }

    #[test]
    fn an_anchor_closes_the_brackets_it_opens_and_is_never_a_bare_number() {
        let t = Target {
            title: "git-config(1)".into(),
            h1: String::new(),
            anchors: vec![("git-config(1)".into(), 4), ("array[1]".into(), 1)],
        };
        let html =
            "<p>Options are read as in git-config(1), see also array[1] and then 1 to 1.</p>";
        let stats = site(&[html]);
        let s = suggest(&split_html(html), &t, &stats, &|_| false).unwrap();
        let (range, anchor) = s.anchor.unwrap();
        assert_eq!(anchor, "git-config(1)");
        assert_eq!(&s.text[range], "git-config(1)");
        // Where only the number is free (the name is inside another link), there is no
        // anchor rather than "1".
        let linked = "<p>Read <a href='x.html'>git-config</a>(1) today.</p>";
        let stats = site(&[linked]);
        let s = suggest(&split_html(linked), &t, &stats, &|_| false).unwrap();
        assert_eq!(s.anchor, None);
    }

    /// The statistics of `pages` counting how often `phrases` are written and linked, and the
    /// same without the counts.
    fn counted_and_plain(pages: &[String], phrases: &[&str]) -> (SiteStats, SiteStats) {
        let build = |mut b: StatsBuilder| {
            for p in pages {
                b.add_page(&split_html(p));
            }
            b.finish(&TemplateRules::default())
        };
        let counting = std::sync::Arc::new(crate::passage::Phrases::new(phrases.iter().copied()));
        (
            build(StatsBuilder::counting(counting)),
            build(StatsBuilder::new()),
        )
    }

    #[test]
    fn boilerplate_is_a_place_only_for_the_link_its_other_copies_carry() {
        let t = Target {
            title: "git(1)".into(),
            h1: String::new(),
            anchors: vec![("git(1)".into(), 9)],
        };
        let mut pages: Vec<String> = (0..9)
            .map(|i| {
                format!(
                    "<p>Command {i} stores objects with git tools.</p>\
                     <p>Part of the <a href=git.html>git(1)</a> suite</p>"
                )
            })
            .collect();
        // This page's copy of the footer lacks the link.
        let source =
            "<p>Command 9 stores objects with git tools.</p><p>Part of the git(1) suite</p>";
        pages.push(source.into());
        let (counted, plain) = counted_and_plain(&pages, &["git(1)"]);
        let blocks = split_html(source);
        assert!(counted.is_template(&blocks[1]));
        let s = suggest(&blocks, &t, &counted, &|_| false).unwrap();
        assert_eq!((s.block, s.anchor.unwrap().1.as_str()), (1, "git(1)"));
        // Without the counts nothing says the boilerplate carries the link: it is no place.
        let r = suggest(&blocks, &t, &plain, &|_| false);
        assert!(!matches!(r, Ok(ref s) if s.block == 1), "{r:?}");
        // Nor is boilerplate that names the destination in words the site does not link.
        let other = Target {
            title: "Suite".into(),
            ..Target::default()
        };
        let r = suggest(&blocks, &other, &counted, &|_| false);
        assert!(!matches!(r, Ok(ref s) if s.block == 1), "{r:?}");
        // A phrase the site does not link may be found there first ("git(1) suite", worth
        // more than "git(1)"): the linked one still restores the block.
        let both = Target {
            title: "git(1) suite".into(),
            ..t
        };
        let s = suggest(&blocks, &both, &counted, &|_| false).unwrap();
        assert_eq!(s.block, 1);
    }

    #[test]
    fn of_two_whole_mentions_the_anchor_is_the_one_the_site_links() {
        // The title's words are written all over the site and linked once; "Section 34.15"
        // is linked wherever it is written.
        let t = Target {
            title: "34.15. Environment Variables".into(),
            h1: String::new(),
            anchors: vec![
                ("Environment Variables".into(), 3),
                ("Section 34.15".into(), 2),
            ],
        };
        let source =
            "<p>This tool also uses the environment variables of libpq (see Section 34.15).</p>";
        let mut pages: Vec<String> = (0..12)
            .map(|i| format!("<p>Page {i} reads environment variables at start.</p>"))
            .collect();
        pages.push("<p>Set the <a href=e>environment variables</a> first.</p>".into());
        for i in 0..3 {
            pages.push(format!(
                "<p>Tool {i} connects as in <a href=s>Section 34.15</a>.</p>"
            ));
        }
        pages.push(source.into());
        let (counted, plain) =
            counted_and_plain(&pages, &["Environment Variables", "Section 34.15"]);
        let blocks = split_html(source);
        let anchor = |stats: &SiteStats| {
            suggest(&blocks, &t, stats, &|_| false)
                .unwrap()
                .anchor
                .unwrap()
                .1
        };
        assert_eq!(anchor(&counted), "Section 34.15");
        // Without the counts both phrases are whole mentions and the title's weight decides.
        assert_eq!(anchor(&plain), "environment variables");
    }

    #[test]
    fn titles_split_at_separators_without_section_numbers() {
        assert_eq!(
            title_parts("2.6. Joins Between Tables"),
            vec!["Joins Between Tables"]
        );
        assert_eq!(title_parts("Pricing | Acme"), vec!["Pricing", "Acme"]);
        let mut b = StatsBuilder::new();
        for t in [
            "Pricing | Acme",
            "About | Acme",
            "Docs | Acme",
            "Blog | Acme",
            "Jobs | Acme",
        ] {
            b.add_title(t);
        }
        let stats = b.finish(&TemplateRules::default());
        assert_eq!(title_phrases("Pricing | Acme", &stats), vec!["Pricing"]);
        assert_eq!(
            title_phrases("Plans: Team | Acme", &stats),
            vec!["Plans Team", "Plans", "Team"]
        );
    }

    #[test]
    fn a_word_is_found_at_every_position_in_order_until_one_holds() {
        // 19 words: two chunks of eight and a remainder of three, the word in each part.
        let mut hashes = vec![1u64; 19];
        for at in [0, 7, 8, 15, 17] {
            hashes[at] = 9;
        }
        let mut seen = Vec::new();
        assert!(!any_position(&hashes, 9, |j| {
            seen.push(j);
            false
        }));
        assert_eq!(seen, [0, 7, 8, 15, 17]);
        seen.clear();
        assert!(any_position(&hashes, 9, |j| {
            seen.push(j);
            j == 8
        }));
        assert_eq!(seen, [0, 7, 8]);
        assert!(!any_position(&hashes, 5, |_| true));
        assert!(!any_position(&[], 9, |_| true));
    }

    #[test]
    fn hrefs_resolve_against_the_source() {
        let base = Url::parse("https://e.com/docs/15/a.html").unwrap();
        assert_eq!(
            resolve_href(&base, "b.html#frag").unwrap().as_str(),
            "https://e.com/docs/15/b.html"
        );
        assert_eq!(
            resolve_href(&base, "../x/").unwrap().as_str(),
            "https://e.com/docs/x/"
        );
        assert!(resolve_href(&base, "mailto:a@e.com").is_none());
    }
}
