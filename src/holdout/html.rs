//! Page-text HTML for the hold-out harness: unwrap the `<a>` elements of hidden links (their
//! words stay) and name the block each one sat in.
//!
//! Built on `lol_html`, a streaming HTML5 tokenizer and rewriter: every byte outside the removed
//! `<a …>` and `</a>` tags is written back unchanged, attribute values with `>` or quotes, comments,
//! `<pre>` text and character references are handled by the tokenizer, not by patterns.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{RewriteStrSettings, doc_text, element, rewrite_str};
use url::Url;

use super::url_key;

/// Elements whose text is "the block": the passage a link sits in.
pub const BLOCK_TAGS: &[&str] = &[
    "p",
    "li",
    "dt",
    "dd",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
];

/// Elements that only hold blocks; a link with no block around it gets the nearest one's text.
const CONTAINER_TAGS: &[&str] = &[
    "div",
    "section",
    "article",
    "main",
    "aside",
    "header",
    "footer",
    "nav",
    "ul",
    "ol",
    "dl",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "caption",
    "figure",
    "figcaption",
    "details",
    "summary",
    "body",
    "form",
];

/// One unwrapped `<a>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundLink {
    /// The destination key ([`url_key`]) its href resolved to.
    pub target: String,
    /// Its text (tags stripped, entities decoded, whitespace collapsed).
    pub text: String,
    /// The text of its enclosing block (see [`BLOCK_TAGS`]), or of the nearest container when
    /// no block encloses it; empty when neither does.
    pub block: String,
}

/// The page text with the hidden links unwrapped, and what was unwrapped, in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// The rewritten HTML.
    pub html: String,
    /// Every `<a>` removed.
    pub links: Vec<FoundLink>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    Container,
    Anchor,
}

#[derive(Debug)]
struct Open {
    id: usize,
    tag: String,
    kind: Kind,
    /// Where its text starts in [`State::text`].
    start: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Every text chunk of the document, raw (entities still encoded), in order.
    text: String,
    stack: Vec<Open>,
    next_id: usize,
    links: Vec<FoundLink>,
    /// (index into `links`, id of its block entry, id of its anchor entry)
    pending: Vec<(usize, Option<usize>, usize)>,
}

