//! The files a workbook writes besides itself: each sheet's CSV (`--csv-dir`), and the
//! temporary names the workbook and its CSVs are written under until they are published
//! together, removed on an error, a failed part or Ctrl-C.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use super::{Cell, Sheet};

/// Temporary files being written, removed if the process is interrupted.
static TEMPORARY: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

pub(super) fn track(tmp: &Path) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.push(tmp.to_path_buf());
    }
}

pub(super) fn untrack(tmp: &Path) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.retain(|p| p != tmp);
    }
}

/// On Ctrl-C or SIGTERM, remove the temporary files of workbooks and CSVs being written and
/// exit (130, or 143 for SIGTERM), instead of leaving `.name.xlsx.<pid>.tmp` files behind. A
/// thread polls the signal flags: the write itself may be inside a long compression step.
pub fn clean_up_on_signals() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let int = Arc::new(AtomicBool::new(false));
    let term = Arc::new(AtomicBool::new(false));
    let registered = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&int))
        .and_then(|_| signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&term)));
    if registered.is_err() {
        return;
    }
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let (i, t) = (int.load(Ordering::Relaxed), term.load(Ordering::Relaxed));
            if i || t {
                if let Ok(files) = TEMPORARY.lock() {
                    for f in files.iter() {
                        let _ = fs::remove_file(f);
                    }
                }
                eprintln!("linkgap: interrupted; nothing was written");
                std::process::exit(if t { 143 } else { 130 });
            }
        }
    });
}

/// A temporary file: tracked for Ctrl-C, and removed when dropped, so an error or a panic on
/// the way leaves nothing behind (once renamed to its final name, there is nothing left to
/// remove).
pub(super) struct Temporary(PathBuf);

impl Temporary {
    pub(super) fn new(path: PathBuf) -> Temporary {
        track(&path);
        Temporary(path)
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
        untrack(&self.0);
    }
}

pub(super) fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(
        || "workbook.xlsx".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// `<dir>/<sheet>.csv` being written: a temporary name until finished.
pub(super) struct CsvSheet {
    writer: csv::Writer<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl CsvSheet {
    pub(super) fn create(dir: &Path, sheet: &Sheet) -> io::Result<CsvSheet> {
        let path = dir.join(format!("{}.csv", sheet.name));
        let tmp = temp_path(&path);
        track(&tmp);
        let writer = csv::Writer::from_writer(BufWriter::new(File::create(&tmp)?));
        // Made first, so a failed header leaves no file behind (the drop removes it).
        let mut csv = CsvSheet { writer, tmp, path };
        csv.writer
            .write_record(sheet.columns.iter().map(|c| c.name.as_str()))?;
        Ok(csv)
    }

    /// The rows of part `k` of a sheet (no header), to be [`append`](Self::append)ed.
    pub(super) fn continuation(dir: &Path, sheet: &Sheet, k: usize) -> io::Result<CsvSheet> {
        let path = dir.join(format!("{}.csv", sheet.name));
        let tmp = temp_path(&dir.join(format!("{}.part{k}.csv", sheet.name)));
        track(&tmp);
        let writer = csv::Writer::from_writer(BufWriter::new(File::create(&tmp)?));
        Ok(CsvSheet { writer, tmp, path })
    }

    /// Append a [`continuation`](Self::continuation)'s rows; dropping it removes its file.
    pub(super) fn append(&mut self, mut part: CsvSheet) -> io::Result<()> {
        part.writer.flush()?;
        self.writer.flush()?;
        // Both buffers are empty: the part's bytes go straight to the file, after the rows
        // already written, and later rows follow them.
        let mut file: &File = self.writer.get_ref().get_ref();
        io::copy(&mut File::open(&part.tmp)?, &mut file)?;
        Ok(())
    }

    pub(super) fn write(&mut self, row: &[Cell]) -> io::Result<()> {
        Ok(self.writer.write_record(row.iter().map(Cell::csv_text))?)
    }

    /// Flush; the file keeps its temporary name until the workbook is published.
    pub(super) fn finish(mut self) -> io::Result<(PathBuf, PathBuf)> {
        self.writer.flush()?;
        // Taken, so the drop below leaves the file to the workbook writer.
        Ok((
            std::mem::take(&mut self.tmp),
            std::mem::take(&mut self.path),
        ))
    }
}

impl Drop for CsvSheet {
    /// A CSV dropped before it is finished (an error on the way, or a part appended to its
    /// sheet's CSV) leaves no file behind.
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.tmp);
            untrack(&self.tmp);
        }
    }
}
