//! Words: the tokenizer shared by the site statistics, the scoring and the anchor choice.
//! A word is a run of Unicode letters, digits and `_` (so `pg_dump` is one word), compared
//! lower-cased through a 64-bit hash; a small English stop-word list is down-weighted.

use std::ops::Range;

/// One word of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// Hash of the lower-cased word.
    pub hash: u64,
    /// Whether it is a stop word.
    pub stop: bool,
}

/// One phrase that names the destination.
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase {
    /// Its words' hashes, in order.
    pub words: Vec<u64>,
    /// Which are stop words.
    pub stop: Vec<bool>,
    /// How much it says about the destination, 0–1.
    pub weight: f64,
    /// The rarity of its non-stop words (sum of their idf).
    pub rarity: f64,
    /// How likely the phrase, where the site writes it, is to be a link's text (0–1).
    pub link_rate: f64,
}

/// How much a phrase's link rate counts in its weight as an anchor: a phrase the site never
/// links keeps this share of its weight.
const UNLINKED_ANCHOR_WEIGHT: f64 = 0.3;

impl Phrase {
    /// The phrase's weight when a span of the chosen block is matched against it for the
    /// anchor: its weight, less for a phrase the site writes often and seldom links. Of two
    /// phrases naming the destination in one sentence ("… the environment variables
    /// supported by libpq (see Section 34.15)"), the one the site's authors make a link when
    /// they write it is the likelier link text. Measured on held-out links
    /// (`examples/passage_eval.rs`, seeds 1–3, docs/passage.md): postgres15 anchor overlap
    /// +1.5 points and exact anchors +6.4, git's manual pages and the generated sites within
    /// half a point; the figures moved by under a point for floors of 0.15–0.5 and priors of
    /// 1–5 occurrences.
    ///
    /// Only a span that is the whole phrase earns the link rate (`whole`): a span holding part
    /// of a phrase the site always links ("Table 9" of "Table 9.43", "section" of "Section
    /// 34.15") names something else, and with the rate it outscored the whole title.
    pub fn anchor_weight(&self, whole: bool) -> f64 {
        let rate = if whole { self.link_rate } else { 0.0 };
        self.weight * (UNLINKED_ANCHOR_WEIGHT + (1.0 - UNLINKED_ANCHOR_WEIGHT) * rate)
    }
}

/// Separators that cut a title into its parts (site name, section number, chapter).
const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", ": ", " · ", " :: ", " / ", ". "];

/// A title's parts between separators, leading section numbers dropped ("2.6. Joins
/// Between Tables" → "Joins Between Tables"); a title with no separator is its one part.
pub fn title_parts(title: &str) -> Vec<String> {
    // Split by each separator in turn (" :: " after ": " has split it), on slices of the
    // title: a title is split for every destination of a large pool.
    let mut pieces = vec![title];
    for sep in TITLE_SEPARATORS {
        if pieces.iter().any(|p| p.contains(sep)) {
            pieces = pieces.iter().flat_map(|p| p.split(sep)).collect();
        }
    }
    pieces
        .iter()
        .map(|p| {
            p.trim()
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
                .trim()
                .to_string()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// English function words: they carry no topic, so they weigh little in scores and never
/// start or end a suggested anchor.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either",
    "etc", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
    "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
    "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now", "of", "off",
    "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "see",
    "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "upon", "us", "very", "via", "was", "we", "were", "what", "when", "where", "whether", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// FNV-1a's start and multiplier.
const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over the lower-cased UTF-8 of a word: stable across runs and platforms.
fn hash_lower(word: &str) -> u64 {
    let mut h = OFFSET;
    for c in word.chars() {
        h = hash_char(h, c);
    }
    h
}

/// `h` continued by the lower case of `c`.
#[inline]
fn hash_char(mut h: u64, c: char) -> u64 {
    if c.is_ascii() {
        return (h ^ u64::from(c.to_ascii_lowercase() as u8)).wrapping_mul(PRIME);
    }
    let mut buf = [0u8; 4];
    for lc in c.to_lowercase() {
        for b in lc.encode_utf8(&mut buf).bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }
    h
}

/// The hash a word is compared by (case-insensitive).
pub fn word_hash(word: &str) -> u64 {
    hash_lower(word)
}

/// Whether a word (any case) is a stop word.
pub fn is_stop(word: &str) -> bool {
    is_stop_hashed(word, hash_lower(word))
}

/// [`is_stop`] of a word whose hash is known. The list is ASCII and an ASCII word's hash is
/// that of its lower case, so the hash decides without copying the word.
fn is_stop_hashed(word: &str, hash: u64) -> bool {
    word.len() <= 8 && word.is_ascii() && stop_hashes().binary_search(&hash).is_ok()
}

fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        c.is_alphanumeric()
    }
}

/// Call `f` with every word of `text`, in order.
pub fn for_each_word(text: &str, mut f: impl FnMut(Word)) {
    scan(text, |range, hash| {
        let stop = is_stop_hashed(&text[range.clone()], hash);
        f(Word { range, hash, stop });
    });
}

/// The stop words' hashes, sorted.
fn stop_hashes() -> &'static [u64] {
    static HASHES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    HASHES.get_or_init(|| {
        let mut h: Vec<u64> = STOP_WORDS.iter().map(|w| hash_lower(w)).collect();
        h.sort_unstable();
        h
    })
}