/// Tags-stripped raw text to what a reader sees: entities decoded, whitespace collapsed.
pub fn clean_text(raw: &str) -> String {
    let decoded = html_escape::decode_html_entities(raw);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl State {
    fn push(&mut self, tag: &str, kind: Kind) -> usize {
        // Block boundaries separate words: `<td>a</td><td>b</td>` reads "a b"; a link does not.
        if kind != Kind::Anchor {
            self.text.push(' ');
        }
        let id = self.next_id;
        self.next_id += 1;
        self.stack.push(Open {
            id,
            tag: tag.to_string(),
            kind,
            start: self.text.len(),
        });
        id
    }

    /// Close entry `id` and everything opened after it (elements closed implicitly).
    fn close(&mut self, id: usize) {
        let Some(pos) = self.stack.iter().position(|o| o.id == id) else {
            return;
        };
        let anchor = self.stack[pos].kind == Kind::Anchor;
        while self.stack.len() > pos {
            let open = self.stack.pop().expect("non-empty");
            self.finish(&open);
        }
        if !anchor {
            self.text.push(' ');
        }
    }

    fn finish(&mut self, open: &Open) {
        let raw = &self.text[open.start..];
        let mut cleaned: Option<String> = None;
        for &(i, block, anchor) in &self.pending {
            if block == Some(open.id) {
                let t = cleaned.get_or_insert_with(|| clean_text(raw));
                self.links[i].block.clone_from(t);
            }
            if anchor == open.id {
                let t = cleaned.get_or_insert_with(|| clean_text(raw));
                self.links[i].text.clone_from(t);
            }
        }
    }

    /// The HTML rules this harness needs for end tags that are left out: a new `p` closes an
    /// open `p`, `li` an open `li`, `dt`/`dd` an open `dt`/`dd`, `td`/`th`/`tr` open cells.
    fn implied_close(&mut self, tag: &str) {
        let closes: &[&str] = match tag {
            "p" | "div" | "ul" | "ol" | "dl" | "table" | "pre" | "blockquote" | "h1" | "h2"
            | "h3" | "h4" | "h5" | "h6" | "section" | "article" => &["p"],
            "li" => &["li", "p"],
            "dt" | "dd" => &["dt", "dd", "p"],
            "td" | "th" => &["td", "th", "p"],
            "tr" => &["td", "th", "tr", "p"],
            _ => &[],
        };
        while let Some(top) = self.stack.last() {
            if top.kind != Kind::Anchor && closes.contains(&top.tag.as_str()) {
                let id = top.id;
                self.close(id);
            } else {
                break;
            }
        }
    }

    fn innermost_block(&self) -> Option<usize> {
        let of = |kind| self.stack.iter().rev().find(|o| o.kind == kind);
        of(Kind::Block)
            .or_else(|| of(Kind::Container))
            .map(|o| o.id)
    }
}

#[allow(clippy::implicit_hasher)] // one caller, std's hasher
/// Unwrap every `<a href>` of `html` whose href, resolved against `base` with its fragment
/// dropped, is one of `targets` ([`url_key`]s), and say which block each sat in.
pub fn unwrap_links(
    html: &str,
    base: &Url,
    targets: &HashSet<String>,
) -> Result<Unwrapped, String> {
    let state = Rc::new(RefCell::new(State::default()));
    let on_element = {
        let state = Rc::clone(&state);
        move |el: &mut Element<'_, '_>| {
            if !el.can_have_content() {
                if el.tag_name().eq_ignore_ascii_case("br") {
                    state.borrow_mut().text.push(' ');
                }
                return Ok(());
            }
            let tag = el.tag_name().to_ascii_lowercase();
            let kind = if BLOCK_TAGS.contains(&tag.as_str()) {
                Kind::Block
            } else if CONTAINER_TAGS.contains(&tag.as_str()) {
                Kind::Container
            } else if tag == "a" {
                let Some(target) = el
                    .get_attribute("href")
                    .and_then(|h| url_key(h.trim(), Some(base)))
                    .filter(|k| targets.contains(k))
                else {
                    return Ok(());
                };
                el.remove_and_keep_content();
                let mut s = state.borrow_mut();
                let block = s.innermost_block();
                let index = s.links.len();
                s.links.push(FoundLink {
                    target,
                    text: String::new(),
                    block: String::new(),
                });
                let id = s.push(&tag, Kind::Anchor);
                s.pending.push((index, block, id));
                drop(s);
                let state = Rc::clone(&state);
                return el.on_end_tag(Box::new(move |_| {
                    state.borrow_mut().close(id);
                    Ok(())
                }));
            } else {
                return Ok(());
            };
            let mut s = state.borrow_mut();
            s.implied_close(&tag);
            let id = s.push(&tag, kind);
            drop(s);
            let state = Rc::clone(&state);
            el.on_end_tag(Box::new(move |_| {
                state.borrow_mut().close(id);
                Ok(())
            }))
        }
    };
    let on_text = {
        let state = Rc::clone(&state);
        move |t: &mut TextChunk<'_>| {
            if matches!(
                t.text_type(),
                TextType::Data | TextType::RCData | TextType::CDataSection
            ) {
                state.borrow_mut().text.push_str(t.as_str());
            }
            Ok(())
        }
    };
    let settings = RewriteStrSettings::new()
        .append_element_content_handler(element!("*", on_element))
        .append_document_content_handler(doc_text!(on_text));
    let out = rewrite_str(html, settings).map_err(|e| e.to_string())?;
    let mut s = state.borrow_mut();
    // Elements never closed (a fragment cut short) end with the document.
    if let Some(first) = s.stack.first().map(|o| o.id) {
        s.close(first);
    }
    Ok(Unwrapped {
        html: out,
        links: std::mem::take(&mut s.links),
    })
}

