//! Fixture helpers: a scratch folder per test, Screaming Frog-format writers, the binary,
//! and a workbook reader.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use calamine::{Data, Reader, open_workbook_auto};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A scratch folder, removed when the test passes.
pub struct Workdir {
    pub dir: PathBuf,
}

impl Workdir {
    pub fn new(name: &str) -> Workdir {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("linkgap-it-{}-{name}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Workdir { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Write rows as Screaming Frog does: BOM, every field quoted, LF.
    pub fn write_sf_csv(&self, name: &str, header: &[&str], rows: &[Vec<String>]) -> PathBuf {
        self.write(name, sf_csv(header, rows))
    }

    /// Run the binary with `args` from this folder.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_linkgap"))
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap()
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub fn sf_csv(header: &[&str], rows: &[Vec<String>]) -> Vec<u8> {
    let mut out = String::from("\u{FEFF}");
    let q = |f: &str| format!("\"{}\"", f.replace('"', "\"\""));
    out.push_str(&header.iter().map(|h| q(h)).collect::<Vec<_>>().join(","));
    out.push('\n');
    for r in rows {
        out.push_str(&r.iter().map(|f| q(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out.into_bytes()
}

pub fn vector_text(v: &[f32]) -> String {
    let mut s = String::new();
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{x}");
    }
    s
}

pub const EMB_HEADER: &[&str] = &[
    "Address",
    "Content Type",
    "Status Code",
    "Status",
    "(ChatGPT) Extract embeddings from page content 1",
];
pub const INLINKS_HEADER: &[&str] = &linkgap::synthetic::INLINKS_HEADER;

pub fn emb_row(url: &str, cell: &str) -> Vec<String> {
    vec![
        url.into(),
        "text/html; charset=utf-8".into(),
        "200".into(),
        "OK".into(),
        cell.into(),
    ]
}

/// A hyperlink row. `position` is the Link Position; `follow` the Follow flag.
pub fn link_row(
    kind: &str,
    src: &str,
    dst: &str,
    position: &str,
    path: &str,
    follow: bool,
) -> Vec<String> {
    [
        kind,
        src,
        dst,
        "0",
        "",
        "anchor",
        "200",
        "OK",
        if follow { "true" } else { "false" },
        "",
        "",
        "Absolute",
        path,
        position,
        "HTML",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect()
}

/// A sheet as strings (numbers in Rust's shortest form), header first.
pub fn sheet(path: &Path, name: &str) -> Vec<Vec<String>> {
    let mut wb = open_workbook_auto(path).unwrap();
    let range = wb
        .worksheet_range(name)
        .unwrap_or_else(|e| panic!("sheet {name}: {e}"));
    range
        .rows()
        .map(|r| {
            r.iter()
                .map(|c| match c {
                    Data::Float(f) => f.to_string(),
                    Data::Int(i) => i.to_string(),
                    Data::String(s) => s.clone(),
                    Data::Bool(b) => b.to_string(),
                    Data::Empty => String::new(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

pub fn sheet_names(path: &Path) -> Vec<String> {
    open_workbook_auto(path).unwrap().sheet_names()
}

/// Rows of a sheet as maps from header to value.
pub fn records(path: &Path, name: &str) -> Vec<std::collections::HashMap<String, String>> {
    let rows = sheet(path, name);
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.iter().cloned().chain(std::iter::repeat(String::new())))
                .collect()
        })
        .collect()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
