//! Page text: Screaming Frog's Custom Extraction export (`custom_extraction_all.csv` / `.xlsx`,
//! columns `Address, Status Code, Status, <extractor> 1[, <extractor> 2 …]`), one cell of inner
//! HTML ("Extract Inner HTML") or plain text ("Extract Text") per page and extractor. Rows are
//! streamed to a visitor, never held: a big site's export is several GB of HTML.

use super::columns::{Col, Header, fold};
use super::{Container, InputError, Row, Table, cell};
use crate::report::{Report, Role};

/// Excel's cell limit: an XLSX cell of exactly this many characters was cut by Excel.
pub const XLSX_CELL_LIMIT: usize = 32_767;

/// Extractor names that say "the page's main text", preferred when a file has several.
const CONTENT_WORDS: &[&str] = &[
    "content", "main", "body", "article", "text", "html", "passage", "block", "contenu",
];

/// One extractor of a Custom Extraction export: its name and the columns of its matches
/// (`Main Content 1`, `Main Content 2`, … when the selector matched several elements).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extractor {
    /// The extractor's name as written, without the match number.
    pub name: String,
    /// Column indices of its matches, in match order.
    pub columns: Vec<usize>,
}

/// Whether a cell holds HTML or plain text; decided per cell from its content, since the
/// header does not say which extraction mode was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// "Extract Inner HTML" / "Extract HTML Element".
    Html,
    /// "Extract Text".
    Plain,
}

impl TextFormat {
    /// Sniff a cell: HTML when it holds something shaped like a tag (`<p>`, `</div>`, `<a `).
    pub fn sniff(text: &str) -> TextFormat {
        let bytes = text.as_bytes();
        let tag = bytes
            .windows(2)
            .any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/' || w[1] == b'!'));
        if tag && text.contains('>') {
            TextFormat::Html
        } else {
            TextFormat::Plain
        }
    }
}

/// One page's text, borrowed from the reader's buffer for the time of the visit.
#[derive(Debug, Clone, Copy)]
pub struct PageText<'r> {
    /// Spreadsheet row.
    pub row: u64,
    /// The page's Address as written.
    pub address: &'r str,
    /// The extractor's cells, joined by a newline when it has several matches.
    pub text: &'r str,
    /// HTML or plain text.
    pub format: TextFormat,
}

/// The extractor columns of a header: columns no alias maps, named `<name> <n>` the way
/// Screaming Frog numbers extraction matches, that are not embedding columns.
pub fn extractors(header: &Header) -> Vec<Extractor> {
    if header.is_inlinks() || header.get(Col::Address).is_none() {
        return Vec::new();
    }
    let mapped: Vec<usize> = header.mapped_indices();
    let mut out: Vec<Extractor> = Vec::new();
    for (i, name) in header.names.iter().enumerate() {
        if mapped.contains(&i) {
            continue;
        }
        let folded = fold(name);
        if folded.contains("embedding") || folded.contains("vector") {
            continue;
        }
        let Some((stem, number)) = name.trim().rsplit_once(' ') else {
            continue;
        };
        if stem.trim().is_empty()
            || number.is_empty()
            || !number.bytes().all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let stem = stem.trim().to_string();
        match out.iter_mut().find(|e| fold(&e.name) == fold(&stem)) {
            Some(e) => e.columns.push(i),
            None => out.push(Extractor {
                name: stem,
                columns: vec![i],
            }),
        }
    }
    out
}

/// Whether a header looks like a Custom Extraction export (an Address and at least one
/// numbered extractor column). Used for role detection in folder mode and `inspect`.
pub fn is_page_text(header: &Header) -> bool {
    !header.is_internal() && !extractors(header).is_empty()
}

/// Whether a header has, besides the vector column `vector`, an extractor whose name says
/// it holds the page's content ("linkgap page text 1", "main content 1"): a Custom
/// JavaScript export that carries the embeddings and the page text.
pub fn has_content_extractor(header: &Header, vector: usize) -> bool {
    extractors(header).iter().any(|e| {
        let name = fold(&e.name);
        !e.columns.contains(&vector) && CONTENT_WORDS.iter().any(|w| name.contains(w))
    })
}

/// The extractor to read: the one named `named` (with or without its match number), else the
/// first whose name says main content, else the first.
pub fn choose_extractor(header: &Header, named: Option<&str>) -> Option<Extractor> {
    let all = extractors(header);
    if let Some(want) = named {
        let want = fold(want);
        return all.into_iter().find(|e| {
            let name = fold(&e.name);
            name == want || e.columns.iter().any(|&c| fold(header.name(c)) == want)
        });
    }
    let by_word = all.iter().position(|e| {
        let name = fold(&e.name);
        CONTENT_WORDS.iter().any(|w| name.contains(w))
    });
    match by_word {
        Some(i) => all.into_iter().nth(i),
        None => all.into_iter().next(),
    }
}

