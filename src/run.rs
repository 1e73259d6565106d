//! `linkgap run`: the pipeline from exports to workbook. Input → normalize (identity) →
//! eligibility → neighbours → links → workbook, each stage in its own module; this one only
//! wires them together and keeps the books (every row used or reported).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::config::RunConfig;
use crate::eligibility::{self, Decision, PageFacts};
use crate::input::embeddings::{self, Embeddings};
use crate::input::internal::{self, Internal};
use crate::input::{Table, inlinks};
use crate::links::{LinkCollector, LinkSet, LinkStatus};
use crate::neighbors::{self, Matrix, Neighbor};
use crate::normalize::identity::{Edges, UrlTable, Via, resolve_all};
use crate::normalize::{Rules, normalize};
use crate::progress::Progress;
use crate::report::{Report, Role};
use crate::workbook::{self, Cell, Column, Sheet};

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Input rows rejected (exit code 1 when non-zero).
    pub rejected: u64,
    /// One-line summary for stderr.
    pub summary: String,
    /// The crawl date the exports carry (first ten characters of the latest Crawl Timestamp
    /// of Internal: All or the AI tab), if any. `linkgap watch` names workbooks by it.
    pub crawl_date: Option<String>,
}

/// A page of the analysis: a resolved URL that the embeddings export or Internal: All names.
#[derive(Debug, Clone)]
struct Page {
    /// Row of the embeddings matrix.
    vector: Option<u32>,
    /// URL id whose row supplied the vector.
    vector_from: Option<u32>,
    facts: PageFacts,
    decision: Decision,
}

/// One row of the Pages sheet: a URL as written in an export.
#[derive(Debug)]
struct InventoryRow {
    written: String,
    id: Option<u32>,
    note: Option<String>,
}

