//! Header rows: where they are, which Screaming Frog column each header means (by name, never
//! by position, through an alias table that covers every export era and the French UI), and
//! which role a table plays.

use std::collections::HashMap;

use csv::StringRecord;

/// A column linkgap understands, whatever the export era called it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Col {
    Type,
    Source,
    Destination,
    Anchor,
    AltText,
    StatusCode,
    Status,
    Follow,
    Rel,
    LinkPath,
    LinkPosition,
    LinkOrigin,
    SourceSegments,
    DestinationSegments,
    Address,
    ContentType,
    Indexability,
    IndexabilityStatus,
    Canonical,
    RedirectUrl,
    WordCount,
    Title,
    H1,
    MetaRobots,
    CrawlTimestamp,
    Hash,
    Segments,
    Clicks,
    Impressions,
    Ctr,
    Position,
    Sessions,
    Views,
    LinkScore,
    UniqueInlinks,
    Language,
}

/// Header aliases, lower-case and trimmed. English names of every era first, then the French UI.
const ALIASES: &[(Col, &[&str])] = &[
    (Col::Type, &["type"]),
    (Col::Source, &["source", "from", "source url"]),
    (Col::Destination, &["destination", "to", "destination url"]),
    (
        Col::Anchor,
        &["anchor", "anchor text", "ancrage", "texte d'ancrage"],
    ),
    (Col::AltText, &["alt text", "texte alternatif"]),
    (
        Col::StatusCode,
        &["status code", "code de statut", "code de réponse"],
    ),
    (Col::Status, &["status", "statut"]),
    (Col::Follow, &["follow", "suivre"]),
    (Col::Rel, &["rel"]),
    (Col::LinkPath, &["link path", "chemin du lien"]),
    (Col::LinkPosition, &["link position", "position du lien"]),
    (Col::LinkOrigin, &["link origin", "origine du lien"]),
    (Col::SourceSegments, &["source segments"]),
    (Col::DestinationSegments, &["destination segments"]),
    (
        Col::Address,
        &[
            "address",
            "url",
            "adresse",
            "page",
            "page url",
            "original url",
            "loc",
            "top pages",
        ],
    ),
    (
        Col::ContentType,
        &["content type", "content", "type de contenu"],
    ),
    (Col::Indexability, &["indexability", "indexabilité"]),
    (
        Col::IndexabilityStatus,
        &["indexability status", "statut d'indexabilité"],
    ),
    (
        Col::Canonical,
        &[
            "canonical link element 1",
            "canonical link element",
            "canonical",
            "élément de lien canonique 1",
        ],
    ),
    (
        Col::RedirectUrl,
        &["redirect url", "redirect uri", "url de redirection"],
    ),
    (Col::WordCount, &["word count", "nombre de mots"]),
    (Col::Title, &["title 1", "title", "titre 1"]),
    (Col::H1, &["h1-1", "h1 1", "h1"]),
    (Col::MetaRobots, &["meta robots 1", "meta robots"]),
    (
        Col::CrawlTimestamp,
        &["crawl timestamp", "horodatage de l'exploration"],
    ),
    (Col::Hash, &["hash"]),
    (Col::Segments, &["segments", "segment"]),
    // Search Console (Internal: All with the Search Console API connected, and the
    // Performance report's Pages tab) and Google Analytics (GA4 since v18, Universal Analytics
    // before): the names Screaming Frog writes, with the "GSC"/"GA4" prefixes some versions
    // and re-saved files carry.
    (
        Col::Clicks,
        &["clicks", "gsc clicks", "search console clicks"],
    ),
    (Col::Impressions, &["impressions", "gsc impressions"]),
    (Col::Ctr, &["ctr", "gsc ctr"]),
    (
        Col::Position,
        &["position", "gsc position", "average position"],
    ),
    (
        Col::Sessions,
        &[
            "ga4 sessions",
            "ga sessions",
            "sessions",
            "ga4: sessions",
            "ga4 organic sessions",
        ],
    ),
    (
        Col::Views,
        &[
            "ga4 views",
            "ga4 screen page views",
            "ga4 screenpageviews",
            "ga pageviews",
            "ga page views",
            "ga unique pageviews",
            "views",
            "pageviews",
        ],
    ),
    (Col::LinkScore, &["link score"]),
    (Col::UniqueInlinks, &["unique inlinks"]),
    (Col::Language, &["language"]),
];

