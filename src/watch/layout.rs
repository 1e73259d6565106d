//! The watch folder's layout: the names of the folders and files linkgap keeps in a client
//! folder (claimed sets, the journal, `processed/`, `failed/`) and what a scan of it sees.

use std::fs;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use crate::input::is_hidden_name;

/// Claimed sets, one folder each, inside the client folder.
pub const WORK_DIR: &str = ".linkgap-work";
/// The journal inside a claimed set's folder.
pub const JOURNAL: &str = ".linkgap-journal";
/// Where used exports go.
pub const PROCESSED: &str = "processed";
/// Where exports that could not be used go, with [`ERROR_FILE`].
pub const FAILED: &str = "failed";
/// The explanation left with a failed set.
pub const ERROR_FILE: &str = "error.txt";

/// A file as seen in a client folder: what "stopped changing" compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// File name (no folder).
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since 1970.
    pub modified: u128,
}

impl FileStamp {
    pub(super) fn of(path: &Path, name: String) -> io::Result<FileStamp> {
        let meta = fs::metadata(path)?;
        let modified = meta
            .modified()?
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(FileStamp {
            name,
            size: meta.len(),
            modified,
        })
    }
}

/// The visible files of a client folder, by name. Hidden files (our journal and status),
/// Excel lock files (`~$…`) and folders are not part of any set.
pub fn scan(dir: &Path) -> io::Result<Vec<FileStamp>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        // A name that is not UTF-8 or has a line break could not be written to the journal.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if is_hidden_name(&name) || name.contains(['\n', '\r']) {
            continue;
        }
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        match FileStamp::of(&path, name) {
            Ok(stamp) => files.push(stamp),
            // Removed between listing and looking: the next scan will not list it either.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}
