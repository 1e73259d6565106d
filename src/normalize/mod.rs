//! URL identity: the documented, configurable rules that decide when two written URLs are the
//! same page (docs/method.md, "URL normalization"). Pure functions, no I/O; the property tests
//! hold them to idempotence and to never panicking.

pub mod identity;

use std::fmt;

use url::Url;

/// What to do with a trailing slash on a non-root path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlashPolicy {
    /// Keep the URL as written (default: a site may serve both as different pages).
    #[default]
    Keep,
    /// Remove a trailing slash.
    Strip,
    /// Add a trailing slash to paths whose last segment has no file extension.
    Add,
}

/// What to do with a leading `www.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WwwPolicy {
    /// Keep the host as written (default).
    #[default]
    Keep,
    /// Remove a leading `www.`.
    Strip,
    /// Add `www.` to hosts without it.
    Add,
}

/// The normalization rules in force. The defaults only merge spellings that can never be two
/// pages; site-specific merges (slash, www, index files) are opt-in or come from redirects and
/// canonicals in the crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Query parameters dropped as tracking noise; a trailing `*` matches a prefix.
    pub tracking_params: Vec<String>,
    /// Trailing-slash policy.
    pub trailing_slash: SlashPolicy,
    /// `www.` policy.
    pub www: WwwPolicy,
    /// Drop a final `index.html`, `index.htm`, `index.php`, `default.aspx` segment.
    pub strip_index: bool,
    /// Sort the remaining query parameters by name (`--sort-query`).
    pub sort_query: bool,
}

/// Tracking parameters dropped by default: analytics and ad-click identifiers that never
/// select different content.
pub const DEFAULT_TRACKING_PARAMS: &[&str] = &[
    "utm_*", "gclid", "gbraid", "wbraid", "dclid", "fbclid", "msclkid", "yclid", "mc_cid",
    "mc_eid", "_ga", "_gl", "igshid", "_hsenc", "_hsmi",
];

impl Default for Rules {
    fn default() -> Self {
        Rules {
            tracking_params: DEFAULT_TRACKING_PARAMS
                .iter()
                .map(|s| (*s).to_string())
                .collect(),
            trailing_slash: SlashPolicy::Keep,
            www: WwwPolicy::Keep,
            strip_index: false,
            sort_query: false,
        }
    }
}

impl Rules {
    /// One line per rule, for the Run sheet.
    pub fn describe(&self) -> Vec<(String, String)> {
        vec![
            ("URL rule: always".into(), "scheme and host lower-case, default port dropped, fragment dropped, percent-encoding normalized (unreserved characters decoded, hex upper-case), empty query dropped".into()),
            ("URL rule: tracking parameters dropped".into(), self.tracking_params.join(", ")),
            ("URL rule: trailing slash".into(), format!("{:?}", self.trailing_slash).to_lowercase()),
            ("URL rule: www".into(), format!("{:?}", self.www).to_lowercase()),
            ("URL rule: strip index files".into(), yes_no(self.strip_index).into()),
            ("URL rule: sort query parameters".into(), yes_no(self.sort_query).into()),
        ]
    }

    /// The rules a run recorded with [`describe`](Self::describe) (its Run sheet's rows), so a
    /// later step (`linkgap verify`) normalizes URLs as that run did. Rows that are not URL
    /// rules are ignored; a rule with a value this version does not know is an error.
    pub fn from_described<'a>(
        rows: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> Result<Rules, UnknownRule> {
        let mut rules = Rules::default();
        for (key, value) in rows {
            let v = value.trim();
            let unknown = || UnknownRule {
                rule: key.to_string(),
                value: v.to_string(),
            };
            let policy = |v: &str| match v {
                "keep" => Some(0),
                "strip" => Some(1),
                "add" => Some(2),
                _ => None,
            };
            let yes = |v: &str| match v {
                "yes" => Some(true),
                "no" => Some(false),
                _ => None,
            };
            match key.trim() {
                "URL rule: tracking parameters dropped" => {
                    rules.tracking_params = v
                        .split(',')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(str::to_string)
                        .collect();
                }
                "URL rule: trailing slash" => {
                    rules.trailing_slash =
                        [SlashPolicy::Keep, SlashPolicy::Strip, SlashPolicy::Add]
                            [policy(v).ok_or_else(unknown)?];
                }
                "URL rule: www" => {
                    rules.www = [WwwPolicy::Keep, WwwPolicy::Strip, WwwPolicy::Add]
                        [policy(v).ok_or_else(unknown)?];
                }
                "URL rule: strip index files" => rules.strip_index = yes(v).ok_or_else(unknown)?,
                "URL rule: sort query parameters" => {
                    rules.sort_query = yes(v).ok_or_else(unknown)?;
                }
                _ => {}
            }
        }
        Ok(rules)
    }

