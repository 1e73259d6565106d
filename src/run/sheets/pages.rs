//! Pages: every URL as written in an export, the page it resolves to, and whether it can carry
//! or receive a link, with the reason for every "no".

use std::collections::{BTreeMap, HashMap};

use crate::crawl::Crawl;
use crate::eligibility::Exclusion;
use crate::languages::Languages;
use crate::normalize::identity::Via;
use crate::workbook::{Cell, Column, Sheet};

use super::super::pages::{InventoryRow, Page};
use super::yes_no;

const NOT_A_URL: &str = "not an absolute http(s) URL";

fn columns() -> Vec<Column> {
    vec![
        Column::new("URL", 60.0),
        Column::new("Resolved URL", 60.0),
        Column::new("Status Code", 8.0),
        Column::new("Indexability", 14.0),
        Column::new("Has Vector", 8.0),
        Column::new("Eligible", 8.0),
        Column::wrapped("Reason", 40.0),
        Column::new("Source Eligible", 9.0),
        Column::wrapped("Source Reason", 30.0),
        Column::new("Destination Eligible", 11.0),
        Column::wrapped("Destination Reason", 30.0),
        Column::new("Body Inlinks", 9.0),
        Column::new("Group", 16.0),
    ]
}

pub(in crate::run) fn sheet(
    inventory: &[InventoryRow],
    pages: &BTreeMap<u32, Page>,
    crawl: &Crawl,
    group_of: &HashMap<u32, String>,
    languages: &Languages,
) -> Sheet {
    let urls = &crawl.urls;
    let body = crawl.links.body_sources();
    // A Language column only when some page's language is known, so a crawl without one
    // gives the same sheet as before languages were read.
    let with_language = !languages.of.is_empty();
    let mut columns = columns();
    if with_language {
        columns.push(Column::new("Language", 9.0));
    }
    let mut sheet = Sheet::new("Pages", columns);
    for row in inventory {
        let Some(id) = row.id else {
            sheet.rows.push(vec![
                Cell::text(&row.written),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                yes_no(false),
                yes_no(false),
                Cell::text(NOT_A_URL),
                yes_no(false),
                Cell::text(NOT_A_URL),
                yes_no(false),
                Cell::text(NOT_A_URL),
                Cell::Empty,
                Cell::Empty,
            ]);
            if with_language && let Some(r) = sheet.rows.last_mut() {
                r.push(Cell::Empty);
            }
            continue;
        };
        let (f, via) = crawl.resolved[id as usize];
        let page = pages.get(&f);
        let identity_reason = match via {
            Via::Itself => row.note.clone().map(Exclusion::Variant),
            Via::Redirect => Some(Exclusion::Redirect(urls.url(f).to_string())),
            Via::Canonical => Some(Exclusion::Canonicalised(urls.url(f).to_string())),
            Via::Loop => Some(Exclusion::Loop),
            Via::TooLong => Some(Exclusion::TooLong(crate::normalize::identity::MAX_HOPS)),
        };
        let (source, destination) = match (&identity_reason, page) {
            (Some(why), _) => (Err(why.clone()), Err(why.clone())),
            (None, Some(p)) => (p.decision.source.clone(), p.decision.destination.clone()),
            (None, None) => (Err(Exclusion::NotEmbedded), Err(Exclusion::NotEmbedded)),
        };
        let eligible = source.is_ok() || destination.is_ok();
        let reason = match (&source, &destination) {
            (Err(a), Err(b)) if a == b => a.to_string(),
            (Err(a), Err(b)) => format!("source: {a}; destination: {b}"),
            (Err(a), Ok(())) => format!("destination only; source: {a}"),
            (Ok(()), Err(b)) => format!("source only; destination: {b}"),
            (Ok(()), Ok(())) => String::new(),
        };
        let facts = page.map(|p| &p.facts);
        sheet.rows.push(vec![
            Cell::Url(row.written.clone()),
            Cell::Url(urls.url(f).to_string()),
            facts
                .and_then(|f| f.status_code)
                .map_or(Cell::Empty, |c| Cell::Int(i64::from(c))),
            Cell::text(
                facts
                    .and_then(|f| f.indexability.clone())
                    .unwrap_or_default(),
            ),
            yes_no(page.is_some_and(|p| p.vector.is_some()) && via == Via::Itself),
            yes_no(eligible),
            Cell::text(reason),
            yes_no(source.is_ok()),
            Cell::text(source.err().map(|e| e.to_string()).unwrap_or_default()),
            yes_no(destination.is_ok()),
            Cell::text(destination.err().map(|e| e.to_string()).unwrap_or_default()),
            Cell::Int(body.of(f).len() as i64),
            Cell::text(group_of.get(&f).cloned().unwrap_or_default()),
        ]);
        if with_language && let Some(r) = sheet.rows.last_mut() {
            r.push(Cell::text(languages.language(f)));
        }
    }
    sheet
}
