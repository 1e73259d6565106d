//! An earlier workbook's review, read back: the Queue (every part past Excel's row limit)
//! and History rows with everything a person typed, the columns they added, rows whose URLs
//! Excel cut, and the check that the review belongs to this site.

use std::collections::HashMap;
use std::path::Path;

use rust_xlsxwriter::column_number_to_name;

use crate::input::{InputError, Table};
use crate::normalize::{Rules, normalize};
use crate::report::Report;

use super::{Candidate, QUEUE_COLUMNS, Review};

/// The sheet of an earlier workbook a row was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The Queue (or one of its continuations, "Queue (2)", ...).
    Queue,
    /// The History sheet.
    History,
}

/// A Queue row of an earlier workbook.
#[derive(Debug, Clone)]
pub struct PreviousRow {
    /// Normalized source URL.
    pub source: String,
    /// Normalized destination URL.
    pub destination: String,
    /// What the person typed.
    pub review: Review,
    /// Fingerprints then.
    pub source_fingerprint: String,
    /// See `source_fingerprint`.
    pub destination_fingerprint: String,
    /// Similarity then, as written.
    pub similarity: String,
    /// Which sheet of the earlier workbook it came from.
    pub origin: Origin,
    /// A note from the History sheet it came from.
    pub note: String,
    /// The Source or Destination URL cell was cut at Excel's cell limit, so `source` and
    /// `destination` are the cells as written, not normalized URLs: the row is matched to a
    /// pair by the cut text and the fingerprints.
    pub cut: bool,
}

/// The Queue and History rows of an earlier workbook, and the columns a person added.
#[derive(Debug, Clone, Default)]
pub struct Previous {
    /// Every row, Queue parts first.
    pub rows: Vec<PreviousRow>,
    /// Columns that are not linkgap's (e.g. a reviewer's "Notes"), in the order they first
    /// appear; they are written after the known columns of the new Queue and History.
    pub added_columns: Vec<String>,
}

/// Whether `name` is a column linkgap writes in the Queue or History (the others were
/// added by a person and are carried).
fn is_linkgap_column(name: &str) -> bool {
    let name = name.trim();
    QUEUE_COLUMNS
        .iter()
        .any(|(n, _, _)| n.eq_ignore_ascii_case(name))
        || name.eq_ignore_ascii_case("Note")
        || crate::input::internal::Signal::ALL.iter().any(|s| {
            name.strip_prefix("Destination ")
                .is_some_and(|rest| rest.eq_ignore_ascii_case(s.label()))
        })
}

/// A cell [`crate::workbook`] had to cut at Excel's limit: ending in "…", the limit long in
/// UTF-16 units, or one short (a character of two units did not fit before the "…").
fn is_cut(text: &str) -> bool {
    let max = crate::workbook::MAX_CELL_CHARS;
    // Bytes are never fewer than UTF-16 units: most cells are passed over uncounted.
    text.ends_with('…')
        && text.len() >= max - 1
        && (max - 1..=max).contains(&text.encode_utf16().count())
}

/// Why an earlier Queue row whose URLs do not parse is rejected.
const NOT_A_PAIR: &str =
    "the source or destination is not a URL; this row's review cannot be matched to a page pair";

/// Read the Queue and History sheets of an earlier workbook (XLSX as linkgap, Excel,
/// LibreOffice or Google Sheets saved it, or the Queue.csv of `--csv-dir`).
pub fn read_previous(
    path: &Path,
    rules: &Rules,
    report: &mut Report,
) -> Result<Previous, InputError> {
    // A Queue past Excel's row limit continues in "Queue (2)", ...: every part is read.
    let mut previous = Previous::default();
    for part in crate::input::Source::sheet_parts(path, "Queue")? {
        read_sheet(path, &part, Origin::Queue, rules, report, &mut previous)?;
    }
    let is_xlsx = crate::input::Source::open(path)?.container() == crate::input::Container::Xlsx;
    if is_xlsx {
        for part in crate::input::Source::sheet_parts(path, "History")? {
            // A workbook without History (a first run) is normal; one with it is read whole.
            if Table::open_sheet(path, &part).is_ok() {
                read_sheet(path, &part, Origin::History, rules, report, &mut previous)?;
            }
        }
    }
    Ok(previous)
}

