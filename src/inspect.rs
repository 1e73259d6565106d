//! `linkgap inspect`: what linkgap makes of each export file, before a run: role and era,
//! header row, mapped columns, row counts, vector dimensions and the first problems.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use crate::input::columns::Col;
use crate::input::{Container, Table, TextEncoding, embeddings, inlinks, internal};
use crate::report::{Report, Role};

/// Problems listed per file.
const FIRST_PROBLEMS: usize = 5;

/// What `inspect` found in one file.
#[derive(Debug, Clone, Default)]
pub struct Description {
    /// The report for the terminal.
    pub text: String,
    /// Rows rejected.
    pub rejected: u64,
    /// The file could not be read (missing, a directory, not a table): `inspect` exits 2.
    pub failed: bool,
}

/// Describe one file.
pub fn describe(path: &Path, embedding_column: Option<&str>) -> Description {
    let mut d = Description::default();
    let out = &mut d.text;
    let _ = writeln!(out, "{}", path.display());
    let table = match Table::open(path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "  error: {e}");
            d.failed = true;
            return d;
        }
    };
    describe_header(out, &table);
    let roles = match table.roles() {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "  error: {e}");
            d.failed = true;
            return d;
        }
    };
    let role_names: Vec<String> = roles.iter().map(ToString::to_string).collect();
    let _ = writeln!(
        out,
        "  role: {}",
        if roles.is_empty() {
            "none recognised".to_string()
        } else {
            role_names.join(" + ")
        }
    );
    let _ = writeln!(out, "  era: {}", era(&table));
    let mapped: Vec<String> = table
        .header()
        .mapped()
        .iter()
        .map(|(c, n)| format!("{c:?}=\"{n}\""))
        .collect();
    let _ = writeln!(
        out,
        "  columns mapped ({} of {}): {}",
        mapped.len(),
        table.header().names.len(),
        mapped.join(", ")
    );

    let mut report = Report::new();
    let mut ok = true;
    if roles.contains(&Role::Inlinks) {
        ok &= describe_inlinks(out, &table, &mut report);
    }
    if roles.contains(&Role::Embeddings) {
        ok &= describe_embeddings(out, &table, embedding_column, &mut report);
    }
    if roles.contains(&Role::Internal) && !roles.contains(&Role::Embeddings) {
        ok &= describe_internal(out, &table, &mut report);
    }
    d.failed = !ok;
    d.rejected = describe_rows(out, &report);
    d
}

