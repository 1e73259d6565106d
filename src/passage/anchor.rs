//! The suggested anchor: a short span of the chosen block that names the destination.
//! Among the block's 1–6-word spans that start and end with a word of a phrase (unless the
//! words they share have no letter: a section's number) and neither start nor end with a
//! stop word, never the
//! whole sentence, never generic link text, never inside (or across) an existing link, the
//! one that best overlaps one of the destination's phrases (known anchors, title, H1):
//! shared words over the longer length, cubed (1 for the phrase's own words), times the
//! phrase's weight as an anchor (less for a phrase the site writes often and seldom links).

use std::fmt;
use std::ops::Range;

use super::stats::SiteStats;
use super::text::{Phrase, Word, for_each_word};

/// Why a passage has no suggested anchor: no span of it may be link text for the
/// destination (the anchor rules of this module: the words that name it are stop
/// words or a bare number, leave a bracket open, are generic, or are the whole sentence).
/// The place stands; the reviewer writes the link text in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoAnchor;

impl fmt::Display for NoAnchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "no anchor: no words of the passage that name the destination can be link text \
             (stop words, a number, a whole sentence…); write the link text in",
        )
    }
}

/// Longest anchor suggested, in words; a word of Chinese, Japanese or Korean text (a pair
/// of characters overlapping the one before, `text`) counts half ([`span_end`]).
pub const MAX_ANCHOR_WORDS: usize = 6;

/// Twice the words `words` count as text: 2 for a word, 1 for a word that overlaps the one
/// before (a pair of CJK characters after another adds one character).
fn half_words(words: &[Word]) -> usize {
    words
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if k > 0 && w.range.start < words[k - 1].range.end {
                1
            } else {
                2
            }
        })
        .sum()
}

/// The most words a span can hold: its first word, then pairs that each count half.
const MAX_SPAN_WORDS: usize = 2 * MAX_ANCHOR_WORDS - 1;

/// Where the longest span from word `i` ends (exclusive): at most [`MAX_ANCHOR_WORDS`]
/// words, where a word that overlaps the one before (the pairs of characters Chinese,
/// Japanese and Korean text is cut into) adds one character, and counts half: "エラーハンド
/// リング" is eight pairs, one word of text, and had been cut to its last seven characters.
fn span_end(words: &[Word], i: usize) -> usize {
    // `half_words` of each longer span, grown a word at a time.
    let mut halves = 0;
    let mut j = i;
    while j < words.len() {
        let overlaps = j > i && words[j].range.start < words[j - 1].range.end;
        halves += if overlaps { 1 } else { 2 };
        if halves > 2 * MAX_ANCHOR_WORDS {
            break;
        }
        j += 1;
    }
    j
}

/// Link texts that say nothing about the destination; never suggested, and never used as
/// evidence when other pages link with them.
const GENERIC: &[&str] = &[
    "back",
    "back to top",
    "click",
    "click here",
    "continue",
    "continue reading",
    "details",
    "download",
    "find out more",
    "go",
    "here",
    "home",
    "learn more",
    "link",
    "more",
    "more details",
    "more info",
    "more information",
    "next",
    "page",
    "prev",
    "previous",
    "read more",
    "see more",
    "show more",
    "this",
    "this article",
    "this link",
    "this page",
    "this post",
    "top",
    "up",
    "view",
    "view more",
    "website",
];

/// The power the overlap of a span with a phrase is raised to: a span that is a whole phrase
/// (overlap 1) keeps its phrase's weight, one that is half of a phrase an eighth of it. With
/// the phrases' weights set apart by their link rates ([`Phrase::anchor_weight`]), a plain
/// overlap let a long span holding half of the title outscore the whole of a known anchor
/// the site writes often (generated sites: exact anchors −10 points); cubed, the link rate
/// decides between whole mentions. Without link rates the power changes nothing measurable
/// (`examples/passage_eval.rs`, postgres15 and two generated sites, within 0.1 point).
const EXACTNESS: i32 = 3;

/// Bytes in the longest [`GENERIC`] text.
const GENERIC_BYTES: usize = 24;

/// Words in the longest [`GENERIC`] text.
const MAX_GENERIC_WORDS: usize = 3;

/// Whether a link text is generic ("click here", "read more", …), whatever its case and
/// punctuation. Asked of every span about to win a row's anchor: its words are compared in
/// place, lowercased as they are read, with no string built (building the folded copy was
/// 8% of the anchors' samples at 100,041 pages).
pub fn is_generic(text: &str) -> bool {
    let mut kept = [""; MAX_GENERIC_WORDS];
    let mut n = 0;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        // Most texts asked about are longer than any generic one.
        if n == MAX_GENERIC_WORDS {
            return false;
        }
        kept[n] = word;
        n += 1;
    }
    if n == 0 {
        return true;
    }
    // ASCII words: lowercased into one short buffer and looked up in the sorted list (each
    // destination's anchors are all asked about, a few hundred thousand texts, and walking
    // the whole list for each had been most of this function's time).
    if kept[..n].iter().all(|w| w.is_ascii()) {
        let mut folded = [0u8; GENERIC_BYTES];
        let mut len = 0;
        for (k, word) in kept[..n].iter().enumerate() {
            let end = len + usize::from(k > 0) + word.len();
            if end > GENERIC_BYTES {
                return false;
            }
            if k > 0 {
                folded[len] = b' ';
                len += 1;
            }
            for (to, b) in folded[len..end].iter_mut().zip(word.bytes()) {
                *to = b.to_ascii_lowercase();
            }
            len = end;
        }
        return std::str::from_utf8(&folded[..len])
            .is_ok_and(|text| GENERIC.binary_search(&text).is_ok());
    }
    GENERIC.iter().any(|generic| {
        let mut parts = generic.split(' ');
        kept[..n].iter().all(|word| {
            parts.next().is_some_and(|part| {
                // The list is lowercase ASCII: an ASCII word is compared byte for byte
                // (lengths first), only another is lowercased a character at a time
                // (the Kelvin sign is a `k`). Folding every word had been a tenth of the
                // anchors' time.
                if word.is_ascii() {
                    word.eq_ignore_ascii_case(part)
                } else {
                    word.chars().flat_map(char::to_lowercase).eq(part.chars())
                }
            })
        }) && parts.next().is_none()
    })
}