/// Every block of `html` ([`BLOCK_TAGS`]) as cleaned text, in document order, empty ones left
/// out. Used by the harness's own passage baseline.
pub fn blocks(html: &str) -> Vec<String> {
    let found = Rc::new(RefCell::new(Vec::new()));
    let state = Rc::new(RefCell::new(State::default()));
    let on_element = {
        let state = Rc::clone(&state);
        let found = Rc::clone(&found);
        move |el: &mut Element<'_, '_>| {
            if !el.can_have_content() {
                return Ok(());
            }
            let tag = el.tag_name().to_ascii_lowercase();
            if !BLOCK_TAGS.contains(&tag.as_str()) && !CONTAINER_TAGS.contains(&tag.as_str()) {
                return Ok(());
            }
            let mut s = state.borrow_mut();
            s.implied_close(&tag);
            let id = s.push(&tag, Kind::Block);
            // Record the block's text through a pending "anchor" slot of its own.
            let index = s.links.len();
            s.links.push(FoundLink {
                target: tag.clone(),
                text: String::new(),
                block: String::new(),
            });
            s.pending.push((index, None, id));
            drop(s);
            found.borrow_mut().push(index);
            let state = Rc::clone(&state);
            el.on_end_tag(Box::new(move |_| {
                state.borrow_mut().close(id);
                Ok(())
            }))
        }
    };
    let on_text = {
        let state = Rc::clone(&state);
        move |t: &mut TextChunk<'_>| {
            if matches!(t.text_type(), TextType::Data | TextType::CDataSection) {
                state.borrow_mut().text.push_str(t.as_str());
            }
            Ok(())
        }
    };
    let settings = RewriteStrSettings::new()
        .append_element_content_handler(element!("*", on_element))
        .append_document_content_handler(doc_text!(on_text));
    if rewrite_str(html, settings).is_err() {
        return Vec::new();
    }
    let mut s = state.borrow_mut();
    if let Some(first) = s.stack.first().map(|o| o.id) {
        s.close(first);
    }
    let found = found.borrow();
    found
        .iter()
        .filter_map(|&i| {
            let l = &s.links[i];
            (BLOCK_TAGS.contains(&l.target.as_str()) && !l.text.is_empty()).then(|| l.text.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(list: &[&str]) -> HashSet<String> {
        list.iter().map(|s| url_key(s, None).unwrap()).collect()
    }

    fn base() -> Url {
        Url::parse("https://example.com/docs/a.html").unwrap()
    }

    #[test]
    fn unwraps_only_the_hidden_href_and_keeps_its_words() {
        let html = r#"<p>See <a href="b.html#x" class="xref">the <em>B</em> page</a> and <a href="c.html">C</a>.</p>"#;
        let out = unwrap_links(
            html,
            &base(),
            &targets(&["https://example.com/docs/b.html"]),
        )
        .unwrap();
        assert_eq!(
            out.html,
            r#"<p>See the <em>B</em> page and <a href="c.html">C</a>.</p>"#
        );
        assert_eq!(out.links.len(), 1);
        assert_eq!(out.links[0].text, "the B page");
        assert_eq!(out.links[0].block, "See the B page and C.");
    }

    #[test]
    fn resolves_relative_absolute_and_root_hrefs() {
        let html = r#"<ul><li><a href="/docs/b.html">one</a></li><li><a href="https://EXAMPLE.com/docs/b.html">two</a></li><li><a href="../docs/./b.html">three</a></li><li><a href="b.htm">no</a></li></ul>"#;
        let out = unwrap_links(
            html,
            &base(),
            &targets(&["https://example.com/docs/b.html"]),
        )
        .unwrap();
        assert_eq!(
            out.html,
            r#"<ul><li>one</li><li>two</li><li>three</li><li><a href="b.htm">no</a></li></ul>"#
        );
        let blocks: Vec<_> = out.links.iter().map(|l| l.block.as_str()).collect();
        assert_eq!(blocks, ["one", "two", "three"]);
    }

    #[test]
    fn block_is_the_innermost_listed_element_with_entities_decoded() {
        let html = "<div class=\"toc\"><dl><dt><span><a href=\"b.html\">2. A&nbsp;Brief   History &amp; more</a></span></dt><dd><p>Later &lt;text&gt;</p></dd></dl></div>";
        let out = unwrap_links(
            html,
            &base(),
            &targets(&["https://example.com/docs/b.html"]),
        )
        .unwrap();
        assert_eq!(out.links[0].block, "2. A Brief History & more");
        assert!(out.html.contains("<dt><span>2. A&nbsp;Brief"));
    }

    #[test]
    fn implied_end_tags_and_containers() {
        let html =
            r#"<p>first <a href="b.html">x</a><p>second<div><a href="b.html">Legal</a></div>"#;
        let out = unwrap_links(
            html,
            &base(),
            &targets(&["https://example.com/docs/b.html"]),
        )
        .unwrap();
        let blocks: Vec<_> = out.links.iter().map(|l| l.block.as_str()).collect();
        assert_eq!(blocks, ["first x", "Legal"]);
    }

    #[test]
    fn table_cells_and_pre_are_blocks() {
        let html = "<table><tr><td>a <a href=\"b.html\">link</a></td><td>other</td></tr></table><pre>x = 1\n  <a href=\"b.html\">y</a></pre>";
        let out = unwrap_links(
            html,
            &base(),
            &targets(&["https://example.com/docs/b.html"]),
        )
        .unwrap();
        let blocks: Vec<_> = out.links.iter().map(|l| l.block.as_str()).collect();
        assert_eq!(blocks, ["a link", "x = 1 y"]);
        assert!(out.html.contains("<pre>x = 1\n  y</pre>"));
    }

    #[test]
    fn blocks_lists_every_block_in_order() {
        let html =
            "<h2>Title</h2><div><p>One <b>two</b></p><ul><li>three<li>four</ul></div><p></p>";
        assert_eq!(blocks(html), ["Title", "One two", "three", "four"]);
    }
}