/// Exact embedding column names Screaming Frog writes, preferred over any other match.
pub const KNOWN_EMBEDDING_COLUMNS: &[&str] = &[
    "(chatgpt) extract embeddings from page content 1",
    "extract embeddings from page content",
    "extract semantic embeddings from page",
    "extract embeddings from page content 1",
];

/// Header words of Screaming Frog UIs in languages linkgap has no alias table for.
const FOREIGN_HEADERS: &[(&str, &str)] = &[
    ("quelle", "German"),
    ("ziel", "German"),
    ("linkposition", "German"),
    ("origen", "Spanish"),
    ("destino", "Spanish"),
    ("dirección", "Spanish"),
    ("origine", "Italian"),
    ("destinazione", "Italian"),
    ("indirizzo", "Italian"),
    ("bron", "Dutch"),
    ("bestemming", "Dutch"),
    ("endereço", "Portuguese"),
    ("źródło", "Polish"),
];

/// French header words: read through the alias table, but worth saying in `inspect`.
const FRENCH_MARKERS: &[&str] = &[
    "ancrage",
    "position du lien",
    "code de statut",
    "adresse",
    "origine du lien",
    "suivre",
];

/// How a header should be compared: trimmed, lower-case, inner whitespace collapsed.
pub fn fold(name: &str) -> String {
    name.trim()
        .trim_start_matches('\u{FEFF}')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A located header row and what its columns mean.
#[derive(Debug, Clone)]
pub struct Header {
    /// Spreadsheet row number of the header (1-based).
    pub row: u64,
    /// Header names as written (trimmed).
    pub names: Vec<String>,
    map: HashMap<Col, usize>,
    /// Language of the UI that wrote the export, when not English.
    pub language: Option<&'static str>,
}

impl Header {
    /// Map a header record. Returns `None` when it has no column linkgap recognises.
    pub fn from_record(row: u64, record: &StringRecord) -> Option<Header> {
        let names: Vec<String> = record
            .iter()
            .map(|s| s.trim().trim_start_matches('\u{FEFF}').to_string())
            .collect();
        let mut map = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            let folded = fold(name);
            for (col, aliases) in ALIASES {
                if aliases.contains(&folded.as_str()) {
                    // The first column wins: a later "URL Encoded Address" must not replace Address.
                    map.entry(*col).or_insert(i);
                }
            }
        }
        let language = names
            .iter()
            .any(|n| FRENCH_MARKERS.contains(&fold(n).as_str()))
            .then_some("French");
        Some(Header {
            row,
            names,
            map,
            language,
        })
        .filter(|h| h.is_inlinks() || h.map.contains_key(&Col::Address))
    }

    /// Index of a known column.
    pub fn get(&self, col: Col) -> Option<usize> {
        self.map.get(&col).copied()
    }

    /// Index of a column by its exact (folded) name.
    pub fn find(&self, name: &str) -> Option<usize> {
        let want = fold(name);
        self.names.iter().position(|n| fold(n) == want)
    }

    /// Whether this is an All Inlinks / All Outlinks header.
    pub fn is_inlinks(&self) -> bool {
        self.map.contains_key(&Col::Source) && self.map.contains_key(&Col::Destination)
    }

    /// Whether this looks like Internal: All / Internal: HTML.
    pub fn is_internal(&self) -> bool {
        // Columns only the Internal tab carries; a title or status column alone is not enough
        // (embeddings tables rebuilt by users often keep those).
        self.map.contains_key(&Col::Address)
            && [
                Col::Indexability,
                Col::Canonical,
                Col::RedirectUrl,
                Col::WordCount,
            ]
            .iter()
            .any(|c| self.map.contains_key(c))
    }

    /// The embedding column chosen by name: an exact Screaming Frog name, else a header that
    /// mentions embeddings or vectors.
    pub fn embedding_column_by_name(&self) -> Option<usize> {
        let folded: Vec<String> = self.names.iter().map(|n| fold(n)).collect();
        if let Some(i) = folded
            .iter()
            .position(|n| KNOWN_EMBEDDING_COLUMNS.contains(&n.as_str()))
        {
            return Some(i);
        }
        folded
            .iter()
            .position(|n| n.contains("embedding"))
            .or_else(|| folded.iter().position(|n| n.contains("vector")))
    }

    /// Columns linkgap mapped, for `inspect`.
    pub fn mapped(&self) -> Vec<(Col, &str)> {
        let mut cols: Vec<(Col, &str)> = self
            .map
            .iter()
            .map(|(c, i)| (*c, self.names[*i].as_str()))
            .collect();
        cols.sort();
        cols
    }

    /// Indices of the columns the alias table mapped.
    pub fn mapped_indices(&self) -> Vec<usize> {
        self.map.values().copied().collect()
    }

    /// Name of the column at `index`, for messages.
    pub fn name(&self, index: usize) -> &str {
        self.names.get(index).map_or("", String::as_str)
    }
}