/// What a span growing from one start shares with one phrase: the phrase's words matched
/// so far (each phrase word matches one span word), how many, and the idf of the span words
/// that are in the phrase.
#[derive(Debug)]
struct Grown {
    phrase: usize,
    taken: [usize; MAX_SPAN_WORDS],
    shared: usize,
    idf: f64,
}

/// The byte range of the span `words[span]` of `text` if it may be an anchor: it neither
/// starts nor ends with a stop word unless it is, word for word, one of the destination's
/// phrases (`whole_phrase`, asked only when a rule depends on it: "the reference", which
/// other pages use as their link text for the page), has a word with a letter that is not a
/// stop word (never "1", "2022" or "6.2 to 9.6.3"), is not the whole of a sentence (the
/// whole of a short label may be: at most three words, a pair of CJK characters after
/// another counting half, [`span_end`], or up to an anchor's six words when the label is one
/// of the phrases word for word), and neither sits inside nor crosses an existing link. Every bracket and
/// quotation mark the span opens is closed in it: the range runs on over the closing marks
/// that follow ("git-config(1)", not "git-config(1"), and a span that leaves one open is no
/// anchor ("types (i.e").
/// `lettered` (a non-stop word of the span has a letter) and `open` (the span's marks,
/// [`Open::scan`]) are the caller's: [`best_span`] grows them a word at a time.
fn allowed_span(
    text: &str,
    words: &[Word],
    span: Range<usize>,
    links: &[Range<usize>],
    (ends_sentence, lettered): (bool, bool),
    open: Open,
    whole_phrase: &dyn Fn() -> bool,
) -> Option<Range<usize>> {
    let (first, last) = (&words[span.start], &words[span.end - 1]);
    if !lettered || ((first.stop || last.stop) && !whole_phrase()) {
        return None;
    }
    // A block that is, word for word, one of the destination's phrases is its name (a table
    // cell "mipsel-unknown-linux-gnu", a list item "Reliability and the Write-Ahead Log"),
    // linked whole up to an anchor's six words.
    if span.start == 0
        && span.end == words.len()
        && (ends_sentence || (half_words(words) > 6 && !whole_phrase()))
    {
        return None;
    }
    let range = first.range.start..open.close(text, last.range.end)?;
    let touches_link = links
        .iter()
        .any(|l| l.start < range.end && range.start < l.end);
    (!touches_link).then_some(range)
}

/// Whether a word counts towards a span's letter rule: not a stop word, and has a letter.
fn lettered(text: &str, w: &Word) -> bool {
    !w.stop && text[w.range.clone()].chars().any(char::is_alphabetic)
}

/// Whether the span's words are the phrase's, in order (any case).
fn is_phrase(span: &[Word], phrase: &[u64]) -> bool {
    span.len() == phrase.len() && span.iter().zip(phrase).all(|(w, &h)| w.hash == h)
}

/// How a span that shares `shared` of its words with a phrase fits it: their overlap (0–1)
/// and whether the span is the whole phrase (only that earns the phrase's link rate,
/// [`Phrase::anchor_weight`]). The phrase's own words fit it whole, overlap 1; otherwise the
/// shared words over the longer length, cubed ([`EXACTNESS`]). Shared words count no stop
/// word (a block's stop words find no phrase), so by that rule alone a phrase with one
/// inside fitted even itself by less: "ROLLBACK TO SAVEPOINT" by (2/3)³, and lost to the
/// whole of a shorter phrase in the same words ("SAVEPOINT").
fn fit(span: &[Word], phrase: &[u64], shared: usize) -> (f64, bool) {
    if is_phrase(span, phrase) {
        return (1.0, true);
    }
    let overlap = (shared as f64 / span.len().max(phrase.len()) as f64).powi(EXACTNESS);
    (overlap, false)
}

/// The brackets and quotation marks a span has opened and not closed, by kind ([`Pair`]).
#[derive(Debug, Clone, Copy, Default)]
struct Open([usize; PAIRS]);

/// Kinds of marks that open and close: round brackets (and full-width （）), square ones
/// (and ［］), the lenticular 【】, corner 「」, white corner 『』 and double angle 《》
/// brackets of Chinese and Japanese text, curly double quotes, and straight double quotes,
/// which open or close by what is around them ([`mark`]). A single quote is no mark: ’ and
/// ' are apostrophes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pair {
    Round,
    Square,
    Lenticular,
    Corner,
    WhiteCorner,
    Angle,
    Curly,
    Straight,
}

/// How many kinds of [`Pair`] there are.
const PAIRS: usize = 8;

/// A bracket or quotation mark: its kind, and whether it opens.
type Mark = (Pair, bool);