    fn is_tracking(&self, name: &str) -> bool {
        self.tracking_params
            .iter()
            .any(|p| match p.strip_suffix('*') {
                Some(prefix) => {
                    name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix)
                }
                None => name.eq_ignore_ascii_case(p),
            })
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// A URL rule recorded with a value this version does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule {
    /// The rule, as recorded ("URL rule: trailing slash").
    pub rule: String,
    /// The value found.
    pub value: String,
}

impl std::fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\"{}\" is \"{}\", which this version of linkgap does not know",
            self.rule, self.value
        )
    }
}

impl std::error::Error for UnknownRule {}

/// Why a string is not a web page URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlIssue {
    /// Not an absolute URL.
    Invalid(String),
    /// Not http or https (mailto:, tel:, javascript:...).
    NotWeb(String),
}

impl fmt::Display for UrlIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlIssue::Invalid(why) => write!(f, "not an absolute URL ({why})"),
            UrlIssue::NotWeb(scheme) => write!(f, "not a web page URL (scheme \"{scheme}\")"),
        }
    }
}

const INDEX_FILES: &[&str] = &[
    "index.html",
    "index.htm",
    "index.php",
    "default.aspx",
    "default.asp",
];

/// Normalize one URL under `rules`.
pub fn normalize(raw: &str, rules: &Rules) -> Result<String, UrlIssue> {
    let trimmed = raw.trim();
    let mut url = Url::parse(trimmed).map_err(|e| UrlIssue::Invalid(e.to_string()))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(UrlIssue::NotWeb(url.scheme().to_string()));
    }
    url.set_fragment(None);
    if let Some(host) = url.host_str() {
        let mut host = host.trim_end_matches('.').to_string();
        match rules.www {
            WwwPolicy::Keep => {}
            WwwPolicy::Strip => {
                if let Some(rest) = host.strip_prefix("www.") {
                    host = rest.to_string();
                }
            }
            WwwPolicy::Add => {
                if !host.starts_with("www.")
                    && host.contains('.')
                    && url
                        .host()
                        .is_some_and(|h| matches!(h, url::Host::Domain(_)))
                {
                    host = format!("www.{host}");
                }
            }
        }
        if host != url.host_str().unwrap_or_default() && url.set_host(Some(&host)).is_err() {
            return Err(UrlIssue::Invalid(format!("host \"{host}\" is not valid")));
        }
    }
    let mut path = normalize_percent(url.path());
    // Index stripping and the slash policy feed each other ("/index.html/" → "/index.html" →
    // "/"); apply them until nothing changes so a second pass finds nothing to do.
    for _ in 0..8 {
        let before = path.len();
        if rules.strip_index
            && let Some(pos) = path.rfind('/')
            && INDEX_FILES
                .iter()
                .any(|f| path[pos + 1..].eq_ignore_ascii_case(f))
        {
            path.truncate(pos + 1);
        }
        apply_slash_policy(&mut path, rules.trailing_slash);
        if path.len() == before {
            break;
        }
    }
    url.set_path(&path);
    // Each pair's escapes are decoded before the tracking filter and the sort look at its
    // name: `utm%5Fsource` is `utm_source`, and a name written with escapes sorts where its
    // decoded form does, so a second pass finds nothing to do.
    let query = url.query().map(|q| {
        let mut pairs: Vec<String> = q
            .split('&')
            .filter(|p| !p.is_empty())
            .map(normalize_percent)
            .filter(|p| !rules.is_tracking(p.split('=').next().unwrap_or("")))
            .collect();
        if rules.sort_query {
            pairs.sort_by(|a, b| a.split('=').next().cmp(&b.split('=').next()).then(a.cmp(b)));
        }
        pairs.join("&")
    });
    url.set_query(query.as_deref().filter(|q| !q.is_empty()));
    Ok(url.into())
}

fn apply_slash_policy(path: &mut String, policy: SlashPolicy) {
    if path.len() <= 1 {
        return;
    }
    match policy {
        SlashPolicy::Keep => {}
        SlashPolicy::Strip => {
            while path.len() > 1 && path.ends_with('/') {
                path.pop();
            }
        }
        SlashPolicy::Add => {
            let last = path.rsplit('/').next().unwrap_or("");
            if !path.ends_with('/') && !last.contains('.') {
                path.push('/');
            }
        }
    }
}