/// How templates/screaming-frog/page-text.js starts a cell when it found no text.
const SNIPPET_ERROR: &str = "linkgap-page-text error: ";

/// Counts of one read, for the Run sheet and the caller's summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageTextRead {
    /// The extractor read.
    pub extractor: String,
    /// Rows passed to the visitor.
    pub pages: u64,
    /// Rows with an empty cell (expected on non-200 rows), skipped.
    pub empty: u64,
    /// Rows rejected because Excel cut the cell.
    pub truncated: u64,
}

/// Stream every page of a Custom Extraction table to `visit`. The extractor is `named`, else
/// chosen by [`choose_extractor`]. Rows with no Address or an XLSX cell cut at Excel's limit
/// are rejected; rows with no text are skipped and counted. The visitor decides whether a page
/// is used (it counts `used` itself, as the other readers' visitors do).
pub fn read(
    table: &Table,
    named: Option<&str>,
    report: &mut Report,
    visit: &mut dyn FnMut(&mut Report, usize, &PageText<'_>),
) -> Result<PageTextRead, InputError> {
    let header = table.header();
    let extractor = choose_extractor(header, named).ok_or_else(|| InputError::Role {
        path: table.source().path().to_path_buf(),
        message: match named {
            Some(n) => format!("no extractor column \"{n}\" in this Custom Extraction export"),
            None => "not a Custom Extraction export: expected an \"Address\" column and an extractor column such as \"Main Content 1\"".into(),
        },
    })?;
    let stats = report.file(table.name(), Role::PageText);
    let address_col = header.get(Col::Address);
    let xlsx = table.source().container() == Container::Xlsx;
    let mut out = PageTextRead {
        extractor: extractor.name.clone(),
        ..PageTextRead::default()
    };
    let mut joined = String::new();
    table.rows(report, stats, &mut |report, row, record: &Row<'_>| {
        let address = cell(record, address_col);
        if address.is_empty() {
            report.reject(
                stats,
                table.rejection(row, header.name(address_col.unwrap_or(0)), "no URL in this row", ""),
            );
            return;
        }
        if xlsx
            && let Some(&c) = extractor.columns.iter().find(|&&c| {
                record
                    .get(c)
                    .is_some_and(|t| t.chars().count() >= XLSX_CELL_LIMIT)
            })
        {
            out.truncated += 1;
            report.reject(
                stats,
                table.rejection(
                    row,
                    header.name(c),
                    format!(
                        "the page text is {XLSX_CELL_LIMIT} characters, Excel's cell limit: Excel cut it. Export this tab as CSV, which has no limit"
                    ),
                    address,
                ),
            );
            return;
        }
        let text = join_cells(record, &extractor.columns, &mut joined);
        if text.is_empty() {
            out.empty += 1;
            report.skip(stats, "no page text (expected on redirects and errors)");
            return;
        }
        // linkgap's page-text snippet says so when a page has no main content: that page
        // has no text, not one block holding the message.
        if text.starts_with(SNIPPET_ERROR) {
            out.empty += 1;
            report.skip(stats, "no page text (the snippet found no text content)");
            return;
        }
        out.pages += 1;
        let page = PageText {
            row,
            address,
            text,
            format: TextFormat::sniff(text),
        };
        visit(report, stats, &page);
    })?;
    Ok(out)
}

