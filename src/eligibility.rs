//! Eligibility: whether each page may receive a suggested link (destination) and whether it
//! may carry one (source), decided separately, with the reason for every "no".

use std::collections::HashSet;
use std::fmt;

use regex::Regex;

use crate::input::embeddings::is_html;

/// Default word count under which a page is thin (0 turns the check off).
pub const MIN_WORDS: u32 = 50;

/// What is known about one resolved page.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// HTTP status, when known.
    pub status_code: Option<u16>,
    /// Content type, when known.
    pub content_type: Option<String>,
    /// Indexable / Non-Indexable, when known.
    pub indexability: Option<String>,
    /// Indexability Status (noindex, Canonicalised, ...).
    pub indexability_status: String,
    /// Meta Robots 1.
    pub meta_robots: String,
    /// Word count, when known.
    pub word_count: Option<u32>,
    /// Why the page has no vector, if it has none.
    pub no_vector: Option<String>,
}

/// The rules in force.
#[derive(Debug, Clone, Default)]
pub struct EligibilityRules {
    /// Pages with fewer words are thin (when Word Count is known). 0 disables.
    pub min_words: u32,
    /// Sources must match this, when given.
    pub source_include: Option<Regex>,
    /// Sources must not match this, when given.
    pub source_exclude: Option<Regex>,
    /// Destinations must match this, when given.
    pub destination_include: Option<Regex>,
    /// Destinations must not match this, when given.
    pub destination_exclude: Option<Regex>,
    /// When given, only these (normalized) URLs may be sources.
    pub source_list: Option<HashSet<String>>,
    /// When given, only these (normalized) URLs may be destinations.
    pub destination_list: Option<HashSet<String>>,
    /// Whether a noindex (non-indexable) page may still carry links. Off by default: the
    /// method leaves noindex pages out of the corpus, and search engines stop following the
    /// links of pages that stay noindex.
    pub noindex_sources: bool,
}

impl EligibilityRules {
    /// One line per rule, for the Run sheet.
    pub fn describe(&self) -> Vec<(String, String)> {
        let re = |r: &Option<Regex>| {
            r.as_ref()
                .map_or_else(|| "none".to_string(), |r| r.as_str().to_string())
        };
        let list = |l: &Option<HashSet<String>>| {
            l.as_ref()
                .map_or_else(|| "none".to_string(), |l| format!("{} URLs", l.len()))
        };
        vec![
            ("Eligibility: both roles".into(), "a valid vector; status 200 and HTML content when known; not a redirect, not canonicalised elsewhere".into()),
            ("Eligibility: destination".into(), "indexable when known (noindex pages cannot rank for what a link says)".into()),
            ("Eligibility: source".into(), if self.noindex_sources {
                "not meta robots nofollow (its links would not be followed); noindex pages allowed (--noindex-sources)".into()
            } else {
                "indexable when known, and not meta robots nofollow (the links of a nofollow or long-noindexed page are not followed)".into()
            }),
            ("Eligibility: minimum word count".into(), if self.min_words == 0 { "off".into() } else { format!("{} words, when Word Count is known", self.min_words) }),
            ("Eligibility: source include regex".into(), re(&self.source_include)),
            ("Eligibility: source exclude regex".into(), re(&self.source_exclude)),
            ("Eligibility: destination include regex".into(), re(&self.destination_include)),
            ("Eligibility: destination exclude regex".into(), re(&self.destination_exclude)),
            ("Eligibility: source URL list".into(), list(&self.source_list)),
            ("Eligibility: destination URL list".into(), list(&self.destination_list)),
        ]
    }
}

/// A `--group-by` value that is not a grouping.
#[derive(Debug)]
pub enum GroupByError {
    /// `folder:N` with N not a whole number of 1 or more (the text after `folder:`).
    Depth(String),
    /// `regex:PATTERN` that does not compile.
    Regex(regex::Error),
    /// None of the forms (the text as given, trimmed).
    Form(String),
}

impl fmt::Display for GroupByError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupByError::Depth(n) => write!(
                f,
                "--group-by folder:N needs a depth of 1 or more, not \"{n}\""
            ),
            GroupByError::Regex(e) => write!(f, "--group-by regex: {e}"),
            GroupByError::Form(text) => write!(
                f,
                "--group-by takes folder:N, regex:PATTERN or segments, not \"{text}\""
            ),
        }
    }
}