/// Run the pipeline and write the workbook.
pub fn run(config: &RunConfig) -> Result<Outcome> {
    let started = Instant::now();
    let progress = Progress::new(config.quiet);
    let mut report = Report::new();
    let inputs = &config.inputs;

    let emb_table = Table::open(&inputs.embeddings).with_context(|| {
        format!(
            "reading the embeddings export {}",
            inputs.embeddings.display()
        )
    })?;
    let inl_table = Table::open(&inputs.inlinks).with_context(|| {
        format!(
            "reading the All Inlinks export {}",
            inputs.inlinks.display()
        )
    })?;
    let internal_path = inputs.internal.clone().or_else(|| {
        emb_table
            .header()
            .is_internal()
            .then(|| inputs.embeddings.clone())
    });
    let int_table = internal_path
        .as_ref()
        .map(|p| {
            Table::open(p)
                .with_context(|| format!("reading the Internal: All export {}", p.display()))
        })
        .transpose()?;

    // Checksums run on their own thread while the main one parses.
    let mut paths: Vec<PathBuf> = vec![inputs.embeddings.clone(), inputs.inlinks.clone()];
    paths.extend(inputs.internal.clone());
    let hashing = std::thread::spawn(move || {
        paths
            .iter()
            .map(|p| (p.clone(), file_digest(p)))
            .collect::<Vec<_>>()
    });

    let rules = &config.url_rules;
    let mut urls = UrlTable::default();
    let mut edges = Edges::default();
    let mut inventory: Vec<InventoryRow> = Vec::new();

    // Internal: All — facts per URL, redirects and canonicals.
    let mut crawled: HashMap<u32, usize> = HashMap::new();
    let internal = match &int_table {
        Some(t) => {
            report.set_ticker(Some(progress.rows("Reading Internal: All")));
            let internal =
                internal::read(t, &mut report).with_context(|| format!("reading {}", t.name()))?;
            let stats = report.file(t.name(), Role::Internal);
            for (i, u) in internal.urls.iter().enumerate() {
                let Ok(norm) = normalize(&u.url, rules) else {
                    report.skip(stats, "URL cannot be normalized");
                    continue;
                };
                report.stats(stats).used += 1;
                let id = urls.intern(&norm);
                // Spellings that normalize alike (an upper-case host that 301s to the lower-case
                // one) are one URL: the row that served the page (200) speaks for it.
                match crawled.get(&id) {
                    Some(&j)
                        if internal.urls[j].status_code == Some(200)
                            || u.status_code != Some(200) => {}
                    _ => {
                        crawled.insert(id, i);
                    }
                }
                if u.status_code.is_some_and(|c| (300..400).contains(&c))
                    && let Some(to) = absolute(&u.url, &u.redirect, rules)
                {
                    let to = urls.intern(&to);
                    if to != id {
                        edges.redirect.insert(id, to);
                    }
                }
                if let Some(canonical) = absolute(&u.url, &u.canonical, rules) {
                    let c = urls.intern(&canonical);
                    if c != id {
                        edges.canonical.insert(id, c);
                    }
                }
            }
            Some(internal)
        }
        None => None,
    };

    // Embeddings.
    report.set_ticker(Some(progress.rows("Reading embeddings")));
    let emb = embeddings::read(&emb_table, config.embedding_column.as_deref(), &mut report)
        .with_context(|| format!("reading {}", emb_table.name()))?;
    if emb.vectors() == 0 {
        anyhow::bail!(
            "{}: no valid vectors in column \"{}\"; see the rejected rows with `linkgap inspect`",
            emb.file,
            emb.column
        );
    }
    let emb_stats = report.file(&emb.file, Role::Embeddings);
    let emb_ids: Vec<Option<u32>> = emb
        .pages
        .iter()
        .map(|p| normalize(&p.url, rules).ok().map(|n| urls.intern(&n)))
        .collect();

    // All Inlinks, streamed.
    report.set_ticker(Some(progress.rows("Reading All Inlinks")));
    let mut collector = LinkCollector::new();
    inlinks::read(&inl_table, &mut report, &mut |report, stats, link| {
        collector.add(link, &mut urls, rules, &config.link_rules, report, stats);
    })
    .with_context(|| format!("reading {}", inl_table.name()))?;
    report.set_ticker(None);
    for &(from, to) in &collector.redirects {
        // Internal: All is the better witness of where a URL redirects; inlinks only fill gaps.
        edges.redirect.entry(from).or_insert(to);
    }

    // Identity: every URL to the page it stands for.
    let resolved = resolve_all(urls.len(), &edges);
    let links = collector.finish(&resolved, &config.link_rules);

    // Pages and their vectors: the canonical page's own vector wins over a variant's.
    let mut pages: BTreeMap<u32, Page> = BTreeMap::new();
    let mut row_notes: Vec<Option<String>> = vec![None; emb.pages.len()];
    let mut first_row_of: HashMap<u32, usize> = HashMap::new();
    for (i, (p, id)) in emb.pages.iter().zip(&emb_ids).enumerate() {
        let Some(u) = *id else {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL cannot be normalized");
            }
            continue;
        };
        let (f, via) = resolved[u as usize];
        if let Some(&first) = first_row_of.get(&u) {
            row_notes[i] = Some(format!(
                "same URL as row {} after normalization",
                emb.pages[first].row
            ));
        } else {
            first_row_of.insert(u, i);
        }
        if matches!(via, Via::Loop | Via::TooLong) {
            if p.vector.is_some() {
                report.skip(emb_stats, "URL's redirects or canonicals loop");
            }
            continue;
        }
        let page = pages.entry(f).or_insert_with(|| Page {
            vector: None,
            vector_from: None,
            facts: PageFacts::default(),
            decision: ok_decision(),
        });
        if let Some(v) = p.vector {
            let replace = page.vector.is_none() || (u == f && page.vector_from != Some(f));
            if replace {
                page.vector = Some(v);
                page.vector_from = Some(u);
            }
        }
    }
    // Count vector rows once the winners are known.
    for (p, id) in emb.pages.iter().zip(&emb_ids) {
        let (Some(v), Some(u)) = (p.vector, *id) else {
            continue;
        };
        let f = resolved[u as usize].0;
        if pages.get(&f).is_some_and(|pg| pg.vector == Some(v)) {
            report.stats(emb_stats).used += 1;
        } else if pages.contains_key(&f) {
            report.skip(emb_stats, "another row's vector stands for the same page");
        }
    }

    // Facts: Internal: All for the resolved page, else the embeddings export's own columns.
    for (&f, page) in &mut pages {
        if let (Some(internal), Some(&i)) = (&internal, crawled.get(&f)) {
            let u = &internal.urls[i];
            page.facts = PageFacts {
                status_code: u.status_code,
                content_type: Some(u.content_type.clone()).filter(|s| !s.is_empty()),
                indexability: Some(u.indexability.clone()).filter(|s| !s.is_empty()),
                indexability_status: u.indexability_status.clone(),
                meta_robots: u.meta_robots.clone(),
                word_count: u.word_count,
                no_vector: None,
            };
        } else if let Some(&i) = first_row_of.get(&f) {
            let p = &emb.pages[i];
            page.facts = PageFacts {
                status_code: p.status_code,
                content_type: p.content_type.clone(),
                indexability: p.indexability.clone(),
                ..PageFacts::default()
            };
        }
        if page.vector.is_none() {
            let why = first_row_of
                .get(&f)
                .and_then(|&i| emb.pages[i].problem.clone())
                .unwrap_or_else(|| "no vector (no row in the embeddings export)".into());
            page.facts.no_vector = Some(why);
        }
        page.decision = eligibility::decide(urls.url(f), &page.facts, &config.eligibility);
    }

    // Inventory rows: every URL of the embeddings export, then Internal: All URLs not in it.
    for ((p, id), note) in emb.pages.iter().zip(&emb_ids).zip(row_notes) {
        inventory.push(InventoryRow {
            written: p.url.clone(),
            id: *id,
            note,
        });
    }
    if let Some(internal) = &internal {
        for u in &internal.urls {
            let id = normalize(&u.url, rules).ok().and_then(|n| urls.get(&n));
            if id.is_some_and(|id| first_row_of.contains_key(&id)) {
                continue;
            }
            inventory.push(InventoryRow {
                written: u.url.clone(),
                id,
                note: None,
            });
        }
    }

    // Neighbours: destinations against sources, ids in URL order for a deterministic tie-break.
    let mut order: Vec<u32> = pages
        .iter()
        .filter(|(_, p)| p.vector.is_some())
        .map(|(&f, _)| f)
        .collect();
    order.sort_by(|a, b| urls.url(*a).cmp(urls.url(*b)));
    let rank: HashMap<u32, u32> = order
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i as u32))
        .collect();
    let targets: Vec<u32> = order
        .iter()
        .copied()
        .filter(|f| pages[f].decision.destination.is_ok())
        .collect();
    let sources: Vec<u32> = order
        .iter()
        .copied()
        .filter(|f| pages[f].decision.source.is_ok())
        .collect();
    let search_started = Instant::now();
    let gather = |ids: &[u32]| -> Vec<f32> {
        let mut data = Vec::with_capacity(ids.len() * emb.dim);
        for f in ids {
            data.extend_from_slice(
                emb.vector(pages[f].vector.expect("ordered pages have vectors")),
            );
        }
        data
    };
    let (target_data, source_data) = (gather(&targets), gather(&sources));
    let target_ranks: Vec<u32> = targets.iter().map(|f| rank[f]).collect();
    let source_ranks: Vec<u32> = sources.iter().map(|f| rank[f]).collect();
    let found = neighbors::top_k(
        Matrix {
            data: &target_data,
            rows: targets.len(),
            dim: emb.dim,
        },
        &target_ranks,
        Matrix {
            data: &source_data,
            rows: sources.len(),
            dim: emb.dim,
        },
        &source_ranks,
        config.top_k,
    );
    drop((target_data, source_data));
    let search_time = search_started.elapsed();

    let analysis = Analysis {
        config,
        urls: &urls,
        order: &order,
        targets: &targets,
        found: &found,
        links: &links,
    };
    let mut sheets = vec![
        analysis.opportunities(),
        analysis.queue(),
        analysis.near_duplicates(),
    ];
    sheets.push(pages_sheet(&inventory, &resolved, &pages, &urls, &links));
    sheets.push(rejected_sheet(&report));
    let digests = hashing.join().unwrap_or_default();
    let counts = analysis.counts();
    let run_sheet = run_sheet(
        config,
        &report,
        &emb,
        internal.as_ref(),
        &digests,
        &links,
        &counts,
        search_time.as_secs_f64(),
        &[Some(&emb_table), Some(&inl_table), int_table.as_ref()],
    );
    sheets.push(run_sheet);

    workbook::write_xlsx(&config.out, &sheets)
        .with_context(|| format!("writing the workbook {}", config.out.display()))?;
    if let Some(dir) = &config.csv_dir {
        workbook::write_csv_dir(dir, &sheets)
            .with_context(|| format!("writing CSV files to {}", dir.display()))?;
    }
    let rejected = report.rejected_total();
    let summary = format!(
        "wrote {}: {} pages compared, {} link opportunities, {} near-duplicate pairs; {} input rows rejected{} ({:.1} s)",
        config.out.display(),
        order.len(),
        counts.opportunities,
        counts.near_duplicates,
        rejected,
        if rejected > 0 {
            " (see the Rejected Rows sheet)"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    let crawl_date = internal
        .as_ref()
        .and_then(|i| i.crawl_timestamp.clone())
        .or_else(|| emb.crawl_timestamp.clone())
        .map(|t| t.chars().take(10).collect());
    Ok(Outcome {
        rejected,
        summary,
        crawl_date,
    })
}

fn ok_decision() -> Decision {
    Decision {
        source: Ok(()),
        destination: Ok(()),
    }
}

/// Normalize `href` as written on page `base` (Screaming Frog writes absolute URLs; a
/// relative one is resolved the way a browser would).
fn absolute(base: &str, href: &str, rules: &Rules) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    normalize(href, rules).ok().or_else(|| {
        let joined = url::Url::parse(base.trim()).ok()?.join(href).ok()?;
        normalize(joined.as_str(), rules).ok()
    })
}

