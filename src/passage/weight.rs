//! How natural a place each block of a page is for a link, whatever it says: its kind
//! (paragraphs and list items are where editors put links; headings, code and captions
//! seldom are) and whether it sits in a "see also" list. [`block_weight`] scales each
//! block's score in [`super::score`].

use super::blocks::{Block, BlockKind};

/// How natural a place each kind of block is. A heading is seldom one: of the removed links
/// of eight held-out sites (thousands of them, `examples/passage_eval.rs`) none sat in a
/// heading, and at 0.5 a heading that repeats the destination's title (a stub page's own
/// heading on The Rust Programming Language) outscored the paragraph that links it there.
/// At 0.25 that book's passages rose 18–24 points and no other site lost one; at 0.1 a few
/// rows more found no place at all.
fn kind_weight(kind: BlockKind) -> f64 {
    match kind {
        BlockKind::Paragraph | BlockKind::ListItem | BlockKind::Definition | BlockKind::Cell => 1.0,
        BlockKind::Heading(_) => 0.25,
        BlockKind::Code => 0.3,
        BlockKind::Term | BlockKind::Quote | BlockKind::Caption | BlockKind::Other => 0.8,
    }
}

/// The labels of a "see also" list, lower case: a block under one is a place editors put links
/// to related pages, whatever element holds it. English, then a few other languages'
/// documentation conventions.
const SEE_ALSO: &[&str] = &[
    "see also",
    "voir aussi",
    "siehe auch",
    "véase también",
    "ver también",
    "veja também",
    "vedi anche",
    "zie ook",
    "см. также",
    "参见",
    "另请参阅",
    "関連項目",
    "참고",
];

/// Whether `text` starts with a [`SEE_ALSO`] label (any case). Only the labels that start
/// with the text's first letter, lower-cased, are compared: asked of nearly every block a
/// page's rows are scored against, trying each label in turn had been 3% of that pass.
fn starts_see_also(text: &str) -> bool {
    let Some(first) = text.chars().next().and_then(|c| c.to_lowercase().next()) else {
        return false;
    };
    SEE_ALSO.iter().any(|label| {
        label.starts_with(first)
            && text
                .get(..label.len())
                .is_some_and(|head| head.chars().flat_map(char::to_lowercase).eq(label.chars()))
    })
}

/// How natural a place block `i` of `blocks` is: its kind's weight ([`kind_weight`]), but 1
/// for a block in a "see also" list, whose element starts with the label (postgres15's
/// `See Also ALTER INDEX, DROP INDEX, REINDEX`, text directly inside its `div`) or which
/// follows a short block that is the label (a heading). Held out on postgres15 such lists
/// held most of the links that only the plain-BM25 baseline placed right (docs/passage.md).
pub(super) fn block_weight(blocks: &[Block], i: usize) -> f64 {
    let weight = kind_weight(blocks[i].kind);
    if weight >= 1.0 {
        return weight;
    }
    let labelled = starts_see_also(blocks[i].element_text())
        || (i > 0
            && blocks[i - 1].text.len() <= LABEL_BYTES
            && starts_see_also(&blocks[i - 1].text));
    if labelled { 1.0 } else { weight }
}

/// The longest block that is taken for a label alone ("See also:", "Siehe auch").
const LABEL_BYTES: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passage::blocks::split_html;

    #[test]
    fn a_label_before_a_list_makes_it_a_see_also_list() {
        // A label in a block of its own before the list counts as well.
        let page = "<p>Large tables can use table partitioning to split rows.</p>\
                    <b>See also:</b><span>Table partitioning, indexes</span>";
        let blocks = split_html(page);
        let weights: Vec<f64> = (0..blocks.len())
            .map(|i| block_weight(&blocks, i))
            .collect();
        assert!(starts_see_also("see also") && !starts_see_also("seen also"));
        // Any case, in any of the languages, and nothing for an empty block.
        for label in [
            "See Also ALTER INDEX",
            "VÉASE TAMBIÉN",
            "См. также",
            "参见",
            "Zie ook:",
        ] {
            assert!(starts_see_also(label), "{label}");
        }
        for text in ["", "Seeing also", "Ver tambien", "z"] {
            assert!(!starts_see_also(text), "{text}");
        }
        assert!(
            weights.iter().all(|&w| (w - 1.0).abs() < 1e-9),
            "{blocks:?}"
        );
    }
}
