//! The per-client status file (`INBOX/<client>/.linkgap-status`: last run, result, detail)
//! and the `linkgap watch --status` table built from it and from the folders.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use super::layout::{self, FAILED, PROCESSED, WORK_DIR};
use crate::input::is_export_name;

/// The status file's name inside a client folder.
pub const FILE: &str = ".linkgap-status";

/// A client's last result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// When the set finished (UTC, ISO 8601).
    pub time: String,
    /// `ok` or `failed`.
    pub result: String,
    /// Workbook name, or the first line of the error.
    pub detail: String,
}

/// Record a set's result (temp file and rename, so a reader never sees half of it).
pub fn write(client_dir: &Path, result: &str, detail: &str) -> io::Result<()> {
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let text = format!(
        "time={}\nresult={}\ndetail={}\n",
        super::iso_time(SystemTime::now()),
        one_line(result),
        one_line(detail)
    );
    let tmp = client_dir.join(format!("{FILE}.tmp"));
    fs::write(&tmp, text)?;
    fs::rename(&tmp, client_dir.join(FILE))
}

/// A client's last result, if it has one.
pub fn read(client_dir: &Path) -> Option<Record> {
    let text = fs::read_to_string(client_dir.join(FILE)).ok()?;
    let mut record = Record::default();
    for line in text.lines() {
        match line.split_once('=') {
            Some(("time", v)) => record.time = v.to_string(),
            Some(("result", v)) => record.result = v.to_string(),
            Some(("detail", v)) => record.detail = v.to_string(),
            _ => {}
        }
    }
    Some(record)
}

/// The `--status` table: one line per client folder.
pub fn report(inbox: &Path) -> io::Result<String> {
    let mut clients: Vec<(String, std::path::PathBuf)> = fs::read_dir(inbox)?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    clients.sort();
    let mut rows = vec![[
        "CLIENT".to_string(),
        "LAST RUN".into(),
        "RESULT".into(),
        "WAITING".into(),
        "DETAIL".into(),
    ]];
    for (name, dir) in &clients {
        let record = read(dir);
        let waiting = layout::scan(dir).map_or(0, |files| {
            files.iter().filter(|f| is_export_name(&f.name)).count()
        });
        let in_work = count_dirs(&dir.join(WORK_DIR));
        let mut waiting = format!("{waiting} file(s)");
        if in_work > 0 {
            let _ = write!(waiting, ", {in_work} set(s) in progress or to recover");
        }
        let (time, result, detail) = match record {
            Some(r) => (r.time, r.result, r.detail),
            None => (
                "never".into(),
                "-".into(),
                format!(
                    "{} processed, {} failed",
                    count_dirs(&dir.join(PROCESSED)),
                    count_dirs(&dir.join(FAILED))
                ),
            ),
        };
        rows.push([name.clone(), time, result, waiting, detail]);
    }
    if clients.is_empty() {
        return Ok(format!(
            "{}: no client folders yet (make one folder per client)\n",
            inbox.display()
        ));
    }
    let widths: Vec<usize> = (0..4)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        for (c, w) in widths.iter().enumerate() {
            let _ = write!(out, "{:<w$}  ", r[c]);
        }
        out.push_str(&r[4]);
        out.push('\n');
    }
    Ok(out)
}

fn count_dirs(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .count()
    })
}