struct Counts {
    opportunities: usize,
    near_duplicates: usize,
    by_status: BTreeMap<LinkStatus, usize>,
}

struct Analysis<'a> {
    config: &'a RunConfig,
    urls: &'a UrlTable,
    order: &'a [u32],
    targets: &'a [u32],
    found: &'a [Vec<Neighbor>],
    links: &'a LinkSet,
}

impl Analysis<'_> {
    fn url(&self, rank: u32) -> &str {
        self.urls.url(self.order[rank as usize])
    }

    fn page_id(&self, rank: u32) -> u32 {
        self.order[rank as usize]
    }

    fn status(&self, source: u32, destination: u32, score: f32) -> LinkStatus {
        if score >= self.config.near_duplicate {
            LinkStatus::NearDuplicate
        } else {
            self.links.status(source, destination)
        }
    }

    fn opportunities(&self) -> Sheet {
        let k = self.config.top_k;
        let mut columns = vec![
            Column::new("Target URL", 60.0),
            Column::wrapped("Links to Target URL", 60.0),
        ];
        for i in 1..=k {
            columns.push(Column::new(format!("Related URL {i}"), 50.0));
            columns.push(Column::new(format!("Similarity {i}"), 11.0));
            columns.push(Column::new(format!("Link Status {i}"), 20.0));
        }
        columns.push(Column::new("Body Inlinks", 12.0));
        let mut sheet = Sheet::new("Opportunities", columns);
        let body = self.links.body_sources();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            let mut linking: Vec<&str> = body
                .get(t)
                .map(|v| v.iter().map(|&s| self.urls.url(s)).collect())
                .unwrap_or_default();
            linking.sort_unstable();
            let mut row = vec![
                Cell::Url(self.urls.url(*t).to_string()),
                Cell::text(list_urls(&linking)),
            ];
            for n in neighbours {
                let source = self.page_id(n.id);
                row.push(Cell::Url(self.url(n.id).to_string()));
                row.push(Cell::Percent(f64::from(n.score)));
                row.push(Cell::Status(self.status(source, *t, n.score)));
            }
            row.resize(2 + 3 * k, Cell::Empty);
            row.push(Cell::Int(linking.len() as i64));
            sheet.rows.push(row);
        }
        sheet
    }

    fn queue(&self) -> Sheet {
        let columns = vec![
            Column::new("Source URL", 55.0),
            Column::new("Destination URL", 55.0),
            Column::new("Similarity", 11.0),
            Column::new("Existing Link", 15.0),
            Column::wrapped("Passage", 50.0),
            Column::new("Reviewer", 14.0),
            Column::new("Decision", 11.0),
            Column::wrapped("Reason", 40.0),
        ];
        let mut sheet = Sheet::new("Queue", columns);
        sheet
            .dropdowns
            .push((6, vec!["accept".into(), "revise".into(), "reject".into()]));
        let mut rows: Vec<(f32, &str, &str, LinkStatus)> = Vec::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours {
                let status = self.status(self.page_id(n.id), *t, n.score);
                if status.is_opportunity() {
                    rows.push((n.score, self.url(n.id), self.urls.url(*t), status));
                }
            }
        }
        rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(b.2)).then(a.1.cmp(b.1)));
        for (score, source, destination, status) in rows {
            let existing = if status == LinkStatus::TemplateOnly {
                "template only"
            } else {
                "none"
            };
            sheet.rows.push(vec![
                Cell::Url(source.to_string()),
                Cell::Url(destination.to_string()),
                Cell::Percent(f64::from(score)),
                Cell::text(existing),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
            ]);
        }
        sheet
    }

    fn near_duplicates(&self) -> Sheet {
        let mut sheet = Sheet::new(
            "Near Duplicates",
            vec![
                Column::new("URL A", 60.0),
                Column::new("URL B", 60.0),
                Column::new("Similarity", 11.0),
            ],
        );
        let mut pairs: BTreeMap<(&str, &str), f32> = BTreeMap::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours
                .iter()
                .filter(|n| n.score >= self.config.near_duplicate)
            {
                let (a, b) = (self.urls.url(*t), self.url(n.id));
                pairs.insert(if a < b { (a, b) } else { (b, a) }, n.score);
            }
        }
        for ((a, b), score) in pairs {
            sheet.rows.push(vec![
                Cell::Url(a.into()),
                Cell::Url(b.into()),
                Cell::Percent(f64::from(score)),
            ]);
        }
        sheet
    }

    fn counts(&self) -> Counts {
        let mut by_status = BTreeMap::new();
        let mut near = std::collections::HashSet::new();
        for (t, neighbours) in self.targets.iter().zip(self.found) {
            for n in neighbours {
                let status = self.status(self.page_id(n.id), *t, n.score);
                *by_status.entry(status).or_insert(0) += 1;
                if status == LinkStatus::NearDuplicate {
                    let s = self.page_id(n.id);
                    near.insert(if s < *t { (s, *t) } else { (*t, s) });
                }
            }
        }
        let opportunities = by_status
            .iter()
            .filter(|(s, _)| s.is_opportunity())
            .map(|(_, n)| n)
            .sum();
        Counts {
            opportunities,
            near_duplicates: near.len(),
            by_status,
        }
    }
}

