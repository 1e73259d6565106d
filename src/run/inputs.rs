//! Opening the run's input tables, their checksums and the crawl date the exports carry.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::config::Inputs;
use crate::crawl::CrawlDate;
use crate::input::Table;
use crate::input::embeddings::Embeddings;
use crate::input::internal::Internal;

/// Size and SHA-256 of each input file, or why they could not be computed.
pub(super) type Digests = Vec<(PathBuf, FileDigest)>;

/// A file's size and SHA-256 (hex), or why it could not be read.
pub(super) type FileDigest = io::Result<(u64, String)>;

/// The input tables, open and with their headers read.
pub(super) struct Tables {
    pub(super) embeddings: Table,
    pub(super) inlinks: Table,
    /// Internal: All, given or found in the embeddings export itself.
    pub(super) internal: Option<Table>,
    /// Every input file, for the checksums.
    paths: Vec<PathBuf>,
}

impl Tables {
    /// Open every input.
    pub(super) fn open(inputs: &Inputs) -> Result<Tables> {
        let embeddings = Table::open(&inputs.embeddings).with_context(|| {
            format!(
                "reading the embeddings export {}",
                inputs.embeddings.display()
            )
        })?;
        let inlinks = Table::open(&inputs.inlinks).with_context(|| {
            format!(
                "reading the All Inlinks export {}",
                inputs.inlinks.display()
            )
        })?;
        let internal_path = inputs.internal.clone().or_else(|| {
            embeddings
                .header()
                .is_internal()
                .then(|| inputs.embeddings.clone())
        });
        let internal = internal_path
            .as_ref()
            .map(|p| {
                Table::open(p)
                    .with_context(|| format!("reading the Internal: All export {}", p.display()))
            })
            .transpose()?;
        let mut paths: Vec<PathBuf> = vec![inputs.embeddings.clone(), inputs.inlinks.clone()];
        paths.extend(inputs.internal.clone());
        paths.extend(inputs.page_text.clone());
        Ok(Tables {
            embeddings,
            inlinks,
            internal,
            paths,
        })
    }

    /// The tables and the files to checksum, apart.
    pub(super) fn split(self) -> ([Option<Table>; 3], Vec<PathBuf>) {
        (
            [Some(self.embeddings), Some(self.inlinks), self.internal],
            self.paths,
        )
    }
}

/// Checksum `paths` on a thread of their own, and on a second thread too once `widen` says
/// so. The run starts it with the workbook stage, one file at a time beside the filling of
/// the sheets, and widens it when the Run sheet is the one thing left before the save: the
/// save (one core's work) can then start while a long Queue is still being filled and
/// compressed on the other core, instead of both waiting for the last file. (Hashing beside
/// the parsing of the embeddings had taken a fifth of that stage's samples.) Largest first,
/// so the last file hashed is a small one.
pub(super) fn checksum(paths: Vec<PathBuf>, widen: Receiver<()>) -> JoinHandle<Digests> {
    std::thread::spawn(move || {
        let mut queue: Vec<usize> = (0..paths.len()).collect();
        // Popped from the end: the largest last in the vector.
        queue.sort_by_key(|&i| std::fs::metadata(&paths[i]).map_or(0, |m| m.len()));
        let queue = Mutex::new(queue);
        let done: Mutex<Vec<Option<FileDigest>>> = Mutex::new(paths.iter().map(|_| None).collect());
        let hash_all = || {
            while let Some(i) = queue.lock().ok().and_then(|mut q| q.pop()) {
                let digest = file_digest(&paths[i]);
                if let Ok(mut d) = done.lock() {
                    d[i] = Some(digest);
                }
            }
        };
        std::thread::scope(|scope| {
            let hash_all = &hash_all;
            scope.spawn(move || {
                if widen.recv().is_ok() {
                    hash_all();
                }
            });
            hash_all();
        });
        let done = done.into_inner().unwrap_or_default();
        paths
            .into_iter()
            .zip(done)
            .map(|(p, d)| {
                let d = d.unwrap_or_else(|| Err(io::Error::other("not checksummed")));
                (p, d)
            })
            .collect()
    })
}

/// Wait for the checksums (empty if their thread died).
pub(super) fn digests(checksums: JoinHandle<Digests>) -> Digests {
    checksums.join().unwrap_or_default()
}

/// The crawl date: Internal: All's timestamp wins over the embeddings export's; else the
/// All Inlinks file's date.
pub(super) fn crawl_date(
    emb: &Embeddings,
    internal: Option<&Internal>,
    inlinks: &Path,
) -> CrawlDate {
    CrawlDate::of(
        [
            internal.and_then(|i| i.crawl_timestamp.as_deref()),
            emb.crawl_timestamp.as_deref(),
        ],
        inlinks,
    )
}

fn file_digest(path: &Path) -> io::Result<(u64, String)> {
    use std::fmt::Write;
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    let mut hex = String::with_capacity(64);
    for b in hasher.finalize() {
        let _ = write!(hex, "{b:02x}");
    }
    Ok((size, hex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_come_back_in_the_files_order_however_many_threads_hash_them() {
        let dir = std::env::temp_dir().join(format!("linkgap-sums-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Sizes out of order, so hashing the largest first reorders the work.
        let files = [
            ("b.csv", "abc".repeat(1_000)),
            ("a.csv", "abc".into()),
            ("c.csv", String::new()),
        ];
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|(name, text)| {
                let path = dir.join(name);
                std::fs::write(&path, text).unwrap();
                path
            })
            .collect();
        for widened in [false, true] {
            let (wide, widen) = std::sync::mpsc::channel();
            let handle = checksum(paths.clone(), widen);
            if widened {
                wide.send(()).unwrap();
            } else {
                drop(wide);
            }
            let sums = digests(handle);
            assert_eq!(
                sums.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
                paths
            );
            let got: Vec<(u64, String)> = sums.into_iter().map(|(_, d)| d.unwrap()).collect();
            assert_eq!(got[0].0, 3_000);
            assert_eq!(
                got[1],
                (
                    3,
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into()
                )
            );
            assert_eq!(
                got[2],
                (
                    0,
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into()
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