/// The mark at byte `at` of `text`, with its length. A straight double quote opens at the
/// start of the text or after a space or an opening sign (`("x`, `="x`, `:"x`), and closes
/// anywhere else (`x"`): `debug" and "trace` closes one quote it never opened.
fn mark(text: &[u8], at: usize) -> Option<(Mark, usize)> {
    use Pair::{Angle, Corner, Curly, Lenticular, Round, Square, Straight, WhiteCorner};
    let (pair, opens, len) = match &text[at..] {
        [b'(', ..] => (Round, true, 1),
        [b')', ..] => (Round, false, 1),
        [b'[', ..] => (Square, true, 1),
        [b']', ..] => (Square, false, 1),
        [b'"', ..] => {
            let opens = at == 0
                || matches!(
                    text[at - 1],
                    b' ' | b'\t' | b'\n' | b'(' | b'[' | b'{' | b'=' | b':'
                );
            (Straight, opens, 1)
        }
        [0xef, 0xbc, 0x88, ..] => (Round, true, 3),
        [0xef, 0xbc, 0x89, ..] => (Round, false, 3),
        [0xef, 0xbc, 0xbb, ..] => (Square, true, 3),
        [0xef, 0xbc, 0xbd, ..] => (Square, false, 3),
        [0xe3, 0x80, 0x90, ..] => (Lenticular, true, 3),
        [0xe3, 0x80, 0x91, ..] => (Lenticular, false, 3),
        [0xe3, 0x80, 0x8c, ..] => (Corner, true, 3),
        [0xe3, 0x80, 0x8d, ..] => (Corner, false, 3),
        [0xe3, 0x80, 0x8e, ..] => (WhiteCorner, true, 3),
        [0xe3, 0x80, 0x8f, ..] => (WhiteCorner, false, 3),
        [0xe3, 0x80, 0x8a, ..] => (Angle, true, 3),
        [0xe3, 0x80, 0x8b, ..] => (Angle, false, 3),
        [0xe2, 0x80, 0x9c, ..] => (Curly, true, 3),
        [0xe2, 0x80, 0x9d, ..] => (Curly, false, 3),
        _ => return None,
    };
    Some(((pair, opens), len))
}

/// Whether `text` ends as a sentence does (in Chinese and Japanese too): a span of all its
/// words is then the whole sentence, never an anchor.
fn ends_sentence(text: &str) -> bool {
    text.trim_end()
        .ends_with(['.', '!', '?', ':', ';', '。', '！', '？', '：', '；'])
}

/// Whether `text[range]` holds a bracket or quotation mark ([`mark`]).
fn has_mark(text: &[u8], range: Range<usize>) -> bool {
    // Only these bytes start a mark: the rest are passed over without matching.
    range
        .into_iter()
        .any(|i| MARK_STARTS[usize::from(text[i])] && mark(text, i).is_some())
}

/// The first bytes of the marks [`mark`] knows: the ASCII brackets and quote, and the lead
/// bytes of the others (U+2xxx and U+3xxx punctuation, full-width forms).
const MARK_STARTS: [bool; 256] = {
    let mut starts = [false; 256];
    let mut k = 0;
    let bytes = *b"()[]\"\xe2\xe3\xef";
    while k < bytes.len() {
        starts[bytes[k] as usize] = true;
        k += 1;
    }
    starts
};

/// Whether a sentence ends between word `k - 1` and word `k` of `text`: no link text runs
/// across it ("replication is currently asynchronous. Synchronous replication"). It ends at
/// a Chinese or Japanese full stop, `！` or `？`; at `!` or `?` before a space; at a full
/// stop before a space and a word that does not start in lower case, unless the stop
/// follows a number or a letter alone: a section number's ("27.3. Failover", "F.27.
/// `pg_buffercache`", both whole link texts on postgres15) or an abbreviation's ("e.g.
/// This"). Closing marks may stand between the stop and the space (`it.” Then`, `below.)
/// Next`).
fn sentence_break_before(text: &str, words: &[Word], k: usize) -> bool {
    let (end, start) = (words[k - 1].range.end, words[k].range.start);
    if end >= start {
        return false;
    }
    let gap = &text[end..start];
    // Most gaps are a space: no stop sign in them, no break (the signs' first bytes: `.`,
    // `!`, `?`, and the lead bytes of `。` and of `！`/`？`).
    if !gap
        .bytes()
        .any(|b| matches!(b, b'.' | b'!' | b'?' | 0xe3 | 0xef))
    {
        return false;
    }
    if gap.contains(['。', '！', '？']) {
        return true;
    }
    // Whether `sign` is in the gap with a space after it, past any closing marks.
    let before_space = |sign: char| {
        gap.char_indices().any(|(i, c)| {
            c == sign
                && gap[i + 1..]
                    .trim_start_matches([')', ']', '"', '\'', '”', '’', '）'])
                    .starts_with(char::is_whitespace)
        })
    };
    if before_space('!') || before_space('?') {
        return true;
    }
    let before = &text[words[k - 1].range.clone()];
    before_space('.')
        && before.chars().nth(1).is_some()
        && !before.bytes().all(|b| b.is_ascii_digit())
        && !text[start..].starts_with(char::is_lowercase)
}

impl Open {
    /// Count the marks in `text[range]`, which continues the span; `None` when one closes a
    /// mark the span did not open ("1) today", "debug\" and"): so would every longer span.
    fn scan(mut self, text: &[u8], range: Range<usize>) -> Option<Self> {
        let mut i = range.start;
        while i < range.end {
            let Some(((pair, opens), len)) = mark(text, i) else {
                i += 1;
                continue;
            };
            let count = &mut self.0[pair as usize];
            *count = if opens {
                *count + 1
            } else {
                count.checked_sub(1)?
            };
            i += len;
        }
        Some(self)
    }

    /// Where a span ending at `end` ends once the characters right after it close the marks
    /// it left open (at most a few: "f(x)", "a[1]", "“autocommit”"); `None` when some stay
    /// open: "types (i.e" or "called “autocommit" is no link text.
    fn close(mut self, text: &str, mut end: usize) -> Option<usize> {
        for _ in 0..4 {
            match mark(text.as_bytes(), end) {
                Some(((pair, false), len)) if self.0[pair as usize] > 0 => {
                    self.0[pair as usize] -= 1;
                    end += len;
                }
                _ => break,
            }
        }
        self.0.iter().all(|&n| n == 0).then_some(end)
    }
}

/// A destination's phrases as the anchor chooser looks them up. Build it once per
/// destination: many blocks are searched for the same phrases ([`Scratch::choose`]).
#[derive(Debug, Clone)]
pub struct PhraseIndex {
    /// Every phrase word with its phrase, sorted: a block word finds its phrases by binary
    /// search, not by scanning every phrase (a destination can have dozens).
    words: Vec<IndexedWord>,
    /// The first words of the phrases that start with a stop word ("the reference"): only
    /// such a word starts a span with a stop word. Found once here; found again for every
    /// block, walking every phrase, it had been a sixth of the chooser's time at 100,041
    /// pages.
    stop_firsts: Vec<u64>,
}

