//! The suggested anchor: a short span of the chosen block that names the destination.
//! Among the block's 1–6-word spans that neither start nor end with a stop word, never the
//! whole sentence, never generic link text, never inside (or across) an existing link, the
//! one that best overlaps one of the destination's phrases (known anchors, title, H1):
//! shared words over the longer length, times the phrase's weight.

use std::ops::Range;

use super::stats::SiteStats;
use super::text::{Phrase, Word};

/// Longest anchor suggested, in words.
pub const MAX_ANCHOR_WORDS: usize = 6;

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

/// Words in the longest [`GENERIC`] text.
const MAX_GENERIC_WORDS: usize = 3;

/// Whether a link text is generic ("click here", "read more", …), whatever its case and
/// punctuation.
pub fn is_generic(text: &str) -> bool {
    // Most texts asked about are longer than any generic one: tell so without allocating.
    let words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    if words > MAX_GENERIC_WORDS {
        return false;
    }
    let folded: String = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    folded.is_empty() || GENERIC.binary_search(&folded.as_str()).is_ok()
}

/// Shared non-stop words of a span and a phrase (as multisets), over the longer length.
fn overlap(span: &[Word], phrase: &Phrase) -> (f64, usize) {
    // The phrase words already matched: a span has at most MAX_ANCHOR_WORDS words, so a
    // small array holds them and nothing is allocated (this runs for every span of the
    // chosen block against every phrase it shares a word with).
    let mut taken = [usize::MAX; MAX_ANCHOR_WORDS];
    let mut shared = 0;
    for w in span.iter().filter(|w| !w.stop) {
        if let Some(i) = (0..phrase.words.len())
            .find(|&i| !taken[..shared].contains(&i) && phrase.words[i] == w.hash)
        {
            taken[shared] = i;
            shared += 1;
        }
    }
    let longer = span.len().max(phrase.words.len());
    (shared as f64 / longer as f64, shared)
}

/// The best anchor span of a block's `text` (its words are `words`, its existing links the
/// byte ranges `links`), with its byte range in the text; `None` when no span shares a word
/// with any phrase.
pub fn choose(
    text: &str,
    links: &[Range<usize>],
    words: &[Word],
    phrases: &[Phrase],
    stats: &SiteStats,
) -> Option<(Range<usize>, String)> {
    let ends_sentence = text.trim_end().ends_with(['.', '!', '?', ':', ';']);
    // A span scores only through the words it shares with a phrase. Each word's phrases
    // (by index) are found once, so a span looks only at the phrases its words are in, and
    // the many spans that share no word with any phrase (score 0) are passed over at once.
    // (word hash, phrase) for every phrase word, sorted: a block word finds its phrases by
    // binary search, not by scanning every phrase (a destination can have dozens).
    let mut index: Vec<(u64, usize)> = phrases
        .iter()
        .enumerate()
        .flat_map(|(k, p)| p.words.iter().map(move |&h| (h, k)))
        .collect();
    index.sort_unstable();
    index.dedup();
    // Each word's phrases: a range of `index` (empty for a stop word).
    let phrases_of: Vec<&[(u64, usize)]> = words
        .iter()
        .map(|w| {
            if w.stop {
                return &index[..0];
            }
            let start = index.partition_point(|e| e.0 < w.hash);
            let len = index[start..].partition_point(|e| e.0 == w.hash);
            &index[start..start + len]
        })
        .collect();
    let idf: Vec<f64> = words
        .iter()
        .zip(&phrases_of)
        .map(|(w, ps)| {
            if ps.is_empty() {
                0.0
            } else {
                stats.idf(w.hash)
            }
        })
        .collect();
    let mut named_before = Vec::with_capacity(words.len() + 1);
    named_before.push(0usize);
    for ps in &phrases_of {
        named_before.push(named_before[named_before.len() - 1] + usize::from(!ps.is_empty()));
    }
    let mut best: Option<(f64, Range<usize>)> = None;
    let mut candidates: Vec<usize> = Vec::new();
    for i in 0..words.len() {
        if words[i].stop {
            continue;
        }
        for j in i + 1..=(i + MAX_ANCHOR_WORDS).min(words.len()) {
            let span = &words[i..j];
            if span[span.len() - 1].stop || named_before[j] == named_before[i] {
                continue;
            }
            // The whole of a sentence is not an anchor; the whole of a short label may be.
            if i == 0 && j == words.len() && (words.len() > 3 || ends_sentence) {
                continue;
            }
            let range = span[0].range.start..span[span.len() - 1].range.end;
            if links
                .iter()
                .any(|l| l.start < range.end && range.start < l.end)
            {
                continue;
            }
            candidates.clear();
            candidates.extend(
                phrases_of[i..j]
                    .iter()
                    .flat_map(|ps| ps.iter().map(|e| e.1)),
            );
            candidates.sort_unstable();
            candidates.dedup();
            let mut score = 0.0;
            for &k in &candidates {
                let p = &phrases[k];
                let (o, shared) = overlap(span, p);
                if shared == 0 {
                    continue;
                }
                let idf: f64 = (i..j)
                    .filter(|&w| phrases_of[w].iter().any(|e| e.1 == k))
                    .map(|w| idf[w])
                    .sum();
                // Overlap decides; the rarity of the shared words breaks ties.
                score = f64::max(score, p.weight * o + 1e-3 * idf);
            }
            // Generic text is ruled out only for a span that would win: the check allocates,
            // and skipping a span that would not win changes nothing.
            if score > 0.0
                && best.as_ref().is_none_or(|(s, _)| score > *s)
                && !is_generic(&text[range.clone()])
            {
                best = Some((score, range));
            }
        }
    }
    best.map(|(_, range)| {
        let words = text[range.clone()].to_string();
        (range, words)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_list_is_sorted_and_matches_loosely() {
        assert!(GENERIC.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            GENERIC.iter().map(|g| g.split(' ').count()).max(),
            Some(MAX_GENERIC_WORDS)
        );
        assert!(!is_generic("read more about the tables"));
        assert!(is_generic("Click HERE!"));
        assert!(is_generic("read more …"));
        assert!(!is_generic("read the manual"));
    }
}