/// The extractor's cells of one row: the only non-empty one borrowed, several joined into
/// `buffer` with a newline.
fn join_cells<'a>(record: &Row<'a>, columns: &[usize], buffer: &'a mut String) -> &'a str {
    let mut filled = columns
        .iter()
        .map(|&c| record.get(c).map_or("", str::trim))
        .filter(|t| !t.is_empty());
    let Some(first) = filled.next() else {
        return "";
    };
    let Some(second) = filled.next() else {
        return first;
    };
    buffer.clear();
    buffer.push_str(first);
    buffer.push('\n');
    buffer.push_str(second);
    for t in filled {
        buffer.push('\n');
        buffer.push_str(t);
    }
    buffer.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use csv::StringRecord;
    use std::io::Write;

    fn header(fields: &[&str]) -> Header {
        Header::from_record(1, &StringRecord::from(fields.to_vec())).unwrap()
    }

    #[test]
    fn finds_extractors_by_their_numbered_columns() {
        let h = header(&[
            "Address",
            "Status Code",
            "Status",
            "Author 1",
            "Main Content 1",
            "Main Content 2",
        ]);
        let all = extractors(&h);
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].name, "Main Content");
        assert_eq!(all[1].columns, vec![4, 5]);
        assert!(is_page_text(&h));
        assert_eq!(choose_extractor(&h, None).unwrap().name, "Main Content");
        assert_eq!(
            choose_extractor(&h, Some("author 1")).unwrap().name,
            "Author"
        );
        assert!(choose_extractor(&h, Some("nope")).is_none());
    }

    #[test]
    fn other_exports_are_not_page_text() {
        let emb = header(&[
            "Address",
            "Status Code",
            "(ChatGPT) Extract embeddings from page content 1",
        ]);
        assert!(!is_page_text(&emb));
        let inl = header(&["Type", "Source", "Destination", "Anchor"]);
        assert!(!is_page_text(&inl));
        let internal = header(&["Address", "Indexability", "Title 1", "H1-1", "Word Count"]);
        assert!(!is_page_text(&internal));
    }

    #[test]
    fn sniffs_html_and_plain_text() {
        assert_eq!(TextFormat::sniff("<p>Hi</p>"), TextFormat::Html);
        assert_eq!(TextFormat::sniff("a < b and c > d"), TextFormat::Plain);
        assert_eq!(TextFormat::sniff("Just words.\n\nMore."), TextFormat::Plain);
    }

    #[test]
    fn streams_rows_and_counts_empty_cells() {
        let dir = std::env::temp_dir().join(format!("linkgap-page-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("custom_extraction_all.csv");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(
            "\u{FEFF}\"Address\",\"Status Code\",\"Status\",\"Main Content 1\",\"Main Content 2\"\n\
             \"https://e.com/a\",\"200\",\"OK\",\"<p>One, \"\"two\"\"</p>\",\"\"\n\
             \"https://e.com/old\",\"301\",\"Moved Permanently\",\"\",\"\"\n\
             \"https://e.com/b\",\"200\",\"OK\",\"<p>x</p>\",\"<p>y</p>\"\n\
             \"\",\"200\",\"OK\",\"<p>z</p>\",\"\"\n"
                .as_bytes(),
        )
        .unwrap();
        drop(f);
        let table = Table::open(&path).unwrap();
        assert!(table.roles().unwrap().contains(&Role::PageText));
        let mut report = Report::new();
        let mut seen = Vec::new();
        let read = read(&table, None, &mut report, &mut |report, stats, page| {
            report.stats(stats).used += 1;
            seen.push((page.row, page.address.to_string(), page.text.to_string()));
        })
        .unwrap();
        assert_eq!(read.pages, 2);
        assert_eq!(read.empty, 1);
        assert_eq!(
            seen,
            vec![
                (2, "https://e.com/a".into(), "<p>One, \"two\"</p>".into()),
                (4, "https://e.com/b".into(), "<p>x</p>\n<p>y</p>".into()),
            ]
        );
        let stats = &report.files()[0];
        assert_eq!(stats.read, 4);
        assert_eq!(stats.used + stats.skipped_total() + stats.rejected, 4);
        assert_eq!(report.rejections()[0].row, 5);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_xlsx_cell_cut_by_excel_is_reported_not_read() {
        let dir = std::env::temp_dir().join(format!("linkgap-page-xlsx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("custom_extraction_all.xlsx");
        let mut wb = rust_xlsxwriter::Workbook::new();
        let ws = wb.add_worksheet();
        for (c, h) in ["Address", "Status Code", "Status", "Main Content 1"]
            .iter()
            .enumerate()
        {
            ws.write_string(0, c as u16, *h).unwrap();
        }
        ws.write_string(1, 0, "https://e.com/long").unwrap();
        ws.write_string(1, 3, "<p>".to_string() + &"x".repeat(XLSX_CELL_LIMIT - 3))
            .unwrap();
        ws.write_string(2, 0, "https://e.com/short").unwrap();
        ws.write_string(2, 3, "<p>short</p>").unwrap();
        wb.save(&path).unwrap();
        let table = Table::open(&path).unwrap();
        let mut report = Report::new();
        let mut seen = Vec::new();
        let read = read(&table, None, &mut report, &mut |_, _, page| {
            seen.push(page.address.to_string());
        })
        .unwrap();
        assert_eq!(seen, vec!["https://e.com/short".to_string()]);
        assert_eq!(read.truncated, 1);
        let r = &report.rejections()[0];
        assert_eq!((r.row, r.column.as_str()), (2, "Main Content 1"));
        assert!(r.problem.contains("CSV"), "{}", r.problem);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