/// Call `f` with the hash of every word of `text`, in order (the statistics' fast path).
pub fn for_each_hash(text: &str, mut f: impl FnMut(u64)) {
    scan(text, |_, hash| f(hash));
}

/// Every word's byte range and hash ([`hash_lower`]), in order, from one pass over the text:
/// a word is hashed as its end is sought, and an ASCII byte (nearly every byte of most
/// sites' text) is tested and hashed without decoding a `char`. Finding the words and then
/// hashing each had been two passes, a tenth of the passage stage.
fn scan(text: &str, mut f: impl FnMut(Range<usize>, u64)) {
    let bytes = text.as_bytes();
    let (mut i, mut start, mut h) = (0, None, OFFSET);
    while let Some(&b) = bytes.get(i) {
        let (c, len) = if b.is_ascii() {
            (char::from(b), 1)
        } else {
            // `i` is at a character's first byte: every step moves by a whole character.
            let c = text[i..].chars().next().unwrap_or_default();
            (c, c.len_utf8())
        };
        if is_word_char(c) {
            if start.is_none() {
                (start, h) = (Some(i), OFFSET);
            }
            h = hash_char(h, c);
        } else if let Some(s) = start.take() {
            f(s..i, h);
        }
        i += len;
    }
    if let Some(s) = start {
        f(s..text.len(), h);
    }
}

/// Every word of `text`.
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for_each_word(text, |w| out.push(w));
    out
}

/// Hash of a whole text by its words, so case, punctuation and spacing do not matter: the
/// identity of a block for template detection.
pub fn text_hash(text: &str) -> u64 {
    let mut hashes = Vec::new();
    for_each_hash(text, |h| hashes.push(h));
    sequence_hash(&hashes)
}

/// [`text_hash`] of a text whose word hashes are known.
pub fn sequence_hash(word_hashes: &[u64]) -> u64 {
    word_hashes
        .iter()
        .fold(SEQUENCE_SEED, |h, &w| sequence_step(h, w))
}

/// [`sequence_hash`] of no words: where a sequence grown a word at a time starts.
pub const SEQUENCE_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// [`sequence_hash`] of a sequence whose hash is `h`, one word (`w`) longer.
pub fn sequence_step(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_list_is_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_are_unicode_runs_compared_without_case() {
        let text = "Use pg_dump, Café-Owner's 2.6 tools";
        let w: Vec<&str> = words(text).iter().map(|w| &text[w.range.clone()]).collect();
        assert_eq!(
            w,
            vec!["Use", "pg_dump", "Café", "Owner", "s", "2", "6", "tools"]
        );
        assert_eq!(word_hash("CAFÉ"), word_hash("café"));
        // FNV-1a of the lower case's UTF-8, pinned (computed apart from this code): the
        // hashes must not change from one build to the next ('İ' lowers to "i\u{307}").
        assert_eq!(word_hash("pg_dump"), 0xda75_b83a_ab27_5247);
        assert_eq!(word_hash("İx"), 0x4fe3_09c8_8323_444f);
        assert_eq!(word_hash("Café"), 0x48e8_823a_cfa4_0d89);
        let mut found = Vec::new();
        scan("İx, Café", |r, h| found.push((r, h)));
        assert_eq!(
            found,
            [
                (0..3, 0x4fe3_09c8_8323_444f),
                (5..10, 0x48e8_823a_cfa4_0d89)
            ]
        );
        assert!(is_stop("The") && !is_stop("table"));
        // The by-hash test inside `words` agrees with `is_stop` on every listed word, in
        // any case, and on words that are not listed.
        for w in STOP_WORDS
            .iter()
            .map(ToString::to_string)
            .chain(["Table".into(), "THEM".into()])
        {
            for form in [w.clone(), w.to_uppercase()] {
                assert_eq!(words(&form)[0].stop, is_stop(&form), "{form}");
            }
        }
        assert_eq!(text_hash("Read  more!"), text_hash("read more"));
        assert_ne!(text_hash("read more"), text_hash("more read"));
    }

    #[test]
    fn one_pass_finds_and_hashes_words_as_two_passes_did() {
        // The words found a character at a time, then each hashed on its own: the rule the
        // one-pass scan must keep, on ASCII, accented, multi-byte and case-changing text
        // ('İ' lowers to two characters), digits, `_` and punctuation.
        fn two_passes(text: &str) -> Vec<(Range<usize>, u64)> {
            let mut out = Vec::new();
            let mut start = None;
            for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
                match (is_word_char(c) && i < text.len(), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        out.push((s..i, hash_lower(&text[s..i])));
                        start = None;
                    }
                    _ => {}
                }
            }
            out
        }
        let pieces = [
            "a", "Z", "pg_dump", "É", "é", "İ", "ß", "日本", "9", " ", ", ", "-", "'", "—",
            "\u{a0}", "Ωmega", "x\u{301}",
        ];
        let mut rng = crate::rng::Rng::new(31);
        let mut words_seen = 0;
        for _ in 0..20_000 {
            let text: String = (0..rng.below(12))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            let mut found = Vec::new();
            scan(&text, |r, h| found.push((r, h)));
            assert_eq!(found, two_passes(&text), "{text:?}");
            words_seen += found.len();
        }
        assert!(words_seen > 20_000, "{words_seen}");
    }
}