/// A word of a phrase, in the [`PhraseIndex`], with where it is in the phrase: a span
/// growing over a block word then need not look for it among the phrase's words (a read of
/// each phrase's words from the heap per block word: the chooser's hottest loop in perf at
/// 100,041 pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct IndexedWord {
    hash: u64,
    /// The phrase, by index.
    phrase: u32,
    /// The word's position in the phrase, or [`IndexedWord::REPEATED`] when the phrase has
    /// it more than once (then its positions are looked for as before). Sixteen bytes an
    /// entry, as the index's entries had been, for its binary searches.
    at: u32,
}

impl IndexedWord {
    const REPEATED: u32 = u32::MAX;
}

impl PhraseIndex {
    /// The index of `phrases`.
    pub fn new(phrases: &[Phrase]) -> Self {
        let mut words: Vec<IndexedWord> = Vec::new();
        for (phrase, p) in (0u32..).zip(phrases) {
            for (at, &hash) in p.words.iter().enumerate() {
                if !p.words[..at].contains(&hash) {
                    let again = p.words[at + 1..].contains(&hash);
                    words.push(IndexedWord {
                        hash,
                        phrase,
                        at: match u32::try_from(at) {
                            Ok(at) if !again => at,
                            _ => IndexedWord::REPEATED,
                        },
                    });
                }
            }
        }
        // One entry per word and phrase, ordered by word, then phrase.
        words.sort_unstable();
        let mut stop_firsts: Vec<u64> = phrases
            .iter()
            .filter(|p| p.stop.first() == Some(&true))
            .map(|p| p.words[0])
            .collect();
        stop_firsts.sort_unstable();
        stop_firsts.dedup();
        Self { words, stop_firsts }
    }
}

/// The anchor chooser, with what it allocates kept from one block to the next: the anchors
/// of a Queue's hundreds of thousands of rows are chosen a row at a time, and allocation was
/// a fifth of that time.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The block's words.
    words: Vec<Word>,
    buffers: Buffers,
}

impl Scratch {
    /// The best anchor span of a block's `text` (its existing links at the byte ranges
    /// `links`) for `phrases`, whose [`PhraseIndex`] is `index`, as a byte range of the
    /// text; `None` when no span shares a word with any phrase.
    pub fn choose(
        &mut self,
        text: &str,
        links: &[Range<usize>],
        phrases: &[Phrase],
        index: &PhraseIndex,
        stats: &SiteStats,
    ) -> Option<Range<usize>> {
        self.words.clear();
        for_each_word(text, |w| self.words.push(w));
        let mut best = |generic| {
            best_span(
                text,
                links,
                &self.words,
                (phrases, index),
                stats,
                generic,
                &mut self.buffers,
            )
        };
        // The best span of all is the best non-generic one whenever it is not generic
        // itself (the first of the highest score either way), so generic text is ruled
        // out in a second search only when it won the first: asked of every span about to
        // win, the check had been a third of the chooser's time.
        match best(Generic::Allowed) {
            Some(range) if is_generic(&text[range.clone()]) => best(Generic::RuledOut),
            found => found,
        }
    }
}

/// Whether [`best_span`] may choose generic text ([`is_generic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generic {
    Allowed,
    RuledOut,
}

/// [`best_span`]'s working vectors.
#[derive(Debug, Default)]
struct Buffers {
    /// Each word's phrases: a range of the phrase index (empty for a stop word).
    phrases_of: Vec<Range<usize>>,
    idf: Vec<f64>,
    named_before: Vec<usize>,
    /// How many words before each share no letter with the phrases they are in: a
    /// number ([`lettered`]).
    bare_before: Vec<usize>,
    grown: Vec<Grown>,
    /// Each word's [`WordFlags`].
    flags: Vec<WordFlags>,
}

/// What a span growing over a word learns from it, worked out once per word rather than
/// once per span (scanning each span's bytes again had been a fifth of the chooser's time).
#[derive(Debug, Clone, Copy, Default)]
struct WordFlags {
    /// A bracket or quotation mark between the end of the word before and the end of this
    /// one: only then are those bytes scanned ([`Open::scan`]).
    bracket: bool,
    /// A sentence ends between the word before and this one ([`sentence_break_before`]).
    breaks: bool,
    /// The word counts towards the span's letter rule ([`lettered`]).
    lettered: bool,
}

impl WordFlags {
    /// Word `k`'s flags.
    fn of(text: &str, words: &[Word], k: usize) -> Self {
        let from = if k > 0 { words[k - 1].range.end } else { 0 };
        WordFlags {
            bracket: has_mark(text.as_bytes(), from..words[k].range.end),
            breaks: k > 0 && sentence_break_before(text, words, k),
            lettered: lettered(text, &words[k]),
        }
    }
}

