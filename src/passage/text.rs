//! Words: the tokenizer shared by the site statistics, the scoring and the anchor choice.
//! A word is a run of Unicode letters, digits and `_` (so `pg_dump` is one word), compared
//! lower-cased through a 64-bit hash; a small English stop-word list is down-weighted.
//! Chinese, Japanese and Korean text, which does not put spaces between words (or, in
//! Korean, writes particles onto them), is cut into overlapping pairs of characters, as
//! search engines' CJK analyzers do: "函数和结构体" holds "结构体" as "结构" "构体".

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

/// The word hash's seed and per-chunk multiplier (the 64-bit golden ratio).
const SEED: u64 = 0x243f_6a88_85a3_08d3;
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// `h` continued by one chunk of up to eight bytes of a lower-cased word (little-endian, the
/// bytes past the word zero): the chunk enters through a rotation, an xor and a multiply,
/// each a bijection, so two words of the same length, up to eight bytes, never share a hash.
#[inline]
fn chunk_step(h: u64, chunk: u64) -> u64 {
    (h.rotate_left(23) ^ chunk).wrapping_mul(MIX)
}

/// The end of a word's hash: its length, then a finalizer that spreads every input bit over
/// every output bit (`MurmurHash3`'s), since the callers' tables use the low bits.
#[inline]
fn finish(h: u64, len: usize) -> u64 {
    let mut h = h ^ len as u64;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The hash of a word's lower-cased UTF-8 bytes, eight at a time.
fn hash_bytes(lower: &[u8]) -> u64 {
    let mut h = SEED;
    for chunk in lower.chunks(8) {
        let mut buf = [0u8; 8];
        buf[..chunk.len()].copy_from_slice(chunk);
        h = chunk_step(h, u64::from_le_bytes(buf));
    }
    finish(h, lower.len())
}

/// Ones in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Eight ASCII bytes with `A`–`Z` lowered, at once: a byte's top bit, free in ASCII, tells
/// whether adding to it reaches `A` and whether it passes `Z`, with no carry into the next byte.
#[inline]
fn lower_ascii8(x: u64) -> u64 {
    let from_a = x + ONES * u64::from(0x80 - b'A');
    let past_z = x + ONES * u64::from(0x80 - b'Z' - 1);
    x | ((from_a & !past_z & (ONES * 0x80)) >> 2)
}

/// [`hash_bytes`] of an ASCII word `bytes[start..end]` lowered, read eight bytes at a time.
#[allow(clippy::inline_always)] // in `scan`'s loop, once a word (bench split: ~0.62 → ~0.65 GB/s)
#[inline(always)]
fn hash_ascii(bytes: &[u8], start: usize, end: usize) -> u64 {
    let mut h = SEED;
    let mut at = start;
    while at < end {
        let left = end - at;
        // Eight bytes read from the text where it has them (those past the word masked
        // off), else the word's last bytes copied.
        let mut buf = [0u8; 8];
        let chunk = if let Some(eight) = bytes.get(at..at + 8) {
            buf.copy_from_slice(eight);
            let x = u64::from_le_bytes(buf);
            if left >= 8 {
                x
            } else {
                x & ((1u64 << (8 * left)) - 1)
            }
        } else {
            buf[..left].copy_from_slice(&bytes[at..end]);
            u64::from_le_bytes(buf)
        };
        h = chunk_step(h, lower_ascii8(chunk));
        at += 8;
    }
    finish(h, end - start)
}

/// The hash of a word's lower case (UTF-8): stable across runs and platforms.
fn hash_lower(word: &str) -> u64 {
    if word.is_ascii() {
        return hash_ascii(word.as_bytes(), 0, word.len());
    }
    let mut lower = Vec::with_capacity(word.len() + 4);
    push_lower(&mut lower, word);
    hash_bytes(&lower)
}

/// Append the lower case of `word` to `out`, as UTF-8.
fn push_lower(out: &mut Vec<u8>, word: &str) {
    let mut buf = [0u8; 4];
    for c in word.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase() as u8);
        } else {
            for lc in c.to_lowercase() {
                out.extend_from_slice(lc.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
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

/// Every word's byte range and hash, in order ([`for_each_hash`] with the ranges).
pub fn for_each_hash_at(text: &str, f: impl FnMut(Range<usize>, u64)) {
    scan(text, f);
}

/// Whether each ASCII byte is a word character (letters, digits, `_`).
const ASCII_WORD: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// Every word's byte range and hash ([`hash_lower`]), in order, from one pass over the text.
/// An ASCII word (nearly every word of most sites' text) is found sixteen bytes at a time
/// ([`ascii_word_end`]) and hashed eight bytes at a time, lowered in place; only a word with
/// another character is lowered a character at a time into a buffer ([`word_beyond_ascii`]).
/// Byte-at-a-time FNV had been ~2.5 ns a byte (`cargo bench --bench split`), a dependent
/// multiply per byte.
fn scan(text: &str, mut f: impl FnMut(Range<usize>, u64)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut lower: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        if b < 0x80 {
            if !ASCII_WORD[usize::from(b)] {
                i += 1;
                continue;
            }
            let start = i;
            i = ascii_word_end(bytes, i + 1);
            if i == n || bytes[i] < 0x80 {
                f(start..i, hash_ascii(bytes, start, i));
                continue;
            }
            // The word may go on with a character beyond ASCII.
            i = word_beyond_ascii(text, start, i, &mut lower, &mut f);
        } else {
            // `i` is at a character's first byte: every step moves by a whole character.
            let (word, len) = char_at(text, i);
            if len == 3 && text[i..].chars().next().is_some_and(is_caseless_letter) {
                i = caseless_pairs(text, i, &mut f);
            } else if word {
                i = word_beyond_ascii(text, i, i, &mut lower, &mut f);
            } else {
                i += len;
            }
        }
    }
}

/// Where the run of ASCII word bytes from `i` ends: sixteen bytes are classified at once
/// where the text has them (most words end within the first sixteen), the rest a byte at a
/// time.
#[allow(clippy::inline_always)] // in `scan`'s loop, once a word
#[inline(always)]
fn ascii_word_end(bytes: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(sixteen) = bytes.get(i..i + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128,
            _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of x86_64; the load reads the 16 bytes of `sixteen`
        // (`loadu`: unaligned). A byte past ASCII is negative to the signed compares, so it
        // is no letter, digit or `_`.
        #[allow(unsafe_code, clippy::cast_ptr_alignment, clippy::cast_possible_wrap)]
        let word = unsafe {
            let v = _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>());
            let within = |x: __m128i, lo: u8, hi: u8| {
                _mm_and_si128(
                    _mm_cmpgt_epi8(x, _mm_set1_epi8((lo - 1) as i8)),
                    _mm_cmpgt_epi8(_mm_set1_epi8((hi + 1) as i8), x),
                )
            };
            let letter = within(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', b'z');
            let digit = within(v, b'0', b'9');
            let underscore = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'_' as i8));
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), underscore))
        };
        #[allow(clippy::cast_sign_loss)]
        let run = (word as u32).trailing_ones() as usize;
        if run < 16 {
            return i + run;
        }
        i += 16;
    }
    while i < bytes.len() && bytes[i] < 0x80 && ASCII_WORD[usize::from(bytes[i])] {
        i += 1;
    }
    i
}

