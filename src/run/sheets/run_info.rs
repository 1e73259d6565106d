//! Run: the run record — inputs with checksums, the model, every setting, row counts per file,
//! stage times and peak memory — so a workbook says how it was made.

use crate::config::RunConfig;
use crate::input::Table;
use crate::input::embeddings::Embeddings;
use crate::links::LinkSet;
use crate::report::Report;
use crate::workbook::{Cell, Column, Sheet};

use super::super::analysis::Counts;
use super::super::clock::Stages;
use super::super::inputs::Digests;
use super::now_utc;
use crate::crawl::CrawlDate;

/// Everything the Run sheet records.
pub(in crate::run) struct RunRecord<'a> {
    pub(in crate::run) config: &'a RunConfig,
    pub(in crate::run) report: &'a Report,
    pub(in crate::run) emb: &'a Embeddings,
    pub(in crate::run) crawl_date: &'a CrawlDate,
    pub(in crate::run) digests: &'a Digests,
    pub(in crate::run) links: &'a LinkSet,
    pub(in crate::run) counts: &'a Counts,
    pub(in crate::run) clock: &'a Stages,
    pub(in crate::run) tables: &'a [Option<Table>],
    /// How the neighbours were searched.
    pub(in crate::run) search: &'a str,
    /// The Queue's budget, the ranking's self-check and the passages, in words.
    pub(in crate::run) ranking: [&'a str; 3],
}

type Rows = Vec<(String, String)>;

fn kv(rows: &mut Rows, k: &str, v: String) {
    rows.push((k.to_string(), v));
}

/// One row per input: path, size, checksum and how it was read.
fn inputs(rows: &mut Rows, r: &RunRecord<'_>) {
    let config = r.config;
    let mut roles = vec![
        ("embeddings", Some(&config.inputs.embeddings)),
        ("All Inlinks", Some(&config.inputs.inlinks)),
        ("Internal: All", config.inputs.internal.as_ref()),
    ];
    if config.inputs.page_text.is_some() {
        roles.push(("page text", config.inputs.page_text.as_ref()));
    }
    for (role, path) in roles {
        let Some(path) = path else {
            kv(rows, &format!("Input: {role}"), "not given".into());
            continue;
        };
        let digest = r.digests.iter().find(|(p, _)| p == path).map(|(_, d)| d);
        let detail = match digest {
            Some(Ok((size, sha))) => format!("{size} bytes, SHA-256 {sha}"),
            Some(Err(e)) => format!("checksum failed: {e}"),
            None => String::new(),
        };
        let table = r
            .tables
            .iter()
            .flatten()
            .find(|t| t.source().path() == path.as_path());
        let format = table
            .map(|t| {
                format!(
                    "; {}, header on row {}",
                    t.source().container().describe(),
                    t.header().row
                )
            })
            .unwrap_or_default();
        kv(
            rows,
            &format!("Input: {role}"),
            format!("{} ({detail}{format})", path.display()),
        );
    }
}

/// The model, the search and the link rules.
fn method(rows: &mut Rows, r: &RunRecord<'_>) {
    let (config, emb) = (r.config, r.emb);
    let choice = emb.choice.map_or("", |c| c.describe());
    kv(
        rows,
        "Embedding column",
        format!("{} ({choice})", emb.column),
    );
    kv(
        rows,
        "Embedding model",
        emb.model
            .clone()
            .unwrap_or_else(|| "not recorded in the export".into()),
    );
    kv(rows, "Embedding dimension", emb.dim.to_string());
    kv(rows, "Top k", config.top_k.to_string());
    kv(rows, "Similarity search", r.search.to_string());
    kv(
        rows,
        "Ranking",
        "score = similarity + 0.5 if the destination links to the source + 0.25 ln(1 + pages the source links to that link to the destination) + 0.25 ln(1 + the destination's 10 most similar pages the source links to); pages with more than 200 body links are never the page in between".into(),
    );
    kv(rows, "Queue budget", r.ranking[0].to_string());
    kv(rows, "Ranking self-check", r.ranking[1].to_string());
    kv(rows, "Suggested passages", r.ranking[2].to_string());
    kv(
        rows,
        "Near-duplicate threshold",
        format!("{:.2}", config.near_duplicate),
    );
    kv(
        rows,
        "Body link positions",
        config.link_rules.body_positions.join(", "),
    );
    let rules = &config.link_rules;
    let templates = if rules.template_share > 0.0 {
        format!(
            "a Content link whose Link Path and destination repeat on at least {} linking pages ({}% of them, minimum {}) is a template link; {} links in {} blocks reclassified",
            r.links.template_floor,
            rules.template_share * 100.0,
            rules.template_min_pages,
            r.links.reclassified,
            r.links.reclassified_blocks
        )
    } else {
        "off".into()
    };
    kv(rows, "Template blocks", templates);
    for (k, v) in config
        .url_rules
        .describe()
        .into_iter()
        .chain(config.eligibility.describe())
    {
        kv(rows, &k, v);
    }
}

/// Rows read, used, skipped and rejected per file; neighbour pairs by status.
fn counts(rows: &mut Rows, r: &RunRecord<'_>) {
    for s in r.report.files() {
        let skipped = if s.skipped.is_empty() {
            String::new()
        } else {
            let reasons: Vec<String> = s.skipped.iter().map(|(r, n)| format!("{n} {r}")).collect();
            format!(" ({})", reasons.join("; "))
        };
        let roles: Vec<String> = s.roles.iter().map(ToString::to_string).collect();
        kv(
            rows,
            &format!("Rows: {} ({})", s.file, roles.join(", ")),
            format!(
                "read {}, used {}, skipped {}{skipped}, rejected {}",
                s.read,
                s.used,
                s.skipped_total(),
                s.rejected
            ),
        );
    }
    for (status, n) in &r.counts.by_status {
        kv(
            rows,
            &format!("Neighbour pairs: {}", status.label()),
            n.to_string(),
        );
    }
    kv(
        rows,
        "Link opportunities (Queue rows)",
        r.counts.opportunities.to_string(),
    );
}

const CAVEAT: &str = "Similarity finds candidate pages; it is not a promise of rankings. People decide which links to add and where.";

pub(in crate::run) fn sheet(r: &RunRecord<'_>) -> Sheet {
    let mut rows: Rows = Vec::new();
    kv(&mut rows, "Client", r.config.client.clone());
    kv(&mut rows, "Run date", now_utc());
    kv(&mut rows, "Crawl date", r.crawl_date.to_string());
    kv(
        &mut rows,
        "Tool version",
        format!("linkgap {}", env!("CARGO_PKG_VERSION")),
    );
    inputs(&mut rows, r);
    method(&mut rows, r);
    counts(&mut rows, r);
    for ((stage, seconds), peak) in r.clock.laps.iter().zip(&r.clock.peaks) {
        let peak = peak
            .map(|mib| format!(", peak memory so far {mib} MiB"))
            .unwrap_or_default();
        kv(
            &mut rows,
            &format!("Time: {stage}"),
            format!("{seconds:.2} s{peak}"),
        );
    }
    for note in r.report.notes() {
        kv(&mut rows, "Note", note.clone());
    }
    kv(&mut rows, "Caveat", CAVEAT.into());
    let mut sheet = Sheet::new(
        "Run",
        vec![Column::new("Key", 42.0), Column::wrapped("Value", 110.0)],
    );
    sheet.key_value = true;
    sheet.rows = rows
        .into_iter()
        .map(|(k, v)| vec![Cell::text(k), Cell::text(v)])
        .collect();
    sheet
}
