//! The run's sheets, one module each, in the order docs/method.md describes them: each builds
//! a [`crate::workbook::Sheet`] (or its rows, for the sheets that run to millions of rows) from
//! the run's results; the generic writer knows no sheet.

pub(super) mod near_duplicates;
pub(super) mod opportunities;
pub(super) mod pages;
pub(super) mod rejected;
pub(super) mod run_info;
pub(super) mod summary;

use std::time::SystemTime;

use crate::workbook::Cell;

fn yes_no(ok: bool) -> Cell {
    Cell::text(if ok { "yes" } else { "no" })
}

fn now_utc() -> String {
    crate::dates::format_time(SystemTime::now())
}