/// The rest of [`scan`]'s word that starts at `start` and is ASCII up to `from` (a character
/// boundary), found and lowered into `lower` in one pass; returns where the word ends. Not
/// marked cold: on a site written in another script most words come here.
fn word_beyond_ascii(
    text: &str,
    start: usize,
    from: usize,
    lower: &mut Vec<u8>,
    f: &mut impl FnMut(Range<usize>, u64),
) -> usize {
    let bytes = text.as_bytes();
    lower.clear();
    lower.extend(bytes[start..from].iter().map(u8::to_ascii_lowercase));
    let mut end = from;
    while let Some(&b) = bytes.get(end) {
        if b < 0x80 {
            if !ASCII_WORD[usize::from(b)] {
                break;
            }
            lower.push(b.to_ascii_lowercase());
            end += 1;
            continue;
        }
        // A two-byte character (Latin accents, Greek, Cyrillic, Hebrew, Arabic …) by table:
        // `char::to_lowercase` and `char::is_alphanumeric` search Unicode's tables, ~60 ns a
        // character.
        if let (0xc2..=0xdf, Some(&next)) = (b, bytes.get(end + 1)) {
            let entry = two_byte_entry(b, next);
            if entry & TWO_BYTE_WORD == 0 {
                break;
            }
            if entry & TWO_BYTE_OTHER == 0 {
                let mut buf = [0u8; 4];
                let lowered = char::from_u32(u32::from(entry & TWO_BYTE_LOWER)).unwrap_or(' ');
                lower.extend_from_slice(lowered.encode_utf8(&mut buf).as_bytes());
                end += 2;
                continue;
            }
        }
        let c = text[end..].chars().next().unwrap_or_default();
        // Chinese, Japanese or Korean after other letters ("crate_nameアトリビュート") starts
        // words of its own ([`caseless_pairs`]).
        if is_caseless_letter(c) || !is_word_char(c) {
            break;
        }
        push_lower(lower, &text[end..end + c.len_utf8()]);
        end += c.len_utf8();
    }
    // Also for an ASCII word that ends at a character beyond ASCII (`end == from`): `lower`
    // holds its lower case, and `hash_bytes` of it is `hash_ascii`'s hash.
    f(start..end, hash_bytes(lower));
    end
}

