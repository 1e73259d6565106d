//! Page identity: normalized URLs interned once as dense ids, and the resolution of every id
//! to the page it really is, through 3xx redirects (chains and loops) and canonical link
//! elements, so variants of one page count as one page.

use std::collections::HashMap;

/// Normalized URLs interned as dense `u32` ids in first-seen order.
#[derive(Debug, Default, Clone)]
pub struct UrlTable {
    ids: HashMap<String, u32>,
    urls: Vec<String>,
}

impl UrlTable {
    /// Id of `url`, interning it on first sight.
    pub fn intern(&mut self, url: &str) -> u32 {
        if let Some(&id) = self.ids.get(url) {
            return id;
        }
        let id = u32::try_from(self.urls.len()).expect("fewer than 4 billion URLs");
        self.urls.push(url.to_string());
        self.ids.insert(url.to_string(), id);
        id
    }

    /// Id of an already-interned URL.
    pub fn get(&self, url: &str) -> Option<u32> {
        self.ids.get(url).copied()
    }

    /// The URL of an id.
    pub fn url(&self, id: u32) -> &str {
        &self.urls[id as usize]
    }

    /// Number of URLs.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no URL was interned.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }
}

/// How a URL reaches the page it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// It is the page.
    Itself,
    /// It redirects (first hop), possibly onwards through more redirects or canonicals.
    Redirect,
    /// It is a page whose canonical link element names another URL (first hop).
    Canonical,
    /// Its redirects or canonicals loop; it stands for no page.
    Loop,
    /// A redirect chain longer than [`MAX_HOPS`].
    TooLong,
}

/// Longest redirect/canonical chain followed.
pub const MAX_HOPS: usize = 20;

/// The redirect and canonical edges known from the crawl.
#[derive(Debug, Default, Clone)]
pub struct Edges {
    /// URL id → redirect target id (3xx with Redirect URL, or an HTTP Redirect link row).
    pub redirect: HashMap<u32, u32>,
    /// URL id → canonical id, for pages whose canonical is another URL.
    pub canonical: HashMap<u32, u32>,
}

/// Where every URL id resolves to: `(final id, how its first hop goes)`. Redirects are
/// followed before canonicals at each step, since a redirecting URL serves no page whose
/// canonical could count.
pub fn resolve_all(len: usize, edges: &Edges) -> Vec<(u32, Via)> {
    (0..len as u32).map(|id| resolve(id, edges)).collect()
}

fn resolve(start: u32, edges: &Edges) -> (u32, Via) {
    let mut current = start;
    let mut via = Via::Itself;
    let mut seen = vec![start];
    for _ in 0..MAX_HOPS {
        let (next, step) = if let Some(&to) = edges.redirect.get(&current) {
            (to, Via::Redirect)
        } else if let Some(&to) = edges.canonical.get(&current) {
            (to, Via::Canonical)
        } else {
            return (current, via);
        };
        if next == current {
            return (current, via);
        }
        if seen.contains(&next) {
            return (start, Via::Loop);
        }
        // The first hop says what the written URL is: a redirect, or a page whose canonical
        // points elsewhere (a link to it reached a real page, not a redirect).
        if via == Via::Itself {
            via = step;
        }
        seen.push(next);
        current = next;
    }
    (start, Via::TooLong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_loops_and_canonicals() {
        let mut e = Edges::default();
        e.redirect.insert(0, 1);
        e.redirect.insert(1, 2); // 0 → 1 → 2
        e.redirect.insert(3, 4);
        e.redirect.insert(4, 3); // loop
        e.canonical.insert(5, 6);
        e.redirect.insert(6, 7); // canonical to a redirect
        e.canonical.insert(8, 8); // a self-canonical is the page itself
        let r = resolve_all(9, &e);
        assert_eq!(r[0], (2, Via::Redirect));
        assert_eq!(r[1], (2, Via::Redirect));
        assert_eq!(r[2], (2, Via::Itself));
        assert_eq!(r[3], (3, Via::Loop));
        assert_eq!(r[5], (7, Via::Canonical));
        assert_eq!(r[6], (7, Via::Redirect));
        assert_eq!(r[8], (8, Via::Itself));
    }
}
