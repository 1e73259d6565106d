//! Opportunities: the Moz-style view, one row per target with the pages that link to it in
//! the body and its most similar pages, each with its link status.

use crate::links::BodyInlinks;
use crate::workbook::{Cell, Column, ColumnStyle, Sheet};

use super::super::analysis::Analysis;

/// The sheet's columns; its rows come from [`rows`].
pub(in crate::run) fn header(analysis: &Analysis<'_>) -> Sheet {
    let k = analysis.config.top_k;
    let mut columns = vec![
        Column::new("Target URL", 45.0),
        Column::new("Links to Target URL", 45.0),
    ];
    for i in 1..=k {
        columns.push(Column::new(format!("Related URL {i}"), 45.0));
        columns.push(Column::styled(
            format!("Similarity {i}"),
            10.0,
            ColumnStyle::Percent,
        ));
        columns.push(Column::new(format!("Link Status {i}"), 19.0));
    }
    columns.push(Column::new("Body Inlinks", 12.0));
    Sheet::new("Opportunities", columns)
}

/// One row per target, built as it is written: a million-page site's sheet never sits in
/// memory whole.
pub(in crate::run) fn rows<'b>(
    analysis: &'b Analysis<'_>,
    body: &'b BodyInlinks,
) -> impl Iterator<Item = Vec<Cell>> + 'b {
    let k = analysis.config.top_k;
    analysis
        .targets
        .iter()
        .zip(analysis.found)
        .map(move |(t, neighbours)| {
            let mut linking: Vec<&str> =
                body.of(*t).iter().map(|&s| analysis.urls.url(s)).collect();
            linking.sort_unstable();
            let mut row = vec![
                Cell::Url(analysis.urls.url(*t).to_string()),
                Cell::text(list_urls(&linking)),
            ];
            for n in neighbours {
                let source = analysis.page_id(n.id);
                row.push(Cell::Url(analysis.url(n.id).to_string()));
                row.push(Cell::Percent(f64::from(n.score)));
                row.push(Cell::Status(analysis.status(source, *t, n.score)));
            }
            row.resize(2 + 3 * k, Cell::Empty);
            row.push(Cell::Int(linking.len() as i64));
            row
        })
}

/// Linking pages as one cell: comma-separated like the Moz sheet, capped well under Excel's
/// cell limit.
fn list_urls(urls: &[&str]) -> String {
    use std::fmt::Write;
    const MAX_LISTED: usize = 50;
    if urls.is_empty() {
        return "none".into();
    }
    let mut out = urls
        .iter()
        .take(MAX_LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if urls.len() > MAX_LISTED {
        let _ = write!(out, ", … (+{} more)", urls.len() - MAX_LISTED);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::list_urls;

    #[test]
    fn linking_list_is_capped() {
        let many: Vec<String> = (0..60).map(|i| format!("https://a/{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(list_urls(&refs).ends_with("(+10 more)"));
        assert_eq!(list_urls(&[]), "none");
    }
}