impl std::error::Error for GroupByError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GroupByError::Regex(e) => Some(e),
            GroupByError::Depth(_) | GroupByError::Form(_) => None,
        }
    }
}

/// Which pairs `--group-by` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GroupScope {
    /// Source and destination in the same group.
    Same,
    /// Any pair; the group is shown.
    All,
}

/// How pages are put into page-type groups.
#[derive(Debug, Clone)]
pub enum GroupBy {
    /// The first N folders of the path (`/blog/2024/x` at depth 1 is `/blog/`).
    Folder(usize),
    /// The first capture group of a regex on the URL, or the whole match; no match is "other".
    Regex(Regex),
    /// Screaming Frog Segments (Internal: All "Segments" column).
    Segments,
}

impl GroupBy {
    /// Parse `folder:N`, `regex:PATTERN` or `segments`.
    pub fn parse(text: &str) -> Result<GroupBy, GroupByError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("segments") || text.eq_ignore_ascii_case("segment") {
            return Ok(GroupBy::Segments);
        }
        if let Some(n) = text.strip_prefix("folder:") {
            return n
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .map(GroupBy::Folder)
                .ok_or_else(|| GroupByError::Depth(n.to_string()));
        }
        if let Some(p) = text.strip_prefix("regex:") {
            return Regex::new(p)
                .map(GroupBy::Regex)
                .map_err(GroupByError::Regex);
        }
        Err(GroupByError::Form(text.to_string()))
    }

    /// The group of a page.
    pub fn group(&self, url: &str, segment: &str) -> String {
        match self {
            GroupBy::Folder(depth) => {
                let path = url
                    .split_once("://")
                    .map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
                let path = path.split(['?', '#']).next().unwrap_or("/");
                let folders: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
                // The last segment is the page itself, not a folder.
                let n = (*depth).min(
                    folders
                        .len()
                        .saturating_sub(usize::from(!path.ends_with('/'))),
                );
                if n == 0 {
                    "/".to_string()
                } else {
                    format!("/{}/", folders[..n].join("/"))
                }
            }
            GroupBy::Regex(re) => re.captures(url).map_or_else(
                || "other".to_string(),
                |c| {
                    c.get(1)
                        .or_else(|| c.get(0))
                        .map_or("", |m| m.as_str())
                        .to_string()
                },
            ),
            GroupBy::Segments => {
                if segment.trim().is_empty() {
                    "no segment".to_string()
                } else {
                    segment.trim().to_string()
                }
            }
        }
    }

    /// Words for the Run sheet.
    pub fn describe(&self) -> String {
        match self {
            GroupBy::Folder(n) => format!("first {n} folder(s) of the path"),
            GroupBy::Regex(re) => format!("regex {}", re.as_str()),
            GroupBy::Segments => "Screaming Frog Segments".into(),
        }
    }
}

/// The role a URL rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The page that would carry the link.
    Source,
    /// The page that would receive it.
    Destination,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Source => "source",
            Role::Destination => "destination",
        })
    }
}

