//! All Inlinks / All Outlinks, every era: the 2017–2019 files with a title row, 8–9 columns,
//! HREF/AHREF types and ragged rows; the 15-column 2022–2024 file; the v24 16-column file with
//! Crawlability; Segments columns; the French UI. Rows are streamed to a visitor, never held.

use super::columns::Col;
use super::{InputError, Row, Table, cell};
use crate::report::{Report, Role};

/// What kind of link a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `<a href>`: `Hyperlink`, legacy `HREF`/`AHREF`, French `Hyperlien`.
    Hyperlink,
    /// An HTTP redirect from Source to Destination.
    Redirect,
    /// Images, CSS, JavaScript, canonicals, hreflang, sitemaps: not links between pages.
    Other,
}

/// One link row, borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy)]
pub struct LinkRow<'r> {
    /// Spreadsheet row.
    pub row: u64,
    /// Kind of link.
    pub kind: LinkKind,
    /// The Type cell as written.
    pub type_text: &'r str,
    /// Linking page.
    pub source: &'r str,
    /// Linked page.
    pub destination: &'r str,
    /// Link Position (Content, Navigation, Header, Footer, Aside, Sidebar, Head, custom).
    pub position: &'r str,
    /// Link Path, the `XPath` of the `<a>`.
    pub path: &'r str,
    /// Follow flag; `None` when the export has no Follow column or the cell is empty.
    pub follow: Option<bool>,
    /// Raw rel attribute.
    pub rel: &'r str,
    /// Anchor text (empty for image links and exports without the column; for hreflang
    /// rows, where a language code may be written).
    pub anchor: &'r str,
    /// Alt Text.
    pub alt_text: &'r str,
}

impl LinkRow<'_> {
    /// Whether the link is nofollow, by the Follow flag or the rel attribute.
    pub fn nofollow(&self) -> bool {
        self.follow == Some(false)
            || self
                .rel
                .split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("nofollow"))
    }
}

/// Map a Type cell of any era or UI language.
pub fn link_kind(type_text: &str) -> LinkKind {
    let t = type_text.trim();
    if ["hyperlink", "href", "ahref", "hyperlien"]
        .iter()
        .any(|k| t.eq_ignore_ascii_case(k))
    {
        LinkKind::Hyperlink
    } else if ["http redirect", "redirection http"]
        .iter()
        .any(|k| t.eq_ignore_ascii_case(k))
    {
        LinkKind::Redirect
    } else {
        LinkKind::Other
    }
}

/// Whether a Type cell is an hreflang annotation (`HTML Hreflang`, `HTTP Hreflang`, ...).
pub fn is_hreflang(type_text: &str) -> bool {
    // Asked of every All Inlinks row: no lowercased copy.
    type_text
        .as_bytes()
        .windows(b"hreflang".len())
        .any(|w| w.eq_ignore_ascii_case(b"hreflang"))
}

/// Map a French position name to Screaming Frog's English default names.
pub fn position_name(position: &str) -> &str {
    match position {
        "Contenu" => "Content",
        "En-tête" => "Header",
        "Pied de page" => "Footer",
        "Barre latérale" => "Sidebar",
        other => other,
    }
}

/// Stream every row of an All Inlinks table to `visit`. Rows without a Source or Destination
/// are rejected here; the visitor decides whether a well-formed row is used or skipped.
pub fn read(
    table: &Table,
    report: &mut Report,
    visit: &mut dyn FnMut(&mut Report, usize, &LinkRow<'_>),
) -> Result<(), InputError> {
    let header = table.header();
    if !header.is_inlinks() {
        return Err(InputError::Role {
            path: table.source().path().to_path_buf(),
            message: "not an All Inlinks export: no \"Source\" and \"Destination\" columns".into(),
        });
    }
    let stats = report.file(table.name(), Role::Inlinks);
    let type_col = header.get(Col::Type);
    if type_col.is_none() {
        report.note(format!(
            "{}: no Type column; every row is read as a hyperlink",
            table.name()
        ));
    }
    let (src_col, dst_col) = (header.get(Col::Source), header.get(Col::Destination));
    let pos_col = header.get(Col::LinkPosition);
    if pos_col.is_none() {
        report.note(format!(
            "{}: no Link Position column (exports before 2019 lack it); every hyperlink counts as a body link, so navigation links can hide opportunities",
            table.name()
        ));
    }
    let path_col = header.get(Col::LinkPath);
    let follow_col = header.get(Col::Follow);
    let rel_col = header.get(Col::Rel);
    let (anchor_col, alt_col) = (header.get(Col::Anchor), header.get(Col::AltText));
    table.rows(report, stats, &mut |report, row, record: &Row<'_>| {
        let type_text = cell(record, type_col);
        let kind = if type_col.is_some() {
            link_kind(type_text)
        } else {
            LinkKind::Hyperlink
        };
        let (source, destination) = (cell(record, src_col), cell(record, dst_col));
        if kind != LinkKind::Other && (source.is_empty() || destination.is_empty()) {
            let column = if source.is_empty() {
                "Source"
            } else {
                "Destination"
            };
            report.reject(
                stats,
                table.rejection(row, column, format!("{column} is empty"), ""),
            );
            return;
        }
        let follow_text = cell(record, follow_col);
        let is = |words: [&str; 3]| words.iter().any(|w| follow_text.eq_ignore_ascii_case(w));
        let follow = if is(["true", "vrai", "1"]) {
            Some(true)
        } else if is(["false", "faux", "0"]) {
            Some(false)
        } else {
            None
        };
        let link = LinkRow {
            row,
            kind,
            type_text,
            source,
            destination,
            position: if pos_col.is_some() {
                position_name(cell(record, pos_col))
            } else {
                "Content"
            },
            path: cell(record, path_col),
            follow,
            rel: cell(record, rel_col),
            anchor: cell(record, anchor_col),
            alt_text: cell(record, alt_col),
        };
        visit(report, stats, &link);
    })
}