/// Linking pages as one cell: comma-separated like the Moz sheet, capped well under Excel's
/// cell limit.
fn list_urls(urls: &[&str]) -> String {
    use std::fmt::Write;
    const MAX_LISTED: usize = 50;
    if urls.is_empty() {
        return "none".into();
    }
    let mut out = urls
        .iter()
        .take(MAX_LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if urls.len() > MAX_LISTED {
        let _ = write!(out, ", … (+{} more)", urls.len() - MAX_LISTED);
    }
    out
}

fn yes_no(ok: bool) -> Cell {
    Cell::text(if ok { "yes" } else { "no" })
}

fn pages_sheet(
    inventory: &[InventoryRow],
    resolved: &[(u32, Via)],
    pages: &BTreeMap<u32, Page>,
    urls: &UrlTable,
    links: &LinkSet,
) -> Sheet {
    let columns = vec![
        Column::new("URL", 60.0),
        Column::new("Resolved URL", 60.0),
        Column::new("Status Code", 8.0),
        Column::new("Indexability", 14.0),
        Column::new("Has Vector", 8.0),
        Column::new("Eligible", 8.0),
        Column::wrapped("Reason", 40.0),
        Column::new("Source Eligible", 9.0),
        Column::wrapped("Source Reason", 30.0),
        Column::new("Destination Eligible", 11.0),
        Column::wrapped("Destination Reason", 30.0),
        Column::new("Body Inlinks", 9.0),
    ];
    let body = links.body_sources();
    let mut sheet = Sheet::new("Pages", columns);
    for row in inventory {
        let Some(id) = row.id else {
            let mut cells = vec![
                Cell::text(&row.written),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                yes_no(false),
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
            ];
            cells.extend([
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
                yes_no(false),
                Cell::text("not an absolute http(s) URL"),
                Cell::Empty,
            ]);
            sheet.rows.push(cells);
            continue;
        };
        let (f, via) = resolved[id as usize];
        let page = pages.get(&f);
        let identity_reason = match via {
            Via::Itself => row.note.clone(),
            Via::Redirect => Some(format!("redirects to {}", urls.url(f))),
            Via::Canonical => Some(format!("canonicalised to {}", urls.url(f))),
            Via::Loop => Some("redirect or canonical loop".into()),
            Via::TooLong => Some(format!(
                "redirect chain longer than {} hops",
                crate::normalize::identity::MAX_HOPS
            )),
        };
        let (source, destination) = match (&identity_reason, page) {
            (Some(why), _) => (Err(why.clone()), Err(why.clone())),
            (None, Some(p)) => (p.decision.source.clone(), p.decision.destination.clone()),
            (None, None) => (
                Err("not in the embeddings export".to_string()),
                Err("not in the embeddings export".to_string()),
            ),
        };
        let eligible = source.is_ok() || destination.is_ok();
        let reason = match (&source, &destination) {
            (Err(a), Err(b)) if a == b => a.clone(),
            (Err(a), Err(b)) => format!("source: {a}; destination: {b}"),
            (Err(a), Ok(())) => format!("destination only; source: {a}"),
            (Ok(()), Err(b)) => format!("source only; destination: {b}"),
            (Ok(()), Ok(())) => String::new(),
        };
        let facts = page.map(|p| &p.facts);
        sheet.rows.push(vec![
            Cell::Url(row.written.clone()),
            Cell::Url(urls.url(f).to_string()),
            facts
                .and_then(|f| f.status_code)
                .map_or(Cell::Empty, |c| Cell::Int(i64::from(c))),
            Cell::text(
                facts
                    .and_then(|f| f.indexability.clone())
                    .unwrap_or_default(),
            ),
            yes_no(page.is_some_and(|p| p.vector.is_some()) && via == Via::Itself),
            yes_no(eligible),
            Cell::text(reason),
            yes_no(source.is_ok()),
            Cell::text(source.err().unwrap_or_default()),
            yes_no(destination.is_ok()),
            Cell::text(destination.err().unwrap_or_default()),
            Cell::Int(body.get(&f).map_or(0, Vec::len) as i64),
        ]);
    }
    sheet
}

fn rejected_sheet(report: &Report) -> Sheet {
    let columns = vec![
        Column::new("File", 30.0),
        Column::new("Sheet", 14.0),
        Column::new("Row", 8.0),
        Column::new("Column", 30.0),
        Column::wrapped("Problem", 60.0),
        Column::wrapped("Value", 60.0),
    ];
    let mut sheet = Sheet::new("Rejected Rows", columns);
    let mut rejections: Vec<_> = report.rejections().iter().collect();
    rejections.sort_by(|a, b| (&a.file, a.row).cmp(&(&b.file, b.row)));
    for r in rejections {
        sheet.rows.push(vec![
            Cell::text(&r.file),
            Cell::text(r.sheet.clone().unwrap_or_default()),
            Cell::Int(r.row as i64),
            Cell::text(&r.column),
            Cell::text(&r.problem),
            Cell::text(&r.value),
        ]);
    }
    if report.rejections_dropped() > 0 {
        sheet.rows.push(vec![
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::text(format!(
                "… and {} more rejected rows not listed",
                report.rejections_dropped()
            )),
            Cell::Empty,
        ]);
    }
    sheet
}

#[allow(clippy::too_many_arguments)]
fn run_sheet(
    config: &RunConfig,
    report: &Report,
    emb: &Embeddings,
    internal: Option<&Internal>,
    digests: &[(PathBuf, io::Result<(u64, String)>)],
    links: &LinkSet,
    counts: &Counts,
    search_seconds: f64,
    tables: &[Option<&Table>],
) -> Sheet {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut kv = |k: &str, v: String| rows.push((k.to_string(), v));
    kv("Client", config.client.clone());
    kv("Run date", now_utc());
    let crawl = internal
        .and_then(|i| i.crawl_timestamp.clone())
        .or_else(|| emb.crawl_timestamp.clone());
    kv(
        "Crawl date",
        crawl.map_or_else(
            || {
                format!(
                    "{} (file date of the All Inlinks export)",
                    file_date(&config.inputs.inlinks)
                )
            },
            |t| t.chars().take(10).collect(),
        ),
    );
    kv(
        "Tool version",
        format!("linkgap {}", env!("CARGO_PKG_VERSION")),
    );
    let roles = [
        ("embeddings", Some(&config.inputs.embeddings)),
        ("All Inlinks", Some(&config.inputs.inlinks)),
        ("Internal: All", config.inputs.internal.as_ref()),
    ];
    for (role, path) in roles {
        let Some(path) = path else {
            kv(&format!("Input: {role}"), "not given".into());
            continue;
        };
        let digest = digests.iter().find(|(p, _)| p == path).map(|(_, d)| d);
        let detail = match digest {
            Some(Ok((size, sha))) => format!("{size} bytes, SHA-256 {sha}"),
            Some(Err(e)) => format!("checksum failed: {e}"),
            None => String::new(),
        };
        let table = tables
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
            &format!("Input: {role}"),
            format!("{} ({detail}{format})", path.display()),
        );
    }
    kv(
        "Embedding column",
        format!(
            "{} ({})",
            emb.column,
            emb.choice.map_or("", |c| c.describe())
        ),
    );
    kv(
        "Embedding model",
        emb.model
            .clone()
            .unwrap_or_else(|| "not recorded in the export".into()),
    );
    kv("Embedding dimension", emb.dim.to_string());
    kv("Top k", config.top_k.to_string());
    kv(
        "Similarity",
        "cosine of the page vectors, exact search".into(),
    );
    kv(
        "Near-duplicate threshold",
        format!("{:.2}", config.near_duplicate),
    );
    kv(
        "Body link positions",
        config.link_rules.body_positions.join(", "),
    );
    kv(
        "Template blocks",
        if config.link_rules.template_share > 0.0 {
            format!(
                "a Content link whose Link Path and destination repeat on at least {} linking pages ({}% of them, minimum {}) is a template link; {} links in {} blocks reclassified",
                links.template_floor,
                config.link_rules.template_share * 100.0,
                config.link_rules.template_min_pages,
                links.reclassified,
                links.reclassified_blocks
            )
        } else {
            "off".into()
        },
    );
    for (k, v) in config
        .url_rules
        .describe()
        .into_iter()
        .chain(config.eligibility.describe())
    {
        kv(&k, v);
    }
    for s in report.files() {
        let skipped = if s.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                s.skipped
                    .iter()
                    .map(|(r, n)| format!("{n} {r}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        let roles: Vec<String> = s.roles.iter().map(ToString::to_string).collect();
        kv(
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
    for (status, n) in &counts.by_status {
        kv(
            &format!("Neighbour pairs: {}", status.label()),
            n.to_string(),
        );
    }
    kv(
        "Link opportunities (Queue rows)",
        counts.opportunities.to_string(),
    );
    kv("Search time", format!("{search_seconds:.2} s"));
    for note in report.notes() {
        kv("Note", note.clone());
    }
    kv("Caveat", "Similarity finds candidate pages; it is not a promise of rankings. People decide which links to add and where.".into());
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

fn file_date(path: &Path) -> String {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or_else(
            |_| "unknown".into(),
            |t| format_time(t).chars().take(10).collect(),
        )
}

fn now_utc() -> String {
    format_time(SystemTime::now())
}

/// `YYYY-MM-DD HH:MM UTC` without a date library (Howard Hinnant's civil-from-days).
pub fn format_time(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_format_without_a_library() {
        assert_eq!(format_time(SystemTime::UNIX_EPOCH), "1970-01-01 00:00 UTC");
        assert_eq!(
            format_time(SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000)),
            "2026-11-30 00:53 UTC"
        );
        assert_eq!(
            format_time(SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29 00:00 UTC"
        );
    }

    #[test]
    fn linking_list_is_capped() {
        let many: Vec<String> = (0..60).map(|i| format!("https://a/{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(list_urls(&refs).ends_with("(+10 more)"));
        assert_eq!(list_urls(&[]), "none");
    }
}
