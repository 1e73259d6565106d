//! Rejected Rows: every input row linkgap could not use, with file, sheet, row, the page the
//! row is about, column, the problem and the value. All of them: a long list continues in
//! "Rejected Rows (2)" like every sheet over Excel's row limit.

use crate::report::{Rejection, Report};
use crate::workbook::{Cell, Column, Sheet};

/// The sheet's columns; its rows come from [`rows`].
pub(in crate::run) fn header() -> Sheet {
    let columns = vec![
        Column::new("File", 30.0),
        Column::new("Sheet", 14.0),
        Column::new("Row", 8.0),
        Column::new("URL", 50.0),
        Column::new("Column", 30.0),
        Column::wrapped("Problem", 60.0),
        Column::wrapped("Value", 60.0),
    ];
    Sheet::new("Rejected Rows", columns)
}

/// Every rejection, by file and row, built as it is written.
pub(in crate::run) fn rows(report: &Report) -> impl ExactSizeIterator<Item = Vec<Cell>> + '_ {
    let mut rejections: Vec<&Rejection> = report.rejections().iter().collect();
    rejections.sort_by(|a, b| (&a.file, a.row).cmp(&(&b.file, b.row)));
    rejections.into_iter().map(|r| {
        vec![
            Cell::text(&r.file),
            Cell::text(r.sheet.clone().unwrap_or_default()),
            Cell::Int(r.row as i64),
            Cell::text(&r.url),
            Cell::text(&r.column),
            Cell::text(&r.problem),
            Cell::text(&r.value),
        ]
    })
}