/// Why a page, or a URL as written, cannot carry or receive a link. `Display` gives the
/// text of the Pages sheet's reasons; [`Exclusion::kind`] the Summary's count heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    /// An HTTP status other than 200.
    Status(u16),
    /// A content type that is not HTML.
    NotHtml(String),
    /// No usable vector; the text says why ("no vector: empty cell").
    NoVector(String),
    /// Fewer words than the minimum.
    Thin {
        /// The page's Word Count.
        words: u32,
        /// `--min-words`.
        minimum: u32,
    },
    /// Non-Indexable in Internal: All, with its Indexability Status when given.
    NotIndexable(String),
    /// A meta robots noindex.
    Noindex,
    /// A meta robots nofollow.
    Nofollow,
    /// Not matched by `--include-source`/`--include-destination`.
    NotIncluded(Role),
    /// Matched by `--exclude-source`/`--exclude-destination`.
    Excluded(Role),
    /// Not in `--source-urls`/`--destination-urls`.
    NotListed(Role),
    /// The URL redirects to this page.
    Redirect(String),
    /// The URL is canonicalised to this page.
    Canonicalised(String),
    /// The URL's redirects or canonicals loop.
    Loop,
    /// The redirect chain is longer than this many hops.
    TooLong(usize),
    /// An export row that another row speaks for (a spelling variant, a conflicting
    /// duplicate); the text is the row's note.
    Variant(String),
    /// A crawled URL the embeddings export has no row for.
    NotEmbedded,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exclusion::Status(code) => write!(f, "status {code}"),
            Exclusion::NotHtml(t) => write!(f, "not an HTML page ({t})"),
            Exclusion::NoVector(why) | Exclusion::Variant(why) => f.write_str(why),
            Exclusion::Thin { words, minimum } => {
                write!(f, "thin: {words} words (minimum {minimum})")
            }
            Exclusion::NotIndexable(status) if status.is_empty() => f.write_str("not indexable"),
            Exclusion::NotIndexable(status) => write!(f, "not indexable ({status})"),
            Exclusion::Noindex => f.write_str("not indexable (noindex)"),
            Exclusion::Nofollow => f.write_str("meta robots nofollow"),
            Exclusion::NotIncluded(role) => write!(f, "not matched by --include-{role}"),
            Exclusion::Excluded(role) => write!(f, "matched by --exclude-{role}"),
            Exclusion::NotListed(role) => write!(f, "not in the {role} URL list"),
            Exclusion::Redirect(to) => write!(f, "redirects to {to}"),
            Exclusion::Canonicalised(to) => write!(f, "canonicalised to {to}"),
            Exclusion::Loop => f.write_str("redirect or canonical loop"),
            Exclusion::TooLong(hops) => write!(f, "redirect chain longer than {hops} hops"),
            Exclusion::NotEmbedded => f.write_str("not in the embeddings export"),
        }
    }
}

impl Exclusion {
    /// The kind of reason, for counting: "thin: 12 words (minimum 50)" is "thin", a status
    /// keeps its code ("status 404").
    pub fn kind(&self) -> String {
        match self {
            Exclusion::Status(_)
            | Exclusion::Nofollow
            | Exclusion::NotIncluded(_)
            | Exclusion::Excluded(_)
            | Exclusion::NotListed(_)
            | Exclusion::Loop
            | Exclusion::TooLong(_)
            | Exclusion::NotEmbedded => self.to_string(),
            Exclusion::NotHtml(_) => "not an HTML page".into(),
            Exclusion::NoVector(_) => "no vector".into(),
            Exclusion::Thin { .. } => "thin".into(),
            Exclusion::NotIndexable(_) | Exclusion::Noindex => "not indexable".into(),
            Exclusion::Redirect(_) => "redirects to".into(),
            Exclusion::Canonicalised(_) => "canonicalised to".into(),
            Exclusion::Variant(note) => note
                .split([':', '('])
                .next()
                .unwrap_or(note)
                .trim()
                .to_string(),
        }
    }
}

/// Eligibility of one page in both roles: `Ok` or the reason it is excluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// May carry a new link.
    pub source: Result<(), Exclusion>,
    /// May receive a new link.
    pub destination: Result<(), Exclusion>,
}

/// Decide both roles for a resolved page at `url`.
pub fn decide(url: &str, facts: &PageFacts, rules: &EligibilityRules) -> Decision {
    if let Some(shared) = shared_reason(facts, rules) {
        return Decision {
            source: Err(shared.clone()),
            destination: Err(shared),
        };
    }
    let mut destination = Ok(());
    if facts
        .indexability
        .as_deref()
        .is_some_and(|i| i.trim().eq_ignore_ascii_case("non-indexable"))
    {
        destination = Err(Exclusion::NotIndexable(facts.indexability_status.clone()));
    } else if robots_has(&facts.meta_robots, "noindex") {
        destination = Err(Exclusion::Noindex);
    }
    let mut source = match &destination {
        Err(why) if !rules.noindex_sources => Err(why.clone()),
        _ => Ok(()),
    };
    if source.is_ok() && robots_has(&facts.meta_robots, "nofollow") {
        source = Err(Exclusion::Nofollow);
    }
    if destination.is_ok() {
        destination = by_rules(
            url,
            rules.destination_include.as_ref(),
            rules.destination_exclude.as_ref(),
            rules.destination_list.as_ref(),
            Role::Destination,
        );
    }
    if source.is_ok() {
        source = by_rules(
            url,
            rules.source_include.as_ref(),
            rules.source_exclude.as_ref(),
            rules.source_list.as_ref(),
            Role::Source,
        );
    }
    Decision {
        source,
        destination,
    }
}

