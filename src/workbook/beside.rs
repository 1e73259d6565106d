//! Filling a sheet's parts on two threads: the parts are jobs that a second thread takes
//! one after another while the calling thread does its own work ([`beside`]), then helps
//! with the parts left; each part's rows are built a batch ahead of their writing
//! ([`built_ahead`]). What a part is filled into is the main workbook's worksheet or a
//! package of its own ([`Target`]).

use rust_xlsxwriter::{Worksheet, XlsxError};

use super::files::CsvSheet;
use super::{Cell, Fill, Sheet, stream, without_write_panics};

/// One part of a sheet to fill: where, its rows, and its CSV.
pub(super) type Job<'a, B> = (Target<'a>, Option<B>, &'a mut Option<CsvSheet>);

/// The jobs of a sheet's parts, each with its rows and CSV, to be popped first part first.
pub(super) fn jobs<'a, B>(
    targets: Vec<Target<'a>>,
    rows: Vec<B>,
    csvs: &'a mut [Option<CsvSheet>],
) -> std::sync::Mutex<Vec<Job<'a, B>>> {
    let mut jobs: Vec<Job<'a, B>> = targets
        .into_iter()
        .zip(
            rows.into_iter()
                .map(Some)
                .chain(std::iter::repeat_with(|| None)),
        )
        .zip(csvs.iter_mut())
        .map(|((target, rows), csv)| (target, rows, csv))
        .collect();
    jobs.reverse();
    std::sync::Mutex::new(jobs)
}

/// Fill the parts in `jobs` (popped from the end) on a second thread while this one does
/// `mine`, then help with the parts left. After an error the other thread stops at its next
/// part: the workbook is abandoned.
pub(super) fn beside<B>(
    to: Fill<'_>,
    sheet: &Sheet,
    jobs: &std::sync::Mutex<Vec<Job<'_, B>>>,
    mine: impl FnOnce() -> Result<(), XlsxError>,
) -> Result<(), XlsxError>
where
    B: Iterator<Item = Vec<Cell>> + Send,
{
    let stop = || {
        if let Ok(mut j) = jobs.lock() {
            j.clear();
        }
    };
    std::thread::scope(|scope| {
        let take_parts = || -> Result<(), XlsxError> {
            loop {
                let job = jobs.lock().map_or(None, |mut j| j.pop());
                let Some((target, rows, csv)) = job else {
                    return Ok(());
                };
                let mut rows = built_ahead(scope, rows.into_iter().flatten());
                let filled = without_write_panics(|| match target {
                    Target::Worksheet(ws) => to
                        .fill(std::slice::from_mut(ws), sheet, rows.by_ref(), csv)
                        .map(|_| ()),
                    Target::Part(part) => part.fill(to, sheet, &mut rows, csv).map(|_| ()),
                })
                .and_then(|()| {
                    // A part longer than a worksheet (not one of `parts`) loses no row
                    // silently.
                    if rows.next().is_some() {
                        return Err(XlsxError::RowColumnLimitError);
                    }
                    Ok(())
                });
                if filled.is_err() {
                    stop();
                    return filled;
                }
            }
        };
        let other = scope.spawn(take_parts);
        let mine = mine().and_then(|()| take_parts()).inspect_err(|_| stop());
        let theirs = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        mine.and(theirs)
    })
}

/// Where one part of a sheet is filled.
pub(super) enum Target<'a> {
    /// A worksheet of the main workbook.
    Worksheet(&'a mut Worksheet),
    /// A package of its own.
    Part(&'a mut stream::Part),
}

/// Rows [`built_ahead`] builds before the writer asks for them, a batch at a time.
const ROWS_AHEAD: usize = 1024;

/// `rows`, built on a thread of `scope` a batch or two ahead of the thread that writes them:
/// building a Queue row (its texts copied, its cells made) then overlaps with writing the
/// rows before it, which is one core's work in `rust_xlsxwriter`. The rows come in order; if
/// the writer stops early, the builder stops at its next batch.
fn built_ahead<'scope, I>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    rows: I,
) -> impl Iterator<Item = Vec<Cell>> + use<'scope, I>
where
    I: Iterator<Item = Vec<Cell>> + Send + 'scope,
{
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Vec<Cell>>>(2);
    scope.spawn(move || {
        let mut rows = rows;
        loop {
            let batch: Vec<Vec<Cell>> = rows.by_ref().take(ROWS_AHEAD).collect();
            if batch.is_empty() || tx.send(batch).is_err() {
                break;
            }
        }
    });
    rx.into_iter().flatten()
}