fn describe_header(out: &mut String, table: &Table) {
    let header = table.header();
    let _ = writeln!(
        out,
        "  container: {}{}",
        table.source().container().describe(),
        table
            .source()
            .sheet()
            .map(|s| format!(", sheet \"{s}\""))
            .unwrap_or_default()
    );
    if let Container::Csv { encoding, .. } = table.source().container() {
        let _ = writeln!(
            out,
            "  encoding: {}{}",
            encoding.name(),
            if encoding == TextEncoding::Windows1252 {
                " (not valid UTF-8 and no byte-order mark: an old Excel re-save)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        out,
        "  header row: {}{}",
        header.row,
        if header.row > 1 {
            " (title rows above it are skipped)"
        } else {
            ""
        }
    );
    if let Some(lang) = header.language {
        let _ = writeln!(out, "  language: {lang} (read through the alias table)");
    }
}

/// Link types and positions. False when the file could not be read to the end.
fn describe_inlinks(out: &mut String, table: &Table, report: &mut Report) -> bool {
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let mut positions: BTreeMap<String, u64> = BTreeMap::new();
    let result = inlinks::read(table, report, &mut |report, stats, link| {
        *kinds.entry(link.type_text.to_string()).or_default() += 1;
        if link.kind == inlinks::LinkKind::Hyperlink {
            *positions.entry(link.position.to_string()).or_default() += 1;
        }
        report.stats(stats).used += 1;
    });
    let ok = match result {
        Ok(()) => true,
        Err(e) => {
            let _ = writeln!(out, "  error: {e}");
            false
        }
    };
    let _ = writeln!(out, "  link types: {}", join_counts(&kinds));
    let _ = writeln!(out, "  hyperlink positions: {}", join_counts(&positions));
    ok
}

/// The vector column, dimension and spread of lengths.
fn describe_embeddings(
    out: &mut String,
    table: &Table,
    embedding_column: Option<&str>,
    report: &mut Report,
) -> bool {
    let e = match embeddings::read(table, embedding_column, report) {
        Ok(e) => e,
        Err(err) => {
            let _ = writeln!(out, "  error: {err}");
            return false;
        }
    };
    let _ = writeln!(
        out,
        "  vector column: \"{}\" ({})",
        e.column,
        e.choice.map_or("", |c| c.describe())
    );
    let _ = writeln!(
        out,
        "  vectors: {} valid, dimension {}{}",
        e.vectors(),
        e.dim,
        e.model
            .as_ref()
            .map(|m| format!(", model {m}"))
            .unwrap_or_default()
    );
    let mut lengths: BTreeMap<String, u64> = BTreeMap::new();
    for p in &e.pages {
        let key = match (&p.vector, &p.problem) {
            (Some(_), _) => format!("{} values", e.dim),
            (None, Some(problem)) if problem.contains("values") => problem
                .split(':')
                .nth(1)
                .unwrap_or(problem)
                .trim()
                .to_string(),
            _ => "no vector".into(),
        };
        *lengths.entry(key).or_default() += 1;
    }
    let _ = writeln!(out, "  dimension spread: {}", join_counts(&lengths));
    true
}

fn describe_internal(out: &mut String, table: &Table, report: &mut Report) -> bool {
    match internal::read(table, report) {
        Ok(i) => {
            let html = i
                .urls
                .iter()
                .filter(|u| embeddings::is_html(&u.content_type))
                .count();
            let _ = writeln!(
                out,
                "  URLs: {} ({html} HTML){}",
                i.urls.len(),
                i.crawl_timestamp
                    .map(|t| format!(", crawled {t}"))
                    .unwrap_or_default()
            );
            true
        }
        Err(e) => {
            let _ = writeln!(out, "  error: {e}");
            false
        }
    }
}

/// Row counts per file and the first problems. Returns the rows rejected.
fn describe_rows(out: &mut String, report: &Report) -> u64 {
    let mut rejected = 0;
    for s in report.files() {
        let _ = writeln!(
            out,
            "  rows: {} read, {} skipped, {} rejected",
            s.read,
            s.skipped_total(),
            s.rejected
        );
        for (reason, n) in &s.skipped {
            let _ = writeln!(out, "    skipped {n}: {reason}");
        }
        rejected += s.rejected;
    }
    for r in report.rejections().iter().take(FIRST_PROBLEMS) {
        let _ = writeln!(
            out,
            "  problem: row {}, column \"{}\": {}",
            r.row, r.column, r.problem
        );
    }
    if report.rejections().len() > FIRST_PROBLEMS {
        let _ = writeln!(
            out,
            "  ... and {} more problems",
            report.rejections().len() - FIRST_PROBLEMS
        );
    }
    rejected
}

fn join_counts(counts: &BTreeMap<String, u64>) -> String {
    if counts.is_empty() {
        return "none".into();
    }
    counts
        .iter()
        .map(|(k, n)| format!("{} {n}", if k.is_empty() { "(empty)" } else { k }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Screaming Frog era a header belongs to, from the columns that come and go.
fn era(table: &Table) -> String {
    let h = table.header();
    let n = h.names.len();
    if h.is_inlinks() {
        let has = |name: &str| h.find(name).is_some();
        return if has("Crawlability") {
            format!("v24+ All Inlinks ({n} columns, with Crawlability)")
        } else if has("Link Position") {
            format!("2022–2024 All Inlinks ({n} columns)")
        } else if h.row > 1 {
            format!("2017–2019 All Inlinks/Outlinks with a title row ({n} columns)")
        } else {
            format!("older All Inlinks/Outlinks ({n} columns)")
        };
    }
    if h.is_internal() {
        let modern = h.find("Crawl Timestamp").is_some() || h.find("Indexability").is_some();
        return format!(
            "{} Internal export ({n} columns)",
            if modern { "modern (2018+)" } else { "older" }
        );
    }
    if h.get(Col::Address).is_some() {
        return format!("URL table ({n} columns)");
    }
    format!("{n} columns")
}