/// Decode percent-escapes of unreserved characters (RFC 3986 §6.2.2.2) and upper-case the
/// hex digits of the rest, so `%7e`, `%7E` and `~` are one spelling.
fn normalize_percent(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            let c = h * 16 + l;
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
                out.push(c as char);
            } else {
                out.push('%');
                out.push(bytes[i + 1].to_ascii_uppercase() as char);
                out.push(bytes[i + 2].to_ascii_uppercase() as char);
            }
            i += 3;
            continue;
        }
        let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalize(s, &Rules::default()).unwrap()
    }

    #[test]
    fn a_query_name_written_with_escapes_is_filtered_and_sorted_as_decoded() {
        let sorting = Rules {
            sort_query: true,
            ..Rules::default()
        };
        for (url, rules, want) in [
            (
                "https://e.com/a?utm%5Fsource=x",
                Rules::default(),
                "https://e.com/a",
            ),
            (
                "https://e.com/a?%75tm_source=x&k=1",
                Rules::default(),
                "https://e.com/a?k=1",
            ),
            (
                "https://e.com/a?%7A=1&b=2",
                sorting.clone(),
                "https://e.com/a?b=2&z=1",
            ),
        ] {
            let once = normalize(url, &rules).unwrap();
            assert_eq!(once, want, "{url}");
            assert_eq!(
                normalize(&once, &rules).unwrap(),
                once,
                "{url}: a second pass"
            );
        }
    }

    #[test]
    fn described_rules_read_back_as_the_same_rules() {
        let rules = Rules {
            tracking_params: vec!["utm_*".into(), "ref".into()],
            trailing_slash: SlashPolicy::Strip,
            www: WwwPolicy::Add,
            strip_index: true,
            sort_query: false,
        };
        let rows = rules.describe();
        let back = Rules::from_described(rows.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        assert_eq!(back, Ok(rules));
        let bad = Rules::from_described([("URL rule: www", "sometimes")].into_iter());
        assert_eq!(bad.unwrap_err().value, "sometimes");
        let none = Rules::from_described([("Client", "Acme")].into_iter());
        assert_eq!(none, Ok(Rules::default()));
    }

    #[test]
    fn default_rules() {
        assert_eq!(
            n("HTTPS://Example.COM:443/a/b#frag"),
            "https://example.com/a/b"
        );
        assert_eq!(n("http://example.com:80"), "http://example.com/");
        assert_eq!(
            n("https://example.com/a?utm_source=x&id=3&gclid=9"),
            "https://example.com/a?id=3"
        );
        assert_eq!(
            n("https://example.com/a?utm_source=newsletter"),
            "https://example.com/a"
        );
        assert_eq!(
            n("https://example.com/%7euser/%c3%a9"),
            "https://example.com/~user/%C3%A9"
        );
        assert_eq!(
            n("https://example.com/a/"),
            "https://example.com/a/",
            "slash kept by default"
        );
        assert_eq!(
            n("https://www.example.com/"),
            "https://www.example.com/",
            "www kept by default"
        );
        assert_eq!(n("  https://example.com/x\n"), "https://example.com/x");
        assert_eq!(n("https://example.com./x"), "https://example.com/x");
        assert!(matches!(
            normalize("mailto:a@b.c", &Rules::default()),
            Err(UrlIssue::NotWeb(_))
        ));
        assert!(matches!(
            normalize("/relative", &Rules::default()),
            Err(UrlIssue::Invalid(_))
        ));
    }

    #[test]
    fn opt_in_rules() {
        let rules = Rules {
            trailing_slash: SlashPolicy::Strip,
            www: WwwPolicy::Strip,
            strip_index: true,
            sort_query: true,
            ..Rules::default()
        };
        let n = |s| normalize(s, &rules).unwrap();
        assert_eq!(
            n("https://www.example.com/docs/index.html"),
            "https://example.com/docs"
        );
        assert_eq!(
            n("https://example.com/a/?b=2&a=1"),
            "https://example.com/a?a=1&b=2"
        );
        assert_eq!(n("https://example.com/"), "https://example.com/");
        let add = Rules {
            trailing_slash: SlashPolicy::Add,
            www: WwwPolicy::Add,
            ..Rules::default()
        };
        assert_eq!(
            normalize("https://example.com/a", &add).unwrap(),
            "https://www.example.com/a/"
        );
        assert_eq!(
            normalize("https://example.com/a.pdf", &add).unwrap(),
            "https://www.example.com/a.pdf"
        );
    }
}