/// The words of the run of [`is_caseless_letter`] characters at byte `i` of `text`, each two
/// characters long and overlapping by one (one character on its own is a word); returns
/// where the run ends. These scripts write words without spaces between them: a run is a
/// phrase or a sentence, and as one word it matched only itself. Pairs let "结构体" (two
/// pairs) be found in "函数和结构体", as phrases are found anywhere, without a dictionary.
/// The characters are all three bytes long and caseless, so a pair's bytes are its lower
/// case.
fn caseless_pairs(text: &str, i: usize, f: &mut impl FnMut(Range<usize>, u64)) -> usize {
    let bytes = text.as_bytes();
    let mut end = i;
    while text[end..].chars().next().is_some_and(is_caseless_letter) {
        end += 3;
    }
    if end - i == 3 {
        f(i..end, hash_bytes(&bytes[i..end]));
    }
    for at in (i..end.saturating_sub(3)).step_by(3) {
        f(at..at + 6, hash_bytes(&bytes[at..at + 6]));
    }
    end
}

/// Whether the character beyond ASCII at byte `i` of `text` (a character boundary) is a word
/// character, and its length in bytes; a two-byte one by table ([`two_byte_chars`]).
fn char_at(text: &str, i: usize) -> (bool, usize) {
    let bytes = text.as_bytes();
    if let (Some(&b @ 0xc2..=0xdf), Some(&next)) = (bytes.get(i), bytes.get(i + 1)) {
        return (two_byte_entry(b, next) & TWO_BYTE_WORD != 0, 2);
    }
    let c = text[i..].chars().next().unwrap_or_default();
    (is_caseless_letter(c) || is_word_char(c), c.len_utf8())
}

/// Whether `c` is in a block of three-byte letters that have no case: the kana (their letters
/// and length marks, not the combining sound marks), the CJK ideographs (U+3400–U+4DBF,
/// U+4E00–U+9FFF) and the Hangul syllables (U+AC00–U+D7A3). Chinese, Japanese or Korean
/// text is long runs of them, cut into pairs ([`caseless_pairs`]); a range test spares each
/// character the standard library's table searches (a test checks every one against them).
fn is_caseless_letter(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3041..=0x3096
            | 0x309d..=0x309f
            | 0x30a1..=0x30fa
            | 0x30fc..=0x30ff
            | 0x3400..=0x4dbf
            | 0x4e00..=0x9fff
            | 0xac00..=0xd7a3
    )
}

/// The [`two_byte_chars`] entry of the two-byte character whose UTF-8 is `lead`, `next`
/// (`lead` in 0xC2–0xDF).
fn two_byte_entry(lead: u8, next: u8) -> u16 {
    two_byte_chars()[((usize::from(lead & 0x1f) << 6) | usize::from(next & 0x3f)) - 0x80]
}

/// [`two_byte_chars`]: the character is a word character.
const TWO_BYTE_WORD: u16 = 1 << 15;
/// [`two_byte_chars`]: its lower case is not one character in U+0080–U+07FF (look it up).
const TWO_BYTE_OTHER: u16 = 1 << 14;
/// [`two_byte_chars`]: the lower case's code point.
const TWO_BYTE_LOWER: u16 = 0x7ff;

