//! Passage: where in a source page a link to a destination fits, and with which words. This
//! module owns splitting page text into blocks (`blocks`), the word tokenizer (`text`), the
//! site-wide statistics built in one streaming pass (`stats`: BM25 document frequencies,
//! template blocks, site-name title parts, the link rates of naming phrases), the scoring of a source's blocks for one
//! destination (`score`, with each block's weight as a place from `weight`) and the choice
//! of the anchor span (`anchor`). It reads no file and
//! knows no URL rules: the caller streams page text in (see `input::page_text`) and says which
//! hrefs point at the destination.
//!
//! Use: build a [`StatsBuilder`] over every page (or a [`Sample`] of them; with
//! [`StatsBuilder::counting`] and the [`Phrases`] naming the destinations to weigh anchors by
//! how often the site links them) ([`StatsBuilder::add_page`] with
//! [`split`]'s blocks, [`StatsBuilder::add_title`] with every title), `finish` it, then for
//! each destination build a [`Query`] from its [`Target`] and call [`Query::suggest`] with the
//! blocks of each candidate source.

pub mod anchor;
pub mod blocks;
pub mod score;
pub mod stats;
pub mod text;
pub mod weight;

pub use anchor::{NoAnchor, Scratch as AnchorScratch};
pub use blocks::{Block, BlockKind, Context, Link, split, split_html, split_plain};
pub use score::{
    FLOOR, NoPlace, Prepared, Query, Suggestion, Target, Wanted, resolve_href, suggest,
};
pub use stats::{
    Mentions, PhraseKey, Phrases, SAMPLE_PAGES, Sample, SiteStats, StatsBuilder, TemplateRules,
};
