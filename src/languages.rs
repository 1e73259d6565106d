//! Each page's language and its translations. The language comes from Internal: All's
//! `Language` column (Screaming Frog writes the html `lang` attribute), else from an hreflang
//! annotation that names the page with a language code, else it is not known. Pages that are
//! hreflang alternates of one another (directly, or as alternates of one page) are
//! translations: never suggested as links to each other, never near-duplicates.

use std::collections::{BTreeMap, HashMap};

use crate::crawl::{Crawl, language_tag as tag};
use crate::normalize::identity::Via;

/// Languages and translation clusters of the analysed pages.
#[derive(Debug, Clone, Default)]
pub struct Languages {
    /// Page id → language key, for pages whose language is known.
    pub of: HashMap<u32, String>,
    /// Page id → its translation cluster (pages that are hreflang alternates).
    cluster: HashMap<u32, u32>,
    /// The largest cluster's size (1 when there are no alternates).
    pub max_cluster: usize,
    /// How many languages came from hreflang rather than Internal: All.
    pub from_hreflang: usize,
    /// Pages considered.
    pub total: usize,
}

impl Languages {
    /// The languages of `pages` (resolved page ids) and the crawl's hreflang clusters.
    pub fn build(pages: impl Iterator<Item = u32>, crawl: &Crawl) -> Languages {
        let mut out = Languages::default();
        let page_of = |id: u32| {
            let (page, via) = crawl.resolved[id as usize];
            (!matches!(via, Via::Loop | Via::TooLong)).then_some(page)
        };
        let pages: Vec<u32> = pages.collect();
        out.total = pages.len();
        if let Some(internal) = &crawl.internal {
            for &f in &pages {
                if let Some(key) = crawl
                    .crawled
                    .get(&f)
                    .and_then(|&r| tag(&internal.urls[r].language))
                {
                    out.of.insert(f, key);
                }
            }
        }
        let mut parent: HashMap<u32, u32> = HashMap::new();
        let known: std::collections::HashSet<u32> = pages.iter().copied().collect();
        for (from, to, code) in &crawl.hreflang {
            let (Some(a), Some(b)) = (page_of(*from), page_of(*to)) else {
                continue;
            };
            if let Some(code) = code
                && known.contains(&b)
                && !out.of.contains_key(&b)
            {
                out.of.insert(b, code.clone());
                out.from_hreflang += 1;
            }
            if a != b && known.contains(&a) && known.contains(&b) {
                parent.entry(a).or_insert(a);
                parent.entry(b).or_insert(b);
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                if ra != rb {
                    parent.insert(ra.max(rb), ra.min(rb));
                }
            }
        }
        let members: Vec<u32> = parent.keys().copied().collect();
        let mut sizes: HashMap<u32, usize> = HashMap::new();
        for m in members {
            let r = root(&mut parent, m);
            out.cluster.insert(m, r);
            *sizes.entry(r).or_default() += 1;
        }
        out.max_cluster = sizes.values().copied().max().unwrap_or(1);
        out
    }

    /// Whether two different pages are translations of each other (hreflang alternates).
    pub fn alternates(&self, a: u32, b: u32) -> bool {
        a != b
            && self
                .cluster
                .get(&a)
                .is_some_and(|c| self.cluster.get(&b) == Some(c))
    }

    /// Whether any page has alternates.
    pub fn has_alternates(&self) -> bool {
        !self.cluster.is_empty()
    }

    /// Pages per known language, by language key.
    pub fn counts(&self) -> BTreeMap<&str, usize> {
        let mut m = BTreeMap::new();
        for l in self.of.values() {
            *m.entry(l.as_str()).or_default() += 1;
        }
        m
    }

    /// Whether comparisons are split by language: at least two languages are known.
    pub fn is_multilingual(&self) -> bool {
        self.counts().len() >= 2
    }

    /// Pages whose language is not known.
    pub fn pages_without_language(&self) -> usize {
        self.total - self.of.len()
    }

    /// A page's language key, `""` when not known.
    pub fn language(&self, page: u32) -> &str {
        self.of.get(&page).map_or("", String::as_str)
    }
}

/// The root of `x` in a union-find forest, with the path compressed.
fn root(parent: &mut HashMap<u32, u32>, x: u32) -> u32 {
    let mut r = x;
    while let Some(&p) = parent.get(&r) {
        if p == r {
            break;
        }
        r = p;
    }
    parent.insert(x, r);
    r
}

#[cfg(test)]
mod tests {
    use super::tag;

    #[test]
    fn language_tags() {
        assert_eq!(tag("en-US").as_deref(), Some("en"));
        assert_eq!(tag(" FR_ca ").as_deref(), Some("fr"));
        assert_eq!(tag("de").as_deref(), Some("de"));
        assert_eq!(tag("x-default"), None);
        assert_eq!(tag(""), None);
        assert_eq!(tag("Read more"), None);
        assert_eq!(tag("english"), None);
    }
}
