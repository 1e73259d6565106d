//! Opening the run's input tables, their checksums and the crawl date the exports carry.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::config::Inputs;
use crate::crawl::CrawlDate;
use crate::input::Table;
use crate::input::embeddings::Embeddings;
use crate::input::internal::Internal;

/// Size and SHA-256 of each input file, or why they could not be computed.
pub(super) type Digests = Vec<(PathBuf, io::Result<(u64, String)>)>;

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

/// Checksum `paths` on a thread of their own, once `start` says go (or its senders are all
/// gone). The run starts it in the workbook stage when a filling thread has no sheet left to
/// fill, so hashing gigabytes takes the core that thread frees: hashing beside the parsing
/// of the embeddings took a fifth of that stage's samples, and beside the two sheets' fills
/// it slowed both. The files are hashed side by side on the rayon pool (no sheet is filled
/// on it): the Run sheet, and so the saving of the workbook, waits for the last one, and
/// hashing them one after another on one core had become the stage's tail once the anchors
/// left the Queue's fill. Until that fill ends the two hashing threads share the cores with
/// it (measured only together with stop 32's other changes, docs/performance.md).
pub(super) fn checksum(paths: Vec<PathBuf>, start: Receiver<()>) -> JoinHandle<Digests> {
    std::thread::spawn(move || {
        // Err: every sender was dropped, e.g. a sheet failed; hash anyway, the run may still
        // want the Run sheet.
        let _ = start.recv();
        paths
            .par_iter()
            .map(|p| (p.clone(), file_digest(p)))
            .collect::<Vec<_>>()
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