/// For each character U+0080–U+07FF (UTF-8's two-byte characters), whether it is a word
/// character and its lower case when that is one character in the same range, worked out
/// once from the standard library's Unicode tables.
fn two_byte_chars() -> &'static [u16; 0x780] {
    static TABLE: std::sync::OnceLock<Box<[u16; 0x780]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([0u16; 0x780]);
        for (k, entry) in table.iter_mut().enumerate() {
            let Some(c) = char::from_u32(0x80 + k as u32) else {
                continue;
            };
            let mut lowered = c.to_lowercase();
            let single = match (lowered.next(), lowered.next()) {
                (Some(l), None) if (0x80..0x800).contains(&u32::from(l)) => {
                    Some(u32::from(l) as u16)
                }
                _ => None,
            };
            *entry =
                if is_word_char(c) { TWO_BYTE_WORD } else { 0 } | single.unwrap_or(TWO_BYTE_OTHER);
        }
        table
    })
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

    /// The words of `text` found a character at a time, each hashed on its own from its
    /// lower case by the standard library: the rule the one-pass scan must keep. A run of
    /// word characters is cut where Chinese, Japanese or Korean starts or stops; such a
    /// piece gives its pairs of characters (its one character, alone).
    fn two_passes(text: &str) -> Vec<(Range<usize>, u64)> {
        let mut out = Vec::new();
        let mut start: Option<(usize, bool)> = None;
        let mut pieces = Vec::new();
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            let kind = (is_word_char(c) && i < text.len()).then(|| is_caseless_letter(c));
            match (kind, start) {
                (Some(k), None) => start = Some((i, k)),
                (Some(k), Some((s, was))) if k != was => {
                    pieces.push((s..i, was));
                    start = Some((i, k));
                }
                (None, Some((s, was))) => {
                    pieces.push((s..i, was));
                    start = None;
                }
                _ => {}
            }
        }
        for (range, caseless) in pieces {
            let piece = &text[range.clone()];
            if caseless {
                let at: Vec<usize> = piece.char_indices().map(|(k, _)| range.start + k).collect();
                if at.len() == 1 {
                    out.push((range.clone(), hash_bytes(piece.as_bytes())));
                }
                for w in at.windows(2) {
                    let end = w[1] + text[w[1]..].chars().next().map_or(0, char::len_utf8);
                    out.push((w[0]..end, hash_bytes(&text.as_bytes()[w[0]..end])));
                }
            } else {
                let lowered: String = piece.chars().flat_map(char::to_lowercase).collect();
                out.push((range, hash_bytes(lowered.as_bytes())));
            }
        }
        out
    }

    #[test]
    fn chinese_japanese_and_korean_are_cut_into_overlapping_pairs() {
        let text = "函数和结构体, crate_nameアトリビュート 枚 크레이트는";
        let w: Vec<&str> = words(text).iter().map(|w| &text[w.range.clone()]).collect();
        assert_eq!(
            w,
            [
                "函数",
                "数和",
                "和结",
                "结构",
                "构体",
                "crate_name",
                "アト",
                "トリ",
                "リビ",
                "ビュ",
                "ュー",
                "ート",
                "枚",
                "크레",
                "레이",
                "이트",
                "트는"
            ]
        );
        // So a title's words are found inside a run that holds them, as a phrase is.
        let hashes = |t: &str| words(t).iter().map(|w| w.hash).collect::<Vec<_>>();
        let (title, block) = (hashes("结构体"), hashes("函数和结构体"));
        assert!(block.windows(title.len()).any(|w| w == title.as_slice()));
        assert!(hashes("크레이트는").starts_with(&hashes("크레이트")));
    }

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
        // The hash of the lower case's UTF-8, pinned (computed apart from this code, in
        // Python): the hashes must not change from one build to the next ('İ' lowers to
        // "i\u{307}").
        assert_eq!(word_hash("pg_dump"), 0x9e41_ea31_d316_8d50);
        assert_eq!(word_hash("İx"), 0x3f73_bd90_c8a3_6f78);
        assert_eq!(word_hash("Café"), 0x5b8b_a22d_7cae_aa11);
        let mut found = Vec::new();
        scan("İx, Café", |r, h| found.push((r, h)));
        assert_eq!(
            found,
            [
                (0..3, 0x3f73_bd90_c8a3_6f78),
                (5..10, 0x5b8b_a22d_7cae_aa11)
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
    fn the_caseless_letter_blocks_are_letters_without_case() {
        let mut seen = 0;
        for c in (0x3000u32..0xd800).filter_map(char::from_u32) {
            if is_caseless_letter(c) {
                assert!(is_word_char(c), "{c:?}");
                assert!(c.to_lowercase().eq([c]), "{c:?}");
                assert_eq!(c.len_utf8(), 3);
                seen += 1;
            }
        }
        let ranges = [
            (0x3041, 0x3096),
            (0x309d, 0x309f),
            (0x30a1, 0x30fa),
            (0x30fc, 0x30ff),
            (0x3400, 0x4dbf),
            (0x4e00, 0x9fff),
            (0xac00, 0xd7a3),
        ];
        assert_eq!(seen, ranges.iter().map(|(a, b)| b - a + 1).sum::<u32>());
        // The sound marks between the kana blocks are not word characters.
        assert!(!is_word_char('\u{3099}') && !is_word_char('\u{309b}'));
        // Runs of them, with kana (the standard library's path) between, split at
        // punctuation, as a reference does, and into pairs; Latin letters after them are a
        // word of their own.
        let text = "日本語のテキスト、한국어 文章。中文abc";
        let mut found = Vec::new();
        scan(text, |r, h| found.push((text[r].to_string(), h)));
        let want: Vec<(String, u64)> = [
            "日本", "本語", "語の", "のテ", "テキ", "キス", "スト", "한국", "국어", "文章", "中文",
            "abc",
        ]
        .iter()
        .map(|w| (w.to_string(), hash_bytes(w.to_lowercase().as_bytes())))
        .collect();
        assert_eq!(found, want);
    }

    #[test]
    fn every_two_byte_character_is_found_and_lowered_as_unicode_says() {
        // Each character U+0080–U+07FF alone, after ASCII, between ASCII, doubled, and
        // beside a character the table sends to the standard library (3-byte, case-changing).
        for cp in 0x80u32..0x800 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            for text in [
                format!("{c}"),
                format!("ab{c}"),
                format!("Q{c}z {c}{c}."),
                format!("\u{212a}{c}İ x"),
            ] {
                let mut found = Vec::new();
                scan(&text, |r, h| found.push((r, h)));
                let want = two_passes(&text);
                assert_eq!(found, want, "U+{cp:04X} in {text:?}");
            }
        }
    }

    #[test]
    fn ascii_words_hash_eight_bytes_at_a_time_as_their_lower_case_does() {
        // Every length from 1 to 20 bytes, at every offset from the text's end (the last
        // chunk read from the text, or copied when fewer than eight bytes are left), mixed
        // case, digits and `_`.
        let alphabet = b"aZq_9Mx0bY";
        for len in 1..=20 {
            let word: Vec<u8> = (0..len)
                .map(|i| alphabet[(i * 7 + len) % alphabet.len()])
                .collect();
            let lower = word.to_ascii_lowercase();
            let want = hash_bytes(&lower);
            for tail in 0..10 {
                let mut text = b"..".to_vec();
                text.extend_from_slice(&word);
                text.extend(std::iter::repeat_n(b'A', tail));
                assert_eq!(hash_ascii(&text, 2, 2 + len), want, "len {len} tail {tail}");
            }
        }
        // Lowering changes `A`–`Z` only: the bytes either side of the range stay.
        let every: Vec<u8> = (0u8..128).collect();
        for chunk in every.chunks(8) {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(chunk);
            let lowered = lower_ascii8(u64::from_le_bytes(buf)).to_le_bytes();
            assert_eq!(lowered.to_vec(), chunk.to_ascii_lowercase());
        }
    }

    #[test]
    fn one_pass_finds_and_hashes_words_as_two_passes_did() {
        // On ASCII, accented, multi-byte and case-changing text ('İ' lowers to two
        // characters), digits, `_` and punctuation; `hash_lower` of each word agrees.
        let pieces = [
            "a", "Z", "pg_dump", "É", "é", "İ", "ß", "日本", "語", "アイ", "한", "9", " ", ", ",
            "-", "'", "—", "\u{a0}", "Ωmega", "x\u{301}",
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
            for (range, hash) in &found {
                assert_eq!(hash_lower(&text[range.clone()]), *hash, "{text:?}");
            }
            words_seen += found.len();
        }
        assert!(words_seen > 20_000, "{words_seen}");
    }
}
