//! The suggested anchor: a short span of the chosen block that names the destination.
//! Among the block's 1–6-word spans that neither start nor end with a stop word, never the
//! whole sentence, never generic link text, never inside (or across) an existing link, the
//! one that best overlaps one of the destination's phrases (known anchors, title, H1):
//! shared words over the longer length, times the phrase's weight.

use std::ops::Range;

use super::blocks::Block;
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

/// Whether a link text is generic ("click here", "read more", …), whatever its case and
/// punctuation.
pub fn is_generic(text: &str) -> bool {
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
    let mut used = vec![false; phrase.words.len()];
    let mut shared = 0;
    for w in span.iter().filter(|w| !w.stop) {
        if let Some(i) = (0..phrase.words.len()).find(|&i| !used[i] && phrase.words[i] == w.hash) {
            used[i] = true;
            shared += 1;
        }
    }
    let longer = span.len().max(phrase.words.len());
    (shared as f64 / longer as f64, shared)
}

/// The best anchor span of `block` (its words are `words`), with its byte range in the
/// block text; `None` when no span shares a word with any phrase.
pub fn choose(
    block: &Block,
    words: &[Word],
    phrases: &[Phrase],
    stats: &SiteStats,
) -> Option<(Range<usize>, String)> {
    let ends_sentence = block.text.trim_end().ends_with(['.', '!', '?', ':', ';']);
    let mut best: Option<(f64, Range<usize>)> = None;
    for i in 0..words.len() {
        if words[i].stop {
            continue;
        }
        for j in i + 1..=(i + MAX_ANCHOR_WORDS).min(words.len()) {
            let span = &words[i..j];
            if span[span.len() - 1].stop {
                continue;
            }
            // The whole of a sentence is not an anchor; the whole of a short label may be.
            if i == 0 && j == words.len() && (words.len() > 3 || ends_sentence) {
                continue;
            }
            let range = span[0].range.start..span[span.len() - 1].range.end;
            if block
                .links
                .iter()
                .any(|l| l.range.start < range.end && range.start < l.range.end)
            {
                continue;
            }
            let text = &block.text[range.clone()];
            if is_generic(text) {
                continue;
            }
            let mut score = 0.0;
            for p in phrases {
                let (o, shared) = overlap(span, p);
                if shared == 0 {
                    continue;
                }
                let idf: f64 = span
                    .iter()
                    .filter(|w| !w.stop && p.words.contains(&w.hash))
                    .map(|w| stats.idf(w.hash))
                    .sum();
                // Overlap decides; the rarity of the shared words breaks ties.
                score = f64::max(score, p.weight * o + 1e-3 * idf);
            }
            if score > 0.0 && best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, range));
            }
        }
    }
    best.map(|(_, range)| {
        let text = block.text[range.clone()].to_string();
        (range, text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_list_is_sorted_and_matches_loosely() {
        assert!(GENERIC.windows(2).all(|w| w[0] < w[1]));
        assert!(is_generic("Click HERE!"));
        assert!(is_generic("read more …"));
        assert!(!is_generic("read the manual"));
    }
}