/// [`Scratch::choose`]'s work on the block's `words`, in `buffers`, for `phrases` and their
/// [`PhraseIndex`].
fn best_span(
    text: &str,
    links: &[Range<usize>],
    words: &[Word],
    (phrases, index): (&[Phrase], &PhraseIndex),
    stats: &SiteStats,
    generic: Generic,
    buffers: &mut Buffers,
) -> Option<Range<usize>> {
    let Buffers {
        phrases_of,
        idf,
        named_before,
        bare_before,
        grown,
        flags,
    } = buffers;
    let PhraseIndex {
        words: index,
        stop_firsts,
    } = index;
    let ends_sentence = ends_sentence(text);
    // A span scores only through the words it shares with a phrase. Each word's phrases
    // (by index) are found once, so a span looks only at the phrases its words are in, and
    // the many spans that share no word with any phrase (score 0) are passed over at once.
    phrases_of.clear();
    phrases_of.extend(words.iter().map(|w| {
        if w.stop {
            return 0..0;
        }
        let start = index.partition_point(|e| e.hash < w.hash);
        let len = index[start..].partition_point(|e| e.hash == w.hash);
        start..start + len
    }));
    idf.clear();
    idf.extend(words.iter().zip(phrases_of.iter()).map(|(w, ps)| {
        if ps.is_empty() {
            0.0
        } else {
            stats.idf(w.hash)
        }
    }));
    named_before.clear();
    named_before.push(0usize);
    bare_before.clear();
    bare_before.push(0usize);
    for (w, ps) in words.iter().zip(phrases_of.iter()) {
        named_before.push(named_before[named_before.len() - 1] + usize::from(!ps.is_empty()));
        let bare = !ps.is_empty() && !lettered(text, w);
        bare_before.push(bare_before[bare_before.len() - 1] + usize::from(bare));
    }
    // No word names the destination: no span scores.
    if named_before[words.len()] == 0 {
        return None;
    }
    // Each word's flags are worked out when a span first reaches it: most words of a long
    // block are beyond the reach of every word that names the destination, and scanning
    // them had been a quarter of the chooser's time at 100,041 pages.
    flags.clear();
    flags.resize(words.len(), WordFlags::default());
    let mut flagged = 0;
    // A span starts and ends with a word of a phrase (or a stop word, at the edge of a
    // whole phrase: [`allowed_span`]): a word at its edge that names nothing adds nothing
    // to any overlap, and the span without it scores as much or more ("Download the
    // vacuum" is no anchor for "download"). Unless the words it shares with the phrases
    // have no letter: a section's or a version's number names it, and is no anchor alone,
    // so then neither edge is held to the rule ("26.1. SQL" in the block "26.1. SQL Dump"
    // for "Section 26.1").
    let unnamed = |k: usize| !words[k].stop && phrases_of[k].is_empty();
    let mut best: Option<(f64, Range<usize>)> = None;
    // The spans from one start are scored as the span grows a word at a time, keeping for
    // each phrase the span has a word of what `overlap` would find (the matched phrase
    // words and their count) and the sum of the idf of those span words: a longer span adds
    // one word to each, in the same order, so nothing is recounted and the sums are the
    // same to the bit.
    let bare = bare_before[words.len()] > 0;
    for i in 0..words.len() {
        // A stop word starts no span but one that is a phrase beginning with it; a word
        // that names nothing, none unless the block has a number that names something (most
        // words are passed over here, before their reach is worked out).
        if (words[i].stop && stop_firsts.binary_search(&words[i].hash).is_err())
            || (unnamed(i) && !bare)
        {
            continue;
        }
        let reach = span_end(words, i);
        // No span from here shares a word with a phrase: all score 0.
        if named_before[reach] == named_before[i]
            || (unnamed(i) && bare_before[reach] == bare_before[i])
        {
            continue;
        }
        // The reach of a later start is never shorter ([`span_end`]); `min` only keeps the
        // range well formed should that change.
        let from = flagged.max(i).min(reach);
        for (k, f) in flags[from..reach].iter_mut().enumerate() {
            *f = WordFlags::of(text, words, from + k);
        }
        flagged = flagged.max(reach);
        grown.clear();
        // The span's letter rule and brackets, grown with it: each byte is scanned once
        // per start, not once per span (rescanning was two fifths of this function).
        let (mut has_letter, mut open, mut scanned) =
            (false, Open::default(), words[i].range.start);
        for j in i + 1..=reach {
            let added = j - 1;
            // Nor does any longer span from here.
            if added > i && flags[added].breaks {
                break;
            }
            has_letter |= flags[added].lettered;
            if flags[added].bracket {
                let Some(now) = open.scan(text.as_bytes(), scanned..words[added].range.end) else {
                    break;
                };
                open = now;
            }
            scanned = words[added].range.end;
            for e in &index[phrases_of[added].clone()] {
                let k = e.phrase as usize;
                let at = grown.iter().position(|g| g.phrase == k).unwrap_or_else(|| {
                    grown.push(Grown {
                        phrase: k,
                        taken: [usize::MAX; MAX_SPAN_WORDS],
                        shared: 0,
                        idf: 0.0,
                    });
                    grown.len() - 1
                });
                let g = &mut grown[at];
                // The phrase's first place for the word not yet taken by the span.
                let free = |x: &usize| !g.taken[..g.shared].contains(x);
                let x = if e.at == IndexedWord::REPEATED {
                    let p = &phrases[k].words;
                    (0..p.len()).find(|x| p[*x] == words[added].hash && free(x))
                } else {
                    Some(e.at as usize).filter(free)
                };
                if let Some(x) = x {
                    g.taken[g.shared] = x;
                    g.shared += 1;
                }
                g.idf += idf[added];
            }
            // More words of the span are in a phrase than are bare numbers: one has a letter.
            let named_letter = named_before[j] - named_before[i] > bare_before[j] - bare_before[i];
            if named_before[j] == named_before[i]
                || ((unnamed(i) || unnamed(added)) && named_letter)
            {
                continue;
            }
            let whole = || {
                grown
                    .iter()
                    .any(|g| g.shared > 0 && is_phrase(&words[i..j], &phrases[g.phrase].words))
            };
            let Some(range) = allowed_span(
                text,
                words,
                i..j,
                links,
                (ends_sentence, has_letter),
                open,
                &whole,
            ) else {
                continue;
            };
            let span = &words[i..j];
            let mut score = 0.0;
            for g in grown.iter().filter(|g| g.shared > 0) {
                let p = &phrases[g.phrase];
                let (overlap, whole) = fit(span, &p.words, g.shared);
                // Overlap decides; the rarity of the shared words breaks ties.
                score = f64::max(score, p.anchor_weight(whole) * overlap + 1e-3 * g.idf);
            }
            // Generic text is ruled out only for a span that would win: skipping a span
            // that would not win changes nothing.
            if score > 0.0
                && best.as_ref().is_none_or(|(s, _)| score > *s)
                && (generic == Generic::Allowed || !is_generic(&text[range.clone()]))
            {
                best = Some((score, range));
            }
        }
    }
    best.map(|(_, range)| range)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every span scored from scratch against every phrase: the rule `choose` computes
    /// incrementally, as its oracle.
    fn choose_from_scratch(
        text: &str,
        links: &[Range<usize>],
        words: &[Word],
        phrases: &[Phrase],
        stats: &SiteStats,
    ) -> Option<(f64, Range<usize>)> {
        let ends_sentence = ends_sentence(text);
        let in_phrase = |w: &Word, k: usize| !w.stop && phrases[k].words.contains(&w.hash);
        let mut best: Option<(f64, Range<usize>)> = None;
        for i in 0..words.len() {
            for j in i + 1..=span_end(words, i) {
                if (i + 1..j).any(|k| sentence_break_before(text, words, k)) {
                    continue;
                }
                let first = words[i].range.start;
                let lettered = words[i..j].iter().any(|w| lettered(text, w));
                let Some(open) =
                    Open::default().scan(text.as_bytes(), first..words[j - 1].range.end)
                else {
                    continue;
                };
                let span = &words[i..j];
                let named = |w: &Word| !w.stop && phrases.iter().any(|p| p.words.contains(&w.hash));
                let unnamed = |w: &Word| !w.stop && !named(w);
                if (unnamed(&words[i]) || unnamed(&words[j - 1]))
                    && span.iter().any(|w| named(w) && super::lettered(text, w))
                {
                    continue;
                }
                let whole = || phrases.iter().any(|p| is_phrase(span, &p.words));
                let Some(range) = allowed_span(
                    text,
                    words,
                    i..j,
                    links,
                    (ends_sentence, lettered),
                    open,
                    &whole,
                ) else {
                    continue;
                };
                let mut score = 0.0;
                for (k, p) in phrases.iter().enumerate() {
                    let mut taken = vec![false; p.words.len()];
                    let mut shared = 0u32;
                    for w in span.iter().filter(|w| !w.stop) {
                        if let Some(x) =
                            (0..p.words.len()).find(|&x| !taken[x] && p.words[x] == w.hash)
                        {
                            taken[x] = true;
                            shared += 1;
                        }
                    }
                    if shared == 0 {
                        continue;
                    }
                    let idf: f64 = span
                        .iter()
                        .filter(|w| in_phrase(w, k))
                        .map(|w| stats.idf(w.hash))
                        .sum();
                    let (o, whole) = fit(span, &p.words, shared as usize);
                    score = f64::max(score, p.anchor_weight(whole) * o + 1e-3 * idf);
                }
                if score > 0.0
                    && best.as_ref().is_none_or(|(s, _)| score > *s)
                    && !is_generic(&text[range.clone()])
                {
                    best = Some((score, range));
                }
            }
        }
        best
    }

    #[test]
    fn the_incremental_span_scores_are_those_from_scratch() {
        use crate::passage::blocks::split_html;
        use crate::passage::stats::{StatsBuilder, TemplateRules};
        use crate::passage::text::words;
        let vocabulary = [
            "tables",
            "rows",
            "the",
            "index",
            "of",
            "vacuum",
            "full",
            "and",
            "planner",
            "to",
            "Tables",
            "join",
            "here",
            "click",
            "more",
            "f(x)",
            "(see",
            "x)",
            "[2]",
            "42",
            "a[1",
            "(1)",
            "\"x",
            "“rows",
            "join”",
            "rows\"",
            "Tables.",
            "index!",
            "结构体的函数",
            "（表",
            "索引）",
            "「表」",
            "테이블은",
        ];
        let mut seed = 11u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % n as u64) as usize
        };
        let mut site = StatsBuilder::new();
        let mut texts = Vec::new();
        for k in 0..300 {
            // One text in five a short label of plain words (four to six, the first twelve
            // of the vocabulary, no closing stop), which a phrase may be whole.
            let label = k % 5 == 0;
            let text: Vec<&str> = if label {
                (0..4 + next(3)).map(|_| vocabulary[next(12)]).collect()
            } else {
                (0..=next(14))
                    .map(|_| vocabulary[next(vocabulary.len())])
                    .collect()
            };
            let end = if label { "" } else { [".", "", ":"][next(3)] };
            let joined = format!("{}{end}", text.join(" "));
            site.add_page(&split_html(&format!("<p>{joined}</p>")));
            texts.push((joined, text));
        }
        let stats = site.finish(&TemplateRules::default());
        let mut found = 0;
        // One chooser for every text, as each of the run's anchor workers keeps one for
        // many rows (`run::passages`): what its buffers hold from one block (worked out
        // from that block's destination's phrases) must not leak into the next.
        let mut scratch = Scratch::default();
        for (text, tokens) in &texts {
            let ws = words(text);
            let phrases: Vec<Phrase> = (0..=next(4))
                .map(|_| {
                    // Now and then a phrase written in the text (so a span may be a whole
                    // phrase that starts or ends with a stop word), sometimes all of it (a
                    // label that is a phrase is linked whole), else random words.
                    let p: Vec<&str> = match next(9) {
                        0 => tokens.clone(),
                        1 | 2 => {
                            let start = next(tokens.len());
                            tokens[start..tokens.len().min(start + 1 + next(4))].to_vec()
                        }
                        _ => (0..=next(4))
                            .map(|_| vocabulary[next(vocabulary.len())])
                            .collect(),
                    };
                    let pw = words(&p.join(" "));
                    Phrase {
                        words: pw.iter().map(|w| w.hash).collect(),
                        stop: pw.iter().map(|w| w.stop).collect(),
                        weight: [0.6, 0.8, 1.0][next(3)],
                        link_rate: [0.05, 0.3, 0.9][next(3)],
                        rarity: 1.0,
                    }
                })
                .collect();
            // Now and then an existing link over a few words.
            let links: Vec<Range<usize>> = if ws.len() > 3 && next(3) == 0 {
                std::iter::once(ws[1].range.start..ws[2].range.end).collect()
            } else {
                Vec::new()
            };
            let index = PhraseIndex::new(&phrases);
            let fast = scratch.choose(text, &links, &phrases, &index, &stats);
            let slow = choose_from_scratch(text, &links, &ws, &phrases, &stats).map(|(_, r)| r);
            assert_eq!(fast, slow, "{text:?}");
            found += usize::from(fast.is_some());
        }
        // The comparison is between anchors, not between two empty answers.
        assert!(found > texts.len() / 2, "{found}");
    }

    /// A phrase of weight 1 with the given link rate.
    fn phrase(text: &str, link_rate: f64) -> Phrase {
        let pw = crate::passage::text::words(text);
        Phrase {
            words: pw.iter().map(|w| w.hash).collect(),
            stop: pw.iter().map(|w| w.stop).collect(),
            weight: 1.0,
            link_rate,
            rarity: 1.0,
        }
    }

    /// The anchor chosen in the one-paragraph page `text` for `phrases`, held to the oracle.
    fn chosen<'a>(text: &'a str, phrases: &[Phrase]) -> Option<&'a str> {
        use crate::passage::split_html;
        use crate::passage::stats::{StatsBuilder, TemplateRules};
        let mut site = StatsBuilder::new();
        site.add_page(&split_html(&format!("<p>{text}</p>")));
        let stats = site.finish(&TemplateRules::default());
        let index = PhraseIndex::new(phrases);
        let words = crate::passage::text::words(text);
        let chosen = Scratch::default().choose(text, &[], phrases, &index, &stats);
        assert_eq!(
            chosen,
            choose_from_scratch(text, &[], &words, phrases, &stats).map(|(_, r)| r)
        );
        chosen.map(|r| &text[r])
    }

    #[test]
    fn a_phrase_with_a_stop_word_inside_fits_its_own_words_whole() {
        let text = "Use ROLLBACK TO SAVEPOINT to undo the work since the savepoint.";
        let whole = phrase("ROLLBACK TO SAVEPOINT", 0.5);
        let words = crate::passage::text::words(text);
        assert_eq!(fit(&words[1..4], &whole.words, 2), (1.0, true));
        // Of two whole phrases of equal weight, the rarer words win: the command's whole
        // name, not its last word, which had fitted by 1 against the name's (2/3)³.
        let phrases = [whole, phrase("savepoint", 0.5)];
        assert_eq!(chosen(text, &phrases), Some("ROLLBACK TO SAVEPOINT"));
    }

    #[test]
    fn a_span_may_start_or_end_with_a_stop_word_only_when_it_is_a_whole_phrase() {
        // Other pages link the destination as "the reference": that span may be the anchor,
        // stop word and all, and outranks the title's words at a lower link rate.
        let text = "See the reference for details on environment variables.";
        let known = [
            phrase("the reference", 0.9),
            phrase("environment variables", 0.2),
        ];
        assert_eq!(chosen(text, &known), Some("the reference"));
        // Part of such a phrase, or a span that merely starts with a stop word, never is.
        let title = [phrase("reference manual", 0.9)];
        assert_eq!(chosen(text, &title), Some("reference"));
        let ends = [phrase("details on", 0.9), phrase("variables", 0.1)];
        assert_eq!(chosen(text, &ends), Some("details on"));
        let partial = [phrase("the reference guide", 0.9)];
        assert_eq!(chosen(text, &partial), Some("reference"));
    }

    /// Whether every bracket and quotation mark `s` opens it closes, counted plainly: as many
    /// of each closing bracket as of its opening one, and straight quotes in pairs, the first
    /// not right after a letter (where it would close a quotation begun before `s`).
    fn balanced(s: &str) -> bool {
        let pairs = [
            ('(', ')'),
            ('（', '）'),
            ('「', '」'),
            ('【', '】'),
            ('《', '》'),
            ('“', '”'),
        ];
        let first_quote_closes = s.find('"').is_some_and(|i| {
            s[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        });
        pairs
            .iter()
            .all(|&(o, c)| s.matches(o).count() == s.matches(c).count())
            && s.matches('"').count().is_multiple_of(2)
            && !first_quote_closes
    }

    #[test]
    fn an_anchor_closes_every_bracket_and_quotation_mark_it_opens() {
        // Each text has the phrase's own words across a mark closed further on: that span
        // had been the anchor ("vector (Result"), as link text a broken one.
        for (text, words, broken) in [
            (
                "Collect them into a vector (Result values first) and return it.",
                "vector result",
                "vector (Result",
            ),
            (
                "使用结构体（struct 和 enum）定义类型。",
                "结构体（struct",
                "结构体（struct",
            ),
            (
                "A role called “autocommit mode” here.",
                "called autocommit",
                "called “autocommit",
            ),
            (
                "Set Default: \"1 day\" or more.",
                "default 1",
                "Default: \"1",
            ),
            // Two quotations: an even count of straight quotes, one closed and one opened.
            (
                "Toggle the \"debug\" and \"trace\" options.",
                "debug and trace",
                "debug\" and \"trace",
            ),
            ("《结构体》和【函数】", "结构体和函数", "结构体》和【函数"),
        ] {
            let anchor = chosen(text, &[phrase(words, 0.5)]).expect("an anchor");
            assert_ne!(anchor, broken);
            assert!(balanced(anchor), "{anchor}");
        }
        // A mark closed right after the span is taken in; marks around it stay out.
        for (text, words, anchor) in [
            ("Call f(x) twice.", "f x", "f(x)"),
            ("见「所有权」一章。", "所有权", "所有权"),
            ("See “autocommit” below.", "autocommit", "autocommit"),
        ] {
            assert_eq!(chosen(text, &[phrase(words, 0.5)]), Some(anchor));
        }
    }

    #[test]
    fn an_anchor_stays_within_its_sentence() {
        let text = "Replication is currently asynchronous. Synchronous replication is not.";
        let phrases = [phrase("asynchronous synchronous replication", 0.5)];
        let anchor = chosen(text, &phrases).expect("an anchor");
        assert!(!anchor.contains(". "), "{anchor}");
        // A closing mark may stand between the stop and the space; Hangul has no capitals.
        let stop_it = [phrase("stop it then", 0.5)];
        let anchor = chosen("He said “stop it.” Then he left.", &stop_it);
        assert!(
            !anchor.is_some_and(|a| a.contains(". ") || a.contains(".” ")),
            "{anchor:?}"
        );
        let next_step = [phrase("끝났다 다음", 0.5)];
        let anchor = chosen("작업이 끝났다. 다음 단계를 본다", &next_step);
        assert!(!anchor.is_some_and(|a| a.contains(". ")), "{anchor:?}");
        // A full stop inside a number, or after a section number, is no sentence's end.
        assert_eq!(
            chosen("Read Section 5.6 first.", &[phrase("Section 5.6", 0.5)]),
            Some("Section 5.6")
        );
        assert_eq!(
            chosen("See 27.3. Failover now", &[phrase("27.3. Failover", 0.5)]),
            Some("27.3. Failover")
        );
    }

    #[test]
    fn a_short_cjk_label_may_be_its_whole_block() {
        // Four pairs, two words and a half: a label, not a sentence ("所有权规" had been
        // chosen, the whole counted as four words).
        assert_eq!(
            chosen("所有权规则", &[phrase("所有权规则", 0.5)]),
            Some("所有权规则")
        );
    }

    #[test]
    fn a_label_that_is_a_whole_phrase_is_linked_whole_up_to_six_words() {
        // A table cell naming a target: four words, the destination's title word for word
        // ("mipsel-unknown-linux" had been chosen, the whole block being refused).
        let title = [phrase("mipsel-unknown-linux-gnu", 0.5)];
        assert_eq!(
            chosen("mipsel-unknown-linux-gnu", &title),
            Some("mipsel-unknown-linux-gnu")
        );
        // A four-word block that is not a phrase is still not taken whole, nor is a
        // sentence that is one.
        assert_eq!(
            chosen("mipsel-unknown-linux-musl", &title),
            Some("mipsel-unknown-linux")
        );
        assert_eq!(
            chosen("Mipsel unknown linux gnu.", &title),
            Some("Mipsel unknown linux")
        );
    }

    #[test]
    fn a_japanese_title_inside_a_sentence_is_the_anchor_whole() {
        // One run of characters, cut into pairs: the title's eight pairs are found inside
        // it, and are one anchor (six words had cut it to its last seven characters).
        let text = "詳しくはエラーハンドリングの章を参照してください。";
        let title = phrase("エラーハンドリング", 0.5);
        assert_eq!(title.words.len(), 8);
        assert_eq!(chosen(text, &[title]), Some("エラーハンドリング"));
    }

    #[test]
    fn an_anchor_neither_starts_nor_ends_with_a_word_that_names_nothing() {
        // "Big vacuum tables" shares as many words with the phrase as "vacuum tables", and
        // came first.
        let phrases = [phrase("vacuum tables index", 0.5)];
        assert_eq!(
            chosen("Big vacuum tables guide.", &phrases),
            Some("vacuum tables")
        );
        // A number alone has no letter and is no anchor: a section's number runs on to its
        // name.
        let section = [phrase("Section 26.1", 0.5)];
        assert_eq!(chosen("26.1. SQL Dump", &section), Some("26.1. SQL"));
    }

    #[test]
    fn a_generic_best_span_gives_way_to_the_best_other_one() {
        let text = "Download the vacuum tables guide.";
        // "Download" is a whole phrase the site links often: the best span of all, but generic.
        let phrases = [phrase("download", 0.9), phrase("vacuum tables", 0.05)];
        assert_eq!(chosen(text, &phrases), Some("vacuum tables"));
        // With the generic phrase alone there is no anchor: a longer span holding it would
        // end on a word that names nothing ("Download the vacuum").
        assert_eq!(chosen(text, &[phrase("download", 0.9)]), None);
    }

    #[test]
    fn generic_list_is_sorted_and_matches_loosely() {
        assert!(GENERIC.windows(2).all(|w| w[0] < w[1]));
        assert!(GENERIC.iter().all(|g| g.len() <= GENERIC_BYTES));
        assert_eq!(
            GENERIC.iter().map(|g| g.split(' ').count()).max(),
            Some(MAX_GENERIC_WORDS)
        );
        assert!(!is_generic("read more about the tables"));
        assert!(is_generic("Click HERE!"));
        assert!(is_generic("read more …"));
        assert!(!is_generic("read the manual"));
    }

    #[test]
    fn generic_text_is_told_as_the_folded_copy_tells_it() {
        // The rule as it was written first: the words joined by spaces, lowercased, looked
        // up in the list.
        let folded = |text: &str| {
            let f = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            f.is_empty() || GENERIC.binary_search(&f.as_str()).is_ok()
        };
        let mut texts: Vec<String> = GENERIC.iter().map(|g| (*g).to_string()).collect();
        texts.extend(GENERIC.iter().map(|g| format!("  {}!", g.to_uppercase())));
        texts.extend(GENERIC.iter().map(|g| format!("{g} more")));
        texts.extend(GENERIC.iter().map(|g| g.replace(' ', "-")));
        for t in [
            "",
            " … ",
            "read",
            "read more about",
            "more-info",
            "BAC\u{212a}",
            "Top 10",
            "this  page",
            "clickhere",
            "here here",
            "Über",
            "view more!",
            "learn more\n",
        ] {
            texts.push(t.to_string());
        }
        for t in &texts {
            assert_eq!(is_generic(t), folded(t), "{t:?}");
        }
        // The Kelvin sign lowercases to an ASCII k: "BAC\u{212a}" is "back".
        assert!(is_generic("BAC\u{212a}"));
    }
}
