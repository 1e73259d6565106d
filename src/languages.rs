//! Each page's language and its translations. The language comes from Internal: All's
//! `Language` column (Screaming Frog writes the html `lang` attribute), else from an hreflang
//! annotation that names the page with a language code, else it is not known. Pages that are
//! hreflang alternates of one another (directly, or as alternates of one page) are
//! translations: never suggested as links to each other, never near-duplicates. When neither
//! gives any language, the alternates' URLs do: the part that tells two alternates apart
//! (`/fr/` against nothing, `de.` against `fr.`) names a language group ([`infer_from_urls`]).

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
    /// How many languages were inferred from the URLs of hreflang alternates.
    pub from_urls: usize,
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
        if out.of.is_empty() && !out.cluster.is_empty() {
            let url = |f: u32| crawl.urls.url(f);
            let mut clusters: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
            for (&m, &c) in &out.cluster {
                clusters.entry(c).or_default().push(url(m));
            }
            let all: Vec<&str> = pages.iter().map(|&f| url(f)).collect();
            let inferred = infer_from_urls(clusters.into_values().collect(), &all);
            for (&f, u) in pages.iter().zip(&all) {
                if let Some(label) = inferred.get(*u) {
                    out.of.insert(f, label.clone());
                }
            }
            out.from_urls = out.of.len();
        }
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

/// The language group of the pages without alternates that carry no locale part in their URL,
/// when the alternates' other groups are told apart by one (`/docs/x` against `/docs/fr/x`).
pub const UNMARKED: &str = "unmarked";

/// A URL as tokens: the host's labels, then the path's segments, lower-case.
fn tokens(url: &str) -> Vec<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    host.split('.')
        .chain(path.split('/'))
        .filter(|t| !t.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The URL parts that tell `a` and `b` apart, at their first difference: a segment one has
/// and the other lacks (`/fr/15/x` against `/15/x`: `fr` and [`UNMARKED`]) or two segments
/// in the same place (`de.` against `fr.`). `None` when they differ in no such way.
fn marker_pair(a: &[String], b: &[String]) -> Option<(String, String)> {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) if a.get(i + 1) == Some(y) => Some((x.clone(), UNMARKED.into())),
        (Some(x), Some(y)) if b.get(i + 1) == Some(x) => Some((UNMARKED.into(), y.clone())),
        (Some(x), Some(y)) => Some((x.clone(), y.clone())),
        _ => None,
    }
}

/// Language groups from the URLs of translation clusters, for a crawl that names no
/// language: each member is told apart from the cluster's shortest URL by [`marker_pair`]; a
/// marker is kept only when at least [`MIN_GROUP`] clustered pages (and 1% of them) carry
/// it, so a translated slug (`tutorial` against `tutoriel`) names no group. Pages of `all`
/// without alternates join the group whose marker is one of their URL's segments (exactly
/// one), else [`UNMARKED`] when that group exists. A marker that is a language tag is
/// written as one (`fr-ca` → `fr`).
pub fn infer_from_urls(clusters: Vec<Vec<&str>>, all: &[&str]) -> HashMap<String, String> {
    let mut of: HashMap<String, String> = HashMap::new();
    for mut members in clusters {
        members.sort_by_key(|u| (u.len(), *u));
        let reference = tokens(members[0]);
        let mut first_marker = None;
        for m in &members[1..] {
            if let Some((mine, theirs)) = marker_pair(&tokens(m), &reference) {
                of.insert((*m).to_string(), mine);
                first_marker.get_or_insert(theirs);
            }
        }
        if let Some(r) = first_marker {
            of.insert(members[0].to_string(), r);
        }
    }
    let mut support: HashMap<String, usize> = HashMap::new();
    for m in of.values() {
        *support.entry(m.clone()).or_default() += 1;
    }
    let floor = MIN_GROUP.max(of.len() / 100);
    let kept: std::collections::BTreeSet<String> = support
        .into_iter()
        .filter(|&(_, n)| n >= floor)
        .map(|(m, _)| m)
        .collect();
    if kept.len() < 2 {
        return HashMap::new();
    }
    of.retain(|_, m| kept.contains(m));
    for u in all {
        if of.contains_key(*u) {
            continue;
        }
        let t = tokens(u);
        let mut found = kept.iter().filter(|m| *m != UNMARKED && t.contains(m));
        let group = match (found.next(), found.next()) {
            (Some(m), None) => Some(m.clone()),
            (None, _) if kept.contains(UNMARKED) => Some(UNMARKED.to_string()),
            _ => None,
        };
        if let Some(g) = group {
            of.insert((*u).to_string(), g);
        }
    }
    for m in of.values_mut() {
        if let Some(t) = tag(m) {
            *m = t;
        }
    }
    of
}

/// The fewest clustered pages whose URLs carry a marker for it to name a language group.
const MIN_GROUP: usize = 3;

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
    use super::{UNMARKED, infer_from_urls, tag};

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

    #[test]
    fn languages_from_the_urls_of_alternates() {
        let o = "https://www.example.com";
        let en = |p: &str| format!("{o}/docs/15/{p}");
        let fr = |p: &str| format!("{o}/docs/fr/15/{p}");
        let slugs = ["a", "b", "c", "d"];
        let (ens, frs): (Vec<String>, Vec<String>) = slugs.iter().map(|s| (en(s), fr(s))).unzip();
        // One French page has a translated slug; one English page has no translation.
        let lonely_en = en("only-english");
        let lonely_fr = fr("seulement");
        let mut all: Vec<&str> = ens.iter().chain(&frs).map(String::as_str).collect();
        all.extend([lonely_en.as_str(), lonely_fr.as_str()]);
        let clusters: Vec<Vec<&str>> = ens
            .iter()
            .zip(&frs)
            .map(|(e, f)| vec![f.as_str(), e.as_str()])
            .collect();
        let of = infer_from_urls(clusters, &all);
        assert_eq!(of[&ens[0]], UNMARKED);
        assert_eq!(of[&frs[2]], "fr");
        assert_eq!(of[&lonely_en], UNMARKED, "no locale segment");
        assert_eq!(of[&lonely_fr], "fr", "a fr segment");

        // Subdomains: de. against fr.; region tags read as their language.
        let de = |p: &str| format!("https://de.example.com/{p}");
        let fr_ca = |p: &str| format!("https://fr-ca.example.com/{p}");
        let pairs: Vec<(String, String)> = slugs.iter().map(|s| (de(s), fr_ca(s))).collect();
        let all: Vec<&str> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_str(), b.as_str()])
            .collect();
        let clusters = pairs
            .iter()
            .map(|(a, b)| vec![a.as_str(), b.as_str()])
            .collect();
        let of = infer_from_urls(clusters, &all);
        assert_eq!(
            (of[&pairs[0].0].as_str(), of[&pairs[0].1].as_str()),
            ("de", "fr")
        );

        // Alternates told apart only by translated slugs name no group.
        let pairs: Vec<(String, String)> = slugs
            .iter()
            .map(|s| (format!("{o}/{s}-one"), format!("{o}/{s}-un")))
            .collect();
        let all: Vec<&str> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_str(), b.as_str()])
            .collect();
        let clusters = pairs
            .iter()
            .map(|(a, b)| vec![a.as_str(), b.as_str()])
            .collect();
        assert!(infer_from_urls(clusters, &all).is_empty());
    }
}
