//! Rejected Rows: every input row linkgap could not use, with file, sheet, row, column, the
//! problem and the value.

use crate::report::Report;
use crate::workbook::{Cell, Column, Sheet};

pub(in crate::run) fn sheet(report: &Report) -> Sheet {
    let columns = vec![
        Column::new("File", 30.0),
        Column::new("Sheet", 14.0),
        Column::new("Row", 8.0),
        Column::new("Column", 30.0),
        Column::wrapped("Problem", 60.0),
        Column::wrapped("Value", 60.0),
    ];
    let mut sheet = Sheet::new("Rejected Rows", columns);
    let mut rejections: Vec<_> = report.rejections().iter().collect();
    rejections.sort_by(|a, b| (&a.file, a.row).cmp(&(&b.file, b.row)));
    for r in rejections {
        sheet.rows.push(vec![
            Cell::text(&r.file),
            Cell::text(r.sheet.clone().unwrap_or_default()),
            Cell::Int(r.row as i64),
            Cell::text(&r.column),
            Cell::text(&r.problem),
            Cell::text(&r.value),
        ]);
    }
    if report.rejections_dropped() > 0 {
        sheet.rows.push(vec![
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::text(format!(
                "… and {} more rejected rows not listed",
                report.rejections_dropped()
            )),
            Cell::Empty,
        ]);
    }
    sheet
}