fn read_sheet(
    path: &Path,
    sheet: &str,
    origin: Origin,
    rules: &Rules,
    report: &mut Report,
    previous: &mut Previous,
) -> Result<(), InputError> {
    let table = Table::open_sheet(path, sheet)?;
    let h = table.header();
    // Columns a person added: carried by name, an unnamed one by its letter.
    let added: Vec<(usize, String)> = h
        .names
        .iter()
        .enumerate()
        .filter(|(_, n)| !is_linkgap_column(n))
        .map(|(i, n)| {
            let name = if n.trim().is_empty() {
                format!(
                    "Column {}",
                    column_number_to_name(u16::try_from(i).unwrap_or(u16::MAX))
                )
            } else {
                n.trim().to_string()
            };
            (i, name)
        })
        .collect();
    for (_, name) in &added {
        if !previous.added_columns.contains(name) {
            previous.added_columns.push(name.clone());
        }
    }
    let col = |name: &str| h.find(name);
    let (Some(src), Some(dst)) = (col("Source URL"), col("Destination URL")) else {
        return Err(InputError::Role {
            path: path.to_path_buf(),
            message: format!(
                "sheet \"{sheet}\" has no \"Source URL\" and \"Destination URL\" columns"
            ),
        });
    };
    let cols = [
        col("Passage"),
        col("Reviewer"),
        col("Decision"),
        col("Decision Date"),
        col("State"),
        col("Change Date"),
        col("Reason"),
        col("Source Fingerprint"),
        col("Destination Fingerprint"),
        col("Similarity"),
        col("Note"),
    ];
    let stats = report.file(
        &format!("{} ({sheet})", table.name()),
        crate::report::Role::Review,
    );
    let out = &mut previous.rows;
    table.rows(report, stats, &mut |report, row, r| {
        let get = |i: Option<usize>| crate::input::cell(r, i).to_string();
        let (raw_source, raw_destination) = (get(Some(src)), get(Some(dst)));
        // A URL cut at Excel's cell limit no longer normalizes to its page: it is kept as
        // written and matched by that text and the fingerprints.
        let cut = is_cut(&raw_source) || is_cut(&raw_destination);
        let pair = if cut {
            Ok((raw_source.clone(), raw_destination.clone()))
        } else {
            normalize(&raw_source, rules).and_then(|s| Ok((s, normalize(&raw_destination, rules)?)))
        };
        let Ok((source, destination)) = pair else {
            report.reject(
                stats,
                table.rejection(
                    row,
                    "Source URL",
                    NOT_A_PAIR,
                    &format!("{raw_source} → {raw_destination}"),
                ),
            );
            return;
        };
        let review = Review {
            passage: get(cols[0]),
            reviewer: get(cols[1]),
            decision: get(cols[2]),
            decision_date: get(cols[3]),
            state: get(cols[4]),
            change_date: get(cols[5]),
            reason: get(cols[6]),
            added: added
                .iter()
                .map(|(i, name)| (name.clone(), get(Some(*i))))
                .filter(|(_, v)| !v.trim().is_empty())
                .collect(),
        };
        // A value that is not a decision is listed, and the row kept with its text: nothing a
        // person typed is lost, and nothing is read as a decision they did not make.
        match review.invalid() {
            Some(bad) => {
                let value = bad.text.clone();
                report.reject(
                    stats,
                    table.rejection(row, bad.column, bad.to_string(), &value),
                );
            }
            None => report.stats(stats).used += 1,
        }
        out.push(PreviousRow {
            source,
            destination,
            review,
            source_fingerprint: get(cols[7]),
            destination_fingerprint: get(cols[8]),
            similarity: get(cols[9]),
            origin,
            note: get(cols[10]),
            cut,
        });
    })?;
    Ok(())
}

/// Below this share of earlier rows naming a page of this crawl, an earlier review is taken
/// for another site's: carrying it (or verifying it) would move every decision to History or
/// report every page gone, with no warning.
const FOREIGN_REVIEW_SHARE: f64 = 0.05;
/// An earlier review this small is judged by no share (a few gone pages are normal).
const FOREIGN_REVIEW_MIN_ROWS: usize = 20;

/// `Err((rows naming a known page, rows))` when almost no (source, destination) row of an
/// earlier review names a page that `known` recognises.
pub fn foreign_review_check<'a>(
    rows: impl Iterator<Item = (&'a str, &'a str)>,
    known: &dyn Fn(&str) -> bool,
) -> Result<(), (usize, usize)> {
    let (mut total, mut hits) = (0, 0);
    for (source, destination) in rows {
        total += 1;
        hits += usize::from(known(source) || known(destination));
    }
    if total >= FOREIGN_REVIEW_MIN_ROWS && (hits as f64) < FOREIGN_REVIEW_SHARE * total as f64 {
        Err((hits, total))
    } else {
        Ok(())
    }
}

/// The earlier row, cut at Excel's cell limit, that stands for candidate `c`: the one whose
/// cut URLs are `c`'s as written and, among several, whose fingerprints are `c`'s.
pub(super) fn take_cut(
    by_cut: &mut HashMap<(String, String), Vec<PreviousRow>>,
    c: &Candidate,
) -> Option<PreviousRow> {
    let max = crate::workbook::MAX_CELL_CHARS;
    let key = (
        crate::workbook::cut(&c.source, max).into_owned(),
        crate::workbook::cut(&c.destination, max).into_owned(),
    );
    let rows = by_cut.get_mut(&key)?;
    let at = rows
        .iter()
        .position(|p| {
            p.source_fingerprint == *c.source_fingerprint
                && p.destination_fingerprint == *c.destination_fingerprint
        })
        .unwrap_or(0);
    let p = rows.swap_remove(at);
    if rows.is_empty() {
        by_cut.remove(&key);
    }
    Some(p)
}