/// Why no header was found, in words a user can act on.
pub fn explain_missing_header(first_rows: &[StringRecord]) -> String {
    for record in first_rows {
        for field in record {
            let folded = fold(field);
            if let Some((_, lang)) = FOREIGN_HEADERS.iter().find(|(w, _)| *w == folded) {
                return format!(
                    "this export was written by Screaming Frog in {lang}; linkgap reads English and French headers. \
                     Switch the interface to English (Configuration > User Interface > Language) and export again"
                );
            }
        }
    }
    "no header row in the first rows: expected an \"Address\" column (embeddings, Internal: All) or \"Source\" and \"Destination\" (All Inlinks)".to_string()
}

/// Whether a cell looks like a vector: many comma-separated numbers.
pub fn looks_like_vector(cell: &str) -> bool {
    let body = cell
        .rsplit(';')
        .next()
        .unwrap_or(cell)
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let mut count = 0;
    for token in body.split(',').take(32) {
        if token.trim().parse::<f32>().is_err() {
            return false;
        }
        count += 1;
    }
    count >= 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(fields: &[&str]) -> StringRecord {
        StringRecord::from(fields.to_vec())
    }

    #[test]
    fn maps_modern_legacy_and_french_headers() {
        let h = Header::from_record(
            1,
            &rec(&[
                "\u{FEFF}Type",
                "Source",
                "Destination",
                "Size (Bytes)",
                "Link Position",
            ]),
        )
        .unwrap();
        assert!(h.is_inlinks());
        assert_eq!(h.get(Col::Type), Some(0));
        assert_eq!(h.get(Col::LinkPosition), Some(4));
        let fr = Header::from_record(
            2,
            &rec(&[
                "Type",
                "Source",
                "Destination",
                "Ancrage",
                "Position du lien",
            ]),
        )
        .unwrap();
        assert_eq!(fr.get(Col::Anchor), Some(3));
        assert_eq!(fr.get(Col::LinkPosition), Some(4));
        assert_eq!(fr.language, Some("French"));
        let internal = Header::from_record(
            1,
            &rec(&["Address", "Content", "Status Code", "Level", "Redirect URI"]),
        )
        .unwrap();
        assert!(internal.is_internal());
        assert_eq!(internal.get(Col::ContentType), Some(1));
        assert!(Header::from_record(1, &rec(&["All Inlinks"])).is_none());
    }

    #[test]
    fn finds_embedding_columns_by_name() {
        let h = Header::from_record(
            1,
            &rec(&[
                "Address",
                "Status Code",
                "(ChatGPT) Extract embeddings from page content 1",
            ]),
        )
        .unwrap();
        assert_eq!(h.embedding_column_by_name(), Some(2));
        let h = Header::from_record(
            1,
            &rec(&["url", "title", "Vector Embedding text-embedding-004"]),
        )
        .unwrap();
        assert_eq!(h.embedding_column_by_name(), Some(2));
    }

    #[test]
    fn foreign_language_is_named() {
        let msg = explain_missing_header(&[rec(&["Typ", "Quelle", "Ziel"])]);
        assert!(msg.contains("German"), "{msg}");
    }

    #[test]
    fn vector_detection() {
        assert!(looks_like_vector("0.1,0.2,0.3,0.4,0.5,0.6,0.7,-8.9E-4"));
        assert!(looks_like_vector(
            "model=m;dims=8;0.1,0.2,0.3,0.4,0.5,0.6,0.7,1e-7"
        ));
        assert!(!looks_like_vector(
            "No data returned. Ensure you call 'return seoSpider.data(your_data)'"
        ));
        assert!(!looks_like_vector("1,2"));
    }
}