fn shared_reason(facts: &PageFacts, rules: &EligibilityRules) -> Option<Exclusion> {
    if let Some(code) = facts.status_code
        && code != 200
    {
        return Some(Exclusion::Status(code));
    }
    if let Some(t) = &facts.content_type
        && !is_html(t)
    {
        return Some(Exclusion::NotHtml(t.clone()));
    }
    if let Some(why) = &facts.no_vector {
        return Some(Exclusion::NoVector(why.clone()));
    }
    if rules.min_words > 0
        && let Some(words) = facts.word_count
        && words < rules.min_words
    {
        return Some(Exclusion::Thin {
            words,
            minimum: rules.min_words,
        });
    }
    None
}

fn robots_has(robots: &str, directive: &str) -> bool {
    robots
        .split([',', ' '])
        .any(|d| d.trim().eq_ignore_ascii_case(directive))
}

fn by_rules(
    url: &str,
    include: Option<&Regex>,
    exclude: Option<&Regex>,
    list: Option<&HashSet<String>>,
    role: Role,
) -> Result<(), Exclusion> {
    if let Some(re) = include
        && !re.is_match(url)
    {
        return Err(Exclusion::NotIncluded(role));
    }
    if let Some(re) = exclude
        && re.is_match(url)
    {
        return Err(Exclusion::Excluded(role));
    }
    if let Some(list) = list
        && !list.contains(url)
    {
        return Err(Exclusion::NotListed(role));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> PageFacts {
        PageFacts {
            status_code: Some(200),
            content_type: Some("text/html; charset=utf-8".into()),
            indexability: Some("Indexable".into()),
            word_count: Some(500),
            ..PageFacts::default()
        }
    }

    #[test]
    fn each_rule_gives_its_reason() {
        let rules = EligibilityRules {
            min_words: 50,
            ..EligibilityRules::default()
        };
        let d = decide("https://a/", &ok(), &rules);
        assert_eq!(
            d,
            Decision {
                source: Ok(()),
                destination: Ok(())
            }
        );
        let d = decide(
            "https://a/",
            &PageFacts {
                status_code: Some(404),
                ..ok()
            },
            &rules,
        );
        assert_eq!(d.source, Err(Exclusion::Status(404)));
        let d = decide(
            "https://a/",
            &PageFacts {
                content_type: Some("text/css".into()),
                ..ok()
            },
            &rules,
        );
        assert_eq!(d.destination, Err(Exclusion::NotHtml("text/css".into())));
        let d = decide(
            "https://a/",
            &PageFacts {
                word_count: Some(12),
                ..ok()
            },
            &rules,
        );
        assert_eq!(
            d.destination,
            Err(Exclusion::Thin {
                words: 12,
                minimum: 50
            })
        );
        let d = decide(
            "https://a/",
            &PageFacts {
                indexability: Some("Non-Indexable".into()),
                indexability_status: "noindex".into(),
                ..ok()
            },
            &rules,
        );
        // A noindex page is out of both roles by default…
        assert_eq!(
            d,
            Decision {
                source: Err(Exclusion::NotIndexable("noindex".into())),
                destination: Err(Exclusion::NotIndexable("noindex".into()))
            }
        );
        // …and may carry links with --noindex-sources.
        let allowing = EligibilityRules {
            noindex_sources: true,
            ..rules.clone()
        };
        let noindex = PageFacts {
            indexability: Some("Non-Indexable".into()),
            indexability_status: "noindex".into(),
            ..ok()
        };
        assert_eq!(decide("https://a/", &noindex, &allowing).source, Ok(()));
        let d = decide(
            "https://a/",
            &PageFacts {
                meta_robots: "noindex, nofollow".into(),
                indexability: None,
                ..ok()
            },
            &allowing,
        );
        assert_eq!(
            d,
            Decision {
                source: Err(Exclusion::Nofollow),
                destination: Err(Exclusion::Noindex)
            }
        );
        let d = decide(
            "https://a/",
            &PageFacts {
                no_vector: Some("no vector: empty cell".into()),
                ..ok()
            },
            &rules,
        );
        assert_eq!(
            d.source,
            Err(Exclusion::NoVector("no vector: empty cell".into()))
        );
    }

    #[test]
    fn groups_by_folder_regex_and_segment() {
        let g = GroupBy::parse("folder:1").unwrap();
        assert_eq!(g.group("https://a.example/blog/2024/post", ""), "/blog/");
        assert_eq!(g.group("https://a.example/about", ""), "/");
        assert_eq!(g.group("https://a.example/shop/", ""), "/shop/");
        let g2 = GroupBy::parse("folder:2").unwrap();
        assert_eq!(
            g2.group("https://a.example/blog/2024/post?x=1", ""),
            "/blog/2024/"
        );
        assert_eq!(g2.group("https://a.example/blog/post", ""), "/blog/");
        let r = GroupBy::parse("regex:/(products|blog)/").unwrap();
        assert_eq!(r.group("https://a.example/blog/x", ""), "blog");
        assert_eq!(r.group("https://a.example/x", ""), "other");
        assert_eq!(
            GroupBy::parse("segments")
                .unwrap()
                .group("https://a/", " Recipes "),
            "Recipes"
        );
        assert!(matches!(
            GroupBy::parse("folder:0"),
            Err(GroupByError::Depth(n)) if n == "0"
        ));
        assert_eq!(
            GroupBy::parse(" colour ").unwrap_err().to_string(),
            "--group-by takes folder:N, regex:PATTERN or segments, not \"colour\""
        );
    }

    #[test]
    fn regex_and_list_rules_apply_per_role() {
        let rules = EligibilityRules {
            source_exclude: Some(Regex::new("/tag/").unwrap()),
            destination_include: Some(Regex::new("/blog/").unwrap()),
            destination_list: Some(["https://a/blog/x".to_string()].into_iter().collect()),
            ..EligibilityRules::default()
        };
        let d = decide("https://a/tag/x", &ok(), &rules);
        assert_eq!(d.source, Err(Exclusion::Excluded(Role::Source)));
        assert_eq!(
            d.destination,
            Err(Exclusion::NotIncluded(Role::Destination))
        );
        let d = decide("https://a/blog/y", &ok(), &rules);
        assert_eq!(d.destination, Err(Exclusion::NotListed(Role::Destination)));
        assert_eq!(
            decide("https://a/blog/x", &ok(), &rules).destination,
            Ok(())
        );
    }

    #[test]
    fn reasons_read_as_before_and_count_by_kind() {
        let cases = [
            (Exclusion::Status(404), "status 404", "status 404"),
            (
                Exclusion::NotHtml("text/css".into()),
                "not an HTML page (text/css)",
                "not an HTML page",
            ),
            (
                Exclusion::NoVector("no vector (no row in the embeddings export)".into()),
                "no vector (no row in the embeddings export)",
                "no vector",
            ),
            (
                Exclusion::Thin {
                    words: 12,
                    minimum: 50,
                },
                "thin: 12 words (minimum 50)",
                "thin",
            ),
            (
                Exclusion::NotIndexable(String::new()),
                "not indexable",
                "not indexable",
            ),
            (
                Exclusion::NotIndexable("Canonicalised".into()),
                "not indexable (Canonicalised)",
                "not indexable",
            ),
            (
                Exclusion::Noindex,
                "not indexable (noindex)",
                "not indexable",
            ),
            (
                Exclusion::Nofollow,
                "meta robots nofollow",
                "meta robots nofollow",
            ),
            (
                Exclusion::NotIncluded(Role::Source),
                "not matched by --include-source",
                "not matched by --include-source",
            ),
            (
                Exclusion::Excluded(Role::Destination),
                "matched by --exclude-destination",
                "matched by --exclude-destination",
            ),
            (
                Exclusion::NotListed(Role::Source),
                "not in the source URL list",
                "not in the source URL list",
            ),
            (
                Exclusion::Redirect("https://a/x".into()),
                "redirects to https://a/x",
                "redirects to",
            ),
            (
                Exclusion::Canonicalised("https://a/x".into()),
                "canonicalised to https://a/x",
                "canonicalised to",
            ),
            (
                Exclusion::Variant("same page as row 3 (https://a/): a spelling variant".into()),
                "same page as row 3 (https://a/): a spelling variant",
                "same page as row 3",
            ),
            (
                Exclusion::TooLong(10),
                "redirect chain longer than 10 hops",
                "redirect chain longer than 10 hops",
            ),
        ];
        for (exclusion, text, kind) in cases {
            assert_eq!(exclusion.to_string(), text);
            assert_eq!(exclusion.kind(), kind, "{text}");
        }
    }
}
